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
 * src/shmem.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/shmem.h"

#include "blink.h"
#include "blinkam.h"

BlinkamSharedState *BlinkamShared = NULL;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static const char *const counter_names[BLINKAM_NUM_COUNTERS] = {
#define BLINKAM_COUNTER_NAME(sym, name, desc) name,
	BLINKAM_COUNTERS(BLINKAM_COUNTER_NAME)
#undef BLINKAM_COUNTER_NAME
};

const char *
blinkam_counter_name(BlinkamCounter c)
{
	Assert(c >= 0 && c < BLINKAM_NUM_COUNTERS);
	return counter_names[c];
}

static Size
blinkam_shmem_size(void)
{
	Size		size = MAXALIGN(sizeof(BlinkamSharedState));

	size = add_size(size, MAXALIGN(_blink_splitreg_shmem_size()));
	size = add_size(size, MAXALIGN(_blink_vacuum_shmem_size()));
	size = add_size(size, MAXALIGN(_blink_pool_shmem_size()));
	size = add_size(size, MAXALIGN(_blink_batch_shmem_size()));
	return size;
}

static void
blinkam_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();

	RequestAddinShmemSpace(blinkam_shmem_size());
	RequestNamedLWLockTranche(BLINKAM_NAME, BLINKAM_NUM_LWLOCKS);
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
		BlinkamShared->lock = &(GetNamedLWLockTranche(BLINKAM_NAME))->lock;
		BlinkamShared->launcher_pid = 0;
		BlinkamShared->launcher_latch = NULL;
		for (int i = 0; i < BLINKAM_NUM_COUNTERS; i++)
			pg_atomic_init_u64(&BlinkamShared->counters[i], 0);
	}
	_blink_splitreg_shmem_init();
	_blink_vacuum_shmem_init();
	_blink_pool_shmem_init();
	_blink_batch_shmem_init();

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
