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

/* LWLocks of the "blinkam" tranche */
#define BLINKAM_LWLOCK_STATE	0	/* BlinkamSharedState */
#define BLINKAM_LWLOCK_SPLITREG	1	/* split registry (index) */
#define BLINKAM_LWLOCK_VACUUM	2	/* vacuum cycle ids (index) */
#define BLINKAM_LWLOCK_POOL		3	/* page pools, database requests */
#define BLINKAM_NUM_LWLOCKS		4

/*
 * The extension-wide shared state, one per cluster, created at postmaster
 * start (shmem.c).
 *
 * lock (tranche "blinkam") protects launcher_pid and launcher_latch.
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
extern void blinkam_shmem_install_hooks(void);

#endif							/* BLINKAM_SHMEM_H */
