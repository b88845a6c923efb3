/*-------------------------------------------------------------------------
 *
 * blinkheap_build.c
 *	  Index build support for blinkheap tables: the table scan that
 *	  CREATE INDEX (and blink_check's heap cross-check) runs.
 *
 * Like heap's, a non-concurrent build looks at every tuple with
 * SnapshotAny and decides by the tuple's vacuum state (our own
 * _bh_satisfies_vacuum, which sets no hint bits): dead tuples are left
 * out, recently dead ones indexed but reported not alive (no uniqueness
 * check), tuples of transactions still in progress are waited for when a
 * uniqueness check could be fooled by them.  A concurrent build scans
 * with its MVCC snapshot.  There are no HOT chains, so every tuple is
 * indexed under its own TID.
 *
 * CREATE INDEX CONCURRENTLY's validation pass (index_validate_scan)
 * inserts the visible tuples the first pass missed.
 *
 * The buffer is share-locked only while a tuple's state is decided;
 * index datums are formed and the callback runs with the pin alone (on a
 * primary tuples never move on a pinned page; during recovery -- only
 * blink_check scans then -- the slot gets a copy made under the lock, see
 * _bh_store_tuple).  blink_check on a standby passes a scan with an MVCC
 * snapshot and ii_Concurrent set, so nothing waits for primary
 * transactions.
 *
 * src/table/blinkheap_build.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/xact.h"
#include "catalog/catalog.h"
#include "catalog/index.h"
#include "commands/progress.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/lmgr.h"
#include "storage/procarray.h"
#include "utils/snapmgr.h"
#include "utils/tuplesort.h"

#include "table/blinkheap.h"

double
blinkheap_index_build_range_scan(Relation heapRelation,
								 Relation indexRelation,
								 IndexInfo *indexInfo,
								 bool allow_sync,
								 bool anyvisible,
								 bool progress,
								 BlockNumber start_blockno,
								 BlockNumber numblocks,
								 IndexBuildCallback callback,
								 void *callback_state,
								 TableScanDesc scan)
{
	bool		is_system_catalog = IsSystemRelation(heapRelation);
	bool		checking_uniqueness = indexInfo->ii_Unique ||
		indexInfo->ii_ExclusionOps != NULL;
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	double		reltuples = 0;
	ExprState  *predicate;
	TupleTableSlot *slot;
	EState	   *estate;
	ExprContext *econtext;
	Snapshot	snapshot;
	bool		need_unregister_snapshot = false;
	TransactionId OldestXmin = InvalidTransactionId;
	BlinkheapScanDesc bscan;
	BlockNumber blocks_done = 0;

	estate = CreateExecutorState();
	econtext = GetPerTupleExprContext(estate);
	slot = table_slot_create(heapRelation, NULL);
	econtext->ecxt_scantuple = slot;
	predicate = ExecPrepareQual(indexInfo->ii_Predicate, estate);

	if (!IsBootstrapProcessingMode() && !indexInfo->ii_Concurrent)
		OldestXmin = GetOldestNonRemovableTransactionId(heapRelation);

	if (scan == NULL)
	{
		if (!TransactionIdIsValid(OldestXmin))
		{
			snapshot = RegisterSnapshot(GetTransactionSnapshot());
			need_unregister_snapshot = true;
		}
		else
			snapshot = SnapshotAny;
		scan = table_beginscan_strat(heapRelation, snapshot, 0, NULL,
									 true, allow_sync);
	}
	else
		snapshot = scan->rs_snapshot;
	Assert(snapshot == SnapshotAny || IsMVCCSnapshot(snapshot));
	if (snapshot == SnapshotAny && !TransactionIdIsValid(OldestXmin))
		OldestXmin = GetOldestNonRemovableTransactionId(heapRelation);

	bscan = (BlinkheapScanDesc) scan;
	if (start_blockno != 0 || numblocks != InvalidBlockNumber)
	{
		Assert(scan->rs_parallel == NULL);
		_bh_scan_set_limits(bscan, start_blockno, numblocks);
	}
	if (progress)
		pgstat_progress_update_param(PROGRESS_SCAN_BLOCKS_TOTAL,
									 bscan->rs_nblocks);

	while (_bh_scan_next_block(bscan, ForwardScanDirection))
	{
		Buffer		buf = bscan->rs_cbuf;
		OffsetNumber off,
					maxoff;

		if (progress)
			pgstat_progress_update_param(PROGRESS_SCAN_BLOCKS_DONE,
										 ++blocks_done);

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		_bh_check_page(heapRelation, buf);
		maxoff = PageIsNew(BufferGetPage(buf)) ? InvalidOffsetNumber :
			PageGetMaxOffsetNumber(BufferGetPage(buf));
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);

		for (off = FirstOffsetNumber; off <= maxoff; off++)
		{
			HeapTuple	tup = &bscan->rs_ctup;
			bool		indexIt = false;
			bool		tupleIsAlive = false;
			TransactionId xwait;

			CHECK_FOR_INTERRUPTS();
			LockBuffer(buf, BUFFER_LOCK_SHARE);
			if (!_bh_get_tuple(heapRelation, buf, off, tup))
			{
				LockBuffer(buf, BUFFER_LOCK_UNLOCK);
				continue;
			}

			if (snapshot != SnapshotAny)
			{
				indexIt = _bh_satisfies(tup, snapshot, buf);
				tupleIsAlive = true;
				if (indexIt)
					reltuples += 1;
			}
			else
			{
		recheck:
				switch (_bh_satisfies_vacuum(tup, OldestXmin))
				{
					case HEAPTUPLE_DEAD:
						break;
					case HEAPTUPLE_LIVE:
						indexIt = tupleIsAlive = true;
						reltuples += 1;
						break;
					case HEAPTUPLE_RECENTLY_DEAD:
						/* still visible to someone: index, but no unique check */
						indexIt = true;
						reltuples += 1;
						break;
					case HEAPTUPLE_INSERT_IN_PROGRESS:
						indexIt = tupleIsAlive = true;
						if (anyvisible)
						{
							reltuples += 1;
							break;
						}
						xwait = HeapTupleHeaderGetXmin(tup->t_data);
						if (TransactionIdIsCurrentTransactionId(xwait))
						{
							reltuples += 1;
							break;
						}
						if (!is_system_catalog)
							elog(WARNING, "concurrent insert in progress within table \"%s\"",
								 RelationGetRelationName(heapRelation));
						if (checking_uniqueness)
						{
							LockBuffer(buf, BUFFER_LOCK_UNLOCK);
							XactLockTableWait(xwait, heapRelation, &tup->t_self,
											  XLTW_InsertIndexUnique);
							CHECK_FOR_INTERRUPTS();
							LockBuffer(buf, BUFFER_LOCK_SHARE);
							indexIt = tupleIsAlive = false;
							goto recheck;
						}
						break;
					case HEAPTUPLE_DELETE_IN_PROGRESS:
						indexIt = true;
						tupleIsAlive = false;
						if (anyvisible)
						{
							reltuples += 1;
							break;
						}
						xwait = HeapTupleHeaderGetUpdateXid(tup->t_data);
						if (TransactionIdIsCurrentTransactionId(xwait))
							break;
						if (!is_system_catalog)
							elog(WARNING, "concurrent delete in progress within table \"%s\"",
								 RelationGetRelationName(heapRelation));
						if (checking_uniqueness)
						{
							LockBuffer(buf, BUFFER_LOCK_UNLOCK);
							XactLockTableWait(xwait, heapRelation, &tup->t_self,
											  XLTW_InsertIndexUnique);
							CHECK_FOR_INTERRUPTS();
							LockBuffer(buf, BUFFER_LOCK_SHARE);
							indexIt = false;
							goto recheck;
						}
						reltuples += 1;
						break;
					default:
						elog(ERROR, "unexpected blinkheap tuple state");
				}
			}
			/* under the lock: a copy during recovery (blink_check there) */
			if (indexIt)
				_bh_store_tuple(slot, tup, buf);
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);

			if (!indexIt)
				continue;

			MemoryContextReset(econtext->ecxt_per_tuple_memory);
			if (predicate != NULL && !ExecQual(predicate, econtext))
				continue;
			FormIndexDatum(indexInfo, slot, estate, values, isnull);
			callback(indexRelation, &tup->t_self, values, isnull, tupleIsAlive,
					 callback_state);
		}
	}

	table_endscan(scan);
	if (need_unregister_snapshot)
		UnregisterSnapshot(snapshot);
	ExecDropSingleTupleTableSlot(slot);
	FreeExecutorState(estate);
	indexInfo->ii_ExpressionsState = NIL;
	indexInfo->ii_PredicateState = NULL;
	return reltuples;
}

/*
 * CREATE INDEX CONCURRENTLY's second pass: insert every tuple visible to
 * snapshot that the index does not have yet.  state->tuplesort returns
 * the TIDs already in the index, sorted; the table is read in TID order
 * alongside it.  With no HOT chains each tuple's own TID is its index
 * TID, so a tuple is missing exactly when the sorted TIDs skip it.
 */
void
blinkheap_index_validate_scan(Relation heapRelation, Relation indexRelation,
							  IndexInfo *indexInfo, Snapshot snapshot,
							  ValidateIndexState *state)
{
	TableScanDesc scan;
	TupleTableSlot *slot;
	EState	   *estate;
	ExprContext *econtext;
	ExprState  *predicate;
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	ItemPointerData indexcursor;
	bool		tuplesort_empty = false;
	bool		have_cursor = false;

	estate = CreateExecutorState();
	econtext = GetPerTupleExprContext(estate);
	slot = table_slot_create(heapRelation, NULL);
	econtext->ecxt_scantuple = slot;
	predicate = ExecPrepareQual(indexInfo->ii_Predicate, estate);

	scan = table_beginscan_strat(heapRelation, snapshot, 0, NULL, true, false);
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		ItemPointerData tid = slot->tts_tid;

		CHECK_FOR_INTERRUPTS();
		state->htups += 1;

		/* advance the index TIDs up to this tuple */
		while (!tuplesort_empty &&
			   (!have_cursor || ItemPointerCompare(&indexcursor, &tid) < 0))
		{
			Datum		ts_val;
			bool		ts_isnull;

			tuplesort_empty = !tuplesort_getdatum(state->tuplesort, true,
												  &ts_val, &ts_isnull, NULL);
			if (!tuplesort_empty)
			{
				itemptr_decode(&indexcursor, DatumGetInt64(ts_val));
				have_cursor = true;
#ifndef USE_FLOAT8_BYVAL
				pfree(DatumGetPointer(ts_val));
#endif
			}
		}
		if (!tuplesort_empty && ItemPointerEquals(&indexcursor, &tid))
			continue;			/* already indexed */

		MemoryContextReset(econtext->ecxt_per_tuple_memory);
		if (predicate != NULL && !ExecQual(predicate, econtext))
			continue;
		FormIndexDatum(indexInfo, slot, estate, values, isnull);
		index_insert(indexRelation, values, isnull, &tid, heapRelation,
					 indexInfo->ii_Unique ? UNIQUE_CHECK_YES : UNIQUE_CHECK_NO,
					 false, indexInfo);
		state->tups_inserted += 1;
	}

	table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	FreeExecutorState(estate);
	indexInfo->ii_ExpressionsState = NIL;
	indexInfo->ii_PredicateState = NULL;
}
