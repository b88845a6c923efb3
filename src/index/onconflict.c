/*-------------------------------------------------------------------------
 *
 * onconflict.c
 *	  A clear refusal of INSERT ... ON CONFLICT on tables with a unique
 *	  blink index.
 *
 * PostgreSQL 15's executor prepares every unique index of the target
 * table for speculative insertion, and that preparation accepts btree
 * indexes only (BuildSpeculativeIndexInfo raises an internal error for any
 * other access method).  Nothing an access method can do changes that, so
 * rather than let users meet an internal error at execution time, a
 * post-parse-analysis hook rejects such statements up front with an
 * explanation and a way out.
 *
 * src/index/onconflict.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "commands/defrem.h"
#include "nodes/parsenodes.h"
#include "parser/analyze.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/syscache.h"

#include "index/blink.h"

static post_parse_analyze_hook_type prev_post_parse_analyze_hook = NULL;

static void
blink_check_onconflict(Query *query)
{
	RangeTblEntry *rte;
	Relation	rel;
	List	   *indexes;
	ListCell   *lc;
	Oid			blink_am;

	if (query->commandType != CMD_INSERT || query->onConflict == NULL ||
		query->resultRelation <= 0)
		return;
	blink_am = get_index_am_oid("blink", true);
	if (!OidIsValid(blink_am))
		return;

	rte = rt_fetch(query->resultRelation, query->rtable);
	rel = relation_open(rte->relid, NoLock);	/* locked by the parser */
	indexes = RelationGetIndexList(rel);
	foreach(lc, indexes)
	{
		Oid			indexoid = lfirst_oid(lc);
		HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(indexoid));
		HeapTuple	itup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(indexoid));
		bool		bad = false;

		if (HeapTupleIsValid(tup) && HeapTupleIsValid(itup))
			bad = ((Form_pg_class) GETSTRUCT(tup))->relam == blink_am &&
				((Form_pg_index) GETSTRUCT(itup))->indisunique;
		if (HeapTupleIsValid(tup))
			ReleaseSysCache(tup);
		if (HeapTupleIsValid(itup))
			ReleaseSysCache(itup);
		if (bad)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("INSERT ... ON CONFLICT is not supported on table \"%s\" because it has the unique blink index \"%s\"",
							RelationGetRelationName(rel), get_rel_name(indexoid)),
					 errdetail("PostgreSQL 15 can prepare only btree unique indexes for speculative insertion."),
					 errhint("Enforce this uniqueness with a btree unique index (or constraint) on tables that use ON CONFLICT; a non-unique blink index may stay beside it.")));
	}
	list_free(indexes);
	relation_close(rel, NoLock);
}

static void
blink_post_parse_analyze(ParseState *pstate, Query *query, JumbleState *jstate)
{
	if (prev_post_parse_analyze_hook)
		prev_post_parse_analyze_hook(pstate, query, jstate);
	blink_check_onconflict(query);
}

/* From _PG_init. */
void
_blink_onconflict_init(void)
{
	prev_post_parse_analyze_hook = post_parse_analyze_hook;
	post_parse_analyze_hook = blink_post_parse_analyze;
}
