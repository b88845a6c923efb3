/*-------------------------------------------------------------------------
 *
 * defer.c
 *	  Statement buffers: a backend's non-unique blink inserts (and, with
 *	  blinkam.defer_unique, unique ones), held back and added to each leaf
 *	  with one WAL record.
 *
 * A multi-row INSERT or COPY calls aminsert once per row.  For an index
 * whose keys grow (a time stamp) every call lands on the same leaf, and
 * each one costs a descent, an exclusive lock and a generic WAL record.
 * A backend may instead keep the tuples and add them later, sorted, as
 * long as nobody can tell the difference:
 *
 *   - Other backends cannot see our uncommitted rows, so they do not miss
 *     the entries -- except where they read the index with a non-MVCC
 *     snapshot on purpose.  Unique checks and exclusion constraints do:
 *     indexes behind an exclusion constraint are never buffered, and a
 *     unique index's entries only with their keys registered where every
 *     such read finds them (blinkam.defer_unique; pending.c, and
 *     "Pending unique entries" in blinkinsert.c).
 *   - Key comparisons run at the flush, not at the INSERT.  An index with
 *     a comparison function not written in C (an operator class in SQL or
 *     a procedural language) is never buffered: such a function runs
 *     queries, and an error it raises would come at the flush, where an
 *     EXCEPTION block around the INSERT cannot catch it
 *     (_blink_compares_in_c; sql/blink_limits).
 *   - Our own backend can see them: every blink scan (ambeginscan,
 *     amrescan), VACUUM and SQL tool of this extension flushes first, and
 *     so does every utility command before it starts (TRUNCATE, REINDEX,
 *     DROP must find nothing pending) and the commit (PRE_COMMIT and
 *     PRE_PREPARE).
 *   - Our parallel workers see our rows too: a plan that needs parallel
 *     mode flushes before it starts (ExecutorStart).
 *   - Tuples are buffered only while a statement runs between our
 *     ExecutorStart and ExecutorEnd, or a utility command inside our
 *     ProcessUtility hook.  Callers that run no executor (logical
 *     replication's apply worker, which also truncates outside
 *     ProcessUtility) insert directly.  And a flush that finds the
 *     index's storage replaced since its entries were taken drops them:
 *     the command that replaced it emptied the table or rebuilt the index
 *     from it; so does a build of the index in its own storage (a
 *     TRUNCATE of storage made in this transaction empties it in place:
 *     _blink_defer_discard).
 *   - VACUUM must never see a heap tuple as dead while its entry is still
 *     buffered: it would free the line pointer without removing the entry
 *     (it is not in the index yet), and a later flush would point the
 *     entry at whatever reuses the slot.  Our rows are dead to VACUUM
 *     before our commit only if a subtransaction that inserted them
 *     aborts, or if ON CONFLICT kills a speculative insertion.  So entries
 *     carry the subtransaction that made them and are discarded when it
 *     aborts (entries of a committed subtransaction pass to its parent),
 *     and nothing is buffered while an INSERT ... ON CONFLICT runs.
 *
 * Held to the commit (blinkam.defer_inserts = transaction, the default).
 * None of the points above is a statement's end, so the entries of one
 * statement may wait through the next ones: a transaction of ten INSERTs
 * into a time-stamp index adds its entries with one record, not ten.
 * Why holding them across statements is no more visible than within one:
 *   - Between our statements, as during one, other backends see none of
 *     our rows, and the commands of theirs that read or rebuild the whole
 *     index (CREATE INDEX [CONCURRENTLY], REINDEX [CONCURRENTLY], CLUSTER,
 *     VACUUM FULL, TRUNCATE) wait for the table and index locks our
 *     transaction holds to its end.
 *   - In this backend every reader flushes whatever statement runs it.  A
 *     scan begun before a later statement's inserts (a cursor, a WITH HOLD
 *     cursor run to its end at the commit) cannot see those rows: its
 *     snapshot's command id is older.  Deferred AFTER triggers run before
 *     PRE_COMMIT, their scans flushing as any.
 *   - VACUUM: a row of an earlier statement dies before our commit only
 *     as any row does, by the abort of its subtransaction (its entries
 *     go with it); rows our later statements delete or update stay in
 *     progress to every VACUUM until we end.  An ON CONFLICT statement
 *     buffers nothing of its own; what earlier statements buffered are
 *     rows it can only lock, update or leave, never kill.
 *   - SERIALIZABLE transactions buffer nothing (see below).  Other errors
 *     a flush can raise (a full disk) come at the COMMIT.
 *   - The buffer stays bounded: a backend holding 4096 tuples or 1 MB
 *     flushes, whatever the statement.
 *   - Nothing is buffered after the commit's flush: an insert that comes
 *     later still (another extension's pre-commit callback) goes in at
 *     once.
 * SERIALIZABLE transactions buffer nothing: their entries go to their
 * leaves at once, checked for the leaf's predicate locks under its lock,
 * as nbtree does.  A buffered entry's check would come at the flush, and
 * a check made late does not find what it would have found at once:
 * PostgreSQL summarizes old committed serializable transactions when its
 * table of them fills (SummarizeOldestCommittedSxact), and the SIREAD
 * locks of a summarized one stay in place but no longer flag a conflict
 * for a writer that comes later (CheckTargetForConflictsIn skips them: its
 * finishedBefore is invalid).  So a reader that read the leaf, committed
 * and was summarized between our INSERT and the flush was never found,
 * and write skew could commit where btree fails it (a helper's review,
 * reproduced with 400 short serializable transactions between the two).
 * Batch inserts skip SERIALIZABLE transactions for the same reason
 * (blinkam_batch_wait).
 *
 * blinkam.defer_inserts = statement also flushes at every statement's end
 * (ExecutorFinish, after its AFTER triggers, and ExecutorEnd) and after
 * every utility command (COPY); off buffers nothing.
 *
 * A flush sorts each index's entries and hands them to
 * _blink_insert_sorted, which reports each tuple as it lands; if the flush
 * fails half way, the tuples not yet in the index stay buffered (with
 * their subtransaction), so an error caught by a savepoint never loses
 * the entries of rows that live on.
 *
 * Everything here is backend-local; there is no shared state and no lock
 * beyond those the inserts take.
 *
 * src/index/defer.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/table.h"
#include "access/xact.h"
#include "executor/executor.h"
#include "nodes/plannodes.h"
#include "tcop/utility.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "common/counters.h"
#include "common/settings.h"
#include "index/blink.h"

/* Flush everything once a backend holds this many tuples or bytes. */
#define BLINK_DEFER_MAX_TUPLES	4096
#define BLINK_DEFER_MAX_BYTES	(1024 * 1024)

typedef struct DeferEntry
{
	IndexTuple	itup;
	SubTransactionId subid;		/* subtransaction that inserted the row */
	bool		registered;		/* a unique entry: its key is in pending.c */
	BlinkPendingKey pkey;		/* (if registered) the key it went in with */
} DeferEntry;

/* The pending tuples of one index */
typedef struct DeferBuffer
{
	Oid			indexoid;
	RelFileNode node;			/* the index's storage when they were taken */
	Oid			heapoid;
	int			n;
	int			cap;
	DeferEntry *entries;
	bool		unchanged;		/* an entry came with aminsert's indexUnchanged */
	bool		native;			/* its key comparisons are C (may buffer) */
} DeferBuffer;

static MemoryContext DeferContext = NULL;
static DeferBuffer *buffers = NULL;
static int	nbuffers = 0;
static int	maxbuffers = 0;
static int	pending_tuples = 0;
static Size pending_bytes = 0;

/* INSERT ... ON CONFLICT statements running (nothing is buffered then) */
static int	suspend_depth = 0;
static bool flushing = false;

/*
 * Our PRE_COMMIT (or PRE_PREPARE) flush is done: another extension's
 * pre-commit callback that runs after ours and inserts must not buffer,
 * since nothing would flush it.
 */
static bool committing = false;

/*
 * Statements running in this backend: executor runs between our
 * ExecutorStart and ExecutorEnd hooks, utility commands inside our
 * ProcessUtility hook.  Tuples are buffered only while one runs.
 */
static int	scope_depth = 0;

/*
 * The two depths as each open subtransaction found them: a subtransaction
 * that aborts skips the ExecutorEnd of the statements it was running, so
 * its abort puts the depths back.
 */
typedef struct DeferLevel
{
	SubTransactionId subid;
	int			scope_depth;
	int			suspend_depth;
} DeferLevel;

static DeferLevel *levels = NULL;
static int	nlevels = 0;
static int	maxlevels = 0;

static void _blink_defer_remove(DeferBuffer *b, bool *landed,
								SubTransactionId subid);
static DeferBuffer *_blink_defer_may(Relation rel, Relation heapRel,
									 IndexInfo *indexInfo);
static void _blink_defer_room(DeferBuffer *b, IndexTuple itup);
static void _blink_defer_append(DeferBuffer *b, IndexTuple itup,
								bool indexUnchanged, const BlinkPendingKey *pkey);

static ExecutorStart_hook_type prev_ExecutorStart = NULL;
static ExecutorFinish_hook_type prev_ExecutorFinish = NULL;
static ExecutorEnd_hook_type prev_ExecutorEnd = NULL;
static ProcessUtility_hook_type prev_ProcessUtility = NULL;

/* Forget every pending tuple (the transaction is over). */
static void
_blink_defer_reset(void)
{
	buffers = NULL;
	nbuffers = maxbuffers = 0;
	pending_tuples = 0;
	pending_bytes = 0;
	if (DeferContext)
		MemoryContextReset(DeferContext);
}

static DeferBuffer *
_blink_defer_buffer(Relation rel, Relation heapRel)
{
	DeferBuffer *b;

	for (int i = 0; i < nbuffers; i++)
	{
		if (buffers[i].indexoid == RelationGetRelid(rel))
			return &buffers[i];
	}
	if (nbuffers == maxbuffers)
	{
		int			newmax = maxbuffers ? maxbuffers * 2 : 4;

		buffers = buffers ?
			repalloc(buffers, sizeof(DeferBuffer) * newmax) :
			MemoryContextAlloc(DeferContext, sizeof(DeferBuffer) * newmax);
		maxbuffers = newmax;
	}
	b = &buffers[nbuffers++];
	b->indexoid = RelationGetRelid(rel);
	b->node = rel->rd_node;
	b->heapoid = RelationGetRelid(heapRel);
	b->n = 0;
	b->cap = 0;
	b->entries = NULL;
	b->unchanged = false;
	b->native = _blink_compares_in_c(rel);
	return b;
}

/*
 * aminsert's first stop: keep itup (a tuple for the non-unique index rel)
 * for a later flush if that is allowed here.  Returns true if it was
 * kept; false means the caller inserts it now.
 */
bool
_blink_defer_insert(Relation rel, Relation heapRel, IndexTuple itup,
					bool indexUnchanged, IndexInfo *indexInfo)
{
	DeferBuffer *b;

	if (rel->rd_index->indisunique)
		return false;
	b = _blink_defer_may(rel, heapRel, indexInfo);
	if (b == NULL)
		return false;
	_blink_defer_room(b, itup);
	_blink_defer_append(b, itup, indexUnchanged, NULL);
	_blink_defer_unique_kept();
	return true;
}

/*
 * May an entry for rel wait here now?  Returns its index's buffer (made
 * if new), or NULL.
 */
static DeferBuffer *
_blink_defer_may(Relation rel, Relation heapRel, IndexInfo *indexInfo)
{
	DeferBuffer *b;
	MemoryContext old;

	if (blinkam_defer_inserts == BLINKAM_DEFER_OFF || suspend_depth > 0 ||
		scope_depth == 0 || flushing || committing ||
		IsolationIsSerializable() ||
		(indexInfo && indexInfo->ii_ExclusionOps != NULL) ||
		!IsTransactionState())
		return NULL;

	if (DeferContext == NULL)
		DeferContext = AllocSetContextCreate(TopMemoryContext,
											 "blinkam statement buffers",
											 ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(DeferContext);
	b = _blink_defer_buffer(rel, heapRel);
	MemoryContextSwitchTo(old);
	if (!b->native)
		return NULL;
	if (!RelFileNodeEquals(b->node, rel->rd_node))
	{
		/* the storage was replaced meanwhile: see _blink_defer_flush_buffer */
		_blink_defer_remove(b, NULL, InvalidSubTransactionId);
		b->node = rel->rd_node;
	}
	return b;
}

/* Make room in b for one more entry, a copy of itup (memory only). */
static void
_blink_defer_room(DeferBuffer *b, IndexTuple itup)
{
	MemoryContext old = MemoryContextSwitchTo(DeferContext);

	if (b->n == b->cap)
	{
		int			cap = b->cap ? b->cap * 2 : 64;

		/* the new size only once it is there (an EXCEPTION block may go on) */
		b->entries = b->entries ?
			repalloc(b->entries, sizeof(DeferEntry) * cap) :
			palloc(sizeof(DeferEntry) * cap);
		b->cap = cap;
	}
	b->entries[b->n].itup = palloc(IndexTupleSize(itup));
	MemoryContextSwitchTo(old);
}

/*
 * Add the entry _blink_defer_room made room for (nothing here can fail:
 * pkey's key is in pending.c already, if given).
 */
static void
_blink_defer_append(DeferBuffer *b, IndexTuple itup, bool indexUnchanged,
					const BlinkPendingKey *pkey)
{
	DeferEntry *e = &b->entries[b->n];
	Size		sz = IndexTupleSize(itup);

	memcpy(e->itup, itup, sz);
	e->subid = GetCurrentSubTransactionId();
	e->registered = pkey != NULL;
	if (pkey)
		memcpy(&e->pkey, pkey, sizeof(BlinkPendingKey));
	b->n++;
	b->unchanged |= indexUnchanged;
	pending_tuples++;
	pending_bytes += sz;
	blinkam_count(BLINKAM_COUNTER_DEFERRED_INSERTS, 1);
}

static DeferBuffer *
_blink_defer_find(Relation rel)
{
	for (int i = 0; i < nbuffers; i++)
	{
		if (buffers[i].indexoid == RelationGetRelid(rel))
			return &buffers[i];
	}
	return NULL;
}

/*
 * The index is being built (ambuild) from its table as it is now: drop
 * what this backend holds for it.  Each held entry's row is either in
 * the build, which reads every row our transaction can have made, or
 * gone with the storage the build replaces.  The one case that reaches
 * here with entries held: a TRUNCATE whose BEFORE TRUNCATE trigger
 * inserted into a table whose storage this transaction had already made
 * -- PostgreSQL then empties that storage in place and rebuilds its
 * indexes in it, so the index keeps its relfilenode and the storage check
 * at the flush cannot tell; the entries pointed at emptied slots, which
 * later rows reuse (sql/blink_defer.sql).  Held unique keys are taken out
 * of pending.c with them.
 */
void
_blink_defer_discard(Relation rel)
{
	DeferBuffer *b = _blink_defer_find(rel);

	if (b == NULL || b->n == 0)
		return;
	_blink_defer_remove(b, NULL, InvalidSubTransactionId);
	b->node = rel->rd_node;
}

/*
 * A unique index's entry (see blinkinsert.c, "Pending unique entries";
 * the caller has seen blinkam.defer_unique on), before its check: may it
 * wait here, if the check passes?  Makes its
 * index's buffer ready (catalog lookups included), so that
 * _blink_defer_unique_keep, under the leaf's lock, has only memory to
 * take.
 */
bool
_blink_defer_unique_prepare(Relation rel, Relation heapRel, IndexInfo *indexInfo)
{
	if (!rel->rd_index->indisvalid || !rel->rd_index->indisready)
		return false;
	return _blink_defer_may(rel, heapRel, indexInfo) != NULL;
}

/*
 * The check has passed, under the lock of the key's first leaf, which the
 * caller still holds: keep itup, and enter its key in pending.c (as xid's
 * row), there and then.  Returns false, keeping nothing, if pending.c has
 * no room (the caller inserts the entry now).
 */
bool
_blink_defer_unique_keep(Relation rel, IndexTuple itup,
						 const BlinkPendingKey *pkey, TransactionId xid,
						 bool indexUnchanged)
{
	DeferBuffer *b = _blink_defer_find(rel);

	Assert(b != NULL && RelFileNodeEquals(b->node, rel->rd_node));
	_blink_defer_room(b, itup);
	if (!_blink_pending_enter(pkey, &itup->t_tid, xid))
	{
		pfree(b->entries[b->n].itup);
		return false;
	}
	_blink_defer_append(b, itup, indexUnchanged, pkey);
	return true;
}

/* An entry was kept and stays: flush if the buffers are full. */
void
_blink_defer_unique_kept(void)
{
	if (pending_tuples >= BLINK_DEFER_MAX_TUPLES ||
		pending_bytes >= BLINK_DEFER_MAX_BYTES)
		_blink_defer_flush();
}

/* qsort_arg comparator: full key order of the index in arg */
static int
_blink_defer_cmp(const void *a, const void *b, void *arg)
{
	return _blink_compare_tuples((Relation) arg,
								 ((const DeferEntry *) a)->itup,
								 ((const DeferEntry *) b)->itup);
}

/*
 * Remove from b the entries that are landed (if landed is given) or that
 * were made by subtransaction subid or a later one (its children).
 */
static void
_blink_defer_remove(DeferBuffer *b, bool *landed, SubTransactionId subid)
{
	int			kept = 0;

	for (int i = 0; i < b->n; i++)
	{
		DeferEntry *e = &b->entries[i];

		if (landed ? landed[i] : e->subid >= subid)
		{
			/* on its leaf now, or its row is gone: see pending.c */
			if (e->registered)
				_blink_pending_forget(&e->pkey, &e->itup->t_tid);
			pending_tuples--;
			pending_bytes -= IndexTupleSize(e->itup);
			pfree(e->itup);
		}
		else
			b->entries[kept++] = *e;
	}
	b->n = kept;
}

static void
_blink_defer_flush_buffer(DeferBuffer *b)
{
	Relation	heapRel;
	Relation	rel;
	IndexTuple *itups;
	bool	   *landed;

	/* Both are locked already (by the statement that inserted). */
	heapRel = table_open(b->heapoid, RowExclusiveLock);
	rel = index_open(b->indexoid, RowExclusiveLock);

	/*
	 * The index got new storage since the entries were taken (TRUNCATE,
	 * REINDEX, CLUSTER, VACUUM FULL): each of those either emptied the
	 * table or rebuilt the index from it, our rows included, so the
	 * entries are obsolete -- and would point into the new storage at
	 * rows that are not there.  Every such command run through
	 * ProcessUtility finds nothing pending (it flushes before); this is
	 * for those that are not (the logical replication apply worker's
	 * TRUNCATE, which buffering outside a statement scope also excludes).
	 */
	if (!RelFileNodeEquals(b->node, rel->rd_node))
	{
		_blink_defer_remove(b, NULL, InvalidSubTransactionId);
		index_close(rel, NoLock);
		table_close(heapRel, NoLock);
		return;
	}

	qsort_arg(b->entries, b->n, sizeof(DeferEntry), _blink_defer_cmp, rel);
	itups = palloc(sizeof(IndexTuple) * b->n);
	landed = palloc0(sizeof(bool) * b->n);
	for (int i = 0; i < b->n; i++)
		itups[i] = b->entries[i].itup;

	PG_TRY();
	{
		_blink_insert_sorted(rel, itups, b->n, landed, b->unchanged);
		/* tests: unique entries on their leaves, their keys in pending.c */
		if (rel->rd_index->indisunique)
			blinkam_debug_pause(BLINKAM_PAUSE_PENDING_LANDED);
	}
	PG_CATCH();
	{
		_blink_defer_remove(b, landed, InvalidSubTransactionId);
		PG_RE_THROW();
	}
	PG_END_TRY();
	_blink_defer_remove(b, landed, InvalidSubTransactionId);
	Assert(b->n == 0);
	b->unchanged = false;

	pfree(itups);
	pfree(landed);
	index_close(rel, NoLock);
	table_close(heapRel, NoLock);
}

/*
 * Add every pending tuple to its index.  Called at each point where this
 * backend may look at a blink index or the statement ends (see the top of
 * this file).  An error leaves the tuples that did not land pending.
 */
void
_blink_defer_flush(void)
{
	/*
	 * Never while a (sub)transaction aborts: its end discards what it must
	 * (the callbacks below), and nothing may be written on its behalf.
	 */
	if (pending_tuples == 0 || flushing || !IsTransactionState())
		return;

	flushing = true;
	PG_TRY();
	{
		bool		pushed = false;

		/*
		 * The comparison function of an operator class may be written in
		 * SQL or a PL, which plans and runs queries and needs an active
		 * snapshot.  The flush at PRE_COMMIT (or PRE_PREPARE), and the one
		 * before a utility command that runs without a snapshot (SET,
		 * LOCK, SHOW), have none: lend them the transaction's, as
		 * AfterTriggerFireDeferred does for the deferred triggers that run
		 * just before.  Some statement of this transaction buffered the
		 * entries, so its snapshot is taken already.  On an error the
		 * (sub)transaction's abort pops it.
		 */
		if (!ActiveSnapshotSet())
		{
			PushActiveSnapshot(GetTransactionSnapshot());
			pushed = true;
		}
		for (int i = 0; i < nbuffers; i++)
		{
			if (buffers[i].n > 0)
				_blink_defer_flush_buffer(&buffers[i]);
		}
		if (pushed)
			PopActiveSnapshot();
	}
	PG_FINALLY();
	{
		flushing = false;
	}
	PG_END_TRY();

	Assert(pending_tuples == 0);
	_blink_defer_reset();
}

/*
 * Drop the entries made by subtransaction subid and its children (which
 * have later ids than their parent).
 */
static void
_blink_defer_discard_sub(SubTransactionId subid)
{
	for (int i = 0; i < nbuffers; i++)
		_blink_defer_remove(&buffers[i], NULL, subid);
	if (pending_tuples == 0)
		_blink_defer_reset();
}

static void
_blink_defer_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			_blink_defer_flush();
			committing = true;
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PREPARE:
			Assert(pending_tuples == 0);
			/* FALLTHROUGH */
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
			for (int i = 0; i < nbuffers; i++)
				_blink_defer_remove(&buffers[i], NULL, InvalidSubTransactionId);
			Assert(_blink_pending_mine() == 0);
			_blink_defer_reset();
			suspend_depth = 0;
			scope_depth = 0;
			nlevels = 0;
			flushing = false;
			committing = false;
			break;
		default:
			break;
	}
}

static void
_blink_defer_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
							  SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_START_SUB)
	{
		if (nlevels == maxlevels)
		{
			int			max = maxlevels ? maxlevels * 2 : 8;

			levels = levels ?
				repalloc(levels, sizeof(DeferLevel) * max) :
				MemoryContextAlloc(TopMemoryContext, sizeof(DeferLevel) * max);
			maxlevels = max;
		}
		levels[nlevels].subid = mySubid;
		levels[nlevels].scope_depth = scope_depth;
		levels[nlevels].suspend_depth = suspend_depth;
		nlevels++;
		return;
	}
	if (event == SUBXACT_EVENT_COMMIT_SUB || event == SUBXACT_EVENT_ABORT_SUB)
	{
		/* subtransactions end innermost first */
		while (nlevels > 0 && levels[nlevels - 1].subid >= mySubid)
		{
			nlevels--;
			if (event == SUBXACT_EVENT_ABORT_SUB && levels[nlevels].subid == mySubid)
			{
				scope_depth = levels[nlevels].scope_depth;
				suspend_depth = levels[nlevels].suspend_depth;
			}
		}
	}

	if (pending_tuples == 0)
		return;
	if (event == SUBXACT_EVENT_ABORT_SUB)
		_blink_defer_discard_sub(mySubid);
	else if (event == SUBXACT_EVENT_COMMIT_SUB)
	{
		for (int i = 0; i < nbuffers; i++)
		{
			for (int j = 0; j < buffers[i].n; j++)
			{
				if (buffers[i].entries[j].subid == mySubid)
					buffers[i].entries[j].subid = parentSubid;
			}
		}
	}
}

/* Does the statement run an INSERT ... ON CONFLICT (at its top or in a WITH)? */
static bool
_blink_plan_has_onconflict(PlannedStmt *stmt)
{
	ListCell   *lc;

	if (stmt->commandType == CMD_UTILITY || stmt->planTree == NULL)
		return false;
	if (IsA(stmt->planTree, ModifyTable) &&
		((ModifyTable *) stmt->planTree)->onConflictAction != ONCONFLICT_NONE)
		return true;
	foreach(lc, stmt->subplans)
	{
		Plan	   *plan = (Plan *) lfirst(lc);

		if (plan && IsA(plan, ModifyTable) &&
			((ModifyTable *) plan)->onConflictAction != ONCONFLICT_NONE)
			return true;
	}
	return false;
}

static void
_blink_defer_ExecutorStart(QueryDesc *queryDesc, int eflags)
{
	/*
	 * A plan that may start parallel workers: they read the index from
	 * their own processes and must find every entry of rows this
	 * transaction wrote.  (An AFTER trigger's query runs while the
	 * statement that fired it still buffers.)
	 */
	if (queryDesc->plannedstmt->parallelModeNeeded)
		_blink_defer_flush();

	/*
	 * Both counts go up before the statement starts and down in
	 * ExecutorEnd; a statement that fails in between leaves them up until
	 * its (sub)transaction ends, which puts them back.
	 */
	if (_blink_plan_has_onconflict(queryDesc->plannedstmt))
		suspend_depth++;
	scope_depth++;
	if (prev_ExecutorStart)
		prev_ExecutorStart(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
}

static void
_blink_defer_ExecutorFinish(QueryDesc *queryDesc)
{
	/* AFTER triggers and WITH's data-modifying parts run in here. */
	if (prev_ExecutorFinish)
		prev_ExecutorFinish(queryDesc);
	else
		standard_ExecutorFinish(queryDesc);
	if (blinkam_defer_inserts == BLINKAM_DEFER_STATEMENT)
		_blink_defer_flush();
}

static void
_blink_defer_ExecutorEnd(QueryDesc *queryDesc)
{
	/* held to the commit unless set otherwise (see the top of this file) */
	if (blinkam_defer_inserts == BLINKAM_DEFER_STATEMENT)
		_blink_defer_flush();
	if (suspend_depth > 0 && _blink_plan_has_onconflict(queryDesc->plannedstmt))
		suspend_depth--;
	if (scope_depth > 0)
		scope_depth--;
	if (prev_ExecutorEnd)
		prev_ExecutorEnd(queryDesc);
	else
		standard_ExecutorEnd(queryDesc);
}

static void
_blink_defer_ProcessUtility(PlannedStmt *pstmt, const char *queryString,
							bool readOnlyTree, ProcessUtilityContext context,
							ParamListInfo params, QueryEnvironment *queryEnv,
							DestReceiver *dest, QueryCompletion *qc)
{
	bool		txn = IsA(pstmt->utilityStmt, TransactionStmt);

	/* Foreign keys PostgreSQL would back with a unique blink index. */
	_blink_fkcheck(pstmt->utilityStmt);

	/* COMMIT flushes at PRE_COMMIT; ROLLBACK discards. */
	if (!txn)
		_blink_defer_flush();
	scope_depth++;
	PG_TRY();
	{
		(prev_ProcessUtility ? prev_ProcessUtility : standard_ProcessUtility)
			(pstmt, queryString, readOnlyTree, context, params, queryEnv,
			 dest, qc);
	}
	PG_FINALLY();
	{
		/* (a COMMIT or ROLLBACK in here has already reset it) */
		if (scope_depth > 0)
			scope_depth--;
	}
	PG_END_TRY();
	if (!txn && blinkam_defer_inserts == BLINKAM_DEFER_STATEMENT)
		_blink_defer_flush();
}

/* From _PG_init. */
void
_blink_defer_init(void)
{
	prev_ExecutorStart = ExecutorStart_hook;
	ExecutorStart_hook = _blink_defer_ExecutorStart;
	prev_ExecutorFinish = ExecutorFinish_hook;
	ExecutorFinish_hook = _blink_defer_ExecutorFinish;
	prev_ExecutorEnd = ExecutorEnd_hook;
	ExecutorEnd_hook = _blink_defer_ExecutorEnd;
	prev_ProcessUtility = ProcessUtility_hook;
	ProcessUtility_hook = _blink_defer_ProcessUtility;
	RegisterXactCallback(_blink_defer_xact_callback, NULL);
	RegisterSubXactCallback(_blink_defer_subxact_callback, NULL);
}
