/*-------------------------------------------------------------------------
 *
 * counters.c
 *	  The shared counters of the whole extension, and SQL access to them:
 *	  blinkam_stats(), blinkam_reset_stats().
 *
 * src/common/counters.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/twophase.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/builtins.h"

#include "common/counters.h"
#include "common/shmem.h"

PG_FUNCTION_INFO_V1(blinkam_stats);
PG_FUNCTION_INFO_V1(blinkam_reset_stats);

/*
 * Rows: [0] for processes without a PGPROC, [1 + pgprocno] for the others.
 * Rows are never cleared when a backend exits: the next backend with the
 * same pgprocno goes on adding to it, so the sums only grow.
 */
static BlinkamCounterRow *CounterRows = NULL;

BlinkamCounterRow *BlinkamMyCounters = NULL;
PGPROC	   *BlinkamMyCountersProc = NULL;

static const char *const counter_names[BLINKAM_NUM_COUNTERS] = {
#define BLINKAM_COUNTER_NAME(sym, name, desc) name,
	BLINKAM_COUNTERS(BLINKAM_COUNTER_NAME)
#undef BLINKAM_COUNTER_NAME
};

const char *
blinkam_counter_name(BlinkamCounter c)
{
	Assert(c >= 0 && c < BLINKAM_NUM_COUNTERS);
	return counter_names[c];
}

static int
counter_nrows(void)
{
	return 1 + MaxBackends + NUM_AUXILIARY_PROCS + max_prepared_xacts;
}

static Size
counters_shmem_size(void)
{
	/* rows start on cache lines of their own (the padding is the slack) */
	return add_size(mul_size(counter_nrows(),
							 CACHELINEALIGN(sizeof(BlinkamCounterRow))),
					PG_CACHE_LINE_SIZE);
}

static inline BlinkamCounterRow *
counter_row(int i)
{
	return (BlinkamCounterRow *) ((char *) CounterRows +
								  i * CACHELINEALIGN(sizeof(BlinkamCounterRow)));
}

static void
counters_shmem_init(void)
{
	bool		found;
	char	   *base;

	base = ShmemInitStruct("blinkam counters", counters_shmem_size(), &found);
	CounterRows = (BlinkamCounterRow *) CACHELINEALIGN(base);
	if (!found)
	{
		for (int r = 0; r < counter_nrows(); r++)
			for (int i = 0; i < BLINKAM_NUM_COUNTERS; i++)
				pg_atomic_init_u64(&counter_row(r)->c[i], 0);
	}
	BlinkamMyCounters = NULL;
}

/*
 * The row this process adds to (blinkam_count): its own, by pgprocno, or
 * the shared row 0 if it has no PGPROC.
 */
BlinkamCounterRow *
blinkam_counter_row(void)
{
	Assert(CounterRows != NULL);
	BlinkamMyCountersProc = MyProc;
	if (MyProc == NULL || MyProc->pgprocno < 0 ||
		MyProc->pgprocno + 1 >= counter_nrows())
		return counter_row(0);
	return counter_row(1 + MyProc->pgprocno);
}

/* The value of counter c: the sum of its column, each row read atomically. */
uint64
blinkam_counter_value(BlinkamCounter c)
{
	uint64		v = 0;

	for (int r = 0; r < counter_nrows(); r++)
		v += pg_atomic_read_u64(&counter_row(r)->c[c]);
	return v;
}

/* From _PG_init. */
void
blinkam_counters_init(void)
{
	blinkam_shmem_register(counters_shmem_size, counters_shmem_init);
}

/*
 * blinkam_stats() RETURNS TABLE (name text, value bigint)
 *
 * One row per counter, in the order of BLINKAM_COUNTERS.  Each value is
 * the sum of the backends' rows, each read atomically; neither a value nor
 * the set as a whole is a snapshot.
 */
Datum
blinkam_stats(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);

	for (int i = 0; i < BLINKAM_NUM_COUNTERS; i++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};
		uint64		v = blinkam_counter_value(i);

		values[0] = CStringGetTextDatum(blinkam_counter_name(i));
		values[1] = Int64GetDatum((int64) v);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}

	return (Datum) 0;
}

/*
 * blinkam_reset_stats() RETURNS void
 *
 * Sets every counter to zero (every backend's row; a count added
 * meanwhile may survive).  Not transactional: the reset stays even if
 * the calling transaction rolls back.  EXECUTE is revoked from PUBLIC by
 * the install script.
 */
Datum
blinkam_reset_stats(PG_FUNCTION_ARGS)
{
	for (int r = 0; r < counter_nrows(); r++)
		for (int i = 0; i < BLINKAM_NUM_COUNTERS; i++)
			pg_atomic_write_u64(&counter_row(r)->c[i], 0);

	PG_RETURN_VOID();
}
