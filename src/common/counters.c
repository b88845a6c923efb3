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

#include "fmgr.h"
#include "funcapi.h"
#include "storage/shmem.h"
#include "utils/builtins.h"

#include "common/counters.h"
#include "common/shmem.h"

PG_FUNCTION_INFO_V1(blinkam_stats);
PG_FUNCTION_INFO_V1(blinkam_reset_stats);

pg_atomic_uint64 *BlinkamCounters = NULL;

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

static Size
counters_shmem_size(void)
{
	return mul_size(BLINKAM_NUM_COUNTERS, sizeof(pg_atomic_uint64));
}

static void
counters_shmem_init(void)
{
	bool		found;

	BlinkamCounters = ShmemInitStruct("blinkam counters", counters_shmem_size(),
									  &found);
	if (!found)
	{
		for (int i = 0; i < BLINKAM_NUM_COUNTERS; i++)
			pg_atomic_init_u64(&BlinkamCounters[i], 0);
	}
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
 * read atomically; the set as a whole is not a snapshot.
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
		uint64		v = pg_atomic_read_u64(&BlinkamCounters[i]);

		values[0] = CStringGetTextDatum(blinkam_counter_name(i));
		values[1] = Int64GetDatum((int64) v);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}

	return (Datum) 0;
}

/*
 * blinkam_reset_stats() RETURNS void
 *
 * Sets every counter to zero.  Not transactional: the reset stays even if
 * the calling transaction rolls back.  EXECUTE is revoked from PUBLIC by
 * the install script.
 */
Datum
blinkam_reset_stats(PG_FUNCTION_ARGS)
{
	for (int i = 0; i < BLINKAM_NUM_COUNTERS; i++)
		pg_atomic_write_u64(&BlinkamCounters[i], 0);

	PG_RETURN_VOID();
}
