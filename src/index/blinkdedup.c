/*-------------------------------------------------------------------------
 *
 * blinkdedup.c
 *	  Deduplication: equal keys stored once, as posting tuples.
 *
 * A posting tuple (layout in blink.h) is one leaf item for a run of
 * entries with equal keys: the key once, then the heap TIDs in ascending
 * order.  Which indexes make them is decided by _blink_dedup_enabled
 * (blinkutils.c): equal keys must be equal images, so that one stored copy
 * of the key can stand for every entry.
 *
 * Where they are made:
 *  - CREATE INDEX groups equal keys as it loads the sorted entries.
 *  - An insert that finds its leaf full, after removing dead entries,
 *    rewrites the leaf with every run of equal keys as posting tuples
 *    (_blink_dedup_before_split), and splits only if that did not make
 *    room.  The rewrite is one generic WAL record; the items a pass keeps
 *    as they were keep their places, so the record's delta holds only
 *    what changed.
 *  - A statement buffer's flush stores each stretch of its run with one
 *    key as one posting tuple, appended like any item, when no entry of
 *    the leaf with that key has a TID in the stretch's range
 *    (_blink_dedup_run).  It may land in the unsorted tail.
 *  - A batch waiter publishes the same stretches of its run as posting
 *    tuples (_blink_dedup_group); the holder appends one only where the
 *    same test, and its high key, allow it (_blink_posting_may_append),
 *    and hands the run back from it otherwise.
 * Inserts never write into an existing posting tuple on their way in:
 * they append items to the leaf's unsorted tail as before, so a hot leaf's
 * WAL delta stays a line pointer and a tuple each.
 *
 * The range rule.  A posting tuple sorts where its first entry would and
 * covers every position up to its last TID; no other item of the sorted
 * part may lie inside that range, and no two posting tuples' ranges meet
 * (in the sorted part or the tail: a posting tuple is appended only if
 * its range is free of every entry with its key, and ranges only shrink
 * afterwards).  Splits rely on it (a high key made from the first item of
 * the right half must be above everything left of it), and so does
 * blink_check.  An appended plain item may land inside a range (a heap
 * TID reused after VACUUM, or a row placed on an emptier heap page); it
 * waits in the tail, where order does not matter, and before the tail is
 * merged (or the page split) it swaps TIDs with the posting tuple
 * (_blink_posting_swap), of the sorted part or of the tail: the posting
 * tuple takes the new TID and gives away its last one, which the item
 * takes instead.  Both keep their sizes, both keys are equal images, so
 * the page holds the same entries in the same space, and the item now lies
 * past the posting tuple's range -- and inside no other, since the TID it
 * took was inside this one's.
 *
 * Readers.  Scans return one entry per TID, the posting tuple's key for
 * each (blinkscan.c); they mark a posting tuple dead only if every one of
 * its TIDs was found dead.  VACUUM and the deletion before a split remove
 * TIDs from a posting tuple by rewriting it smaller in place
 * (_blink_leaf_delete).  Unique indexes never deduplicate, but their
 * checks walk the TIDs of any item all the same.
 *
 * src/index/blinkdedup.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/rel.h"

#include "common/counters.h"
#include "common/gxlog.h"
#include "index/blink.h"

/*
 * Does itup (a plain leaf item) lie strictly inside the range of the leaf
 * item posting, with an equal key?  (An equal TID at either end counts:
 * _blink_posting_swap reports the duplicate.)
 */
bool
_blink_inside_posting(Relation rel, IndexTuple posting, IndexTuple itup)
{
	ItemPointer tid = &itup->t_tid;

	if (!BlinkTupleIsPosting(posting))
		return false;
	if (ItemPointerCompare(tid, BlinkPostingTids(posting)) < 0 ||
		ItemPointerCompare(tid, BlinkTupleMaxHeapTid(posting)) > 0)
		return false;
	return _blink_keys_equal(rel, posting, itup);
}

/*
 * Put *tid into the TID list of posting (in place), inside its range, and
 * take the list's last TID out into *tid: the list keeps its length and
 * stays ascending.  A *tid already in the list is an entry the index holds
 * twice: reported as corruption of rel.
 */
void
_blink_posting_swap(Relation rel, IndexTuple posting, ItemPointer tid)
{
	ItemPointer tids = BlinkPostingTids(posting);
	int			n = BlinkPostingCount(posting);
	ItemPointerData last = tids[n - 1];
	int			i;

	Assert(ItemPointerCompare(tid, &last) <= 0);
	for (i = 0; i < n; i++)
	{
		int			cmp = ItemPointerCompare(&tids[i], tid);

		if (cmp == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("blink index \"%s\" holds heap TID (%u,%u) twice",
							RelationGetRelationName(rel),
							ItemPointerGetBlockNumber(tid),
							ItemPointerGetOffsetNumber(tid)),
					 errhint("REINDEX the index.")));
		if (cmp > 0)
			break;
	}
	/* tids[i] is the first TID above *tid: shift the rest up, dropping last */
	memmove(&tids[i + 1], &tids[i], (n - 1 - i) * sizeof(ItemPointerData));
	tids[i] = *tid;
	*tid = last;
}

/*
 * Swap TIDs between the plain item itup (in iid) and posting, if itup lies
 * inside posting's range; dead marks of both go (the TIDs they take may
 * be live rows').  Returns whether it did.
 */
static bool
_blink_swap_into(Relation rel, IndexTuple posting, ItemId piid,
				 IndexTuple itup, ItemId iid)
{
	if (!_blink_inside_posting(rel, posting, itup))
		return false;
	_blink_posting_swap(rel, posting, &itup->t_tid);
	if (ItemIdIsDead(iid))
		ItemIdSetNormal(iid, ItemIdGetOffset(iid), ItemIdGetLength(iid));
	if (ItemIdIsDead(piid))
		ItemIdSetNormal(piid, ItemIdGetOffset(piid), ItemIdGetLength(piid));
	return true;
}

/*
 * Before the tail of a leaf is merged into its sorted part: every plain
 * tail item that lies inside a posting tuple's range -- one of the sorted
 * part's, or one of the tail's own (a statement buffer's run, see
 * _blink_dedup_run) -- swaps TIDs with it (see the range rule above).
 * The posting tuples' ranges are disjoint, so an item lies in at most one,
 * and the TID it takes (that tuple's last) lies in none.  page is the page
 * copy of the caller's generic WAL record; only tuples' TIDs change, and
 * the version with the merge that follows.
 */
void
_blink_fix_tail(Relation rel, Page page)
{
	BlinkPageOpaque opaque = BlinkPageGetOpaque(page);
	OffsetNumber first = BlinkPageFirstDataKey(opaque);
	OffsetNumber sortedEnd = first + opaque->blink_nsorted;
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	OffsetNumber tailpost[BLINK_MAX_TAIL];
	int			ntailpost = 0;
	BlinkSortOffsetsArg sa;

	if (!(opaque->blink_flags & BLINK_HAS_POSTING))
		return;

	/* the tail's posting tuples, by key, for a binary search */
	for (OffsetNumber off = sortedEnd; off <= maxoff; off++)
		if (BlinkTupleIsPosting((IndexTuple) PageGetItem(page, PageGetItemId(page, off))))
			tailpost[ntailpost++] = off;
	sa.rel = rel;
	sa.page = page;
	if (ntailpost > 1)
		qsort_arg(tailpost, ntailpost, sizeof(OffsetNumber), _blink_offset_cmp, &sa);

	for (OffsetNumber off = sortedEnd; off <= maxoff; off++)
	{
		ItemId		iid = PageGetItemId(page, off);
		IndexTuple	itup = (IndexTuple) PageGetItem(page, iid);
		int			lo,
					hi;

		if (BlinkTupleIsPosting(itup))
			continue;

		/* the sorted part's posting tuple that may hold it: the one before its place */
		if (opaque->blink_nsorted > 0)
		{
			BlinkScanInsert key = _blink_mkscankey(rel, itup);
			OffsetNumber pos;

			key->nextkey = false;
			pos = _blink_binsrch(rel, key, page);
			pfree(key);
			if (pos > first)
			{
				ItemId		piid = PageGetItemId(page, pos - 1);

				if (_blink_swap_into(rel, (IndexTuple) PageGetItem(page, piid), piid,
									 itup, iid))
					continue;
			}
		}

		/* the tail's: the last one that sorts before it */
		lo = 0;
		hi = ntailpost;
		while (lo < hi)
		{
			int			mid = lo + (hi - lo) / 2;
			IndexTuple	p = (IndexTuple) PageGetItem(page, PageGetItemId(page, tailpost[mid]));

			if (_blink_compare_tuples(rel, p, itup) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo > 0)
		{
			ItemId		piid = PageGetItemId(page, tailpost[lo - 1]);

			(void) _blink_swap_into(rel, (IndexTuple) PageGetItem(page, piid), piid,
									itup, iid);
		}
	}
}

/*
 * Does no item of the leaf page with base's key hold a heap TID in
 * [min, max], or a range (a posting tuple's) that meets it?  In the sorted
 * part, whose items are in key and TID order with disjoint ranges, only
 * the item just before (key, min) and the one at it can; in the tail, any.
 */
static bool
_blink_range_free(Relation rel, Page page, IndexTuple base,
				  ItemPointer min, ItemPointer max)
{
	BlinkPageOpaque po = BlinkPageGetOpaque(page);
	OffsetNumber first = BlinkPageFirstDataKey(po);
	OffsetNumber sortedEnd = first + po->blink_nsorted;
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);

	if (po->blink_nsorted > 0)
	{
		BlinkScanInsert key = _blink_mkscankey(rel, base);
		OffsetNumber pos;

		key->nextkey = false;
		key->heaptid = min;
		pos = _blink_binsrch(rel, key, page);
		pfree(key);
		for (OffsetNumber off = Max(pos, first + 1) - 1; off <= pos && off < sortedEnd; off++)
		{
			IndexTuple	itup = (IndexTuple) PageGetItem(page, PageGetItemId(page, off));

			if (_blink_item_meets_range(rel, itup, base, min, max))
				return false;
		}
	}
	for (OffsetNumber off = sortedEnd; off <= maxoff; off++)
	{
		IndexTuple	itup = (IndexTuple) PageGetItem(page, PageGetItemId(page, off));

		if (_blink_item_meets_range(rel, itup, base, min, max))
			return false;
	}
	return true;
}

/*
 * Where the stretch of equal keys that starts at itups[i] (of n, plain
 * items in key order) ends: as far as one posting tuple of them stays
 * within the size limit.
 */
static int
_blink_stretch_end(Relation rel, IndexTuple *itups, int i, int n)
{
	Size		keysz = BlinkItemKeySize(itups[i]);
	int			j = i + 1;

	while (j < n && _blink_keys_equal(rel, itups[i], itups[j]) &&
		   BlinkPostingSize(keysz, j - i + 1) <= BLINK_MAX_POSTING_SIZE)
		j++;
	return j;
}

/* One posting tuple of the n plain items itups[0..n-1] (one key, by TID). */
static IndexTuple
_blink_posting_of(IndexTuple *itups, int n)
{
	ItemPointerData tids[BLINK_MAX_TIDS_PER_PAGE];

	for (int k = 0; k < n; k++)
		tids[k] = itups[k]->t_tid;
	return _blink_form_posting(itups[0], tids, n);
}

/*
 * A statement buffer's run for one leaf, itups[0..n-1] (plain items in key
 * order, equal keys by TID), about to be appended to page (the leaf's page
 * copy, exclusively locked): store each stretch of equal keys as one
 * posting tuple if the index deduplicates, the tuple stays within the size
 * limit and no item of the page with that key has a TID in the stretch's
 * range (the range rule: then no item lies inside the new tuple's range,
 * nor it inside another's).  Plain items that land inside its range later
 * wait in the tail and swap in before the tail is merged
 * (_blink_fix_tail).  The IoT time-stamp index gets ten entries with one
 * key from each transaction: one tuple of 76 bytes instead of ten of 16
 * and ten line pointers, so its hot leaf fills less often and needs no
 * deduplication pass for them.  Writes the items to append to out (room
 * for n) and returns their count.
 */
int
_blink_dedup_run(Relation rel, Page page, IndexTuple *itups, int n,
				 IndexTuple *out)
{
	int			nout = 0;
	int			i = 0;

	if (n < 2 || !_blink_dedup_enabled(rel))
	{
		memcpy(out, itups, n * sizeof(IndexTuple));
		return n;
	}
	while (i < n)
	{
		int			j = _blink_stretch_end(rel, itups, i, n);

		if (j - i >= 2 &&
			_blink_range_free(rel, page, itups[i], &itups[i]->t_tid,
							  &itups[j - 1]->t_tid))
			out[nout++] = _blink_posting_of(itups + i, j - i);
		else
		{
			for (int k = i; k < j; k++)
				out[nout++] = itups[k];
		}
		i = j;
	}
	return nout;
}

/*
 * The same run, about to be published for the holder of its leaf
 * (blinkinsert.c, _blink_insert_via_batch), which cannot look at the page:
 * each stretch of equal keys as one posting tuple if the index
 * deduplicates and the tuple stays within the size limit; the holder
 * appends it only where the range rule allows
 * (_blink_posting_may_append), and hands the run back from it otherwise.
 * Writes the items to out (room for n) and how many of itups each stands
 * for to counts (above one: a posting tuple palloc'd here; one: the item
 * of itups itself), and returns their number.
 */
int
_blink_dedup_group(Relation rel, IndexTuple *itups, int n, IndexTuple *out,
				   int *counts)
{
	int			nout = 0;
	int			i = 0;
	bool		dedup = n >= 2 && _blink_dedup_enabled(rel);

	while (i < n)
	{
		int			j = dedup ? _blink_stretch_end(rel, itups, i, n) : i + 1;

		out[nout] = j - i >= 2 ? _blink_posting_of(itups + i, j - i) : itups[i];
		counts[nout++] = j - i;
		i = j;
	}
	return nout;
}

/*
 * May a waiter's posting tuple (_blink_dedup_group) be appended to page,
 * the page copy of the holder of the leaf, below whose high key its first
 * TID lies?  Its whole range must lie below the high key too (a split may
 * have cut between its first and last entries), and no item of the page
 * with its key may hold a TID in its range (the range rule above).
 */
bool
_blink_posting_may_append(Relation rel, Page page, IndexTuple posting)
{
	BlinkPageOpaque po = BlinkPageGetOpaque(page);

	Assert(BlinkTupleIsPosting(posting));
	if (!BlinkPageIsRightmost(po) &&
		_blink_compare_tuple_end(rel, (IndexTuple) PageGetItem(page, PageGetItemId(page, BLINK_HIKEY)),
								 posting) <= 0)
		return false;
	return _blink_range_free(rel, page, posting, BlinkPostingTids(posting),
							 BlinkTupleMaxHeapTid(posting));
}

/* The least room a deduplication pass must make to be written. */
#define BLINK_DEDUP_MIN_GAIN	(BLCKSZ / 8)

/* The items of a leaf being deduplicated, in key order. */
typedef struct DedupState
{
	Relation	rel;
	IndexTuple *out;			/* items of the new page */
	bool	   *outdead;
	int			nout;
	bool		postings;		/* did any posting tuple come out? */
	/* the run being gathered */
	IndexTuple	base;			/* an item with the run's key */
	Size		keysz;
	ItemPointerData tids[BLINK_MAX_TIDS_PER_PAGE];
	int			ntids;
} DedupState;

static void
_blink_dedup_emit(DedupState *ds, IndexTuple itup, bool dead)
{
	ds->out[ds->nout] = itup;
	ds->outdead[ds->nout] = dead;
	ds->nout++;
}

/* End the run being gathered: one item for it. */
static void
_blink_dedup_flush(DedupState *ds)
{
	if (ds->ntids == 0)
		return;
	if (ds->ntids == 1 && !BlinkTupleIsPosting(ds->base) &&
		ItemPointerEquals(&ds->base->t_tid, &ds->tids[0]))
		_blink_dedup_emit(ds, ds->base, false);	/* an item left as it was */
	else
	{
		_blink_dedup_emit(ds, _blink_form_posting(ds->base, ds->tids, ds->ntids), false);
		ds->postings |= ds->ntids > 1;
	}
	ds->ntids = 0;
	ds->base = NULL;
}

/* Add the entries of the live item itup, which follows the run in key order. */
static void
_blink_dedup_add(DedupState *ds, IndexTuple itup)
{
	int			n = BlinkItemNTids(itup);

	if (ds->base != NULL && !_blink_keys_equal(ds->rel, ds->base, itup))
		_blink_dedup_flush(ds);
	for (int i = 0; i < n; i++)
	{
		if (ds->base == NULL)
		{
			ds->base = itup;
			ds->keysz = BlinkItemKeySize(itup);
		}
		else if (BlinkPostingSize(ds->keysz, ds->ntids + 1) > BLINK_MAX_POSTING_SIZE)
		{
			/* the posting tuple is full: the run goes on in another */
			IndexTuple	base = ds->base;
			Size		keysz = ds->keysz;

			_blink_dedup_flush(ds);
			ds->base = base;
			ds->keysz = keysz;
		}
		ds->tids[ds->ntids++] = *BlinkItemTid(itup, i);
	}
}

/*
 * Free ds.  The posting tuples it formed are left to the caller's memory
 * context (an insert's, reset with the tuple or the statement buffer).
 */
static void
_blink_dedup_free(DedupState *ds)
{
	pfree(ds->out);
	pfree(ds->outdead);
	pfree(ds);
}

/*
 * newitem does not fit on the leaf in buf (exclusively locked, kept so),
 * whose dead entries are already gone: if the index deduplicates, rewrite
 * the leaf with each run of equal keys as posting tuples, as few as the
 * size limit of a posting tuple allows, in one generic WAL record.  The
 * page is rebuilt from its special area, adding the items in key order
 * as the previous pass (or the split that made the page) did, so the
 * items before the first one that changes land on the same bytes, and
 * the delta leaves them out: on a leaf of a growing key, whose tail of
 * new entries is all that changes, the passes after the first write a
 * third to a sixth of what a page image would (t/025).
 * Nothing is written if no two items would become one.  Returns true if
 * newitem fits now.
 *
 * Entries neither come nor go, so a caller's uniqueness check (none here:
 * unique indexes do not deduplicate) and every scan's answers stay as they
 * were; items move, so the version changes, and scans holding offsets of
 * this leaf mark nothing (blinkdelete.c).  Items marked dead are kept as
 * they are, outside any run.
 */
bool
_blink_dedup_before_split(Relation rel, Buffer buf, IndexTuple newitem)
{
	BlinkamXLogState *state;
	Page		p;
	Page		temp;
	BlinkPageOpaque po;
	OffsetNumber first,
				maxoff;
	int			nitems;
	DedupState *ds;
	Size		oldsize = 0,
				newsize = 0;

	if (!_blink_dedup_enabled(rel))
		return false;

	state = blinkam_xlog_start(rel);
	p = blinkam_xlog_register(state, buf, 0);
	po = BlinkPageGetOpaque(p);
	Assert(BlinkPageIsLeaf(po));

	/* Every item in key order, no item inside a posting tuple's range. */
	_blink_sort_leaf(rel, p);
	first = BlinkPageFirstDataKey(po);
	maxoff = PageGetMaxOffsetNumber(p);
	nitems = maxoff >= first ? maxoff - first + 1 : 0;

	ds = palloc(sizeof(DedupState));
	ds->rel = rel;
	ds->out = palloc(sizeof(IndexTuple) * Max(nitems, 1) * 2);
	ds->outdead = palloc(sizeof(bool) * Max(nitems, 1) * 2);
	ds->nout = 0;
	ds->postings = false;
	ds->base = NULL;
	ds->ntids = 0;
	for (OffsetNumber off = first; off <= maxoff; off++)
	{
		ItemId		iid = PageGetItemId(p, off);
		IndexTuple	itup = (IndexTuple) PageGetItem(p, iid);

		if (ItemIdIsDead(iid))
		{
			_blink_dedup_flush(ds);
			_blink_dedup_emit(ds, itup, true);
		}
		else
			_blink_dedup_add(ds, itup);
	}
	_blink_dedup_flush(ds);

	/*
	 * Worth a page image?  Only if it makes room for the new item and for
	 * some more: a pass that frees a few bytes would be followed by another
	 * one a few inserts later, each writing the whole page to WAL.  Then
	 * the page splits instead, and its halves deduplicate later.
	 */
	for (int i = 0; i < ds->nout; i++)
		newsize += MAXALIGN(IndexTupleSize(ds->out[i])) + sizeof(ItemIdData);
	for (OffsetNumber off = first; off <= maxoff; off++)
		oldsize += MAXALIGN(ItemIdGetLength(PageGetItemId(p, off))) + sizeof(ItemIdData);
	if (ds->nout >= nitems ||
		oldsize < newsize + Max(BLINK_DEDUP_MIN_GAIN,
								MAXALIGN(IndexTupleSize(newitem)) + sizeof(ItemIdData)))
	{
		blinkam_xlog_abort(state);
		_blink_dedup_free(ds);
		return false;
	}

	/*
	 * The new page: same special area, the high key, the new items, and
	 * the old page's LSN (a zero one in the image would reach the buffer
	 * before the record is assembled, and force a full-page image of it).
	 */
	temp = PageGetTempPageCopySpecial(p);
	PageSetLSN(temp, PageGetLSN(p));
	if (!BlinkPageIsRightmost(po))
	{
		ItemId		hid = PageGetItemId(p, BLINK_HIKEY);

		if (PageAddItem(temp, PageGetItem(p, hid), ItemIdGetLength(hid),
						BLINK_HIKEY, false, false) == InvalidOffsetNumber)
			elog(ERROR, "failed to copy the high key of a blink leaf");
	}
	for (int i = 0; i < ds->nout; i++)
	{
		OffsetNumber off = PageAddItem(temp, (Item) ds->out[i],
									   IndexTupleSize(ds->out[i]),
									   OffsetNumberNext(PageGetMaxOffsetNumber(temp)),
									   false, false);

		if (off == InvalidOffsetNumber)
			elog(ERROR, "failed to add a deduplicated item to blink index \"%s\"",
				 RelationGetRelationName(rel));
		if (ds->outdead[i])
			ItemIdMarkDead(PageGetItemId(temp, off));
	}
	po = BlinkPageGetOpaque(temp);
	po->blink_nsorted = ds->nout;
	if (ds->postings)
		po->blink_flags |= BLINK_HAS_POSTING;
	_blink_page_changed(temp);
	memcpy(p, temp, BLCKSZ);
	pfree(temp);
	blinkam_xlog_finish(state);

	blinkam_count(BLINKAM_COUNTER_DEDUP_PASSES, 1);
	_blink_dedup_free(ds);
	return _blink_fits(BufferGetPage(buf), IndexTupleSize(newitem));
}

