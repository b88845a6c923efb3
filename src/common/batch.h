/*-------------------------------------------------------------------------
 *
 * batch.h
 *	  Cooperative batch inserts on hot pages, for any access method.
 *
 * A waiter publishes a payload -- bytes meant for page P of relation R --
 * and a holder of P adds the payloads it can to the page copy of its own
 * generic WAL record, through the access method's add callback.  See
 * batch.c for the protocol and why no wake-up is lost.
 *
 * src/common/batch.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef BLINKAM_BATCH_H
#define BLINKAM_BATCH_H

#include "storage/block.h"
#include "storage/buf.h"
#include "storage/bufpage.h"
#include "storage/relfilenode.h"
#include "utils/relcache.h"

#include "common/gxlog.h"

#define BLINKAM_BATCH_CLAIM_MAX		256 /* slots one holder takes */
#define BLINKAM_BATCH_MAX_BYTES		2048	/* a slot's payloads, each MAXALIGNed */
#define BLINKAM_BATCH_MAX_ITEMS		64	/* payloads in one slot */

/*
 * A bit of a slot's flags that this file reads (the others are the access
 * method's): the payloads stand for several of the owner's tuples, a run,
 * even where they are one payload (blink: a posting tuple of equal keys).
 * Only counted (batched_runs).
 */
#define BLINKAM_BATCH_RUN			(1u << 31)

/*
 * What the access method's add callback did with one payload:
 *   TAKEN    it is on the page copy;
 *   REFUSED  handed back to its waiter, with the rest of its run, for the
 *            waiter to do itself;
 *   DEFER    not now (no room): the run, from this payload on, stays
 *            published for this page, its waiter asleep, for the page's
 *            next holder (which may make room or split the page);
 *   FORWARD  it belongs right of this page: the run stays published, for
 *            the page batch->forward_to (its right sibling), if nothing of
 *            the run went in anywhere yet; otherwise it is REFUSED.
 */
typedef enum BlinkamBatchAdd
{
	BLINKAM_ADD_TAKEN,
	BLINKAM_ADD_REFUSED,
	BLINKAM_ADD_DEFER,
	BLINKAM_ADD_FORWARD
} BlinkamBatchAdd;

/*
 * The access method's side of a holder: add one waiter's payload to the
 * page copy the holder is building (arg is the holder's own state), and
 * say what became of it (BlinkamBatchAdd).  A slot's payloads (a run) are
 * offered in order and the holder takes a prefix: anything but TAKEN ends
 * the run for this holder.  It may compare and look at the page copy, but
 * must not wait, take locks or touch anything the waiter could not.  It
 * may raise an error: then every claimed payload is handed back.
 * *result, when it takes a payload, is what its waiter learns of the
 * payload's place (blinkheap: the offset of the tuple on the page; blink:
 * unused).
 */
typedef BlinkamBatchAdd (*BlinkamBatchAddFn) (void *arg, const void *payload,
											  Size size, uint32 flags,
											  uint32 *result);

/*
 * For blinkam_batch_forward: does the run whose first payload (not yet
 * inserted) this is belong on the right half of the page just split?
 */
typedef bool (*BlinkamBatchMovesFn) (void *arg, const void *payload, Size size,
									 uint32 flags);

/*
 * What a holder claimed, and how much of each slot's run went in.  round:
 * 0 for the record that carries the holder's own change (the caller sets
 * it), counted up by blinkam_batch_next_round for each further one.
 * forward_to: where FORWARD sends a run (the caller sets it; an invalid
 * block turns FORWARD into REFUSED).
 */
typedef struct BlinkamBatch
{
	int			round;
	BlockNumber forward_to;
	RelFileNode node;			/* of the page (blinkam_batch_collect) */
	bool		all_in;			/* blinkam_batch_finish: every claimed run
								 * went in whole */
	bool		forwarded;		/* some run was forwarded */
	int			nclaimed;
	uint32		claimed[BLINKAM_BATCH_CLAIM_MAX];
	uint16		nstart[BLINKAM_BATCH_CLAIM_MAX];	/* in before this holder */
	uint16		ndone[BLINKAM_BATCH_CLAIM_MAX];
	uint8		fate[BLINKAM_BATCH_CLAIM_MAX];	/* BlinkamBatchAdd that ended
												 * the run here, or TAKEN */
} BlinkamBatch;

extern void blinkam_batch_init(void);
extern bool blinkam_lock_waited(Buffer buf, int mode);

/* a waiter: how many of a run fit in a slot, and publish and wait */
extern int	blinkam_batch_capacity(const Size *sizes, int n);
extern int	blinkam_batch_wait(Relation rel, Buffer *bufp, const void *const *payloads,
							   const Size *sizes, int n, uint32 flags,
							   bool announced, uint32 *results,
							   BlockNumber *where, volatile int *progress);

/*
 * a holder: collect (record being built), write (the record, and finish),
 * wake
 */
extern void blinkam_batch_collect(Relation rel, BlockNumber blkno,
								  BlinkamBatchAddFn add, void *arg,
								  BlinkamBatch *batch);
extern int	blinkam_batch_taken(const BlinkamBatch *batch);
extern int	blinkam_batch_write(BlinkamXLogState *state, BlinkamBatch *batch);
extern int	blinkam_batch_finish(BlinkamBatch *batch);
extern void blinkam_batch_wake(BlinkamBatch *batch);
extern bool blinkam_batch_next_round(Relation rel, BlockNumber blkno,
									 BlinkamBatch *batch);
extern int	blinkam_batch_round(Relation rel, Buffer buf, int xlog_flags,
								BlinkamBatchAddFn add, void *arg, Page *page,
								BlinkamBatch *batch);

/* a backend that split a page: runs published for its right half follow */
extern int	blinkam_batch_forward(Relation rel, BlockNumber from, BlockNumber to,
								  BlinkamBatchMovesFn moves, void *arg);

/* whoever releases a lock of a page that may have waiters */
extern void blinkam_batch_after_release(Relation rel, BlockNumber blkno);

/* an access method whose other lockers do not wake waiters: announced holders */
extern void blinkam_batch_announce(Relation rel, BlockNumber blkno);
extern void blinkam_batch_release(Relation rel, Buffer buf);

#endif							/* BLINKAM_BATCH_H */
