/*-------------------------------------------------------------------------
 *
 * blinkdelete.c
 *	  Entries of dead rows between VACUUMs: scans mark them dead (LP_DEAD),
 *	  and a full leaf drops them, or other entries the table finds dead to
 *	  everyone, before it splits.
 *
 * The argument that none of this changes an answer is in src/README,
 * "Dead entries between VACUUMs".
 *
 * src/index/blinkdelete.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "access/tableam.h"
#include "access/transam.h"
#include "utils/rel.h"

#include "common/counters.h"
#include "common/gxlog.h"
#include "index/blink.h"

/*
 * Does the leaf page hold an entry marked dead?  Kept up to date in
 * BLINK_HAS_GARBAGE by every change that marks or removes entries.
 */
static bool
_blink_page_has_dead(Page page)
{
	BlinkPageOpaque opaque = BlinkPageGetOpaque(page);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);

	for (OffsetNumber off = BlinkPageFirstDataKey(opaque); off <= maxoff; off++)
	{
		if (ItemIdIsDead(PageGetItemId(page, off)))
			return true;
	}
	return false;
}

/*
 * Remove the items at deletable[0..n-1] (ascending data-item offsets) from
 * the leaf in buf, exclusively locked, and replace the posting tuples
 * updates[0..nupdates-1] by their smaller versions (the same key, some of
 * the TIDs), with one generic WAL record.  Items move, so the page's
 * version changes; the sorted part shrinks by the items removed from it.
 * VACUUM and the deletion before a split both come here.
 */
void
_blink_leaf_delete(Relation rel, Buffer buf, OffsetNumber *deletable, int n,
				   BlinkLeafUpdate *updates, int nupdates)
{
	Page		page = BufferGetPage(buf);
	BlinkPageOpaque opaque = BlinkPageGetOpaque(page);
	OffsetNumber sortedEnd = BlinkPageFirstDataKey(opaque) + opaque->blink_nsorted;
	BlinkamXLogState *state;
	Page		p;
	BlinkPageOpaque po;
	int			nsorted_deleted = 0;

	Assert(BlinkPageIsLeaf(opaque) && n + nupdates > 0);
	for (int i = 0; i < n; i++)
	{
		Assert(i == 0 || deletable[i - 1] < deletable[i]);
		if (deletable[i] < sortedEnd)
			nsorted_deleted++;
	}

	state = blinkam_xlog_start(rel);
	p = blinkam_xlog_register(state, buf, 0);
	po = BlinkPageGetOpaque(p);
	for (int i = 0; i < nupdates; i++)
	{
		IndexTuple	itup = updates[i].itup;

		if (!PageIndexTupleOverwrite(p, updates[i].offnum, (Item) itup,
									 IndexTupleSize(itup)))
			elog(ERROR, "failed to rewrite posting tuple in blink index \"%s\"",
				 RelationGetRelationName(rel));
	}
	if (n > 0)
		PageIndexMultiDelete(p, deletable, n);
	po->blink_nsorted -= nsorted_deleted;
	if ((po->blink_flags & BLINK_HAS_GARBAGE) && !_blink_page_has_dead(p))
		po->blink_flags &= ~BLINK_HAS_GARBAGE;
	_blink_page_changed(p);
	blinkam_xlog_finish(state);
}

/*
 * Mark the items at offs[0..n-1] of the leaf in buf (exclusively locked,
 * kept so) dead and flag the page, in one generic WAL record.
 */
void
_blink_mark_dead_locked(Relation rel, Buffer buf, const OffsetNumber *offs, int n)
{
	BlinkamXLogState *state = blinkam_xlog_start(rel);
	Page		p = blinkam_xlog_register(state, buf, 0);

	for (int i = 0; i < n; i++)
		ItemIdMarkDead(PageGetItemId(p, offs[i]));
	BlinkPageGetOpaque(p)->blink_flags |= BLINK_HAS_GARBAGE;
	blinkam_xlog_finish(state);
	blinkam_count(BLINKAM_COUNTER_ENTRIES_MARKED_DEAD, n);
}

/* qsort_arg comparator: indexes into the offsets array arg, by offset */
static int
_blink_cmp_entry_offset(const void *a, const void *b, void *arg)
{
	const OffsetNumber *offs = (const OffsetNumber *) arg;
	OffsetNumber x = offs[*(const int *) a];
	OffsetNumber y = offs[*(const int *) b];

	return x < y ? -1 : x > y;
}

/*
 * Is every heap TID of the leaf item itup among tids[idx[0..n-1]]?  A
 * posting tuple is marked dead only when all its rows were found dead.
 */
static bool
_blink_all_tids_listed(IndexTuple itup, const ItemPointerData *tids,
					   const int *idx, int n)
{
	int			ntids = BlinkItemNTids(itup);

	for (int k = 0; k < ntids; k++)
	{
		ItemPointer tid = BlinkItemTid(itup, k);
		bool		found = false;

		for (int i = 0; i < n && !found; i++)
			found = ItemPointerEquals(tid, (ItemPointer) &tids[idx[i]]);
		if (!found)
			return false;
	}
	return true;
}

/*
 * Mark dead the entries a scan found pointing to rows dead to everyone
 * (kill_prior_tuple): offs[i] is where the scan saw the entry for tids[i]
 * on leaf blkno, whose version was then version.  pinned is the scan's pin
 * on the leaf if it kept one, else InvalidBuffer.
 *
 * A hint, so nothing waits: if the leaf is locked, nothing is marked.
 * While the version is unchanged no item has moved or gone since the
 * scan read the page, so the item at offs[i] with tids[i] is the entry the
 * scan saw (VACUUM, which alone frees heap line pointers for reuse,
 * changes the version of every leaf it removes entries from); otherwise
 * nothing is marked.  A posting tuple is marked only if the scan found
 * every one of its TIDs dead.  The marks are logged: a standby replays them (its
 * scans do not trust them, see blinkgettuple) and wal_consistency_checking
 * finds the pages equal.
 */
void
_blink_mark_dead(Relation rel, BlockNumber blkno, Buffer pinned, uint32 version,
				 const ItemPointerData *tids, const OffsetNumber *offs, int n)
{
	Buffer		buf = BufferIsValid(pinned) ? pinned : ReadBuffer(rel, blkno);
	Page		page = BufferGetPage(buf);
	OffsetNumber mark[MaxIndexTuplesPerPage];
	int			nmark = 0;
	int		   *order;

	Assert(BufferGetBlockNumber(buf) == blkno);
	if (!ConditionalLockBuffer(buf))
	{
		if (!BufferIsValid(pinned))
			ReleaseBuffer(buf);
		return;
	}
	_blink_checkpage(rel, buf);

	if (BlinkPageIsLeaf(BlinkPageGetOpaque(page)) &&
		BlinkPageGetOpaque(page)->blink_version == version)
	{
		OffsetNumber first = BlinkPageFirstDataKey(BlinkPageGetOpaque(page));
		OffsetNumber maxoff = PageGetMaxOffsetNumber(page);

		/* the entries grouped by offset: a posting tuple has several */
		order = palloc(sizeof(int) * n);
		for (int i = 0; i < n; i++)
			order[i] = i;
		qsort_arg(order, n, sizeof(int), _blink_cmp_entry_offset, (void *) offs);

		for (int g = 0; g < n;)
		{
			OffsetNumber off = offs[order[g]];
			int			gend = g + 1;
			ItemId		iid;

			while (gend < n && offs[order[gend]] == off)
				gend++;
			if (off >= first && off <= maxoff &&
				ItemIdIsNormal(iid = PageGetItemId(page, off)) &&
				_blink_all_tids_listed((IndexTuple) PageGetItem(page, iid),
									   tids, order + g, gend - g))
				mark[nmark++] = off;
			g = gend;
		}
		pfree(order);
	}

	if (nmark > 0)
		_blink_mark_dead_locked(rel, buf, mark, nmark);

	_blink_unlock(rel, buf);
	if (!BufferIsValid(pinned))
		ReleaseBuffer(buf);
}

/* qsort comparator for block numbers and offsets */
static int
_blink_cmp_block(const void *a, const void *b)
{
	BlockNumber x = *(const BlockNumber *) a;
	BlockNumber y = *(const BlockNumber *) b;

	return x < y ? -1 : x > y;
}

/* qsort comparator for TM_IndexDelete entries by heap TID */
static int
_blink_cmp_deltid(const void *a, const void *b)
{
	return ItemPointerCompare((ItemPointer) &((const TM_IndexDelete *) a)->tid,
							  (ItemPointer) &((const TM_IndexDelete *) b)->tid);
}

/*
 * Which entries of the leaf page go: gone(tid, offnum, arg) decides for
 * each heap TID of each item.  Items left with no TID go to
 * deletable[0..*ndeletable-1] (ascending); posting tuples left with some
 * get their smaller versions in updates[0..*nupdates-1] (palloc'd).  Sets
 * *nkept (if given) to the TIDs that stay; returns the number that go.
 * The caller passes both to _blink_leaf_delete.
 */
int
_blink_leaf_plan_removal(Page page, BlinkTidGone gone, void *arg,
						 OffsetNumber *deletable, int *ndeletable,
						 BlinkLeafUpdate *updates, int *nupdates, int *nkept)
{
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	ItemPointerData keep[BLINK_MAX_TIDS_PER_PAGE];
	int			nremoved = 0;
	int			kept = 0;

	*ndeletable = *nupdates = 0;
	for (OffsetNumber off = BlinkPageFirstDataKey(BlinkPageGetOpaque(page));
		 off <= maxoff; off++)
	{
		IndexTuple	itup = (IndexTuple) PageGetItem(page, PageGetItemId(page, off));
		int			ntids = BlinkItemNTids(itup);
		int			nkeep = 0;

		for (int k = 0; k < ntids; k++)
		{
			ItemPointer tid = BlinkItemTid(itup, k);

			if (gone(tid, off, arg))
				nremoved++;
			else
				keep[nkeep++] = *tid;
		}
		kept += nkeep;
		if (nkeep == 0)
			deletable[(*ndeletable)++] = off;
		else if (nkeep < ntids)
		{
			updates[*nupdates].offnum = off;
			updates[*nupdates].itup = _blink_form_posting(itup, keep, nkeep);
			(*nupdates)++;
		}
	}
	if (nkept)
		*nkept = kept;
	return nremoved;
}

/* The entries the table found deletable, sorted by heap TID. */
typedef struct DeletableTids
{
	TM_IndexDelete *dead;
	int			ndead;
	TM_IndexDeleteOp *delstate;
} DeletableTids;

static bool
_blink_tid_deletable(ItemPointer tid, OffsetNumber offnum, void *arg)
{
	DeletableTids *gone = (DeletableTids *) arg;
	TM_IndexDelete *d = bsearch(tid, gone->dead, gone->ndead, sizeof(TM_IndexDelete),
								_blink_cmp_deltid);

	return d != NULL && gone->delstate->status[d->id].idxoffnum == offnum;
}

/*
 * Remove the entries the table found deletable (delstate's status says
 * knowndeletable) from the leaf in buf: whole items, or some TIDs of a
 * posting tuple, which is rewritten with the rest.
 */
static void
_blink_delete_entries(Relation rel, Buffer buf, TM_IndexDeleteOp *delstate,
					  TransactionId latestRemovedXid)
{
	Page		page = BufferGetPage(buf);
	OffsetNumber deletable[MaxIndexTuplesPerPage];
	BlinkLeafUpdate updates[MaxIndexTuplesPerPage];
	int			ndeletable = 0;
	int			nupdates = 0;
	int			nentries = 0;
	TM_IndexDelete *dead = palloc(sizeof(TM_IndexDelete) * delstate->ndeltids);
	int			ndead = 0;
	DeletableTids gone;

	/* the deletable entries, sorted by heap TID */
	for (int i = 0; i < delstate->ndeltids; i++)
	{
		TM_IndexStatus *st = &delstate->status[delstate->deltids[i].id];

		if (st->knowndeletable)
			dead[ndead++] = delstate->deltids[i];
	}
	if (ndead == 0)
	{
		pfree(dead);
		return;
	}
	qsort(dead, ndead, sizeof(TM_IndexDelete), _blink_cmp_deltid);

	gone.dead = dead;
	gone.ndead = ndead;
	gone.delstate = delstate;
	nentries = _blink_leaf_plan_removal(page, _blink_tid_deletable, &gone,
										deletable, &ndeletable, updates, &nupdates,
										NULL);
	if (ndeletable + nupdates == 0)
	{
		pfree(dead);
		return;
	}

	/* standby queries that could see a removed row go first */
	blinkam_log_conflict(rel, BufferGetBlockNumber(buf), latestRemovedXid);
	_blink_leaf_delete(rel, buf, deletable, ndeletable, updates, nupdates);
	blinkam_count(BLINKAM_COUNTER_ENTRIES_DELETED, nentries);
	for (int i = 0; i < nupdates; i++)
		pfree(updates[i].itup);
	pfree(dead);
}

/*
 * One deletion pass over the leaf in buf (exclusively locked): ask the
 * table which of the candidate entries point to rows dead to everyone, and
 * remove those.
 *
 * Simple pass (bottomup false): the candidates are the entries marked dead
 * and the other entries pointing to the same table blocks, which the table
 * checks at little cost while it is there.  Bottom-up pass: every entry is
 * a candidate, those with newitem's key (left by updates that did not
 * change this index's columns) marked promising; the table decides how
 * many blocks it visits.
 */
static void
_blink_delete_pass(Relation rel, Relation heapRel, Buffer buf,
				   IndexTuple newitem, bool bottomup)
{
	Page		page = BufferGetPage(buf);
	BlinkPageOpaque opaque = BlinkPageGetOpaque(page);
	OffsetNumber first = BlinkPageFirstDataKey(opaque);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	TM_IndexDeleteOp delstate;
	BlockNumber deadblocks[BLINK_MAX_TIDS_PER_PAGE];
	int			ndeadblocks = 0;
	BlinkScanInsert newkey = NULL;
	TransactionId latestRemovedXid = InvalidTransactionId;

	delstate.irel = rel;
	delstate.iblknum = BufferGetBlockNumber(buf);
	delstate.bottomup = bottomup;
	delstate.bottomupfreespace = bottomup ?
		Max(BLCKSZ / 16, MAXALIGN(IndexTupleSize(newitem)) + sizeof(ItemIdData)) : 0;
	delstate.ndeltids = 0;
	delstate.deltids = palloc(BLINK_MAX_TIDS_PER_PAGE * sizeof(TM_IndexDelete));
	delstate.status = palloc(BLINK_MAX_TIDS_PER_PAGE * sizeof(TM_IndexStatus));

	if (bottomup)
	{
		newkey = _blink_mkscankey(rel, newitem);
		newkey->heaptid = NULL;
	}
	else
	{
		for (OffsetNumber off = first; off <= maxoff; off++)
		{
			ItemId		iid = PageGetItemId(page, off);
			IndexTuple	itup = (IndexTuple) PageGetItem(page, iid);

			if (ItemIdIsDead(iid))
			{
				for (int k = 0; k < BlinkItemNTids(itup); k++)
					deadblocks[ndeadblocks++] =
						ItemPointerGetBlockNumber(BlinkItemTid(itup, k));
			}
		}
		qsort(deadblocks, ndeadblocks, sizeof(BlockNumber), _blink_cmp_block);
	}

	/*
	 * One candidate per heap TID; the entries of a posting tuple share its
	 * offset.  (A bottom-up pass must not offer entries known to be
	 * deletable.)
	 */
	for (OffsetNumber off = first; off <= maxoff; off++)
	{
		ItemId		iid = PageGetItemId(page, off);
		IndexTuple	itup = (IndexTuple) PageGetItem(page, iid);
		int			ntids = BlinkItemNTids(itup);
		bool		promising = bottomup && !ItemIdIsDead(iid) &&
			_blink_compare_key_tuple(rel, newkey, itup) == 0;

		if (bottomup && ItemIdIsDead(iid))
			continue;
		for (int k = 0; k < ntids; k++)
		{
			ItemPointer tid = BlinkItemTid(itup, k);
			BlockNumber hblk = ItemPointerGetBlockNumber(tid);
			TM_IndexDelete *d = &delstate.deltids[delstate.ndeltids];
			TM_IndexStatus *st = &delstate.status[delstate.ndeltids];

			if (!bottomup && !ItemIdIsDead(iid) &&
				!bsearch(&hblk, deadblocks, ndeadblocks, sizeof(BlockNumber),
						 _blink_cmp_block))
				continue;
			d->tid = *tid;
			d->id = delstate.ndeltids;
			st->idxoffnum = off;
			st->knowndeletable = !bottomup && ItemIdIsDead(iid);
			st->promising = promising;
			st->freespace = ntids == 1 ?
				ItemIdGetLength(iid) + sizeof(ItemIdData) : sizeof(ItemPointerData);
			delstate.ndeltids++;
		}
	}

	if (delstate.ndeltids > 0)
	{
		latestRemovedXid = table_index_delete_tuples(heapRel, &delstate);
		_blink_delete_entries(rel, buf, &delstate, latestRemovedXid);
	}

	if (newkey)
		pfree(newkey);
	pfree(delstate.deltids);
	pfree(delstate.status);
}

/*
 * newitem does not fit on the leaf in buf (exclusively locked, kept so):
 * before the caller splits it, remove the entries marked dead, and if that
 * is not enough and bottomup is set (the executor's hint that this insert
 * is a new version of a row whose indexed columns did not change), let the
 * table find dead entries among all of them.  Returns true if newitem fits
 * now.
 *
 * The caller's uniqueness check, if any, stays true: only entries of rows
 * dead to everyone go, and the check never counts those.
 */
bool
_blink_delete_before_split(Relation rel, Buffer buf, IndexTuple newitem,
						   bool bottomup)
{
	Page		page = BufferGetPage(buf);
	Size		itemsz = IndexTupleSize(newitem);
	Relation	heapRel = NULL;
	bool		fits = false;

	if (!(BlinkPageGetOpaque(page)->blink_flags & BLINK_HAS_GARBAGE) && !bottomup)
		return false;

	/* The table is locked by the statement inserting into its index. */
	heapRel = table_open(rel->rd_index->indrelid, NoLock);
	if (BlinkPageGetOpaque(page)->blink_flags & BLINK_HAS_GARBAGE)
	{
		_blink_delete_pass(rel, heapRel, buf, newitem, false);
		fits = _blink_fits(page, itemsz);
	}
	if (!fits && bottomup)
	{
		_blink_delete_pass(rel, heapRel, buf, newitem, true);
		fits = _blink_fits(page, itemsz);
	}
	table_close(heapRel, NoLock);
	return fits;
}
