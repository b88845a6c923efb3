/*-------------------------------------------------------------------------
 *
 * blinkheap_page.c
 *	  blinkheap pages: initialization, validation, and finding a page to
 *	  insert into.
 *
 * A page that any code path reads is checked first (_bh_check_page): its
 * special area must carry BLINKHEAP_PAGE_ID and its header must be sane,
 * otherwise the reader raises ERRCODE_DATA_CORRUPTED naming the table and
 * block instead of following bad offsets.  An all-zero page is legal: it
 * is a block that was added to the relation but whose first WAL record
 * never made it (an error between extension and the record, or a crash);
 * scans skip it and the insert path initializes it.
 *
 * Finding an insert page (_bh_get_insert_page) is kept in one function.
 * The order: the relation's cached target block, then the free space map,
 * then a zero page from the table's pool, then a new block.  (A plain
 * single-row insert first tries the table's hot page: blinkheap_hot.c.)  A new block is returned zero-filled and locked; whoever
 * writes it first initializes it inside that same generic WAL record,
 * registered with GENERIC_XLOG_FULL_IMAGE, so no WAL record ever describes
 * a half-initialized page.
 *
 * src/table/blinkheap_page.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/hio.h"
#include "access/xlog.h"
#include "executor/tuptable.h"
#include "storage/freespace.h"
#include "storage/lmgr.h"

#include "common/gxlog.h"
#include "common/settings.h"
#include "table/blinkheap.h"

/*
 * Initialize an empty blinkheap page.  The caller is writing a page copy
 * inside a generic WAL record (registered with GENERIC_XLOG_FULL_IMAGE).
 */
void
_bh_init_page(Page page)
{
	BlinkheapPageOpaque opaque;

	PageInit(page, BLCKSZ, sizeof(BlinkheapPageOpaqueData));
	opaque = BlinkheapPageGetOpaque(page);
	opaque->bh_reserved = 0;
	opaque->bh_flags = 0;
	opaque->bh_page_id = BLINKHEAP_PAGE_ID;
}

/*
 * Raise the corruption error for the table, naming block and offset
 * (InvalidOffsetNumber when the page as a whole is bad).
 */
void
_bh_corrupted(Relation rel, BlockNumber blkno, OffsetNumber off,
			  const char *detail)
{
	if (OffsetNumberIsValid(off))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("blinkheap table \"%s\" is corrupted",
						RelationGetRelationName(rel)),
				 errdetail("Block %u, offset %u: %s.", blkno, off, detail)));
	else
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("blinkheap table \"%s\" is corrupted",
						RelationGetRelationName(rel)),
				 errdetail("Block %u: %s.", blkno, detail)));
}

/*
 * Check that a buffer holds a blinkheap page (or a new, all-zero one).
 * The caller holds a pin and at least a share lock.
 */
void
_bh_check_page(Relation rel, Buffer buf)
{
	Page		page = BufferGetPage(buf);
	PageHeader	ph = (PageHeader) page;
	BlockNumber blkno = BufferGetBlockNumber(buf);

	if (PageIsNew(page))
		return;
	if (PageGetPageSize(page) != BLCKSZ ||
		ph->pd_special != BLCKSZ - BLINKHEAP_SPECIAL_SIZE)
		_bh_corrupted(rel, blkno, InvalidOffsetNumber,
					  "the special area is not a blinkheap special area");
	if (BlinkheapPageGetOpaque(page)->bh_page_id != BLINKHEAP_PAGE_ID)
		_bh_corrupted(rel, blkno, InvalidOffsetNumber,
					  "the page id is not blinkheap's");
	if (ph->pd_lower < SizeOfPageHeaderData || ph->pd_lower > ph->pd_upper ||
		ph->pd_upper > ph->pd_special)
		_bh_corrupted(rel, blkno, InvalidOffsetNumber,
					  "pd_lower, pd_upper and pd_special are out of order");
}

/*
 * Point tuple at item off of the (already checked) page, block blkno;
 * false if the offset is past the end of the line pointer array or the
 * line pointer holds no tuple.  A normal line pointer whose extent leaves
 * the tuple area, or whose tuple header is too short, is corruption.
 *
 * The page is a share-locked (at least) buffer's, or a private copy of one
 * made under that lock (a scan during recovery, see _bh_store_tuple).
 */
bool
_bh_get_tuple_at(Relation rel, Page page, BlockNumber blkno, OffsetNumber off,
				 HeapTuple tuple)
{
	PageHeader	ph = (PageHeader) page;
	ItemId		lp;
	unsigned	lpoff,
				lplen;
	HeapTupleHeader htup;

	if (PageIsNew(page) || off < FirstOffsetNumber ||
		off > PageGetMaxOffsetNumber(page))
		return false;
	lp = PageGetItemId(page, off);
	if (!ItemIdIsNormal(lp))
		return false;

	lpoff = ItemIdGetOffset(lp);
	lplen = ItemIdGetLength(lp);
	if (lpoff < ph->pd_upper || lpoff + lplen > ph->pd_special ||
		lpoff != MAXALIGN(lpoff))
		_bh_corrupted(rel, blkno, off, "the line pointer leaves the tuple area");
	if (lplen < SizeofHeapTupleHeader)
		_bh_corrupted(rel, blkno, off, "the tuple is shorter than a tuple header");
	htup = (HeapTupleHeader) PageGetItem(page, lp);
	if (htup->t_hoff < SizeofHeapTupleHeader || htup->t_hoff > lplen ||
		htup->t_hoff != MAXALIGN(htup->t_hoff))
		_bh_corrupted(rel, blkno, off, "t_hoff is out of range");

	tuple->t_data = htup;
	tuple->t_len = lplen;
	tuple->t_tableOid = RelationGetRelid(rel);
	ItemPointerSet(&tuple->t_self, blkno, off);
	return true;
}

/* The same for the page of buf, which the caller pins and share-locks. */
bool
_bh_get_tuple(Relation rel, Buffer buf, OffsetNumber off, HeapTuple tuple)
{
	return _bh_get_tuple_at(rel, BufferGetPage(buf), BufferGetBlockNumber(buf),
							off, tuple);
}

/*
 * Put a tuple of the page in buf into a buffer slot for the executor.
 * The caller holds a pin and at least a share lock on buf.
 *
 * On a primary the slot points into the page and takes its own pin: the
 * tuple's bytes cannot move while any pin is held, because the only thing
 * that moves them, VACUUM's compaction, takes a cleanup lock.
 *
 * During recovery a pin protects nothing: generic WAL's redo applies the
 * compaction under an exclusive lock only (it never asks for a cleanup
 * lock), so a tuple a standby query reads through a pin can move under
 * it.  There the slot gets its own copy of the tuple, made now, under the
 * caller's lock, and holds no pin.  Scans that return tuples after
 * releasing the lock copy the whole page under it instead
 * (blinkheap_scan.c) and store from that copy with _bh_store_copy.
 */
void
_bh_store_tuple(TupleTableSlot *slot, HeapTuple tuple, Buffer buf)
{
	if (RecoveryInProgress())
		_bh_store_copy(slot, tuple);
	else
		ExecStoreBufferHeapTuple(tuple, slot, buf);
}

/*
 * Store a copy of tuple, whose bytes the caller keeps stable (a lock, or a
 * private page copy), in a buffer slot; the slot owns the copy.
 */
void
_bh_store_copy(TupleTableSlot *slot, HeapTuple tuple)
{
	ExecForceStoreHeapTuple(tuple, slot, false);
	/* a forced store leaves these unset; the executor uses both */
	slot->tts_tid = tuple->t_self;
	slot->tts_tableOid = tuple->t_tableOid;
}

/*
 * Room for one more tuple on the page: free bytes less a line pointer,
 * zero when the line pointer array is full and none of its line pointers
 * is unused (PageAddItem reuses an unused one; VACUUM frees them).  Our
 * pages have heap's layout and limit, so PostgreSQL's own rule for heap
 * pages is ours.
 */
Size
_bh_page_free_space(Page page)
{
	StaticAssertStmt(BLINKHEAP_MAX_TUPLES_PER_PAGE == MaxHeapTuplesPerPage,
					 "blinkheap pages hold as many line pointers as heap's");
	if (PageIsNew(page))
		return BLINKHEAP_MAX_TUPLE_SIZE;
	return PageGetHeapFreeSpace(page);
}

/*
 * Put a prepared tuple (header complete but for t_ctid) on a page copy
 * that the caller registered in its generic WAL record, and set both the
 * tuple's t_self and the stored copy's t_ctid to the new TID.  The caller
 * checked that it fits.  PageAddItem reuses an LP_UNUSED line pointer if
 * the page has one (VACUUM frees them only after every index has
 * forgotten their TIDs: blinkheap_vacuum.c), else appends one.
 */
OffsetNumber
_bh_place_tuple(Relation rel, Page page, BlockNumber blkno, HeapTuple tuple)
{
	OffsetNumber off;

	off = _bh_add_tuple_bytes(page, blkno, tuple->t_data, tuple->t_len);
	if (off == InvalidOffsetNumber)
		elog(ERROR, "failed to add tuple to page %u of blinkheap table \"%s\"",
			 blkno, RelationGetRelationName(rel));
	ItemPointerSet(&tuple->t_self, blkno, off);
	tuple->t_data->t_ctid = tuple->t_self;
	return off;
}

/*
 * The part of _bh_place_tuple that touches only the page: add a prepared
 * tuple's len bytes (not changed: they may be another backend's, in
 * shared memory) and set the stored copy's t_ctid to its new TID.
 * Returns its offset, or InvalidOffsetNumber if the page had no room.
 */
OffsetNumber
_bh_add_tuple_bytes(Page page, BlockNumber blkno, const void *data, Size len)
{
	OffsetNumber off;
	HeapTupleHeader stored;

	off = PageAddItemExtended(page, (Item) data, len, InvalidOffsetNumber,
							  PAI_IS_HEAP);
	if (off == InvalidOffsetNumber)
		return InvalidOffsetNumber;
	stored = (HeapTupleHeader) PageGetItem(page, PageGetItemId(page, off));
	ItemPointerSet(&stored->t_ctid, blkno, off);
	return off;
}

/*
 * Free space an insert of need (MAXALIGNed) bytes must leave on a page in
 * use, for later updates: the table's fillfactor reserve.  A tuple that
 * would not leave it even on an empty page goes, as with heap
 * (RelationGetBufferForTuple), to a page that is empty or nearly so (the
 * free space of an empty page less a few line pointers left by VACUUM),
 * never to just any page with room for the tuple alone: that packed the
 * wide rows of a low-fillfactor table (fillfactor 10, rows over 800 bytes)
 * as tightly as fillfactor 100 would.
 */
Size
_bh_insert_reserve(Relation rel, Size need)
{
	Size		save = RelationGetTargetPageFreeSpace(rel, HEAP_DEFAULT_FILLFACTOR);
	Size		nearly_empty = BLINKHEAP_MAX_TUPLE_SIZE -
		(BLINKHEAP_MAX_TUPLES_PER_PAGE / 8 * sizeof(ItemIdData));

	if (need + save > nearly_empty)
		return Max(need, nearly_empty) - need;
	return save;
}

/*
 * Does the page (checked, locked) take an insert of need (MAXALIGNed)
 * bytes leaving save free?  A zero page always does.
 */
bool
_bh_page_has_room(Page page, Size need, Size save)
{
	return PageIsNew(page) || need + save <= _bh_page_free_space(page);
}

/*
 * Lock buf (and otherBuffer, if valid) exclusively, lower block number
 * first.  Both are pinned by the caller.
 */
void
_bh_lock_pair(Buffer buf, Buffer otherBuffer)
{
	if (!BufferIsValid(otherBuffer))
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	else if (BufferGetBlockNumber(buf) < BufferGetBlockNumber(otherBuffer))
	{
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		LockBuffer(otherBuffer, BUFFER_LOCK_EXCLUSIVE);
	}
	else
	{
		LockBuffer(otherBuffer, BUFFER_LOCK_EXCLUSIVE);
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	}
}

/*
 * _bh_get_insert_page: a page with room for a tuple of len bytes.
 *
 * Returns a pinned, exclusively locked buffer.  *is_new says the page is
 * all zeroes: the caller must register it with GENERIC_XLOG_FULL_IMAGE and
 * call _bh_init_page on the copy before placing anything.
 *
 * otherBuffer, if valid, is a buffer the caller has pinned but not locked
 * (the old page of an update); the result is then a different page, and
 * on return otherBuffer is exclusively locked too.  The two are locked in
 * block number order, so two updates moving rows between the same pages
 * cannot deadlock.
 *
 * Existing pages must leave the table's fillfactor free (as heap does); a
 * new page always takes the tuple.  len must be at most
 * BLINKHEAP_MAX_TUPLE_SIZE.
 */
Buffer
_bh_get_insert_page(Relation rel, Size len, Buffer otherBuffer,
					BulkInsertState bistate, bool *is_new)
{
	BufferAccessStrategy strategy = bistate ? bistate->strategy : NULL;
	BlockNumber otherBlock = BufferIsValid(otherBuffer) ?
		BufferGetBlockNumber(otherBuffer) : InvalidBlockNumber;
	Size		need = MAXALIGN(len);
	Size		save = _bh_insert_reserve(rel, need);
	BlockNumber target;
	Buffer		buf;
	Page		page;
	Size		freespace;

	Assert(need <= BLINKHEAP_MAX_TUPLE_SIZE);

	target = RelationGetTargetBlock(rel);
	if (target == InvalidBlockNumber)
		target = GetPageWithFreeSpace(rel, need + save);

	/*
	 * A backend's first insert into a table whose free space map knows no
	 * page (a table that has only grown: pages are recorded there only when
	 * found full, or by VACUUM) tries the last page before taking a new
	 * one, as heap does.  Without this, every new connection's first row
	 * took a page of its own: 30 connections inserting a row each made a
	 * 42-page table that heap keeps in one.  A last page found too small is
	 * recorded in the map on the way, like any other.
	 */
	if (target == InvalidBlockNumber)
	{
		BlockNumber nblocks = RelationGetNumberOfBlocks(rel);

		if (nblocks > 0)
			target = nblocks - 1;
	}

	for (;;)
	{
		while (target != InvalidBlockNumber)
		{
			/*
			 * The update's own page was already found too small; rather
			 * than loop on the map's answer, take a new page.
			 */
			if (target == otherBlock)
				break;

			buf = ReadBufferExtended(rel, MAIN_FORKNUM, target, RBM_NORMAL,
									 strategy);
			_bh_lock_pair(buf, otherBuffer);
			_bh_check_page(rel, buf);
			page = BufferGetPage(buf);
			freespace = _bh_page_free_space(page);
			if (PageIsNew(page) || need + save <= freespace)
			{
				*is_new = PageIsNew(page);
				RelationSetTargetBlock(rel, target);
				return buf;
			}

			/* Too full: remember that, and try the page the map suggests. */
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
			if (BufferIsValid(otherBuffer))
				LockBuffer(otherBuffer, BUFFER_LOCK_UNLOCK);
			ReleaseBuffer(buf);
			target = RecordAndGetPageWithFreeSpace(rel, target, freespace,
												   need + save);
		}

		/* a zero page a worker added ahead of need (blinkheap_pool.c) */
		buf = _bh_pool_page(rel, need, save, otherBuffer, strategy, is_new);
		if (BufferIsValid(buf))
		{
			RelationSetTargetBlock(rel, BufferGetBlockNumber(buf));
			return buf;
		}

		/*
		 * Extend the relation.  A backend that finds another extending it
		 * waits for the lock, and then looks for the pages that one may
		 * have added for those queued behind it (_bh_extend_ahead, or a
		 * worker's refill): in the map, then in the pool.  It takes only
		 * a block number under the lock and lets the lock go before it
		 * locks the page (as heap does: no existing page is locked under
		 * the extension lock, which a holder of a page lock may wait for
		 * -- an extension of the free space map takes it).  Finding none,
		 * it extends, for the backends queued behind it too: heap's bulk
		 * extension.
		 */
		if (!ConditionalLockRelationForExtension(rel, ExclusiveLock))
		{
			_bh_wait_for_extension(rel);
			target = GetPageWithFreeSpace(rel, need + save);
			/* (an update's own page, too small, would only bring us back) */
			if (target == InvalidBlockNumber || target == otherBlock)
				target = _bh_pool_block(rel, otherBlock);
			if (target != InvalidBlockNumber)
			{
				UnlockRelationForExtension(rel, ExclusiveLock);
				blinkam_debug_pause(BLINKAM_PAUSE_HEAP_EXTEND_FOUND);
				continue;
			}
		}
		blinkam_debug_pause(BLINKAM_PAUSE_HEAP_EXTEND_LOCKED);
		_bh_extend_ahead(rel, strategy);

		/*
		 * Our own new page, zeroed and locked: we initialize it in our own
		 * record.  Another backend can find it only as the table's last
		 * page (the first try above) and then waits for its lock.
		 */
		buf = ReadBufferExtended(rel, MAIN_FORKNUM, P_NEW, RBM_ZERO_AND_LOCK,
								 strategy);
		UnlockRelationForExtension(rel, ExclusiveLock);

		if (BufferIsValid(otherBuffer) && !ConditionalLockBuffer(otherBuffer))
		{
			/*
			 * keep the lock order: the other page has the lower number.
			 * While the new page is let go, an insert that tries the last
			 * page may take it, even fill it: the check below.
			 */
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
			LockBuffer(otherBuffer, BUFFER_LOCK_EXCLUSIVE);
			LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		}
		_bh_check_page(rel, buf);
		page = BufferGetPage(buf);
		if (PageIsNew(page) ||
			need <= _bh_page_free_space(page))
		{
			*is_new = PageIsNew(page);
			RelationSetTargetBlock(rel, BufferGetBlockNumber(buf));
			return buf;
		}
		/* someone initialized and filled it while we waited: try again */
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		if (BufferIsValid(otherBuffer))
			LockBuffer(otherBuffer, BUFFER_LOCK_UNLOCK);
		ReleaseBuffer(buf);
		target = InvalidBlockNumber;
	}
}
