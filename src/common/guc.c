/*-------------------------------------------------------------------------
 *
 * guc.c
 *	  The blinkam.* configuration parameters.
 *
 * Only settings that change behaviour live here.  The "blinkam" prefix is
 * reserved, so a misspelt blinkam.* setting is an error rather than a
 * silently ignored placeholder.
 *
 * src/common/guc.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lock.h"
#include "storage/pmsignal.h"
#include "utils/guc.h"
#include "utils/wait_event.h"

#include "common/settings.h"
#include "common/shmem.h"

/* Register the blinkam launcher (and so every background worker)? */
bool		blinkam_enable_workers = true;

/* Page pools (pool.c) and the per-database workers (worker.c) */
bool		blinkam_enable_pools = true;

/* Cooperative batch inserts on busy leaves (batch.c) */
bool		blinkam_batch_inserts = true;
int			blinkam_batch_spin = 100;
int			blinkam_batch_rounds = 1;
int			blinkam_hot_insert_pages = 0;
int			blinkam_defer_inserts = BLINKAM_DEFER_TRANSACTION;
bool		blinkam_defer_unique = false;
int			blinkam_flush_leaves = BLINKAM_FLUSH_LEAVES_MAX;
bool		blinkam_csn_snapshots = true;
int			blinkam_pool_relations = 256;
int			blinkam_pool_size = 64;
int			blinkam_pool_leaf_low = 8;
int			blinkam_pool_leaf_high = 64;
int			blinkam_pool_internal_low = 2;
int			blinkam_pool_internal_high = 8;
int			blinkam_worker_idle_timeout = 10000;
int			blinkam_max_workers = 3;
int			blinkam_repair_delay = 10;

/* Test support: stop a split cascade at a named point (superuser only). */
int			blinkam_debug_stop_at = BLINKAM_STOP_NONE;
int			blinkam_debug_stop_action = BLINKAM_STOP_ERROR;
int			blinkam_debug_batch_delay = 0;
int			blinkam_debug_batch_wait_timeout = 100;

/* Test support: wait at a named point until a lock is free (superuser). */
int			blinkam_debug_pause_at = BLINKAM_PAUSE_NONE;
int			blinkam_debug_pause_key = 1;
int			blinkam_debug_pause_also_at = BLINKAM_PAUSE_NONE;
int			blinkam_debug_pause_also_key = 2;

/* on and off (and their other spellings) as when the setting was a bool */
static const struct config_enum_entry defer_inserts_options[] = {
	{"transaction", BLINKAM_DEFER_TRANSACTION, false},
	{"statement", BLINKAM_DEFER_STATEMENT, false},
	{"off", BLINKAM_DEFER_OFF, false},
	{"on", BLINKAM_DEFER_TRANSACTION, true},
	{"true", BLINKAM_DEFER_TRANSACTION, true},
	{"yes", BLINKAM_DEFER_TRANSACTION, true},
	{"1", BLINKAM_DEFER_TRANSACTION, true},
	{"false", BLINKAM_DEFER_OFF, true},
	{"no", BLINKAM_DEFER_OFF, true},
	{"0", BLINKAM_DEFER_OFF, true},
	{NULL, 0, false}
};

static const struct config_enum_entry pause_at_options[] = {
	{"none", BLINKAM_PAUSE_NONE, false},
	{"split_cycleid", BLINKAM_PAUSE_SPLIT_CYCLEID, false},
	{"after_finish_split", BLINKAM_PAUSE_AFTER_FINISH_SPLIT, false},
	{"scan_leaf_read", BLINKAM_PAUSE_SCAN_LEAF_READ, false},
	{"batch_before_claim", BLINKAM_PAUSE_BATCH_BEFORE_CLAIM, false},
	{"batch_checked", BLINKAM_PAUSE_BATCH_CHECKED, false},
	{"drain_pushed_back", BLINKAM_PAUSE_DRAIN_PUSHED_BACK, false},
	{"vacuum_cleanup_locked", BLINKAM_PAUSE_VACUUM_CLEANUP_LOCKED, false},
	{"csn_committing", BLINKAM_PAUSE_CSN_COMMITTING, false},
	{"csn_before_assign", BLINKAM_PAUSE_CSN_BEFORE_ASSIGN, false},
	{"csn_numbered", BLINKAM_PAUSE_CSN_NUMBERED, false},
	{"csn_view_read", BLINKAM_PAUSE_CSN_VIEW_READ, false},
	{"insert_start", BLINKAM_PAUSE_INSERT_START, false},
	{"onconflict_opening", BLINKAM_PAUSE_ONCONFLICT_OPENING, false},
	{"batch_publish", BLINKAM_PAUSE_BATCH_PUBLISH, false},
	{"parallel_seized", BLINKAM_PAUSE_PARALLEL_SEIZED, false},
	{"heap_vacuum_locked", BLINKAM_PAUSE_HEAP_VACUUM_LOCKED, false},
	{"hot_switch_claimed", BLINKAM_PAUSE_HOT_SWITCH_CLAIMED, false},
	{"batch_round", BLINKAM_PAUSE_BATCH_ROUND, false},
	{"heap_tuple_stored", BLINKAM_PAUSE_HEAP_TUPLE_STORED, false},
	{"split_parent", BLINKAM_PAUSE_SPLIT_PARENT, false},
	{"batch_follow", BLINKAM_PAUSE_BATCH_FOLLOW, false},
	{"batch_forwarded", BLINKAM_PAUSE_BATCH_FORWARDED, false},
	{"page_items_locked", BLINKAM_PAUSE_PAGE_ITEMS_LOCKED, false},
	{"hint_pinned", BLINKAM_PAUSE_HINT_PINNED, false},
	{"hint_move_right", BLINKAM_PAUSE_HINT_MOVE_RIGHT, false},
	{"batch_woken", BLINKAM_PAUSE_BATCH_WOKEN, false},
	{"heap_extend_locked", BLINKAM_PAUSE_HEAP_EXTEND_LOCKED, false},
	{"heap_extend_found", BLINKAM_PAUSE_HEAP_EXTEND_FOUND, false},
	{"csn_entry_busy", BLINKAM_PAUSE_CSN_ENTRY_BUSY, false},
	{"batch_sleep_start", BLINKAM_PAUSE_BATCH_SLEEP_START, false},
	{"database_held", BLINKAM_PAUSE_DATABASE_HELD, false},
	{"multi_insert_checked", BLINKAM_PAUSE_MULTI_INSERT_CHECKED, false},
	{"heap_check_page", BLINKAM_PAUSE_HEAP_CHECK_PAGE, false},
	{"heap_update_window", BLINKAM_PAUSE_HEAP_UPDATE_WINDOW, false},
	{"unique_entered", BLINKAM_PAUSE_UNIQUE_ENTERED, false},
	{"unique_probed", BLINKAM_PAUSE_UNIQUE_PROBED, false},
	{"pending_landed", BLINKAM_PAUSE_PENDING_LANDED, false},
	{"unique_leaves_read", BLINKAM_PAUSE_UNIQUE_LEAVES_READ, false},
	{"heap_truncate_scan", BLINKAM_PAUSE_HEAP_TRUNCATE_SCAN, false},
	{NULL, 0, false}
};

static const struct config_enum_entry stop_at_options[] = {
	{"none", BLINKAM_STOP_NONE, false},
	{"after_leaf_split", BLINKAM_STOP_AFTER_LEAF_SPLIT, false},
	{"after_parent_split", BLINKAM_STOP_AFTER_PARENT_SPLIT, false},
	{"before_new_root", BLINKAM_STOP_BEFORE_NEW_ROOT, false},
	{"in_batch", BLINKAM_STOP_IN_BATCH, false},
	{"in_round", BLINKAM_STOP_IN_ROUND, false},
	{"batch_record", BLINKAM_STOP_BATCH_RECORD, false},
	{NULL, 0, false}
};

static const struct config_enum_entry stop_action_options[] = {
	{"error", BLINKAM_STOP_ERROR, false},
	{"panic", BLINKAM_STOP_PANIC, false},
	{NULL, 0, false}
};

void
blinkam_define_gucs(void)
{
	DefineCustomBoolVariable("blinkam.enable_workers",
							 "Starts the blinkam background workers.",
							 "When off, the blinkam launcher is not registered at server "
							 "start and no blinkam background worker runs.",
							 &blinkam_enable_workers,
							 true,
							 PGC_POSTMASTER,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("blinkam.batch_inserts",
							 "Lets an insert into a busy blink leaf or blinkheap insert page be done by the backend holding it.",
							 "When off, every insert waits for the leaf's lock and inserts itself.",
							 &blinkam_batch_inserts, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("blinkam.batch_spin",
							"How many rounds a backend waiting for a batch spins on its "
							"slot before it sleeps.",
							"A holder that is adding published tuples answers within "
							"microseconds; a sleep and a wake-up cost more.  0 sleeps at once.",
							&blinkam_batch_spin, 100, 0, 100000,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("blinkam.batch_rounds",
							"How many WAL records a backend holding a busy page may write "
							"for the inserts of others before it lets the page go.",
							"After its own record, a holder that finds more inserts published "
							"for its page takes them in another record instead of releasing "
							"the page to the next waiter.  1: it lets go after its own record.",
							&blinkam_batch_rounds, 1, 1, 64,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("blinkam.hot_insert_pages",
							"How many insert pages the inserters of a blinkheap table share.",
							"Single-row inserts into a blinkheap table go to one of this many "
							"shared pages (by backend), where one inserter adds the rows of the "
							"others waiting for the page in one WAL record.  0 (the default): "
							"each backend inserts into its own page, as heap does, and batches "
							"form only where backends meet on a page.",
							&blinkam_hot_insert_pages, 0, 0, BLINKAM_HOT_PAGES_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("blinkam.defer_inserts",
							 "How long a backend holds back its entries for non-unique blink indexes.",
							 "transaction: until the commit, or until this backend next reads the "
							 "index.  statement: until the statement ends.  off: every row's entry "
							 "is added at once.  Held entries are added sorted, one WAL record per leaf.",
							 &blinkam_defer_inserts, BLINKAM_DEFER_TRANSACTION,
							 defer_inserts_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("blinkam.defer_unique",
							 "Lets entries for unique blink indexes wait as blinkam.defer_inserts says.",
							 "Each entry is checked at once; its key waits in shared memory, where "
							 "every other check of the key finds it, until the entry is on its leaf.  "
							 "Only indexes whose key columns are integers, oid, date or time stamps.",
							 &blinkam_defer_unique, false,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("blinkam.flush_leaves",
							"How many leaves of a blink index one WAL record of a statement "
							"buffer's flush may change.",
							"Held-back entries that belong on neighbouring leaves of the "
							"flush's sorted run go in together, where those leaves are free "
							"at once.  1: one record per leaf.",
							&blinkam_flush_leaves, BLINKAM_FLUSH_LEAVES_MAX, 1,
							BLINKAM_FLUSH_LEAVES_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("blinkam.csn_snapshots",
							 "Decides the visibility of recent blinkheap rows by commit sequence numbers.",
							 "When off, a transaction committing gets no CSN and MVCC checks search the "
							 "snapshot's xid array and clog, as PostgreSQL does.  Both give the same answers.",
							 &blinkam_csn_snapshots, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("blinkam.enable_pools",
							 "Lets blink splits and blinkheap inserts take new pages from preallocated pools.",
							 "When off, a split or insert finds its new page in the free space map or "
							 "extends the relation itself.",
							 &blinkam_enable_pools, true,
							 PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("blinkam.pool_relations",
							"Number of blink indexes that can have a page pool at once.",
							"When all are taken, the least recently used pool is recycled "
							"and its pages go back to its index's free space map.",
							&blinkam_pool_relations, 256, 0, 4096,
							PGC_POSTMASTER, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("blinkam.pool_size",
							"Capacity of each page pool, in pages of each kind (leaf, internal).",
							NULL,
							&blinkam_pool_size, 64, 0, 4096,
							PGC_POSTMASTER, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("blinkam.pool_leaf_low",
							"A leaf page pool below this many pages asks for a refill.",
							NULL,
							&blinkam_pool_leaf_low, 8, 0, 4096,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("blinkam.pool_leaf_high",
							"A refill fills the leaf page pool up to this many pages.",
							NULL,
							&blinkam_pool_leaf_high, 64, 0, 4096,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("blinkam.pool_internal_low",
							"An internal page pool below this many pages asks for a refill.",
							NULL,
							&blinkam_pool_internal_low, 2, 0, 4096,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("blinkam.pool_internal_high",
							"A refill fills the internal page pool up to this many pages.",
							NULL,
							&blinkam_pool_internal_high, 8, 0, 4096,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("blinkam.max_workers",
							"Most blinkam workers running at once, over all databases.",
							"They take background worker slots (max_worker_processes) that "
							"parallel queries and logical replication also need; a database "
							"with work waits for one to end, and an idle worker ends at once "
							"when another database waits.",
							&blinkam_max_workers, 3, 1, 16,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("blinkam.worker_idle_timeout",
							"A per-database blinkam worker exits after this long without work.",
							NULL,
							&blinkam_worker_idle_timeout, 10000, 100, 3600000,
							PGC_SIGHUP, GUC_UNIT_MS, NULL, NULL, NULL);
	DefineCustomIntVariable("blinkam.repair_delay",
							"Pause of the repair sweep between slices of 256 pages (no lock held).",
							"0 sweeps without pausing.",
							&blinkam_repair_delay, 10, 0, 3600000,
							PGC_SIGHUP, GUC_UNIT_MS, NULL, NULL, NULL);

	DefineCustomEnumVariable("blinkam.debug_stop_at",
							 "Stops blink split cascades at a named point (for tests).",
							 "The split's WAL records up to that point are written and the "
							 "cascade stops there, leaving an incomplete split on disk: "
							 "after_leaf_split (before the downlink of a new leaf is inserted), "
							 "after_parent_split (after an internal page split), "
							 "before_new_root (after the root split, before the new root), "
							 "in_batch (a leaf insert has claimed other backends' published "
							 "tuples and not yet written its record), "
							 "in_round (the same in a further record of that holder, "
							 "blinkam.batch_rounds), "
							 "batch_record (a batch holder's record fails to be written "
							 "after the holder took published tuples).",
							 &blinkam_debug_stop_at,
							 BLINKAM_STOP_NONE, stop_at_options,
							 PGC_SUSET, 0,
							 NULL, NULL, NULL);
	DefineCustomEnumVariable("blinkam.debug_stop_action",
							 "What blinkam.debug_stop_at does: raise an error, or PANIC (crash the server).",
							 NULL,
							 &blinkam_debug_stop_action,
							 BLINKAM_STOP_ERROR, stop_action_options,
							 PGC_SUSET, 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("blinkam.debug_batch_delay",
							"Makes a leaf insert hold the page this long before taking the "
							"tuples other backends published (for tests).",
							NULL,
							&blinkam_debug_batch_delay, 0, 0, 60000,
							PGC_SUSET, GUC_UNIT_MS, NULL, NULL, NULL);

	DefineCustomIntVariable("blinkam.debug_batch_wait_timeout",
							"How long a backend waiting for a batch sleeps before it "
							"retries on its own (for tests).",
							"A waiter is woken when its tuple is done or the page is let go; "
							"this timeout is the last resort.  Tests raise it so that a "
							"missed wake-up becomes a long wait.",
							&blinkam_debug_batch_wait_timeout, 100, 1, 600000,
							PGC_SUSET, GUC_UNIT_MS, NULL, NULL, NULL);

	DefineCustomEnumVariable("blinkam.debug_pause_at",
							 "Makes this session wait at a named point of the blink code (for tests).",
							 "At that point the backend waits until it can take the advisory "
							 "lock blinkam.debug_pause_key in share mode, so another session "
							 "holding pg_advisory_lock(key) keeps it there: split_cycleid (a "
							 "split has read the VACUUM cycle id), after_finish_split (an "
							 "insert let go of a flagged leaf to finish its split), "
							 "scan_leaf_read (a scan copied a leaf, before visiting the heap), "
							 "batch_before_claim (a leaf holder, before taking published "
							 "tuples), batch_checked (a leaf holder has checked and added "
							 "published tuples, before writing its record), and the others "
							 "listed in the README.",
							 &blinkam_debug_pause_at,
							 BLINKAM_PAUSE_NONE, pause_at_options,
							 PGC_SUSET, 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("blinkam.debug_pause_key",
							"The advisory lock key that blinkam.debug_pause_at waits for.",
							NULL,
							&blinkam_debug_pause_key, 1, 0, INT_MAX,
							PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("blinkam.debug_pause_also_at",
							 "A second point where this session waits (for tests).",
							 "The same as blinkam.debug_pause_at, on its own key "
							 "blinkam.debug_pause_also_key, so that a test can hold a "
							 "backend at one point and then at a later one.",
							 &blinkam_debug_pause_also_at,
							 BLINKAM_PAUSE_NONE, pause_at_options,
							 PGC_SUSET, 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("blinkam.debug_pause_also_key",
							"The advisory lock key that blinkam.debug_pause_also_at waits for.",
							NULL,
							&blinkam_debug_pause_also_key, 2, 0, INT_MAX,
							PGC_SUSET, 0, NULL, NULL, NULL);

	MarkGUCPrefixReserved(BLINKAM_NAME);
}

/*
 * Called at each named point of a split cascade, with no buffer lock held.
 * If blinkam.debug_stop_at names it, stop there: an ERROR (the cascade's
 * split-registry entries are dropped by the abort, leaving the split
 * abandoned) or a PANIC (the server crashes with the split half done).
 */
void
blinkam_debug_stop(BlinkamStopPoint point)
{
	if (blinkam_debug_stop_at != (int) point)
		return;
	/* A crash must find the records written so far on disk. */
	if (blinkam_debug_stop_action == BLINKAM_STOP_PANIC)
		XLogFlush(GetXLogInsertRecPtr());
	ereport(blinkam_debug_stop_action == BLINKAM_STOP_PANIC ? PANIC : ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("blinkam.debug_stop_at: stopping at %s",
					stop_at_options[point].name)));
}

/*
 * Does another backend hold the lock tag in a mode that conflicts with
 * share mode?  Reads the whole lock table (GetLockStatusData takes its
 * partitions' LWLocks and takes no heavyweight lock); GetLockConflicts
 * would not do: it names only holders inside a transaction, and a session
 * holding pg_advisory_lock may be idle.
 */
static bool
key_held_elsewhere(const LOCKTAG *tag)
{
	LockData   *data = GetLockStatusData();
	LOCKMASK	conflicts = GetLockTagsMethodTable(tag)->conflictTab[ShareLock];
	bool		held = false;

	for (int i = 0; i < data->nelements && !held; i++)
	{
		LockInstanceData *l = &data->locks[i];

		held = l->pid != MyProcPid && (l->holdMask & conflicts) != 0 &&
			l->locktag.locktag_type == tag->locktag_type &&
			l->locktag.locktag_lockmethodid == tag->locktag_lockmethodid &&
			l->locktag.locktag_field1 == tag->locktag_field1 &&
			l->locktag.locktag_field2 == tag->locktag_field2 &&
			l->locktag.locktag_field3 == tag->locktag_field3 &&
			l->locktag.locktag_field4 == tag->locktag_field4;
	}
	pfree(data->locks);
	pfree(data);
	return held;
}

/*
 * Wait at a pause point (see blinkam_debug_pause): take the advisory lock
 * blinkam.debug_pause_key (blinkam.debug_pause_also_key for the point
 * blinkam.debug_pause_also_at names) in share mode -- the same lock as
 * pg_advisory_lock_shared(key) -- and let it go at once.  While another
 * session holds pg_advisory_lock(key), this backend waits here, and
 * isolationtester sees it as blocked by that session.
 *
 * The caller may hold buffer locks (that is the point: the window under
 * test is often inside one); the session holding the advisory lock must
 * not need them before it lets go.  Interrupts are held off while a buffer
 * lock is held, so such a wait cannot be cancelled: tests only.
 *
 * A point reached while holding a relation extension lock cannot take
 * the key: PostgreSQL allows no other heavyweight lock then (an assertion
 * in lock.c).  There the backend looks every 10 ms, on its latch with wait
 * event Extension, whether another session holds the key in a mode that
 * conflicts with share mode (key_held_elsewhere).  isolationtester cannot
 * see that wait as blocked, so such points serve TAP tests.
 *
 * The point at a batch waiter's sleep (batch_sleep_start) holds the
 * backend in the window between its last look at its slot and its sleep,
 * where a holder's wake-up must not be lost.  The wake-up under test sets
 * this backend's latch, so the wait there must leave the latch alone: a
 * lock wait, or WaitLatch and ResetLatch, would take the wake-up away.  It
 * polls the lock table as above, sleeping 10 ms at a time in pg_usleep,
 * with wait event PgSleep (that is how a test sees it there), and stops
 * early on an interrupt, which the waiter's loop then answers (withdrawing
 * its slot first).
 */
void
blinkam_debug_pause_wait(BlinkamPausePoint point)
{
	LOCKTAG		tag;
	int64		key = blinkam_debug_pause_at == (int) point ?
		blinkam_debug_pause_key : blinkam_debug_pause_also_key;

	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, (uint32) (key >> 32), (uint32) key, 1);
	elog(DEBUG1, "blinkam.debug_pause_at: waiting at %s", pause_at_options[point].name);
	if (point == BLINKAM_PAUSE_HEAP_EXTEND_LOCKED)
	{
		while (key_held_elsewhere(&tag))
		{
			(void) WaitLatch(MyLatch,
							 WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 10, PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
		}
		return;
	}
	if (point == BLINKAM_PAUSE_BATCH_SLEEP_START)
	{
		/*
		 * (the wait event is raised around each sleep only: a lock table
		 * read that waits for an LWLock clears it)
		 */
		while (!InterruptPending && key_held_elsewhere(&tag))
		{
			if (!PostmasterIsAlive())
				proc_exit(1);
			pgstat_report_wait_start(WAIT_EVENT_PG_SLEEP);
			pg_usleep(10000L);
			pgstat_report_wait_end();
		}
		return;
	}
	(void) LockAcquire(&tag, ShareLock, true, false);
	LockRelease(&tag, ShareLock, true);
}
