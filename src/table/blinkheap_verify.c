/*-------------------------------------------------------------------------
 *
 * blinkheap_verify.c
 *	  SQL tools for blinkheap tables: blinkheap_check (verification),
 *	  blinkheap_page_stats and blinkheap_page_items (introspection).
 *
 * blinkheap_check reads every page under AccessShareLock, one page share
 * lock at a time, and raises ERRCODE_DATA_CORRUPTED naming block and
 * offset at the first failure.  It checks: the page id and header;
 * that line pointers stay inside the tuple area and do not overlap; every
 * tuple header (t_hoff, number of attributes, infomask combinations that
 * cannot happen, xmin/xmax not in the future and not older than the
 * table's relfrozenxid / relminmxid unless frozen, t_ctid inside the table
 * or a speculative token whose inserter did not commit);
 * and, for tuples visible to a fresh snapshot, that every TOAST pointer
 * leads to a complete TOAST value.  TOAST values are checked after the
 * page lock is released (TOAST pointers are copied first), so no buffer
 * lock is held while the TOAST index is read.
 *
 * src/table/blinkheap_verify.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/genam.h"
#include "access/heaptoast.h"
#include "access/multixact.h"
#include "access/table.h"
#include "access/toast_internals.h"
#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/pg_type_d.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/procarray.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/snapmgr.h"

#include "common/settings.h"
#include "table/blinkheap.h"

PG_FUNCTION_INFO_V1(blinkheap_check);
PG_FUNCTION_INFO_V1(blinkheap_page_stats);
PG_FUNCTION_INFO_V1(blinkheap_page_items);

/* A TOAST pointer found on a page, checked once the page is unlocked. */
typedef struct BhToastRef
{
	OffsetNumber off;
	struct varatt_external ext;
} BhToastRef;

typedef struct BhToastRefs
{
	BhToastRef *items;
	int			n;
	int			cap;
} BhToastRefs;

/* Extent of one line pointer's storage, for the overlap check. */
typedef struct BhExtent
{
	unsigned	start;
	unsigned	end;
	OffsetNumber off;
} BhExtent;

static int
_bh_extent_cmp(const void *a, const void *b)
{
	const BhExtent *x = a;
	const BhExtent *y = b;

	return x->start < y->start ? -1 : x->start > y->start ? 1 : 0;
}

/*
 * Open a table and make sure it is a blinkheap table.  An unlogged one
 * during recovery: as blink_open_index (blinkverify.c).
 */
static Relation
_bh_open_checked(Oid relid, LOCKMODE lockmode, bool *skip)
{
	Relation	rel = try_relation_open(relid, lockmode);

	if (rel == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	if (rel->rd_rel->relkind != RELKIND_RELATION &&
		rel->rd_rel->relkind != RELKIND_MATVIEW)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table", RelationGetRelationName(rel))));
	if (rel->rd_tableam != blinkheap_routine())
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a blinkheap table",
						RelationGetRelationName(rel))));
	if (RELATION_IS_OTHER_TEMP(rel))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot access temporary tables of other sessions")));
	if (skip)
		*skip = false;
	if (RecoveryInProgress() && rel->rd_rel->relpersistence == RELPERSISTENCE_UNLOGGED)
	{
		if (skip == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot access temporary or unlogged relations during recovery")));
		ereport(NOTICE,
				(errmsg("skipping unlogged blinkheap table \"%s\" during recovery",
						RelationGetRelationName(rel)),
				 errdetail("An unlogged table has no contents on a standby.")));
		*skip = true;
	}
	return rel;
}

/*
 * Is xid (normal) before the next xid to be assigned?  *nextxid was read
 * when the check began; writers go on meanwhile (the check holds only
 * AccessShareLock), so a page may carry an xid assigned since.  An xid
 * not before it is compared again with the next xid read now (the page is
 * locked: every xid on it was assigned before this moment), which
 * becomes the new *nextxid.
 *
 * In recovery that bound does not hold: the startup process moves nextXid
 * past the xid of each record it replays (and past those a commit, abort
 * or running-xacts record lists), but a batch holder's record carries its
 * waiters' rows (batch.c), stamped with the waiters' xids, under the
 * holder's own xid.  A waiter whose xid is newer than every xid replayed
 * so far, its transaction still open, leaves a row whose xmin is past the
 * standby's nextXid until its commit is replayed (t/037).  So on a standby
 * an xid is not called future.
 */
static bool
_bh_xid_in_past(TransactionId xid, TransactionId *nextxid)
{
	if (!TransactionIdIsNormal(xid) || TransactionIdPrecedes(xid, *nextxid))
		return true;
	*nextxid = XidFromFullTransactionId(ReadNextFullTransactionId());
	return TransactionIdPrecedes(xid, *nextxid) || RecoveryInProgress();
}

/* The same for a MultiXact id. */
static bool
_bh_multi_in_past(MultiXactId multi, MultiXactId *nextmulti)
{
	if (MultiXactIdPrecedes(multi, *nextmulti))
		return true;
	*nextmulti = ReadNextMultiXactId();
	return MultiXactIdPrecedes(multi, *nextmulti);
}

/*
 * Check one tuple header; the page is share-locked.  TOAST pointers of a
 * visible tuple are appended to refs.  frozenxid and minmxid are the
 * table's relfrozenxid and relminmxid, read before the first page: VACUUM
 * advances them only past what it froze or found newer, and pages only
 * get newer xids afterwards, so no xid or multi left on a page may be
 * older (the commit log and MultiXact files before them may be gone).
 */
static void
_bh_check_tuple(Relation rel, Buffer buf, HeapTuple tup, BlockNumber nblocks,
				TransactionId *nextxid, MultiXactId *nextmulti,
				TransactionId frozenxid, MultiXactId minmxid,
				Snapshot snapshot, BhToastRefs *refs)
{
	HeapTupleHeader h = tup->t_data;
	BlockNumber blk = ItemPointerGetBlockNumber(&tup->t_self);
	OffsetNumber off = ItemPointerGetOffsetNumber(&tup->t_self);
	TupleDesc	desc = RelationGetDescr(rel);
	int			natts = HeapTupleHeaderGetNatts(h);
	Size		expected_hoff;
	char		detail[200];

	expected_hoff = (h->t_infomask & HEAP_HASNULL) ?
		MAXALIGN(SizeofHeapTupleHeader + BITMAPLEN(natts)) :
		MAXALIGN(SizeofHeapTupleHeader);
	if (h->t_hoff != expected_hoff)
	{
		snprintf(detail, sizeof(detail), "t_hoff is %u, expected %zu",
				 h->t_hoff, expected_hoff);
		_bh_corrupted(rel, blk, off, detail);
	}
	if (natts > desc->natts)
	{
		snprintf(detail, sizeof(detail),
				 "the tuple has %d attributes, the table only %d",
				 natts, desc->natts);
		_bh_corrupted(rel, blk, off, detail);
	}
	if ((h->t_infomask & HEAP_XMAX_COMMITTED) &&
		(h->t_infomask & HEAP_XMAX_INVALID))
		_bh_corrupted(rel, blk, off,
					  "both HEAP_XMAX_COMMITTED and HEAP_XMAX_INVALID are set");
	if ((h->t_infomask & HEAP_XMAX_COMMITTED) &&
		(h->t_infomask & HEAP_XMAX_IS_MULTI))
		_bh_corrupted(rel, blk, off,
					  "a MultiXact xmax is marked committed");
	if ((h->t_infomask & HEAP_XMAX_LOCK_ONLY) &&
		(h->t_infomask2 & HEAP_KEYS_UPDATED) &&
		!(h->t_infomask & HEAP_XMAX_EXCL_LOCK))
		_bh_corrupted(rel, blk, off,
					  "HEAP_KEYS_UPDATED on a lock that is not exclusive");
	if (h->t_infomask & HEAP_MOVED)
		_bh_corrupted(rel, blk, off,
					  "HEAP_MOVED_IN/OFF can never be set on a blinkheap tuple");
	if (!(h->t_infomask & HEAP_HASEXTERNAL) && HeapTupleHasExternal(tup))
		_bh_corrupted(rel, blk, off, "inconsistent external flag");

	if (!HeapTupleHeaderXminFrozen(h) &&
		!_bh_xid_in_past(HeapTupleHeaderGetRawXmin(h), nextxid))
	{
		snprintf(detail, sizeof(detail), "xmin %u is in the future",
				 HeapTupleHeaderGetRawXmin(h));
		_bh_corrupted(rel, blk, off, detail);
	}
	if (!HeapTupleHeaderXminFrozen(h) &&
		TransactionIdIsNormal(HeapTupleHeaderGetRawXmin(h)) &&
		TransactionIdIsNormal(frozenxid) &&
		TransactionIdPrecedes(HeapTupleHeaderGetRawXmin(h), frozenxid))
	{
		snprintf(detail, sizeof(detail),
				 "xmin %u is not frozen but precedes relfrozenxid %u",
				 HeapTupleHeaderGetRawXmin(h), frozenxid);
		_bh_corrupted(rel, blk, off, detail);
	}
	/*
	 * An xmax hinted invalid (an aborted updater, a finished locker) still
	 * names an xid or multi, and VACUUM's freezing reads it all the same:
	 * it fails on one older than relfrozenxid / relminmxid ("found xmax
	 * ... from before relfrozenxid").  So those two bounds hold whatever
	 * the hint; "in the future" is checked only for an xmax in use.
	 */
	{
		TransactionId xmax = HeapTupleHeaderGetRawXmax(h);
		bool		in_use = !(h->t_infomask & HEAP_XMAX_INVALID);

		if (h->t_infomask & HEAP_XMAX_IS_MULTI)
		{
			if (in_use && MultiXactIdIsValid(xmax) &&
				!_bh_multi_in_past(xmax, nextmulti))
			{
				snprintf(detail, sizeof(detail),
						 "multixact xmax %u is in the future", xmax);
				_bh_corrupted(rel, blk, off, detail);
			}
			if (MultiXactIdIsValid(xmax) && MultiXactIdIsValid(minmxid) &&
				MultiXactIdPrecedes(xmax, minmxid))
			{
				snprintf(detail, sizeof(detail),
						 "multixact xmax %u precedes relminmxid %u",
						 xmax, minmxid);
				_bh_corrupted(rel, blk, off, detail);
			}

			/*
			 * An updater among its members (committed or not) is frozen by
			 * VACUUM with the tuple, and VACUUM fails on one older than
			 * relfrozenxid ("found update xid ... from before
			 * relfrozenxid").  The MultiXact is readable: it is not older
			 * than relminmxid (above) nor newer than the next one.
			 */
			if (MultiXactIdIsValid(xmax) &&
				!HEAP_XMAX_IS_LOCKED_ONLY(h->t_infomask) &&
				!HEAP_LOCKED_UPGRADED(h->t_infomask) &&
				_bh_multi_in_past(xmax, nextmulti))
			{
				TransactionId upd = HeapTupleGetUpdateXid(h);

				if (TransactionIdIsNormal(upd) &&
					TransactionIdIsNormal(frozenxid) &&
					TransactionIdPrecedes(upd, frozenxid))
				{
					snprintf(detail, sizeof(detail),
							 "multixact xmax %u has updater %u, which precedes relfrozenxid %u",
							 xmax, upd, frozenxid);
					_bh_corrupted(rel, blk, off, detail);
				}
			}
		}
		else if (in_use && !_bh_xid_in_past(xmax, nextxid))
		{
			snprintf(detail, sizeof(detail), "xmax %u is in the future", xmax);
			_bh_corrupted(rel, blk, off, detail);
		}
		else if (TransactionIdIsNormal(xmax) &&
				 TransactionIdIsNormal(frozenxid) &&
				 TransactionIdPrecedes(xmax, frozenxid))
		{
			snprintf(detail, sizeof(detail),
					 "xmax %u precedes relfrozenxid %u%s", xmax, frozenxid,
					 in_use ? "" : " (hinted invalid)");
			_bh_corrupted(rel, blk, off, detail);
		}
	}

	/*
	 * t_ctid names a tuple slot; its block may lie past the end: the newer
	 * version of an aborted update (or of a row whose page a VACUUM
	 * skipped) can be removed and its page truncated, leaving the old
	 * version's t_ctid dangling, as in heap.  Chain followers check xmin
	 * against the previous xmax and the block against the table's size.
	 * A speculative insertion's t_ctid holds its token instead, until the
	 * insertion is confirmed or killed (or forever, if its transaction
	 * ended without doing either: a crash); only an inserter that
	 * committed can never leave one.
	 */
	if (HeapTupleHeaderIsSpeculative(h))
	{
		TransactionId xmin = HeapTupleHeaderGetRawXmin(h);

		if (TransactionIdIsNormal(xmin) &&
			!TransactionIdIsCurrentTransactionId(xmin) &&
			!TransactionIdIsInProgress(xmin) &&
			TransactionIdDidCommit(xmin))
		{
			snprintf(detail, sizeof(detail),
					 "committed tuple still carries speculative token %u",
					 HeapTupleHeaderGetSpeculativeToken(h));
			_bh_corrupted(rel, blk, off, detail);
		}
	}
	else if (!HeapTupleHeaderIndicatesMovedPartitions(h))
	{
		if (!BlockNumberIsValid(ItemPointerGetBlockNumberNoCheck(&h->t_ctid)) ||
			ItemPointerGetOffsetNumberNoCheck(&h->t_ctid) < FirstOffsetNumber ||
			ItemPointerGetOffsetNumberNoCheck(&h->t_ctid) > BLINKHEAP_MAX_TUPLES_PER_PAGE)
		{
			snprintf(detail, sizeof(detail),
					 "t_ctid (%u,%u) is not a tuple slot",
					 ItemPointerGetBlockNumberNoCheck(&h->t_ctid),
					 ItemPointerGetOffsetNumberNoCheck(&h->t_ctid));
			_bh_corrupted(rel, blk, off, detail);
		}
	}

	/* TOAST pointers of visible tuples, checked later */
	if (HeapTupleHasExternal(tup) && _bh_satisfies(tup, snapshot, buf))
	{
		Datum	   *values = palloc(desc->natts * sizeof(Datum));
		bool	   *isnull = palloc(desc->natts * sizeof(bool));
		int			i;

		heap_deform_tuple(tup, desc, values, isnull);
		for (i = 0; i < desc->natts; i++)
		{
			struct varlena *v;

			if (isnull[i] || TupleDescAttr(desc, i)->attlen != -1)
				continue;
			v = (struct varlena *) DatumGetPointer(values[i]);
			if (!VARATT_IS_EXTERNAL(v))
				continue;
			if (!VARATT_IS_EXTERNAL_ONDISK(v))
				_bh_corrupted(rel, blk, off,
							  "an external value on disk is not an on-disk TOAST pointer");
			if (refs->n == refs->cap)
			{
				refs->cap *= 2;
				refs->items = repalloc(refs->items, refs->cap * sizeof(BhToastRef));
			}
			refs->items[refs->n].off = off;
			VARATT_EXTERNAL_GET_POINTER(refs->items[refs->n].ext, v);
			refs->n++;
		}
		pfree(values);
		pfree(isnull);
	}
}

/*
 * Check that a TOAST value exists whole: chunks 0..n-1, n as its size
 * says.  No buffer lock of the table is held.
 */
static void
_bh_check_toast(Relation rel, Relation toastrel, Relation toastidx,
				BlockNumber blk, BhToastRef *ref)
{
	SnapshotData toastsnap;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	ttup;
	int32		extsize = VARATT_EXTERNAL_GET_EXTSIZE(ref->ext);
	int			expected = extsize > 0 ? (extsize - 1) / TOAST_MAX_CHUNK_SIZE + 1 : 0;
	int			seen = 0;
	char		detail[200];

	if (toastrel == NULL || toastidx == NULL ||
		ref->ext.va_toastrelid != RelationGetRelid(toastrel))
	{
		snprintf(detail, sizeof(detail),
				 "TOAST value %u names TOAST table %u, not the table's own",
				 ref->ext.va_valueid, ref->ext.va_toastrelid);
		_bh_corrupted(rel, blk, ref->off, detail);
	}

	init_toast_snapshot(&toastsnap);
	ScanKeyInit(&key, (AttrNumber) 1, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(ref->ext.va_valueid));
	scan = systable_beginscan_ordered(toastrel, toastidx, &toastsnap, 1, &key);
	while ((ttup = systable_getnext_ordered(scan, ForwardScanDirection)) != NULL)
	{
		bool		isnull;
		int32		seq = DatumGetInt32(fastgetattr(ttup, 2,
													RelationGetDescr(toastrel),
													&isnull));

		if (isnull || seq != seen)
		{
			systable_endscan_ordered(scan);
			snprintf(detail, sizeof(detail),
					 "TOAST value %u has chunk %d where chunk %d belongs",
					 ref->ext.va_valueid, isnull ? -1 : seq, seen);
			_bh_corrupted(rel, blk, ref->off, detail);
		}
		seen++;
	}
	systable_endscan_ordered(scan);
	if (seen != expected)
	{
		snprintf(detail, sizeof(detail),
				 "TOAST value %u has %d chunks, expected %d",
				 ref->ext.va_valueid, seen, expected);
		_bh_corrupted(rel, blk, ref->off, detail);
	}
}

Datum
blinkheap_check(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	bool		skip;
	Relation	rel = _bh_open_checked(relid, AccessShareLock, &skip);
	Relation	toastrel = NULL;
	Relation   *toastidxs = NULL;
	int			ntoastidx = 0;
	int			valididx = 0;
	BlockNumber nblocks;
	TransactionId nextxid = XidFromFullTransactionId(ReadNextFullTransactionId());
	MultiXactId nextmulti = ReadNextMultiXactId();
	TransactionId frozenxid = rel->rd_rel->relfrozenxid;
	MultiXactId minmxid = rel->rd_rel->relminmxid;
	Snapshot	snapshot;
	BufferAccessStrategy strategy;
	BhToastRefs refs;
	BhExtent	extents[BLINKHEAP_MAX_TUPLES_PER_PAGE];
	BlockNumber blk;

	if (skip)
	{
		relation_close(rel, AccessShareLock);
		PG_RETURN_VOID();
	}
	nblocks = RelationGetNumberOfBlocks(rel);
	snapshot = RegisterSnapshot(GetTransactionSnapshot());
	strategy = GetAccessStrategy(BAS_BULKREAD);

	if (OidIsValid(rel->rd_rel->reltoastrelid))
	{
		toastrel = table_open(rel->rd_rel->reltoastrelid, AccessShareLock);
		valididx = toast_open_indexes(toastrel, AccessShareLock, &toastidxs,
									  &ntoastidx);
	}
	refs.cap = 64;
	refs.items = palloc(refs.cap * sizeof(BhToastRef));

	for (blk = 0; blk < nblocks; blk++)
	{
		Buffer		buf;
		Page		page;
		PageHeader	ph;
		OffsetNumber off,
					maxoff;
		int			next = 0;
		int			i;

		CHECK_FOR_INTERRUPTS();
		blinkam_debug_pause(BLINKAM_PAUSE_HEAP_CHECK_PAGE);
		buf = ReadBufferExtended(rel, MAIN_FORKNUM, blk, RBM_NORMAL, strategy);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		_bh_check_page(rel, buf);
		page = BufferGetPage(buf);
		ph = (PageHeader) page;
		if (PageIsNew(page))
		{
			if (!PageIsVerifiedExtended(page, blk, 0))
				_bh_corrupted(rel, blk, InvalidOffsetNumber,
							  "an uninitialized page is not all zeroes");
			UnlockReleaseBuffer(buf);
			continue;
		}
		maxoff = PageGetMaxOffsetNumber(page);
		if (maxoff > BLINKHEAP_MAX_TUPLES_PER_PAGE)
			_bh_corrupted(rel, blk, InvalidOffsetNumber,
						  "too many line pointers");

		for (off = FirstOffsetNumber; off <= maxoff; off++)
		{
			ItemId		lp = PageGetItemId(page, off);
			HeapTupleData tup;

			if (ItemIdIsRedirected(lp))
				_bh_corrupted(rel, blk, off,
							  "a redirect line pointer (blinkheap has no HOT chains)");
			if (!ItemIdHasStorage(lp))
				continue;
			if (ItemIdGetOffset(lp) < ph->pd_upper ||
				ItemIdGetOffset(lp) + ItemIdGetLength(lp) > ph->pd_special ||
				ItemIdGetOffset(lp) != MAXALIGN(ItemIdGetOffset(lp)))
				_bh_corrupted(rel, blk, off,
							  "the line pointer leaves the tuple area");
			extents[next].start = ItemIdGetOffset(lp);
			extents[next].end = ItemIdGetOffset(lp) + ItemIdGetLength(lp);
			extents[next].off = off;
			next++;

			if (!ItemIdIsNormal(lp))
				continue;
			if (!_bh_get_tuple(rel, buf, off, &tup))
				continue;
			_bh_check_tuple(rel, buf, &tup, nblocks, &nextxid, &nextmulti,
							frozenxid, minmxid, snapshot, &refs);
		}

		qsort(extents, next, sizeof(BhExtent), _bh_extent_cmp);
		for (i = 1; i < next; i++)
			if (extents[i].start < extents[i - 1].end)
			{
				char		detail[100];

				snprintf(detail, sizeof(detail),
						 "the tuple overlaps the one at offset %u",
						 extents[i - 1].off);
				_bh_corrupted(rel, blk, extents[i].off, detail);
			}
		UnlockReleaseBuffer(buf);

		for (i = 0; i < refs.n; i++)
			_bh_check_toast(rel, toastrel,
							toastidxs ? toastidxs[valididx] : NULL, blk,
							&refs.items[i]);
		refs.n = 0;
	}

	if (toastrel != NULL)
	{
		toast_close_indexes(toastidxs, ntoastidx, AccessShareLock);
		table_close(toastrel, AccessShareLock);
	}
	FreeAccessStrategy(strategy);
	UnregisterSnapshot(snapshot);
	relation_close(rel, AccessShareLock);
	PG_RETURN_VOID();
}

/* Read block blkno (checked against the table's size) share-locked. */
static Buffer
_bh_read_block_for_tool(Relation rel, int64 blkno)
{
	Buffer		buf;

	if (blkno < 0 || blkno >= (int64) RelationGetNumberOfBlocks(rel))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("block number " INT64_FORMAT " is out of range for table \"%s\"",
						blkno, RelationGetRelationName(rel))));
	buf = ReadBuffer(rel, (BlockNumber) blkno);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	_bh_check_page(rel, buf);
	return buf;
}

/*
 * blinkheap_page_stats(table, blkno): free space, line pointers by kind,
 * and tuples counted live or dead by their vacuum state (dead: dead or
 * recently dead as of the oldest running transaction's horizon).
 */
Datum
blinkheap_page_stats(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	int64		blkno = PG_GETARG_INT64(1);
	Relation	rel = _bh_open_checked(relid, AccessShareLock, NULL);
	TransactionId oldest = GetOldestNonRemovableTransactionId(rel);
	TupleDesc	tupdesc;
	Buffer		buf;
	Page		page;
	Datum		values[8];
	bool		nulls[8] = {0};
	int			nnormal = 0,
				ndead = 0,
				nunused = 0,
				nlive_t = 0,
				ndead_t = 0;
	OffsetNumber off,
				maxoff;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	buf = _bh_read_block_for_tool(rel, blkno);
	page = BufferGetPage(buf);
	maxoff = PageIsNew(page) ? InvalidOffsetNumber : PageGetMaxOffsetNumber(page);
	for (off = FirstOffsetNumber; off <= maxoff; off++)
	{
		ItemId		lp = PageGetItemId(page, off);
		HeapTupleData tup;

		if (ItemIdIsDead(lp))
			ndead++;
		else if (!ItemIdIsUsed(lp))
			nunused++;
		else if (ItemIdIsNormal(lp))
		{
			nnormal++;
			if (_bh_get_tuple(rel, buf, off, &tup))
			{
				HTSV_Result r = _bh_satisfies_vacuum(&tup, oldest);

				if (r == HEAPTUPLE_DEAD || r == HEAPTUPLE_RECENTLY_DEAD)
					ndead_t++;
				else
					nlive_t++;
			}
		}
	}

	values[0] = Int64GetDatum(blkno);
	values[1] = Int32GetDatum(PageIsNew(page) ? (int32) BLINKHEAP_MAX_TUPLE_SIZE :
							  (int32) PageGetFreeSpace(page));
	values[2] = Int32GetDatum(maxoff == InvalidOffsetNumber ? 0 : maxoff);
	values[3] = Int32GetDatum(nnormal);
	values[4] = Int32GetDatum(ndead);
	values[5] = Int32GetDatum(nunused);
	values[6] = Int32GetDatum(nlive_t);
	values[7] = Int32GetDatum(ndead_t);
	UnlockReleaseBuffer(buf);
	relation_close(rel, AccessShareLock);

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc),
													  values, nulls)));
}

/* The infomask bits of a tuple as text, e.g. "XMIN_COMMITTED|XMAX_INVALID". */
static char *
_bh_infomask_text(uint16 infomask, uint16 infomask2)
{
	static const struct
	{
		uint16		bit;
		bool		second;
		const char *name;
	}			bits[] =
	{
		{HEAP_HASNULL, false, "HASNULL"},
		{HEAP_HASVARWIDTH, false, "HASVARWIDTH"},
		{HEAP_HASEXTERNAL, false, "HASEXTERNAL"},
		{HEAP_XMAX_KEYSHR_LOCK, false, "XMAX_KEYSHR_LOCK"},
		{HEAP_COMBOCID, false, "COMBOCID"},
		{HEAP_XMAX_EXCL_LOCK, false, "XMAX_EXCL_LOCK"},
		{HEAP_XMAX_LOCK_ONLY, false, "XMAX_LOCK_ONLY"},
		{HEAP_XMIN_COMMITTED, false, "XMIN_COMMITTED"},
		{HEAP_XMIN_INVALID, false, "XMIN_INVALID"},
		{HEAP_XMAX_COMMITTED, false, "XMAX_COMMITTED"},
		{HEAP_XMAX_INVALID, false, "XMAX_INVALID"},
		{HEAP_XMAX_IS_MULTI, false, "XMAX_IS_MULTI"},
		{HEAP_UPDATED, false, "UPDATED"},
		{HEAP_MOVED_OFF, false, "MOVED_OFF"},
		{HEAP_MOVED_IN, false, "MOVED_IN"},
		{HEAP_KEYS_UPDATED, true, "KEYS_UPDATED"},
		{HEAP_HOT_UPDATED, true, "HOT_UPDATED"},
		{HEAP_ONLY_TUPLE, true, "HEAP_ONLY"},
	};
	StringInfoData s;
	int			i;

	initStringInfo(&s);
	for (i = 0; i < (int) lengthof(bits); i++)
	{
		uint16		mask = bits[i].second ? infomask2 : infomask;

		/* HEAP_XMAX_SHR_LOCK is both lock bits: name the pair once */
		if (!bits[i].second && bits[i].bit == HEAP_XMAX_KEYSHR_LOCK &&
			(infomask & HEAP_LOCK_MASK) == HEAP_XMAX_SHR_LOCK)
		{
			appendStringInfo(&s, "%sXMAX_SHR_LOCK", s.len ? "|" : "");
			continue;
		}
		if (!bits[i].second && bits[i].bit == HEAP_XMAX_EXCL_LOCK &&
			(infomask & HEAP_LOCK_MASK) == HEAP_XMAX_SHR_LOCK)
			continue;
		if (mask & bits[i].bit)
			appendStringInfo(&s, "%s%s", s.len ? "|" : "", bits[i].name);
	}
	return s.data;
}

/*
 * blinkheap_page_items(table, blkno): one row per line pointer.
 */
Datum
blinkheap_page_items(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	int64		blkno = PG_GETARG_INT64(1);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	rel;
	Buffer		buf;
	Page		page;
	OffsetNumber off,
				maxoff;

	InitMaterializedSRF(fcinfo, 0);
	rel = _bh_open_checked(relid, AccessShareLock, NULL);
	buf = _bh_read_block_for_tool(rel, blkno);
	page = BufferGetPage(buf);
	maxoff = PageIsNew(page) ? InvalidOffsetNumber : PageGetMaxOffsetNumber(page);
	for (off = FirstOffsetNumber; off <= maxoff; off++)
	{
		ItemId		lp = PageGetItemId(page, off);
		Datum		values[7];
		bool		nulls[7] = {0};
		HeapTupleData tup;

		values[0] = Int32GetDatum(off);
		values[1] = CStringGetTextDatum(ItemIdIsNormal(lp) ? "normal" :
										ItemIdIsDead(lp) ? "dead" :
										ItemIdIsRedirected(lp) ? "redirect" :
										"unused");
		values[2] = Int32GetDatum(ItemIdGetLength(lp));
		if (_bh_get_tuple(rel, buf, off, &tup))
		{
			ItemPointer ctid = palloc(sizeof(ItemPointerData));

			*ctid = tup.t_data->t_ctid;
			values[3] = TransactionIdGetDatum(HeapTupleHeaderGetRawXmin(tup.t_data));
			values[4] = TransactionIdGetDatum(HeapTupleHeaderGetRawXmax(tup.t_data));
			values[5] = PointerGetDatum(ctid);
			values[6] = CStringGetTextDatum(_bh_infomask_text(tup.t_data->t_infomask,
															  tup.t_data->t_infomask2));
		}
		else
			nulls[3] = nulls[4] = nulls[5] = nulls[6] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}

	/*
	 * tests: held here with the page in share mode, it stands for any
	 * locker of a blinkheap page that is not an announced inserter (a
	 * scan, PostgreSQL writing the page out): it lets the page go without
	 * a look at the batch wait list (batch.c, "Announced holders")
	 */
	blinkam_debug_pause(BLINKAM_PAUSE_PAGE_ITEMS_LOCKED);
	UnlockReleaseBuffer(buf);
	relation_close(rel, AccessShareLock);
	return (Datum) 0;
}
