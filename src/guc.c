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

#include "miscadmin.h"
#include "utils/guc.h"

#include "blinkam.h"

/* Register the blinkam launcher (and so every background worker)? */
bool		blinkam_enable_workers = true;

/* Test support: stop a split cascade at a named point (superuser only). */
int			blinkam_debug_stop_at = BLINKAM_STOP_NONE;
int			blinkam_debug_stop_action = BLINKAM_STOP_ERROR;

static const struct config_enum_entry stop_at_options[] = {
	{"none", BLINKAM_STOP_NONE, false},
	{"after_leaf_split", BLINKAM_STOP_AFTER_LEAF_SPLIT, false},
	{"after_parent_split", BLINKAM_STOP_AFTER_PARENT_SPLIT, false},
	{"before_new_root", BLINKAM_STOP_BEFORE_NEW_ROOT, false},
	{NULL, 0, false}
};

static const struct config_enum_entry stop_action_options[] = {
	{"error", BLINKAM_STOP_ERROR, false},
	{"panic", BLINKAM_STOP_PANIC, false},
	{NULL, 0, false}
};

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

	DefineCustomEnumVariable("blinkam.debug_stop_at",
							 "Stops blink split cascades at a named point (for tests).",
							 "The split's WAL records up to that point are written and the "
							 "cascade stops there, leaving an incomplete split on disk: "
							 "after_leaf_split (before the downlink of a new leaf is inserted), "
							 "after_parent_split (after an internal page split), "
							 "before_new_root (after the root split, before the new root).",
							 &blinkam_debug_stop_at,
							 BLINKAM_STOP_NONE, stop_at_options,
							 PGC_SUSET, 0,
							 NULL, NULL, NULL);
	DefineCustomEnumVariable("blinkam.debug_stop_action",
							 "What blinkam.debug_stop_at does: raise an error, or PANIC (crash the server).",
							 NULL,
							 &blinkam_debug_stop_action,
							 BLINKAM_STOP_ERROR, stop_action_options,
							 PGC_SUSET, 0,
							 NULL, NULL, NULL);

	MarkGUCPrefixReserved(BLINKAM_NAME);
}

/*
 * Called at each named point of a split cascade, with no buffer lock held.
 * If blinkam.debug_stop_at names it, stop there: an ERROR (the cascade's
 * split-registry entries are dropped by the abort, leaving the split
 * abandoned) or a PANIC (the server crashes with the split half done).
 */
void
blinkam_debug_stop(BlinkamStopPoint point)
{
	if (blinkam_debug_stop_at != (int) point)
		return;
	ereport(blinkam_debug_stop_action == BLINKAM_STOP_PANIC ? PANIC : ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("blinkam.debug_stop_at: stopping at %s",
					stop_at_options[point].name)));
}
