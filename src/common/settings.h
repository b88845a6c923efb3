/*-------------------------------------------------------------------------
 *
 * settings.h
 *	  The blinkam.* configuration parameters, and the named points where
 *	  tests can stop or hold a backend.
 *
 * src/common/settings.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef BLINKAM_SETTINGS_H
#define BLINKAM_SETTINGS_H

/* Named points of a split cascade for blinkam.debug_stop_at */
typedef enum BlinkamStopPoint
{
	BLINKAM_STOP_NONE = 0,
	BLINKAM_STOP_AFTER_LEAF_SPLIT,
	BLINKAM_STOP_AFTER_PARENT_SPLIT,
	BLINKAM_STOP_BEFORE_NEW_ROOT,
	BLINKAM_STOP_IN_BATCH,
	BLINKAM_STOP_IN_ROUND,		/* in a batch holder's further round */
	BLINKAM_STOP_BATCH_RECORD	/* a batch holder's record fails */
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
	BLINKAM_PAUSE_DRAIN_PUSHED_BACK,	/* a release has pushed back the first
										 * waiter of its page, the rest of the
										 * list still in its hands */
	BLINKAM_PAUSE_VACUUM_CLEANUP_LOCKED,	/* VACUUM has a leaf locked
											 * exclusively for its cleanup
											 * lock, before it checks the
											 * other pins */
	BLINKAM_PAUSE_CSN_COMMITTING,	/* a committing blinkheap writer is
									 * listed as committing, still in the
									 * proc array (PRE_COMMIT) */
	BLINKAM_PAUSE_CSN_BEFORE_ASSIGN,	/* it has left the proc array and
										 * has no CSN yet (COMMIT callback) */
	BLINKAM_PAUSE_CSN_NUMBERED, /* it has taken its CSN, its map entries
								 * are not written, its slot is set */
	BLINKAM_PAUSE_CSN_VIEW_READ,	/* a reader building a CSN view has
									 * read H0, not yet the committing
									 * slots */
	BLINKAM_PAUSE_INSERT_START, /* blink's aminsert was called (after
								 * index_insert's predicate lock check),
								 * its entry not yet in the index */
	BLINKAM_PAUSE_ONCONFLICT_OPENING,	/* an ON CONFLICT target's indexes
										 * are about to be opened (executor
										 * start) */
	BLINKAM_PAUSE_BATCH_PUBLISH,	/* a waiter found its leaf busy and holds
									 * a pin on it, before publishing */
	BLINKAM_PAUSE_PARALLEL_SEIZED,	/* a parallel scan backend has seized a
									 * published position (ADVANCING), before
									 * it locks the next page */
	BLINKAM_PAUSE_HEAP_VACUUM_LOCKED,	/* blinkheap VACUUM holds a page's
										 * cleanup lock, before pruning it */
	BLINKAM_PAUSE_HOT_SWITCH_CLAIMED,	/* a blinkheap insert found its hot
										 * page full and claimed the switch,
										 * before finding the next page */
	BLINKAM_PAUSE_BATCH_ROUND,	/* a batch holder has written a record and
								 * finished its waiters, still holding the
								 * page, before it looks for more */
	BLINKAM_PAUSE_HEAP_TUPLE_STORED,	/* a blinkheap read has put a tuple
										 * in the executor's slot and let go
										 * of the page's lock */
	BLINKAM_PAUSE_SPLIT_PARENT, /* a leaf split is written and let go, its
								 * downlink not yet inserted; no lock held */
	BLINKAM_PAUSE_BATCH_FOLLOW, /* a waiter whose published run was
								 * forwarded has let go of its pin on the old
								 * page, not yet pinned the new one */
	BLINKAM_PAUSE_BATCH_FORWARDED,	/* a holder that forwarded runs to its
									 * leaf's right sibling has let its leaf
									 * go, not yet looked at the sibling's
									 * wait list */
	BLINKAM_PAUSE_PAGE_ITEMS_LOCKED,	/* blink_page_items or
										 * blinkheap_page_items holds its page
										 * in share mode; it then lets it go
										 * without a look at the wait list, as
										 * PostgreSQL's own page writes do */
	BLINKAM_PAUSE_HINT_PINNED,	/* an insert has chosen its leaf by a leaf
								 * hint and pinned it, not yet locked it */
	BLINKAM_PAUSE_HINT_MOVE_RIGHT,	/* an insert that came by a leaf hint has
									 * let go of a leaf its key is beyond,
									 * not yet pinned the right sibling */
	BLINKAM_PAUSE_BATCH_WOKEN,	/* a batch waiter woken on purpose (to take
								 * its page), still published, before its
								 * lock attempt */
	BLINKAM_PAUSE_HEAP_EXTEND_LOCKED,	/* a blinkheap insert holds the
										 * table's extension lock, before it
										 * counts the inserts queued for it
										 * and extends (waits by polling) */
	BLINKAM_PAUSE_HEAP_EXTEND_FOUND,	/* a blinkheap insert that waited for
										 * the extension lock found a block
										 * number in the map or the pool and
										 * let the lock go; it holds no buffer
										 * lock and has not yet claimed the
										 * page */
	BLINKAM_PAUSE_CSN_ENTRY_BUSY,	/* a committing blinkheap writer has
									 * claimed its CSN map entry (marked busy)
									 * and not yet written it */
	BLINKAM_PAUSE_BATCH_SLEEP_START,	/* a batch waiter found its slot
										 * unanswered and is about to sleep
										 * (waits by polling, latch untouched) */
	BLINKAM_PAUSE_DATABASE_HELD,	/* a command that needs a database to
									 * itself holds it (workers gone and
									 * kept off), before PostgreSQL runs it */
	BLINKAM_PAUSE_MULTI_INSERT_CHECKED,	/* a blinkheap multi-insert (COPY)
										 * has made its first SERIALIZABLE
										 * check, no page locked yet */
	BLINKAM_PAUSE_HEAP_CHECK_PAGE,	/* blinkheap_check has read the next
									 * xid and is about to read a page; it
									 * holds no buffer */
	BLINKAM_PAUSE_HEAP_UPDATE_WINDOW,	/* a blinkheap update has locked the
										 * old version and let its page go
										 * (pinned) to find room elsewhere */
	BLINKAM_PAUSE_UNIQUE_ENTERED,	/* a held-back unique entry's check has
									 * passed and its key is in pending.c;
									 * it still holds the key's first leaf */
	BLINKAM_PAUSE_UNIQUE_PROBED,	/* a unique insert has checked its key's
									 * leaf and pending.c, and holds the
									 * leaf locked before its insert */
	BLINKAM_PAUSE_PENDING_LANDED,	/* a flush has put waiting unique entries
									 * on their leaves, their keys still in
									 * pending.c */
	BLINKAM_PAUSE_UNIQUE_LEAVES_READ,	/* a unique check has read pending.c,
										 * then its key's first leaf and right
										 * siblings; it holds the first leaf
										 * only */
	BLINKAM_PAUSE_HEAP_TRUNCATE_SCAN	/* a blinkheap VACUUM holds the
										 * table's AccessExclusiveLock and
										 * has found its last page empty */
} BlinkamPausePoint;

#define BLINKAM_STOP_ERROR	0
#define BLINKAM_STOP_PANIC	1

extern bool blinkam_enable_workers;
extern bool blinkam_enable_pools;
extern bool blinkam_batch_inserts;
extern int	blinkam_batch_spin;
extern int	blinkam_batch_rounds;
extern int	blinkam_hot_insert_pages;

#define BLINKAM_HOT_PAGES_MAX	16	/* blinkam.hot_insert_pages at most */

/* blinkam.defer_inserts: how long non-unique blink entries wait (defer.c) */
typedef enum BlinkamDeferInserts
{
	BLINKAM_DEFER_OFF,			/* each row's entry goes in at once */
	BLINKAM_DEFER_STATEMENT,	/* until the statement ends */
	BLINKAM_DEFER_TRANSACTION	/* until the commit, or a read of the index */
} BlinkamDeferInserts;
extern int	blinkam_defer_inserts;
/* blinkam.defer_unique: unique entries wait too (defer.c, pending.c) */
extern bool blinkam_defer_unique;
/* blinkam.flush_leaves: leaves one flush record may change (blinkinsert.c) */
extern int	blinkam_flush_leaves;

#define BLINKAM_FLUSH_LEAVES_MAX	4	/* a generic WAL record's pages */
extern bool blinkam_csn_snapshots;
extern int	blinkam_pool_relations;
extern int	blinkam_pool_size;
extern int	blinkam_pool_leaf_low;
extern int	blinkam_pool_leaf_high;
extern int	blinkam_pool_internal_low;
extern int	blinkam_pool_internal_high;
extern int	blinkam_worker_idle_timeout;
extern int	blinkam_max_workers;
extern int	blinkam_repair_delay;
extern int	blinkam_debug_stop_at;
extern int	blinkam_debug_stop_action;
extern int	blinkam_debug_batch_delay;
extern int	blinkam_debug_batch_wait_timeout;
extern int	blinkam_debug_pause_at;
extern int	blinkam_debug_pause_key;
extern int	blinkam_debug_pause_also_at;
extern int	blinkam_debug_pause_also_key;
extern void blinkam_define_gucs(void);
extern void blinkam_debug_stop(BlinkamStopPoint point);
extern void blinkam_debug_pause_wait(BlinkamPausePoint point);

/*
 * Wait at a named point if blinkam.debug_pause_at or
 * blinkam.debug_pause_also_at names it (tests only).
 */
static inline void
blinkam_debug_pause(BlinkamPausePoint point)
{
	if (unlikely(blinkam_debug_pause_at == (int) point ||
				 blinkam_debug_pause_also_at == (int) point))
		blinkam_debug_pause_wait(point);
}

#endif							/* BLINKAM_SETTINGS_H */
