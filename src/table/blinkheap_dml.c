/*-------------------------------------------------------------------------
 *
 * blinkheap_dml.c
 *	  Insert, multi-insert (COPY), delete, update and row locking for
 *	  blinkheap tables.
 *
 * The semantics are heap's, written for generic WAL:
 *
 * - Every page change is one generic WAL record, finished before the
 *	 function returns: a TID handed to the executor (and so to index
 *	 inserts) names a tuple that is already on its page in WAL.  Changes
 *	 are made only on the page copies blinkam_xlog_register returns.
 * - An update writes the old version's xmax and t_ctid and the new
 *	 version in ONE record: one page if the new version fits there,
 *	 otherwise both pages (registered, like they are locked, lower block
 *	 number first).  When the new version needs TOAST work or another
 *	 page, the old version is first locked with our xid in its own record
 *	 and its buffer released meanwhile, exactly as heap does, so that
 *	 TOAST inserts and page searches never run under a buffer lock.
 * - No HOT: every update's new version gets new index entries
 *	 (tuple_update always reports update_indexes = true), and t_ctid
 *	 links the versions for EvalPlanQual.
 * - No line pointer is ever freed here; only VACUUM will do that, after
 *	 the indexes have forgotten the TIDs.
 * - A speculative insertion (INSERT ... ON CONFLICT) is an insert whose
 *	 t_ctid holds the executor's speculative token; completing it is one
 *	 more record: the token replaced by the TID, or the tuple killed by
 *	 setting its xmin to InvalidTransactionId.
 * - Waiting for another transaction follows heap's protocol: take the
 *	 heavyweight tuple lock (LockTuple) to queue fairly, then wait on the
 *	 xid (XactLockTableWait) or on every conflicting MultiXact member,
 *	 relock the buffer and start over if xmax changed meanwhile.
 *	 MultiXactIdWait is static in heapam.c, so the member-by-member wait
 *	 is written here.
 * - Several lockers share a tuple through MultiXacts (created or
 *	 expanded in _bh_compute_new_xmax, the counterpart of heap's
 *	 compute_new_xmax_infomask); HEAP_KEYS_UPDATED marks deletes and
 *	 updates that change a key column, so FOR KEY SHARE lockers and
 *	 non-key updates do not block each other.
 *
 * Lock order: a tuple's heavyweight lock is taken with no buffer lock
 * held; two buffers are locked in block number order; no buffer lock is
 * held while waiting for a transaction or doing TOAST work.
 *
 * src/table/blinkheap_dml.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heaptoast.h"
#include "access/multixact.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "storage/predicate.h"
#include "storage/procarray.h"
#include "utils/datum.h"
#include "utils/relcache.h"
#include "utils/snapmgr.h"

#include "common/counters.h"
#include "common/gxlog.h"
#include "common/settings.h"
#include "table/blinkheap.h"

/*
 * For each tuple lock mode: the heavyweight lock that queues waiters for
 * it, and the MultiXact member status of a locker and of an updater in
 * that mode (-1: the mode cannot update).
 */
static const struct
{
	LOCKMODE	hwlock;
	int			lockstatus;
	int			updstatus;
}			bh_lockmodes[MaxLockTupleMode + 1] =
{
	[LockTupleKeyShare] = {AccessShareLock, MultiXactStatusForKeyShare, -1},
	[LockTupleShare] = {RowShareLock, MultiXactStatusForShare, -1},
	[LockTupleNoKeyExclusive] = {ExclusiveLock, MultiXactStatusForNoKeyUpdate,
	MultiXactStatusNoKeyUpdate},
	[LockTupleExclusive] = {AccessExclusiveLock, MultiXactStatusForUpdate,
	MultiXactStatusUpdate},
};

/* The tuple lock mode that each MultiXact member status amounts to. */
static const LockTupleMode bh_status_mode[MaxMultiXactStatus + 1] =
{
	[MultiXactStatusForKeyShare] = LockTupleKeyShare,
	[MultiXactStatusForShare] = LockTupleShare,
	[MultiXactStatusForNoKeyUpdate] = LockTupleNoKeyExclusive,
	[MultiXactStatusForUpdate] = LockTupleExclusive,
	[MultiXactStatusNoKeyUpdate] = LockTupleNoKeyExclusive,
	[MultiXactStatusUpdate] = LockTupleExclusive,
};

#define BH_STATUS_HWLOCK(status) (bh_lockmodes[bh_status_mode[(status)]].hwlock)

static MultiXactStatus
_bh_mxstatus_for(LockTupleMode mode, bool is_update)
{
	int			status = is_update ? bh_lockmodes[mode].updstatus :
	bh_lockmodes[mode].lockstatus;

	if (status < 0)
		elog(ERROR, "invalid lock tuple mode %d/%s", mode,
			 is_update ? "true" : "false");
	return (MultiXactStatus) status;
}

/* Did the part of the infomask that describes xmax change? */
static bool
_bh_xmax_changed(uint16 new_infomask, uint16 old_infomask)
{
	const uint16 bits = HEAP_XMAX_IS_MULTI | HEAP_XMAX_LOCK_ONLY | HEAP_LOCK_MASK;

	return (new_infomask & bits) != (old_infomask & bits);
}

/* The MultiXact status of a single-xid xmax, from its infomask bits. */
static MultiXactStatus
_bh_single_xmax_status(uint16 infomask, uint16 infomask2)
{
	if (HEAP_XMAX_IS_LOCKED_ONLY(infomask))
	{
		if (HEAP_XMAX_IS_KEYSHR_LOCKED(infomask))
			return MultiXactStatusForKeyShare;
		if (HEAP_XMAX_IS_SHR_LOCKED(infomask))
			return MultiXactStatusForShare;
		if (HEAP_XMAX_IS_EXCL_LOCKED(infomask))
			return (infomask2 & HEAP_KEYS_UPDATED) ?
				MultiXactStatusForUpdate : MultiXactStatusForNoKeyUpdate;
		elog(ERROR, "invalid lock status in blinkheap tuple");
	}
	return (infomask2 & HEAP_KEYS_UPDATED) ?
		MultiXactStatusUpdate : MultiXactStatusNoKeyUpdate;
}

/*
 * The infomask bits describing a MultiXact xmax: the strongest member's
 * lock strength, LOCK_ONLY unless a member updated, KEYS_UPDATED if a
 * member is FOR UPDATE or a key-changing update.
 */
static void
_bh_multi_hint_bits(MultiXactId multi, uint16 *infomask, uint16 *infomask2)
{
	MultiXactMember *members;
	int			n,
				i;
	uint16		bits = HEAP_XMAX_IS_MULTI;
	uint16		bits2 = 0;
	bool		has_update = false;
	LockTupleMode strongest = LockTupleKeyShare;

	n = GetMultiXactIdMembers(multi, &members, false, false);
	for (i = 0; i < n; i++)
	{
		MultiXactStatus st = members[i].status;

		if (bh_status_mode[st] > strongest)
			strongest = bh_status_mode[st];
		if (st == MultiXactStatusForUpdate || st == MultiXactStatusUpdate)
			bits2 |= HEAP_KEYS_UPDATED;
		if (ISUPDATE_from_mxstatus(st))
			has_update = true;
	}
	if (n > 0)
		pfree(members);

	if (strongest >= LockTupleNoKeyExclusive)
		bits |= HEAP_XMAX_EXCL_LOCK;
	else if (strongest == LockTupleShare)
		bits |= HEAP_XMAX_SHR_LOCK;
	else
		bits |= HEAP_XMAX_KEYSHR_LOCK;
	if (!has_update)
		bits |= HEAP_XMAX_LOCK_ONLY;

	*infomask = bits;
	*infomask2 = bits2;
}

/* The updating member of a MultiXact xmax that is not lock-only. */
static TransactionId
_bh_multi_update_xid(MultiXactId multi, uint16 infomask)
{
	MultiXactMember *members;
	TransactionId upd = InvalidTransactionId;
	int			n,
				i;

	Assert(infomask & HEAP_XMAX_IS_MULTI);
	Assert(!(infomask & HEAP_XMAX_LOCK_ONLY));
	n = GetMultiXactIdMembers(multi, &members, false, false);
	for (i = 0; i < n; i++)
	{
		if (ISUPDATE_from_mxstatus(members[i].status))
		{
			upd = members[i].xid;
			break;
		}
	}
	if (n > 0)
		pfree(members);
	return upd;
}

/*
 * Does a member of the MultiXact, other than our own transaction, hold a
 * lock that conflicts with mode and is still in force (a running locker,
 * or an updater that did not abort)?  *current_is_member, if given, is
 * set when our own transaction is a member.
 */
static bool
_bh_multi_conflicts(MultiXactId multi, uint16 infomask, LockTupleMode mode,
					bool *current_is_member)
{
	MultiXactMember *members;
	LOCKMODE	wanted = bh_lockmodes[mode].hwlock;
	bool		result = false;
	int			n,
				i;

	if (HEAP_LOCKED_UPGRADED(infomask))
		return false;
	n = GetMultiXactIdMembers(multi, &members, false,
							  HEAP_XMAX_IS_LOCKED_ONLY(infomask));
	for (i = 0; i < n; i++)
	{
		TransactionId memxid = members[i].xid;
		MultiXactStatus st = members[i].status;

		if (TransactionIdIsCurrentTransactionId(memxid))
		{
			if (current_is_member)
				*current_is_member = true;
			continue;
		}
		if (result)
			continue;
		if (!DoLockModesConflict(BH_STATUS_HWLOCK(st), wanted))
			continue;
		if (ISUPDATE_from_mxstatus(st) ? TransactionIdDidAbort(memxid) :
			!TransactionIdIsInProgress(memxid))
			continue;
		result = true;
	}
	if (n > 0)
		pfree(members);
	return result;
}

/*
 * Wait for every member of the MultiXact whose lock conflicts with status
 * (our own transaction's members never count).  With nowait, return false
 * instead of waiting.  *remaining, if given, counts the members left
 * running: our own and non-conflicting ones still in progress.
 * No buffer lock may be held.
 */
static bool
_bh_multi_wait(MultiXactId multi, MultiXactStatus status, uint16 infomask,
			   bool nowait, Relation rel, ItemPointer ctid, XLTW_Oper oper,
			   int *remaining)
{
	MultiXactMember *members;
	bool		result = true;
	int			remain = 0;
	int			n,
				i;

	n = HEAP_LOCKED_UPGRADED(infomask) ? -1 :
		GetMultiXactIdMembers(multi, &members, false,
							  HEAP_XMAX_IS_LOCKED_ONLY(infomask));
	for (i = 0; i < n; i++)
	{
		TransactionId memxid = members[i].xid;

		if (TransactionIdIsCurrentTransactionId(memxid))
		{
			remain++;
			continue;
		}
		if (!DoLockModesConflict(BH_STATUS_HWLOCK(members[i].status),
								 BH_STATUS_HWLOCK(status)))
		{
			if (remaining && TransactionIdIsInProgress(memxid))
				remain++;
			continue;
		}
		if (nowait)
		{
			if (!ConditionalXactLockTableWait(memxid))
			{
				result = false;
				break;
			}
		}
		else
			XactLockTableWait(memxid, rel, ctid, oper);
	}
	if (n > 0)
		pfree(members);
	if (remaining)
		*remaining = remain;
	return result;
}

/*
 * Take the heavyweight tuple lock for mode under the wait policy, unless
 * we have it already.  Returns false only for LockWaitSkip when the lock
 * is taken by someone else.  No buffer lock may be held.
 */
static bool
_bh_acquire_tuplock(Relation rel, ItemPointer tid, LockTupleMode mode,
					LockWaitPolicy wait_policy, bool *have_tuple_lock)
{
	if (*have_tuple_lock)
		return true;
	switch (wait_policy)
	{
		case LockWaitBlock:
			LockTuple(rel, tid, bh_lockmodes[mode].hwlock);
			break;
		case LockWaitSkip:
			if (!ConditionalLockTuple(rel, tid, bh_lockmodes[mode].hwlock))
				return false;
			break;
		case LockWaitError:
			if (!ConditionalLockTuple(rel, tid, bh_lockmodes[mode].hwlock))
				ereport(ERROR,
						(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
						 errmsg("could not obtain lock on row in relation \"%s\"",
								RelationGetRelationName(rel))));
			break;
	}
	*have_tuple_lock = true;
	return true;
}

static void
_bh_release_tuplock(Relation rel, ItemPointer tid, LockTupleMode mode,
					bool *have_tuple_lock)
{
	if (*have_tuple_lock)
		UnlockTuple(rel, tid, bh_lockmodes[mode].hwlock);
	*have_tuple_lock = false;
}

/* The bits of a lock-only xmax that is one xid holding mode. */
static void
_bh_single_lock_bits(LockTupleMode mode, uint16 *infomask, uint16 *infomask2)
{
	*infomask = HEAP_XMAX_LOCK_ONLY;
	*infomask2 = 0;
	switch (mode)
	{
		case LockTupleKeyShare:
			*infomask |= HEAP_XMAX_KEYSHR_LOCK;
			break;
		case LockTupleShare:
			*infomask |= HEAP_XMAX_SHR_LOCK;
			break;
		case LockTupleNoKeyExclusive:
			*infomask |= HEAP_XMAX_EXCL_LOCK;
			break;
		case LockTupleExclusive:
			*infomask |= HEAP_XMAX_EXCL_LOCK;
			*infomask2 = HEAP_KEYS_UPDATED;
			break;
	}
}

/*
 * _bh_compute_new_xmax: the xmax and infomask bits a tuple gets when our
 * transaction (add_to_xmax, the current subtransaction's xid) locks it in
 * mode, or updates/deletes it (is_update), given its current xmax.
 *
 * An xmax that no longer matters (no xmax, a finished locker, an aborted
 * updater) is simply replaced.  A running locker or updater, or a
 * committed updater (possible when we only key-share lock an updated
 * tuple), is kept by making a MultiXact of it and us.  When we hold the
 * lock already as the same xid, the stronger of the two modes stays.
 */
static void
_bh_compute_new_xmax(TransactionId xmax, uint16 old_infomask,
					 uint16 old_infomask2, TransactionId add_to_xmax,
					 LockTupleMode mode, bool is_update,
					 TransactionId *result_xmax, uint16 *result_infomask,
					 uint16 *result_infomask2)
{
	MultiXactStatus new_status;
	MultiXactStatus old_status;

	Assert(TransactionIdIsCurrentTransactionId(add_to_xmax));

	for (;;)
	{
		if (old_infomask & HEAP_XMAX_INVALID)
		{
			/* nothing to keep: we alone */
			*result_xmax = add_to_xmax;
			*result_infomask = 0;
			*result_infomask2 = 0;
			if (is_update)
			{
				if (mode == LockTupleExclusive)
					*result_infomask2 = HEAP_KEYS_UPDATED;
				return;
			}
			_bh_single_lock_bits(mode, result_infomask, result_infomask2);
			return;
		}

		new_status = _bh_mxstatus_for(mode, is_update);

		if (old_infomask & HEAP_XMAX_IS_MULTI)
		{
			if (HEAP_LOCKED_UPGRADED(old_infomask))
			{
				old_infomask = (old_infomask & ~HEAP_XMAX_IS_MULTI) | HEAP_XMAX_INVALID;
				continue;
			}
			/* a MultiXact with nobody running and no committed update is void */
			if (!MultiXactIdIsRunning(xmax, HEAP_XMAX_IS_LOCKED_ONLY(old_infomask)) &&
				(HEAP_XMAX_IS_LOCKED_ONLY(old_infomask) ||
				 !TransactionIdDidCommit(_bh_multi_update_xid(xmax, old_infomask))))
			{
				old_infomask = (old_infomask & ~HEAP_XMAX_IS_MULTI) | HEAP_XMAX_INVALID;
				continue;
			}
			*result_xmax = MultiXactIdExpand((MultiXactId) xmax, add_to_xmax,
											 new_status);
			_bh_multi_hint_bits(*result_xmax, result_infomask, result_infomask2);
			return;
		}

		if (old_infomask & HEAP_XMAX_COMMITTED)
		{
			/* a committed updater (never a locker: see heap) stays */
			old_status = (old_infomask2 & HEAP_KEYS_UPDATED) ?
				MultiXactStatusUpdate : MultiXactStatusNoKeyUpdate;
			*result_xmax = MultiXactIdCreate(xmax, old_status, add_to_xmax,
											 new_status);
			_bh_multi_hint_bits(*result_xmax, result_infomask, result_infomask2);
			return;
		}

		if (TransactionIdIsInProgress(xmax))
		{
			LockTupleMode old_mode;

			if (HEAP_XMAX_IS_LOCKED_ONLY(old_infomask) &&
				!(old_infomask & HEAP_LOCK_MASK))
			{
				elog(WARNING, "LOCK_ONLY found for Xid in progress %u", xmax);
				old_infomask = (old_infomask & ~HEAP_XMAX_LOCK_ONLY) | HEAP_XMAX_INVALID;
				continue;
			}
			old_status = _bh_single_xmax_status(old_infomask, old_infomask2);
			old_mode = bh_status_mode[old_status];

			if (xmax == add_to_xmax)
			{
				/* our own earlier lock: keep the stronger mode, one xid */
				Assert(HEAP_XMAX_IS_LOCKED_ONLY(old_infomask));
				if (mode < old_mode)
					mode = old_mode;
				old_infomask |= HEAP_XMAX_INVALID;
				continue;
			}
			*result_xmax = MultiXactIdCreate(xmax, old_status, add_to_xmax,
											 new_status);
			_bh_multi_hint_bits(*result_xmax, result_infomask, result_infomask2);
			return;
		}

		if (!HEAP_XMAX_IS_LOCKED_ONLY(old_infomask) &&
			TransactionIdDidCommit(xmax))
		{
			old_status = (old_infomask2 & HEAP_KEYS_UPDATED) ?
				MultiXactStatusUpdate : MultiXactStatusNoKeyUpdate;
			*result_xmax = MultiXactIdCreate(xmax, old_status, add_to_xmax,
											 new_status);
			_bh_multi_hint_bits(*result_xmax, result_infomask, result_infomask2);
			return;
		}

		/* a finished locker or an aborted updater: forget it */
		old_infomask |= HEAP_XMAX_INVALID;
	}
}

/* The tuple at off on a registered page copy. */
static HeapTupleHeader
_bh_page_tuple(Page page, OffsetNumber off)
{
	return (HeapTupleHeader) PageGetItem(page, PageGetItemId(page, off));
}

/* Replace a tuple header's xmax and the bits that describe it. */
static void
_bh_set_xmax(HeapTupleHeader htup, TransactionId xmax, uint16 infomask,
			 uint16 infomask2)
{
	htup->t_infomask &= ~(HEAP_XMAX_BITS | HEAP_MOVED);
	htup->t_infomask2 &= ~HEAP_KEYS_UPDATED;
	htup->t_infomask |= infomask;
	htup->t_infomask2 |= infomask2;
	HeapTupleHeaderClearHotUpdated(htup);
	HeapTupleHeaderSetXmax(htup, xmax);
}

/* Does an xmax that only locks still name a running locker? */
static bool
_bh_lockers_running(TransactionId xmax, uint16 infomask)
{
	if (infomask & HEAP_XMAX_IS_MULTI)
		return MultiXactIdIsRunning(xmax, HEAP_XMAX_IS_LOCKED_ONLY(infomask));
	return TransactionIdIsInProgress(xmax);
}

/*
 * The lockers of a MultiXact that still run, without its updater (one
 * that aborted: an update can go on past no other): InvalidTransactionId
 * if none, the one locker's xid (*is_multi false, *status its lock), or a
 * new MultiXact of them.
 */
static TransactionId
_bh_running_lockers(MultiXactId multi, bool *is_multi, MultiXactStatus *status)
{
	MultiXactMember *members;
	int			n,
				nkeep = 0;
	TransactionId result = InvalidTransactionId;

	*is_multi = false;
	n = GetMultiXactIdMembers(multi, &members, false, false);
	for (int i = 0; i < n; i++)
	{
		if (!ISUPDATE_from_mxstatus(members[i].status) &&
			TransactionIdIsInProgress(members[i].xid))
			members[nkeep++] = members[i];
	}
	if (nkeep == 1)
	{
		result = members[0].xid;
		*status = members[0].status;
	}
	else if (nkeep > 1)
	{
		MultiXactIdSetOldestMember();
		result = MultiXactIdCreateFromMembers(nkeep, members);
		*is_multi = true;
	}
	if (n > 0)
		pfree(members);
	return result;
}

/*
 * The xmax an update gives the new version, from the old version's header
 * old: the lockers that remain on the old one (key-share lockers of a
 * non-key update), not the update itself -- none if there were none, if
 * the update waited for them all and none remains (no_lockers), or if
 * none of them runs any more.
 *
 * A locker that has finished must not be carried over.  Its xid may be
 * older than the cutoff of a VACUUM that runs while the update has let
 * the old page go (_bh_update's window): the window's lock on the old
 * version has already replaced that xid there (_bh_compute_new_xmax drops
 * finished lockers), the new version's page may be scanned before the
 * version lands, and VACUUM would set relfrozenxid past an xid the new
 * version then holds -- "found xmax ... from before relfrozenxid" at every
 * later VACUUM FREEZE.  (heap_update avoids it because
 * HeapTupleSatisfiesUpdate hints such an xmax invalid before it is read.)
 * A locker still running here is safe to carry even if it ends in the
 * window: it ran after our snapshot was taken, so its xid is at or above
 * our snapshot's xmin, which holds back the cutoff of every VACUUM until
 * the update ends (_bh_update drops it after the window all the same).
 * For the same reason a MultiXact that holds an updater (one that rolled
 * back) is not carried whole: VACUUM checks an updater member against
 * relfrozenxid too, and the window's lock has dropped it from the old
 * version; the new version gets the running lockers alone.
 * specs/blinkheap_update_window holds an update in the window for each
 * case.
 */
static void
_bh_new_version_xmax(HeapTupleHeader old, bool no_lockers,
					 TransactionId *xmax, uint16 *infomask, uint16 *infomask2)
{
	bool		multi = (old->t_infomask & HEAP_XMAX_IS_MULTI) != 0;
	MultiXactStatus single_status = MultiXactStatusForKeyShare;

	if ((old->t_infomask & HEAP_XMAX_INVALID) ||
		HEAP_LOCKED_UPGRADED(old->t_infomask) || no_lockers)
		*xmax = InvalidTransactionId;
	else
		*xmax = HeapTupleHeaderGetRawXmax(old);
	if (TransactionIdIsValid(*xmax))
	{
		if (multi && !HEAP_XMAX_IS_LOCKED_ONLY(old->t_infomask))
		{
			/* an aborted updater among the lockers: keep the lockers only */
			*xmax = _bh_running_lockers(*xmax, &multi, &single_status);
		}
		else if (!_bh_lockers_running(*xmax, old->t_infomask))
			*xmax = InvalidTransactionId;
	}

	if (!TransactionIdIsValid(*xmax))
	{
		*infomask = HEAP_XMAX_INVALID;
		*infomask2 = 0;
	}
	else if (multi)
		_bh_multi_hint_bits(*xmax, infomask, infomask2);
	else
	{
		/* one locker: the bits of its lock (key share unless it is ours) */
		_bh_single_lock_bits(bh_status_mode[single_status], infomask,
							 infomask2);
	}
}

/* Refuse a tuple that cannot fit on an empty page. */
static void
_bh_check_tuple_size(Relation rel, Size len)
{
	if (MAXALIGN(len) > BLINKHEAP_MAX_TUPLE_SIZE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("row is too big: size %zu, maximum size %zu",
						(Size) MAXALIGN(len), (Size) BLINKHEAP_MAX_TUPLE_SIZE),
				 errdetail("A row of a blinkheap table must fit on one page once TOAST has moved what it can out of line.")));
}

/*
 * Read and exclusively lock the page of tid and point tup at the tuple.
 * Returns true with the buffer pinned and exclusively locked in *buf, or
 * false (nothing held) if the TID names no tuple -- also when its block is
 * past the end (a t_ctid into a page VACUUM truncated).
 */
static bool
_bh_read_for_write(Relation rel, ItemPointer tid, HeapTuple tup, Buffer *buf)
{
	*buf = InvalidBuffer;
	if (ItemPointerGetBlockNumber(tid) >= RelationGetNumberOfBlocks(rel))
		return false;
	*buf = ReadBuffer(rel, ItemPointerGetBlockNumber(tid));
	LockBuffer(*buf, BUFFER_LOCK_EXCLUSIVE);
	_bh_check_page(rel, *buf);
	if (!_bh_get_tuple(rel, *buf, ItemPointerGetOffsetNumber(tid), tup))
	{
		UnlockReleaseBuffer(*buf);
		*buf = InvalidBuffer;
		return false;
	}
	return true;
}

/*
 * Fill in a new tuple's transaction fields and TOAST it if needed.
 * Returns the tuple to store: tup itself or a toasted copy.
 */
static HeapTuple
_bh_prepare_insert(Relation rel, HeapTuple tup, TransactionId xid,
				   CommandId cid, int options)
{
	tup->t_data->t_infomask &= ~HEAP_XACT_MASK;
	tup->t_data->t_infomask2 &= ~HEAP2_XACT_MASK;
	tup->t_data->t_infomask |= HEAP_XMAX_INVALID;
	HeapTupleHeaderSetXmin(tup->t_data, xid);
	/*
	 * TABLE_INSERT_FROZEN (COPY FREEZE, REFRESH MATERIALIZED VIEW, into
	 * storage made in this transaction): frozen at once, as heap stores
	 * them -- visible to every snapshot once the storage is, and never to
	 * be frozen by VACUUM.  specs/blinkheap_insert_frozen.
	 */
	if (options & HEAP_INSERT_FROZEN)
		HeapTupleHeaderSetXminFrozen(tup->t_data);
	HeapTupleHeaderSetCmin(tup->t_data, cid);
	HeapTupleHeaderSetXmax(tup->t_data, 0);
	tup->t_tableOid = RelationGetRelid(rel);

	if (rel->rd_rel->relkind != RELKIND_RELATION &&
		rel->rd_rel->relkind != RELKIND_MATVIEW)
		return tup;
	if (HeapTupleHasExternal(tup) || tup->t_len > TOAST_TUPLE_THRESHOLD)
		return heap_toast_insert_or_update(rel, tup, NULL, options);
	return tup;
}

/*
 * Insert one tuple; sets tup->t_self.  The page is found, written and
 * released here: on return the tuple is on its page and in WAL.  No
 * buffer lock or pin is held on entry or on return.
 *
 * A plain insert (no bulk insert state, not speculative) tries the table's
 * hot page first, where another backend holding the page may put the
 * tuple on it for us in its own record (blinkheap_hot.c).  Whoever holds
 * the page writes it with the tuples others published meanwhile.
 *
 * A non-zero specToken makes it a speculative insertion (INSERT ... ON
 * CONFLICT): the stored tuple's t_ctid carries the token instead of its
 * own TID, in the same record, until blinkheap_tuple_complete_speculative
 * confirms or kills it.  tup->t_self is the real TID either way.
 */
static void
_bh_insert(Relation rel, HeapTuple tup, CommandId cid, int options,
		   BulkInsertState bistate, uint32 specToken)
{
	TransactionId xid = _bh_writer_xid();
	HeapTuple	heaptup;
	Buffer		buf = InvalidBuffer;
	bool		is_new = false;
	bool		plain = bistate == NULL && specToken == 0;
	bool		not_hot = false;
	BlockNumber hot = InvalidBlockNumber;

	heaptup = _bh_prepare_insert(rel, tup, xid, cid, options);
	_bh_check_tuple_size(rel, heaptup->t_len);

	/*
	 * Unless another backend put it on the hot page in its own record
	 * (never for a SERIALIZABLE transaction: see blinkam_batch_wait)...
	 */
	if (!plain || !_bh_hot_insert(rel, heaptup, &buf, &is_new, &hot))
	{
		if (!BufferIsValid(buf))
		{
			buf = _bh_get_insert_page(rel, heaptup->t_len, InvalidBuffer,
									  bistate, &is_new);
			if (plain)
				not_hot = _bh_hot_adopt(rel, hot, BufferGetBlockNumber(buf));
		}

		/*
		 * SERIALIZABLE: readers' locks on the table (a sequential scan's)
		 * are checked for with the page locked until the tuple is on it,
		 * as heap_insert does: a scan that read the page before holds its
		 * lock by now and is found; one that reads it later meets the
		 * tuple.  (Checked before the page was locked, a scan could begin
		 * and read the page in between, and neither would see the other.)
		 */
		CheckForSerializableConflictIn(rel, NULL, InvalidBlockNumber);
		_bh_insert_write(rel, buf, is_new, heaptup, specToken, not_hot);
		blinkam_count(BLINKAM_COUNTER_BLINKHEAP_INSERT_RECORDS, 1);
	}
	pgstat_count_heap_insert(rel, 1);
	blinkam_count(BLINKAM_COUNTER_BLINKHEAP_INSERTS, 1);
	if (heaptup != tup)
	{
		tup->t_self = heaptup->t_self;
		heap_freetuple(heaptup);
	}
}

void
blinkheap_tuple_insert(Relation rel, TupleTableSlot *slot, CommandId cid,
					   int options, BulkInsertState bistate)
{
	bool		shouldFree = true;
	HeapTuple	tuple = ExecFetchSlotHeapTuple(slot, true, &shouldFree);

	slot->tts_tableOid = RelationGetRelid(rel);
	tuple->t_tableOid = slot->tts_tableOid;
	_bh_insert(rel, tuple, cid, options, bistate, 0);
	ItemPointerCopy(&tuple->t_self, &slot->tts_tid);
	if (shouldFree)
		pfree(tuple);
}

/*
 * INSERT ... ON CONFLICT, first half: insert the tuple speculatively.
 *
 * The executor holds the speculative insertion lock for specToken
 * (SpeculativeInsertionLockAcquire).  The tuple is written like any
 * insert, but its t_ctid holds the token, so that a SnapshotDirty reader
 * that finds it through a unique index reports the token and waits on
 * that lock (SpeculativeInsertionWait) instead of on our whole
 * transaction.  On return the tuple is on its page and in WAL and
 * slot->tts_tid names it; no buffer is locked or pinned.
 *
 * TOAST values are stored as for a plain insert; HEAP_INSERT_SPECULATIVE
 * is not passed down to the TOAST table's inserts, as nothing decodes
 * blinkheap changes (see src/README, part III).
 */
void
blinkheap_tuple_insert_speculative(Relation rel, TupleTableSlot *slot,
								   CommandId cid, int options,
								   BulkInsertState bistate, uint32 specToken)
{
	bool		shouldFree = true;
	HeapTuple	tuple = ExecFetchSlotHeapTuple(slot, true, &shouldFree);

	Assert(specToken != 0);
	slot->tts_tableOid = RelationGetRelid(rel);
	tuple->t_tableOid = slot->tts_tableOid;
	_bh_insert(rel, tuple, cid, options, bistate, specToken);
	ItemPointerCopy(&tuple->t_self, &slot->tts_tid);
	if (shouldFree)
		pfree(tuple);
}

/*
 * INSERT ... ON CONFLICT, second half: the index inserts are done.
 *
 * succeeded: no arbiter index found a conflict; the token in t_ctid is
 * replaced by the tuple's own TID (one record), and the tuple is an
 * ordinary insert from now on.
 *
 * Otherwise the insertion lost a race and is killed the way
 * heap_abort_speculative kills one: in one record xmin becomes InvalidTransactionId (the tuple is dead
 * to every snapshot at once, and to VACUUM: see blinkheap_visibility.c),
 * xmax is cleared and t_ctid points at the tuple itself.  Waiters woken
 * when the executor releases the speculative insertion lock then find it
 * dead.  Its TOAST values are killed afterwards the same way
 * (heap_toast_delete with is_speculative), under the pin only.
 *
 * The caller (the executor) still holds the speculative insertion lock;
 * no buffer lock or pin is held on entry or on return.
 */
void
blinkheap_tuple_complete_speculative(Relation rel, TupleTableSlot *slot,
									 uint32 specToken, bool succeeded)
{
	ItemPointerData tid = slot->tts_tid;
	OffsetNumber off = ItemPointerGetOffsetNumber(&tid);
	HeapTupleData tp;
	Buffer		buf;
	BlinkamXLogState *state;
	HeapTupleHeader htup;

	Assert(ItemPointerIsValid(&tid));
	if (!_bh_read_for_write(rel, &tid, &tp, &buf))
		elog(ERROR, "speculatively inserted tuple (%u,%u) not found in blinkheap table \"%s\"",
			 ItemPointerGetBlockNumber(&tid), off, RelationGetRelationName(rel));
	if (!HeapTupleHeaderIsSpeculative(tp.t_data) ||
		HeapTupleHeaderGetSpeculativeToken(tp.t_data) != specToken ||
		!TransactionIdEquals(HeapTupleHeaderGetRawXmin(tp.t_data),
							 GetCurrentTransactionId()))
	{
		UnlockReleaseBuffer(buf);
		elog(ERROR, "tuple (%u,%u) of blinkheap table \"%s\" is not our speculative insertion",
			 ItemPointerGetBlockNumber(&tid), off, RelationGetRelationName(rel));
	}
	tp.t_tableOid = RelationGetRelid(rel);

	state = blinkam_xlog_start(rel);
	htup = _bh_page_tuple(blinkam_xlog_register(state, buf, 0), off);
	if (!succeeded)
	{
		htup->t_infomask &= ~(HEAP_XMAX_BITS | HEAP_MOVED);
		htup->t_infomask |= HEAP_XMAX_INVALID;
		htup->t_infomask2 &= ~HEAP_KEYS_UPDATED;
		HeapTupleHeaderSetXmax(htup, InvalidTransactionId);
		HeapTupleHeaderSetXmin(htup, InvalidTransactionId);
	}
	htup->t_ctid = tid;
	blinkam_xlog_finish(state);
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);

	if (!succeeded)
	{
		/* the pin keeps the tuple's data in place while TOAST forgets it */
		if (HeapTupleHasExternal(&tp))
			heap_toast_delete(rel, &tp, true);
		/* the insert was counted; count its undoing as heap does */
		pgstat_count_heap_delete(rel);
	}
	ReleaseBuffer(buf);
}

/*
 * COPY's multi-insert: each page gets as many of the tuples as fit (and
 * leave fillfactor's reserve) in ONE generic WAL record.  One page at a
 * time is locked (by _bh_get_insert_page) and released after its record;
 * nothing is held on return.
 */
void
blinkheap_multi_insert(Relation rel, TupleTableSlot **slots, int nslots,
					   CommandId cid, int options, BulkInsertState bistate)
{
	TransactionId xid = _bh_writer_xid();
	Size		save = RelationGetTargetPageFreeSpace(rel, HEAP_DEFAULT_FILLFACTOR);
	HeapTuple  *tuples = palloc(nslots * sizeof(HeapTuple));
	int			done = 0;
	int			i;

	for (i = 0; i < nslots; i++)
	{
		HeapTuple	tup = ExecFetchSlotHeapTuple(slots[i], true, NULL);

		slots[i]->tts_tableOid = RelationGetRelid(rel);
		tup->t_tableOid = slots[i]->tts_tableOid;
		tuples[i] = _bh_prepare_insert(rel, tup, xid, cid, options);
		_bh_check_tuple_size(rel, tuples[i]->t_len);
	}
	CheckForSerializableConflictIn(rel, NULL, InvalidBlockNumber);
	blinkam_debug_pause(BLINKAM_PAUSE_MULTI_INSERT_CHECKED);

	while (done < nslots)
	{
		Buffer		buf;
		bool		is_new;
		BlinkamXLogState *state;
		Page		page;
		BlockNumber blkno;

		CHECK_FOR_INTERRUPTS();
		buf = _bh_get_insert_page(rel, tuples[done]->t_len, InvalidBuffer,
								  bistate, &is_new);
		blkno = BufferGetBlockNumber(buf);
		state = blinkam_xlog_start(rel);
		page = blinkam_xlog_register(state, buf,
										 is_new ? GENERIC_XLOG_FULL_IMAGE : 0);
		if (is_new)
			_bh_init_page(page);

		/* the first always fits: _bh_get_insert_page made sure */
		_bh_place_tuple(rel, page, blkno, tuples[done++]);
		while (done < nslots &&
			   MAXALIGN(tuples[done]->t_len) + save <= _bh_page_free_space(page))
			_bh_place_tuple(rel, page, blkno, tuples[done++]);
		_bh_stamp_xmins(state, page);

		blinkam_xlog_finish(state);
		UnlockReleaseBuffer(buf);
		blinkam_count(BLINKAM_COUNTER_BLINKHEAP_INSERT_RECORDS, 1);
	}

	/*
	 * SERIALIZABLE: the check before the loop could not hold every page
	 * until its tuples were on it, so a sequential scan may have begun
	 * since and read a page before our tuples reached it; now that they
	 * are all there, check again (heap_multi_insert does the same).
	 */
	CheckForSerializableConflictIn(rel, NULL, InvalidBlockNumber);

	for (i = 0; i < nslots; i++)
		slots[i]->tts_tid = tuples[i]->t_self;
	pgstat_count_heap_insert(rel, nslots);
	blinkam_count(BLINKAM_COUNTER_BLINKHEAP_INSERTS, nslots);
	pfree(tuples);
}

/*
 * Fill *tmfd for a failed delete/update/lock from the tuple as it is now.
 */
static void
_bh_fill_tmfd(TM_FailureData *tmfd, HeapTuple tup, TM_Result result)
{
	tmfd->ctid = tup->t_data->t_ctid;
	tmfd->xmax = HeapTupleHeaderGetUpdateXid(tup->t_data);
	tmfd->cmax = result == TM_SelfModified ?
		HeapTupleHeaderGetCmax(tup->t_data) : InvalidCommandId;
}

/*
 * Delete the tuple at tid, heap_delete's way.
 *
 * No buffer lock or pin is held on entry or on return; in between the
 * tuple's page is exclusively locked except while waiting (then only
 * pinned, with the heavyweight tuple lock held).
 */
static TM_Result
_bh_delete(Relation rel, ItemPointer tid, CommandId cid, Snapshot crosscheck,
		   bool wait, TM_FailureData *tmfd, bool changingPart)
{
	TransactionId xid = _bh_writer_xid();
	HeapTupleData tp;
	Buffer		buf;
	TM_Result	result;
	bool		have_tuple_lock = false;
	TransactionId new_xmax;
	uint16		new_infomask,
				new_infomask2;
	bool		iscombo;
	BlinkamXLogState *state;
	HeapTupleHeader htup;

	if (IsInParallelMode())
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
				 errmsg("cannot delete tuples during a parallel operation")));

	if (!_bh_read_for_write(rel, tid, &tp, &buf))
	{
		tmfd->ctid = *tid;
		tmfd->xmax = InvalidTransactionId;
		tmfd->cmax = InvalidCommandId;
		return TM_Deleted;
	}

l1:
	result = _bh_satisfies_update(&tp, cid);
	if (result == TM_Invisible)
	{
		UnlockReleaseBuffer(buf);
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("attempted to delete invisible tuple")));
	}
	else if (result == TM_BeingModified && wait)
	{
		TransactionId xwait = HeapTupleHeaderGetRawXmax(tp.t_data);
		uint16		infomask = tp.t_data->t_infomask;
		bool		xwait_gone_or_locker = false;

		if (infomask & HEAP_XMAX_IS_MULTI)
		{
			bool		current_is_member = false;

			if (_bh_multi_conflicts(xwait, infomask, LockTupleExclusive,
									&current_is_member))
			{
				LockBuffer(buf, BUFFER_LOCK_UNLOCK);
				if (!current_is_member)
					_bh_acquire_tuplock(rel, &tp.t_self, LockTupleExclusive,
										LockWaitBlock, &have_tuple_lock);
				_bh_multi_wait(xwait, MultiXactStatusUpdate, infomask, false,
							   rel, &tp.t_self, XLTW_Delete, NULL);
				LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
				if (_bh_xmax_changed(tp.t_data->t_infomask, infomask) ||
					!TransactionIdEquals(HeapTupleHeaderGetRawXmax(tp.t_data), xwait))
					goto l1;
			}
		}
		else if (!TransactionIdIsCurrentTransactionId(xwait))
		{
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
			_bh_acquire_tuplock(rel, &tp.t_self, LockTupleExclusive,
								LockWaitBlock, &have_tuple_lock);
			XactLockTableWait(xwait, rel, &tp.t_self, XLTW_Delete);
			LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
			if (_bh_xmax_changed(tp.t_data->t_infomask, infomask) ||
				!TransactionIdEquals(HeapTupleHeaderGetRawXmax(tp.t_data), xwait))
				goto l1;
			/* xwait has ended: only a committed update stops us */
			xwait_gone_or_locker = HEAP_XMAX_IS_LOCKED_ONLY(infomask) ||
				!TransactionIdDidCommit(xwait);
		}

		if (xwait_gone_or_locker ||
			(tp.t_data->t_infomask & HEAP_XMAX_INVALID) ||
			HEAP_XMAX_IS_LOCKED_ONLY(tp.t_data->t_infomask) ||
			HeapTupleHeaderIsOnlyLocked(tp.t_data))
			result = TM_Ok;
		else if (!ItemPointerEquals(&tp.t_self, &tp.t_data->t_ctid))
			result = TM_Updated;
		else
			result = TM_Deleted;
	}

	if (crosscheck != InvalidSnapshot && result == TM_Ok &&
		!_bh_satisfies(&tp, crosscheck, buf))
		result = TM_Updated;

	if (result != TM_Ok)
	{
		_bh_fill_tmfd(tmfd, &tp, result);
		UnlockReleaseBuffer(buf);
		_bh_release_tuplock(rel, &tp.t_self, LockTupleExclusive, &have_tuple_lock);
		return result;
	}

	CheckForSerializableConflictIn(rel, tid, BufferGetBlockNumber(buf));

	_bh_compute_new_xmax(HeapTupleHeaderGetRawXmax(tp.t_data),
						 tp.t_data->t_infomask, tp.t_data->t_infomask2,
						 xid, LockTupleExclusive, true,
						 &new_xmax, &new_infomask, &new_infomask2);
	HeapTupleHeaderAdjustCmax(tp.t_data, &cid, &iscombo);

	state = blinkam_xlog_start(rel);
	htup = _bh_page_tuple(blinkam_xlog_register(state, buf, 0),
						  ItemPointerGetOffsetNumber(tid));
	_bh_set_xmax(htup, new_xmax, new_infomask, new_infomask2);
	HeapTupleHeaderSetCmax(htup, cid, iscombo);
	htup->t_ctid = tp.t_self;	/* no forward link from a deleted tuple */
	if (changingPart)
		HeapTupleHeaderSetMovedPartitions(htup);
	blinkam_xlog_finish(state);
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);

	/* The pin keeps the tuple's data in place while TOAST forgets it. */
	if (HeapTupleHasExternal(&tp))
		heap_toast_delete(rel, &tp, false);
	ReleaseBuffer(buf);
	_bh_release_tuplock(rel, &tp.t_self, LockTupleExclusive, &have_tuple_lock);
	pgstat_count_heap_delete(rel);
	return TM_Ok;
}

TM_Result
blinkheap_tuple_delete(Relation rel, ItemPointer tid, CommandId cid,
					   Snapshot snapshot, Snapshot crosscheck, bool wait,
					   TM_FailureData *tmfd, bool changingPart)
{
	return _bh_delete(rel, tid, cid, crosscheck, wait, tmfd, changingPart);
}

/*
 * Did the update change a column that a unique index (usable by a
 * foreign key) covers?  Binary comparison, as heap does.
 */
static bool
_bh_key_columns_changed(Relation rel, HeapTuple oldtup, HeapTuple newtup)
{
	Bitmapset  *keys = RelationGetIndexAttrBitmap(rel, INDEX_ATTR_BITMAP_KEY);
	TupleDesc	desc = RelationGetDescr(rel);
	bool		changed = false;
	int			x = -1;

	while (!changed && (x = bms_next_member(keys, x)) >= 0)
	{
		AttrNumber	attnum = x + FirstLowInvalidHeapAttributeNumber;
		Form_pg_attribute att;
		Datum		v1,
					v2;
		bool		n1,
					n2;

		if (attnum <= 0)
		{
			changed = true;		/* system columns: be conservative */
			break;
		}
		att = TupleDescAttr(desc, attnum - 1);
		v1 = heap_getattr(oldtup, attnum, desc, &n1);
		v2 = heap_getattr(newtup, attnum, desc, &n2);
		if (n1 != n2)
			changed = true;
		else if (!n1 && !datumIsEqual(v1, v2, att->attbyval, att->attlen))
			changed = true;
	}
	bms_free(keys);
	return changed;
}

/*
 * Update the tuple at otid to newtup, heap_update's way but never HOT.
 * On success newtup->t_self is the new version's TID.
 *
 * No buffer lock or pin is held on entry or on return.  The old page is
 * exclusively locked while deciding and writing, pinned only while
 * waiting, TOASTing or finding another page; a second page is locked in
 * block number order with it (see _bh_get_insert_page).
 */
static TM_Result
_bh_update(Relation rel, ItemPointer otid, HeapTuple newtup, CommandId cid,
		   Snapshot crosscheck, bool wait, TM_FailureData *tmfd,
		   LockTupleMode *lockmode)
{
	TransactionId xid = _bh_writer_xid();
	OffsetNumber offnum = ItemPointerGetOffsetNumber(otid);
	HeapTupleData oldtup;
	HeapTuple	heaptup;
	Buffer		buf,
				newbuf;
	Page		page;
	TM_Result	result;
	bool		key_intact;
	MultiXactStatus mxact_status;
	bool		have_tuple_lock = false;
	bool		checked_lockers;
	bool		locker_remains;
	TransactionId xmax_old_tuple,
				xmax_new_tuple;
	uint16		infomask_old_tuple,
				infomask2_old_tuple,
				infomask_new_tuple,
				infomask2_new_tuple;
	bool		iscombo;
	bool		need_toast;
	bool		new_is_new = false;
	Size		pagefree,
				newtupsize;
	TransactionId xmax_lock = InvalidTransactionId;	/* set while the page
													 * was let go */
	BlinkamXLogState *state;
	Page		oldpage,
				newpage;
	HeapTupleHeader htup;

	if (IsInParallelMode())
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
				 errmsg("cannot update tuples during a parallel operation")));

	if (!_bh_read_for_write(rel, otid, &oldtup, &buf))
	{
		tmfd->ctid = *otid;
		tmfd->xmax = InvalidTransactionId;
		tmfd->cmax = InvalidCommandId;
		*lockmode = LockTupleExclusive;
		return TM_Deleted;
	}
	page = BufferGetPage(buf);
	newtup->t_tableOid = RelationGetRelid(rel);

	key_intact = !_bh_key_columns_changed(rel, &oldtup, newtup);
	if (key_intact)
	{
		*lockmode = LockTupleNoKeyExclusive;
		mxact_status = MultiXactStatusNoKeyUpdate;
		/* key-share lockers may stay: we may build a MultiXact with them */
		MultiXactIdSetOldestMember();
	}
	else
	{
		*lockmode = LockTupleExclusive;
		mxact_status = MultiXactStatusUpdate;
	}

l2:
	checked_lockers = false;
	locker_remains = false;
	result = _bh_satisfies_update(&oldtup, cid);
	if (result == TM_Invisible)
	{
		UnlockReleaseBuffer(buf);
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("attempted to update invisible tuple")));
	}
	else if (result == TM_BeingModified && wait)
	{
		TransactionId xwait = HeapTupleHeaderGetRawXmax(oldtup.t_data);
		uint16		infomask = oldtup.t_data->t_infomask;
		bool		can_continue = false;

		if (infomask & HEAP_XMAX_IS_MULTI)
		{
			TransactionId update_xact;
			int			remain;
			bool		current_is_member = false;

			if (_bh_multi_conflicts(xwait, infomask, *lockmode,
									&current_is_member))
			{
				LockBuffer(buf, BUFFER_LOCK_UNLOCK);
				if (!current_is_member)
					_bh_acquire_tuplock(rel, &oldtup.t_self, *lockmode,
										LockWaitBlock, &have_tuple_lock);
				_bh_multi_wait(xwait, mxact_status, infomask, false, rel,
							   &oldtup.t_self, XLTW_Update, &remain);
				checked_lockers = true;
				locker_remains = remain != 0;
				LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
				if (_bh_xmax_changed(oldtup.t_data->t_infomask, infomask) ||
					!TransactionIdEquals(HeapTupleHeaderGetRawXmax(oldtup.t_data), xwait))
					goto l2;
			}
			/* only a surviving, non-aborted updater stops us */
			if (!HEAP_XMAX_IS_LOCKED_ONLY(oldtup.t_data->t_infomask))
				update_xact = HeapTupleGetUpdateXid(oldtup.t_data);
			else
				update_xact = InvalidTransactionId;
			if (!TransactionIdIsValid(update_xact) ||
				TransactionIdDidAbort(update_xact))
				can_continue = true;
		}
		else if (TransactionIdIsCurrentTransactionId(xwait))
		{
			/* our own lock (perhaps from a subtransaction) */
			checked_lockers = true;
			locker_remains = true;
			can_continue = true;
		}
		else if (HEAP_XMAX_IS_KEYSHR_LOCKED(infomask) && key_intact)
		{
			/* a key-share locker does not block a non-key update */
			checked_lockers = true;
			locker_remains = true;
			can_continue = true;
		}
		else
		{
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
			_bh_acquire_tuplock(rel, &oldtup.t_self, *lockmode,
								LockWaitBlock, &have_tuple_lock);
			XactLockTableWait(xwait, rel, &oldtup.t_self, XLTW_Update);
			checked_lockers = true;
			LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
			if (_bh_xmax_changed(oldtup.t_data->t_infomask, infomask) ||
				!TransactionIdEquals(xwait, HeapTupleHeaderGetRawXmax(oldtup.t_data)))
				goto l2;
			if (HEAP_XMAX_IS_LOCKED_ONLY(infomask) ||
				!TransactionIdDidCommit(xwait))
				can_continue = true;
		}

		if (can_continue)
			result = TM_Ok;
		else if (!ItemPointerEquals(&oldtup.t_self, &oldtup.t_data->t_ctid))
			result = TM_Updated;
		else
			result = TM_Deleted;
	}

	if (crosscheck != InvalidSnapshot && result == TM_Ok &&
		!_bh_satisfies(&oldtup, crosscheck, buf))
		result = TM_Updated;

	if (result != TM_Ok)
	{
		_bh_fill_tmfd(tmfd, &oldtup, result);
		UnlockReleaseBuffer(buf);
		_bh_release_tuplock(rel, &oldtup.t_self, *lockmode, &have_tuple_lock);
		return result;
	}

	CheckForSerializableConflictIn(rel, otid, BufferGetBlockNumber(buf));

	/* The old version's final xmax: us, plus any lockers that stay. */
	_bh_compute_new_xmax(HeapTupleHeaderGetRawXmax(oldtup.t_data),
						 oldtup.t_data->t_infomask, oldtup.t_data->t_infomask2,
						 xid, *lockmode, true,
						 &xmax_old_tuple, &infomask_old_tuple,
						 &infomask2_old_tuple);

	/* The new version inherits the lockers that remain, not our update. */
	_bh_new_version_xmax(oldtup.t_data, checked_lockers && !locker_remains,
						 &xmax_new_tuple, &infomask_new_tuple,
						 &infomask2_new_tuple);

	newtup->t_data->t_infomask &= ~HEAP_XACT_MASK;
	newtup->t_data->t_infomask2 &= ~HEAP2_XACT_MASK;
	HeapTupleHeaderSetXmin(newtup->t_data, xid);
	HeapTupleHeaderSetCmin(newtup->t_data, cid);
	newtup->t_data->t_infomask |= HEAP_UPDATED | infomask_new_tuple;
	newtup->t_data->t_infomask2 |= infomask2_new_tuple;
	HeapTupleHeaderSetXmax(newtup->t_data, xmax_new_tuple);

	HeapTupleHeaderAdjustCmax(oldtup.t_data, &cid, &iscombo);

	need_toast = (rel->rd_rel->relkind == RELKIND_RELATION ||
				  rel->rd_rel->relkind == RELKIND_MATVIEW) &&
		(HeapTupleHasExternal(&oldtup) || HeapTupleHasExternal(newtup) ||
		 newtup->t_len > TOAST_TUPLE_THRESHOLD);
	pagefree = _bh_page_free_space(page);
	newtupsize = MAXALIGN(newtup->t_len);
	heaptup = newtup;

	if (need_toast || newtupsize > pagefree)
	{
		uint16		infomask_lock,
					infomask2_lock;

		/*
		 * Lock the old version with our xid in its own record and let go
		 * of the buffer while TOAST works and another page is found.
		 * Concurrent updaters see our lock and wait; the final record
		 * below replaces it with xmax_old_tuple.
		 */
		_bh_compute_new_xmax(HeapTupleHeaderGetRawXmax(oldtup.t_data),
							 oldtup.t_data->t_infomask,
							 oldtup.t_data->t_infomask2,
							 xid, *lockmode, false,
							 &xmax_lock, &infomask_lock, &infomask2_lock);
		Assert(HEAP_XMAX_IS_LOCKED_ONLY(infomask_lock));
		state = blinkam_xlog_start(rel);
		htup = _bh_page_tuple(blinkam_xlog_register(state, buf, 0), offnum);
		_bh_set_xmax(htup, xmax_lock, infomask_lock, infomask2_lock);
		HeapTupleHeaderSetCmax(htup, cid, iscombo);
		htup->t_ctid = oldtup.t_self;
		blinkam_xlog_finish(state);
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		/* tests: hold the update here, its old page let go */
		blinkam_debug_pause(BLINKAM_PAUSE_HEAP_UPDATE_WINDOW);

		if (need_toast)
		{
			heaptup = heap_toast_insert_or_update(rel, newtup, &oldtup, 0);
			newtupsize = MAXALIGN(heaptup->t_len);
		}
		_bh_check_tuple_size(rel, heaptup->t_len);

		for (;;)
		{
			if (newtupsize > pagefree)
			{
				newbuf = _bh_get_insert_page(rel, heaptup->t_len, buf, NULL,
											 &new_is_new);
				break;
			}
			LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
			pagefree = _bh_page_free_space(page);
			if (newtupsize <= pagefree)
			{
				newbuf = buf;
				break;
			}
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		}
	}
	else
		newbuf = buf;

	/*
	 * While the page was let go, a FOR KEY SHARE locker may have joined our
	 * lock on the old version: that mode does not conflict with a non-key
	 * update's, so the locker did not wait, and the old version's xmax is
	 * now a MultiXact of our lock and its (a new one: a MultiXact never
	 * changes).  The xmax values computed before the window would drop
	 * its lock from both versions -- the row lock a foreign key check
	 * takes on the referenced row, so a DELETE of the new version would
	 * not wait for the check's transaction.  (heap_update, in PostgreSQL
	 * 15, drops it so.)  Recompute both from what the old version holds
	 * now, as for an update of a row we had locked ourselves: the old
	 * version gets the lockers and our update, the new one the lockers
	 * (our own lock among them, harmless: the new version is ours).
	 * Both pages are locked, nothing is registered yet: an error here
	 * leaves our lock-only xmax, which our abort voids.  Test: t/024
	 * case 4.
	 */
	if (TransactionIdIsValid(xmax_lock))
	{
		HeapTupleHeader now = _bh_page_tuple(page, offnum);

		if (HeapTupleHeaderGetRawXmax(now) != xmax_lock)
		{
			_bh_compute_new_xmax(HeapTupleHeaderGetRawXmax(now),
								 now->t_infomask, now->t_infomask2,
								 xid, *lockmode, true,
								 &xmax_old_tuple, &infomask_old_tuple,
								 &infomask2_old_tuple);
			_bh_new_version_xmax(now, false, &xmax_new_tuple,
								 &infomask_new_tuple, &infomask2_new_tuple);
			_bh_set_xmax(heaptup->t_data, xmax_new_tuple, infomask_new_tuple,
						 infomask2_new_tuple);
		}
		else if (TransactionIdIsValid(xmax_new_tuple) &&
				 !_bh_lockers_running(xmax_new_tuple, infomask_new_tuple))
		{
			/*
			 * The lockers the new version was to carry ended in the
			 * window.  Our snapshot kept VACUUM's cutoff at or below them
			 * (see _bh_new_version_xmax), unless old_snapshot_threshold
			 * let VACUUM pass it; either way they need not be carried.
			 */
			_bh_set_xmax(heaptup->t_data, InvalidTransactionId,
						 HEAP_XMAX_INVALID, 0);
		}

		/*
		 * SERIALIZABLE: the check above ran before the window.  A reader
		 * that began while the page was let go read the old version as
		 * live (its xmax only our lock) and took its predicate locks after
		 * that check, so the check is made again now, with both pages
		 * locked until the record below makes the update visible (heap
		 * checks only here).  An error leaves our lock-only xmax, which
		 * our abort voids.  specs/blinkheap_serializable_update.
		 */
		CheckForSerializableConflictIn(rel, otid, BufferGetBlockNumber(buf));
	}

	/*
	 * One record: the new version and the old version's xmax and forward
	 * link.  Pages are registered in the order they were locked.
	 */
	state = blinkam_xlog_start(rel);
	if (newbuf == buf)
		oldpage = newpage = blinkam_xlog_register(state, buf, 0);
	else if (BufferGetBlockNumber(newbuf) < BufferGetBlockNumber(buf))
	{
		newpage = blinkam_xlog_register(state, newbuf,
											new_is_new ? GENERIC_XLOG_FULL_IMAGE : 0);
		oldpage = blinkam_xlog_register(state, buf, 0);
	}
	else
	{
		oldpage = blinkam_xlog_register(state, buf, 0);
		newpage = blinkam_xlog_register(state, newbuf,
											new_is_new ? GENERIC_XLOG_FULL_IMAGE : 0);
	}
	if (new_is_new)
		_bh_init_page(newpage);
	_bh_place_tuple(rel, newpage, BufferGetBlockNumber(newbuf), heaptup);
	_bh_stamp_xmins(state, newpage);
	htup = _bh_page_tuple(oldpage, offnum);
	_bh_set_xmax(htup, xmax_old_tuple, infomask_old_tuple, infomask2_old_tuple);
	HeapTupleHeaderSetCmax(htup, cid, iscombo);
	htup->t_ctid = heaptup->t_self;
	blinkam_xlog_finish(state);

	if (newbuf != buf)
		UnlockReleaseBuffer(newbuf);
	UnlockReleaseBuffer(buf);
	_bh_release_tuplock(rel, &oldtup.t_self, *lockmode, &have_tuple_lock);
	pgstat_count_heap_update(rel, false);

	if (heaptup != newtup)
	{
		newtup->t_self = heaptup->t_self;
		heap_freetuple(heaptup);
	}
	return TM_Ok;
}

TM_Result
blinkheap_tuple_update(Relation rel, ItemPointer otid, TupleTableSlot *slot,
					   CommandId cid, Snapshot snapshot, Snapshot crosscheck,
					   bool wait, TM_FailureData *tmfd,
					   LockTupleMode *lockmode, bool *update_indexes)
{
	bool		shouldFree = true;
	HeapTuple	tuple = ExecFetchSlotHeapTuple(slot, true, &shouldFree);
	TM_Result	result;

	slot->tts_tableOid = RelationGetRelid(rel);
	tuple->t_tableOid = slot->tts_tableOid;
	result = _bh_update(rel, otid, tuple, cid, crosscheck, wait, tmfd,
						lockmode);
	ItemPointerCopy(&tuple->t_self, &slot->tts_tid);

	/* no HOT: every new version needs its own index entries */
	*update_indexes = result == TM_Ok;
	if (shouldFree)
		pfree(tuple);
	return result;
}

/*
 * Does a lock of ours, or an update we cannot see past, stand in the way
 * of locking a newer version in mode?  heap's test_lockmode_for_conflict:
 * TM_SelfModified means the version is ours already; *needwait asks the
 * caller to wait for xid and look again.
 */
static TM_Result
_bh_lockmode_conflict(MultiXactStatus status, TransactionId xid,
					  LockTupleMode mode, HeapTuple tup, bool *needwait)
{
	MultiXactStatus wanted = _bh_mxstatus_for(mode, false);

	*needwait = false;
	if (TransactionIdIsCurrentTransactionId(xid))
		return TM_SelfModified;
	if (TransactionIdIsInProgress(xid))
	{
		if (DoLockModesConflict(BH_STATUS_HWLOCK(status), BH_STATUS_HWLOCK(wanted)))
			*needwait = true;
		return TM_Ok;
	}
	if (TransactionIdDidAbort(xid))
		return TM_Ok;
	if (TransactionIdDidCommit(xid) && ISUPDATE_from_mxstatus(status) &&
		DoLockModesConflict(BH_STATUS_HWLOCK(status), BH_STATUS_HWLOCK(wanted)))
		return ItemPointerEquals(&tup->t_self, &tup->t_data->t_ctid) ?
			TM_Deleted : TM_Updated;
	return TM_Ok;
}

/*
 * Lock every newer version of a row in mode too (heap's
 * heap_lock_updated_tuple): a key-share lock taken on a version whose
 * update is in progress must hold on the new version as well, or the
 * updater could go on to delete the key.  ctid is the first newer
 * version, priorXmax the xid that created it.  No buffer lock may be
 * held on entry; each version's page is locked exclusively in turn (and
 * released while waiting); nothing is held on return.
 */
static TM_Result
_bh_lock_updated_tuple(Relation rel, TransactionId priorXmax,
					   ItemPointer ctid, TransactionId xid, LockTupleMode mode)
{
	ItemPointerData tupid = *ctid;

	if (ItemPointerIndicatesMovedPartitions(ctid))
		return TM_Ok;
	MultiXactIdSetOldestMember();

	for (;;)
	{
		HeapTupleData mytup;
		Buffer		buf;
		TM_Result	result = TM_Ok;
		uint16		old_infomask,
					old_infomask2;
		TransactionId xmax,
					new_xmax;
		uint16		new_infomask,
					new_infomask2;
		BlinkamXLogState *state;
		HeapTupleHeader htup;

		if (ItemPointerGetBlockNumber(&tupid) >= RelationGetNumberOfBlocks(rel) ||
			!_bh_read_for_write(rel, &tupid, &mytup, &buf))
			return TM_Ok;

l4:
		CHECK_FOR_INTERRUPTS();
		if ((TransactionIdIsValid(priorXmax) &&
			 !TransactionIdEquals(HeapTupleHeaderGetXmin(mytup.t_data), priorXmax)) ||
			TransactionIdDidAbort(HeapTupleHeaderGetXmin(mytup.t_data)))
		{
			/* the chain ends here */
			UnlockReleaseBuffer(buf);
			return TM_Ok;
		}

		old_infomask = mytup.t_data->t_infomask;
		old_infomask2 = mytup.t_data->t_infomask2;
		xmax = HeapTupleHeaderGetRawXmax(mytup.t_data);

		if (!(old_infomask & HEAP_XMAX_INVALID))
		{
			bool		needwait;

			if (old_infomask & HEAP_XMAX_IS_MULTI)
			{
				MultiXactMember *members;
				int			n,
							i;
				TransactionId waitfor = InvalidTransactionId;

				n = GetMultiXactIdMembers(xmax, &members, false,
										  HEAP_XMAX_IS_LOCKED_ONLY(old_infomask));
				for (i = 0; i < n; i++)
				{
					result = _bh_lockmode_conflict(members[i].status,
												   members[i].xid, mode,
												   &mytup, &needwait);
					if (needwait)
						waitfor = members[i].xid;
					if (result != TM_Ok || needwait)
						break;
				}
				if (n > 0)
					pfree(members);
				if (TransactionIdIsValid(waitfor))
				{
					LockBuffer(buf, BUFFER_LOCK_UNLOCK);
					XactLockTableWait(waitfor, rel, &mytup.t_self,
									  XLTW_LockUpdated);
					LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
					goto l4;
				}
			}
			else
			{
				result = _bh_lockmode_conflict(_bh_single_xmax_status(old_infomask,
																	  old_infomask2),
											   xmax, mode, &mytup, &needwait);
				if (needwait)
				{
					LockBuffer(buf, BUFFER_LOCK_UNLOCK);
					XactLockTableWait(xmax, rel, &mytup.t_self, XLTW_LockUpdated);
					LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
					goto l4;
				}
			}
			if (result != TM_Ok && result != TM_SelfModified)
			{
				UnlockReleaseBuffer(buf);
				return result;
			}
		}

		if (result != TM_SelfModified)
		{
			_bh_compute_new_xmax(xmax, old_infomask, old_infomask2, xid, mode,
								 false, &new_xmax, &new_infomask, &new_infomask2);
			state = blinkam_xlog_start(rel);
			htup = _bh_page_tuple(blinkam_xlog_register(state, buf, 0),
								  ItemPointerGetOffsetNumber(&tupid));
			/* an updated version keeps its forward link */
			_bh_set_xmax(htup, new_xmax, new_infomask, new_infomask2);
			blinkam_xlog_finish(state);
		}

		if ((mytup.t_data->t_infomask & HEAP_XMAX_INVALID) ||
			HeapTupleHeaderIndicatesMovedPartitions(mytup.t_data) ||
			ItemPointerEquals(&mytup.t_self, &mytup.t_data->t_ctid) ||
			HeapTupleHeaderIsOnlyLocked(mytup.t_data))
		{
			UnlockReleaseBuffer(buf);
			return TM_Ok;
		}
		priorXmax = HeapTupleHeaderGetUpdateXid(mytup.t_data);
		tupid = mytup.t_data->t_ctid;
		UnlockReleaseBuffer(buf);
	}
}

/*
 * _bh_lock_tuple: lock the tuple at tuple->t_self in mode (heap_lock_tuple).
 *
 * On return *buffer holds a pin (no lock) on the tuple's page and
 * tuple->t_data points at it, whatever the result; if the TID names no
 * tuple, *buffer is InvalidBuffer and TM_Invisible is returned.
 */
static TM_Result
_bh_lock_tuple(Relation rel, HeapTuple tuple, CommandId cid,
			   LockTupleMode mode, LockWaitPolicy wait_policy,
			   bool follow_updates, Buffer *buffer, TM_FailureData *tmfd)
{
	ItemPointerData tid = tuple->t_self;
	TM_Result	result;
	bool		first_time = true;
	bool		skip_tuple_lock = false;
	bool		have_tuple_lock = false;
	TransactionId xid,
				xmax;
	uint16		old_infomask,
				new_infomask,
				new_infomask2;
	BlinkamXLogState *state;
	HeapTupleHeader htup;

	if (!_bh_read_for_write(rel, &tid, tuple, buffer))
	{
		*buffer = InvalidBuffer;
		tmfd->ctid = tid;
		tmfd->xmax = InvalidTransactionId;
		tmfd->cmax = InvalidCommandId;
		return TM_Invisible;
	}

l3:
	result = _bh_satisfies_update(tuple, cid);
	if (result == TM_Invisible)
	{
		/* only ON CONFLICT DO UPDATE gets here; it raises its own error */
		goto out_locked;
	}
	else if (result == TM_BeingModified || result == TM_Updated ||
			 result == TM_Deleted)
	{
		TransactionId xwait = HeapTupleHeaderGetRawXmax(tuple->t_data);
		uint16		infomask = tuple->t_data->t_infomask;
		uint16		infomask2 = tuple->t_data->t_infomask2;
		ItemPointerData t_ctid = tuple->t_data->t_ctid;
		bool		require_sleep;
		bool		xwait_gone = false;

		LockBuffer(*buffer, BUFFER_LOCK_UNLOCK);

		/*
		 * If our transaction already holds a lock at least this strong, we
		 * have what we want (and must not queue behind others for it).
		 */
		if (first_time)
		{
			first_time = false;
			if (infomask & HEAP_XMAX_IS_MULTI)
			{
				MultiXactMember *members;
				int			n,
							i;

				n = GetMultiXactIdMembers(xwait, &members, false,
										  HEAP_XMAX_IS_LOCKED_ONLY(infomask));
				for (i = 0; i < n; i++)
				{
					if (!TransactionIdIsCurrentTransactionId(members[i].xid))
						continue;
					if (bh_status_mode[members[i].status] >= mode)
					{
						pfree(members);
						result = TM_Ok;
						goto out_unlocked;
					}
					/* upgrading our weaker lock: do not queue on the tuple */
					skip_tuple_lock = true;
				}
				if (n > 0)
					pfree(members);
			}
			else if (TransactionIdIsCurrentTransactionId(xwait))
			{
				bool		have = false;

				switch (mode)
				{
					case LockTupleKeyShare:
						have = true;
						break;
					case LockTupleShare:
						have = HEAP_XMAX_IS_SHR_LOCKED(infomask) ||
							HEAP_XMAX_IS_EXCL_LOCKED(infomask);
						break;
					case LockTupleNoKeyExclusive:
						have = HEAP_XMAX_IS_EXCL_LOCKED(infomask);
						break;
					case LockTupleExclusive:
						have = HEAP_XMAX_IS_EXCL_LOCKED(infomask) &&
							(infomask2 & HEAP_KEYS_UPDATED);
						break;
				}
				if (have)
				{
					result = TM_Ok;
					goto out_unlocked;
				}
			}
		}

		/* Cases where the existing xmax does not conflict with mode. */
		require_sleep = true;
		if (mode == LockTupleKeyShare)
		{
			if (!(infomask2 & HEAP_KEYS_UPDATED))
			{
				bool		updated = !HEAP_XMAX_IS_LOCKED_ONLY(infomask);

				/* lock the newer versions too, before relocking */
				if (follow_updates && updated &&
					!ItemPointerEquals(&tuple->t_self, &t_ctid))
				{
					TM_Result	res;
					TransactionId prior;

					prior = (infomask & HEAP_XMAX_IS_MULTI) ?
						_bh_multi_update_xid(xwait, infomask) : xwait;
					res = _bh_lock_updated_tuple(rel, prior, &t_ctid,
												 _bh_writer_xid(),
												 mode);
					if (res != TM_Ok)
					{
						result = res;
						LockBuffer(*buffer, BUFFER_LOCK_EXCLUSIVE);
						goto failed;
					}
				}
				LockBuffer(*buffer, BUFFER_LOCK_EXCLUSIVE);
				if (!HeapTupleHeaderIsOnlyLocked(tuple->t_data) &&
					((tuple->t_data->t_infomask2 & HEAP_KEYS_UPDATED) ||
					 !updated))
					goto l3;
				require_sleep = false;
			}
		}
		else if (mode == LockTupleShare)
		{
			if (HEAP_XMAX_IS_LOCKED_ONLY(infomask) &&
				!HEAP_XMAX_IS_EXCL_LOCKED(infomask))
			{
				LockBuffer(*buffer, BUFFER_LOCK_EXCLUSIVE);
				if (!HEAP_XMAX_IS_LOCKED_ONLY(tuple->t_data->t_infomask) ||
					HEAP_XMAX_IS_EXCL_LOCKED(tuple->t_data->t_infomask))
					goto l3;
				require_sleep = false;
			}
		}
		else if (mode == LockTupleNoKeyExclusive)
		{
			if ((infomask & HEAP_XMAX_IS_MULTI) ?
				!_bh_multi_conflicts(xwait, infomask, mode, NULL) :
				HEAP_XMAX_IS_KEYSHR_LOCKED(infomask))
			{
				LockBuffer(*buffer, BUFFER_LOCK_EXCLUSIVE);
				if (_bh_xmax_changed(tuple->t_data->t_infomask, infomask) ||
					!TransactionIdEquals(HeapTupleHeaderGetRawXmax(tuple->t_data), xwait))
					goto l3;
				require_sleep = false;
			}
		}

		/* We alone lock it (whatever the strength): no need to wait. */
		if (require_sleep && !(infomask & HEAP_XMAX_IS_MULTI) &&
			TransactionIdIsCurrentTransactionId(xwait))
		{
			LockBuffer(*buffer, BUFFER_LOCK_EXCLUSIVE);
			if (_bh_xmax_changed(tuple->t_data->t_infomask, infomask) ||
				!TransactionIdEquals(HeapTupleHeaderGetRawXmax(tuple->t_data), xwait))
				goto l3;
			Assert(HEAP_XMAX_IS_LOCKED_ONLY(tuple->t_data->t_infomask));
			require_sleep = false;
		}

		if (require_sleep && (result == TM_Updated || result == TM_Deleted))
		{
			/* a committed update: waiting cannot help */
			LockBuffer(*buffer, BUFFER_LOCK_EXCLUSIVE);
			goto failed;
		}
		else if (require_sleep)
		{
			if (!skip_tuple_lock &&
				!_bh_acquire_tuplock(rel, &tid, mode, wait_policy,
									 &have_tuple_lock))
			{
				result = TM_WouldBlock;
				LockBuffer(*buffer, BUFFER_LOCK_EXCLUSIVE);
				goto failed;
			}

			if (infomask & HEAP_XMAX_IS_MULTI)
			{
				MultiXactStatus status = _bh_mxstatus_for(mode, false);

				switch (wait_policy)
				{
					case LockWaitBlock:
						_bh_multi_wait(xwait, status, infomask, false, rel,
									   &tid, XLTW_Lock, NULL);
						break;
					case LockWaitSkip:
						if (!_bh_multi_wait(xwait, status, infomask, true, rel,
											NULL, XLTW_None, NULL))
						{
							result = TM_WouldBlock;
							LockBuffer(*buffer, BUFFER_LOCK_EXCLUSIVE);
							goto failed;
						}
						break;
					case LockWaitError:
						if (!_bh_multi_wait(xwait, status, infomask, true, rel,
											NULL, XLTW_None, NULL))
							ereport(ERROR,
									(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
									 errmsg("could not obtain lock on row in relation \"%s\"",
											RelationGetRelationName(rel))));
						break;
				}
			}
			else
			{
				switch (wait_policy)
				{
					case LockWaitBlock:
						XactLockTableWait(xwait, rel, &tid, XLTW_Lock);
						break;
					case LockWaitSkip:
						if (!ConditionalXactLockTableWait(xwait))
						{
							result = TM_WouldBlock;
							LockBuffer(*buffer, BUFFER_LOCK_EXCLUSIVE);
							goto failed;
						}
						break;
					case LockWaitError:
						if (!ConditionalXactLockTableWait(xwait))
							ereport(ERROR,
									(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
									 errmsg("could not obtain lock on row in relation \"%s\"",
											RelationGetRelationName(rel))));
						break;
				}
			}

			if (follow_updates && !HEAP_XMAX_IS_LOCKED_ONLY(infomask) &&
				!ItemPointerEquals(&tuple->t_self, &t_ctid))
			{
				TM_Result	res;
				TransactionId prior;

				prior = (infomask & HEAP_XMAX_IS_MULTI) ?
					_bh_multi_update_xid(xwait, infomask) : xwait;
				res = _bh_lock_updated_tuple(rel, prior, &t_ctid,
											 _bh_writer_xid(), mode);
				if (res != TM_Ok)
				{
					result = res;
					LockBuffer(*buffer, BUFFER_LOCK_EXCLUSIVE);
					goto failed;
				}
			}

			LockBuffer(*buffer, BUFFER_LOCK_EXCLUSIVE);
			if (_bh_xmax_changed(tuple->t_data->t_infomask, infomask) ||
				!TransactionIdEquals(HeapTupleHeaderGetRawXmax(tuple->t_data), xwait))
				goto l3;
			if (!(infomask & HEAP_XMAX_IS_MULTI))
				xwait_gone = HEAP_XMAX_IS_LOCKED_ONLY(infomask) ||
					!TransactionIdDidCommit(xwait);
		}

		/*
		 * We may lock it if we did not have to wait, or the xmax we waited
		 * for was a locker or aborted.
		 */
		if (!require_sleep || xwait_gone ||
			(tuple->t_data->t_infomask & HEAP_XMAX_INVALID) ||
			HEAP_XMAX_IS_LOCKED_ONLY(tuple->t_data->t_infomask) ||
			HeapTupleHeaderIsOnlyLocked(tuple->t_data))
			result = TM_Ok;
		else if (!ItemPointerEquals(&tuple->t_self, &tuple->t_data->t_ctid))
			result = TM_Updated;
		else
			result = TM_Deleted;
	}

failed:
	if (result != TM_Ok)
	{
		Assert(result == TM_SelfModified || result == TM_Updated ||
			   result == TM_Deleted || result == TM_WouldBlock);
		_bh_fill_tmfd(tmfd, tuple, result);
		goto out_locked;
	}

	xmax = HeapTupleHeaderGetRawXmax(tuple->t_data);
	old_infomask = tuple->t_data->t_infomask;
	MultiXactIdSetOldestMember();
	_bh_compute_new_xmax(xmax, old_infomask, tuple->t_data->t_infomask2,
						 _bh_writer_xid(), mode, false,
						 &xid, &new_infomask, &new_infomask2);

	state = blinkam_xlog_start(rel);
	htup = _bh_page_tuple(blinkam_xlog_register(state, *buffer, 0),
						  ItemPointerGetOffsetNumber(&tid));
	_bh_set_xmax(htup, xid, new_infomask, new_infomask2);
	/* a lock leaves no forward link; an updated tuple keeps its own */
	if (HEAP_XMAX_IS_LOCKED_ONLY(new_infomask))
		htup->t_ctid = tid;
	blinkam_xlog_finish(state);
	result = TM_Ok;

out_locked:
	LockBuffer(*buffer, BUFFER_LOCK_UNLOCK);

out_unlocked:
	_bh_release_tuplock(rel, &tid, mode, &have_tuple_lock);
	return result;
}

/*
 * tuple_lock: lock a row and, with TUPLE_LOCK_FLAG_FIND_LAST_VERSION,
 * follow its update chain to the newest version first (EvalPlanQual under
 * READ COMMITTED), reporting tmfd->traversed.  On return the slot holds
 * the tuple and a pin on its page (no lock), whatever the result, unless
 * the row was not found at all.
 */
TM_Result
blinkheap_tuple_lock(Relation rel, ItemPointer tid, Snapshot snapshot,
					 TupleTableSlot *slot, CommandId cid, LockTupleMode mode,
					 LockWaitPolicy wait_policy, uint8 flags,
					 TM_FailureData *tmfd)
{
	BufferHeapTupleTableSlot *bslot = (BufferHeapTupleTableSlot *) slot;
	HeapTuple	tuple = &bslot->base.tupdata;
	bool		follow_updates = (flags & TUPLE_LOCK_FLAG_LOCK_UPDATE_IN_PROGRESS) != 0;
	TM_Result	result;
	Buffer		buffer;

	Assert(TTS_IS_BUFFERTUPLE(slot));
	tmfd->traversed = false;

retry:
	tuple->t_self = *tid;
	result = _bh_lock_tuple(rel, tuple, cid, mode, wait_policy,
							follow_updates, &buffer, tmfd);
	if (!BufferIsValid(buffer))
		return TM_Deleted;

	if (result == TM_Updated && (flags & TUPLE_LOCK_FLAG_FIND_LAST_VERSION))
	{
		SnapshotData SnapshotDirty;
		TransactionId priorXmax;

		ReleaseBuffer(buffer);
		if (ItemPointerEquals(&tmfd->ctid, &tuple->t_self))
			return TM_Deleted;

		priorXmax = tmfd->xmax;
		tmfd->traversed = true;
		*tid = tmfd->ctid;
		InitDirtySnapshot(SnapshotDirty);

		for (;;)
		{
			if (ItemPointerIndicatesMovedPartitions(tid))
				ereport(ERROR,
						(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
						 errmsg("tuple to be locked was already moved to another partition due to concurrent update")));

			tuple->t_self = *tid;
			if (_bh_fetch(rel, &SnapshotDirty, tuple, &buffer, true, NULL))
			{
				/* the chain was broken: the row we followed is gone */
				if (!TransactionIdEquals(HeapTupleHeaderGetXmin(tuple->t_data),
										 priorXmax))
				{
					ReleaseBuffer(buffer);
					return TM_Deleted;
				}
				/* the updater committed, so its new version cannot be uncommitted */
				if (TransactionIdIsValid(SnapshotDirty.xmin))
					ereport(ERROR,
							(errcode(ERRCODE_DATA_CORRUPTED),
							 errmsg_internal("t_xmin %u is uncommitted in tuple (%u,%u) to be updated in table \"%s\"",
											 SnapshotDirty.xmin,
											 ItemPointerGetBlockNumber(&tuple->t_self),
											 ItemPointerGetOffsetNumber(&tuple->t_self),
											 RelationGetRelationName(rel))));
				/* being updated again: wait for that, then look again */
				if (TransactionIdIsValid(SnapshotDirty.xmax))
				{
					ReleaseBuffer(buffer);
					switch (wait_policy)
					{
						case LockWaitBlock:
							XactLockTableWait(SnapshotDirty.xmax, rel,
											  &tuple->t_self, XLTW_FetchUpdated);
							break;
						case LockWaitSkip:
							if (!ConditionalXactLockTableWait(SnapshotDirty.xmax))
								return TM_WouldBlock;
							break;
						case LockWaitError:
							if (!ConditionalXactLockTableWait(SnapshotDirty.xmax))
								ereport(ERROR,
										(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
										 errmsg("could not obtain lock on row in relation \"%s\"",
												RelationGetRelationName(rel))));
							break;
					}
					continue;
				}
				/* our own later command made this version */
				if (TransactionIdIsCurrentTransactionId(priorXmax) &&
					HeapTupleHeaderGetCmin(tuple->t_data) >= cid)
				{
					tmfd->xmax = priorXmax;
					tmfd->cmax = HeapTupleHeaderGetCmin(tuple->t_data);
					ReleaseBuffer(buffer);
					return TM_SelfModified;
				}
				ReleaseBuffer(buffer);
				goto retry;
			}

			/* not visible even to a dirty snapshot */
			if (tuple->t_data == NULL)
				return TM_Deleted;
			if (!TransactionIdEquals(HeapTupleHeaderGetXmin(tuple->t_data),
									 priorXmax) ||
				ItemPointerEquals(&tuple->t_self, &tuple->t_data->t_ctid))
			{
				ReleaseBuffer(buffer);
				return TM_Deleted;
			}
			/* updated again and committed: follow on */
			priorXmax = HeapTupleHeaderGetUpdateXid(tuple->t_data);
			*tid = tuple->t_data->t_ctid;
			ReleaseBuffer(buffer);
		}
	}

	slot->tts_tableOid = RelationGetRelid(rel);
	tuple->t_tableOid = slot->tts_tableOid;
	ExecStorePinnedBufferHeapTuple(tuple, slot, buffer);
	return result;
}
