/*-------------------------------------------------------------------------
 *
 * blinkverify.c
 *	  blink_check(): verify every structural invariant of a blink index,
 *	  and optionally that every table row that should be indexed is.
 *
 * The check holds ShareLock on the table (writers wait; readers do not),
 * so the tree cannot change under it and every invariant is exact.  On a
 * standby (where ShareLock cannot be taken) it holds AccessShareLock, and
 * is exact only while replay leaves the index alone: a failure found while
 * replay moved on is checked again (blink_check_standby).  Invariants:
 *
 *   metapage    magic, version; its root is flagged ROOT at its level.
 *   levels      each level, walked left to right from its leftmost page,
 *               has consistent left-links, the right level number, and
 *               every page of it is reached exactly once.
 *   downlinks   the pages of a level appear in the order of their
 *               downlinks in the level above; a page without a downlink
 *               must be the right sibling of a page flagged
 *               INCOMPLETE_SPLIT (and such a flag always means that).
 *   order       within a page the sorted part is in key order, and every
 *               item lies in [low bound, high key): the low bound is the
 *               page's separator in its parent (or the left sibling's high
 *               key for a page without a downlink).
 *   all pages   every block is the metapage, a tree page reached by the
 *               walk, or an unused zero page.
 *
 * With heapallindexed, every heap tuple that the index must cover has an
 * entry with exactly the same contents (compared by a hash of the index
 * tuple formed from the heap row), no heap tuple has two entries, and
 * every other entry points at a line pointer still in use (a dead row
 * that VACUUM has yet to remove).  On a unique index, heapallindexed also
 * checks uniqueness: no two entries with one key point at rows visible to
 * one snapshot.  Failures raise ERRCODE_INDEX_CORRUPTED
 * naming the block and the broken invariant.
 *
 * src/index/blinkverify.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "access/xlogrecovery.h"
#include "catalog/index.h"
#include "catalog/pg_am.h"
#include "commands/defrem.h"
#include "executor/tuptable.h"
#include "common/hashfn.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"

#include "index/blink.h"

PG_FUNCTION_INFO_V1(blink_check);

/* One downlink of the level above: a child and its lower bound. */
typedef struct Downlink
{
	BlockNumber child;
	IndexTuple	lowkey;			/* NULL: minus infinity */
} Downlink;

typedef struct CheckState
{
	Relation	rel;
	BlockNumber nblocks;
	bool	   *visited;
	HTAB	   *tids;			/* heapallindexed: TID -> tuple hash */
	/* heapallindexed on a unique index: the uniqueness check */
	Relation	heap;
	Snapshot	snapshot;		/* NULL: no uniqueness check */
	Relation	rowsheap;		/* heapallindexed: the table, for its rows */
	IndexTuple	run_first;		/* first entry of the current equal-key run */
	BlinkScanInsert run_key;	/* its user key */
	List	   *run_tids;		/* the run's heap TIDs */
} CheckState;

typedef struct TidEntry
{
	ItemPointerData tid;		/* hash key */
	uint32		hash;			/* of the index tuple's contents */
	int			count;
	bool		matched;
} TidEntry;

#define corrupt(cs, blkno, ...) \
	_blink_corrupted((cs)->rel, (blkno), __VA_ARGS__)

/*
 * Open an index for blink_check and the introspection functions, refusing
 * anything that is not a blink index.  Returns it locked in lockmode.
 *
 * An unlogged index has no pages on a standby (nor during crash recovery
 * before it is reset): with skip NULL that is an error, in PostgreSQL's
 * words for a query; a check passes skip, gets *skip set and says it
 * skips the index, as amcheck does, so that a loop checking every index
 * of a standby goes on.
 */
Relation
blink_open_index(Oid indexoid, LOCKMODE lockmode, bool *skip)
{
	Relation	rel;

	/* The tools see this backend's buffered inserts too (defer.c). */
	_blink_defer_flush();
	rel = try_relation_open(indexoid, lockmode);
	if (rel == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", indexoid)));

	if (rel->rd_rel->relkind == RELKIND_PARTITIONED_INDEX &&
		rel->rd_rel->relam == get_index_am_oid("blink", true))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is a partitioned blink index",
						RelationGetRelationName(rel)),
				 errdetail("A partitioned index has no pages of its own."),
				 errhint("Check the index of each partition.")));
	if (rel->rd_rel->relkind != RELKIND_INDEX ||
		rel->rd_rel->relam != get_index_am_oid("blink", true))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a blink index",
						RelationGetRelationName(rel))));
	if (RELATION_IS_OTHER_TEMP(rel))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot access temporary indexes of other sessions")));
	if (!rel->rd_index->indisvalid)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("blink index \"%s\" is not valid",
						RelationGetRelationName(rel)),
				 errhint("It may still be being built; REINDEX it if a build failed.")));
	if (skip)
		*skip = false;
	if (RecoveryInProgress() && rel->rd_rel->relpersistence == RELPERSISTENCE_UNLOGGED)
	{
		if (skip == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot access temporary or unlogged relations during recovery")));
		ereport(NOTICE,
				(errmsg("skipping unlogged blink index \"%s\" during recovery",
						RelationGetRelationName(rel)),
				 errdetail("An unlogged index has no contents on a standby.")));
		*skip = true;
	}
	return rel;
}

/*
 * A hash of an index tuple's values, not of its bytes: NULLs, and each
 * value with varlenas decompressed.  Equal images hash alike however they
 * were stored (a posting tuple keeps one entry's bytes for all; a long
 * value may be compressed one way in the index and another in the table).
 */
static uint32
itup_hash(Relation rel, IndexTuple itup)
{
	TupleDesc	desc = RelationGetDescr(rel);
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	uint32		h = 0;

	index_deform_tuple(itup, desc, values, isnull);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		uint32		vh;

		if (isnull[i])
			vh = 0x9e3779b9;
		else if (att->attlen == -1)
		{
			struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(values[i]));

			vh = hash_bytes((const unsigned char *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
			if ((Pointer) v != DatumGetPointer(values[i]))
				pfree(v);
		}
		else if (att->attlen == -2)
			vh = hash_bytes((const unsigned char *) DatumGetCString(values[i]),
							strlen(DatumGetCString(values[i])));
		else if (att->attbyval)
			vh = hash_bytes((const unsigned char *) &values[i], sizeof(Datum));
		else
			vh = hash_bytes((const unsigned char *) DatumGetPointer(values[i]),
							att->attlen);
		h = hash_combine(h, vh);
	}
	return h;
}

/* Is the posting tuple itup well formed?  NULL if so, else what is wrong. */
static const char *
check_posting(IndexTuple itup)
{
	int			n = BlinkPostingCount(itup);
	Size		keysz = BlinkPostingKeySize(itup);
	ItemPointer tids = BlinkPostingTids(itup);

	if (n < 2)
		return "has fewer than two heap TIDs";
	if (keysz < sizeof(IndexTupleData) || keysz != MAXALIGN(keysz) ||
		IndexTupleSize(itup) != BlinkPostingSize(keysz, n))
		return "has a size that does not match its key and TID list";
	if (IndexTupleSize(itup) > BLINK_MAX_POSTING_SIZE)
		return "is larger than a posting tuple may be";
	for (int i = 0; i < n; i++)
	{
		if (!ItemPointerIsValid(&tids[i]) ||
			ItemPointerGetOffsetNumberNoCheck(&tids[i]) == BLINK_POSTING_POSID)
			return "has an invalid heap TID";
		if (i > 0 && ItemPointerCompare(&tids[i - 1], &tids[i]) >= 0)
			return "has heap TIDs out of order";
	}
	return NULL;
}

/* Do the run's entries point at two rows visible at once? */
static void
check_unique_run(CheckState *cs)
{
	ItemPointer first_visible = NULL;
	ListCell   *lc;

	if (list_length(cs->run_tids) > 1)
	{
		foreach(lc, cs->run_tids)
		{
			ItemPointer tid = (ItemPointer) lfirst(lc);
			bool		all_dead = false;

			if (!table_index_fetch_tuple_check(cs->heap, tid, cs->snapshot, &all_dead))
				continue;
			if (first_visible == NULL)
			{
				first_visible = tid;
				continue;
			}
			/*
			 * Corrupted, but REINDEX alone cannot mend it: the table holds
			 * the duplicate rows the index let in.
			 */
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("blink index \"%s\" is corrupted",
							RelationGetRelationName(cs->rel)),
					 errdetail("Unique key %s has two visible rows, (%u,%u) and (%u,%u) of table \"%s\".",
							   _blink_tuple_to_text(cs->rel, cs->run_first),
							   ItemPointerGetBlockNumber(first_visible),
							   ItemPointerGetOffsetNumber(first_visible),
							   ItemPointerGetBlockNumber(tid),
							   ItemPointerGetOffsetNumber(tid),
							   RelationGetRelationName(cs->heap)),
					 errhint("Delete or change one of the rows, then rebuild the index with REINDEX INDEX %s.",
							 quote_qualified_identifier(get_namespace_name(RelationGetNamespace(cs->rel)),
														RelationGetRelationName(cs->rel)))));
		}
	}
	list_free_deep(cs->run_tids);
	cs->run_tids = NIL;
	if (cs->run_first)
	{
		pfree(cs->run_key);
		pfree(cs->run_first);
	}
	cs->run_first = NULL;
	cs->run_key = NULL;
}

/* A palloc'd copy of a heap TID, for a run's list. */
static ItemPointer
copy_tid(ItemPointer tid)
{
	ItemPointer copy = palloc(sizeof(ItemPointerData));

	*copy = *tid;
	return copy;
}

static int
check_tuple_cmp(const void *a, const void *b, void *arg)
{
	return _blink_compare_tuples((Relation) arg, *(IndexTuple *) a, *(IndexTuple *) b);
}

/*
 * Uniqueness check: feed the entries of one leaf (in any order; they point
 * into the locked page) into the equal-key runs.  Leaves come left to
 * right, so the runs see every entry of the level in key order.  A run
 * keeps copies of what it needs, since it may go on to the next leaf.
 * Entries with a NULL key column never conflict unless the index says
 * NULLS NOT DISTINCT.
 */
static void
check_unique_leaf(CheckState *cs, IndexTuple *items, int n)
{
	Relation	rel = cs->rel;
	TupleDesc	desc = RelationGetDescr(rel);
	int			nkeyatts = IndexRelationGetNumberOfKeyAttributes(rel);

	qsort_arg(items, n, sizeof(IndexTuple), check_tuple_cmp, rel);
	for (int i = 0; i < n; i++)
	{
		IndexTuple	itup = items[i];
		bool		hasnull = false;

		for (int a = 1; a <= nkeyatts && !rel->rd_index->indnullsnotdistinct; a++)
		{
			bool		isnull;

			(void) index_getattr(itup, a, desc, &isnull);
			hasnull |= isnull;
		}
		if (!hasnull && cs->run_key &&
			_blink_compare_key_tuple(rel, cs->run_key, itup) == 0)
		{
			cs->run_tids = lappend(cs->run_tids, copy_tid(&itup->t_tid));
			continue;
		}
		check_unique_run(cs);
		if (hasnull)
			continue;
		cs->run_first = CopyIndexTuple(itup);
		cs->run_key = _blink_mkscankey(rel, cs->run_first);
		cs->run_key->heaptid = NULL;
		cs->run_tids = list_make1(copy_tid(&itup->t_tid));
	}
}

/*
 * A posting tuple in a leaf's unsorted tail (a statement buffer's run,
 * _blink_dedup_run): no other item with its key may hold a TID in its
 * range -- no posting tuple's range may meet it, no plain item of the
 * sorted part lie inside it -- except plain items of the tail, which
 * swap in before the tail is merged (_blink_fix_tail).
 */
static void
check_tail_posting(CheckState *cs, BlockNumber blkno, Page page,
				   OffsetNumber off, OffsetNumber sortedEnd)
{
	Relation	rel = cs->rel;
	BlinkPageOpaque opaque = BlinkPageGetOpaque(page);
	OffsetNumber first = BlinkPageFirstDataKey(opaque);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	IndexTuple	posting = (IndexTuple) PageGetItem(page, PageGetItemId(page, off));

	for (OffsetNumber o = first; o <= maxoff; o++)
	{
		IndexTuple	itup = (IndexTuple) PageGetItem(page, PageGetItemId(page, o));

		if (o == off || (o >= sortedEnd && !BlinkTupleIsPosting(itup)))
			continue;
		if (_blink_item_meets_range(rel, itup, posting, BlinkTupleHeapTid(posting),
									BlinkTupleMaxHeapTid(posting)))
			corrupt(cs, blkno, "item %u meets the range of posting tuple %u of the unsorted tail",
					o, off);
	}
}

/*
 * Check one page against its bounds; collect its downlinks (internal) or
 * its TIDs (leaf, heapallindexed).  Returns the page's high key (palloc'd
 * copy) or NULL when rightmost.
 */
static IndexTuple
check_page(CheckState *cs, BlockNumber blkno, Page page, IndexTuple lowkey,
		   List **downlinks)
{
	Relation	rel = cs->rel;
	BlinkPageOpaque opaque = BlinkPageGetOpaque(page);
	OffsetNumber first = BlinkPageFirstDataKey(opaque);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	OffsetNumber sortedEnd = first + opaque->blink_nsorted;
	IndexTuple	hikey = NULL;
	bool		leaf = BlinkPageIsLeaf(opaque);
	IndexTuple *uitems = NULL;
	int			nuitems = 0;

	if (sortedEnd > maxoff + 1)
		corrupt(cs, blkno, "sorted item count %u exceeds the %d items",
				opaque->blink_nsorted, maxoff - first + 1);
	if (!leaf && sortedEnd != maxoff + 1)
		corrupt(cs, blkno, "internal page has an unsorted tail");
	if (!leaf && maxoff < first)
		corrupt(cs, blkno, "internal page has no downlinks");
	if (leaf && maxoff + 1 - sortedEnd > BLINK_MAX_TAIL)
		corrupt(cs, blkno, "unsorted tail of %d items exceeds %d",
				maxoff + 1 - sortedEnd, BLINK_MAX_TAIL);

	if (!BlinkPageIsRightmost(opaque))
	{
		hikey = (IndexTuple) PageGetItem(page, PageGetItemId(page, BLINK_HIKEY));
		if (!BlinkTupleIsPivot(hikey))
			corrupt(cs, blkno, "high key is not a pivot tuple");
		if (!ItemIdIsNormal(PageGetItemId(page, BLINK_HIKEY)))
			corrupt(cs, blkno, "high key item is not a normal item");
		if (lowkey && _blink_compare_tuples(rel, lowkey, hikey) >= 0)
			corrupt(cs, blkno, "high key %s is not above the lower bound %s",
					_blink_tuple_to_text(rel, hikey), _blink_tuple_to_text(rel, lowkey));
		hikey = CopyIndexTuple(hikey);
	}

	for (OffsetNumber off = first; off <= maxoff; off++)
	{
		ItemId		iid = PageGetItemId(page, off);
		IndexTuple	itup = (IndexTuple) PageGetItem(page, iid);
		bool		minus = !leaf && off == first;

		if (!ItemIdIsNormal(iid) && !ItemIdIsDead(iid))
			corrupt(cs, blkno, "item %u is not in use", off);
		if (ItemIdIsDead(iid) && !leaf)
			corrupt(cs, blkno, "item %u of an internal page is marked dead", off);
		if (ItemIdIsDead(iid) && !(opaque->blink_flags & BLINK_HAS_GARBAGE))
			corrupt(cs, blkno, "item %u is marked dead but the page is not flagged", off);
		if (minus)
		{
			if (IndexTupleSize(itup) != sizeof(IndexTupleData))
				corrupt(cs, blkno, "first item of internal page is not minus infinity");
		}
		else
		{
			if (leaf == BlinkTupleIsPivot(itup))
				corrupt(cs, blkno, "item %u is a %s tuple on a %s page", off,
						leaf ? "pivot" : "leaf", leaf ? "leaf" : "internal");
			if (BlinkTupleIsPosting(itup))
			{
				const char *why = check_posting(itup);

				if (why)
					corrupt(cs, blkno, "posting tuple %u %s", off, why);
				if (!(opaque->blink_flags & BLINK_HAS_POSTING))
					corrupt(cs, blkno, "item %u is a posting tuple but the page is not flagged", off);
				if (rel->rd_index->indisunique)
					corrupt(cs, blkno, "item %u is a posting tuple in a unique index", off);
				if (off >= sortedEnd)
					check_tail_posting(cs, blkno, page, off, sortedEnd);
			}
			if (lowkey && _blink_compare_tuples(rel, itup, lowkey) < 0)
				corrupt(cs, blkno, "item %u %s is below the lower bound %s", off,
						_blink_tuple_to_text(rel, itup), _blink_tuple_to_text(rel, lowkey));
			/* (a posting tuple's whole range: up to its last TID) */
			if (hikey && _blink_compare_tuple_end(rel, hikey, itup) <= 0)
				corrupt(cs, blkno, "item %u %s is not below the high key %s", off,
						_blink_tuple_to_text(rel, itup), _blink_tuple_to_text(rel, hikey));
			if (off > first && off < sortedEnd &&
				!(!leaf && off == OffsetNumberNext(first)))
			{
				IndexTuple	prev = (IndexTuple) PageGetItem(page, PageGetItemId(page, off - 1));

				if (_blink_compare_tuple_end(rel, itup, prev) <= 0)
					corrupt(cs, blkno, "items %u and %u are out of order%s", off - 1, off,
							BlinkTupleIsPosting(prev) ?
							" (or overlap: a posting tuple's range reaches its last TID)" : "");
			}
		}

		if (!leaf)
		{
			Downlink   *d = palloc(sizeof(Downlink));
			BlockNumber child = BlinkDownlink(itup);

			if (child == BLINK_METAPAGE || child >= cs->nblocks)
				corrupt(cs, blkno, "item %u points to block %u, out of range", off, child);
			d->child = child;
			d->lowkey = minus ? lowkey : CopyIndexTuple(itup);
			*downlinks = lappend(*downlinks, d);
		}
		else
		{
			int			ntids = BlinkItemNTids(itup);

			if (cs->tids && !ItemIdIsDead(iid))
			{
				uint32		hash = itup_hash(rel, itup);

				for (int k = 0; k < ntids; k++)
				{
					bool		found;
					TidEntry   *e = hash_search(cs->tids, BlinkItemTid(itup, k),
												HASH_ENTER, &found);

					if (!found)
					{
						e->hash = hash;
						e->count = 0;
						e->matched = false;
					}
					e->count++;
				}
			}
			if (cs->snapshot && !ItemIdIsDead(iid) && !BlinkTupleIsPosting(itup))
			{
				if (uitems == NULL)
					uitems = palloc(sizeof(IndexTuple) * (maxoff - first + 1));
				uitems[nuitems++] = itup;
			}
		}
	}
	if (nuitems > 0)
		check_unique_leaf(cs, uitems, nuitems);
	if (uitems)
		pfree(uitems);
	return hikey;
}

/*
 * Walk one level from its leftmost page, checking it against the downlinks
 * of the level above (NIL for the root level).  Returns this level's
 * downlinks (internal levels) for the next call.
 */
static List *
check_level(CheckState *cs, BlockNumber leftmost, uint32 level, List *parent_links)
{
	Relation	rel = cs->rel;
	List	   *downlinks = NIL;
	ListCell   *next_link = list_head(parent_links);
	BlockNumber blkno = leftmost;
	BlockNumber prev = InvalidBlockNumber;
	bool		prev_incomplete = false;
	IndexTuple	prev_hikey = NULL;

	while (BlockNumberIsValid(blkno))
	{
		Buffer		buf;
		Page		page;
		BlinkPageOpaque opaque;
		IndexTuple	lowkey;
		IndexTuple	hikey;

		CHECK_FOR_INTERRUPTS();
		if (blkno == BLINK_METAPAGE || blkno >= cs->nblocks)
			corrupt(cs, prev, "right-link points to block %u, out of range", blkno);
		if (cs->visited[blkno])
			corrupt(cs, blkno, "reached twice (cycle in the right-links of level %u)", level);
		cs->visited[blkno] = true;

		buf = _blink_getbuf(rel, blkno, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		opaque = BlinkPageGetOpaque(page);

		if (opaque->blink_level != level)
			corrupt(cs, blkno, "level %u, expected %u", opaque->blink_level, level);
		if (BlinkPageIsLeaf(opaque) != (level == 0))
			corrupt(cs, blkno, "leaf flag does not match level %u", level);
		if (opaque->blink_prev != prev)
			corrupt(cs, blkno, "left-link %u, expected %u", opaque->blink_prev, prev);
		if (BlinkPageIsMeta(opaque))
			corrupt(cs, blkno, "metapage flag on a tree page");

		/* Its downlink, or the excuse of an unfinished split on its left. */
		if (next_link && ((Downlink *) lfirst(next_link))->child == blkno)
		{
			lowkey = ((Downlink *) lfirst(next_link))->lowkey;
			if (prev_hikey && (lowkey == NULL ||
							   _blink_compare_tuples(rel, lowkey, prev_hikey) != 0))
				corrupt(cs, blkno, "separator in parent does not equal the left sibling's high key");
			next_link = lnext(parent_links, next_link);
		}
		else if (parent_links != NIL && !prev_incomplete)
			corrupt(cs, blkno, "no downlink in level %u, and its left sibling is not flagged incomplete-split",
					level + 1);
		else
			lowkey = prev_hikey;

		hikey = check_page(cs, blkno, page, lowkey, &downlinks);
		if (BlinkPageIsIncompleteSplit(opaque) && BlinkPageIsRightmost(opaque))
			corrupt(cs, blkno, "flagged incomplete-split but has no right sibling");

		prev_incomplete = BlinkPageIsIncompleteSplit(opaque);
		prev_hikey = hikey;
		prev = blkno;
		blkno = opaque->blink_next;
		_blink_relbuf(rel, buf);
	}

	if (next_link)
		corrupt(cs, ((Downlink *) lfirst(next_link))->child,
				"has a downlink in level %u but is not on level %u's right-link chain",
				level + 1, level);
	return downlinks;
}

/*
 * Set when the heap cross-check (not the tree itself) fails.  On a standby
 * that can be transient even while replay stands still: a transaction in
 * progress on the primary has its heap records replayed before its index
 * records arrive (statement buffers write them at the commit or earlier).
 */
static bool heap_crosscheck_failed = false;

/*
 * Was the row at tid deleted (or updated) by a transaction older than the
 * index's pg_index row, which CREATE INDEX CONCURRENTLY wrote when it
 * marked the index valid (REINDEX CONCURRENTLY when it swapped the
 * indexes), after it took its last snapshot?  A heap row indexed under
 * the root of its HOT chain, where the root is a redirect, cannot be
 * fetched by that TID: it counts as deleted before (only concurrent
 * builds and heap tables are affected).
 */
static bool
deleted_before_index(CheckState *cs, ItemPointer tid)
{
	TransactionId indexxmin = HeapTupleHeaderGetXmin(cs->rel->rd_indextuple->t_data);
	TupleTableSlot *slot;
	ItemPointerData ctid = *tid;
	bool		result = true;

	if (!TransactionIdIsNormal(indexxmin))
		return false;
	slot = table_slot_create(cs->rowsheap, NULL);
	if (table_tuple_fetch_row_version(cs->rowsheap, &ctid, SnapshotAny, slot))
	{
		HeapTuple	tup = ExecFetchSlotHeapTuple(slot, false, NULL);
		TransactionId xmax = HeapTupleHeaderGetUpdateXid(tup->t_data);

		result = TransactionIdIsNormal(xmax) &&
			TransactionIdPrecedes(xmax, indexxmin);
	}
	else
	{
		ItemId		lp;
		Buffer		buf;

		/* not a tuple: a redirect (the root of a HOT chain) or nothing */
		result = false;
		if (ItemPointerGetBlockNumber(tid) < RelationGetNumberOfBlocks(cs->rowsheap))
		{
			buf = ReadBuffer(cs->rowsheap, ItemPointerGetBlockNumber(tid));
			LockBuffer(buf, BUFFER_LOCK_SHARE);
			if (ItemPointerGetOffsetNumber(tid) <= PageGetMaxOffsetNumber(BufferGetPage(buf)))
			{
				lp = PageGetItemId(BufferGetPage(buf), ItemPointerGetOffsetNumber(tid));
				result = ItemIdIsRedirected(lp);
			}
			UnlockReleaseBuffer(buf);
		}
	}
	ExecDropSingleTupleTableSlot(slot);
	return result;
}

/* heapallindexed: every heap row the index must cover is there, exactly. */
static void
check_heap_callback(Relation index, ItemPointer tid, Datum *values,
					bool *isnull, bool tupleIsAlive, void *state)
{
	CheckState *cs = (CheckState *) state;
	IndexTuple	itup = index_form_tuple(RelationGetDescr(index), values, isnull);
	TidEntry   *e;

	itup->t_tid = *tid;
	e = hash_search(cs->tids, tid, HASH_FIND, NULL);

	/*
	 * A version dead to every MVCC snapshot taken from now on (recently
	 * dead: a transaction older than its deleter still runs) whose deleter
	 * is older than the index need have no entry: CREATE INDEX
	 * CONCURRENTLY and REINDEX CONCURRENTLY index only the rows their
	 * snapshots see, and wait out every snapshot that could see more
	 * before the index is used.  A row deleted before their last snapshot
	 * was deleted by a transaction older than the pg_index row they wrote
	 * after it.  If its entry is there, it must match; a recently dead row
	 * deleted since the index was built must have one.
	 */
	if (e == NULL && !tupleIsAlive && deleted_before_index(cs, tid))
	{
		pfree(itup);
		return;
	}
	if (e == NULL || e->hash != itup_hash(index, itup))
		heap_crosscheck_failed = true;
	if (e == NULL || e->hash != itup_hash(index, itup))
		_blink_corrupted(index, InvalidBlockNumber,
						 "row (%u,%u) of table \"%s\" %s (expected key %s)",
						 ItemPointerGetBlockNumber(tid), ItemPointerGetOffsetNumber(tid),
						 get_rel_name(index->rd_index->indrelid),
						 e ? "has an entry with other contents" : "has no entry",
						 _blink_tuple_to_text(index, itup));
	e->matched = true;
	pfree(itup);
}

/*
 * heapallindexed: an index entry that no covered heap row matched must
 * point at a line pointer in use (a dead row not yet vacuumed).
 */
static void
check_unmatched_tid(Relation heap, Relation index, ItemPointer tid)
{
	BlockNumber blkno = ItemPointerGetBlockNumber(tid);
	OffsetNumber off = ItemPointerGetOffsetNumber(tid);
	bool		used = false;

	if (blkno < RelationGetNumberOfBlocks(heap))
	{
		Buffer		buf = ReadBuffer(heap, blkno);
		Page		page;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		used = !PageIsNew(page) && off >= FirstOffsetNumber &&
			off <= PageGetMaxOffsetNumber(page) &&
			ItemIdIsUsed(PageGetItemId(page, off));
		UnlockReleaseBuffer(buf);
	}
	if (!used)
		_blink_corrupted(index, InvalidBlockNumber,
						 "an entry points to row (%u,%u) of table \"%s\", whose line pointer is unused (a VACUUM freed the row but missed the entry)",
						 blkno, off, RelationGetRelationName(heap));
}

/*
 * The latest MVCC snapshot this backend may take, registered.  A call
 * from a parallel query's leader (blink_check is parallel restricted, so
 * it runs above a Gather) may take no new snapshot: it gets the
 * statement's, which is older: the checks below may then miss what
 * committed since, and report nothing false.
 */
static Snapshot
latest_snapshot(void)
{
	if (!IsInParallelMode())
		return RegisterSnapshot(GetLatestSnapshot());
	if (ActiveSnapshotSet())
		return RegisterSnapshot(GetActiveSnapshot());
	return RegisterSnapshot(GetTransactionSnapshot());
}

/*
 * One run of every check; raises ERRCODE_INDEX_CORRUPTED at the first
 * broken invariant.
 */
static void
blink_check_once(Oid indexoid, bool heapallindexed)
{
	Oid			heapoid = IndexGetRelation(indexoid, true);
	Relation	heap = NULL;
	Relation	rel;
	CheckState	cs;
	BlinkMetaPageData meta;
	BlockNumber root;
	BlockNumber unused = 0;
	uint32		level;
	List	   *links = NIL;
	MemoryContext cxt,
				old;
	Snapshot	rows_snapshot = NULL;
	bool		skip;

	LOCKMODE	lockmode = RecoveryInProgress() ? AccessShareLock : ShareLock;

	/* Table first, then index, as everyone else locks them. */
	if (OidIsValid(heapoid))
		heap = table_open(heapoid, lockmode);
	rel = blink_open_index(indexoid, lockmode, &skip);
	if (skip)
	{
		relation_close(rel, lockmode);
		if (heap)
			table_close(heap, lockmode);
		return;
	}

	cxt = AllocSetContextCreate(CurrentMemoryContext, "blink_check",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);

	memset(&cs, 0, sizeof(cs));
	cs.rel = rel;
	cs.nblocks = RelationGetNumberOfBlocks(rel);
	cs.visited = palloc0(sizeof(bool) * Max(cs.nblocks, 1));
	if (heapallindexed)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(ItemPointerData);
		ctl.entrysize = sizeof(TidEntry);
		ctl.hcxt = cxt;
		cs.tids = hash_create("blink_check tids", 1024, &ctl,
							  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);

		/*
		 * Unique indexes: no two entries with one key may point at rows
		 * visible to one snapshot.  No MVCC snapshot sees two versions of a
		 * key that uniqueness kept apart (the later insert followed the
		 * earlier delete's commit), so any snapshot gives no false reports;
		 * the latest one misses nothing committed.
		 */
		if (heap && rel->rd_index->indisunique)
		{
			cs.heap = heap;
			cs.snapshot = latest_snapshot();
		}

		/*
		 * On a standby the table is not locked against writers (the
		 * primary's), so the rows to look for are those of an MVCC snapshot
		 * taken before the index is read: a row it sees was committed
		 * before, so its entries were replayed before (they precede the
		 * commit record).  Looking at every version instead, as the primary
		 * does under its ShareLock, would wait for every primary
		 * transaction that wrote the table and is still open (a standby
		 * cannot wait on their locks: it polls until they end).
		 */
		if (heap && lockmode == AccessShareLock)
			rows_snapshot = latest_snapshot();
	}

	if (cs.nblocks < 2)
		corrupt(&cs, BLINK_METAPAGE, "index has %u blocks, needs a metapage and a root",
				cs.nblocks);
	_blink_read_meta(rel, &meta);
	root = meta.blinkm_root;
	level = meta.blinkm_level;
	if (root == BLINK_METAPAGE || root >= cs.nblocks)
		corrupt(&cs, BLINK_METAPAGE, "root block %u out of range", root);
	{
		Buffer		buf = _blink_getbuf(rel, root, BUFFER_LOCK_SHARE);
		BlinkPageOpaque opaque = BlinkPageGetOpaque(BufferGetPage(buf));

		if (!BlinkPageIsRoot(opaque) || opaque->blink_level != level ||
			!BlinkPageIsLeftmost(opaque))
			corrupt(&cs, root, "metapage names it root at level %u, but it is %s at level %u",
					level, BlinkPageIsRoot(opaque) ? "flagged root" : "not flagged root",
					opaque->blink_level);
		_blink_relbuf(rel, buf);
	}

	/* Level by level, from the root down; each level's leftmost page is
	 * the first downlink of the level above. */
	{
		BlockNumber leftmost = root;

		for (int lv = (int) level; lv >= 0; lv--)
		{
			List	   *next = check_level(&cs, leftmost, (uint32) lv, links);

			links = next;
			if (lv > 0)
				leftmost = ((Downlink *) linitial(links))->child;
		}
	}

	if (cs.snapshot)
	{
		check_unique_run(&cs);
		UnregisterSnapshot(cs.snapshot);
	}

	/*
	 * Every other block must be a zero page or the metapage.  Zero pages
	 * are unused, not corrupt (page pools, free space map): counted and
	 * reported at DEBUG1.
	 */
	for (BlockNumber blkno = BLINK_METAPAGE + 1; blkno < cs.nblocks; blkno++)
	{
		Buffer		buf;

		if (cs.visited[blkno])
			continue;
		buf = ReadBuffer(rel, blkno);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		if (!PageIsNew(BufferGetPage(buf)))
		{
			UnlockReleaseBuffer(buf);
			corrupt(&cs, blkno, "initialized page not reachable from the root");
		}
		UnlockReleaseBuffer(buf);
		unused++;
	}
	ereport(DEBUG1,
			(errmsg("blink index \"%s\": %u blocks, %u unused (zero pages)",
					RelationGetRelationName(rel), cs.nblocks, unused),
			 errdetail("Unused pages wait in a page pool or in the free space map; see blink_tree_stats().")));

	if (heapallindexed && heap)
	{
		IndexInfo  *indexInfo = BuildIndexInfo(rel);
		HASH_SEQ_STATUS seq;
		TidEntry   *e;

		hash_seq_init(&seq, cs.tids);
		while ((e = hash_seq_search(&seq)) != NULL)
		{
			if (e->count > 1)
			{
				hash_seq_term(&seq);
				_blink_corrupted(rel, InvalidBlockNumber,
								 "%d entries point to row (%u,%u) of table \"%s\"",
								 e->count,
								 ItemPointerGetBlockNumber(&e->tid),
								 ItemPointerGetOffsetNumber(&e->tid),
								 RelationGetRelationName(heap));
			}
		}
		cs.rowsheap = heap;
		/* a standby's MVCC scan is the build scan's "concurrent" mode */
		indexInfo->ii_Concurrent = rows_snapshot != NULL;
		table_index_build_scan(heap, rel, indexInfo, true, false,
							   check_heap_callback, &cs,
							   rows_snapshot == NULL ? NULL :
							   table_beginscan_strat(heap, rows_snapshot,
													 0, NULL, true, true));
		if (rows_snapshot)
			UnregisterSnapshot(rows_snapshot);

		/*
		 * An entry no covered heap row matched points at a row dead to
		 * everyone, which VACUUM has yet to remove: its line pointer must
		 * still be in use.  One pointing at an unused line pointer (or past
		 * the table's end) survived a VACUUM that freed its row, and would
		 * return whatever row takes that line pointer next.
		 */
		hash_seq_init(&seq, cs.tids);
		while ((e = hash_seq_search(&seq)) != NULL)
		{
			if (!e->matched)
				check_unmatched_tid(heap, rel, &e->tid);
		}
	}

	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	relation_close(rel, lockmode);
	if (heap)
		table_close(heap, lockmode);
}

/*
 * On a hot standby, replay changes the index while the check reads it
 * (redo takes no heavyweight lock), and a check that reads one level, then
 * the next, can see a split on one level and not yet on another.  So a
 * broken invariant found while replay moved on is not reported: the check
 * runs again (in a subtransaction, which releases whatever the failed run
 * held), up to BLINK_CHECK_STANDBY_TRIES times, pausing a little between
 * runs.  A failure found while replay stood still for the whole run is
 * real -- nothing else changes a standby's index -- and is reported; if
 * replay never stood still while a run failed, the check gives up with an
 * error that is not index_corrupted, and a hint.
 */
#define BLINK_CHECK_STANDBY_TRIES	20

/* One run in a subtransaction: NULL if it passed, else its error. */
static ErrorData *
blink_check_attempt(Oid indexoid, bool heapallindexed)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	ErrorData  *volatile edata = NULL;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		blink_check_once(indexoid, heapallindexed);
		ReleaseCurrentSubTransaction();
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
	}
	PG_END_TRY();
	MemoryContextSwitchTo(cxt);
	CurrentResourceOwner = owner;
	return edata;
}

static void
blink_check_standby(Oid indexoid, bool heapallindexed)
{
	for (int attempt = 1;; attempt++)
	{
		XLogRecPtr	before = GetXLogReplayRecPtr(NULL);
		ErrorData  *edata;

		heap_crosscheck_failed = false;
		edata = blink_check_attempt(indexoid, heapallindexed);
		if (edata == NULL)
			return;				/* passed */
		if (edata->sqlerrcode != ERRCODE_INDEX_CORRUPTED || !RecoveryInProgress() ||
			(GetXLogReplayRecPtr(NULL) == before && !heap_crosscheck_failed))
			ReThrowError(edata);	/* not a race with replay */
		if (attempt == BLINK_CHECK_STANDBY_TRIES)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("could not check blink index \"%s\": replay kept changing it, or its table's rows were ahead of their index entries",
							get_rel_name(indexoid)),
					 errdetail("%d runs found an inconsistency while recovery was replaying changes to the index; the last: %s",
							   attempt, edata->message),
					 errhint("Run blink_check again when replay is less busy, or on the primary.")));
		FreeErrorData(edata);
		pg_usleep(50 * 1000L);
		CHECK_FOR_INTERRUPTS();
	}
}

Datum
blink_check(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	bool		heapallindexed = PG_GETARG_BOOL(1);

	if (RecoveryInProgress())
		blink_check_standby(indexoid, heapallindexed);
	else
		blink_check_once(indexoid, heapallindexed);
	PG_RETURN_VOID();
}
