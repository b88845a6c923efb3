/*-------------------------------------------------------------------------
 *
 * blinkfuncs.c
 *	  Introspection of blink indexes: blink_metap, blink_page_stats,
 *	  blink_page_items, blink_tree_stats.
 *
 * Each page is read under a share lock, one at a time, so on a busy index
 * the answers of blink_tree_stats are a blend of moments.
 *
 * src/index/blinkfuncs.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/array.h"

#include "access/relation.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/rel.h"

#include "common/settings.h"
#include "index/blink.h"

PG_FUNCTION_INFO_V1(blink_metap);
PG_FUNCTION_INFO_V1(blink_page_stats);
PG_FUNCTION_INFO_V1(blink_page_items);
PG_FUNCTION_INFO_V1(blink_tree_stats);

/* Refuse a block outside the index; return it as a BlockNumber. */
static BlockNumber
check_block(Relation rel, int64 blkno)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);

	if (blkno < 0 || blkno >= (int64) nblocks)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("block number " INT64_FORMAT " is out of range for blink index \"%s\"",
						blkno, RelationGetRelationName(rel)),
				 errdetail("The index has %u blocks.", nblocks)));
	return (BlockNumber) blkno;
}

static const char *
page_type(Page page)
{
	BlinkPageOpaque opaque;

	if (PageIsNew(page))
		return "unused";
	opaque = BlinkPageGetOpaque(page);
	if (BlinkPageIsMeta(opaque))
		return "meta";
	if (BlinkPageIsLeaf(opaque))
		return BlinkPageIsRoot(opaque) ? "root leaf" : "leaf";
	return BlinkPageIsRoot(opaque) ? "root" : "internal";
}

static Datum
build_tuple(FunctionCallInfo fcinfo, Datum *values, bool *nulls)
{
	TupleDesc	tupdesc;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	return HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls));
}

Datum
blink_metap(PG_FUNCTION_ARGS)
{
	Relation	rel = blink_open_index(PG_GETARG_OID(0), AccessShareLock, NULL);
	BlinkMetaPageData meta;
	Datum		values[4];
	bool		nulls[4] = {false};
	Datum		result;

	_blink_read_meta(rel, &meta);
	values[0] = Int64GetDatum(meta.blinkm_magic);
	values[1] = Int32GetDatum(meta.blinkm_version);
	values[2] = Int64GetDatum(meta.blinkm_root);
	values[3] = Int32GetDatum(meta.blinkm_level);
	result = build_tuple(fcinfo, values, nulls);
	relation_close(rel, AccessShareLock);
	PG_RETURN_DATUM(result);
}

Datum
blink_page_stats(PG_FUNCTION_ARGS)
{
	Relation	rel = blink_open_index(PG_GETARG_OID(0), AccessShareLock, NULL);
	BlockNumber blkno = check_block(rel, PG_GETARG_INT64(1));
	Buffer		buf;
	Page		page;
	Datum		values[12];
	bool		nulls[12] = {false};
	Datum		result;
	int			live = 0,
				dead = 0;

	buf = ReadBuffer(rel, blkno);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	values[0] = Int64GetDatum(blkno);
	values[1] = CStringGetTextDatum(page_type(page));
	if (PageIsNew(page))
	{
		for (int i = 2; i < 12; i++)
			nulls[i] = true;
	}
	else
	{
		BlinkPageOpaque opaque;
		OffsetNumber first;
		OffsetNumber maxoff = PageGetMaxOffsetNumber(page);

		_blink_checkpage(rel, buf);
		opaque = BlinkPageGetOpaque(page);
		first = BlinkPageIsMeta(opaque) ? FirstOffsetNumber : BlinkPageFirstDataKey(opaque);
		for (OffsetNumber off = first; off <= maxoff; off++)
		{
			if (ItemIdIsDead(PageGetItemId(page, off)))
				dead++;
			else
				live++;
		}
		values[2] = Int32GetDatum(opaque->blink_level);
		values[3] = Int32GetDatum(live);
		values[4] = Int32GetDatum(dead);
		values[5] = Int32GetDatum(PageGetFreeSpace(page));
		values[6] = Int64GetDatum(opaque->blink_next);
		nulls[6] = !BlockNumberIsValid(opaque->blink_next);
		values[7] = Int64GetDatum(opaque->blink_prev);
		nulls[7] = !BlockNumberIsValid(opaque->blink_prev);
		values[8] = BoolGetDatum(BlinkPageIsIncompleteSplit(opaque));
		values[9] = Int64GetDatum(opaque->blink_version);
		values[10] = Int32GetDatum(opaque->blink_nsorted);
		values[11] = Int32GetDatum(opaque->blink_cycleid);
	}
	_blink_relbuf(rel, buf);
	result = build_tuple(fcinfo, values, nulls);
	relation_close(rel, AccessShareLock);
	PG_RETURN_DATUM(result);
}

Datum
blink_page_items(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	rel = blink_open_index(PG_GETARG_OID(0), AccessShareLock, NULL);
	BlockNumber blkno = check_block(rel, PG_GETARG_INT64(1));
	Buffer		buf;
	Page		page;

	InitMaterializedSRF(fcinfo, 0);

	buf = ReadBuffer(rel, blkno);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	if (!PageIsNew(page))
	{
		BlinkPageOpaque opaque;
		OffsetNumber maxoff = PageGetMaxOffsetNumber(page);

		_blink_checkpage(rel, buf);
		opaque = BlinkPageGetOpaque(page);
		if (BlinkPageIsMeta(opaque))
			maxoff = InvalidOffsetNumber;	/* no items */

		for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
		{
			ItemId		iid = PageGetItemId(page, off);
			IndexTuple	itup = (IndexTuple) PageGetItem(page, iid);
			bool		leaf = BlinkPageIsLeaf(opaque);
			bool		hikey = !BlinkPageIsRightmost(opaque) && off == BLINK_HIKEY;
			Datum		values[8];
			bool		nulls[8] = {false};
			ItemPointer tid = BlinkTupleHeapTid(itup);

			values[0] = Int32GetDatum(off);
			/* the heap TID: a leaf item's row, a pivot's tiebreaker */
			values[1] = PointerGetDatum(tid);
			nulls[1] = IndexTupleSize(itup) == sizeof(IndexTupleData);
			values[2] = Int64GetDatum(BlinkDownlink(itup));
			nulls[2] = leaf || hikey;
			values[3] = Int32GetDatum(IndexTupleSize(itup));
			values[4] = CStringGetTextDatum(_blink_tuple_to_text(rel, itup));
			values[5] = BoolGetDatum(hikey);
			values[6] = BoolGetDatum(ItemIdIsDead(iid));
			/* a posting tuple's heap TIDs (ctid is the first) */
			nulls[7] = !BlinkTupleIsPosting(itup);
			if (!nulls[7])
			{
				int			n = BlinkPostingCount(itup);
				Datum	   *elems = palloc(sizeof(Datum) * n);

				for (int i = 0; i < n; i++)
					elems[i] = PointerGetDatum(BlinkPostingTids(itup) + i);
				values[7] = PointerGetDatum(construct_array(elems, n, TIDOID,
															sizeof(ItemPointerData),
															false, TYPALIGN_SHORT));
			}
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
	if (blinkam_debug_pause_at == BLINKAM_PAUSE_PAGE_ITEMS_LOCKED)
	{
		/*
		 * tests: stand in for PostgreSQL writing the page out -- hold it in
		 * share mode, then let it go the way bufmgr.c does, without waking
		 * any batch waiter (batch.c, "Share holders")
		 */
		blinkam_debug_pause(BLINKAM_PAUSE_PAGE_ITEMS_LOCKED);
		UnlockReleaseBuffer(buf);
	}
	else
		_blink_relbuf(rel, buf);
	relation_close(rel, AccessShareLock);
	return (Datum) 0;
}

Datum
blink_tree_stats(PG_FUNCTION_ARGS)
{
	Relation	rel = blink_open_index(PG_GETARG_OID(0), AccessShareLock, NULL);
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);
	int64		leaf = 0,
				internal = 0,
				unused = 0,
				incomplete = 0;
	double		leaf_used = 0;
	int			maxlevel = 0;
	Datum		values[7];
	bool		nulls[7] = {false};
	Datum		result;
	Size		usable = BLCKSZ - SizeOfPageHeaderData -
		MAXALIGN(sizeof(BlinkPageOpaqueData));

	for (BlockNumber blkno = BLINK_METAPAGE + 1; blkno < nblocks; blkno++)
	{
		Buffer		buf = ReadBuffer(rel, blkno);
		Page		page;
		BlinkPageOpaque opaque;

		CHECK_FOR_INTERRUPTS();
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		if (PageIsNew(page))
			unused++;
		else
		{
			_blink_checkpage(rel, buf);
			opaque = BlinkPageGetOpaque(page);
			if (BlinkPageIsLeaf(opaque))
			{
				leaf++;
				leaf_used += usable - PageGetExactFreeSpace(page);
			}
			else
				internal++;
			maxlevel = Max(maxlevel, opaque->blink_level);
			if (BlinkPageIsIncompleteSplit(opaque))
				incomplete++;
		}
		_blink_relbuf(rel, buf);
	}

	values[0] = Int64GetDatum(nblocks);
	values[1] = Int64GetDatum(leaf);
	values[2] = Int64GetDatum(internal);
	values[3] = Int64GetDatum(unused);
	values[4] = Int32GetDatum(maxlevel + 1);
	values[5] = Int64GetDatum(incomplete);
	values[6] = Float8GetDatum(leaf > 0 ? 100.0 * leaf_used / (leaf * usable) : 0.0);
	result = build_tuple(fcinfo, values, nulls);
	relation_close(rel, AccessShareLock);
	PG_RETURN_DATUM(result);
}
