/*-------------------------------------------------------------------------
 *
 * blinkutils.c
 *	  The blink handler, options, cost estimate, operator class validation,
 *	  and key utilities (insertion keys, tuple comparison, pivots).
 *
 * src/index/blinkutils.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/amvalidate.h"
#include "access/htup_details.h"
#include "access/nbtree.h"
#include "access/reloptions.h"
#include "catalog/index.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_amproc.h"
#include "catalog/pg_class.h"
#include "catalog/pg_language.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/progress.h"
#include "commands/vacuum.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/index_selfuncs.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "index/blink.h"

PG_FUNCTION_INFO_V1(blinkhandler);

static relopt_kind blink_relopt_kind;

/*
 * Set up the blink index AM: its reloptions, shared memory, hooks and
 * what the workers do for it.  Called from _PG_init.
 */
void
blink_init(void)
{
	blink_relopt_kind = add_reloption_kind();
	add_int_reloption(blink_relopt_kind, "fillfactor",
					  "Packs blink leaf pages only to this percentage in builds and right-edge splits",
					  BLINK_DEFAULT_FILLFACTOR, BLINK_MIN_FILLFACTOR, 100,
					  ShareUpdateExclusiveLock);
	add_bool_reloption(blink_relopt_kind, "deduplicate_items",
					   "Stores equal keys of a blink index once, with a list of the rows that have them",
					   true, ShareUpdateExclusiveLock);
	_blink_splitreg_init();
	_blink_vacuum_init();
	_blink_onconflict_init();
	_blink_defer_init();
	_blink_pending_init();
	_blink_repair_init();
}

Datum
blinkhandler(PG_FUNCTION_ARGS)
{
	IndexAmRoutine *amroutine = makeNode(IndexAmRoutine);

	amroutine->amstrategies = BTMaxStrategyNumber;
	/*
	 * 1 = comparison, 2 = sortsupport.  btree's 3 (in_range) and 4
	 * (equalimage) are looked up only in btree families (window frames,
	 * btree deduplication), so blink families do not carry them.
	 */
	amroutine->amsupport = 2;
	amroutine->amoptsprocnum = 0;
	amroutine->amcanorder = true;
	amroutine->amcanorderbyop = false;
	amroutine->amcanbackward = true;
	amroutine->amcanunique = true;
	amroutine->amcanmulticol = true;
	amroutine->amoptionalkey = true;
	amroutine->amsearcharray = true;
	amroutine->amsearchnulls = true;
	amroutine->amstorage = false;
	amroutine->amclusterable = true;
	amroutine->ampredlocks = true;
	amroutine->amcanparallel = true;
	amroutine->amcaninclude = true;
	amroutine->amusemaintenanceworkmem = false;
	amroutine->amparallelvacuumoptions =
		VACUUM_OPTION_PARALLEL_BULKDEL | VACUUM_OPTION_PARALLEL_COND_CLEANUP;
	amroutine->amkeytype = InvalidOid;

	amroutine->ambuild = blinkbuild;
	amroutine->ambuildempty = blinkbuildempty;
	amroutine->aminsert = blinkinsert;
	amroutine->ambulkdelete = blinkbulkdelete;
	amroutine->amvacuumcleanup = blinkvacuumcleanup;
	amroutine->amcanreturn = blinkcanreturn;
	amroutine->amcostestimate = blinkcostestimate;
	amroutine->amoptions = blinkoptions;
	amroutine->amproperty = NULL;
	amroutine->ambuildphasename = blinkbuildphasename;
	amroutine->amvalidate = blinkvalidate;
	amroutine->amadjustmembers = blinkadjustmembers;
	amroutine->ambeginscan = blinkbeginscan;
	amroutine->amrescan = blinkrescan;
	amroutine->amgettuple = blinkgettuple;
	amroutine->amgetbitmap = blinkgetbitmap;
	amroutine->amendscan = blinkendscan;
	amroutine->ammarkpos = blinkmarkpos;
	amroutine->amrestrpos = blinkrestrpos;
	amroutine->amestimateparallelscan = blinkestimateparallelscan;
	amroutine->aminitparallelscan = blinkinitparallelscan;
	amroutine->amparallelrescan = blinkparallelrescan;

	PG_RETURN_POINTER(amroutine);
}

bytea *
blinkoptions(Datum reloptions, bool validate)
{
	static const relopt_parse_elt tab[] = {
		{"fillfactor", RELOPT_TYPE_INT, offsetof(BlinkOptions, fillfactor)},
		{"deduplicate_items", RELOPT_TYPE_BOOL, offsetof(BlinkOptions, deduplicate_items)}
	};

	return (bytea *) build_reloptions(reloptions, validate, blink_relopt_kind,
									  sizeof(BlinkOptions), tab, lengthof(tab));
}

/* Every key and INCLUDE column is stored as is: index-only scans work. */
bool
blinkcanreturn(Relation index, int attno)
{
	return true;
}

char *
blinkbuildphasename(int64 phasenum)
{
	switch (phasenum)
	{
		case PROGRESS_CREATEIDX_SUBPHASE_INITIALIZE:
			return "initializing";
		case BLINK_PHASE_SCAN:
			return "scanning table";
		case BLINK_PHASE_SORT:
			return "sorting";
		case BLINK_PHASE_LOAD:
			return "loading tuples in tree";
		default:
			return NULL;
	}
}

/*
 * blink orders keys exactly as btree does with the same operators, so
 * btree's estimate applies.  The planner leaves tree_height unknown (-1)
 * for an AM other than btree, so the descent is costed from the page count
 * only; blink trees are as shallow as btree's.
 */
void
blinkcostestimate(struct PlannerInfo *root, struct IndexPath *path, double loop_count,
				  Cost *indexStartupCost, Cost *indexTotalCost,
				  Selectivity *indexSelectivity, double *indexCorrelation,
				  double *indexPages)
{
	btcostestimate(root, path, loop_count, indexStartupCost, indexTotalCost,
				   indexSelectivity, indexCorrelation, indexPages);
}

/*
 * CREATE OPERATOR CLASS / ALTER OPERATOR FAMILY ... ADD for blink: refuse
 * support functions whose signature does not fit their place.  PostgreSQL
 * checks this itself only for btree and hash, whose comparison functions
 * it files under their own argument types; for any other access method a
 * function is filed under the class's type whatever it takes, and blink
 * calls support 1 on two values of the types it is filed under -- a
 * comparison of other types read them as something they are not (a
 * server crash with bttextcmp in an integer class; found by a helper's
 * review, sql/blink_opclasses.sql).  The rules are blinkvalidate's.
 */
void
blinkadjustmembers(Oid opfamilyoid, Oid opclassoid, List *operators,
				   List *functions)
{
	ListCell   *lc;

	foreach(lc, functions)
	{
		OpFamilyMember *member = (OpFamilyMember *) lfirst(lc);

		switch (member->number)
		{
			case 1:
				if (!check_amproc_signature(member->object, INT4OID, true, 2, 2,
											member->lefttype, member->righttype))
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
							 errmsg("blink comparison function %s must take arguments of types %s and %s and return integer",
									format_procedure(member->object),
									format_type_be(member->lefttype),
									format_type_be(member->righttype)),
							 errhint("Support function 1 compares two values of the types it is registered for; give the types with FUNCTION 1 (lefttype, righttype) if they are not the class's.")));
				break;
			case 2:
				if (!check_amproc_signature(member->object, VOIDOID, true, 1, 1,
											INTERNALOID))
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
							 errmsg("blink sort support function %s must take one argument of type internal and return void",
									format_procedure(member->object))));
				break;
			default:
				break;			/* PostgreSQL refuses numbers past amsupport */
		}
	}
}

/*
 * Validate an operator class: operators at strategies 1-5 returning
 * boolean, support 1 a comparison proc returning int4 for every type pair
 * that has operators, support 2 an optional sortsupport proc.
 */
bool
blinkvalidate(Oid opclassoid)
{
	bool		result = true;
	HeapTuple	classtup;
	Form_pg_opclass classform;
	Oid			opfamilyoid;
	Oid			opcintype;
	char	   *opclassname;
	CatCList   *proclist,
			   *oprlist;
	List	   *grouplist;
	ListCell   *lc;
	bool		found_default_cmp = false;

	classtup = SearchSysCache1(CLAOID, ObjectIdGetDatum(opclassoid));
	if (!HeapTupleIsValid(classtup))
		elog(ERROR, "cache lookup failed for operator class %u", opclassoid);
	classform = (Form_pg_opclass) GETSTRUCT(classtup);
	opfamilyoid = classform->opcfamily;
	opcintype = classform->opcintype;
	opclassname = NameStr(classform->opcname);

	oprlist = SearchSysCacheList1(AMOPSTRATEGY, ObjectIdGetDatum(opfamilyoid));
	proclist = SearchSysCacheList1(AMPROCNUM, ObjectIdGetDatum(opfamilyoid));

	for (int i = 0; i < proclist->n_members; i++)
	{
		HeapTuple	proctup = &proclist->members[i]->tuple;
		Form_pg_amproc procform = (Form_pg_amproc) GETSTRUCT(proctup);
		bool		ok;

		switch (procform->amprocnum)
		{
			case 1:
				ok = check_amproc_signature(procform->amproc, INT4OID, true,
											2, 2, procform->amproclefttype,
											procform->amprocrighttype);
				if (procform->amproclefttype == opcintype &&
					procform->amprocrighttype == opcintype)
					found_default_cmp = true;
				break;
			case 2:
				ok = check_amproc_signature(procform->amproc, VOIDOID, true,
											1, 1, INTERNALOID);
				break;
			default:
				ereport(INFO,
						(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
						 errmsg("blink operator family of operator class \"%s\" contains function %s with invalid support number %d",
								opclassname, format_procedure(procform->amproc),
								procform->amprocnum)));
				result = false;
				continue;
		}
		if (!ok)
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("blink operator family of operator class \"%s\" contains function %s with wrong signature for support number %d",
							opclassname, format_procedure(procform->amproc),
							procform->amprocnum)));
			result = false;
		}
	}

	for (int i = 0; i < oprlist->n_members; i++)
	{
		HeapTuple	oprtup = &oprlist->members[i]->tuple;
		Form_pg_amop oprform = (Form_pg_amop) GETSTRUCT(oprtup);

		if (oprform->amopstrategy < 1 ||
			oprform->amopstrategy > BTMaxStrategyNumber ||
			oprform->amoppurpose != AMOP_SEARCH ||
			!check_amop_signature(oprform->amopopr, BOOLOID,
								  oprform->amoplefttype,
								  oprform->amoprighttype))
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("blink operator family of operator class \"%s\" contains invalid operator %s at strategy %d",
							opclassname, format_operator(oprform->amopopr),
							oprform->amopstrategy)));
			result = false;
		}
	}

	/* Every type pair with operators needs all five and a comparison proc. */
	grouplist = identify_opfamily_groups(oprlist, proclist);
	foreach(lc, grouplist)
	{
		OpFamilyOpFuncGroup *group = (OpFamilyOpFuncGroup *) lfirst(lc);

		if (group->operatorset == 0)
			continue;
		if (group->operatorset != (((uint64) 1 << (BTMaxStrategyNumber + 1)) - 2) ||
			(group->functionset & ((uint64) 1 << 1)) == 0)
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("blink operator family of operator class \"%s\" is missing operators or the comparison function for types %s and %s",
							opclassname, format_type_be(group->lefttype),
							format_type_be(group->righttype))));
			result = false;
		}
	}

	if (!found_default_cmp)
	{
		ereport(INFO,
				(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
				 errmsg("blink operator class \"%s\" has no comparison function for its own type %s",
						opclassname, format_type_be(opcintype))));
		result = false;
	}

	ReleaseCatCacheList(proclist);
	ReleaseCatCacheList(oprlist);
	ReleaseSysCache(classtup);

	return result;
}

/* ---------------------------------------------------------------------
 * Keys
 * ---------------------------------------------------------------------
 */

/*
 * Build the full insertion key of itup: every key attribute, compared
 * with the opclass's own comparison proc, plus its heap TID.  With itup
 * NULL, the key has no argument values (the caller fills them in).
 */
BlinkScanInsert
_blink_mkscankey(Relation rel, IndexTuple itup)
{
	BlinkScanInsert key;
	TupleDesc	itupdesc = RelationGetDescr(rel);
	int			nkeyatts = IndexRelationGetNumberOfKeyAttributes(rel);
	int16	   *indoption = rel->rd_indoption;

	key = palloc(offsetof(BlinkScanInsertData, scankeys) +
				 sizeof(ScanKeyData) * nkeyatts);
	key->nextkey = true;
	key->heaptid = itup ? BlinkTupleHeapTid(itup) : NULL;
	key->keysz = nkeyatts;

	for (int i = 0; i < nkeyatts; i++)
	{
		FmgrInfo   *procinfo = index_getprocinfo(rel, i + 1, 1);
		Datum		arg = (Datum) 0;
		bool		null = true;
		int			flags;

		if (itup)
			arg = index_getattr(itup, i + 1, itupdesc, &null);
		flags = (null ? SK_ISNULL : 0) |
			(indoption[i] << SK_BT_INDOPTION_SHIFT);
		ScanKeyEntryInitializeWithInfo(&key->scankeys[i], flags,
									   (AttrNumber) (i + 1),
									   InvalidStrategy, InvalidOid,
									   rel->rd_indcollation[i],
									   procinfo, arg);
	}
	return key;
}

/*
 * Call the comparison support function f on (a, b), the way nbtree's
 * support function 1 is called, but without the function-call interface
 * for the few built-in comparators of fixed-width integer-like types:
 * they only compare the two values, and every search, unique check and
 * sort of the tail calls one several times per item.  The answer's sign
 * is the same as the function's (all callers use only the sign).
 */
static inline int32
_blink_call_cmp(FmgrInfo *f, Oid collation, Datum a, Datum b)
{
	PGFunction	fn = f->fn_addr;

	if (fn == btint4cmp || fn == date_cmp)
		return (DatumGetInt32(a) > DatumGetInt32(b)) -
			(DatumGetInt32(a) < DatumGetInt32(b));
	if (fn == btint8cmp || fn == timestamp_cmp)
		return (DatumGetInt64(a) > DatumGetInt64(b)) -
			(DatumGetInt64(a) < DatumGetInt64(b));
	if (fn == btint2cmp)
		return (DatumGetInt16(a) > DatumGetInt16(b)) -
			(DatumGetInt16(a) < DatumGetInt16(b));
	if (fn == btoidcmp)
		return (DatumGetObjectId(a) > DatumGetObjectId(b)) -
			(DatumGetObjectId(a) < DatumGetObjectId(b));
	return DatumGetInt32(FunctionCall2Coll(f, collation, a, b));
}

/*
 * The width of a key column that comparison function fn orders, if its
 * equal values have equal bits (integers and their kin, which
 * _blink_call_cmp decides itself); 0 for any other function.  The caller
 * checks the column's attlen against it: an operator class could name
 * such a function for another type.
 */
int
_blink_cmp_bits_width(PGFunction fn)
{
	if (fn == btint8cmp || fn == timestamp_cmp)
		return 8;
	if (fn == btint4cmp || fn == date_cmp || fn == btoidcmp)
		return 4;
	if (fn == btint2cmp)
		return 2;
	return 0;
}

/*
 * For the walks of a leaf's unsorted tail that look for items equal to a
 * user key (unique checks look at every tail item): can an item be ruled
 * out by its first attribute's bytes alone?  Returns their width (0: no)
 * and sets *bits to the key's value.  Only where the answer is plain: a
 * comparator of _blink_cmp_bits_width on a column of that very width, and
 * a key value that is not NULL.  An item with no NULLs has the attribute
 * right after its header (_blink_tail_item_differs).
 */
int
_blink_first_eq_width(Relation rel, BlinkScanInsert key, int64 *bits)
{
	ScanKey		sk = &key->scankeys[0];
	int			width;

	if (key->keysz < 1 || (sk->sk_flags & SK_ISNULL))
		return 0;
	width = _blink_cmp_bits_width(sk->sk_func.fn_addr);
	if (width == 0 || TupleDescAttr(RelationGetDescr(rel), 0)->attlen != width)
		return 0;
	if (width == 8)
		*bits = DatumGetInt64(sk->sk_argument);
	else if (width == 4)
		*bits = DatumGetInt32(sk->sk_argument);
	else
		*bits = DatumGetInt16(sk->sk_argument);
	return width;
}

/*
 * Compare one attribute: the key's value (argument) against the item's
 * (datum), in index order.  Returns <0, 0, >0 as key <, =, > item.
 */
static inline int32
_blink_compare_attr(ScanKey sk, Datum datum, bool isnull)
{
	int32		result;

	if (sk->sk_flags & SK_ISNULL)
	{
		if (isnull)
			return 0;
		/* a NULL key against a value */
		return (sk->sk_flags & SK_BT_NULLS_FIRST) ? -1 : 1;
	}
	if (isnull)
		return (sk->sk_flags & SK_BT_NULLS_FIRST) ? 1 : -1;

	/* The proc compares item to key; we want key to item. */
	result = _blink_call_cmp(&sk->sk_func, sk->sk_collation,
							 datum, sk->sk_argument);
	if (!(sk->sk_flags & SK_BT_DESC))
		INVERT_COMPARE_RESULT(result);
	return result;
}

/*
 * Compare an insertion key with an index tuple.  Returns <0, 0, >0 as the
 * key sorts before, equal to, or after the tuple.  Equality means equal on
 * everything the key has (a prefix of attributes, the TID if given).
 */
int32
_blink_compare_key_tuple(Relation rel, BlinkScanInsert key, IndexTuple itup)
{
	TupleDesc	itupdesc = RelationGetDescr(rel);

	for (int i = 0; i < key->keysz; i++)
	{
		ScanKey		sk = &key->scankeys[i];
		bool		isnull;
		Datum		datum = index_getattr(itup, sk->sk_attno, itupdesc, &isnull);
		int32		result = _blink_compare_attr(sk, datum, isnull);

		if (result != 0)
			return result;
	}
	if (key->heaptid == NULL ||
		key->keysz < IndexRelationGetNumberOfKeyAttributes(rel))
		return 0;
	return ItemPointerCompare(key->heaptid, BlinkTupleHeapTid(itup));
}

/*
 * Compare two index tuples (leaf items or pivots) in full key order: the
 * key attributes, then the heap TID.
 */
static int
_blink_compare_keys(Relation rel, IndexTuple a, IndexTuple b)
{
	TupleDesc	itupdesc = RelationGetDescr(rel);
	int			nkeyatts = IndexRelationGetNumberOfKeyAttributes(rel);

	for (int i = 0; i < nkeyatts; i++)
	{
		AttrNumber	attno = i + 1;
		FmgrInfo   *procinfo = index_getprocinfo(rel, attno, 1);
		int16		option = rel->rd_indoption[i];
		bool		anull,
					bnull;
		Datum		adatum = index_getattr(a, attno, itupdesc, &anull);
		Datum		bdatum = index_getattr(b, attno, itupdesc, &bnull);
		int32		result;

		if (anull && bnull)
			continue;
		if (anull || bnull)
		{
			result = anull ? 1 : -1;
			if (option & INDOPTION_NULLS_FIRST)
				result = -result;
			return result;
		}
		result = _blink_call_cmp(procinfo, rel->rd_indcollation[i],
								 adatum, bdatum);
		if (option & INDOPTION_DESC)
			INVERT_COMPARE_RESULT(result);
		if (result != 0)
			return result;
	}
	return 0;
}

int
_blink_compare_tuples(Relation rel, IndexTuple a, IndexTuple b)
{
	int			result = _blink_compare_keys(rel, a, b);

	return result != 0 ? result :
		ItemPointerCompare(BlinkTupleHeapTid(a), BlinkTupleHeapTid(b));
}

/*
 * Compare a with the end of b's range: as _blink_compare_tuples, but b
 * stands for its last heap TID (they differ for posting tuples only).
 */
int
_blink_compare_tuple_end(Relation rel, IndexTuple a, IndexTuple b)
{
	int			result = _blink_compare_keys(rel, a, b);

	return result != 0 ? result :
		ItemPointerCompare(BlinkTupleHeapTid(a), BlinkTupleMaxHeapTid(b));
}

/* Have a and b equal key columns (NULLs equal to each other)? */
bool
_blink_keys_equal(Relation rel, IndexTuple a, IndexTuple b)
{
	return _blink_compare_keys(rel, a, b) == 0;
}

/*
 * qsort_arg comparator: offsets of items on the page of arg (a
 * BlinkSortOffsetsArg), in full key order.
 */
int
_blink_offset_cmp(const void *a, const void *b, void *arg)
{
	BlinkSortOffsetsArg *sa = (BlinkSortOffsetsArg *) arg;
	IndexTuple	ta = (IndexTuple) PageGetItem(sa->page,
											  PageGetItemId(sa->page, *(const OffsetNumber *) a));
	IndexTuple	tb = (IndexTuple) PageGetItem(sa->page,
											  PageGetItemId(sa->page, *(const OffsetNumber *) b));

	return _blink_compare_tuples(sa->rel, ta, tb);
}

/*
 * Does the leaf item itup have base's key and a heap TID in [min, max] (a
 * posting tuple: a range that meets it)?
 */
bool
_blink_item_meets_range(Relation rel, IndexTuple itup, IndexTuple base,
						ItemPointer min, ItemPointer max)
{
	return ItemPointerCompare(BlinkTupleHeapTid(itup), max) <= 0 &&
		ItemPointerCompare(BlinkTupleMaxHeapTid(itup), min) >= 0 &&
		_blink_keys_equal(rel, itup, base);
}

/*
 * Make a pivot tuple (a high key or separator) from a leaf item or from
 * another pivot: the key attributes only, then the heap TID.  Returns a
 * palloc'd tuple; t_tid is left for the caller (a downlink, or unused).
 */
IndexTuple
_blink_make_pivot(Relation rel, IndexTuple itup)
{
	IndexTuple	keyonly;
	IndexTuple	pivot;
	Size		size;

	if (BlinkTupleIsPivot(itup))
	{
		size = IndexTupleSize(itup);
		pivot = palloc(size);
		memcpy(pivot, itup, size);
		return pivot;
	}

	if (BlinkTupleIsPosting(itup))
		keyonly = _blink_form_posting(itup, BlinkPostingTids(itup), 1);
	else if (IndexRelationGetNumberOfAttributes(rel) >
			 IndexRelationGetNumberOfKeyAttributes(rel))
		keyonly = index_truncate_tuple(RelationGetDescr(rel), itup,
									   IndexRelationGetNumberOfKeyAttributes(rel));
	else
		keyonly = itup;

	size = IndexTupleSize(keyonly);
	Assert(size == MAXALIGN(size));
	pivot = palloc0(size + BLINK_TID_SPACE);
	memcpy(pivot, keyonly, size);
	pivot->t_info &= ~INDEX_SIZE_MASK;
	pivot->t_info |= (size + BLINK_TID_SPACE) | BLINK_PIVOT_HAS_TID;
	ItemPointerCopy(BlinkTupleHeapTid(itup), BlinkPivotHeapTid(pivot));
	if (keyonly != itup)
		pfree(keyonly);
	return pivot;
}

/*
 * Write into dest (room for BlinkItemKeySize(itup) bytes) the plain leaf
 * tuple with itup's key (itup: a plain or posting leaf item) and heap TID
 * tid.  Returns its size.
 */
Size
_blink_copy_key(IndexTuple dest, IndexTuple itup, ItemPointer tid)
{
	Size		keysz = BlinkItemKeySize(itup);

	memcpy(dest, itup, keysz);
	dest->t_info = (dest->t_info & ~INDEX_SIZE_MASK) | keysz;
	dest->t_tid = *tid;
	return keysz;
}

/*
 * A leaf item with base's key (base: a plain or posting leaf item) and the
 * heap TIDs tids[0..n-1], ascending: a plain tuple for one TID, else a
 * posting tuple.  Returns a palloc'd tuple.
 */
IndexTuple
_blink_form_posting(IndexTuple base, const ItemPointerData *tids, int n)
{
	Size		keysz = BlinkItemKeySize(base);
	Size		size = n == 1 ? keysz : BlinkPostingSize(keysz, n);
	IndexTuple	itup;

	Assert(n >= 1 && keysz == MAXALIGN(keysz));
	if (size > INDEX_SIZE_MASK || n > PG_UINT16_MAX)
		elog(ERROR, "posting tuple of %d heap TIDs is too large", n);
	itup = palloc0(size);
	(void) _blink_copy_key(itup, base, (ItemPointer) &tids[0]);
	if (n > 1)
	{
		itup->t_info = (itup->t_info & ~INDEX_SIZE_MASK) | size;
		itup->t_tid.ip_blkid.bi_hi = (uint16) n;
		itup->t_tid.ip_blkid.bi_lo = (uint16) keysz;
		itup->t_tid.ip_posid = BLINK_POSTING_POSID;
		memcpy(BlinkPostingTids(itup), tids, n * sizeof(ItemPointerData));
	}
	return itup;
}

/*
 * May this index store equal keys as posting tuples?  Only if it asks to
 * (deduplicate_items), is not unique (a unique index holds equal keys
 * only for row versions, which the deletion before a split removes), has
 * no INCLUDE columns, and every key column's equal values are equal images:
 * its comparison function is the one of btree's default operator class
 * for the type, and that class's equalimage function says so (it is false
 * for numeric, floats, nondeterministic collations...).  A posting tuple
 * keeps the bytes of one of its entries, so an index-only scan returns
 * those for every entry: they must be the same value, not merely equal.
 * Cached in rd_amcache; inserts ask before they lock a page, so that the
 * catalog lookups of the first call never run under a leaf lock.
 */
bool
_blink_dedup_enabled(Relation rel)
{
	int			nkeyatts = IndexRelationGetNumberOfKeyAttributes(rel);
	int8		known;
	bool		ok;

	if (rel->rd_options && !((BlinkOptions *) rel->rd_options)->deduplicate_items)
		return false;
	known = _blink_relcache(rel)->dedup;
	if (known >= 0)
		return known == 1;

	ok = !rel->rd_index->indisunique &&
		nkeyatts == IndexRelationGetNumberOfAttributes(rel);
	for (int i = 0; ok && i < nkeyatts; i++)
	{
		Oid			type = rel->rd_opcintype[i];
		Oid			opclass = GetDefaultOpClass(type, BTREE_AM_OID);
		Oid			family,
					intype,
					equalimage;

		if (!OidIsValid(opclass))
		{
			ok = false;
			break;
		}
		family = get_opclass_family(opclass);
		intype = get_opclass_input_type(opclass);
		ok = get_opfamily_proc(family, intype, intype, BTORDER_PROC) ==
			index_getprocid(rel, i + 1, 1);
		equalimage = get_opfamily_proc(family, intype, intype, BTEQUALIMAGE_PROC);
		ok = ok && OidIsValid(equalimage) &&
			DatumGetBool(OidFunctionCall1Coll(equalimage, rel->rd_indcollation[i],
											  ObjectIdGetDatum(intype)));
	}
	/*
	 * The catalog lookups may have processed an invalidation of this index
	 * (VACUUM updating its pg_class row, say), which frees rd_amcache: ask
	 * for the cache only now.
	 */
	_blink_relcache(rel)->dedup = ok ? 1 : 0;
	return ok;
}

/*
 * Is comparison function proc, for values of type typid, written in C all
 * the way down?  The comparisons of arrays, ranges, multiranges and
 * composite types are C functions that call the default comparison of
 * their elements, range subtype or columns, which may be written in
 * anything: btarraycmp for an array of a type whose default operator
 * class compares in PL/pgSQL, range_cmp for a range whose subtype
 * operator class does.  Those are followed, to any depth.
 */
static bool
_blink_cmp_native(Oid proc, Oid typid)
{
	HeapTuple	tup;
	Oid			lang;
	TypeCacheEntry *tc;

	check_stack_depth();
	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(proc));
	if (!HeapTupleIsValid(tup))
		return false;
	lang = ((Form_pg_proc) GETSTRUCT(tup))->prolang;
	ReleaseSysCache(tup);
	if (lang != INTERNALlanguageId && lang != ClanguageId)
		return false;

	typid = getBaseType(typid);
	switch (proc)
	{
		case F_BTARRAYCMP:
			{
				Oid			elem = get_element_type(typid);

				if (!OidIsValid(elem))
					return false;
				tc = lookup_type_cache(elem, TYPECACHE_CMP_PROC);
				return OidIsValid(tc->cmp_proc) &&
					_blink_cmp_native(tc->cmp_proc, elem);
			}
		case F_RANGE_CMP:
			tc = lookup_type_cache(typid, TYPECACHE_RANGE_INFO);
			return tc->rngelemtype != NULL &&
				_blink_cmp_native(tc->rng_cmp_proc_finfo.fn_oid,
								  tc->rngelemtype->type_id);
		case F_MULTIRANGE_CMP:
			tc = lookup_type_cache(typid, TYPECACHE_MULTIRANGE_INFO);
			return tc->rngtype != NULL &&
				_blink_cmp_native(F_RANGE_CMP, tc->rngtype->type_id);
		case F_BTRECORDCMP:
			tc = lookup_type_cache(typid, TYPECACHE_TUPDESC);
			if (tc->tupDesc == NULL)
				return false;	/* an anonymous record: not known here */
			for (int i = 0; i < tc->tupDesc->natts; i++)
			{
				Form_pg_attribute att = TupleDescAttr(tc->tupDesc, i);
				TypeCacheEntry *atc;

				if (att->attisdropped)
					continue;
				atc = lookup_type_cache(att->atttypid, TYPECACHE_CMP_PROC);
				if (!OidIsValid(atc->cmp_proc) ||
					!_blink_cmp_native(atc->cmp_proc, att->atttypid))
					return false;
			}
			return true;
		default:
			return true;
	}
}

/*
 * Are all of rel's key comparison functions written in C (built in, or an
 * extension's), down to the elements of arrays, ranges and composite
 * types (_blink_cmp_native)?  PostgreSQL's own comparisons raise no
 * errors, and an extension's C ones are taken to behave alike; one written
 * in SQL or a procedural language may raise an error for some values, and
 * then must run where btree would run it, in the inserting backend during
 * its INSERT: such an index buffers nothing (defer.c), publishes nothing
 * to a leaf's holder (batch.c), and compares every key it appends to an
 * unsorted tail with the leaf's last item (_blink_leaf_append).  Cached in
 * rd_amcache, like _blink_dedup_enabled, and asked before a page is locked.
 */
bool
_blink_compares_in_c(Relation rel)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int8		known = _blink_relcache(rel)->in_c;
	bool		ok = true;

	if (known >= 0)
		return known == 1;
	for (int i = 1; ok && i <= IndexRelationGetNumberOfKeyAttributes(rel); i++)
		ok = _blink_cmp_native(index_getprocid(rel, i, 1),
							   TupleDescAttr(desc, i - 1)->atttypid);
	/* (the lookups may have freed rd_amcache: see _blink_dedup_enabled) */
	_blink_relcache(rel)->in_c = ok ? 1 : 0;
	return ok;
}

/* The key-less first item of an internal page, pointing to child. */
IndexTuple
_blink_minus_infinity(BlockNumber child)
{
	IndexTuple	itup = palloc0(sizeof(IndexTupleData));

	itup->t_info = sizeof(IndexTupleData);
	BlinkSetDownlink(itup, child);
	return itup;
}

/* The access method of a relation (pg_class.relam), InvalidOid if none. */
Oid
_blink_rel_am(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			am = InvalidOid;

	if (HeapTupleIsValid(tup))
	{
		am = ((Form_pg_class) GETSTRUCT(tup))->relam;
		ReleaseSysCache(tup);
	}
	return am;
}

/*
 * Refuse a tuple too large for a blink page, saying the limit.  Like
 * btree's message, it names the table row (itup's heap TID) and carries
 * the schema, table and index names in the error's fields.
 */
void
_blink_check_item_size(Relation rel, Relation heapRel, IndexTuple itup)
{
	Size		itemsz = IndexTupleSize(itup);

	if (itemsz > BLINK_MAX_ITEM_SIZE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("index row size %zu exceeds blink maximum %zu for index \"%s\"",
						itemsz, (Size) BLINK_MAX_ITEM_SIZE,
						RelationGetRelationName(rel)),
				 errdetail("Index row references tuple (%u,%u) in relation \"%s\".",
						   ItemPointerGetBlockNumberNoCheck(&itup->t_tid),
						   ItemPointerGetOffsetNumberNoCheck(&itup->t_tid),
						   RelationGetRelationName(heapRel)),
				 errhint("A blink page must hold at least three index rows: values larger than about a third of a page cannot be indexed; "
						 "consider an index on an MD5 hash of the value."),
				 errtableconstraint(heapRel, RelationGetRelationName(rel))));
}

/*
 * The key of a tuple as text, "(v1, v2)", for introspection and
 * messages; "-inf" for the minus-infinity item.
 */
char *
_blink_tuple_to_text(Relation rel, IndexTuple itup)
{
	StringInfoData buf;
	TupleDesc	itupdesc = RelationGetDescr(rel);
	int			natts = BlinkTupleIsPivot(itup) ?
		IndexRelationGetNumberOfKeyAttributes(rel) :
		IndexRelationGetNumberOfAttributes(rel);

	if (IndexTupleSize(itup) == sizeof(IndexTupleData))
		return pstrdup("-inf");

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '(');
	for (int i = 0; i < natts; i++)
	{
		bool		isnull;
		Datum		d = index_getattr(itup, i + 1, itupdesc, &isnull);

		if (i > 0)
			appendStringInfoString(&buf, ", ");
		if (isnull)
			appendStringInfoString(&buf, "null");
		else
		{
			Oid			typoutput;
			bool		typisvarlena;

			getTypeOutputInfo(TupleDescAttr(itupdesc, i)->atttypid,
							  &typoutput, &typisvarlena);
			appendStringInfoString(&buf, OidOutputFunctionCall(typoutput, d));
		}
	}
	appendStringInfoChar(&buf, ')');
	return buf.data;
}
