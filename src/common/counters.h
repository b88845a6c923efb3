/*-------------------------------------------------------------------------
 *
 * counters.h
 *	  Shared counters of the whole extension, reported by blinkam_stats().
 *
 * src/common/counters.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef BLINKAM_COUNTERS_H
#define BLINKAM_COUNTERS_H

#include "port/atomics.h"
#include "storage/proc.h"

/*
 * Each entry is X(enum suffix, SQL name, description); adding a counter is
 * one line here.  Counters only ever grow (until blinkam_reset_stats());
 * they are updated with atomic adds and read without a lock, so a reader
 * may see one counter a little ahead of another.
 */
#define BLINKAM_COUNTERS(X) \
	X(LAUNCHER_STARTS, "launcher_starts", "times the blinkam launcher process has started") \
	X(DESCENTS, "descents", "root-to-leaf descents of blink indexes") \
	X(INSERTS, "inserts", "index tuples inserted into blink indexes") \
	X(UNIQUE_CHECKS, "unique_checks", "inserts into unique blink indexes that checked for duplicates") \
	X(LEAF_HINTS, "leaf_hints", "blink inserts that went straight to a leaf their backend had inserted into before (a leaf hint), without a descent from the root") \
	X(SPLITS, "splits", "blink page splits, at every level") \
	X(ENTRIES_MARKED_DEAD, "entries_marked_dead", "blink entries that scans marked dead (LP_DEAD) after the table found their rows dead to everyone") \
	X(ENTRIES_DELETED, "entries_deleted", "blink entries of dead rows removed from full leaves before a split (not by VACUUM)") \
	X(DEDUP_PASSES, "dedup_passes", "full blink leaves whose equal keys were stored once (posting tuples), to make room before a split") \
	X(ROOT_SPLITS, "root_splits", "new blink roots (tree height grew)") \
	X(PARENT_LET_GO, "parent_let_go", "blink split ascents that found the split page busy and let its parent go while they waited for it") \
	X(MOVERIGHTS, "moverights", "moves to a right sibling during descents and parent searches") \
	X(INCOMPLETE_SPLITS_FINISHED, "incomplete_splits_finished", "abandoned blink splits finished by another backend (workers included)") \
	X(SPLITS_REPAIRED_BY_WORKER, "splits_repaired_by_worker", "abandoned blink splits finished by a blinkam worker") \
	X(POOL_PAGES_TAKEN, "pool_pages_taken", "new pages that splits (blink) or inserts (blinkheap) took from a page pool") \
	X(POOL_MISSES, "pool_misses", "splits or inserts that found their pool empty and got a page themselves") \
	X(POOL_PAGES_ADDED, "pool_pages_added", "pages added to page pools by workers") \
	X(POOL_REFILLS, "pool_refills", "page pool refills done by workers") \
	X(POOL_REFILLS_LOCKED, "pool_refills_locked", "times a worker put a page pool refill off because another transaction held the relation in a conflicting lock (tried again after 100 ms, doubling up to 10 s)") \
	X(POOL_REFILLS_FAILED, "pool_refills_failed", "page pool refills that failed with an error (a full disk) and were put off for ten seconds") \
	X(POOL_PAGES_FROM_FSM, "pool_pages_from_fsm", "pages that refills took from an index's free space map instead of extending it") \
	X(POOL_PAGES_RETURNED, "pool_pages_returned", "pages of recycled pool slots that workers recorded in the free space map") \
	X(POOL_PAGES_STRANDED, "pool_pages_stranded", "pages of recycled pool slots the return queue had no room for, or whose relation another transaction held locked (VACUUM or the start-up sweep finds them)") \
	X(FREE_PAGES_FOUND, "free_pages_found", "zero pages the workers' start-up sweep recorded in the free space map") \
	X(WORKER_STARTS, "worker_starts", "per-database blinkam workers started") \
	X(WORKER_START_FAILURES, "worker_start_failures", "per-database blinkam workers that stopped before attaching (their database refuses connections, or is gone)") \
	X(BATCHED_INSERTS, "batched_inserts", "tuples (blink entries, blinkheap rows) inserted by another backend, from a wait list") \
	X(BATCHES, "batches", "WAL records of inserts (blink leaves, blinkheap pages) that also inserted waiters' tuples (a holder's further rounds count one each)") \
	X(BATCH_SKIPS, "batch_skips", "published tuples handed back to their backend") \
	X(BATCH_WAIT_TIMEOUTS, "batch_wait_timeouts", "waits for a batch that timed out and retried") \
	X(BATCH_SHARE_WAITS, "batch_share_waits", "short sleeps of batch waiters that found their page held in share mode (by a reader, or by PostgreSQL writing it out, whose release wakes nobody)") \
	X(BATCH_LOST_WAKEUPS, "batch_lost_wakeups", "waiters that found the page free after sleeping to their timeout although nobody had woken them or another waiter of the page (a missed wake-up)") \
	X(BATCHED_RUNS, "batched_runs", "published runs of several tuples (a statement buffer's, for one leaf) that a holder took, whole or in part") \
	X(BATCHED_POSTINGS, "batched_postings", "posting tuples (a published run's equal keys, one item) that a blink holder took; their entries count in batched_inserts") \
	X(BATCH_PARTIAL, "batch_partial", "published runs of which holders took only the first part before their owner did the rest itself") \
	X(BATCH_ROUNDS, "batch_rounds", "further WAL records a batch holder wrote for waiters that published while it held the page (blinkam.batch_rounds)") \
	X(BATCH_SPINS, "batch_spins", "waits for a batch answered while spinning, before any sleep (blinkam.batch_spin)") \
	X(BATCH_SLEEPS, "batch_sleeps", "waits for a batch that slept on the latch") \
	X(BATCH_WAKEUPS, "batch_wakeups", "sleeps of batch waiters, each until woken, timed out or interrupted (a wait that slept counts one or more)") \
	X(BATCH_WOKEN_BUSY, "batch_woken_busy", "batch waiters woken to take their page (their holder let it go) that found it taken again, by an insert that came meanwhile, and waited on") \
	X(BATCH_REFUSED_RIGHT, "batch_refused_right", "published blink runs a holder stopped taking at an entry that belongs right of its leaf (the leaf split after they were published)") \
	X(BATCH_REFUSED_ROOM, "batch_refused_room", "published blink runs a holder stopped taking at an entry its leaf had no room for (the leaf must split first)") \
	X(BATCH_REFUSED_OTHER, "batch_refused_other", "published blink runs a holder stopped taking at an entry whose key a unique index holds already (the waiter judges it) or that an in-place record could not append") \
	X(BATCH_WITHDRAWALS, "batch_withdrawals", "published slots their waiters took back, cancelled or leaving with an error, before any holder claimed them (their tuples never went in by a holder)") \
	X(BATCH_LOCK_WAITS, "batch_lock_waits", "inserts into a busy page that ended up waiting for its lock the ordinary way (handed back, no slot, no announced holder) and found it still taken") \
	X(BATCH_DEFERRED, "batch_deferred", "published runs a holder left published, their owners asleep, for the next holder of its page (no room yet: that one makes room or splits the page)") \
	X(BATCH_FORWARDED, "batch_forwarded", "published blink runs moved, still published, to the right sibling of their leaf (by the leaf's split, or by a holder whose leaf split after they were published)") \
	X(BATCH_FIRST_GONE, "batch_first_gone", "looks at a page's wait list that found the waiter to wake, put back first, no longer waiting once the rest of the list was back (claimed by another holder, finished or withdrawn meanwhile), and looked at the list again") \
	X(LEAF_LOCK_WAITS, "leaf_lock_waits", "blink leaf locks that had to wait for another backend (inserts that publish instead are not counted)") \
	X(INTERNAL_LOCK_WAITS, "internal_lock_waits", "blink internal page and metapage locks that had to wait for another backend") \
	X(DEFERRED_INSERTS, "deferred_inserts", "index tuples held in a statement buffer, then added with others") \
	X(PENDING_UNIQUE, "pending_unique_inserts", "unique index tuples held in a statement buffer, their keys in shared memory for other checks (blinkam.defer_unique)") \
	X(PENDING_FOUND, "pending_unique_found", "unique checks that found their key held in a statement buffer (another's, or their own transaction's)") \
	X(DEFERRED_LEAF_WRITES, "deferred_leaf_writes", "leaf WAL records written by statement-buffer flushes") \
	X(FLUSH_LEAVES_GROUPED, "flush_leaves_grouped", "further leaves a statement-buffer flush changed in the WAL record of another leaf (blinkam.flush_leaves)") \
	X(BLINKHEAP_INSERTS, "blinkheap_inserts", "rows inserted into blinkheap tables by INSERT and COPY") \
	X(BLINKHEAP_INSERT_RECORDS, "blinkheap_insert_records", "generic WAL records written for those rows (COPY fills a page per record; a batch is one record)") \
	X(BLINKHEAP_BATCHED_INSERTS, "blinkheap_batched_inserts", "blinkheap rows put on their page by another backend, from a wait list (also in batched_inserts)") \
	X(BLINKHEAP_BATCHES, "blinkheap_batches", "blinkheap inserts that also put waiters' rows on the page (also in batches)") \
	X(BLINKHEAP_PAGES_AHEAD, "blinkheap_pages_ahead", "zero pages a blinkheap insert added, while it extended its table, for the backends queued behind it for the extension lock (to the table's pool, and past its capacity to the free space map)") \
	X(HOT_SWITCH_WAITS, "hot_switch_waits", "blinkheap inserts that found their hot insert page full while another backend was finding the next one, and waited for it") \
	X(BLINKHEAP_VACUUM_REMOVED, "blinkheap_vacuum_removed", "dead tuples VACUUM removed from blinkheap tables") \
	X(BLINKHEAP_VACUUM_FROZEN, "blinkheap_vacuum_frozen", "tuples VACUUM froze in blinkheap tables") \
	X(CSN_ASSIGNED, "csn_assigned", "commit sequence numbers given to committing transactions that wrote blinkheap tuples") \
	X(CSN_FAST_CHECKS, "csn_fast_checks", "MVCC checks of a recent xid in a blinkheap tuple decided by its commit sequence number") \
	X(CSN_SLOW_CHECKS, "csn_slow_checks", "MVCC checks of a recent xid in a blinkheap tuple decided by the snapshot's xid array and clog (no CSN known)") \
	X(CSN_MAP_EVICTIONS, "csn_map_evictions", "xid-to-CSN map entries overwritten by a newer transaction")

typedef enum BlinkamCounter
{
#define BLINKAM_COUNTER_ENUM(sym, name, desc) BLINKAM_COUNTER_##sym,
	BLINKAM_COUNTERS(BLINKAM_COUNTER_ENUM)
#undef BLINKAM_COUNTER_ENUM
	BLINKAM_NUM_COUNTERS
} BlinkamCounter;

/*
 * One row of counters per backend (by pgprocno) plus one shared row for
 * processes without a PGPROC (the postmaster): every backend adds to its
 * own row, so counting an insert touches a cache line no other core
 * writes.  A counter's value is the sum of its column (counters.c).
 */
typedef struct BlinkamCounterRow
{
	pg_atomic_uint64 c[BLINKAM_NUM_COUNTERS];
} BlinkamCounterRow;

/* This backend's row; NULL until the first count finds it. */
extern BlinkamCounterRow *BlinkamMyCounters;
extern PGPROC *BlinkamMyCountersProc;

extern void blinkam_counters_init(void);
extern const char *blinkam_counter_name(BlinkamCounter c);
extern BlinkamCounterRow *blinkam_counter_row(void);
extern uint64 blinkam_counter_value(BlinkamCounter c);

/*
 * Add n to counter c.  The row is looked up again whenever MyProc differs
 * from the one it was found for (a child of the postmaster inherits the
 * postmaster's row pointer but has a PGPROC of its own).  Only the owner
 * adds to a row; the atomic add keeps a concurrent reset from losing or
 * mangling a count.
 */
static inline void
blinkam_count(BlinkamCounter c, uint64 n)
{
	if (unlikely(BlinkamMyCounters == NULL || BlinkamMyCountersProc != MyProc))
		BlinkamMyCounters = blinkam_counter_row();
	pg_atomic_fetch_add_u64(&BlinkamMyCounters->c[c], n);
}

#endif							/* BLINKAM_COUNTERS_H */
