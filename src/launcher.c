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
 * relations of the database it is connected to.  Until a request path
 * exists it sleeps on its latch.
 *
 * Signals: SIGHUP re-reads the configuration; SIGTERM (shutdown, or
 * pg_terminate_backend) makes it exit with status 1, so that the
 * postmaster restarts it after BLINKAM_LAUNCHER_RESTART_SECS unless the
 * server is shutting down.  Postmaster death ends it at its next wait.
 *
 * Its pid and latch are published in BlinkamShared under BlinkamShared->lock
 * so that backends can wake it; they are cleared when it exits.
 *
 * src/launcher.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "utils/guc.h"

#include "blinkam.h"

#define BLINKAM_LAUNCHER_RESTART_SECS	5

void
blinkam_register_launcher(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS |
		BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = BLINKAM_LAUNCHER_RESTART_SECS;
	strlcpy(worker.bgw_library_name, BLINKAM_NAME, BGW_MAXLEN);
	strlcpy(worker.bgw_function_name, "blinkam_launcher_main", BGW_MAXLEN);
	strlcpy(worker.bgw_name, BLINKAM_LAUNCHER_TYPE, BGW_MAXLEN);
	strlcpy(worker.bgw_type, BLINKAM_LAUNCHER_TYPE, BGW_MAXLEN);
	worker.bgw_main_arg = (Datum) 0;
	worker.bgw_notify_pid = 0;

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

	for (;;)
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH, -1L,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();

		if (ShutdownRequestPending)
			break;

		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
	}

	ereport(LOG, (errmsg("blinkam launcher shutting down")));

	/* Status 1: the postmaster restarts us unless it is shutting down. */
	proc_exit(1);
}
