--
-- blinkheap insert pages from the page pools: once a table has run out of
-- room, the worker adds pages ahead of need and inserts take them
-- instead of extending the table themselves.  A table smaller than a new
-- pool's first refill (twice blinkam.pool_leaf_low pages) takes none: it
-- grows as heap does.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS blinkam;
RESET client_min_messages;

CREATE TABLE pb (id int, pad text) USING blinkheap;
CREATE TABLE ph (id int, pad text);
CREATE INDEX pb_id ON pb USING blink (id);

-- wait (up to 30 s) until the worker has put at least 4 pages in the pool
CREATE FUNCTION pool_pages(t regclass) RETURNS int LANGUAGE plpgsql AS $$
DECLARE n int;
BEGIN
	FOR i IN 1 .. 300 LOOP
		SELECT leaf_pages INTO n FROM blinkam_pools() WHERE index = t;
		IF coalesce(n, 0) >= 4 THEN
			RETURN n;
		END IF;
		PERFORM pg_sleep(0.1);
	END LOOP;
	RETURN 0;
END $$;

-- a small table has no pool: three pages of rows, and no pool page added
-- (a pool asked for by the first insert would have made it 19 pages)
CREATE TABLE ps (id int, pad text) USING blinkheap;
CREATE TABLE psh (id int, pad text);
INSERT INTO ps SELECT i, repeat('s', 200) FROM generate_series(1, 100) i;
INSERT INTO ps VALUES (101, 'one more row, in a statement of its own');
INSERT INTO psh SELECT i, repeat('s', 200) FROM generate_series(1, 100) i;
INSERT INTO psh VALUES (101, 'one more row, in a statement of its own');
SELECT count(*) AS small_table_pools FROM blinkam_pools() WHERE index = 'ps'::regclass;
SELECT pg_relation_size('ps') / 8192 < 2 * current_setting('blinkam.pool_leaf_low')::int
	AS smaller_than_a_refill;
SELECT (SELECT count(*) FROM (TABLE ps EXCEPT ALL TABLE psh) a) +
       (SELECT count(*) FROM (TABLE psh EXCEPT ALL TABLE ps) b) AS differences;
SELECT blinkheap_check('ps');
DROP TABLE ps, psh;

-- a new connection's first insert, with nothing in the free space map,
-- tries the table's last page before adding one, as heap's does: three
-- connections inserting a row each leave one page, not three
CREATE TABLE pl (id int) USING blinkheap;
CREATE TABLE plh (id int);
\c
INSERT INTO pl VALUES (1);
INSERT INTO plh VALUES (1);
\c
INSERT INTO pl VALUES (2);
INSERT INTO plh VALUES (2);
\c
INSERT INTO pl VALUES (3);
INSERT INTO plh VALUES (3);
SELECT pg_relation_size('pl') / 8192 AS pages, pg_relation_size('plh') / 8192 AS heap_pages;
SELECT (SELECT count(*) FROM (TABLE pl EXCEPT ALL TABLE plh) a) +
       (SELECT count(*) FROM (TABLE plh EXCEPT ALL TABLE pl) b) AS differences;
SELECT blinkheap_check('pl');
DROP TABLE pl, plh;

-- once the table has that many pages, its next extension creates the
-- pool and asks for a refill
INSERT INTO pb SELECT i, repeat('x', 200) FROM generate_series(1, 2000) i;
INSERT INTO ph SELECT * FROM pb;
SELECT pool_pages('pb') > 0 AS pool_filled;
-- the next page a take hands out is the lowest the pool holds, so pages
-- fill in the order of the file: of leaf_pages distinct blocks below the
-- file's end, the lowest is at most nblocks - leaf_pages (a pool that
-- handed out the block added last named the file's last block here)
SELECT next_leaf <= pg_relation_size('pb') / 8192 - leaf_pages AS lowest_first,
	   leaf_pages >= 2 AS several
  FROM blinkam_pools() WHERE index = 'pb'::regclass;
-- a table's pool holds data pages only
SELECT internal_pages, internal_low > 0 AS has_watermark FROM blinkam_pools() WHERE index = 'pb'::regclass;

SELECT value AS taken_before FROM blinkam_stats() WHERE name = 'pool_pages_taken' \gset
SELECT value AS misses_before FROM blinkam_stats() WHERE name = 'pool_misses' \gset
-- about 3 pages of rows: the pool has at least 4
INSERT INTO pb SELECT i, repeat('y', 200) FROM generate_series(2001, 2100) i;
INSERT INTO ph SELECT i, repeat('y', 200) FROM generate_series(2001, 2100) i;
-- the new rows went to pooled pages: the inserts never extended the table
SELECT value > :taken_before AS pages_taken FROM blinkam_stats() WHERE name = 'pool_pages_taken';
SELECT value = :misses_before AS no_miss FROM blinkam_stats() WHERE name = 'pool_misses';

-- answers are heap's; pooled zero pages are skipped by scans and by the check
SELECT (SELECT count(*) FROM (TABLE pb EXCEPT ALL TABLE ph) a) +
       (SELECT count(*) FROM (TABLE ph EXCEPT ALL TABLE pb) b) AS differences;
SET enable_seqscan = off;
SELECT count(*), sum(id) FROM pb WHERE id > 0;
RESET enable_seqscan;
SELECT count(*), sum(id) FROM ph;

-- VACUUM records the pool's zero pages in the free space map; no page is used twice
VACUUM pb;
INSERT INTO pb SELECT i, repeat('z', 200) FROM generate_series(3001, 3600) i;
INSERT INTO ph SELECT i, repeat('z', 200) FROM generate_series(3001, 3600) i;
SELECT (SELECT count(*) FROM (TABLE pb EXCEPT ALL TABLE ph) a) +
       (SELECT count(*) FROM (TABLE ph EXCEPT ALL TABLE pb) b) AS differences;

-- TRUNCATE gives the table a new file: inserts go on; the old file's pool
-- is dropped when the new one needs a pool
SELECT relfilenode AS old_node FROM pg_class WHERE relname = 'pb' \gset
TRUNCATE pb;
INSERT INTO pb SELECT i, repeat('t', 200) FROM generate_series(1, 2000) i;
SELECT count(*) FROM pb;
SELECT count(*) AS old_file_pools FROM blinkam_pools() WHERE relfilenode = :old_node;
SELECT relfilenode AS new_node FROM pg_class WHERE relname = 'pb' \gset

SELECT blinkheap_check('pb');
SELECT blink_check('pb_id', true);
SELECT count(*) AS pools_before_drop FROM blinkam_pools() WHERE relfilenode = :new_node;
DROP TABLE pb, ph;
-- DROP frees the pool
SELECT count(*) AS pools_after_drop FROM blinkam_pools() WHERE relfilenode = :new_node;

-- The planner's row estimate scales the rows per page ANALYZE saw by the
-- pages in use, not by the file's size: the pool's zero pages hold no
-- rows.  pe is analyzed before its pool exists, then grows past the size
-- where inserts ask for one; once the pool is filled the file has
-- nearly twice the pages in use, and heap's rule (the density times the
-- file's pages) estimated nearly twice the rows.  Analyzed again while
-- the pool is full (relpages then counts its pages), the estimate is not
-- halved either.
CREATE FUNCTION estimated_rows(query text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE plan json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan;
	RETURN (plan->0->'Plan'->>'Plan Rows')::float8;
END $$;
CREATE TABLE pe (id int, pad text) USING blinkheap WITH (autovacuum_enabled = off);
INSERT INTO pe SELECT i, repeat('e', 200) FROM generate_series(1, 400) i;
SELECT pg_relation_size('pe') / 8192 < 2 * current_setting('blinkam.pool_leaf_low')::int
	AS no_pool_yet;
ANALYZE pe;
INSERT INTO pe SELECT i, repeat('e', 200) FROM generate_series(401, 700) i;
SELECT pool_pages('pe') > 0 AS pool_filled;
SELECT estimated_rows('SELECT * FROM pe') BETWEEN 0.8 * 700 AND 1.2 * 700
	AS estimate_near_700;
ANALYZE pe;
SELECT leaf_pages > 0 AS pool_still_held FROM blinkam_pools() WHERE index = 'pe'::regclass;
SELECT estimated_rows('SELECT * FROM pe') BETWEEN 0.8 * 700 AND 1.2 * 700
	AS estimate_still_near_700;
SELECT blinkheap_check('pe');
DROP TABLE pe;
DROP FUNCTION estimated_rows(text);

-- A VACUUM that truncates the table drops its pool: the pool's pages past
-- the new end are gone (a slot kept looked full, so it was never refilled,
-- and every take skipped its stale blocks), those before it are in the
-- free space map.  Inserts afterwards start a new pool and run as usual.
CREATE TABLE pv (id int, pad text) USING blinkheap WITH (autovacuum_enabled = off);
INSERT INTO pv SELECT i, repeat('v', 200) FROM generate_series(1, 2000) i;
SELECT pool_pages('pv') > 0 AS pool_filled;
DELETE FROM pv WHERE id > 100;
VACUUM pv;
SELECT pg_relation_size('pv') / 8192 < 10 AS truncated;
SELECT count(*) AS pools_after_truncation FROM blinkam_pools() WHERE index = 'pv'::regclass;
INSERT INTO pv SELECT i, repeat('w', 200) FROM generate_series(101, 3000) i;
SELECT count(*), count(DISTINCT id) FROM pv;
SELECT pool_pages('pv') > 0 AS pool_filled_again;
SELECT blinkheap_check('pv');
DROP TABLE pv;
DROP FUNCTION pool_pages(regclass);
