/*-------------------------------------------------------------------------
 *
 * blinkheap_bitmap.c
 *	  Bitmap heap scans of blinkheap tables.
 *
 * The executor (nodeBitmapHeapscan.c) hands over one TIDBitmap page at a
 * time.  An exact page lists the offsets the indexes found; a lossy page
 * (the bitmap outgrew work_mem) stands for every tuple of the block, and
 * the executor rechecks the quals of whatever comes back.  Either way the
 * block is pinned, share-locked while the visibility of the candidates is
 * decided, and the offsets of the visible ones are kept in rs_vistuples;
 * the lock is then released and the tuples are returned under the pin
 * alone, as the sequential scan does (on a primary tuples never move on a
 * pinned page; during recovery the scan returns copies from a copy of the
 * page made under the lock, see blinkheap_scan.c).  There are no HOT
 * chains: every version has its own index entries, so an exact offset is
 * looked at alone.
 *
 * SERIALIZABLE: every visible tuple is predicate-locked by TID and every
 * candidate goes through the conflict-out check, as heap does.  Blocks at
 * or past the relation's size at scan start are skipped, except under
 * SERIALIZABLE, which must see the invisible tuples the index reached.
 * The executor's prefetching and its all-visible shortcut are left as
 * they are; blinkheap keeps no visibility map, so the shortcut never
 * applies.
 *
 * src/table/blinkheap_bitmap.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "nodes/tidbitmap.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"

#include "table/blinkheap.h"

/*
 * Look at one candidate offset of the share-locked page in rs_cbuf and
 * keep it in rs_vistuples if visible.
 */
static void
_bh_bitmap_check(BlinkheapScanDesc scan, OffsetNumber off)
{
	Relation	rel = scan->rs_base.rs_rd;
	Snapshot	snapshot = scan->rs_base.rs_snapshot;
	HeapTupleData tuple;
	bool		valid;

	if (!_bh_get_tuple(rel, scan->rs_cbuf, off, &tuple))
		return;
	valid = _bh_satisfies_in_page(&tuple, snapshot, scan->rs_cbuf);
	if (valid)
	{
		PredicateLockTID(rel, &tuple.t_self, snapshot,
						 HeapTupleHeaderGetXmin(tuple.t_data));
		scan->rs_vistuples[scan->rs_ntuples++] = off;
	}
	_bh_serializable_conflict_out(valid, rel, &tuple, scan->rs_cbuf, snapshot);
}

/*
 * The next bitmap page: pin its block (trading in the previous pin),
 * collect its visible tuples among the candidates under a share lock,
 * and release the lock.  Returns true if there is at least one; the pin
 * stays in rs_cbuf either way until the next block or the end of scan.
 */
bool
blinkheap_scan_bitmap_next_block(TableScanDesc sscan, TBMIterateResult *tbmres)
{
	BlinkheapScanDesc scan = (BlinkheapScanDesc) sscan;
	Relation	rel = sscan->rs_rd;
	BlockNumber blk = tbmres->blockno;
	Page		page;

	scan->rs_cindex = 0;
	scan->rs_ntuples = 0;

	if (blk >= scan->rs_nblocks && !IsolationIsSerializable())
		return false;

	scan->rs_cbuf = ReleaseAndReadBuffer(scan->rs_cbuf, rel, blk);
	scan->rs_cblock = blk;

	LockBuffer(scan->rs_cbuf, BUFFER_LOCK_SHARE);
	_bh_check_page(rel, scan->rs_cbuf);
	page = BufferGetPage(scan->rs_cbuf);
	_bh_csn_forget();			/* one snapshot comparison per page */
	if (tbmres->ntuples >= 0)
	{
		/* exact: the listed offsets, ascending */
		for (int i = 0; i < tbmres->ntuples; i++)
			_bh_bitmap_check(scan, tbmres->offsets[i]);
	}
	else if (!PageIsNew(page))
	{
		/* lossy: every tuple of the block */
		OffsetNumber maxoff = PageGetMaxOffsetNumber(page);

		for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
			_bh_bitmap_check(scan, off);
	}
	if (scan->rs_ntuples > 0)
		_bh_scan_copy_page(scan);	/* during recovery only */
	LockBuffer(scan->rs_cbuf, BUFFER_LOCK_UNLOCK);

	Assert(scan->rs_ntuples <= BLINKHEAP_MAX_TUPLES_PER_PAGE);
	return scan->rs_ntuples > 0;
}

/*
 * The next visible tuple of the current bitmap page into slot; false when
 * the page has no more.  The page is pinned (not locked) by the scan; the
 * slot takes its own pin.
 */
bool
blinkheap_scan_bitmap_next_tuple(TableScanDesc sscan, TBMIterateResult *tbmres,
								 TupleTableSlot *slot)
{
	BlinkheapScanDesc scan = (BlinkheapScanDesc) sscan;
	OffsetNumber off;

	if (scan->rs_cindex < 0 || scan->rs_cindex >= scan->rs_ntuples)
		return false;

	off = scan->rs_vistuples[scan->rs_cindex++];
	if (!_bh_scan_tuple(scan, off, &scan->rs_ctup))
		elog(ERROR, "blinkheap tuple (%u,%u) vanished during a bitmap scan",
			 scan->rs_cblock, off);
	pgstat_count_heap_fetch(sscan->rs_rd);
	_bh_scan_store(scan, slot);
	return true;
}
