/*-------------------------------------------------------------------------
 *
 * blinkheap_publication.c
 *	  Refuse to publish blinkheap tables for logical replication.
 *
 * Logical decoding reads heap's WAL records; blinkheap writes generic WAL,
 * which it does not decode.  A subscription to a publication holding a
 * blinkheap table would get the table's initial copy (a plain COPY) and
 * then nothing, silently.  So after CREATE PUBLICATION and after ALTER
 * PUBLICATION ... ADD / SET, a ProcessUtility hook looks at what the
 * publication now holds:
 *
 *   - a blinkheap table the command names, or an inheritance child of a
 *     table it names without ONLY (PostgreSQL adds each such child as a
 *     member of its own): ERROR, which undoes the command;
 *   - a blinkheap partition of a partitioned table the command names, or a
 *     blinkheap table the publication holds through FOR ALL TABLES or
 *     TABLES IN SCHEMA: WARNING (PostgreSQL itself leaves out of such
 *     publications, silently, the tables it cannot publish; here the user
 *     is told, and the other partitions or tables are published).
 *
 * Only what the command names is looked at, not every table the
 * publication already holds.  Until 2026-11-27 a blinkheap partition of a
 * named partitioned table was an ERROR, and the check read the whole
 * publication: a publication that came to hold a blinkheap partition the
 * ways listed below refused every later ADD, of any table, and a pg_dump
 * of it restored without the partitioned table (its ALTER PUBLICATION
 * ... ADD TABLE ONLY refused), so its heap partitions were published no
 * more.
 *
 * Left as they are: a blinkheap table created later in a published schema
 * or partition tree, or a published table moved to blinkheap by ALTER
 * TABLE ... SET ACCESS METHOD, is not reported (README, limits).
 *
 * pg_upgrade is not checked.  A publication can hold a blinkheap table
 * without ever having been refused (the ways just above), and pg_dump
 * --binary-upgrade recreates it with ALTER PUBLICATION ... ADD TABLE after
 * the tables: refusing that would make the upgrade of such a cluster fail
 * at "Restoring database schemas" and leave the new cluster unusable.
 * The new server runs in binary upgrade mode (IsBinaryUpgrade) only while
 * pg_upgrade restores the catalog, so nothing a user runs is exempted.
 * (A plain pg_dump restored with pg_restore or psql is a user's commands
 * like any other: an ADD of a table that became blinkheap is refused
 * there, see README, limits; a partitioned table's is a WARNING.)
 *
 * src/table/blinkheap_publication.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/namespace.h"
#include "catalog/pg_publication.h"
#include "commands/defrem.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "tcop/utility.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "table/blinkheap.h"

static ProcessUtility_hook_type prev_ProcessUtility = NULL;

/* Is relid a blinkheap table (amoid is blinkheap's access method)? */
static bool
_bh_rel_is_blinkheap(Oid relid, Oid amoid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	bool		result = false;

	if (HeapTupleIsValid(tup))
	{
		result = ((Form_pg_class) GETSTRUCT(tup))->relam == amoid;
		ReleaseSysCache(tup);
	}
	return result;
}

/*
 * The blinkheap table of lowest OID among relids, and how many there are.
 * The list may name a table twice (a leaf partition in a published schema
 * comes both as itself and as its parent's leaf): it is sorted here.
 */
static Oid
_bh_first_blinkheap(List *relids, Oid amoid, int *count)
{
	Oid			first = InvalidOid;
	Oid			prev = InvalidOid;
	ListCell   *lc;

	*count = 0;
	list_sort(relids, list_oid_cmp);
	foreach(lc, relids)
	{
		Oid			relid = lfirst_oid(lc);

		if (relid == prev)
			continue;
		prev = relid;
		if (_bh_rel_is_blinkheap(relid, amoid))
		{
			if (*count == 0)
				first = relid;
			(*count)++;
		}
	}
	return first;
}

/*
 * After the command: the tables it named (tables, the RangeVars of its
 * FOR TABLE / ADD TABLE / SET TABLE list) and what the publication holds
 * through FOR ALL TABLES or TABLES IN SCHEMA; see the file header.
 */
static void
_bh_check_publication(const char *pubname, List *tables)
{
	Oid			amoid = get_table_am_oid("blinkheap", true);
	Publication *pub;
	List	   *leaves = NIL;
	List	   *implicit;
	ListCell   *lc;
	Oid			relid;
	int			n;

	if (!OidIsValid(amoid))
		return;
	CommandCounterIncrement();	/* see the command's catalog rows */
	pub = GetPublicationByName(pubname, true);
	if (pub == NULL)
		return;

	foreach(lc, tables)
	{
		/* locked by the command, which found it */
		relid = RangeVarGetRelid((RangeVar *) lfirst(lc), NoLock, true);
		if (!OidIsValid(relid))
			continue;
		if (_bh_rel_is_blinkheap(relid, amoid))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot add blinkheap table \"%s\" to publication \"%s\"",
							get_rel_name(relid), pubname),
					 errdetail("Logical decoding does not see changes to blinkheap tables: a subscriber would get the table's initial copy and nothing after it."),
					 errhint("Publish a heap table, or copy the data with a trigger or an external tool.")));
		if (get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE)
			leaves = list_concat(leaves, find_all_inheritors(relid, NoLock, NULL));
		else if (((RangeVar *) lfirst(lc))->inh && has_subclass(relid))
		{
			/*
			 * An inheritance parent named without ONLY: PostgreSQL adds each
			 * child as a member of its own, as if named (until 2026-11-28 a
			 * blinkheap child got in silently; found by a helper's review).
			 */
			List	   *children = find_all_inheritors(relid, NoLock, NULL);
			ListCell   *cc;

			foreach(cc, children)
			{
				Oid			child = lfirst_oid(cc);

				if (child != relid && _bh_rel_is_blinkheap(child, amoid))
					ereport(ERROR,
							(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
							 errmsg("cannot add blinkheap table \"%s\" to publication \"%s\"",
									get_rel_name(child), pubname),
							 errdetail("It inherits from \"%s\", which the command names without ONLY.  Logical decoding does not see changes to blinkheap tables: a subscriber would get the table's initial copy and nothing after it.",
									   get_rel_name(relid)),
							 errhint("Name the parent with ONLY and its heap children by name, or move the child to heap.")));
			}
			list_free(children);
		}
	}
	relid = _bh_first_blinkheap(leaves, amoid, &n);
	if (n > 0)
		ereport(WARNING,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg_plural("publication \"%s\" includes %d blinkheap partition, whose changes are not published",
							   "publication \"%s\" includes %d blinkheap partitions, whose changes are not published",
							   n, pubname, n),
				 errdetail("\"%s\" is a blinkheap partition; logical decoding does not see changes to blinkheap tables, so a subscriber gets their initial copy and nothing after it.",
						   get_rel_name(relid)),
				 errhint("Publish the heap partitions by name, or move these partitions to heap.")));

	if (pub->alltables)
		implicit = GetAllTablesPublicationRelations(false);
	else
		implicit = GetAllSchemaPublicationRelations(pub->oid,
													PUBLICATION_PART_LEAF);
	relid = _bh_first_blinkheap(implicit, amoid, &n);
	if (n > 0)
		ereport(WARNING,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg_plural("publication \"%s\" includes %d blinkheap table, whose changes are not published",
							   "publication \"%s\" includes %d blinkheap tables, whose changes are not published",
							   n, pubname, n),
				 errdetail("\"%s\" is a blinkheap table; logical decoding does not see changes to blinkheap tables, so a subscriber gets their initial copy and nothing after it.",
						   get_rel_name(relid)),
				 errhint("Publish the other tables by name, or move these tables to heap.")));
}

/* The tables (RangeVars) a list of publication objects names. */
static List *
_bh_named_tables(List *pubobjects)
{
	List	   *tables = NIL;
	ListCell   *lc;

	foreach(lc, pubobjects)
	{
		PublicationObjSpec *obj = (PublicationObjSpec *) lfirst(lc);

		if (obj->pubobjtype == PUBLICATIONOBJ_TABLE && obj->pubtable != NULL)
			tables = lappend(tables, copyObject(obj->pubtable->relation));
	}
	return tables;
}

/*
 * The publication a CREATE or ALTER PUBLICATION adds tables to, or NULL;
 * *tables: the tables it names.
 */
static const char *
_bh_publication_adding(Node *stmt, List **tables)
{
	*tables = NIL;
	if (IsA(stmt, CreatePublicationStmt))
	{
		CreatePublicationStmt *c = (CreatePublicationStmt *) stmt;

		*tables = _bh_named_tables(c->pubobjects);
		return c->pubname;
	}
	if (IsA(stmt, AlterPublicationStmt))
	{
		AlterPublicationStmt *a = (AlterPublicationStmt *) stmt;

		/* options only, or DROP TABLE / DROP TABLES IN SCHEMA: nothing new */
		if (a->pubobjects != NIL && a->action != AP_DropObjects)
		{
			*tables = _bh_named_tables(a->pubobjects);
			return a->pubname;
		}
	}
	return NULL;
}

static void
_bh_publication_ProcessUtility(PlannedStmt *pstmt, const char *queryString,
							   bool readOnlyTree, ProcessUtilityContext context,
							   ParamListInfo params, QueryEnvironment *queryEnv,
							   DestReceiver *dest, QueryCompletion *qc)
{
	List	   *tables = NIL;
	const char *pubname = IsBinaryUpgrade ? NULL :
		_bh_publication_adding(pstmt->utilityStmt, &tables);

	(prev_ProcessUtility ? prev_ProcessUtility : standard_ProcessUtility)
		(pstmt, queryString, readOnlyTree, context, params, queryEnv,
		 dest, qc);
	if (pubname != NULL)
		_bh_check_publication(pubname, tables);
}

/* From blinkheap_init. */
void
blinkheap_publication_init(void)
{
	prev_ProcessUtility = ProcessUtility_hook;
	ProcessUtility_hook = _bh_publication_ProcessUtility;
}
