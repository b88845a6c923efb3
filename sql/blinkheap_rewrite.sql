--
-- blinkheap_rewrite: whole-table rewrites (CLUSTER, VACUUM FULL, ALTER
-- TABLE rewrites, SET TABLESPACE), TABLESAMPLE and bitmap heap scans,
-- side by side with heap.
--
-- Every change is made to a blinkheap table and to a heap table holding
-- the same rows; same_rows() compares them both ways with EXCEPT ALL.
-- The suite runs with wal_consistency_checking = 'generic'.  Its objects
-- live in their own schema, apart from the other blinkheap suites'.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS blinkam;
RESET client_min_messages;
-- page layouts below must not depend on pages a worker adds ahead of need
SET blinkam.enable_pools = off;
CREATE SCHEMA bh_rewrite;
SET search_path = bh_rewrite, public;

CREATE FUNCTION same_rows(a regclass, b regclass) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	n1 bigint; n2 bigint; d1 bigint; d2 bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM %s', a) INTO n1;
	EXECUTE format('SELECT count(*) FROM %s', b) INTO n2;
	EXECUTE format('SELECT count(*) FROM (TABLE %s EXCEPT ALL TABLE %s) x', a, b) INTO d1;
	EXECUTE format('SELECT count(*) FROM (TABLE %s EXCEPT ALL TABLE %s) x', b, a) INTO d2;
	RETURN format('%s / %s rows, %s / %s differ', n1, n2, d1, d2);
END $$;

-- true if the table's rows, read in ctid order, are sorted by column col
CREATE FUNCTION in_order(t regclass, col text) RETURNS bool
LANGUAGE plpgsql AS $$
DECLARE ok bool;
BEGIN
	EXECUTE format('SELECT coalesce(bool_and(prev IS NULL OR prev <= cur), true) FROM
					(SELECT %I AS cur, lag(%I) OVER (ORDER BY ctid) AS prev FROM %s) x',
				   col, col, t) INTO ok;
	RETURN ok;
END $$;

-- EXPLAIN ANALYZE with the numbers of rows and blocks replaced by N
CREATE FUNCTION explain_filter(q text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
	FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q
	LOOP
		RETURN NEXT regexp_replace(ln, '=\d+', '=N', 'g');
	END LOOP;
END $$;

-- chunks in a table's TOAST table
CREATE FUNCTION toast_chunks(t regclass) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM %s',
				   (SELECT reltoastrelid::regclass FROM pg_class WHERE oid = t)) INTO n;
	RETURN n;
END $$;

CREATE TABLE rb (id int, k int, t text, big text)
	USING blinkheap WITH (autovacuum_enabled = off);
CREATE TABLE rh (id int, k int, t text, big text)
	WITH (autovacuum_enabled = off);
-- k runs against the insertion order, so CLUSTER on k reorders every row
INSERT INTO rb SELECT g, (g * 7919) % 3001, 'row ' || g, NULL
	FROM generate_series(1, 3000) g;
INSERT INTO rh SELECT * FROM rb;
-- a few rows with values that live in the TOAST table
UPDATE rb SET big = (SELECT string_agg(md5(i::text || id), '') FROM generate_series(1, 300) i)
	WHERE id % 500 = 0;
UPDATE rh SET big = (SELECT string_agg(md5(i::text || id), '') FROM generate_series(1, 300) i)
	WHERE id % 500 = 0;
CREATE INDEX rb_k ON rb (k);
CREATE INDEX rh_k ON rh (k);
CREATE INDEX rb_id ON rb USING blink (id);
CREATE INDEX rh_id ON rh (id);
SELECT same_rows('rb', 'rh');
SELECT toast_chunks('rb') > 0 AS toasted, in_order('rb', 'k') AS k_ordered;

-- CLUSTER through an index scan (sorting disabled)
SET enable_sort = off;
CLUSTER rb USING rb_k;
RESET enable_sort;
CLUSTER rh USING rh_k;
SELECT same_rows('rb', 'rh');
SELECT in_order('rb', 'k') AS k_ordered, toast_chunks('rb') > 0 AS toasted;
SELECT indisclustered FROM pg_index WHERE indexrelid = 'rb_k'::regclass;
-- the indexes were rebuilt and find every row
SET enable_seqscan = off; SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM rb WHERE k BETWEEN 100 AND 200;
SELECT count(*), sum(id) FROM rb WHERE k BETWEEN 100 AND 200;
SELECT count(*), sum(id) FROM rh WHERE k BETWEEN 100 AND 200;
SELECT id, length(big) FROM rb WHERE id IN (500, 3000) ORDER BY id;
RESET enable_seqscan; RESET enable_bitmapscan;

-- CLUSTER by a sequential scan and a sort (index scans disabled), on id
CREATE INDEX rb_id_bt ON rb (id);
SET enable_indexscan = off;
CLUSTER rb USING rb_id_bt;
RESET enable_indexscan;
SELECT same_rows('rb', 'rh');
SELECT in_order('rb', 'id') AS id_ordered;
-- and again on k through the remembered clustered index
CLUSTER rb USING rb_k;
SELECT in_order('rb', 'k') AS k_ordered;

-- VACUUM FULL after deletes and updates: the table shrinks, the indexes
-- are rebuilt, TOAST values survive; recently dead versions stay for an
-- older snapshot
DELETE FROM rb WHERE id % 3 = 0;
DELETE FROM rh WHERE id % 3 = 0;
UPDATE rb SET t = t || ' updated' WHERE id % 5 = 0;
UPDATE rh SET t = t || ' updated' WHERE id % 5 = 0;
SELECT pg_relation_size('rb') AS size_before \gset
VACUUM FULL rb;
VACUUM FULL rh;
SELECT pg_relation_size('rb') < :size_before AS shrank;
SELECT same_rows('rb', 'rh');
SELECT count(*) AS toasted_rows, sum(length(big)) FROM rb WHERE big IS NOT NULL;
SELECT count(*) AS toasted_rows, sum(length(big)) FROM rh WHERE big IS NOT NULL;
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*), sum(k) FROM rb WHERE id BETWEEN 1000 AND 2000;
SELECT count(*), sum(k) FROM rh WHERE id BETWEEN 1000 AND 2000;
SELECT count(*), sum(id) FROM rb WHERE k < 500;
SELECT count(*), sum(id) FROM rh WHERE k < 500;
RESET enable_seqscan; RESET enable_bitmapscan;
-- frozen: relfrozenxid advanced, every kept tuple frozen (xmin shows as
-- frozen through the infomask) and updates work on the copy
SELECT age(relfrozenxid) < 10 AS frozen_recently FROM pg_class WHERE relname = 'rb';
UPDATE rb SET k = k + 1 WHERE id = 1;
UPDATE rh SET k = k + 1 WHERE id = 1;
SELECT same_rows('rb', 'rh');

-- a transaction that updates, then CLUSTERs in the same transaction:
-- its own versions (deleted and inserted) are kept and stay correct
BEGIN;
UPDATE rb SET t = 'in xact' WHERE id < 10;
UPDATE rh SET t = 'in xact' WHERE id < 10;
CLUSTER rb;
SELECT same_rows('rb', 'rh');
COMMIT;
SELECT same_rows('rb', 'rh');

-- ALTER TABLE rewrites: a volatile default, a column type change, a
-- dropped column squeezed out by VACUUM FULL
ALTER TABLE rb ADD COLUMN r float8 DEFAULT random();
ALTER TABLE rh ADD COLUMN r float8 DEFAULT 0.5;
SELECT count(*) = count(DISTINCT r) AS distinct_defaults FROM rb;
UPDATE rb SET r = 0.5;
ALTER TABLE rb ALTER COLUMN k TYPE bigint;
ALTER TABLE rh ALTER COLUMN k TYPE bigint;
ALTER TABLE rb DROP COLUMN t;
ALTER TABLE rh DROP COLUMN t;
VACUUM FULL rb;
SELECT same_rows('rb', 'rh');
SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname = 'rb';

-- ALTER TABLE ... SET TABLESPACE, and back
SET allow_in_place_tablespaces = on;
CREATE TABLESPACE bh_ts LOCATION '';
RESET allow_in_place_tablespaces;
ALTER TABLE rb SET TABLESPACE bh_ts;
SELECT spcname FROM pg_class c JOIN pg_tablespace s ON s.oid = c.reltablespace
	WHERE c.relname = 'rb';
SELECT same_rows('rb', 'rh');
INSERT INTO rb (id, k, big, r) VALUES (5000, 1, 'moved', 0.5);
INSERT INTO rh (id, k, big, r) VALUES (5000, 1, 'moved', 0.5);
ALTER TABLE rb SET TABLESPACE pg_default;
SELECT same_rows('rb', 'rh');
-- an unlogged table moves too
CREATE UNLOGGED TABLE ub (k int) USING blinkheap;
INSERT INTO ub SELECT generate_series(1, 1000);
ALTER TABLE ub SET TABLESPACE bh_ts;
SELECT count(*), sum(k) FROM ub;
ALTER TABLE ub SET TABLESPACE pg_default;
SELECT blinkheap_check('ub');
DROP TABLE ub;
DROP TABLESPACE bh_ts;

-- TABLESAMPLE
SELECT count(*) FROM rb TABLESAMPLE SYSTEM (100);
SELECT count(*) FROM rh TABLESAMPLE SYSTEM (100);
SELECT count(*) FROM rb TABLESAMPLE BERNOULLI (100);
SELECT count(*) FROM rb TABLESAMPLE SYSTEM (0);
SELECT count(*) FROM rb TABLESAMPLE BERNOULLI (0);
-- a sample is a subset of the table, and the same for the same seed
CREATE TABLE s1 AS SELECT id FROM rb TABLESAMPLE SYSTEM (30) REPEATABLE (7);
CREATE TABLE s2 AS SELECT id FROM rb TABLESAMPLE SYSTEM (30) REPEATABLE (7);
CREATE TABLE s3 AS SELECT id FROM rb TABLESAMPLE BERNOULLI (30) REPEATABLE (7);
CREATE TABLE s4 AS SELECT id FROM rb TABLESAMPLE BERNOULLI (30) REPEATABLE (7);
SELECT (SELECT count(*) FROM s1) BETWEEN 1 AND (SELECT count(*) - 1 FROM rb) AS system_partial,
	   (SELECT count(*) FROM s3) BETWEEN 1 AND (SELECT count(*) - 1 FROM rb) AS bernoulli_partial;
SELECT same_rows('s1', 's2') AS system_stable, same_rows('s3', 's4') AS bernoulli_stable;
SELECT count(*) AS not_in_table FROM (SELECT id FROM s1 UNION ALL SELECT id FROM s3) s
	WHERE id NOT IN (SELECT id FROM rb);
-- deleted rows are never sampled; a rolled-back insert neither
DELETE FROM rb WHERE id < 100;
DELETE FROM rh WHERE id < 100;
BEGIN; INSERT INTO rb (id, k) SELECT g, 0 FROM generate_series(10001, 11000) g; ROLLBACK;
SELECT count(*) FROM rb TABLESAMPLE BERNOULLI (100) WHERE id < 100 OR id > 10000;
SELECT count(*) FROM rb TABLESAMPLE SYSTEM (100);
SELECT count(*) FROM rh TABLESAMPLE SYSTEM (100);
EXPLAIN (COSTS OFF) SELECT * FROM rb TABLESAMPLE BERNOULLI (10) REPEATABLE (1);

-- bitmap heap scans
CREATE TABLE bb (a int, b int, c text) USING blinkheap WITH (autovacuum_enabled = off);
CREATE TABLE bp (a int, b int, c text) WITH (autovacuum_enabled = off);
-- about 2000 pages: more than a 64kB bitmap can hold exactly
INSERT INTO bb SELECT g % 100, g % 37, repeat('x', 300) FROM generate_series(1, 50000) g;
INSERT INTO bp SELECT * FROM bb;
CREATE INDEX bb_a ON bb (a);
CREATE INDEX bb_b ON bb USING blink (b);
CREATE INDEX bp_a ON bp (a);
CREATE INDEX bp_b ON bp (b);
DELETE FROM bb WHERE a = 5 AND b < 10;
DELETE FROM bp WHERE a = 5 AND b < 10;
UPDATE bb SET c = 'updated' WHERE a = 6;
UPDATE bp SET c = 'updated' WHERE a = 6;
ANALYZE bb; ANALYZE bp;
SET enable_seqscan = off;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM bb WHERE a = 5;
SELECT count(*), sum(b) FROM bb WHERE a = 5;
SELECT count(*), sum(b) FROM bp WHERE a = 5;
SELECT count(*), min(c), max(c) FROM bb WHERE a = 6;
SELECT count(*), min(c), max(c) FROM bp WHERE a = 6;
-- BitmapAnd and BitmapOr of a btree and a blink index
EXPLAIN (COSTS OFF) SELECT count(*) FROM bb WHERE a = 7 AND b = 7;
SELECT count(*) FROM bb WHERE a = 7 AND b = 7;
SELECT count(*) FROM bp WHERE a = 7 AND b = 7;
EXPLAIN (COSTS OFF) SELECT count(*) FROM bb WHERE a = 7 OR b = 7;
SELECT count(*), sum(a), sum(b) FROM bb WHERE a = 7 OR b = 7;
SELECT count(*), sum(a), sum(b) FROM bp WHERE a = 7 OR b = 7;
-- lossy pages: a bitmap larger than work_mem
SET work_mem = '64kB';
SELECT * FROM explain_filter('SELECT count(*) FROM bb WHERE a < 50');
SELECT count(*), sum(b) FROM bb WHERE a < 50;
SELECT count(*), sum(b) FROM bp WHERE a < 50;
SELECT count(*), sum(b) FROM bb WHERE (a < 50 AND b > 30) OR a = 99;
SELECT count(*), sum(b) FROM bp WHERE (a < 50 AND b > 30) OR a = 99;
RESET work_mem;
RESET enable_seqscan;
RESET enable_indexscan;
RESET enable_indexonlyscan;
SELECT same_rows('bb', 'bp');

SELECT blinkheap_check('rb'), blinkheap_check('bb');
SELECT blink_check('rb_id', true), blink_check('bb_b', true);
