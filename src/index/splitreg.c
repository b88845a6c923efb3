/*-------------------------------------------------------------------------
 *
 * splitreg.c
 *	  The split registry: which live backend is finishing which split.
 *
 * A page flagged INCOMPLETE_SPLIT is missing its right sibling's downlink.
 * Whoever finishes the split (the backend that split the page, or one that
 * found the split abandoned) holds an entry (relation, block) here from
 * the moment it decides to finish it until the flag is cleared.  Another
 * writer that needs the split finished looks the page up here while
 * holding the page's exclusive lock:
 *
 *   - an entry owned by another backend: that backend is alive and working
 *     on it; release the page and wait (_blink_splitreg_wait) for the entry
 *     to go, then retry;
 *   - no entry: the split is abandoned (its backend errored out or a crash
 *     came between the two WAL records); claim it and finish it.
 *
 * The claim is made under the page's exclusive lock, and the owner clears
 * the flag and drops the entry under that same lock, so two backends can
 * never both finish one split, and a page that is split again (after its
 * lock is released) never finds a stale entry.
 *
 * Lock order: the registry LWLock may be taken while holding buffer locks,
 * and nothing is acquired while it is held.
 *
 * Entries of a backend are dropped when its (sub)transaction aborts and
 * when it exits; shared memory is reset by a crash.  Waiters sleep on one
 * condition variable, broadcast whenever an entry goes.  A backend holds at
 * most a few entries at once (one per level of its current cascade, plus
 * one split it may be finishing on another's behalf), so the table is
 * sized at BLINK_SPLITREG_PER_BACKEND entries per backend.

 *
 * src/index/splitreg.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/condition_variable.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/rel.h"

#include "common/shmem.h"
#include "index/blink.h"

#define BLINK_SPLITREG_PER_BACKEND	8

typedef struct SplitRegEntry
{
	RelFileNode node;
	BlockNumber blkno;
	int			owner;			/* pgprocno, or -1 when the slot is free */
} SplitRegEntry;

typedef struct SplitRegistry
{
	LWLock	   *lock;
	ConditionVariable cv;
	int			nslots;
	SplitRegEntry slots[FLEXIBLE_ARRAY_MEMBER];
} SplitRegistry;

static SplitRegistry *SplitReg = NULL;
static int	my_entries = 0;		/* entries this backend holds */
static bool callbacks_registered = false;

static int
splitreg_nslots(void)
{
	return (MaxBackends + 1) * BLINK_SPLITREG_PER_BACKEND;
}

static Size
splitreg_shmem_size(void)
{
	return add_size(offsetof(SplitRegistry, slots),
					mul_size(splitreg_nslots(), sizeof(SplitRegEntry)));
}

/* Called from the shmem startup hook, under AddinShmemInitLock. */
static void
splitreg_shmem_init(void)
{
	bool		found;

	SplitReg = ShmemInitStruct("blinkam split registry",
							   splitreg_shmem_size(), &found);
	if (!found)
	{
		SplitReg->lock = blinkam_lwlock(BLINKAM_LWLOCK_SPLITREG);
		ConditionVariableInit(&SplitReg->cv);
		SplitReg->nslots = splitreg_nslots();
		for (int i = 0; i < SplitReg->nslots; i++)
			SplitReg->slots[i].owner = -1;
	}
}

/* From _PG_init. */
void
_blink_splitreg_init(void)
{
	blinkam_shmem_register(splitreg_shmem_size, splitreg_shmem_init);
}

static void
splitreg_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
		_blink_splitreg_release_all();
}

static void
splitreg_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						  SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		_blink_splitreg_release_all();
}

static void
splitreg_exit_callback(int code, Datum arg)
{
	_blink_splitreg_release_all();
}

static void
splitreg_register_callbacks(void)
{
	if (callbacks_registered)
		return;
	RegisterXactCallback(splitreg_xact_callback, NULL);
	RegisterSubXactCallback(splitreg_subxact_callback, NULL);
	before_shmem_exit(splitreg_exit_callback, (Datum) 0);
	callbacks_registered = true;
}

static int
splitreg_find(Relation rel, BlockNumber blkno)
{
	for (int i = 0; i < SplitReg->nslots; i++)
	{
		SplitRegEntry *e = &SplitReg->slots[i];

		if (e->owner >= 0 && e->blkno == blkno &&
			RelFileNodeEquals(e->node, rel->rd_node))
			return i;
	}
	return -1;
}

/*
 * Claim the right to finish the split of blkno.  Returns true if this
 * backend now holds (or already held) the entry, false if another live
 * backend does.  The caller holds blkno exclusively locked and has seen
 * it flagged INCOMPLETE_SPLIT.
 */
bool
_blink_splitreg_claim(Relation rel, BlockNumber blkno)
{
	int			i;
	int			free_slot = -1;

	splitreg_register_callbacks();

	LWLockAcquire(SplitReg->lock, LW_EXCLUSIVE);
	i = splitreg_find(rel, blkno);
	if (i >= 0)
	{
		bool		mine = SplitReg->slots[i].owner == MyProc->pgprocno;

		LWLockRelease(SplitReg->lock);
		return mine;
	}
	for (i = 0; i < SplitReg->nslots; i++)
	{
		if (SplitReg->slots[i].owner < 0)
		{
			free_slot = i;
			break;
		}
	}
	if (free_slot < 0)
	{
		LWLockRelease(SplitReg->lock);
		elog(ERROR, "blinkam split registry is full (%d entries)",
			 SplitReg->nslots);
	}
	SplitReg->slots[free_slot].node = rel->rd_node;
	SplitReg->slots[free_slot].blkno = blkno;
	SplitReg->slots[free_slot].owner = MyProc->pgprocno;
	my_entries++;
	LWLockRelease(SplitReg->lock);
	return true;
}

/* Drop this backend's entry for blkno (its flag has been cleared). */
void
_blink_splitreg_release(Relation rel, BlockNumber blkno)
{
	int			i;

	LWLockAcquire(SplitReg->lock, LW_EXCLUSIVE);
	i = splitreg_find(rel, blkno);
	if (i >= 0 && SplitReg->slots[i].owner == MyProc->pgprocno)
	{
		SplitReg->slots[i].owner = -1;
		my_entries--;
	}
	LWLockRelease(SplitReg->lock);
	ConditionVariableBroadcast(&SplitReg->cv);
}

/* Drop every entry of this backend (abort, exit). */
void
_blink_splitreg_release_all(void)
{
	if (my_entries == 0 || SplitReg == NULL || MyProc == NULL)
		return;

	LWLockAcquire(SplitReg->lock, LW_EXCLUSIVE);
	for (int i = 0; i < SplitReg->nslots; i++)
	{
		if (SplitReg->slots[i].owner == MyProc->pgprocno)
			SplitReg->slots[i].owner = -1;
	}
	my_entries = 0;
	LWLockRelease(SplitReg->lock);
	ConditionVariableBroadcast(&SplitReg->cv);
}

/*
 * Wait until no backend holds an entry for blkno.  The caller holds no
 * buffer lock.  Interruptible (statement_timeout, cancel).
 */
void
_blink_splitreg_wait(Relation rel, BlockNumber blkno)
{
	ConditionVariablePrepareToSleep(&SplitReg->cv);
	for (;;)
	{
		bool		present;

		LWLockAcquire(SplitReg->lock, LW_SHARED);
		present = splitreg_find(rel, blkno) >= 0;
		LWLockRelease(SplitReg->lock);
		if (!present)
			break;
		ConditionVariableSleep(&SplitReg->cv, PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();
}
