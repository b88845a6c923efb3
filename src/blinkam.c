/*-------------------------------------------------------------------------
 *
 * blinkam.c
 *	  Module entry point: _PG_init and nothing else.
 *
 * blinkam owns shared memory and background workers, so it only works when
 * the postmaster loads it through shared_preload_libraries.  Loaded any
 * other way (CREATE EXTENSION, LOAD, session_preload_libraries) it refuses
 * with an error that says what to put in postgresql.conf; the refusal
 * happens here, before any hook is installed, so a refused load changes
 * nothing in the backend.
 *
 * src/blinkam.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"

#include "common/batch.h"
#include "common/counters.h"
#include "common/pool.h"
#include "common/settings.h"
#include "common/shmem.h"
#include "common/workers.h"
#include "index/blink.h"
#include "table/blinkheap.h"

PG_MODULE_MAGIC;

/* PostgreSQL 15's fmgr.h does not declare it. */
extern PGDLLEXPORT void _PG_init(void);

void
_PG_init(void)
{
	if (!process_shared_preload_libraries_in_progress)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("blinkam must be loaded via shared_preload_libraries"),
				 errhint("Add blinkam to shared_preload_libraries in postgresql.conf, "
						 "for example: shared_preload_libraries = 'blinkam', "
						 "and restart the server.")));

	/* what both access methods share */
	blinkam_define_gucs();
	blinkam_shmem_install_hooks();
	blinkam_counters_init();
	blinkam_pool_init();
	blinkam_batch_init();

	/* the access methods */
	blink_init();
	blinkheap_init();

	if (blinkam_enable_workers)
		blinkam_register_launcher();
}
