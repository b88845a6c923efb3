/*-------------------------------------------------------------------------
 *
 * workers.h
 *	  The blinkam launcher and per-database workers, and what an access
 *	  method registers so that the workers can serve its relations.
 *
 * src/common/workers.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef BLINKAM_WORKERS_H
#define BLINKAM_WORKERS_H

#include "storage/block.h"
#include "utils/relcache.h"

#define BLINKAM_LAUNCHER_TYPE	"blinkam launcher"
#define BLINKAM_WORKER_TYPE		"blinkam worker"

/*
 * What the workers need to know of the relations of one access method:
 * which they are, how their free space map hands out and takes back whole
 * free pages (for page pools), and how to look at one page after a crash
 * (the repair sweep).  Registered from _PG_init; the workers call nothing
 * of an access method but these.
 *
 * take_free_page: a block the free space map offers as wholly free (it
 * leaves the map), or InvalidBlockNumber; NULL if the map cannot tell
 * wholly free pages (a table's): refills then only extend.
 * record_free_page records a zero page; free_pages_recorded makes the
 * recorded pages findable.  first_block: blocks below it are never free (a
 * metapage).  sweep: after each start, read every block of every such
 * relation (those in shared buffers first), calling repair_page (sets
 * *isnew for a zero page; NULL: nothing to repair) and recording zero
 * pages in the free space map -- for indexes; a table's VACUUM records its
 * zero pages instead, and reading whole tables at every start would cost
 * too much.
 */
typedef struct BlinkamRelationKind
{
	const char *amname;			/* pg_am.amname */
	char		relkind;		/* RELKIND_INDEX or RELKIND_RELATION */
	BlockNumber first_block;
	bool		sweep;
	BlockNumber (*take_free_page) (Relation rel);
	void		(*record_free_page) (Relation rel, BlockNumber blkno);
	void		(*free_pages_recorded) (Relation rel);
	void		(*repair_page) (Relation rel, BlockNumber blkno, bool *isnew);
} BlinkamRelationKind;

extern void blinkam_register_relation_kind(const BlinkamRelationKind *kind);

/* launcher.c */
extern void blinkam_register_launcher(void);
extern void blinkam_wake_launcher(void);
extern PGDLLEXPORT void blinkam_launcher_main(Datum main_arg);

/* worker.c */
extern PGDLLEXPORT void blinkam_worker_main(Datum main_arg);

#endif							/* BLINKAM_WORKERS_H */
