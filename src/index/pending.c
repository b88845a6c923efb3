/*-------------------------------------------------------------------------
 *
 * pending.c
 *	  The pending-key registry: keys of unique blink entries that wait in a
 *	  backend's statement buffer, for every other unique check to find.
 *
 * A unique index's entry may wait in its backend's buffer (defer.c) only if
 * every check of the key that runs meanwhile finds it all the same.  Every
 * unique check of a key -- held back or not -- locks the key's first leaf
 * exclusively and looks here, then at that leaf and its right siblings
 * while the key's range goes on, all under that lock (blinkinsert.c,
 * _blink_unique_scan, says why in that order); so checks of one key
 * serialize on that leaf, as btree's do.  An insert at once puts its entry on a leaf before it lets
 * the range go; a held-back insert instead enters (key, heap TID, xid)
 * here before it lets go of the first leaf, and takes it out only once the
 * entry is on its leaf (or its row is gone with its subtransaction).  The
 * entry in this table plays the part of the entry on the leaf, so whoever
 * checks next finds one or the other, and what it finds is a row whose
 * own check has passed, as on a leaf: waiting for it is the wait btree
 * would make.  (A first version entered keys before their check; a
 * helper's review found the deadlocks that made -- a check waiting for a
 * holder still checking, which was waiting for the checker's own row --
 * and they are in specs/blink_defer_unique_race.)  A held-back key is
 * judged as an equal item is: its row fetched with a dirty snapshot; in
 * progress, wait; committed and live, a violation.
 *
 * A TID read here is judged only through a fetch followed by a look at the
 * holder's xid (_blink_check_pending_holders).  While the holder's
 * (sub)transaction has not aborted, its row cannot have been removed: it
 * is in progress to every VACUUM, its own transaction's later deletes are
 * in progress too, and if it has committed since the lookup (its key
 * leaves before the commit), a delete of it by a transaction that our
 * snapshot does not already see as finished cannot be removed while our
 * snapshot's xmin holds it back.  So the line pointer still names that
 * row.  Once it has aborted, the fetch may have met a reused line pointer,
 * and the caller ignores what it found (the holder takes its keys out at
 * the abort, a moment later).
 *
 * Only keys that compare by their bytes can be found by their bytes: every
 * key column must be of a type whose equal values have equal bits (the
 * integer types, oid, date, timestamp and timestamptz, through their own
 * operator classes), with no NULL, at most BLINK_PENDING_KEYMAX bytes in
 * all.  Other unique indexes never wait (_blink_pending_key says which).
 *
 * The table is a partitioned shared hash on (index storage, key bytes),
 * each entry with up to BLINK_PENDING_HOLDERS holders (several only when
 * every row with the key but one is dead: one transaction's own rows, or
 * rows of (sub)transactions that aborted and have not taken their keys
 * out yet).
 * A backend holds at most BLINK_PENDING_PER_BACKEND keys at once (past
 * that its entries go in at once), so the table, sized for all backends,
 * cannot fill.  Lock order: a partition lock may be taken while holding
 * buffer locks, and nothing is acquired while it is held.
 *
 * src/index/pending.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/hsearch.h"
#include "utils/rel.h"

#include "common/shmem.h"
#include "index/blink.h"

#define BLINK_PENDING_PARTITIONS	64
#define BLINK_PENDING_TRANCHE		"blinkam_pending"

typedef struct PendingEntry
{
	BlinkPendingKey key;		/* hash key: must be first */
	int			nholders;
	BlinkPendingHolder holders[BLINK_PENDING_HOLDERS];
} PendingEntry;

/*
 * Has any key ever been entered since the server started?  Until then a
 * check skips the lookup.  Set once (so the cache line stays shared), under
 * the key's first leaf lock, before the key is entered; a check reads it
 * under that same lock (or one taken after it was let go, through a
 * split's locks), so it sees the flag whenever it could find the key.  A
 * dirty-snapshot scan (blinkscan.c) reads it with no leaf lock, just
 * before its own lookup: a key it misses was entered no earlier than a
 * key its lookup could miss anyway, as for an entry put on its leaf just
 * after the scan has read the leaf.
 */
typedef struct PendingShared
{
	pg_atomic_uint32 used;
} PendingShared;

static HTAB *PendingHash = NULL;
static LWLockPadded *PendingLocks = NULL;
static PendingShared *PendingState = NULL;
static int	my_keys = 0;		/* holders this backend has in the table */

static long
pending_max_entries(void)
{
	return (long) (MaxBackends + 1) * BLINK_PENDING_PER_BACKEND;
}

static Size
pending_shmem_size(void)
{
	return add_size(MAXALIGN(sizeof(PendingShared)),
					hash_estimate_size(pending_max_entries(), sizeof(PendingEntry)));
}

/* Called from the shmem startup hook, under AddinShmemInitLock. */
static void
pending_shmem_init(void)
{
	HASHCTL		info;
	bool		found;

	PendingState = ShmemInitStruct("blinkam pending unique keys state",
								   sizeof(PendingShared), &found);
	if (!found)
		pg_atomic_init_u32(&PendingState->used, 0);
	info.keysize = sizeof(BlinkPendingKey);
	info.entrysize = sizeof(PendingEntry);
	info.num_partitions = BLINK_PENDING_PARTITIONS;
	PendingHash = ShmemInitHash("blinkam pending unique keys",
								pending_max_entries(), pending_max_entries(),
								&info,
								HASH_ELEM | HASH_BLOBS | HASH_PARTITION |
								HASH_FIXED_SIZE);
	PendingLocks = GetNamedLWLockTranche(BLINK_PENDING_TRANCHE);
}

/* From _PG_init. */
void
_blink_pending_init(void)
{
	blinkam_shmem_register(pending_shmem_size, pending_shmem_init);
	blinkam_shmem_register_tranche(BLINK_PENDING_TRANCHE, BLINK_PENDING_PARTITIONS);
}

static void
pending_put(BlinkPendingKey *key, Datum value, int width)
{
	switch (width)
	{
		case 8:
			{
				int64		v = DatumGetInt64(value);

				memcpy(key->bytes + key->len, &v, 8);
				break;
			}
		case 4:
			{
				int32		v = DatumGetInt32(value);

				memcpy(key->bytes + key->len, &v, 4);
				break;
			}
		default:
			{
				int16		v = DatumGetInt16(value);

				memcpy(key->bytes + key->len, &v, 2);
				break;
			}
	}
	key->len += width;
}

/*
 * May rel's checks find keys here at all?  A unique, immediate index of a
 * permanent table whose every key column compares by its bits (see the top
 * of this file).  Only properties that no backend can see otherwise while
 * another has entries here (an index's storage changes with any of them).
 */
static bool
pending_index_ok(Relation rel)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int			nkeys = IndexRelationGetNumberOfKeyAttributes(rel);
	int			total = 0;

	if (!rel->rd_index->indisunique || !rel->rd_index->indimmediate ||
		rel->rd_index->indnullsnotdistinct ||
		rel->rd_rel->relpersistence != RELPERSISTENCE_PERMANENT)
		return false;
	for (int i = 1; i <= nkeys; i++)
	{
		int			width = _blink_cmp_bits_width(index_getprocinfo(rel, i, BTORDER_PROC)->fn_addr);

		if (width == 0 || TupleDescAttr(desc, i - 1)->attlen != width)
			return false;
		total += width;
	}
	return total <= BLINK_PENDING_KEYMAX;
}

/*
 * Set *key to itup's key in rel, if rel's checks look here and the key has
 * no NULL (a NULL never conflicts).  Returns false otherwise.
 */
bool
_blink_pending_key(Relation rel, IndexTuple itup, BlinkPendingKey *key)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int			nkeys = IndexRelationGetNumberOfKeyAttributes(rel);

	if (!pending_index_ok(rel))
		return false;
	memset(key, 0, sizeof(BlinkPendingKey));
	key->node = rel->rd_node;
	for (int i = 1; i <= nkeys; i++)
	{
		bool		isnull;
		Datum		value = index_getattr(itup, i, desc, &isnull);

		if (isnull)
			return false;
		pending_put(key, value, TupleDescAttr(desc, i - 1)->attlen);
	}
	return true;
}

/*
 * The same for a scan's keys (after preprocessing): one equality key on
 * each key column, of the column's own type, none NULL, none an array.
 */
bool
_blink_pending_scan_key(Relation rel, ScanKey keys, int nkeys,
						BlinkPendingKey *key)
{
	int			natts = IndexRelationGetNumberOfKeyAttributes(rel);
	TupleDesc	desc = RelationGetDescr(rel);

	if (nkeys != natts || !pending_index_ok(rel))
		return false;
	memset(key, 0, sizeof(BlinkPendingKey));
	key->node = rel->rd_node;
	for (int i = 1; i <= natts; i++)
	{
		ScanKey		sk = NULL;

		for (int j = 0; j < nkeys; j++)
		{
			if (keys[j].sk_attno == i)
				sk = &keys[j];
		}
		if (sk == NULL || sk->sk_strategy != BTEqualStrategyNumber ||
			(sk->sk_flags & (SK_ISNULL | SK_SEARCHARRAY | SK_ROW_HEADER |
							 SK_SEARCHNULL | SK_SEARCHNOTNULL)) ||
			(sk->sk_subtype != InvalidOid &&
			 sk->sk_subtype != rel->rd_opcintype[i - 1]))
			return false;
		pending_put(key, sk->sk_argument, TupleDescAttr(desc, i - 1)->attlen);
	}
	return true;
}

static LWLock *
pending_lock(uint32 hash)
{
	return &PendingLocks[hash % BLINK_PENDING_PARTITIONS].lock;
}

/*
 * Enter key with our row's TID and xid (the caller holds the key's first
 * leaf, where its check has just passed).  Returns false, entering
 * nothing, if this backend holds its share of keys already or the key has
 * no room for another holder: the caller inserts its entry at once
 * instead.
 */
bool
_blink_pending_enter(const BlinkPendingKey *key, ItemPointer tid,
					 TransactionId xid)
{
	uint32		hash = get_hash_value(PendingHash, key);
	LWLock	   *lock = pending_lock(hash);
	PendingEntry *e;
	bool		found;
	bool		ok = false;

	if (my_keys >= BLINK_PENDING_PER_BACKEND)
		return false;
	if (pg_atomic_read_u32(&PendingState->used) == 0)
		pg_atomic_write_u32(&PendingState->used, 1);
	LWLockAcquire(lock, LW_EXCLUSIVE);
	e = hash_search_with_hash_value(PendingHash, key, hash, HASH_ENTER_NULL,
									&found);
	if (e != NULL)
	{
		if (!found)
			e->nholders = 0;
		if (e->nholders < BLINK_PENDING_HOLDERS)
		{
			BlinkPendingHolder *h = &e->holders[e->nholders];

			h->procno = MyProc->pgprocno;
			h->xid = xid;
			h->tid = *tid;
			e->nholders++;
			ok = true;
		}
	}
	LWLockRelease(lock);
	if (ok)
		my_keys++;
	return ok;
}

/* Take our holder (key, tid) out, if it is there. */
void
_blink_pending_forget(const BlinkPendingKey *key, ItemPointer tid)
{
	uint32		hash = get_hash_value(PendingHash, key);
	LWLock	   *lock = pending_lock(hash);
	PendingEntry *e;
	bool		gone = false;

	LWLockAcquire(lock, LW_EXCLUSIVE);
	e = hash_search_with_hash_value(PendingHash, key, hash, HASH_FIND, NULL);
	if (e != NULL)
	{
		for (int i = 0; i < e->nholders; i++)
		{
			if (e->holders[i].procno == MyProc->pgprocno &&
				ItemPointerEquals(&e->holders[i].tid, tid))
			{
				memmove(&e->holders[i], &e->holders[i + 1],
						sizeof(BlinkPendingHolder) * (e->nholders - i - 1));
				e->nholders--;
				gone = true;
				break;
			}
		}
		if (e->nholders == 0)
			hash_search_with_hash_value(PendingHash, key, hash, HASH_REMOVE, NULL);
	}
	LWLockRelease(lock);
	if (gone)
		my_keys--;
	Assert(my_keys >= 0);
}

/*
 * Has any key ever been entered?  (A check calls this under its leaf's
 * lock, before it builds its key: see PendingShared.)
 */
bool
_blink_pending_any(void)
{
	return pg_atomic_read_u32(&PendingState->used) != 0;
}

/*
 * Copy key's holders into out; returns their number.  (Callers ask
 * _blink_pending_any first, before they build the key.)
 */
int
_blink_pending_lookup(const BlinkPendingKey *key, BlinkPendingHolder *out)
{
	uint32		hash;
	LWLock	   *lock;
	PendingEntry *e;
	int			n = 0;

	hash = get_hash_value(PendingHash, key);
	lock = pending_lock(hash);
	LWLockAcquire(lock, LW_SHARED);
	e = hash_search_with_hash_value(PendingHash, key, hash, HASH_FIND, NULL);
	if (e != NULL)
	{
		n = e->nholders;
		memcpy(out, e->holders, sizeof(BlinkPendingHolder) * n);
	}
	LWLockRelease(lock);
	return n;
}

/* Keys this backend has entered and not taken out (tests, assertions). */
int
_blink_pending_mine(void)
{
	return my_keys;
}
