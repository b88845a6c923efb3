/*-------------------------------------------------------------------------
 *
 * gxlog.h
 *	  Generic WAL records with a fast delta search: the one way blinkam
 *	  logs a page change.
 *
 * The calls mirror access/generic_xlog.h (start, register up to
 * MAX_GENERIC_XLOG_PAGES buffers, change the returned images, finish or
 * abort) and write the same record, replayed by PostgreSQL's generic_redo.
 * GENERIC_XLOG_FULL_IMAGE is the one flag.  gxlog.c says what differs.
 *
 * src/common/gxlog.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef BLINKAM_GXLOG_H
#define BLINKAM_GXLOG_H

#include "access/generic_xlog.h"
#include "access/xlogdefs.h"
#include "storage/block.h"
#include "storage/buf.h"
#include "storage/bufpage.h"
#include "utils/relcache.h"

typedef struct BlinkamXLogState BlinkamXLogState;

/*
 * blinkam_xlog_register flag: change the buffer's page in place, by appends
 * only (gxlog.c, "Appends in place"); the caller catches every error until
 * finish and calls blinkam_xlog_abort before it lets the buffer go.
 */
#define BLINKAM_XLOG_APPEND		0x0100

extern BlinkamXLogState *blinkam_xlog_start(Relation rel);
extern Page blinkam_xlog_register(BlinkamXLogState *state, Buffer buffer,
								  int flags);
extern void blinkam_xlog_touch(BlinkamXLogState *state, Page image,
							   void *ptr, Size len);
extern XLogRecPtr blinkam_xlog_finish(BlinkamXLogState *state);
extern void blinkam_xlog_abort(BlinkamXLogState *state);
extern void blinkam_log_conflict(Relation rel, BlockNumber blkno,
								 TransactionId latestRemovedXid);

#endif							/* BLINKAM_GXLOG_H */
