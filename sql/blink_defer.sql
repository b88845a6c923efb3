--
-- Statement buffers (defer.c): a statement's inserts into non-unique blink
-- indexes wait in the backend and are added, sorted, when the backend next
-- looks at the index or the statement ends.  Nothing may tell the
-- difference: every read here compares the index with a sequential scan.
--
CREATE EXTENSION blinkam;

CREATE TABLE d (k int, v text);
CREATE INDEX d_k ON d USING blink (k);

-- rows with k in [lo, hi] counted through the index, through a bitmap
-- and through a sequential scan
CREATE FUNCTION d_counts(lo int, hi int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE a bigint; b bigint; c bigint;
BEGIN
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	SELECT count(*) INTO a FROM d WHERE k BETWEEN lo AND hi;
	PERFORM set_config('enable_bitmapscan', 'on', true);
	PERFORM set_config('enable_indexscan', 'off', true);
	PERFORM set_config('enable_indexonlyscan', 'off', true);
	SELECT count(*) INTO b FROM d WHERE k BETWEEN lo AND hi;
	PERFORM set_config('enable_seqscan', 'on', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	SELECT count(*) INTO c FROM d WHERE k BETWEEN lo AND hi;
	PERFORM set_config('enable_bitmapscan', 'on', true);
	PERFORM set_config('enable_indexscan', 'on', true);
	PERFORM set_config('enable_indexonlyscan', 'on', true);
	RETURN a || ' ' || b || ' ' || c;
END $$;

-- entries on the leaves of idx, dead or alive, as the pages hold them
CREATE FUNCTION leaf_entries(idx regclass) RETURNS bigint LANGUAGE sql AS $$
	SELECT coalesce(sum(s.live_items + s.dead_items), 0)
	  FROM generate_series(1, pg_relation_size(idx) / 8192 - 1) AS b,
	       LATERAL blink_page_stats(idx, b) AS s
	 WHERE s.type LIKE '%leaf' $$;

CREATE FUNCTION counter(n text) RETURNS bigint LANGUAGE sql AS $$
	SELECT value FROM blinkam_stats() WHERE name = n $$;

-- A multi-row INSERT goes through the buffer and writes far fewer leaf
-- records than rows.
SELECT counter('deferred_inserts') AS d0, counter('deferred_leaf_writes') AS w0 \gset
INSERT INTO d SELECT g, 'a' FROM generate_series(1, 1000) AS g;
SELECT counter('deferred_inserts') - :d0 AS deferred,
       (counter('deferred_leaf_writes') - :w0) * 50 < 1000 AS few_leaf_writes;
SELECT d_counts(1, 1000), leaf_entries('d_k');

-- Turned off, nothing is buffered.
SET blinkam.defer_inserts = off;
SELECT counter('deferred_inserts') AS d0 \gset
INSERT INTO d SELECT g, 'b' FROM generate_series(1001, 1100) AS g;
SELECT counter('deferred_inserts') - :d0 AS deferred_when_off;
RESET blinkam.defer_inserts;

-- Random order, more rows than a buffer holds (it is flushed on the way),
-- splits at every level.
INSERT INTO d SELECT 100000 + (g * 7919) % 20000, 'c' FROM generate_series(1, 20000) AS g;
SELECT d_counts(100000, 120000), leaf_entries('d_k') = (SELECT count(*) FROM d) AS entries_match;

-- Reads inside the statement see the rows it inserted before: a BEFORE
-- ROW trigger counts them through each kind of scan.
CREATE TABLE seen (k int, counts text);
CREATE FUNCTION d_look() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO seen VALUES (NEW.k, d_counts(5001, 5100));
	RETURN NEW;
END $$;
CREATE TRIGGER d_look BEFORE INSERT ON d FOR EACH ROW WHEN (NEW.v = 'look') EXECUTE FUNCTION d_look();
INSERT INTO d SELECT g, 'look' FROM generate_series(5001, 5100) AS g;
SELECT count(*) AS rows_seen,
       count(*) FILTER (WHERE counts <> (k - 5001) || ' ' || (k - 5001) || ' ' || (k - 5001)) AS wrong_counts
  FROM seen;
DROP TRIGGER d_look ON d;

-- An AFTER STATEMENT trigger sees them all.
CREATE FUNCTION d_after() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE NOTICE 'after statement: %', d_counts(6001, 6100);
	RETURN NULL;
END $$;
CREATE TRIGGER d_after AFTER INSERT ON d FOR EACH STATEMENT EXECUTE FUNCTION d_after();
INSERT INTO d SELECT g, 'after' FROM generate_series(6001, 6100) AS g;
DROP TRIGGER d_after ON d;

-- A statement that fails half way inside a savepoint: the entries of its
-- rows (dead now) are dropped, not added later.
DO $$
BEGIN
	BEGIN
		INSERT INTO d SELECT g, (10 / (7300 - g))::text FROM generate_series(7001, 7500) AS g;
	EXCEPTION WHEN division_by_zero THEN
		RAISE NOTICE 'failed insert rolled back';
	END;
END $$;
SELECT d_counts(7001, 7500), leaf_entries('d_k') = (SELECT count(*) FROM d) AS entries_match;

-- Savepoints that roll back while an outer statement still holds buffered
-- rows: those rows live on, and so must their entries.
CREATE FUNCTION risky(g int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
	BEGIN
		IF g % 7 = 0 THEN
			RAISE EXCEPTION 'boom';
		END IF;
	EXCEPTION WHEN others THEN
		NULL;
	END;
	RETURN g;
END $$;
INSERT INTO d SELECT risky(g), 'r' FROM generate_series(8001, 8300) AS g;
SELECT d_counts(8001, 8300), leaf_entries('d_k') = (SELECT count(*) FROM d) AS entries_match;

-- Transactions: rows of a rolled-back savepoint, of a rolled-back
-- transaction, and of a committed one.
BEGIN;
INSERT INTO d SELECT g, 't' FROM generate_series(9001, 9100) AS g;
SAVEPOINT s;
INSERT INTO d SELECT g, 't' FROM generate_series(9101, 9200) AS g;
ROLLBACK TO s;
SELECT d_counts(9001, 9200);
COMMIT;
BEGIN;
INSERT INTO d SELECT g, 't' FROM generate_series(9201, 9300) AS g;
ROLLBACK;
SELECT d_counts(9001, 9300);

-- COPY ends as a utility command, and is flushed there.
SELECT counter('deferred_inserts') AS d0 \gset
COPY d (k, v) FROM stdin;
40001	copied
40002	copied
40003	copied
40004	copied
40005	copied
40006	copied
40007	copied
40008	copied
40009	copied
40010	copied
40011	copied
40012	copied
40013	copied
40014	copied
40015	copied
40016	copied
40017	copied
40018	copied
40019	copied
40020	copied
\.
SELECT counter('deferred_inserts') - :d0 AS deferred_by_copy, d_counts(40001, 40020);

-- UPDATE that moves rows to new keys (not HOT: the key changes).
UPDATE d SET k = k + 50000 WHERE k BETWEEN 1 AND 500;
SELECT d_counts(1, 500), d_counts(50001, 50500);

-- INSERT ... ON CONFLICT buffers nothing (a speculative insertion that
-- loses its race is killed at once), and the next statement buffers again.
CREATE TABLE oc (id int PRIMARY KEY, k int);
CREATE INDEX oc_k ON oc USING blink (k);
SELECT counter('deferred_inserts') AS d0 \gset
INSERT INTO oc SELECT g, g FROM generate_series(1, 100) AS g ON CONFLICT (id) DO NOTHING;
WITH w AS (INSERT INTO oc SELECT g, g FROM generate_series(50, 150) AS g
           ON CONFLICT (id) DO UPDATE SET k = excluded.k + 1000 RETURNING 1)
SELECT count(*) FROM w;
SELECT counter('deferred_inserts') - :d0 AS deferred_by_on_conflict;
INSERT INTO oc SELECT g, g FROM generate_series(151, 160) AS g;
SELECT counter('deferred_inserts') - :d0 AS deferred_after;
SET enable_seqscan = off;
SELECT count(*) FROM oc WHERE k BETWEEN 1 AND 2000;
RESET enable_seqscan;

-- Unique indexes are never buffered: their checks see every row at once.
CREATE TABLE u (k int);
CREATE UNIQUE INDEX u_k ON u USING blink (k);
SELECT counter('deferred_inserts') AS d0 \gset
INSERT INTO u SELECT g FROM generate_series(1, 100) AS g;
SELECT counter('deferred_inserts') - :d0 AS deferred_unique;
INSERT INTO u VALUES (5), (5);

-- A parallel plan started while entries are buffered: its workers read
-- the index from their own processes.  Here an AFTER STATEMENT trigger
-- counts the new rows with a parallel index scan while the INSERT that
-- fired it still buffers; the plan's start flushes first (btree beside it).
CREATE TABLE p (k int, pad text);
INSERT INTO p SELECT g, 'x' FROM generate_series(1, 100000) g;
CREATE INDEX p_k ON p USING blink (k);
CREATE TABLE pb (k int, pad text);
INSERT INTO pb SELECT g, 'x' FROM generate_series(1, 100000) g;
CREATE INDEX pb_k ON pb USING btree (k);
ANALYZE p, pb;
CREATE TABLE p_seen (tab text, n bigint);
CREATE FUNCTION p_count() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM %I WHERE k > 100000', TG_TABLE_NAME) INTO n;
	INSERT INTO p_seen VALUES (TG_TABLE_NAME, n);
	RETURN NULL;
END $$;
CREATE TRIGGER p_after AFTER INSERT ON p FOR EACH STATEMENT EXECUTE FUNCTION p_count();
CREATE TRIGGER pb_after AFTER INSERT ON pb FOR EACH STATEMENT EXECUTE FUNCTION p_count();
SET force_parallel_mode = on;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_index_scan_size = 0;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM p WHERE k > 100000;
SELECT counter('deferred_inserts') AS d0 \gset
INSERT INTO p SELECT g, 'y' FROM generate_series(100001, 101000) g;
INSERT INTO pb SELECT g, 'y' FROM generate_series(100001, 101000) g;
SELECT counter('deferred_inserts') - :d0 AS deferred_parallel;
SELECT tab, n FROM p_seen ORDER BY tab;
RESET force_parallel_mode;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_index_scan_size;
RESET enable_seqscan;
RESET enable_bitmapscan;

SELECT blink_check('d_k', true), blink_check('oc_k', true), blink_check('u_k', true),
       blink_check('p_k', true);

DROP TABLE d, seen, oc, u, p, pb, p_seen;
DROP FUNCTION p_count();
DROP FUNCTION d_counts(int, int), leaf_entries(regclass), counter(text), d_look(), d_after(), risky(int);
DROP EXTENSION blinkam;
