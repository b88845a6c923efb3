/*-------------------------------------------------------------------------
 *
 * blinkheap_rewrite.c
 *	  Whole-table copies of blinkheap tables: ALTER TABLE ... SET
 *	  TABLESPACE (relation_copy_data), CLUSTER and VACUUM FULL
 *	  (relation_copy_for_cluster).
 *
 * SET TABLESPACE copies the relation file by file, block by block, at the
 * storage manager level (RelationCopyStorage), exactly as PostgreSQL does
 * for heap.  That path knows nothing of the access method: it WAL-logs
 * every block it copies as a full-page image (log_newpage, or nothing when
 * wal_level = minimal lets the new file be synced at commit instead).  A
 * full-page image of a blinkheap page is that page, so redo and standbys
 * get exactly the primary's bytes; no generic WAL record is involved and
 * none is needed, since the new file is an exact copy of pages that were
 * themselves fully logged.  Nothing is read through shared buffers, so
 * the old relation's dirty buffers are flushed first.
 *
 * CLUSTER and VACUUM FULL read every tuple of the old table under the
 * AccessExclusiveLock cluster.c holds on it, in the order of the index
 * if one is given (through an index scan, or a sequential scan feeding a
 * tuplesort when the planner says that is cheaper), and judge each with
 * _bh_satisfies_vacuum against OldestXmin.  DEAD tuples are dropped; all
 * others (live, recently dead, our own in-progress inserts and deletes)
 * are rebuilt for the new tuple descriptor (dropped columns become
 * NULL), keep their xmin, xmax, command id and transaction infomask bits,
 * are frozen as heap_prepare_freeze_tuple decides, and are appended to
 * the new table.
 *
 * The new table is written a page at a time: tuples are collected on a
 * private page image, and when the next one does not fit (leaving the
 * fillfactor's free space), the relation is extended by one block and the
 * image is written in ONE generic WAL record registered with
 * GENERIC_XLOG_FULL_IMAGE.  No buffer lock is held while a tuple is
 * prepared, so TOAST work (which writes the TOAST table with heap's WAL)
 * never runs under one.  rewriteheap.c is not used: it writes heap WAL
 * records and logical-decoding rewrite mappings, neither of which applies
 * to a table logged with generic WAL.
 *
 * Update chains are carried over.  A kept version that was updated (xmax
 * an updater, not only a locker, and t_ctid pointing elsewhere) must
 * point at its successor's NEW TID: a REPEATABLE READ transaction whose
 * snapshot predates the update can still lock that old version, and a
 * FOR KEY SHARE lock (a foreign key check) on it must be carried to the
 * newest version, or a DELETE of that one would not wait for it and the
 * child row would be left without its parent.  (Until 2026-11-28 every
 * copy pointed at itself, on the argument that such a transaction could
 * only fail on it; a helper's review found the key-share case,
 * specs/blinkheap_cluster_chain.)  The versions come in any order (heap
 * order, index order, sorted), so two maps join them, as PostgreSQL's
 * own rewrite does: "moved" holds (xmin, old TID) -> new TID of written
 * versions that an update made (HEAP_UPDATED) no earlier than
 * OldestXmin, whose predecessors may still come; "held" holds versions
 * whose successor -- (update xid, old t_ctid) -- has not been written
 * yet.  A version whose successor is in "moved" is written pointing at
 * it; otherwise it is held.  Writing a version then releases the held
 * predecessor waiting for it, which is written pointing at it, and so on
 * down the chain.  The key's xid check is what makes a match a link: an
 * old TID reused by an unrelated row has another xmin.  Versions still
 * held at the end (their successor was not kept) point at themselves, as
 * a deleted version does.  A cross-partition move marker is kept as it
 * is.
 *
 * TOAST: as heap's rewrite does, a rebuilt tuple with external values or
 * over TOAST_TUPLE_THRESHOLD goes through heap_toast_insert_or_update on
 * the NEW relation.  cluster.c arranges for the toast tables to be
 * swapped by content when both tables have one (setting the new
 * relation's rd_toastoid), in which case the toaster keeps every value's
 * OID and writes each value once even when live and recently dead
 * versions share it.
 *
 * src/table/blinkheap_rewrite.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam_xlog.h"
#include "access/heaptoast.h"
#include "access/multixact.h"
#include "access/xact.h"
#include "catalog/catalog.h"
#include "catalog/storage.h"
#include "catalog/storage_xlog.h"
#include "commands/progress.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "storage/smgr.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/tuplesort.h"

#include "common/gxlog.h"
#include "table/blinkheap.h"

/*
 * relation_copy_data: copy every fork of rel to the storage newrnode and
 * schedule the old storage for deletion at commit.  The caller holds
 * AccessExclusiveLock on rel.  No buffer is pinned on entry or exit.
 */
void
blinkheap_relation_copy_data(Relation rel, const RelFileNode *newrnode)
{
	SMgrRelation dst;
	ForkNumber	fork;

	/* the copy reads the files, so they must hold every change */
	FlushRelationBuffers(rel);

	RelationCreateStorage(*newrnode, rel->rd_rel->relpersistence, true);
	dst = smgropen(*newrnode, rel->rd_backend);

	RelationCopyStorage(RelationGetSmgr(rel), dst, MAIN_FORKNUM,
						rel->rd_rel->relpersistence);

	/*
	 * blinkheap writes no visibility map; the free space map and an
	 * unlogged table's init fork are copied if they exist.
	 */
	for (fork = MAIN_FORKNUM + 1; fork <= MAX_FORKNUM; fork++)
	{
		if (!smgrexists(RelationGetSmgr(rel), fork))
			continue;
		smgrcreate(dst, fork, false);
		if (RelationIsPermanent(rel) ||
			(rel->rd_rel->relpersistence == RELPERSISTENCE_UNLOGGED &&
			 fork == INIT_FORKNUM))
			log_smgrcreate(newrnode, fork);
		RelationCopyStorage(RelationGetSmgr(rel), dst, fork,
							rel->rd_rel->relpersistence);
	}

	RelationDropStorage(rel);
	smgrclose(dst);
}

/*
 * The state of one CLUSTER / VACUUM FULL write: the page being filled in
 * private memory, and the freezing cutoffs and their results.
 */
typedef struct BhRewriteState
{
	Relation	old_rel;
	Relation	new_rel;
	TransactionId freeze_xid;	/* freeze xids older than this */
	MultiXactId cutoff_multi;	/* and multis older than this */
	TransactionId new_frozen_xid;	/* oldest xid left unfrozen */
	MultiXactId new_min_multi;	/* oldest multi left */
	Size		save_free;		/* fillfactor's reserve */
	Page		page;			/* private page image being filled */
	bool		page_used;		/* it holds at least one tuple */
	BlockNumber pages_written;
	Datum	   *values;			/* deform/form work arrays */
	bool	   *isnull;
	/* update chains (see the file header) */
	TransactionId oldest_xmin;
	MemoryContext chain_cxt;
	HTAB	   *moved;			/* BhChainKey -> BhMoved */
	HTAB	   *held;			/* BhChainKey -> BhHeld */
} BhRewriteState;

/*
 * One end of an update-chain link: the version whose xmin is xid at TID
 * tid of the old table.  Zeroed before it is filled (hashed as bytes).
 */
typedef struct BhChainKey
{
	TransactionId xid;
	ItemPointerData tid;
} BhChainKey;

/* a written version that a later-read predecessor may point to */
typedef struct BhMoved
{
	BhChainKey	key;			/* (its xmin, its old TID) */
	ItemPointerData new_tid;
} BhMoved;

/* a version waiting for its successor to be written */
typedef struct BhHeld
{
	BhChainKey	key;			/* its successor: (update xid, old t_ctid) */
	ItemPointerData old_tid;	/* its own old TID */
	HeapTuple	tuple;			/* rebuilt (_bh_rewrite_tuple's palloc) */
} BhHeld;

static ItemPointerData _bh_rewrite_add(BhRewriteState *rs, HeapTuple tuple);
static void _bh_rewrite_chain(BhRewriteState *rs, HeapTuple tuple,
							  ItemPointer old_tid, ItemPointer old_ctid);

static void
_bh_chain_key(BhChainKey *key, TransactionId xid, ItemPointer tid)
{
	memset(key, 0, sizeof(BhChainKey));
	key->xid = xid;
	key->tid = *tid;
}

/*
 * Write the private page image as the next block of the new table, in
 * one generic WAL record with a full image, and start a fresh image.
 * Every tuple's t_ctid becomes its own TID (see the file header), except
 * a cross-partition move marker.
 *
 * Nothing is locked on entry or exit; the new block is pinned and locked
 * here only while its record is written.  Nobody else can reach the new
 * relation (cluster.c holds AccessExclusiveLock on it and it is not yet
 * the table's storage), but the extension lock is taken as usual.
 */
static void
_bh_rewrite_flush(BhRewriteState *rs)
{
	Relation	rel = rs->new_rel;
	Buffer		buf;
	BlockNumber blkno;
	BlinkamXLogState *state;
	Page		copy;
	OffsetNumber off,
				maxoff;

	if (!rs->page_used)
		return;

	LockRelationForExtension(rel, ExclusiveLock);
	buf = ReadBufferExtended(rel, MAIN_FORKNUM, P_NEW, RBM_ZERO_AND_LOCK, NULL);
	UnlockRelationForExtension(rel, ExclusiveLock);
	blkno = BufferGetBlockNumber(buf);
	Assert(blkno == rs->pages_written);

	state = blinkam_xlog_start(rel);
	copy = blinkam_xlog_register(state, buf, GENERIC_XLOG_FULL_IMAGE);
	memcpy(copy, rs->page, BLCKSZ);
	maxoff = PageGetMaxOffsetNumber(copy);
	for (off = FirstOffsetNumber; off <= maxoff; off++)
	{
		HeapTupleHeader htup = (HeapTupleHeader)
		PageGetItem(copy, PageGetItemId(copy, off));

		/* invalid, or a cross-partition move marker that stays */
		if (!ItemPointerIsValid(&htup->t_ctid))
			ItemPointerSet(&htup->t_ctid, blkno, off);
	}
	blinkam_xlog_finish(state);
	UnlockReleaseBuffer(buf);

	rs->pages_written++;
	_bh_init_page(rs->page);
	rs->page_used = false;
}

/*
 * Rebuild one kept tuple of the old table for the new one, freeze it,
 * toast it if needed and add it to the page being filled (writing that
 * page first when the tuple does not fit).  tuple may point into a
 * buffer of the old table that the caller has pinned (not locked);
 * nothing is locked here except inside _bh_rewrite_flush.
 */
static void
_bh_rewrite_tuple(BhRewriteState *rs, HeapTuple tuple)
{
	TupleDesc	olddesc = RelationGetDescr(rs->old_rel);
	TupleDesc	newdesc = RelationGetDescr(rs->new_rel);
	HeapTuple	copy;
	HeapTuple	stored;
	xl_heap_freeze_tuple frz;
	bool		totally_frozen;
	int			i;

	heap_deform_tuple(tuple, olddesc, rs->values, rs->isnull);
	for (i = 0; i < newdesc->natts; i++)
	{
		if (TupleDescAttr(newdesc, i)->attisdropped)
			rs->isnull[i] = true;
	}
	copy = heap_form_tuple(newdesc, rs->values, rs->isnull);

	/* the old version's transaction fields, hint bits included */
	memcpy(&copy->t_data->t_choice.t_heap, &tuple->t_data->t_choice.t_heap,
		   sizeof(HeapTupleFields));
	copy->t_data->t_infomask &= ~HEAP_XACT_MASK;
	copy->t_data->t_infomask |= tuple->t_data->t_infomask & HEAP_XACT_MASK;
	copy->t_data->t_infomask2 &= ~HEAP2_XACT_MASK;
	copy->t_data->t_infomask2 |= tuple->t_data->t_infomask2 & HEAP_KEYS_UPDATED;
	if (HeapTupleHeaderIndicatesMovedPartitions(tuple->t_data))
		HeapTupleHeaderSetMovedPartitions(copy->t_data);
	else
		ItemPointerSetInvalid(&copy->t_data->t_ctid);
	copy->t_tableOid = RelationGetRelid(rs->new_rel);

	if (heap_prepare_freeze_tuple(copy->t_data,
								  rs->old_rel->rd_rel->relfrozenxid,
								  rs->old_rel->rd_rel->relminmxid,
								  rs->freeze_xid, rs->cutoff_multi,
								  &frz, &totally_frozen,
								  &rs->new_frozen_xid, &rs->new_min_multi))
		heap_execute_freeze_tuple(copy->t_data, &frz);

	/* as heap's rewrite: toast into the new relation (see file header) */
	if (HeapTupleHasExternal(copy) || copy->t_len > TOAST_TUPLE_THRESHOLD)
		stored = heap_toast_insert_or_update(rs->new_rel, copy, NULL,
											 HEAP_INSERT_SKIP_FSM |
											 HEAP_INSERT_NO_LOGICAL);
	else
		stored = copy;

	if (stored != copy)
	{
		heap_freetuple(copy);
		copy = stored;
	}
	_bh_rewrite_chain(rs, copy, &tuple->t_self, &tuple->t_data->t_ctid);
}

/*
 * Add tuple (its t_ctid set: invalid for "itself", or a new TID, or a
 * cross-partition move marker) to the page being filled, writing that
 * page first when the tuple does not fit; returns its new TID.
 */
static ItemPointerData
_bh_rewrite_add(BhRewriteState *rs, HeapTuple tuple)
{
	Size		len = MAXALIGN(tuple->t_len);
	OffsetNumber off;
	ItemPointerData tid;

	if (len > BLINKHEAP_MAX_TUPLE_SIZE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("row is too big: size %zu, maximum size %zu",
						len, (Size) BLINKHEAP_MAX_TUPLE_SIZE)));

	/* a page always takes its first tuple; later ones leave the reserve */
	if (rs->page_used &&
		len + rs->save_free > _bh_page_free_space(rs->page))
		_bh_rewrite_flush(rs);
	off = PageAddItemExtended(rs->page, (Item) tuple->t_data, tuple->t_len,
							  InvalidOffsetNumber, PAI_IS_HEAP);
	if (off == InvalidOffsetNumber)
		elog(ERROR, "failed to add tuple to a new page of blinkheap table \"%s\"",
			 RelationGetRelationName(rs->new_rel));
	rs->page_used = true;
	ItemPointerSet(&tid, rs->pages_written, off);
	return tid;
}

/*
 * Write tuple, the rebuilt copy (palloc'd; freed once written) of the
 * version at old_tid whose old t_ctid was old_ctid, keeping its update
 * chain (see the file header): point it at its successor's new TID, or
 * hold it until that is known; once written, release the predecessor held
 * for it, and so on.
 */
static void
_bh_rewrite_chain(BhRewriteState *rs, HeapTuple tuple, ItemPointer old_tid,
				  ItemPointer old_ctid)
{
	HeapTupleHeader htup = tuple->t_data;
	ItemPointerData self = *old_tid;
	BhChainKey	key;
	bool		found;

	/* (the copy's own t_ctid is not set yet: the old one tells) */
	if (!(htup->t_infomask & HEAP_XMAX_INVALID) &&
		!HeapTupleHeaderIsOnlyLocked(htup) &&
		!ItemPointerIndicatesMovedPartitions(old_ctid) &&
		!ItemPointerEquals(old_tid, old_ctid))
	{
		BhMoved    *moved;

		_bh_chain_key(&key, HeapTupleHeaderGetUpdateXid(htup), old_ctid);
		moved = hash_search(rs->moved, &key, HASH_FIND, NULL);
		if (moved != NULL)
			htup->t_ctid = moved->new_tid;
		else
		{
			BhHeld	   *held = hash_search(rs->held, &key, HASH_ENTER, &found);

			/* one successor has one predecessor; else end this one here */
			if (!found)
			{
				held->old_tid = self;
				held->tuple = tuple;	/* kept as it is until written */
				return;
			}
		}
	}

	for (;;)
	{
		ItemPointerData new_tid = _bh_rewrite_add(rs, tuple);
		TransactionId xmin = HeapTupleHeaderGetXmin(tuple->t_data);
		bool		made_by_update =
			(tuple->t_data->t_infomask & HEAP_UPDATED) != 0;
		BhHeld	   *held;

		pfree(tuple);

		/*
		 * A predecessor can still be kept only if the update that made
		 * this version is no older than OldestXmin (an older one left it
		 * DEAD).
		 */
		if (!made_by_update || !TransactionIdIsNormal(xmin) ||
			TransactionIdPrecedes(xmin, rs->oldest_xmin))
			return;
		_bh_chain_key(&key, xmin, &self);
		held = hash_search(rs->held, &key, HASH_FIND, NULL);
		if (held == NULL)
		{
			BhMoved    *moved = hash_search(rs->moved, &key, HASH_ENTER, &found);

			moved->new_tid = new_tid;
			return;
		}
		/* the predecessor waiting for this version goes next */
		tuple = held->tuple;
		self = held->old_tid;
		tuple->t_data->t_ctid = new_tid;
		hash_search(rs->held, &key, HASH_REMOVE, NULL);
	}
}

/*
 * The versions still held at the end of the copy: their successors were
 * not kept, so each ends its chain, pointing at itself.
 */
static void
_bh_rewrite_chain_end(BhRewriteState *rs)
{
	HASH_SEQ_STATUS status;
	BhHeld	   *held;

	hash_seq_init(&status, rs->held);
	while ((held = hash_seq_search(&status)) != NULL)
	{
		(void) _bh_rewrite_add(rs, held->tuple);
		pfree(held->tuple);
	}
}

/*
 * relation_copy_for_cluster: see the file header.  The caller
 * (cluster.c's copy_table_data) holds AccessExclusiveLock on both tables
 * and has made the new one empty.  No buffer is locked on entry or exit;
 * the scans keep a pin on the old table's current page between tuples.
 */
void
blinkheap_relation_copy_for_cluster(Relation OldTable, Relation NewTable,
									Relation OldIndex, bool use_sort,
									TransactionId OldestXmin,
									TransactionId *xid_cutoff,
									MultiXactId *multi_cutoff,
									double *num_tuples,
									double *tups_vacuumed,
									double *tups_recently_dead)
{
	BhRewriteState rs;
	bool		is_catalog = IsSystemRelation(OldTable);
	Tuplesortstate *sort = NULL;
	IndexScanDesc iscan = NULL;
	TableScanDesc tscan = NULL;
	TupleTableSlot *slot;
	BlockNumber last_block = InvalidBlockNumber;
	BlockNumber scanned = 0;

	Assert(RelationGetNumberOfBlocks(NewTable) == 0);

	memset(&rs, 0, sizeof(rs));
	rs.old_rel = OldTable;
	rs.new_rel = NewTable;
	rs.freeze_xid = *xid_cutoff;
	rs.cutoff_multi = *multi_cutoff;
	/* as VACUUM: nothing kept can be newer than these need to be */
	rs.new_frozen_xid = OldestXmin;
	rs.new_min_multi = GetOldestMultiXactId();
	rs.save_free = RelationGetTargetPageFreeSpace(NewTable,
												  HEAP_DEFAULT_FILLFACTOR);
	rs.page = palloc(BLCKSZ);
	_bh_init_page(rs.page);
	rs.values = palloc(sizeof(Datum) * RelationGetDescr(NewTable)->natts);
	rs.isnull = palloc(sizeof(bool) * RelationGetDescr(NewTable)->natts);
	rs.oldest_xmin = OldestXmin;
	rs.chain_cxt = AllocSetContextCreate(CurrentMemoryContext,
										 "blinkheap rewrite chains",
										 ALLOCSET_DEFAULT_SIZES);
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(BhChainKey);
		ctl.hcxt = rs.chain_cxt;
		ctl.entrysize = sizeof(BhMoved);
		rs.moved = hash_create("blinkheap rewrite moved versions", 1024, &ctl,
							   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		ctl.entrysize = sizeof(BhHeld);
		rs.held = hash_create("blinkheap rewrite held versions", 128, &ctl,
							  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}

	if (use_sort)
		sort = tuplesort_begin_cluster(RelationGetDescr(OldTable), OldIndex,
									   maintenance_work_mem, NULL,
									   TUPLESORT_NONE);

	/* SnapshotAny: every version; _bh_satisfies_vacuum decides below */
	if (OldIndex != NULL && !use_sort)
	{
		pgstat_progress_update_param(PROGRESS_CLUSTER_PHASE,
									 PROGRESS_CLUSTER_PHASE_INDEX_SCAN_HEAP);
		pgstat_progress_update_param(PROGRESS_CLUSTER_INDEX_RELID,
									 RelationGetRelid(OldIndex));
		iscan = index_beginscan(OldTable, OldIndex, SnapshotAny, 0, 0);
		index_rescan(iscan, NULL, 0, NULL, 0);
	}
	else
	{
		pgstat_progress_update_param(PROGRESS_CLUSTER_PHASE,
									 PROGRESS_CLUSTER_PHASE_SEQ_SCAN_HEAP);
		tscan = table_beginscan(OldTable, SnapshotAny, 0, NULL);
		pgstat_progress_update_param(PROGRESS_CLUSTER_TOTAL_HEAP_BLKS,
									 ((BlinkheapScanDesc) tscan)->rs_nblocks);
	}
	slot = table_slot_create(OldTable, NULL);

	for (;;)
	{
		HeapTuple	tuple;
		Buffer		buf;
		bool		keep = true;

		CHECK_FOR_INTERRUPTS();

		if (iscan != NULL)
		{
			if (!index_getnext_slot(iscan, ForwardScanDirection, slot))
				break;
			if (iscan->xs_recheck)
				elog(ERROR, "CLUSTER does not support lossy index conditions");
		}
		else
		{
			BlinkheapScanDesc bscan = (BlinkheapScanDesc) tscan;

			if (!table_scan_getnextslot(tscan, ForwardScanDirection, slot))
			{
				pgstat_progress_update_param(PROGRESS_CLUSTER_HEAP_BLKS_SCANNED,
											 bscan->rs_nblocks);
				break;
			}
			if (bscan->rs_cblock != last_block)
			{
				last_block = bscan->rs_cblock;
				pgstat_progress_update_param(PROGRESS_CLUSTER_HEAP_BLKS_SCANNED,
											 ++scanned);
			}
		}

		tuple = ExecFetchSlotHeapTuple(slot, false, NULL);
		buf = ((BufferHeapTupleTableSlot *) slot)->buffer;
		Assert(BufferIsValid(buf));

		/* xmax may change under a share lock only with our own lock held */
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		switch (_bh_satisfies_vacuum(tuple, OldestXmin))
		{
			case HEAPTUPLE_DEAD:
				keep = false;
				break;
			case HEAPTUPLE_RECENTLY_DEAD:
				*tups_recently_dead += 1;
				break;
			case HEAPTUPLE_LIVE:
				break;
			case HEAPTUPLE_INSERT_IN_PROGRESS:
				/* with AccessExclusiveLock held, normally only our own */
				if (!is_catalog &&
					!TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tuple->t_data)))
					elog(WARNING, "concurrent insert in progress within table \"%s\"",
						 RelationGetRelationName(OldTable));
				break;
			case HEAPTUPLE_DELETE_IN_PROGRESS:
				if (!is_catalog &&
					!TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetUpdateXid(tuple->t_data)))
					elog(WARNING, "concurrent delete in progress within table \"%s\"",
						 RelationGetRelationName(OldTable));
				*tups_recently_dead += 1;
				break;
		}
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);

		if (!keep)
		{
			*tups_vacuumed += 1;
			continue;
		}
		*num_tuples += 1;
		if (sort != NULL)
		{
			tuplesort_putheaptuple(sort, tuple);
			pgstat_progress_update_param(PROGRESS_CLUSTER_HEAP_TUPLES_SCANNED,
										 *num_tuples);
		}
		else
		{
			_bh_rewrite_tuple(&rs, tuple);
			pgstat_progress_update_param(PROGRESS_CLUSTER_HEAP_TUPLES_SCANNED,
										 *num_tuples);
			pgstat_progress_update_param(PROGRESS_CLUSTER_HEAP_TUPLES_WRITTEN,
										 *num_tuples);
		}
	}

	ExecDropSingleTupleTableSlot(slot);
	if (iscan != NULL)
		index_endscan(iscan);
	if (tscan != NULL)
		table_endscan(tscan);

	if (sort != NULL)
	{
		HeapTuple	tuple;
		double		written = 0;

		pgstat_progress_update_param(PROGRESS_CLUSTER_PHASE,
									 PROGRESS_CLUSTER_PHASE_SORT_TUPLES);
		tuplesort_performsort(sort);
		pgstat_progress_update_param(PROGRESS_CLUSTER_PHASE,
									 PROGRESS_CLUSTER_PHASE_WRITE_NEW_HEAP);
		while ((tuple = tuplesort_getheaptuple(sort, true)) != NULL)
		{
			CHECK_FOR_INTERRUPTS();
			_bh_rewrite_tuple(&rs, tuple);
			pgstat_progress_update_param(PROGRESS_CLUSTER_HEAP_TUPLES_WRITTEN,
										 ++written);
		}
		tuplesort_end(sort);
	}

	_bh_rewrite_chain_end(&rs);
	_bh_rewrite_flush(&rs);
	MemoryContextDelete(rs.chain_cxt);

	/*
	 * The new relfrozenxid and relminmxid.  Everything older than the
	 * cutoffs was frozen, and the tracked values are at most the oldest xid
	 * and multi left unfrozen, so the later of the two is still a correct
	 * bound, and never behind what cluster.c computed.
	 */
	if (TransactionIdFollows(rs.new_frozen_xid, *xid_cutoff))
		*xid_cutoff = rs.new_frozen_xid;
	if (MultiXactIdPrecedes(*multi_cutoff, rs.new_min_multi))
		*multi_cutoff = rs.new_min_multi;

	pfree(rs.page);
	pfree(rs.values);
	pfree(rs.isnull);
}
