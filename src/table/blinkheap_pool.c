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
 * pool (or pools off) falls back to extending: it never fails.  An insert
 * that extends while others of its table queue for the extension lock adds
 * pages for them too (_bh_extend_ahead), into the pool and the free space
 * map, where they look once they have the lock.
 *
 * A pooled page is claimed like any page the free space map offers: under
 * its exclusive buffer lock, and used only if it is still a zero page (the
 * insert initializes it as a full-image page of its own record) or has
 * room (VACUUM recorded it in the free space map while it sat in the pool
 * and another insert took it from there).
 *
 * A table takes pages from a pool only once it has as many pages as a new
 * pool's first refill adds (blinkam_pool_serves, common/pool.c); smaller,
 * it grows a page at a time as heap does, or by the pages added ahead for
 * inserts queued on its extension lock.
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
#include "common/hashfn.h"
#include "port/atomics.h"
#include "storage/bufmgr.h"
#include "storage/freespace.h"
#include "storage/lmgr.h"
#include "storage/shmem.h"

#include "common/counters.h"
#include "common/pool.h"
#include "common/shmem.h"
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
 * A block number from rel's pool that lies within the table (VACUUM may
 * have truncated it away meanwhile) and is not skip (an update's own
 * page), or InvalidBlockNumber if the pool has none.  The caller claims
 * the page under its buffer lock.
 */
static BlockNumber
pool_block(Relation rel, BlockNumber skip)
{
	BlockNumber blkno;

	while ((blkno = blinkam_pool_take(rel, true)) != InvalidBlockNumber)
	{
		if (blkno < RelationGetNumberOfBlocks(rel) && blkno != skip)
			return blkno;
	}
	return InvalidBlockNumber;
}

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
	BlockNumber skip = BufferIsValid(otherBuffer) ?
		BufferGetBlockNumber(otherBuffer) : InvalidBlockNumber;
	BlockNumber blkno;

	if (!blinkam_pool_serves(rel))
		return InvalidBuffer;
	while ((blkno = pool_block(rel, skip)) != InvalidBlockNumber)
	{
		Buffer		buf;
		Page		page;

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

/*
 * The same pool's next block number, for a backend that holds the
 * extension lock and must not lock a page under it: the caller claims
 * the page after letting the lock go, as any page the free space map
 * offers (under its lock, if it is still a zero page or has room).
 */
BlockNumber
_bh_pool_block(Relation rel, BlockNumber skip)
{
	BlockNumber blkno;

	if (!blinkam_pool_serves(rel))
		return InvalidBlockNumber;
	blkno = pool_block(rel, skip);

	if (blkno != InvalidBlockNumber)
		blinkam_count(BLINKAM_COUNTER_POOL_PAGES_TAKEN, 1);
	return blkno;
}

/*
 * Pages added ahead for each insert queued for the extension lock, and at
 * most in all: heap's bulk extension (RelationAddExtraBlocks) adds as
 * many.
 */
#define BH_AHEAD_PER_WAITER	20
#define BH_AHEAD_MAX		512

/*
 * Inserts queued for a table's extension lock, by hash of the table's
 * relfilenode (tables that share a counter only make each other add more
 * pages).  The lock's own count of waiters includes others -- a worker
 * refilling the pool, a free space map being extended -- which must not
 * make a one-row insert into an empty table add pages for them.
 */
#define BH_EXTEND_SLOTS		1024

static pg_atomic_uint32 *ExtendWaiters = NULL;

static Size
extend_shmem_size(void)
{
	return mul_size(BH_EXTEND_SLOTS, sizeof(pg_atomic_uint32));
}

static void
extend_shmem_init(void)
{
	bool		found;

	ExtendWaiters = ShmemInitStruct("blinkheap extension waiters",
									extend_shmem_size(), &found);
	if (!found)
		for (int i = 0; i < BH_EXTEND_SLOTS; i++)
			pg_atomic_init_u32(&ExtendWaiters[i], 0);
}

static pg_atomic_uint32 *
extend_waiters_of(Relation rel)
{
	uint32		h = hash_bytes((const unsigned char *) &rel->rd_node,
							   sizeof(RelFileNode));

	return &ExtendWaiters[h % BH_EXTEND_SLOTS];
}

/*
 * For an insert that found rel's extension lock taken: wait for it,
 * counted among the inserts queued there while it waits.
 */
void
_bh_wait_for_extension(Relation rel)
{
	pg_atomic_uint32 *waiters = extend_waiters_of(rel);

	pg_atomic_fetch_add_u32(waiters, 1);
	PG_TRY();
	{
		LockRelationForExtension(rel, ExclusiveLock);
	}
	PG_FINALLY();
	{
		pg_atomic_fetch_sub_u32(waiters, 1);
	}
	PG_END_TRY();
}

/*
 * For a backend that holds rel's extension lock and is about to add a page
 * for itself: if other backends queue for the lock behind it, add zero
 * pages for them too, so that they find pages when they get the lock (see
 * _bh_get_insert_page) instead of each extending by one page in turn.  On
 * 2 cores with 256 pipelined IoT clients, most inserts found the pool
 * empty -- its worker refills it only when it gets a processor -- and
 * extended the table one page at a time: the extension lock was 79-99% of
 * the waits (bench/results/blinkheap-extend-2core-20261126.md).
 *
 * The pages go to the table's pool, as a worker's refill would put them,
 * and those past its capacity (or all, with pools off) to the free space
 * map, made findable from its root at once.  They are zero pages, like a
 * pool's: whoever takes one initializes it in its own record; one that
 * nobody takes stays a zero page of the table, which scans skip and
 * VACUUM records as free.  Nothing is locked here but the map's and the
 * pool's own locks; the new buffers are only pinned, and let go at once.
 */
void
_bh_extend_ahead(Relation rel, BufferAccessStrategy strategy)
{
	int			waiters = (int) pg_atomic_read_u32(extend_waiters_of(rel));
	int			n;
	BlockNumber *blocks;
	int			pooled = 0;

	/* inserts of this table queued for its lock: both counts agree on */
	if (waiters > 0)
		waiters = Min(waiters, RelationExtensionLockWaiterCount(rel));
	n = Min(BH_AHEAD_MAX, waiters * BH_AHEAD_PER_WAITER);

	if (n == 0)
		return;
	blocks = palloc(sizeof(BlockNumber) * n);
	for (int i = 0; i < n; i++)
	{
		Buffer		buf = ReadBufferExtended(rel, MAIN_FORKNUM, P_NEW,
											 RBM_NORMAL, strategy);

		blocks[i] = BufferGetBlockNumber(buf);
		ReleaseBuffer(buf);
	}
	/* a pool takes them in order, up to its capacity */
	if (blinkam_pool_applies(rel))
		pooled = blinkam_pool_add(rel->rd_node, blocks, n, n);
	for (int i = pooled; i < n; i++)
		_bh_record_free_page(rel, blocks[i]);
	if (pooled < n)
		FreeSpaceMapVacuumRange(rel, blocks[pooled], blocks[n - 1] + 1);
	blinkam_count(BLINKAM_COUNTER_BLINKHEAP_PAGES_AHEAD, n);
	pfree(blocks);
}

/* From _PG_init: let the workers serve blinkheap tables' pools. */
void
blinkheap_init(void)
{
	blinkam_register_relation_kind(&blinkheap_relation_kind);
	blinkam_shmem_register(extend_shmem_size, extend_shmem_init);
	blinkheap_hot_init();
	blinkheap_csn_init();
	blinkheap_publication_init();
}
