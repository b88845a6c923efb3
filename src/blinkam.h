/*-------------------------------------------------------------------------
 *
 * blinkam.h
 *	  Declarations shared by every part of the blinkam extension.
 *
 * src/blinkam.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef BLINKAM_H
#define BLINKAM_H

#include "port/atomics.h"
#include "storage/lwlock.h"
#include "storage/latch.h"

#define BLINKAM_NAME			"blinkam"

/* LWLocks of the "blinkam" tranche */
#define BLINKAM_LWLOCK_STATE	0	/* BlinkamSharedState */
#define BLINKAM_LWLOCK_SPLITREG	1	/* split registry */
#define BLINKAM_LWLOCK_VACUUM	2	/* vacuum cycle ids */
#define BLINKAM_LWLOCK_POOL		3	/* page pools, database requests */
#define BLINKAM_NUM_LWLOCKS		4

/* Work requested from the worker of one database (pool.c) */
#define BLINKAM_MAX_DB_REQUESTS	64
typedef struct BlinkDbRequest
{
	Oid			dbid;			/* InvalidOid: free entry */
	bool		repair;			/* a repair sweep is due */
	bool		returns;		/* pages of recycled pool slots wait in the
								 * return queue */
	bool		starting;		/* the launcher has started a worker */
	pid_t		worker_pid;		/* the worker serving it, or 0 */
	Latch	   *worker_latch;
} BlinkDbRequest;
#define BLINKAM_LAUNCHER_TYPE	"blinkam launcher"
#define BLINKAM_WORKER_TYPE		"blinkam worker"

/*
 * Shared counters, reported by blinkam_stats().  Each entry is
 * X(enum suffix, SQL name, description); adding a counter is one line here.
 * Counters only ever grow (until blinkam_reset_stats()); they are updated
 * with atomic adds and read without a lock, so a reader may see one counter
 * a little ahead of another.
 */
#define BLINKAM_COUNTERS(X) \
	X(LAUNCHER_STARTS, "launcher_starts", "times the blinkam launcher process has started") \
	X(DESCENTS, "descents", "root-to-leaf descents of blink indexes") \
	X(INSERTS, "inserts", "index tuples inserted into blink indexes") \
	X(UNIQUE_CHECKS, "unique_checks", "inserts into unique blink indexes that checked for duplicates") \
	X(SPLITS, "splits", "blink page splits, at every level") \
	X(ROOT_SPLITS, "root_splits", "new blink roots (tree height grew)") \
	X(MOVERIGHTS, "moverights", "moves to a right sibling during descents and parent searches") \
	X(INCOMPLETE_SPLITS_FINISHED, "incomplete_splits_finished", "abandoned blink splits finished by another backend (workers included)") \
	X(SPLITS_REPAIRED_BY_WORKER, "splits_repaired_by_worker", "abandoned blink splits finished by a blinkam worker") \
	X(POOL_PAGES_TAKEN, "pool_pages_taken", "new pages that splits took from a page pool") \
	X(POOL_MISSES, "pool_misses", "splits that found their pool empty and got a page themselves") \
	X(POOL_PAGES_ADDED, "pool_pages_added", "pages added to page pools by workers") \
	X(POOL_REFILLS, "pool_refills", "page pool refills done by workers") \
	X(POOL_PAGES_FROM_FSM, "pool_pages_from_fsm", "pages that refills took from the free space map instead of extending the index") \
	X(POOL_PAGES_RETURNED, "pool_pages_returned", "pages of recycled pool slots that workers recorded in the free space map") \
	X(POOL_PAGES_STRANDED, "pool_pages_stranded", "pages of recycled pool slots the return queue had no room for (VACUUM or the start-up sweep finds them)") \
	X(FREE_PAGES_FOUND, "free_pages_found", "zero pages the workers' start-up sweep recorded in the free space map") \
	X(WORKER_STARTS, "worker_starts", "per-database blinkam workers started") \
	X(BATCHED_INSERTS, "batched_inserts", "index tuples inserted by another backend, from a wait list") \
	X(BATCHES, "batches", "leaf inserts that also inserted waiters' tuples") \
	X(BATCH_SKIPS, "batch_skips", "published tuples handed back to their backend") \
	X(BATCH_WAIT_TIMEOUTS, "batch_wait_timeouts", "waits for a batch that timed out and retried") \
	X(BATCH_LOST_WAKEUPS, "batch_lost_wakeups", "waiters that found the page free after sleeping although nobody had woken them or another waiter of the page (a missed wake-up)") \
	X(DEFERRED_INSERTS, "deferred_inserts", "index tuples held in a statement buffer, then added with others") \
	X(DEFERRED_LEAF_WRITES, "deferred_leaf_writes", "leaf WAL records written by statement-buffer flushes")

typedef enum BlinkamCounter
{
#define BLINKAM_COUNTER_ENUM(sym, name, desc) BLINKAM_COUNTER_##sym,
	BLINKAM_COUNTERS(BLINKAM_COUNTER_ENUM)
#undef BLINKAM_COUNTER_ENUM
	BLINKAM_NUM_COUNTERS
} BlinkamCounter;

/*
 * The extension-wide shared state, one per cluster, created at postmaster
 * start (shmem.c).
 *
 * lock (tranche "blinkam") protects launcher_pid and launcher_latch.  The
 * counters need no lock.
 */
typedef struct BlinkamSharedState
{
	LWLock	   *lock;
	pid_t		launcher_pid;	/* 0 while no launcher runs */
	Latch	   *launcher_latch; /* its process latch, NULL if none */
	pg_atomic_uint64 counters[BLINKAM_NUM_COUNTERS];
} BlinkamSharedState;

/* Named points of a split cascade for blinkam.debug_stop_at */
typedef enum BlinkamStopPoint
{
	BLINKAM_STOP_NONE = 0,
	BLINKAM_STOP_AFTER_LEAF_SPLIT,
	BLINKAM_STOP_AFTER_PARENT_SPLIT,
	BLINKAM_STOP_BEFORE_NEW_ROOT,
	BLINKAM_STOP_IN_BATCH
} BlinkamStopPoint;

/*
 * Named points where a backend can be made to wait (blinkam.debug_pause_at),
 * so that an isolation spec can hold it inside a window a few instructions
 * wide while other sessions act.
 */
typedef enum BlinkamPausePoint
{
	BLINKAM_PAUSE_NONE = 0,
	BLINKAM_PAUSE_SPLIT_CYCLEID,	/* a split has read the VACUUM cycle id */
	BLINKAM_PAUSE_AFTER_FINISH_SPLIT,	/* an insert let go of a flagged leaf
										 * to finish its split */
	BLINKAM_PAUSE_SCAN_LEAF_READ,	/* a scan copied a leaf, before its heap
									 * visits */
	BLINKAM_PAUSE_BATCH_BEFORE_CLAIM,	/* a holder has its own tuples on
										 * the page copy, before taking the
										 * wait list */
	BLINKAM_PAUSE_BATCH_CHECKED,	/* a holder has checked and added
									 * waiters' tuples, before writing its
									 * record */
	BLINKAM_PAUSE_DRAIN_PUSHED_BACK /* a release has pushed back the first
									 * waiter of its page, the rest of the
									 * list still in its hands */
} BlinkamPausePoint;

#define BLINKAM_STOP_ERROR	0
#define BLINKAM_STOP_PANIC	1

/* guc.c */
extern bool blinkam_enable_workers;
extern bool blinkam_enable_pools;
extern bool blinkam_batch_inserts;
extern bool blinkam_defer_inserts;
extern int	blinkam_pool_relations;
extern int	blinkam_pool_size;
extern int	blinkam_pool_leaf_low;
extern int	blinkam_pool_leaf_high;
extern int	blinkam_pool_internal_low;
extern int	blinkam_pool_internal_high;
extern int	blinkam_worker_idle_timeout;
extern int	blinkam_repair_delay;
extern int	blinkam_debug_stop_at;
extern int	blinkam_debug_stop_action;
extern int	blinkam_debug_batch_delay;
extern int	blinkam_debug_batch_wait_timeout;
extern int	blinkam_debug_pause_at;
extern int	blinkam_debug_pause_key;
extern void blinkam_define_gucs(void);
extern void blinkam_debug_stop(BlinkamStopPoint point);
extern void blinkam_debug_pause_wait(BlinkamPausePoint point);

/* Wait at a named point if blinkam.debug_pause_at names it (tests only). */
static inline void
blinkam_debug_pause(BlinkamPausePoint point)
{
	if (unlikely(blinkam_debug_pause_at == (int) point))
		blinkam_debug_pause_wait(point);
}

/* shmem.c */
extern BlinkamSharedState *BlinkamShared;
extern void blinkam_shmem_install_hooks(void);
extern const char *blinkam_counter_name(BlinkamCounter c);

static inline void
blinkam_count(BlinkamCounter c, uint64 n)
{
	pg_atomic_fetch_add_u64(&BlinkamShared->counters[c], n);
}

/* launcher.c */
extern void blinkam_register_launcher(void);
extern void blinkam_wake_launcher(void);
extern PGDLLEXPORT void blinkam_launcher_main(Datum main_arg);

/* worker.c */
extern PGDLLEXPORT void blinkam_worker_main(Datum main_arg);

#endif							/* BLINKAM_H */
