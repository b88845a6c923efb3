/*-------------------------------------------------------------------------
 *
 * blinkbuild.c
 *	  CREATE INDEX for blink: sort the table's entries, load them bottom-up
 *	  into pages written without per-page WAL, then log every page once.
 *	  Also the init fork of unlogged indexes.
 *
 * The sort uses tuplesort's MinimalTuple sort over the index columns, the
 * heap TID (the key's tiebreaker) and a "live" flag: tuplesort's own index
 * sorts are reserved to btree.  Pages are filled left to right, one open
 * page per level, up to the fill factor; the item that would pass it opens
 * the next page and gives the closed one its high key (or, if that high
 * key has no room, the closed page's last item moves on instead, and its
 * space holds the high key made from it).  Equal keys are gathered into
 * posting tuples on the way (blinkdedup.c).
 *
 * src/index/blinkbuild.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "access/tableam.h"
#include "access/xloginsert.h"
#include "catalog/index.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "commands/progress.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/smgr.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/rel.h"
#include "utils/tuplesort.h"

#include "index/blink.h"

/* One level being loaded: its open page, buffer-backed. */
typedef struct BuildLevel
{
	Buffer		buf;			/* pinned and locked, contents in page */
	Page		page;			/* local image */
	uint32		level;
	struct BuildLevel *parent;	/* NULL until the level above exists */
} BuildLevel;

typedef struct BlinkBuildState
{
	Relation	heap;
	Relation	index;
	bool		unique;
	bool		nullsnotdistinct;
	Tuplesortstate *sort;
	TupleDesc	sortdesc;		/* index columns, heap TID, live flag */
	TupleTableSlot *slot;		/* virtual: what goes into the sort */
	TupleTableSlot *outslot;	/* minimal tuples: what comes out */
	int			natts;
	double		heap_tuples;
	double		index_tuples;
	BuildLevel *leaf;
	Size		leaf_target;	/* fill-factor limit of a leaf, bytes used */
	Size		internal_target;
} BlinkBuildState;

static BlockNumber
build_newblock(Relation index, Buffer *bufp)
{
	Buffer		buf = ReadBufferExtended(index, MAIN_FORKNUM, P_NEW, RBM_NORMAL, NULL);

	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	*bufp = buf;
	return BufferGetBlockNumber(buf);
}

/* Start a page of a level: a placeholder high key at offset 1. */
static void
build_start_page(BlinkBuildState *bs, BuildLevel *lvl, BlockNumber prev)
{
	IndexTupleData placeholder;

	build_newblock(bs->index, &lvl->buf);
	lvl->page = palloc(BLCKSZ);
	_blink_init_page(lvl->page, lvl->level == 0 ? BLINK_LEAF : 0, lvl->level);
	BlinkPageGetOpaque(lvl->page)->blink_prev = prev;
	memset(&placeholder, 0, sizeof(placeholder));
	placeholder.t_info = sizeof(IndexTupleData);
	if (PageAddItem(lvl->page, (Item) &placeholder, sizeof(placeholder),
					BLINK_HIKEY, false, false) == InvalidOffsetNumber)
		elog(ERROR, "failed to start blink build page");
}

/* Write the local image of a finished page into its buffer. */
static void
build_write_page(BuildLevel *lvl)
{
	BlinkPageOpaque opaque = BlinkPageGetOpaque(lvl->page);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(lvl->page);

	opaque->blink_nsorted = maxoff >= BlinkPageFirstDataKey(opaque) ?
		maxoff - BlinkPageFirstDataKey(opaque) + 1 : 0;
	memcpy(BufferGetPage(lvl->buf), lvl->page, BLCKSZ);
	MarkBufferDirty(lvl->buf);
	UnlockReleaseBuffer(lvl->buf);
	pfree(lvl->page);
	lvl->buf = InvalidBuffer;
	lvl->page = NULL;
}

static void build_add(BlinkBuildState *bs, BuildLevel *lvl, IndexTuple itup);

/*
 * Close the open page of lvl: a new page starts with next, the open page
 * gets the high key made from next, and the new page's downlink goes to
 * the level above.  next is the item being added, if the open page has
 * room for that high key; else (next NULL) the open page's last item moves
 * to the new page, whose space is then enough for the high key.
 */
static void
build_next_page(BlinkBuildState *bs, BuildLevel *lvl, IndexTuple next)
{
	Page		opage = lvl->page;
	Buffer		obuf = lvl->buf;
	BlockNumber oblkno = BufferGetBlockNumber(obuf);
	OffsetNumber last = PageGetMaxOffsetNumber(opage);
	IndexTuple	lastitup;
	IndexTuple	hikey;
	IndexTuple	sep;
	BuildLevel	closing;

	if (next)
		lastitup = CopyIndexTuple(next);
	else
	{
		Assert(last > OffsetNumberNext(BLINK_HIKEY));
		lastitup = CopyIndexTuple((IndexTuple) PageGetItem(opage, PageGetItemId(opage, last)));
		PageIndexTupleDelete(opage, last);
	}
	hikey = _blink_make_pivot(bs->index, lastitup);
	if (!PageIndexTupleOverwrite(opage, BLINK_HIKEY, (Item) hikey, IndexTupleSize(hikey)))
		elog(ERROR, "failed to set high key of blink build page");

	closing.buf = obuf;
	closing.page = opage;
	closing.level = lvl->level;
	build_start_page(bs, lvl, oblkno);
	BlinkPageGetOpaque(opage)->blink_next = BufferGetBlockNumber(lvl->buf);
	build_write_page(&closing);

	/* That item opens the new page (as minus infinity if internal). */
	if (lvl->level == 0)
		build_add(bs, lvl, lastitup);
	else
	{
		IndexTuple	minus = _blink_minus_infinity(BlinkDownlink(lastitup));

		if (PageAddItem(lvl->page, (Item) minus, IndexTupleSize(minus),
						OffsetNumberNext(BLINK_HIKEY), false, false) == InvalidOffsetNumber)
			elog(ERROR, "failed to add item to blink build page");
		pfree(minus);
	}

	/* The downlink of the new page, keyed by the old page's high key. */
	if (lvl->parent == NULL)
	{
		IndexTuple	minus = _blink_minus_infinity(oblkno);

		lvl->parent = palloc0(sizeof(BuildLevel));
		lvl->parent->level = lvl->level + 1;
		build_start_page(bs, lvl->parent, InvalidBlockNumber);
		if (PageAddItem(lvl->parent->page, (Item) minus, IndexTupleSize(minus),
						OffsetNumberNext(BLINK_HIKEY), false, false) == InvalidOffsetNumber)
			elog(ERROR, "failed to add item to blink build page");
		pfree(minus);
	}
	sep = hikey;
	BlinkSetDownlink(sep, BufferGetBlockNumber(lvl->buf));
	build_add(bs, lvl->parent, sep);
	pfree(hikey);
	pfree(lastitup);
}

/* Bytes of page taken by items and line pointers (the high key's included). */
static Size
build_page_used(Page page)
{
	return BLCKSZ - MAXALIGN(sizeof(BlinkPageOpaqueData)) -
		PageGetExactFreeSpace(page) - SizeOfPageHeaderData;
}

/* Add itup to the open page of lvl, closing the page first if needed. */
static void
build_add(BlinkBuildState *bs, BuildLevel *lvl, IndexTuple itup)
{
	Page		page = lvl->page;
	Size		itemsz = MAXALIGN(IndexTupleSize(itup));
	Size		target = lvl->level == 0 ? bs->leaf_target : bs->internal_target;
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	int			ndata = maxoff - BLINK_HIKEY;
	Size		used = build_page_used(page);

	/*
	 * Close the page when the item would pass the fill target or not fit
	 * with BLINK_TID_SPACE to spare (what the high key needs beyond the
	 * space of the item it is made from).  The item opens the next page if
	 * the high key made from it fits here (its key part and a TID: a pivot
	 * drops a posting tuple's TID list); else the last item moves there,
	 * so keep at least two items on a page.
	 */
	if (ndata >= 1 &&
		(used + itemsz + sizeof(ItemIdData) > target ||
		 PageGetFreeSpace(page) < itemsz + BLINK_TID_SPACE))
	{
		Size		hikeysz = MAXALIGN(BlinkItemKeySize(itup)) + BLINK_TID_SPACE;

		if (PageGetFreeSpace(page) >= hikeysz)
		{
			build_next_page(bs, lvl, itup);
			return;
		}
		if (ndata >= 2)
		{
			build_next_page(bs, lvl, NULL);
			page = lvl->page;
		}
	}

	if (PageAddItem(page, (Item) itup, IndexTupleSize(itup),
					OffsetNumberNext(PageGetMaxOffsetNumber(page)),
					false, false) == InvalidOffsetNumber)
		elog(ERROR, "failed to add item to blink build page");
	if (lvl->level == 0 && BlinkTupleIsPosting(itup))
		BlinkPageGetOpaque(page)->blink_flags |= BLINK_HAS_POSTING;
}

/*
 * Deduplication during the load: entries with equal keys arrive one after
 * another (in heap TID order) and are gathered into a posting tuple of at
 * most BLINK_MAX_POSTING_SIZE bytes before they go onto the leaf level.
 */
typedef struct BuildRun
{
	IndexTuple	base;			/* the first entry of the run, or NULL */
	ItemPointerData tids[BLINK_MAX_TIDS_PER_PAGE];
	int			ntids;
} BuildRun;

static void
build_run_flush(BlinkBuildState *bs, BuildRun *run)
{
	IndexTuple	itup;

	if (run->base == NULL)
		return;
	itup = _blink_form_posting(run->base, run->tids, run->ntids);
	build_add(bs, bs->leaf, itup);
	pfree(itup);
	pfree(run->base);
	run->base = NULL;
	run->ntids = 0;
}

/*
 * Add the entry itup to the run (flushing the run first if itup's key
 * differs).  A posting tuple ends where the open leaf reaches its fill
 * target, so that pages fill up to it even with large posting tuples; else
 * at BLINK_MAX_POSTING_SIZE.
 */
static void
build_run_add(BlinkBuildState *bs, BuildRun *run, IndexTuple itup)
{
	/* with the line pointer of the posting tuple to come */
	Size		used = build_page_used(bs->leaf->page) + sizeof(ItemIdData);
	Size		limit = BLINK_MAX_POSTING_SIZE;

	if (run->base != NULL)
	{
		Size		keysz = IndexTupleSize(run->base);

		if (used < bs->leaf_target &&
			bs->leaf_target - used >= BlinkPostingSize(keysz, 2))
			limit = Min(limit, bs->leaf_target - used);
		if (BlinkPostingSize(keysz, run->ntids + 1) > limit ||
			!_blink_keys_equal(bs->index, run->base, itup))
			build_run_flush(bs, run);
	}
	if (run->base == NULL)
		run->base = CopyIndexTuple(itup);
	run->tids[run->ntids++] = itup->t_tid;
}

/*
 * Finish the load: every open page is the rightmost of its level (its
 * placeholder high key goes), and the top one is the root.  Returns the
 * root's block and level.
 */
static BlockNumber
build_finish(BlinkBuildState *bs, uint32 *rootlevel)
{
	BuildLevel *lvl = bs->leaf;
	BlockNumber root = InvalidBlockNumber;

	while (lvl)
	{
		BuildLevel *parent = lvl->parent;

		PageIndexTupleDelete(lvl->page, BLINK_HIKEY);
		if (parent == NULL)
		{
			BlinkPageGetOpaque(lvl->page)->blink_flags |= BLINK_ROOT;
			root = BufferGetBlockNumber(lvl->buf);
			*rootlevel = lvl->level;
		}
		build_write_page(lvl);
		pfree(lvl);
		lvl = parent;
	}
	return root;
}

/* Per heap tuple: queue its index entry for sorting. */
static void
blinkbuild_callback(Relation index, ItemPointer tid, Datum *values,
					bool *isnull, bool tupleIsAlive, void *state)
{
	BlinkBuildState *bs = (BlinkBuildState *) state;
	TupleTableSlot *slot = bs->slot;
	ItemPointerData tidcopy = *tid;

	ExecClearTuple(slot);
	memcpy(slot->tts_values, values, sizeof(Datum) * bs->natts);
	memcpy(slot->tts_isnull, isnull, sizeof(bool) * bs->natts);
	slot->tts_values[bs->natts] = PointerGetDatum(&tidcopy);
	slot->tts_isnull[bs->natts] = false;
	slot->tts_values[bs->natts + 1] = BoolGetDatum(tupleIsAlive);
	slot->tts_isnull[bs->natts + 1] = false;
	ExecStoreVirtualTuple(slot);
	tuplesort_puttupleslot(bs->sort, slot);
	bs->heap_tuples++;
}

/* Are two index tuples' key columns equal, as a unique index sees it? */
static bool
build_keys_equal(BlinkBuildState *bs, IndexTuple a, IndexTuple b)
{
	TupleDesc	desc = RelationGetDescr(bs->index);
	int			nkeyatts = IndexRelationGetNumberOfKeyAttributes(bs->index);

	for (int i = 1; i <= nkeyatts; i++)
	{
		bool		anull,
					bnull;
		Datum		ad = index_getattr(a, i, desc, &anull);
		Datum		bd = index_getattr(b, i, desc, &bnull);

		if (anull || bnull)
		{
			if (!(anull && bnull && bs->nullsnotdistinct))
				return false;
			continue;
		}
		if (DatumGetInt32(FunctionCall2Coll(index_getprocinfo(bs->index, i, 1),
											bs->index->rd_indcollation[i - 1],
											ad, bd)) != 0)
			return false;
	}
	return true;
}

static void
build_unique_violation(BlinkBuildState *bs, IndexTuple itup)
{
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	char	   *key_desc;

	index_deform_tuple(itup, RelationGetDescr(bs->index), values, isnull);
	key_desc = BuildIndexValueDescription(bs->index, values, isnull);
	ereport(ERROR,
			(errcode(ERRCODE_UNIQUE_VIOLATION),
			 errmsg("could not create unique index \"%s\"",
					RelationGetRelationName(bs->index)),
			 key_desc ? errdetail("Key %s is duplicated.", key_desc) :
			 errdetail("Duplicate keys exist."),
			 errtableconstraint(bs->heap, RelationGetRelationName(bs->index))));
}

IndexBuildResult *
blinkbuild(Relation heap, Relation index, IndexInfo *indexInfo)
{
	IndexBuildResult *result;
	BlinkBuildState bs;
	TupleDesc	idesc = RelationGetDescr(index);
	int			nkeyatts = IndexRelationGetNumberOfKeyAttributes(index);
	int			nsortkeys = nkeyatts + 1;
	AttrNumber *attnums;
	Oid		   *sortops;
	Oid		   *collations;
	bool	   *nullsfirst;
	Buffer		metabuf;
	BlockNumber root;
	uint32		rootlevel = 0;
	IndexTuple	prev_live = NULL;
	BuildRun   *run = NULL;
	Size		usable = BLCKSZ - SizeOfPageHeaderData -
		MAXALIGN(sizeof(BlinkPageOpaqueData));
	int64		ntuples = 0;

	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data",
			 RelationGetRelationName(index));
	/* what this backend holds for the index is in the build or gone */
	_blink_defer_discard(index);

	memset(&bs, 0, sizeof(bs));
	bs.heap = heap;
	bs.index = index;
	bs.unique = indexInfo->ii_Unique;
	bs.nullsnotdistinct = indexInfo->ii_NullsNotDistinct;
	bs.natts = IndexRelationGetNumberOfAttributes(index);
	bs.leaf_target = usable * BlinkGetFillFactor(index) / 100;
	bs.internal_target = usable * BLINK_INTERNAL_FILLFACTOR / 100;

	/* The sort: index columns, heap TID, live flag; keys and TID sorted. */
	bs.sortdesc = CreateTemplateTupleDesc(bs.natts + 2);
	for (int i = 0; i < bs.natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(idesc, i);

		TupleDescInitEntry(bs.sortdesc, i + 1, NULL, att->atttypid,
						   att->atttypmod, 0);
		TupleDescInitEntryCollation(bs.sortdesc, i + 1, att->attcollation);
	}
	TupleDescInitEntry(bs.sortdesc, bs.natts + 1, NULL, TIDOID, -1, 0);
	TupleDescInitEntry(bs.sortdesc, bs.natts + 2, NULL, BOOLOID, -1, 0);
	bs.slot = MakeSingleTupleTableSlot(bs.sortdesc, &TTSOpsVirtual);
	bs.outslot = MakeSingleTupleTableSlot(bs.sortdesc, &TTSOpsMinimalTuple);

	attnums = palloc(sizeof(AttrNumber) * nsortkeys);
	sortops = palloc(sizeof(Oid) * nsortkeys);
	collations = palloc(sizeof(Oid) * nsortkeys);
	nullsfirst = palloc(sizeof(bool) * nsortkeys);
	for (int i = 0; i < nkeyatts; i++)
	{
		int16		option = index->rd_indoption[i];
		StrategyNumber strategy = (option & INDOPTION_DESC) ?
			BTGreaterStrategyNumber : BTLessStrategyNumber;
		Oid			btfamily;
		Oid			bttype;
		int16		btstrategy;

		attnums[i] = i + 1;
		sortops[i] = get_opfamily_member(index->rd_opfamily[i],
										 index->rd_opcintype[i],
										 index->rd_opcintype[i], strategy);
		if (!OidIsValid(sortops[i]))
			elog(ERROR, "missing operator %d(%u,%u) in opfamily %u",
				 strategy, index->rd_opcintype[i], index->rd_opcintype[i],
				 index->rd_opfamily[i]);

		/*
		 * Every insert compares with support function 1, which the sort
		 * below does not use: a class without one fails here, as btree's
		 * build does, not at the first insert.
		 */
		(void) index_getprocinfo(index, i + 1, 1);

		/*
		 * The sort orders by the operator through btree (tuplesort asks
		 * for its btree operator family): an operator only a blink class
		 * knows cannot sort.
		 */
		if (!get_ordering_op_properties(sortops[i], &btfamily, &bttype,
										&btstrategy))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot build blink index \"%s\": the ordering of column %d has no btree operator class",
							RelationGetRelationName(index), i + 1),
					 errdetail("A blink build sorts the rows with operator %s, which no btree operator family contains.",
							   format_operator(sortops[i])),
					 errhint("Create a btree operator class with the same operators, or use a blink operator class whose operators btree knows.")));
		collations[i] = index->rd_indcollation[i];
		nullsfirst[i] = (option & INDOPTION_NULLS_FIRST) != 0;
	}
	attnums[nkeyatts] = bs.natts + 1;
	sortops[nkeyatts] = TIDLessOperator;
	collations[nkeyatts] = InvalidOid;
	nullsfirst[nkeyatts] = false;

	bs.sort = tuplesort_begin_heap(bs.sortdesc, nsortkeys, attnums, sortops,
								   collations, nullsfirst, maintenance_work_mem,
								   NULL, TUPLESORT_NONE);

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, BLINK_PHASE_SCAN);
	table_index_build_scan(heap, index, indexInfo, true, true,
						   blinkbuild_callback, &bs, NULL);

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, BLINK_PHASE_SORT);
	tuplesort_performsort(bs.sort);

	/* Block 0 is the metapage; its contents are written last. */
	build_newblock(index, &metabuf);
	Assert(BufferGetBlockNumber(metabuf) == BLINK_METAPAGE);

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, BLINK_PHASE_LOAD);
	pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_TOTAL, (int64) bs.heap_tuples);
	if (_blink_dedup_enabled(index))
		run = palloc0(sizeof(BuildRun));
	bs.leaf = palloc0(sizeof(BuildLevel));
	bs.leaf->level = 0;
	build_start_page(&bs, bs.leaf, InvalidBlockNumber);

	while (tuplesort_gettupleslot(bs.sort, true, false, bs.outslot, NULL))
	{
		TupleTableSlot *slot = bs.outslot;
		IndexTuple	itup;
		bool		live;

		slot_getallattrs(slot);
		itup = index_form_tuple(idesc, slot->tts_values, slot->tts_isnull);
		itup->t_tid = *(ItemPointer) DatumGetPointer(slot->tts_values[bs.natts]);
		live = DatumGetBool(slot->tts_values[bs.natts + 1]);
		_blink_check_item_size(index, bs.heap, itup);

		if (bs.unique && live)
		{
			if (prev_live && build_keys_equal(&bs, prev_live, itup))
				build_unique_violation(&bs, itup);
			if (prev_live)
				pfree(prev_live);
			prev_live = CopyIndexTuple(itup);
		}

		if (run)
			build_run_add(&bs, run, itup);
		else
			build_add(&bs, bs.leaf, itup);
		pfree(itup);
		bs.index_tuples++;
		if (++ntuples % 1000 == 0)
			pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, ntuples);
		CHECK_FOR_INTERRUPTS();
	}
	if (run)
	{
		build_run_flush(&bs, run);
		pfree(run);
	}
	tuplesort_end(bs.sort);
	pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, ntuples);

	root = build_finish(&bs, &rootlevel);
	_blink_init_metapage(BufferGetPage(metabuf), root, rootlevel);
	MarkBufferDirty(metabuf);
	UnlockReleaseBuffer(metabuf);

	/* Pages went through shared buffers unlogged: log them all once. */
	if (RelationNeedsWAL(index))
		log_newpage_range(index, MAIN_FORKNUM, 0,
						  RelationGetNumberOfBlocks(index), true);

	ExecDropSingleTupleTableSlot(bs.slot);
	ExecDropSingleTupleTableSlot(bs.outslot);

	result = palloc(sizeof(IndexBuildResult));
	result->heap_tuples = bs.heap_tuples;
	result->index_tuples = bs.index_tuples;
	return result;
}

/*
 * The init fork of an unlogged index: a metapage and an empty root leaf,
 * written and logged directly (the buffer manager does not serve init
 * forks).
 */
void
blinkbuildempty(Relation index)
{
	Page		meta = palloc(BLCKSZ);
	Page		root = palloc(BLCKSZ);
	SMgrRelation srel = RelationGetSmgr(index);

	_blink_init_metapage(meta, 1, 0);
	_blink_init_page(root, BLINK_LEAF | BLINK_ROOT, 0);

	PageSetChecksumInplace(meta, BLINK_METAPAGE);
	smgrextend(srel, INIT_FORKNUM, BLINK_METAPAGE, (char *) meta, true);
	log_newpage(&srel->smgr_rnode.node, INIT_FORKNUM, BLINK_METAPAGE, meta, true);

	PageSetChecksumInplace(root, 1);
	smgrextend(RelationGetSmgr(index), INIT_FORKNUM, 1, (char *) root, true);
	log_newpage(&RelationGetSmgr(index)->smgr_rnode.node, INIT_FORKNUM, 1, root, true);

	smgrimmedsync(RelationGetSmgr(index), INIT_FORKNUM);
	pfree(meta);
	pfree(root);
}
