/*-------------------------------------------------------------------------
 *
 * pool.c
 *	  Pools of preallocated pages for blink indexes, and the requests that
 *	  ask the per-database workers for work.
 *
 * A split needs a new page.  Extending the relation on the split path
 * means taking the relation extension lock while holding the page being
 * split, and writing a new block to the file, while every other inserter
 * of that page waits.  So a pool of blocks already added to the relation
 * is kept for the indexes that split, per index and per kind (leaf pages,
 * internal pages, with separate watermarks so that hot leaves cannot
 * starve the upper levels):
 *
 *   - an index takes part once it has as many pages as a new pool's first
 *     refill adds (blinkam_pool_serves); a smaller one extends itself a
 *     page at a time, as btree does, and has no slot;
 *   - a split takes a block from its index's pool (blinkam_pool_take); when
 *     the pool falls below half its target (at least its low watermark) it
 *     asks for a refill and wakes the worker of its database (through the
 *     launcher if none runs);
 *   - the worker extends the relation in one batch under the extension
 *     lock and fills the pool to its target (worker.c);
 *   - the target is sized by demand: a new slot's is twice the low
 *     watermark, and a take that finds the pool empty after a refill
 *     doubles it, up to the high watermark.  An index that splits now
 *     and then keeps a small pool; a hot one soon gets the full one;
 *   - an empty pool never blocks anyone: the split falls back to the free
 *     space map or extends the relation itself (counted in pool_misses).
 *
 * A pooled block is a zero page, claimed like any other new page: under an
 * exclusive buffer lock after checking it is still all zeroes, so a block
 * that reached the free space map too (VACUUM records zero pages there)
 * is never used twice.
 *
 * A pool is a cache of free pages, never their only record.  The free
 * space map is that record: a refill takes its pages from the free space
 * map first (each checked to be all zeroes; a stale entry is dropped) and
 * extends the relation only for the rest.  A pooled page leaves the pool
 * in one of these ways:
 *
 *   - a split takes it (the usual way);
 *   - its slot is recycled for another index (least recently used, when
 *     every slot is taken): its pages go to the return queue, and the
 *     worker of their database records them in the index's free space map
 *     (blinkam_pool_next_returns).  Pages that do not fit in the queue are
 *     counted as stranded; VACUUM or the next start-up sweep finds them;
 *   - the index is dropped, truncated or reindexed (a new relfilenode):
 *     the pages went away with the old file, and the slot is freed;
 *   - the server stops or crashes, or a standby is promoted: shared
 *     memory is gone, the pages stay zero pages of the index.  The worker's
 *     start-up sweep, which looks at every page of every blink index after
 *     every start (worker.c), records each zero page in the free space
 *     map, and the next refill takes them from there.  VACUUM does the
 *     same.
 *
 * So at most one pool's pages per index are zero pages that no free space
 * map entry leads to, and only until the next sweep or VACUUM.  A page may
 * be both pooled and in the free space map (VACUUM ran while it sat in
 * the pool): the claim check keeps it from being used twice, and the
 * stale copy is dropped by whoever finds it initialized.
 *
 * Slots are keyed by (database, relfilenode): TRUNCATE and REINDEX give an
 * index a new relfilenode, and the first split afterwards takes a new slot
 * and frees the old one (same relation oid).  DROP of an index (or of a
 * database) frees its slots at once (object access hook); a worker also
 * frees the slot of an index it cannot open.  When every slot is taken
 * the least recently used one is recycled, its pages returned as above.
 *
 * Database requests: the table also holds, per database, whether a repair
 * sweep of its blink indexes is due or unfinished and where it stands (see
 * "Repair sweeps"), which worker (if any) serves it, and
 * until when none may start (a command's hold, or a backoff after workers
 * that could not connect).
 *
 * Lock order: the pools LWLock is taken alone (it may be taken while
 * holding buffer locks; nothing is acquired while it is held).
 *
 * src/common/pool.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_class.h"
#include "catalog/pg_database.h"
#include "commands/dbcommands.h"
#include "commands/defrem.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/ipc.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "common/counters.h"
#include "common/pool.h"
#include "common/settings.h"
#include "common/shmem.h"
#include "common/workers.h"

PG_FUNCTION_INFO_V1(blinkam_pools);

/* Work requested from the worker of one database */
#define BLINKAM_MAX_DB_REQUESTS	64

/* The longest a refill put off waits before it is tried again */
#define BLINKAM_REFILL_MAX_DELAY_MS	10000
typedef struct BlinkDbRequest
{
	Oid			dbid;			/* InvalidOid: free entry */
	bool		repair;			/* a repair sweep is due or unfinished (see
								 * "Repair sweeps") ... */
	uint32		sweep_id;		/* ... which request it is ... */
	BlinkamSweepPosition sweep; /* ... and where it stands */
	bool		returns;		/* pages of recycled pool slots wait in the
								 * return queue */
	uint32		starting;		/* the ticket of the worker the launcher
								 * started and has not yet seen attach or
								 * stop, or 0 (see "Worker starts") */
	pid_t		worker_pid;		/* the worker serving it, or 0 */
	Latch	   *worker_latch;
	bool		leave;			/* its worker is asked to exit now */
	int			failures;		/* workers started in a row that stopped
								 * before attaching */
	TimestampTz retry_at;		/* no worker before then: the last
								 * BLINKAM_MAX_START_FAILURES workers
								 * stopped before attaching */
	int			holders;		/* commands that need the database to
								 * themselves (see blinkam_release_database):
								 * no worker while any does ... */
	TimestampTz held_until;		/* ... until then at the latest (a holder
								 * whose backend died never lets go) */
	bool		dropped;		/* a holder is DROP DATABASE: no worker
								 * attaches, and the entry goes when the
								 * hold ends */
} BlinkDbRequest;

typedef struct BlinkPoolSlot
{
	Oid			dbid;			/* InvalidOid: free slot */
	Oid			relid;
	RelFileNode node;
	bool		refill;			/* a refill is requested */
	TimestampTz refill_after;	/* ... not to be tried before then (the
								 * relation was locked, or the refill
								 * failed: worker.c); 0: a fresh request */
	int			refill_delay;	/* ms the last put-off waited (doubling
								 * while they go on); 0 after a refill */
	bool		internal;		/* the relation has internal pages (an
								 * index); a table's pool holds leaf
								 * (data) pages only */
	uint64		last_used;		/* pool tick of the last take */
	int			n[2];			/* blocks held, [0] leaf, [1] internal */
	int			target[2];		/* what a refill fills up to (by demand:
								 * between the low and high watermarks) */
	bool		filled[2];		/* refilled since it last ran dry */
} BlinkPoolSlot;

/* A page of a recycled slot, on its way back to its index's free space map */
typedef struct BlinkPoolReturn
{
	Oid			dbid;			/* InvalidOid: free entry */
	Oid			relid;
	RelFileNode node;
	BlockNumber blkno;
} BlinkPoolReturn;

typedef struct BlinkPoolShared
{
	LWLock	   *lock;
	int			nslots;
	int			capacity;		/* blocks per kind per slot */
	int			nreturns;		/* entries of the return queue */
	int			nqueued;		/* of them, those in use (dbid set) */
	uint64		tick;
	uint32		last_ticket;	/* the last worker start's ticket */
	int			next_scan;		/* the database entry the launcher's next
								 * look for work starts at: the one after
								 * the last it started a worker for */
	uint32		last_sweep_id;	/* the last repair request's sweep_id */
	int			workers_wanted; /* a database with work waits for a worker
								 * the launcher may not start
								 * (blinkam.max_workers): BLINKAM_WANTED_*,
								 * see blinkam_workers_wanted */
	BlinkDbRequest dbs[BLINKAM_MAX_DB_REQUESTS];
	BlinkPoolSlot slots[FLEXIBLE_ARRAY_MEMBER];
	/* then BlockNumber blocks[nslots][2][capacity] */
	/* then BlinkPoolReturn returns[nreturns] */
} BlinkPoolShared;

static BlinkPoolShared *Pools = NULL;

/*
 * When the hold of a command that needs a database to itself lapses if the
 * command has not ended it: a safety net only, since the command's end and
 * its backend's exit both end it (blinkam_release_database).
 */
#define BLINKAM_HOLD_MS		60000

/* This worker's database entry while it is attached (it stays ours). */
static BlinkDbRequest *attached_entry = NULL;

/* The sweep request this worker serves (blinkam_worker_sweep_due), or 0. */
static uint32 my_sweep_id = 0;

/*
 * The database this backend's command holds (blinkam_release_database),
 * or InvalidOid; pool_ProcessUtility ends the hold.
 */
static Oid	held_database = InvalidOid;

static inline BlockNumber *
slot_blocks(int slot, int kind)
{
	BlockNumber *base = (BlockNumber *) (Pools->slots + Pools->nslots);

	return base + ((Size) slot * 2 + kind) * Pools->capacity;
}

static inline BlinkPoolReturn *
return_queue(void)
{
	return (BlinkPoolReturn *) MAXALIGN(slot_blocks(Pools->nslots, 0));
}

/*
 * The return queue holds one pool's capacity of one kind per slot: more
 * than a slot holds at its high watermarks with the default settings.
 */
static int
pool_nreturns(void)
{
	return blinkam_pool_relations * blinkam_pool_size;
}

static Size
pool_shmem_size(void)
{
	Size		size = offsetof(BlinkPoolShared, slots);

	size = add_size(size, mul_size(blinkam_pool_relations, sizeof(BlinkPoolSlot)));
	size = add_size(size, mul_size(mul_size(blinkam_pool_relations, 2),
								   mul_size(blinkam_pool_size, sizeof(BlockNumber))));
	size = MAXALIGN(size);
	size = add_size(size, mul_size(pool_nreturns(), sizeof(BlinkPoolReturn)));
	return size;
}

static void
pool_shmem_init(void)
{
	bool		found;

	Pools = ShmemInitStruct("blinkam pools", pool_shmem_size(), &found);
	if (!found)
	{
		Pools->lock = blinkam_lwlock(BLINKAM_LWLOCK_POOL);
		Pools->nslots = blinkam_pool_relations;
		Pools->capacity = blinkam_pool_size;
		Pools->nreturns = pool_nreturns();
		Pools->nqueued = 0;
		Pools->tick = 0;
		Pools->last_ticket = 0;
		Pools->last_sweep_id = 0;
		Pools->workers_wanted = BLINKAM_WANTED_NONE;
		memset(Pools->dbs, 0, sizeof(Pools->dbs));
		for (int i = 0; i < Pools->nslots; i++)
			Pools->slots[i].dbid = InvalidOid;
		for (int i = 0; i < Pools->nreturns; i++)
			return_queue()[i].dbid = InvalidOid;
	}
}

/* The watermarks of a kind, clamped to the slot capacity. */
static void
watermarks(int kind, int *low, int *high)
{
	*low = kind == 0 ? blinkam_pool_leaf_low : blinkam_pool_internal_low;
	*high = kind == 0 ? blinkam_pool_leaf_high : blinkam_pool_internal_high;
	*high = Min(*high, Pools->capacity);
	*low = Min(*low, *high);
}

/*
 * How many pages a refill of slot s should add to its pool of a kind: up
 * to the slot's target, kept within the watermarks as they are now (a
 * reload may have moved them).
 */
static int
refill_need(BlinkPoolSlot *s, int kind)
{
	int			low,
				high;

	if (kind == 1 && !s->internal)
		return 0;
	watermarks(kind, &low, &high);
	return Max(Min(Max(s->target[kind], low), high) - s->n[kind], 0);
}

/* Find the request entry of a database, creating it if asked to. */
static BlinkDbRequest *
db_request(Oid dbid, bool create)
{
	BlinkDbRequest *free_entry = NULL;

	for (int i = 0; i < BLINKAM_MAX_DB_REQUESTS; i++)
	{
		BlinkDbRequest *r = &Pools->dbs[i];

		if (r->dbid == dbid)
			return r;
		if (r->dbid == InvalidOid && free_entry == NULL)
			free_entry = r;
	}
	if (create && free_entry)
	{
		memset(free_entry, 0, sizeof(BlinkDbRequest));
		free_entry->dbid = dbid;
		return free_entry;
	}
	return NULL;
}

/*
 * Has a pool slot of dbid asked for a refill (that may be tried at now;
 * 0: at any time)?  REFILL_FRESH if one of them is a new request,
 * REFILL_RETRY if all are refills put off before (their relation was
 * locked, or they failed).  (The pools lock held.)
 */
typedef enum RefillState
{
	REFILL_NOT_PENDING,
	REFILL_FRESH,
	REFILL_RETRY
} RefillState;

static RefillState
refill_state(Oid dbid, TimestampTz now)
{
	RefillState state = REFILL_NOT_PENDING;

	for (int i = 0; i < Pools->nslots; i++)
	{
		BlinkPoolSlot *s = &Pools->slots[i];

		if (s->dbid != dbid || !s->refill ||
			(now != 0 && s->refill_after > now))
			continue;
		if (s->refill_after == 0)
			return REFILL_FRESH;
		state = REFILL_RETRY;
	}
	return state;
}

static bool
refill_pending(Oid dbid, TimestampTz now)
{
	return refill_state(dbid, now) != REFILL_NOT_PENDING;
}

/*
 * Does a command hold r's database (the pools lock held)?  A hold lapses
 * at held_until even with holders left, which only a command running that
 * long has (a holder's end and its backend's exit both let go, and a
 * backend's crash restarts the server).
 */
static bool
entry_held(BlinkDbRequest *r, TimestampTz now)
{
	return r->holders > 0 && r->held_until > now;
}

/*
 * Free the entry r (the pools lock held exclusively) if nothing is asked
 * of its database (a sweep left unfinished is still asked: "Repair
 * sweeps"), no worker serves it or is starting, and no command
 * holds it: entries are few (BLINKAM_MAX_DB_REQUESTS), and a database
 * dropped, or merely idle, must not keep one from the others.  A held
 * entry stays, idle or not, so that its hold outlives a worker's detach:
 * freed, it would take the hold with it, and work arriving during the
 * command would make a fresh entry that a worker may attach to.  The end
 * of the hold frees it (blinkam_unhold_database), or, for a hold whose
 * command never ended it (its backend died), the launcher's next pass
 * after it expires (blinkam_databases_needing_workers).  An entry whose workers cannot get in
 * (blinkam_worker_start_failed) keeps its work, and so stays, in backoff.
 * A refill flag it waits for is never one of a dropped index or database
 * (the object access hook frees their slots); it can be one of an index's
 * old relfilenode (TRUNCATE, REINDEX), which costs one failing worker per
 * backoff until a worker gets in and frees that slot, or until the slot
 * is recycled.
 */
static void
free_idle_entry(BlinkDbRequest *r)
{
	if (r->worker_pid == 0 && r->starting == 0 && !r->repair && !r->returns &&
		(r->holders == 0 || !entry_held(r, GetCurrentTimestamp())) &&
		!refill_pending(r->dbid, 0))
		r->dbid = InvalidOid;
}

/*
 * Wake whoever serves dbid: its worker if one runs, else the launcher
 * (which starts one).  Called without the pools lock.
 */
static void
wake_for_database(Oid dbid)
{
	Latch	   *latch = NULL;
	BlinkDbRequest *r;

	LWLockAcquire(Pools->lock, LW_SHARED);
	r = db_request(dbid, false);
	if (r && r->worker_latch)
		latch = r->worker_latch;
	if (latch)
		SetLatch(latch);
	LWLockRelease(Pools->lock);
	if (latch == NULL)
		blinkam_wake_launcher();
}

/* Are pools used for this relation? */
bool
blinkam_pool_applies(Relation rel)
{
	/* a worker cannot read another backend's temporary relation */
	return blinkam_enable_pools && Pools->nslots > 0 && Pools->capacity > 0 &&
		rel->rd_rel->relpersistence != RELPERSISTENCE_TEMP;
}

/*
 * Should rel, which needs a new page, look in a pool for it?  Only if pools
 * apply to it and it already has as many pages as a new pool's first
 * refill adds (twice blinkam.pool_leaf_low).  A smaller relation grows a
 * page at a time, as heap and btree do, and takes no slot: asked for by
 * the first split or insert, a pool made a small index or table some 20
 * pages, and gave every small partition of a partitioned table a slot,
 * recycling the pools of busy relations once blinkam.pool_relations were
 * taken.  Asked once per new page (a size lookup), before
 * blinkam_pool_take.
 */
bool
blinkam_pool_serves(Relation rel)
{
	return blinkam_pool_applies(rel) &&
		RelationGetNumberOfBlocks(rel) >= (BlockNumber) (2 * blinkam_pool_leaf_low);
}

/*
 * Recycle an occupied slot (the pools lock held exclusively): its pages go
 * to the return queue for the worker of its database, which records them
 * in the index's free space map.  Returns that database if it has pages
 * coming back (the caller wakes its worker after releasing the lock),
 * else InvalidOid.
 */
static Oid
recycle_slot(int slot)
{
	BlinkPoolSlot *s = &Pools->slots[slot];
	BlinkPoolReturn *q = return_queue();
	Oid			dbid = s->dbid;
	int			next = 0;
	int			queued = 0,
				stranded = 0;

	for (int kind = 0; kind < 2; kind++)
	{
		for (int b = 0; b < s->n[kind]; b++)
		{
			while (next < Pools->nreturns && q[next].dbid != InvalidOid)
				next++;
			if (next == Pools->nreturns)
			{
				stranded++;
				continue;
			}
			q[next].dbid = s->dbid;
			q[next].relid = s->relid;
			q[next].node = s->node;
			q[next].blkno = slot_blocks(slot, kind)[b];
			Pools->nqueued++;
			queued++;
		}
		s->n[kind] = 0;
	}
	s->dbid = InvalidOid;
	if (stranded > 0)
		blinkam_count(BLINKAM_COUNTER_POOL_PAGES_STRANDED, stranded);
	if (queued == 0)
		return InvalidOid;
	{
		BlinkDbRequest *r = db_request(dbid, true);

		if (r == NULL)
			return InvalidOid;	/* no entry: the start-up sweep or VACUUM
								 * finds them */
		r->returns = true;
		return r->dbid;
	}
}

/*
 * Which slot each of the relations this backend took pages for had, by
 * relfilenode (direct-mapped; a wrong or stale entry is only a miss:
 * slot_is checks it under the pools lock).  It spares a take the look at
 * every slot while it holds the lock exclusively.
 */
static int	slot_hints[64];

/* Is slot i the pool of node in this database?  (The pools lock held.) */
static inline bool
slot_is(int i, RelFileNode node)
{
	BlinkPoolSlot *s = &Pools->slots[i];

	return s->dbid == MyDatabaseId && RelFileNodeEquals(s->node, node);
}

/*
 * The slot of node in this database, or -1 (the pools lock held): where
 * this backend last found it (slot_hints), else every slot.
 */
static int
find_slot(RelFileNode node)
{
	int			hint = slot_hints[node.relNode % lengthof(slot_hints)];

	if (hint < Pools->nslots && slot_is(hint, node))
		return hint;
	for (int i = 0; i < Pools->nslots; i++)
	{
		if (slot_is(i, node))
			return i;
	}
	return -1;
}

/*
 * How many pages rel's pool holds now: zero pages of its file that nothing
 * uses yet (0 if it has no slot).  For the planner's row estimate of a
 * blinkheap table (blinkheap_relation_estimate_size); the figure may be
 * stale by the time the caller reads it, which an estimate can bear.
 */
int
blinkam_pool_held(Relation rel)
{
	int			n = 0;
	int			slot;

	if (Pools->nslots == 0 || rel->rd_rel->relpersistence == RELPERSISTENCE_TEMP)
		return 0;
	LWLockAcquire(Pools->lock, LW_SHARED);
	slot = find_slot(rel->rd_node);
	if (slot >= 0)
		n = Pools->slots[slot].n[0] + Pools->slots[slot].n[1];
	LWLockRelease(Pools->lock);
	return n;
}

/*
 * Take a preallocated block for a split of rel (a leaf page if leaf), or
 * return InvalidBlockNumber if the pool has none.  Asks for a refill when
 * the pool is low.  The caller has asked blinkam_pool_serves first, and
 * claims the block (lock, check new).
 */
BlockNumber
blinkam_pool_take(Relation rel, bool leaf)
{
	int			kind = leaf ? 0 : 1;
	int			slot;
	BlockNumber blkno = InvalidBlockNumber;
	bool		wake = false;
	Oid			evicted = InvalidOid;
	int			low,
				high;
	int		   *hint;

	if (!blinkam_pool_applies(rel))
		return InvalidBlockNumber;

	LWLockAcquire(Pools->lock, LW_EXCLUSIVE);
	watermarks(kind, &low, &high);
	hint = &slot_hints[rel->rd_node.relNode % lengthof(slot_hints)];
	slot = find_slot(rel->rd_node);

	if (slot < 0)
	{
		/*
		 * A new slot: the first free one, else the least recently used (a
		 * free slot ranks as age 0, a used one by its last use).
		 */
		uint64		best_age = PG_UINT64_MAX;

		for (int i = 0; i < Pools->nslots; i++)
		{
			BlinkPoolSlot *s = &Pools->slots[i];
			uint64		age;

			/* an older relfilenode of the same index is obsolete */
			if (s->dbid == MyDatabaseId && s->relid == RelationGetRelid(rel))
				s->dbid = InvalidOid;
			age = s->dbid == InvalidOid ? 0 : s->last_used + 1;
			if (age < best_age)
			{
				best_age = age;
				slot = i;
			}
		}
		if (Pools->slots[slot].dbid != InvalidOid)
			evicted = recycle_slot(slot);
		Pools->slots[slot].dbid = MyDatabaseId;
		Pools->slots[slot].relid = RelationGetRelid(rel);
		Pools->slots[slot].node = rel->rd_node;
		Pools->slots[slot].n[0] = Pools->slots[slot].n[1] = 0;
		Pools->slots[slot].refill = false;
		Pools->slots[slot].refill_after = 0;
		Pools->slots[slot].refill_delay = 0;
		Pools->slots[slot].internal = rel->rd_rel->relkind == RELKIND_INDEX;
		for (int k = 0; k < 2; k++)
		{
			int			klow,
						khigh;

			watermarks(k, &klow, &khigh);
			Pools->slots[slot].target[k] = Min(2 * klow, khigh);
			Pools->slots[slot].filled[k] = false;
		}
	}

	*hint = slot;
	{
		BlinkPoolSlot *s = &Pools->slots[slot];

		s->last_used = ++Pools->tick;
		if (s->n[kind] > 0)
			blkno = slot_blocks(slot, kind)[--s->n[kind]];
		else if (s->filled[kind])
		{
			/* it ran dry after a refill: the index needs more */
			s->target[kind] = Min(2 * Max(s->target[kind], 1), high);
			s->filled[kind] = false;
		}
		/*
		 * Below half the target (at least the low watermark): a pool that
		 * splits drain fast asks earlier, so that its worker, which may
		 * not get a processor at once, comes back before it is empty.
		 */
		if (s->n[kind] < Max(low, Min(Max(s->target[kind], low), high) / 2) &&
			!s->refill)
		{
			s->refill = true;
			wake = true;
		}
	}
	LWLockRelease(Pools->lock);

	if (wake)
		wake_for_database(MyDatabaseId);
	if (OidIsValid(evicted) && (evicted != MyDatabaseId || !wake))
		wake_for_database(evicted);
	return blkno;
}

/*
 * For the worker of this database: pick one slot that asked for a refill
 * (and may be tried now).  Returns false if none.  The request is cleared
 * when picked.
 */
bool
blinkam_pool_next_refill(Oid *relid, RelFileNode *node, int *need_leaf,
						int *need_internal)
{
	bool		found = false;
	TimestampTz now = GetCurrentTimestamp();

	LWLockAcquire(Pools->lock, LW_EXCLUSIVE);
	for (int i = 0; i < Pools->nslots && !found; i++)
	{
		BlinkPoolSlot *s = &Pools->slots[i];

		if (s->dbid != MyDatabaseId || !s->refill || s->refill_after > now)
			continue;
		s->refill = false;
		s->refill_after = 0;
		*relid = s->relid;
		*node = s->node;
		*need_leaf = refill_need(s, 0);
		*need_internal = refill_need(s, 1);
		found = true;
	}
	LWLockRelease(Pools->lock);
	return found;
}

/*
 * The refill of (this database, node) just picked could not be done now
 * (its relation is locked, or it failed): ask for it again, to be tried no
 * sooner than delay_ms from now, or twice the last delay if this slot was
 * put off before (up to BLINKAM_REFILL_MAX_DELAY_MS), until a refill is
 * done.  Until then the worker serves the others, and it is idle if
 * nothing else is asked for: it leaves when another database waits for a
 * worker, or after blinkam.worker_idle_timeout, and the request, still
 * set, has the launcher start one again when it is due -- but only into a
 * free place: a refill put off makes no worker leave for it
 * (blinkam_databases_needing_workers), else two databases each with a
 * locked relation would pass the one place back and forth every second.
 */
void
blinkam_pool_refill_later(RelFileNode node, int delay_ms)
{
	TimestampTz now = GetCurrentTimestamp();

	LWLockAcquire(Pools->lock, LW_EXCLUSIVE);
	for (int i = 0; i < Pools->nslots; i++)
	{
		BlinkPoolSlot *s = &Pools->slots[i];

		if (s->dbid == MyDatabaseId && RelFileNodeEquals(s->node, node))
		{
			/* a lock held for hours is not tried every second */
			s->refill_delay = Max(delay_ms,
								  Min(2 * s->refill_delay, BLINKAM_REFILL_MAX_DELAY_MS));
			s->refill = true;
			s->refill_after = TimestampTzPlusMilliseconds(now, s->refill_delay);
		}
	}
	LWLockRelease(Pools->lock);
}

/*
 * For this database's idle worker: does a refill put off wait here?  Then
 * the worker stays past blinkam.worker_idle_timeout (it still leaves when
 * another database waits for a worker): a conditional lock every few
 * seconds costs less than a worker started again for each try.
 */
bool
blinkam_pool_refills_put_off(void)
{
	bool		found = false;

	LWLockAcquire(Pools->lock, LW_SHARED);
	for (int i = 0; i < Pools->nslots && !found; i++)
	{
		BlinkPoolSlot *s = &Pools->slots[i];

		found = s->dbid == MyDatabaseId && s->refill && s->refill_after != 0;
	}
	LWLockRelease(Pools->lock);
	return found;
}

/* Free the slot of (this database, node): its relation is gone. */
void
blinkam_pool_forget(RelFileNode node)
{
	LWLockAcquire(Pools->lock, LW_EXCLUSIVE);
	for (int i = 0; i < Pools->nslots; i++)
	{
		BlinkPoolSlot *s = &Pools->slots[i];

		if (s->dbid == MyDatabaseId && RelFileNodeEquals(s->node, node))
			s->dbid = InvalidOid;
	}
	LWLockRelease(Pools->lock);
}

/*
 * For the worker of this database: take up to max pages of recycled slots
 * from the return queue, all of one index (*relid, *node), into blocks.
 * Returns how many (0: none left).
 */
int
blinkam_pool_next_returns(Oid *relid, RelFileNode *node, BlockNumber *blocks,
						 int max)
{
	BlinkPoolReturn *q = return_queue();
	int			n = 0;

	LWLockAcquire(Pools->lock, LW_EXCLUSIVE);
	/* the queue is long (pool_nreturns): look only if it holds something */
	for (int i = 0; Pools->nqueued > 0 && i < Pools->nreturns && n < max; i++)
	{
		if (q[i].dbid != MyDatabaseId)
			continue;
		if (n == 0)
		{
			*relid = q[i].relid;
			*node = q[i].node;
		}
		else if (!RelFileNodeEquals(q[i].node, *node))
			continue;
		blocks[n++] = q[i].blkno;
		q[i].dbid = InvalidOid;
		Pools->nqueued--;
		Assert(Pools->nqueued >= 0);
	}
	if (n == 0)
	{
		BlinkDbRequest *r = db_request(MyDatabaseId, false);

		if (r)
			r->returns = false;
	}
	LWLockRelease(Pools->lock);
	return n;
}

/*
 * Put new blocks of node into its pool: the first nleaf as leaf pages, the
 * rest as internal pages, up to the capacity.  Returns how many were
 * pooled (blocks that do not fit, or whose slot is gone, stay zero pages
 * of the index for VACUUM to find).
 */
int
blinkam_pool_add(RelFileNode node, BlockNumber *blocks, int nleaf, int nblocks)
{
	int			added = 0;
	int			i;

	LWLockAcquire(Pools->lock, LW_EXCLUSIVE);
	i = find_slot(node);
	if (i >= 0)
	{
		BlinkPoolSlot *s = &Pools->slots[i];

		s->refill_delay = 0;	/* a refill is done: no more backing off */
		for (int b = 0; b < nblocks; b++)
		{
			int			kind = b < nleaf ? 0 : 1;

			bool		dup = false;

			/* a page may come from the free space map while pooled */
			for (int k = 0; k < 2 && !dup; k++)
				for (int j = 0; j < s->n[k] && !dup; j++)
					dup = slot_blocks(i, k)[j] == blocks[b];
			if (!dup && s->n[kind] < Pools->capacity)
			{
				BlockNumber *held = slot_blocks(i, kind);
				int			j = s->n[kind];

				/*
				 * Held in descending order, so that a take (from the end)
				 * hands out the lowest block first: pages then fill in the
				 * order of the file, as heap's and btree's do -- one
				 * session's rows come back from a sequential scan in the
				 * order it wrote them, and an index's new leaves follow
				 * its keys on disk.
				 */
				while (j > 0 && held[j - 1] < blocks[b])
				{
					held[j] = held[j - 1];
					j--;
				}
				held[j] = blocks[b];
				s->n[kind]++;
				s->filled[kind] = true;
				added++;
			}
		}
	}
	LWLockRelease(Pools->lock);
	return added;
}

/*
 * Free the slots of a dropped relation or database, and drop its entries
 * from the return queue.  Dropping in a transaction that then rolls back
 * only costs the pool its pages (a zero page is never lost: the start-up
 * sweep and VACUUM find it).
 */
static object_access_hook_type prev_object_access_hook = NULL;

static void
pool_object_access(ObjectAccessType access, Oid classId, Oid objectId,
						 int subId, void *arg)
{
	if (prev_object_access_hook)
		prev_object_access_hook(access, classId, objectId, subId, arg);

	if (access != OAT_DROP || Pools == NULL || subId != 0)
		return;
	if (classId != RelationRelationId && classId != DatabaseRelationId)
		return;

	LWLockAcquire(Pools->lock, LW_EXCLUSIVE);
	for (int i = 0; i < Pools->nslots; i++)
	{
		BlinkPoolSlot *s = &Pools->slots[i];

		if (classId == DatabaseRelationId ? s->dbid == objectId :
			(s->dbid == MyDatabaseId && s->relid == objectId))
			s->dbid = InvalidOid;
	}
	/* and its pages waiting to go back (no worker would take them) */
	for (int i = 0; Pools->nqueued > 0 && i < Pools->nreturns; i++)
	{
		BlinkPoolReturn *q = &return_queue()[i];

		if (q->dbid != InvalidOid &&
			(classId == DatabaseRelationId ? q->dbid == objectId :
			 (q->dbid == MyDatabaseId && q->relid == objectId)))
		{
			q->dbid = InvalidOid;
			Pools->nqueued--;
			Assert(Pools->nqueued >= 0);
		}
	}
	LWLockRelease(Pools->lock);

	/*
	 * DROP DATABASE (the database is locked already): its worker leaves
	 * before PostgreSQL counts the sessions connected to it.
	 */
	if (classId == DatabaseRelationId)
		blinkam_release_database(objectId, BLINKAM_HOLD_MS, true);
}

/*
 * The other commands PostgreSQL refuses while another session is
 * connected to a database: ALTER DATABASE ... RENAME, ALTER DATABASE ...
 * SET TABLESPACE and CREATE DATABASE (for its template, template1 unless
 * named: blinkam may be installed there).  The worker of that database
 * leaves first and no other starts until the command is over -- if the
 * user passes PostgreSQL's permission checks for the command, which come
 * only after this hook: otherwise any user could make any database's
 * worker leave (cutting a repair sweep short) and keep others off it for
 * the hold, by running a command that is then refused.  Until 2026-11-27
 * nothing was checked.  The checks mirror those of PG 15's
 * dbcommands.c: RenameDatabase (owner, CREATEDB), movedb (owner),
 * createdb (CREATEDB, member of the new owner if one is named, and the
 * template marked datistemplate or owned by the user).  The command may
 * still fail for other reasons (a name taken, a tablespace missing);
 * only a user who could have run it has taken the worker away.
 */
static ProcessUtility_hook_type prev_ProcessUtility = NULL;

/* PostgreSQL's have_createdb_privilege(), static in dbcommands.c */
static bool
user_may_create_databases(void)
{
	bool		result = false;
	HeapTuple	tup;

	if (superuser())
		return true;
	tup = SearchSysCache1(AUTHOID, ObjectIdGetDatum(GetUserId()));
	if (HeapTupleIsValid(tup))
	{
		result = ((Form_pg_authid) GETSTRUCT(tup))->rolcreatedb;
		ReleaseSysCache(tup);
	}
	return result;
}

/* May the user copy dbid (createdb's check on its template)? */
static bool
user_may_copy_database(Oid dbid)
{
	bool		istemplate = false;
	HeapTuple	tup;

	tup = SearchSysCache1(DATABASEOID, ObjectIdGetDatum(dbid));
	if (!HeapTupleIsValid(tup))
		return false;
	istemplate = ((Form_pg_database) GETSTRUCT(tup))->datistemplate;
	ReleaseSysCache(tup);
	return istemplate || pg_database_ownercheck(dbid, GetUserId());
}

/*
 * The database stmt needs to itself, if the user may run stmt as far as
 * PostgreSQL's permission checks go; else InvalidOid.
 */
static Oid
database_needed_alone(Node *stmt)
{
	const char *dbname = NULL;
	List	   *options = NIL;
	const char *option = NULL;
	const char *owner = NULL;
	Oid			dbid;

	if (IsA(stmt, RenameStmt) && ((RenameStmt *) stmt)->renameType == OBJECT_DATABASE)
		dbname = ((RenameStmt *) stmt)->subname;
	else if (IsA(stmt, AlterDatabaseStmt))
	{
		dbname = ((AlterDatabaseStmt *) stmt)->dbname;
		options = ((AlterDatabaseStmt *) stmt)->options;
		option = "tablespace";
	}
	else if (IsA(stmt, CreatedbStmt))
	{
		options = ((CreatedbStmt *) stmt)->options;
		option = "template";
	}
	if (option)
	{
		ListCell   *lc;
		const char *named = NULL;

		foreach(lc, options)
		{
			DefElem    *d = lfirst_node(DefElem, lc);

			if (strcmp(d->defname, option) == 0 && d->arg != NULL)
				named = defGetString(d);
			else if (strcmp(d->defname, "owner") == 0 && d->arg != NULL &&
					 IsA(stmt, CreatedbStmt))
				owner = defGetString(d);
		}
		if (IsA(stmt, CreatedbStmt))
			dbname = named ? named : "template1";	/* PostgreSQL's default */
		else if (named == NULL)
			return InvalidOid;	/* another ALTER DATABASE */
	}
	dbid = dbname ? get_database_oid(dbname, true) : InvalidOid;
	if (!OidIsValid(dbid))
		return InvalidOid;

	/* PostgreSQL's permission checks, which it makes after this hook */
	if (IsA(stmt, CreatedbStmt))
	{
		if (!user_may_create_databases() || !user_may_copy_database(dbid))
			return InvalidOid;
		if (owner && !is_member_of_role(GetUserId(), get_role_oid(owner, true)))
			return InvalidOid;
	}
	else
	{
		if (!pg_database_ownercheck(dbid, GetUserId()))
			return InvalidOid;
		if (IsA(stmt, RenameStmt) && !user_may_create_databases())
			return InvalidOid;
	}
	return dbid;
}

static void
pool_ProcessUtility(PlannedStmt *pstmt, const char *queryString,
					bool readOnlyTree, ProcessUtilityContext context,
					ParamListInfo params, QueryEnvironment *queryEnv,
					DestReceiver *dest, QueryCompletion *qc)
{
	Oid			dbid = Pools ? database_needed_alone(pstmt->utilityStmt) : InvalidOid;
	Oid			outer_hold = held_database;

	if (OidIsValid(dbid))
		blinkam_release_database(dbid, BLINKAM_HOLD_MS, false);
	PG_TRY();
	{
		if (OidIsValid(dbid))
			blinkam_debug_pause(BLINKAM_PAUSE_DATABASE_HELD);
		(prev_ProcessUtility ? prev_ProcessUtility : standard_ProcessUtility)
			(pstmt, queryString, readOnlyTree, context, params, queryEnv,
			 dest, qc);
	}
	PG_FINALLY();
	{
		/*
		 * The hold this command took, here or in the object access hook of
		 * DROP DATABASE; not one an enclosing command took.
		 */
		if (held_database != outer_hold)
			blinkam_unhold_database();
	}
	PG_END_TRY();
}

/* From _PG_init: shared memory and the object access hook. */
void
blinkam_pool_init(void)
{
	blinkam_shmem_register(pool_shmem_size, pool_shmem_init);
	prev_object_access_hook = object_access_hook;
	object_access_hook = pool_object_access;
	prev_ProcessUtility = ProcessUtility_hook;
	ProcessUtility_hook = pool_ProcessUtility;
}

/* ---------------------------------------------------------------------
 * Database requests
 * ---------------------------------------------------------------------
 */

/*
 * Repair sweeps.  A database's repair sweep (worker.c) is asked for by
 * the launcher at its start (blinkam_request_repair), and the request
 * stays in the database's entry, with the sweep's position, until the
 * sweep is complete: a worker records where it stands after each slice
 * (blinkam_worker_sweep_at) and clears the request only at the end
 * (blinkam_worker_sweep_done).  A worker that dies on the way -- an ERROR
 * in a slice (a lock timeout, a cancel, a full disk), or in a refill
 * served between two slices, pg_terminate_backend -- detaches with the
 * request still set; the entry, not idle, stays (free_idle_entry); the
 * launcher, woken by the detach, starts another worker, which resumes
 * the sweep where it stood.  So does the next worker after one that left
 * on purpose (blinkam_release_database for RENAME, SET TABLESPACE, CREATE
 * DATABASE ... TEMPLATE: the hold keeps workers off until the command is
 * over).  DROP DATABASE clears the request with the others: the database
 * is going, and its entry goes when the hold ends, sweep or no sweep (a
 * DROP DATABASE that failed has cleared it all the same; the start-up
 * sweep is a convenience, see worker.c).  Until 2026-11-27 a worker took
 * the request when it attached, and a sweep cut short by its worker's
 * death or departure was never done.
 *
 * A worker that dies while it is sweeping (not in a pause between slices,
 * where it serves the pools) counts a death at the position it died at
 * (blinkam_worker_detach); a position recorded further on counts from
 * zero.  After BLINKAM_SWEEP_MAX_DEATHS deaths at the same position the
 * next worker skips that relation (worker.c logs it): a relation whose
 * slice kills every worker (a lock it cannot get, an error it cannot
 * avoid) must not hold up the sweep of the others, nor start workers
 * forever.
 *
 * A request made while a sweep is unfinished joins it instead of
 * starting it over: requests come from a launcher's start, and one that
 * does not follow a crash restart (which resets shared memory, positions
 * included) asks for a sweep after no crash; the one under way is for
 * the last crash.  Each new request gets a new sweep_id, so that a worker
 * still sweeping for an older one (the request cleared by DROP DATABASE,
 * then made again) records nothing into it.
 */

/* r's sweep has not begun (the pools lock held exclusively). */
static void
sweep_reset(BlinkDbRequest *r)
{
	r->sweep.pass = BLINKAM_SWEEP_NEW;
	r->sweep.relid = InvalidOid;
	r->sweep.block = 0;
	r->sweep.deaths = 0;
}

/*
 * Ask for a repair sweep of a database's blink indexes.  Returns false if
 * no entry was free for it (the launcher asks again later).
 */
bool
blinkam_request_repair(Oid dbid)
{
	BlinkDbRequest *r;

	LWLockAcquire(Pools->lock, LW_EXCLUSIVE);
	r = db_request(dbid, true);
	if (r && !r->repair)
	{
		r->repair = true;
		if (++Pools->last_sweep_id == 0)
			Pools->last_sweep_id = 1;	/* 0 is none */
		r->sweep_id = Pools->last_sweep_id;
		sweep_reset(r);
	}
	LWLockRelease(Pools->lock);
	return r != NULL;
}

/*
 * Worker starts.  An entry's starting is the ticket of the one worker the
 * launcher started for the database and has not yet seen attach or stop;
 * while it is set, no other worker is started for the database.  The
 * ticket goes to the worker (in bgw_extra) and stays with the launcher
 * (its list of started workers), so that each clears only what is its
 * own:
 *   - a worker that attaches clears it, whoever's it is: the database is
 *     served, and another worker started for it will be refused;
 *   - a worker turned away by a hold clears its own;
 *   - the launcher, seeing a worker it started stop, clears that worker's
 *     ticket if the entry still holds it, and only then counts a start
 *     failure: the worker neither attached nor was turned away, and no
 *     other worker attached after it was started;
 *   - a launcher that starts clears them all
 *     (blinkam_forget_worker_starts).
 * A worker refused because another one is attached clears nothing: the
 * attached one did, and the launcher then finds another ticket or none
 * when it sees the refused one stop, and counts nothing.  So an entry
 * with an attached worker holds no ticket.
 *
 * Until 2026-11-27 starting was a flag.  A launcher that exited while a
 * worker it started was still connecting (pg_terminate_backend, an ERROR)
 * never saw that worker stop; if the worker then failed before attaching,
 * nothing cleared the flag, and no worker started for the database again
 * until the server restarted (t/030_launcher_restart.pl).  And the
 * launcher could not tell its worker's flag from a later one's: an
 * attached worker that left with work pending, followed by a new start
 * before the launcher saw the first one stop, counted as a start failure
 * and cleared the new worker's flag, letting a third one start beside it.
 */

/*
 * A launcher starts: it knows of no worker it started, so none stays
 * marked as starting.  A worker the launcher before it started that is
 * still connecting either attaches (a worker the new launcher starts
 * meanwhile is then refused) or fails (the new launcher starts another);
 * either way nobody counts it.
 */
void
blinkam_forget_worker_starts(void)
{
	LWLockAcquire(Pools->lock, LW_EXCLUSIVE);
	for (int i = 0; i < BLINKAM_MAX_DB_REQUESTS; i++)
	{
		BlinkDbRequest *r = &Pools->dbs[i];

		if (r->dbid == InvalidOid)
			continue;
		r->starting = 0;
		free_idle_entry(r);
	}
	LWLockRelease(Pools->lock);
}

/*
 * For the launcher: the databases that have work and no worker.  Fills
 * dbids and the tickets of the workers to start for them (at most max,
 * which may be 0) and returns how many.  Whether more are waiting is
 * recorded for the workers (blinkam_workers_wanted).
 */
int
blinkam_databases_needing_workers(Oid *dbids, uint32 *tickets, int max)
{
	int			n = 0;
	int			wanted = BLINKAM_WANTED_NONE;
	TimestampTz now = GetCurrentTimestamp();

	LWLockAcquire(Pools->lock, LW_EXCLUSIVE);
	/* refill requests create database entries on the way */
	for (int i = 0; i < Pools->nslots; i++)
	{
		BlinkPoolSlot *s = &Pools->slots[i];

		if (s->dbid != InvalidOid && s->refill)
			(void) db_request(s->dbid, true);
	}
	/*
	 * In turn: from the entry after the one a worker was last started for,
	 * so that with fewer places than databases wanting them the first
	 * entries do not always win.
	 */
	for (int k = 0; k < BLINKAM_MAX_DB_REQUESTS; k++)
	{
		int			idx = (Pools->next_scan + k) % BLINKAM_MAX_DB_REQUESTS;
		BlinkDbRequest *r = &Pools->dbs[idx];
		RefillState refill;

		/* an idle entry goes, one whose hold has expired included */
		if (r->dbid != InvalidOid && r->worker_pid == 0 && r->starting == 0)
			free_idle_entry(r);
		if (r->dbid == InvalidOid || r->worker_pid != 0 || r->starting != 0 ||
			entry_held(r, now) || r->retry_at > now)
			continue;
		/* a refill put off (its relation locked) waits for its time */
		refill = refill_state(r->dbid, now);
		if (r->repair || r->returns || refill != REFILL_NOT_PENDING)
		{
			if (n == max)
			{
				/*
				 * No start left for it this time: an idle worker makes
				 * room (how soon, when all it has is refills put off: see
				 * blinkam_workers_wanted).
				 */
				if (r->repair || r->returns || refill == REFILL_FRESH)
					wanted = BLINKAM_WANTED_WORK;
				else if (wanted == BLINKAM_WANTED_NONE)
					wanted = BLINKAM_WANTED_RETRY;
				continue;
			}
			Pools->next_scan = (idx + 1) % BLINKAM_MAX_DB_REQUESTS;
			if (++Pools->last_ticket == 0)
				Pools->last_ticket = 1; /* 0 is no ticket */
			r->starting = Pools->last_ticket;
			dbids[n] = r->dbid;
			tickets[n] = r->starting;
			n++;
		}
	}
	Pools->workers_wanted = wanted;
	LWLockRelease(Pools->lock);
	return n;
}

/*
 * For an idle worker: does a database with work wait for a worker that
 * the launcher may not start?  BLINKAM_WANTED_WORK: one with work of its
 * own (a repair, returns, a new refill request): the idle worker leaves at
 * once.  BLINKAM_WANTED_RETRY: only refills put off before (their relation
 * was locked, or they failed): a worker with no refill of its own put off
 * leaves at once, one with such a refill only after its idle timeout --
 * so that two databases each with a relation locked do not pass the one
 * place back and forth every second, nor does one of them keep it while
 * the other's relation is free again.  (Read without the lock: a stale
 * answer only makes a worker end a second late, or linger until the next
 * look.)
 */
int
blinkam_workers_wanted(void)
{
	return ((volatile BlinkPoolShared *) Pools)->workers_wanted;
}

/*
 * The launcher saw the worker it started for dbid with ticket stop (ran),
 * or could not start it (no background worker slot free: the next pass
 * tries again).  A worker that stopped while its entry still holds its
 * ticket never attached, and no other worker attached after it was
 * started (attaching clears the ticket): the database refuses connections
 * (ALLOW_CONNECTIONS false) or is gone, or the worker failed on its way
 * in.  A worker that attached, or was refused for another one attached,
 * or turned away by a hold, left another ticket or none, and is not
 * counted (see "Worker starts" above).
 *
 * After BLINKAM_MAX_START_FAILURES such workers in a row, and after each
 * one that follows until a worker attaches, no worker starts for the
 * database for BLINKAM_START_BACKOFF_MS.  Its requests (repair, returns,
 * refills) are kept, so that the work is done once a worker gets in.
 * Giving them up is no way out: a pool slot's refill flag stays set until
 * a worker takes it, so the launcher's next pass (it is woken by each
 * worker's exit) would make the entry again and start another worker, and
 * so on, hundreds a second, for as long as the database refuses
 * connections.
 *
 * Returns the backoff begun, in milliseconds, or 0; *in_a_row: the
 * workers that stopped before attaching in a row.  The launcher logs the
 * backoff (not under the pools lock).
 *
 * Backoff and hold (blinkam_release_database) are two times
 * blinkam_databases_needing_workers checks side by side; neither moves
 * the other, and the end of a command (blinkam_unhold_database) does not
 * lift a backoff.  A worker turned away by a hold clears its ticket itself
 * (blinkam_worker_attach), so it is not counted here: a command that
 * needs the database to itself never makes its database back off.  A
 * worker the launcher had started before the hold waits in its
 * connection for the command's lock on the database; after RENAME, SET
 * TABLESPACE or CREATE DATABASE it gets in and attaches, or is turned
 * away as above if it gets in while the hold lasts (SET TABLESPACE lets
 * its lock go before the command ends).  After DROP DATABASE it fails --
 * but the end of the drop's hold has freed the entry with its requests,
 * failures and backoff (no worker was attached), so this finds none, and
 * nothing is owed to a database that no longer exists.  A DROP DATABASE
 * that fails after its object access hook (another session connected)
 * has freed them all the same; a later request makes a new entry, which
 * lets up to BLINKAM_MAX_START_FAILURES workers try before it backs off
 * again.
 */
#define BLINKAM_MAX_START_FAILURES	3
#define BLINKAM_START_BACKOFF_MS	10000

int
blinkam_worker_start_failed(Oid dbid, uint32 ticket, bool ran, int *in_a_row)
{
	int			backoff_ms = 0;
	bool		failed = false;

	*in_a_row = 0;
	LWLockAcquire(Pools->lock, LW_EXCLUSIVE);
	{
		BlinkDbRequest *r = db_request(dbid, false);

		if (r && r->starting == ticket)
		{
			/* still its ticket: it never attached, nor did another */
			failed = ran;
			r->starting = 0;
			if (failed && ++r->failures >= BLINKAM_MAX_START_FAILURES)
			{
				r->retry_at = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
														  BLINKAM_START_BACKOFF_MS);
				backoff_ms = BLINKAM_START_BACKOFF_MS;
			}
			*in_a_row = r->failures;
			/* nothing pending (the work went meanwhile): the entry goes */
			free_idle_entry(r);
		}
	}
	LWLockRelease(Pools->lock);
	if (failed)
		blinkam_count(BLINKAM_COUNTER_WORKER_START_FAILURES, 1);
	return backoff_ms;
}

/*
 * A worker, started with ticket, attaches to its database's entry.
 * Returns false if another worker already serves the database, or a
 * command holds it.  A repair sweep due stays in the entry: the worker
 * asks for it (blinkam_worker_sweep_due).
 */
bool
blinkam_worker_attach(uint32 ticket)
{
	bool		ok = true;
	TimestampTz now = GetCurrentTimestamp();

	LWLockAcquire(Pools->lock, LW_EXCLUSIVE);
	{
		BlinkDbRequest *r = db_request(MyDatabaseId, true);

		if (r == NULL || (r->worker_pid != 0 && r->worker_pid != MyProcPid))
		{
			/* a duplicate: the attached worker cleared every ticket */
			Assert(r == NULL || r->starting == 0);
			ok = false;
		}
		else if (entry_held(r, now))
		{
			/*
			 * Started before the hold: let the command have the database.
			 * The entry stays while held, even with its work gone (DROP
			 * INDEX, a slot recycled): the end of the hold frees it (see
			 * free_idle_entry).
			 */
			if (r->starting == ticket)
				r->starting = 0;
			ok = false;
		}
		else
		{
			r->worker_pid = MyProcPid;
			r->worker_latch = MyLatch;
			r->starting = 0;	/* whoever's: another one would be refused */
			r->leave = false;
			r->dropped = false; /* a lapsed hold's */
			r->failures = 0;
			r->retry_at = 0;
			attached_entry = r;
		}
	}
	LWLockRelease(Pools->lock);
	return ok;
}

/*
 * Is this worker asked to exit (blinkam_release_database)?  Read without
 * the lock: the entry stays ours while we are attached, and a request
 * seen one loop late only costs that loop.
 */
bool
blinkam_worker_should_leave(void)
{
	return attached_entry != NULL && ((volatile BlinkDbRequest *) attached_entry)->leave;
}

/*
 * Is a repair sweep due in this worker's database (see "Repair sweeps")?
 * If so, *pos says where it stands (BLINKAM_SWEEP_NEW: not begun), and
 * the worker serves that request from now on.
 */
bool
blinkam_worker_sweep_due(BlinkamSweepPosition *pos)
{
	bool		due = false;

	LWLockAcquire(Pools->lock, LW_EXCLUSIVE);
	{
		BlinkDbRequest *r = attached_entry;

		if (r && r->repair)
		{
			due = true;
			*pos = r->sweep;
			my_sweep_id = r->sweep_id;
		}
	}
	LWLockRelease(Pools->lock);
	return due;
}

/*
 * Is r's sweep the one this worker serves (the pools lock held)?  Not if
 * its request was cleared (DROP DATABASE), or cleared and made again.
 */
static bool
my_sweep(BlinkDbRequest *r)
{
	return r != NULL && r->repair && my_sweep_id != 0 &&
		r->sweep_id == my_sweep_id;
}

/*
 * The sweep this worker serves stands at (pass, relid, block): what comes
 * before is done.  A position that moves counts its deaths from zero.
 */
void
blinkam_worker_sweep_at(BlinkamSweepPass pass, Oid relid, BlockNumber block)
{
	LWLockAcquire(Pools->lock, LW_EXCLUSIVE);
	{
		BlinkDbRequest *r = attached_entry;

		if (my_sweep(r) &&
			(r->sweep.pass != pass || r->sweep.relid != relid ||
			 r->sweep.block != block))
		{
			r->sweep.pass = pass;
			r->sweep.relid = relid;
			r->sweep.block = block;
			r->sweep.deaths = 0;
		}
	}
	LWLockRelease(Pools->lock);
}

/* The sweep this worker serves is complete: its request goes. */
void
blinkam_worker_sweep_done(void)
{
	LWLockAcquire(Pools->lock, LW_EXCLUSIVE);
	{
		BlinkDbRequest *r = attached_entry;

		if (my_sweep(r))
		{
			r->repair = false;
			sweep_reset(r);
		}
		my_sweep_id = 0;
	}
	LWLockRelease(Pools->lock);
}

/*
 * The worker leaves (exit callback); died_sweeping: it is exiting on an
 * error (or pg_terminate_backend) while sweeping, which counts a death at
 * the sweep's position (see "Repair sweeps").  A sweep it left unfinished
 * stays requested, and the launcher, woken here, starts another worker.
 */
void
blinkam_worker_detach(bool died_sweeping)
{
	if (Pools == NULL)
		return;
	LWLockAcquire(Pools->lock, LW_EXCLUSIVE);
	{
		BlinkDbRequest *r = db_request(MyDatabaseId, false);

		if (r && r->worker_pid == MyProcPid)
		{
			/* no worker starts while one is attached */
			Assert(r->starting == 0);
			if (died_sweeping && my_sweep(r))
				r->sweep.deaths++;
			my_sweep_id = 0;
			r->worker_pid = 0;
			r->worker_latch = NULL;
			r->leave = false;
			free_idle_entry(r);
		}
	}
	attached_entry = NULL;
	LWLockRelease(Pools->lock);
	/* the launcher may have work for this database again */
	blinkam_wake_launcher();
}

/*
 * Ask the worker of dbid, if one is attached, to exit, keep the launcher
 * from starting another until this backend's command is over (at most
 * hold_ms), and wait (at most RELEASE_WAIT_MS) until it has gone -- for a
 * command that PostgreSQL refuses while another session is connected to
 * the database (DROP, ALTER ... RENAME, ALTER ... SET TABLESPACE, CREATE
 * DATABASE ... TEMPLATE).  PostgreSQL itself waits up to five seconds
 * only for autovacuum workers, and ours would otherwise stay until its
 * idle timeout.  A worker the launcher had started before the hold
 * refuses to attach (blinkam_worker_attach); one blocked in its
 * connection on the command's lock on the database is not counted by
 * PostgreSQL.  With dropped (DROP DATABASE, from the object access hook,
 * which runs with the database already locked): its requests go too, and
 * so does its entry when the hold ends.  Waits with no lock held.
 *
 * The hold is counted in the database's entry, made here if the database
 * has none (an idle database), and ended by pool_ProcessUtility when the
 * command is over (blinkam_unhold_database): so work that arrives during
 * the command (a refill, returns, a new launcher's repair request) finds
 * it held, a worker's detach keeps the entry (free_idle_entry), a worker
 * connected but not attached when DROP DATABASE came is refused, and the
 * end of one command leaves another's hold in place.  Until 2026-11-27
 * the hold was a time in the entry alone: none was recorded for a
 * database without an entry, DROP DATABASE freed the entry with its hold,
 * so did an idle worker's detach, and the end of any command cleared
 * every hold on the database; a worker could then attach during the
 * command, which failed ("source database ... is being accessed by other
 * users").  With every entry taken (BLINKAM_MAX_DB_REQUESTS databases
 * with work or workers), no hold is recorded: the command may then meet a
 * worker that attached meanwhile.  A backend that exits holding a database
 * (a FATAL error in its command) lets go in its exit callback; until
 * 2026-11-27 such a hold stayed until it lapsed.
 */
#define RELEASE_WAIT_MS		5000

/* The backend exits (a FATAL error in its command): its hold ends. */
static void
unhold_at_exit(int code, Datum arg)
{
	blinkam_unhold_database();
}

void
blinkam_release_database(Oid dbid, int hold_ms, bool dropped)
{
	TimestampTz start = GetCurrentTimestamp();
	TimestampTz until = TimestampTzPlusMilliseconds(start, hold_ms);
	static bool exit_callback = false;

	/* one command at a time: a hold left over would never end */
	if (OidIsValid(held_database))
		blinkam_unhold_database();
	if (!exit_callback)
	{
		before_shmem_exit(unhold_at_exit, (Datum) 0);
		exit_callback = true;
	}
	for (;;)
	{
		bool		gone = true;

		LWLockAcquire(Pools->lock, LW_EXCLUSIVE);
		{
			BlinkDbRequest *r = db_request(dbid, !OidIsValid(held_database));

			if (r && !OidIsValid(held_database))
			{
				/* a lapsed hold's holders are gone (entry_held) */
				if (!entry_held(r, start))
				{
					r->holders = 0;
					r->dropped = false;
				}
				r->holders++;
				r->held_until = Max(r->held_until, until);
				held_database = dbid;
			}
			if (r)
			{
				if (dropped)
				{
					/* and an unfinished sweep's position with them */
					r->dropped = true;
					r->repair = r->returns = false;
					sweep_reset(r);
				}
				if (r->worker_pid != 0)
				{
					gone = false;
					r->leave = true;
					SetLatch(r->worker_latch);
				}
			}
		}
		LWLockRelease(Pools->lock);
		if (gone ||
			TimestampDifferenceExceeds(start, GetCurrentTimestamp(), RELEASE_WAIT_MS))
			return;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 10L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * The command that held a database (blinkam_release_database) is over:
 * once no other command holds it, workers may come back, and an entry
 * that only the hold kept goes -- a dropped database's at once, work or
 * no work (the drop cleared it; a worker still starting for it fails to
 * connect and finds no entry to count a failure in).  A DROP DATABASE that
 * failed (another session connected) has cleared the database's requests
 * all the same; a later request makes a new entry.
 */
void
blinkam_unhold_database(void)
{
	Oid			dbid = held_database;

	if (!OidIsValid(dbid))
		return;
	held_database = InvalidOid;
	LWLockAcquire(Pools->lock, LW_EXCLUSIVE);
	{
		BlinkDbRequest *r = db_request(dbid, false);

		if (r && r->holders > 0 && --r->holders == 0)
		{
			r->held_until = 0;
			if (r->dropped && r->worker_pid == 0)
				r->dbid = InvalidOid;
			else
			{
				r->dropped = false;
				free_idle_entry(r);
			}
		}
	}
	LWLockRelease(Pools->lock);
	blinkam_wake_launcher();
}

/* ---------------------------------------------------------------------
 * SQL: blinkam_pools()
 * ---------------------------------------------------------------------
 */
Datum
blinkam_pools(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int			nslots;
	BlinkPoolSlot *copy;
	BlockNumber *next_leaf;
	int			wm[2][2];

	InitMaterializedSRF(fcinfo, 0);

	LWLockAcquire(Pools->lock, LW_SHARED);
	nslots = Pools->nslots;
	copy = palloc(sizeof(BlinkPoolSlot) * Max(nslots, 1));
	memcpy(copy, Pools->slots, sizeof(BlinkPoolSlot) * nslots);
	/* the leaf page each pool's next take hands out (blinkam_pool_add) */
	next_leaf = palloc(sizeof(BlockNumber) * Max(nslots, 1));
	for (int i = 0; i < nslots; i++)
		next_leaf[i] = copy[i].n[0] > 0 ?
			slot_blocks(i, 0)[copy[i].n[0] - 1] : InvalidBlockNumber;
	watermarks(0, &wm[0][0], &wm[0][1]);
	watermarks(1, &wm[1][0], &wm[1][1]);
	LWLockRelease(Pools->lock);

	for (int i = 0; i < nslots; i++)
	{
		Datum		values[10];
		bool		nulls[10] = {false};
		BlinkPoolSlot *s = &copy[i];

		if (s->dbid == InvalidOid)
			continue;
		values[0] = ObjectIdGetDatum(s->dbid);
		/* the index, if it is in this database and has this relfilenode */
		values[1] = ObjectIdGetDatum(s->relid);
		nulls[1] = s->dbid != MyDatabaseId;
		values[2] = ObjectIdGetDatum(s->node.relNode);
		values[3] = Int32GetDatum(s->n[0]);
		values[4] = Int32GetDatum(s->n[1]);
		values[5] = Int32GetDatum(wm[0][0]);
		values[6] = Int32GetDatum(wm[0][1]);
		values[7] = Int32GetDatum(wm[1][0]);
		values[8] = Int32GetDatum(wm[1][1]);
		values[9] = Int64GetDatum((int64) next_leaf[i]);
		nulls[9] = next_leaf[i] == InvalidBlockNumber;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
