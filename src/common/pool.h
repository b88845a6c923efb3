/*-------------------------------------------------------------------------
 *
 * pool.h
 *	  Pools of preallocated pages, and the per-database requests that ask
 *	  the workers for work.
 *
 * src/common/pool.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef BLINKAM_POOL_H
#define BLINKAM_POOL_H

#include "storage/block.h"
#include "storage/relfilenode.h"
#include "utils/relcache.h"

extern void blinkam_pool_init(void);

/*
 * For the access methods: a zero page of rel, already added to the file by
 * a worker, or InvalidBlockNumber (then get one yourself).  An index asks
 * for leaf or internal pages; a table for leaf (data) pages only.  The
 * caller must claim the page under its buffer lock (it may have been
 * taken through the free space map meanwhile).
 */
extern bool blinkam_pool_applies(Relation rel);
extern bool blinkam_pool_serves(Relation rel);
extern BlockNumber blinkam_pool_take(Relation rel, bool leaf);
extern int	blinkam_pool_held(Relation rel);

/* for the workers */
extern bool blinkam_pool_next_refill(Oid *relid, RelFileNode *node,
									 int *need_leaf, int *need_internal);
extern void blinkam_pool_refill_later(RelFileNode node, int delay_ms);
extern bool blinkam_pool_refills_put_off(void);
extern void blinkam_pool_forget(RelFileNode node);
extern int	blinkam_pool_next_returns(Oid *relid, RelFileNode *node,
									  BlockNumber *blocks, int max);
extern int	blinkam_pool_add(RelFileNode node, BlockNumber *blocks, int nleaf,
							 int nblocks);

/* database requests: the launcher and the workers */
extern bool blinkam_request_repair(Oid dbid);
extern void blinkam_forget_worker_starts(void);
extern int	blinkam_databases_needing_workers(Oid *dbids, uint32 *tickets,
											  int max);
extern int	blinkam_worker_start_failed(Oid dbid, uint32 ticket, bool ran,
										int *in_a_row);
extern bool blinkam_worker_attach(uint32 ticket);
extern bool blinkam_worker_should_leave(void);
/* blinkam_workers_wanted */
#define BLINKAM_WANTED_NONE		0
#define BLINKAM_WANTED_RETRY	1
#define BLINKAM_WANTED_WORK		2
extern int	blinkam_workers_wanted(void);
extern void blinkam_worker_detach(bool died_sweeping);

/*
 * Where a database's repair sweep stands (pool.c, "Repair sweeps").  It is
 * kept in the database's request entry until the sweep is complete, so
 * that the next worker resumes it if this one dies.
 */
typedef enum BlinkamSweepPass
{
	BLINKAM_SWEEP_NEW,			/* requested, not begun: both passes */
	BLINKAM_SWEEP_BUFFERED,		/* in the pass over buffered pages */
	BLINKAM_SWEEP_FULL			/* in the full sweep, at relid, block */
} BlinkamSweepPass;

typedef struct BlinkamSweepPosition
{
	BlinkamSweepPass pass;
	Oid			relid;			/* FULL: relations of a lower oid are done, */
	BlockNumber block;			/* and relid's blocks below block
								 * (InvalidBlockNumber: all of it) */
	int			deaths;			/* workers that died in a row sweeping at
								 * this position */
} BlinkamSweepPosition;

/* deaths at one position after which the next worker skips its relation */
#define BLINKAM_SWEEP_MAX_DEATHS	3

extern bool blinkam_worker_sweep_due(BlinkamSweepPosition *pos);
extern void blinkam_worker_sweep_at(BlinkamSweepPass pass, Oid relid,
									BlockNumber block);
extern void blinkam_worker_sweep_done(void);
extern void blinkam_release_database(Oid dbid, int hold_ms, bool dropped);
extern void blinkam_unhold_database(void);

#endif							/* BLINKAM_POOL_H */
