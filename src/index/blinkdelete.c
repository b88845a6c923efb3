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

#include "access/generic_xlog.h"
#include "access/nbtxlog.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/transam.h"
#include "access/xlog.h"
#include "access/xloginsert.h"
#include "utils/rel.h"

#include "common/counters.h"
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
 * the leaf in buf, exclusively locked, with one generic WAL record.  Items
 * move, so the page's version changes; the sorted part shrinks by the
 * items removed from it.  VACUUM and the deletion before a split both
 * come here.
 */
void
_blink_leaf_delete(Relation rel, Buffer buf, OffsetNumber *deletable, int n)
{
	Page		page = BufferGetPage(buf);
	BlinkPageOpaque opaque = BlinkPageGetOpaque(page);
	OffsetNumber sortedEnd = BlinkPageFirstDataKey(opaque) + opaque->blink_nsorted;
	GenericXLogState *state;
	Page		p;
	BlinkPageOpaque po;
	int			nsorted_deleted = 0;

	Assert(BlinkPageIsLeaf(opaque) && n > 0);
	for (int i = 0; i < n; i++)
	{
		Assert(i == 0 || deletable[i - 1] < deletable[i]);
		if (deletable[i] < sortedEnd)
			nsorted_deleted++;
	}

	state = GenericXLogStart(rel);
	p = GenericXLogRegisterBuffer(state, buf, 0);
	po = BlinkPageGetOpaque(p);
	PageIndexMultiDelete(p, deletable, n);
	po->blink_nsorted -= nsorted_deleted;
	if ((po->blink_flags & BLINK_HAS_GARBAGE) && !_blink_page_has_dead(p))
		po->blink_flags &= ~BLINK_HAS_GARBAGE;
	_blink_page_changed(p);
	GenericXLogFinish(state);
}

/*
 * Mark the items at offs[0..n-1] of the leaf in buf (exclusively locked,
 * kept so) dead and flag the page, in one generic WAL record.
 */
void
_blink_mark_dead_locked(Relation rel, Buffer buf, const OffsetNumber *offs, int n)
{
	GenericXLogState *state = GenericXLogStart(rel);
	Page		p = GenericXLogRegisterBuffer(state, buf, 0);

	for (int i = 0; i < n; i++)
		ItemIdMarkDead(PageGetItemId(p, offs[i]));
	BlinkPageGetOpaque(p)->blink_flags |= BLINK_HAS_GARBAGE;
	GenericXLogFinish(state);
	blinkam_count(BLINKAM_COUNTER_ENTRIES_MARKED_DEAD, n);
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
 * nothing is marked.  The marks are logged: a standby replays them (its
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

		for (int i = 0; i < n && nmark < MaxIndexTuplesPerPage; i++)
		{
			ItemId		iid;

			if (offs[i] < first || offs[i] > maxoff)
				continue;
			iid = PageGetItemId(page, offs[i]);
			if (!ItemIdIsNormal(iid) ||
				!ItemPointerEquals(&((IndexTuple) PageGetItem(page, iid))->t_tid,
								   (ItemPointer) &tids[i]))
				continue;
			mark[nmark++] = offs[i];
		}
	}

	if (nmark > 0)
		_blink_mark_dead_locked(rel, buf, mark, nmark);

	_blink_unlock(rel, buf);
	if (!BufferIsValid(pinned))
		ReleaseBuffer(buf);
}

/*
 * Cancel the standby queries that could still see a row whose entry we
 * are about to remove.  Generic WAL has no way to say it, so the record
 * is nbtree's own conflict-only record, XLOG_BTREE_REUSE_PAGE: its redo
 * changes no page, it only resolves recovery conflicts with snapshots
 * that could see latestRemovedXid, in the index's database -- exactly
 * what nbtree's deletion record does before it removes entries.  Written
 * before the deletion's record, so a standby cancels them first.
 */
static void
_blink_log_conflict(Relation rel, BlockNumber blkno, TransactionId latestRemovedXid)
{
	xl_btree_reuse_page xlrec;
	FullTransactionId next = ReadNextFullTransactionId();
	uint32		epoch = EpochFromFullTransactionId(next);

	/* latestRemovedXid is older than the next xid, at most 2^31 behind */
	if (latestRemovedXid > XidFromFullTransactionId(next))
		epoch--;
	xlrec.node = rel->rd_node;
	xlrec.block = blkno;
	xlrec.latestRemovedFullXid = FullTransactionIdFromEpochAndXid(epoch, latestRemovedXid);

	XLogBeginInsert();
	XLogRegisterData((char *) &xlrec, SizeOfBtreeReusePage);
	XLogInsert(RM_BTREE_ID, XLOG_BTREE_REUSE_PAGE);
}

/* qsort comparator for block numbers and offsets */
static int
_blink_cmp_block(const void *a, const void *b)
{
	BlockNumber x = *(const BlockNumber *) a;
	BlockNumber y = *(const BlockNumber *) b;

	return x < y ? -1 : x > y;
}

static int
_blink_cmp_offset(const void *a, const void *b)
{
	return (int) *(const OffsetNumber *) a - (int) *(const OffsetNumber *) b;
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
	BlockNumber deadblocks[MaxIndexTuplesPerPage];
	OffsetNumber deletable[MaxIndexTuplesPerPage];
	int			ndeadblocks = 0;
	int			ndeletable = 0;
	BlinkScanInsert newkey = NULL;
	TransactionId latestRemovedXid = InvalidTransactionId;

	delstate.irel = rel;
	delstate.iblknum = BufferGetBlockNumber(buf);
	delstate.bottomup = bottomup;
	delstate.bottomupfreespace = bottomup ?
		Max(BLCKSZ / 16, MAXALIGN(IndexTupleSize(newitem)) + sizeof(ItemIdData)) : 0;
	delstate.ndeltids = 0;
	delstate.deltids = palloc(MaxIndexTuplesPerPage * sizeof(TM_IndexDelete));
	delstate.status = palloc(MaxIndexTuplesPerPage * sizeof(TM_IndexStatus));

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

			if (ItemIdIsDead(iid))
				deadblocks[ndeadblocks++] =
					ItemPointerGetBlockNumber(&((IndexTuple) PageGetItem(page, iid))->t_tid);
		}
		qsort(deadblocks, ndeadblocks, sizeof(BlockNumber), _blink_cmp_block);
	}

	for (OffsetNumber off = first; off <= maxoff; off++)
	{
		ItemId		iid = PageGetItemId(page, off);
		IndexTuple	itup = (IndexTuple) PageGetItem(page, iid);
		BlockNumber hblk = ItemPointerGetBlockNumber(&itup->t_tid);
		TM_IndexDelete *d = &delstate.deltids[delstate.ndeltids];
		TM_IndexStatus *st = &delstate.status[delstate.ndeltids];

		/* (a bottom-up pass must not offer entries known to be deletable) */
		if (bottomup ? ItemIdIsDead(iid) :
			(!ItemIdIsDead(iid) &&
			 !bsearch(&hblk, deadblocks, ndeadblocks, sizeof(BlockNumber),
					  _blink_cmp_block)))
			continue;
		d->tid = itup->t_tid;
		d->id = delstate.ndeltids;
		st->idxoffnum = off;
		st->knowndeletable = !bottomup && ItemIdIsDead(iid);
		st->promising = bottomup &&
			_blink_compare_key_tuple(rel, newkey, itup) == 0;
		st->freespace = ItemIdGetLength(iid) + sizeof(ItemIdData);
		delstate.ndeltids++;
	}

	if (delstate.ndeltids > 0)
	{
		latestRemovedXid = table_index_delete_tuples(heapRel, &delstate);
		for (int i = 0; i < delstate.ndeltids; i++)
		{
			TM_IndexStatus *st = &delstate.status[delstate.deltids[i].id];

			if (st->knowndeletable)
				deletable[ndeletable++] = st->idxoffnum;
		}
	}

	if (ndeletable > 0)
	{
		qsort(deletable, ndeletable, sizeof(OffsetNumber), _blink_cmp_offset);
		if (RelationNeedsWAL(rel) && XLogStandbyInfoActive() &&
			TransactionIdIsValid(latestRemovedXid))
			_blink_log_conflict(rel, BufferGetBlockNumber(buf), latestRemovedXid);
		_blink_leaf_delete(rel, buf, deletable, ndeletable);
		blinkam_count(BLINKAM_COUNTER_ENTRIES_DELETED, ndeletable);
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
