/*-------------------------------------------------------------------------
 *
 * blinkscan.c
 *	  Index scans of a blink tree: ordered (both directions), bitmap,
 *	  index-only, = ANY arrays, mark and restore.
 *
 * A scan reads one leaf at a time: under a share lock it copies every item
 * that satisfies the scan keys (and, for index-only scans, the tuples),
 * in key order, together with the page's right- and left-links as they
 * were then, and releases the lock.  Items only ever move right (splits
 * move the upper part of a page to a new right sibling), so:
 *
 *   forward:  the remembered right-link leads to the next unread items;
 *             anything that moved from this page after we read it moved
 *             to pages before that link and was already copied.
 *   backward: lock the remembered left page; if it has split since, its
 *             right-link no longer points back to us: move right until a
 *             page does, and read that one.
 *
 * When to stop: the keys bound the scan in index order by two insertion
 * keys, built like the one that positions a scan: the lower bound (the
 * equality keys of a column prefix, then a > or >= key of the next
 * column) and the upper bound (the same with < or <=).  Going right, a
 * page whose high key is beyond the upper bound is the last; going left,
 * a page holding an item below the lower bound is the last (everything
 * further left is smaller still).  Every item of a page is checked
 * against all keys, as the leaf's unsorted tail requires.
 *
 * Pins: with an MVCC snapshot the leaf's pin is dropped with its lock; a
 * TID recycled by VACUUM in between cannot be visible to the snapshot.
 * Other snapshots keep the pin until the scan leaves the page, and VACUUM
 * takes a cleanup lock on every leaf, so it cannot remove entries a scan
 * has copied but not yet returned.
 *
 * = ANY (array) keys: the scan runs one "primitive" scan per combination
 * of array elements, in index order, each starting with its own descent.
 *
 * src/index/blinkscan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "access/relscan.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "storage/condition_variable.h"
#include "storage/lmgr.h"
#include "storage/predicate.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "storage/spin.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "common/counters.h"
#include "common/settings.h"
#include "index/blink.h"

static bool _blink_first(IndexScanDesc scan, ScanDirection dir);
static bool _blink_next(IndexScanDesc scan, ScanDirection dir);

/* ---------------------------------------------------------------------
 * Key preprocessing
 * ---------------------------------------------------------------------
 */

/* Sort array elements in index order, for qsort_arg */
typedef struct ArraySortArg
{
	FmgrInfo	cmp;
	Oid			collation;
	bool		desc;
} ArraySortArg;

static int
_blink_array_elem_cmp(const void *a, const void *b, void *arg)
{
	ArraySortArg *sa = (ArraySortArg *) arg;
	int32		r = DatumGetInt32(FunctionCall2Coll(&sa->cmp, sa->collation,
													*(const Datum *) a,
													*(const Datum *) b));

	if (sa->desc)
		INVERT_COMPARE_RESULT(r);
	return r;
}

/*
 * Prepare an = ANY key: its non-null elements, sorted in index order with
 * duplicates removed.  A <, <=, >, >= ANY key reduces to the one element
 * that decides it.  Returns the number of elements (0: no row can match).
 */
static int
_blink_prepare_array(Relation rel, ScanKey sk, MemoryContext cxt,
					 Datum **elems_out)
{
	ArrayType  *arr = DatumGetArrayTypeP(sk->sk_argument);
	Oid			elemtype = ARR_ELEMTYPE(arr);
	int16		elmlen;
	bool		elmbyval;
	char		elmalign;
	Datum	   *elems;
	bool	   *nulls;
	int			nelems,
				n = 0;
	int			attno = sk->sk_attno;
	Oid			opfamily = rel->rd_opfamily[attno - 1];
	Oid			cmptype;
	RegProcedure cmpproc;
	ArraySortArg sa;
	MemoryContext old;

	old = MemoryContextSwitchTo(cxt);
	get_typlenbyvalalign(elemtype, &elmlen, &elmbyval, &elmalign);
	deconstruct_array(arr, elemtype, elmlen, elmbyval, elmalign,
					  &elems, &nulls, &nelems);
	for (int i = 0; i < nelems; i++)
	{
		if (!nulls[i])
			elems[n++] = elems[i];
	}
	MemoryContextSwitchTo(old);

	if (n == 0)
	{
		*elems_out = elems;
		return 0;
	}

	/*
	 * The elements are of the key's right-hand type; look the comparison up
	 * by that (the opclass may register it under a pseudo-type, such as
	 * anyenum, not under the array's concrete element type).
	 */
	cmptype = OidIsValid(sk->sk_subtype) ? sk->sk_subtype :
		rel->rd_opcintype[attno - 1];
	cmpproc = get_opfamily_proc(opfamily, cmptype, cmptype, 1);
	if (!RegProcedureIsValid(cmpproc))
		elog(ERROR, "missing support function 1(%u,%u) in opfamily %u",
			 cmptype, cmptype, opfamily);
	fmgr_info(cmpproc, &sa.cmp);
	sa.collation = sk->sk_collation;
	sa.desc = false;

	if (sk->sk_strategy != BTEqualStrategyNumber)
	{
		/* keep the extreme element that decides the ANY */
		Datum		best = elems[0];

		for (int i = 1; i < n; i++)
		{
			int32		c = _blink_array_elem_cmp(&elems[i], &best, &sa);

			if ((sk->sk_strategy <= BTLessEqualStrategyNumber && c > 0) ||
				(sk->sk_strategy >= BTGreaterEqualStrategyNumber && c < 0))
				best = elems[i];
		}
		elems[0] = best;
		*elems_out = elems;
		return 1;
	}

	sa.desc = (rel->rd_indoption[attno - 1] & INDOPTION_DESC) != 0;
	qsort_arg(elems, n, sizeof(Datum), _blink_array_elem_cmp, &sa);
	nelems = 1;
	for (int i = 1; i < n; i++)
	{
		if (_blink_array_elem_cmp(&elems[i], &elems[nelems - 1], &sa) != 0)
			elems[nelems++] = elems[i];
	}
	*elems_out = elems;
	return nelems;
}

/*
 * Copy the scan keys into so->keyData, resolve arrays, and spot keys that
 * can never match.
 */
static void
_blink_preprocess_keys(IndexScanDesc scan)
{
	BlinkScanOpaque so = (BlinkScanOpaque) scan->opaque;
	Relation	rel = scan->indexRelation;
	int			nkeys = scan->numberOfKeys;

	so->qual_ok = true;
	so->numberOfKeys = nkeys;
	so->numArrayKeys = 0;
	if (so->arrayContext)
		MemoryContextReset(so->arrayContext);
	if (nkeys == 0)
		return;

	memcpy(so->keyData, scan->keyData, sizeof(ScanKeyData) * nkeys);

	for (int i = 0; i < nkeys; i++)
	{
		ScanKey		sk = &so->keyData[i];

		/* index option bits, as insertion keys carry them */
		sk->sk_flags |= rel->rd_indoption[sk->sk_attno - 1] << SK_BT_INDOPTION_SHIFT;

		/*
		 * "col op NULL" matches nothing, and neither does "col op ANY (NULL)"
		 * (a null array from a constant, a parameter or an initplan): its
		 * argument is no array to look at.
		 */
		if ((sk->sk_flags & SK_ISNULL) &&
			!(sk->sk_flags & (SK_SEARCHNULL | SK_SEARCHNOTNULL)))
		{
			so->qual_ok = false;
			continue;
		}

		if (sk->sk_flags & SK_SEARCHARRAY)
		{
			BlinkArrayKey *ak;

			if (so->arrayContext == NULL)
				so->arrayContext = AllocSetContextCreate(CurrentMemoryContext,
														 "blink array keys",
														 ALLOCSET_SMALL_SIZES);
			if (so->numArrayKeys == 0)
				so->arrayKeys = MemoryContextAlloc(so->arrayContext,
												   sizeof(BlinkArrayKey) * nkeys);
			ak = &so->arrayKeys[so->numArrayKeys];
			ak->scan_key = i;
			ak->num_elems = _blink_prepare_array(rel, sk, so->arrayContext,
												 &ak->elem_values);
			if (ak->num_elems == 0)
			{
				so->qual_ok = false;
				continue;
			}
			ak->cur_elem = ak->mark_elem = 0;
			sk->sk_argument = ak->elem_values[0];
			if (sk->sk_strategy == BTEqualStrategyNumber && ak->num_elems > 1)
				so->numArrayKeys++;
			else
				sk->sk_flags &= ~SK_SEARCHARRAY;	/* one value: a plain key */
		}
	}

}

static void _blink_parallel_next_keys(IndexScanDesc scan);

/*
 * Step the array keys to the next combination in scan order.  In a
 * parallel scan every backend steps through the same combinations.
 */
static bool
_blink_advance_array_keys(IndexScanDesc scan, ScanDirection dir)
{
	BlinkScanOpaque so = (BlinkScanOpaque) scan->opaque;

	if (scan->parallel_scan)
		_blink_parallel_next_keys(scan);

	for (int i = so->numArrayKeys - 1; i >= 0; i--)
	{
		BlinkArrayKey *ak = &so->arrayKeys[i];
		ScanKey		sk = &so->keyData[ak->scan_key];

		if (ScanDirectionIsForward(dir))
		{
			if (++ak->cur_elem < ak->num_elems)
			{
				sk->sk_argument = ak->elem_values[ak->cur_elem];
				return true;
			}
			ak->cur_elem = 0;
		}
		else
		{
			if (--ak->cur_elem >= 0)
			{
				sk->sk_argument = ak->elem_values[ak->cur_elem];
				return true;
			}
			ak->cur_elem = ak->num_elems - 1;
		}
		sk->sk_argument = ak->elem_values[ak->cur_elem];
	}
	return false;
}

/* Set the array keys to the first combination in scan order. */
static void
_blink_start_array_keys(IndexScanDesc scan, ScanDirection dir)
{
	BlinkScanOpaque so = (BlinkScanOpaque) scan->opaque;

	for (int i = 0; i < so->numArrayKeys; i++)
	{
		BlinkArrayKey *ak = &so->arrayKeys[i];

		ak->cur_elem = ScanDirectionIsForward(dir) ? 0 : ak->num_elems - 1;
		so->keyData[ak->scan_key].sk_argument = ak->elem_values[ak->cur_elem];
	}
}

/*
 * Does itup satisfy every scan key?
 */
static bool
_blink_checkkeys(IndexScanDesc scan, IndexTuple itup)
{
	BlinkScanOpaque so = (BlinkScanOpaque) scan->opaque;
	TupleDesc	desc = RelationGetDescr(scan->indexRelation);

	for (int i = 0; i < so->numberOfKeys; i++)
	{
		ScanKey		sk = &so->keyData[i];
		bool		isnull;
		Datum		datum = index_getattr(itup, sk->sk_attno, desc, &isnull);

		if (sk->sk_flags & SK_SEARCHNULL)
		{
			if (!isnull)
				return false;
		}
		else if (sk->sk_flags & SK_SEARCHNOTNULL)
		{
			if (isnull)
				return false;
		}
		else if (isnull ||
				 !DatumGetBool(FunctionCall2Coll(&sk->sk_func, sk->sk_collation,
												 datum, sk->sk_argument)))
			return false;
	}
	return true;
}

/* ---------------------------------------------------------------------
 * Reading a leaf
 * ---------------------------------------------------------------------
 */

/*
 * Copy the matching items of the leaf in buf (pinned and share-locked) into
 * so->currPos, in key order, and decide whether the scan goes on beyond
 * this page in direction dir.  The lock is kept; the caller releases it.
 * Returns true if any item matched.
 */
static bool
_blink_readpage(IndexScanDesc scan, Buffer buf, ScanDirection dir)
{
	BlinkScanOpaque so = (BlinkScanOpaque) scan->opaque;
	Relation	rel = scan->indexRelation;
	Page		page = BufferGetPage(buf);
	BlinkPageOpaque opaque = BlinkPageGetOpaque(page);
	OffsetNumber first = BlinkPageFirstDataKey(opaque);
	OffsetNumber sortedEnd = first + opaque->blink_nsorted;
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	OffsetNumber sorted[MaxIndexTuplesPerPage];
	OffsetNumber tail[MaxIndexTuplesPerPage];
	int			nsorted = 0,
				ntail = 0,
				n = 0,
				i,
				j;
	bool		below;			/* an item below the lower bound? */
	OffsetNumber lo,
				hi;
	BlinkScanPos *pos = &so->currPos;
	BlinkSortOffsetsArg sa;

	/*
	 * Entries marked dead point to rows dead to every snapshot, so they
	 * need not be returned -- except in a hot standby, whose snapshots may
	 * be older than what the primary judged by (ignore_killed_tuples is
	 * false there).
	 */
	bool		killed = scan->ignore_killed_tuples;

	if (!BlinkPageIsLeaf(opaque))
		_blink_corrupted(rel, BufferGetBlockNumber(buf),
						 "a scan of the leaf level reached a page of level %u",
						 opaque->blink_level);

	/*
	 * old_snapshot_threshold: a leaf changed since an old snapshot was
	 * taken may have lost entries its rows still need (VACUUM with a
	 * horizon limited for old snapshots): the scan fails with "snapshot
	 * too old" rather than answer without them, as nbtree's do.  Every
	 * leaf a scan reads comes here (plain, index-only, bitmap, parallel).
	 */
	TestForOldSnapshot(scan->xs_snapshot, rel, page);

	/*
	 * SERIALIZABLE: a predicate lock on every leaf a scan reads, taken
	 * while the leaf is locked, so an insert into it (which checks under
	 * its exclusive lock) either comes before and is seen, or after and
	 * finds the lock; splits pass it on to the new page.
	 */
	PredicateLockPage(rel, BufferGetBlockNumber(buf), scan->xs_snapshot);

	pos->currPage = BufferGetBlockNumber(buf);
	pos->nextPage = opaque->blink_next;
	pos->prevPage = opaque->blink_prev;
	pos->version = opaque->blink_version;
	pos->nextTupleOffset = 0;
	Assert(so->numKilled == 0);

	/*
	 * In the sorted part only the run between the bounds can match: find it
	 * by binary search.  Every tail item is checked.
	 */
	lo = so->lowKey ? _blink_binsrch(rel, so->lowKey, page) : first;
	hi = so->highKey ? _blink_binsrch(rel, so->highKey, page) : sortedEnd;
	below = lo > first;
	for (OffsetNumber off = lo; off < hi; off++)
	{
		ItemId		iid = PageGetItemId(page, off);

		if (killed && ItemIdIsDead(iid))
			continue;
		if (_blink_checkkeys(scan, (IndexTuple) PageGetItem(page, iid)))
			sorted[nsorted++] = off;
	}
	for (OffsetNumber off = sortedEnd; off <= maxoff; off++)
	{
		IndexTuple	itup = (IndexTuple) PageGetItem(page, PageGetItemId(page, off));

		if (!ScanDirectionIsForward(dir) && so->lowKey && !below)
		{
			int32		cmp = _blink_compare_key_tuple(rel, so->lowKey, itup);

			below = cmp > 0 || (cmp == 0 && so->lowKey->nextkey);
		}
		if (killed && ItemIdIsDead(PageGetItemId(page, off)))
			continue;
		if (_blink_checkkeys(scan, itup))
			tail[ntail++] = off;
	}

	if (ScanDirectionIsForward(dir))
	{
		/* Going right, a high key beyond the upper bound ends the scan. */
		pos->moreRight = !BlinkPageIsRightmost(opaque);
		if (pos->moreRight && so->highKey)
		{
			int32		cmp = _blink_compare(rel, so->highKey, page, BLINK_HIKEY);

			if (cmp < 0 || (cmp == 0 && !so->highKey->nextkey))
				pos->moreRight = false;
		}
		pos->moreLeft = true;
	}
	else
	{
		pos->moreLeft = !below && !BlinkPageIsLeftmost(opaque);
		pos->moreRight = true;
	}

	/* Merge the sorted run with the sorted matches of the tail. */
	sa.rel = rel;
	sa.page = page;
	if (ntail > 1)
		qsort_arg(tail, ntail, sizeof(OffsetNumber), _blink_offset_cmp, &sa);
	i = j = 0;
	while (i < nsorted || j < ntail)
	{
		OffsetNumber off;
		IndexTuple	itup;
		int			ntids;
		uint16		tupleOffset;

		if (j >= ntail || (i < nsorted && _blink_offset_cmp(&sorted[i], &tail[j], &sa) <= 0))
			off = sorted[i++];
		else
			off = tail[j++];
		itup = (IndexTuple) PageGetItem(page, PageGetItemId(page, off));
		ntids = BlinkItemNTids(itup);
		tupleOffset = 0;
		if (so->currTuples)
		{
			/* a posting tuple's key, once, for each of its entries */
			tupleOffset = pos->nextTupleOffset;
			pos->nextTupleOffset +=
				MAXALIGN(_blink_copy_key((IndexTuple) (so->currTuples + tupleOffset),
										 itup, BlinkTupleHeapTid(itup)));
		}
		for (int k = 0; k < ntids; k++)
		{
			BlinkScanItem *item = &pos->items[n++];

			item->heapTid = *BlinkItemTid(itup, k);
			item->indexOffset = off;
			item->tupleOffset = tupleOffset;
		}
	}

	pos->firstItem = 0;
	pos->lastItem = n - 1;
	pos->itemIndex = ScanDirectionIsForward(dir) ? 0 : n - 1;
	return n > 0;
}

/* Release the current position's pin, if it kept one. */
static void
_blink_unpin_pos(BlinkScanPos *pos)
{
	if (BufferIsValid(pos->buf))
	{
		ReleaseBuffer(pos->buf);
		pos->buf = InvalidBuffer;
	}
}

/*
 * The scan leaves the page of currPos: mark dead the entries whose rows
 * the heap found dead to everyone while we were on it (kill_prior_tuple;
 * blinkdelete.c checks that they are still the entries we saw), then let
 * the page's pin go, if we kept it.
 */
static void
_blink_leave_pos(IndexScanDesc scan)
{
	BlinkScanOpaque so = (BlinkScanOpaque) scan->opaque;
	BlinkScanPos *pos = &so->currPos;
	int			n = so->numKilled;

	so->numKilled = 0;
	if (n > 0 && BlinkScanPosIsValid(*pos))
	{
		ItemPointerData tids[BLINK_MAX_TIDS_PER_PAGE];
		OffsetNumber offs[BLINK_MAX_TIDS_PER_PAGE];

		for (int i = 0; i < n; i++)
		{
			BlinkScanItem *item = &pos->items[so->killedItems[i]];

			tids[i] = item->heapTid;
			offs[i] = item->indexOffset;
		}
		_blink_mark_dead(scan->indexRelation, pos->currPage, pos->buf,
						 pos->version, tids, offs, n);
	}
	_blink_unpin_pos(pos);
}

/*
 * Unlock the leaf just read (pinned and share-locked on entry).  Its pin
 * is kept in so->currPos until the scan leaves the page, unless the scan
 * is a plain MVCC scan.
 *
 * The pin is the interlock with VACUUM, whose cleanup lock on every leaf
 * waits for it: while a scan holds it, VACUUM cannot remove the entries
 * the scan copied from that leaf, so it cannot free their heap line
 * pointers either (index entries go before heap line pointers).
 *
 *  - Plain index scan with an MVCC snapshot: no pin needed.  If VACUUM
 *    frees a copied TID's line pointer meanwhile, the row it pointed at
 *    was dead to every snapshot, ours included; a row that reuses the
 *    line pointer was inserted after VACUUM removed the entry, so after
 *    our snapshot was taken, by a transaction our snapshot does not see.
 *    The heap visit decides, and it answers "invisible" either way.
 *  - Index-only scan: the visibility map decides, not the heap.  VACUUM
 *    marks a page all-visible once it has freed its dead line pointers, so
 *    without the pin a copied entry of a deleted row would be returned as
 *    visible.  Keep the pin.
 *  - Non-MVCC snapshots (SnapshotAny, dirty): the heap visit cannot tell
 *    a reused line pointer from the original row.  Keep the pin.
 */
static void
_blink_drop_lock_maybe_pin(IndexScanDesc scan, Buffer buf)
{
	BlinkScanOpaque so = (BlinkScanOpaque) scan->opaque;

	_blink_unlock(scan->indexRelation, buf);
	if (IsMVCCSnapshot(scan->xs_snapshot) && !scan->xs_want_itup)
	{
		ReleaseBuffer(buf);
		so->currPos.buf = InvalidBuffer;
	}
	else
		so->currPos.buf = buf;
	blinkam_debug_pause(BLINKAM_PAUSE_SCAN_LEAF_READ);
}

/*
 * Set the scan's output for the current item.
 */
static void
_blink_set_output(IndexScanDesc scan)
{
	BlinkScanOpaque so = (BlinkScanOpaque) scan->opaque;
	BlinkScanItem *item = &so->currPos.items[so->currPos.itemIndex];

	scan->xs_heaptid = item->heapTid;
	if (so->currTuples)
		scan->xs_itup = (IndexTuple) (so->currTuples + item->tupleOffset);
}

/* ---------------------------------------------------------------------
 * Parallel scans
 *
 * The backends of a parallel scan share one position: the page last read
 * and the link seen on it in the scan's direction (the right-link going
 * forward; going backward, the left-link, to be followed by moving right
 * until the page that links back to the one last read, as a serial
 * backward scan does).  One backend at a time "advances": it has seized
 * the position, reads the next page (or, first of all, descends), and
 * publishes that page and its link before it looks at the items it
 * copied; the others wait on a condition variable meanwhile.  Reading
 * pages one at a time through the links seen when each was read is what
 * a serial scan does, so splits are handled the same way: a page that
 * splits after it was read had its items copied then, and its new right
 * sibling (holding some of them) is skipped because the published link is
 * the one read with the page.
 *
 * Array keys: every backend runs the same combinations in the same order.
 * When the scan of one combination ends (DONE), the first backend to step
 * its keys resets the shared position and counts the combination in
 * arrayKeyCount; a backend whose own count is behind gives up its current
 * combination and steps its keys too.
 * ---------------------------------------------------------------------
 */

typedef enum BlinkParallelStatus
{
	BLINK_PARALLEL_NOT_STARTED,	/* nobody has descended yet */
	BLINK_PARALLEL_ADVANCING,	/* one backend is reading the next page */
	BLINK_PARALLEL_IDLE,		/* page/link published; free to seize */
	BLINK_PARALLEL_DONE			/* this combination of keys is finished */
} BlinkParallelStatus;

typedef struct BlinkParallelScanData
{
	slock_t		mutex;
	ConditionVariable cv;
	BlinkParallelStatus status;
	BlockNumber page;			/* the page last read */
	BlockNumber link;			/* its link in the scan direction */
	int			arrayKeyCount;	/* combinations of array keys finished */
} BlinkParallelScanData;

typedef BlinkParallelScanData *BlinkParallelScan;

Size
blinkestimateparallelscan(void)
{
	return sizeof(BlinkParallelScanData);
}

static inline BlinkParallelScan
_blink_parallel(IndexScanDesc scan)
{
	if (scan->parallel_scan == NULL)
		return NULL;
	return (BlinkParallelScan)
		OffsetToPointer(scan->parallel_scan, scan->parallel_scan->ps_offset);
}

/* Nobody has descended for the current combination of keys. */
static void
_blink_parallel_restart(BlinkParallelScan ps)
{
	ps->status = BLINK_PARALLEL_NOT_STARTED;
	ps->page = InvalidBlockNumber;
	ps->link = InvalidBlockNumber;
}

void
blinkinitparallelscan(void *target)
{
	BlinkParallelScan ps = (BlinkParallelScan) target;

	SpinLockInit(&ps->mutex);
	ConditionVariableInit(&ps->cv);
	_blink_parallel_restart(ps);
	ps->arrayKeyCount = 0;
}

void
blinkparallelrescan(IndexScanDesc scan)
{
	BlinkParallelScan ps = _blink_parallel(scan);

	SpinLockAcquire(&ps->mutex);
	_blink_parallel_restart(ps);
	ps->arrayKeyCount = 0;
	SpinLockRelease(&ps->mutex);
}

/*
 * Become the backend that advances the shared position.  Returns false if
 * the scan of the current combination of keys is over (or the others have
 * moved on to the next combination).  Otherwise *page and *link are the
 * published position, both InvalidBlockNumber if nobody has descended yet
 * (the caller descends).
 */
static bool
_blink_parallel_seize(IndexScanDesc scan, BlockNumber *page, BlockNumber *link)
{
	BlinkScanOpaque so = (BlinkScanOpaque) scan->opaque;
	BlinkParallelScan ps = _blink_parallel(scan);
	bool		seized = false;
	bool		over = false;

	for (;;)
	{
		SpinLockAcquire(&ps->mutex);
		if (so->arrayKeyCount < ps->arrayKeyCount ||
			ps->status == BLINK_PARALLEL_DONE)
			over = true;
		else if (ps->status != BLINK_PARALLEL_ADVANCING)
		{
			ps->status = BLINK_PARALLEL_ADVANCING;
			*page = ps->page;
			*link = ps->link;
			seized = true;
		}
		SpinLockRelease(&ps->mutex);
		if (seized || over)
			break;
		ConditionVariableSleep(&ps->cv, PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();
	return seized;
}

/*
 * After reading a page in direction dir (currPos describes it): publish
 * it and its link for the next backend, or, if the scan cannot go further
 * that way, mark the combination finished.
 */
static void
_blink_parallel_publish(IndexScanDesc scan, ScanDirection dir)
{
	BlinkScanOpaque so = (BlinkScanOpaque) scan->opaque;
	BlinkParallelScan ps = _blink_parallel(scan);
	BlinkScanPos *pos = &so->currPos;
	bool		forward = ScanDirectionIsForward(dir);
	BlockNumber link = forward ? pos->nextPage : pos->prevPage;
	bool		more = (forward ? pos->moreRight : pos->moreLeft) &&
		BlockNumberIsValid(link);

	SpinLockAcquire(&ps->mutex);
	if (more)
	{
		ps->status = BLINK_PARALLEL_IDLE;
		ps->page = pos->currPage;
		ps->link = link;
	}
	else if (so->arrayKeyCount >= ps->arrayKeyCount)
		ps->status = BLINK_PARALLEL_DONE;
	SpinLockRelease(&ps->mutex);
	ConditionVariableBroadcast(&ps->cv);
}

/* This backend steps its array keys: so does the shared scan, once. */
static void
_blink_parallel_next_keys(IndexScanDesc scan)
{
	BlinkScanOpaque so = (BlinkScanOpaque) scan->opaque;
	BlinkParallelScan ps = _blink_parallel(scan);

	so->arrayKeyCount++;
	SpinLockAcquire(&ps->mutex);
	if (ps->status == BLINK_PARALLEL_DONE &&
		ps->arrayKeyCount < so->arrayKeyCount)
	{
		_blink_parallel_restart(ps);
		ps->arrayKeyCount = so->arrayKeyCount;
	}
	SpinLockRelease(&ps->mutex);
	ConditionVariableBroadcast(&ps->cv);
}

/*
 * Lock (shared) the page to read after page in direction dir, given link,
 * the page's right-link (forward) or left-link (backward) seen when it
 * was read.  Going backward the left page may have split since: move
 * right until the page whose right-link is page.
 */
static Buffer
_blink_step_buffer(Relation rel, ScanDirection dir, BlockNumber page, BlockNumber link)
{
	Buffer		buf = _blink_getbuf(rel, link, BUFFER_LOCK_SHARE);

	if (ScanDirectionIsForward(dir))
		return buf;
	for (;;)
	{
		BlinkPageOpaque opaque = BlinkPageGetOpaque(BufferGetPage(buf));
		Buffer		rbuf;

		if (opaque->blink_next == page)
			return buf;
		if (BlinkPageIsRightmost(opaque))
			_blink_corrupted(rel, page,
							 "no page to the right of its left-link %u links back to it",
							 link);
		rbuf = _blink_getbuf(rel, opaque->blink_next, BUFFER_LOCK_SHARE);
		_blink_relbuf(rel, buf);
		buf = rbuf;
	}
}

/*
 * Parallel: read pages from the shared position until one has matches
 * (true) or the scan of this combination is over (false).  If seized is
 * true the caller has already seized the position (page, link).
 */
static bool
_blink_parallel_steppage(IndexScanDesc scan, ScanDirection dir, bool seized,
						 BlockNumber page, BlockNumber link)
{
	BlinkScanOpaque so = (BlinkScanOpaque) scan->opaque;
	Relation	rel = scan->indexRelation;
	BlinkScanPos *pos = &so->currPos;

	for (;;)
	{
		Buffer		buf;
		bool		found;

		CHECK_FOR_INTERRUPTS();
		_blink_leave_pos(scan);
		if (!seized && !_blink_parallel_seize(scan, &page, &link))
			break;
		seized = false;

		/*
		 * A published position always has a link (the last page marks the
		 * scan done instead), and only a backend of the current key
		 * combination seizes it, after that combination's descent.
		 */
		if (!BlockNumberIsValid(page) || !BlockNumberIsValid(link))
			elog(ERROR, "parallel scan of blink index \"%s\" has no position to continue from",
				 RelationGetRelationName(rel));
		blinkam_debug_pause(BLINKAM_PAUSE_PARALLEL_SEIZED);
		buf = _blink_step_buffer(rel, dir, page, link);
		found = _blink_readpage(scan, buf, dir);
		_blink_parallel_publish(scan, dir);
		_blink_drop_lock_maybe_pin(scan, buf);
		if (found)
			return true;
	}
	pos->currPage = InvalidBlockNumber;
	return false;
}

/*
 * Read pages in direction dir, starting after the current one, until one
 * has matches or the scan ends.  On entry currPos describes the page last
 * read (unlocked).
 */
static bool
_blink_steppage(IndexScanDesc scan, ScanDirection dir)
{
	BlinkScanOpaque so = (BlinkScanOpaque) scan->opaque;
	Relation	rel = scan->indexRelation;
	BlinkScanPos *pos = &so->currPos;

	if (scan->parallel_scan)
		return _blink_parallel_steppage(scan, dir, false,
										InvalidBlockNumber, InvalidBlockNumber);

	for (;;)
	{
		Buffer		buf;

		CHECK_FOR_INTERRUPTS();
		_blink_leave_pos(scan);

		if (ScanDirectionIsForward(dir))
		{
			if (!pos->moreRight || !BlockNumberIsValid(pos->nextPage))
				break;
		}
		else if (!pos->moreLeft || !BlockNumberIsValid(pos->prevPage))
			break;
		buf = _blink_step_buffer(rel, dir, pos->currPage,
								 ScanDirectionIsForward(dir) ? pos->nextPage : pos->prevPage);

		if (_blink_readpage(scan, buf, dir))
		{
			_blink_drop_lock_maybe_pin(scan, buf);
			return true;
		}
		_blink_drop_lock_maybe_pin(scan, buf);
	}

	pos->currPage = InvalidBlockNumber;
	return false;
}

/*
 * Build the insertion key that positions a scan in direction dir: the
 * keys that bound its start in index order, column by column while the
 * columns have equality keys.  Returns NULL if no key bounds the start.
 * Built for the opposite direction, the same key is the scan's end bound.
 */
static BlinkScanInsert
_blink_start_key(IndexScanDesc scan, ScanDirection dir)
{
	BlinkScanOpaque so = (BlinkScanOpaque) scan->opaque;
	Relation	rel = scan->indexRelation;
	int			nkeyatts = IndexRelationGetNumberOfKeyAttributes(rel);
	bool		forward = ScanDirectionIsForward(dir);
	BlinkScanInsert key;
	bool		strict = false;

	key = palloc(sizeof(BlinkScanInsertData));
	key->heaptid = NULL;
	key->keysz = 0;

	for (int attno = 1; attno <= nkeyatts; attno++)
	{
		ScanKey		chosen = NULL;
		bool		isequal = false;

		for (int i = 0; i < so->numberOfKeys; i++)
		{
			ScanKey		sk = &so->keyData[i];
			bool		desc = (sk->sk_flags & SK_BT_DESC) != 0;
			bool		lower = sk->sk_strategy == BTGreaterStrategyNumber ||
				sk->sk_strategy == BTGreaterEqualStrategyNumber;
			bool		upper = sk->sk_strategy == BTLessStrategyNumber ||
				sk->sk_strategy == BTLessEqualStrategyNumber;

			if (sk->sk_attno != attno)
				continue;
			if (sk->sk_flags & SK_SEARCHNOTNULL)
				continue;
			if (sk->sk_strategy == BTEqualStrategyNumber ||
				(sk->sk_flags & SK_SEARCHNULL))
			{
				chosen = sk;
				isequal = true;
				break;
			}
			/* the bound that comes first in scan order */
			if (chosen == NULL && (forward != desc ? lower : upper))
				chosen = sk;
		}
		if (chosen == NULL)
			break;

		{
			ScanKey		ik = &key->scankeys[key->keysz];
			Oid			opfamily = rel->rd_opfamily[attno - 1];
			Oid			opcintype = rel->rd_opcintype[attno - 1];
			Oid			subtype = OidIsValid(chosen->sk_subtype) ?
				chosen->sk_subtype : opcintype;
			int			flags = (chosen->sk_flags & (SK_BT_DESC | SK_BT_NULLS_FIRST));

			RegProcedure cmpproc = get_opfamily_proc(opfamily, opcintype,
													 subtype, 1);

			if (!RegProcedureIsValid(cmpproc))
				elog(ERROR, "missing support function 1(%u,%u) in opfamily %u",
					 opcintype, subtype, opfamily);
			/* IS NULL positions like "= NULL" in index order */
			if (chosen->sk_flags & SK_SEARCHNULL)
				flags |= SK_ISNULL;
			ScanKeyEntryInitialize(ik, flags, attno, InvalidStrategy, subtype,
								   chosen->sk_collation, cmpproc,
								   (flags & SK_ISNULL) ? (Datum) 0 :
								   chosen->sk_argument);
			key->keysz++;
			strict = chosen->sk_strategy == BTLessStrategyNumber ||
				chosen->sk_strategy == BTGreaterStrategyNumber;
		}
		if (!isequal)
			break;
	}

	if (key->keysz == 0)
	{
		pfree(key);
		return NULL;
	}

	/*
	 * Forward: start at the first item >= key, or > key if the last bound
	 * is strict.  Backward: start at the last item <= key (the first > key,
	 * minus one), or < key if strict; the leaf found by descent is the one
	 * holding that position.
	 */
	key->nextkey = forward ? strict : !strict;
	return key;
}

/*
 * The bounds of the current (primitive) scan in index order, from the
 * scan keys as they are now (the array keys' current combination).
 */
static void
_blink_set_bounds(IndexScanDesc scan)
{
	BlinkScanOpaque so = (BlinkScanOpaque) scan->opaque;

	if (so->lowKey)
		pfree(so->lowKey);
	if (so->highKey)
		pfree(so->highKey);
	so->lowKey = _blink_start_key(scan, ForwardScanDirection);
	so->highKey = _blink_start_key(scan, BackwardScanDirection);
}

/*
 * Start a (primitive) scan: descend to the first leaf in direction dir
 * and read pages until one has matches.
 */
static bool
_blink_first(IndexScanDesc scan, ScanDirection dir)
{
	BlinkScanOpaque so = (BlinkScanOpaque) scan->opaque;
	Relation	rel = scan->indexRelation;
	BlinkScanInsert key;
	Buffer		buf;
	bool		found;

	pgstat_count_index_scan(rel);
	_blink_leave_pos(scan);

	_blink_set_bounds(scan);

	/*
	 * Parallel: unless this backend is the first, continue from where the
	 * others are; the first descends while the others wait.
	 */
	if (scan->parallel_scan)
	{
		BlockNumber page,
					link;

		if (!_blink_parallel_seize(scan, &page, &link))
		{
			so->currPos.currPage = InvalidBlockNumber;
			return false;
		}
		if (BlockNumberIsValid(page))
		{
			found = _blink_parallel_steppage(scan, dir, true, page, link);
			if (found)
				_blink_set_output(scan);
			return found;
		}
	}

	key = ScanDirectionIsForward(dir) ? so->lowKey : so->highKey;
	if (key == NULL)
	{
		blinkam_count(BLINKAM_COUNTER_DESCENTS, 1);
		buf = _blink_get_endpoint(rel, 0, !ScanDirectionIsForward(dir),
								  BUFFER_LOCK_SHARE);
	}
	else
	{
		BlinkStack	stack = _blink_search(rel, key, &buf, BUFFER_LOCK_SHARE, 0);

		_blink_free_stack(stack);
	}

	found = _blink_readpage(scan, buf, dir);
	if (scan->parallel_scan)
		_blink_parallel_publish(scan, dir);
	_blink_drop_lock_maybe_pin(scan, buf);
	if (!found)
		found = _blink_steppage(scan, dir);
	if (found)
		_blink_set_output(scan);
	return found;
}

/* Advance to the next item in direction dir. */
static bool
_blink_next(IndexScanDesc scan, ScanDirection dir)
{
	BlinkScanOpaque so = (BlinkScanOpaque) scan->opaque;
	BlinkScanPos *pos = &so->currPos;

	if (ScanDirectionIsForward(dir))
	{
		if (++pos->itemIndex > pos->lastItem)
		{
			if (!_blink_steppage(scan, dir))
				return false;
		}
	}
	else
	{
		if (--pos->itemIndex < pos->firstItem)
		{
			/*
			 * A scan that changed direction may stand on a page it read
			 * going the other way: its moreLeft was left true, so stepping
			 * left works.
			 */
			if (!_blink_steppage(scan, dir))
				return false;
		}
	}
	_blink_set_output(scan);
	return true;
}

/* ---------------------------------------------------------------------
 * AM callbacks
 * ---------------------------------------------------------------------
 */

IndexScanDesc
blinkbeginscan(Relation rel, int nkeys, int norderbys)
{
	IndexScanDesc scan;
	BlinkScanOpaque so;

	/* This backend's buffered inserts must be visible to its scans. */
	_blink_defer_flush();
	scan = RelationGetIndexScan(rel, nkeys, norderbys);
	so = palloc0(sizeof(BlinkScanOpaqueData));

	so->keyData = nkeys > 0 ? palloc(sizeof(ScanKeyData) * nkeys) : NULL;
	so->currPos.buf = InvalidBuffer;
	so->currPos.currPage = InvalidBlockNumber;
	so->markPos.buf = InvalidBuffer;
	so->markPos.currPage = InvalidBlockNumber;
	scan->xs_itupdesc = RelationGetDescr(rel);
	scan->opaque = so;
	return scan;
}

void
blinkrescan(IndexScanDesc scan, ScanKey scankey, int nscankeys,
			ScanKey orderbys, int norderbys)
{
	BlinkScanOpaque so = (BlinkScanOpaque) scan->opaque;

	_blink_defer_flush();
	_blink_leave_pos(scan);
	_blink_unpin_pos(&so->markPos);
	so->currPos.currPage = InvalidBlockNumber;
	so->markPos.currPage = InvalidBlockNumber;
	so->arrayKeyCount = 0;
	so->pendingWaited = false;

	if (scan->xs_want_itup && so->currTuples == NULL)
	{
		so->currTuples = palloc(BLCKSZ * 2);
		so->markTuples = so->currTuples + BLCKSZ;
	}

	if (scankey && scan->numberOfKeys > 0)
		memmove(scan->keyData, scankey, scan->numberOfKeys * sizeof(ScanKeyData));
	_blink_preprocess_keys(scan);
}

/*
 * A scan with a dirty snapshot looks for rows of other transactions still
 * in progress, to wait for them: ON CONFLICT's check for a row with the
 * new row's key (check_exclusion_or_unique_constraint), logical
 * replication's lookup of a row by its key.  A row whose unique entry
 * waits in another backend's statement buffer (blinkinsert.c, "Pending
 * unique entries") is not in the index yet, but its key is in pending.c:
 * for a scan whose keys give every key column by equality, wait for each
 * holder of that key that is still in progress (that wait is what the
 * caller would do on finding its row), and look again, until none is.
 * Then the rows are on their leaves (a holder leaves pending.c only once
 * its entry is there, before it commits) or gone with their transaction,
 * and the scan finds what it would have found without the buffers.  Our
 * own entries were flushed when the scan began.  (An ON CONFLICT insert
 * that meets a pending key before its scan does says "maybe a conflict",
 * as for an entry on a leaf, and the executor comes back here.)
 */
static void
_blink_wait_pending(IndexScanDesc scan)
{
	BlinkScanOpaque so = (BlinkScanOpaque) scan->opaque;
	BlinkPendingKey pkey;

	if (scan->xs_snapshot == InvalidSnapshot ||
		scan->xs_snapshot->snapshot_type != SNAPSHOT_DIRTY ||
		!so->qual_ok || !_blink_pending_any() ||
		!_blink_pending_scan_key(scan->indexRelation, so->keyData,
								 so->numberOfKeys, &pkey))
		return;
	for (;;)
	{
		BlinkPendingHolder holders[BLINK_PENDING_HOLDERS];
		int			n = _blink_pending_lookup(&pkey, holders);
		bool		waited = false;

		for (int i = 0; i < n && !waited; i++)
		{
			if (holders[i].procno != MyProc->pgprocno &&
				TransactionIdIsInProgress(holders[i].xid))
			{
				XactLockTableWait(holders[i].xid, NULL, NULL, XLTW_None);
				waited = true;
			}
		}
		if (!waited)
			return;
	}
}

bool
blinkgettuple(IndexScanDesc scan, ScanDirection dir)
{
	BlinkScanOpaque so = (BlinkScanOpaque) scan->opaque;
	bool		found;

	if (!so->qual_ok)
		return false;

	/*
	 * The row of the item returned last is dead to everyone: remember the
	 * item, to mark its entry dead when the scan leaves the page.
	 */
	if (scan->kill_prior_tuple && BlinkScanPosIsValid(so->currPos) &&
		so->numKilled < BLINK_MAX_TIDS_PER_PAGE)
		so->killedItems[so->numKilled++] = so->currPos.itemIndex;

	if (!BlinkScanPosIsValid(so->currPos))
	{
		if (!so->pendingWaited)
		{
			so->pendingWaited = true;
			_blink_wait_pending(scan);
		}
		if (so->numArrayKeys > 0)
			_blink_start_array_keys(scan, dir);
		found = _blink_first(scan, dir);
	}
	else
		found = _blink_next(scan, dir);

	while (!found && so->numArrayKeys > 0 && _blink_advance_array_keys(scan, dir))
		found = _blink_first(scan, dir);

	scan->xs_recheck = false;
	return found;
}

int64
blinkgetbitmap(IndexScanDesc scan, TIDBitmap *tbm)
{
	BlinkScanOpaque so = (BlinkScanOpaque) scan->opaque;
	int64		ntids = 0;
	bool		found;

	if (!so->qual_ok)
		return 0;

	if (so->numArrayKeys > 0)
		_blink_start_array_keys(scan, ForwardScanDirection);
	found = _blink_first(scan, ForwardScanDirection);
	for (;;)
	{
		while (found)
		{
			BlinkScanPos *pos = &so->currPos;

			for (int i = pos->itemIndex; i <= pos->lastItem; i++)
			{
				tbm_add_tuples(tbm, &pos->items[i].heapTid, 1, false);
				ntids++;
			}
			found = _blink_steppage(scan, ForwardScanDirection);
		}
		if (so->numArrayKeys == 0 ||
			!_blink_advance_array_keys(scan, ForwardScanDirection))
			break;
		found = _blink_first(scan, ForwardScanDirection);
	}
	return ntids;
}

void
blinkendscan(IndexScanDesc scan)
{
	BlinkScanOpaque so = (BlinkScanOpaque) scan->opaque;

	_blink_leave_pos(scan);
	_blink_unpin_pos(&so->markPos);
	if (so->keyData)
		pfree(so->keyData);
	if (so->lowKey)
		pfree(so->lowKey);
	if (so->highKey)
		pfree(so->highKey);
	if (so->arrayContext)
		MemoryContextDelete(so->arrayContext);
	if (so->currTuples)
		pfree(so->currTuples);
	pfree(so);
}

/*
 * Copy a scan position (its items, its pin if it holds one, and its tuples
 * for index-only scans) over another, releasing the target's pin first.
 */
static void
_blink_copy_pos(BlinkScanOpaque so, BlinkScanPos *dst, char *dsttuples,
				BlinkScanPos *src, char *srctuples)
{
	_blink_unpin_pos(dst);
	if (!BlinkScanPosIsValid(*src))
	{
		dst->currPage = InvalidBlockNumber;
		return;
	}
	memcpy(dst, src, offsetof(BlinkScanPos, items) +
		   sizeof(BlinkScanItem) * (src->lastItem + 1));
	if (BufferIsValid(dst->buf))
		IncrBufferRefCount(dst->buf);
	if (so->currTuples)
		memcpy(dsttuples, srctuples, src->nextTupleOffset);
}

/*
 * Mark and restore: the position is copied whole (with its pin, if any),
 * so restoring needs no page access.  With = ANY keys the position belongs
 * to one combination of their elements, whose bounds decide where the
 * scan stops and which combination comes next: the mark keeps each array
 * key's element, and a restore that changes them sets the bounds again
 * (a merge join re-reading its inner side lost every row of the
 * combinations between the mark and the restore).
 */
void
blinkmarkpos(IndexScanDesc scan)
{
	BlinkScanOpaque so = (BlinkScanOpaque) scan->opaque;

	_blink_copy_pos(so, &so->markPos, so->markTuples, &so->currPos, so->currTuples);
	for (int i = 0; i < so->numArrayKeys; i++)
		so->arrayKeys[i].mark_elem = so->arrayKeys[i].cur_elem;
}

void
blinkrestrpos(IndexScanDesc scan)
{
	BlinkScanOpaque so = (BlinkScanOpaque) scan->opaque;
	bool		moved = false;

	_blink_leave_pos(scan);
	_blink_copy_pos(so, &so->currPos, so->currTuples, &so->markPos, so->markTuples);
	for (int i = 0; i < so->numArrayKeys; i++)
	{
		BlinkArrayKey *ak = &so->arrayKeys[i];

		if (ak->cur_elem != ak->mark_elem)
		{
			ak->cur_elem = ak->mark_elem;
			so->keyData[ak->scan_key].sk_argument = ak->elem_values[ak->cur_elem];
			moved = true;
		}
	}
	if (moved)
		_blink_set_bounds(scan);
}
