--
-- Leaf hints (src/README, "Leaf hints") across changes of an index's
-- storage: an insert goes straight to a leaf its backend inserted into
-- before, so every way an index gets a new relfilenode in the middle of
-- a session -- TRUNCATE, REINDEX, VACUUM FULL, a TRUNCATE rolled back or
-- followed by inserts in the same transaction -- must drop the hints
-- with the relcache entry; and temporary indexes (local buffers) take
-- the same path.  Each part checks that hints were used, that duplicates
-- are still refused, and the index with blink_check.  The same for the
-- flushes of statement buffers into a non-unique index.
--
CREATE EXTENSION blinkam;

CREATE FUNCTION fill(tbl regclass, lo int, hi int) RETURNS void LANGUAGE plpgsql AS
$$ BEGIN FOR i IN lo..hi LOOP EXECUTE format('INSERT INTO %s VALUES ($1)', tbl) USING i; END LOOP; END $$;
-- insert lo..hi one by one after a reset of the counters: did they go by
-- leaf hints, is the key dup (if given) refused, and does the index check?
CREATE FUNCTION hinted_round(tbl regclass, idx regclass, lo int, hi int, dup int,
                             OUT hinted boolean, OUT duplicate_refused boolean,
                             OUT checked text)
LANGUAGE plpgsql AS $fn$
BEGIN
    PERFORM blinkam_reset_stats();
    PERFORM fill(tbl, lo, hi);
    SELECT value > 0 INTO hinted FROM blinkam_stats() WHERE name = 'leaf_hints';
    IF dup IS NOT NULL THEN
        duplicate_refused := false;
        BEGIN
            EXECUTE format('INSERT INTO %s VALUES ($1)', tbl) USING dup;
        EXCEPTION WHEN unique_violation THEN
            duplicate_refused := true;
        END;
    END IF;
    PERFORM blink_check(idx, true);
    checked := 'blink_check passed';
END
$fn$;

-- a temporary table: local buffers
CREATE TEMP TABLE tt (k int);
CREATE UNIQUE INDEX tt_k ON tt USING blink (k);
SELECT * FROM hinted_round('tt', 'tt_k', 1, 5000, 4000);
SELECT count(*) FROM tt;

CREATE TABLE e (k int);
CREATE UNIQUE INDEX e_k ON e USING blink (k);
SELECT fill('e', 1, 3000);

-- TRUNCATE: the hints pointed into the old file
TRUNCATE e;
SELECT * FROM hinted_round('e', 'e_k', 1, 20, 7);
SELECT count(*) FROM e;

-- REINDEX
SELECT fill('e', 3000, 6000);
REINDEX INDEX e_k;
SELECT * FROM hinted_round('e', 'e_k', 6001, 6100, 6050);
SELECT count(*) FROM e;

-- a TRUNCATE rolled back: the hints of the discarded file go with it
BEGIN;
TRUNCATE e;
SELECT fill('e', 1, 3000);
ROLLBACK;
SELECT * FROM hinted_round('e', 'e_k', 6101, 6200, 6150);
SELECT count(*) FROM e;

-- inserts, TRUNCATE and inserts in one transaction
BEGIN;
SELECT fill('e', 7000, 7500);
TRUNCATE e;
SELECT fill('e', 7000, 7100);
COMMIT;
SELECT blink_check('e_k', true);
SELECT count(*), min(k), max(k) FROM e;

-- VACUUM FULL rewrites the index
SELECT fill('e', 8000, 9000);
DELETE FROM e WHERE k % 2 = 0;
VACUUM FULL e;
SELECT * FROM hinted_round('e', 'e_k', 9001, 9500, 9001);
SELECT count(*), count(DISTINCT k) FROM e;

-- Statement buffers' flushes (defer.c) find their leaves by hints too:
-- a non-unique index, ten-row statements (each flushed at its end as one
-- sorted run: blinkam.defer_inserts = statement), then the same storage
-- changes.  Rows hold a tag of their round; the index must return what a
-- sequential scan returns, tag by tag, and blink_check must pass.
CREATE TABLE f (k int, tag int);
CREATE INDEX f_k ON f USING blink (k);
CREATE FUNCTION flushed_round(tag int, lo int, hi int,
                              OUT hinted boolean, OUT agrees boolean, OUT checked text)
LANGUAGE plpgsql AS $fn$
DECLARE
    by_index bigint;
    by_scan bigint;
BEGIN
    PERFORM blinkam_reset_stats();
    PERFORM set_config('blinkam.defer_inserts', 'statement', true);
    FOR s IN lo..hi BY 10 LOOP
        INSERT INTO f SELECT g, tag FROM generate_series(s, s + 9) g;
    END LOOP;
    SELECT value > 0 INTO hinted FROM blinkam_stats() WHERE name = 'leaf_hints';
    SET LOCAL enable_seqscan = off;
    SET LOCAL enable_bitmapscan = off;
    SELECT sum(hashint4(k + 7 * f.tag)) INTO by_index FROM f WHERE k >= 0;
    RESET enable_seqscan;
    RESET enable_bitmapscan;
    SET LOCAL enable_indexscan = off;
    SET LOCAL enable_bitmapscan = off;
    SELECT sum(hashint4(k + 7 * f.tag)) INTO by_scan FROM f WHERE k >= 0;
    RESET enable_indexscan;
    RESET enable_bitmapscan;
    agrees := by_index IS NOT DISTINCT FROM by_scan;
    PERFORM blink_check('f_k', true);
    checked := 'blink_check passed';
END
$fn$;
SELECT * FROM flushed_round(1, 1, 5000);
TRUNCATE f;
SELECT * FROM flushed_round(2, 1, 2000);
REINDEX INDEX f_k;
SELECT * FROM flushed_round(3, 2001, 4000);
BEGIN;
TRUNCATE f;
SELECT * FROM flushed_round(4, 1, 3000);
ROLLBACK;
SELECT * FROM flushed_round(5, 4001, 6000);
BEGIN;
SELECT * FROM flushed_round(6, 7000, 8000);
TRUNCATE f;
SELECT * FROM flushed_round(7, 7000, 7500);
COMMIT;
DELETE FROM f WHERE k % 2 = 0;
VACUUM FULL f;
SELECT * FROM flushed_round(8, 1, 3000);
SELECT tag, count(*), min(k), max(k) FROM f GROUP BY tag ORDER BY tag;

-- Posting tuples: a statement's ten entries with one key go in as one
-- posting tuple (deduplication), so a leaf's first item is one too, of 76
-- bytes, more than a hint keeps; the hint keeps its first entry instead,
-- and the flushes go by hints.  Without that every flush descended.  One
-- session, so a flush descends only when its leaf has split since the
-- last one (or another process holds the leaf at that instant).  Each
-- statement is a transaction of its own, whose commit flushes its entries
-- (blinkam.defer_inserts = transaction, the default).
CREATE TABLE g (k int, v int);
CREATE INDEX g_k ON g USING blink (k);
CREATE PROCEDURE fill_g() LANGUAGE plpgsql AS $$
BEGIN
    FOR s IN 1..400 LOOP
        INSERT INTO g SELECT s, x FROM generate_series(1, 10) x;
        COMMIT;
    END LOOP;
END $$;
SELECT blinkam_reset_stats();
CALL fill_g();
SELECT f.value >= 400 AS flushed_each, d.value < f.value / 4 AS most_went_by_hints,
       h.value >= f.value * 3 / 4 AS hints_used
  FROM blinkam_stats() d, blinkam_stats() f, blinkam_stats() h
 WHERE d.name = 'descents' AND f.name = 'deferred_leaf_writes' AND h.name = 'leaf_hints';
SELECT count(*) FILTER (WHERE array_length(i.htids, 1) = 10) > 300 AS postings_of_ten
  FROM blink_tree_stats('g_k') t, generate_series(1, t.pages - 1) b,
       blink_page_items('g_k', b) i
 WHERE i.downlink IS NULL AND NOT i.is_highkey;
SET enable_seqscan = off;
SELECT count(*), count(DISTINCT k), sum(v) FROM g WHERE k > 0;
RESET enable_seqscan;
SELECT count(*), count(DISTINCT k), sum(v) FROM g;
SELECT blink_check('g_k', true);

DROP TABLE e, tt, f, g;
DROP FUNCTION hinted_round(regclass, regclass, int, int, int), fill(regclass, int, int),
    flushed_round(int, int, int);
DROP PROCEDURE fill_g();
DROP EXTENSION blinkam;
