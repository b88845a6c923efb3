/*-------------------------------------------------------------------------
 *
 * guc.c
 *	  The blinkam.* configuration parameters.
 *
 * Only settings that change behaviour live here.  The "blinkam" prefix is
 * reserved, so a misspelt blinkam.* setting is an error rather than a
 * silently ignored placeholder.
 *
 * src/guc.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/guc.h"

#include "blinkam.h"

/* Register the blinkam launcher (and so every background worker)? */
bool		blinkam_enable_workers = true;

void
blinkam_define_gucs(void)
{
	DefineCustomBoolVariable("blinkam.enable_workers",
							 "Starts the blinkam background workers.",
							 "When off, the blinkam launcher is not registered at server "
							 "start and no blinkam background worker runs.",
							 &blinkam_enable_workers,
							 true,
							 PGC_POSTMASTER,
							 0,
							 NULL, NULL, NULL);

	MarkGUCPrefixReserved(BLINKAM_NAME);
}
