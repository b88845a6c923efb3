/*-------------------------------------------------------------------------
 *
 * blinkheap_fetch.c
 *	  Fetching single tuples of a blinkheap table by TID: index fetches,
 *	  row versions, update chains, snapshot checks, index deletion.
 *
 * There are no HOT chains: every tuple version has its own index entries,
 * so an index fetch looks at exactly one tuple (*call_again is always
 * false) and *all_dead means that one tuple is dead to every snapshot.
 * Line pointers are never freed by DML, so a TID an index holds always
 * leads to the tuple it was made for.
 *
 * src/table/blinkheap_fetch.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam_xlog.h"
#include "access/xact.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "utils/snapmgr.h"

#include "common/settings.h"
#include "table/blinkheap.h"

/*
 * _bh_fetch: read the tuple at tuple->t_self and test it against snapshot.
 *
 * Visible: returns true, *userbuf holds a pin (no lock) and tuple->t_data
 * points into it.  Not visible: returns false; with keep_buf the pin is
 * kept and t_data set (so the caller can look at the tuple), otherwise
 * nothing is held and t_data is NULL.  A TID that names no tuple returns
 * false with t_data NULL and no pin, whatever keep_buf says.
 *
 * With a slot, a visible tuple is stored in it instead, under the lock
 * (_bh_store_tuple: by pin, or a copy during recovery), and nothing else
 * is held: *userbuf is InvalidBuffer and tuple->t_data must not be used.
 */
bool
_bh_fetch(Relation rel, Snapshot snapshot, HeapTuple tuple, Buffer *userbuf,
		  bool keep_buf, TupleTableSlot *slot)
{
	ItemPointerData tid = tuple->t_self;
	Buffer		buf;
	bool		valid;

	*userbuf = InvalidBuffer;
	if (ItemPointerGetBlockNumber(&tid) >= RelationGetNumberOfBlocks(rel))
	{
		tuple->t_data = NULL;
		return false;
	}
	buf = ReadBuffer(rel, ItemPointerGetBlockNumber(&tid));
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	_bh_check_page(rel, buf);
	TestForOldSnapshot(snapshot, rel, BufferGetPage(buf));
	if (!_bh_get_tuple(rel, buf, ItemPointerGetOffsetNumber(&tid), tuple))
	{
		UnlockReleaseBuffer(buf);
		tuple->t_data = NULL;
		tuple->t_self = tid;
		return false;
	}

	valid = _bh_satisfies(tuple, snapshot, buf);
	if (valid)
		PredicateLockTID(rel, &tuple->t_self, snapshot,
						 HeapTupleHeaderGetXmin(tuple->t_data));
	_bh_serializable_conflict_out(valid, rel, tuple, buf, snapshot);
	if (valid && slot != NULL)
	{
		_bh_store_tuple(slot, tuple, buf);
		UnlockReleaseBuffer(buf);
		blinkam_debug_pause(BLINKAM_PAUSE_HEAP_TUPLE_STORED);
		return true;
	}
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);

	if (valid || keep_buf)
	{
		*userbuf = buf;
		return valid;
	}
	ReleaseBuffer(buf);
	tuple->t_data = NULL;
	return false;
}

IndexFetchTableData *
blinkheap_index_fetch_begin(Relation rel)
{
	BlinkheapIndexFetchData *scan = palloc0(sizeof(BlinkheapIndexFetchData));

	scan->xs_base.rel = rel;
	scan->xs_cbuf = InvalidBuffer;
	return &scan->xs_base;
}

void
blinkheap_index_fetch_reset(IndexFetchTableData *sscan)
{
	BlinkheapIndexFetchData *scan = (BlinkheapIndexFetchData *) sscan;

	if (BufferIsValid(scan->xs_cbuf))
	{
		ReleaseBuffer(scan->xs_cbuf);
		scan->xs_cbuf = InvalidBuffer;
	}
}

void
blinkheap_index_fetch_end(IndexFetchTableData *sscan)
{
	blinkheap_index_fetch_reset(sscan);
	pfree(sscan);
}

/*
 * Fetch the tuple an index entry points to, if the snapshot sees it.
 * The page stays pinned in the fetch state (not locked) while the slot
 * holds the tuple; consecutive fetches from one page reuse the pin.  The
 * slot gets the tuple under the lock: by pin, or during recovery as a copy
 * (_bh_store_tuple).
 */
/*
 * Is line pointer off of the locked page in buf LP_DEAD?  Its row was
 * removed by a VACUUM that left the line pointer for a later index pass
 * (INDEX_CLEANUP off); every index entry pointing at it is dead to
 * everyone, as heap judges such entries.  (An unused line pointer has no
 * entry pointing at it: VACUUM frees one only after every index lost it.)
 */
static bool
_bh_lp_is_dead(Buffer buf, OffsetNumber off)
{
	Page		page = BufferGetPage(buf);

	return !PageIsNew(page) && off >= FirstOffsetNumber &&
		off <= PageGetMaxOffsetNumber(page) &&
		ItemIdIsDead(PageGetItemId(page, off));
}

bool
blinkheap_index_fetch_tuple(IndexFetchTableData *sscan, ItemPointer tid,
							Snapshot snapshot, TupleTableSlot *slot,
							bool *call_again, bool *all_dead)
{
	BlinkheapIndexFetchData *scan = (BlinkheapIndexFetchData *) sscan;
	BufferHeapTupleTableSlot *bslot = (BufferHeapTupleTableSlot *) slot;
	Relation	rel = sscan->rel;
	HeapTuple	tuple = &bslot->base.tupdata;
	BlockNumber blkno = ItemPointerGetBlockNumber(tid);
	bool		valid;

	Assert(TTS_IS_BUFFERTUPLE(slot));
	*call_again = false;		/* no HOT chains */
	if (all_dead)
		*all_dead = false;

	if (!BufferIsValid(scan->xs_cbuf) ||
		BufferGetBlockNumber(scan->xs_cbuf) != blkno)
		scan->xs_cbuf = ReleaseAndReadBuffer(scan->xs_cbuf, rel, blkno);

	LockBuffer(scan->xs_cbuf, BUFFER_LOCK_SHARE);
	_bh_check_page(rel, scan->xs_cbuf);
	if (!_bh_get_tuple(rel, scan->xs_cbuf, ItemPointerGetOffsetNumber(tid),
					   tuple))
	{
		/* a dead line pointer: the index may mark its entry */
		if (all_dead)
			*all_dead = _bh_lp_is_dead(scan->xs_cbuf,
									   ItemPointerGetOffsetNumber(tid));
		LockBuffer(scan->xs_cbuf, BUFFER_LOCK_UNLOCK);
		return false;
	}

	valid = _bh_satisfies(tuple, snapshot, scan->xs_cbuf);
	if (valid)
		PredicateLockTID(rel, tid, snapshot,
						 HeapTupleHeaderGetXmin(tuple->t_data));
	_bh_serializable_conflict_out(valid, rel, tuple, scan->xs_cbuf, snapshot);
	if (!valid)
	{
		if (all_dead)
			*all_dead = _bh_is_surely_dead(tuple, GlobalVisTestFor(rel));
		LockBuffer(scan->xs_cbuf, BUFFER_LOCK_UNLOCK);
		return false;
	}
	_bh_store_tuple(slot, tuple, scan->xs_cbuf);
	LockBuffer(scan->xs_cbuf, BUFFER_LOCK_UNLOCK);
	blinkam_debug_pause(BLINKAM_PAUSE_HEAP_TUPLE_STORED);
	return true;
}

/*
 * The version at tid, if snapshot sees it; the slot then holds a pin on
 * its page (no lock), or a copy during recovery.  Nothing is held when it
 * returns false.
 */
bool
blinkheap_tuple_fetch_row_version(Relation rel, ItemPointer tid,
								  Snapshot snapshot, TupleTableSlot *slot)
{
	BufferHeapTupleTableSlot *bslot = (BufferHeapTupleTableSlot *) slot;
	Buffer		buf;

	Assert(TTS_IS_BUFFERTUPLE(slot));
	bslot->base.tupdata.t_self = *tid;
	return _bh_fetch(rel, snapshot, &bslot->base.tupdata, &buf, false, slot);
}

bool
blinkheap_tuple_tid_valid(TableScanDesc sscan, ItemPointer tid)
{
	BlinkheapScanDesc scan = (BlinkheapScanDesc) sscan;

	return ItemPointerIsValid(tid) &&
		ItemPointerGetBlockNumber(tid) < scan->rs_nblocks;
}

/*
 * Follow the update chain from *tid and return in *tid the newest version
 * the scan's snapshot sees (unchanged if it sees none).  Each step checks
 * that the next version's xmin is the previous version's updater, as
 * heap does, so a chain is never followed into an unrelated tuple.  One
 * page at a time is pinned and share-locked; nothing is held on return.
 */
void
blinkheap_tuple_get_latest_tid(TableScanDesc sscan, ItemPointer tid)
{
	Relation	rel = sscan->rs_rd;
	Snapshot	snapshot = sscan->rs_snapshot;
	ItemPointerData ctid = *tid;
	TransactionId priorXmax = InvalidTransactionId;

	for (;;)
	{
		HeapTupleData tp;
		Buffer		buf;
		bool		valid;

		if (ItemPointerGetBlockNumber(&ctid) >= RelationGetNumberOfBlocks(rel))
			return;
		buf = ReadBuffer(rel, ItemPointerGetBlockNumber(&ctid));
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		_bh_check_page(rel, buf);
		TestForOldSnapshot(snapshot, rel, BufferGetPage(buf));
		if (!_bh_get_tuple(rel, buf, ItemPointerGetOffsetNumber(&ctid), &tp) ||
			(TransactionIdIsValid(priorXmax) &&
			 !TransactionIdEquals(priorXmax, HeapTupleHeaderGetXmin(tp.t_data))))
		{
			UnlockReleaseBuffer(buf);
			return;
		}

		valid = _bh_satisfies(&tp, snapshot, buf);
		_bh_serializable_conflict_out(valid, rel, &tp, buf, snapshot);
		if (valid)
			*tid = ctid;

		if ((tp.t_data->t_infomask & HEAP_XMAX_INVALID) ||
			HeapTupleHeaderIsOnlyLocked(tp.t_data) ||
			HeapTupleHeaderIndicatesMovedPartitions(tp.t_data) ||
			ItemPointerEquals(&tp.t_self, &tp.t_data->t_ctid))
		{
			UnlockReleaseBuffer(buf);
			return;
		}
		ctid = tp.t_data->t_ctid;
		priorXmax = HeapTupleHeaderGetUpdateXid(tp.t_data);
		UnlockReleaseBuffer(buf);
	}
}

/*
 * Is the tuple in the slot visible to snapshot?  The slot holds a pin on
 * the tuple's page; we share-lock it while deciding.  A slot holding a
 * copy (fetched during recovery) is judged by the copy.
 */
bool
blinkheap_tuple_satisfies_snapshot(Relation rel, TupleTableSlot *slot,
								   Snapshot snapshot)
{
	BufferHeapTupleTableSlot *bslot = (BufferHeapTupleTableSlot *) slot;
	bool		res;

	Assert(TTS_IS_BUFFERTUPLE(slot));
	if (!BufferIsValid(bslot->buffer))
		return _bh_satisfies(bslot->base.tuple, snapshot, InvalidBuffer);

	LockBuffer(bslot->buffer, BUFFER_LOCK_SHARE);
	res = _bh_satisfies(bslot->base.tuple, snapshot, bslot->buffer);
	LockBuffer(bslot->buffer, BUFFER_LOCK_UNLOCK);
	return res;
}

/*
 * Which of the index entries the index AM asks about point to tuples
 * dead to everyone?  Entries the index already knows to be deletable
 * (killed after a fetch reported *all_dead) are trusted, as heap does;
 * every other entry is checked.  The newest removed xid is returned for
 * the index's WAL record, and ndeltids is cut after the last deletable
 * entry (zero when none is: callers rely on that).  The table itself is
 * not changed; VACUUM removes the tuples later.  One table page at a time
 * is share-locked; nothing is held on return.  Every TID is visited,
 * also for bottom-up deletion (heap stops early there; we do not yet).
 */
TransactionId
blinkheap_index_delete_tuples(Relation rel, TM_IndexDeleteOp *delstate)
{
	TransactionId latestRemovedXid = InvalidTransactionId;
	GlobalVisState *vistest = GlobalVisTestFor(rel);
	Buffer		buf = InvalidBuffer;
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);
	int			final = 0;
	int			i;

	for (i = 0; i < delstate->ndeltids; i++)
	{
		TM_IndexDelete *d = &delstate->deltids[i];
		TM_IndexStatus *st = &delstate->status[d->id];
		BlockNumber blkno = ItemPointerGetBlockNumber(&d->tid);
		HeapTupleData tp;
		bool		dead = false;

		if (blkno < nblocks)
		{
			if (!BufferIsValid(buf) || BufferGetBlockNumber(buf) != blkno)
			{
				if (BufferIsValid(buf))
					UnlockReleaseBuffer(buf);
				buf = ReadBuffer(rel, blkno);
				LockBuffer(buf, BUFFER_LOCK_SHARE);
				_bh_check_page(rel, buf);
			}
			if (_bh_get_tuple(rel, buf, ItemPointerGetOffsetNumber(&d->tid), &tp))
			{
				dead = st->knowndeletable || _bh_is_surely_dead(&tp, vistest);
				if (dead)
					HeapTupleHeaderAdvanceLatestRemovedXid(tp.t_data,
														   &latestRemovedXid);
			}
			else
			{
				/*
				 * The row is gone, its line pointer left dead; the VACUUM
				 * that removed it logged the conflict for standbys already.
				 */
				dead = _bh_lp_is_dead(buf, ItemPointerGetOffsetNumber(&d->tid));
			}
		}
		st->knowndeletable = dead;
		if (dead)
			final = i + 1;
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
	delstate->ndeltids = final;
	return latestRemovedXid;
}
