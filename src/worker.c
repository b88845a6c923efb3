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
 * Refill: for each pool slot of this database that asked for a refill,
 * open the index, take zero pages from its free space map, extend it by
 * the blocks still missing in one batch under the relation extension
 * lock, and put them into the pool (pool.c).
 *
 * Returns: record the pages of recycled pool slots in their index's free
 * space map (pool.c, "A pool is a cache of free pages").
 *
 * Repair: after a crash (or an error in a split cascade) a page may stay
 * flagged INCOMPLETE_SPLIT.  Correctness never depends on this worker --
 * writers finish such splits when they need to -- but the worker finishes
 * them soon after a restart, so that no user action is needed:
 *
 *   1. pages of this database's blink indexes that are in shared buffers
 *      (recovery has just replayed into them) are looked at first;
 *   2. then every page of every blink index of the database is swept,
 *      with a pause every BLINK_REPAIR_BATCH pages (blinkam.repair_delay);
 *      the sweep also records every zero page in the free space map, so
 *      that the pages pools held when the server stopped are used again.
 *
 * A flagged page is locked exclusively and handed to _blink_finish_or_wait,
 * which finishes the split unless a live backend is finishing it (then it
 * waits for that backend).  Each finish counts in splits_repaired_by_worker.
 *
 * src/worker.c
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
#include "commands/defrem.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/buf_internals.h"
#include "storage/bufmgr.h"
#include "storage/indexfsm.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/relfilenodemap.h"
#include "utils/snapmgr.h"

#include "blink.h"
#include "blinkam.h"

#define BLINK_REPAIR_BATCH	256

/* Memory that outlives the transactions of one round of work. */
static MemoryContext WorkerContext = NULL;

/*
 * Open an index for the worker if it is (still) a blink index with the
 * given relfilenode (InvalidOid: any).  NULL otherwise.
 */
static Relation
worker_open_index(Oid relid, Oid relfilenode)
{
	Relation	rel = try_relation_open(relid, RowExclusiveLock);

	if (rel == NULL)
		return NULL;
	if (rel->rd_rel->relkind != RELKIND_INDEX ||
		rel->rd_rel->relam != get_index_am_oid("blink", true) ||
		(OidIsValid(relfilenode) && rel->rd_node.relNode != relfilenode) ||
		!rel->rd_index->indisvalid)
	{
		relation_close(rel, RowExclusiveLock);
		return NULL;
	}
	return rel;
}

/* Is block blkno of rel a zero page (never initialized)? */
static bool
worker_page_is_new(Relation rel, BlockNumber blkno)
{
	Buffer		buf = ReadBuffer(rel, blkno);
	bool		isnew;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	isnew = PageIsNew(BufferGetPage(buf));
	_blink_relbuf(rel, buf);
	return isnew;
}

/*
 * Serve one refill request; false if there was none.  Pages come from the
 * free space map first (zero pages only: an entry for a page in use is
 * stale, and taking it cleared it), then from extending the index.
 */
static bool
worker_refill_one(void)
{
	Oid			relid;
	RelFileNode node;
	int			nleaf,
				ninternal;
	Relation	rel;
	BlockNumber *blocks;
	BlockNumber nblocks;
	int			n,
				got = 0;

	if (!_blink_pool_next_refill(&relid, &node, &nleaf, &ninternal))
		return false;
	n = nleaf + ninternal;
	if (n == 0)
		return true;

	StartTransactionCommand();
	rel = worker_open_index(relid, node.relNode);
	if (rel == NULL)
	{
		_blink_pool_forget(node);
		CommitTransactionCommand();
		return true;
	}

	blocks = MemoryContextAlloc(WorkerContext, sizeof(BlockNumber) * n);
	nblocks = RelationGetNumberOfBlocks(rel);
	while (got < n)
	{
		BlockNumber blkno = GetFreeIndexPage(rel);

		if (blkno == InvalidBlockNumber)
			break;
		if (blkno != BLINK_METAPAGE && blkno < nblocks &&
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

	n = _blink_pool_add(node, blocks, nleaf, n);
	blinkam_count(BLINKAM_COUNTER_POOL_PAGES_ADDED, n);
	blinkam_count(BLINKAM_COUNTER_POOL_REFILLS, 1);
	relation_close(rel, RowExclusiveLock);
	CommitTransactionCommand();
	return true;
}

/*
 * Record the pages of recycled pool slots (pool.c's return queue) in their
 * index's free space map, one index at a time; false if none were queued.
 * Only zero pages: one a split took meanwhile is in use.
 */
static bool
worker_return_some(void)
{
	Oid			relid;
	RelFileNode node;
	BlockNumber blocks[256];
	int			n = _blink_pool_next_returns(&relid, &node, blocks, lengthof(blocks));
	Relation	rel;

	if (n == 0)
		return false;
	StartTransactionCommand();
	rel = worker_open_index(relid, node.relNode);
	if (rel != NULL)
	{
		BlockNumber nblocks = RelationGetNumberOfBlocks(rel);
		int			returned = 0;

		for (int i = 0; i < n; i++)
		{
			if (blocks[i] < nblocks && worker_page_is_new(rel, blocks[i]))
			{
				RecordFreeIndexPage(rel, blocks[i]);
				returned++;
			}
		}
		/* make them findable: searches go through the map's upper levels */
		if (returned > 0)
			IndexFreeSpaceMapVacuum(rel);
		blinkam_count(BLINKAM_COUNTER_POOL_PAGES_RETURNED, returned);
		relation_close(rel, RowExclusiveLock);
	}
	CommitTransactionCommand();
	return true;
}

/*
 * Look at block blkno of rel; if it is flagged INCOMPLETE_SPLIT, get the
 * split finished.  Returns true if this worker finished it; *isnew tells
 * whether the block was a zero page.
 */
static bool
worker_repair_page(Relation rel, BlockNumber blkno, bool *isnew)
{
	Buffer		buf = ReadBuffer(rel, blkno);
	Page		page;
	bool		flagged;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	*isnew = PageIsNew(page);
	flagged = !*isnew &&
		BlinkPageGetOpaque(page)->blink_page_id == BLINK_PAGE_ID &&
		BlinkPageIsIncompleteSplit(BlinkPageGetOpaque(page));
	_blink_unlock(rel, buf);
	if (!flagged)
	{
		ReleaseBuffer(buf);
		return false;
	}

	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	if (!BlinkPageIsIncompleteSplit(BlinkPageGetOpaque(BufferGetPage(buf))))
	{
		_blink_relbuf(rel, buf);	/* finished meanwhile */
		return false;
	}
	/* releases buf; false if a live backend was finishing it (we waited) */
	if (!_blink_finish_or_wait(rel, buf))
		return false;
	blinkam_count(BLINKAM_COUNTER_SPLITS_REPAIRED_BY_WORKER, 1);
	return true;
}

/*
 * Repair the flagged pages of one index, all of its blocks or the given.
 * A sweep of all its blocks also records every zero page in the free
 * space map: pages that sat in a page pool when the server stopped (pool.c)
 * are found this way.
 */
static void
worker_repair_index(Oid relid, BlockNumber *blocks, int nblocks)
{
	Relation	rel;

	StartTransactionCommand();
	rel = worker_open_index(relid, InvalidOid);
	if (rel != NULL)
	{
		BlockNumber n = blocks ? (BlockNumber) nblocks : RelationGetNumberOfBlocks(rel);
		int			found = 0;

		for (BlockNumber i = blocks ? 0 : BLINK_METAPAGE + 1; i < n; i++)
		{
			BlockNumber blkno = blocks ? blocks[i] : i;
			bool		isnew;

			CHECK_FOR_INTERRUPTS();
			if (blkno == BLINK_METAPAGE || blkno >= RelationGetNumberOfBlocks(rel))
				continue;
			worker_repair_page(rel, blkno, &isnew);
			if (isnew && blocks == NULL)
			{
				RecordFreeIndexPage(rel, blkno);
				found++;
			}
			if (i % BLINK_REPAIR_BATCH == BLINK_REPAIR_BATCH - 1 && blinkam_repair_delay > 0)
			{
				(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
								 blinkam_repair_delay, PG_WAIT_EXTENSION);
				ResetLatch(MyLatch);
			}
		}
		if (found > 0)
		{
			IndexFreeSpaceMapVacuum(rel);
			blinkam_count(BLINKAM_COUNTER_FREE_PAGES_FOUND, found);
		}
		relation_close(rel, RowExclusiveLock);
	}
	CommitTransactionCommand();
}

typedef struct BufferedBlock
{
	RelFileNode node;
	BlockNumber blkno;
} BufferedBlock;

/*
 * Pass 1: the blocks of this database's relations now in shared buffers
 * (those recovery replayed are among them); repair those of blink indexes.
 */
static void
worker_repair_buffered(void)
{
	BufferedBlock *list = MemoryContextAlloc(WorkerContext,
											 sizeof(BufferedBlock) * NBuffers);
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

	/* group by relation: each blink index gets one pass over its blocks */
	StartTransactionCommand();
	for (int i = 0; i < n; i++)
	{
		Oid			relid;
		BlockNumber *blocks;
		int			nb = 0;

		if (!OidIsValid(list[i].node.relNode))
			continue;
		relid = RelidByRelfilenode(list[i].node.spcNode == MyDatabaseTableSpace ?
								   InvalidOid : list[i].node.spcNode,
								   list[i].node.relNode);
		blocks = MemoryContextAlloc(WorkerContext, sizeof(BlockNumber) * n);
		for (int j = i; j < n; j++)
		{
			if (RelFileNodeEquals(list[j].node, list[i].node))
			{
				blocks[nb++] = list[j].blkno;
				if (j != i)
					list[j].node.relNode = InvalidOid;	/* done */
			}
		}
		if (OidIsValid(relid) &&
			get_rel_relkind(relid) == RELKIND_INDEX)
		{
			CommitTransactionCommand();
			worker_repair_index(relid, blocks, nb);
			StartTransactionCommand();
		}
	}
	CommitTransactionCommand();
}

/* Pass 2: every blink index of the database, block by block. */
static void
worker_repair_sweep(void)
{
	List	   *indexes = NIL;
	Oid			blink_am;
	Relation	classrel;
	TableScanDesc scan;
	HeapTuple	tup;
	ListCell   *lc;

	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	blink_am = get_index_am_oid("blink", true);
	if (OidIsValid(blink_am))
	{
		classrel = table_open(RelationRelationId, AccessShareLock);
		scan = table_beginscan_catalog(classrel, 0, NULL);
		while ((tup = heap_getnext(scan, ForwardScanDirection)) != NULL)
		{
			Form_pg_class form = (Form_pg_class) GETSTRUCT(tup);

			if (form->relkind == RELKIND_INDEX && form->relam == blink_am &&
				form->relpersistence != RELPERSISTENCE_TEMP)
			{
				MemoryContext old = MemoryContextSwitchTo(WorkerContext);

				indexes = lappend_oid(indexes, form->oid);
				MemoryContextSwitchTo(old);
			}
		}
		table_endscan(scan);
		table_close(classrel, AccessShareLock);
	}
	PopActiveSnapshot();
	CommitTransactionCommand();

	foreach(lc, indexes)
		worker_repair_index(lfirst_oid(lc), NULL, 0);
}

static void
worker_exit_callback(int code, Datum arg)
{
	_blink_worker_detach();
}

void
blinkam_worker_main(Datum main_arg)
{
	Oid			dbid = DatumGetObjectId(main_arg);
	bool		repair = false;
	TimestampTz last_work;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(dbid, InvalidOid, 0);

	if (!_blink_worker_attach(&repair))
		proc_exit(0);			/* another worker serves this database */
	before_shmem_exit(worker_exit_callback, (Datum) 0);

	/* A database without blinkam has nothing for us. */
	StartTransactionCommand();
	if (!OidIsValid(get_index_am_oid("blink", true)))
	{
		CommitTransactionCommand();
		proc_exit(0);
	}
	CommitTransactionCommand();
	blinkam_count(BLINKAM_COUNTER_WORKER_STARTS, 1);
	pgstat_report_activity(STATE_RUNNING, "blinkam worker");

	WorkerContext = AllocSetContextCreate(TopMemoryContext, "blinkam worker",
										  ALLOCSET_DEFAULT_SIZES);
	last_work = GetCurrentTimestamp();
	for (;;)
	{
		bool		worked = false;

		MemoryContextReset(WorkerContext);

		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}

		if (repair || _blink_worker_take_repair())
		{
			repair = false;
			worker_repair_buffered();
			worker_repair_sweep();
			worked = true;
		}
		/*
		 * Returns before each refill: an index whose old slot was recycled
		 * then gets its own pages back from the free space map.
		 */
		for (;;)
		{
			while (worker_return_some())
				worked = true;
			if (!worker_refill_one())
				break;
			worked = true;
		}

		if (worked)
			last_work = GetCurrentTimestamp();
		else if (TimestampDifferenceExceeds(last_work, GetCurrentTimestamp(),
											blinkam_worker_idle_timeout))
			break;

		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 1000L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
	proc_exit(0);
}
