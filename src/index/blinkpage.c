/*-------------------------------------------------------------------------
 *
 * blinkpage.c
 *	  Page management for blink: initialization, the metapage and the
 *	  cached root, buffer access, and claiming new pages.
 *
 * Claiming a page: every path that hands out a page for a split checks,
 * under an exclusive buffer lock, that the page is new (all zeroes) before
 * the caller initializes it; a page that fails the check is never used.
 * Free space map entries and freshly extended blocks are both checked, so
 * a block can never be given to two splits.
 *
 * src/index/blinkpage.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "storage/freespace.h"
#include "storage/indexfsm.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "common/batch.h"
#include "common/counters.h"
#include "common/pool.h"
#include "index/blink.h"

/*
 * Initialize an empty blink page with the given flags and level.
 */
void
_blink_init_page(Page page, uint16 flags, uint16 level)
{
	BlinkPageOpaque opaque;

	PageInit(page, BLCKSZ, sizeof(BlinkPageOpaqueData));
	opaque = BlinkPageGetOpaque(page);
	opaque->blink_prev = InvalidBlockNumber;
	opaque->blink_next = InvalidBlockNumber;
	opaque->blink_version = 0;
	opaque->blink_level = level;
	opaque->blink_flags = flags;
	opaque->blink_nsorted = 0;
	opaque->blink_cycleid = 0;
	opaque->blink_page_id = BLINK_PAGE_ID;
}

/*
 * Initialize the metapage.  Its data sits below pd_lower so that generic
 * WAL (which treats pd_lower..pd_upper as a hole) keeps it.
 */
void
_blink_init_metapage(Page page, BlockNumber root, uint32 level)
{
	BlinkMetaPageData *meta;

	_blink_init_page(page, BLINK_META, 0);
	meta = BlinkPageGetMeta(page);
	meta->blinkm_magic = BLINK_MAGIC;
	meta->blinkm_version = BLINK_VERSION;
	meta->blinkm_root = root;
	meta->blinkm_level = level;
	((PageHeader) page)->pd_lower =
		((char *) meta + sizeof(BlinkMetaPageData)) - (char *) page;
}

/* Record that a page changed: bump its version (see BlinkPageOpaqueData). */
void
_blink_page_changed(Page page)
{
	BlinkPageGetOpaque(page)->blink_version++;
}

/*
 * Raise the error every corruption report of a blink index uses, from
 * blink_check and from the checks normal operation makes on its way:
 * ERRCODE_INDEX_CORRUPTED, a message that says the index is corrupted, a
 * detail naming the block (InvalidBlockNumber when the broken invariant is
 * not about one page, such as a table row without its entry) and what is
 * wrong there, and a hint that REINDEX rebuilds it from the table.
 */
void
_blink_corrupted(Relation rel, BlockNumber blkno, const char *fmt,...)
{
	StringInfoData what;
	char	   *name;

	initStringInfo(&what);
	for (;;)
	{
		va_list		args;
		int			needed;

		va_start(args, fmt);
		needed = appendStringInfoVA(&what, fmt, args);
		va_end(args);
		if (needed == 0)
			break;
		enlargeStringInfo(&what, needed);
	}
	name = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
									  RelationGetRelationName(rel));
	if (BlockNumberIsValid(blkno))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("blink index \"%s\" is corrupted",
						RelationGetRelationName(rel)),
				 errdetail("Block %u: %s.", blkno, what.data),
				 errhint("Rebuild it from its table with REINDEX INDEX %s.", name)));
	/* A detail is a sentence: it starts with a capital. */
	what.data[0] = pg_toupper((unsigned char) what.data[0]);
	ereport(ERROR,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("blink index \"%s\" is corrupted",
					RelationGetRelationName(rel)),
			 errdetail("%s.", what.data),
			 errhint("Rebuild it from its table with REINDEX INDEX %s.", name)));
}

/*
 * Verify that a buffer holds a sane blink page; report the index
 * corrupted otherwise.  The caller holds a pin and a lock.
 */
void
_blink_checkpage(Relation rel, Buffer buf)
{
	Page		page = BufferGetPage(buf);

	if (PageIsNew(page))
		_blink_corrupted(rel, BufferGetBlockNumber(buf),
						 "unexpected all-zero page inside the tree");
	if (PageGetSpecialSize(page) != MAXALIGN(sizeof(BlinkPageOpaqueData)))
		_blink_corrupted(rel, BufferGetBlockNumber(buf),
						 "not a blink page (special space of %u bytes)",
						 (unsigned) PageGetSpecialSize(page));
	if (BlinkPageGetOpaque(page)->blink_page_id != BLINK_PAGE_ID)
		_blink_corrupted(rel, BufferGetBlockNumber(buf),
						 "not a blink page (page id %04X)",
						 BlinkPageGetOpaque(page)->blink_page_id);
}

/*
 * Pin and lock block blkno (access is BUFFER_LOCK_SHARE or
 * BUFFER_LOCK_EXCLUSIVE) and check that it is a blink page.  Returns the
 * pinned, locked buffer; release it with _blink_relbuf.
 */
Buffer
_blink_getbuf(Relation rel, BlockNumber blkno, int access)
{
	Buffer		buf;

	Assert(BlockNumberIsValid(blkno));
	buf = ReadBuffer(rel, blkno);
	_blink_lockbuf(rel, buf, access);
	return buf;
}

/*
 * Pin block blkno of rel if buffer recent (InvalidBuffer: not known) still
 * holds it, without the buffer-mapping lookup (ReadRecentBuffer), counted
 * as ReadBuffer counts a hit, for pg_statio_*_indexes.  Returns false,
 * pinning nothing, if it does not.
 */
bool
_blink_pin_recent(Relation rel, BlockNumber blkno, Buffer recent)
{
	if (!BufferIsValid(recent) ||
		!ReadRecentBuffer(rel->rd_node, MAIN_FORKNUM, blkno, recent))
		return false;
	pgstat_count_buffer_read(rel);
	pgstat_count_buffer_hit(rel);
	return true;
}

/*
 * Pin block blkno of rel only if a buffer holds it already -- recent
 * first, else the buffer the mapping names (PrefetchBuffer, which at most
 * asks the kernel to read ahead) -- and return that buffer; InvalidBuffer,
 * pinning nothing, if none does.  No read and no eviction, so a backend
 * holding leaf locks may call it: a flush looking for its next leaves.
 */
Buffer
_blink_pin_cached(Relation rel, BlockNumber blkno, Buffer recent)
{
	PrefetchBufferResult found;

	if (_blink_pin_recent(rel, blkno, recent))
		return recent;
	found = PrefetchBuffer(rel, MAIN_FORKNUM, blkno);
	if (_blink_pin_recent(rel, blkno, found.recent_buffer))
		return found.recent_buffer;
	return InvalidBuffer;
}

/*
 * Lock buf (pinned) in mode access and check that it is a blink page;
 * a lock that had to wait is counted, by the kind of page.
 */
void
_blink_lockbuf(Relation rel, Buffer buf, int access)
{
	bool		waited = blinkam_lock_waited(buf, access);

	_blink_checkpage(rel, buf);
	if (waited)
	{
		Page		page = BufferGetPage(buf);

		blinkam_count(BlinkPageIsLeaf(BlinkPageGetOpaque(page)) ?
					  BLINKAM_COUNTER_LEAF_LOCK_WAITS :
					  BLINKAM_COUNTER_INTERNAL_LOCK_WAITS, 1);
	}
}

/*
 * Unlock buf (keeping the pin).  Releasing a leaf wakes the backends that
 * published tuples for it meanwhile (batch.c: every release of a leaf
 * lock must, since any lock holder may have made a waiter's try fail).
 */
void
_blink_unlock(Relation rel, Buffer buf)
{
	Page		page = BufferGetPage(buf);
	bool		leaf = !PageIsNew(page) &&
		BlinkPageIsLeaf(BlinkPageGetOpaque(page));

	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	if (leaf)
		blinkam_batch_after_release(rel, BufferGetBlockNumber(buf));
}

/* Unlock and unpin. */
void
_blink_relbuf(Relation rel, Buffer buf)
{
	_blink_unlock(rel, buf);
	ReleaseBuffer(buf);
}

/*
 * Release obuf (locked and pinned) and return blkno locked in access mode.
 * This is not lock coupling: nothing is held between the two.
 */
Buffer
_blink_relandgetbuf(Relation rel, Buffer obuf, BlockNumber blkno, int access)
{
	Buffer		buf;

	_blink_unlock(rel, obuf);
	buf = ReleaseAndReadBuffer(obuf, rel, blkno);
	_blink_lockbuf(rel, buf, access);
	return buf;
}

/*
 * Try to claim block blkno as a new page: lock it at once (a page locked
 * by someone else is being claimed or used) and check that it is all
 * zeroes.  Returns the buffer pinned and exclusively locked, or
 * InvalidBuffer.
 */
static Buffer
_blink_try_claim(Relation rel, BlockNumber blkno)
{
	Buffer		buf;

	if (blkno >= RelationGetNumberOfBlocks(rel))
		return InvalidBuffer;
	buf = ReadBuffer(rel, blkno);
	if (ConditionalLockBuffer(buf))
	{
		if (PageIsNew(BufferGetPage(buf)))
			return buf;
		_blink_unlock(rel, buf);	/* a leaf in use: it may have waiters */
	}
	ReleaseBuffer(buf);
	return InvalidBuffer;
}

/*
 * Claim a page for a split of a leaf (leaf) or internal page: from the
 * index's page pool (once the index is big enough to have one:
 * blinkam_pool_serves), else from the free space map, else by extending
 * the relation.  Returns it pinned and exclusively locked, still all zeroes:
 * the caller initializes it (as a full-image page of its generic WAL
 * record).
 *
 * The caller may hold other buffer locks: pooled and free-space-map pages
 * are only locked conditionally, and a new block at the end of the
 * relation is reachable by nobody else, so no deadlock can arise.
 */
Buffer
_blink_newpage(Relation rel, bool leaf)
{
	Buffer		buf;
	BlockNumber blkno;
	bool		needLock;

	if (blinkam_pool_serves(rel))
	{
		while ((blkno = blinkam_pool_take(rel, leaf)) != InvalidBlockNumber)
		{
			buf = _blink_try_claim(rel, blkno);
			if (BufferIsValid(buf))
			{
				blinkam_count(BLINKAM_COUNTER_POOL_PAGES_TAKEN, 1);
				return buf;
			}
			/* taken through the free space map meanwhile: try the next */
		}
		blinkam_count(BLINKAM_COUNTER_POOL_MISSES, 1);
	}

	while ((blkno = GetFreeIndexPage(rel)) != InvalidBlockNumber)
	{
		buf = _blink_try_claim(rel, blkno);
		if (BufferIsValid(buf))
			return buf;
	}

	/*
	 * The new block comes locked (RBM_ZERO_AND_LOCK): between ReadBuffer
	 * and a separate LockBuffer, the worker's sweep for zero pages could
	 * find it zero and record it in the free space map, and another split
	 * take and initialize it before we lock it.
	 */
	needLock = !RELATION_IS_LOCAL(rel);
	if (needLock)
		LockRelationForExtension(rel, ExclusiveLock);
	buf = ReadBufferExtended(rel, MAIN_FORKNUM, P_NEW, RBM_ZERO_AND_LOCK, NULL);
	if (needLock)
		UnlockRelationForExtension(rel, ExclusiveLock);

	if (!PageIsNew(BufferGetPage(buf)))
		elog(ERROR, "new block %u of index \"%s\" is not empty",
			 BufferGetBlockNumber(buf), RelationGetRelationName(rel));
	return buf;
}

/*
 * Read the metapage into *copy (share lock, released before returning).
 */
BlinkMetaPageData *
_blink_read_meta(Relation rel, BlinkMetaPageData *copy)
{
	Buffer		buf = _blink_getbuf(rel, BLINK_METAPAGE, BUFFER_LOCK_SHARE);
	Page		page = BufferGetPage(buf);
	BlinkMetaPageData *meta = BlinkPageGetMeta(page);

	if (!BlinkPageIsMeta(BlinkPageGetOpaque(page)) ||
		meta->blinkm_magic != BLINK_MAGIC)
		_blink_corrupted(rel, BLINK_METAPAGE,
						 "the metapage has no blink magic number");
	if (meta->blinkm_version != BLINK_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("blink index \"%s\" has version %u, expected %u",
						RelationGetRelationName(rel), meta->blinkm_version,
						BLINK_VERSION),
				 errhint("REINDEX it with this version of blinkam.")));
	memcpy(copy, meta, sizeof(BlinkMetaPageData));
	_blink_relbuf(rel, buf);
	return copy;
}

/*
 * The root block and its level, from the copy of the metapage cached in
 * rd_amcache (read afresh when refresh is true or nothing is cached).
 *
 * A stale answer is safe: a root only ever stops being the root by
 * splitting, and a former root is still a page of the tree from which a
 * descent reaches every key by moving right; descents that find the
 * cached root no longer flagged BLINK_ROOT refresh the cache.
 */
BlockNumber
_blink_getroot(Relation rel, uint32 *level, bool refresh)
{
	BlinkRelCache *cache = _blink_relcache(rel);

	if (!cache->meta_valid || refresh)
	{
		_blink_read_meta(rel, &cache->meta);
		cache->meta_valid = true;
	}
	*level = cache->meta.blinkm_level;
	return cache->meta.blinkm_root;
}

/*
 * What this backend keeps about the index in rd_amcache (dropped with the
 * relcache entry, so a change of the index's options is seen).
 */
BlinkRelCache *
_blink_relcache(Relation rel)
{
	if (rel->rd_amcache == NULL)
	{
		BlinkRelCache *cache = MemoryContextAllocZero(rel->rd_indexcxt,
													  sizeof(BlinkRelCache));

		cache->dedup = -1;
		cache->in_c = -1;
		cache->hint_last = -1;
		rel->rd_amcache = cache;
	}
	return (BlinkRelCache *) rel->rd_amcache;
}

void
_blink_forget_root(Relation rel)
{
	if (rel->rd_amcache)
		((BlinkRelCache *) rel->rd_amcache)->meta_valid = false;
}
