-- Deduplication: equal keys stored once, as posting tuples (blinkdedup.c).
-- Every answer is compared with btree's on the same table.
CREATE EXTENSION IF NOT EXISTS blinkam;
SET client_min_messages = warning;

CREATE FUNCTION counter(text) RETURNS bigint LANGUAGE sql
AS $$ SELECT value FROM blinkam_stats() WHERE name = $1 $$;

-- Posting tuples on a page: how many, and how many TIDs they hold.
CREATE FUNCTION postings(idx regclass, OUT items bigint, OUT tids bigint)
LANGUAGE sql AS $$
	SELECT count(*), coalesce(sum(cardinality(i.htids)), 0)
	FROM generate_series(1, pg_relation_size(idx) / 8192 - 1) b,
		 LATERAL blink_page_items(idx, b) i
	WHERE i.htids IS NOT NULL
$$;

-- Tree pages only (pg_relation_size also counts pages the workers keep
-- ready for splits).
CREATE FUNCTION tree_pages(idx regclass) RETURNS bigint LANGUAGE sql
AS $$ SELECT leaf_pages + internal_pages + 1 FROM blink_tree_stats(idx) $$;

-- The same query by every access path must give the same rows.
CREATE FUNCTION same_answers(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	seq bigint[];
	other bigint[];
	paths text[] := ARRAY['indexscan', 'bitmapscan', 'indexonlyscan'];
	p text;
BEGIN
	SET LOCAL enable_indexscan = off;
	SET LOCAL enable_bitmapscan = off;
	SET LOCAL enable_indexonlyscan = off;
	EXECUTE 'SELECT array_agg(x ORDER BY x) FROM (' || q || ') s(x)' INTO seq;
	SET LOCAL enable_seqscan = off;
	FOREACH p IN ARRAY paths LOOP
		EXECUTE format('SET LOCAL enable_%s = on', p);
		EXECUTE 'SELECT array_agg(x ORDER BY x) FROM (' || q || ') s(x)' INTO other;
		EXECUTE format('SET LOCAL enable_%s = off', p);
		IF other IS DISTINCT FROM seq THEN
			RAISE WARNING '% differs for %', p, q;
			RETURN false;
		END IF;
	END LOOP;
	RETURN true;
END $$;

-- 1. CREATE INDEX on a column with 100 distinct values: posting tuples,
-- and a tree no more than 1.1 times btree's size.
CREATE TABLE d (id int, dev int, note text) WITH (autovacuum_enabled = off);
INSERT INTO d SELECT g, g % 100, 'n' || g FROM generate_series(1, 100000) g;
CREATE INDEX d_blink ON d USING blink (dev);
CREATE INDEX d_bt ON d USING btree (dev);
CREATE INDEX d_plain ON d USING blink (dev) WITH (deduplicate_items = off);
SELECT items > 0 AS has_postings, tids > 99000 AS most_entries_in_postings
FROM postings('d_blink');
SELECT tree_pages('d_blink') <= 1.1 * pg_relation_size('d_bt') / 8192 AS within_1_1_of_btree,
	   tree_pages('d_blink') * 2 < tree_pages('d_plain') AS under_half_of_plain;
SELECT blink_check('d_plain', true);
DROP INDEX d_plain;
SELECT blink_check('d_blink', true);

-- Scans: every entry of a posting tuple, in every direction and path.
SELECT same_answers('SELECT id FROM d WHERE dev = 42');
SELECT same_answers('SELECT id FROM d WHERE dev BETWEEN 10 AND 12');
SELECT same_answers('SELECT dev FROM d WHERE dev >= 97');
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT id, dev FROM d WHERE dev = 7 ORDER BY dev DESC, id DESC LIMIT 3;
SELECT count(*) FROM d WHERE dev IN (3, 5, 99);
-- a cursor going back and forth over posting tuples
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT dev FROM d WHERE dev BETWEEN 20 AND 21 ORDER BY dev;
MOVE FORWARD 998 IN c;
FETCH FORWARD 2 FROM c;
FETCH BACKWARD 3 FROM c;
FETCH FORWARD 5 FROM c;
FETCH LAST FROM c;
FETCH FIRST FROM c;
COMMIT;
RESET enable_seqscan; RESET enable_bitmapscan;

-- 2. VACUUM removes some TIDs of posting tuples: they are rewritten smaller.
DELETE FROM d WHERE id % 2 = 0;
VACUUM d;
SELECT tids BETWEEN 49000 AND 50000 AS half_the_entries FROM postings('d_blink');
SELECT blink_check('d_blink', true);
SELECT same_answers('SELECT id FROM d WHERE dev = 42');

-- 3. New rows reuse the freed heap line pointers: their TIDs fall inside
-- the ranges of existing posting tuples, and full leaves deduplicate
-- before they split.
SELECT counter('dedup_passes') AS passes0 \gset
INSERT INTO d SELECT g, g % 100, 'm' || g FROM generate_series(100001, 160000) g;
SELECT counter('dedup_passes') > :passes0 AS deduplicated_on_insert;
SELECT blink_check('d_blink', true);
SELECT same_answers('SELECT id FROM d WHERE dev = 42');
SELECT same_answers('SELECT id FROM d WHERE dev < 30');
SELECT (SELECT count(*) FROM d WHERE dev = 42) =
	   (SELECT count(*) FROM d WHERE dev + 0 = 42) AS counts_agree;
SELECT tree_pages('d_blink') <= 1.1 * pg_relation_size('d_bt') / 8192 AS still_within_1_1;

-- 4. Dead marks: a posting tuple is marked dead only when every one of
-- its rows is.  Key 60 loses every row, key 61 all but one: the posting
-- tuple holding that one is never marked.  (Marks are hints: which dead
-- entries get them depends on the table's view of what is dead to all.)
DELETE FROM d WHERE dev = 60;
DELETE FROM d WHERE dev = 61 AND id <> 61;
SELECT ctid AS live61 FROM d WHERE id = 61 \gset
SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;
SELECT count(*) FROM d WHERE dev BETWEEN 60 AND 62;
SELECT count(*) FROM d WHERE dev BETWEEN 60 AND 62;
RESET enable_seqscan; RESET enable_bitmapscan; RESET enable_indexonlyscan;
SELECT bool_or(i.dead) FILTER (WHERE i.key = '(60)' AND i.htids IS NOT NULL) AS key60_postings_marked,
	   bool_or(i.dead) FILTER (WHERE i.ctid = :'live61' OR :'live61' = ANY (i.htids)) AS live61_marked,
	   bool_or(i.dead) FILTER (WHERE i.key = '(61)' AND i.htids IS NOT NULL) AS other61_marked
FROM generate_series(1, pg_relation_size('d_blink') / 8192 - 1) b,
	 LATERAL blink_page_items('d_blink', b) i
WHERE NOT i.is_highkey AND i.downlink IS NULL;
SELECT same_answers('SELECT id FROM d WHERE dev BETWEEN 59 AND 62');
SELECT blink_check('d_blink', true);

-- A new row's TID inside the range of a posting tuple marked dead: the
-- swap that puts it into the posting tuple drops the mark (the posting
-- tuple now holds a live row).  Rows of an aborted transaction are dead
-- to everyone at once: their entries, one statement's with one key, go in
-- as three posting tuples (the size limit), and a scan marks them.  VACUUM
-- without index cleanup frees their space but not their line pointers, so
-- new rows take new line pointers of the same heap pages, inside the
-- posting tuples' ranges (so they go in plain, not as posting tuples of
-- their own); the tail that fills merges, and the merge swaps their TIDs
-- in.  (Kept dead, the posting
-- tuple hid 65 of the new rows, and the deletion before the split that
-- followed removed their entries.)
CREATE TABLE h (id int, k int) WITH (autovacuum_enabled = off);
CREATE INDEX h_k ON h USING blink (k);
BEGIN;
SET LOCAL blinkam.defer_inserts = statement;	-- (in at the INSERT's end)
INSERT INTO h SELECT g, 7 FROM generate_series(1, 410) g;
ROLLBACK;
SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;
SELECT count(*) FROM h WHERE k = 7;
SELECT count(*) FILTER (WHERE i.dead AND i.htids IS NOT NULL) AS dead_postings
  FROM generate_series(1, pg_relation_size('h_k') / 8192 - 1) b, LATERAL blink_page_items('h_k', b) i
 WHERE NOT i.is_highkey AND i.downlink IS NULL;
VACUUM (INDEX_CLEANUP OFF) h;
INSERT INTO h SELECT g, 7 FROM generate_series(1001, 1300) g;
SELECT count(*) AS new_rows_indexed FROM h WHERE k = 7;
RESET enable_seqscan; RESET enable_bitmapscan; RESET enable_indexonlyscan;
SELECT same_answers('SELECT id FROM h WHERE k = 7');
SELECT blink_check('h_k', true);

-- 5. deduplicate_items: validated, and off stops new posting tuples.
CREATE INDEX d_bad ON d USING blink (dev) WITH (deduplicate_items = maybe);
CREATE TABLE e (id int, k int);
CREATE INDEX e_k ON e USING blink (k) WITH (deduplicate_items = off);
INSERT INTO e SELECT g, g % 10 FROM generate_series(1, 20000) g;
SELECT items AS postings_when_off FROM postings('e_k');
ALTER INDEX e_k SET (deduplicate_items = on);
INSERT INTO e SELECT g, g % 10 FROM generate_series(20001, 40000) g;
SELECT items > 0 AS postings_when_on FROM postings('e_k');
SELECT same_answers('SELECT id FROM e WHERE k = 3');
SELECT blink_check('e_k', true);

-- 6. Indexes that never deduplicate: unique ones, INCLUDE columns, and
-- types whose equal values may differ (numeric: 1.0 = 1.00).
CREATE TABLE f (id int, k int, n numeric);
CREATE INDEX f_n ON f USING blink (n);
CREATE INDEX f_inc ON f USING blink (k) INCLUDE (id);
CREATE UNIQUE INDEX f_u ON f USING blink (k, id);
INSERT INTO f SELECT g, g % 10, (g % 10)::numeric / (1 + g % 3) FROM generate_series(1, 20000) g;
INSERT INTO f SELECT g, 1, CASE WHEN g % 2 = 0 THEN 1.0 ELSE 1.00 END FROM generate_series(20001, 20100) g;
SELECT (SELECT items FROM postings('f_n')) AS numeric_postings,
	   (SELECT items FROM postings('f_inc')) AS include_postings,
	   (SELECT items FROM postings('f_u')) AS unique_postings;
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT n::text, count(*) FROM f WHERE n = 1 AND id > 20000 GROUP BY 1 ORDER BY 1;
RESET enable_seqscan; RESET enable_bitmapscan;
SELECT blink_check('f_n', true), blink_check('f_inc', true), blink_check('f_u', true);

-- 7. NULLs are equal for deduplication, as for btree.
CREATE TABLE g (id int, k int);
CREATE INDEX g_k ON g USING blink (k);
INSERT INTO g SELECT i, NULL FROM generate_series(1, 5000) i;
SELECT items > 0 AS null_postings FROM postings('g_k');
SELECT same_answers('SELECT id FROM g WHERE k IS NULL');
SELECT blink_check('g_k', true);

-- 8. A statement's entries with one key go in as one posting tuple
-- (_blink_dedup_run), unless an entry of the leaf with that key has a TID
-- inside their range; no deduplication pass is needed for them.
CREATE TABLE p (id int, k int) WITH (autovacuum_enabled = off);
CREATE INDEX p_k ON p USING blink (k);
SELECT counter('dedup_passes') AS passes0 \gset
INSERT INTO p SELECT g, g / 10 FROM generate_series(0, 99) g;
SELECT items AS run_postings, tids AS their_entries,
	   counter('dedup_passes') = :passes0 AS no_pass
FROM postings('p_k');
-- Rows 20 and 22 (key 2, TIDs (0,21) and (0,23)) go; two new key-2 rows
-- of one statement take those line pointers again: their range holds
-- (0,22), an entry of the posting tuple of key 2, so they stay plain.
DELETE FROM p WHERE id IN (20, 22);
VACUUM p;
INSERT INTO p VALUES (200, 2), (201, 2);
SELECT coalesce(i.htids::text, i.ctid::text) AS tids, i.htids IS NULL AS plain
FROM generate_series(1, pg_relation_size('p_k') / 8192 - 1) b,
	 LATERAL blink_page_items('p_k', b) i
WHERE i.key = '(2)' ORDER BY i.itemoffset;
SELECT blink_check('p_k', true);
SELECT same_answers('SELECT id FROM p WHERE k = 2');

-- A posting tuple in the unsorted tail, and a plain entry that lands
-- inside its range later: before the tail is merged, they swap TIDs, as
-- with a posting tuple of the sorted part.  Keys 1001-1010 fill the
-- sorted part; one statement adds key 7 at (0,11) and (0,13) -- one
-- posting tuple in the tail -- and key 8 at (0,12); row 12 goes, and a
-- new key-7 row takes (0,12), inside the posting tuple's range.  Then 260
-- one-row statements fill the tail until it merges.
CREATE TABLE q (id int, k int) WITH (autovacuum_enabled = off);
CREATE INDEX q_k ON q USING blink (k);
INSERT INTO q SELECT g, 1000 + g FROM generate_series(1, 10) g;
INSERT INTO q VALUES (11, 7), (12, 8), (13, 7);
DELETE FROM q WHERE id = 12;
VACUUM q;
INSERT INTO q VALUES (14, 7);
SELECT ctid, id FROM q WHERE k = 7 ORDER BY ctid;
SELECT coalesce(i.htids::text, i.ctid::text) AS tids, i.itemoffset > s.sorted_items AS in_tail
FROM blink_page_items('q_k', 1) i, blink_page_stats('q_k', 1) s
WHERE i.key = '(7)' ORDER BY i.itemoffset;
SELECT blink_check('q_k', true);
DO $$ BEGIN FOR i IN 1..260 LOOP INSERT INTO q VALUES (100 + i, 2000 + i); END LOOP; END $$;
SELECT coalesce(i.htids::text, i.ctid::text) AS tids, i.itemoffset > s.sorted_items AS in_tail
FROM blink_page_items('q_k', 1) i, blink_page_stats('q_k', 1) s
WHERE i.key = '(7)' ORDER BY i.itemoffset;
SELECT blink_check('q_k', true);
SELECT same_answers('SELECT id FROM q WHERE k = 7');
SELECT same_answers('SELECT id FROM q WHERE k BETWEEN 5 AND 1005');

DROP TABLE d, e, f, g, h, p, q;
DROP FUNCTION counter(text), postings(regclass), tree_pages(regclass), same_answers(text);
DROP EXTENSION blinkam;
