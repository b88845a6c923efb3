/*-------------------------------------------------------------------------
 *
 * stats.c
 *	  SQL access to the shared counters: blinkam_stats(),
 *	  blinkam_reset_stats().
 *
 * src/stats.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"

#include "blinkam.h"

PG_FUNCTION_INFO_V1(blinkam_stats);
PG_FUNCTION_INFO_V1(blinkam_reset_stats);

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
		uint64		v = pg_atomic_read_u64(&BlinkamShared->counters[i]);

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
		pg_atomic_write_u64(&BlinkamShared->counters[i], 0);

	PG_RETURN_VOID();
}
