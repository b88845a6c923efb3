/*-------------------------------------------------------------------------
 *
 * blink.h
 *	  The blink index access method: page layout, keys, scans, prototypes.
 *
 * See src/README for the protocol these structures serve.
 *
 * src/index/blink.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef BLINK_H
#define BLINK_H

#include "access/amapi.h"
#include "access/genam.h"
#include "access/itup.h"
#include "access/sdir.h"
#include "access/skey.h"
#include "fmgr.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "storage/lockdefs.h"
#include "utils/relcache.h"

/* ---------------------------------------------------------------------
 * Pages
 * ---------------------------------------------------------------------
 */

#define BLINK_METAPAGE			0
#define BLINK_MAGIC				0x424C4E4B	/* "BLNK" */
#define BLINK_VERSION			1
#define BLINK_PAGE_ID			0xFF8B	/* in every special area */

/* blink_flags */
#define BLINK_LEAF				(1 << 0)
#define BLINK_ROOT				(1 << 1)
#define BLINK_INCOMPLETE_SPLIT	(1 << 2)	/* right sibling has no downlink yet */
#define BLINK_META				(1 << 3)
#define BLINK_HAS_GARBAGE		(1 << 4)	/* leaf: some item is LP_DEAD */
#define BLINK_HAS_POSTING		(1 << 5)	/* leaf: may hold posting tuples */

typedef uint16 BlinkCycleId;

/*
 * The special area of every page (the metapage included).
 *
 * blink_version changes whenever an item of the page may have moved or
 * gone: every change of an internal page, and on leaves splits, tail
 * merges and VACUUM -- not appends to the tail, which move nothing (and
 * would otherwise add a fragment to every insert's WAL delta).  Page LSNs
 * cannot serve: they do not move on unlogged and temporary relations.  An
 * offset remembered with a version is still exact while the version is
 * unchanged.
 *
 * blink_nsorted (leaves only): the data items are the nsorted items that
 * follow the high key, in key order, then an unsorted tail of items
 * appended in arrival order (at most BLINK_MAX_TAIL).  Appending keeps the
 * generic WAL delta of an insert small; the tail is merged into the sorted
 * part when it is full and before a split.  Internal pages are always
 * fully sorted (nsorted counts every data item).
 */
typedef struct BlinkPageOpaqueData
{
	BlockNumber blink_prev;		/* left sibling, InvalidBlockNumber if none */
	BlockNumber blink_next;		/* right sibling, InvalidBlockNumber if none */
	uint32		blink_version;
	uint16		blink_level;	/* 0 for leaves */
	uint16		blink_flags;
	uint16		blink_nsorted;
	BlinkCycleId blink_cycleid; /* vacuum cycle that split this page, or 0 */
	uint16		blink_page_id;	/* BLINK_PAGE_ID */
} BlinkPageOpaqueData;

typedef BlinkPageOpaqueData *BlinkPageOpaque;

#define BlinkPageGetOpaque(page) \
	((BlinkPageOpaque) PageGetSpecialPointer(page))

#define BlinkPageIsLeaf(opaque)		(((opaque)->blink_flags & BLINK_LEAF) != 0)
#define BlinkPageIsRoot(opaque)		(((opaque)->blink_flags & BLINK_ROOT) != 0)
#define BlinkPageIsMeta(opaque)		(((opaque)->blink_flags & BLINK_META) != 0)
#define BlinkPageIsIncompleteSplit(opaque) \
	(((opaque)->blink_flags & BLINK_INCOMPLETE_SPLIT) != 0)
#define BlinkPageIsRightmost(opaque) \
	((opaque)->blink_next == InvalidBlockNumber)
#define BlinkPageIsLeftmost(opaque) \
	((opaque)->blink_prev == InvalidBlockNumber)

/*
 * Item positions: a non-rightmost page keeps its high key at offset 1 and
 * its data items from offset 2; a rightmost page has no high key.  The
 * first data item of an internal page is a key-less "minus infinity" item
 * whose downlink covers everything below the next separator.
 */
#define BLINK_HIKEY				((OffsetNumber) 1)
#define BlinkPageFirstDataKey(opaque) \
	(BlinkPageIsRightmost(opaque) ? BLINK_HIKEY : OffsetNumberNext(BLINK_HIKEY))

/* Leaf tail: appended items waiting to be merged into the sorted part. */
#define BLINK_MAX_TAIL			256

/* The metapage contents, right after the page header. */
typedef struct BlinkMetaPageData
{
	uint32		blinkm_magic;
	uint32		blinkm_version;
	BlockNumber blinkm_root;
	uint32		blinkm_level;	/* level of the root; 0 = the root is a leaf */
} BlinkMetaPageData;

#define BlinkPageGetMeta(page) \
	((BlinkMetaPageData *) PageGetContents(page))

/* What a backend caches about an index in rd_amcache (blinkpage.c). */
/*
 * A leaf hint (blinksearch.c, "Leaf hints" in src/README): a leaf this
 * backend inserted into lately, with an item seen on it and its high key
 * at that time, copied whole when they fit BLINK_HINT_TUPLE bytes.
 */
#define BLINK_LEAF_HINTS		16
#define BLINK_HINT_TUPLE		64

typedef union BlinkHintTuple
{
	char		data[BLINK_HINT_TUPLE];
	double		force_align;	/* MAXALIGN for the IndexTuple in data */
} BlinkHintTuple;

typedef struct BlinkLeafHint
{
	BlockNumber blkno;
	Buffer		recent;			/* the buffer that held it when last seen */
	uint32		used;			/* clock of the last use, for eviction */
	bool		has_hi;			/* false: it was the rightmost leaf */
	BlinkHintTuple lo;			/* an item seen on it */
	BlinkHintTuple hi;			/* its high key then */
} BlinkLeafHint;

typedef struct BlinkRelCache
{
	bool		meta_valid;		/* meta holds a copy of the metapage */
	BlinkMetaPageData meta;
	int8		dedup;			/* _blink_dedup_enabled: -1 not known yet */
	int8		in_c;			/* _blink_compares_in_c: -1 not known yet */
	/* leaf hints, in the order of their lo items */
	int			nhints;
	int			hint_last;		/* the hint the last lookup used, or -1 */
	uint32		hint_clock;
	BlinkLeafHint hints[BLINK_LEAF_HINTS];
} BlinkRelCache;

/* ---------------------------------------------------------------------
 * Tuples
 *
 * Leaf items are ordinary index tuples whose t_tid is the heap TID.
 * Pivot tuples (high keys and internal items) keep the key attributes
 * only (INCLUDE columns cut off) and carry the heap TID that completes the
 * key after the attributes, flagged by BLINK_PIVOT_HAS_TID in t_info;
 * an internal item's t_tid holds the child block number.
 * ---------------------------------------------------------------------
 */
#define BLINK_PIVOT_HAS_TID		INDEX_AM_RESERVED_BIT
#define BLINK_TID_SPACE			MAXALIGN(sizeof(ItemPointerData))

#define BlinkTupleIsPivot(itup)	(((itup)->t_info & BLINK_PIVOT_HAS_TID) != 0)
#define BlinkPivotHeapTid(itup) \
	((ItemPointer) ((char *) (itup) + IndexTupleSize(itup) - BLINK_TID_SPACE))
#define BlinkDownlink(itup)		ItemPointerGetBlockNumberNoCheck(&(itup)->t_tid)
#define BlinkSetDownlink(itup, blk) \
	ItemPointerSet(&(itup)->t_tid, (blk), (OffsetNumber) 1)

/*
 * Posting tuples (deduplication, blinkdedup.c): a leaf item that stands for
 * several entries with one key.  The key part is laid out as a plain leaf
 * tuple would be (its size MAXALIGN'd); the heap TIDs follow it, strictly
 * ascending, and the tuple's size covers both.  t_tid does not hold a heap
 * TID but describes the list: its block number's high half is the number
 * of TIDs (at least 2), its low half the offset of the list in the tuple,
 * and its offset number is BLINK_POSTING_POSID, which no heap TID has (a
 * heap page has fewer line pointers).  A posting tuple sorts where its
 * first entry would; its range reaches to its last TID, and no other item
 * of a leaf's sorted part lies inside a posting tuple's range.
 */
#define BLINK_POSTING_POSID		((OffsetNumber) 0xFFFE)

static inline bool
BlinkTupleIsPosting(IndexTuple itup)
{
	return !BlinkTupleIsPivot(itup) && itup->t_tid.ip_posid == BLINK_POSTING_POSID;
}

static inline int
BlinkPostingCount(IndexTuple itup)
{
	return itup->t_tid.ip_blkid.bi_hi;
}

static inline Size
BlinkPostingKeySize(IndexTuple itup)
{
	return itup->t_tid.ip_blkid.bi_lo;
}

static inline ItemPointer
BlinkPostingTids(IndexTuple itup)
{
	return (ItemPointer) ((char *) itup + BlinkPostingKeySize(itup));
}

/* The key part's size of a leaf item: a posting tuple's, or the whole tuple. */
static inline Size
BlinkItemKeySize(IndexTuple itup)
{
	return BlinkTupleIsPosting(itup) ? BlinkPostingKeySize(itup) : IndexTupleSize(itup);
}

/* The size of a posting tuple of n heap TIDs whose key part is keysz bytes. */
static inline Size
BlinkPostingSize(Size keysz, int n)
{
	return MAXALIGN(keysz + n * sizeof(ItemPointerData));
}

/* Number of heap TIDs of a leaf item, and its i'th one. */
static inline int
BlinkItemNTids(IndexTuple itup)
{
	return BlinkTupleIsPosting(itup) ? BlinkPostingCount(itup) : 1;
}

static inline ItemPointer
BlinkItemTid(IndexTuple itup, int i)
{
	return BlinkTupleIsPosting(itup) ? BlinkPostingTids(itup) + i : &itup->t_tid;
}

/* The heap TID that completes the key of any tuple on a page. */
static inline ItemPointer
BlinkTupleHeapTid(IndexTuple itup)
{
	if (BlinkTupleIsPivot(itup))
		return BlinkPivotHeapTid(itup);
	return BlinkTupleIsPosting(itup) ? BlinkPostingTids(itup) : &itup->t_tid;
}

/* The last heap TID of a leaf item's range. */
static inline ItemPointer
BlinkTupleMaxHeapTid(IndexTuple itup)
{
	return BlinkTupleIsPosting(itup) ?
		BlinkPostingTids(itup) + BlinkPostingCount(itup) - 1 : BlinkTupleHeapTid(itup);
}

/*
 * Largest index tuple accepted: a leaf must hold its high key (a pivot,
 * BLINK_TID_SPACE larger than the item it was made from) and two items of
 * this size, with their line pointers.  Then a page that a third one does
 * not fit splits into halves that each hold a high key and at least one
 * item (the left half: one item and a pivot; the right: the rest and the
 * old high key, no more than the page held); an internal page (a
 * minus-infinity item, pivots, a high key) splits the same way.  With 8 kB
 * pages this is 2704 bytes, btree's limit.
 */
/* Does an item of itemsz bytes (and its line pointer) fit on page? */
static inline bool
_blink_fits(Page page, Size itemsz)
{
	return PageGetFreeSpace(page) >= MAXALIGN(itemsz);
}

#define BLINK_MAX_ITEM_SIZE \
	MAXALIGN_DOWN((BLCKSZ - SizeOfPageHeaderData - MAXALIGN(sizeof(BlinkPageOpaqueData)) - \
				   3 * sizeof(ItemIdData) - BLINK_TID_SPACE) / 3)

/*
 * Deduplication makes posting tuples of at most this size, so that a page
 * holding them still splits like any other (the item limit above); a
 * posting tuple that takes one TID more (blinkdedup.c) stays within it.
 */
#define BLINK_MAX_POSTING_SIZE	MAXALIGN_DOWN(BLINK_MAX_ITEM_SIZE / 2)

/* The most heap TIDs one leaf can hold, postings included. */
#define BLINK_MAX_TIDS_PER_PAGE \
	((int) ((BLCKSZ - SizeOfPageHeaderData - sizeof(BlinkPageOpaqueData)) / \
			sizeof(ItemPointerData)))

/* CREATE INDEX progress subphases */
#define BLINK_PHASE_SCAN		2
#define BLINK_PHASE_SORT		3
#define BLINK_PHASE_LOAD		4

/* ---------------------------------------------------------------------
 * Options
 * ---------------------------------------------------------------------
 */
typedef struct BlinkOptions
{
	int32		varlena_header_;	/* varlena header (do not touch directly!) */
	int			fillfactor;		/* leaf fill factor of builds and splits */
	bool		deduplicate_items;	/* make posting tuples (blinkdedup.c) */
} BlinkOptions;

#define BLINK_DEFAULT_FILLFACTOR	90
#define BLINK_MIN_FILLFACTOR		10
#define BLINK_INTERNAL_FILLFACTOR	70

#define BlinkGetFillFactor(rel) \
	((rel)->rd_options ? ((BlinkOptions *) (rel)->rd_options)->fillfactor : \
	 BLINK_DEFAULT_FILLFACTOR)

/* ---------------------------------------------------------------------
 * Insertion scan keys
 *
 * An insertion key locates a position in key order: up to keysz key
 * attributes, each compared with the opclass's comparison proc (support
 * function 1, cross-type where the argument type differs), then
 * optionally the heap TID.  A key that stops short of the heap TID stands
 * for the lowest position with that prefix, or, with nextkey, the position
 * just past every item with that prefix.  Inserts use the full key (all
 * attributes and the heap TID) with nextkey, so equal positions move to
 * the right page.
 * ---------------------------------------------------------------------
 */
typedef struct BlinkScanInsertData
{
	bool		nextkey;
	ItemPointer heaptid;		/* NULL: no tiebreaker */
	int			keysz;			/* key attributes used */
	ScanKeyData scankeys[INDEX_MAX_KEYS];
} BlinkScanInsertData;

typedef BlinkScanInsertData *BlinkScanInsert;

/* The path remembered by a descent: one entry per internal level visited. */
typedef struct BlinkStackData
{
	BlockNumber blkno;			/* the page where the downlink was found */
	uint32		version;		/* its blink_version then */
	OffsetNumber offnum;		/* the downlink's offset then */
	struct BlinkStackData *parent;
} BlinkStackData;

typedef BlinkStackData *BlinkStack;

/* ---------------------------------------------------------------------
 * Scans
 * ---------------------------------------------------------------------
 */

/* One item copied out of a leaf. */
typedef struct BlinkScanItem
{
	ItemPointerData heapTid;
	OffsetNumber indexOffset;	/* where it was when copied (for kill) */
	uint16		tupleOffset;	/* in currTuples, for index-only scans */
} BlinkScanItem;

/* What a scan keeps of one leaf: its matching items, copied. */
typedef struct BlinkScanPos
{
	Buffer		buf;			/* pinned, not locked; InvalidBuffer if none */
	BlockNumber currPage;
	BlockNumber nextPage;		/* right-link seen when the page was read */
	BlockNumber prevPage;		/* left-link seen then */
	uint32		version;		/* its blink_version then (for marking dead) */
	bool		moreLeft;		/* may matches exist left of this page? */
	bool		moreRight;		/* ... right of it? */
	int			firstItem;
	int			lastItem;
	int			itemIndex;		/* current item, firstItem..lastItem */
	int			nextTupleOffset;	/* free space in currTuples */
	BlinkScanItem items[BLINK_MAX_TIDS_PER_PAGE];
} BlinkScanPos;

#define BlinkScanPosIsValid(pos)	BlockNumberIsValid((pos).currPage)

typedef struct BlinkArrayKey
{
	int			scan_key;		/* index of the key in keyData */
	int			cur_elem;
	int			mark_elem;		/* cur_elem when the scan was marked */
	int			num_elems;
	Datum	   *elem_values;
} BlinkArrayKey;

typedef struct BlinkScanOpaqueData
{
	/* the scan's keys after preprocessing */
	int			numberOfKeys;
	ScanKey		keyData;
	bool		qual_ok;		/* false: the keys contradict, no match */
	/* bounds of the current (primitive) scan in index order, or NULL */
	BlinkScanInsert lowKey;
	BlinkScanInsert highKey;
	/* = ANY (array) keys */
	int			numArrayKeys;
	BlinkArrayKey *arrayKeys;
	MemoryContext arrayContext;
	/* tuples for index-only scans, BLCKSZ each */
	char	   *currTuples;
	char	   *markTuples;
	BlinkScanPos currPos;
	BlinkScanPos markPos;		/* the marked position, and its array keys'
								 * mark_elem */
	/* items of currPos whose rows the heap found dead to all (kill_prior_tuple) */
	int			numKilled;
	int			killedItems[BLINK_MAX_TIDS_PER_PAGE];
	/* parallel scans: array key combinations this backend has finished */
	int			arrayKeyCount;
	/* a dirty-snapshot scan has waited for pending.c's holders of its key */
	bool		pendingWaited;
} BlinkScanOpaqueData;

typedef BlinkScanOpaqueData *BlinkScanOpaque;

/* ---------------------------------------------------------------------
 * Prototypes
 * ---------------------------------------------------------------------
 */

/* blinkinsert.c: the flags word of a tuple published to batch.c */
#define BLINK_BATCH_UNIQUE		0x01	/* the holder must check uniqueness */

/* pending.c: keys of unique entries waiting in statement buffers */
#define BLINK_PENDING_KEYMAX		32	/* key bytes at most */
#define BLINK_PENDING_HOLDERS		4	/* holders of one key at most */
#define BLINK_PENDING_PER_BACKEND	128 /* keys one backend holds at most */

typedef struct BlinkPendingKey
{
	RelFileNode node;			/* the index's storage */
	uint16		len;
	uint8		bytes[BLINK_PENDING_KEYMAX];	/* the key columns' values */
} BlinkPendingKey;

typedef struct BlinkPendingHolder
{
	int			procno;			/* its backend's pgprocno */
	TransactionId xid;			/* the (sub)transaction that made the row */
	ItemPointerData tid;		/* the row */
} BlinkPendingHolder;

extern void _blink_pending_init(void);
extern bool _blink_pending_key(Relation rel, IndexTuple itup, BlinkPendingKey *key);
extern bool _blink_pending_scan_key(Relation rel, ScanKey keys, int nkeys,
									BlinkPendingKey *key);
extern bool _blink_pending_enter(const BlinkPendingKey *key, ItemPointer tid,
								 TransactionId xid);
extern void _blink_pending_forget(const BlinkPendingKey *key, ItemPointer tid);
extern bool _blink_pending_any(void);
extern int	_blink_pending_lookup(const BlinkPendingKey *key, BlinkPendingHolder *out);
extern int	_blink_pending_mine(void);

/* defer.c */
extern bool _blink_defer_insert(Relation rel, Relation heapRel, IndexTuple itup,
								bool indexUnchanged,
								struct IndexInfo *indexInfo);
extern bool _blink_defer_unique_prepare(Relation rel, Relation heapRel,
										struct IndexInfo *indexInfo);
extern bool _blink_defer_unique_keep(Relation rel, IndexTuple itup,
									 const BlinkPendingKey *key,
									 TransactionId xid, bool indexUnchanged);
extern void _blink_defer_unique_kept(void);
extern void _blink_defer_flush(void);
extern void _blink_defer_discard(Relation rel);
extern void _blink_defer_init(void);

/* blinkutils.c */
extern PGDLLEXPORT Datum blinkhandler(PG_FUNCTION_ARGS);
extern void blink_init(void);
extern bytea *blinkoptions(Datum reloptions, bool validate);
extern bool blinkcanreturn(Relation index, int attno);
extern char *blinkbuildphasename(int64 phasenum);
extern bool blinkvalidate(Oid opclassoid);
extern void blinkadjustmembers(Oid opfamilyoid, Oid opclassoid,
							   List *operators, List *functions);
extern void blinkcostestimate(struct PlannerInfo *root, struct IndexPath *path,
							  double loop_count, Cost *indexStartupCost,
							  Cost *indexTotalCost, Selectivity *indexSelectivity,
							  double *indexCorrelation, double *indexPages);
extern BlinkScanInsert _blink_mkscankey(Relation rel, IndexTuple itup);
extern int	_blink_cmp_bits_width(PGFunction fn);
extern int	_blink_first_eq_width(Relation rel, BlinkScanInsert key, int64 *bits);

/*
 * Does item itup surely differ from a key on its first attribute, whose
 * bits and width _blink_first_eq_width gave (width 0: cannot tell)?  An
 * item with NULLs is not judged here.
 */
static inline bool
_blink_tail_item_differs(IndexTuple itup, int width, int64 bits)
{
	const char *p = (const char *) itup + MAXALIGN(sizeof(IndexTupleData));

	if (width == 0 || IndexTupleHasNulls(itup))
		return false;
	if (width == 8)
	{
		int64		v;

		memcpy(&v, p, sizeof(v));
		return v != bits;
	}
	if (width == 4)
	{
		int32		v;

		memcpy(&v, p, sizeof(v));
		return v != (int32) bits;
	}
	{
		int16		v;

		memcpy(&v, p, sizeof(v));
		return v != (int16) bits;
	}
}
extern int32 _blink_compare_key_tuple(Relation rel, BlinkScanInsert key,
									 IndexTuple itup);
extern int	_blink_compare_tuples(Relation rel, IndexTuple a, IndexTuple b);
extern int	_blink_compare_tuple_end(Relation rel, IndexTuple a, IndexTuple b);
extern bool _blink_keys_equal(Relation rel, IndexTuple a, IndexTuple b);

/* for _blink_offset_cmp: the page whose item offsets are sorted */
typedef struct BlinkSortOffsetsArg
{
	Relation	rel;
	Page		page;
} BlinkSortOffsetsArg;

extern int	_blink_offset_cmp(const void *a, const void *b, void *arg);
extern bool _blink_item_meets_range(Relation rel, IndexTuple itup, IndexTuple base,
									ItemPointer min, ItemPointer max);
extern IndexTuple _blink_make_pivot(Relation rel, IndexTuple itup);
extern Size _blink_copy_key(IndexTuple dest, IndexTuple itup, ItemPointer tid);
extern IndexTuple _blink_form_posting(IndexTuple base, const ItemPointerData *tids,
									  int n);
extern bool _blink_dedup_enabled(Relation rel);
extern bool _blink_compares_in_c(Relation rel);
extern IndexTuple _blink_minus_infinity(BlockNumber child);
extern char *_blink_tuple_to_text(Relation rel, IndexTuple itup);
extern void _blink_check_item_size(Relation rel, Relation heapRel, IndexTuple itup);
extern Oid	_blink_rel_am(Oid relid);

/* blinkpage.c */
extern void _blink_init_page(Page page, uint16 flags, uint16 level);
extern void _blink_init_metapage(Page page, BlockNumber root, uint32 level);
extern Buffer _blink_getbuf(Relation rel, BlockNumber blkno, int access);
extern bool _blink_pin_recent(Relation rel, BlockNumber blkno, Buffer recent);
extern Buffer _blink_pin_cached(Relation rel, BlockNumber blkno, Buffer recent);
extern void _blink_lockbuf(Relation rel, Buffer buf, int access);
extern void _blink_unlock(Relation rel, Buffer buf);
extern void _blink_relbuf(Relation rel, Buffer buf);
extern Buffer _blink_relandgetbuf(Relation rel, Buffer obuf, BlockNumber blkno,
								  int access);
extern void _blink_corrupted(Relation rel, BlockNumber blkno, const char *fmt,...)
			pg_attribute_printf(3, 4) pg_attribute_noreturn();
extern void _blink_checkpage(Relation rel, Buffer buf);
extern Buffer _blink_newpage(Relation rel, bool leaf);
extern BlockNumber _blink_getroot(Relation rel, uint32 *level, bool refresh);
extern void _blink_forget_root(Relation rel);
extern BlinkRelCache *_blink_relcache(Relation rel);
extern void _blink_page_changed(Page page);
extern BlinkMetaPageData *_blink_read_meta(Relation rel, BlinkMetaPageData *copy);

/*
 * How _blink_hint_leaf takes the leaf a hint names (see there).
 */
typedef enum BlinkHintMode
{
	BLINK_HINT_MOVE,			/* an aminsert: move right from it as needed */
	BLINK_HINT_EXACT,			/* a flush's run: only if it covers the key */
	BLINK_HINT_HELD				/* as exact, for a flush holding leaves: only
								 * if in shared buffers, and no pause point */
} BlinkHintMode;

/* blinksearch.c */
extern int32 _blink_compare(Relation rel, BlinkScanInsert key, Page page,
							OffsetNumber offnum);
extern OffsetNumber _blink_binsrch(Relation rel, BlinkScanInsert key, Page page);
extern bool _blink_should_move_right(Relation rel, BlinkScanInsert key, Page page);
extern Buffer _blink_moveright_nowait(Relation rel, BlinkScanInsert key,
									  Buffer buf, int access, bool *nolock,
									  bool hint);
extern Buffer _blink_get_target(Relation rel, Buffer obuf, BlockNumber blkno,
								int access, bool *nolock);
extern Buffer _blink_moveright(Relation rel, BlinkScanInsert key, Buffer buf,
							   int access);
extern BlinkStack _blink_search(Relation rel, BlinkScanInsert key, Buffer *bufp,
								int access, uint32 target_level);
extern Buffer _blink_hint_leaf(Relation rel, BlinkScanInsert key, bool *nolock,
							   BlinkHintMode mode);
extern void _blink_hint_remember(Relation rel, Buffer buf);
extern BlinkStack _blink_search_ext(Relation rel, BlinkScanInsert key,
									Buffer *bufp, int access,
									uint32 target_level, bool *nolock);
extern Buffer _blink_get_endpoint(Relation rel, uint32 level, bool rightmost,
								  int access);
extern void _blink_free_stack(BlinkStack stack);
extern void _blink_sort_leaf(Relation rel, Page page);

/* blinkinsert.c */
extern bool blinkinsert(Relation rel, Datum *values, bool *isnull,
						ItemPointer ht_ctid, Relation heapRel,
						IndexUniqueCheck checkUnique, bool indexUnchanged,
						struct IndexInfo *indexInfo);
extern bool _blink_finish_or_wait(Relation rel, Buffer buf);
extern void _blink_insert_sorted(Relation rel, IndexTuple *itups, int n,
								 bool *landed, bool unchanged);

/* blinkdelete.c */
typedef struct BlinkLeafUpdate
{
	OffsetNumber offnum;		/* a posting tuple that loses some TIDs */
	IndexTuple	itup;			/* what replaces it */
} BlinkLeafUpdate;

extern void _blink_leaf_delete(Relation rel, Buffer buf, OffsetNumber *deletable,
							   int n, BlinkLeafUpdate *updates, int nupdates);
typedef bool (*BlinkTidGone) (ItemPointer tid, OffsetNumber offnum, void *arg);
extern int	_blink_leaf_plan_removal(Page page, BlinkTidGone gone, void *arg,
									 OffsetNumber *deletable, int *ndeletable,
									 BlinkLeafUpdate *updates, int *nupdates,
									 int *nkept);
extern void _blink_mark_dead_locked(Relation rel, Buffer buf,
									const OffsetNumber *offs, int n);
extern void _blink_mark_dead(Relation rel, BlockNumber blkno, Buffer pinned,
							 uint32 version, const ItemPointerData *tids,
							 const OffsetNumber *offs, int n);
extern bool _blink_delete_before_split(Relation rel, Buffer buf,
									   IndexTuple newitem, bool bottomup);

/* blinkdedup.c */
extern bool _blink_inside_posting(Relation rel, IndexTuple posting, IndexTuple itup);
extern void _blink_posting_swap(Relation rel, IndexTuple posting, ItemPointer tid);
extern void _blink_fix_tail(Relation rel, Page page);
extern int	_blink_dedup_run(Relation rel, Page page, IndexTuple *itups, int n,
							 IndexTuple *out);
extern int	_blink_dedup_group(Relation rel, IndexTuple *itups, int n,
							   IndexTuple *out, int *counts);
extern bool _blink_posting_may_append(Relation rel, Page page, IndexTuple posting);
extern bool _blink_dedup_before_split(Relation rel, Buffer buf, IndexTuple newitem);

/* blinkbuild.c */
extern IndexBuildResult *blinkbuild(Relation heap, Relation index,
									struct IndexInfo *indexInfo);
extern void blinkbuildempty(Relation index);

/* blinkscan.c */
extern IndexScanDesc blinkbeginscan(Relation rel, int nkeys, int norderbys);
extern void blinkrescan(IndexScanDesc scan, ScanKey scankey, int nscankeys,
						ScanKey orderbys, int norderbys);
extern bool blinkgettuple(IndexScanDesc scan, ScanDirection dir);
extern int64 blinkgetbitmap(IndexScanDesc scan, TIDBitmap *tbm);
extern void blinkendscan(IndexScanDesc scan);
extern Size blinkestimateparallelscan(void);
extern void blinkinitparallelscan(void *target);
extern void blinkparallelrescan(IndexScanDesc scan);
extern void blinkmarkpos(IndexScanDesc scan);
extern void blinkrestrpos(IndexScanDesc scan);

/* blinkvacuum.c */
extern IndexBulkDeleteResult *blinkbulkdelete(IndexVacuumInfo *info,
											  IndexBulkDeleteResult *stats,
											  IndexBulkDeleteCallback callback,
											  void *callback_state);
extern IndexBulkDeleteResult *blinkvacuumcleanup(IndexVacuumInfo *info,
												 IndexBulkDeleteResult *stats);
extern BlinkCycleId _blink_vacuum_cycleid(Relation rel);
extern void _blink_vacuum_init(void);

/* onconflict.c */
extern void _blink_onconflict_init(void);

/* fkcheck.c */
extern void _blink_fkcheck(Node *stmt);

/* blinkverify.c */
extern Relation blink_open_index(Oid indexoid, LOCKMODE lockmode, bool *skip);

/* blinkrepair.c */
extern void _blink_repair_init(void);

/* splitreg.c */
extern void _blink_splitreg_init(void);
extern bool _blink_splitreg_claim(Relation rel, BlockNumber blkno);
extern void _blink_splitreg_release(Relation rel, BlockNumber blkno);
extern void _blink_splitreg_wait(Relation rel, BlockNumber blkno);
extern void _blink_splitreg_release_all(void);

#endif							/* BLINK_H */
