/*-------------------------------------------------------------------------
 *
 * onconflict.c
 *	  INSERT ... ON CONFLICT on tables with a unique blink index.
 *
 * What PostgreSQL 15 does with an INSERT ... ON CONFLICT: the planner
 * picks the arbiter indexes among the table's unique indexes (any access
 * method); the executor opens every index of the target table with
 * ExecOpenIndices(..., speculative = true), which calls
 * BuildSpeculativeIndexInfo for each unique index to fill in the equality
 * operators (strategy BTEqualStrategyNumber of the index's operator
 * families) that the conflict checks use.  Everything after that goes
 * through the index access method's own interface: the pre-check is an
 * index scan with SnapshotDirty (check_exclusion_or_unique_constraint),
 * the insertion an aminsert with UNIQUE_CHECK_PARTIAL whose "false" tells
 * the executor to kill its speculative tuple and start over.  blink
 * supports all of that (its operator families use btree's strategy
 * numbers, its unique checks honour UNIQUE_CHECK_PARTIAL and speculative
 * tokens).
 *
 * The one obstacle is a test in BuildSpeculativeIndexInfo: it raises an
 * internal error unless the index's pg_class.relam is btree's.  So the
 * indexes of an ON CONFLICT target are opened here instead, in the way
 * ExecOpenIndices(..., speculative = true) would, but without that test
 * for blink:
 *
 *   - PostgreSQL 15 opens a result relation's indexes when the first row
 *     reaches ExecInsert (ExecOpenIndices), after the statement's input has
 *     run whatever user code it runs.  Our ExecutorStart hook opens them
 *     itself, right after standard_ExecutorStart, for each ON CONFLICT
 *     node (PostgreSQL 13 opened them at that point too), with
 *     ExecOpenIndices(..., speculative = false), then sets the equality
 *     operators of every unique index's IndexInfo: btree's through
 *     BuildSpeculativeIndexInfo, blink's through speculative_info (its
 *     operator families use btree's strategy numbers).  ExecInsert then
 *     finds the indexes open and ExecutorEnd closes them as usual.
 *   - This is done for every such target in a database with blinkam, with
 *     or without a unique blink index now: one created meanwhile
 *     (CREATE INDEX CONCURRENTLY) would otherwise reach
 *     BuildSpeculativeIndexInfo at the first row.
 *   - Until 2026-11-28 the relcache entries of the target's unique blink
 *     indexes said relam = btree for the duration of the opening instead,
 *     on the argument that no user code runs there.  It does: building an
 *     IndexInfo evaluates an index's expressions and predicate the first
 *     time, constant-argument IMMUTABLE functions included, and such a
 *     function could plan a query on the table (the planner then read a
 *     blink metapage as btree's: a false "corrupted page" error, an
 *     assertion failure) or run another upsert (found by a helper's
 *     review; sql/blink_onconflict.sql).  No entry says anything but the
 *     truth now.
 *   - Partitioned targets are not covered: their partitions' indexes are
 *     opened while rows are routed, inside the statement.  Such a
 *     statement is refused right after executor start, before any row is
 *     routed, if a partition in the statement's partition descriptors (the
 *     ones routing will use, so a partition attached meanwhile is seen)
 *     has a unique blink index; the error says to insert into the
 *     partition itself.
 *
 * specs/blink_onconflict_race runs concurrent same-key upserts side by side
 * with btree; specs/blink_onconflict_inval an invalidation while the
 * indexes are opened; sql/blink_onconflict.sql the single-session cases.
 *
 * src/index/onconflict.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/xact.h"
#include "access/table.h"
#include "catalog/index.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "commands/defrem.h"
#include "executor/executor.h"
#include "partitioning/partdesc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "common/settings.h"
#include "index/blink.h"

static ExecutorStart_hook_type prev_ExecutorStart = NULL;

/* The unique blink indexes of a table, by OID. */
static List *
unique_blink_indexes(Relation heap)
{
	Oid			blink_am = get_index_am_oid("blink", true);
	List	   *found = NIL;
	List	   *indexes;
	ListCell   *lc;

	if (!OidIsValid(blink_am) || !heap->rd_rel->relhasindex)
		return NIL;
	indexes = RelationGetIndexList(heap);
	foreach(lc, indexes)
	{
		Oid			indexoid = lfirst_oid(lc);
		HeapTuple	itup;

		if (_blink_rel_am(indexoid) != blink_am)
			continue;
		itup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(indexoid));
		if (HeapTupleIsValid(itup))
		{
			if (((Form_pg_index) GETSTRUCT(itup))->indisunique)
				found = lappend_oid(found, indexoid);
			ReleaseSysCache(itup);
		}
	}
	list_free(indexes);
	return found;
}

/*
 * Does this database have a unique blink index at all?  Cached per
 * backend; any change to pg_index (an index created, dropped, rebuilt)
 * forgets the answer.  It lets ON CONFLICT through a partitioned table
 * skip opening every partition where no unique blink index exists.  An
 * answer is kept only if no such change arrived while it was computed (a
 * scan that fails part way keeps nothing).
 */
static int	unique_blink_known = -1;	/* -1 unknown, 0 no, 1 yes */
static uint64 pg_index_changes = 0;

static void
onconflict_index_callback(Datum arg, int cacheid, uint32 hashvalue)
{
	unique_blink_known = -1;
	pg_index_changes++;
}

static bool
any_unique_blink_index(void)
{
	Oid			blink_am = get_index_am_oid("blink", true);
	uint64		changes = pg_index_changes;
	bool		found = false;
	Relation	pg_index;
	SysScanDesc scan;
	HeapTuple	tup;

	if (unique_blink_known >= 0)
		return unique_blink_known == 1;
	if (!OidIsValid(blink_am))
		return false;
	pg_index = table_open(IndexRelationId, AccessShareLock);
	scan = systable_beginscan(pg_index, InvalidOid, false, NULL, 0, NULL);
	while (!found && (tup = systable_getnext(scan)) != NULL)
	{
		Form_pg_index idx = (Form_pg_index) GETSTRUCT(tup);

		found = idx->indisunique && _blink_rel_am(idx->indexrelid) == blink_am;
	}
	systable_endscan(scan);
	table_close(pg_index, AccessShareLock);
	if (changes == pg_index_changes)
		unique_blink_known = found ? 1 : 0;
	return found;
}

/*
 * Refuse an ON CONFLICT whose partitioned target routes rows to a
 * partition with a unique blink index.  Walks the partition descriptors
 * of the executor's partition directory: tuple routing reads the same
 * ones, so a partition attached meanwhile is not missed.
 */
static void
refuse_partitions(EState *estate, Relation parent, Relation root)
{
	PartitionDesc pd;

	/* (made by ExecSetupPartitionTupleRouting; the same way if not) */
	if (estate->es_partition_directory == NULL)
		estate->es_partition_directory =
			CreatePartitionDirectory(estate->es_query_cxt,
									 !IsolationUsesXactSnapshot());
	pd = PartitionDirectoryLookup(estate->es_partition_directory, parent);
	for (int i = 0; i < pd->nparts; i++)
	{
		/*
		 * Routing locks a partition when it first sends it a row; reading
		 * its index list needs at least this much now.
		 */
		Relation	part = try_table_open(pd->oids[i], AccessShareLock);
		List	   *indexes;

		if (part == NULL)
			continue;			/* dropped since: routing cannot use it */
		if (part->rd_rel->relkind == RELKIND_PARTITIONED_TABLE)
			refuse_partitions(estate, part, root);
		else if ((indexes = unique_blink_indexes(part)) != NIL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("INSERT ... ON CONFLICT through partitioned table \"%s\" is not supported: its partition \"%s\" has the unique blink index \"%s\"",
							RelationGetRelationName(root),
							RelationGetRelationName(part),
							get_rel_name(linitial_oid(indexes))),
					 errdetail("PostgreSQL 15 prepares the indexes of a partition for ON CONFLICT while it routes rows, where blinkam cannot take part."),
					 errhint("Insert into the partition itself with ON CONFLICT, or enforce this uniqueness with a btree unique index.")));
		table_close(part, NoLock);
	}
}

/*
 * The equality operators a unique blink index's conflict checks use (what
 * BuildSpeculativeIndexInfo sets for a btree index, and refuses to set
 * for any other access method): blink's operator families number their
 * operators as btree's do.
 */
static void
speculative_info(Relation index, IndexInfo *ii)
{
	int			nkeys = IndexRelationGetNumberOfKeyAttributes(index);

	ii->ii_UniqueOps = palloc(sizeof(Oid) * nkeys);
	ii->ii_UniqueProcs = palloc(sizeof(Oid) * nkeys);
	ii->ii_UniqueStrats = palloc(sizeof(uint16) * nkeys);
	for (int i = 0; i < nkeys; i++)
	{
		Oid			type = index->rd_opcintype[i];
		Oid			eq = get_opfamily_member(index->rd_opfamily[i], type, type,
											 BTEqualStrategyNumber);

		if (!OidIsValid(eq))
			elog(ERROR, "operator family %u of index \"%s\" has no equality operator for type %u",
				 index->rd_opfamily[i], RelationGetRelationName(index), type);
		ii->ii_UniqueStrats[i] = BTEqualStrategyNumber;
		ii->ii_UniqueOps[i] = eq;
		ii->ii_UniqueProcs[i] = get_opcode(eq);
	}
}

/*
 * ExecOpenIndices(rri, speculative = true), blink's unique indexes
 * included; see the top of this file.
 */
static void
open_indexes_for_conflict(ResultRelInfo *rri, EState *estate)
{
	Oid			blink_am = get_index_am_oid("blink", true);
	MemoryContext old;

	/*
	 * A database without the extension has no blink index (the library is
	 * loaded into every database by shared_preload_libraries): PostgreSQL
	 * opens the indexes itself, later.
	 */
	if (!OidIsValid(blink_am))
		return;
	old = MemoryContextSwitchTo(estate->es_query_cxt);
	/* tests: hold an upsert before its target's indexes are opened */
	blinkam_debug_pause(BLINKAM_PAUSE_ONCONFLICT_OPENING);
	ExecOpenIndices(rri, false);
	for (int i = 0; i < rri->ri_NumIndices; i++)
	{
		Relation	index = rri->ri_IndexRelationDescs[i];
		IndexInfo  *ii = rri->ri_IndexRelationInfo[i];

		if (!ii->ii_Unique)
			continue;
		if (index->rd_rel->relam == blink_am)
			speculative_info(index, ii);
		else
			BuildSpeculativeIndexInfo(index, ii);
	}
	MemoryContextSwitchTo(old);
}

/* Open the indexes of an ON CONFLICT node's target, or refuse it. */
static void
prepare_node(PlanState *ps, EState *estate)
{
	ModifyTableState *mts;

	if (ps == NULL || !IsA(ps, ModifyTableState))
		return;
	mts = (ModifyTableState *) ps;
	if (((ModifyTable *) mts->ps.plan)->onConflictAction == ONCONFLICT_NONE)
		return;
	for (int i = 0; i < mts->mt_nrels; i++)
	{
		ResultRelInfo *rri = &mts->resultRelInfo[i];
		Relation	heap = rri->ri_RelationDesc;

		if (heap->rd_rel->relkind == RELKIND_PARTITIONED_TABLE)
		{
			if (any_unique_blink_index())
				refuse_partitions(estate, heap, heap);
		}
		else if (heap->rd_rel->relhasindex && rri->ri_IndexRelationDescs == NULL)
			open_indexes_for_conflict(rri, estate);
	}
}

static void
blink_onconflict_ExecutorStart(QueryDesc *queryDesc, int eflags)
{
	ListCell   *lc;

	if (prev_ExecutorStart)
		prev_ExecutorStart(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);

	if ((eflags & EXEC_FLAG_EXPLAIN_ONLY) ||
		queryDesc->plannedstmt->commandType == CMD_UTILITY)
		return;
	prepare_node(queryDesc->planstate, queryDesc->estate);
	foreach(lc, queryDesc->estate->es_subplanstates)
		prepare_node((PlanState *) lfirst(lc), queryDesc->estate);
}

/* From _PG_init. */
void
_blink_onconflict_init(void)
{
	prev_ExecutorStart = ExecutorStart_hook;
	ExecutorStart_hook = blink_onconflict_ExecutorStart;
	CacheRegisterSyscacheCallback(INDEXRELID, onconflict_index_callback, (Datum) 0);
}
