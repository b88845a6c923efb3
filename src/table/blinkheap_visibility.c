/*-------------------------------------------------------------------------
 *
 * blinkheap_visibility.c
 *	  Tuple visibility for blinkheap: PostgreSQL's rules, without hint bits.
 *
 * The rules are PostgreSQL's own (see heapam_visibility.c for the
 * reasoning behind each one); the tuples are in HeapTupleHeader format, so
 * the same infomask bits, combo command ids and MultiXacts apply.  What is
 * different is one thing only:
 *
 *	  THESE FUNCTIONS NEVER SET HINT BITS.
 *
 * PostgreSQL's functions remember a transaction's fate by setting
 * HEAP_XMIN_COMMITTED, HEAP_XMAX_INVALID and friends on the shared buffer
 * and calling MarkBufferDirtyHint, which writes no WAL.  blinkheap pages
 * are WAL-logged with generic WAL, whose consistency check does not mask
 * hint bits: a bit set that way on a primary ends up in the page image of
 * the next generic record for the page, while the standby's copy (replayed
 * from the deltas) lacks it, and wal_consistency_checking = 'generic'
 * fails.  So the status of xmin and xmax is looked up every time
 * (TransactionIdIsCurrentTransactionId, TransactionIdIsInProgress,
 * XidInMVCCSnapshot, TransactionIdDidCommit, MultiXactIdIsRunning), and
 * hint bits already on a tuple are only read.
 *
 * The rule for writers: a hint bit may be set only on the page copy that
 * blinkam_xlog_register returned, inside a record that the code writes
 * anyway.  VACUUM does so for every tuple it keeps, and every insert,
 * COPY page and update stamps the newest tuples of its page whose
 * inserter has finished (_bh_stamp_xmins).  A tuple not stamped yet costs
 * a clog lookup per check; MVCC checks of recent xids are decided by
 * commit sequence numbers instead (blinkheap_csn.c).
 *
 * The order of the checks matters exactly as in PostgreSQL: "in progress"
 * (or "in my snapshot") is asked before "did it commit", because a
 * transaction leaves the proc array after it writes its commit record.
 *
 * HEAP_MOVED_IN/OFF (pre-9.0 VACUUM FULL) can never be set on a blinkheap
 * tuple; these functions ignore the bits and blinkheap_check reports them.
 *
 * src/table/blinkheap_visibility.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/multixact.h"
#include "access/subtrans.h"
#include "access/transam.h"
#include "access/xact.h"
#include "storage/predicate.h"
#include "storage/procarray.h"
#include "utils/snapmgr.h"

#include "common/gxlog.h"
#include "table/blinkheap.h"

/*
 * Visibility of a tuple inserted by the current transaction, as far as its
 * xmax goes: true if the tuple is not (yet) deleted by us.  With
 * check_cid, deletions by commands at or after curcid do not count
 * (MVCC); without, any deletion by us does (Self, Dirty).
 */
static bool
_bh_own_tuple_not_deleted(HeapTupleHeader tup, bool check_cid,
						  CommandId curcid)
{
	TransactionId xmax;

	if (tup->t_infomask & HEAP_XMAX_INVALID)
		return true;
	if (HEAP_XMAX_IS_LOCKED_ONLY(tup->t_infomask))
		return true;

	if (tup->t_infomask & HEAP_XMAX_IS_MULTI)
	{
		xmax = HeapTupleGetUpdateXid(tup);
		Assert(TransactionIdIsValid(xmax));
	}
	else
		xmax = HeapTupleHeaderGetRawXmax(tup);

	/* a deleting subtransaction of ours that aborted */
	if (!TransactionIdIsCurrentTransactionId(xmax))
		return true;

	if (check_cid)
		return HeapTupleHeaderGetCmax(tup) >= curcid;
	return false;
}

/*
 * Hint bits in a record written anyway (see the rule above): on page, the
 * page of state's record that puts a new tuple on it, mark the xmin of the
 * newest tuples whose inserter has finished -- HEAP_XMIN_COMMITTED, or
 * HEAP_XMIN_INVALID for an abort -- so that later checks skip clog.
 *
 * From the last line pointer down, at most BH_STAMP_MAX unstamped tuples,
 * stopping at the first tuple already stamped: older tuples were stamped
 * by earlier records (or by VACUUM), so each record only catches up with
 * the few tuples committed since the last one.  An xmin is finished when
 * it precedes RecentXmin (our snapshot's xmin: nothing below it was
 * running); a newer one may still run and is left for a later record.
 *
 * Why no lost commit can leave a stamp behind: this record follows the
 * inserter's commit record in WAL, and the page is not written out before
 * this record is flushed, so an asynchronous commit that a crash loses
 * takes the stamp with it (heap's SetHintBits checks XLogNeedsFlush for
 * the same reason; here WAL order does it).  The stamp is in the record,
 * so standbys get the same bytes.
 */
#define BH_STAMP_MAX 8

void
_bh_stamp_xmins(BlinkamXLogState *state, Page page)
{
	int			examined = 0;

	for (OffsetNumber off = PageGetMaxOffsetNumber(page);
		 off >= FirstOffsetNumber && examined < BH_STAMP_MAX; off--)
	{
		ItemId		lp = PageGetItemId(page, off);
		HeapTupleHeader tup;
		TransactionId xmin;

		if (!ItemIdIsNormal(lp))
			continue;
		tup = (HeapTupleHeader) PageGetItem(page, lp);
		if (tup->t_infomask & (HEAP_XMIN_COMMITTED | HEAP_XMIN_INVALID))
			break;
		examined++;
		xmin = HeapTupleHeaderGetRawXmin(tup);
		if (!TransactionIdIsNormal(xmin) ||
			!TransactionIdPrecedes(xmin, RecentXmin))
			continue;
		/* a page changed in place keeps what it was (gxlog.c) */
		blinkam_xlog_touch(state, page, &tup->t_infomask,
						   sizeof(tup->t_infomask));
		/* the CSN map first: no clog lock under this page's lock */
		if (_bh_csn_known_committed(xmin) || TransactionIdDidCommit(xmin))
			tup->t_infomask |= HEAP_XMIN_COMMITTED;
		else
			tup->t_infomask |= HEAP_XMIN_INVALID;
	}
}

/*
 * MVCC snapshots.
 */
static bool
_bh_satisfies_mvcc(HeapTuple htup, Snapshot snapshot)
{
	HeapTupleHeader tup = htup->t_data;
	TransactionId xmin = HeapTupleHeaderGetRawXmin(tup);
	TransactionId xmax;

	if (!HeapTupleHeaderXminCommitted(tup))
	{
		if (HeapTupleHeaderXminInvalid(tup))
			return false;
		if (TransactionIdIsCurrentTransactionId(xmin))
		{
			if (HeapTupleHeaderGetCmin(tup) >= snapshot->curcid)
				return false;	/* inserted after the scan started */
			return _bh_own_tuple_not_deleted(tup, true, snapshot->curcid);
		}
		/* running at our snapshot, aborted or crashed: invisible */
		if (!_bh_xid_visible_committed(xmin, snapshot, false))
			return false;
	}
	else if (!HeapTupleHeaderXminFrozen(tup) &&
			 !_bh_xid_visible_committed(xmin, snapshot, true))
		return false;			/* committed, but after our snapshot */

	/* The inserter committed and is visible; now the deleter. */
	if (tup->t_infomask & HEAP_XMAX_INVALID)
		return true;
	if (HEAP_XMAX_IS_LOCKED_ONLY(tup->t_infomask))
		return true;

	if (tup->t_infomask & HEAP_XMAX_IS_MULTI)
	{
		xmax = HeapTupleGetUpdateXid(tup);
		Assert(TransactionIdIsValid(xmax));
		if (TransactionIdIsCurrentTransactionId(xmax))
			return HeapTupleHeaderGetCmax(tup) >= snapshot->curcid;
		return !_bh_xid_visible_committed(xmax, snapshot, false);
	}

	xmax = HeapTupleHeaderGetRawXmax(tup);
	if (!(tup->t_infomask & HEAP_XMAX_COMMITTED))
	{
		if (TransactionIdIsCurrentTransactionId(xmax))
			return HeapTupleHeaderGetCmax(tup) >= snapshot->curcid;
		return !_bh_xid_visible_committed(xmax, snapshot, false);
	}

	/* xmax committed (hint bit): visible only if after our snapshot */
	return !_bh_xid_visible_committed(xmax, snapshot, true);
}

/*
 * SnapshotSelf and SnapshotDirty.  They differ only in what they say about
 * other transactions still in progress.  Both treat a running deleter's
 * tuple as still there; Self hides a running inserter's tuple, Dirty shows
 * it.  Dirty also reports the running xids (and a speculative insertion
 * token) through the snapshot's xmin, xmax and speculativeToken.
 */
static bool
_bh_satisfies_self_dirty(HeapTuple htup, Snapshot snapshot, bool dirty)
{
	HeapTupleHeader tup = htup->t_data;
	TransactionId xmin = HeapTupleHeaderGetRawXmin(tup);
	TransactionId xmax;

	if (dirty)
	{
		snapshot->xmin = snapshot->xmax = InvalidTransactionId;
		snapshot->speculativeToken = 0;
	}

	if (!HeapTupleHeaderXminCommitted(tup))
	{
		if (HeapTupleHeaderXminInvalid(tup))
			return false;
		if (TransactionIdIsCurrentTransactionId(xmin))
			return _bh_own_tuple_not_deleted(tup, false, InvalidCommandId);
		if (TransactionIdIsInProgress(xmin))
		{
			if (!dirty)
				return false;
			if (HeapTupleHeaderIsSpeculative(tup))
			{
				snapshot->speculativeToken =
					HeapTupleHeaderGetSpeculativeToken(tup);
				Assert(snapshot->speculativeToken != 0);
			}
			snapshot->xmin = xmin;
			return true;		/* being inserted by someone else */
		}
		if (!TransactionIdDidCommit(xmin))
			return false;
	}

	if (tup->t_infomask & HEAP_XMAX_INVALID)
		return true;

	if (tup->t_infomask & HEAP_XMAX_COMMITTED)
		return HEAP_XMAX_IS_LOCKED_ONLY(tup->t_infomask);

	if (tup->t_infomask & HEAP_XMAX_IS_MULTI)
	{
		if (HEAP_XMAX_IS_LOCKED_ONLY(tup->t_infomask))
			return true;
		xmax = HeapTupleGetUpdateXid(tup);
		Assert(TransactionIdIsValid(xmax));
		if (TransactionIdIsCurrentTransactionId(xmax))
			return false;
		if (TransactionIdIsInProgress(xmax))
		{
			if (dirty)
				snapshot->xmax = xmax;
			return true;
		}
		return !TransactionIdDidCommit(xmax);
	}

	xmax = HeapTupleHeaderGetRawXmax(tup);
	if (TransactionIdIsCurrentTransactionId(xmax))
		return HEAP_XMAX_IS_LOCKED_ONLY(tup->t_infomask);
	if (TransactionIdIsInProgress(xmax))
	{
		if (dirty && !HEAP_XMAX_IS_LOCKED_ONLY(tup->t_infomask))
			snapshot->xmax = xmax;
		return true;
	}
	if (!TransactionIdDidCommit(xmax))
		return true;			/* the deleter aborted */
	return HEAP_XMAX_IS_LOCKED_ONLY(tup->t_infomask);
}

/*
 * SnapshotToast: the toast rule.  TOAST values are only ever reached
 * through a tuple that was already found visible, so only inserts known
 * to be dead (an aborted-insert hint, a killed speculative insertion) are
 * hidden.  blinkheap tables are never toast tables themselves (their toast
 * table is an ordinary heap table), so this exists for completeness.
 */
static bool
_bh_satisfies_toast(HeapTuple htup)
{
	HeapTupleHeader tup = htup->t_data;

	if (HeapTupleHeaderXminCommitted(tup))
		return true;
	if (HeapTupleHeaderXminInvalid(tup))
		return false;
	if (!TransactionIdIsValid(HeapTupleHeaderGetRawXmin(tup)))
		return false;
	return true;
}

/*
 * The tuple's state with respect to every transaction: what VACUUM would
 * do with it.  RECENTLY_DEAD comes with *dead_after, the xid after which
 * it is dead to everyone; the caller compares it with its horizon.
 */
HTSV_Result
_bh_satisfies_vacuum_horizon(HeapTuple htup, TransactionId *dead_after)
{
	HeapTupleHeader tup = htup->t_data;
	TransactionId xmin = HeapTupleHeaderGetRawXmin(tup);
	TransactionId xmax;

	*dead_after = InvalidTransactionId;

	if (!HeapTupleHeaderXminCommitted(tup))
	{
		if (HeapTupleHeaderXminInvalid(tup))
			return HEAPTUPLE_DEAD;
		if (TransactionIdIsCurrentTransactionId(xmin))
		{
			if (tup->t_infomask & HEAP_XMAX_INVALID)
				return HEAPTUPLE_INSERT_IN_PROGRESS;
			if (HEAP_XMAX_IS_LOCKED_ONLY(tup->t_infomask) ||
				HeapTupleHeaderIsOnlyLocked(tup))
				return HEAPTUPLE_INSERT_IN_PROGRESS;
			if (TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetUpdateXid(tup)))
				return HEAPTUPLE_DELETE_IN_PROGRESS;
			return HEAPTUPLE_INSERT_IN_PROGRESS;
		}
		if (TransactionIdIsInProgress(xmin))
			return HEAPTUPLE_INSERT_IN_PROGRESS;
		if (!TransactionIdDidCommit(xmin))
			return HEAPTUPLE_DEAD;
	}

	if (tup->t_infomask & HEAP_XMAX_INVALID)
		return HEAPTUPLE_LIVE;

	if (HEAP_XMAX_IS_LOCKED_ONLY(tup->t_infomask))
	{
		/* a locker, running or not, never makes a tuple dead */
		return HEAPTUPLE_LIVE;
	}

	if (tup->t_infomask & HEAP_XMAX_IS_MULTI)
	{
		xmax = HeapTupleGetUpdateXid(tup);
		Assert(TransactionIdIsValid(xmax));
		if (TransactionIdIsInProgress(xmax))
			return HEAPTUPLE_DELETE_IN_PROGRESS;
		if (TransactionIdDidCommit(xmax))
		{
			*dead_after = xmax;
			return HEAPTUPLE_RECENTLY_DEAD;
		}
		return HEAPTUPLE_LIVE;	/* the updater aborted */
	}

	xmax = HeapTupleHeaderGetRawXmax(tup);
	if (!(tup->t_infomask & HEAP_XMAX_COMMITTED))
	{
		if (TransactionIdIsInProgress(xmax))
			return HEAPTUPLE_DELETE_IN_PROGRESS;
		if (!TransactionIdDidCommit(xmax))
			return HEAPTUPLE_LIVE;	/* the deleter aborted */
	}

	*dead_after = xmax;
	return HEAPTUPLE_RECENTLY_DEAD;
}

/*
 * The same, with RECENTLY_DEAD turned into DEAD when the deleter is older
 * than OldestXmin.
 */
HTSV_Result
_bh_satisfies_vacuum(HeapTuple htup, TransactionId OldestXmin)
{
	TransactionId dead_after;
	HTSV_Result res;

	res = _bh_satisfies_vacuum_horizon(htup, &dead_after);
	if (res == HEAPTUPLE_RECENTLY_DEAD &&
		TransactionIdPrecedes(dead_after, OldestXmin))
		res = HEAPTUPLE_DEAD;
	return res;
}

/*
 * True if the tuple is dead to every snapshot that exists or can exist,
 * by vistest's horizon.
 */
bool
_bh_is_surely_dead(HeapTuple htup, GlobalVisState *vistest)
{
	TransactionId dead_after;
	HTSV_Result res;

	res = _bh_satisfies_vacuum_horizon(htup, &dead_after);
	if (res == HEAPTUPLE_DEAD)
		return true;
	if (res == HEAPTUPLE_RECENTLY_DEAD)
		return GlobalVisTestIsRemovableXid(vistest, dead_after);
	return false;
}

/*
 * _bh_satisfies_update: may the current transaction (command curcid)
 * update, delete or lock this tuple, and if not, why not?  The TM_Result
 * logic of HeapTupleSatisfiesUpdate: TM_Ok, TM_Invisible,
 * TM_SelfModified, TM_Updated, TM_Deleted or TM_BeingModified (someone,
 * possibly a subtransaction or a locker of ours, holds xmax and is still
 * running: the caller decides whether to wait).
 *
 * The caller holds an exclusive lock on the tuple's buffer.
 */
TM_Result
_bh_satisfies_update(HeapTuple htup, CommandId curcid)
{
	HeapTupleHeader tup = htup->t_data;
	TransactionId xmin = HeapTupleHeaderGetRawXmin(tup);
	TransactionId xmax = HeapTupleHeaderGetRawXmax(tup);
	TransactionId upd;

	if (!HeapTupleHeaderXminCommitted(tup))
	{
		if (HeapTupleHeaderXminInvalid(tup))
			return TM_Invisible;
		if (TransactionIdIsCurrentTransactionId(xmin))
		{
			if (HeapTupleHeaderGetCmin(tup) >= curcid)
				return TM_Invisible;	/* inserted after the scan started */
			if (tup->t_infomask & HEAP_XMAX_INVALID)
				return TM_Ok;
			if (HEAP_XMAX_IS_LOCKED_ONLY(tup->t_infomask))
			{
				/*
				 * Our own tuple may still carry other transactions' locks:
				 * key-share lockers of the version we updated move along.
				 */
				if (tup->t_infomask & HEAP_XMAX_IS_MULTI)
					return MultiXactIdIsRunning(xmax, true) ?
						TM_BeingModified : TM_Ok;
				return TransactionIdIsInProgress(xmax) ?
					TM_BeingModified : TM_Ok;
			}
			if (tup->t_infomask & HEAP_XMAX_IS_MULTI)
			{
				upd = HeapTupleGetUpdateXid(tup);
				Assert(TransactionIdIsValid(upd));
				if (!TransactionIdIsCurrentTransactionId(upd))
				{
					/* the updating subtransaction aborted */
					return MultiXactIdIsRunning(xmax, false) ?
						TM_BeingModified : TM_Ok;
				}
				return HeapTupleHeaderGetCmax(tup) >= curcid ?
					TM_SelfModified : TM_Invisible;
			}
			if (!TransactionIdIsCurrentTransactionId(xmax))
				return TM_Ok;	/* the deleting subtransaction aborted */
			return HeapTupleHeaderGetCmax(tup) >= curcid ?
				TM_SelfModified : TM_Invisible;
		}
		if (TransactionIdIsInProgress(xmin))
			return TM_Invisible;
		if (!TransactionIdDidCommit(xmin))
			return TM_Invisible;	/* aborted or crashed */
	}

	/* The inserter committed. */
	if (tup->t_infomask & HEAP_XMAX_INVALID)
		return TM_Ok;

	if (tup->t_infomask & HEAP_XMAX_COMMITTED)
	{
		if (HEAP_XMAX_IS_LOCKED_ONLY(tup->t_infomask))
			return TM_Ok;
		return ItemPointerEquals(&htup->t_self, &tup->t_ctid) ?
			TM_Deleted : TM_Updated;
	}

	if (tup->t_infomask & HEAP_XMAX_IS_MULTI)
	{
		if (HEAP_LOCKED_UPGRADED(tup->t_infomask))
			return TM_Ok;
		if (HEAP_XMAX_IS_LOCKED_ONLY(tup->t_infomask))
			return MultiXactIdIsRunning(xmax, true) ? TM_BeingModified : TM_Ok;

		upd = HeapTupleGetUpdateXid(tup);
		if (!TransactionIdIsValid(upd))
		{
			if (MultiXactIdIsRunning(xmax, false))
				return TM_BeingModified;
		}
		Assert(TransactionIdIsValid(upd));

		if (TransactionIdIsCurrentTransactionId(upd))
			return HeapTupleHeaderGetCmax(tup) >= curcid ?
				TM_SelfModified : TM_Invisible;
		if (MultiXactIdIsRunning(xmax, false))
			return TM_BeingModified;
		if (TransactionIdDidCommit(upd))
			return ItemPointerEquals(&htup->t_self, &tup->t_ctid) ?
				TM_Deleted : TM_Updated;
		/* the updater aborted; lockers may still be running */
		return MultiXactIdIsRunning(xmax, false) ? TM_BeingModified : TM_Ok;
	}

	if (TransactionIdIsCurrentTransactionId(xmax))
	{
		if (HEAP_XMAX_IS_LOCKED_ONLY(tup->t_infomask))
			return TM_BeingModified;
		return HeapTupleHeaderGetCmax(tup) >= curcid ?
			TM_SelfModified : TM_Invisible;
	}
	if (TransactionIdIsInProgress(xmax))
		return TM_BeingModified;
	if (!TransactionIdDidCommit(xmax))
		return TM_Ok;			/* aborted or crashed */
	if (HEAP_XMAX_IS_LOCKED_ONLY(tup->t_infomask))
		return TM_Ok;
	return ItemPointerEquals(&htup->t_self, &tup->t_ctid) ?
		TM_Deleted : TM_Updated;
}

/*
 * _bh_satisfies: is the tuple visible to the snapshot?
 *
 * The caller holds at least a share lock on the tuple's buffer (the xmax
 * fields must not change under us).  Never sets hint bits.
 */
bool
_bh_satisfies(HeapTuple tuple, Snapshot snapshot, Buffer buffer)
{
	_bh_csn_forget();
	return _bh_satisfies_in_page(tuple, snapshot, buffer);
}

/*
 * The same, for the tuples of one page after one _bh_csn_forget (the
 * snapshot is compared with the CSN view once for the page, see
 * blinkheap_csn.c, "Reuse").
 */
bool
_bh_satisfies_in_page(HeapTuple tuple, Snapshot snapshot, Buffer buffer)
{
	TransactionId dead_after;

	switch (snapshot->snapshot_type)
	{
		case SNAPSHOT_MVCC:
			return _bh_satisfies_mvcc(tuple, snapshot);
		case SNAPSHOT_SELF:
			return _bh_satisfies_self_dirty(tuple, snapshot, false);
		case SNAPSHOT_ANY:
			return true;
		case SNAPSHOT_TOAST:
			return _bh_satisfies_toast(tuple);
		case SNAPSHOT_DIRTY:
			return _bh_satisfies_self_dirty(tuple, snapshot, true);
		case SNAPSHOT_HISTORIC_MVCC:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("blinkheap does not support historic MVCC snapshots (logical decoding of catalog tables)")));
			break;
		case SNAPSHOT_NON_VACUUMABLE:
			switch (_bh_satisfies_vacuum_horizon(tuple, &dead_after))
			{
				case HEAPTUPLE_DEAD:
					return false;
				case HEAPTUPLE_RECENTLY_DEAD:
					return !GlobalVisTestIsRemovableXid(snapshot->vistest,
														dead_after);
				default:
					return true;
			}
	}
	elog(ERROR, "unknown snapshot type %d", (int) snapshot->snapshot_type);
	return false;				/* keep compiler quiet */
}

/*
 * SERIALIZABLE: having read (or skipped) a tuple, tell the predicate lock
 * manager about a conflict with the transaction that wrote or deleted it.
 * The same decision table as heap's, on our own vacuum classification.
 * The caller holds at least a share lock on the tuple's buffer.
 */
void
_bh_serializable_conflict_out(bool visible, Relation rel, HeapTuple tuple,
							  Buffer buffer, Snapshot snapshot)
{
	TransactionId xid;

	if (!CheckForSerializableConflictOutNeeded(rel, snapshot))
		return;

	switch (_bh_satisfies_vacuum(tuple, TransactionXmin))
	{
		case HEAPTUPLE_LIVE:
			if (visible)
				return;
			xid = HeapTupleHeaderGetXmin(tuple->t_data);
			break;
		case HEAPTUPLE_RECENTLY_DEAD:
		case HEAPTUPLE_DELETE_IN_PROGRESS:
			if (visible)
				xid = HeapTupleHeaderGetUpdateXid(tuple->t_data);
			else
				xid = HeapTupleHeaderGetXmin(tuple->t_data);
			if (TransactionIdPrecedes(xid, TransactionXmin))
				return;
			break;
		case HEAPTUPLE_INSERT_IN_PROGRESS:
			xid = HeapTupleHeaderGetXmin(tuple->t_data);
			break;
		case HEAPTUPLE_DEAD:
		default:
			return;
	}

	if (!TransactionIdIsValid(xid) ||
		TransactionIdEquals(xid, GetTopTransactionIdIfAny()))
		return;
	xid = SubTransGetTopmostTransaction(xid);
	if (TransactionIdPrecedes(xid, TransactionXmin))
		return;
	CheckForSerializableConflictOut(rel, xid, snapshot);
}
