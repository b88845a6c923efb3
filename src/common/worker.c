/*-------------------------------------------------------------------------
 *
 * worker.c
 *	  The per-database blinkam worker: refills page pools and repairs
 *	  splits left incomplete.
 *
 * Started by the launcher (dynamic background worker, never restarted by
 * the postmaster) when its database has work; exits after
 * blinkam.worker_idle_timeout without any.  One worker per database at a
 * time (the database's request entry records it).
 *
 * The worker knows the relations it serves only through the relation
 * kinds the access methods register (workers.h): which access method and
 * relkind, how their free space map hands out and takes back free pages,
 * and how to look at one page after a crash.
 *
 * Refill: for each pool slot of this database that asked for a refill,
 * open the relation, take zero pages from its free space map, extend it
 * by the blocks still missing in one batch under the relation extension
 * lock, and put them into the pool (pool.c).
 *
 * Returns: record the pages of recycled pool slots in their relation's
 * free space map (pool.c, "A pool is a cache of free pages").
 *
 * Repair: after a crash an access method may have pages to put right
 * (blink: splits left INCOMPLETE_SPLIT).  Correctness never depends on
 * this worker -- writers do that work when they need to -- but the
 * worker does it soon after a restart, so that no user action is needed:
 *
 *   1. pages of this database's relations of a registered kind that
 *      asks for the sweep (blink indexes; blinkheap tables are not swept,
 *      their VACUUM records their zero pages) that are in shared buffers
 *      (recovery has just replayed into them) are looked at first;
 *   2. then every page of every such relation of the database is swept,
 *      relation by relation in the order of their oids; the sweep also
 *      records every zero page in the free space map, so that the pages
 *      pools held when the server stopped are used again (blink's VACUUM
 *      records them too).
 *
 * Both go through a relation in slices of REPAIR_BATCH pages, each in a
 * transaction of its own that holds the relation's RowExclusiveLock only
 * while it reads the slice, with a pause between slices
 * (blinkam.repair_delay) that holds no lock: a command that needs the
 * relation to itself (TRUNCATE, DROP, REINDEX, ALTER) waits for one slice
 * at most, not for the sweep, and so do the writers queued behind it.
 * Between slices the worker also serves the refills and returns asked for
 * meanwhile (worker_repair_gap), so that pools do not stay empty for as
 * long as a sweep lasts.  What happens to a relation between two slices
 * is discussed at worker_repair_relation.
 *
 * The sweep survives its worker (pool.c, "Repair sweeps"): the request
 * stays in the database's entry until the sweep is complete, with its
 * position (the pass; in the full sweep, the relation and the next
 * block), recorded after each slice.  A worker that dies (an ERROR in a
 * slice or in a return between slices, pg_terminate_backend) or leaves on
 * purpose (blinkam_worker_should_leave: ALTER DATABASE ... RENAME and the
 * like; DROP DATABASE clears the request) is followed by one that resumes
 * from that position, skipping the pass over buffered pages, which the
 * full sweep covers.  After BLINKAM_SWEEP_MAX_DEATHS workers in a row died
 * sweeping at the same position, the next skips that relation, with a LOG
 * message: a relation that kills every worker (a lock it cannot get
 * within lock_timeout, an error it cannot avoid) must not hold up the
 * others nor start workers forever, and nothing depends on the sweep.
 *
 * src/common/worker.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "commands/dbcommands.h"
#include "commands/defrem.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/buf_internals.h"
#include "storage/bufmgr.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/pmsignal.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/relfilenodemap.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "common/batch.h"
#include "common/counters.h"
#include "common/pool.h"
#include "common/settings.h"
#include "common/workers.h"

#define REPAIR_BATCH	256
#define MAX_KINDS		4

/* The relation kinds registered by the access methods */
static const BlinkamRelationKind *kinds[MAX_KINDS];
static int	nkinds = 0;

/* Memory that outlives the transactions of one round of work. */
static MemoryContext WorkerContext = NULL;

/*
 * The worker is sweeping, outside the pauses between slices: dying now
 * counts against the sweep's position (pool.c, "Repair sweeps").
 */
static bool sweep_working = false;

/* From _PG_init: the workers will serve relations of this kind. */
void
blinkam_register_relation_kind(const BlinkamRelationKind *kind)
{
	if (nkinds >= MAX_KINDS)
		elog(ERROR, "too many blinkam relation kinds");
	kinds[nkinds++] = kind;
}

/* The registered kind rel belongs to, or NULL. */
static const BlinkamRelationKind *
kind_of(Relation rel)
{
	for (int i = 0; i < nkinds; i++)
	{
		if (rel->rd_rel->relkind == kinds[i]->relkind &&
			rel->rd_rel->relam == get_am_oid(kinds[i]->amname, true))
			return kinds[i];
	}
	return NULL;
}

/*
 * Open a relation for the worker if it is (still) of a registered kind
 * (a valid index, for index kinds) with the given relfilenode
 * (InvalidOid: any); its kind in *kind.  NULL otherwise.
 *
 * With busy not NULL the lock is only taken if it is free at once: a
 * refill or a return never waits for it.  A transaction that holds the
 * relation in a conflicting mode (LOCK TABLE, ALTER, CLUSTER, REINDEX),
 * or a request for such a lock queued behind its writers, may last as
 * long as it likes; a worker that waited for it would serve no other pool
 * of its database meanwhile, and, holding one of blinkam.max_workers
 * places, maybe no other database either.  Then NULL with *busy set: a
 * refill is asked for again, a little later (worker_refill_one); a
 * return leaves its pages to VACUUM (worker_return_some).  The repair
 * sweep (busy NULL) waits as any command does: it needs every relation
 * once.
 */
static Relation
worker_open_relation(Oid relid, Oid relfilenode, const BlinkamRelationKind **kind,
					 bool *busy)
{
	Relation	rel;

	if (busy != NULL)
	{
		*busy = !ConditionalLockRelationOid(relid, RowExclusiveLock);
		if (*busy)
			return NULL;
		rel = try_relation_open(relid, NoLock);
		if (rel == NULL)
		{
			UnlockRelationOid(relid, RowExclusiveLock);
			return NULL;
		}
	}
	else
		rel = try_relation_open(relid, RowExclusiveLock);

	if (rel == NULL)
		return NULL;
	*kind = kind_of(rel);
	if (*kind == NULL ||
		(OidIsValid(relfilenode) && rel->rd_node.relNode != relfilenode) ||
		(rel->rd_rel->relkind == RELKIND_INDEX && !rel->rd_index->indisvalid))
	{
		relation_close(rel, RowExclusiveLock);
		return NULL;
	}
	return rel;
}

/*
 * Is block blkno of rel a zero page (never initialized)?  The share lock is
 * let go through batch.c: the page may be one with waiters.
 */
static bool
worker_page_is_new(Relation rel, BlockNumber blkno)
{
	Buffer		buf = ReadBuffer(rel, blkno);
	bool		isnew;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	isnew = PageIsNew(BufferGetPage(buf));
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	if (!isnew)
		blinkam_batch_after_release(rel, blkno);
	ReleaseBuffer(buf);
	return isnew;
}

/* What worker_refill_one did */
typedef enum WorkerRefill
{
	REFILL_NONE,				/* no request (that may be tried now) */
	REFILL_DONE,				/* served (or its relation was gone) */
	REFILL_LATER				/* the relation was locked: asked again */
} WorkerRefill;

/* How long a refill put back for a locked relation waits at least */
#define REFILL_RETRY_MS		100
/* ... and one that failed (a full disk) */
#define REFILL_FAILED_RETRY_MS	10000

/* What an error in a refill says it was doing */
typedef struct RefillContext
{
	Oid			relid;
	const char *relname;		/* once the relation is open */
} RefillContext;

static void
refill_error_callback(void *arg)
{
	RefillContext *c = (RefillContext *) arg;

	if (c->relname)
		errcontext("refilling the page pool of relation \"%s\" (OID %u)",
				   c->relname, c->relid);
	else
		errcontext("refilling the page pool of relation with OID %u", c->relid);
}

/*
 * Refill the pool of relid (node) with nleaf leaf and ninternal internal
 * pages, in a transaction of its own.  Pages come from the free space map
 * first (zero pages only: an entry for a page in use is stale, and taking
 * it cleared it), then from extending the relation.
 */
static WorkerRefill
worker_refill_relation(Oid relid, RelFileNode node, int nleaf, int ninternal)
{
	Relation	rel;
	const BlinkamRelationKind *kind;
	bool		busy;
	BlockNumber *blocks;
	BlockNumber nblocks;
	int			n = nleaf + ninternal,
				got = 0;
	RefillContext context = {relid, NULL};
	ErrorContextCallback callback;

	callback.callback = refill_error_callback;
	callback.arg = &context;
	callback.previous = error_context_stack;
	error_context_stack = &callback;

	StartTransactionCommand();
	rel = worker_open_relation(relid, node.relNode, &kind, &busy);
	if (rel == NULL)
	{
		/*
		 * Locked by another transaction: the request is put back, to be
		 * tried again a moment later (by this worker or, if it leaves
		 * meanwhile, the next one of this database).  A transaction that
		 * creates an index and fills it, or locks a table and loads it,
		 * gets its pool refilled soon after it commits, as when the worker
		 * waited for it.
		 */
		CommitTransactionCommand();
		error_context_stack = callback.previous;
		if (!busy)
		{
			blinkam_pool_forget(node);
			return REFILL_DONE;
		}
		blinkam_count(BLINKAM_COUNTER_POOL_REFILLS_LOCKED, 1);
		blinkam_pool_refill_later(node, REFILL_RETRY_MS);
		return REFILL_LATER;
	}
	context.relname = RelationGetRelationName(rel);

	blocks = MemoryContextAlloc(WorkerContext, sizeof(BlockNumber) * n);
	nblocks = RelationGetNumberOfBlocks(rel);
	while (got < n && kind->take_free_page != NULL)
	{
		BlockNumber blkno = kind->take_free_page(rel);

		if (blkno == InvalidBlockNumber)
			break;
		if (blkno >= kind->first_block && blkno < nblocks &&
			worker_page_is_new(rel, blkno))
			blocks[got++] = blkno;
	}
	blinkam_count(BLINKAM_COUNTER_POOL_PAGES_FROM_FSM, got);

	if (got < n)
	{
		LockRelationForExtension(rel, ExclusiveLock);
		for (int i = got; i < n; i++)
		{
			Buffer		buf = ReadBufferExtended(rel, MAIN_FORKNUM, P_NEW,
												 RBM_NORMAL, NULL);

			blocks[i] = BufferGetBlockNumber(buf);
			ReleaseBuffer(buf);
		}
		UnlockRelationForExtension(rel, ExclusiveLock);
	}

	n = blinkam_pool_add(node, blocks, nleaf, n);
	pfree(blocks);
	blinkam_count(BLINKAM_COUNTER_POOL_PAGES_ADDED, n);
	blinkam_count(BLINKAM_COUNTER_POOL_REFILLS, 1);
	context.relname = NULL;		/* (not to be used once closed) */
	relation_close(rel, RowExclusiveLock);
	CommitTransactionCommand();
	error_context_stack = callback.previous;
	return REFILL_DONE;
}

/*
 * Serve one refill request.
 *
 * One that fails -- a full disk, a file size limit, an I/O error, a
 * cancel -- is logged and put off for REFILL_FAILED_RETRY_MS (counted in
 * pool_refills_failed), as autovacuum goes on after a table it could not
 * vacuum.  Until 2026-11-28 the error ended the worker, the next take
 * that found the pool low started another at once, and with a tablespace
 * full a database's workers failed and restarted hundreds of times a
 * minute (helper-50).  The pages extended before the error are zero pages
 * of the relation, for VACUUM.  A FATAL (pg_terminate_backend, shutdown)
 * still ends the worker.
 */
static WorkerRefill
worker_refill_one(void)
{
	Oid			relid;
	RelFileNode node;
	int			nleaf,
				ninternal;
	WorkerRefill result;

	if (!blinkam_pool_next_refill(&relid, &node, &nleaf, &ninternal))
		return REFILL_NONE;
	if (nleaf + ninternal == 0)
		return REFILL_DONE;

	PG_TRY();
	{
		result = worker_refill_relation(relid, node, nleaf, ninternal);
	}
	PG_CATCH();
	{
		HOLD_INTERRUPTS();
		EmitErrorReport();
		AbortOutOfAnyTransaction();
		FlushErrorState();
		RESUME_INTERRUPTS();
		blinkam_count(BLINKAM_COUNTER_POOL_REFILLS_FAILED, 1);
		blinkam_pool_refill_later(node, REFILL_FAILED_RETRY_MS);
		result = REFILL_LATER;
	}
	PG_END_TRY();
	return result;
}

/*
 * Record the pages of recycled pool slots (pool.c's return queue) in their
 * relation's free space map, one relation at a time; false if none were
 * queued.
 * Only zero pages: one a split took meanwhile is in use.
 */
static bool
worker_return_some(void)
{
	Oid			relid;
	RelFileNode node;
	BlockNumber blocks[256];
	int			n = blinkam_pool_next_returns(&relid, &node, blocks, lengthof(blocks));
	Relation	rel;
	const BlinkamRelationKind *kind;
	bool		busy;

	if (n == 0)
		return false;
	StartTransactionCommand();
	rel = worker_open_relation(relid, node.relNode, &kind, &busy);
	if (rel == NULL && busy)
	{
		/*
		 * Locked by another transaction: the pages stay what they are,
		 * zero pages of the relation that VACUUM records in its free
		 * space map (blink's and blinkheap's both do), as pages the
		 * return queue had no room for.
		 */
		blinkam_count(BLINKAM_COUNTER_POOL_PAGES_STRANDED, n);
	}
	else if (rel != NULL)
	{
		BlockNumber nblocks = RelationGetNumberOfBlocks(rel);
		int			returned = 0;

		for (int i = 0; i < n; i++)
		{
			if (blocks[i] < nblocks && worker_page_is_new(rel, blocks[i]))
			{
				kind->record_free_page(rel, blocks[i]);
				returned++;
			}
		}
		/* make them findable: searches go through the map's upper levels */
		if (returned > 0)
			kind->free_pages_recorded(rel);
		blinkam_count(BLINKAM_COUNTER_POOL_PAGES_RETURNED, returned);
		relation_close(rel, RowExclusiveLock);
	}
	CommitTransactionCommand();
	return true;
}

/*
 * Serve the returns and refills asked for, up to max of them (0: until
 * none is left), returns first: an index whose old slot was recycled then
 * gets its own pages back from the free space map before a refill looks
 * there.  Each is a transaction of its own; none is held on return.
 * Stops when the worker is asked to leave.  Returns how many it served:
 * max means there may be more.
 */
static int
worker_serve_pools(int max)
{
	int			served = 0;

	for (;;)
	{
		WorkerRefill r;

		while (!blinkam_worker_should_leave() && (max == 0 || served < max) &&
			   worker_return_some())
			served++;
		if (blinkam_worker_should_leave() || (max > 0 && served >= max))
			break;
		r = worker_refill_one();
		if (r == REFILL_NONE)
			break;
		/* one put back is not work done: it is not picked again so soon */
		if (r == REFILL_DONE)
			served++;
	}
	return served;
}

/*
 * Say what the worker is doing, as its query in pg_stat_activity: which
 * relation a repair is at, and where a sweep pauses (an administrator
 * sees how far a sweep got; tests wait for a pause).
 */
static void
pg_attribute_printf(1, 2)
worker_report(const char *fmt,...)
{
	char		activity[128];
	va_list		args;

	va_start(args, fmt);
	vsnprintf(activity, sizeof(activity), fmt, args);
	va_end(args);
	pgstat_report_activity(STATE_RUNNING, activity);
}

/* Take a reload asked for by SIGHUP (between jobs, and between slices). */
static void
worker_reload_config(void)
{
	if (ConfigReloadPending)
	{
		ConfigReloadPending = false;
		ProcessConfigFile(PGC_SIGHUP);
	}
}

/*
 * Between two slices of a repair of relid (of its buffered pages, or a
 * sweep, now before block next), holding no transaction and no lock:
 * serve the pools, and pause for blinkam.repair_delay.
 *
 * The refills and returns asked for are served first, and again whenever
 * the latch is set during the pause: a split that asks for a refill sets
 * it (pool.c), and the pools of a database whose sweep takes minutes
 * must not stay empty meanwhile (until 2026-11-27 they did: splits
 * extended their index themselves, pool_misses, until the sweep was
 * over).  The pause then goes on until repair_delay after its start, so
 * that refills neither wait for the sweep nor hurry it: repair_delay is
 * there to spread the sweep's reads, and a busy database is the one that
 * needs them spread.  A reload is taken at each wake-up, and the new
 * repair_delay counts from the same start (0 ends the pause); a request
 * to leave ends it.  Each round serves at most blinkam.pool_relations
 * jobs, as many as there are pool slots, before it looks at the time, so
 * the sweep goes on after repair_delay even while refills keep coming.
 * A round that reached its cap is followed by another at once if the
 * pause has time left: more may be pending, and the latch that announced
 * them was spent by the wake-up that began the round (dc33778 slept out
 * the rest of the pause with them pending).
 *
 * A refill here that fails (a cancel, a full disk) is logged and put
 * off, as anywhere (worker_refill_one); one whose relation is locked is
 * put off without waiting.  A return that fails (an I/O error) ends the
 * worker, but not the sweep, whose request and position stay in the
 * database's entry (pool.c, "Repair sweeps"); the next worker resumes it
 * after the slice before this gap.  Such a death does not count against
 * the sweep's position (sweep_working is off here).
 */
static void
worker_repair_gap(Oid relid, bool buffered, BlockNumber next)
{
	TimestampTz start = GetCurrentTimestamp();
	bool		reported = false;

	for (;;)
	{
		TimestampTz end;
		long		remaining;
		int			max = Max(blinkam_pool_relations, 1);
		bool		more;

		CHECK_FOR_INTERRUPTS();
		worker_reload_config();
		more = worker_serve_pools(max) >= max;
		if (blinkam_worker_should_leave())
			return;

		/* repair_delay may have changed: the pause ends where it says */
		end = TimestampTzPlusMilliseconds(start, blinkam_repair_delay);
		remaining = TimestampDifferenceMilliseconds(GetCurrentTimestamp(), end);
		if (remaining <= 0 || more)
		{
			/* not waiting on the latch: look for the postmaster's death */
			if (!PostmasterIsAlive())
				proc_exit(1);	/* what WL_EXIT_ON_PM_DEATH does below */
			if (remaining <= 0)
				return;
			/*
			 * The round reached its cap: more may be pending, and the latch
			 * that announced them is spent.  Serve on without sleeping.
			 */
			continue;
		}
		if (!reported)
		{
			if (buffered)
				worker_report("blinkam worker: repair of buffered pages of relation %u paused",
							  relid);
			else
				worker_report("blinkam worker: sweep of relation %u paused before block %u",
							  relid, next);
			reported = true;
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 remaining, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

/*
 * Repair the pages of one relation: all of its blocks (blocks NULL), or
 * the nblocks given in blocks (ascending).  A sweep of all its blocks also
 * records every zero page in the free space map: pages that sat in a page
 * pool when the server stopped (pool.c) are found this way.
 *
 * The work goes in slices of REPAIR_BATCH positions (blocks of the
 * relation, or entries of blocks), each in a transaction of its own that
 * opens the relation (RowExclusiveLock) and closes it again; between
 * slices, holding no lock and no transaction, the pools are served and
 * blinkam.repair_delay is waited out (worker_repair_gap).  Holding the
 * lock for the whole sweep of a large index would make TRUNCATE, DROP,
 * REINDEX or ALTER of it wait for the sweep, and every insert into its
 * table queue behind that command meanwhile.  A command that asks for a
 * stronger lock now waits for one slice at most: the worker's next
 * request for the lock queues behind it.  The zero pages a slice
 * recorded are made findable before its lock goes, so that a sweep cut
 * short later (the worker asked to leave, the relation dropped) loses
 * none of them.
 *
 * Each slice opens the relation afresh, with whatever file it has then.
 * Between two slices it may have been dropped (the sweep ends), or given a
 * new relfilenode: by TRUNCATE, REINDEX or a rewrite (VACUUM FULL,
 * CLUSTER, ALTER TABLE; blinkheap's relation_set_new_filenode and
 * relation_copy_for_cluster alike), which build a new file that cannot
 * hold a split left incomplete by the crash, and whose old file took its
 * zero pages with it (a pool slot keyed by the old relfilenode is freed by
 * its next take or refill); or by ALTER ... SET TABLESPACE, which copies
 * the file block by block, incomplete splits and zero pages included
 * (index_copy_data, blinkheap_relation_copy_data).  So the sweep does not
 * end at a new relfilenode: it goes on from the same position in the new
 * file, which is right for a copy and for a new build costs no more than
 * the old file would have.  It stops where the file ends (a TRUNCATE's new
 * file: at once), and never goes beyond the size the relation had at its
 * first slice: pages added since the sweep began cannot hold what a crash
 * left, and a relation growing faster than the sweep would never be done.
 */
static void
worker_repair_relation(Oid relid, BlockNumber *blocks, int nblocks,
					   BlockNumber start)
{
	BlockNumber end = InvalidBlockNumber;	/* set by the first slice */
	BlockNumber next = 0;		/* the position the next slice starts at */

	/* the full sweep records where it stands (pool.c, "Repair sweeps") */
	if (blocks == NULL)
		blinkam_worker_sweep_at(BLINKAM_SWEEP_FULL, relid, start);

	for (;;)
	{
		Relation	rel;
		const BlinkamRelationKind *kind;
		BlockNumber nrel;
		BlockNumber stop;
		int			found = 0;

		if (blinkam_worker_should_leave())
			return;				/* asked to exit: the sweep ends here */
		StartTransactionCommand();
		rel = worker_open_relation(relid, InvalidOid, &kind, NULL);
		if (rel == NULL)
		{
			CommitTransactionCommand();
			return;
		}
		nrel = RelationGetNumberOfBlocks(rel);
		if (end == InvalidBlockNumber)
		{
			end = blocks ? (BlockNumber) nblocks : nrel;
			next = blocks ? 0 : Max(kind->first_block, start);
		}
		stop = Min(end, (next / REPAIR_BATCH + 1) * REPAIR_BATCH);
		if (blocks)
			worker_report("blinkam worker: repairing buffered pages of relation %u",
						  relid);
		else
			worker_report("blinkam worker: sweeping relation %u from block %u",
						  relid, next);

		/* positions before next are done; found counts this slice's */
		for (; next < stop; next++)
		{
			BlockNumber blkno = blocks ? blocks[next] : next;
			bool		isnew;

			CHECK_FOR_INTERRUPTS();
			if (blinkam_worker_should_leave())
				break;			/* the main loop exits */
			if (blkno >= nrel)
			{
				next = end;		/* so are all that follow: done */
				break;
			}
			if (blkno < kind->first_block)
				continue;
			if (kind->repair_page)
				kind->repair_page(rel, blkno, &isnew);
			else
				isnew = worker_page_is_new(rel, blkno);
			if (isnew && blocks == NULL)
			{
				kind->record_free_page(rel, blkno);
				found++;
			}
		}
		if (found > 0)
		{
			kind->free_pages_recorded(rel);
			blinkam_count(BLINKAM_COUNTER_FREE_PAGES_FOUND, found);
		}
		relation_close(rel, RowExclusiveLock);
		CommitTransactionCommand();
		/* what this slice did is done, whatever happens to this worker */
		if (blocks == NULL)
			blinkam_worker_sweep_at(BLINKAM_SWEEP_FULL, relid,
									next >= end ? InvalidBlockNumber : next);

		if (next >= end || blinkam_worker_should_leave())
			return;

		/*
		 * The pause: no transaction, no lock.  A death here is no fault of
		 * the sweep's position (the next slice has not begun).
		 */
		sweep_working = false;
		worker_repair_gap(relid, blocks != NULL, next);
		sweep_working = true;
	}
}

/* Is a relation with this pg_class row of a kind the start-up sweep reads? */
static bool
worker_serves(Form_pg_class form)
{
	for (int i = 0; i < nkinds; i++)
	{
		if (kinds[i]->sweep && form->relkind == kinds[i]->relkind &&
			form->relam == get_am_oid(kinds[i]->amname, true))
			return true;
	}
	return false;
}

/* The same for a relation oid (in a transaction). */
static bool
worker_serves_relid(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	bool		serves;

	if (!HeapTupleIsValid(tup))
		return false;
	serves = worker_serves((Form_pg_class) GETSTRUCT(tup));
	ReleaseSysCache(tup);
	return serves;
}

typedef struct BufferedBlock
{
	RelFileNode node;
	BlockNumber blkno;
} BufferedBlock;

/* qsort comparator: by relation, then block */
static int
buffered_block_cmp(const void *a, const void *b)
{
	const BufferedBlock *x = (const BufferedBlock *) a;
	const BufferedBlock *y = (const BufferedBlock *) b;

	if (x->node.spcNode != y->node.spcNode)
		return x->node.spcNode < y->node.spcNode ? -1 : 1;
	if (x->node.relNode != y->node.relNode)
		return x->node.relNode < y->node.relNode ? -1 : 1;
	if (x->blkno != y->blkno)
		return x->blkno < y->blkno ? -1 : 1;
	return 0;
}

/*
 * Pass 1: the blocks of this database's relations now in shared buffers
 * (those recovery replayed are among them); repair those of relations of
 * a registered kind.  The list is sorted by relation and walked a
 * relation at a time, with one array for the blocks of the current one:
 * memory and time grow with the number of buffers, not with buffers
 * times relations (a helper measured a worker growing by 600 MB over
 * 12,000 small tables when each relation had an array of its own).
 */
static void
worker_repair_buffered(void)
{
	BufferedBlock *list = MemoryContextAlloc(WorkerContext,
											 sizeof(BufferedBlock) * NBuffers);
	BlockNumber *blocks;
	int			n = 0;

	for (int i = 0; i < NBuffers; i++)
	{
		BufferDesc *desc = GetBufferDescriptor(i);
		uint32		state = LockBufHdr(desc);

		if ((state & BM_VALID) && desc->tag.rnode.dbNode == MyDatabaseId &&
			desc->tag.forkNum == MAIN_FORKNUM)
		{
			list[n].node = desc->tag.rnode;
			list[n].blkno = desc->tag.blockNum;
			n++;
		}
		UnlockBufHdr(desc, state);
	}
	qsort(list, n, sizeof(BufferedBlock), buffered_block_cmp);
	blocks = MemoryContextAlloc(WorkerContext, sizeof(BlockNumber) * Max(n, 1));

	/* one pass over each relation's blocks */
	StartTransactionCommand();
	for (int i = 0; i < n;)
	{
		Oid			relid;
		int			nb = 0;
		int			j;

		for (j = i; j < n && RelFileNodeEquals(list[j].node, list[i].node); j++)
			blocks[nb++] = list[j].blkno;
		relid = RelidByRelfilenode(list[i].node.spcNode == MyDatabaseTableSpace ?
								   InvalidOid : list[i].node.spcNode,
								   list[i].node.relNode);
		if (OidIsValid(relid) && worker_serves_relid(relid))
		{
			CommitTransactionCommand();
			worker_repair_relation(relid, blocks, nb, 0);
			StartTransactionCommand();
		}
		i = j;
	}
	CommitTransactionCommand();
	pfree(blocks);
	pfree(list);
}

/*
 * Pass 2: every relation of a registered kind, block by block, in the
 * order of their oids, from the position pos (pool.c, "Repair sweeps"):
 * relations of a lower oid are done, and so are pos->relid's blocks
 * below pos->block (InvalidBlockNumber: all of them).  A relation at
 * whose position BLINKAM_SWEEP_MAX_DEATHS workers died in a row is
 * skipped, and said so in the log.  Returns false if it stopped because
 * the worker is asked to leave.
 */
static bool
worker_repair_sweep(BlinkamSweepPosition *pos, bool resumed)
{
	List	   *relids = NIL;
	Relation	classrel;
	TableScanDesc scan;
	HeapTuple	tup;
	ListCell   *lc;

	StartTransactionCommand();
	if (resumed)
		ereport(LOG,
				(errmsg("blinkam worker resumes the repair sweep of database \"%s\"",
						get_database_name(MyDatabaseId)),
				 !OidIsValid(pos->relid) ?
				 errdetail("It goes on from its first relation.") :
				 pos->block == InvalidBlockNumber ?
				 errdetail("It goes on after relation %u.", pos->relid) :
				 errdetail("It goes on from block %u of relation %u.",
						   pos->block, pos->relid)));
	if (pos->deaths >= BLINKAM_SWEEP_MAX_DEATHS)
	{
		if (!OidIsValid(pos->relid) || pos->block == InvalidBlockNumber)
		{
			/* not in a relation: listing them is what fails */
			ereport(LOG,
					(errmsg("blinkam worker gives up the repair sweep of database \"%s\"",
							get_database_name(MyDatabaseId)),
					 errdetail("%d workers in a row stopped while listing its relations.",
							   pos->deaths)));
			CommitTransactionCommand();
			return true;
		}
		ereport(LOG,
				(errmsg("blinkam worker skips relation %u in the repair sweep of database \"%s\"",
						pos->relid, get_database_name(MyDatabaseId)),
				 errdetail("%d workers in a row stopped sweeping it at block %u.",
						   pos->deaths, pos->block)));
		pos->block = InvalidBlockNumber;
		blinkam_worker_sweep_at(BLINKAM_SWEEP_FULL, pos->relid, pos->block);
	}

	PushActiveSnapshot(GetTransactionSnapshot());
	classrel = table_open(RelationRelationId, AccessShareLock);
	scan = table_beginscan_catalog(classrel, 0, NULL);
	while ((tup = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		Form_pg_class form = (Form_pg_class) GETSTRUCT(tup);

		if (form->relpersistence != RELPERSISTENCE_TEMP && worker_serves(form))
		{
			MemoryContext old = MemoryContextSwitchTo(WorkerContext);

			relids = lappend_oid(relids, form->oid);
			MemoryContextSwitchTo(old);
		}
	}
	table_endscan(scan);
	table_close(classrel, AccessShareLock);
	PopActiveSnapshot();
	CommitTransactionCommand();
	list_sort(relids, list_oid_cmp);

	foreach(lc, relids)
	{
		Oid			relid = lfirst_oid(lc);

		if (blinkam_worker_should_leave())
			return false;
		if (relid < pos->relid ||
			(relid == pos->relid && pos->block == InvalidBlockNumber))
			continue;			/* done by an earlier worker */
		worker_repair_relation(relid, NULL, 0,
							   relid == pos->relid ? pos->block : 0);
	}
	return !blinkam_worker_should_leave();
}

/*
 * The repair sweep of this database, from where it stands (pos): the pass
 * over buffered pages if it has not begun, then the full sweep.  A sweep
 * resumed after a worker that died or left on purpose goes on with the
 * full sweep, from its position: the full sweep reads every page the
 * buffered pass would have.  Its request goes when it is complete; a
 * sweep cut short by a request to leave stays requested, for the next
 * worker.
 */
static void
worker_repair(BlinkamSweepPosition *pos)
{
	bool		resumed = pos->pass != BLINKAM_SWEEP_NEW;

	sweep_working = true;
	if (pos->pass == BLINKAM_SWEEP_NEW)
	{
		blinkam_worker_sweep_at(BLINKAM_SWEEP_BUFFERED, InvalidOid, 0);
		worker_repair_buffered();
	}
	if (pos->pass != BLINKAM_SWEEP_FULL)
	{
		pos->relid = InvalidOid;
		pos->block = 0;
		pos->deaths = 0;
	}
	if (!blinkam_worker_should_leave())
	{
		blinkam_worker_sweep_at(BLINKAM_SWEEP_FULL, pos->relid, pos->block);
		if (worker_repair_sweep(pos, resumed))
			blinkam_worker_sweep_done();
	}
	sweep_working = false;
}

/* Does this database have any access method the workers serve? */
static bool
worker_database_has_kinds(void)
{
	for (int i = 0; i < nkinds; i++)
	{
		if (OidIsValid(get_am_oid(kinds[i]->amname, true)))
			return true;
	}
	return false;
}

static void
worker_exit_callback(int code, Datum arg)
{
	/* an exit on an error (FATAL, ERROR) has a non-zero code */
	blinkam_worker_detach(code != 0 && sweep_working);
}

void
blinkam_worker_main(Datum main_arg)
{
	Oid			dbid = DatumGetObjectId(main_arg);
	uint32		ticket;
	TimestampTz last_work;
	BlinkamSweepPosition pos;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(dbid, InvalidOid, 0);

	/* the launcher's mark for this start (launcher_dispatch) */
	memcpy(&ticket, MyBgworkerEntry->bgw_extra, sizeof(uint32));
	if (!blinkam_worker_attach(ticket))
		proc_exit(0);			/* another worker serves this database, or a
								 * command holds it */
	before_shmem_exit(worker_exit_callback, (Datum) 0);

	/* A database without blinkam has nothing for us: nothing to sweep. */
	StartTransactionCommand();
	if (!worker_database_has_kinds())
	{
		CommitTransactionCommand();
		if (blinkam_worker_sweep_due(&pos))
			blinkam_worker_sweep_done();
		proc_exit(0);
	}
	CommitTransactionCommand();
	blinkam_count(BLINKAM_COUNTER_WORKER_STARTS, 1);
	pgstat_report_activity(STATE_RUNNING, BLINKAM_WORKER_TYPE);

	WorkerContext = AllocSetContextCreate(TopMemoryContext, "blinkam worker",
										  ALLOCSET_DEFAULT_SIZES);
	last_work = GetCurrentTimestamp();
	for (;;)
	{
		bool		worked = false;

		MemoryContextReset(WorkerContext);

		CHECK_FOR_INTERRUPTS();
		/* a command needs the database to itself (DROP DATABASE, ...) */
		if (blinkam_worker_should_leave())
			break;
		worker_reload_config();

		if (blinkam_worker_sweep_due(&pos))
		{
			worker_repair(&pos);
			pgstat_report_activity(STATE_RUNNING, BLINKAM_WORKER_TYPE);
			worked = true;
			if (blinkam_worker_should_leave())
				break;
		}
		if (worker_serve_pools(0) > 0)
			worked = true;

		if (worked)
			last_work = GetCurrentTimestamp();
		else
		{
			/*
			 * Idle.  It leaves when another database waits for a worker
			 * (blinkam.max_workers) with work of its own, or with refills
			 * put off while this one has none (blinkam_workers_wanted);
			 * and after blinkam.worker_idle_timeout, unless it has a
			 * refill put off to try again and nobody waits.
			 */
			int			wanted = blinkam_workers_wanted();
			bool		put_off = blinkam_pool_refills_put_off();
			bool		idle_long = TimestampDifferenceExceeds(last_work,
															   GetCurrentTimestamp(),
															   blinkam_worker_idle_timeout);

			if (wanted == BLINKAM_WANTED_WORK ||
				(wanted == BLINKAM_WANTED_RETRY && (!put_off || idle_long)) ||
				(idle_long && !put_off))
				break;
		}

		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 1000L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
	proc_exit(0);
}
