/*-------------------------------------------------------------------------
 *
 * blinkheap_handler.c
 *	  The blinkheap table access method's handler: its TableAmRoutine,
 *	  slot type, storage creation and truncation, size estimates, TOAST
 *	  settings, and the callbacks left to a later phase.
 *
 * TOAST: a blinkheap table's TOAST table is an ordinary heap table
 * (relation_toast_am returns HEAP_TABLE_AM_OID); heap's TOAST code
 * (heap_toast_insert_or_update, heap_toast_delete) moves long values
 * there and writes it with heap's own WAL.  Only the blinkheap table's
 * own pages use generic WAL.
 *
 * Reloptions: PostgreSQL 15 parses a table's reloptions with
 * heap_reloptions whatever its access method, so blinkheap accepts exactly
 * the options heap accepts and rejects the rest with heap's error.
 * fillfactor is honoured by inserts; the vacuum and autovacuum options
 * work as for heap (VACUUM: blinkheap_vacuum.c).
 *
 * The callbacks live in the files of their group: scans, TABLESAMPLE
 * and bitmap heap scans in blinkheap_scan.c and blinkheap_bitmap.c,
 * SET TABLESPACE, CLUSTER and VACUUM FULL in blinkheap_rewrite.c,
 * INSERT ... ON CONFLICT's speculative insertion in blinkheap_dml.c.
 *
 * src/table/blinkheap_handler.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/heaptoast.h"
#include "access/multixact.h"
#include "access/tableam.h"
#include "catalog/pg_am_d.h"
#include "catalog/storage.h"
#include "catalog/storage_xlog.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "optimizer/plancat.h"
#include "storage/smgr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"

#include "common/pool.h"
#include "table/blinkheap.h"

PG_FUNCTION_INFO_V1(blinkheap_handler);

static const TupleTableSlotOps *
blinkheap_slot_callbacks(Relation rel)
{
	/* tuples are HeapTupleHeaders in pinned buffers, exactly like heap's */
	return &TTSOpsBufferHeapTuple;
}

static void
blinkheap_relation_set_new_filenode(Relation rel, const RelFileNode *newrnode,
									char persistence,
									TransactionId *freezeXid,
									MultiXactId *minmulti)
{
	SMgrRelation srel;

	/* no tuple in the new storage is older than these */
	*freezeXid = RecentXmin;
	*minmulti = GetOldestMultiXactId();

	srel = RelationCreateStorage(*newrnode, persistence, true);

	/*
	 * An unlogged table gets an empty init fork, copied over the main fork
	 * after a crash: an empty blinkheap table is simply zero blocks.
	 */
	if (persistence == RELPERSISTENCE_UNLOGGED)
	{
		smgrcreate(srel, INIT_FORKNUM, false);
		log_smgrcreate(newrnode, INIT_FORKNUM);
		smgrimmedsync(srel, INIT_FORKNUM);
	}
	smgrclose(srel);
}

static void
blinkheap_relation_nontransactional_truncate(Relation rel)
{
	RelationTruncate(rel, 0);
}

static bool
blinkheap_relation_needs_toast_table(Relation rel)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int32		data_length = 0;
	bool		unbounded = false;
	bool		toastable = false;
	int			i;

	/* the widest row the column types allow, laid out like heap_fill_tuple */
	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		int32		maxlen;

		if (att->attisdropped)
			continue;
		data_length = att_align_nominal(data_length, att->attalign);
		if (att->attlen > 0)
		{
			data_length += att->attlen;
			continue;
		}
		maxlen = type_maximum_size(att->atttypid, att->atttypmod);
		if (maxlen < 0)
			unbounded = true;
		else
			data_length += maxlen;
		if (att->attstorage != TYPSTORAGE_PLAIN)
			toastable = true;
	}
	if (!toastable)
		return false;
	if (unbounded)
		return true;
	return MAXALIGN(SizeofHeapTupleHeader + BITMAPLEN(desc->natts)) +
		MAXALIGN(data_length) > TOAST_TUPLE_THRESHOLD;
}

static Oid
blinkheap_relation_toast_am(Relation rel)
{
	return HEAP_TABLE_AM_OID;
}

/*
 * The planner's size estimate.  heap's rule
 * (table_block_relation_estimate_size) scales the row density of the last
 * VACUUM or ANALYZE to the file's size now.  A blinkheap table's file also
 * holds the zero pages its pool keeps for inserts to come (common/pool.c):
 * a table of 16 pages gets 16 more at its pool's first refill, so heap's
 * rule would double the rows of a small table analyzed just before (a run
 * of PostgreSQL's own regression suite over blinkheap: stats_ext's
 * estimate of 11 rows became 22).  So the rows are scaled by the pages in
 * use -- the file's blocks less those its pool holds now -- but never by
 * fewer than relpages where the file still has them: ANALYZE takes
 * relpages from the file, pool pages included, and a table analyzed while
 * its pool was full would otherwise be estimated at a fraction of its
 * rows.  The pages reported are the file's: a sequential scan reads them
 * all.  Otherwise as heap: ten pages for a table never vacuumed or
 * analyzed (without inheritance children), the density from the column
 * widths until then, and no pages all-visible (there is no visibility map,
 * so index-only scans always visit the table).
 */
static void
blinkheap_relation_estimate_size(Relation rel, int32 *attr_widths,
								 BlockNumber *pages, double *tuples,
								 double *allvisfrac)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);
	BlockNumber held = (BlockNumber) blinkam_pool_held(rel);
	BlockNumber relpages = (BlockNumber) rel->rd_rel->relpages;
	double		reltuples = (double) rel->rd_rel->reltuples;
	BlockNumber used;
	double		density;

	used = held < nblocks ? nblocks - held : 0;
	used = Max(used, Min(relpages, nblocks));
	if (reltuples < 0 && !rel->rd_rel->relhassubclass && used < 10)
	{
		used = 10;
		nblocks = Max(nblocks, 10);
	}

	*pages = nblocks;
	*allvisfrac = 0;
	if (used == 0)
	{
		*tuples = 0;
		return;
	}
	if (reltuples >= 0 && relpages > 0)
		density = reltuples / relpages;
	else
	{
		int32		width = get_rel_data_width(rel, attr_widths) +
			MAXALIGN(SizeofHeapTupleHeader) + sizeof(ItemIdData);

		/* whole rows per page, as heap counts them */
		density = (BLCKSZ - SizeOfPageHeaderData - BLINKHEAP_SPECIAL_SIZE) / width;
	}
	*tuples = rint(density * used);
}


static const TableAmRoutine blinkheap_methods = {
	.type = T_TableAmRoutine,

	.slot_callbacks = blinkheap_slot_callbacks,

	.scan_begin = blinkheap_scan_begin,
	.scan_end = blinkheap_scan_end,
	.scan_rescan = blinkheap_scan_rescan,
	.scan_getnextslot = blinkheap_scan_getnextslot,

	.scan_set_tidrange = blinkheap_scan_set_tidrange,
	.scan_getnextslot_tidrange = blinkheap_scan_getnextslot_tidrange,

	.parallelscan_estimate = table_block_parallelscan_estimate,
	.parallelscan_initialize = table_block_parallelscan_initialize,
	.parallelscan_reinitialize = table_block_parallelscan_reinitialize,

	.index_fetch_begin = blinkheap_index_fetch_begin,
	.index_fetch_reset = blinkheap_index_fetch_reset,
	.index_fetch_end = blinkheap_index_fetch_end,
	.index_fetch_tuple = blinkheap_index_fetch_tuple,

	.tuple_insert = blinkheap_tuple_insert,
	.tuple_insert_speculative = blinkheap_tuple_insert_speculative,
	.tuple_complete_speculative = blinkheap_tuple_complete_speculative,
	.multi_insert = blinkheap_multi_insert,
	.tuple_delete = blinkheap_tuple_delete,
	.tuple_update = blinkheap_tuple_update,
	.tuple_lock = blinkheap_tuple_lock,
	.finish_bulk_insert = NULL,

	.tuple_fetch_row_version = blinkheap_tuple_fetch_row_version,
	.tuple_get_latest_tid = blinkheap_tuple_get_latest_tid,
	.tuple_tid_valid = blinkheap_tuple_tid_valid,
	.tuple_satisfies_snapshot = blinkheap_tuple_satisfies_snapshot,
	.index_delete_tuples = blinkheap_index_delete_tuples,

	.relation_set_new_filenode = blinkheap_relation_set_new_filenode,
	.relation_nontransactional_truncate = blinkheap_relation_nontransactional_truncate,
	.relation_copy_data = blinkheap_relation_copy_data,
	.relation_copy_for_cluster = blinkheap_relation_copy_for_cluster,
	.relation_vacuum = blinkheap_relation_vacuum,
	.scan_analyze_next_block = blinkheap_scan_analyze_next_block,
	.scan_analyze_next_tuple = blinkheap_scan_analyze_next_tuple,
	.index_build_range_scan = blinkheap_index_build_range_scan,
	.index_validate_scan = blinkheap_index_validate_scan,

	.relation_size = table_block_relation_size,
	.relation_needs_toast_table = blinkheap_relation_needs_toast_table,
	.relation_toast_am = blinkheap_relation_toast_am,
	/* never called: a blinkheap table is never itself a TOAST table */
	.relation_fetch_toast_slice = heap_fetch_toast_slice,

	.relation_estimate_size = blinkheap_relation_estimate_size,

	.scan_bitmap_next_block = blinkheap_scan_bitmap_next_block,
	.scan_bitmap_next_tuple = blinkheap_scan_bitmap_next_tuple,
	.scan_sample_next_block = blinkheap_scan_sample_next_block,
	.scan_sample_next_tuple = blinkheap_scan_sample_next_tuple
};

const TableAmRoutine *
blinkheap_routine(void)
{
	return &blinkheap_methods;
}

Datum
blinkheap_handler(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(&blinkheap_methods);
}
