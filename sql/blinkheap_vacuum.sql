--
-- VACUUM of blinkheap tables, side by side with heap: dead tuples
-- removed and their line pointers freed only after index cleanup,
-- freezing and relfrozenxid, truncation, the free space map, statistics.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS blinkam;
RESET client_min_messages;
SET enable_bitmapscan = off;
-- page counts below must not include pages a worker added ahead of need
SET blinkam.enable_pools = off;

CREATE FUNCTION vac_same_rows(a regclass, b regclass) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE d1 bigint; d2 bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM (TABLE %s EXCEPT ALL TABLE %s) x', a, b) INTO d1;
	EXECUTE format('SELECT count(*) FROM (TABLE %s EXCEPT ALL TABLE %s) x', b, a) INTO d2;
	RETURN d1 + d2;
END $$;

-- line pointers of every page (normal, dead, unused) and dead tuples
CREATE FUNCTION vac_lps(t regclass)
RETURNS TABLE (normal bigint, dead bigint, unused bigint, dead_tuples bigint)
LANGUAGE sql AS $$
	SELECT sum(s.normal), sum(s.dead), sum(s.unused), sum(s.dead_tuples)
	FROM generate_series(0, pg_relation_size(t) / current_setting('block_size')::int - 1) b,
	     blinkheap_page_stats(t, b) s
$$;

CREATE TABLE vb (id int, g int, pad text) USING blinkheap WITH (autovacuum_enabled = off);
CREATE TABLE vh (id int, g int, pad text) WITH (autovacuum_enabled = off);
CREATE INDEX vb_id ON vb (id);
CREATE INDEX vb_g ON vb USING blink (g);
CREATE INDEX vh_id ON vh (id);
CREATE FUNCTION vac_counter(n text) RETURNS bigint LANGUAGE sql
	AS $$ SELECT value FROM blinkam_stats() WHERE name = n $$;
SELECT vac_counter('blinkheap_inserts') AS ins0,
       vac_counter('blinkheap_insert_records') AS rec0 \gset
INSERT INTO vb SELECT i, i % 10, repeat('p', 50) FROM generate_series(1, 20000) i;
INSERT INTO vh SELECT * FROM vb;
-- an INSERT writes one record per row; COPY one per page it fills
SELECT vac_counter('blinkheap_inserts') - :ins0 AS inserted,
       vac_counter('blinkheap_insert_records') - :rec0 AS records;
CREATE TEMP TABLE vc (id int, g int, pad text) USING blinkheap;
SELECT vac_counter('blinkheap_inserts') AS ins1,
       vac_counter('blinkheap_insert_records') AS rec1 \gset
COPY vc FROM PROGRAM 'seq 1 5000 | sed "s/$/\t1\tc/"';
SELECT vac_counter('blinkheap_inserts') - :ins1 AS copied,
       (vac_counter('blinkheap_insert_records') - :rec1) * 20 < 5000 AS few_records;
DROP TABLE vc;

-- deleted rows stay as dead tuples until VACUUM
DELETE FROM vb WHERE id % 4 = 0;
DELETE FROM vh WHERE id % 4 = 0;
UPDATE vb SET pad = repeat('q', 50) WHERE id % 10 = 1;
UPDATE vh SET pad = repeat('q', 50) WHERE id % 10 = 1;
-- the deletes' counts reach the statistics before VACUUM reports
SELECT pg_stat_force_next_flush();
SELECT dead_tuples, dead, normal FROM vac_lps('vb');
-- no hint bits yet: every reader asks the commit log
SELECT count(*) FILTER (WHERE infomask LIKE '%XMIN_COMMITTED%') AS hinted
  FROM blinkheap_page_items('vb', 1) WHERE lp_flags = 'normal';
SELECT vac_counter('blinkheap_vacuum_removed') AS rm0 \gset
VACUUM vb;
SELECT vac_counter('blinkheap_vacuum_removed') - :rm0 >= 7000 AS counted_removed;
-- VACUUM's record for the page set them
SELECT count(*) FILTER (WHERE infomask NOT LIKE '%XMIN_COMMITTED%') AS unhinted,
       count(*) > 0 AS some_rows
  FROM blinkheap_page_items('vb', 1) WHERE lp_flags = 'normal';
VACUUM vh;
-- dead tuples are gone; their line pointers were freed after index cleanup
SELECT normal, dead, unused > 0 AS some_unused, dead_tuples FROM vac_lps('vb');
SELECT vac_same_rows('vb', 'vh');
SELECT n_dead_tup, n_live_tup FROM pg_stat_user_tables WHERE relname = 'vb';
SELECT reltuples FROM pg_class WHERE relname = 'vb';
-- the indexes forgot the removed rows: index answers match the table
SET enable_seqscan = off;
SELECT count(*), sum(id) FROM vb WHERE id > 0;
SELECT count(*) FROM vb WHERE g = 4;
RESET enable_seqscan;
SELECT count(*), sum(id) FROM vh;
SELECT blink_check('vb_g', true);

-- freed line pointers and space are reused by inserts (the table does
-- not grow); the indexes stay exact
SELECT pg_relation_size('vb') AS size_before \gset
INSERT INTO vb SELECT i, i % 10, 'new' FROM generate_series(30001, 33000) i;
INSERT INTO vh SELECT i, i % 10, 'new' FROM generate_series(30001, 33000) i;
SELECT pg_relation_size('vb') = :size_before AS did_not_grow;
SELECT vac_same_rows('vb', 'vh');
SET enable_seqscan = off;
SELECT count(*) FROM vb WHERE id > 30000;
SELECT count(*) FROM vb WHERE g = 4;
RESET enable_seqscan;
SELECT blink_check('vb_g', true);

-- a VACUUM without index cleanup leaves LP_DEAD line pointers; the next
-- VACUUM frees them
DELETE FROM vb WHERE id BETWEEN 30001 AND 31000;
DELETE FROM vh WHERE id BETWEEN 30001 AND 31000;
VACUUM (INDEX_CLEANUP off) vb;
SELECT dead AS dead_left FROM vac_lps('vb');
SET enable_seqscan = off;
SELECT count(*) FROM vb WHERE id BETWEEN 30001 AND 31000;
RESET enable_seqscan;
VACUUM vb;
SELECT dead AS dead_after FROM vac_lps('vb');
SELECT vac_same_rows('vb', 'vh');
SELECT blink_check('vb_g', true);

-- freezing: VACUUM FREEZE freezes every row and advances relfrozenxid
SELECT relfrozenxid AS fx_before FROM pg_class WHERE relname = 'vb' \gset
SELECT count(*) FILTER (WHERE infomask LIKE '%XMIN_COMMITTED|XMIN_INVALID%') AS frozen_before
  FROM blinkheap_page_items('vb', 0) WHERE lp_flags = 'normal';
VACUUM FREEZE vb;
SELECT age(relfrozenxid) < age(:'fx_before'::xid) AS advanced
  FROM pg_class WHERE relname = 'vb';
SELECT count(*) FILTER (WHERE infomask NOT LIKE '%XMIN_COMMITTED|XMIN_INVALID%') AS unfrozen,
       count(*) > 0 AS some_rows
  FROM blinkheap_page_items('vb', 0) WHERE lp_flags = 'normal';
SELECT count(*) FROM vb;
SELECT vac_same_rows('vb', 'vh');

-- rows locked by several transactions (a MultiXact) are frozen too
CREATE TABLE vm (id int PRIMARY KEY, v int) USING blinkheap WITH (autovacuum_enabled = off);
INSERT INTO vm SELECT i, i FROM generate_series(1, 100) i;
BEGIN;
SELECT count(*) FROM (SELECT * FROM vm FOR SHARE) s;
SAVEPOINT a;
SELECT count(*) FROM (SELECT * FROM vm FOR UPDATE) s;
COMMIT;
VACUUM FREEZE vm;
SELECT count(*) FILTER (WHERE t_xmax <> '0') AS with_xmax
  FROM blinkheap_page_items('vm', 0) WHERE lp_flags = 'normal';
UPDATE vm SET v = v + 1;
SELECT sum(v) FROM vm;
SELECT blinkheap_check('vm');

-- a table with no index: dead line pointers are freed in one pass
CREATE TABLE vn (id int, pad text) USING blinkheap WITH (autovacuum_enabled = off);
INSERT INTO vn SELECT i, repeat('x', 100) FROM generate_series(1, 5000) i;
DELETE FROM vn WHERE id % 2 = 0;
VACUUM vn;
SELECT normal, dead FROM vac_lps('vn');
SELECT count(*), sum(id) FROM vn;

-- empty pages at the end are truncated
DELETE FROM vn WHERE id > 100;
VACUUM vn;
SELECT pg_relation_size('vn') / current_setting('block_size')::int AS pages;
SELECT count(*), sum(id) FROM vn;
DELETE FROM vn;
VACUUM vn;
SELECT pg_relation_size('vn') AS size_after_all_deleted;
-- and the free space map hands freed space to new rows
INSERT INTO vn SELECT i, repeat('y', 100) FROM generate_series(1, 50) i;
SELECT pg_relation_size('vn') / current_setting('block_size')::int AS pages;
SELECT count(*) FROM vn;

-- the rows of an aborted insert are removed
BEGIN;
INSERT INTO vb SELECT i, 0, 'aborted' FROM generate_series(40001, 42000) i;
ROLLBACK;
VACUUM vb;
SELECT count(*) FROM vb WHERE pad = 'aborted';
SELECT vac_same_rows('vb', 'vh');

-- with index cleanup off (here the table's reloption) there is no pass 2,
-- so pass 1 records in the free space map the room of the rows it
-- removed at once: rounds of deleting half the rows, VACUUM and inserting
-- as many again keep the table at its size, as heap's (without it, each
-- round added the new rows' pages: 87 -> 130 -> 151 -> 194 pages, heap's
-- 87 -> 88 -> 88 -> 90)
CREATE TABLE vi (id int, pad text) USING blinkheap
	WITH (vacuum_index_cleanup = off, autovacuum_enabled = off);
CREATE TABLE vih (id int, pad text)
	WITH (vacuum_index_cleanup = off, autovacuum_enabled = off);
CREATE INDEX vi_id ON vi USING blink (id);
CREATE INDEX vi_id_bt ON vi (id);
CREATE INDEX vih_id ON vih (id);
INSERT INTO vi SELECT i, repeat('x', 100) FROM generate_series(1, 5000) i;
INSERT INTO vih SELECT * FROM vi;
SELECT pg_relation_size('vi') AS vi_size0, pg_relation_size('vih') AS vih_size0 \gset
DELETE FROM vi WHERE id % 2 = 0;
DELETE FROM vih WHERE id % 2 = 0;
VACUUM vi;
VACUUM vih;
-- the removed rows' line pointers stay LP_DEAD for a later VACUUM
SELECT dead AS dead_left, dead_tuples FROM vac_lps('vi');
INSERT INTO vi SELECT i, repeat('x', 100) FROM generate_series(2, 5000, 2) i;
INSERT INTO vih SELECT i, repeat('x', 100) FROM generate_series(2, 5000, 2) i;
DELETE FROM vi WHERE id % 4 = 0;
DELETE FROM vih WHERE id % 4 = 0;
VACUUM vi;
VACUUM vih;
INSERT INTO vi SELECT i, repeat('x', 100) FROM generate_series(4, 5000, 4) i;
INSERT INTO vih SELECT i, repeat('x', 100) FROM generate_series(4, 5000, 4) i;
DELETE FROM vi WHERE id % 2 = 1;
DELETE FROM vih WHERE id % 2 = 1;
VACUUM (INDEX_CLEANUP off) vi;
VACUUM (INDEX_CLEANUP off) vih;
INSERT INTO vi SELECT i, repeat('x', 100) FROM generate_series(1, 5000, 2) i;
INSERT INTO vih SELECT i, repeat('x', 100) FROM generate_series(1, 5000, 2) i;
SELECT pg_relation_size('vi') <= :vi_size0 * 1.1 AS vi_kept_size,
       pg_relation_size('vih') <= :vih_size0 * 1.1 AS vih_kept_size,
       pg_relation_size('vi') <= pg_relation_size('vih') * 1.2 AS as_heap;
SELECT count(*), sum(id) FROM vi;
SELECT vac_same_rows('vi', 'vih');
SET enable_seqscan = off;
SELECT count(*), sum(id) FROM vi WHERE id > 0;
RESET enable_seqscan;
SELECT blink_check('vi_id', true);

-- with an index as well, one VACUUM truncates, as heap's does: the pages
-- whose rows were all deleted hold only line pointers that this VACUUM's
-- pass 2 frees (they counted as in use, and only a second VACUUM
-- truncated: 345 pages instead of 18 in the first report)
SET blinkam.enable_pools = off;
CREATE TABLE vt (id int, pad text) USING blinkheap WITH (autovacuum_enabled = off);
CREATE TABLE vth (id int, pad text) WITH (autovacuum_enabled = off);
CREATE INDEX vt_id ON vt USING blink (id);
CREATE INDEX vth_id ON vth (id);
INSERT INTO vt SELECT g, repeat('x', 100) FROM generate_series(1, 20000) g;
INSERT INTO vth SELECT * FROM vt;
DELETE FROM vt WHERE id > 1000;
DELETE FROM vth WHERE id > 1000;
-- (no dirty page left for the background writer, whose pin on a page
-- would make VACUUM leave it as it is, and stop the truncation there)
CHECKPOINT;
VACUUM vt;
VACUUM vth;
SELECT pg_relation_size('vt') AS vt_once, pg_relation_size('vth') AS vth_once \gset
SELECT :vt_once <= :vth_once * 1.2 AS truncated_as_heap;
VACUUM vt;
SELECT pg_relation_size('vt') = :vt_once AS nothing_left_for_a_second_vacuum;
SELECT count(*), sum(id) FROM vt;
SELECT blinkheap_check('vt');
SELECT blink_check('vt_id', true);
DROP TABLE vt, vth;
RESET blinkam.enable_pools;

-- LP_DEAD line pointers left by a VACUUM without index cleanup, once the
-- table's last index is gone: nothing can point at them any more, so
-- VACUUM frees them in pass 1, as heap does for a table without index;
-- the emptied pages at the end are truncated and the freed slots reused
CREATE TABLE vx (id int, pad text) USING blinkheap WITH (autovacuum_enabled = off);
CREATE TABLE vxh (id int, pad text) WITH (autovacuum_enabled = off);
CREATE INDEX vx_id ON vx USING blink (id);
CREATE INDEX vxh_id ON vxh (id);
INSERT INTO vx SELECT i, repeat('x', 100) FROM generate_series(1, 2000) i;
INSERT INTO vxh SELECT * FROM vx;
DELETE FROM vx WHERE id % 2 = 0 OR id > 1000;
DELETE FROM vxh WHERE id % 2 = 0 OR id > 1000;
CHECKPOINT;		-- (as for vt)
VACUUM (INDEX_CLEANUP off) vx;
VACUUM (INDEX_CLEANUP off) vxh;
SELECT normal, dead FROM vac_lps('vx');
SELECT blink_check('vx_id', true);
DROP INDEX vx_id;
DROP INDEX vxh_id;
CHECKPOINT;
VACUUM vx;
VACUUM vxh;
SELECT normal, dead, unused > 0 AS some_unused FROM vac_lps('vx');
SELECT pg_relation_size('vx') <= pg_relation_size('vxh') * 1.2 AS truncated_as_heap,
       pg_relation_size('vx') < 20 * current_setting('block_size')::int AS truncated;
SELECT pg_relation_size('vx') AS vx_size \gset
INSERT INTO vx SELECT i, repeat('y', 100) FROM generate_series(2, 1000, 2) i;
INSERT INTO vxh SELECT i, repeat('y', 100) FROM generate_series(2, 1000, 2) i;
SELECT pg_relation_size('vx') = :vx_size AS did_not_grow;
SELECT normal, dead FROM vac_lps('vx');
SELECT vac_same_rows('vx', 'vxh');
DELETE FROM vx;
DELETE FROM vxh;
VACUUM vx;
VACUUM vxh;
SELECT pg_relation_size('vx') AS vx_size_empty, pg_relation_size('vxh') AS vxh_size_empty;

-- VACUUM VERBOSE and ANALYZE-with-VACUUM run
VACUUM (VERBOSE off, ANALYZE) vb;

-- Index entries of rows a VACUUM without index cleanup removed, leaving
-- their line pointers dead: an index scan that meets them marks them,
-- and the leaf, once full, removes them instead of splitting (as btree
-- does beside heap).
CREATE TABLE vd (k int) USING blinkheap WITH (autovacuum_enabled = off);
CREATE INDEX vd_k ON vd USING blink (k);
INSERT INTO vd SELECT generate_series(1, 400);
DELETE FROM vd WHERE k <= 300;
VACUUM (INDEX_CLEANUP off) vd;
SELECT vac_counter('entries_marked_dead') AS marked0,
       vac_counter('entries_deleted') AS deleted0 \gset
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM vd WHERE k <= 300;
SELECT vac_counter('entries_marked_dead') - :marked0 AS marked;
INSERT INTO vd SELECT generate_series(401, 700);
SELECT vac_counter('entries_deleted') - :deleted0 >= 300 AS dead_entries_removed,
       (SELECT leaf_pages FROM blink_tree_stats('vd_k')) AS leaf_pages;
SELECT count(*), sum(k) FROM vd WHERE k > 0;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT blink_check('vd_k', true), blinkheap_check('vd');
DROP TABLE vd;

-- A page whose line pointer array is full (291 rows of no columns) and
-- whose VACUUM freed half of them takes new rows again, as heap's does:
-- VACUUM must not record it as full in the free space map.
CREATE TABLE vl (a int) USING blinkheap WITH (autovacuum_enabled = off);
CREATE TABLE vlh (a int) WITH (autovacuum_enabled = off);
ALTER TABLE vl DROP COLUMN a;
ALTER TABLE vlh DROP COLUMN a;
INSERT INTO vl SELECT FROM generate_series(1, 1000);
INSERT INTO vlh SELECT FROM generate_series(1, 1000);
DELETE FROM vl WHERE (ctid::text::point)[0] = 0 AND (ctid::text::point)[1]::int % 2 = 0;
DELETE FROM vlh WHERE (ctid::text::point)[0] = 0 AND (ctid::text::point)[1]::int % 2 = 0;
VACUUM vl;
VACUUM vlh;
INSERT INTO vl SELECT FROM generate_series(1, 100);
INSERT INTO vlh SELECT FROM generate_series(1, 100);
SELECT (SELECT count(*) FROM vl WHERE (ctid::text::point)[0] = 0) AS vl_page0_rows,
       (SELECT count(*) FROM vlh WHERE (ctid::text::point)[0] = 0) AS vlh_page0_rows,
       (SELECT count(*) FROM vl) AS vl_rows, (SELECT count(*) FROM vlh) AS vlh_rows;
SELECT blinkheap_check('vl');
DROP TABLE vl, vlh;

SELECT blinkheap_check('vb'), blinkheap_check('vn'), blinkheap_check('vm'),
       blinkheap_check('vi'), blinkheap_check('vx');
SELECT blink_check('vb_g', true);
DROP TABLE vb, vh, vm, vn, vi, vih, vx, vxh;
DROP FUNCTION vac_same_rows(regclass, regclass);
DROP FUNCTION vac_lps(regclass);
DROP FUNCTION vac_counter(text);
