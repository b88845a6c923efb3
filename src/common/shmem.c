/*-------------------------------------------------------------------------
 *
 * shmem.c
 *	  blinkam's shared memory: request at preload, creation at startup.
 *
 * PostgreSQL 15 asks libraries for their shared memory size in
 * shmem_request_hook (called once in the postmaster, after every
 * _PG_init) and lets them create it in shmem_startup_hook (called in the
 * postmaster, and again after every crash-restart reinitialization).
 * The startup hook runs under AddinShmemInitLock; ShmemInitStruct tells
 * whether the segment is new, and only a new one is initialized.
 *
 * Each part of the extension (common machinery and access methods alike)
 * registers its segment from _PG_init with blinkam_shmem_register; this
 * file sums the sizes and calls every init in registration order.  It
 * knows none of them.
 *
 * src/common/shmem.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/shmem.h"

#include "common/shmem.h"

#define MAX_SEGMENTS	16

BlinkamSharedState *BlinkamShared = NULL;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

/* the tranche of each of blinkam's LWLocks (BlinkamLWLockId) */
static const char *const blinkam_lwlock_names[BLINKAM_NUM_LWLOCKS] = {
	"blinkam_state",
	"blinkam_splits",
	"blinkam_vacuum",
	"blinkam_pools"
};

static struct
{
	BlinkamShmemSizeFn size;
	BlinkamShmemInitFn init;
}			segments[MAX_SEGMENTS];
static int	nsegments = 0;

/* extra named tranches of several LWLocks (blinkam_shmem_register_tranche) */
static struct
{
	const char *name;
	int			n;
}			tranches[MAX_SEGMENTS];
static int	ntranches = 0;

/* From _PG_init (in the postmaster, before the request hook runs). */
void
blinkam_shmem_register(BlinkamShmemSizeFn size, BlinkamShmemInitFn init)
{
	if (nsegments >= MAX_SEGMENTS)
		elog(ERROR, "too many blinkam shared memory segments");
	segments[nsegments].size = size;
	segments[nsegments].init = init;
	nsegments++;
}

/*
 * A part of the extension that needs a tranche of n LWLocks of its own
 * registers it, from _PG_init; its init function finds them with
 * GetNamedLWLockTranche(name).
 */
void
blinkam_shmem_register_tranche(const char *name, int n)
{
	if (ntranches >= MAX_SEGMENTS)
		elog(ERROR, "too many blinkam LWLock tranches");
	tranches[ntranches].name = name;
	tranches[ntranches].n = n;
	ntranches++;
}

static Size
blinkam_shmem_size(void)
{
	Size		size = MAXALIGN(sizeof(BlinkamSharedState));

	for (int i = 0; i < nsegments; i++)
		size = add_size(size, MAXALIGN(segments[i].size()));
	return size;
}

static void
blinkam_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();

	RequestAddinShmemSpace(blinkam_shmem_size());
	for (int i = 0; i < BLINKAM_NUM_LWLOCKS; i++)
		RequestNamedLWLockTranche(blinkam_lwlock_names[i], 1);
	for (int i = 0; i < ntranches; i++)
		RequestNamedLWLockTranche(tranches[i].name, tranches[i].n);
}

static void
blinkam_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);

	BlinkamShared = ShmemInitStruct("blinkam shared state",
									sizeof(BlinkamSharedState), &found);
	if (!found)
	{
		BlinkamShared->lock = blinkam_lwlock(BLINKAM_LWLOCK_STATE);
		BlinkamShared->launcher_pid = 0;
		BlinkamShared->launcher_latch = NULL;
	}
	for (int i = 0; i < nsegments; i++)
		segments[i].init();

	LWLockRelease(AddinShmemInitLock);
}

void
blinkam_shmem_install_hooks(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = blinkam_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = blinkam_shmem_startup;
}

/*
 * One of blinkam's LWLocks; in the postmaster's startup hook (the segments'
 * inits), where it is stored in shared memory for the backends.
 */
LWLock *
blinkam_lwlock(BlinkamLWLockId id)
{
	Assert(id >= 0 && id < BLINKAM_NUM_LWLOCKS);
	return &GetNamedLWLockTranche(blinkam_lwlock_names[id])->lock;
}
