/*-------------------------------------------------------------------------
 *
 * blinkheap_vacuum.c
 *	  VACUUM of blinkheap tables: removing dead tuples, index cleanup,
 *	  freezing, relfrozenxid/relminmxid, free space map, truncation.
 *
 * Pass 1, block by block, under a cleanup lock (an exclusive lock with no
 * other pin: on a primary, scans and slots read tuples through pins
 * without a lock, so only then may tuples move; a standby replays the
 * record under an exclusive lock only, so readers there copy what they
 * read under their share lock, see _bh_store_tuple):
 *
 *   - every tuple is judged against OldestXmin.  A DEAD tuple loses its
 *     storage and its line pointer becomes LP_DEAD -- or LP_UNUSED at once
 *     when the table has no index; an existing LP_DEAD line pointer (left
 *     by a VACUUM without index cleanup) is collected again, or set
 *     LP_UNUSED at once when the table has no index (any more);
 *   - every tuple that stays is offered to heap_prepare_freeze_tuple with
 *     FreezeLimit / MultiXactCutoff, which also lowers the new
 *     relfrozenxid / relminmxid to the oldest xid / multi that stays;
 *   - a tuple whose inserter committed gets HEAP_XMIN_COMMITTED, so that
 *     later readers need not ask the commit log (the record is in WAL after
 *     the inserter's commit record, so the hint cannot survive a crash that
 *     loses the commit);
 *   - if anything changed, a conflict-only record first cancels the
 *     standby queries that could still see a removed tuple (the newest
 *     removed xmax) or see a frozen one as not inserted (FreezeLimit - 1),
 *     as heap's prune and freeze records do (blinkam_log_conflict);
 *   - then ONE generic WAL record carries the page: dead
 *     line pointers, the compaction (PageRepairFragmentation), the hint
 *     bits and the frozen headers (heap_execute_freeze_tuple applies a
 *     freeze plan to the page copy; it writes nothing itself).  Hint bits
 *     set here are in the record, so a standby has them too (see
 *     blinkheap_visibility.c on hint bits).
 *
 * A block whose cleanup lock is not free at once is read under a share
 * lock instead, by every VACUUM: its tuples are counted, its LP_DEAD TIDs
 * collected, the new relfrozenxid / relminmxid lowered to what stays on
 * it, and pruning and hints left for a later VACUUM -- as heap's
 * lazy_scan_noprune.  Only an aggressive VACUUM (freeze_table_age
 * reached, FREEZE, DISABLE_PAGE_SKIPPING, wraparound), which must leave
 * relfrozenxid past FreezeLimit, waits for the pin, and only for a block
 * with an xid or multi older than FreezeLimit / MultiXactCutoff; a plain
 * VACUUM accepts an older relfrozenxid instead.  (Skipping the block, as
 * a plain VACUUM did, kept relfrozenxid where it was and its LP_DEAD line
 * pointers and their index entries until the next VACUUM.)  Waiting for
 * every pinned block could deadlock
 * undetected: a cursor's session that holds the pin and then asks for a
 * lock conflicting with ours (LOCK TABLE) would wait for us while we wait
 * for its pin, and the deadlock detector does not see pin waits.
 *
 * The TIDs of LP_DEAD line pointers go to dead_items (in TID order: blocks
 * are visited in order).  When it is full, and at the end: every index's
 * ambulkdelete removes the entries pointing at them, and only then does
 * pass 2 turn them LP_UNUSED (an exclusive lock is enough: nothing moves),
 * one record per page.  So a line pointer an index may still point to is
 * never reused: it stays LP_DEAD until every index has forgotten it, and
 * inserts reuse only LP_UNUSED ones.  With index_cleanup off, LP_DEAD line
 * pointers stay for a later VACUUM, and pass 1 records a page's free space
 * at once (as it does for a page with nothing for pass 2): no pass 2 comes
 * to record it, and the space of the tuples removed must reach the free
 * space map or inserts would extend the table instead of reusing it.
 *
 * Then: amvacuumcleanup of every index, the free space map, truncation of
 * empty pages at the end (only with a conditional AccessExclusiveLock,
 * rechecked under it), vac_update_relstats (relpages, reltuples, and
 * relfrozenxid / relminmxid when every block was scanned) and the
 * statistics collector (n_live_tup, n_dead_tup).  There is no visibility
 * map: index-only scans always visit the table.
 *
 * src/table/blinkheap_vacuum.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam_xlog.h"
#include "access/multixact.h"
#include "access/transam.h"
#include "catalog/storage.h"
#include "commands/dbcommands.h"
#include "commands/progress.h"
#include "commands/vacuum.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/autovacuum.h"
#include "storage/bufmgr.h"
#include "storage/freespace.h"
#include "storage/lmgr.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/pg_rusage.h"

#include "common/counters.h"
#include "common/gxlog.h"
#include "common/pool.h"
#include "common/settings.h"
#include "table/blinkheap.h"

typedef struct BhVacState
{
	Relation	rel;
	BufferAccessStrategy bstrategy;
	int			nindexes;
	Relation   *indrels;
	IndexBulkDeleteResult **istats;
	bool		do_index_cleanup;
	bool		failsafe;		/* the wraparound failsafe has triggered */
	int			elevel;			/* INFO with VERBOSE, else DEBUG2 */

	/* horizons */
	TransactionId OldestXmin;
	TransactionId FreezeLimit;
	MultiXactId MultiXactCutoff;
	TransactionId NewRelfrozenXid;	/* oldest xid that stays */
	MultiXactId NewRelminMxid;	/* oldest multi that stays */

	VacDeadItems *dead_items;

	/* counts */
	BlockNumber rel_pages;
	BlockNumber scanned_pages;
	BlockNumber nonempty_pages; /* 1 + last block with a used line pointer */
	double		live_tuples;
	double		recently_dead_tuples;
	double		missed_dead_tuples; /* DEAD, left on pages not cleanup-locked */
	double		removed_tuples;
	double		frozen_tuples;
	int			num_index_scans;
} BhVacState;

/* Free space of a page for the free space map. */
static Size
_bh_vac_free_space(Page page)
{
	return _bh_page_free_space(page);
}

/*
 * Add the TIDs (blkno, offs[0..n-1]) of LP_DEAD line pointers, in offset
 * order, to dead_items for the index pass (the caller made room for a
 * page's worth).
 */
static void
_bh_vac_remember_dead(BhVacState *vs, BlockNumber blkno,
					  const OffsetNumber *offs, int n)
{
	VacDeadItems *di = vs->dead_items;

	for (int i = 0; i < n; i++)
	{
		Assert(di->num_items < di->max_items);
		ItemPointerSet(&di->items[di->num_items], blkno, offs[i]);
		di->num_items++;		/* not in the macro: it evaluates it twice */
	}
}

/*
 * Pass 1 on one block (pinned, cleanup-locked by the caller, who unlocks
 * and unpins it afterwards).  Returns true if the page still has a used
 * line pointer.  If an index pass follows (do_index_cleanup), adds the
 * page's LP_DEAD TIDs to dead_items (the caller made room for a page's
 * worth) and sets *has_dead when there are any: pass 2 then records the
 * page's free space.
 */
static bool
_bh_vac_prune_page(BhVacState *vs, Buffer buf, bool *has_dead)
{
	Relation	rel = vs->rel;
	BlockNumber blkno = BufferGetBlockNumber(buf);
	Page		page = BufferGetPage(buf);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	OffsetNumber deadoffs[MaxHeapTuplesPerPage];
	int			ndead = 0;		/* DEAD tuples to remove now */
	OffsetNumber olddead[MaxHeapTuplesPerPage];
	int			nolddead = 0;	/* LP_DEAD already */
	bool		free_old;		/* set those LP_UNUSED now? */
	xl_heap_freeze_tuple *frz;
	OffsetNumber frzoffs[MaxHeapTuplesPerPage];
	int			nfrz = 0;
	OffsetNumber hintoffs[MaxHeapTuplesPerPage];
	int			nhint = 0;
	bool		used = false;
	TransactionId conflict = InvalidTransactionId;

	frz = palloc(sizeof(xl_heap_freeze_tuple) * MaxHeapTuplesPerPage);
	*has_dead = false;

	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off = OffsetNumberNext(off))
	{
		ItemId		lp = PageGetItemId(page, off);
		HeapTupleData tup;
		HTSV_Result res;
		bool		totally_frozen;

		if (!ItemIdIsUsed(lp))
			continue;
		if (ItemIdIsRedirected(lp))
			_bh_corrupted(rel, blkno, off, "redirect line pointer (blinkheap has no HOT chains)");
		if (ItemIdIsDead(lp))
		{
			olddead[nolddead++] = off;
			continue;
		}
		if (!_bh_get_tuple(rel, buf, off, &tup))
			continue;

		res = _bh_satisfies_vacuum(&tup, vs->OldestXmin);
		switch (res)
		{
			case HEAPTUPLE_DEAD:
				deadoffs[ndead++] = off;
				vs->removed_tuples++;
				HeapTupleHeaderAdvanceLatestRemovedXid(tup.t_data, &conflict);
				continue;
			case HEAPTUPLE_LIVE:
				vs->live_tuples++;
				break;
			case HEAPTUPLE_RECENTLY_DEAD:
				vs->recently_dead_tuples++;
				break;
			case HEAPTUPLE_INSERT_IN_PROGRESS:
				break;
			case HEAPTUPLE_DELETE_IN_PROGRESS:
				/* counted live, as heap does: the deleter may abort */
				vs->live_tuples++;
				break;
		}

		/*
		 * LIVE, RECENTLY_DEAD and DELETE_IN_PROGRESS all mean the inserter
		 * committed (VACUUM inserts nothing, so the tuple is not its own):
		 * remember that in the tuple, so that readers skip the commit log.
		 */
		if (res != HEAPTUPLE_INSERT_IN_PROGRESS &&
			!HeapTupleHeaderXminCommitted(tup.t_data))
			hintoffs[nhint++] = off;

		/* a tuple that stays: does it need freezing? */
		if (heap_prepare_freeze_tuple(tup.t_data,
									  rel->rd_rel->relfrozenxid,
									  rel->rd_rel->relminmxid,
									  vs->FreezeLimit, vs->MultiXactCutoff,
									  &frz[nfrz], &totally_frozen,
									  &vs->NewRelfrozenXid, &vs->NewRelminMxid))
			frzoffs[nfrz++] = off;
	}

	/*
	 * With no index, nothing points at an LP_DEAD line pointer left by an
	 * earlier VACUUM without index cleanup (or by one that ran before the
	 * last index was dropped): no index pass will ever come for it, so it
	 * is freed here.  Our ShareUpdateExclusiveLock keeps indexes from
	 * being built meanwhile.
	 */
	free_old = vs->nindexes == 0 && nolddead > 0;

	if (ndead > 0 || nfrz > 0 || nhint > 0 || free_old)
	{
		BlinkamXLogState *state;
		Page		copy;

		/*
		 * Standby queries that could still see a removed tuple, or see a
		 * frozen one as not yet inserted, are cancelled first: the freeze
		 * horizon is heap's (every xid before FreezeLimit).
		 */
		if (nfrz > 0)
		{
			TransactionId frozen = vs->FreezeLimit;

			TransactionIdRetreat(frozen);
			if (!TransactionIdIsValid(conflict) ||
				TransactionIdFollows(frozen, conflict))
				conflict = frozen;
		}
		blinkam_log_conflict(rel, blkno, conflict);

		state = blinkam_xlog_start(rel);
		copy = blinkam_xlog_register(state, buf, 0);

		/* hint bits, in this record: a standby gets them too */
		for (int i = 0; i < nhint; i++)
		{
			HeapTupleHeader htup = (HeapTupleHeader)
			PageGetItem(copy, PageGetItemId(copy, hintoffs[i]));

			htup->t_infomask |= HEAP_XMIN_COMMITTED;
		}
		/* freezing rewrites infomask from the plan: after the hints */
		for (int i = 0; i < nfrz; i++)
		{
			HeapTupleHeader htup = (HeapTupleHeader)
			PageGetItem(copy, PageGetItemId(copy, frzoffs[i]));

			heap_execute_freeze_tuple(htup, &frz[i]);
		}
		for (int i = 0; i < ndead; i++)
		{
			ItemId		lp = PageGetItemId(copy, deadoffs[i]);

			/* with no index nothing can point at it: free it at once */
			if (vs->nindexes == 0)
				ItemIdSetUnused(lp);
			else
				ItemIdSetDead(lp);
		}
		for (int i = 0; free_old && i < nolddead; i++)
			ItemIdSetUnused(PageGetItemId(copy, olddead[i]));

		/*
		 * compacts the tuples, cuts trailing unused line pointers and sets
		 * the page's has-free-line-pointers hint
		 */
		if (ndead > 0 || free_old)
			PageRepairFragmentation(copy);
		blinkam_xlog_finish(state);
		vs->frozen_tuples += nfrz;
	}
	pfree(frz);

	/*
	 * The TIDs indexes must forget before pass 2.  Without index cleanup
	 * the LP_DEAD line pointers stay for a later VACUUM and are not
	 * collected: no pass 2 would come for them, and the caller records
	 * the page's free space at once.
	 */
	if (vs->do_index_cleanup)
	{
		OffsetNumber all[MaxHeapTuplesPerPage];
		int			nall = 0;
		int			i = 0,
					j = 0;

		/* merge the two sorted offset lists */
		while (i < nolddead || j < ndead)
		{
			if (j >= ndead || (i < nolddead && olddead[i] < deadoffs[j]))
				all[nall++] = olddead[i++];
			else
				all[nall++] = deadoffs[j++];
		}
		_bh_vac_remember_dead(vs, blkno, all, nall);
		*has_dead = nall > 0;
	}

	/* is any line pointer still in use? */
	maxoff = PageGetMaxOffsetNumber(page);
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff && !used; off = OffsetNumberNext(off))
	{
		ItemId		lp = PageGetItemId(page, off);

		/* pass 2 frees the LP_DEAD ones collected above */
		used = ItemIdIsUsed(lp) && !(ItemIdIsDead(lp) && vs->do_index_cleanup);
	}
	return used;
}

/*
 * Pass 1 on a block whose cleanup lock VACUUM could not have at once: buf
 * is pinned and share-locked.  Someone else's pin may be a
 * scan's that reads tuples without a lock, so nothing may move and no
 * record may be written; but the block must still be seen, or relfrozenxid
 * could not advance.  If no xid or multi on the page precedes FreezeLimit
 * or MultiXactCutoff (heap_tuple_would_freeze), nothing here must change
 * for relfrozenxid's sake: the tuples are counted, the page's oldest xid
 * and multi lower NewRelfrozenXid and NewRelminMxid (they stay unfrozen),
 * existing LP_DEAD TIDs go to dead_items as in _bh_vac_prune_page (pass 2
 * needs only an exclusive lock), and DEAD tuples are left for a later
 * VACUUM (missed_dead_tuples), as are LP_DEAD line pointers of a table
 * without index.  Returns true then, with *used and *has_dead as
 * _bh_vac_prune_page sets them; the lock and pin are still held.
 *
 * A plain VACUUM (not aggressive) goes on past a tuple it would freeze:
 * the tuple's xid lowers NewRelfrozenXid instead.  An aggressive one
 * returns false, having changed nothing in vs: the caller must then wait
 * for the cleanup lock and prune (and freeze) the page.
 * Waiting only then matters: the pin may belong to a session that will
 * wait for a heavyweight lock we hold (a cursor's session running LOCK
 * TABLE), and the deadlock detector does not see buffer pin waits.  This
 * is heap's lazy_scan_noprune.
 */
static bool
_bh_vac_noprune_page(BhVacState *vs, Buffer buf, bool aggressive,
					 bool *used, bool *has_dead)
{
	Relation	rel = vs->rel;
	BlockNumber blkno = BufferGetBlockNumber(buf);
	Page		page = BufferGetPage(buf);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	OffsetNumber olddead[MaxHeapTuplesPerPage];
	int			nolddead = 0;
	TransactionId NewRelfrozenXid = vs->NewRelfrozenXid;
	MultiXactId NewRelminMxid = vs->NewRelminMxid;
	double		live = 0,
				recently_dead = 0,
				missed = 0;

	*used = false;
	*has_dead = false;
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off = OffsetNumberNext(off))
	{
		ItemId		lp = PageGetItemId(page, off);
		HeapTupleData tup;

		if (!ItemIdIsUsed(lp))
			continue;
		if (ItemIdIsRedirected(lp))
			_bh_corrupted(rel, blkno, off, "redirect line pointer (blinkheap has no HOT chains)");
		if (ItemIdIsDead(lp))
		{
			/* pass 2 frees it if collected */
			if (!vs->do_index_cleanup)
				*used = true;
			olddead[nolddead++] = off;
			continue;
		}
		*used = true;
		if (!_bh_get_tuple(rel, buf, off, &tup))
			continue;

		/* the page's oldest xid and multi, from tuples that stay */
		if (heap_tuple_would_freeze(tup.t_data, vs->FreezeLimit,
									vs->MultiXactCutoff,
									&NewRelfrozenXid, &NewRelminMxid) &&
			aggressive)
			return false;

		switch (_bh_satisfies_vacuum(&tup, vs->OldestXmin))
		{
			case HEAPTUPLE_DEAD:
				/* removing it would move tuples: a later VACUUM will */
				missed++;
				break;
			case HEAPTUPLE_LIVE:
			case HEAPTUPLE_DELETE_IN_PROGRESS:
				live++;
				break;
			case HEAPTUPLE_RECENTLY_DEAD:
				recently_dead++;
				break;
			case HEAPTUPLE_INSERT_IN_PROGRESS:
				break;
		}
	}

	/* the page can wait for its pruning and hints: keep what it holds */
	vs->NewRelfrozenXid = NewRelfrozenXid;
	vs->NewRelminMxid = NewRelminMxid;
	vs->live_tuples += live;
	vs->recently_dead_tuples += recently_dead;
	vs->missed_dead_tuples += missed;
	if (vs->do_index_cleanup)
	{
		_bh_vac_remember_dead(vs, blkno, olddead, nolddead);
		*has_dead = nolddead > 0;
	}
	else if (vs->nindexes == 0)
		vs->missed_dead_tuples += nolddead;
	return true;
}

/*
 * Pass 2 for the pages in dead_items: every index has forgotten these
 * TIDs, so their LP_DEAD line pointers become LP_UNUSED.  One record per
 * page, under an exclusive lock (nothing moves).
 */
static void
_bh_vac_unused_pages(BhVacState *vs)
{
	VacDeadItems *di = vs->dead_items;
	int			i = 0;

	while (i < di->num_items)
	{
		BlockNumber blkno = ItemPointerGetBlockNumber(&di->items[i]);
		Buffer		buf;
		BlinkamXLogState *state;
		Page		copy;
		Size		freespace;

		vacuum_delay_point();
		buf = ReadBufferExtended(vs->rel, MAIN_FORKNUM, blkno, RBM_NORMAL,
								 vs->bstrategy);
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		_bh_check_page(vs->rel, buf);
		state = blinkam_xlog_start(vs->rel);
		copy = blinkam_xlog_register(state, buf, 0);
		for (; i < di->num_items && ItemPointerGetBlockNumber(&di->items[i]) == blkno; i++)
		{
			OffsetNumber off = ItemPointerGetOffsetNumber(&di->items[i]);
			ItemId		lp = PageGetItemId(copy, off);

			if (off > PageGetMaxOffsetNumber(copy) || !ItemIdIsDead(lp))
				_bh_corrupted(vs->rel, blkno, off,
							  "a line pointer VACUUM marked dead is no longer dead");
			ItemIdSetUnused(lp);
		}
		/* at least one is unused now: cut the trailing ones, set the hint */
		PageTruncateLinePointerArray(copy);
		freespace = _bh_vac_free_space(copy);
		blinkam_xlog_finish(state);
		UnlockReleaseBuffer(buf);
		RecordPageWithFreeSpace(vs->rel, blkno, freespace);
	}
	pgstat_progress_update_param(PROGRESS_VACUUM_HEAP_BLKS_VACUUMED,
								 vs->scanned_pages);
}

/* A truncation looks for waiters behind its lock after this many pages */
#define BH_TRUNCATE_CHECK_PAGES		32

/* The failsafe is looked at again after this many pages (4 GB) */
#define BH_FAILSAFE_EVERY_PAGES \
	((BlockNumber) (((uint64) 4 * 1024 * 1024 * 1024) / BLCKSZ))

/*
 * The wraparound failsafe, as heap's VACUUM has it: once the table's
 * relfrozenxid or relminmxid is older than vacuum_failsafe_age or
 * vacuum_multixact_failsafe_age, what is left of this VACUUM only
 * freezes and advances them -- no index pass, no index cleanup, no
 * truncation, no cost delay -- so that the table gets out of danger as
 * fast as it can.  Dead TIDs already collected stay LP_DEAD line pointers
 * for a later VACUUM (nothing frees a line pointer an index may still
 * point at), and pages counted as emptied by a pass 2 that no longer
 * comes are not truncated.  True once triggered (warned once).
 */
static bool
_bh_vac_failsafe(BhVacState *vs)
{
	if (vs->failsafe)
		return true;
	if (!vacuum_xid_failsafe_check(vs->rel->rd_rel->relfrozenxid,
								   vs->rel->rd_rel->relminmxid))
		return false;
	vs->failsafe = true;
	vs->do_index_cleanup = false;
	VacuumCostActive = false;
	VacuumCostBalance = 0;
	ereport(WARNING,
			(errmsg("bypassing nonessential maintenance of blinkheap table \"%s.%s.%s\" as a failsafe after %d index scans",
					get_database_name(MyDatabaseId),
					get_namespace_name(RelationGetNamespace(vs->rel)),
					RelationGetRelationName(vs->rel), vs->num_index_scans),
			 errdetail("The table's relfrozenxid or relminmxid is too far in the past."),
			 errhint("Consider increasing configuration parameter \"maintenance_work_mem\" or \"autovacuum_work_mem\".\n"
					 "You might also need to consider other ways for VACUUM to keep up with the allocation of transaction IDs.")));
	return true;
}

/* Index pass and pass 2 for what dead_items holds; then empty it. */
static void
_bh_vac_flush(BhVacState *vs)
{
	if (vs->dead_items->num_items == 0)
		return;
	if (vs->do_index_cleanup && !_bh_vac_failsafe(vs))
	{
		pgstat_progress_update_param(PROGRESS_VACUUM_PHASE,
									 PROGRESS_VACUUM_PHASE_VACUUM_INDEX);
		for (int i = 0; i < vs->nindexes; i++)
		{
			IndexVacuumInfo ivinfo;

			ivinfo.index = vs->indrels[i];
			ivinfo.analyze_only = false;
			ivinfo.report_progress = false;
			ivinfo.estimated_count = true;
			ivinfo.message_level = DEBUG2;
			ivinfo.num_heap_tuples = vs->rel->rd_rel->reltuples;
			ivinfo.strategy = vs->bstrategy;
			vs->istats[i] = vac_bulkdel_one_index(&ivinfo, vs->istats[i],
												  vs->dead_items);
		}
		vs->num_index_scans++;
		pgstat_progress_update_param(PROGRESS_VACUUM_NUM_INDEX_VACUUMS,
									 vs->num_index_scans);
		pgstat_progress_update_param(PROGRESS_VACUUM_PHASE,
									 PROGRESS_VACUUM_PHASE_VACUUM_HEAP);
		_bh_vac_unused_pages(vs);
		pgstat_progress_update_param(PROGRESS_VACUUM_PHASE,
									 PROGRESS_VACUUM_PHASE_SCAN_HEAP);
	}
	vs->dead_items->num_items = 0;
}

/* Is block blkno empty: a zero page, or no used line pointer? */
static bool
_bh_vac_page_empty(BhVacState *vs, BlockNumber blkno)
{
	Buffer		buf = ReadBufferExtended(vs->rel, MAIN_FORKNUM, blkno,
										 RBM_NORMAL, vs->bstrategy);
	Page		page;
	bool		empty = true;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	if (!PageIsNew(page))
	{
		OffsetNumber maxoff = PageGetMaxOffsetNumber(page);

		for (OffsetNumber off = FirstOffsetNumber; off <= maxoff && empty;
			 off = OffsetNumberNext(off))
			empty = !ItemIdIsUsed(PageGetItemId(page, off));
	}
	UnlockReleaseBuffer(buf);
	return empty;
}

/*
 * Give the empty pages at the end back to the file system, if an
 * AccessExclusiveLock can be had at once (VACUUM must not queue behind
 * readers and stall everyone queued behind it).  Under the
 * lock nobody can add a tuple, so the pages found empty stay empty.
 */
static void
_bh_vac_truncate(BhVacState *vs)
{
	BlockNumber nblocks;
	BlockNumber newblocks;

	/*
	 * Only if the lock is free at once.  (Asking again every 50 ms for up
	 * to 5 s, as heap's VACUUM does, was tried and taken back: heap tries
	 * only when at least 1,000 pages or a sixteenth of the table could go,
	 * while a pooled blinkheap table always ends in the pool's zero pages;
	 * on a busy table every VACUUM then waited the whole 5 s, and
	 * t/019's workload, which runs VACUUM among its writers, collapsed.)
	 */
	if (!ConditionalLockRelation(vs->rel, AccessExclusiveLock))
		return;
	nblocks = RelationGetNumberOfBlocks(vs->rel);
	newblocks = nblocks;
	while (newblocks > vs->nonempty_pages &&
		   _bh_vac_page_empty(vs, newblocks - 1))
	{
		CHECK_FOR_INTERRUPTS();
		newblocks--;
		/* tests: the lock held, the scan begun; a reader queues behind */
		if (newblocks == nblocks - 1)
			blinkam_debug_pause(BLINKAM_PAUSE_HEAP_TRUNCATE_SCAN);

		/*
		 * Someone waits for the table (every reader and writer waits
		 * behind our lock): cut what was found so far and let go, as
		 * heap's VACUUM does; the next VACUUM does the rest.
		 */
		if ((nblocks - newblocks) % BH_TRUNCATE_CHECK_PAGES == 0 &&
			LockHasWaitersRelation(vs->rel, AccessExclusiveLock))
		{
			ereport(vs->elevel,
					(errmsg("\"%s\": suspending truncate due to conflicting lock request",
							RelationGetRelationName(vs->rel))));
			break;
		}
	}
	if (newblocks < nblocks)
	{
		pgstat_progress_update_param(PROGRESS_VACUUM_PHASE,
									 PROGRESS_VACUUM_PHASE_TRUNCATE);
		RelationTruncate(vs->rel, newblocks);
		_bh_hot_forget(vs->rel);

		/*
		 * The pool's blocks past the new end are gone, and those before it
		 * are zero pages this VACUUM has just recorded in the free space
		 * map: its slot goes, and the next take starts a new one, which
		 * the worker fills from the map first.  (A slot kept would look
		 * full and never be refilled, while each take skipped its stale
		 * blocks one by one.)  No take or refill runs meanwhile: both need
		 * a lock that our AccessExclusiveLock excludes.
		 */
		blinkam_pool_forget(vs->rel->rd_node);
		vs->rel_pages = newblocks;
		ereport(vs->elevel,
				(errmsg("\"%s\": truncated %u to %u pages",
						RelationGetRelationName(vs->rel), nblocks, newblocks)));
	}
	UnlockRelation(vs->rel, AccessExclusiveLock);
}

/*
 * table_relation_vacuum: VACUUM (not FULL) of a blinkheap table, also for
 * autovacuum.  The caller holds ShareUpdateExclusiveLock on rel.
 */
void
blinkheap_relation_vacuum(Relation rel, struct VacuumParams *params,
						  BufferAccessStrategy bstrategy)
{
	BhVacState	vs = {0};
	bool		aggressive;
	MultiXactId OldestMxact;
	int			work_mem_kb;
	int			max_items;
	bool		frozenxid_updated,
				minmulti_updated;
	double		new_live_tuples;
	int			elevel = (params->options & VACOPT_VERBOSE) ? INFO : DEBUG2;
	PGRUsage	ru0;
	TimestampTz starttime = 0;

	/* autovacuum logs its runs past log_autovacuum_min_duration, as heap */
	if (IsAutoVacuumWorkerProcess() && params->log_min_duration >= 0)
		starttime = GetCurrentTimestamp();
	pg_rusage_init(&ru0);
	pgstat_progress_start_command(PROGRESS_COMMAND_VACUUM, RelationGetRelid(rel));

	vs.rel = rel;
	vs.bstrategy = bstrategy;
	vs.elevel = elevel;
	aggressive = vacuum_set_xid_limits(rel,
									   params->freeze_min_age,
									   params->freeze_table_age,
									   params->multixact_freeze_min_age,
									   params->multixact_freeze_table_age,
									   &vs.OldestXmin, &OldestMxact,
									   &vs.FreezeLimit, &vs.MultiXactCutoff);
	if (params->options & VACOPT_DISABLE_PAGE_SKIPPING)
		aggressive = true;
	vs.NewRelfrozenXid = vs.OldestXmin;
	vs.NewRelminMxid = OldestMxact;

	vac_open_indexes(rel, RowExclusiveLock, &vs.nindexes, &vs.indrels);
	vs.istats = palloc0(sizeof(IndexBulkDeleteResult *) * Max(vs.nindexes, 1));
	vs.do_index_cleanup = vs.nindexes > 0 &&
		params->index_cleanup != VACOPTVALUE_DISABLED;

	vs.rel_pages = RelationGetNumberOfBlocks(rel);

	/* room for dead TIDs: as much as the work memory setting allows */
	work_mem_kb = (IsAutoVacuumWorkerProcess() && autovacuum_work_mem != -1) ?
		autovacuum_work_mem : maintenance_work_mem;
	max_items = (int) Min((double) MAXDEADITEMS((Size) work_mem_kb * 1024),
						  (double) MAXDEADITEMS(MaxAllocSize));
	max_items = (int) Min((double) max_items,
						  (double) Max(vs.rel_pages, 1) * MaxHeapTuplesPerPage);
	max_items = Max(max_items, MaxHeapTuplesPerPage);
	vs.dead_items = palloc(vac_max_items_to_alloc_size(max_items));
	vs.dead_items->max_items = max_items;
	vs.dead_items->num_items = 0;

	pgstat_progress_update_param(PROGRESS_VACUUM_PHASE,
								 PROGRESS_VACUUM_PHASE_SCAN_HEAP);
	pgstat_progress_update_param(PROGRESS_VACUUM_TOTAL_HEAP_BLKS, vs.rel_pages);
	pgstat_progress_update_param(PROGRESS_VACUUM_MAX_DEAD_TUPLES, max_items);

	(void) _bh_vac_failsafe(&vs);
	for (BlockNumber blkno = 0; blkno < vs.rel_pages; blkno++)
	{
		Buffer		buf;
		Page		page;
		bool		cleanup_locked;
		bool		used = false;
		bool		has_dead = false;

		vacuum_delay_point();
		if (blkno > 0 && blkno % BH_FAILSAFE_EVERY_PAGES == 0)
			(void) _bh_vac_failsafe(&vs);

		/* room for one more page's dead TIDs */
		if (vs.dead_items->max_items - vs.dead_items->num_items < MaxHeapTuplesPerPage)
			_bh_vac_flush(&vs);

		buf = ReadBufferExtended(rel, MAIN_FORKNUM, blkno, RBM_NORMAL, bstrategy);
		page = BufferGetPage(buf);
		if (ConditionalLockBufferForCleanup(buf))
			cleanup_locked = true;
		else
		{
			/*
			 * Somebody holds a pin: see the page under a share lock, and
			 * wait for the pin only if an aggressive VACUUM must freeze
			 * something on it: see _bh_vac_noprune_page.  A zero page needs
			 * nothing.
			 */
			LockBuffer(buf, BUFFER_LOCK_SHARE);
			cleanup_locked = false;
			if (!PageIsNew(page))
			{
				_bh_check_page(rel, buf);
				if (!_bh_vac_noprune_page(&vs, buf, aggressive, &used, &has_dead))
				{
					LockBuffer(buf, BUFFER_LOCK_UNLOCK);
					LockBufferForCleanup(buf);
					cleanup_locked = true;
				}
			}
		}
		/* tests: an insert meets a page locked by something else */
		if (cleanup_locked)
			blinkam_debug_pause(BLINKAM_PAUSE_HEAP_VACUUM_LOCKED);
		vs.scanned_pages++;
		pgstat_progress_update_param(PROGRESS_VACUUM_HEAP_BLKS_SCANNED,
									 vs.scanned_pages);
		if (PageIsNew(page))
		{
			/* never initialized: the whole page is free */
			UnlockReleaseBuffer(buf);
			RecordPageWithFreeSpace(rel, blkno, _bh_page_free_space(page));
			continue;
		}
		if (cleanup_locked)
		{
			_bh_check_page(rel, buf);
			used = _bh_vac_prune_page(&vs, buf, &has_dead);
		}
		if (used)
			vs.nonempty_pages = blkno + 1;
		if (!has_dead)
		{
			Size		freespace = _bh_vac_free_space(page);

			UnlockReleaseBuffer(buf);
			RecordPageWithFreeSpace(rel, blkno, freespace);
		}
		else
			UnlockReleaseBuffer(buf);	/* pass 2 records its free space */
	}
	_bh_vac_flush(&vs);
	FreeSpaceMapVacuum(rel);

	/* index cleanup, and the indexes' own statistics */
	pgstat_progress_update_param(PROGRESS_VACUUM_PHASE,
								 PROGRESS_VACUUM_PHASE_INDEX_CLEANUP);
	/* every block was seen (none is skipped): the counts are exact */
	new_live_tuples = vs.live_tuples;
	for (int i = 0; i < vs.nindexes && params->index_cleanup != VACOPTVALUE_DISABLED &&
		 !_bh_vac_failsafe(&vs); i++)
	{
		IndexVacuumInfo ivinfo;

		ivinfo.index = vs.indrels[i];
		ivinfo.analyze_only = false;
		ivinfo.report_progress = false;
		ivinfo.estimated_count = false;
		ivinfo.message_level = DEBUG2;
		ivinfo.num_heap_tuples = new_live_tuples;
		ivinfo.strategy = bstrategy;
		vs.istats[i] = vac_cleanup_one_index(&ivinfo, vs.istats[i]);
		if (vs.istats[i] && !vs.istats[i]->estimated_count)
			vac_update_relstats(vs.indrels[i], vs.istats[i]->num_pages,
								vs.istats[i]->num_index_tuples, 0, false,
								InvalidTransactionId, InvalidMultiXactId,
								NULL, NULL, false);
	}

	if (params->truncate != VACOPTVALUE_DISABLED && !vs.failsafe &&
		vs.nonempty_pages < vs.rel_pages)
		_bh_vac_truncate(&vs);

	/*
	 * Every block was seen, so relfrozenxid and relminmxid go to the oldest
	 * xid and multi left unfrozen (vac_update_relstats never moves them
	 * back).
	 */
	vac_update_relstats(rel, vs.rel_pages, new_live_tuples, 0,
						vs.nindexes > 0,
						vs.NewRelfrozenXid, vs.NewRelminMxid,
						&frozenxid_updated, &minmulti_updated, false);
	pgstat_report_vacuum(RelationGetRelid(rel), rel->rd_rel->relisshared,
						 Max(new_live_tuples, 0),
						 vs.recently_dead_tuples + vs.missed_dead_tuples);

	if (starttime != 0 &&
		TimestampDifferenceExceeds(starttime, GetCurrentTimestamp(),
								   params->log_min_duration))
		ereport(LOG,
				(errmsg("automatic vacuum of blinkheap table \"%s.%s.%s\": removed %.0f dead tuples, froze %.0f, %.0f live and %.0f recently dead remain in %u pages, %d index scans",
						get_database_name(MyDatabaseId),
						get_namespace_name(RelationGetNamespace(rel)),
						RelationGetRelationName(rel), vs.removed_tuples,
						vs.frozen_tuples, vs.live_tuples, vs.recently_dead_tuples,
						vs.rel_pages, vs.num_index_scans),
				 errdetail_internal("relfrozenxid %s, relminmxid %s. %s",
									frozenxid_updated ? "advanced" : "unchanged",
									minmulti_updated ? "advanced" : "unchanged",
									pg_rusage_show(&ru0))));
	else
		ereport(elevel,
				(errmsg("blinkheap \"%s\": removed %.0f dead tuples, froze %.0f, %.0f live and %.0f recently dead remain in %u pages, %d index scans",
						RelationGetRelationName(rel), vs.removed_tuples,
						vs.frozen_tuples, vs.live_tuples, vs.recently_dead_tuples,
						vs.rel_pages, vs.num_index_scans),
				 errdetail_internal("relfrozenxid %s, relminmxid %s. %s",
									frozenxid_updated ? "advanced" : "unchanged",
									minmulti_updated ? "advanced" : "unchanged",
									pg_rusage_show(&ru0))));

	blinkam_count(BLINKAM_COUNTER_BLINKHEAP_VACUUM_REMOVED, (uint64) vs.removed_tuples);
	blinkam_count(BLINKAM_COUNTER_BLINKHEAP_VACUUM_FROZEN, (uint64) vs.frozen_tuples);
	vac_close_indexes(vs.nindexes, vs.indrels, NoLock);
	pgstat_progress_end_command();
}
