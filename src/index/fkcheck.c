/*-------------------------------------------------------------------------
 *
 * fkcheck.c
 *	  A clear refusal of foreign keys that PostgreSQL 15 would back with a
 *	  unique blink index.
 *
 * A foreign key that names its referenced columns is backed by the first
 * index of the referenced table (in OID order) that is unique, valid,
 * immediate, without predicate or expressions, and has exactly those
 * columns as keys (transformFkeyCheckAttrs) -- whatever its access
 * method.  ATAddForeignKeyConstraint then takes the equality operator
 * from that index's operator class by btree's strategy number and raises
 * an internal error ("only b-tree indexes are supported for foreign
 * keys") for any other access method; the check reads the operator
 * class's catalog row, which an extension cannot present differently.  So
 * a foreign key whose referenced columns have a unique blink index as
 * their first such index cannot be created, even where a btree unique
 * index on the same columns exists beside it.
 *
 * Rather than let users meet the internal error, blinkam's ProcessUtility
 * hook (defer.c) calls in here to find such foreign keys in CREATE TABLE
 * and ALTER TABLE before they run (the same choice of index, made on the
 * same catalog) and refuses them with the reason and what to do.  A
 * foreign key without referenced columns uses the primary key, which is
 * always btree.
 *
 * src/index/fkcheck.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_index.h"
#include "commands/defrem.h"
#include "nodes/parsenodes.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "index/blink.h"

/*
 * The index PostgreSQL would back a foreign key to these columns of pkrel
 * with (see transformFkeyCheckAttrs), or InvalidOid.
 */
static Oid
referenced_index(Relation pkrel, int natts, AttrNumber *attnums)
{
	List	   *indexes = RelationGetIndexList(pkrel);
	ListCell   *lc;
	Oid			chosen = InvalidOid;

	foreach(lc, indexes)
	{
		Oid			indexoid = lfirst_oid(lc);
		HeapTuple	tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(indexoid));
		Form_pg_index idx;
		bool		all = true;

		if (!HeapTupleIsValid(tup))
			continue;
		idx = (Form_pg_index) GETSTRUCT(tup);
		if (idx->indnkeyatts == natts && idx->indisunique && idx->indisvalid &&
			idx->indimmediate &&
			heap_attisnull(tup, Anum_pg_index_indpred, NULL) &&
			heap_attisnull(tup, Anum_pg_index_indexprs, NULL))
		{
			for (int i = 0; i < natts && all; i++)
			{
				bool		in = false;

				for (int j = 0; j < natts; j++)
					in |= (idx->indkey.values[j] == attnums[i]);
				all = in;
			}
			if (all)
				chosen = indexoid;
		}
		ReleaseSysCache(tup);
		if (OidIsValid(chosen))
			break;
	}
	list_free(indexes);
	return chosen;
}

/* Refuse the foreign key con if its referenced columns lead to blink. */
static void
check_foreign_key(Constraint *con, Oid blink_am)
{
	Oid			pkrelid;
	Relation	pkrel;
	AttrNumber *attnums;
	int			natts;
	int			i = 0;
	ListCell   *lc;
	Oid			indexoid;

	/* (a table that does not exist yet, or at all, is PostgreSQL's to report) */
	pkrelid = RangeVarGetRelid(con->pktable, AccessShareLock, true);
	if (!OidIsValid(pkrelid))
		return;
	pkrel = table_open(pkrelid, NoLock);
	natts = list_length(con->pk_attrs);
	attnums = palloc(sizeof(AttrNumber) * natts);
	foreach(lc, con->pk_attrs)
		attnums[i++] = get_attnum(pkrelid, strVal(lfirst(lc)));
	indexoid = referenced_index(pkrel, natts, attnums);
	if (OidIsValid(indexoid) && _blink_rel_am(indexoid) == blink_am)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a foreign key cannot reference table \"%s\" through the unique blink index \"%s\"",
						RelationGetRelationName(pkrel), get_rel_name(indexoid)),
				 errdetail("PostgreSQL 15 backs a foreign key with the first unique index on the referenced columns and accepts only btree there."),
				 errhint("Reference a btree primary key or unique constraint on those columns; if one exists, create the blink index after it (or drop the blink index).")));
	pfree(attnums);
	table_close(pkrel, NoLock);
}

/* Add con to *fks if it is a foreign key that names its referenced columns. */
static void
collect_foreign_key(List **fks, Node *node)
{
	Constraint *con = (Constraint *) node;

	if (con != NULL && IsA(con, Constraint) && con->contype == CONSTR_FOREIGN &&
		con->pk_attrs != NIL && con->pktable != NULL)
		*fks = lappend(*fks, con);
}

/* The foreign keys a column definition declares. */
static void
collect_column(List **fks, ColumnDef *col)
{
	ListCell   *lc;

	foreach(lc, col->constraints)
		collect_foreign_key(fks, lfirst(lc));
}

/* From blinkam's ProcessUtility hook (defer.c), before the command runs. */
void
_blink_fkcheck(Node *stmt)
{
	List	   *fks = NIL;
	ListCell   *lc;
	Oid			blink_am;

	if (IsA(stmt, CreateStmt))
	{
		CreateStmt *cs = (CreateStmt *) stmt;

		foreach(lc, cs->tableElts)
		{
			Node	   *elt = lfirst(lc);

			if (IsA(elt, ColumnDef))
				collect_column(&fks, (ColumnDef *) elt);
			else
				collect_foreign_key(&fks, elt);
		}
		foreach(lc, cs->constraints)
			collect_foreign_key(&fks, lfirst(lc));
	}
	else if (IsA(stmt, AlterTableStmt))
	{
		foreach(lc, ((AlterTableStmt *) stmt)->cmds)
		{
			AlterTableCmd *cmd = (AlterTableCmd *) lfirst(lc);

			if (cmd->subtype == AT_AddConstraint && cmd->def)
				collect_foreign_key(&fks, cmd->def);
			else if (cmd->subtype == AT_AddColumn && cmd->def && IsA(cmd->def, ColumnDef))
				collect_column(&fks, (ColumnDef *) cmd->def);
		}
	}
	if (fks == NIL)
		return;
	blink_am = get_index_am_oid("blink", true);
	if (!OidIsValid(blink_am))
		return;

	/*
	 * A command that PostgreSQL will skip with a notice adds no foreign key:
	 * CREATE TABLE IF NOT EXISTS of a table that exists (looked up where the
	 * command would create it), ALTER TABLE IF EXISTS of one that does not.
	 */
	if (IsA(stmt, CreateStmt) && ((CreateStmt *) stmt)->if_not_exists)
	{
		RangeVar   *rv = ((CreateStmt *) stmt)->relation;

		if (OidIsValid(get_relname_relid(rv->relname,
										 RangeVarGetCreationNamespace(rv))))
			return;
	}
	if (IsA(stmt, AlterTableStmt) && ((AlterTableStmt *) stmt)->missing_ok &&
		!OidIsValid(RangeVarGetRelid(((AlterTableStmt *) stmt)->relation,
									 NoLock, true)))
		return;

	foreach(lc, fks)
		check_foreign_key((Constraint *) lfirst(lc), blink_am);
	list_free(fks);
}
