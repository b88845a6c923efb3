/*-------------------------------------------------------------------------
 *
 * blinkrepair.c
 *	  What the blinkam workers do for blink indexes: refill page pools
 *	  from the index free space map, and finish splits a crash left
 *	  incomplete.
 *
 * After a crash (or an error in a split cascade) a page may stay flagged
 * INCOMPLETE_SPLIT.  Correctness never depends on the workers -- writers
 * finish such splits when they need to -- but a worker looks at every
 * page of every blink index after each start (worker.c) and finishes the
 * splits it finds, so that no user action is needed.  A flagged page is
 * locked exclusively and handed to _blink_finish_or_wait, which finishes
 * the split unless a live backend is finishing it (then it waits for that
 * backend).  Each finish counts in splits_repaired_by_worker.
 *
 * src/index/blinkrepair.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "storage/bufmgr.h"
#include "storage/indexfsm.h"
#include "utils/rel.h"

#include "common/counters.h"
#include "common/workers.h"
#include "index/blink.h"

/*
 * Look at block blkno of rel; if it is flagged INCOMPLETE_SPLIT, get the
 * split finished.  *isnew tells whether the block was a zero page.  Takes
 * and releases its own pin and locks.
 */
static void
_blink_repair_page(Relation rel, BlockNumber blkno, bool *isnew)
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
		return;
	}

	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	if (!BlinkPageIsIncompleteSplit(BlinkPageGetOpaque(BufferGetPage(buf))))
	{
		_blink_relbuf(rel, buf);	/* finished meanwhile */
		return;
	}
	/* releases buf; false if a live backend was finishing it (we waited) */
	if (_blink_finish_or_wait(rel, buf))
		blinkam_count(BLINKAM_COUNTER_SPLITS_REPAIRED_BY_WORKER, 1);
}

static const BlinkamRelationKind blink_relation_kind = {
	.amname = "blink",
	.relkind = RELKIND_INDEX,
	.first_block = BLINK_METAPAGE + 1,
	.sweep = true,
	.take_free_page = GetFreeIndexPage,
	.record_free_page = RecordFreeIndexPage,
	.free_pages_recorded = IndexFreeSpaceMapVacuum,
	.repair_page = _blink_repair_page,
};

/* From _PG_init: let the workers serve blink indexes. */
void
_blink_repair_init(void)
{
	blinkam_register_relation_kind(&blink_relation_kind);
}
