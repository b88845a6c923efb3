/*-------------------------------------------------------------------------
 *
 * blinkheap_scan.c
 *	  Sequential, parallel sequential, TID range, TABLESAMPLE and ANALYZE
 *	  scans of blinkheap tables.
 *
 * Every scan works a page at a time: it pins the page, takes a share
 * lock, decides the visibility of every tuple at once and copies the
 * offsets of the visible ones, then releases the lock and returns tuples
 * from the page while keeping the pin.  That is heap's "page mode"; here
 * it is used for every snapshot type, not only MVCC, because on a primary
 * tuples never move on a pinned page (VACUUM compacts only under a cleanup
 * lock) and a tuple's visibility is judged as of the moment its page was
 * read.
 *
 * During recovery redo moves tuples under pins (see _bh_store_tuple), so
 * a scan begun then copies each page into rs_pagecopy under the same share
 * lock and returns copies of the tuples of that copy, holding no pin in
 * the slot.  A standby that is promoted during the scan changes nothing:
 * the copies stay correct.
 *
 * TABLESAMPLE scans follow the TsmRoutine protocol: the sampling method
 * names the blocks (NextSampleBlock), or the table is read block by block
 * when it has none (BERNOULLI), and then the offsets to look at on each
 * (NextSampleTuple).  Each block is collected like a sequential scan's,
 * page at a time whatever the method's use_pagemode says, and an offset
 * is returned if it is among the visible ones.  Predicate locks: the
 * whole relation, as heap's sample scans take it (scan_begin).
 *
 * Parallel scans hand out blocks with the table_block_parallelscan_*
 * helpers.  Serial scans always start at block 0 (no synchronized scans
 * yet).  ANALYZE reads the blocks it is given and keeps each locked while
 * it returns that block's sample rows, as heap does.
 *
 * src/table/blinkheap_scan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/tsmapi.h"
#include "access/valid.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "nodes/execnodes.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "utils/snapmgr.h"

#include "common/settings.h"
#include "table/blinkheap.h"

/* Reset the scan to its beginning; keep the limits if asked to. */
static void
_bh_initscan(BlinkheapScanDesc scan, ScanKey key, bool keep_limits)
{
	Relation	rel = scan->rs_base.rs_rd;
	bool		allow_strat;

	if (scan->rs_base.rs_parallel != NULL)
		scan->rs_nblocks =
			((ParallelBlockTableScanDesc) scan->rs_base.rs_parallel)->phs_nblocks;
	else
		scan->rs_nblocks = RelationGetNumberOfBlocks(rel);

	/* A bulk-read ring for large tables, as heap does. */
	allow_strat = (scan->rs_base.rs_flags & SO_ALLOW_STRAT) != 0 &&
		!RelationUsesLocalBuffers(rel) && scan->rs_nblocks > (BlockNumber) (NBuffers / 4);
	if (allow_strat && scan->rs_strategy == NULL)
		scan->rs_strategy = GetAccessStrategy(BAS_BULKREAD);
	else if (!allow_strat && scan->rs_strategy != NULL)
	{
		FreeAccessStrategy(scan->rs_strategy);
		scan->rs_strategy = NULL;
	}

	/* no synchronized scans yet */
	scan->rs_base.rs_flags &= ~SO_ALLOW_SYNC;

	if (!keep_limits)
	{
		scan->rs_startblock = 0;
		scan->rs_numblocks = InvalidBlockNumber;
	}
	scan->rs_inited = false;
	scan->rs_cblock = InvalidBlockNumber;
	scan->rs_cbuf = InvalidBuffer;
	scan->rs_nvisited = 0;
	scan->rs_cindex = 0;
	scan->rs_ntuples = 0;
	scan->rs_ctup.t_data = NULL;
	ItemPointerSetInvalid(&scan->rs_ctup.t_self);

	if (key != NULL && scan->rs_base.rs_nkeys > 0)
		memcpy(scan->rs_base.rs_key, key,
			   scan->rs_base.rs_nkeys * sizeof(ScanKeyData));

	if (scan->rs_base.rs_flags & SO_TYPE_SEQSCAN)
		pgstat_count_heap_scan(rel);
}

TableScanDesc
blinkheap_scan_begin(Relation rel, Snapshot snapshot, int nkeys, ScanKey key,
					 ParallelTableScanDesc pscan, uint32 flags)
{
	BlinkheapScanDesc scan;

	RelationIncrementReferenceCount(rel);

	scan = (BlinkheapScanDesc) palloc0(sizeof(BlinkheapScanDescData));
	scan->rs_base.rs_rd = rel;
	scan->rs_base.rs_snapshot = snapshot;
	scan->rs_base.rs_nkeys = nkeys;
	scan->rs_base.rs_flags = flags;
	scan->rs_base.rs_parallel = pscan;
	scan->rs_strategy = NULL;

	if (scan->rs_base.rs_flags & (SO_TYPE_SEQSCAN | SO_TYPE_SAMPLESCAN))
	{
		Assert(snapshot);
		PredicateLockRelation(rel, snapshot);
	}

	scan->rs_ctup.t_tableOid = RelationGetRelid(rel);
	/* decided once: a backend never goes back into recovery */
	if (RecoveryInProgress())
		scan->rs_pagecopy = palloc(BLCKSZ);
	if (pscan != NULL)
		scan->rs_pworker = palloc0(sizeof(ParallelBlockTableScanWorkerData));
	if (nkeys > 0)
		scan->rs_base.rs_key = (ScanKey) palloc(sizeof(ScanKeyData) * nkeys);

	_bh_initscan(scan, key, false);
	return (TableScanDesc) scan;
}

void
blinkheap_scan_rescan(TableScanDesc sscan, ScanKey key, bool set_params,
					  bool allow_strat, bool allow_sync, bool allow_pagemode)
{
	BlinkheapScanDesc scan = (BlinkheapScanDesc) sscan;

	if (set_params)
	{
		if (allow_strat)
			sscan->rs_flags |= SO_ALLOW_STRAT;
		else
			sscan->rs_flags &= ~SO_ALLOW_STRAT;
	}
	if (BufferIsValid(scan->rs_cbuf))
		ReleaseBuffer(scan->rs_cbuf);
	_bh_initscan(scan, key, false);
}

void
blinkheap_scan_end(TableScanDesc sscan)
{
	BlinkheapScanDesc scan = (BlinkheapScanDesc) sscan;

	if (BufferIsValid(scan->rs_cbuf))
		ReleaseBuffer(scan->rs_cbuf);
	RelationDecrementReferenceCount(sscan->rs_rd);
	if (sscan->rs_key)
		pfree(sscan->rs_key);
	if (scan->rs_strategy != NULL)
		FreeAccessStrategy(scan->rs_strategy);
	if (scan->rs_pworker != NULL)
		pfree(scan->rs_pworker);
	if (scan->rs_pagecopy != NULL)
		pfree(scan->rs_pagecopy);
	if (sscan->rs_flags & SO_TEMP_SNAPSHOT)
		UnregisterSnapshot(sscan->rs_snapshot);
	pfree(scan);
}

/*
 * Limit the scan to numblocks blocks from start (before it starts).
 */
void
_bh_scan_set_limits(BlinkheapScanDesc scan, BlockNumber start,
					BlockNumber numblocks)
{
	Assert(!scan->rs_inited);
	scan->rs_startblock = start;
	scan->rs_numblocks = numblocks;
}

/*
 * _bh_scan_next_block: move the scan to its next block in the direction
 * given, pinning it (no lock) in rs_cbuf; the previous block's pin is
 * dropped.  Returns false, with no pin held, at the end.
 */
bool
_bh_scan_next_block(BlinkheapScanDesc scan, ScanDirection dir)
{
	Relation	rel = scan->rs_base.rs_rd;
	BlockNumber blk;
	BlockNumber last;

	if (BufferIsValid(scan->rs_cbuf))
	{
		ReleaseBuffer(scan->rs_cbuf);
		scan->rs_cbuf = InvalidBuffer;
	}
	scan->rs_ntuples = 0;
	scan->rs_cindex = 0;

	if (scan->rs_base.rs_parallel != NULL)
	{
		ParallelBlockTableScanDesc pbscan =
		(ParallelBlockTableScanDesc) scan->rs_base.rs_parallel;

		Assert(ScanDirectionIsForward(dir));
		if (!scan->rs_inited)
			table_block_parallelscan_startblock_init(rel, scan->rs_pworker,
													 pbscan);
		blk = table_block_parallelscan_nextpage(rel, scan->rs_pworker, pbscan);
		if (blk == InvalidBlockNumber)
			goto finished;
	}
	else
	{
		if (scan->rs_nblocks == 0 || scan->rs_numblocks == 0 ||
			scan->rs_startblock >= scan->rs_nblocks)
			goto finished;
		last = scan->rs_nblocks - 1;
		if (scan->rs_numblocks != InvalidBlockNumber &&
			scan->rs_numblocks - 1 < last - scan->rs_startblock)
			last = scan->rs_startblock + scan->rs_numblocks - 1;

		if (ScanDirectionIsBackward(dir))
		{
			if (!scan->rs_inited)
				blk = last;
			else if (scan->rs_cblock <= scan->rs_startblock)
				goto finished;
			else
				blk = scan->rs_cblock - 1;
		}
		else
		{
			if (!scan->rs_inited)
				blk = scan->rs_startblock;
			else if (scan->rs_cblock >= last)
				goto finished;
			else
				blk = scan->rs_cblock + 1;
		}
	}

	CHECK_FOR_INTERRUPTS();
	scan->rs_cbuf = ReadBufferExtended(rel, MAIN_FORKNUM, blk, RBM_NORMAL,
									   scan->rs_strategy);
	scan->rs_cblock = blk;
	scan->rs_inited = true;
	scan->rs_nvisited++;
	return true;

finished:
	scan->rs_cblock = InvalidBlockNumber;
	scan->rs_inited = false;
	return false;
}

/*
 * During recovery: copy the current page, which the caller share-locks,
 * into rs_pagecopy; the scan returns its tuples from there.  Nothing on a
 * primary.
 */
void
_bh_scan_copy_page(BlinkheapScanDesc scan)
{
	if (scan->rs_pagecopy != NULL)
		memcpy(scan->rs_pagecopy, BufferGetPage(scan->rs_cbuf), BLCKSZ);
}

/*
 * Decide visibility for every tuple of the pinned page in rs_cbuf and
 * keep the offsets of the visible ones (and those passing the scan keys).
 * Takes and releases a share lock; the pin stays.  During recovery the
 * page is also copied under that lock (_bh_scan_copy_page).
 */
static void
_bh_scan_collect(BlinkheapScanDesc scan)
{
	Relation	rel = scan->rs_base.rs_rd;
	Snapshot	snapshot = scan->rs_base.rs_snapshot;
	Buffer		buf = scan->rs_cbuf;
	Page		page;
	OffsetNumber off,
				maxoff;
	HeapTupleData tuple;
	int			n = 0;
	/* asked once per page: it only ever turns from true to false */
	bool		ssi = CheckForSerializableConflictOutNeeded(rel, snapshot);

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	_bh_check_page(rel, buf);
	page = BufferGetPage(buf);
	/* old_snapshot_threshold: as heap's page reads (see blinkscan.c) */
	TestForOldSnapshot(snapshot, rel, page);
	maxoff = PageIsNew(page) ? InvalidOffsetNumber : PageGetMaxOffsetNumber(page);
	_bh_csn_forget();			/* one snapshot comparison per page */
	for (off = FirstOffsetNumber; off <= maxoff; off++)
	{
		bool		valid;

		if (!_bh_get_tuple(rel, buf, off, &tuple))
			continue;
		valid = _bh_satisfies_in_page(&tuple, snapshot, buf);
		if (ssi)
			_bh_serializable_conflict_out(valid, rel, &tuple, buf, snapshot);
		if (valid && scan->rs_base.rs_nkeys > 0)
			HeapKeyTest(&tuple, RelationGetDescr(rel), scan->rs_base.rs_nkeys,
						scan->rs_base.rs_key, valid);
		if (valid)
			scan->rs_vistuples[n++] = off;
	}
	if (n > 0)
		_bh_scan_copy_page(scan);
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	scan->rs_ntuples = n;
}

/*
 * The tuple at offset off of the current page (the copy, during recovery)
 * into tuple; false if there is none there.
 */
bool
_bh_scan_tuple(BlinkheapScanDesc scan, OffsetNumber off, HeapTuple tuple)
{
	if (scan->rs_pagecopy != NULL)
		return _bh_get_tuple_at(scan->rs_base.rs_rd, (Page) scan->rs_pagecopy,
								scan->rs_cblock, off, tuple);
	return _bh_get_tuple(scan->rs_base.rs_rd, scan->rs_cbuf, off, tuple);
}

/*
 * The current tuple, rs_ctup, into slot: by pin, or as a copy in recovery.
 * No lock is held.
 */
void
_bh_scan_store(BlinkheapScanDesc scan, TupleTableSlot *slot)
{
	if (scan->rs_pagecopy != NULL)
		_bh_store_copy(slot, &scan->rs_ctup);
	else
		ExecStoreBufferHeapTuple(&scan->rs_ctup, slot, scan->rs_cbuf);
	blinkam_debug_pause(BLINKAM_PAUSE_HEAP_TUPLE_STORED);
}

/*
 * A dirty snapshot's visibility check also reports, in the snapshot, the
 * in-progress transactions that inserted or deleted the tuple (its xmin,
 * xmax and speculativeToken), and its caller -- the logical replication
 * apply worker's search of a REPLICA IDENTITY FULL table -- waits for
 * them before it locks the tuple returned.  _bh_scan_collect decided the
 * whole page at once, so those fields describe the page's last tuple, not
 * the one returned: decide the returned one again, under a share lock, as
 * heap (which reads such a scan a tuple at a time) decides it when it
 * returns it.  False if it is no longer visible to the snapshot.
 */
static bool
_bh_scan_recheck_dirty(BlinkheapScanDesc scan)
{
	bool		valid;

	if (scan->rs_pagecopy != NULL)
		return true;			/* recovery: the copy cannot change */
	LockBuffer(scan->rs_cbuf, BUFFER_LOCK_SHARE);
	valid = _bh_satisfies(&scan->rs_ctup, scan->rs_base.rs_snapshot,
						  scan->rs_cbuf);
	LockBuffer(scan->rs_cbuf, BUFFER_LOCK_UNLOCK);
	return valid;
}

/*
 * The next visible tuple in the given direction, in scan->rs_ctup (which
 * points into the pinned rs_cbuf); false at the end.
 */
static bool
_bh_scan_next_tuple(BlinkheapScanDesc scan, ScanDirection dir)
{
	bool		backward = ScanDirectionIsBackward(dir);
	OffsetNumber off;

	if (ScanDirectionIsNoMovement(dir))
		return scan->rs_inited && scan->rs_ctup.t_data != NULL;

	for (;;)
	{
		if (scan->rs_inited && BufferIsValid(scan->rs_cbuf))
		{
			if (scan->rs_ctup.t_data == NULL ||
				ItemPointerGetBlockNumber(&scan->rs_ctup.t_self) != scan->rs_cblock)
			{
				/* first tuple of a freshly collected page */
				scan->rs_cindex = backward ? scan->rs_ntuples - 1 : 0;
			}
			else
				scan->rs_cindex += backward ? -1 : 1;

			if (scan->rs_cindex >= 0 && scan->rs_cindex < scan->rs_ntuples)
			{
				off = scan->rs_vistuples[scan->rs_cindex];
				if (!_bh_scan_tuple(scan, off, &scan->rs_ctup))
					elog(ERROR, "blinkheap tuple (%u,%u) vanished during a scan",
						 scan->rs_cblock, off);
				if (scan->rs_base.rs_snapshot != NULL &&
					scan->rs_base.rs_snapshot->snapshot_type == SNAPSHOT_DIRTY &&
					!_bh_scan_recheck_dirty(scan))
					continue;	/* (the next one: rs_ctup is on this page) */
				return true;
			}
		}

		scan->rs_ctup.t_data = NULL;
		if (!_bh_scan_next_block(scan, dir))
			return false;
		_bh_scan_collect(scan);
	}
}

/*
 * The next visible tuple into slot.  The scan keeps a pin (no lock) on
 * the current page between calls; the slot holds its own pin.
 */
bool
blinkheap_scan_getnextslot(TableScanDesc sscan, ScanDirection direction,
						   TupleTableSlot *slot)
{
	BlinkheapScanDesc scan = (BlinkheapScanDesc) sscan;

	if (!_bh_scan_next_tuple(scan, direction))
	{
		ExecClearTuple(slot);
		return false;
	}
	pgstat_count_heap_getnext(sscan->rs_rd);
	_bh_scan_store(scan, slot);
	return true;
}

void
blinkheap_scan_set_tidrange(TableScanDesc sscan, ItemPointer mintid,
							ItemPointer maxtid)
{
	BlinkheapScanDesc scan = (BlinkheapScanDesc) sscan;
	ItemPointerData lowest,
				highest;

	if (scan->rs_nblocks == 0)
	{
		_bh_scan_set_limits(scan, 0, 0);
		return;
	}
	ItemPointerSet(&lowest, 0, FirstOffsetNumber);
	ItemPointerSet(&highest, scan->rs_nblocks - 1, MaxOffsetNumber);

	if (ItemPointerCompare(maxtid, &lowest) < 0 ||
		ItemPointerCompare(mintid, &highest) > 0)
	{
		_bh_scan_set_limits(scan, 0, 0);
		return;
	}
	if (ItemPointerCompare(mintid, &lowest) < 0)
		mintid = &lowest;
	if (ItemPointerCompare(maxtid, &highest) > 0)
		maxtid = &highest;
	/* an empty range (ctid >= '(40,3)' AND ctid <= '(3,2)'): no block */
	if (ItemPointerCompare(mintid, maxtid) > 0)
	{
		_bh_scan_set_limits(scan, 0, 0);
		return;
	}

	_bh_scan_set_limits(scan, ItemPointerGetBlockNumberNoCheck(mintid),
						ItemPointerGetBlockNumberNoCheck(maxtid) -
						ItemPointerGetBlockNumberNoCheck(mintid) + 1);
	scan->rs_mintid = *mintid;
	scan->rs_maxtid = *maxtid;
}

bool
blinkheap_scan_getnextslot_tidrange(TableScanDesc sscan,
									ScanDirection direction,
									TupleTableSlot *slot)
{
	BlinkheapScanDesc scan = (BlinkheapScanDesc) sscan;

	for (;;)
	{
		if (!_bh_scan_next_tuple(scan, direction))
		{
			ExecClearTuple(slot);
			return false;
		}
		if (ItemPointerCompare(&scan->rs_ctup.t_self, &scan->rs_mintid) < 0)
		{
			if (ScanDirectionIsBackward(direction))
			{
				ExecClearTuple(slot);
				return false;
			}
			continue;
		}
		if (ItemPointerCompare(&scan->rs_ctup.t_self, &scan->rs_maxtid) > 0)
		{
			if (ScanDirectionIsForward(direction))
			{
				ExecClearTuple(slot);
				return false;
			}
			continue;
		}
		break;
	}
	pgstat_count_heap_getnext(sscan->rs_rd);
	_bh_scan_store(scan, slot);
	return true;
}

/*
 * TABLESAMPLE: move to the next block the sampling method wants (or, if
 * it names none, the next block in order) and collect its visible tuples.
 * Returns false, with no pin held, when there is none.  On true the block
 * is pinned (no lock) in rs_cbuf until the next call or the end.
 */
bool
blinkheap_scan_sample_next_block(TableScanDesc sscan,
								 SampleScanState *scanstate)
{
	BlinkheapScanDesc scan = (BlinkheapScanDesc) sscan;
	TsmRoutine *tsm = scanstate->tsmroutine;
	BlockNumber blk;

	if (BufferIsValid(scan->rs_cbuf))
	{
		ReleaseBuffer(scan->rs_cbuf);
		scan->rs_cbuf = InvalidBuffer;
	}
	scan->rs_ntuples = 0;

	if (scan->rs_nblocks == 0)
		blk = InvalidBlockNumber;
	else if (tsm->NextSampleBlock != NULL)
		blk = tsm->NextSampleBlock(scanstate, scan->rs_nblocks);
	else if (!scan->rs_inited)
		blk = 0;
	else if (scan->rs_cblock + 1 < scan->rs_nblocks)
		blk = scan->rs_cblock + 1;
	else
		blk = InvalidBlockNumber;

	if (!BlockNumberIsValid(blk))
	{
		scan->rs_cblock = InvalidBlockNumber;
		scan->rs_inited = false;
		return false;
	}

	CHECK_FOR_INTERRUPTS();
	scan->rs_cbuf = ReadBufferExtended(sscan->rs_rd, MAIN_FORKNUM, blk,
									   RBM_NORMAL, scan->rs_strategy);
	scan->rs_cblock = blk;
	scan->rs_inited = true;
	scan->rs_nvisited++;
	_bh_scan_collect(scan);
	return true;
}

/* Is off among the current page's visible offsets (sorted ascending)? */
static bool
_bh_scan_offset_visible(BlinkheapScanDesc scan, OffsetNumber off)
{
	int			lo = 0,
				hi = scan->rs_ntuples - 1;

	while (lo <= hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (scan->rs_vistuples[mid] == off)
			return true;
		if (scan->rs_vistuples[mid] < off)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return false;
}

/*
 * TABLESAMPLE: the next tuple of the current block that the sampling
 * method picks and that is visible, into slot; false at the end of the
 * block.  The block stays pinned (no lock); the visible tuples were
 * found under a share lock by blinkheap_scan_sample_next_block and cannot
 * move while the pin is held.
 */
bool
blinkheap_scan_sample_next_tuple(TableScanDesc sscan,
								 SampleScanState *scanstate,
								 TupleTableSlot *slot)
{
	BlinkheapScanDesc scan = (BlinkheapScanDesc) sscan;
	TsmRoutine *tsm = scanstate->tsmroutine;
	Page		page = BufferGetPage(scan->rs_cbuf);
	OffsetNumber maxoff;

	/*
	 * The page may have grown since it was collected; the method may pick
	 * the new offsets, which are simply not among the visible ones.
	 */
	LockBuffer(scan->rs_cbuf, BUFFER_LOCK_SHARE);
	maxoff = PageIsNew(page) ? InvalidOffsetNumber : PageGetMaxOffsetNumber(page);
	LockBuffer(scan->rs_cbuf, BUFFER_LOCK_UNLOCK);
	for (;;)
	{
		OffsetNumber off;

		CHECK_FOR_INTERRUPTS();
		off = tsm->NextSampleTuple(scanstate, scan->rs_cblock, maxoff);
		if (!OffsetNumberIsValid(off))
			break;
		if (!_bh_scan_offset_visible(scan, off))
			continue;
		if (!_bh_scan_tuple(scan, off, &scan->rs_ctup))
			elog(ERROR, "blinkheap tuple (%u,%u) vanished during a sample scan",
				 scan->rs_cblock, off);
		pgstat_count_heap_getnext(sscan->rs_rd);
		_bh_scan_store(scan, slot);
		return true;
	}
	ExecClearTuple(slot);
	return false;
}

/*
 * ANALYZE: read block blockno and keep it share-locked until
 * blinkheap_scan_analyze_next_tuple has returned its rows.
 */
bool
blinkheap_scan_analyze_next_block(TableScanDesc sscan, BlockNumber blockno,
								  BufferAccessStrategy bstrategy)
{
	BlinkheapScanDesc scan = (BlinkheapScanDesc) sscan;

	scan->rs_cblock = blockno;
	scan->rs_cbuf = ReadBufferExtended(sscan->rs_rd, MAIN_FORKNUM, blockno,
									   RBM_NORMAL, bstrategy);
	LockBuffer(scan->rs_cbuf, BUFFER_LOCK_SHARE);
	_bh_check_page(sscan->rs_rd, scan->rs_cbuf);
	scan->rs_analyze_off = FirstOffsetNumber;
	return true;
}

/*
 * ANALYZE: the next row of the locked block to sample, counting live and
 * dead rows on the way the way heap does; at the end of the block the
 * lock and pin are released and false is returned.
 */
bool
blinkheap_scan_analyze_next_tuple(TableScanDesc sscan, TransactionId OldestXmin,
								  double *liverows, double *deadrows,
								  TupleTableSlot *slot)
{
	BlinkheapScanDesc scan = (BlinkheapScanDesc) sscan;
	Relation	rel = sscan->rs_rd;
	Page		page = BufferGetPage(scan->rs_cbuf);
	OffsetNumber maxoff;

	maxoff = PageIsNew(page) ? InvalidOffsetNumber : PageGetMaxOffsetNumber(page);
	for (; scan->rs_analyze_off <= maxoff; scan->rs_analyze_off++)
	{
		HeapTuple	tuple = &scan->rs_ctup;
		bool		sample = false;

		if (!_bh_get_tuple(rel, scan->rs_cbuf, scan->rs_analyze_off, tuple))
			continue;
		switch (_bh_satisfies_vacuum(tuple, OldestXmin))
		{
			case HEAPTUPLE_LIVE:
				sample = true;
				*liverows += 1;
				break;
			case HEAPTUPLE_DEAD:
			case HEAPTUPLE_RECENTLY_DEAD:
				*deadrows += 1;
				break;
			case HEAPTUPLE_INSERT_IN_PROGRESS:
				/* our own inserts count; others' will be counted at commit */
				if (TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tuple->t_data)))
				{
					sample = true;
					*liverows += 1;
				}
				break;
			case HEAPTUPLE_DELETE_IN_PROGRESS:
				if (TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetUpdateXid(tuple->t_data)))
					*deadrows += 1;
				else
				{
					sample = true;
					*liverows += 1;
				}
				break;
		}
		if (sample)
		{
			ExecStoreBufferHeapTuple(tuple, slot, scan->rs_cbuf);
			scan->rs_analyze_off++;
			return true;
		}
	}

	UnlockReleaseBuffer(scan->rs_cbuf);
	scan->rs_cbuf = InvalidBuffer;
	ExecClearTuple(slot);
	return false;
}
