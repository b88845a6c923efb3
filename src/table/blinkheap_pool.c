/*-------------------------------------------------------------------------
 *
 * blinkheap_pool.c
 *	  Insert pages of blinkheap tables from the page pools (common/pool.c),
 *	  and what the workers need to know of blinkheap tables.
 *
 * When an insert finds no page with room (its cached target block and the
 * free space map failed), it takes a zero page that a worker added to the
 * table ahead of need, instead of extending the table itself under the
 * relation extension lock while other inserters queue behind it.  The
 * worker extends in batches, one extension lock hold per refill.  An empty
 * pool (or pools off) falls back to extending: it never fails.
 *
 * A pooled page is claimed like any page the free space map offers: under
 * its exclusive buffer lock, and used only if it is still a zero page (the
 * insert initializes it as a full-image page of its own record) or has
 * room (VACUUM recorded it in the free space map while it sat in the pool
 * and another insert took it from there).
 *
 * Pages a pool held when the server stopped stay zero pages of the table:
 * scans skip them, VACUUM records them in the free space map (the workers'
 * start-up sweep reads only indexes), and inserts find them there.
 *
 * src/table/blinkheap_pool.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "storage/bufmgr.h"
#include "storage/freespace.h"

#include "common/counters.h"
#include "common/pool.h"
#include "common/workers.h"
#include "table/blinkheap.h"

/* Record a zero page as wholly free (a recycled pool's page). */
static void
_bh_record_free_page(Relation rel, BlockNumber blkno)
{
	RecordPageWithFreeSpace(rel, blkno, BLINKHEAP_MAX_TUPLE_SIZE);
}

static const BlinkamRelationKind blinkheap_relation_kind = {
	.amname = "blinkheap",
	.relkind = RELKIND_RELATION,
	.first_block = 0,
	.sweep = false,
	.take_free_page = NULL,		/* the map cannot tell wholly free pages */
	.record_free_page = _bh_record_free_page,
	.free_pages_recorded = FreeSpaceMapVacuum,
	.repair_page = NULL,
};

/*
 * A page from rel's pool with room for need bytes (need + save for a page
 * in use), or InvalidBuffer if the pool has none.  Returned pinned and
 * exclusively locked -- together with otherBuffer, if valid, in block
 * order (_bh_lock_pair) -- with *is_new telling whether it is a zero page
 * to initialize.  otherBlock is never returned.
 */
Buffer
_bh_pool_page(Relation rel, Size need, Size save, Buffer otherBuffer,
			  BufferAccessStrategy strategy, bool *is_new)
{
	BlockNumber blkno;

	if (!blinkam_pool_applies(rel))
		return InvalidBuffer;
	while ((blkno = blinkam_pool_take(rel, true)) != InvalidBlockNumber)
	{
		Buffer		buf;
		Page		page;

		if (blkno >= RelationGetNumberOfBlocks(rel) ||
			(BufferIsValid(otherBuffer) && blkno == BufferGetBlockNumber(otherBuffer)))
			continue;			/* truncated away meanwhile, or ours */
		buf = ReadBufferExtended(rel, MAIN_FORKNUM, blkno, RBM_NORMAL, strategy);
		_bh_lock_pair(buf, otherBuffer);
		_bh_check_page(rel, buf);
		page = BufferGetPage(buf);
		if (_bh_page_has_room(page, need, save))
		{
			*is_new = PageIsNew(page);
			blinkam_count(BLINKAM_COUNTER_POOL_PAGES_TAKEN, 1);
			return buf;
		}
		/* taken through the free space map and filled: try the next */
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		if (BufferIsValid(otherBuffer))
			LockBuffer(otherBuffer, BUFFER_LOCK_UNLOCK);
		ReleaseBuffer(buf);
	}
	blinkam_count(BLINKAM_COUNTER_POOL_MISSES, 1);
	return InvalidBuffer;
}

/* From _PG_init: let the workers serve blinkheap tables' pools. */
void
blinkheap_init(void)
{
	blinkam_register_relation_kind(&blinkheap_relation_kind);
	blinkheap_hot_init();
	blinkheap_csn_init();
	blinkheap_publication_init();
}
