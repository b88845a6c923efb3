/*-------------------------------------------------------------------------
 *
 * blinkinsert.c
 *	  Inserting into a blink tree: the one-descent unique check, leaf
 *	  inserts, right splits, and the bottom-up ascent that inserts the new
 *	  page's downlink into the parent (finishing the split), one level at a
 *	  time.
 *
 * Lock order (see src/README): pages of a higher level before pages of a
 * lower level, and within a level left before right.  Nobody ever waits
 * for a parent while holding a child, so the ascent may lock the parent
 * and then the child it finishes.  No buffer lock is held while waiting
 * for another transaction or for another backend's split.
 *
 * WAL (generic, at most four pages a record, registered in lock order):
 *   leaf insert        [leaf]
 *   split              [L, N (full image), R]
 *   downlink insert    [P, L]               P gets N's downlink, L's flag clears
 *   parent split       [P, PN (full), PR, L] P splits with N's downlink, L's flag clears
 *   new root           [root (full), L, meta] L stops being the root, flag clears
 *
 * src/index/blinkinsert.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "nodes/execnodes.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "storage/predicate.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "common/batch.h"
#include "common/counters.h"
#include "common/gxlog.h"
#include "common/settings.h"
#include "index/blink.h"

/* What the ascent needs to know about a split whose downlink is missing. */
typedef struct BlinkSplitInfo
{
	BlockNumber lblkno;			/* the split page, flagged INCOMPLETE_SPLIT */
	BlockNumber rblkno;			/* its new right sibling */
	uint32		level;
	bool		was_root;
	IndexTuple	sep;			/* L's high key: the separator for N */
} BlinkSplitInfo;

static TransactionId _blink_check_unique(Relation rel, IndexTuple itup,
										 Relation heapRel, Buffer buf,
										 BlinkScanInsert key,
										 IndexUniqueCheck checkUnique,
										 bool probe, bool *is_unique,
										 uint32 *speculativeToken);
static bool _blink_insert_leaf(Relation rel,
							   BlinkScanInsert key, Buffer buf,
							   IndexTuple itup, BlinkStack stack, bool *landed,
							   bool checked, bool unchanged);
/*
 * A further leaf that a statement buffer's flush changes in the record of
 * another (_blink_flush_companions): locked exclusively, with the run of
 * the flush's tuples that belong there and fit.
 */
typedef struct BlinkCompanion
{
	Buffer		buf;
	IndexTuple *itups;
	int			n;
	bool	   *landed;
} BlinkCompanion;

StaticAssertDecl(BLINKAM_FLUSH_LEAVES_MAX <= MAX_GENERIC_XLOG_PAGES,
				 "a flush record's leaves must fit in one generic WAL record");

static void _blink_leaf_write(Relation rel, Buffer buf,
							  IndexTuple *itups, int n, bool *landed,
							  BlinkCompanion *comp, int ncomp);
static void _blink_leaf_round(Relation rel, Buffer buf, BlinkamBatch *batch);
static void _blink_split(Relation rel, Buffer buf, IndexTuple newitem,
						 OffsetNumber newoff, Buffer childbuf,
						 BlinkSplitInfo *info);
static void _blink_insert_parent(Relation rel, BlinkSplitInfo *info,
								 BlinkStack stack);
/*
 * How many times an ascent tries the parent again without waiting, once it
 * has the split page (_blink_lock_split_child).
 */
#define BLINK_PARENT_TRIES		64

static Buffer _blink_lock_split_child(Relation rel, Buffer *pbuf,
									  BlockNumber lblkno, OffsetNumber poff,
									  Size sepsz, bool patient);
static Buffer _blink_getstackbuf(Relation rel, BlinkStack stack,
								 BlinkSplitInfo *info, OffsetNumber *poffnum);
static void _blink_newroot(Relation rel, BlinkSplitInfo *info);
static void _blink_finish_left_sibling(Relation rel, BlinkSplitInfo *info);

/*
 * The leaf in *bufp is busy: it is pinned, not locked, because another
 * backend holds it.  Publish for that backend (batch.c) as much of
 * itups[0..n-1] as a slot carries (at least the first tuple): a run in key
 * order whose first tuple belongs on this leaf or right of it (*keyp is
 * its scan key); holders take prefixes that are below their high keys and
 * fit (the leaf's, or, once the run is forwarded, its right sibling's:
 * see _blink_batch_accept).  Returns how many were inserted, and sets
 * landed[0..k-1] (if given) for them before anything here can fail (and,
 * should the wait itself fail after holders took part of the run, for
 * that part before the error leaves).  If
 * all of the run went in, the pin is released and *bufp set to
 * InvalidBuffer; otherwise *bufp is exclusively locked on the page where
 * the first tuple not inserted belongs now (the leaf may have split
 * meanwhile, or the run may go on past its high key), and *keyp is that
 * tuple's scan key, for the caller to check and insert the rest the normal
 * way.
 *
 * Moving right from a leaf that handed the run back: a unique tuple moves
 * with lock coupling (its check must stay protected, see blinkinsert).  A
 * non-unique run lets each page go before it looks at the next, and where
 * that one is busy it publishes the rest there, for that page's holder.
 * Coupling, it would hold the leaf while it queued for the busy right
 * sibling, and the leaf's own queue -- the runs handed back when the leaf
 * filled up, which all move right once it has split -- would wait behind
 * the sibling's.  Uncoupled is safe for an insert: keys only ever move
 * right (splits), no page is ever removed, so following right-links from
 * any page left of the key's finds it, as a fresh descent that landed
 * there would.
 */
static int
_blink_insert_via_batch(Relation rel, Buffer *bufp, IndexTuple *itups, int n,
						BlinkScanInsert *keyp, bool unique, bool *landed)
{
	const void *payloads[BLINKAM_BATCH_MAX_ITEMS];
	Size		sizes[BLINKAM_BATCH_MAX_ITEMS];
	IndexTuple	items[BLINKAM_BATCH_MAX_ITEMS];
	int			counts[BLINKAM_BATCH_MAX_ITEMS];
	int			nitems;
	int			nin;
	/* payloads in, should the wait fail (read after a longjmp: volatile) */
	volatile int progress = 0;
	int			k;

	Assert(n > 0);
	n = Min(n, BLINKAM_BATCH_MAX_ITEMS);

	/*
	 * A run's equal keys go out as posting tuples (the holder appends one
	 * only where the range rule allows it, see _blink_posting_may_append):
	 * so the holder's record carries each key once, as the run's own flush
	 * would.  (A unique index's tuple comes alone, and such an index never
	 * deduplicates: it goes out as it is.)
	 */
	Assert(!unique || n == 1);
	nitems = _blink_dedup_group(rel, itups, n, items, counts);
	for (int i = 0; i < nitems; i++)
	{
		payloads[i] = items[i];
		sizes[i] = IndexTupleSize(items[i]);
	}
	/* (a first tuple too large for a slot makes the wait lock at once) */
	nitems = Max(blinkam_batch_capacity(sizes, nitems), 1);
	PG_TRY();
	{
		nin = blinkam_batch_wait(rel, bufp, payloads, sizes, nitems,
								 (unique ? BLINK_BATCH_UNIQUE : 0) |
								 (nitems > 1 || counts[0] > 1 ? BLINKAM_BATCH_RUN : 0),
								 false, NULL, NULL, &progress);
	}
	PG_CATCH();
	{
		/*
		 * The wait failed after holders had put part of the run in (batch.c
		 * tells how much): those tuples are landed, or a flush that goes on
		 * after a savepoint caught this error would add them twice.
		 */
		k = 0;
		for (int i = 0; i < progress; i++)
			k += counts[i];
		for (int i = 0; landed && i < k; i++)
			landed[i] = true;
		PG_RE_THROW();
	}
	PG_END_TRY();
	/* from published items back to the run's tuples */
	n = 0;
	k = 0;
	for (int i = 0; i < nitems; i++)
	{
		n += counts[i];
		if (i < nin)
			k += counts[i];
		if (counts[i] > 1)
			pfree(items[i]);	/* a posting tuple made for the slot */
	}
	for (int i = 0; landed && i < k; i++)
		landed[i] = true;
	/*
	 * (No SERIALIZABLE check is ours to make: a SERIALIZABLE transaction
	 * never publishes, see blinkam_batch_wait, and so is never served.)
	 */
	Assert(k == 0 || !IsolationIsSerializable());
	if (k > 0)
		blinkam_count(BLINKAM_COUNTER_INSERTS, k);
	if (k == n)
	{
		ReleaseBuffer(*bufp);
		*bufp = InvalidBuffer;
		return k;
	}
	_blink_checkpage(rel, *bufp);
	if (k > 0)
	{
		pfree(*keyp);
		*keyp = _blink_mkscankey(rel, itups[k]);
	}
	if (unique)
	{
		*bufp = _blink_moveright(rel, *keyp, *bufp, BUFFER_LOCK_EXCLUSIVE);
		return k;
	}
	{
		bool		busy = false;

		*bufp = _blink_moveright_nowait(rel, *keyp, *bufp, BUFFER_LOCK_EXCLUSIVE,
										&busy, false);
		if (busy)
			return k + _blink_insert_via_batch(rel, bufp, itups + k, n - k, keyp,
											   false, landed ? landed + k : NULL);
	}
	return k;
}

/*
 * The leaf for an insert's key (aminsert, or a statement buffer's flush),
 * locked exclusively (or, with nolock, pinned only if busy: see
 * _blink_search_ext): by a leaf hint if one covers the key -- then there
 * is no path, NULL is returned -- else by a descent, whose path is
 * returned.  exact: a hinted leaf found busy, or split since, is let go
 * and the insert descends instead (see _blink_hint_leaf).
 */
static BlinkStack
_blink_find_leaf(Relation rel, BlinkScanInsert key, Buffer *bufp, bool *nolock,
				 bool exact)
{
	*bufp = _blink_hint_leaf(rel, key, nolock,
							 exact ? BLINK_HINT_EXACT : BLINK_HINT_MOVE);
	if (BufferIsValid(*bufp))
		return NULL;
	return _blink_search_ext(rel, key, bufp, BUFFER_LOCK_EXCLUSIVE, 0, nolock);
}

/*
 * blinkinsert() -- aminsert: insert one index tuple.
 *
 * Returns false only for UNIQUE_CHECK_PARTIAL when a possibly conflicting
 * row exists (the executor rechecks later); true otherwise.
 */
bool
blinkinsert(Relation rel, Datum *values, bool *isnull, ItemPointer ht_ctid,
			Relation heapRel, IndexUniqueCheck checkUnique,
			bool indexUnchanged, IndexInfo *indexInfo)
{
	IndexTuple	itup;
	BlinkScanInsert key;
	BlinkStack	stack;
	Buffer		buf;
	bool		is_unique = true;
	bool		check;

	blinkam_debug_pause(BLINKAM_PAUSE_INSERT_START);

	itup = index_form_tuple(RelationGetDescr(rel), values, isnull);
	itup->t_tid = *ht_ctid;
	_blink_check_item_size(rel, heapRel, itup);
	/* its catalog lookups, once per relcache entry, before any page lock */
	(void) _blink_dedup_enabled(rel);

	/* Non-unique inserts may wait for the statement's end (defer.c). */
	if (checkUnique == UNIQUE_CHECK_NO &&
		_blink_defer_insert(rel, heapRel, itup, indexUnchanged, indexInfo))
	{
		pfree(itup);
		return true;
	}

	key = _blink_mkscankey(rel, itup);

	/* NULLs never conflict unless the index says NULLS NOT DISTINCT. */
	check = checkUnique != UNIQUE_CHECK_NO;
	if (check && !rel->rd_index->indnullsnotdistinct)
	{
		for (int i = 0; i < key->keysz; i++)
		{
			if (key->scankeys[i].sk_flags & SK_ISNULL)
				check = false;
		}
	}

	if (check)
	{
		BlockNumber leaf;
		BlinkPendingKey pkey;
		TransactionId xid = InvalidTransactionId;

		/*
		 * Pending unique entries (blinkam.defer_unique).  An entry for a
		 * unique index whose keys compare by their bytes (pending.c) may
		 * wait in the statement buffer like a non-unique one (defer.c), and
		 * reach its leaf with the others of its leaf in one record at the
		 * flush.  Its check is the check below, the one every insert makes
		 * now, in the row's own subtransaction, against what the index and
		 * pending.c hold now.  If it passes, the key goes into pending.c
		 * before the key's first leaf is let go: where an insert at once
		 * puts its entry on the leaf, this one enters its key, and every
		 * later check of the key finds it there until the entry is on its
		 * leaf (pending.c has the whole argument).  Every unique check of
		 * such an index looks in pending.c under that leaf's lock
		 * (_blink_unique_scan with probe, a batch holder's check for a
		 * waiter in _blink_batch_accept), and so do ON CONFLICT's and
		 * logical replication's lookups (blinkscan.c).  Such an insert never
		 * publishes for a batch holder: its entry is to be kept, not
		 * inserted by another.  Where pending.c has no room the entry goes
		 * in now, the check still holding.
		 */
		if (checkUnique == UNIQUE_CHECK_YES && blinkam_defer_unique &&
			_blink_pending_key(rel, itup, &pkey) &&
			_blink_defer_unique_prepare(rel, heapRel, indexInfo))
			xid = GetCurrentTransactionId();	/* (assigned: the row is in) */

		/*
		 * One descent, with the user key only, to the first leaf where the
		 * key can appear.  Every inserter of this key locks that leaf
		 * exclusively while it checks, so they serialize there.
		 */
		key->heaptid = NULL;
		key->nextkey = false;
		{
			bool		busy = false;
			bool		batch = blinkam_batch_inserts && _blink_compares_in_c(rel) &&
				checkUnique == UNIQUE_CHECK_YES && !TransactionIdIsValid(xid);

			stack = _blink_find_leaf(rel, key, &buf, batch ? &busy : NULL, false);
			blinkam_count(BLINKAM_COUNTER_UNIQUE_CHECKS, 1);

			/*
			 * The first leaf for the key is busy: the backend holding it may
			 * check and insert our tuple in its batch (batch.c); if it hands
			 * it back, we do it all ourselves below.
			 */
			if (busy && _blink_insert_via_batch(rel, &buf, &itup, 1, &key, true, NULL) == 1)
			{
				_blink_free_stack(stack);
				pfree(key);
				pfree(itup);
				return true;
			}
		}

		_blink_hint_remember(rel, buf);
		for (;;)
		{
			TransactionId xwait;
			uint32		token = 0;

			xwait = _blink_check_unique(rel, itup, heapRel, buf, key,
										checkUnique, true, &is_unique, &token);
			if (TransactionIdIsValid(xwait))
			{
				/*
				 * A conflicting row of a transaction in progress: wait for
				 * it without any buffer lock, then resume from the
				 * remembered leaf (moving right if it split meanwhile) -- no
				 * new descent.
				 */
				leaf = BufferGetBlockNumber(buf);
				_blink_relbuf(rel, buf);
				if (token)
					SpeculativeInsertionWait(xwait, token);
				else
					XactLockTableWait(xwait, rel, &itup->t_tid, XLTW_InsertIndex);
				buf = _blink_getbuf(rel, leaf, BUFFER_LOCK_EXCLUSIVE);
				buf = _blink_moveright(rel, key, buf, BUFFER_LOCK_EXCLUSIVE);
				continue;
			}

			/* passed: a held-back entry's key goes in before the leaf is let go */
			if (TransactionIdIsValid(xid))
			{
				bool		kept = _blink_defer_unique_keep(rel, itup, &pkey, xid,
															indexUnchanged);

				blinkam_debug_pause(BLINKAM_PAUSE_UNIQUE_ENTERED);
				if (kept)
				{
					_blink_relbuf(rel, buf);
					_blink_free_stack(stack);
					pfree(key);
					pfree(itup);
					blinkam_count(BLINKAM_COUNTER_PENDING_UNIQUE, 1);
					_blink_defer_unique_kept();
					return true;
				}
				xid = InvalidTransactionId;
			}
			blinkam_debug_pause(BLINKAM_PAUSE_UNIQUE_PROBED);
			if (checkUnique == UNIQUE_CHECK_EXISTING)
			{
				/* Deferred recheck: the entry is already in the index. */
				_blink_relbuf(rel, buf);
				_blink_free_stack(stack);
				pfree(itup);
				return is_unique;
			}

			/*
			 * The check holds as long as some page of the key's range stays
			 * locked: moving right to the page where the full key (with the
			 * heap TID) belongs is coupled, and the insert keeps that page
			 * locked.  Only a target page that must split while its previous
			 * split is unfinished is let go (to get that split finished);
			 * then another inserter of the key may have come and gone, so
			 * check again, from the first leaf of the key.
			 */
			leaf = BufferGetBlockNumber(buf);
			key->heaptid = &itup->t_tid;
			key->nextkey = true;
			buf = _blink_moveright(rel, key, buf, BUFFER_LOCK_EXCLUSIVE);
			if (_blink_insert_leaf(rel, key, buf, itup, stack, NULL, true,
								   indexUnchanged))
				break;
			key->heaptid = NULL;
			key->nextkey = false;
			buf = _blink_getbuf(rel, leaf, BUFFER_LOCK_EXCLUSIVE);
			buf = _blink_moveright(rel, key, buf, BUFFER_LOCK_EXCLUSIVE);
		}

		_blink_free_stack(stack);
		pfree(key);
		pfree(itup);
		return is_unique;
	}
	else
	{
		bool		busy = false;

		/*
		 * If the leaf is busy, publish the tuple for the backend holding it
		 * (batch.c); if that one inserts it, we are done without the lock.
		 */
		stack = _blink_find_leaf(rel, key, &buf,
								 blinkam_batch_inserts && _blink_compares_in_c(rel) ? &busy : NULL, false);
		if (busy && _blink_insert_via_batch(rel, &buf, &itup, 1, &key, false, NULL) == 1)
		{
			_blink_free_stack(stack);
			pfree(key);
			pfree(itup);
			return true;
		}
	}
	_blink_hint_remember(rel, buf);

	(void) _blink_insert_leaf(rel, key, buf, itup, stack, NULL, false,
							  indexUnchanged);

	_blink_free_stack(stack);
	pfree(key);
	pfree(itup);
	return is_unique;
}

/*
 * Step *off to the next item of page equal to key (a user key without heap
 * TID): first the run in the sorted part, then every match in the
 * unsorted tail.  Start with *off = InvalidOffsetNumber.  Returns false
 * when there is none left.
 */
static bool
_blink_next_equal(Relation rel, BlinkScanInsert key, Page page, OffsetNumber *off)
{
	BlinkPageOpaque opaque = BlinkPageGetOpaque(page);
	OffsetNumber sortedEnd = BlinkPageFirstDataKey(opaque) + opaque->blink_nsorted;
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	OffsetNumber o;
	int			width = 0;
	int64		bits = 0;

	/* the sorted part: the run that starts at the first item >= key */
	o = *off == InvalidOffsetNumber ? _blink_binsrch(rel, key, page) : *off + 1;
	if (o < sortedEnd && _blink_compare(rel, key, page, o) == 0)
	{
		*off = o;
		return true;
	}
	/*
	 * the unsorted tail: anywhere (up to BLINK_MAX_TAIL items, most of them
	 * ruled out by their first attribute's bits alone)
	 */
	o = Max(o, sortedEnd);
	if (o <= maxoff)
		width = _blink_first_eq_width(rel, key, &bits);
	for (; o <= maxoff; o++)
	{
		if (!_blink_tail_item_differs((IndexTuple) PageGetItem(page, PageGetItemId(page, o)),
									  width, bits) &&
			_blink_compare(rel, key, page, o) == 0)
		{
			*off = o;
			return true;
		}
	}
	return false;
}

/*
 * Can items equal to key (a user key) continue on page's right sibling?
 * Only if the high key has the same user key.
 */
static bool
_blink_equal_continues_right(Relation rel, BlinkScanInsert key, Page page)
{
	return !BlinkPageIsRightmost(BlinkPageGetOpaque(page)) &&
		_blink_compare(rel, key, page, BLINK_HIKEY) == 0;
}

/* Outcome of looking at one equal-key item in _blink_check_unique. */
typedef enum UniqueItemResult
{
	UNIQUE_ITEM_OK,				/* no conflict from this item */
	UNIQUE_ITEM_WAIT,			/* in progress: wait for *xwait */
	UNIQUE_ITEM_VIOLATION		/* committed live duplicate */
} UniqueItemResult;

/* One entry (heap TID htid) with itup's key: see _blink_check_unique_item. */
static UniqueItemResult
_blink_check_unique_tid(Relation heapRel, IndexTuple itup, ItemPointer htid,
						IndexUniqueCheck checkUnique, Snapshot dirty,
						bool *is_unique, TransactionId *xwait,
						uint32 *speculativeToken, bool *all_dead)
{
	*all_dead = false;

	/* A deferred recheck finds its own entry: not a conflict. */
	if (checkUnique == UNIQUE_CHECK_EXISTING &&
		ItemPointerEquals(htid, &itup->t_tid))
		return UNIQUE_ITEM_OK;

	if (!table_index_fetch_tuple_check(heapRel, htid, dirty, all_dead))
		return UNIQUE_ITEM_OK;
	*all_dead = false;

	/*
	 * A partial check (the insertion of an INSERT ... ON CONFLICT into an
	 * arbiter index) only says that a row with the key may exist, whatever
	 * its inserter's or deleter's state, and never waits: the executor then
	 * kills its speculative row before it waits (as btree does).  Waiting
	 * here would keep that row, and a transaction that meets it while we
	 * wait for that transaction would deadlock with us.
	 */
	if (checkUnique == UNIQUE_CHECK_PARTIAL)
	{
		*is_unique = false;
		return UNIQUE_ITEM_OK;
	}

	*xwait = TransactionIdIsValid(dirty->xmin) ? dirty->xmin : dirty->xmax;
	if (TransactionIdIsValid(*xwait))
	{
		*speculativeToken = dirty->speculativeToken;
		return UNIQUE_ITEM_WAIT;
	}

	/*
	 * A committed live duplicate.  If our own row is no longer visible to
	 * us (deleted later in our own transaction), there is no conflict.
	 */
	if (!table_index_fetch_tuple_check(heapRel, &itup->t_tid, SnapshotSelf, NULL))
		return UNIQUE_ITEM_OK;
	return UNIQUE_ITEM_VIOLATION;
}

/*
 * Look at the item at offnum of page, whose key equals itup's, for the
 * uniqueness check: each of its entries (a posting tuple has several;
 * unique indexes do not make them, but the check does not rely on that).
 * *all_dead is set if every entry's row is dead to everyone.
 */
static UniqueItemResult
_blink_check_unique_item(Relation heapRel, IndexTuple itup, Page page,
						 OffsetNumber offnum, IndexUniqueCheck checkUnique,
						 Snapshot dirty, bool *is_unique, TransactionId *xwait,
						 uint32 *speculativeToken, bool *all_dead)
{
	ItemId		iid = PageGetItemId(page, offnum);
	IndexTuple	item = (IndexTuple) PageGetItem(page, iid);
	int			n = BlinkItemNTids(item);
	bool		alldead = true;

	*all_dead = false;
	if (ItemIdIsDead(iid))
		return UNIQUE_ITEM_OK;
	for (int i = 0; i < n; i++)
	{
		ItemPointerData htid = *BlinkItemTid(item, i);
		bool		dead;
		UniqueItemResult res = _blink_check_unique_tid(heapRel, itup, &htid,
													   checkUnique, dirty,
													   is_unique, xwait,
													   speculativeToken, &dead);

		if (res != UNIQUE_ITEM_OK)
			return res;
		alldead &= dead;
	}
	*all_dead = alldead;
	return UNIQUE_ITEM_OK;
}

/*
 * The holders of itup's key in pending.c (see there), judged as equal
 * items are.  A holder whose (sub)transaction has aborted is ignored,
 * whatever its fetch found: its row may be gone and its line pointer
 * reused.  The look at its xid must come after the fetch: while it has
 * not aborted, the line pointer still names the holder's row.
 */
static UniqueItemResult
_blink_check_pending_holders(Relation heapRel, IndexTuple itup,
							 BlinkPendingHolder *holders, int n,
							 IndexUniqueCheck checkUnique, Snapshot dirty,
							 bool *is_unique, TransactionId *xwait,
							 uint32 *speculativeToken)
{
	for (int i = 0; i < n; i++)
	{
		bool		was_unique = *is_unique;
		bool		all_dead;
		UniqueItemResult res;

		res = _blink_check_unique_tid(heapRel, itup, &holders[i].tid,
									  checkUnique, dirty, is_unique, xwait,
									  speculativeToken, &all_dead);
		if (TransactionIdDidAbort(holders[i].xid))
		{
			*is_unique = was_unique;
			*xwait = InvalidTransactionId;
			continue;
		}
		if (res != UNIQUE_ITEM_OK)
			return res;
	}
	return UNIQUE_ITEM_OK;
}

/*
 * Look for live rows with the same user key as itup: first, with probe,
 * among the entries waiting in statement buffers (pending.c), then on the
 * leaf in buf (exclusively locked, the first leaf where the key can
 * appear) and on its right siblings, which are share-locked one at a time
 * while buf stays locked.  key is itup's key without the heap TID.
 *
 * Why pending.c first.  A held-back entry's key leaves pending.c only
 * after the entry is on its leaf, and that leaf may be right of buf's (the
 * entry's heap TID sorts after the high key of buf's page): the flush
 * adding it does not need buf.  Read the leaves first and pending.c after,
 * and the flush could put the entry on a right sibling already read and
 * take the key out in between: neither look would find it (a helper's
 * review found that order; pause point unique_leaves_read holds the
 * window, specs/blink_defer_unique_race).  Read pending.c first: a key
 * not there then was taken out after its entry was on its leaf, so the
 * leaves read after show the entry; and no key can come in meanwhile,
 * since its check needs buf.
 *
 * Returns UNIQUE_ITEM_WAIT with *xwait (and *speculativeToken) set if such
 * a row's inserter or deleter is still in progress, UNIQUE_ITEM_VIOLATION
 * for a committed live duplicate, UNIQUE_ITEM_OK otherwise.  With
 * UNIQUE_CHECK_PARTIAL any such row, in progress or not, sets *is_unique
 * false instead and the result is UNIQUE_ITEM_OK.  Never raises the
 * violation itself.  On return buf is still locked; every other page this
 * function locked has been released.
 *
 * Equal entries on buf's page whose rows the table found dead to everyone
 * are marked dead on the way, as a scan would (blinkdelete.c): buf is held
 * exclusively, so no check of the version is needed.  Entries on the right
 * siblings, only share-locked, are left alone.
 */
static UniqueItemResult
_blink_unique_scan(Relation rel, IndexTuple itup, Relation heapRel,
				   Buffer buf, BlinkScanInsert key,
				   IndexUniqueCheck checkUnique, bool probe, bool *is_unique,
				   TransactionId *xwait, uint32 *speculativeToken)
{
	SnapshotData SnapshotDirty;
	Buffer		nbuf = InvalidBuffer;
	Buffer		cur = buf;
	UniqueItemResult res = UNIQUE_ITEM_OK;
	OffsetNumber dead[MaxIndexTuplesPerPage];
	int			ndead = 0;

	InitDirtySnapshot(SnapshotDirty);
	*xwait = InvalidTransactionId;

	/* entries with the key waiting in statement buffers, ours included */
	if (probe && _blink_pending_any())
	{
		BlinkPendingKey pkey;
		BlinkPendingHolder holders[BLINK_PENDING_HOLDERS];
		int			n;

		if (_blink_pending_key(rel, itup, &pkey) &&
			(n = _blink_pending_lookup(&pkey, holders)) > 0)
		{
			blinkam_count(BLINKAM_COUNTER_PENDING_FOUND, 1);
			res = _blink_check_pending_holders(heapRel, itup, holders, n,
											   checkUnique, &SnapshotDirty,
											   is_unique, xwait,
											   speculativeToken);
			if (res != UNIQUE_ITEM_OK)
				return res;
		}
	}

	for (;;)
	{
		Page		page = BufferGetPage(cur);
		OffsetNumber offnum = InvalidOffsetNumber;

		while (res == UNIQUE_ITEM_OK && _blink_next_equal(rel, key, page, &offnum))
		{
			bool		all_dead;

			res = _blink_check_unique_item(heapRel, itup, page, offnum,
										   checkUnique, &SnapshotDirty,
										   is_unique, xwait, speculativeToken,
										   &all_dead);
			if (all_dead && cur == buf && ndead < MaxIndexTuplesPerPage)
				dead[ndead++] = offnum;
		}
		if (res != UNIQUE_ITEM_OK || !_blink_equal_continues_right(rel, key, page))
			break;

		{
			BlockNumber next = BlinkPageGetOpaque(page)->blink_next;

			if (nbuf != InvalidBuffer)
				_blink_relbuf(rel, nbuf);
			nbuf = _blink_getbuf(rel, next, BUFFER_LOCK_SHARE);
			cur = nbuf;
		}
	}

	if (nbuf != InvalidBuffer)
		_blink_relbuf(rel, nbuf);
	blinkam_debug_pause(BLINKAM_PAUSE_UNIQUE_LEAVES_READ);

	if (ndead > 0)
		_blink_mark_dead_locked(rel, buf, dead, ndead);
	return res;
}

/*
 * The uniqueness check of an insert (see _blink_unique_scan): returns the
 * xid to wait for, or InvalidTransactionId; raises the unique violation.
 */
static TransactionId
_blink_check_unique(Relation rel, IndexTuple itup, Relation heapRel,
					Buffer buf, BlinkScanInsert key,
					IndexUniqueCheck checkUnique, bool probe, bool *is_unique,
					uint32 *speculativeToken)
{
	TransactionId xwait;
	UniqueItemResult res = _blink_unique_scan(rel, itup, heapRel, buf,
											  key, checkUnique, probe,
											  is_unique, &xwait,
											  speculativeToken);

	if (res == UNIQUE_ITEM_VIOLATION)
	{
		Datum		values[INDEX_MAX_KEYS];
		bool		isnull[INDEX_MAX_KEYS];
		char	   *key_desc;

		_blink_relbuf(rel, buf);
		index_deform_tuple(itup, RelationGetDescr(rel), values, isnull);
		key_desc = BuildIndexValueDescription(rel, values, isnull);
		ereport(ERROR,
				(errcode(ERRCODE_UNIQUE_VIOLATION),
				 errmsg("duplicate key value violates unique constraint \"%s\"",
						RelationGetRelationName(rel)),
				 key_desc ? errdetail("Key %s already exists.", key_desc) : 0,
				 errtableconstraint(heapRel, RelationGetRelationName(rel))));
	}
	return res == UNIQUE_ITEM_WAIT ? xwait : InvalidTransactionId;
}

/*
 * Is itup below the high key of page p (always, on the rightmost page of
 * its level)?  A tuple that once belonged on p still does unless p has
 * split.
 */
static bool
_blink_below_hikey(Relation rel, Page p, IndexTuple itup)
{
	if (BlinkPageIsRightmost(BlinkPageGetOpaque(p)))
		return true;
	return _blink_compare_tuples(rel, itup,
								 (IndexTuple) PageGetItem(p, PageGetItemId(p, BLINK_HIKEY))) < 0;
}

/*
 * Does page p hold no entry with itup's user key, and can no such entry
 * exist on a page to its right?  p is the first leaf where that key can
 * appear (the waiter published there after a descent with the user key),
 * so if this holds, the key is nowhere in the index.
 */
static bool
_blink_key_absent(Relation rel, Page p, IndexTuple itup)
{
	BlinkScanInsert key = _blink_mkscankey(rel, itup);
	OffsetNumber off = InvalidOffsetNumber;
	bool		absent;

	key->heaptid = NULL;
	key->nextkey = false;
	absent = !_blink_equal_continues_right(rel, key, p) &&
		!_blink_next_equal(rel, key, p, &off);
	pfree(key);
	return absent;
}

/* Has pending.c a holder of itup's key (a unique index's tuple)? */
static bool
_blink_pending_has(Relation rel, IndexTuple itup)
{
	BlinkPendingKey pkey;
	BlinkPendingHolder holders[BLINK_PENDING_HOLDERS];

	return _blink_pending_any() && _blink_pending_key(rel, itup, &pkey) &&
		_blink_pending_lookup(&pkey, holders) > 0;
}

/*
 * May the published tuple itup go onto page p, the page copy of the
 * holder's record for the leaf in buf?  It must belong there (below the
 * high key) and fit.  A tuple of a unique index is accepted only if its
 * key is absent from the index (_blink_key_absent, against p as the batch
 * has made it so far, so two waiters with the same key cannot both go in):
 * then no row can conflict with it, whoever looks.  If an entry with the
 * key exists, whether it conflicts depends on visibility that only the
 * waiter can judge: the holder's dirty snapshot is its own transaction's
 * view (a row the holder deleted looks gone, one it inserted looks
 * committed), and it cannot see what the waiter's own transaction did.
 * Such tuples go back to their backends, which do it all themselves.  No
 * heap access, no waiting, nothing that could raise an error on a waiter's
 * behalf but key comparisons the holder's own insert already made.  A key
 * that waits in a statement buffer (pending.c) is an equal entry too: the
 * holder looks there under the leaf's lock, and hands such a tuple back.
 *
 * The other refusals leave the run published (batch.c, "Deferred and
 * forwarded runs"): a tuple that does not fit waits, with the rest of its
 * run, for the leaf's next holder (which makes room or splits the leaf,
 * and the split forwards it); a tuple right of the high key -- the leaf
 * split after the run was published -- waits for the right sibling's
 * holder, unless it is a unique index's (its check needs the first leaf of
 * its key, _blink_key_absent) or part of its run is in already: those are
 * handed back.
 */
static BlinkamBatchAdd
_blink_batch_accept(Relation rel, Page p, IndexTuple itup, bool unique)
{
	if (!_blink_below_hikey(rel, p, itup))
	{
		/* the leaf split after it was published: the tuple belongs right */
		blinkam_count(BLINKAM_COUNTER_BATCH_REFUSED_RIGHT, 1);
		return unique ? BLINKAM_ADD_REFUSED : BLINKAM_ADD_FORWARD;
	}
	if (!_blink_fits(p, IndexTupleSize(itup)))
	{
		/* the leaf must make room or split: its next holder does */
		blinkam_count(BLINKAM_COUNTER_BATCH_REFUSED_ROOM, 1);
		return BLINKAM_ADD_DEFER;
	}
	if (unique && (!_blink_key_absent(rel, p, itup) ||
				   _blink_pending_has(rel, itup)))
	{
		/* the waiter must judge the equal keys */
		blinkam_count(BLINKAM_COUNTER_BATCH_REFUSED_OTHER, 1);
		return BLINKAM_ADD_REFUSED;
	}
	return BLINKAM_ADD_TAKEN;
}

/* The number of items in the unsorted tail of leaf page p. */
static inline int
_blink_leaf_ntail(Page p)
{
	BlinkPageOpaque po = BlinkPageGetOpaque(p);

	return PageGetMaxOffsetNumber(p) + 1 - BlinkPageFirstDataKey(po) -
		po->blink_nsorted;
}

/*
 * Append itup to the leaf page p (the page of a generic WAL record being
 * built; the caller has checked that itup belongs there and fits).
 * Returns false if the page has no room after all, or if its tail is full
 * and may_merge is false (the page is changed in place, by appends only).
 *
 * Appending keeps the WAL delta small: a line pointer and the tuple.  A
 * full tail is merged first.  An append moves no item, so only the merge
 * changes the version (see BlinkPageOpaqueData).  When the page has no
 * tail and itup sorts after its last item -- ascending keys, the usual
 * case for time stamps and sequences -- the append extends the sorted
 * part instead, so such leaves never grow a tail: searches and unique
 * checks stay binary searches, and no merge is ever needed.
 */
static bool
_blink_leaf_append(Relation rel, Page p, IndexTuple itup, bool may_merge)
{
	BlinkPageOpaque po = BlinkPageGetOpaque(p);
	OffsetNumber first = BlinkPageFirstDataKey(po);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(p);
	int			ntail = _blink_leaf_ntail(p);
	bool		extends_sorted;

	if (ntail >= BLINK_MAX_TAIL)
	{
		if (!may_merge)
			return false;
		_blink_sort_leaf(rel, p);
		_blink_page_changed(p);
		ntail = 0;
	}
	extends_sorted = ntail == 0 &&
		(maxoff < first ||
		 _blink_compare_tuple_end(rel, itup,
								  (IndexTuple) PageGetItem(p, PageGetItemId(p, maxoff))) > 0);

	/*
	 * A comparison not in C may raise an error for some keys; appended
	 * uncompared, such a key would raise it later, in every backend that
	 * sorts or reads this tail, where btree raises it at the insert.  So
	 * the key is compared once here (unknown counts as not in C: no
	 * catalog lookup under the page lock).
	 */
	if (ntail > 0 && _blink_relcache(rel)->in_c != 1)
		(void) _blink_compare_tuple_end(rel, itup,
										(IndexTuple) PageGetItem(p, PageGetItemId(p, maxoff)));
	if (PageAddItem(p, (Item) itup, IndexTupleSize(itup), OffsetNumberNext(maxoff),
					false, false) == InvalidOffsetNumber)
		return false;
	if (extends_sorted)
		po->blink_nsorted++;
	if (BlinkTupleIsPosting(itup))
		po->blink_flags |= BLINK_HAS_POSTING;
	return true;
}

/* The holder's state for _blink_batch_add: the index and the record's page. */
typedef struct BlinkBatchTarget
{
	Relation	rel;
	Page		page;
	bool		in_place;		/* the page is changed by appends only */
	int			postings;		/* waiters' posting tuples taken */
	int			extra_entries;	/* their entries beyond one each */
} BlinkBatchTarget;

/*
 * A holder's record with the tuples of target in it is written: count the
 * posting tuples (batch.c counted each as one of batched_inserts).
 */
static inline void
_blink_count_postings(BlinkBatchTarget *target)
{
	if (target->postings > 0)
	{
		blinkam_count(BLINKAM_COUNTER_BATCHED_POSTINGS, target->postings);
		blinkam_count(BLINKAM_COUNTER_BATCHED_INSERTS, target->extra_entries);
	}
}

/*
 * batch.c's add callback for blink leaves: append a waiter's index tuple
 * to the page copy of the holder's record if _blink_batch_accept agrees.
 */
static BlinkamBatchAdd
_blink_batch_add(void *arg, const void *payload, Size size, uint32 flags,
				 uint32 *result)
{
	BlinkBatchTarget *target = (BlinkBatchTarget *) arg;
	IndexTuple	itup = (IndexTuple) payload;
	BlinkamBatchAdd r;

	Assert(IndexTupleSize(itup) == size);
	r = _blink_batch_accept(target->rel, target->page, itup,
							(flags & BLINK_BATCH_UNIQUE) != 0);
	if (r != BLINKAM_ADD_TAKEN)
		return r;
	if (BlinkTupleIsPosting(itup) &&
		!_blink_posting_may_append(target->rel, target->page, itup))
	{
		/* its waiter inserts it itself, as plain items where it must */
		blinkam_count(BLINKAM_COUNTER_BATCH_REFUSED_OTHER, 1);
		return BLINKAM_ADD_REFUSED;
	}
	if (_blink_leaf_append(target->rel, target->page, itup, !target->in_place))
	{
		if (BlinkTupleIsPosting(itup))
		{
			target->postings++;
			target->extra_entries += BlinkPostingCount(itup) - 1;
		}
		return BLINKAM_ADD_TAKEN;
	}
	/* the in-place record's tail is full: the next holder merges it */
	blinkam_count(BLINKAM_COUNTER_BATCH_REFUSED_OTHER, 1);
	return BLINKAM_ADD_DEFER;
}

/*
 * batch.c's test for blinkam_batch_forward, after a leaf split: does a
 * published run whose first tuple is itup belong on the new right page?
 * Not a unique index's tuple: its waiter published it on the first leaf
 * where its key can appear, which the holder's check relies on
 * (_blink_key_absent); it stays there and is handed back.
 */
static bool
_blink_batch_moves(void *arg, const void *payload, Size size, uint32 flags)
{
	BlinkBatchTarget *target = (BlinkBatchTarget *) arg;

	return (flags & BLINK_BATCH_UNIQUE) == 0 &&
		!_blink_below_hikey(target->rel, target->page, (IndexTuple) payload);
}

/*
 * Put itups[0..n-1] on page, the copy of a leaf in a record being built:
 * a run's equal keys as posting tuples where they may (blinkdedup.c),
 * merging the unsorted tail first only if may_merge.
 */
static void
_blink_leaf_add_run(Relation rel, Page page, BlockNumber blkno,
					IndexTuple *itups, int n, bool may_merge)
{
	IndexTuple *items = palloc(sizeof(IndexTuple) * n);
	int			nitems = _blink_dedup_run(rel, page, itups, n, items);

	for (int i = 0; i < nitems; i++)
	{
		if (!_blink_leaf_append(rel, page, items[i], may_merge))
			elog(ERROR, "failed to add item to blink index \"%s\" block %u",
				 RelationGetRelationName(rel), blkno);
	}
	pfree(items);
}

/*
 * Add itups[0..n-1] (each belonging on the leaf in buf, exclusively locked,
 * and all fitting there together) to that leaf in one generic WAL record,
 * with the tuples other backends published for it (batch.c), and the runs
 * of comp[0..ncomp-1] (a flush's further leaves, each locked exclusively,
 * right of buf's and of each other in that order) to theirs in the same
 * record.  Sets landed[0..n-1] and each companion's (if given) once the
 * record is written.  Releases buf and the companions.
 */
static void
_blink_leaf_write(Relation rel, Buffer buf,
				  IndexTuple *itups, int n, bool *landed,
				  BlinkCompanion *comp, int ncomp)
{
	BlinkamXLogState *state;
	BlinkBatchTarget target;
	BlinkamBatch batch;

	/*
	 * SERIALIZABLE: our tuples go onto this leaf while we hold it
	 * exclusively, so a scan either read it before (and holds a predicate
	 * lock on it, found here) or reads it after, with the tuples in.  (The
	 * published tuples collected below are their owners' to check.)  The
	 * same for each companion leaf.
	 */
	CheckForSerializableConflictIn(rel, NULL, BufferGetBlockNumber(buf));
	for (int c = 0; c < ncomp; c++)
		CheckForSerializableConflictIn(rel, NULL,
									   BufferGetBlockNumber(comp[c].buf));

	/*
	 * Appends change the leaf in place (gxlog.c, "Appends in place") unless
	 * one of ours may have to merge the tail first; in place, nothing
	 * merges, and a published tuple that would is handed back.  From here
	 * to the record every error puts the page back before it goes on.
	 */
	target.in_place = _blink_leaf_ntail(BufferGetPage(buf)) + n < BLINK_MAX_TAIL;
	target.rel = rel;
	target.postings = target.extra_entries = 0;
	state = blinkam_xlog_start(rel);
	target.page = blinkam_xlog_register(state, buf,
										target.in_place ? BLINKAM_XLOG_APPEND : 0);
	batch.round = 0;
	/* published runs that belong right of the leaf go on waiting there */
	batch.forward_to = BlinkPageIsRightmost(BlinkPageGetOpaque(target.page)) ?
		InvalidBlockNumber : BlinkPageGetOpaque(target.page)->blink_next;
	PG_TRY();
	{
		_blink_leaf_add_run(rel, target.page, BufferGetBlockNumber(buf),
							itups, n, !target.in_place);

		/* the companions, registered in lock order after the leaf */
		for (int c = 0; c < ncomp; c++)
		{
			Page		cpage = BufferGetPage(comp[c].buf);
			bool		in_place = _blink_leaf_ntail(cpage) + comp[c].n < BLINK_MAX_TAIL;

			cpage = blinkam_xlog_register(state, comp[c].buf,
										  in_place ? BLINKAM_XLOG_APPEND : 0);
			_blink_leaf_add_run(rel, cpage, BufferGetBlockNumber(comp[c].buf),
								comp[c].itups, comp[c].n, !in_place);
		}

		/*
		 * Claimed slots must be resolved whatever happens: if anything fails
		 * before the record is written, none of their tuples is in, and
		 * blinkam_batch_collect hands them all back.
		 */
		blinkam_batch_collect(rel, BufferGetBlockNumber(buf), _blink_batch_add,
							  &target, &batch);
	}
	PG_CATCH();
	{
		blinkam_xlog_abort(state);
		PG_RE_THROW();
	}
	PG_END_TRY();
	(void) blinkam_batch_write(state, &batch);
	_blink_count_postings(&target);
	if (landed)
	{
		for (int i = 0; i < n; i++)
			landed[i] = true;
	}
	blinkam_count(BLINKAM_COUNTER_INSERTS, n);
	for (int c = 0; c < ncomp; c++)
	{
		if (comp[c].landed)
		{
			for (int i = 0; i < comp[c].n; i++)
				comp[c].landed[i] = true;
		}
		blinkam_count(BLINKAM_COUNTER_INSERTS, comp[c].n);
		_blink_relbuf(rel, comp[c].buf);
	}
	if (ncomp > 0)
		blinkam_count(BLINKAM_COUNTER_FLUSH_LEAVES_GROUPED, ncomp);
	while (blinkam_batch_next_round(rel, BufferGetBlockNumber(buf), &batch))
		_blink_leaf_round(rel, buf, &batch);
	_blink_relbuf(rel, buf);
	blinkam_batch_wake(&batch);
}

/*
 * A further round of the holder of the leaf in buf (batch.c,
 * blinkam_batch_next_round): the tuples published for the leaf since the
 * last record, in one more, checked for range and room as in the first
 * (the holder's own tuples are in already).
 */
static void
_blink_leaf_round(Relation rel, Buffer buf, BlinkamBatch *batch)
{
	BlinkBatchTarget target;

	target.in_place = _blink_leaf_ntail(BufferGetPage(buf)) < BLINK_MAX_TAIL;
	target.rel = rel;
	target.postings = target.extra_entries = 0;
	(void) blinkam_batch_round(rel, buf, target.in_place ? BLINKAM_XLOG_APPEND : 0,
							   _blink_batch_add, &target, &target.page, batch);
	_blink_count_postings(&target);
}

/*
 * Insert itup on the leaf in buf (exclusively locked, the page whose range
 * covers key), splitting it if needed.  Releases buf.  Sets *landed (if
 * given) as soon as itup is in the index, before the split (if any) is
 * finished in the parent.
 *
 * checked: the caller's uniqueness check is protected by buf's lock.  If
 * the leaf must be let go (to get its unfinished split finished), the
 * check no longer holds: return false without inserting, for the caller
 * to check again.  Returns true once itup is in.
 *
 * A full leaf first drops entries of dead rows (blinkdelete.c), then
 * stores its equal keys once (blinkdedup.c); unchanged is the executor's
 * hint that itup is a new version of a row whose indexed columns did not
 * change, which makes it worth asking the table about every entry of the
 * leaf.
 */
static bool
_blink_insert_leaf(Relation rel, BlinkScanInsert key,
				   Buffer buf, IndexTuple itup, BlinkStack stack, bool *landed,
				   bool checked, bool unchanged)
{
	Size		itemsz = IndexTupleSize(itup);

	for (;;)
	{
		Page		page = BufferGetPage(buf);
		BlinkPageOpaque opaque = BlinkPageGetOpaque(page);
		BlinkSplitInfo info;

		Assert(BlinkPageIsLeaf(opaque));

		if (_blink_fits(page, itemsz) ||
			_blink_delete_before_split(rel, buf, itup, unchanged) ||
			_blink_dedup_before_split(rel, buf, itup))
		{
			_blink_leaf_write(rel, buf, &itup, 1, landed, NULL, 0);
			return true;
		}

		if (BlinkPageIsIncompleteSplit(opaque))
		{
			/*
			 * The page must split again, but its previous split has no
			 * downlink yet: get that finished first (or wait for the backend
			 * finishing it), then find our page again.
			 */
			BlockNumber blkno = BufferGetBlockNumber(buf);

			_blink_finish_or_wait(rel, buf);
			blinkam_debug_pause(BLINKAM_PAUSE_AFTER_FINISH_SPLIT);
			if (checked)
				return false;
			buf = _blink_getbuf(rel, blkno, BUFFER_LOCK_EXCLUSIVE);
			buf = _blink_moveright(rel, key, buf, BUFFER_LOCK_EXCLUSIVE);
			continue;
		}

		/* SERIALIZABLE: as in _blink_leaf_write; the split passes the locks on */
		CheckForSerializableConflictIn(rel, NULL, BufferGetBlockNumber(buf));
		_blink_split(rel, buf, itup, InvalidOffsetNumber, InvalidBuffer, &info);
		if (landed)
			*landed = true;
		blinkam_count(BLINKAM_COUNTER_INSERTS, 1);
		blinkam_debug_stop(BLINKAM_STOP_AFTER_LEAF_SPLIT);
		/* tests: the split is written and let go, its downlink not yet in */
		blinkam_debug_pause(BLINKAM_PAUSE_SPLIT_PARENT);
		_blink_insert_parent(rel, &info, stack);
		return true;
	}
}

/*
 * How many of itups[0..n-1] go onto the leaf whose page is page (locked by
 * the caller): the first ones that stay below its high key and fit
 * together.  first_belongs: the caller knows itups[0] belongs there (a
 * flush's leaf found for it), so only the room decides about it.
 */
static int
_blink_run_length(Relation rel, Page page, IndexTuple *itups, int n,
				  bool first_belongs)
{
	Size		room = PageGetExactFreeSpace(page);
	int			m = 0;

	while (m < n)
	{
		Size		need = MAXALIGN(IndexTupleSize(itups[m])) + sizeof(ItemIdData);

		if (need > room ||
			((m > 0 || !first_belongs) && !_blink_below_hikey(rel, page, itups[m])))
			break;
		room -= need;
		m++;
	}
	return m;
}

/*
 * The right sibling of the leaf whose page is page (locked by the caller),
 * locked exclusively if it is in shared buffers and free at once and itup
 * is below its high key; else InvalidBuffer.  itup is at or above page's
 * high key, which is the sibling's low bound (both read under page's lock;
 * low bounds never rise), so such a sibling covers itup.  A sibling not in
 * shared buffers is not read: the caller holds leaves that others may be
 * waiting for, and the flush reads it later with nothing held.
 */
static Buffer
_blink_flush_right_sibling(Relation rel, Page page, IndexTuple itup)
{
	BlinkPageOpaque opaque = BlinkPageGetOpaque(page);
	Buffer		buf;

	if (BlinkPageIsRightmost(opaque))
		return InvalidBuffer;
	buf = _blink_pin_cached(rel, opaque->blink_next, InvalidBuffer);
	if (!BufferIsValid(buf))
		return InvalidBuffer;
	if (!ConditionalLockBuffer(buf))
	{
		ReleaseBuffer(buf);
		return InvalidBuffer;
	}
	_blink_checkpage(rel, buf);
	if (!BlinkPageIsLeaf(BlinkPageGetOpaque(BufferGetPage(buf))) ||
		!_blink_below_hikey(rel, BufferGetPage(buf), itup))
	{
		_blink_relbuf(rel, buf);
		return InvalidBuffer;
	}
	return buf;
}

/*
 * A flush (_blink_insert_sorted) holds the leaf whose page is page, and
 * its run there ended at itups[*next], which belongs right of the leaf (the
 * run stopped at the high key, not for room).  Find the leaves of the next
 * runs, up to blinkam.flush_leaves - 1 of them, to go in the same WAL
 * record, never by a descent (that would lock internal pages while a leaf
 * is held, against the lock order): by a leaf hint of this backend's (the
 * IoT case: a sensor's leaf, far right of the last one), else as the
 * right sibling of the last leaf (scattered keys, a run on nearly every
 * leaf).  Each is pinned only if a buffer holds it already and locked
 * only if free at once (_blink_hint_leaf with BLINK_HINT_HELD;
 * _blink_flush_right_sibling), so nothing here ever reads from disk or
 * waits while a leaf is held, and kept only if the run's first tuple is
 * below its high key.  The leaves are taken left to right (keys ascend, each run starts
 * beyond the last one's leaf).  A run is the tuples from *next on that are
 * below the leaf's high key and fit, as for the first leaf.  Stops at the
 * first leaf that fails (busy, split since its hint, not the sibling, no
 * room): the flush then goes on from there the normal way.  Sets comp[]
 * (their landed flags at landed[]) and *next past the runs taken; returns
 * how many.
 *
 * Why a hinted leaf is the right one: its hint's lo was on it, so the
 * leaf's low bound is at or below lo, and bounds never rise (src/README,
 * "Leaf hints"); the run's first tuple sorts above lo (the hint was chosen
 * so) and below the high key (checked under the lock), so the leaf covers
 * it now, as the one a descent would find.  Tuples of a unique index's
 * held-back entries (pending.c) need nothing more: they were checked at
 * their INSERT, their keys stay registered until their landed flag is set
 * after the record, and a check of the key locks its first leaf, which
 * this flush holds while it adds the entry, as it would alone.
 */
static int
_blink_flush_companions(Relation rel, Page page, IndexTuple *itups, int n,
						int *next, bool *landed, BlinkCompanion *comp)
{
	int			ncomp = 0;
	int			j = *next;

	while (ncomp < blinkam_flush_leaves - 1 && j < n &&
		   !_blink_below_hikey(rel, page, itups[j]))
	{
		BlinkScanInsert key = _blink_mkscankey(rel, itups[j]);
		bool		busy = false;
		Buffer		cbuf = _blink_hint_leaf(rel, key, &busy, BLINK_HINT_HELD);
		int			m;

		pfree(key);
		Assert(!busy);
		if (!BufferIsValid(cbuf))
			cbuf = _blink_flush_right_sibling(rel, page, itups[j]);
		if (!BufferIsValid(cbuf))
			break;
		page = BufferGetPage(cbuf);
		m = _blink_run_length(rel, page, &itups[j], n - j, false);
		if (m == 0)
		{
			_blink_relbuf(rel, cbuf);
			break;
		}
		/* (found by its hint, or remembered now for the next flush) */
		_blink_hint_remember(rel, cbuf);
		comp[ncomp].buf = cbuf;
		comp[ncomp].itups = &itups[j];
		comp[ncomp].n = m;
		comp[ncomp].landed = &landed[j];
		ncomp++;
		j += m;
	}
	*next = j;
	return ncomp;
}

/*
 * Insert itups[0..n-1] in key order: a statement buffer's flush (defer.c),
 * whose tuples need no check (a non-unique index's), or had theirs at
 * their INSERT (a unique index's held-back entries, their keys registered
 * in pending.c until they land).  Consecutive tuples that belong on the
 * same leaf and fit there together go in with one WAL record, and so may
 * the next runs, on up to blinkam.flush_leaves leaves in all
 * (_blink_flush_companions); a tuple that needs a split goes in alone.
 * landed[i] (initially false) is set once tuple i is in the index, so a
 * caller interrupted by an error knows which tuples are still to do.
 * unchanged: the statement's aminsert calls passed indexUnchanged (see
 * _blink_insert_leaf).  No lock is held on entry or exit.
 */
void
_blink_insert_sorted(Relation rel, IndexTuple *itups, int n, bool *landed,
					 bool unchanged)
{
	int			i = 0;
	bool		batch;

	(void) _blink_dedup_enabled(rel);	/* (see blinkinsert) */
	batch = blinkam_batch_inserts && _blink_compares_in_c(rel);
	while (i < n)
	{
		BlinkScanInsert key = _blink_mkscankey(rel, itups[i]);
		Buffer		buf;
		BlinkStack	stack;
		bool		busy = false;
		Page		page;
		int			m;

		/*
		 * If the leaf is busy, publish the rest of the run (as much as a
		 * slot carries) for the backend holding it, as in blinkinsert: it
		 * takes the tuples below its high key that fit, in its own record.
		 * Those it does not take are ours, with the leaf locked.
		 */
		stack = _blink_find_leaf(rel, key, &buf, batch ? &busy : NULL, true);
		if (busy)
		{
			i += _blink_insert_via_batch(rel, &buf, &itups[i], n - i, &key,
										 false, &landed[i]);
			if (!BufferIsValid(buf))
			{
				_blink_free_stack(stack);
				pfree(key);
				continue;		/* all taken: on to the rest, if any */
			}
		}
		_blink_hint_remember(rel, buf);

		/*
		 * itups[i] belongs on this leaf; the next ones do while they stay
		 * below its high key.  Take them while they fit.
		 */
		page = BufferGetPage(buf);
		m = _blink_run_length(rel, page, &itups[i], n - i, true);

		if (m == 0)
		{
			(void) _blink_insert_leaf(rel, key, buf, itups[i], stack,
									  &landed[i], false, unchanged);
			i++;
		}
		else
		{
			BlinkCompanion comp[BLINKAM_FLUSH_LEAVES_MAX - 1];
			int			next = i + m;
			int			ncomp = _blink_flush_companions(rel, page, itups, n,
														&next, landed, comp);

			_blink_leaf_write(rel, buf, &itups[i], m, &landed[i], comp, ncomp);
			i = next;
		}
		blinkam_count(BLINKAM_COUNTER_DEFERRED_LEAF_WRITES, 1);
		_blink_free_stack(stack);
		pfree(key);
	}
}

/* Do two index tuples have equal first key columns? */
static bool
_blink_first_attr_equal(Relation rel, IndexTuple a, IndexTuple b)
{
	TupleDesc	desc = RelationGetDescr(rel);
	bool		anull,
				bnull;
	Datum		ad = index_getattr(a, 1, desc, &anull);
	Datum		bd = index_getattr(b, 1, desc, &bnull);

	if (anull || bnull)
		return anull && bnull;
	return DatumGetInt32(FunctionCall2Coll(index_getprocinfo(rel, 1, 1),
										   rel->rd_indcollation[0],
										   ad, bd)) == 0;
}

/* One item of a page being split, in key order. */
typedef struct SplitItem
{
	IndexTuple	itup;
	Size		size;			/* MAXALIGN'd */
	OffsetNumber offnum;		/* on the page, or InvalidOffsetNumber: new */
} SplitItem;

/*
 * Choose where to split n items (in key order; the new one among them):
 * returns s, 1 <= s < n; items[0..s-1] stay left.  Both halves must fit:
 * the left one with its new high key (a pivot of items[s], at most
 * BLINK_TID_SPACE larger), the right one with the old high key (oldhisz,
 * 0 if none) and, on internal pages, items[s] shrunk to minus infinity.
 * A right-edge insert (the new item is the page's last) leaves the left
 * page filled up to the fill factor, so that keys growing at the end of
 * the index, or at the end of one key range inside it, pack pages
 * densely.  If after > 0, splitting right there is preferred (see
 * _blink_split).  Any other split balances the two halves.
 */
static int
_blink_choose_split(Relation rel, SplitItem *items, int n, bool rightedge,
					int after, bool isleaf, Size oldhisz)
{
	Size		usable = BLCKSZ - SizeOfPageHeaderData -
		MAXALIGN(sizeof(BlinkPageOpaqueData));
	Size		total = 0;
	Size		left = 0;		/* items[0..s-1] */
	Size		target = 0;
	int			best = -1;
	Size		bestdiff = 0;

	for (int i = 0; i < n; i++)
		total += items[i].size + sizeof(ItemIdData);
	if (rightedge)
		target = usable * (isleaf ? BlinkGetFillFactor(rel) :
						   BLINK_INTERNAL_FILLFACTOR) / 100;

	for (int s = 1; s < n; s++)
	{
		Size		lbytes,
					rbytes;

		left += items[s - 1].size + sizeof(ItemIdData);
		lbytes = left + (isleaf ? items[s].size + BLINK_TID_SPACE : items[s].size) +
			sizeof(ItemIdData);
		rbytes = total - left + (oldhisz ? oldhisz + sizeof(ItemIdData) : 0);
		if (!isleaf)
			rbytes -= items[s].size - MAXALIGN(sizeof(IndexTupleData));
		if (lbytes > usable || rbytes > usable)
			continue;

		if (s == after)
			return s;			/* the preferred point fits */
		if (rightedge)
		{
			/* the largest left half within the fill factor, else the smallest */
			if (best < 0 || lbytes <= target)
				best = s;
		}
		else
		{
			Size		diff = lbytes > rbytes ? lbytes - rbytes : rbytes - lbytes;

			if (best < 0 || diff < bestdiff)
			{
				best = s;
				bestdiff = diff;
			}
		}
	}
	if (best < 0)
		elog(ERROR, "no split point fits on a page of blink index \"%s\"",
			 RelationGetRelationName(rel));
	return best;
}

/*
 * Split the page in buf (exclusively locked, full) while adding newitem.
 *
 * For a leaf, newoff is InvalidOffsetNumber and the new item's place is
 * found by key; for an internal page, newoff is the offset where the new
 * downlink goes.  The upper part of the items moves to a new page N linked
 * between L and its right sibling R; L gets the new high key and the
 * INCOMPLETE_SPLIT flag.  If childbuf is valid (an exclusively locked
 * child whose split this parent insertion finishes), its INCOMPLETE_SPLIT
 * flag is cleared in the same WAL record.
 *
 * Before L is released, this backend registers as the finisher of L's
 * split.  On return L, N, R are released (childbuf is not) and info
 * describes the split for the ascent.
 */
static void
_blink_split(Relation rel, Buffer buf, IndexTuple newitem, OffsetNumber newoff,
			 Buffer childbuf, BlinkSplitInfo *info)
{
	BlinkamXLogState *state;
	Page		lpage,
				npage,
				rpage;
	BlinkPageOpaque lopaque,
				nopaque;
	Buffer		nbuf,
				rbuf = InvalidBuffer;
	BlockNumber lblkno = BufferGetBlockNumber(buf);
	bool		isleaf;
	bool		swapped;		/* the new item swapped TIDs with items[inew - 1] */
	bool		wasrightmost;
	OffsetNumber first,
				maxoff,
				off;
	SplitItem  *items;
	int			n,
				inew,
				s,
				after,
				nkeep;
	IndexTuple	hikey;
	OffsetNumber *deletable;
	int			ndeletable = 0;
	BlinkCycleId cycleid;

	state = blinkam_xlog_start(rel);
	lpage = blinkam_xlog_register(state, buf, 0);
	lopaque = BlinkPageGetOpaque(lpage);
	isleaf = BlinkPageIsLeaf(lopaque);
	wasrightmost = BlinkPageIsRightmost(lopaque);
	Assert(!BlinkPageIsIncompleteSplit(lopaque));

	/* Put every item in key order, the new one included. */
	first = BlinkPageFirstDataKey(lopaque);
	if (isleaf)
	{
		BlinkScanInsert key = _blink_mkscankey(rel, newitem);

		_blink_sort_leaf(rel, lpage);
		newoff = _blink_binsrch(rel, key, lpage);
		pfree(key);
	}
	maxoff = PageGetMaxOffsetNumber(lpage);
	Assert(newoff >= first && newoff <= maxoff + 1);

	n = maxoff - first + 2;
	items = palloc(sizeof(SplitItem) * n);
	inew = newoff - first;
	for (int i = 0, o = first; i < n; i++)
	{
		if (i == inew)
		{
			items[i].itup = newitem;
			items[i].offnum = InvalidOffsetNumber;
		}
		else
		{
			items[i].itup = (IndexTuple) PageGetItem(lpage, PageGetItemId(lpage, o));
			items[i].offnum = o;
			o++;
		}
		items[i].size = MAXALIGN(IndexTupleSize(items[i].itup));
	}

	/*
	 * A new item inside the range of the posting tuple before it swaps TIDs
	 * with it (the range rule, blinkdedup.c), so that no split point can
	 * leave part of the posting tuple's range right of the new high key.
	 * Both keep their sizes; the changed posting tuple replaces the page's
	 * in place if it stays left.
	 */
	swapped = isleaf && inew > 0 &&
		_blink_inside_posting(rel, items[inew - 1].itup, newitem);
	if (swapped)
	{
		IndexTuple	posting = CopyIndexTuple(items[inew - 1].itup);

		newitem = CopyIndexTuple(newitem);
		_blink_posting_swap(rel, posting, &newitem->t_tid);
		items[inew - 1].itup = posting;
		items[inew].itup = newitem;
	}

	/*
	 * Where do keys grow?  If the new item is the last of the page, or the
	 * page is the last of its level, at the right edge: keep the left page
	 * full.  (On the rightmost page the new item need not be the last one:
	 * concurrent appends of growing keys arrive slightly out of order, and
	 * a batch may have added larger keys just before.)  If it ends a run of items
	 * sharing its first column and the next item starts another run (a
	 * composite key such as (sensor, time) growing at the end of each
	 * sensor's range), split right after it: the left page keeps its run
	 * whole and the next run moves right.
	 */
	after = 0;
	if (isleaf && inew > 0 && inew < n - 1 &&
		IndexRelationGetNumberOfKeyAttributes(rel) > 1 &&
		_blink_first_attr_equal(rel, items[inew - 1].itup, newitem) &&
		!_blink_first_attr_equal(rel, items[inew + 1].itup, newitem))
		after = inew + 1;
	s = _blink_choose_split(rel, items, n, inew == n - 1 || wasrightmost,
							after, isleaf,
							wasrightmost ? 0 :
							MAXALIGN(ItemIdGetLength(PageGetItemId(lpage, BLINK_HIKEY))));
	hikey = _blink_make_pivot(rel, items[s].itup);

	/* The new right page, and the old right sibling. */
	nbuf = _blink_newpage(rel, isleaf);
	if (!wasrightmost)
		rbuf = _blink_getbuf(rel, lopaque->blink_next, BUFFER_LOCK_EXCLUSIVE);

	/*
	 * Is a VACUUM scanning the index?  Ask only now that L and N are both
	 * locked.  A VACUUM that starts after this cannot have passed N yet (it
	 * would wait for N's lock, and find the items there), nor L; one that
	 * started before is seen here, and the stamp on L sends it back to N if
	 * it passed N before we took it (see blinkvacuum.c).  Asked before N
	 * was taken, a VACUUM starting in between could pass the still-empty N
	 * and never learn that L's items moved there.
	 */
	cycleid = _blink_vacuum_cycleid(rel);
	blinkam_debug_pause(BLINKAM_PAUSE_SPLIT_CYCLEID);

	npage = blinkam_xlog_register(state, nbuf, GENERIC_XLOG_FULL_IMAGE);
	_blink_init_page(npage, isleaf ? BLINK_LEAF : 0, lopaque->blink_level);
	nopaque = BlinkPageGetOpaque(npage);
	nopaque->blink_prev = lblkno;
	nopaque->blink_next = lopaque->blink_next;
	nopaque->blink_cycleid = cycleid;

	/* N: L's old high key (if any), then items[s..n-1]. */
	if (!wasrightmost)
	{
		ItemId		hid = PageGetItemId(lpage, BLINK_HIKEY);

		if (PageAddItem(npage, PageGetItem(lpage, hid), ItemIdGetLength(hid),
						BLINK_HIKEY, false, false) == InvalidOffsetNumber)
			elog(ERROR, "failed to add high key to new blink page");
	}
	for (int i = s; i < n; i++)
	{
		IndexTuple	itup = items[i].itup;
		Size		sz = IndexTupleSize(itup);

		/* The first item of an internal page is minus infinity. */
		if (!isleaf && i == s)
		{
			itup = _blink_minus_infinity(BlinkDownlink(items[i].itup));
			sz = IndexTupleSize(itup);
		}
		if (PageAddItem(npage, (Item) itup, sz,
						OffsetNumberNext(PageGetMaxOffsetNumber(npage)),
						false, false) == InvalidOffsetNumber)
			elog(ERROR, "failed to add item to new blink page");
	}
	nopaque->blink_nsorted = n - s;
	nopaque->blink_flags |= lopaque->blink_flags & BLINK_HAS_POSTING;
	_blink_page_changed(npage);

	/*
	 * L: drop the items that moved right, in place, so that the WAL delta
	 * only covers what changed; then the new high key; then the new item
	 * if it stays left.
	 */
	if (swapped && inew - 1 < s)
	{
		SplitItem  *posting = &items[inew - 1];
		ItemId		iid;

		if (!PageIndexTupleOverwrite(lpage, posting->offnum, (Item) posting->itup,
									 IndexTupleSize(posting->itup)))
			elog(ERROR, "failed to replace item of split blink page");
		/* it took the new item's TID: a dead mark no longer holds */
		iid = PageGetItemId(lpage, posting->offnum);
		if (ItemIdIsDead(iid))
			ItemIdSetNormal(iid, ItemIdGetOffset(iid), ItemIdGetLength(iid));
	}
	deletable = palloc(sizeof(OffsetNumber) * n);
	for (int i = s; i < n; i++)
	{
		if (items[i].offnum != InvalidOffsetNumber)
			deletable[ndeletable++] = items[i].offnum;
	}
	PageIndexMultiDelete(lpage, deletable, ndeletable);
	if (wasrightmost)
	{
		if (PageAddItem(lpage, (Item) hikey, IndexTupleSize(hikey), BLINK_HIKEY,
						false, false) == InvalidOffsetNumber)
			elog(ERROR, "failed to add high key to blink page");
	}
	else if (!PageIndexTupleOverwrite(lpage, BLINK_HIKEY, (Item) hikey,
									  IndexTupleSize(hikey)))
		elog(ERROR, "failed to replace high key of blink page");

	nkeep = s - (inew < s ? 1 : 0);
	lopaque->blink_nsorted = nkeep;
	if (inew < s)
	{
		/* leaves append to the tail; internal pages keep key order */
		off = isleaf ? OffsetNumberNext(PageGetMaxOffsetNumber(lpage)) :
			(OffsetNumber) (OffsetNumberNext(BLINK_HIKEY) + inew);
		if (PageAddItem(lpage, (Item) newitem, IndexTupleSize(newitem), off,
						false, false) == InvalidOffsetNumber)
			elog(ERROR, "failed to add new item to split blink page");
		if (!isleaf)
			lopaque->blink_nsorted++;
	}
	lopaque->blink_next = BufferGetBlockNumber(nbuf);
	lopaque->blink_flags |= BLINK_INCOMPLETE_SPLIT;
	if (cycleid != 0)
		lopaque->blink_cycleid = cycleid;
	_blink_page_changed(lpage);

	if (BufferIsValid(rbuf))
	{
		rpage = blinkam_xlog_register(state, rbuf, 0);
		BlinkPageGetOpaque(rpage)->blink_prev = BufferGetBlockNumber(nbuf);
		_blink_page_changed(rpage);
	}
	if (BufferIsValid(childbuf))
	{
		Page		cpage = blinkam_xlog_register(state, childbuf, 0);

		BlinkPageGetOpaque(cpage)->blink_flags &= ~BLINK_INCOMPLETE_SPLIT;
		_blink_page_changed(cpage);
	}

	info->lblkno = lblkno;
	info->rblkno = BufferGetBlockNumber(nbuf);
	info->level = lopaque->blink_level;
	info->was_root = BlinkPageIsRoot(lopaque);
	info->sep = hikey;

	/*
	 * SERIALIZABLE: a scan that read L holds a predicate lock on it, and
	 * some of what it read now lives on N: N gets the same locks, before
	 * anyone can read N.  (Before the record: an error here changes no
	 * page.)
	 */
	if (isleaf)
		PredicateLockPageSplit(rel, lblkno, BufferGetBlockNumber(nbuf));

	blinkam_xlog_finish(state);

	/* Register as finisher while L is still locked (see splitreg.c). */
	if (!_blink_splitreg_claim(rel, lblkno))
		elog(ERROR, "split of block %u of blink index \"%s\" registered twice",
			 lblkno, RelationGetRelationName(rel));

	/*
	 * Runs published for L that now belong on N (a full leaf's queue, left
	 * published by its holders) go on waiting for N, without waking: our
	 * release of N wakes the first of them, which takes N and serves the
	 * others (batch.c, "Deferred and forwarded runs").
	 */
	if (isleaf)
	{
		BlinkBatchTarget target;

		target.rel = rel;
		target.page = BufferGetPage(buf);
		target.in_place = false;
		target.postings = target.extra_entries = 0;
		(void) blinkam_batch_forward(rel, lblkno, BufferGetBlockNumber(nbuf),
									 _blink_batch_moves, &target);
	}

	if (BufferIsValid(rbuf))
		_blink_relbuf(rel, rbuf);
	_blink_relbuf(rel, nbuf);
	_blink_relbuf(rel, buf);
	pfree(deletable);
	pfree(items);

	blinkam_count(BLINKAM_COUNTER_SPLITS, 1);
}

/*
 * Finish the split described by info: insert N's downlink into L's parent
 * and clear L's flag, in one WAL record; if the parent is full, split it
 * too (clearing L's flag in that record) and go on one level up.
 *
 * On entry this backend holds the registry entry for info->lblkno and no
 * buffer locks; stack is the path above L's level (possibly stale or
 * empty).  On return the split is complete and the entry dropped.
 */
static void
_blink_insert_parent(Relation rel, BlinkSplitInfo *info, BlinkStack stack)
{
	bool		patient = false;

	for (;;)
	{
		Buffer		pbuf;
		Buffer		lbuf;
		OffsetNumber poff = InvalidOffsetNumber;
		Page		ppage;
		IndexTuple	sep;
		Size		sepsz;

		CHECK_FOR_INTERRUPTS();

		if (info->was_root)
		{
			blinkam_debug_stop(BLINKAM_STOP_BEFORE_NEW_ROOT);
			_blink_newroot(rel, info);
			return;
		}

		pbuf = _blink_getstackbuf(rel, stack, info, &poff);
		if (!BufferIsValid(pbuf))
		{
			/* L has no downlink yet: its left neighbour's split is unfinished. */
			_blink_finish_left_sibling(rel, info);
			continue;
		}
		ppage = BufferGetPage(pbuf);

		sep = info->sep;
		BlinkSetDownlink(sep, info->rblkno);
		sepsz = IndexTupleSize(sep);

		if (!_blink_fits(ppage, sepsz) &&
			BlinkPageIsIncompleteSplit(BlinkPageGetOpaque(ppage)))
		{
			/* The parent must split but its own split is unfinished. */
			_blink_finish_or_wait(rel, pbuf);
			continue;
		}

		/* Parent, then child: the child without waiting for it with P held */
		lbuf = _blink_lock_split_child(rel, &pbuf, info->lblkno, poff, sepsz,
									   patient);
		if (!BufferIsValid(lbuf))
		{
			patient = true;		/* P changed meanwhile: once more, waiting */
			continue;
		}
		patient = false;
		ppage = BufferGetPage(pbuf);
		if (!BlinkPageIsIncompleteSplit(BlinkPageGetOpaque(BufferGetPage(lbuf))))
			_blink_corrupted(rel, info->lblkno,
							 "its incomplete-split flag is gone while this backend finishes its split");

		if (_blink_fits(ppage, sepsz))
		{
			BlinkamXLogState *state = blinkam_xlog_start(rel);
			Page		pp = blinkam_xlog_register(state, pbuf, 0);
			Page		lp = blinkam_xlog_register(state, lbuf, 0);

			if (PageAddItem(pp, (Item) sep, sepsz, OffsetNumberNext(poff),
							false, false) == InvalidOffsetNumber)
				elog(ERROR, "failed to add downlink to blink index \"%s\" block %u",
					 RelationGetRelationName(rel), BufferGetBlockNumber(pbuf));
			BlinkPageGetOpaque(pp)->blink_nsorted++;
			_blink_page_changed(pp);
			BlinkPageGetOpaque(lp)->blink_flags &= ~BLINK_INCOMPLETE_SPLIT;
			_blink_page_changed(lp);
			blinkam_xlog_finish(state);

			/*
			 * Drop the registry entry while L is still locked: once L is
			 * unlocked it may split again, and its new split must find no
			 * entry of ours.
			 */
			_blink_splitreg_release(rel, info->lblkno);
			_blink_relbuf(rel, lbuf);
			_blink_relbuf(rel, pbuf);
			pfree(info->sep);
			return;
		}
		else
		{
			BlinkSplitInfo pinfo;

			_blink_split(rel, pbuf, sep, OffsetNumberNext(poff), lbuf, &pinfo);
			_blink_splitreg_release(rel, info->lblkno);	/* L still locked */
			_blink_relbuf(rel, lbuf);
			pfree(info->sep);
			*info = pinfo;
			stack = stack ? stack->parent : NULL;
			blinkam_debug_stop(BLINKAM_STOP_AFTER_PARENT_SPLIT);
		}
	}
}

/*
 * The ascent of a split (_blink_insert_parent) holds the parent P
 * exclusively, with L's downlink at poff, and needs the split page L.  L
 * is often the hottest leaf of the index -- the right edge of growing keys
 * -- with a queue of inserters and batch holders; waiting in that queue
 * with P held stops every descent through P for as long (on 16 cores at
 * 512 clients, the most frequent wait of statement-buffer flushes).  So:
 * L, if it is free at once.  Otherwise let P go, wait for L with nothing
 * else held, then take P back only if that needs no wait (a few tries:
 * P's other holders are mostly descents passing through) and P still has
 * L's downlink at poff, with room for the separator (sepsz) or else free
 * to split (not flagged itself).  Returns L locked, with P locked in
 * *pbuf.  Returns InvalidBuffer, with nothing locked and *pbuf invalid,
 * when P could not be taken back as it was: the caller starts over with
 * patient set, and then waits for L with P held, as the lock order allows
 * (parent, then child), so that the ascent always ends.  It never waits
 * for P while it holds L: the conditional tries cannot take part in a
 * deadlock.  While L is locked and P is not, nothing is changed: L stays
 * flagged (this backend is the registered finisher, so nobody else clears
 * it, and a flagged L cannot split again), and P's downlink to L cannot
 * move but by P's own split or insertions, which the check catches.
 */
static Buffer
_blink_lock_split_child(Relation rel, Buffer *pbuf, BlockNumber lblkno,
						OffsetNumber poff, Size sepsz, bool patient)
{
	BlockNumber pblkno = BufferGetBlockNumber(*pbuf);
	bool		busy = false;
	Buffer		lbuf = _blink_get_target(rel, InvalidBuffer, lblkno,
										 BUFFER_LOCK_EXCLUSIVE,
										 patient ? NULL : &busy);

	if (!busy)
		return lbuf;

	_blink_relbuf(rel, *pbuf);
	blinkam_count(BLINKAM_COUNTER_PARENT_LET_GO, 1);
	_blink_lockbuf(rel, lbuf, BUFFER_LOCK_EXCLUSIVE);
	*pbuf = ReadBuffer(rel, pblkno);
	for (int i = 0; i < BLINK_PARENT_TRIES; i++)
	{
		Page		page;
		BlinkPageOpaque opaque;

		if (!ConditionalLockBuffer(*pbuf))
		{
			pg_spin_delay();
			continue;
		}
		_blink_checkpage(rel, *pbuf);
		page = BufferGetPage(*pbuf);
		opaque = BlinkPageGetOpaque(page);
		if (poff >= BlinkPageFirstDataKey(opaque) &&
			poff <= PageGetMaxOffsetNumber(page) &&
			BlinkDownlink((IndexTuple) PageGetItem(page, PageGetItemId(page, poff))) == lblkno &&
			(_blink_fits(page, sepsz) || !BlinkPageIsIncompleteSplit(opaque)))
			return lbuf;
		_blink_unlock(rel, *pbuf);
		break;
	}
	ReleaseBuffer(*pbuf);
	*pbuf = InvalidBuffer;
	_blink_relbuf(rel, lbuf);
	return InvalidBuffer;
}

/*
 * Find and exclusively lock the parent-level page that holds L's downlink
 * (L = info->lblkno), starting from the remembered path entry (or the
 * leftmost page of the parent level if there is none) and moving right.
 * If the page's version is unchanged, the downlink is where the descent
 * saw it.  Returns the locked buffer and sets *poffnum, or returns
 * InvalidBuffer (nothing locked) if L has no downlink yet: that happens
 * only while the split of L's left sibling is unfinished.
 */
static Buffer
_blink_getstackbuf(Relation rel, BlinkStack stack, BlinkSplitInfo *info,
				   OffsetNumber *poffnum)
{
	Buffer		buf;
	uint32		plevel = info->level + 1;

	if (stack == NULL)
	{
		uint32		rootlevel;
		BlinkScanInsert key;

		/*
		 * No parent level yet: the root split that made L is itself
		 * unfinished, and L has no downlink to find.
		 */
		(void) _blink_getroot(rel, &rootlevel, true);
		if (rootlevel < plevel)
			return InvalidBuffer;

		/*
		 * No path (the insert went straight to its leaf by a hint, the
		 * page was the root when the path was taken, or an abandoned split
		 * is being finished): descend to the parent level with the
		 * separator.  It lies in L's range, and a parent's range holds its
		 * children's whole ranges, so the page the descent ends on is the
		 * one that holds, or would hold, L's downlink.
		 */
		key = _blink_mkscankey(rel, info->sep);
		key->nextkey = false;
		_blink_free_stack(_blink_search(rel, key, &buf, BUFFER_LOCK_EXCLUSIVE,
										plevel));
		pfree(key);
	}
	else
		buf = _blink_getbuf(rel, stack->blkno, BUFFER_LOCK_EXCLUSIVE);

	for (;;)
	{
		Page		page = BufferGetPage(buf);
		BlinkPageOpaque opaque = BlinkPageGetOpaque(page);
		OffsetNumber first = BlinkPageFirstDataKey(opaque);
		OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
		Buffer		rbuf;

		if (opaque->blink_level != plevel)
			_blink_corrupted(rel, BufferGetBlockNumber(buf),
							 "level %u, expected %u for the parent of a split page",
							 opaque->blink_level, plevel);

		if (stack && BufferGetBlockNumber(buf) == stack->blkno &&
			opaque->blink_version == stack->version &&
			stack->offnum >= first && stack->offnum <= maxoff)
		{
			IndexTuple	itup = (IndexTuple)
				PageGetItem(page, PageGetItemId(page, stack->offnum));

			if (BlinkDownlink(itup) == info->lblkno)
			{
				*poffnum = stack->offnum;
				return buf;
			}
		}

		for (OffsetNumber off = first; off <= maxoff; off++)
		{
			IndexTuple	itup = (IndexTuple) PageGetItem(page, PageGetItemId(page, off));

			if (BlinkDownlink(itup) == info->lblkno)
			{
				*poffnum = off;
				return buf;
			}
		}

		/*
		 * Not here.  If the separator we are about to insert is below this
		 * page's high key, L's downlink would have to be on this page: it
		 * does not exist yet.
		 */
		if (_blink_below_hikey(rel, page, info->sep))
		{
			_blink_relbuf(rel, buf);
			return InvalidBuffer;
		}

		rbuf = _blink_getbuf(rel, opaque->blink_next, BUFFER_LOCK_EXCLUSIVE);
		_blink_relbuf(rel, buf);
		buf = rbuf;
		blinkam_count(BLINKAM_COUNTER_MOVERIGHTS, 1);
	}
}

/*
 * L (info->lblkno) has no downlink in its parent yet, because the split
 * that created L is unfinished: finish that split (or wait for whoever is
 * finishing it).  Called with no buffer locks held.
 */
static void
_blink_finish_left_sibling(Relation rel, BlinkSplitInfo *info)
{
	Buffer		lbuf = _blink_getbuf(rel, info->lblkno, BUFFER_LOCK_SHARE);
	BlockNumber left = BlinkPageGetOpaque(BufferGetPage(lbuf))->blink_prev;
	Buffer		buf;

	_blink_relbuf(rel, lbuf);
	if (!BlockNumberIsValid(left))
		_blink_corrupted(rel, info->lblkno,
						 "leftmost page of level %u has no downlink in its parent",
						 info->level);

	/* The left neighbour may itself have split since: move right to L's. */
	buf = _blink_getbuf(rel, left, BUFFER_LOCK_EXCLUSIVE);
	for (;;)
	{
		BlinkPageOpaque opaque = BlinkPageGetOpaque(BufferGetPage(buf));
		Buffer		rbuf;

		if (opaque->blink_next == info->lblkno)
			break;
		if (BlinkPageIsRightmost(opaque))
			_blink_corrupted(rel, info->lblkno,
							 "not reachable through the right-links from its left-link %u",
							 left);
		rbuf = _blink_getbuf(rel, opaque->blink_next, BUFFER_LOCK_EXCLUSIVE);
		_blink_relbuf(rel, buf);
		buf = rbuf;
	}

	if (BlinkPageIsIncompleteSplit(BlinkPageGetOpaque(BufferGetPage(buf))))
		_blink_finish_or_wait(rel, buf);
	else
		_blink_relbuf(rel, buf);	/* finished meanwhile */
}

/*
 * The root L has split: make a new root above L and N.  One WAL record:
 * the new root (full image), L (no longer root, flag cleared), metapage.
 */
static void
_blink_newroot(Relation rel, BlinkSplitInfo *info)
{
	Buffer		lbuf,
				rootbuf,
				metabuf;
	Page		lpage,
				rootpage,
				metapage;
	BlinkPageOpaque lopaque;
	BlinkamXLogState *state;
	IndexTuple	minus;
	BlinkMetaPageData *meta;

	lbuf = _blink_getbuf(rel, info->lblkno, BUFFER_LOCK_EXCLUSIVE);
	lopaque = BlinkPageGetOpaque(BufferGetPage(lbuf));
	if (!BlinkPageIsRoot(lopaque) || !BlinkPageIsIncompleteSplit(lopaque))
		elog(ERROR, "block %u of blink index \"%s\" is not an unfinished root split",
			 info->lblkno, RelationGetRelationName(rel));

	rootbuf = _blink_newpage(rel, false);
	metabuf = _blink_getbuf(rel, BLINK_METAPAGE, BUFFER_LOCK_EXCLUSIVE);

	state = blinkam_xlog_start(rel);
	rootpage = blinkam_xlog_register(state, rootbuf, GENERIC_XLOG_FULL_IMAGE);
	lpage = blinkam_xlog_register(state, lbuf, 0);
	metapage = blinkam_xlog_register(state, metabuf, 0);

	_blink_init_page(rootpage, BLINK_ROOT, info->level + 1);
	minus = _blink_minus_infinity(info->lblkno);
	BlinkSetDownlink(info->sep, info->rblkno);
	if (PageAddItem(rootpage, (Item) minus, IndexTupleSize(minus),
					FirstOffsetNumber, false, false) == InvalidOffsetNumber ||
		PageAddItem(rootpage, (Item) info->sep, IndexTupleSize(info->sep),
					OffsetNumberNext(FirstOffsetNumber), false, false) == InvalidOffsetNumber)
		elog(ERROR, "failed to build new root of blink index \"%s\"",
			 RelationGetRelationName(rel));
	BlinkPageGetOpaque(rootpage)->blink_nsorted = 2;
	_blink_page_changed(rootpage);

	BlinkPageGetOpaque(lpage)->blink_flags &= ~(BLINK_ROOT | BLINK_INCOMPLETE_SPLIT);
	_blink_page_changed(lpage);

	meta = BlinkPageGetMeta(metapage);
	meta->blinkm_root = BufferGetBlockNumber(rootbuf);
	meta->blinkm_level = info->level + 1;
	_blink_page_changed(metapage);

	blinkam_xlog_finish(state);

	_blink_splitreg_release(rel, info->lblkno);	/* L still locked */
	_blink_relbuf(rel, metabuf);
	_blink_relbuf(rel, lbuf);
	_blink_relbuf(rel, rootbuf);
	_blink_forget_root(rel);
	pfree(minus);
	pfree(info->sep);

	blinkam_count(BLINKAM_COUNTER_ROOT_SPLITS, 1);
}

/*
 * The page in buf (exclusively locked) is flagged INCOMPLETE_SPLIT and a
 * writer needs that split finished.  If a live backend is finishing it,
 * release the page and wait for it; otherwise the split was abandoned:
 * claim it and finish it here.  Either way buf is released on return and
 * the caller must look for its page again.  Returns true if this call
 * finished the split, false if it waited for another backend.
 */
bool
_blink_finish_or_wait(Relation rel, Buffer buf)
{
	BlockNumber blkno = BufferGetBlockNumber(buf);
	Page		page = BufferGetPage(buf);
	BlinkPageOpaque opaque = BlinkPageGetOpaque(page);
	BlinkSplitInfo info;

	Assert(BlinkPageIsIncompleteSplit(opaque));

	if (!_blink_splitreg_claim(rel, blkno))
	{
		_blink_relbuf(rel, buf);
		_blink_splitreg_wait(rel, blkno);
		return false;
	}

	info.lblkno = blkno;
	info.rblkno = opaque->blink_next;
	info.level = opaque->blink_level;
	info.was_root = BlinkPageIsRoot(opaque);
	info.sep = _blink_make_pivot(rel, (IndexTuple)
								 PageGetItem(page, PageGetItemId(page, BLINK_HIKEY)));
	_blink_relbuf(rel, buf);

	/* no path: the ascent finds the parent with the separator */
	blinkam_count(BLINKAM_COUNTER_INCOMPLETE_SPLITS_FINISHED, 1);
	_blink_insert_parent(rel, &info, NULL);
	return true;
}
