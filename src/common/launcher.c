/*-------------------------------------------------------------------------
 *
 * launcher.c
 *	  The blinkam launcher background worker.
 *
 * One launcher per cluster, registered by _PG_init in the postmaster and
 * started once recovery has finished (no WAL may be written before that,
 * and every job blinkam's workers will do writes WAL).  It connects to no
 * database; its role is to start per-database dynamic workers when a
 * backend asks for one, because a background worker can only open the
 * relations of the database it is connected to.  At every start it asks
 * for a repair sweep in every database, and forgets the workers a launcher
 * before it started (it cannot watch them); then it sleeps on its latch,
 * and starts workers for the databases with work and none (pool.c keeps
 * the requests).
 *
 * Signals: SIGHUP re-reads the configuration; SIGTERM (shutdown, or
 * pg_terminate_backend) makes it exit with status 1, so that the
 * postmaster restarts it after BLINKAM_LAUNCHER_RESTART_SECS unless the
 * server is shutting down.  Postmaster death ends it at its next wait.
 *
 * Its pid and latch are published in BlinkamShared under BlinkamShared->lock
 * so that backends can wake it; they are cleared when it exits.
 *
 * src/common/launcher.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_database.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "common/counters.h"
#include "common/pool.h"
#include "common/settings.h"
#include "common/shmem.h"
#include "common/workers.h"

#define BLINKAM_LAUNCHER_RESTART_SECS	5
#define BLINKAM_MAX_STARTING			16

/* Describe a blinkam background process (database-connected, after recovery). */
static void
describe_worker(BackgroundWorker *worker, const char *function, const char *type,
				int restart_time, Datum arg, pid_t notify_pid)
{
	memset(worker, 0, sizeof(BackgroundWorker));
	worker->bgw_flags = BGWORKER_SHMEM_ACCESS |
		BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker->bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker->bgw_restart_time = restart_time;
	strlcpy(worker->bgw_library_name, BLINKAM_NAME, BGW_MAXLEN);
	strlcpy(worker->bgw_function_name, function, BGW_MAXLEN);
	strlcpy(worker->bgw_name, type, BGW_MAXLEN);
	strlcpy(worker->bgw_type, type, BGW_MAXLEN);
	worker->bgw_main_arg = arg;
	worker->bgw_notify_pid = notify_pid;
}

/*
 * Workers this launcher started and has not seen stop yet, with the
 * tickets their database entries hold while they start (pool.c, "Worker
 * starts").  The list dies with the launcher: the next one clears every
 * ticket when it starts.
 */
typedef struct StartedWorker
{
	Oid			dbid;
	uint32		ticket;
	BackgroundWorkerHandle *handle;
} StartedWorker;

static StartedWorker started[BLINKAM_MAX_STARTING];
static int	nstarted = 0;

/*
 * Databases whose start-up repair sweep found no free request entry (more
 * databases than entries): asked again as entries free up.
 */
static Oid *repairs_owed = NULL;
static int	nrepairs_owed = 0;

/*
 * Wake the launcher (from any backend).  It will start a worker for every
 * database that has work and none.
 */
void
blinkam_wake_launcher(void)
{
	LWLockAcquire(BlinkamShared->lock, LW_SHARED);
	if (BlinkamShared->launcher_latch)
		SetLatch(BlinkamShared->launcher_latch);
	LWLockRelease(BlinkamShared->lock);
}

/*
 * At start (server start, or after a crash restart): a repair sweep is due
 * in every database that accepts connections, since a crash may have left
 * splits unfinished in any of them.
 */
static void
launcher_request_repairs(void)
{
	Relation	rel;
	TableScanDesc scan;
	HeapTuple	tup;
	int			max = 64;

	repairs_owed = MemoryContextAlloc(TopMemoryContext, max * sizeof(Oid));
	StartTransactionCommand();
	(void) GetTransactionSnapshot();
	rel = table_open(DatabaseRelationId, AccessShareLock);
	scan = table_beginscan_catalog(rel, 0, NULL);
	while ((tup = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		Form_pg_database db = (Form_pg_database) GETSTRUCT(tup);

		if (!db->datallowconn || blinkam_request_repair(db->oid))
			continue;
		if (nrepairs_owed == max)
		{
			max *= 2;
			repairs_owed = repalloc(repairs_owed, max * sizeof(Oid));
		}
		repairs_owed[nrepairs_owed++] = db->oid;
	}
	table_endscan(scan);
	table_close(rel, AccessShareLock);
	CommitTransactionCommand();
}

/* Ask again for the repair sweeps that found no free entry at start. */
static void
launcher_request_owed_repairs(void)
{
	int			kept = 0;

	for (int i = 0; i < nrepairs_owed; i++)
	{
		if (!blinkam_request_repair(repairs_owed[i]))
			repairs_owed[kept++] = repairs_owed[i];
	}
	nrepairs_owed = kept;
}

/* Start a worker for every database that has work and no worker. */
static void
launcher_dispatch(void)
{
	Oid			dbids[BLINKAM_MAX_STARTING];
	uint32		tickets[BLINKAM_MAX_STARTING];
	int			n;

	/* Forget workers that have stopped (attached and done, or failed). */
	for (int i = 0; i < nstarted; i++)
	{
		pid_t		pid;

		if (GetBackgroundWorkerPid(started[i].handle, &pid) == BGWH_STOPPED)
		{
			int			in_a_row;
			int			backoff_ms;

			/* if it never attached, the database is tried again later */
			backoff_ms = blinkam_worker_start_failed(started[i].dbid,
													 started[i].ticket, true,
													 &in_a_row);
			if (backoff_ms > 0)
				ereport(LOG,
						(errmsg("blinkam workers for database %u stopped before attaching %d times in a row",
								started[i].dbid, in_a_row),
						 errdetail("No blinkam worker starts for it in the next %d seconds; its requests are kept.",
								   backoff_ms / 1000),
						 errhint("A database that does not allow connections gets no blinkam worker, and its page pools are not refilled until it does.")));
			pfree(started[i].handle);
			started[i--] = started[--nstarted];
		}
	}

	/*
	 * At most blinkam.max_workers at once: they take background worker
	 * slots that parallel queries and logical replication need too (after a
	 * restart every database asks for its sweep at once, and workers that
	 * linger idle filled max_worker_processes for their idle timeout).  A
	 * database left waiting is recorded, and an idle worker then ends at
	 * once to make room (worker.c).
	 */
	n = blinkam_databases_needing_workers(dbids, tickets,
										  Max(0, Min(BLINKAM_MAX_STARTING,
													 blinkam_max_workers) - nstarted));
	for (int i = 0; i < n; i++)
	{
		BackgroundWorker worker;
		BackgroundWorkerHandle *handle;

		describe_worker(&worker, "blinkam_worker_main", BLINKAM_WORKER_TYPE,
						BGW_NEVER_RESTART, ObjectIdGetDatum(dbids[i]), MyProcPid);
		snprintf(worker.bgw_name, BGW_MAXLEN, "blinkam worker for database %u",
				 dbids[i]);
		StaticAssertStmt(sizeof(uint32) <= BGW_EXTRALEN, "no room for the ticket");
		memcpy(worker.bgw_extra, &tickets[i], sizeof(uint32));

		if (RegisterDynamicBackgroundWorker(&worker, &handle))
		{
			started[nstarted].dbid = dbids[i];
			started[nstarted].ticket = tickets[i];
			started[nstarted].handle = handle;
			nstarted++;
		}
		else
		{
			int			in_a_row;

			/* no slot: the next pass tries again */
			(void) blinkam_worker_start_failed(dbids[i], tickets[i], false,
											   &in_a_row);
		}
	}
}

void
blinkam_register_launcher(void)
{
	BackgroundWorker worker;

	describe_worker(&worker, "blinkam_launcher_main", BLINKAM_LAUNCHER_TYPE,
					BLINKAM_LAUNCHER_RESTART_SECS, (Datum) 0, 0);
	RegisterBackgroundWorker(&worker);
}

/* before_shmem_exit callback: withdraw the published pid and latch. */
static void
blinkam_launcher_detach(int code, Datum arg)
{
	LWLockAcquire(BlinkamShared->lock, LW_EXCLUSIVE);
	if (BlinkamShared->launcher_pid == MyProcPid)
	{
		BlinkamShared->launcher_pid = 0;
		BlinkamShared->launcher_latch = NULL;
	}
	LWLockRelease(BlinkamShared->lock);
}

void
blinkam_launcher_main(Datum main_arg)
{
	blinkam_count(BLINKAM_COUNTER_LAUNCHER_STARTS, 1);

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
	BackgroundWorkerUnblockSignals();

	/* No database: shared catalogs only, enough to appear in pg_stat_activity. */
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);

	LWLockAcquire(BlinkamShared->lock, LW_EXCLUSIVE);
	if (BlinkamShared->launcher_pid != 0)
	{
		pid_t		other = BlinkamShared->launcher_pid;

		LWLockRelease(BlinkamShared->lock);
		ereport(ERROR,
				(errmsg("another blinkam launcher is already running with PID %d",
						(int) other)));
	}
	BlinkamShared->launcher_pid = MyProcPid;
	BlinkamShared->launcher_latch = MyLatch;
	LWLockRelease(BlinkamShared->lock);
	before_shmem_exit(blinkam_launcher_detach, (Datum) 0);

	ereport(LOG, (errmsg("blinkam launcher started")));

	/*
	 * After a launcher that exited (pg_terminate_backend, an ERROR), no
	 * entry waits for a worker this one does not know of.
	 */
	blinkam_forget_worker_starts();
	launcher_request_repairs();

	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		if (ShutdownRequestPending)
			break;
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}

		if (nrepairs_owed > 0)
			launcher_request_owed_repairs();
		launcher_dispatch();

		/* Woken by requests and by its workers' exits; polls once a second. */
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 1000L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}

	ereport(LOG, (errmsg("blinkam launcher shutting down")));

	/* Status 1: the postmaster restarts us unless it is shutting down. */
	proc_exit(1);
}
