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

CREATE FUNCTION hints_used() RETURNS boolean LANGUAGE sql AS
$$ SELECT value > 0 FROM blinkam_stats() WHERE name = 'leaf_hints' $$;
CREATE FUNCTION fill(tbl regclass, lo int, hi int) RETURNS void LANGUAGE plpgsql AS
$$ BEGIN FOR i IN lo..hi LOOP EXECUTE format('INSERT INTO %s VALUES ($1)', tbl) USING i; END LOOP; END $$;

-- a temporary table: local buffers
CREATE TEMP TABLE tt (k int);
CREATE UNIQUE INDEX tt_k ON tt USING blink (k);
SELECT blinkam_reset_stats();
SELECT fill('tt', 1, 5000);
SELECT hints_used();
INSERT INTO tt VALUES (4000);
SELECT blink_check('tt_k', true);
SELECT count(*) FROM tt;

CREATE TABLE e (k int);
CREATE UNIQUE INDEX e_k ON e USING blink (k);
SELECT fill('e', 1, 3000);

-- TRUNCATE: the hints pointed into the old file
TRUNCATE e;
SELECT blinkam_reset_stats();
SELECT fill('e', 1, 20);
SELECT hints_used();
SELECT blink_check('e_k', true);
SELECT count(*) FROM e;

-- REINDEX
SELECT fill('e', 3000, 6000);
REINDEX INDEX e_k;
SELECT blinkam_reset_stats();
SELECT fill('e', 6001, 6100);
SELECT hints_used();
INSERT INTO e VALUES (6050);
SELECT blink_check('e_k', true);
SELECT count(*) FROM e;

-- a TRUNCATE rolled back: the hints of the discarded file go with it
BEGIN;
TRUNCATE e;
SELECT fill('e', 1, 3000);
ROLLBACK;
SELECT blinkam_reset_stats();
SELECT fill('e', 6101, 6200);
SELECT hints_used();
INSERT INTO e VALUES (6150);
SELECT blink_check('e_k', true);
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
SELECT blinkam_reset_stats();
SELECT fill('e', 9001, 9500);
SELECT hints_used();
INSERT INTO e VALUES (9001);
SELECT blink_check('e_k', true);
SELECT count(*), count(DISTINCT k) FROM e;

DROP TABLE e, tt;
DROP FUNCTION hints_used(), fill(regclass, int, int);
DROP EXTENSION blinkam;
