/*-------------------------------------------------------------------------
 *
 * shmem.h
 *	  blinkam's shared memory: the extension-wide state, its LWLocks, and
 *	  the registry through which each part asks for its own segment.
 *
 * src/common/shmem.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef BLINKAM_SHMEM_H
#define BLINKAM_SHMEM_H

#include "storage/latch.h"
#include "storage/lwlock.h"

#define BLINKAM_NAME			"blinkam"

/*
 * blinkam's LWLocks, each alone in a named tranche of its own, so that a
 * wait for one shows in pg_stat_activity by its tranche's name (see
 * blinkam_lwlock_names in shmem.c).
 */
typedef enum BlinkamLWLockId
{
	BLINKAM_LWLOCK_STATE,		/* BlinkamSharedState: "blinkam_state" */
	BLINKAM_LWLOCK_SPLITREG,	/* split registry (index): "blinkam_splits" */
	BLINKAM_LWLOCK_VACUUM,		/* vacuum cycle ids (index): "blinkam_vacuum" */
	BLINKAM_LWLOCK_POOL,		/* page pools, database requests:
								 * "blinkam_pools" */
	BLINKAM_NUM_LWLOCKS
} BlinkamLWLockId;

/*
 * The extension-wide shared state, one per cluster, created at postmaster
 * start (shmem.c).
 *
 * lock (BLINKAM_LWLOCK_STATE) protects launcher_pid and launcher_latch.
 */
typedef struct BlinkamSharedState
{
	LWLock	   *lock;
	pid_t		launcher_pid;	/* 0 while no launcher runs */
	Latch	   *launcher_latch; /* its process latch, NULL if none */
} BlinkamSharedState;

extern BlinkamSharedState *BlinkamShared;

/*
 * A part of the extension that needs shared memory registers, from
 * _PG_init, how much (size) and how to set it up (init: called under
 * AddinShmemInitLock at every shared memory creation, postmaster start and
 * crash-restart alike; it must initialize only a segment ShmemInitStruct
 * reports as new).
 */
typedef Size (*BlinkamShmemSizeFn) (void);
typedef void (*BlinkamShmemInitFn) (void);

extern void blinkam_shmem_register(BlinkamShmemSizeFn size, BlinkamShmemInitFn init);
extern void blinkam_shmem_register_tranche(const char *name, int n);
extern void blinkam_shmem_install_hooks(void);
extern LWLock *blinkam_lwlock(BlinkamLWLockId id);

#endif							/* BLINKAM_SHMEM_H */
