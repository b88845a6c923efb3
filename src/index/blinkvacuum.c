/*-------------------------------------------------------------------------
 *
 * blinkvacuum.c
 *	  VACUUM for blink: remove entries of dead heap tuples, return zero
 *	  pages to the free space map, count what is left.
 *
 * VACUUM reads the index in physical block order, taking a cleanup lock on
 * every page (so it waits for scans that keep a pin because their
 * snapshot is not MVCC).  A split that runs while VACUUM is under way may
 * move not-yet-vacuumed items from a page VACUUM has not reached to a new
 * page with a lower block number, which VACUUM has passed.  To catch that,
 * each running VACUUM has a cycle id in shared memory; a split stamps it
 * on both halves; when VACUUM meets a page with its cycle id whose right
 * sibling has a lower block number than the page it is scanning, it goes
 * back and vacuums that sibling (and on to the right while the same holds).
 *
 * Lock order: the vacuum-cycle LWLock is taken alone.
 *
 * src/index/blinkvacuum.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "commands/vacuum.h"
#include "miscadmin.h"
#include "storage/indexfsm.h"
#include "storage/ipc.h"
#include "storage/lmgr.h"
#include "storage/shmem.h"
#include "utils/rel.h"
#include "utils/wait_event.h"

#include "common/settings.h"
#include "common/shmem.h"
#include "index/blink.h"

typedef struct BlinkVacuumSlot
{
	RelFileNode node;
	BlinkCycleId cycleid;		/* 0: free slot */
} BlinkVacuumSlot;

typedef struct BlinkVacuumShared
{
	LWLock	   *lock;
	BlinkCycleId next_cycleid;
	int			nslots;
	BlinkVacuumSlot slots[FLEXIBLE_ARRAY_MEMBER];
} BlinkVacuumShared;

static BlinkVacuumShared *VacShared = NULL;

static Size
vacuum_shmem_size(void)
{
	return add_size(offsetof(BlinkVacuumShared, slots),
					mul_size(MaxBackends + 1, sizeof(BlinkVacuumSlot)));
}

static void
vacuum_shmem_init(void)
{
	bool		found;

	VacShared = ShmemInitStruct("blinkam vacuum cycles",
								vacuum_shmem_size(), &found);
	if (!found)
	{
		VacShared->lock = blinkam_lwlock(BLINKAM_LWLOCK_VACUUM);
		VacShared->next_cycleid = 1;
		VacShared->nslots = MaxBackends + 1;
		for (int i = 0; i < VacShared->nslots; i++)
			VacShared->slots[i].cycleid = 0;
	}
}

/* From _PG_init. */
void
_blink_vacuum_init(void)
{
	blinkam_shmem_register(vacuum_shmem_size, vacuum_shmem_init);
}

/* The cycle id of the VACUUM running on rel, or 0 if none. */
BlinkCycleId
_blink_vacuum_cycleid(Relation rel)
{
	BlinkCycleId result = 0;

	LWLockAcquire(VacShared->lock, LW_SHARED);
	for (int i = 0; i < VacShared->nslots; i++)
	{
		BlinkVacuumSlot *s = &VacShared->slots[i];

		if (s->cycleid != 0 && RelFileNodeEquals(s->node, rel->rd_node))
		{
			result = s->cycleid;
			break;
		}
	}
	LWLockRelease(VacShared->lock);
	return result;
}

static BlinkCycleId
_blink_start_vacuum(Relation rel)
{
	BlinkCycleId cycleid;
	int			free_slot = -1;

	LWLockAcquire(VacShared->lock, LW_EXCLUSIVE);
	for (int i = 0; i < VacShared->nslots; i++)
	{
		BlinkVacuumSlot *s = &VacShared->slots[i];

		if (s->cycleid != 0 && RelFileNodeEquals(s->node, rel->rd_node))
		{
			LWLockRelease(VacShared->lock);
			elog(ERROR, "blink index \"%s\" is already being vacuumed",
				 RelationGetRelationName(rel));
		}
		if (s->cycleid == 0 && free_slot < 0)
			free_slot = i;
	}
	if (free_slot < 0)
	{
		LWLockRelease(VacShared->lock);
		elog(ERROR, "out of blink vacuum cycle slots");
	}
	cycleid = VacShared->next_cycleid++;
	if (VacShared->next_cycleid == 0)
		VacShared->next_cycleid = 1;
	VacShared->slots[free_slot].node = rel->rd_node;
	VacShared->slots[free_slot].cycleid = cycleid;
	LWLockRelease(VacShared->lock);
	return cycleid;
}

static void
_blink_end_vacuum(Relation rel)
{
	LWLockAcquire(VacShared->lock, LW_EXCLUSIVE);
	for (int i = 0; i < VacShared->nslots; i++)
	{
		BlinkVacuumSlot *s = &VacShared->slots[i];

		if (s->cycleid != 0 && RelFileNodeEquals(s->node, rel->rd_node))
			s->cycleid = 0;
	}
	LWLockRelease(VacShared->lock);
}

static void
_blink_end_vacuum_callback(int code, Datum arg)
{
	_blink_end_vacuum((Relation) DatumGetPointer(arg));
}

typedef struct BlinkVacState
{
	IndexVacuumInfo *info;
	IndexBulkDeleteResult *stats;
	IndexBulkDeleteCallback callback;
	void	   *callback_state;
	BlinkCycleId cycleid;
} BlinkVacState;


/*
 * Take a cleanup lock on buf (pinned by us): an exclusive lock with no other
 * pin.  PostgreSQL's LockBufferForCleanup lets the lock go and sleeps while
 * other pins remain -- and a leaf's other pins are often batch waiters
 * (batch.c), which published their tuples and wait for whoever releases
 * the leaf to wake them.  A release that skips _blink_unlock wakes nobody,
 * and they would sleep until their last-resort timeout while we wait for
 * their pins.  So the lock is let go through _blink_unlock, which hands
 * them back awake; they take the page, insert, and drop their pins.
 */
static void
_blink_lock_for_cleanup(Relation rel, Buffer buf)
{
	for (;;)
	{
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		/* tests: hold the lock here while a waiter's try fails against it */
		if (!PageIsNew(BufferGetPage(buf)) &&
			BlinkPageIsLeaf(BlinkPageGetOpaque(BufferGetPage(buf))))
			blinkam_debug_pause(BLINKAM_PAUSE_VACUUM_CLEANUP_LOCKED);
		if (IsBufferCleanupOK(buf))
			return;
		_blink_unlock(rel, buf);
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 1L, PG_WAIT_BUFFER_PIN);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/* _blink_leaf_plan_removal's question for VACUUM: does its callback drop tid? */
static bool
_blink_vacuum_tid_gone(ItemPointer tid, OffsetNumber offnum, void *arg)
{
	BlinkVacState *vs = (BlinkVacState *) arg;

	return vs->callback && vs->callback(tid, vs->callback_state);
}

/*
 * Vacuum one page; then, while the page was split during this VACUUM and
 * its right sibling lies behind orig_blkno (already passed), that sibling.
 */
static void
_blink_vacuum_page(BlinkVacState *vs, BlockNumber blkno, BlockNumber orig_blkno)
{
	Relation	rel = vs->info->index;

	for (;;)
	{
		Buffer		buf;
		Page		page;
		BlinkPageOpaque opaque;
		BlockNumber next = InvalidBlockNumber;

		vacuum_delay_point();
		buf = ReadBufferExtended(rel, MAIN_FORKNUM, blkno, RBM_NORMAL,
								 vs->info->strategy);

		/*
		 * A bulk delete needs the cleanup lock: no scan may stand between
		 * reading an entry that goes and fetching its row, whose line
		 * pointer VACUUM is about to free.  The counting pass of a VACUUM
		 * that deleted nothing (no callback) changes no page, so a share
		 * lock does: a scan's pin -- an idle index-only cursor keeps one --
		 * does not hold it up (btree skips that pass altogether).
		 */
		if (vs->callback)
			_blink_lock_for_cleanup(rel, buf);
		else
			LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);

		if (PageIsNew(page))
		{
			/* Never initialized (a crash after extension): reusable. */
			if (blkno == orig_blkno)
			{
				RecordFreeIndexPage(rel, blkno);
				vs->stats->pages_free++;
			}
			UnlockReleaseBuffer(buf);
			return;
		}
		_blink_checkpage(rel, buf);
		opaque = BlinkPageGetOpaque(page);

		if (BlinkPageIsLeaf(opaque))
		{
			OffsetNumber deletable[MaxIndexTuplesPerPage];
			BlinkLeafUpdate updates[MaxIndexTuplesPerPage];
			int			ndeletable;
			int			nupdates;
			int			kept;
			int			removed;

			/* Each entry on its own; a posting tuple keeps the TIDs not removed. */
			removed = _blink_leaf_plan_removal(page, _blink_vacuum_tid_gone, vs,
											   deletable, &ndeletable,
											   updates, &nupdates, &kept);
			Assert(vs->callback || ndeletable + nupdates == 0);
			if (ndeletable + nupdates > 0)
			{
				_blink_leaf_delete(rel, buf, deletable, ndeletable, updates, nupdates);
				vs->stats->tuples_removed += removed;
				for (int i = 0; i < nupdates; i++)
					pfree(updates[i].itup);
			}
			vs->stats->num_index_tuples += kept;

			if (vs->cycleid != 0 && opaque->blink_cycleid == vs->cycleid &&
				BlockNumberIsValid(opaque->blink_next) &&
				opaque->blink_next < orig_blkno)
				next = opaque->blink_next;
		}
		_blink_relbuf(rel, buf);

		if (!BlockNumberIsValid(next))
			return;
		blkno = next;
	}
}

/* Scan every block of the index, including those added while we scan. */
static void
_blink_vacuum_scan(BlinkVacState *vs)
{
	Relation	rel = vs->info->index;
	BlockNumber blkno = BLINK_METAPAGE + 1;
	bool		needLock = !RELATION_IS_LOCAL(rel);

	for (;;)
	{
		BlockNumber nblocks;

		if (needLock)
			LockRelationForExtension(rel, ExclusiveLock);
		nblocks = RelationGetNumberOfBlocks(rel);
		if (needLock)
			UnlockRelationForExtension(rel, ExclusiveLock);

		if (blkno >= nblocks)
		{
			vs->stats->num_pages = nblocks;
			break;
		}
		for (; blkno < nblocks; blkno++)
			_blink_vacuum_page(vs, blkno, blkno);
	}
	IndexFreeSpaceMapVacuum(rel);
}

/* Run the scan with a vacuum cycle id, released even on error. */
static void
_blink_vacuum_with_cycleid(BlinkVacState *vs)
{
	Relation	rel = vs->info->index;

	PG_ENSURE_ERROR_CLEANUP(_blink_end_vacuum_callback, PointerGetDatum(rel));
	{
		vs->cycleid = _blink_start_vacuum(rel);
		_blink_vacuum_scan(vs);
	}
	PG_END_ENSURE_ERROR_CLEANUP(_blink_end_vacuum_callback, PointerGetDatum(rel));
	_blink_end_vacuum(rel);
}

IndexBulkDeleteResult *
blinkbulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
				IndexBulkDeleteCallback callback, void *callback_state)
{
	BlinkVacState vs;

	_blink_defer_flush();
	if (stats == NULL)
		stats = palloc0(sizeof(IndexBulkDeleteResult));
	/* Every call counts the entries afresh. */
	stats->num_index_tuples = 0;
	stats->pages_free = 0;

	vs.info = info;
	vs.stats = stats;
	vs.callback = callback;
	vs.callback_state = callback_state;

	_blink_vacuum_with_cycleid(&vs);
	return stats;
}

IndexBulkDeleteResult *
blinkvacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	if (info->analyze_only)
		return stats;
	_blink_defer_flush();

	/*
	 * Without a bulk delete pass in this VACUUM, scan once anyway: it counts
	 * the entries and returns zero pages to the free space map.
	 */
	if (stats == NULL)
	{
		BlinkVacState vs;

		stats = palloc0(sizeof(IndexBulkDeleteResult));
		vs.info = info;
		vs.stats = stats;
		vs.callback = NULL;
		vs.callback_state = NULL;
		vs.cycleid = 0;
		_blink_vacuum_scan(&vs);
	}
	stats->estimated_count = false;
	return stats;
}
