--
-- Leaf hints (src/README, "Leaf hints") across changes of an index's
-- storage: an insert goes straight to a leaf its backend inserted into
-- before, so every way an index gets a new relfilenode in the middle of
-- a session -- TRUNCATE, REINDEX, VACUUM FULL, a TRUNCATE rolled back or
-- followed by inserts in the same transaction -- must drop the hints
-- with the relcache entry; and temporary indexes (local buffers) take
-- the same path.  Each part checks that hints were used, that duplicates
-- are still refused, and the index with blink_check.
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

DROP TABLE e, tt;
DROP FUNCTION hinted_round(regclass, regclass, int, int, int), fill(regclass, int, int);
DROP EXTENSION blinkam;
