/*-------------------------------------------------------------------------
 *
 * blinksearch.c
 *	  Searching a blink tree: comparison against page items, binary search,
 *	  moving right, descent with a remembered path, tree endpoints, and the
 *	  merge of a leaf's unsorted tail.
 *
 * Descent holds one page lock at a time (no lock coupling): it reads the
 * downlink, remembers (block, version, offset) in the path, releases the
 * page and then locks the child.  A page split in between is harmless:
 * keys only ever move right, and every page's high key and right-link
 * route a search to the page that now holds its key.  Moving right is the
 * one place where two locks of a level are held: the right page is locked
 * before the current one is released, always left to right.
 *
 * src/index/blinksearch.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"

#include "common/counters.h"
#include "common/settings.h"
#include "index/blink.h"

/*
 * Compare the insertion key with the item at offnum of page.  The first
 * data item of an internal page is minus infinity: every key is above it.
 * The caller holds a lock on the page.
 */
int32
_blink_compare(Relation rel, BlinkScanInsert key, Page page, OffsetNumber offnum)
{
	BlinkPageOpaque opaque = BlinkPageGetOpaque(page);
	IndexTuple	itup;

	if (!BlinkPageIsLeaf(opaque) && offnum == BlinkPageFirstDataKey(opaque))
		return 1;
	itup = (IndexTuple) PageGetItem(page, PageGetItemId(page, offnum));
	return _blink_compare_key_tuple(rel, key, itup);
}

/*
 * Binary search of the sorted items of a page.
 *
 * On a leaf, returns the first sorted offset whose item is >= key (> key
 * with nextkey); it may be one past the sorted part.  The unsorted tail is
 * not searched: callers that need every match look at it themselves.
 *
 * On an internal page, returns the offset of the downlink to follow: the
 * last item < key (<= key with nextkey); the minus-infinity item makes
 * that always exist.
 */
OffsetNumber
_blink_binsrch(Relation rel, BlinkScanInsert key, Page page)
{
	BlinkPageOpaque opaque = BlinkPageGetOpaque(page);
	OffsetNumber low = BlinkPageFirstDataKey(opaque);
	OffsetNumber high = low + opaque->blink_nsorted;	/* one past the end */
	int32		goal = key->nextkey ? -1 : 0;

	Assert(high <= PageGetMaxOffsetNumber(page) + 1);

	/*
	 * Invariant: items before low compare key > item (key >= item with
	 * nextkey); items at high and after compare key <= item (key < item).
	 *
	 * Look at the last sorted item first: growing keys (time stamps,
	 * sequences, the newest entries of one sensor) go after it, and then
	 * one comparison answers instead of a whole search.  Otherwise the
	 * search goes on below that item, one comparison later.
	 */
	if (low < high)
	{
		if (_blink_compare(rel, key, page, OffsetNumberPrev(high)) > goal)
			low = high;
		else
			high = OffsetNumberPrev(high);
	}
	while (low < high)
	{
		OffsetNumber mid = low + (high - low) / 2;

		if (_blink_compare(rel, key, page, mid) > goal)
			low = mid + 1;
		else
			high = mid;
	}

	if (BlinkPageIsLeaf(opaque))
		return low;
	Assert(low > BlinkPageFirstDataKey(opaque));
	return OffsetNumberPrev(low);
}

/*
 * Must a search for key continue on the right sibling of page?  Yes when
 * the page has one and the key is beyond the high key: key > high key, or
 * key >= high key with nextkey.
 */
bool
_blink_should_move_right(Relation rel, BlinkScanInsert key, Page page)
{
	BlinkPageOpaque opaque = BlinkPageGetOpaque(page);
	int32		cmp;

	if (BlinkPageIsRightmost(opaque))
		return false;
	cmp = _blink_compare(rel, key, page, BLINK_HIKEY);
	return cmp > 0 || (cmp == 0 && key->nextkey);
}

/*
 * Move right from buf until the page's key range covers key.
 *
 * On entry buf is pinned and locked in mode access; on exit the returned
 * buffer is, and buf has been released if it is a different one.  The
 * right page is locked before the left one is released (coupling, left to
 * right only).  Pages flagged INCOMPLETE_SPLIT are passed like any other:
 * their high key and right-link are already correct.
 */
Buffer
_blink_moveright(Relation rel, BlinkScanInsert key, Buffer buf, int access)
{
	for (;;)
	{
		Page		page = BufferGetPage(buf);
		BlinkPageOpaque opaque = BlinkPageGetOpaque(page);
		Buffer		rbuf;

		if (!_blink_should_move_right(rel, key, page))
			return buf;

		rbuf = _blink_getbuf(rel, opaque->blink_next, access);
		_blink_relbuf(rel, buf);
		buf = rbuf;
		blinkam_count(BLINKAM_COUNTER_MOVERIGHTS, 1);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Get block blkno for the target level of a descent, or the next page of
 * a move right (releasing obuf, if valid, first).  With nolock, try the
 * lock without waiting; if another backend holds the page, set *nolock and
 * return it pinned only.
 */
Buffer
_blink_get_target(Relation rel, Buffer obuf, BlockNumber blkno, int access,
				  bool *nolock)
{
	Buffer		buf;

	if (nolock == NULL)
		return BufferIsValid(obuf) ?
			_blink_relandgetbuf(rel, obuf, blkno, access) :
			_blink_getbuf(rel, blkno, access);

	if (BufferIsValid(obuf))
	{
		_blink_unlock(rel, obuf);
		buf = ReleaseAndReadBuffer(obuf, rel, blkno);
	}
	else
		buf = ReadBuffer(rel, blkno);
	if (!ConditionalLockBuffer(buf))
	{
		*nolock = true;
		return buf;
	}
	_blink_checkpage(rel, buf);
	return buf;
}

static void _blink_hint_store(Relation rel, BlockNumber blkno, Buffer recent,
							  IndexTuple lo, IndexTuple hi);

/*
 * Move right from buf (locked in mode access) as an insert that may
 * publish does (nolock, see _blink_get_target): let each page go before
 * taking the next, and take that one only if it is free; a busy one is
 * returned pinned, *nolock set, for the caller to publish on.  Not
 * coupled, and need not be: key lies above the high key of the page let
 * go, which is the next page's low bound, and bounds never rise; if the
 * next page splits meanwhile, the loop goes on from it.  A descent that
 * lands left of a split whose downlink is not in yet -- the hot
 * right-most leaf, just split -- would otherwise queue on the new page's
 * lock instead of joining its batch.
 *
 * hint (an insert that came by a leaf hint): remember each page moved to
 * as a hint, with the high key of the page let go as its lo item, so that
 * the next insert starts there even if this one only publishes; and wait
 * at pause point hint_move_right between the two pages.
 */
Buffer
_blink_moveright_nowait(Relation rel, BlinkScanInsert key, Buffer buf,
						int access, bool *nolock, bool hint)
{
	while (_blink_should_move_right(rel, key, BufferGetPage(buf)))
	{
		Page		page = BufferGetPage(buf);
		BlockNumber next = BlinkPageGetOpaque(page)->blink_next;
		BlinkHintTuple low;
		bool		keep = false;

		if (hint)
		{
			IndexTuple	hikey = (IndexTuple) PageGetItem(page, PageGetItemId(page, BLINK_HIKEY));

			keep = IndexTupleSize(hikey) <= BLINK_HINT_TUPLE;
			if (keep)
				memcpy(low.data, hikey, IndexTupleSize(hikey));
			_blink_relbuf(rel, buf);
			buf = InvalidBuffer;
			blinkam_debug_pause(BLINKAM_PAUSE_HINT_MOVE_RIGHT);
		}
		buf = _blink_get_target(rel, buf, next, access, nolock);
		blinkam_count(BLINKAM_COUNTER_MOVERIGHTS, 1);
		if (keep)
			_blink_hint_store(rel, next, buf, (IndexTuple) low.data, NULL);
		if (*nolock)
			return buf;
		CHECK_FOR_INTERRUPTS();
	}
	return buf;
}

/* ---------------------------------------------------------------------
 * Leaf hints
 *
 * An insert that finds a hint for its key goes straight to that leaf
 * instead of descending from the root.  Why that lands where a descent
 * would (src/README, "Leaf hints"): a hint's lo item was on the leaf when
 * it was remembered, so the leaf's range started at or below lo; a leaf's
 * low bound never rises (a split moves the high bound down and keeps the
 * low one, there is no page deletion, and a page never changes level),
 * so a key above lo is still at or above the leaf's low bound.  Under the
 * leaf's lock, moving right while the key is beyond the high key -- what
 * a descent does at the end too -- finds the leaf that covers the key.
 * The hint's copy of the high key only chooses the hint; it may be stale.
 *
 * The hints live in rd_amcache, so a new relfilenode (TRUNCATE, REINDEX,
 * a rewrite) or any other relcache reload drops them with the rest.
 * ---------------------------------------------------------------------
 */

/*
 * The leaf that a hint says covers key, pinned and locked exclusively
 * and moved right as needed; InvalidBuffer when no hint covers key (the
 * caller descends).  With nolock (as for _blink_search_ext), a leaf that
 * another backend holds is returned pinned only, not moved right from,
 * with *nolock set: key is at or above its low bound all the same, which
 * is what a descent that stops at a busy leaf knows of it.
 *
 * mode BLINK_HINT_EXACT: take the hint only if its leaf covers key as it
 * is (and, with nolock, is free); a hinted leaf that key lies beyond (it
 * has split since), or one found busy, is let go and InvalidBuffer
 * returned, for the caller to descend.  A statement buffer's flush asks
 * that: its hint is on the hot right-most leaf of a growing key, which
 * other backends split while this one is away -- under many clients, by
 * the next flush, several times over, and moving right through those
 * halves (or publishing on one of them) costs more than a descent
 * (src/README, "Leaf hints").  BLINK_HINT_HELD: as exact, for a flush that
 * holds leaves while it looks for the next (_blink_flush_companions): the
 * leaf is taken only if a buffer holds it already (no read from disk, no
 * eviction under those locks), and the pause point is skipped (a test
 * holding the backend there would hold the leaves too, out of
 * isolationtester's sight).
 */
Buffer
_blink_hint_leaf(Relation rel, BlinkScanInsert key, bool *nolock,
				 BlinkHintMode mode)
{
	BlinkRelCache *cache = _blink_relcache(rel);
	BlinkLeafHint *hint;
	int			lo = 0;
	int			hi = cache->nhints;
	bool		exact = (mode != BLINK_HINT_MOVE);
	Buffer		buf;

	cache->hint_last = -1;

	/* the last hint whose lo item the key is above */
	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (_blink_compare_key_tuple(rel, key,
									 (IndexTuple) cache->hints[mid].lo.data) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return InvalidBuffer;
	hint = &cache->hints[lo - 1];
	if (hint->has_hi)
	{
		int32		cmp = _blink_compare_key_tuple(rel, key,
												   (IndexTuple) hint->hi.data);

		if (cmp > 0 || (cmp == 0 && key->nextkey))
			return InvalidBuffer;
	}

	if (mode == BLINK_HINT_HELD)
	{
		Assert(nolock != NULL);
		buf = _blink_pin_cached(rel, hint->blkno, hint->recent);
		if (!BufferIsValid(buf))
			return InvalidBuffer;
	}
	else if (_blink_pin_recent(rel, hint->blkno, hint->recent))
		buf = hint->recent;
	else
		buf = ReadBuffer(rel, hint->blkno);
	hint->recent = buf;
	hint->used = ++cache->hint_clock;
	cache->hint_last = lo - 1;

	/* a relcache reload may free the cache from here on: no more use */
	if (mode != BLINK_HINT_HELD)
		blinkam_debug_pause(BLINKAM_PAUSE_HINT_PINNED);
	if (nolock != NULL)
	{
		if (!ConditionalLockBuffer(buf))
		{
			if (exact)
			{
				ReleaseBuffer(buf);
				return InvalidBuffer;
			}
			*nolock = true;
			blinkam_count(BLINKAM_COUNTER_LEAF_HINTS, 1);
			return buf;
		}
		_blink_checkpage(rel, buf);
	}
	else
		_blink_lockbuf(rel, buf, BUFFER_LOCK_EXCLUSIVE);

	if (!BlinkPageIsLeaf(BlinkPageGetOpaque(BufferGetPage(buf))))
	{
		/* cannot happen (see above); descend rather than trust it */
		Assert(false);
		_blink_relbuf(rel, buf);
		_blink_relcache(rel)->nhints = 0;
		return InvalidBuffer;
	}
	if (exact && _blink_should_move_right(rel, key, BufferGetPage(buf)))
	{
		_blink_relbuf(rel, buf);
		return InvalidBuffer;
	}
	blinkam_count(BLINKAM_COUNTER_LEAF_HINTS, 1);
	if (nolock == NULL)
		return _blink_moveright(rel, key, buf, BUFFER_LOCK_EXCLUSIVE);

	/*
	 * With batching, move right as a descent would reach the leaf: take
	 * the right sibling only if it is free, else return it pinned for the
	 * caller to publish there.  (A hint left behind by a split of the hot
	 * right-most leaf must not queue every inserter on that leaf's lock.)
	 * Each page moved to is remembered as a hint.
	 */
	return _blink_moveright_nowait(rel, key, buf, BUFFER_LOCK_EXCLUSIVE,
								   nolock, true);
}

/*
 * The first of cache's hints, from index start on, whose lo does not sort
 * below tup (cache->nhints if none): the hints are kept in lo order.
 */
static int
_blink_hint_lower(Relation rel, BlinkRelCache *cache, int start, IndexTuple tup)
{
	int			low = start;
	int			high = cache->nhints;

	while (low < high)
	{
		int			mid = low + (high - low) / 2;

		if (_blink_compare_tuples(rel, (IndexTuple) cache->hints[mid].lo.data, tup) < 0)
			low = mid + 1;
		else
			high = mid;
	}
	return low;
}

/*
 * Keep (blkno, recent, lo, hi) as a hint: lo is a tuple known to be at or
 * above the leaf's low bound, hi its high key (NULL: not known, or it is
 * the rightmost leaf), each at most BLINK_HINT_TUPLE bytes.
 */
static void
_blink_hint_store(Relation rel, BlockNumber blkno, Buffer recent,
				  IndexTuple lo, IndexTuple hi)
{
	BlinkRelCache *cache = _blink_relcache(rel);
	BlinkLeafHint *hint;
	int			from;
	int			to;
	int			n;
	int			pos;

	Assert(IndexTupleSize(lo) <= BLINK_HINT_TUPLE);
	Assert(hi == NULL || IndexTupleSize(hi) <= BLINK_HINT_TUPLE);

	/*
	 * Drop the hints this one makes useless: the leaf's own, and, when its
	 * high key is known, those whose lo lies in the leaf's range now
	 * (items that were seen on a page left of it before it split off).
	 * Others may be stale too; a stale hint costs a move right.  The hints
	 * are kept in lo order, so those in the range are one stretch, found
	 * by binary search: with keys that do not repeat a leaf, every insert
	 * stores a hint, and comparing lo and hi with all of them cost a tenth
	 * of such an insert.
	 */
	from = to = _blink_hint_lower(rel, cache, 0, lo);
	if (hi != NULL)
		to = _blink_hint_lower(rel, cache, from, hi);
	n = 0;
	for (int i = 0; i < cache->nhints; i++)
	{
		if ((i >= from && i < to) || cache->hints[i].blkno == blkno)
			continue;
		if (n != i)
			cache->hints[n] = cache->hints[i];
		n++;
	}
	cache->nhints = n;

	/* full: forget the least recently used */
	if (n == BLINK_LEAF_HINTS)
	{
		int			victim = 0;

		for (int i = 1; i < n; i++)
		{
			if (cache->hints[i].used < cache->hints[victim].used)
				victim = i;
		}
		memmove(&cache->hints[victim], &cache->hints[victim + 1],
				(n - victim - 1) * sizeof(BlinkLeafHint));
		n--;
		cache->nhints = n;
	}

	/* insert in lo order: after every hint whose lo sorts below it */
	pos = _blink_hint_lower(rel, cache, 0, lo);
	memmove(&cache->hints[pos + 1], &cache->hints[pos],
			(n - pos) * sizeof(BlinkLeafHint));
	hint = &cache->hints[pos];
	hint->blkno = blkno;
	hint->recent = recent;
	hint->used = ++cache->hint_clock;
	memcpy(hint->lo.data, lo, IndexTupleSize(lo));
	hint->has_hi = hi != NULL;
	if (hi)
		memcpy(hint->hi.data, hi, IndexTupleSize(hi));
	cache->nhints = n + 1;
	cache->hint_last = pos;
}

/*
 * Remember the leaf in buf (pinned and locked, in any mode) as a hint:
 * its first sorted item (for a posting tuple, its first entry) as lo and
 * its high key.  Not kept: leaves with no sorted item, or whose keys are
 * too large to copy.  Cheap when the leaf is the one the last lookup's
 * hint gave.
 */
void
_blink_hint_remember(Relation rel, Buffer buf)
{
	BlinkRelCache *cache = _blink_relcache(rel);
	Page		page = BufferGetPage(buf);
	BlinkPageOpaque opaque = BlinkPageGetOpaque(page);
	BlockNumber blkno = BufferGetBlockNumber(buf);
	IndexTuple	lo;
	IndexTuple	hi = NULL;
	BlinkHintTuple plain;

	if (cache->hint_last >= 0 && cache->hint_last < cache->nhints &&
		cache->hints[cache->hint_last].blkno == blkno &&
		cache->hints[cache->hint_last].has_hi != BlinkPageIsRightmost(opaque))
	{
		cache->hints[cache->hint_last].recent = buf;
		return;
	}
	if (opaque->blink_nsorted == 0)
		return;
	lo = (IndexTuple) PageGetItem(page,
								  PageGetItemId(page, BlinkPageFirstDataKey(opaque)));
	if (BlinkItemKeySize(lo) > BLINK_HINT_TUPLE)
		return;

	/*
	 * A posting tuple sorts where its first entry would: lo is that entry,
	 * a plain tuple of its key and first heap TID (the whole posting tuple
	 * -- ten TIDs of the IoT time-stamp index make 76 bytes -- would not
	 * fit, and its TIDs are not needed to compare with it).
	 */
	if (BlinkTupleIsPosting(lo))
	{
		(void) _blink_copy_key((IndexTuple) plain.data, lo, BlinkTupleHeapTid(lo));
		lo = (IndexTuple) plain.data;
	}
	if (!BlinkPageIsRightmost(opaque))
	{
		hi = (IndexTuple) PageGetItem(page, PageGetItemId(page, BLINK_HIKEY));
		if (IndexTupleSize(hi) > BLINK_HINT_TUPLE)
			return;
	}
	_blink_hint_store(rel, blkno, buf, lo, hi);
}

/*
 * Descend from the root to the page of level target_level whose key range
 * covers key.
 *
 * Returns that page in *bufp, pinned and locked in mode access, and the
 * path of internal pages visited above it (the nearest parent first; NULL
 * when the start page was already at target_level).  Pages above the
 * target level are share-locked one at a time.  The caller frees the path
 * with _blink_free_stack.
 */
BlinkStack
_blink_search(Relation rel, BlinkScanInsert key, Buffer *bufp, int access,
			  uint32 target_level)
{
	return _blink_search_ext(rel, key, bufp, access, target_level, NULL);
}

/*
 * _blink_search, where nolock (if not NULL) asks for the target page to
 * be locked exclusively only if that needs no wait: if another backend
 * holds it, or a page right of it that the key has moved to (the move is
 * then not coupled: _blink_moveright_nowait), that page is returned
 * pinned but not locked, not moved right from, and *nolock is set.  The
 * caller checks *nolock (initially false).
 */
BlinkStack
_blink_search_ext(Relation rel, BlinkScanInsert key, Buffer *bufp, int access,
				  uint32 target_level, bool *nolock)
{
	BlinkStack	stack = NULL;
	BlockNumber blkno;
	uint32		level;
	Buffer		buf;
	bool		refreshed = false;

	blinkam_count(BLINKAM_COUNTER_DESCENTS, 1);

	blkno = _blink_getroot(rel, &level, false);
	for (;;)
	{
		if (level == target_level)
		{
			buf = _blink_get_target(rel, InvalidBuffer, blkno, access, nolock);
			if (nolock && *nolock)
			{
				*bufp = buf;	/* the root is the target: it is busy */
				return NULL;
			}
		}
		else
			buf = _blink_getbuf(rel, blkno, BUFFER_LOCK_SHARE);

		/*
		 * The cached root may have split since.  Starting below the real
		 * root is still correct, but a path that reaches the real root
		 * saves parent searches later: refresh the cache once.
		 */
		if (!BlinkPageIsRoot(BlinkPageGetOpaque(BufferGetPage(buf))) && !refreshed)
		{
			_blink_relbuf(rel, buf);
			blkno = _blink_getroot(rel, &level, true);
			refreshed = true;
			continue;
		}
		break;
	}
	if (level < target_level)
		elog(ERROR, "blink index \"%s\" has no level %u (root level %u)",
			 RelationGetRelationName(rel), target_level, level);

	for (;;)
	{
		Page		page;
		BlinkPageOpaque opaque;
		OffsetNumber offnum;
		IndexTuple	itup;
		BlinkStack	entry;
		BlockNumber child;

		if (level == target_level && nolock != NULL)
		{
			/* an insert's leaf: a busy page right of it is published on */
			buf = _blink_moveright_nowait(rel, key, buf, access, nolock, false);
			if (*nolock)
			{
				*bufp = buf;
				return stack;
			}
		}
		else
			buf = _blink_moveright(rel, key, buf,
								   level == target_level ? access : BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		opaque = BlinkPageGetOpaque(page);
		if (opaque->blink_level != level)
			_blink_corrupted(rel, BufferGetBlockNumber(buf),
							 "level %u, expected %u on the way down from the root",
							 opaque->blink_level, level);
		if (level == target_level)
			break;

		offnum = _blink_binsrch(rel, key, page);
		itup = (IndexTuple) PageGetItem(page, PageGetItemId(page, offnum));
		child = BlinkDownlink(itup);

		entry = palloc(sizeof(BlinkStackData));
		entry->blkno = BufferGetBlockNumber(buf);
		entry->version = opaque->blink_version;
		entry->offnum = offnum;
		entry->parent = stack;
		stack = entry;

		level--;
		if (level == target_level)
		{
			buf = _blink_get_target(rel, buf, child, access, nolock);
			if (nolock && *nolock)
			{
				*bufp = buf;
				return stack;
			}
		}
		else
			buf = _blink_relandgetbuf(rel, buf, child, BUFFER_LOCK_SHARE);
	}

	*bufp = buf;
	return stack;
}

void
_blink_free_stack(BlinkStack stack)
{
	while (stack)
	{
		BlinkStack	parent = stack->parent;

		pfree(stack);
		stack = parent;
	}
}

/*
 * The leftmost (or rightmost) page of the given level, pinned and locked
 * in mode access.  Upper levels are share-locked one at a time.
 */
Buffer
_blink_get_endpoint(Relation rel, uint32 level, bool rightmost, int access)
{
	uint32		rootlevel;
	BlockNumber blkno = _blink_getroot(rel, &rootlevel, true);
	Buffer		buf;

	if (rootlevel < level)
		elog(ERROR, "blink index \"%s\" has no level %u (root level %u)",
			 RelationGetRelationName(rel), level, rootlevel);

	buf = _blink_getbuf(rel, blkno,
						rootlevel == level ? access : BUFFER_LOCK_SHARE);
	for (;;)
	{
		Page		page = BufferGetPage(buf);
		BlinkPageOpaque opaque = BlinkPageGetOpaque(page);
		int			mode = (uint32) opaque->blink_level == level + 1 ?
			access : BUFFER_LOCK_SHARE;
		OffsetNumber offnum;
		IndexTuple	itup;

		if (rightmost && !BlinkPageIsRightmost(opaque))
		{
			Buffer		rbuf = _blink_getbuf(rel, opaque->blink_next,
											 opaque->blink_level == level ?
											 access : BUFFER_LOCK_SHARE);

			_blink_relbuf(rel, buf);
			buf = rbuf;
			continue;
		}
		if (opaque->blink_level == level)
			return buf;

		offnum = rightmost ? PageGetMaxOffsetNumber(page) :
			BlinkPageFirstDataKey(opaque);
		itup = (IndexTuple) PageGetItem(page, PageGetItemId(page, offnum));
		buf = _blink_relandgetbuf(rel, buf, BlinkDownlink(itup), mode);
	}
}

/* qsort_arg comparator for line pointers of one page */
typedef struct SortLeafArg
{
	Relation	rel;
	Page		page;
} SortLeafArg;

static int
_blink_itemid_cmp(const void *a, const void *b, void *arg)
{
	SortLeafArg *sa = (SortLeafArg *) arg;
	IndexTuple	ta = (IndexTuple) PageGetItem(sa->page, (ItemId) a);
	IndexTuple	tb = (IndexTuple) PageGetItem(sa->page, (ItemId) b);

	return _blink_compare_tuples(sa->rel, ta, tb);
}

/*
 * Merge a leaf's unsorted tail into its sorted part.  Only the line
 * pointer array is rewritten; tuples stay where they are, so the generic
 * WAL delta is the line pointers that moved (and, on a page with posting
 * tuples, the TIDs of tail items that swap with one: _blink_fix_tail).
 * The caller holds an exclusive lock and passes the page copy of its
 * generic WAL record.
 */
void
_blink_sort_leaf(Relation rel, Page page)
{
	BlinkPageOpaque opaque = BlinkPageGetOpaque(page);
	OffsetNumber first = BlinkPageFirstDataKey(opaque);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	int			nitems = maxoff >= first ? maxoff - first + 1 : 0;
	int			nsorted = opaque->blink_nsorted;
	int			ntail = nitems - nsorted;
	ItemIdData *lp = ((PageHeader) page)->pd_linp + (first - 1);
	ItemIdData *merged;
	SortLeafArg arg;
	int			i,
				j,
				k;

	Assert(BlinkPageIsLeaf(opaque));
	Assert(ntail >= 0);
	if (ntail == 0)
		return;

	_blink_fix_tail(rel, page);
	arg.rel = rel;
	arg.page = page;
	qsort_arg(lp + nsorted, ntail, sizeof(ItemIdData), _blink_itemid_cmp, &arg);

	merged = palloc(sizeof(ItemIdData) * nitems);
	i = 0;
	j = nsorted;
	k = 0;
	while (i < nsorted && j < nitems)
	{
		if (_blink_itemid_cmp(&lp[i], &lp[j], &arg) <= 0)
			merged[k++] = lp[i++];
		else
			merged[k++] = lp[j++];
	}
	while (i < nsorted)
		merged[k++] = lp[i++];
	while (j < nitems)
		merged[k++] = lp[j++];
	memcpy(lp, merged, sizeof(ItemIdData) * nitems);
	pfree(merged);
	opaque->blink_nsorted = nitems;
}
