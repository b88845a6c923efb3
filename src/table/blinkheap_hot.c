/*-------------------------------------------------------------------------
 *
 * blinkheap_hot.c
 *	  Hot insert pages of blinkheap tables, and cooperative batch inserts
 *	  on them (common/batch.c).
 *
 * An insert of one row writes its page in one generic WAL record; the
 * record's cost (a copy and a diff of the page) does not depend on how
 * many tuples it adds.  So when several backends insert into the same
 * page at once, the one that holds the page (the holder) adds the rows the
 * others published while they waited, in its own record, and tells each
 * waiter the offset its tuple got: the waiter's TID.
 *
 * Which page.  With blinkam.hot_insert_pages = 0 every backend inserts
 * into its own cached target page (heap's way): backends rarely meet on a
 * page, so batches form only by chance.  With K > 0 the inserters of a
 * table share K hot pages, recorded in shared memory (HotEntry, one per
 * table, direct-mapped by relfilenode): backend b uses page
 * pgprocno(b) mod K.  The hint is only a hint: the page is checked under
 * its lock like any page the free space map offers (a blinkheap page, or
 * a zero page, with room).  A hint that names a page this backend has not
 * used before is checked against the table's length first (VACUUM may
 * have truncated it; a relfilenode may be reused after DROP).  When the
 * hot page is full, the backend that finds it so records its free space
 * in the map, finds a page the ordinary way (_bh_get_insert_page: map,
 * pool, extension) and makes it the hot page if the hint still names the
 * full one (compare and set under the entry's spinlock).  Only one
 * backend does that at a time (it claims the switch); the others that
 * find the page full meanwhile sleep until the claim ends
 * (hot_await_switch) and take the new page, rather than each finding one
 * of its own.  Backends that lose the race anyway (a last-resort timeout)
 * put their row on the page they found and record its free space at every
 * level of the map, so a page taken for a single row is not lost to later
 * inserts.  Two tables that map to the same entry take it from
 * each other: more page switches, never a wrong page.
 *
 * Batching.  A plain single-row insert (not speculative, not a bulk
 * insert) that finds the hot page locked publishes its tuple and waits
 * (blinkam_batch_wait, announced holders: see batch.c -- scans, VACUUM and
 * PostgreSQL's own code lock blinkheap pages without looking at wait
 * lists, so a waiter sleeps only while an inserter that will is there,
 * and otherwise waits for the page lock).  Every single-row insert that
 * holds a page announces itself, puts its own tuple on its page copy, and
 * then (_bh_batch_add) each published tuple that fits, leaving the
 * table's fillfactor reserve as _bh_get_insert_page does; its record
 * carries them all; the waiters' states are set before the page is let go
 * and their latches after.
 *
 * Why a waiter's TID is right and its row is as if it had inserted it:
 *  - the tuple bytes are the waiter's own, prepared by it (its xid, its
 *    command id, TOASTed by it); the holder only copies them to the page
 *    and sets t_ctid to the new TID, as _bh_place_tuple does for its own;
 *  - the waiter learns the offset only from a DONE slot, which the holder
 *    sets after its WAL record is inserted: no TID is returned for a
 *    tuple that is not on its page, and the waiter's commit record comes
 *    after that record in WAL;
 *  - a waiter cannot be cancelled out of a claimed slot (batch.c): it
 *    waits for the holder's answer, so its tuple is never both in the
 *    page and unknown to it; if it is then cancelled, its transaction
 *    aborts and the tuple is dead like any aborted insert;
 *  - SERIALIZABLE transactions never publish: heap's insert checks for
 *    the table's predicate locks with the page locked until the tuple is
 *    on it, and a waiter could check only before publishing or after its
 *    tuple landed, leaving a window in which a sequential scan could
 *    begin and read the page without the tuple (before), or commit and
 *    be summarized by PostgreSQL, its lock no longer found (after).  A
 *    SERIALIZABLE insert waits for the page lock instead
 *    (blinkam_batch_wait declines), and checks under it (_bh_insert);
 *  - the holder's hint bit stamping (_bh_stamp_xmins) runs before the
 *    waiters' tuples go in, and a waiter's xid is running, so it could not
 *    be stamped anyway.
 *
 * Lock order: as _bh_get_insert_page's; the hint's spinlock is taken with
 * no buffer lock held or with one, and nothing is done under it but
 * reading or setting the entry.
 *
 * src/table/blinkheap_hot.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/condition_variable.h"
#include "storage/freespace.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/timestamp.h"

#include "common/batch.h"
#include "common/counters.h"
#include "common/gxlog.h"
#include "common/settings.h"
#include "common/shmem.h"
#include "table/blinkheap.h"

#define HOT_ENTRIES		4096

typedef struct HotEntry
{
	slock_t		mutex;
	RelFileNode node;			/* the table these hints are for */
	BlockNumber blocks[BLINKAM_HOT_PAGES_MAX];
	BlockNumber switching[BLINKAM_HOT_PAGES_MAX];	/* a backend is finding
													 * the successor of this
													 * full hot page */
	ConditionVariable moved;	/* broadcast when a claimed switch ends */
} HotEntry;

static HotEntry *HotPages = NULL;

/*
 * The switch this backend has claimed (hot_claim_switch) and not yet
 * ended: the entry, the hot page's index in it and the full page.  Ended
 * by _bh_hot_adopt, or by the abort callbacks if finding the next page
 * fails.
 */
static HotEntry *claimed_entry = NULL;
static int	claimed_index;
static BlockNumber claimed_full;

static Size
hot_shmem_size(void)
{
	return mul_size(HOT_ENTRIES, sizeof(HotEntry));
}

static void
hot_shmem_init(void)
{
	bool		found;

	HotPages = ShmemInitStruct("blinkheap hot insert pages", hot_shmem_size(),
							   &found);
	if (!found)
	{
		for (int i = 0; i < HOT_ENTRIES; i++)
		{
			SpinLockInit(&HotPages[i].mutex);
			memset(&HotPages[i].node, 0, sizeof(RelFileNode));
			for (int j = 0; j < BLINKAM_HOT_PAGES_MAX; j++)
			{
				HotPages[i].blocks[j] = InvalidBlockNumber;
				HotPages[i].switching[j] = InvalidBlockNumber;
			}
			ConditionVariableInit(&HotPages[i].moved);
		}
	}
}

static HotEntry *
hot_entry(RelFileNode node)
{
	uint32		h = node.relNode * 0x9E3779B1u ^ node.dbNode * 0x85EBCA6Bu ^
		node.spcNode * 0xC2B2AE35u;

	return &HotPages[(h ^ (h >> 15)) % HOT_ENTRIES];
}

/* Which of the table's hot pages this backend uses. */
static int
hot_index(void)
{
	Assert(blinkam_hot_insert_pages > 0);
	return (MyProc ? MyProc->pgprocno : 0) % blinkam_hot_insert_pages;
}

/*
 * The page this backend should try first for a plain insert into rel:
 * its hot page, or (hot pages off) its own cached target block.
 * InvalidBlockNumber if none.
 */
static BlockNumber
hot_page(Relation rel)
{
	HotEntry   *e;
	BlockNumber blkno = InvalidBlockNumber;

	if (blinkam_hot_insert_pages == 0)
		return RelationGetTargetBlock(rel);
	e = hot_entry(rel->rd_node);
	SpinLockAcquire(&e->mutex);
	if (RelFileNodeEquals(e->node, rel->rd_node))
		blkno = e->blocks[hot_index()];
	SpinLockRelease(&e->mutex);
	return blkno;
}

/*
 * Make blkno this backend's hot page of rel if the hint still names old
 * (or the entry holds no hints for rel).  Returns false if another backend
 * switched it first.
 */
static bool
hot_switch(Relation rel, BlockNumber old, BlockNumber blkno)
{
	HotEntry   *e = hot_entry(rel->rd_node);
	int			i = hot_index();
	bool		won = true;

	SpinLockAcquire(&e->mutex);
	if (!RelFileNodeEquals(e->node, rel->rd_node))
	{
		/* the entry is another table's (or nobody's): take it over */
		e->node = rel->rd_node;
		for (int j = 0; j < BLINKAM_HOT_PAGES_MAX; j++)
		{
			e->blocks[j] = InvalidBlockNumber;
			e->switching[j] = InvalidBlockNumber;
		}
		e->blocks[i] = blkno;
	}
	else if (e->blocks[i] == old)
	{
		e->blocks[i] = blkno;
		e->switching[i] = InvalidBlockNumber;
	}
	else
		won = e->blocks[i] == blkno;
	SpinLockRelease(&e->mutex);
	return won;
}

/*
 * This backend found its hot page full: should it find the next one
 * (true; others that find it full meanwhile wait for the hint to move), or
 * is another backend doing that, or has the hint moved already (false)?
 */
static bool
hot_claim_switch(Relation rel, BlockNumber full)
{
	HotEntry   *e = hot_entry(rel->rd_node);
	int			i = hot_index();
	bool		mine = true;

	Assert(claimed_entry == NULL);
	SpinLockAcquire(&e->mutex);
	if (RelFileNodeEquals(e->node, rel->rd_node))
	{
		if (e->blocks[i] != full || e->switching[i] == full)
			mine = false;
		else
			e->switching[i] = full;
	}
	SpinLockRelease(&e->mutex);
	if (mine)
	{
		claimed_entry = e;
		claimed_index = i;
		claimed_full = full;
	}
	return mine;
}

/*
 * End this backend's claimed switch, if it has one: the hint has moved
 * (hot_switch), another backend moved it, or finding the next page failed.
 * Wakes the backends waiting for it either way.  No buffer lock need be
 * held or not held; safe in the abort callbacks.
 */
static void
hot_end_claim(void)
{
	HotEntry   *e = claimed_entry;

	if (e == NULL)
		return;
	claimed_entry = NULL;
	SpinLockAcquire(&e->mutex);
	if (e->switching[claimed_index] == claimed_full)
		e->switching[claimed_index] = InvalidBlockNumber;
	SpinLockRelease(&e->mutex);
	ConditionVariableBroadcast(&e->moved);
}

/*
 * Wait for the backend that claimed the switch away from full to end it.
 * Returns the new hot page; full itself if the claim ended with the hint
 * unmoved (that backend failed: the caller looks at the page again and may
 * claim the switch itself); InvalidBlockNumber if the entry went to
 * another table, or after blinkam.debug_batch_wait_timeout, the last
 * resort (the caller goes the ordinary way).
 *
 * The waiter sleeps on the entry's condition variable, holding no buffer
 * lock or pin, so the claimer gets the processor instead of a crowd of
 * backends polling the hint; interruptible.  No end is missed: the
 * condition is read under the spinlock after ConditionVariablePrepareToSleep
 * put us on the wake-up list, and every end of a claim changes it under
 * the spinlock before broadcasting.
 */
static BlockNumber
hot_await_switch(Relation rel, BlockNumber full)
{
	HotEntry   *e = hot_entry(rel->rd_node);
	int			i = hot_index();
	TimestampTz deadline;
	BlockNumber blkno;
	bool		slept = false;

	deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
										   blinkam_debug_batch_wait_timeout);
	ConditionVariablePrepareToSleep(&e->moved);
	for (;;)
	{
		bool		claimed = false;
		long		left;

		blkno = InvalidBlockNumber;
		SpinLockAcquire(&e->mutex);
		if (RelFileNodeEquals(e->node, rel->rd_node))
		{
			blkno = e->blocks[i];
			claimed = e->switching[i] == full;
		}
		SpinLockRelease(&e->mutex);
		if (blkno != full || !claimed)
			break;
		left = TimestampDifferenceMilliseconds(GetCurrentTimestamp(), deadline);
		if (left <= 0)
		{
			blinkam_count(BLINKAM_COUNTER_BATCH_WAIT_TIMEOUTS, 1);
			blkno = InvalidBlockNumber;
			break;
		}
		if (!slept)
			blinkam_count(BLINKAM_COUNTER_HOT_SWITCH_WAITS, 1);
		slept = true;
		(void) ConditionVariableTimedSleep(&e->moved, left, PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();
	return blkno;
}

/* VACUUM truncated rel: forget its hints (they may name cut pages). */
void
_bh_hot_forget(Relation rel)
{
	HotEntry   *e = hot_entry(rel->rd_node);

	SpinLockAcquire(&e->mutex);
	if (RelFileNodeEquals(e->node, rel->rd_node))
	{
		for (int j = 0; j < BLINKAM_HOT_PAGES_MAX; j++)
		{
			e->blocks[j] = InvalidBlockNumber;
			e->switching[j] = InvalidBlockNumber;
		}
	}
	SpinLockRelease(&e->mutex);
}

/*
 * A plain single-row insert's first try: the hot page.  Returns true if
 * tup (prepared, TOASTed) was put there by the page's holder in a batch:
 * tup->t_self is set and nothing is held.  Otherwise *bufp is either the
 * hot page, pinned and exclusively locked, with room (*is_new: a zero
 * page), or InvalidBuffer: the caller finds a page the ordinary way.
 * *hot is the page tried (InvalidBlockNumber if none).
 */
bool
_bh_hot_insert(Relation rel, HeapTuple tup, Buffer *bufp, bool *is_new,
			   BlockNumber *hot)
{
	BlockNumber blkno = hot_page(rel);
	Size		need = MAXALIGN(tup->t_len);
	Size		save = _bh_insert_reserve(rel, need);

	*bufp = InvalidBuffer;
	for (int tries = 0;; tries++)
	{
		Buffer		buf;
		Page		page;

		*hot = blkno;
		if (blkno == InvalidBlockNumber)
			return false;
		/* a hint we have not used: is the page still there? */
		if (blkno != RelationGetTargetBlock(rel) &&
			blkno >= RelationGetNumberOfBlocks(rel))
			return false;

		buf = ReadBuffer(rel, blkno);
		if (!ConditionalLockBuffer(buf))
		{
			const void *payload = tup->t_data;
			Size		size = tup->t_len;
			uint32		off;

			/* (one row: nothing of it can be in if an error leaves) */
			if (blinkam_batch_wait(rel, &buf, &payload, &size, 1, 0, true, &off,
								   NULL, NULL) == 1)
			{
				ItemPointerSet(&tup->t_self, blkno, (OffsetNumber) off);
				tup->t_data->t_ctid = tup->t_self;
				ReleaseBuffer(buf);
				RelationSetTargetBlock(rel, blkno);
				return true;
			}
			/* buf is locked now: handed back, or we took the page ourselves */
		}

		_bh_check_page(rel, buf);
		page = BufferGetPage(buf);
		if (_bh_page_has_room(page, need, save))
		{
			*is_new = PageIsNew(page);
			RelationSetTargetBlock(rel, blkno);
			*bufp = buf;
			return false;
		}

		/* full: say so in the map */
		RecordPageWithFreeSpace(rel, blkno, _bh_page_free_space(page));
		blinkam_batch_release(rel, buf);
		ReleaseBuffer(buf);
		RelationSetTargetBlock(rel, InvalidBlockNumber);

		/*
		 * One backend finds the next page the ordinary way and makes it the
		 * hot page; the others that find this one full meanwhile wait for
		 * that and try the new one, instead of each taking a page of its
		 * own (a herd that drains the pool and queues on the extension
		 * lock at every switch).
		 */
		if (blinkam_hot_insert_pages == 0 || tries >= 2)
			return false;
		if (hot_claim_switch(rel, blkno))
		{
			/* tests: claimed, the next page not yet found */
			blinkam_debug_pause(BLINKAM_PAUSE_HOT_SWITCH_CLAIMED);
			return false;
		}
		blkno = hot_await_switch(rel, blkno);
	}
}

/* The holder's state for _bh_batch_add. */
typedef struct BhBatchTarget
{
	Relation	rel;
	Page		page;
	BlockNumber blkno;
} BhBatchTarget;

/*
 * batch.c's add callback for blinkheap pages: put a waiter's prepared
 * tuple on the page copy of the holder's record if it fits; *result is
 * its offset.
 */
static BlinkamBatchAdd
_bh_batch_add(void *arg, const void *payload, Size size, uint32 flags,
			  uint32 *result)
{
	BhBatchTarget *t = (BhBatchTarget *) arg;
	OffsetNumber off;

	if (size < SizeofHeapTupleHeader ||
		!_bh_page_has_room(t->page, MAXALIGN(size),
						   _bh_insert_reserve(t->rel, MAXALIGN(size))))
		return BLINKAM_ADD_REFUSED;
	off = _bh_add_tuple_bytes(t->page, t->blkno, payload, size);
	if (off == InvalidOffsetNumber)
		return BLINKAM_ADD_REFUSED;
	*result = off;
	return BLINKAM_ADD_TAKEN;
}

/*
 * How a single-row insert's record registers the page in buf, a page in
 * use: in place (gxlog.c, "Appends in place"), where each tuple goes
 * after the last line pointer -- unless the page has a free one for
 * PageAddItem to reuse, when it is copied and compared.
 */
static int
_bh_insert_xlog_flags(Buffer buf)
{
	return PageHasFreeLinePointers(BufferGetPage(buf)) ? 0 : BLINKAM_XLOG_APPEND;
}

/* Count a batch of taken rows put on their page by a holder. */
static void
_bh_batch_counted(int taken)
{
	if (taken > 0)
	{
		blinkam_count(BLINKAM_COUNTER_BLINKHEAP_BATCHED_INSERTS, taken);
		blinkam_count(BLINKAM_COUNTER_BLINKHEAP_BATCHES, 1);
	}
}

/*
 * Write a single-row insert: tup (prepared) onto the page in buf (pinned,
 * exclusively locked, with room; is_new: a zero page to initialize), with
 * the tuples other backends published for the page, all in one generic
 * WAL record.  specToken, if not zero, goes into the stored tuple's
 * t_ctid (a speculative insertion).  record_free_space: also tell the
 * free space map what is left (a page that did not become the hot page).
 * Releases buf.
 */
void
_bh_insert_write(Relation rel, Buffer buf, bool is_new, HeapTuple tup,
				 uint32 specToken, bool record_free_space)
{
	BlockNumber blkno = BufferGetBlockNumber(buf);
	BlinkamXLogState *state;
	BlinkamBatch batch;
	BhBatchTarget target;
	Page		page;
	OffsetNumber off;
	Size		left;

	blinkam_batch_announce(rel, blkno);

	/*
	 * A page in use takes the tuples in place when it can
	 * (_bh_insert_xlog_flags), and the xmin stamps name what they change.
	 * From here to the record every error puts the page back before it
	 * goes on.
	 */
	state = blinkam_xlog_start(rel);
	page = blinkam_xlog_register(state, buf,
								 is_new ? GENERIC_XLOG_FULL_IMAGE :
								 _bh_insert_xlog_flags(buf));
	PG_TRY();
	{
		if (is_new)
			_bh_init_page(page);
		off = _bh_place_tuple(rel, page, blkno, tup);
		if (specToken != 0)
			HeapTupleHeaderSetSpeculativeToken((HeapTupleHeader)
											   PageGetItem(page, PageGetItemId(page, off)),
											   specToken);
		/* before the waiters' tuples: those are running, never stamped */
		_bh_stamp_xmins(state, page);

		target.rel = rel;
		target.page = page;
		target.blkno = blkno;
		batch.round = 0;
		batch.forward_to = InvalidBlockNumber;	/* a full page hands back */
		blinkam_batch_collect(rel, blkno, _bh_batch_add, &target, &batch);
	}
	PG_CATCH();
	{
		blinkam_xlog_abort(state);
		PG_RE_THROW();
	}
	PG_END_TRY();
	_bh_batch_counted(blinkam_batch_write(state, &batch));
	/* further rounds (batch.c, blinkam_batch_next_round) */
	while (blinkam_batch_next_round(rel, blkno, &batch))
		_bh_batch_counted(blinkam_batch_round(rel, buf, _bh_insert_xlog_flags(buf),
											  _bh_batch_add, &target, &target.page,
											  &batch));
	left = _bh_page_free_space(BufferGetPage(buf));
	blinkam_batch_release(rel, buf);
	ReleaseBuffer(buf);
	blinkam_batch_wake(&batch);

	if (record_free_space)
	{
		/*
		 * A page another backend did not make the hot page: make it
		 * findable from the map's root now (RecordPageWithFreeSpace
		 * changes only the bottom level), not only after VACUUM.
		 */
		RecordPageWithFreeSpace(rel, blkno, left);
		FreeSpaceMapVacuumRange(rel, blkno, blkno + 1);
	}
}

/*
 * After a plain insert found its page the ordinary way (the hot page,
 * hot, was full, or there was none): make the page it found the hot page.
 * Returns true if another backend had already switched the hint, so the
 * caller's page is not the hot one and should have its free space
 * recorded once the row is on it.
 */
bool
_bh_hot_adopt(Relation rel, BlockNumber hot, BlockNumber blkno)
{
	bool		not_hot = false;

	if (blinkam_hot_insert_pages > 0 && blkno != hot)
		not_hot = !hot_switch(rel, hot, blkno);
	/* with the hint moved, wake those who waited for it */
	hot_end_claim();
	return not_hot;
}

/* A claimed switch whose backend failed to find the next page. */
static void
hot_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
		hot_end_claim();
}

static void
hot_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					 SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		hot_end_claim();
}

/* From _PG_init. */
void
blinkheap_hot_init(void)
{
	blinkam_shmem_register(hot_shmem_size, hot_shmem_init);
	RegisterXactCallback(hot_xact_callback, NULL);
	RegisterSubXactCallback(hot_subxact_callback, NULL);
}
