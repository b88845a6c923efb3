/*-------------------------------------------------------------------------
 *
 * blinkheap.h
 *	  The blinkheap table access method: page format, constants and the
 *	  prototypes its files share.
 *
 * A blinkheap page is a standard PostgreSQL page (PageInit with a small
 * special area), so generic WAL can log it.  Items are tuples in exact
 * HeapTupleHeader format: the executor's buffer heap tuple slots, tuple
 * deforming, system columns and TOAST work on them unchanged.  Block 0 is
 * an ordinary data page; there is no metapage.
 *
 * Every page change is one generic WAL record (common/gxlog.h);
 * see src/README ("blinkheap") for the list of WAL actions and the lock
 * order.  Hint bits are never set outside such a record: see the header
 * comment of blinkheap_visibility.c.
 *
 * src/table/blinkheap.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef BLINKHEAP_H
#define BLINKHEAP_H

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "utils/rel.h"
#include "utils/snapshot.h"

#include "common/gxlog.h"

/*
 * The special area of every blinkheap page.
 *
 * bh_page_id sits last, like the index's, so that a tool looking at the
 * last two bytes of a page can tell blink (0xFF8B) from blinkheap pages.
 * bh_reserved is kept zero for the commit-sequence-number work (a page's
 * lowest CSN or similar); nothing reads it yet.
 */
typedef struct BlinkheapPageOpaqueData
{
	uint32		bh_reserved;	/* reserved for CSN visibility; zero */
	uint16		bh_flags;		/* BLINKHEAP_PAGE_* bits; none defined yet */
	uint16		bh_page_id;		/* BLINKHEAP_PAGE_ID */
} BlinkheapPageOpaqueData;

typedef BlinkheapPageOpaqueData *BlinkheapPageOpaque;

#define BLINKHEAP_PAGE_ID		0xFF8C

#define BlinkheapPageGetOpaque(page) \
	((BlinkheapPageOpaque) PageGetSpecialPointer(page))

/* Space for items on an empty page, and the largest tuple that fits. */
#define BLINKHEAP_SPECIAL_SIZE	MAXALIGN(sizeof(BlinkheapPageOpaqueData))
#define BLINKHEAP_MAX_TUPLE_SIZE \
	(BLCKSZ - BLINKHEAP_SPECIAL_SIZE - MAXALIGN(SizeOfPageHeaderData + sizeof(ItemIdData)))

/* At most this many line pointers on one page (heap's limit is lower). */
#define BLINKHEAP_MAX_TUPLES_PER_PAGE	MaxHeapTuplesPerPage

/*
 * Scan state.  Scans are always page-at-a-time: the offsets of a page's
 * visible tuples are copied under a share lock, the pin is kept while the
 * scan returns them (on a primary tuples never move while pinned: VACUUM
 * compacts a page only under a cleanup lock).  A scan that begins during
 * recovery, where redo moves tuples under pins, also copies the page under
 * that lock and returns copies of the tuples (_bh_store_tuple).
 */
typedef struct BlinkheapScanDescData
{
	TableScanDescData rs_base;	/* must be first */

	BlockNumber rs_nblocks;		/* blocks in the relation at scan start */
	BlockNumber rs_startblock;	/* first block to scan */
	BlockNumber rs_numblocks;	/* at most this many (InvalidBlockNumber: all) */
	BufferAccessStrategy rs_strategy;

	bool		rs_inited;		/* false before the first page */
	BlockNumber rs_cblock;		/* current block, if rs_inited */
	Buffer		rs_cbuf;		/* its buffer, pinned, or InvalidBuffer */
	BlockNumber rs_nvisited;	/* blocks visited so far */

	/* the current page's visible tuples (page mode) */
	int			rs_cindex;
	int			rs_ntuples;
	OffsetNumber rs_vistuples[BLINKHEAP_MAX_TUPLES_PER_PAGE];

	HeapTupleData rs_ctup;		/* the current tuple */

	/* recovery: the current page as it was under the share lock */
	char	   *rs_pagecopy;	/* BLCKSZ bytes, or NULL on a primary */

	/* TID range scans */
	ItemPointerData rs_mintid;
	ItemPointerData rs_maxtid;

	/* parallel scans: this worker's block allocation state */
	ParallelBlockTableScanWorkerData *rs_pworker;

	/* ANALYZE: the offset to look at next in rs_cbuf */
	OffsetNumber rs_analyze_off;
} BlinkheapScanDescData;

typedef BlinkheapScanDescData *BlinkheapScanDesc;

/* Index fetch state: the buffer of the last fetched tuple stays pinned. */
typedef struct BlinkheapIndexFetchData
{
	IndexFetchTableData xs_base;	/* must be first */
	Buffer		xs_cbuf;
} BlinkheapIndexFetchData;

/* blinkheap_handler.c */
extern const TableAmRoutine *blinkheap_routine(void);

/* blinkheap_vacuum.c */
extern void blinkheap_relation_vacuum(Relation rel, struct VacuumParams *params,
									  BufferAccessStrategy bstrategy);

/* blinkheap_rewrite.c */
extern void blinkheap_relation_copy_data(Relation rel,
										 const RelFileNode *newrnode);
extern void blinkheap_relation_copy_for_cluster(Relation OldTable,
												Relation NewTable,
												Relation OldIndex,
												bool use_sort,
												TransactionId OldestXmin,
												TransactionId *xid_cutoff,
												MultiXactId *multi_cutoff,
												double *num_tuples,
												double *tups_vacuumed,
												double *tups_recently_dead);

/* blinkheap_bitmap.c */
extern bool blinkheap_scan_bitmap_next_block(TableScanDesc sscan,
											 struct TBMIterateResult *tbmres);
extern bool blinkheap_scan_bitmap_next_tuple(TableScanDesc sscan,
											 struct TBMIterateResult *tbmres,
											 TupleTableSlot *slot);

/* blinkheap_page.c */
extern void _bh_init_page(Page page);

/* blinkheap_visibility.c */
extern void _bh_stamp_xmins(BlinkamXLogState *state, Page page);

/* blinkheap_csn.c */
extern void blinkheap_csn_init(void);
extern void blinkheap_csn_note_write(void);
extern void _bh_csn_forget(void);
extern bool _bh_csn_known_committed(TransactionId xid);
extern bool _bh_xid_visible_committed(TransactionId xid, Snapshot snapshot,
									  bool known_committed);

/* Our xid, for a tuple header we are about to write (see blinkheap_csn.c). */
static inline TransactionId
_bh_writer_xid(void)
{
	blinkheap_csn_note_write();
	return GetCurrentTransactionId();
}
extern void _bh_check_page(Relation rel, Buffer buf);
extern void _bh_corrupted(Relation rel, BlockNumber blkno, OffsetNumber off,
						  const char *detail) pg_attribute_noreturn();
extern bool _bh_get_tuple_at(Relation rel, Page page, BlockNumber blkno,
							 OffsetNumber off, HeapTuple tuple);
extern bool _bh_get_tuple(Relation rel, Buffer buf, OffsetNumber off,
						  HeapTuple tuple);
extern void _bh_store_tuple(TupleTableSlot *slot, HeapTuple tuple, Buffer buf);
extern void _bh_store_copy(TupleTableSlot *slot, HeapTuple tuple);
extern Size _bh_page_free_space(Page page);
extern Size _bh_insert_reserve(Relation rel, Size need);
extern bool _bh_page_has_room(Page page, Size need, Size save);
extern Buffer _bh_get_insert_page(Relation rel, Size len, Buffer otherBuffer,
								  BulkInsertState bistate, bool *is_new);
extern void _bh_lock_pair(Buffer buf, Buffer otherBuffer);

/* blinkheap_pool.c */
extern Buffer _bh_pool_page(Relation rel, Size need, Size save,
							Buffer otherBuffer, BufferAccessStrategy strategy,
							bool *is_new);
extern BlockNumber _bh_pool_block(Relation rel, BlockNumber skip);
extern void _bh_wait_for_extension(Relation rel);
extern void _bh_extend_ahead(Relation rel, BufferAccessStrategy strategy);
extern void blinkheap_init(void);
extern OffsetNumber _bh_place_tuple(Relation rel, Page page, BlockNumber blkno,
									HeapTuple tuple);
extern OffsetNumber _bh_add_tuple_bytes(Page page, BlockNumber blkno,
										const void *data, Size len);

/* blinkheap_hot.c */
extern bool _bh_hot_insert(Relation rel, HeapTuple tup, Buffer *bufp,
						   bool *is_new, BlockNumber *hot);
extern bool _bh_hot_adopt(Relation rel, BlockNumber hot, BlockNumber blkno);
extern void _bh_insert_write(Relation rel, Buffer buf, bool is_new,
							 HeapTuple tup, uint32 specToken,
							 bool record_free_space);
extern void _bh_hot_forget(Relation rel);
extern void blinkheap_hot_init(void);

/* blinkheap_publication.c */
extern void blinkheap_publication_init(void);

/* blinkheap_visibility.c */
extern bool _bh_satisfies(HeapTuple tuple, Snapshot snapshot, Buffer buffer);
extern bool _bh_satisfies_in_page(HeapTuple tuple, Snapshot snapshot,
								  Buffer buffer);
extern TM_Result _bh_satisfies_update(HeapTuple tuple, CommandId curcid);
extern HTSV_Result _bh_satisfies_vacuum_horizon(HeapTuple tuple,
												TransactionId *dead_after);
extern HTSV_Result _bh_satisfies_vacuum(HeapTuple tuple,
										TransactionId OldestXmin);
extern bool _bh_is_surely_dead(HeapTuple tuple, GlobalVisState *vistest);
extern void _bh_serializable_conflict_out(bool visible, Relation rel,
										  HeapTuple tuple, Buffer buffer,
										  Snapshot snapshot);

/* blinkheap_scan.c */
extern TableScanDesc blinkheap_scan_begin(Relation rel, Snapshot snapshot,
										  int nkeys, ScanKey key,
										  ParallelTableScanDesc pscan,
										  uint32 flags);
extern void blinkheap_scan_end(TableScanDesc sscan);
extern void blinkheap_scan_rescan(TableScanDesc sscan, ScanKey key,
								  bool set_params, bool allow_strat,
								  bool allow_sync, bool allow_pagemode);
extern bool blinkheap_scan_getnextslot(TableScanDesc sscan,
									   ScanDirection direction,
									   TupleTableSlot *slot);
extern void blinkheap_scan_set_tidrange(TableScanDesc sscan,
										ItemPointer mintid,
										ItemPointer maxtid);
extern bool blinkheap_scan_getnextslot_tidrange(TableScanDesc sscan,
												ScanDirection direction,
												TupleTableSlot *slot);
extern bool _bh_scan_next_block(BlinkheapScanDesc scan, ScanDirection dir);
extern void _bh_scan_copy_page(BlinkheapScanDesc scan);
extern bool _bh_scan_tuple(BlinkheapScanDesc scan, OffsetNumber off,
						   HeapTuple tuple);
extern void _bh_scan_store(BlinkheapScanDesc scan, TupleTableSlot *slot);
extern void _bh_scan_set_limits(BlinkheapScanDesc scan, BlockNumber start,
								BlockNumber nblocks);
extern bool blinkheap_scan_sample_next_block(TableScanDesc sscan,
											 struct SampleScanState *scanstate);
extern bool blinkheap_scan_sample_next_tuple(TableScanDesc sscan,
											 struct SampleScanState *scanstate,
											 TupleTableSlot *slot);
extern bool blinkheap_scan_analyze_next_block(TableScanDesc sscan,
											  BlockNumber blockno,
											  BufferAccessStrategy bstrategy);
extern bool blinkheap_scan_analyze_next_tuple(TableScanDesc sscan,
											  TransactionId OldestXmin,
											  double *liverows,
											  double *deadrows,
											  TupleTableSlot *slot);

/* blinkheap_fetch.c */
extern IndexFetchTableData *blinkheap_index_fetch_begin(Relation rel);
extern void blinkheap_index_fetch_reset(IndexFetchTableData *scan);
extern void blinkheap_index_fetch_end(IndexFetchTableData *scan);
extern bool blinkheap_index_fetch_tuple(IndexFetchTableData *scan,
										ItemPointer tid, Snapshot snapshot,
										TupleTableSlot *slot,
										bool *call_again, bool *all_dead);
extern bool blinkheap_tuple_fetch_row_version(Relation rel, ItemPointer tid,
											  Snapshot snapshot,
											  TupleTableSlot *slot);
extern bool blinkheap_tuple_tid_valid(TableScanDesc scan, ItemPointer tid);
extern void blinkheap_tuple_get_latest_tid(TableScanDesc scan,
										   ItemPointer tid);
extern bool blinkheap_tuple_satisfies_snapshot(Relation rel,
											   TupleTableSlot *slot,
											   Snapshot snapshot);
extern TransactionId blinkheap_index_delete_tuples(Relation rel,
												   TM_IndexDeleteOp *delstate);
extern bool _bh_fetch(Relation rel, Snapshot snapshot, HeapTuple tuple,
					  Buffer *userbuf, bool keep_buf, TupleTableSlot *slot);

/* blinkheap_dml.c */
extern void blinkheap_tuple_insert(Relation rel, TupleTableSlot *slot,
								   CommandId cid, int options,
								   BulkInsertState bistate);
extern void blinkheap_tuple_insert_speculative(Relation rel,
											   TupleTableSlot *slot,
											   CommandId cid, int options,
											   BulkInsertState bistate,
											   uint32 specToken);
extern void blinkheap_tuple_complete_speculative(Relation rel,
												 TupleTableSlot *slot,
												 uint32 specToken,
												 bool succeeded);
extern void blinkheap_multi_insert(Relation rel, TupleTableSlot **slots,
								   int nslots, CommandId cid, int options,
								   BulkInsertState bistate);
extern TM_Result blinkheap_tuple_delete(Relation rel, ItemPointer tid,
										CommandId cid, Snapshot snapshot,
										Snapshot crosscheck, bool wait,
										TM_FailureData *tmfd,
										bool changingPart);
extern TM_Result blinkheap_tuple_update(Relation rel, ItemPointer otid,
										TupleTableSlot *slot, CommandId cid,
										Snapshot snapshot,
										Snapshot crosscheck, bool wait,
										TM_FailureData *tmfd,
										LockTupleMode *lockmode,
										bool *update_indexes);
extern TM_Result blinkheap_tuple_lock(Relation rel, ItemPointer tid,
									  Snapshot snapshot, TupleTableSlot *slot,
									  CommandId cid, LockTupleMode mode,
									  LockWaitPolicy wait_policy, uint8 flags,
									  TM_FailureData *tmfd);

/* blinkheap_build.c */
extern double blinkheap_index_build_range_scan(Relation table_rel,
											   Relation index_rel,
											   struct IndexInfo *index_info,
											   bool allow_sync,
											   bool anyvisible,
											   bool progress,
											   BlockNumber start_blockno,
											   BlockNumber numblocks,
											   IndexBuildCallback callback,
											   void *callback_state,
											   TableScanDesc scan);
extern void blinkheap_index_validate_scan(Relation table_rel,
										  Relation index_rel,
										  struct IndexInfo *index_info,
										  Snapshot snapshot,
										  struct ValidateIndexState *state);

#endif							/* BLINKHEAP_H */
