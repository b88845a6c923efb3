/*-------------------------------------------------------------------------
 *
 * gxlog.c
 *	  Generic WAL records with a fast delta search: the one way blinkam
 *	  logs a page change.
 *
 * Every page change of both access methods is a generic WAL record: an
 * RM_GENERIC_ID record whose block data, for each page, is a list of
 * fragments (offset, length, bytes) that PostgreSQL's own generic_redo
 * copies into the page before it zeroes the hole between pd_lower and
 * pd_upper.  Nothing of ours runs at redo.
 *
 * PostgreSQL's GenericXLogFinish finds the fragments by walking the old
 * page and the new image one byte at a time over the whole used part of
 * the page, and its state is a 64 kB allocation made for every record.  On
 * a leaf that takes one new entry, that walk was about a fifth of a
 * one-client insert transaction (perf, IoT workload, issue 13): an 8 kB
 * byte loop to find some thirty changed bytes.  This file writes the same
 * record -- the same block references with the same flags, the same
 * fragment format, fragments merged by the same rule -- but skips equal
 * bytes 256 at a time and allocates one page image per registered buffer.
 *
 * The fragment rule (generic_xlog.c's, so the records are as small as
 * PostgreSQL's):
 *	- Only [0, pd_lower) and [pd_upper, BLCKSZ) of the new image are
 *	  described; the hole is zero after redo and after finish alike.
 *	- A byte of the new image's used part that lay in the old page's hole
 *	  is always written: the old page's hole need not be what a standby's
 *	  page holds there.
 *	- Every other byte is written if it differs from the old page.
 *	- Two changed runs separated by at most FRAGMENT_HEADER_SIZE equal
 *	  bytes are one fragment (a second header would cost as much).
 * Assertion-enabled builds apply every delta to a copy of the old page and
 * compare the result with the image before the record is written.
 *
 * Contract, as for GenericXLog*: the caller holds an exclusive content
 * lock on every registered buffer from register to finish (so nobody else
 * changes those pages, hint bits included), changes only the images, and
 * after finish the buffers hold the images (holes zeroed) and carry the
 * record's LSN.  Finish applies each delta to its buffer as redo will, so
 * the primary's page is what redo makes of the standby's.  An image's
 * hole starts zero, whatever the page's hole holds.
 * An error between start and finish leaves the buffers untouched; abort
 * (or the error's memory-context reset) frees the state.
 *
 * Appends in place (BLINKAM_XLOG_APPEND).  Most records of an insert add
 * an item at the end of a page's line pointer array and its tuple below
 * pd_upper, and touch nothing else but header fields and the special
 * area.  For such a change the copy of the page, the comparison and the
 * copy back cost more than everything else the record does (perf, 1-client
 * inserts, issue 13).  A page registered with BLINKAM_XLOG_APPEND is not
 * copied: register returns the buffer's own page, and keeps only its
 * header, its special area and its old pd_lower and pd_upper.  The
 * caller's contract, on top of the one above:
 *	- It only appends: pd_lower may grow and pd_upper shrink, pd_special
 *	  stays, and no byte outside the header, the special area and the old
 *	  hole [old pd_lower, old pd_upper) changes -- exactly what PageAddItem
 *	  does with the offset after the last one -- but a few bytes of old
 *	  tuples (hints such as blinkheap's xmin stamps) that it names to
 *	  blinkam_xlog_touch before it changes them.
 *	- It catches every error raised between register and finish and calls
 *	  blinkam_xlog_abort before the error goes on, while it still holds the
 *	  buffer's lock.  Abort puts the header, the special area and the
 *	  touched bytes back and zeroes the old hole, so the page is what it
 *	  was (its hole zeroed).
 * Then the delta is known without a search: the header's, the touched
 * bytes' and the special area's changed bytes (compared with the kept
 * ones) and the two new runs of the old hole, [old pd_lower, pd_lower) and
 * [pd_upper, old pd_upper), all of which generic_redo must be given
 * anyway.  Finish checks the
 * pointers' directions (an ERROR, after putting the pages back, if they are
 * wrong), and assertion-enabled builds keep a copy of the whole page and
 * check the delta against it as above.
 * Why nobody can tell: the caller holds the buffer's exclusive content lock
 * from register to finish, and nothing reads or writes a buffer's page
 * without its content lock but the buffer manager's own header fields
 * (FlushBuffer takes a share lock first).  So no reader, writer or checkpoint
 * sees the page between the change and the record, exactly as with a copy
 * applied at finish.  An ERROR is caught by the caller (abort restores the
 * page before the lock goes); interrupts are held off while a content lock
 * is held, so no FATAL arrives meanwhile; a PANIC discards shared buffers.
 * The primary's hole is not zeroed (it is what it was, zero after any of
 * our records); what a hole holds is never read, logged or compared, and
 * wal_consistency_checking masks it for generic records.
 *
 * src/common/gxlog.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtxlog.h"
#include "access/transam.h"
#include "access/xloginsert.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"

#include "common/gxlog.h"

/* generic_xlog.c's record format: (offset, length) then the bytes */
#define FRAGMENT_HEADER_SIZE	(2 * sizeof(OffsetNumber))
#define MATCH_THRESHOLD			FRAGMENT_HEADER_SIZE
/* two regions, each at most its length plus one header (see region_delta) */
#define MAX_DELTA_SIZE			(BLCKSZ + 2 * FRAGMENT_HEADER_SIZE)

/* the largest special area an in-place page may have (blink's is 24 B) */
#define MAX_KEPT_SPECIAL		64
/* bytes of old tuples an in-place record may change (blinkam_xlog_touch) */
#define MAX_TOUCHED				16
#define MAX_TOUCHED_LEN			8

typedef struct GXLogTouched
{
	uint16		offset;
	uint16		len;
	char		kept[MAX_TOUCHED_LEN];	/* the bytes before the change */
} GXLogTouched;

typedef struct GXLogPage
{
	Buffer		buffer;
	int			flags;
	char	   *image;			/* what the caller changes; MAXALIGNed (in
								 * place: the buffer's page itself) */
	/* BLINKAM_XLOG_APPEND only: what the page was at register */
	uint16		oldlower;
	uint16		oldupper;
	uint16		special;
	char		header[SizeOfPageHeaderData];
	char		specialdata[MAX_KEPT_SPECIAL];
	int			ntouched;
	GXLogTouched touched[MAX_TOUCHED];	/* in offset order */
#ifdef USE_ASSERT_CHECKING
	char	   *old;			/* a copy of the whole page, to check */
#endif
} GXLogPage;

struct BlinkamXLogState
{
	bool		logged;
	int			npages;
	GXLogPage	pages[MAX_GENERIC_XLOG_PAGES];
};

/*
 * The deltas of the record being finished.  blinkam_xlog_finish runs no
 * code of its callers, so one set per backend is enough.
 */
static char gxlog_delta[MAX_GENERIC_XLOG_PAGES][MAX_DELTA_SIZE];

/*
 * Begin a record for pages of rel (unlogged and temporary relations get
 * their images copied back, and no record).
 */
BlinkamXLogState *
blinkam_xlog_start(Relation rel)
{
	BlinkamXLogState *state = palloc(sizeof(BlinkamXLogState));

	state->logged = RelationNeedsWAL(rel);
	state->npages = 0;
	return state;
}

/*
 * Copy a page into an image, with the hole zeroed rather than read: the
 * hole is never compared, logged or copied back, and on a hot leaf it is
 * memory no one has touched lately.  A new page (all zeros) or one whose
 * header is not a standard one's is copied whole.
 */
static void
copy_page(char *image, const char *page)
{
	int			lower = ((PageHeader) page)->pd_lower;
	int			upper = ((PageHeader) page)->pd_upper;

	if (lower < (int) SizeOfPageHeaderData || lower > upper || upper > BLCKSZ)
	{
		memcpy(image, page, BLCKSZ);
		return;
	}
	memcpy(image, page, lower);
	memset(image + lower, 0, upper - lower);
	memcpy(image + upper, page + upper, BLCKSZ - upper);
}

/* Copy a delta's fragments into page: what generic_redo does first. */
static void
apply_delta(char *page, const char *delta, int len)
{
	const char *p = delta;

	while (p < delta + len)
	{
		OffsetNumber offset;
		OffsetNumber length;

		memcpy(&offset, p, sizeof(offset));
		memcpy(&length, p + sizeof(offset), sizeof(length));
		memcpy(page + offset, p + FRAGMENT_HEADER_SIZE, length);
		p += FRAGMENT_HEADER_SIZE + length;
	}
}

/*
 * May page be changed in place by appends?  Its header must be a standard
 * one's and its special area small enough to keep.
 */
static bool
appendable(const char *page)
{
	PageHeader	hdr = (PageHeader) page;

	return hdr->pd_lower >= SizeOfPageHeaderData &&
		hdr->pd_lower <= hdr->pd_upper &&
		hdr->pd_upper <= hdr->pd_special &&
		hdr->pd_special <= BLCKSZ &&
		BLCKSZ - hdr->pd_special <= MAX_KEPT_SPECIAL;
}

/*
 * Register buffer (exclusively locked by the caller) and return the image
 * to change.  Registering a buffer twice returns its first image; the first
 * flags stay.  With BLINKAM_XLOG_APPEND the image is the buffer's page (see
 * "Appends in place"), unless the page's layout does not allow it: then
 * it is a copy as without the flag, and the caller cannot tell.
 */
Page
blinkam_xlog_register(BlinkamXLogState *state, Buffer buffer, int flags)
{
	GXLogPage  *page;
	char	   *bufpage = BufferGetPage(buffer);

	for (int i = 0; i < state->npages; i++)
		if (state->pages[i].buffer == buffer)
			return (Page) state->pages[i].image;
	if (state->npages >= MAX_GENERIC_XLOG_PAGES)
		elog(ERROR, "maximum number %d of generic xlog buffers is exceeded",
			 MAX_GENERIC_XLOG_PAGES);

	page = &state->pages[state->npages++];
	page->buffer = buffer;
	if ((flags & BLINKAM_XLOG_APPEND) &&
		((flags & GENERIC_XLOG_FULL_IMAGE) || !appendable(bufpage)))
		flags &= ~BLINKAM_XLOG_APPEND;
	page->flags = flags;
	if (flags & BLINKAM_XLOG_APPEND)
	{
		PageHeader	hdr = (PageHeader) bufpage;

		page->image = bufpage;
		page->oldlower = hdr->pd_lower;
		page->oldupper = hdr->pd_upper;
		page->special = hdr->pd_special;
		memcpy(page->header, bufpage, SizeOfPageHeaderData);
		memcpy(page->specialdata, bufpage + page->special,
			   BLCKSZ - page->special);
		page->ntouched = 0;
#ifdef USE_ASSERT_CHECKING
		page->old = palloc(BLCKSZ);
		memcpy(page->old, bufpage, BLCKSZ);
#endif
		return (Page) page->image;
	}
	page->image = palloc(BLCKSZ);
	copy_page(page->image, bufpage);
	return (Page) page->image;
}

/*
 * For a page registered with BLINKAM_XLOG_APPEND: the caller is about to
 * change the len bytes at ptr, inside a tuple that was on the page at
 * register (a hint such as blinkheap's xmin stamps).  Keeps them, to log
 * the change and to put them back on abort.  For any other page it does
 * nothing: the comparison finds the change.  At most MAX_TOUCHED ranges of
 * at most MAX_TOUCHED_LEN bytes, none overlapping another but the same
 * one again.
 */
void
blinkam_xlog_touch(BlinkamXLogState *state, Page image, void *ptr, Size len)
{
	for (int i = 0; i < state->npages; i++)
	{
		GXLogPage  *p = &state->pages[i];
		int			offset = (char *) ptr - p->image;
		int			at;

		if (p->image != (char *) image)
			continue;
		if (!(p->flags & BLINKAM_XLOG_APPEND))
			return;
		if (offset < p->oldupper || offset + (int) len > p->special ||
			len == 0 || len > MAX_TOUCHED_LEN)
			elog(ERROR, "bytes %d to %d of block %u are not inside an old tuple",
				 offset, offset + (int) len, BufferGetBlockNumber(p->buffer));
		/* the place in offset order; the same range again keeps its first bytes */
		for (at = p->ntouched; at > 0 && p->touched[at - 1].offset > offset; at--)
			;
		if (at > 0 && p->touched[at - 1].offset == offset &&
			p->touched[at - 1].len == len)
			return;
		if (p->ntouched >= MAX_TOUCHED ||
			(at > 0 && p->touched[at - 1].offset + p->touched[at - 1].len > offset) ||
			(at < p->ntouched && offset + (int) len > p->touched[at].offset))
			elog(ERROR, "too many or overlapping changes of old tuples in block %u",
				 BufferGetBlockNumber(p->buffer));
		memmove(&p->touched[at + 1], &p->touched[at],
				(p->ntouched - at) * sizeof(GXLogTouched));
		p->touched[at].offset = offset;
		p->touched[at].len = len;
		memcpy(p->touched[at].kept, ptr, len);
		p->ntouched++;
		return;
	}
	elog(ERROR, "page image is not registered in this generic WAL record");
}

/* Eight bytes of a page, wherever the platform allows such loads. */
static inline uint64
load8(const char *p)
{
	uint64		v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * The first offset in [i, end) where pages a and b differ, or end.  Equal
 * bytes are skipped 256 at a time by memcmp, then 32 and 8 at a time, from
 * an offset that is a multiple of 8.
 */
static inline int
first_difference(const char *a, const char *b, int i, int end)
{
	while (i < end && (i % 8) != 0)
	{
		if (a[i] != b[i])
			return i;
		i++;
	}
	/* libc's memcmp is vectorized: let it skip long equal stretches */
	while (i + 256 <= end && memcmp(a + i, b + i, 256) == 0)
		i += 256;
	while (i + 32 <= end &&
		   ((load8(a + i) ^ load8(b + i)) |
			(load8(a + i + 8) ^ load8(b + i + 8)) |
			(load8(a + i + 16) ^ load8(b + i + 16)) |
			(load8(a + i + 24) ^ load8(b + i + 24))) == 0)
		i += 32;
	while (i + 8 <= end && load8(a + i) == load8(b + i))
		i += 8;
	while (i < end && a[i] == b[i])
		i++;
	return i;
}

static int
write_fragment(char *out, const char *image, int begin, int end)
{
	OffsetNumber offset = begin;
	OffsetNumber length = end - begin;

	Assert(begin >= 0 && begin < end && end <= BLCKSZ);
	memcpy(out, &offset, sizeof(offset));
	memcpy(out + sizeof(offset), &length, sizeof(length));
	memcpy(out + FRAGMENT_HEADER_SIZE, image + begin, length);
	return FRAGMENT_HEADER_SIZE + length;
}

/*
 * Add the changed run [d, e) to the pending fragment [*fbegin, *fend) if
 * no more than MATCH_THRESHOLD equal bytes lie between them (a second
 * header would cost as much); otherwise write the pending fragment, if
 * any, to out and start a new one.  Returns the bytes written.
 */
static inline int
add_changed_run(char *out, const char *image, int *fbegin, int *fend,
				int d, int e)
{
	int			written = 0;

	if (*fbegin >= 0 && d - *fend <= (int) MATCH_THRESHOLD)
	{
		*fend = e;
		return 0;
	}
	if (*fbegin >= 0)
		written = write_fragment(out, image, *fbegin, *fend);
	*fbegin = d;
	*fend = e;
	return written;
}

/*
 * Append to out the fragments that turn old into image over [start, end),
 * where only [vstart, vend) of old is comparable (the rest lay in its
 * hole).  Returns the bytes appended: at most end - start plus one header,
 * since fragments are separated by more than a header's worth of bytes.
 */
static int
region_delta(char *out, const char *old, const char *image,
			 int start, int end, int vstart, int vend)
{
	int			len = 0;
	int			fbegin = -1;	/* the pending fragment is [fbegin, fend) */
	int			fend = -1;
	int			stop = Min(end, vend);
	int			i = start;

	/* page_delta's two calls: vstart == start, or vend == end */
	Assert(vstart <= stop);
	if (vstart > start)
	{
		len += add_changed_run(out + len, image, &fbegin, &fend, start, vstart);
		i = vstart;
	}

	/*
	 * Loop invariant: every changed byte below i is inside the pending
	 * fragment or one already written, and i is at an unchanged byte or at
	 * the first byte not yet examined.
	 */
	while (i < stop)
	{
		int			d = first_difference(old, image, i, stop);
		int			e;

		if (d >= stop)
			break;
		e = d + 1;
		while (e < stop && old[e] != image[e])
			e++;
		/* [d, e) is a maximal run of changed bytes */
		len += add_changed_run(out + len, image, &fbegin, &fend, d, e);
		i = e;
	}

	/* the part of the region that lay in the old page's hole, at its end */
	if (stop < end)
		len += add_changed_run(out + len, image, &fbegin, &fend, stop, end);
	if (fbegin >= 0)
		len += write_fragment(out + len, image, fbegin, fend);
	return len;
}

/*
 * The delta from old to image, as generic_redo reads it.  Assertion-enabled
 * builds apply it to a copy of old and return -1 if that is not image.
 */
static int
page_delta(char *out, const char *old, const char *image)
{
	int			lower = ((PageHeader) image)->pd_lower;
	int			upper = ((PageHeader) image)->pd_upper;
	int			oldlower = ((PageHeader) old)->pd_lower;
	int			oldupper = ((PageHeader) old)->pd_upper;
	int			len;

	len = region_delta(out, old, image, 0, lower, 0, oldlower);
	len += region_delta(out + len, old, image, upper, BLCKSZ,
						oldupper, BLCKSZ);
	Assert(len <= (int) MAX_DELTA_SIZE);

#ifdef USE_ASSERT_CHECKING
	{
		PGAlignedBlock check;

		memcpy(check.data, old, BLCKSZ);
		apply_delta(check.data, out, len);
		if (memcmp(check.data, image, lower) != 0 ||
			memcmp(check.data + upper, image + upper, BLCKSZ - upper) != 0)
			return -1;
	}
#endif
	return len;
}

/*
 * Add to the pending fragment (or write) each maximal run of bytes of page
 * in [begin, end) that differs from kept, the bytes that range held.
 */
static int
kept_runs(char *out, const char *page, const char *kept, int begin, int end,
		  int *fbegin, int *fend)
{
	int			len = 0;
	int			i = begin;

	while (i < end)
	{
		int			d;

		/* most of these bytes are equal: skip them a word at a time */
		if (i + 8 <= end && load8(page + i) == load8(kept + i - begin))
		{
			i += 8;
			continue;
		}
		if (page[i] == kept[i - begin])
		{
			i++;
			continue;
		}
		d = i;
		while (i < end && page[i] != kept[i - begin])
			i++;
		len += add_changed_run(out + len, page, fbegin, fend, d, i);
	}
	return len;
}

/*
 * The delta of a page changed in place by appends (see "Appends in
 * place"): the header's changed bytes, the new line pointers, the new
 * tuples and the special area's changed bytes, in page order.  Returns -1
 * if the page was changed otherwise than by appends.
 */
static int
append_delta(char *out, const GXLogPage *p)
{
	const char *page = p->image;
	PageHeader	hdr = (PageHeader) page;
	int			lower = hdr->pd_lower;
	int			upper = hdr->pd_upper;
	int			len = 0;
	int			fbegin = -1;
	int			fend = -1;

	if (lower < p->oldlower || upper > p->oldupper || lower > upper ||
		hdr->pd_special != p->special)
		return -1;
	len += kept_runs(out + len, page, p->header, 0, SizeOfPageHeaderData,
					 &fbegin, &fend);
	if (lower > p->oldlower)
		len += add_changed_run(out + len, page, &fbegin, &fend,
							   p->oldlower, lower);
	if (upper < p->oldupper)
		len += add_changed_run(out + len, page, &fbegin, &fend,
							   upper, p->oldupper);
	for (int i = 0; i < p->ntouched; i++)
		len += kept_runs(out + len, page, p->touched[i].kept,
						 p->touched[i].offset,
						 p->touched[i].offset + p->touched[i].len,
						 &fbegin, &fend);
	len += kept_runs(out + len, page, p->specialdata, p->special, BLCKSZ,
					 &fbegin, &fend);
	if (fbegin >= 0)
		len += write_fragment(out + len, page, fbegin, fend);
	/* the runs are disjoint and a new fragment needs more than a header's gap */
	Assert(len <= (int) MAX_DELTA_SIZE);

#ifdef USE_ASSERT_CHECKING
	{
		PGAlignedBlock check;

		memcpy(check.data, p->old, BLCKSZ);
		apply_delta(check.data, out, len);
		if (memcmp(check.data, page, lower) != 0 ||
			memcmp(check.data + upper, page + upper, BLCKSZ - upper) != 0)
			return -1;			/* a change outside the header, special, hole */
	}
#endif
	return len;
}

/* Put a page changed in place back as it was at register, its hole zeroed. */
static void
restore_page(const GXLogPage *p)
{
	char	   *page = p->image;

	memcpy(page, p->header, SizeOfPageHeaderData);
	memcpy(page + p->special, p->specialdata, BLCKSZ - p->special);
	for (int i = 0; i < p->ntouched; i++)
		memcpy(page + p->touched[i].offset, p->touched[i].kept,
			   p->touched[i].len);
	memset(page + p->oldlower, 0, p->oldupper - p->oldlower);
}

static void
free_state(BlinkamXLogState *state)
{
	for (int i = 0; i < state->npages; i++)
	{
		GXLogPage  *p = &state->pages[i];

		if (!(p->flags & BLINKAM_XLOG_APPEND))
			pfree(p->image);
#ifdef USE_ASSERT_CHECKING
		else
			pfree(p->old);
#endif
	}
	pfree(state);
}

/*
 * Copy every image into its buffer, mark the buffers dirty and write one
 * record for all of them (when the relation is logged); frees the state.
 * Returns the record's LSN, or InvalidXLogRecPtr for an unlogged relation.
 * Its checks come first: one that fails puts every page back as at
 * register (blinkam_xlog_abort, which frees the state) and raises an
 * error, with nothing written.
 */
XLogRecPtr
blinkam_xlog_finish(BlinkamXLogState *state)
{
	XLogRecPtr	lsn = InvalidXLogRecPtr;
	int			deltalen[MAX_GENERIC_XLOG_PAGES] = {0};
	int			i;

	/* The deltas first: the buffers are locked, so nothing moves meanwhile. */
	for (i = 0; state->logged && i < state->npages; i++)
	{
		GXLogPage  *p = &state->pages[i];

		if (p->flags & BLINKAM_XLOG_APPEND)
			deltalen[i] = append_delta(gxlog_delta[i], p);
		else if (!(p->flags & GENERIC_XLOG_FULL_IMAGE))
			deltalen[i] = page_delta(gxlog_delta[i], BufferGetPage(p->buffer),
									 p->image);
		if (deltalen[i] < 0)
		{
			BlockNumber blkno = BufferGetBlockNumber(p->buffer);
			bool		append = (p->flags & BLINKAM_XLOG_APPEND) != 0;

			/* every page as it was at register, then the error */
			blinkam_xlog_abort(state);
			if (append)
				elog(ERROR, "block %u was registered for appends and changed otherwise",
					 blkno);
			elog(ERROR, "generic WAL delta of block %u does not reproduce the page",
				 blkno);
		}
	}

	START_CRIT_SECTION();
	if (state->logged)
		XLogBeginInsert();
	for (i = 0; i < state->npages; i++)
	{
		GXLogPage  *p = &state->pages[i];
		char	   *page = BufferGetPage(p->buffer);
		PageHeader	hdr = (PageHeader) p->image;

		/*
		 * The page becomes the image, with its hole zeroed, exactly as redo
		 * leaves it: a full image is copied; otherwise the delta, which
		 * holds every byte of the image's used part that the page lacks, is
		 * applied as redo applies it.  A page changed in place already is
		 * what redo makes of it (its hole aside).
		 */
		if (!(p->flags & BLINKAM_XLOG_APPEND))
		{
			if (!state->logged || (p->flags & GENERIC_XLOG_FULL_IMAGE))
				copy_page(page, p->image);
			else
			{
				apply_delta(page, gxlog_delta[i], deltalen[i]);
				memset(page + hdr->pd_lower, 0, hdr->pd_upper - hdr->pd_lower);
			}
		}
		MarkBufferDirty(p->buffer);

		if (!state->logged)
			continue;
		if (p->flags & GENERIC_XLOG_FULL_IMAGE)
			XLogRegisterBuffer(i, p->buffer,
							   REGBUF_FORCE_IMAGE | REGBUF_STANDARD);
		else
		{
			XLogRegisterBuffer(i, p->buffer, REGBUF_STANDARD);
			XLogRegisterBufData(i, gxlog_delta[i], deltalen[i]);
		}
	}
	if (state->logged)
	{
		lsn = XLogInsert(RM_GENERIC_ID, 0);
		for (i = 0; i < state->npages; i++)
			PageSetLSN(BufferGetPage(state->pages[i].buffer), lsn);
	}
	END_CRIT_SECTION();

	free_state(state);
	return lsn;
}

/*
 * Forget the record: every buffer is as it was at register (pages changed
 * in place are put back).
 */
void
blinkam_xlog_abort(BlinkamXLogState *state)
{
	for (int i = 0; i < state->npages; i++)
		if (state->pages[i].flags & BLINKAM_XLOG_APPEND)
			restore_page(&state->pages[i]);
	free_state(state);
}

/*
 * Cancel the standby queries that could still see a row version a change
 * we are about to log removes (or freezes).  Generic WAL cannot say it, so
 * the record is nbtree's own conflict-only record, XLOG_BTREE_REUSE_PAGE:
 * its redo changes no page, it only resolves recovery conflicts with the
 * snapshots, in the relation's database, that could see latestRemovedXid
 * as running -- what heap's prune and freeze records and nbtree's deletion
 * record do before they change the page.  The caller writes it before the
 * change's own record, while it holds the page's exclusive lock, so a
 * standby has cancelled those queries before it replays the change.  Does
 * nothing for an invalid xid, an unlogged relation or wal_level minimal.
 */
void
blinkam_log_conflict(Relation rel, BlockNumber blkno,
					 TransactionId latestRemovedXid)
{
	xl_btree_reuse_page xlrec;
	FullTransactionId next;
	uint32		epoch;

	if (!TransactionIdIsValid(latestRemovedXid) || !RelationNeedsWAL(rel) ||
		!XLogStandbyInfoActive())
		return;

	/* latestRemovedXid is older than the next xid, at most 2^31 behind */
	next = ReadNextFullTransactionId();
	epoch = EpochFromFullTransactionId(next);
	if (latestRemovedXid > XidFromFullTransactionId(next))
		epoch--;
	xlrec.node = rel->rd_node;
	xlrec.block = blkno;
	xlrec.latestRemovedFullXid =
		FullTransactionIdFromEpochAndXid(epoch, latestRemovedXid);

	XLogBeginInsert();
	XLogRegisterData((char *) &xlrec, SizeOfBtreeReusePage);
	XLogInsert(RM_BTREE_ID, XLOG_BTREE_REUSE_PAGE);
}
