--
-- A statement buffer's flush puts the runs of up to blinkam.flush_leaves
-- leaves in one WAL record (blinkinsert.c, _blink_flush_companions): the
-- leaf of each next run is found by one of the backend's leaf hints and
-- taken only if it is free at once and the run's first tuple is below its
-- high key.  Every statement runs on a btree twin too; the two must hold
-- the same rows, and blink_check must pass.  (t/040 holds the windows
-- where a companion leaf is busy or has split since its hint.)
--
CREATE EXTENSION blinkam;

CREATE FUNCTION counter(n text) RETURNS bigint LANGUAGE sql AS $$
	SELECT value FROM blinkam_stats() WHERE name = n $$;

-- eight "sensors", each its own stretch of the key space, 500 rows each:
-- every sensor's last rows lie on a leaf of their own
CREATE TABLE f (s int, t int, v text) WITH (autovacuum_enabled = off);
CREATE INDEX f_st ON f USING blink (s, t);
CREATE TABLE fb (s int, t int, v text) WITH (autovacuum_enabled = off);
CREATE INDEX fb_st ON fb (s, t);
CREATE FUNCTION both_insert(t0 int) RETURNS void LANGUAGE sql AS $$
	INSERT INTO f SELECT s, t0, 'r' || t0 FROM generate_series(1, 8) s;
	INSERT INTO fb SELECT s, t0, 'r' || t0 FROM generate_series(1, 8) s $$;
INSERT INTO f SELECT s, t, 'load' FROM generate_series(1, 8) s, generate_series(1, 500) t;
INSERT INTO fb SELECT * FROM f;

-- the same rows through each index, and through a sequential scan
CREATE FUNCTION f_same() RETURNS text LANGUAGE plpgsql AS $$
DECLARE a text; b text; c text;
BEGIN
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	SELECT string_agg(s || ':' || t || v, ',' ORDER BY s, t) INTO a FROM f WHERE s > 0;
	SELECT string_agg(s || ':' || t || v, ',' ORDER BY s, t) INTO b FROM fb WHERE s > 0;
	PERFORM set_config('enable_seqscan', 'on', true);
	PERFORM set_config('enable_indexscan', 'off', true);
	PERFORM set_config('enable_indexonlyscan', 'off', true);
	SELECT string_agg(s || ':' || t || v, ',' ORDER BY s, t) INTO c FROM f;
	PERFORM set_config('enable_indexscan', 'on', true);
	PERFORM set_config('enable_indexonlyscan', 'on', true);
	RETURN CASE WHEN a = b AND a = c THEN 'same' ELSE 'differ' END;
END $$;

-- One row per sensor in a transaction: at the commit, eight runs of one
-- tuple on eight leaves.  The first time, the leaves are found by
-- descents (and remembered as hints); then by hints, four a record.
BEGIN;
SELECT both_insert(1001);
COMMIT;
SELECT counter('deferred_leaf_writes') AS w0, counter('flush_leaves_grouped') AS g0 \gset
BEGIN;
SELECT both_insert(1002);
COMMIT;
SELECT counter('deferred_leaf_writes') - :w0 AS records,
       counter('flush_leaves_grouped') - :g0 AS grouped;
SELECT f_same();

-- Two leaves a record, then one (as before this setting).
SET blinkam.flush_leaves = 2;
SELECT counter('deferred_leaf_writes') AS w0, counter('flush_leaves_grouped') AS g0 \gset
SELECT both_insert(1003);
SELECT counter('deferred_leaf_writes') - :w0 AS records,
       counter('flush_leaves_grouped') - :g0 AS grouped;
SET blinkam.flush_leaves = 1;
SELECT counter('deferred_leaf_writes') AS w0, counter('flush_leaves_grouped') AS g0 \gset
SELECT both_insert(1004);
SELECT counter('deferred_leaf_writes') - :w0 AS records,
       counter('flush_leaves_grouped') - :g0 AS grouped;
RESET blinkam.flush_leaves;
SET blinkam.flush_leaves = 5;
SELECT f_same();

-- Several tuples a leaf, and a leaf that must split: each sensor gets
-- 60 rows; the runs that fit go four leaves a record, the tuple that
-- does not fit goes in alone (with its split), and the rest goes on.
SELECT counter('deferred_leaf_writes') AS w0, counter('flush_leaves_grouped') AS g0,
       counter('splits') AS s0 \gset
INSERT INTO f SELECT s, t, 'm' FROM generate_series(1, 8) s, generate_series(2001, 2060) t;
INSERT INTO fb SELECT s, t, 'm' FROM generate_series(1, 8) s, generate_series(2001, 2060) t;
SELECT counter('flush_leaves_grouped') - :g0 > 0 AS grouped,
       counter('splits') - :s0 > 0 AS split;
SELECT f_same();
SELECT blink_check('f_st', true);

-- A record that fails after the companions' runs are on their page copies
-- (the in_batch stop comes after the first leaf's own run and the
-- companions', before the record): nothing of the statement is in -- no
-- leaf item more than before, so every page copied in place was put back
-- -- and the same statement then goes in, with three companions again.
CREATE FUNCTION leaf_items(idx regclass) RETURNS bigint LANGUAGE sql AS $$
	SELECT count(*) FROM generate_series(1, pg_relation_size(idx) / 8192 - 1) b,
	       LATERAL blink_page_items(idx, b) i
	 WHERE i.downlink IS NULL AND NOT i.is_highkey $$;
SELECT count(*) AS before, leaf_items('f_st') AS items0 FROM f \gset
SET blinkam.debug_stop_at = 'in_batch';
BEGIN;
INSERT INTO f SELECT s, 3001, 'x' FROM generate_series(1, 8) s;
COMMIT;
RESET blinkam.debug_stop_at;
SELECT count(*) - :before AS added, leaf_items('f_st') - :items0 AS items_added FROM f;
SELECT blink_check('f_st', true);
SELECT counter('deferred_leaf_writes') AS w0, counter('flush_leaves_grouped') AS g0 \gset
SELECT both_insert(3001);
SELECT counter('deferred_leaf_writes') - :w0 AS records,
       counter('flush_leaves_grouped') - :g0 AS grouped;
SELECT f_same();

-- A unique index's held-back entries (blinkam.defer_unique) go the same
-- way, their keys registered until they land.
CREATE TABLE u (s int, t int, v text) WITH (autovacuum_enabled = off);
CREATE UNIQUE INDEX u_st ON u USING blink (s, t);
INSERT INTO u SELECT s, t, 'load' FROM generate_series(1, 8) s, generate_series(1, 500) t;
SET blinkam.defer_unique = on;
BEGIN;
INSERT INTO u SELECT s, 1001, 'a' FROM generate_series(1, 8) s;
COMMIT;
SELECT counter('deferred_leaf_writes') AS w0, counter('flush_leaves_grouped') AS g0,
       counter('pending_unique_inserts') AS p0 \gset
BEGIN;
INSERT INTO u SELECT s, 1002, 'b' FROM generate_series(1, 8) s;
COMMIT;
SELECT counter('deferred_leaf_writes') - :w0 AS records,
       counter('flush_leaves_grouped') - :g0 AS grouped,
       counter('pending_unique_inserts') - :p0 AS held_back;
-- every key is in, once: a second insert of each is a violation
INSERT INTO u VALUES (5, 1002, 'again');
SELECT count(*) FROM u WHERE t IN (1001, 1002);
RESET blinkam.defer_unique;
SELECT blink_check('u_st', true);
SELECT blink_check('f_st', true);

-- Scattered keys, from a fresh backend (no leaf hints): each next run's
-- leaf is the right sibling of the last (_blink_flush_right_sibling).  A
-- statement with one record a leaf counts the leaves; the next, from
-- another fresh backend, writes them four a record.
CREATE TABLE g (k int) WITH (autovacuum_enabled = off);
INSERT INTO g SELECT x FROM generate_series(1, 4000) x;
CREATE INDEX g_k ON g USING blink (k);
CREATE TABLE gb (k int) WITH (autovacuum_enabled = off);
INSERT INTO gb SELECT * FROM g;
CREATE INDEX gb_k ON gb (k);
\c
SET blinkam.flush_leaves = 1;
SELECT counter('deferred_leaf_writes') AS w0 \gset
INSERT INTO g SELECT x FROM generate_series(20, 4000, 40) x;
SELECT counter('deferred_leaf_writes') - :w0 AS leaves \gset
\c
SELECT counter('deferred_leaf_writes') AS w0, counter('flush_leaves_grouped') AS g0 \gset
INSERT INTO g SELECT x FROM generate_series(30, 4000, 40) x;
SELECT :leaves >= 8 AS several_leaves,
       counter('deferred_leaf_writes') - :w0 = (:leaves + 3) / 4 AS a_record_for_four,
       counter('flush_leaves_grouped') - :g0 = :leaves - (:leaves + 3) / 4 AS the_rest_grouped;
INSERT INTO gb SELECT x FROM generate_series(20, 4000, 40) x;
INSERT INTO gb SELECT x FROM generate_series(30, 4000, 40) x;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT (SELECT string_agg(k::text, ',' ORDER BY k) FROM g WHERE k > 0) =
       (SELECT string_agg(k::text, ',' ORDER BY k) FROM gb WHERE k > 0) AS same_as_btree;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT blink_check('g_k', true);

DROP TABLE f, fb, u, g, gb;
DROP FUNCTION counter(text), both_insert(int), f_same(), leaf_items(regclass);
DROP EXTENSION blinkam;
