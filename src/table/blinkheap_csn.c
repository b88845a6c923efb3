/*-------------------------------------------------------------------------
 *
 * blinkheap_csn.c
 *	  Commit sequence numbers: cheap, exact MVCC checks for recent xids.
 *
 * PostgreSQL decides whether a recent transaction's row is visible to an
 * MVCC snapshot by searching the snapshot's array of running xids
 * (XidInMVCCSnapshot), then clog.  With hundreds of open transactions that
 * search is the cost of every recent tuple.  Here a transaction that wrote
 * blinkheap tuples gets a commit sequence number (CSN) when it commits;
 * a reader turns its snapshot, once, into a CSN horizon plus two tiny
 * exception sets, and a recent tuple then costs one lookup in a shared map
 * and one comparison.  The answer is always the one PostgreSQL's snapshot
 * gives: the CSN only short-cuts what the xid snapshot decides anyway.
 *
 * Shared state (one segment), all read and written without locks:
 *	  next_csn      the last CSN handed out (0: none yet); atomic.
 *	  committing[]  one slot per PGPROC (pgprocno): the top-level xid of a
 *	                transaction of that backend that is between PRE_COMMIT
 *	                and having written its CSN's map entries, else 0.
 *	                Written by the owner only.
 *	  map[]         xid -> (CSN, top-level xid), a ring of
 *	                BLINKHEAP_CSN_MAP_SIZE entries indexed by the full
 *	                (epoch-qualified) xid; a newer xid overwrites an older
 *	                one in its slot (csn_map_evictions).  A writer claims an
 *	                entry by swapping its fxid word for CSN_ENTRY_BUSY, and
 *	                puts the new fxid last; a reader compares the fxid word
 *	                before and after reading, so it sees a whole entry or a
 *	                miss.
 *
 * Commit (xact callbacks; only for transactions that wrote blinkheap
 * tuples with their xid, noted by blinkheap_csn_note_write):
 *	  PRE_COMMIT  committing[me] := top xid; full barrier.  This is before
 *	              RecordTransactionCommit and ProcArrayEndTransaction.
 *	  COMMIT      (after ProcArrayEndTransaction): csn := atomic
 *	              ++next_csn (a full barrier); map[top] and map[each
 *	              committed subxid] := (csn, top); write barrier;
 *	              committing[me] := 0.
 *	  ABORT       committing[me] := 0.  PREPARE: never marked, so a
 *	              prepared transaction gets no CSN (the slow path decides).
 *
 * A snapshot's view (built once per snapshot content, see below), read in
 * this order with read barriers between: H0 := next_csn; C := the
 * committing slots' xids; H1 := next_csn.  Then:
 *	  E1 (invisible although they look committed) := xids x in xip that are
 *	      in C or whose map entry has csn <= H0.
 *	  E2 (visible although their CSN is unknown or above H0) := xids c in
 *	      C, xmin <= c < xmax, not in xip, that clog says committed.
 *
 * Per xid x (not ours; the caller asked TransactionIdIsCurrentTransactionId):
 *	  x < xmin: committed per clog -> visible; x >= xmax: invisible;
 *	  map entry (csn, top) found: top < xmin or top in E2 -> visible;
 *	  top in E1 or csn > H1 -> invisible; H0 < csn <= H1 (numbered while
 *	  the view was being built) -> the slow path; csn <= H0 -> visible
 *	  (for a subxid, only while top's own entry is still in the map: see
 *	  "Eviction"); not found (never assigned, evicted, prepared,
 *	  standby, after a restart, CSNs off): XidInMVCCSnapshot and clog,
 *	  exactly as PostgreSQL.
 *
 * Why it agrees with the snapshot.  Let T be a top-level transaction with
 * a CSN and xmin <= T < xmax, and let the snapshot be taken at time t, its
 * view built at b >= t.  T sets its slot before it takes its CSN and
 * clears it after writing its entries, so a reader that saw T's CSN in
 * next_csn and then reads T's slot sees it set, or cleared with the
 * entries already visible (the usual publish/observe pairing of the
 * barriers above).
 *	(a) T in xip (running at t).  csn <= H0: T's number was taken before
 *	    H0 was read, so at the slot read T was in C (then T is in E1) or
 *	    had its entries out (then the E1 pass, after the slot read, finds
 *	    T's own entry -- unless it was evicted: "Eviction" below).
 *	    csn > H1: the comparison says invisible.  In between: the slow
 *	    path.  Either way: invisible.
 *	(b) T not in xip (it left the proc array before t).  Its slot was set
 *	    before that (PRE_COMMIT precedes ProcArrayEndTransaction, which
 *	    takes ProcArrayLock: a barrier).  csn <= H0: visible, and T is not
 *	    in E1, which holds xip members only.  csn > H1: T took its number
 *	    after H1 was read, after the slot read, and cleared its slot after
 *	    that, so the slot read saw T in C; T left the proc array, so clog
 *	    is final and T is in E2 (an aborted T is not added, and never gets
 *	    a CSN).  In between: the slow path.  Either way: visible.
 * And a T below xmin whose subxid s is at or above xmin (an xid between
 * them was still running at t):
 *	(c) T was not running at t, and s is mapped only once T has
 *	    committed: visible, whatever the CSN.  E2 does not hold T (only
 *	    committing xids in [xmin, xmax)), so top < xmin is asked before
 *	    any comparison with H1: a T that was committing while the view
 *	    was built, numbered after H1, would otherwise make s invisible
 *	    (specs/csn_subxid_below_xmin; in READ COMMITTED the view then
 *	    served every statement until the snapshot's content changed).
 * A subtransaction's xid maps to its top-level xid, which is what xip
 * holds; only committed subxids are mapped, so a mapped subxid is
 * committed whenever its top is.  A stale committing slot (a backend that
 * died between PRE_COMMIT and its callbacks) is harmless: its xid is
 * judged by xip and clog like any member of C.
 *
 * Eviction.  Entries are overwritten by xids 2^16 apart, in either order
 * (an old transaction committing late takes a newer one's slot), so T's
 * own entry can be gone while an entry of its subxid s stays.  If that
 * happened before the E1 pass, T is missing from E1 although it is in
 * xip, and s would look visible.  So for a subxid the answer "csn <= H0,
 * top not in E1" is trusted only if top is below xmin (not in xip) or
 * top's own entry is found at check time with the same CSN: when T is not
 * in C, its entries were written before its slot was cleared, before the
 * slot read, and an entry never comes back once overwritten, so found now
 * means found during the E1 pass.  The other answers (top in
 * E2, csn > H, top in E1) do not depend on E1 being complete.
 *
 * Our own xids.  A snapshot never lists our own xid, so a view built while
 * this backend held xid Y treats Y as not in xip without Y having left the
 * proc array: Y had no CSN <= H and was not in C.  After Y ends, a
 * snapshot with the same content key can differ from it exactly there (Y
 * committed must now be visible; Y prepared is now listed in place of an
 * xid that ended).  So the view is dropped whenever a transaction of ours
 * that had an xid ends (commit, abort, prepare).  Within one transaction
 * our xids leave out the same members of every snapshot (a new xid is >=
 * the xmax of every earlier snapshot), and our own rows are decided before
 * this code is asked.
 *
 * Why the view may be reused.  For one xmax, the set of running xids below
 * xmax only shrinks over time (a new xid is >= xmax), and every fact (a)
 * and (b) use -- which transactions had left the proc array, and so had a
 * CSN or were committing when the view was built -- depends only on that
 * set.  So a view serves every snapshot with the same xmin, xmax and xip
 * array (compared entry by entry: counts alone are not enough, since
 * PREPARE TRANSACTION briefly lists its xid twice, and a snapshot taken
 * then can have the count of one with a different set), provided both
 * leave out the same xids of ours ("Our own xids" above).  subxip is not
 * used: a subxid is judged through its top.
 *
 * Reuse.  The comparison costs O(xcnt), about what XidInMVCCSnapshot
 * costs, so it is made once per visibility check or once per page: every
 * entry point (_bh_satisfies, and the page loops of the scans before
 * their first tuple) calls _bh_csn_forget, and the first CSN check after
 * it compares the snapshot and marks it trusted; later checks with the
 * same snapshot pointer skip the comparison.  The pointer is only trusted
 * within that one check or page, while the caller keeps the snapshot
 * alive, so a freed snapshot's address reused by another cannot be
 * mistaken for it.
 *
 * Snapshots taken during recovery hold every xid in subxip and there are
 * no CSNs on a standby: they always take the slow path.
 *
 * src/table/blinkheap_csn.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "access/twophase.h"
#include "access/xact.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/s_lock.h"
#include "storage/shmem.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "common/counters.h"
#include "common/settings.h"
#include "common/shmem.h"
#include "table/blinkheap.h"

/* Entries in the xid -> CSN map (a power of two). */
#define BLINKHEAP_CSN_MAP_SIZE	(1 << 16)

typedef struct CsnMapEntry
{
	pg_atomic_uint64 fxid;		/* full xid, 0 while empty or being written */
	uint64		csn;
	TransactionId top;			/* its top-level xid */
	uint32		pad;
} CsnMapEntry;

typedef struct CsnShared
{
	pg_atomic_uint64 next_csn;	/* the last CSN handed out */
	int			nslots;			/* entries of committing[] */
	CsnMapEntry map[BLINKHEAP_CSN_MAP_SIZE];
	pg_atomic_uint32 committing[FLEXIBLE_ARRAY_MEMBER];
} CsnShared;

static CsnShared *Csn = NULL;

/* A map entry's fxid while one committer writes it. */
#define CSN_ENTRY_BUSY	PG_UINT64_MAX

/* This transaction put its xid into blinkheap tuples. */
static bool csn_wrote = false;
/* ... and set its committing slot at PRE_COMMIT. */
static bool csn_marked = false;

/* Checks not yet added to the shared counters (added at transaction end). */
static uint64 csn_fast_pending = 0;
static uint64 csn_slow_pending = 0;

/*
 * The view of the last snapshot content this backend asked about.  The
 * exception arrays live in TopMemoryContext and only grow.
 */
typedef struct CsnView
{
	bool		valid;
	/* the key: the snapshot content it was built for */
	TransactionId xmin;
	TransactionId xmax;
	uint32		xcnt;
	/* the full xid of xmax, to qualify tuple xids with their epoch */
	FullTransactionId full_xmax;
	uint64		horizon;		/* H0 */
	uint64		horizon_after;	/* H1 */
	int			ninvisible;
	int			nvisible;
	int			capacity;		/* of each of the three arrays */
	TransactionId *invisible;	/* E1 */
	TransactionId *visible;		/* E2 */
	/* the snapshot's xip it was built for (xcnt entries), to compare */
	TransactionId *xip;
	/* the last xid decided by its CSN under this view, and the answer */
	TransactionId last_xid;
	bool		last_visible;
	/* a snapshot checked against the view since the last _bh_csn_forget */
	Snapshot	trusted;
} CsnView;

static CsnView view;

static Size
csn_shmem_size(void)
{
	return add_size(offsetof(CsnShared, committing),
					mul_size(sizeof(pg_atomic_uint32),
							 MaxBackends + NUM_AUXILIARY_PROCS + max_prepared_xacts));
}

static void
csn_shmem_init(void)
{
	bool		found;

	Csn = ShmemInitStruct("blinkam csn", csn_shmem_size(), &found);
	if (!found)
	{
		pg_atomic_init_u64(&Csn->next_csn, 0);
		Csn->nslots = MaxBackends + NUM_AUXILIARY_PROCS + max_prepared_xacts;
		for (int i = 0; i < BLINKHEAP_CSN_MAP_SIZE; i++)
		{
			pg_atomic_init_u64(&Csn->map[i].fxid, 0);
			Csn->map[i].csn = 0;
			Csn->map[i].top = InvalidTransactionId;
		}
		for (int i = 0; i < Csn->nslots; i++)
			pg_atomic_init_u32(&Csn->committing[i], InvalidTransactionId);
	}
}

static inline CsnMapEntry *
csn_entry(FullTransactionId fxid)
{
	return &Csn->map[U64FromFullTransactionId(fxid) & (BLINKHEAP_CSN_MAP_SIZE - 1)];
}

/*
 * Write a map entry.  Two committers can want the same entry (xids 2^16
 * apart), so a writer first claims it by swapping its fxid for
 * CSN_ENTRY_BUSY; readers compare fxid before and after reading csn and
 * top, so they see either a whole entry or a miss.  A claim is held for
 * four stores; a writer that finds it held waits as for a spinlock
 * (s_lock.c's backoff: spins, then sleeps growing to a second), so that a
 * holder that lost its processor is not spun against for a whole time
 * slice.
 */
static void
csn_map_store(FullTransactionId fxid, TransactionId top, uint64 csn)
{
	CsnMapEntry *e = csn_entry(fxid);
	uint64		old;
	SpinDelayStatus delay;

	init_local_spin_delay(&delay);
	for (;;)
	{
		old = pg_atomic_read_u64(&e->fxid);
		if (old != CSN_ENTRY_BUSY &&
			pg_atomic_compare_exchange_u64(&e->fxid, &old, CSN_ENTRY_BUSY))
			break;
		perform_spin_delay(&delay);
	}
	finish_spin_delay(&delay);
	if (old != 0 && old != U64FromFullTransactionId(fxid))
		blinkam_count(BLINKAM_COUNTER_CSN_MAP_EVICTIONS, 1);
	/* tests: the entry is busy; a reader must take it for a miss */
	blinkam_debug_pause(BLINKAM_PAUSE_CSN_ENTRY_BUSY);
	e->csn = csn;
	e->top = top;
	pg_write_barrier();
	pg_atomic_write_u64(&e->fxid, U64FromFullTransactionId(fxid));
}

/* Without a lock: false unless a complete entry for fxid was read. */
static inline bool
csn_map_lookup(FullTransactionId fxid, uint64 *csn, TransactionId *top)
{
	CsnMapEntry *e = csn_entry(fxid);
	uint64		want = U64FromFullTransactionId(fxid);

	if (pg_atomic_read_u64(&e->fxid) != want)
		return false;
	pg_read_barrier();
	*csn = e->csn;
	*top = e->top;
	pg_read_barrier();
	return pg_atomic_read_u64(&e->fxid) == want;
}

/*
 * The full xid of a subtransaction of top: xids are handed out in order,
 * so a child's 32-bit value below its parent's means the epoch wrapped in
 * between.
 */
static FullTransactionId
csn_child_fxid(FullTransactionId top, TransactionId child)
{
	uint32		epoch = EpochFromFullTransactionId(top);

	if (child < XidFromFullTransactionId(top))
		epoch++;
	return FullTransactionIdFromEpochAndXid(epoch, child);
}

/*
 * The full xid of x, which is not after ref and less than 2^31 before it:
 * a 32-bit value above ref's means the epoch before.  (Before epoch 0 the
 * epoch wraps to 2^32 - 1, which no map entry has: a lookup misses.)
 */
static inline FullTransactionId
csn_fxid_not_after(FullTransactionId ref, TransactionId x)
{
	uint32		epoch = EpochFromFullTransactionId(ref);

	if (x > XidFromFullTransactionId(ref))
		epoch--;
	return FullTransactionIdFromEpochAndXid(epoch, x);
}

/* The full xid of x, a normal xid with xmin <= x < xmax of the view. */
static inline FullTransactionId
csn_view_fxid(TransactionId x)
{
	return csn_fxid_not_after(view.full_xmax, x);
}

/*
 * Before a visibility check, or a page's worth of checks, under one
 * snapshot: the next check compares the snapshot with the view again.
 */
void
_bh_csn_forget(void)
{
	view.trusted = NULL;
}

/* From every blinkheap path that stamps our xid into a tuple. */
void
blinkheap_csn_note_write(void)
{
	csn_wrote = true;
}

static void
csn_flush_counts(void)
{
	if (csn_fast_pending)
		blinkam_count(BLINKAM_COUNTER_CSN_FAST_CHECKS, csn_fast_pending);
	if (csn_slow_pending)
		blinkam_count(BLINKAM_COUNTER_CSN_SLOW_CHECKS, csn_slow_pending);
	csn_fast_pending = csn_slow_pending = 0;
}

static void
csn_clear_slot(void)
{
	pg_atomic_write_u32(&Csn->committing[MyProc->pgprocno], InvalidTransactionId);
	csn_marked = false;
}

static void
csn_assign(void)
{
	FullTransactionId top = GetTopFullTransactionIdIfAny();
	TransactionId *children;
	int			nchildren = xactGetCommittedChildren(&children);

	if (FullTransactionIdIsValid(top))
	{
		/* a full barrier: after our slot was set (PRE_COMMIT) */
		uint64		csn = pg_atomic_add_fetch_u64(&Csn->next_csn, 1);
		TransactionId topxid = XidFromFullTransactionId(top);

		/* tests: numbered, entries not out, still listed as committing */
		blinkam_debug_pause(BLINKAM_PAUSE_CSN_NUMBERED);
		csn_map_store(top, topxid, csn);
		for (int i = 0; i < nchildren; i++)
			csn_map_store(csn_child_fxid(top, children[i]), topxid, csn);
		blinkam_count(BLINKAM_COUNTER_CSN_ASSIGNED, 1);
	}
	/* the entries are out before the slot says we are done */
	pg_write_barrier();
	csn_clear_slot();
}

static void
csn_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
			if (csn_wrote && blinkam_csn_snapshots &&
				TransactionIdIsValid(GetTopTransactionIdIfAny()))
			{
				pg_atomic_write_u32(&Csn->committing[MyProc->pgprocno],
									GetTopTransactionIdIfAny());
				pg_memory_barrier();
				csn_marked = true;
				/* tests: committing, still in the proc array */
				blinkam_debug_pause(BLINKAM_PAUSE_CSN_COMMITTING);
			}
			return;
		case XACT_EVENT_COMMIT:
			if (csn_marked)
			{
				/* tests: out of the proc array, no CSN yet */
				blinkam_debug_pause(BLINKAM_PAUSE_CSN_BEFORE_ASSIGN);
				csn_assign();
			}
			csn_wrote = false;
			csn_flush_counts();
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PREPARE:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PARALLEL_ABORT:
			if (csn_marked)
				csn_clear_slot();
			csn_wrote = false;
			csn_flush_counts();
			break;
		case XACT_EVENT_PRE_PREPARE:
		case XACT_EVENT_PARALLEL_PRE_COMMIT:
			return;
	}
	/* our xid is no longer ours: see "Our own xids" */
	if (TransactionIdIsValid(GetTopTransactionIdIfAny()))
		view.valid = false;
}

static bool
csn_in(TransactionId xid, const TransactionId *xids, int n)
{
	for (int i = 0; i < n; i++)
		if (TransactionIdEquals(xids[i], xid))
			return true;
	return false;
}

/* Make room for n xids in each exception set and in the copy of xip. */
static void
csn_view_reserve(int n)
{
	if (n <= view.capacity)
		return;
	n = Max(n, 64);
	/*
	 * Forget the old arrays before allocating: an out-of-memory error in
	 * between must not leave freed arrays behind a capacity that the next
	 * build would trust.
	 */
	if (view.invisible != NULL)
		pfree(view.invisible);
	if (view.visible != NULL)
		pfree(view.visible);
	if (view.xip != NULL)
		pfree(view.xip);
	view.invisible = view.visible = view.xip = NULL;
	view.capacity = 0;
	view.invisible = MemoryContextAlloc(TopMemoryContext, n * sizeof(TransactionId));
	view.visible = MemoryContextAlloc(TopMemoryContext, n * sizeof(TransactionId));
	view.xip = MemoryContextAlloc(TopMemoryContext, n * sizeof(TransactionId));
	view.capacity = n;
}

/* Build the view for snapshot (an MVCC snapshot not taken in recovery). */
static void
csn_view_build(Snapshot snapshot)
{
	TransactionId *committing;
	int			ncommitting = 0;
	uint64		horizon;
	uint64		horizon_after;

	view.valid = false;
	view.trusted = NULL;
	view.ninvisible = view.nvisible = 0;
	view.last_xid = InvalidTransactionId;

	/* xmax <= next xid, and closer than 2^31 */
	view.full_xmax = csn_fxid_not_after(ReadNextFullTransactionId(),
										snapshot->xmax);

	/* H0, the committing slots, H1, in this order (see the header) */
	committing = palloc(sizeof(TransactionId) * Csn->nslots);
	horizon = pg_atomic_read_u64(&Csn->next_csn);
	pg_read_barrier();
	/* tests: a commit may number itself and finish here */
	blinkam_debug_pause(BLINKAM_PAUSE_CSN_VIEW_READ);
	for (int i = 0; i < Csn->nslots; i++)
	{
		TransactionId c = pg_atomic_read_u32(&Csn->committing[i]);

		if (TransactionIdIsNormal(c))
			committing[ncommitting++] = c;
	}
	pg_read_barrier();
	horizon_after = pg_atomic_read_u64(&Csn->next_csn);
	pg_read_barrier();

	/* E1 holds xip members only, E2 committing xids only */
	csn_view_reserve(snapshot->xcnt + ncommitting);
	if (snapshot->xcnt > 0)
		memcpy(view.xip, snapshot->xip, snapshot->xcnt * sizeof(TransactionId));
	for (int i = 0; i < ncommitting; i++)
	{
		TransactionId c = committing[i];

		if (TransactionIdPrecedes(c, snapshot->xmin) ||
			TransactionIdFollowsOrEquals(c, snapshot->xmax))
			continue;
		if (csn_in(c, snapshot->xip, snapshot->xcnt))
		{
			if (!csn_in(c, view.invisible, view.ninvisible))
				view.invisible[view.ninvisible++] = c;
		}
		else if (TransactionIdDidCommit(c) &&
				 !csn_in(c, view.visible, view.nvisible))
			view.visible[view.nvisible++] = c;
	}
	for (uint32 i = 0; i < snapshot->xcnt; i++)
	{
		TransactionId x = snapshot->xip[i];
		uint64		csn;
		TransactionId top;

		if (!TransactionIdIsNormal(x) || TransactionIdPrecedes(x, snapshot->xmin) ||
			TransactionIdFollowsOrEquals(x, snapshot->xmax))
			continue;
		if (csn_map_lookup(csn_view_fxid(x), &csn, &top) && csn <= horizon &&
			!csn_in(x, view.invisible, view.ninvisible))
			view.invisible[view.ninvisible++] = x;
	}
	pfree(committing);

	view.horizon = horizon;
	view.horizon_after = horizon_after;
	view.xmin = snapshot->xmin;
	view.xmax = snapshot->xmax;
	view.xcnt = snapshot->xcnt;
	view.valid = true;
}

/*
 * Did xid commit, and is it visible to snapshot?  The same answer as
 * !XidInMVCCSnapshot(xid, snapshot) && TransactionIdDidCommit(xid), with
 * known_committed saying the caller already knows the commit (a hint bit).
 * xid is a normal xid that is not one of ours.
 */
bool
_bh_xid_visible_committed(TransactionId xid, Snapshot snapshot,
						  bool known_committed)
{
	if (TransactionIdPrecedes(xid, snapshot->xmin))
		return known_committed || TransactionIdDidCommit(xid);
	if (TransactionIdFollowsOrEquals(xid, snapshot->xmax))
		return false;

	if (blinkam_csn_snapshots && !snapshot->takenDuringRecovery &&
		snapshot->snapshot_type == SNAPSHOT_MVCC)
	{
		uint64		csn;
		TransactionId top;

		if (snapshot != view.trusted)
		{
			if (!view.valid ||
				view.xmax != snapshot->xmax || view.xmin != snapshot->xmin ||
				view.xcnt != snapshot->xcnt ||
				(snapshot->xcnt > 0 &&
				 memcmp(view.xip, snapshot->xip,
						snapshot->xcnt * sizeof(TransactionId)) != 0))
				csn_view_build(snapshot);
			/* until the caller's next _bh_csn_forget: see "Reuse" */
			view.trusted = snapshot;
		}

		/* rows come in runs of one writer's xid */
		if (TransactionIdEquals(xid, view.last_xid))
		{
			csn_fast_pending++;
			return view.last_visible;
		}
		if (csn_map_lookup(csn_view_fxid(xid), &csn, &top))
		{
			uint64		top_csn;
			TransactionId top_top;
			bool		decided = true;
			bool		visible = false;

			/*
			 * A mapped xid has committed, and a top below xmin had left
			 * the proc array before the snapshot, whatever its CSN (case
			 * (c) of the header: E2 holds no xid below xmin).
			 */
			if (TransactionIdPrecedes(top, snapshot->xmin) ||
				(view.nvisible > 0 && csn_in(top, view.visible, view.nvisible)))
				visible = true;
			else if (csn > view.horizon_after ||
					 (view.ninvisible > 0 &&
					  csn_in(top, view.invisible, view.ninvisible)))
				visible = false;
			else if (csn > view.horizon)
				decided = false;	/* numbered while the view was built */

			/*
			 * csn <= H0 and top not in E1: visible -- unless xid is a
			 * subxid whose top was in xip and lost its own map entry
			 * before the E1 pass could find it (see "Eviction").  Found
			 * now means found then.
			 */
			else if (TransactionIdEquals(top, xid) ||
					 (csn_map_lookup(csn_view_fxid(top), &top_csn, &top_top) &&
					  top_csn == csn))
				visible = true;
			else
				decided = false;

			if (decided)
			{
				csn_fast_pending++;
				view.last_xid = xid;
				view.last_visible = visible;
				return visible;
			}
		}
	}

	csn_slow_pending++;
	if (XidInMVCCSnapshot(xid, snapshot))
		return false;
	return known_committed || TransactionIdDidCommit(xid);
}

/*
 * Has xid, a normal xid that precedes our own top-level xid (we are
 * writing, so we have one), a CSN in the map -- so it committed?  For
 * _bh_stamp_xmins, which would otherwise ask clog under a hot page's
 * exclusive lock.  false means "not known", nothing more.
 */
bool
_bh_csn_known_committed(TransactionId xid)
{
	FullTransactionId ref = GetTopFullTransactionIdIfAny();
	uint64		csn;
	TransactionId top;

	if (!FullTransactionIdIsValid(ref) ||
		!TransactionIdPrecedes(xid, XidFromFullTransactionId(ref)))
		return false;
	return csn_map_lookup(csn_fxid_not_after(ref, xid), &csn, &top);
}

/*
 * blinkheap_csn_of(xid) RETURNS bigint: the CSN the map holds for xid
 * (taken to be the latest xid with that 32-bit value not after the next
 * xid), NULL if none.  For tests.
 */
PG_FUNCTION_INFO_V1(blinkheap_csn_of);

Datum
blinkheap_csn_of(PG_FUNCTION_ARGS)
{
	TransactionId xid = DatumGetTransactionId(PG_GETARG_DATUM(0));
	uint64		csn;
	TransactionId top;

	if (!TransactionIdIsNormal(xid))
		PG_RETURN_NULL();
	if (!csn_map_lookup(csn_fxid_not_after(ReadNextFullTransactionId(), xid),
						&csn, &top))
		PG_RETURN_NULL();
	PG_RETURN_INT64((int64) csn);
}

/* From _PG_init. */
void
blinkheap_csn_init(void)
{
	blinkam_shmem_register(csn_shmem_size, csn_shmem_init);
	RegisterXactCallback(csn_xact_callback, NULL);
}
