/*-------------------------------------------------------------------------
 *
 * batch.c
 *	  Cooperative batch inserts on hot pages (blink leaves and blinkheap
 *	  insert pages).
 *
 * When many backends insert into the same page, each would wait for the
 * exclusive page lock, then pay for its own generic WAL record (a copy
 * and a byte-by-byte diff of the whole page) while the others wait.
 * Instead, a backend that finds the page locked publishes its payload (an
 * index tuple, for blink) in its own shared-memory slot and pushes the
 * slot onto a wait list; the backend holding the page for an insert takes
 * the published payloads of its page and hands each to its access
 * method's add callback, which puts on the page copy of the holder's
 * record what belongs there and fits; one WAL record carries them all,
 * and each waiter is told.  A waiter whose payload went in returns without
 * ever taking the page lock.
 *
 * This file knows nothing of any access method: a slot carries bytes for
 * page P of relation R and a flags word the access method gives meaning
 * to; the access method decides, in its add callback, what it accepts.
 *
 * Slots: one per backend (by pgprocno), carrying a run of payloads (a
 * statement buffer's sorted tuples for one leaf, or a single tuple), of
 * which a holder takes a prefix (ndone), and an atomic state:
 *
 *   FREE -> PENDING         the owner publishes (and pushes the slot)
 *   PENDING -> CLAIMED      a holder takes it (CAS, under the page lock)
 *   CLAIMED -> DONE         all inserted (after the WAL record is written)
 *   CLAIMED -> SKIPPED      handed back from ndone on (not below the high
 *                           key, no room); ndone is written first
 *   CLAIMED -> PENDING      left published (deferred or forwarded, see
 *                           below): back in a wait list, ndone (and
 *                           blkno) written first
 *   PENDING -> WITHDRAWN    the owner took the page lock itself, or was
 *                           cancelled (CAS: a claimed slot cannot be
 *                           withdrawn, so a tuple is never inserted twice)
 *   DONE/SKIPPED/WITHDRAWN -> FREE   the owner, when it has read it
 *
 * A holder sets DONE or SKIPPED before it releases the page lock, so a
 * waiter that gets the page lock itself always finds its slot final
 * (never CLAIMED).
 *
 * Wait lists: BATCH_BUCKETS stacks, chosen by hash of (relation,
 * block); several pages may share one.  Push is a CAS loop on the head;
 * pop is an exchange of the whole list with empty, so there is no ABA
 * problem.  A holder that pops slots of other pages (or withdrawn ones)
 * pushes the pending ones back and sets their owners' latches; "linked"
 * tells whether a slot is still in some list, and an owner publishes only
 * a slot that is not (else it inserts the normal way).
 *
 * Why no wake-up is lost.  A waiter pushes its slot, then tries the page
 * lock once more, and only then sleeps.  Whoever releases a lock of such
 * a page (inserter, reader, VACUUM: for blink, _blink_unlock, which calls
 * blinkam_batch_after_release) looks at the bucket afterwards: if it is
 * not empty, it pops it, pushes the pending slots back, wakes every
 * waiter of other pages and, once the whole list is back, the first
 * pending waiter of that page, F -- if F still waits for the page then;
 * if not, it looks at the bucket again, from the start.  Take a waiter W
 * and the backend B whose lock made W's last try fail: B released after
 * W's push and looked at the bucket after its release.  Either some
 * backend had popped W's slot in between (below), or B's look (its last
 * round) popped it.  Then B woke W itself, or it woke F, which still
 * waited for the page once W's slot was back, and F's next step comes
 * after that: woken, F tries the lock (taking it, F looks at the bucket
 * at its own release; failing, the backend that holds the page releases
 * it later and looks), or a holder of the page claims F's slot (and looks
 * at its release), or F withdraws on a cancel (the error's abort wakes
 * everyone, else F takes the page the ordinary way).  What happened to
 * F's slot before does not matter (claimed and deferred back, or
 * finished and published again): it waits for the page after the last
 * push, and is woken after that.  The first waiter need not be waiting
 * any more, for it was back in the list before the rest: a backend that
 * took the page meanwhile (free since B's release) may have claimed and
 * finished it and looked at the bucket at its own release with W's slot
 * still in B's hands, or F's owner may have taken the page itself (woken
 * by a cancel, a timeout, a share-wait sleep or batch_wake_all); then
 * nobody that took the page after W's slot was back has looked, and B's
 * second round is that look (t/009 case 3f).  A round is repeated only
 * when another backend took its first waiter meanwhile.  And every
 * backend that pops a slot either finishes it (DONE/SKIPPED, latch set
 * after its release), claims it holding the page (and looks at its
 * release), or pushes it back: waking it if it is of another page; as a
 * holder, before its own release looks; as a releaser, with a look that
 * ends as B's does.  So a published slot always has a backend coming to
 * it.  This holds whatever the releasing session's blinkam.batch_inserts
 * says (a session with batching off serves no waiter but still wakes
 * them after its release), and on errors too: a
 * lock released by LWLockReleaseAll skips that, so the (sub)transaction's
 * abort wakes every pending waiter of every list (batch_wake_all).  A
 * holder that fails after claiming slots hands them back and wakes them
 * itself (batch_abandon).
 *
 * Memory ordering (weakly ordered CPUs included): a slot's fields are
 * written before the CAS that pushes it (a full barrier) and read by a
 * holder after the exchange that pops it and the CAS that claims it (full
 * barriers); next is written before a write barrier and read after a
 * read barrier.  A releaser asks whether the first waiter it put back
 * still waits (slot_waits_for) without holding its slot: it reads the
 * state, then, after a read barrier, the page; whoever publishes or
 * requeues a slot writes the page, then a write barrier, then the state.
 * DONE/SKIPPED are stored after the WAL record is inserted (the insertion
 * ends with a lock release, so the record's bytes are visible first),
 * followed by a full barrier, and the latch is set after that; SetLatch
 * and the waiter's ResetLatch are barriers, so a woken waiter reads the
 * final state.  Every purposeful wake-up of a pending
 * waiter also adds one to its slot's "wakes", and the owner, after each
 * lock attempt, records in "wakes_tried" the count it read before that
 * attempt.  A waiter that finds the page free after sleeping to its
 * timeout, with no wake-up outstanding (wakes above wakes_tried) for it
 * or for another waiter of the page (that one will still try the page,
 * and serve it), was missed: counted in batch_lost_wakeups (a stray latch
 * -- a holder's SetLatch for an earlier wait, answered while the waiter
 * spun -- ends a sleep early without meaning anything; tests require 0).
 * A woken waiter put aside by the scheduler between its wake-up and its
 * attempt keeps its wake-up outstanding all that while (t/009, case 13:
 * a single flag, cleared before the attempt, counted such a waiter's
 * sibling as missed).  The check can still misjudge a releaser put aside
 * between its unlock and its look at the list.  As a last resort a waiter
 * also wakes every blinkam.debug_batch_wait_timeout (100 ms) to retry;
 * such timeouts are counted in batch_wait_timeouts (a holder descheduled
 * that long on an overloaded machine causes them too).
 *
 * Share holders.  One locker of a page never looks at the wait list:
 * PostgreSQL itself, writing the page out (the checkpointer, the
 * background writer, a backend evicting it), holds the page's lock in
 * share mode around the write and lets it go in bufmgr.c.  A waiter whose
 * last try failed against that lock was left to its timeout -- and with
 * it, usually, every other waiter of the same hot leaf, whenever a
 * checkpoint wrote the leaf (2 cores, 64 clients, a CHECKPOINT every
 * 0.3 s: 73 to 209 such stalls of 100 ms in 20 s).  So a waiter about to
 * sleep first asks whether the page is held exclusively, by trying a share
 * lock itself (and letting it go at once).  If it gets it, the page is
 * held in share mode or free: it sleeps 1 ms, then 2, 4 ... up to 100 ms
 * while that lasts, and tries again (batch_share_waits).
 * Only if the share try fails does it sleep until woken: then a backend
 * held the page exclusively after the waiter's push, and exclusive locks
 * on these pages are taken by the access methods' own code only
 * (PostgreSQL takes a page it does not own in share mode, to write or
 * copy it), which looks at the list when it lets go -- that backend is
 * the B of the argument above.  (A blinkheap waiter relies on announced
 * holders instead, below; the short sleeps do it no harm.)  The share try
 * needs no look at the list when it lets go: a waiter whose try failed
 * against it makes the same share try, which succeeds unless an exclusive
 * holder came in between, and that one looks.  Readers of blink leaves
 * let go through _blink_unlock, which looks, so a waiter behind a reader
 * is woken by it as before, or retries after its short sleep.  (Testing
 * the buffer's I/O flag instead would miss the writer in the instants
 * between taking the lock and flagging the write and between clearing
 * the flag and letting go -- and the first comes right at a hand-off,
 * when a checkpointer queued for the lock races the woken waiter.)
 *
 * How a waiter sleeps.  Every wake-up of a waiter above goes through
 * wake_slot, which sets the owner's latch; the owner sleeps in WaitLatch
 * (a set of a latch whose owner sleeps costs the waker a signal and the
 * sleeper an epoll_wait and a signalfd read), resets its latch after
 * every sleep and looks at its slot again.  t/009 (case 17) holds a
 * waiter between its last look at its slot and its sleep (pause point
 * batch_sleep_start) while its holder wakes it.  Two cheaper-looking
 * sleeps were measured and removed, for neither beat the latch: a sleep
 * on the latch's flag word with a raw futex, woken by one futex call
 * (level on 2 cores, bench/results/batch-sleep-2core-20261127.md; 0.84-0.99x
 * of the latch on 16, bench/results/manycore-20261128.md), and a sleep on
 * the leaf's content lock in LWLockAcquireOrWait, woken by PostgreSQL's
 * semaphore at every release of the leaf, served or not (level on 2 cores,
 * bench/results/batch-lockwait-2core-20261127.md; 0.85-1.01x of the latch
 * on 16, BufferContent 57-58% of the waits where the latch had 19% at most,
 * bench/results/manycore-20261128b.md).  Nor is a release made to skip the
 * wake-up when another inserter has taken the leaf again before it (that
 * holder looks at the list when it lets go): on 16 cores, 512 clients,
 * such releases were 2-4% of the wake-ups that found the leaf taken (5%
 * at 256), the rest taken after the wake-up, before the woken waiter ran;
 * TPS 0.92-1.04x plain, 0.94-1.10x pipelined
 * (bench/results/manycore-20261128c.md).
 *
 * Announced holders.  The argument above needs every release of the page
 * to look at the wait list.  blink has one unlock for its pages, but a
 * blinkheap page is locked and let go in many places (scans, fetches,
 * updates, VACUUM; PostgreSQL's own code too).  So a blinkheap waiter
 * (announced = true) sleeps only while an inserter that will look at the
 * list holds the page: such a holder, once it has the page lock, adds one
 * to the "holders" count of the page's bucket (blinkam_batch_announce)
 * and, to let go, subtracts it and then unlocks and looks at the list
 * (blinkam_batch_release).  A waiter that pushed its slot and failed to
 * get the lock reads the count: at zero, it withdraws its slot and waits
 * for the page lock the ordinary way (LockBuffer); otherwise it sleeps.
 * Why that loses no wake-up: the waiter's push, a full barrier, its read
 * of the count; the holder's subtraction (a full barrier), its release,
 * its look at the list.  If the waiter saw the count still raised, the
 * subtraction came after that read, so the holder's look comes after the
 * push and finds the slot (or a backend that popped it in between handles
 * it, as above).  A count raised by a holder of another page of the same
 * bucket is harmless: that holder's release wakes the waiter (a slot of
 * another page), which tries again.  The count is bucket-wide, not per
 * page, so it costs no table of pages; an error between announce and
 * release is repaired by the abort callback, which takes the count back
 * before it wakes every waiter.  A waiter woken to take the page that
 * then takes it the ordinary way releases it through blinkam_batch_release
 * as well, so the rest of the list is not stranded.
 *
 * Deferred and forwarded runs.  A holder that meets a payload it cannot
 * take need not hand the run back.  Handing back wakes the owner, which
 * then queues for the page lock the ordinary way; when a hot leaf fills,
 * that is every waiter of the leaf at once, each to find the leaf full or
 * split and to go on alone.  Instead the access method's add callback may
 * say:
 *   DEFER    (no room): the slot goes back, pending, into the wait list of
 *            the same page, its owner asleep; whatever the holder took of
 *            the run so far is recorded in ndone, and the next holder of
 *            the page goes on from there.  The holder's release wakes one
 *            waiter of the page, as for any waiter that published while it
 *            held the page: that one makes room or splits the page.
 *   FORWARD  (the page has split since the run was published, and the run
 *            belongs right of it): if none of the run is in yet, the slot
 *            goes, pending, into the wait list of the page's right sibling
 *            (blkno changed first), its owner asleep.  The holder does not
 *            hold that page, so after its own release it looks at that
 *            page's list itself (drain with wake-one), as a releaser of
 *            the sibling would.
 * And a backend that splits a page moves, while it still holds both
 * halves, the runs published for the left half whose first payload not
 * yet in belongs on the right half into the right half's list
 * (blinkam_batch_forward); its releases of both halves look at both lists.
 * A forwarded run keeps all of its inserted part on one page (forwarded
 * only while none of it is in), so its owner learns one page for it.
 *
 * A forwarded owner still holds a pin on the old page.  Woken (as the
 * first waiter of its new page, or by its timeout), it sees blkno changed,
 * lets the old pin go and pins the new page, still published, before its
 * next lock attempt, which goes there; should that page be busy, its
 * holder serves it like any other waiter.  If pinning fails with an error,
 * the slot is withdrawn (or, if claimed meanwhile, its holder's answer
 * awaited) before the error leaves, so no holder can act for a backend
 * that has gone on.  By then a holder of the new page may have taken a
 * prefix of the run and deferred the rest: that part is in, and stays in
 * if a savepoint catches the error while the transaction that owns the
 * tuples lives on (a flush of an outer statement's buffer, say).  So the
 * owner reports it to its caller (blinkam_batch_wait's progress) before
 * the error leaves, as it does on every other way out, and a flush counts
 * those tuples as landed (t/009 case 7e).  A cancel that comes while the
 * page is read waits for the wait loop's own interrupt path instead,
 * which returns the part that is in first.  An owner that gets a lock and
 * withdraws, or is handed back the rest, takes ndone as the part already
 * in (so nothing goes in twice), and goes on from the page it holds: keys
 * only move right, so the rest lies on that page or right of it.
 *
 * No wake-up is lost by either: a deferred slot is back in the list of a
 * page its holder still holds, like a slot pushed while a holder holds the
 * page, and that holder's release looks at the list; a slot a splitter
 * forwards is in the list of a page the splitter holds, likewise; a slot a
 * holder forwards is in the sibling's list before the holder looks at that
 * list, so either the look finds it (and ends as a release's look does:
 * with a wake-up of the sibling's first pending waiter that still waits
 * once the list is back, or with an empty list; the argument above), or a
 * backend that popped the list in between does, and handles it as every
 * popper does.  Between a forwarded
 * slot's push and that look, a holder of the sibling may claim the slot:
 * it serves it, exactly as a waiter that published there.
 *
 * What a holder may do for a waiter is the access method's contract (for
 * blink, _blink_batch_add in blinkinsert.c: a tuple of a unique index is
 * accepted only if no entry with its key exists; otherwise the waiter
 * does its check itself, raising the error or waiting for the other
 * transaction).
 *
 * Lock order: no lock is taken here; a waiter holds only a pin on the
 * page it waits for.
 *
 * src/common/batch.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "access/twophase.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "storage/buf_internals.h"
#include "storage/bufmgr.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/rel.h"

#include "common/batch.h"
#include "common/counters.h"
#include "common/gxlog.h"
#include "common/settings.h"
#include "common/shmem.h"

#define BATCH_BUCKETS		1024

enum
{
	SLOT_FREE = 0,
	SLOT_PENDING,
	SLOT_CLAIMED,
	SLOT_DONE,
	SLOT_SKIPPED,
	SLOT_WITHDRAWN
};

typedef struct BlinkBatchSlot
{
	pg_atomic_uint32 state;
	pg_atomic_uint32 linked;	/* 1 while in a wait list */
	pg_atomic_uint32 wakes;		/* wake-ups sent on purpose (to take the
								 * page, or to look again), counted */
	pg_atomic_uint32 wakes_tried;	/* the owner's lock attempts have
									 * answered wakes up to this count */
	uint32		next;			/* next slot + 1 in its list, 0 at the end */
	RelFileNode node;
	BlockNumber blkno;
	Latch	   *latch;
	uint32		flags;			/* the access method's (blink: check
								 * uniqueness) */
	uint16		nitems;			/* payloads (a run, in the order offered) */
	uint16		ndone;			/* how many of them went in (a prefix) */
	uint16		sizes[BLINKAM_BATCH_MAX_ITEMS];
	uint32		results[BLINKAM_BATCH_MAX_ITEMS];	/* the add callback's, for
													 * the payloads taken */
	char		payload[BLINKAM_BATCH_MAX_BYTES] pg_attribute_aligned(MAXIMUM_ALIGNOF);
} BlinkBatchSlot;

typedef struct BlinkBatchShared
{
	int			nslots;
	pg_atomic_uint32 heads[BATCH_BUCKETS];	/* slot + 1, 0: empty */
	pg_atomic_uint32 holders[BATCH_BUCKETS];	/* announced holders of the
												 * bucket's pages */
	BlinkBatchSlot slots[FLEXIBLE_ARRAY_MEMBER];
} BlinkBatchShared;

static BlinkBatchShared *Batch = NULL;

/* the holders count this backend raised (blinkam_batch_announce), if any */
static pg_atomic_uint32 *announced_at = NULL;

static int
batch_nslots(void)
{
	return MaxBackends + NUM_AUXILIARY_PROCS + max_prepared_xacts;
}

static Size
batch_shmem_size(void)
{
	return add_size(offsetof(BlinkBatchShared, slots),
					mul_size(batch_nslots(), sizeof(BlinkBatchSlot)));
}

static void
batch_shmem_init(void)
{
	bool		found;

	Batch = ShmemInitStruct("blinkam batch slots", batch_shmem_size(), &found);
	if (!found)
	{
		Batch->nslots = batch_nslots();
		for (int i = 0; i < BATCH_BUCKETS; i++)
		{
			pg_atomic_init_u32(&Batch->heads[i], 0);
			pg_atomic_init_u32(&Batch->holders[i], 0);
		}
		for (int i = 0; i < Batch->nslots; i++)
		{
			pg_atomic_init_u32(&Batch->slots[i].state, SLOT_FREE);
			pg_atomic_init_u32(&Batch->slots[i].linked, 0);
			pg_atomic_init_u32(&Batch->slots[i].wakes, 0);
			pg_atomic_init_u32(&Batch->slots[i].wakes_tried, 0);
		}
	}
}

static inline int
bucket_index(RelFileNode node, BlockNumber blkno)
{
	uint32		h = node.relNode * 0x9E3779B1u ^ node.dbNode * 0x85EBCA6Bu ^
		blkno * 0xC2B2AE35u;

	return (h ^ (h >> 16)) % BATCH_BUCKETS;
}

static inline pg_atomic_uint32 *
bucket_of(RelFileNode node, BlockNumber blkno)
{
	return &Batch->heads[bucket_index(node, blkno)];
}

static inline pg_atomic_uint32 *
holders_of(RelFileNode node, BlockNumber blkno)
{
	return &Batch->holders[bucket_index(node, blkno)];
}

/* Wake the owner of slot s (see "How a waiter sleeps"). */
static void
wake_slot(BlinkBatchSlot *s)
{
	SetLatch(s->latch);
}

static void
push_slot(pg_atomic_uint32 *head, uint32 slotno)
{
	BlinkBatchSlot *s = &Batch->slots[slotno];
	uint32		old = pg_atomic_read_u32(head);

	pg_atomic_write_u32(&s->linked, 1);
	do
	{
		s->next = old;
		pg_write_barrier();
	} while (!pg_atomic_compare_exchange_u32(head, &old, slotno + 1));
}

/*
 * Is slot s, which we do not hold, published for page (*node, blkno) at
 * the moment we look?  The state first, then the page it is for: whoever
 * publishes or requeues a slot writes the page before the state.
 */
static inline bool
slot_waits_for(BlinkBatchSlot *s, const RelFileNode *node, BlockNumber blkno)
{
	if (pg_atomic_read_u32(&s->state) != SLOT_PENDING)
		return false;
	pg_read_barrier();
	return s->blkno == blkno && RelFileNodeEquals(s->node, *node);
}

/*
 * Pop the whole list at head and sort it out:
 *   - with collect, claim the pending slots of (*node, blkno) into it (up
 *     to max; they leave the list);
 *   - push back every other pending slot; the owners of those of other
 *     pages are woken (their holder may have looked at the list while we
 *     had it); of those of this page, only the first is woken, and only
 *     if wake_one: it will take the page lock and serve the others;
 *   - unlink withdrawn and finished slots.
 * With node NULL no slot is of "this page": every pending one is woken.
 * Returns the number claimed.
 *
 * The first waiter of this page is woken only after the whole popped list
 * is back: woken at once, it could take the page, insert and look at the
 * list at its own release while the rest of its page's waiters were still
 * in our hands -- and nobody would wake those.  (A waiter of another page
 * may be woken at once: each such waiter is woken by us itself, so none
 * depends on its lock holder finding it.)
 *
 * Waking it late is not enough by itself: once its slot is back in the
 * list, and before the rest is, another inserter may take the page (it is
 * free), claim that slot, finish it and look at the list at its release;
 * or the slot's owner may take the page on its own (a cancel, a timeout,
 * a share-wait sleep, batch_wake_all).  Either may find the list without
 * the slots still in our hands.  So, once all of them are back, the first
 * waiter is woken only if it still waits for this page; otherwise we look
 * at the list once more, from the start, as a release of the page would
 * now (see "Why no wake-up is lost").
 */
static int
drain_list(pg_atomic_uint32 *head, const RelFileNode *node, BlockNumber blkno,
		   uint32 *collect, int max, bool wake_one)
{
	int			n = 0;

	/* more than once only if the first waiter was gone (wake_one) */
	for (;;)
	{
		uint32		cur = pg_atomic_exchange_u32(head, 0);
		BlinkBatchSlot *first = NULL;

		while (cur != 0)
		{
			uint32		slotno = cur - 1;
			BlinkBatchSlot *s = &Batch->slots[slotno];
			uint32		expected = SLOT_PENDING;
			bool		mine;

			pg_read_barrier();
			cur = s->next;
			mine = node && s->blkno == blkno && RelFileNodeEquals(s->node, *node);

			if (collect && mine && n < max &&
				pg_atomic_compare_exchange_u32(&s->state, &expected, SLOT_CLAIMED))
			{
				collect[n++] = slotno;	/* unlinked: it is in our hands now */
				pg_atomic_write_u32(&s->linked, 0);
			}
			else if (pg_atomic_read_u32(&s->state) == SLOT_PENDING)
			{
				push_slot(head, slotno);
				if (!mine)
				{
					pg_atomic_fetch_add_u32(&s->wakes, 1);
					wake_slot(s);
				}
				else if (wake_one && first == NULL)
				{
					first = s;

					/*
					 * tests: hold the rest of the popped list here (not
					 * cancellable: a cancel would strand those slots)
					 */
					if (cur != 0)
					{
						HOLD_INTERRUPTS();
						blinkam_debug_pause(BLINKAM_PAUSE_DRAIN_PUSHED_BACK);
						RESUME_INTERRUPTS();
					}
				}
			}
			else
			{
				/*
				 * Finished or withdrawn: unlink it.  Its owner may publish
				 * it again (rewriting next) once it sees linked clear, so
				 * our read of next must come first -- a load followed by a
				 * store to another address, which weakly ordered processors
				 * may swap without a full barrier (helper-40's review).
				 */
				pg_memory_barrier();
				pg_atomic_write_u32(&s->linked, 0);
			}
		}
		if (first == NULL)
			return n;
		pg_memory_barrier();	/* every push back before the look at first */
		if (slot_waits_for(first, node, blkno))
		{
			pg_atomic_fetch_add_u32(&first->wakes, 1);
			wake_slot(first);
			return n;
		}

		/*
		 * Claimed, finished or withdrawn while the rest was out: look at the
		 * list again, as a release of the page now would.
		 */
		blinkam_count(BLINKAM_COUNTER_BATCH_FIRST_GONE, 1);
	}
}

/* drain_list for the list of the page (node, blkno) */
static int
drain_bucket(RelFileNode node, BlockNumber blkno, uint32 *collect, int max,
			 bool wake_one)
{
	return drain_list(bucket_of(node, blkno), &node, blkno, collect, max, wake_one);
}

/*
 * Look at the wait list of page (node, blkno) as a releaser of the page
 * does (see "Why no wake-up is lost"): if it is not empty, push its pending
 * slots back and wake the first waiter of the page (one that still waits
 * once the whole list is back; else look again: drain_list).  An empty
 * list is read without taking its cache line.
 */
static void
look_at_list(RelFileNode node, BlockNumber blkno)
{
	pg_memory_barrier();
	if (pg_atomic_read_u32(bucket_of(node, blkno)) != 0)
		(void) drain_bucket(node, blkno, NULL, 0, true);
}

/* Has a slot been woken on purpose since its owner's last lock attempt? */
static inline bool
slot_woken(BlinkBatchSlot *s)
{
	return pg_atomic_read_u32(&s->wakes) != pg_atomic_read_u32(&s->wakes_tried);
}

/*
 * A waiter that nobody woke found the page free: was it missed?  Not if
 * another waiter of the same page has been woken and has not yet tried
 * the page lock -- a release wakes only the first waiter of the page,
 * which then serves the others.  (That one may be put aside by the
 * scheduler for longer than our timeout, between its wake-up and its
 * attempt: so a wake-up counts as answered only once the attempt is
 * over.)  Looks at every slot: only on this rare path.
 */
static bool
sibling_woken(BlinkBatchSlot *me)
{
	for (int i = 0; i < Batch->nslots; i++)
	{
		BlinkBatchSlot *s = &Batch->slots[i];

		if (s != me && pg_atomic_read_u32(&s->state) == SLOT_PENDING &&
			s->blkno == me->blkno && RelFileNodeEquals(s->node, me->node) &&
			slot_woken(s))
			return true;
	}
	return false;
}

/*
 * LockBuffer(buf, mode) for BUFFER_LOCK_SHARE or BUFFER_LOCK_EXCLUSIVE;
 * returns true if the lock was taken by another backend at the first try,
 * so that callers can count the page locks that had to wait (the lock
 * wait itself is PostgreSQL's, reported as LWLock:BufferContent).
 */
bool
blinkam_lock_waited(Buffer buf, int mode)
{
	bool		got;

	Assert(mode == BUFFER_LOCK_SHARE || mode == BUFFER_LOCK_EXCLUSIVE);
	if (BufferIsLocal(buf))
		return false;			/* a temporary relation's: no lock at all */
	if (mode == BUFFER_LOCK_EXCLUSIVE)
		got = ConditionalLockBuffer(buf);
	else
		got = LWLockConditionalAcquire(BufferDescriptorGetContentLock(GetBufferDescriptor(buf - 1)),
									   LW_SHARED);
	if (got)
		return false;
	LockBuffer(buf, mode);
	return true;
}

/* An insert's ordinary exclusive lock of a busy page, counted if it waits. */
static inline void
batch_lock(Buffer buf)
{
	if (blinkam_lock_waited(buf, BUFFER_LOCK_EXCLUSIVE))
		blinkam_count(BLINKAM_COUNTER_BATCH_LOCK_WAITS, 1);
}

/*
 * Unlock buf, a page of rel that may have waiters, and wake them (the
 * access method's own unlock does the same for its pages).
 */
static void
batch_unlock(Relation rel, Buffer buf)
{
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	blinkam_batch_after_release(rel, BufferGetBlockNumber(buf));
}

/*
 * How many of the payloads sizes[0..n-1] (a run, in order) one slot can
 * carry.
 */
int
blinkam_batch_capacity(const Size *sizes, int n)
{
	Size		used = 0;
	int			k;

	for (k = 0; k < n && k < BLINKAM_BATCH_MAX_ITEMS; k++)
	{
		used += MAXALIGN(sizes[k]);
		if (used > BLINKAM_BATCH_MAX_BYTES)
			break;
	}
	return k;
}

/*
 * The waiter's slot has left PENDING or it was woken on purpose: something
 * to look at without sleeping.
 */
static inline bool
slot_answered(BlinkBatchSlot *s)
{
	return pg_atomic_read_u32(&s->state) != SLOT_PENDING || slot_woken(s);
}

/*
 * Part of this backend's run went in with another backend's WAL record.
 * PostgreSQL flushes a transaction's commit record before COMMIT returns
 * (and waits for synchronous standbys) only if the transaction wrote WAL
 * of its own (RecordTransactionCommit: XactLastRecEnd set); otherwise the
 * commit is asynchronous, since such a transaction changed nothing that a
 * crash could keep.  A waiter whose only change went in with a holder's
 * record had written nothing itself: its COMMIT returned before its commit
 * record reached the disk, a crash then lost a transaction reported
 * committed, and a standby saw its row only once the WAL writer came by
 * (t/037, found by a helper's standby test).  So the waiter's own WAL end
 * is raised to the insert position, which lies past the holder's record:
 * its commit is then flushed, the holder's record with it.
 */
static void
batch_owe_commit_flush(void)
{
	XLogRecPtr	pos = GetXLogInsertRecPtr();

	if (XactLastRecEnd < pos)
		XactLastRecEnd = pos;
}

/*
 * Take our slot back if it is still pending (a full barrier either way).
 * Each attempt compares with SLOT_PENDING afresh: a failed compare-and-
 * exchange leaves the state it found in its expected value, and reusing
 * that for a second attempt would take back a slot a holder has finished
 * meanwhile (DONE -> WITHDRAWN; helper-40's review, t/018 case 13).
 */
static inline bool
slot_withdraw(BlinkBatchSlot *s)
{
	uint32		expected = SLOT_PENDING;

	return pg_atomic_compare_exchange_u32(&s->state, &expected, SLOT_WITHDRAWN);
}

/*
 * How much of a waiter's run went in (a prefix, by one holder or several:
 * see "Deferred and forwarded runs"), once its slot is final or withdrawn
 * (the holder wrote ndone and results before the state), and (if results
 * is not NULL) the add callback's result for each of those.
 */
static inline int
slot_progress(BlinkBatchSlot *s, uint32 *results)
{
	int			ndone;

	pg_read_barrier();
	ndone = s->ndone;
	if (results)
		memcpy(results, s->results, sizeof(uint32) * ndone);
	if (ndone > 0)
		batch_owe_commit_flush();
	return ndone;
}

/*
 * A waiter's pending slot: has it been forwarded to another page than the
 * one its pin is on?
 */
static inline bool
slot_moved(BlinkBatchSlot *s, Buffer buf)
{
	pg_read_barrier();			/* the state (pending) before the block */
	return s->blkno != BufferGetBlockNumber(buf);
}

/* A payload of a slot's run: the k-th. */
static const char *
slot_payload(BlinkBatchSlot *s, int k)
{
	const char *p = s->payload;

	for (int i = 0; i < k; i++)
		p += MAXALIGN(s->sizes[i]);
	return p;
}

/*
 * A published slot whose owner leaves with an error (below): take it out
 * of every holder's reach -- withdraw it, or, if a holder has claimed it,
 * wait for that holder's answer (holders never wait for waiters, so it
 * comes).  Returns how much of the run went in: holders may have taken a
 * part before (a deferred run) or while we waited.  That part is in the
 * index whatever becomes of the error: if a savepoint catches it, the
 * transaction that owns the tuples may live on, so the caller must learn
 * of them (see blinkam_batch_wait's progress).
 */
static int
batch_withdraw_for_error(BlinkBatchSlot *s)
{
	int			ndone;

	for (;;)
	{
		uint32		expected = SLOT_PENDING;

		if (pg_atomic_compare_exchange_u32(&s->state, &expected, SLOT_WITHDRAWN))
		{
			blinkam_count(BLINKAM_COUNTER_BATCH_WITHDRAWALS, 1);
			break;
		}
		if (expected != SLOT_CLAIMED)
			break;
		pg_usleep(100L);
	}
	ndone = slot_progress(s, NULL);
	pg_atomic_write_u32(&s->state, SLOT_FREE);	/* still maybe linked */
	return ndone;
}

/*
 * The waiter's slot, still published, was forwarded (see "Deferred and
 * forwarded runs") to another page of rel: move our pin there, so that our
 * lock attempts go to that page.  Reading the page can fail: then the slot
 * is withdrawn first, and *progress (if not NULL) set to the part of the
 * run that is in -- a holder of the new page may have taken a prefix of
 * it already, and deferred the rest -- before the error leaves.
 *
 * A cancel that comes while the page is read waits (interrupts held) for
 * the wait loop's next look, which returns the part that is in the
 * ordinary way before it lets the interrupt act; so only a failure of the
 * read itself (or a cancel at the test pause point) takes the error path.
 */
static void
batch_follow(Relation rel, BlinkBatchSlot *s, Buffer *bufp,
			 volatile int *progress)
{
	BlockNumber to = s->blkno;

	ReleaseBuffer(*bufp);
	*bufp = InvalidBuffer;
	PG_TRY();
	{
		/* tests: hold a waiter, published, between its two pins */
		blinkam_debug_pause(BLINKAM_PAUSE_BATCH_FOLLOW);
		HOLD_INTERRUPTS();
		*bufp = ReadBuffer(rel, to);
		RESUME_INTERRUPTS();
	}
	PG_CATCH();
	{
		int			ndone = batch_withdraw_for_error(s);

		if (progress)
			*progress = ndone;
		PG_RE_THROW();
	}
	PG_END_TRY();
}

#define BATCH_SHARE_WAIT_MAX	100 /* ms: the longest sleep behind a share
									 * holder (see "Share holders") */

/*
 * After a failed try at the exclusive lock of the page in buf (pinned by
 * us): is the page held in share mode, or free by now?  Asked with a share
 * lock of our own, let go at once without looking at the wait list (see
 * "Share holders").
 */
static bool
page_not_held_exclusively(Buffer buf)
{
	LWLock	   *lock;

	if (BufferIsLocal(buf))
		return false;
	lock = BufferDescriptorGetContentLock(GetBufferDescriptor(buf - 1));
	if (!LWLockConditionalAcquire(lock, LW_SHARED))
		return false;
	LWLockRelease(lock);
	return true;
}

/*
 * An announced-holders waiter (see "Announced holders") whose lock attempt
 * failed: may it sleep?  Not if no inserter that will look at the list
 * holds a page of its bucket.
 */
static inline bool
holder_announced(BlinkBatchSlot *s)
{
	pg_memory_barrier();		/* our push before the read of the count */
	return pg_atomic_read_u32(holders_of(s->node, s->blkno)) != 0;
}

/*
 * Sleep until our latch is set or timeout_ms pass (see "How a waiter
 * sleeps"); the latch is reset on return.  Returns true on the timeout.
 */
static bool
batch_sleep(BlinkBatchSlot *s, int timeout_ms)
{
	bool		timed_out;

	blinkam_count(BLINKAM_COUNTER_BATCH_WAKEUPS, 1);
	/* tests: a wake-up may come here, after the last look at the slot */
	blinkam_debug_pause(BLINKAM_PAUSE_BATCH_SLEEP_START);
	timed_out = (WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						   timeout_ms, PG_WAIT_EXTENSION) & WL_TIMEOUT) != 0;
	ResetLatch(MyLatch);
	return timed_out;
}

/*
 * For a waiter: this backend wants to add payloads[0..n-1] (sizes[i]
 * bytes each, a run in the order the access method wants them offered,
 * with its flags) to the page in *bufp (pinned, not locked), which another
 * backend holds.  Publish them and wait until holders have taken them or
 * this backend gets the page lock itself.  Returns how many of them went
 * in (holders take a prefix of the run), and sets *where (if not NULL) to
 * the page they went onto.  If that is n, *bufp is still pinned and
 * unlocked; otherwise it is exclusively locked, the slot is withdrawn or
 * handed back, and payloads k..n-1 are the caller's to add the normal way,
 * from *bufp: the page the run was published for, or the one a split or a
 * holder forwarded it to (see "Deferred and forwarded runs"; *bufp is then
 * pinned there instead), which lies right of it.  When batching does not
 * apply (it is off, or the run does not fit in a slot: see
 * blinkam_batch_capacity), returns 0 at once, after locking *bufp.
 * results, if not NULL, receives the add callback's result for each
 * payload that went in.
 *
 * progress, if not NULL, is set before any error can leave here with part
 * of the run in (following a forwarded run to its new page, or reading
 * that page at the end, can fail after a holder took a prefix): to how
 * many payloads went in.  A caller that catches the error must count
 * those as in: the error may be caught by a savepoint whose transaction
 * does not own them, and they must not be added again.  (Whenever it is
 * set on a path that returns, it equals the return value.)
 *
 * announced: the page's other lockers do not look at the wait list (see
 * "Announced holders"); wait on the slot only while an announced holder
 * is there, and otherwise for the page lock.  A caller that gets the page
 * back locked must let it go through blinkam_batch_release: it may have
 * been woken to serve the page's other waiters.  (Such runs are never
 * deferred or forwarded: their access method does not ask for it.)
 *
 * Before it sleeps on its latch, the waiter spins a little
 * (blinkam.batch_spin rounds) watching its slot: a holder that is already
 * adding tuples finishes within microseconds, and a sleep and a wake-up
 * cost more than that.
 */
int
blinkam_batch_wait(Relation rel, Buffer *bufp, const void *const *payloads,
				   const Size *sizes, int n, uint32 flags, bool announced,
				   uint32 *results, BlockNumber *where,
				   volatile int *progress)
{
	BlinkBatchSlot *s;
	uint32		slotno;
	int			ndone = 0;
	bool		locked = false; /* we hold *bufp */
	bool		handed_back = false;
	bool		spun = false;
	bool		slept = false;
	bool		timed_out = false;
	int			share_wait = 0; /* ms of the last sleep behind a share lock */
	char	   *dst;

	Assert(n > 0);
	if (where)
		*where = BufferGetBlockNumber(*bufp);

	/*
	 * A SERIALIZABLE transaction never publishes: its insert must check for
	 * readers' predicate locks on the page while it holds the page until
	 * its tuples are on it, as nbtree's and heap's inserts do.  A holder
	 * puts a waiter's tuples in under the holder's transaction, so the
	 * waiter could check only before publishing (a scan could then read the
	 * page before the tuples reach it, and neither would see the other) or
	 * after they landed, and a check made late misses a reader that
	 * committed and was summarized by PostgreSQL meanwhile
	 * (SummarizeOldestCommittedSxact: a summarized transaction's SIREAD
	 * locks no longer flag a conflict for a later writer).  So it waits for
	 * the page lock, as with batching off.
	 */
	if (!blinkam_batch_inserts || IsolationIsSerializable() || MyProc == NULL ||
		blinkam_batch_capacity(sizes, n) < n ||
		(announced &&
		 pg_atomic_read_u32(holders_of(rel->rd_node, BufferGetBlockNumber(*bufp))) == 0))
	{
		batch_lock(*bufp);
		return 0;
	}
	/* tests: the page may split and be taken by another holder meanwhile */
	blinkam_debug_pause(BLINKAM_PAUSE_BATCH_PUBLISH);
	slotno = MyProc->pgprocno;
	s = &Batch->slots[slotno];
	/* a slot still in some list cannot be reused yet */
	if (pg_atomic_read_u32(&s->linked) != 0)
	{
		batch_lock(*bufp);
		return 0;
	}

	s->node = rel->rd_node;
	s->blkno = BufferGetBlockNumber(*bufp);
	s->latch = MyLatch;
	s->flags = flags;
	s->nitems = n;
	s->ndone = 0;
	dst = s->payload;
	for (int i = 0; i < n; i++)
	{
		s->sizes[i] = sizes[i];
		memcpy(dst, payloads[i], sizes[i]);
		dst += MAXALIGN(sizes[i]);
	}
	/* wake-ups sent to the slot's earlier waits mean nothing to this one */
	pg_atomic_write_u32(&s->wakes_tried, pg_atomic_read_u32(&s->wakes));
	/* the page before the state: a releaser reads them so (slot_waits_for) */
	pg_write_barrier();
	pg_atomic_write_u32(&s->state, SLOT_PENDING);
	push_slot(bucket_of(s->node, s->blkno), slotno);

	for (;;)
	{
		uint32		st = pg_atomic_read_u32(&s->state);
		bool		was_woken = false;
		bool		got = false;

		if (st == SLOT_DONE || st == SLOT_SKIPPED)
		{
			ndone = slot_progress(s, results);
			handed_back = st == SLOT_SKIPPED;
			break;
		}

		/*
		 * Forwarded to a page right of ours (a split, or a holder whose page
		 * had split), and woken (as the first waiter of that page, or by a
		 * timeout): our lock attempts must go to that page now.  Move the
		 * pin there, still published: should that page be busy, its holder
		 * serves us as it serves the waiters that published there.
		 */
		if (st == SLOT_PENDING && slot_moved(s, *bufp))
		{
			batch_follow(rel, s, bufp, progress);
			continue;
		}

		/*
		 * The wake-ups sent to us on purpose so far are answered by this
		 * lock attempt, once it is over (see sibling_woken).
		 */
		if (st == SLOT_PENDING)
		{
			uint32		wakes = pg_atomic_read_u32(&s->wakes);

			was_woken = wakes != pg_atomic_read_u32(&s->wakes_tried);
			if (was_woken)
			{
				/* tests: hold a woken waiter before its attempt */
				HOLD_INTERRUPTS();
				blinkam_debug_pause(BLINKAM_PAUSE_BATCH_WOKEN);
				RESUME_INTERRUPTS();
			}
			got = ConditionalLockBuffer(*bufp);
			pg_atomic_write_u32(&s->wakes_tried, wakes);
			if (!got && was_woken)
				blinkam_count(BLINKAM_COUNTER_BATCH_WOKEN_BUSY, 1);
		}
		if (got)
		{
			/*
			 * The page was let go while we slept, and nobody woke us (or
			 * another waiter of the page) to take it: only the timeout told
			 * us.  A missed wake-up.
			 */
			if (timed_out && !was_woken && !sibling_woken(s))
				blinkam_count(BLINKAM_COUNTER_BATCH_LOST_WAKEUPS, 1);
			if (slot_withdraw(s))
			{
				/* we hold the page: insert (the rest) ourselves */
				ndone = slot_progress(s, results);
				locked = true;
				break;
			}
			st = pg_atomic_read_u32(&s->state);
			if (st == SLOT_DONE || st == SLOT_SKIPPED)
			{
				/*
				 * A holder finished our slot before releasing the lock (of
				 * this page, or of the one the slot was forwarded to: the
				 * rest then lies right of the page we hold).
				 */
				ndone = slot_progress(s, results);
				handed_back = st == SLOT_SKIPPED;
				if (ndone == n)
					batch_unlock(rel, *bufp);	/* others may have published */
				else
					locked = true;
				break;
			}

			/*
			 * Forwarded before we took this page, and now claimed (or
			 * deferred again) by a holder of the page it went to: not ours
			 * to insert; let this page go again and wait.
			 */
			batch_unlock(rel, *bufp);
			continue;
		}

		/*
		 * Cancel or timeout: withdraw if still pending; a claimed slot is
		 * about to be finished by its holder, so wait for that first.
		 */
		if (InterruptPending && st == SLOT_PENDING && slot_withdraw(s))
		{
			blinkam_count(BLINKAM_COUNTER_BATCH_WITHDRAWALS, 1);
			ndone = slot_progress(s, results);
			/*
			 * Where that part went: the slot's page, which may lie right of
			 * ours (forwarded, then partly taken, since our last look).
			 */
			if (where)
				*where = s->blkno;
			if (progress)
				*progress = ndone;
			pg_atomic_write_u32(&s->state, SLOT_FREE);	/* still maybe linked */

			/*
			 * If a holder took part of the run already (deferred: see
			 * "Deferred and forwarded runs"), the caller must learn that
			 * before an error can leave: the interrupt waits for its next
			 * check.
			 */
			if (ndone == 0)
				CHECK_FOR_INTERRUPTS();
			/* interrupts that do not error out: insert the normal way */
			batch_lock(*bufp);
			return ndone;
		}

		/*
		 * No announced holder has the page (a reader, VACUUM or an insert
		 * that has not announced itself yet): nobody would wake us, so
		 * wait for the page lock itself.  (A claimed slot is about to be
		 * finished: wait for that instead.)
		 */
		if (announced && st == SLOT_PENDING && !holder_announced(s) &&
			slot_withdraw(s))
		{
			ndone = slot_progress(s, results);
			Assert(ndone == 0);
			break;
		}

		/* spin first, once: the holder may be about to answer */
		if (!spun && blinkam_batch_spin > 0)
		{
			spun = true;
			for (int i = 0; i < blinkam_batch_spin && !slot_answered(s); i++)
				pg_spin_delay();
			if (slot_answered(s))
				continue;
		}

		/*
		 * Sleep until woken only while the page is held exclusively: that
		 * holder looks at the wait list when it lets go.  A share holder
		 * may be PostgreSQL writing the page out, whose release wakes
		 * nobody (see "Share holders"): then sleep briefly, doubling up to
		 * BATCH_SHARE_WAIT_MAX (or the timeout, if shorter), and try again.
		 */
		if (page_not_held_exclusively(*bufp))
		{
			share_wait = share_wait == 0 ? 1 :
				Min(share_wait * 2, Min(BATCH_SHARE_WAIT_MAX,
										blinkam_debug_batch_wait_timeout));
			blinkam_count(BLINKAM_COUNTER_BATCH_SHARE_WAITS, 1);
		}
		else
			share_wait = 0;
		timed_out = batch_sleep(s, share_wait > 0 ? share_wait :
								blinkam_debug_batch_wait_timeout) &&
			share_wait == 0;
		slept = true;
		if (timed_out)
			blinkam_count(BLINKAM_COUNTER_BATCH_WAIT_TIMEOUTS, 1);
	}

	/*
	 * The slot is final or withdrawn, so s->blkno no longer changes: it is
	 * where the run's inserted part went (a run is forwarded only while
	 * none of it is in, so all of that part is on one page).
	 */
	if (where)
		*where = s->blkno;
	/* reading the page below can fail, with part of the run in */
	if (progress)
		*progress = ndone;
	if (ndone < n && !locked)
	{
		if (s->blkno != BufferGetBlockNumber(*bufp))
		{
			/* forwarded: go on from the page it went to */
			BlockNumber to = s->blkno;

			ReleaseBuffer(*bufp);
			*bufp = InvalidBuffer;
			*bufp = ReadBuffer(rel, to);
		}
		batch_lock(*bufp);
	}
	if (ndone < n && ndone > 0)
		blinkam_count(BLINKAM_COUNTER_BATCH_PARTIAL, 1);
	else if (ndone == 0 && handed_back)
		blinkam_count(BLINKAM_COUNTER_BATCH_SKIPS, 1);
	if (slept)
		blinkam_count(BLINKAM_COUNTER_BATCH_SLEEPS, 1);
	else if (spun)
		blinkam_count(BLINKAM_COUNTER_BATCH_SPINS, 1);
	pg_atomic_write_u32(&s->state, SLOT_FREE);
	return ndone;
}

static void batch_abandon(BlinkamBatch *batch);
static void batch_unannounce(void);

/*
 * For a holder of page blkno of rel (locked exclusively, its own change
 * already on the page copy of its record): claim the payloads other
 * backends published for the page and hand each to add (with arg), which
 * puts on the page copy what it accepts.  Every claimed slot is resolved
 * later by blinkam_batch_write, which writes the record and then finishes
 * the batch; if anything fails before the record is written (add
 * included, or the record's own checks), none of the payloads went in, so
 * they are all handed back to their owners, awake, and the error goes on.
 */
void
blinkam_batch_collect(Relation rel, BlockNumber blkno, BlinkamBatchAddFn add,
					  void *arg, BlinkamBatch *batch)
{
	batch->nclaimed = 0;
	batch->node = rel->rd_node;

	/* tests: hold the page a while, so that waiters pile up */
	if (batch->round == 0)
	{
		blinkam_debug_pause(BLINKAM_PAUSE_BATCH_BEFORE_CLAIM);
		if (blinkam_debug_batch_delay > 0)
			pg_usleep(blinkam_debug_batch_delay * 1000L);
	}

	PG_TRY();
	{
		/*
		 * A session that does not batch serves nobody: its release wakes
		 * them.  An empty list is read without taking its cache line: a
		 * waiter that publishes after the read is in the same place as one
		 * that publishes after an exchange that found the list empty, and
		 * the release's drain serves both.
		 */
		if (blinkam_batch_inserts &&
			pg_atomic_read_u32(bucket_of(rel->rd_node, blkno)) != 0)
			batch->nclaimed = drain_bucket(rel->rd_node, blkno, batch->claimed,
										   BLINKAM_BATCH_CLAIM_MAX, false);
		for (int i = 0; i < batch->nclaimed; i++)
		{
			/* a deferred run may come with a part in already */
			batch->nstart[i] = batch->ndone[i] = Batch->slots[batch->claimed[i]].ndone;
			batch->fate[i] = BLINKAM_ADD_TAKEN;
		}
		for (int i = 0; i < batch->nclaimed; i++)
		{
			BlinkBatchSlot *s = &Batch->slots[batch->claimed[i]];
			const char *payload = slot_payload(s, batch->ndone[i]);

			/* a run goes in as a prefix: anything but TAKEN ends it */
			while (batch->ndone[i] < s->nitems)
			{
				BlinkamBatchAdd r = add(arg, payload, s->sizes[batch->ndone[i]],
										s->flags, &s->results[batch->ndone[i]]);

				if (r != BLINKAM_ADD_TAKEN)
				{
					/* forwarded only while none of it is in anywhere */
					if (r == BLINKAM_ADD_FORWARD &&
						(batch->ndone[i] > 0 || !BlockNumberIsValid(batch->forward_to)))
						r = BLINKAM_ADD_REFUSED;
					batch->fate[i] = r;
					break;
				}
				payload += MAXALIGN(s->sizes[batch->ndone[i]++]);
			}
		}
		if (batch->nclaimed > 0)
			blinkam_debug_pause(BLINKAM_PAUSE_BATCH_CHECKED);
		blinkam_debug_stop(batch->round == 0 ? BLINKAM_STOP_IN_BATCH :
						   BLINKAM_STOP_IN_ROUND);
	}
	PG_CATCH();
	{
		batch_abandon(batch);
		PG_RE_THROW();
	}
	PG_END_TRY();
}

/* How many payloads the add callback took in the batch collected last. */
int
blinkam_batch_taken(const BlinkamBatch *batch)
{
	int			taken = 0;

	for (int i = 0; i < batch->nclaimed; i++)
		taken += batch->ndone[i];
	return taken;
}

/*
 * Write the holder's record (state: its own change and what it collected)
 * and finish its batch (blinkam_batch_finish).  Returns how many payloads
 * went in.  Writing can still fail before anything is written
 * (blinkam_xlog_finish's checks, which put every page back first): then
 * the claimed payloads are handed back, their owners woken, before the
 * error goes on -- a claimed waiter never withdraws on its own, so a
 * claim left unanswered would keep it waiting for good.
 */
int
blinkam_batch_write(BlinkamXLogState *state, BlinkamBatch *batch)
{
	PG_TRY();
	{
		/* tests: the record fails after the holder took others' payloads */
		if (batch->nclaimed > 0 &&
			blinkam_debug_stop_at == BLINKAM_STOP_BATCH_RECORD)
		{
			blinkam_xlog_abort(state);
			blinkam_debug_stop(BLINKAM_STOP_BATCH_RECORD);
		}
		blinkam_xlog_finish(state);
	}
	PG_CATCH();
	{
		batch_abandon(batch);
		PG_RE_THROW();
	}
	PG_END_TRY();
	return blinkam_batch_finish(batch);
}

/*
 * Put a claimed slot back in the wait list of its page (s->blkno, which
 * the caller may just have changed), still pending, its owner asleep.
 * Linked first: its owner, should it withdraw at once, must not publish
 * the slot again before it is in the list (it waits until no list holds
 * it); pending before the push: whoever pops it must find it pending.
 */
static void
requeue_slot(uint32 slotno)
{
	BlinkBatchSlot *s = &Batch->slots[slotno];

	pg_atomic_write_u32(&s->linked, 1);
	pg_write_barrier();			/* ndone, blkno and linked before the state */
	pg_atomic_write_u32(&s->state, SLOT_PENDING);
	push_slot(bucket_of(s->node, s->blkno), slotno);
}

/*
 * After the WAL record is written and before the page is released: record
 * for every claimed waiter how much of its run went in -- DONE if all of
 * it, else SKIPPED with the count of the prefix that did, or, for a run
 * the add callback deferred or forwarded, that count and the slot back in
 * a wait list, pending (see "Deferred and forwarded runs").  (Latches are
 * set after the release, by blinkam_batch_wake, to keep the page's lock
 * short.)  Returns how many payloads went in, in all.
 */
int
blinkam_batch_finish(BlinkamBatch *batch)
{
	int			done = 0;
	int			runs = 0;
	int			deferred = 0;
	int			forwarded = 0;

	batch->all_in = true;
	batch->forwarded = false;
	for (int i = 0; i < batch->nclaimed; i++)
	{
		BlinkBatchSlot *s = &Batch->slots[batch->claimed[i]];
		int			took = batch->ndone[i] - batch->nstart[i];

		if ((s->nitems > 1 || (s->flags & BLINKAM_BATCH_RUN)) && took > 0)
			runs++;
		done += took;
		s->ndone = batch->ndone[i];
		if (batch->ndone[i] == s->nitems)
			batch->fate[i] = BLINKAM_ADD_TAKEN;
		else
		{
			batch->all_in = false;	/* read before the owner may reuse s */
			if (batch->fate[i] == BLINKAM_ADD_DEFER ||
				batch->fate[i] == BLINKAM_ADD_FORWARD)
			{
				if (batch->fate[i] == BLINKAM_ADD_FORWARD)
				{
					s->blkno = batch->forward_to;
					batch->forwarded = true;
					forwarded++;
				}
				else
					deferred++;
				requeue_slot(batch->claimed[i]);
				continue;
			}
			batch->fate[i] = BLINKAM_ADD_REFUSED;
		}
		pg_write_barrier();		/* ndone before the state the owner reads */
		pg_atomic_write_u32(&s->state, batch->fate[i] == BLINKAM_ADD_TAKEN ?
							SLOT_DONE : SLOT_SKIPPED);
	}
	pg_memory_barrier();
	if (done > 0)
	{
		blinkam_count(BLINKAM_COUNTER_BATCHED_INSERTS, done);
		blinkam_count(BLINKAM_COUNTER_BATCHES, 1);
		blinkam_count(BLINKAM_COUNTER_BATCHED_RUNS, runs);
		if (batch->round > 0)
			blinkam_count(BLINKAM_COUNTER_BATCH_ROUNDS, 1);
	}
	if (deferred > 0)
		blinkam_count(BLINKAM_COUNTER_BATCH_DEFERRED, deferred);
	if (forwarded > 0)
		blinkam_count(BLINKAM_COUNTER_BATCH_FORWARDED, forwarded);
	return done;
}

/*
 * The holder failed before writing its record: hand every claimed slot
 * back (none of its payloads went in this time) and wake the owners, who
 * do the work themselves.
 */
static void
batch_abandon(BlinkamBatch *batch)
{
	for (int i = 0; i < batch->nclaimed; i++)
	{
		batch->ndone[i] = batch->nstart[i];
		batch->fate[i] = BLINKAM_ADD_REFUSED;
	}
	(void) blinkam_batch_finish(batch);
	blinkam_batch_wake(batch);
	batch->nclaimed = 0;
}

/*
 * After the release: wake the waiters finished by blinkam_batch_finish
 * (not those whose runs it left published: they sleep on), and, if it
 * forwarded some to a page we do not hold, look at that page's list (see
 * "Deferred and forwarded runs").
 */
void
blinkam_batch_wake(BlinkamBatch *batch)
{
	for (int i = 0; i < batch->nclaimed; i++)
	{
		if (batch->fate[i] == BLINKAM_ADD_TAKEN ||
			batch->fate[i] == BLINKAM_ADD_REFUSED)
			wake_slot(&Batch->slots[batch->claimed[i]]);
	}
	if (batch->forwarded)
	{
		batch->forwarded = false;
		/* tests: the sibling's holder may release it (and look) first */
		blinkam_debug_pause(BLINKAM_PAUSE_BATCH_FORWARDED);
		look_at_list(batch->node, batch->forward_to);
	}
}

/*
 * For a holder of page blkno of rel that has written a record and
 * finished its batch (blinkam_batch_finish), still holding the page:
 * should it write another record for the waiters that published while it
 * held it, rather than let the page go and wake the first of them (which
 * would take the page and serve the others: a sleep, a wake-up and a lock
 * hand-over later)?  Yes while blinkam.batch_rounds allows one more, the
 * batch just finished took every payload it claimed (a refusal means the
 * page is full or has split: that waiter needs the page itself) and, if
 * it was itself a further round, claimed some, and the page's wait list
 * is not empty.  Before it looks, it wakes the waiters the batch finished
 * (they do not need the page; the caller's wake after its release then
 * has none left), so that a holder's further rounds never delay the
 * waiters it has already served.
 *
 * Nothing changes in the argument that no wake-up is lost: a round is a
 * collect like the first, and the release, whenever it comes, still looks
 * at the list afterwards.  The page stays locked throughout, so interrupts
 * stay held off (no cancel can arrive between rounds), and an error in a
 * later round is handled as in the first (its claimed slots are handed
 * back; the waiters of earlier rounds are DONE, their tuples in records
 * already written).
 */
bool
blinkam_batch_next_round(Relation rel, BlockNumber blkno, BlinkamBatch *batch)
{
	if (!blinkam_batch_inserts || batch->round + 1 >= blinkam_batch_rounds)
		return false;
	if (!batch->all_in || (batch->round > 0 && batch->nclaimed == 0))
		return false;			/* a refusal, or a round that found none */
	blinkam_batch_wake(batch);
	batch->nclaimed = 0;
	batch->round++;
	/* tests: hold the holder between its rounds */
	blinkam_debug_pause(BLINKAM_PAUSE_BATCH_ROUND);
	pg_memory_barrier();
	return pg_atomic_read_u32(bucket_of(rel->rd_node, blkno)) != 0;
}

/*
 * One further round (after blinkam_batch_next_round said yes) of the
 * holder of the page in buf: a generic WAL record of buf registered with
 * xlog_flags, whose page image is stored in *page (where the access
 * method's add callback, with arg, finds it) before the waiters' payloads
 * are collected onto it.  No record is written if nothing is taken.
 * Returns how many payloads went in.
 */
int
blinkam_batch_round(Relation rel, Buffer buf, int xlog_flags,
					BlinkamBatchAddFn add, void *arg, Page *page,
					BlinkamBatch *batch)
{
	BlinkamXLogState *state = blinkam_xlog_start(rel);

	*page = blinkam_xlog_register(state, buf, xlog_flags);
	PG_TRY();
	{
		blinkam_batch_collect(rel, BufferGetBlockNumber(buf), add, arg, batch);
	}
	PG_CATCH();
	{
		blinkam_xlog_abort(state);
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (blinkam_batch_taken(batch) > 0)
		return blinkam_batch_write(state, batch);
	blinkam_xlog_abort(state);	/* nothing went in: no record */
	return blinkam_batch_finish(batch);
}

/*
 * For whoever releases a lock of a page that may have waiters: wake whoever
 * published for it meanwhile (see "Why no wake-up is lost").  Done
 * whatever this session's blinkam.batch_inserts says: a holder that does
 * not serve waiters still hands them back, awake.
 */
void
blinkam_batch_after_release(Relation rel, BlockNumber blkno)
{
	look_at_list(rel->rd_node, blkno);
}

/*
 * For a backend that has just split page from of rel, moving the upper
 * part of its keys to the new page to (both still exclusively locked, the
 * split's record written): every run published for from whose first
 * payload not yet in belongs on to (moves says so, with arg) goes on
 * waiting there, its owner asleep -- unless part of it is in already
 * (forwarded runs keep all of their inserted part on one page).  The
 * others stay published for from.  Pending slots of other pages popped
 * with the list are pushed back and woken (drain_list).  Nobody is woken
 * for from or to: our releases of both look at their lists.  The moves
 * test runs on claimed slots, which their owners cannot withdraw; should
 * it fail, those not yet looked at go back as they were, and the abort
 * wakes them.
 * Returns how many runs moved.
 */
int
blinkam_batch_forward(Relation rel, BlockNumber from, BlockNumber to,
					  BlinkamBatchMovesFn moves, void *arg)
{
	uint32		claimed[BLINKAM_BATCH_CLAIM_MAX];
	int			n;
	volatile int done = 0;
	volatile int moved = 0;

	if (!blinkam_batch_inserts)
		return 0;				/* serving nobody: our release wakes them */
	pg_memory_barrier();
	if (pg_atomic_read_u32(bucket_of(rel->rd_node, from)) == 0)
		return 0;
	/* claim them all (any beyond the claim limit stay published for from) */
	n = drain_bucket(rel->rd_node, from, claimed, BLINKAM_BATCH_CLAIM_MAX, false);
	PG_TRY();
	{
		for (; done < n; done++)
		{
			BlinkBatchSlot *s = &Batch->slots[claimed[done]];

			if (s->ndone == 0 && moves(arg, s->payload, s->sizes[0], s->flags))
			{
				s->blkno = to;
				moved++;
			}
			requeue_slot(claimed[done]);
		}
	}
	PG_CATCH();
	{
		/* the rest stay published for from; the abort wakes them all */
		for (; done < n; done++)
			requeue_slot(claimed[done]);
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (moved > 0)
		blinkam_count(BLINKAM_COUNTER_BATCH_FORWARDED, moved);
	return moved;
}

/*
 * For a holder of page blkno of rel that the page's other lockers do not
 * wake waiters of (blinkheap): having just locked it exclusively, say that
 * we will look at its wait list when we let it go (see "Announced
 * holders").  One page at a time; blinkam_batch_release ends it.
 */
void
blinkam_batch_announce(Relation rel, BlockNumber blkno)
{
	Assert(announced_at == NULL);
	announced_at = holders_of(rel->rd_node, blkno);
	pg_atomic_fetch_add_u32(announced_at, 1);
}

/*
 * Unlock buf, a page of rel that may have waiters of the announced kind:
 * take back our announcement, if any, then unlock and wake whoever
 * published for the page meanwhile.  The pin stays.
 */
void
blinkam_batch_release(Relation rel, Buffer buf)
{
	batch_unannounce();			/* a full barrier, before the release */
	batch_unlock(rel, buf);
}

/*
 * Take back this backend's announcement, if any: at a release, and after
 * an error between announce and release.
 */
static void
batch_unannounce(void)
{
	if (announced_at != NULL)
	{
		pg_atomic_fetch_sub_u32(announced_at, 1);
		announced_at = NULL;
	}
}

/*
 * After an error: the page locks this backend held were released by
 * LWLockReleaseAll, not by the access method's unlock, so nobody looked
 * at their wait
 * lists.  Wake every pending waiter of every list; each takes its page
 * lock and inserts itself or, finding the lock taken again, waits for
 * that holder.  (A woken waiter of a page whose holder is still busy
 * costs one failed lock attempt.)  Cheap: one atomic read per list when
 * the lists are empty.
 */
static void
batch_wake_all(void)
{
	if (Batch == NULL)
		return;
	pg_memory_barrier();
	for (int b = 0; b < BATCH_BUCKETS; b++)
	{
		if (pg_atomic_read_u32(&Batch->heads[b]) != 0)
			(void) drain_list(&Batch->heads[b], NULL, InvalidBlockNumber, NULL, 0, false);
	}
}

static void
batch_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
	{
		batch_unannounce();
		batch_wake_all();
	}
}

static void
batch_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
							  SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
	{
		batch_unannounce();
		batch_wake_all();
	}
}

/* From _PG_init: shared memory and the abort callbacks. */
void
blinkam_batch_init(void)
{
	blinkam_shmem_register(batch_shmem_size, batch_shmem_init);
	RegisterXactCallback(batch_xact_callback, NULL);
	RegisterSubXactCallback(batch_subxact_callback, NULL);
}
