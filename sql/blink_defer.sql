--
-- Statement buffers (defer.c): a statement's inserts into non-unique blink
-- indexes wait in the backend and are added, sorted, when the backend next
-- looks at the index or the transaction commits (blinkam.defer_inserts =
-- transaction, the default; = statement also at each statement's end).
-- Nothing may tell the difference: every read here compares the index
-- with a sequential scan, or with btree.
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
-- ... and a parallel plan in a later statement of the transaction
BEGIN;
INSERT INTO p SELECT g, 'z' FROM generate_series(200001, 201000) g;
INSERT INTO pb SELECT g, 'z' FROM generate_series(200001, 201000) g;
SELECT (SELECT count(*) FROM p WHERE k > 200000) AS p_rows,
       (SELECT count(*) FROM pb WHERE k > 200000) AS pb_rows;
COMMIT;
RESET force_parallel_mode;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_index_scan_size;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- Held to the commit.  The entries of one statement wait through the
-- next ones, until the commit or a read of the index.  Every answer is
-- compared with the same rows under a btree index (table hb).
CREATE TABLE h (k int, v text);
CREATE INDEX h_k ON h USING blink (k);
CREATE TABLE hb (k int, v text);
CREATE INDEX hb_k ON hb USING btree (k);
CREATE FUNCTION h_same(lo int, hi int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE a text; b text; n bigint;
BEGIN
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	SELECT count(*), md5(string_agg(k || v, ',' ORDER BY k, v)) INTO n, a
	  FROM h WHERE k BETWEEN lo AND hi;
	SELECT md5(string_agg(k || v, ',' ORDER BY k, v)) INTO b
	  FROM hb WHERE k BETWEEN lo AND hi;
	PERFORM set_config('enable_seqscan', 'on', true);
	PERFORM set_config('enable_bitmapscan', 'on', true);
	RETURN CASE WHEN a IS NOT DISTINCT FROM b THEN n || ' rows, as btree'
				ELSE 'DIFFERENT' END;
END $$;
-- the rows a cursor has left
CREATE FUNCTION drain(c refcursor) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint := 0; r record;
BEGIN
	LOOP
		FETCH c INTO r;
		EXIT WHEN NOT FOUND;
		n := n + 1;
	END LOOP;
	RETURN n;
END $$;
CREATE FUNCTION h_both(lo int, hi int, tag text) RETURNS void LANGUAGE sql AS $$
	INSERT INTO h SELECT g, tag FROM generate_series(lo, hi) g;
	INSERT INTO hb SELECT g, tag FROM generate_series(lo, hi) g $$;
-- Nothing reaches the leaves between the statements; a read flushes.
BEGIN;
SELECT counter('deferred_leaf_writes') AS w0 \gset
SELECT h_both(1, 100, 'a');
SELECT h_both(101, 200, 'b');
SELECT counter('deferred_leaf_writes') - :w0 AS leaf_writes_before_a_read;
SELECT h_same(1, 200);
SELECT counter('deferred_leaf_writes') - :w0 > 0 AS flushed_by_the_read;
SELECT h_both(201, 300, 'c');
COMMIT;
SELECT h_same(1, 300), leaf_entries('h_k') AS entries;
-- Rolled back before a flush, rows leave no entries at all.
BEGIN;
INSERT INTO h SELECT g, 'r' FROM generate_series(1001, 1100) g;
INSERT INTO h SELECT g, 'r' FROM generate_series(1101, 1200) g;
ROLLBACK;
SELECT leaf_entries('h_k') AS entries_after_rollback;
-- Savepoints across statements: a released one's entries pass to its
-- parent, and go with it when it rolls back.
BEGIN;
SELECT h_both(2001, 2100, 's1');
SAVEPOINT a;
SELECT h_both(2101, 2200, 's2');
SAVEPOINT b;
SELECT h_both(2201, 2300, 's3');
RELEASE b;
ROLLBACK TO a;
SELECT h_both(2301, 2400, 's4');
COMMIT;
SELECT h_same(2001, 2400),
       leaf_entries('h_k') = (SELECT count(*) FROM h) AS entries_match;
-- Cursors opened before later statements' inserts (held ones run to
-- their end at the commit) return their snapshots' rows, as btree's do.
BEGIN;
SELECT h_both(3001, 3050, 'x');
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
DECLARE ch CURSOR WITH HOLD FOR SELECT k, v FROM h WHERE k BETWEEN 3001 AND 3200 ORDER BY k;
DECLARE cb CURSOR WITH HOLD FOR SELECT k, v FROM hb WHERE k BETWEEN 3001 AND 3200 ORDER BY k;
DECLARE c2 CURSOR FOR SELECT k, v FROM h WHERE k BETWEEN 3001 AND 3200 ORDER BY k;
FETCH 2 FROM c2;
SELECT h_both(3051, 3100, 'y');
SELECT drain('c2') AS c2_rest;
COMMIT;
SELECT drain('ch') AS held_blink, drain('cb') AS held_btree;
CLOSE ch;
CLOSE cb;
SELECT h_same(3001, 3200);
-- A deferred constraint trigger reads through the index at the commit.
CREATE TABLE h_seen (n bigint);
CREATE FUNCTION h_count() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	SELECT count(*) INTO n FROM h WHERE k BETWEEN 4001 AND 4300;
	INSERT INTO h_seen VALUES (n);
	RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER h_at_commit AFTER INSERT ON h DEFERRABLE INITIALLY DEFERRED
	FOR EACH ROW WHEN (NEW.v = 'last') EXECUTE FUNCTION h_count();
BEGIN;
SELECT h_both(4001, 4100, 'd');
SELECT h_both(4101, 4199, 'd');
SELECT h_both(4200, 4200, 'last');
COMMIT;
SELECT n AS rows_the_commit_trigger_saw FROM h_seen;
DROP TRIGGER h_at_commit ON h;
-- A prepared transaction flushes when it is prepared.
BEGIN;
SELECT h_both(5001, 5100, 'p');
SELECT h_both(5101, 5200, 'p');
PREPARE TRANSACTION 'blink_defer';
COMMIT PREPARED 'blink_defer';
SELECT h_same(5001, 5200);
-- TRUNCATE in the transaction: what was held goes with the old storage.
BEGIN;
INSERT INTO h SELECT g, 't' FROM generate_series(6001, 6500) g;
TRUNCATE h;
INSERT INTO h SELECT g, 't' FROM generate_series(6501, 6600) g;
COMMIT;
TRUNCATE hb;
INSERT INTO hb SELECT g, 't' FROM generate_series(6501, 6600) g;
SELECT h_same(6001, 6600), leaf_entries('h_k') AS entries;
-- ON CONFLICT after held entries: it updates rows of the earlier statement.
CREATE TABLE hu (id int PRIMARY KEY, k int);
CREATE INDEX hu_k ON hu USING blink (k);
CREATE TABLE hub (id int PRIMARY KEY, k int);
CREATE INDEX hub_k ON hub USING btree (k);
BEGIN;
INSERT INTO hu SELECT g, g FROM generate_series(1, 100) g;
INSERT INTO hu SELECT g, g + 1000 FROM generate_series(51, 150) g
	ON CONFLICT (id) DO UPDATE SET k = excluded.k;
INSERT INTO hub SELECT g, g FROM generate_series(1, 100) g;
INSERT INTO hub SELECT g, g + 1000 FROM generate_series(51, 150) g
	ON CONFLICT (id) DO UPDATE SET k = excluded.k;
COMMIT;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT (SELECT md5(string_agg(id || ':' || k, ',' ORDER BY k)) FROM hu WHERE k > 0) =
       (SELECT md5(string_agg(id || ':' || k, ',' ORDER BY k)) FROM hub WHERE k > 0) AS on_conflict_as_btree,
       (SELECT count(*) FROM hu WHERE k > 0) AS hu_rows;
RESET enable_seqscan;
RESET enable_bitmapscan;
-- An error in the commit's flush: the COMMIT fails and everything of the
-- transaction is gone; the index stays whole.  (set_config, not SET: a
-- utility command flushes before it starts.)
CREATE TABLE he (k int);
CREATE INDEX he_k ON he USING blink (k);
BEGIN;
INSERT INTO he SELECT generate_series(1, 500);
INSERT INTO he SELECT generate_series(501, 1000);
SELECT set_config('blinkam.debug_stop_at', 'after_leaf_split', true);
COMMIT;
SELECT count(*) AS rows_after_failed_commit, leaf_entries('he_k') AS entries FROM he;
INSERT INTO he SELECT generate_series(1, 1000);
SET enable_seqscan = off;
SELECT count(*), sum(k) FROM he WHERE k > 0;
RESET enable_seqscan;

-- A BEFORE TRUNCATE trigger inserting into a table whose storage this
-- transaction made: PostgreSQL empties that storage in place and rebuilds
-- its indexes there (same relfilenode), so entries the trigger's inserts
-- left in the statement buffer must go with the build, not land at the
-- commit on slots the emptied table reuses.  The trigger fires on the
-- table itself (its second TRUNCATE is the in-place one) and, for tables
-- created in the transaction, on another table truncated with them; a
-- btree twin gets the same rows.
CREATE FUNCTION tt_fill() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('INSERT INTO %I SELECT g FROM generate_series(1, 10) g', TG_ARGV[0]);
	RETURN NULL;
END $$;
CREATE TABLE tt_self (k int);
CREATE INDEX tt_self_k ON tt_self USING blink (k);
CREATE TABLE tt_selfb (k int);
CREATE INDEX tt_selfb_k ON tt_selfb (k);
CREATE TRIGGER tt_fill BEFORE TRUNCATE ON tt_self FOR EACH STATEMENT EXECUTE FUNCTION tt_fill('tt_self');
CREATE TRIGGER tt_fill BEFORE TRUNCATE ON tt_selfb FOR EACH STATEMENT EXECUTE FUNCTION tt_fill('tt_selfb');
CREATE TABLE tt_other (x int);
CREATE TRIGGER tt_fill1 BEFORE TRUNCATE ON tt_other FOR EACH STATEMENT EXECUTE FUNCTION tt_fill('tt_new');
CREATE TRIGGER tt_fill2 BEFORE TRUNCATE ON tt_other FOR EACH STATEMENT EXECUTE FUNCTION tt_fill('tt_newb');
BEGIN;
TRUNCATE tt_self;		-- new storage
TRUNCATE tt_self;		-- in place
INSERT INTO tt_self VALUES (300);
TRUNCATE tt_selfb;
TRUNCATE tt_selfb;
INSERT INTO tt_selfb VALUES (300);
CREATE TABLE tt_new (k int);
CREATE INDEX tt_new_k ON tt_new USING blink (k);
CREATE TABLE tt_newb (k int);
CREATE INDEX tt_newb_k ON tt_newb (k);
TRUNCATE tt_other, tt_new, tt_newb;	-- triggers first, then in place
INSERT INTO tt_new VALUES (100), (200);
INSERT INTO tt_newb VALUES (100), (200);
COMMIT;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT (SELECT string_agg(k::text, ' ' ORDER BY k) FROM tt_self WHERE k <= 1000) AS self_blink,
       (SELECT string_agg(k::text, ' ' ORDER BY k) FROM tt_selfb WHERE k <= 1000) AS self_btree,
       (SELECT string_agg(k::text, ' ' ORDER BY k) FROM tt_new WHERE k <= 1000) AS new_blink,
       (SELECT string_agg(k::text, ' ' ORDER BY k) FROM tt_newb WHERE k <= 1000) AS new_btree;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT blink_check('tt_self_k', true), blink_check('tt_new_k', true);
-- the same with a unique index whose entries are held back: the held key
-- goes with the build too (a later insert of it is no duplicate)
SET blinkam.defer_unique = on;
CREATE FUNCTION tu_fill() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO tu VALUES (1); RETURN NULL; END $$;
CREATE TABLE tu (k int);
CREATE UNIQUE INDEX tu_k ON tu USING blink (k);
CREATE TRIGGER tu_fill BEFORE TRUNCATE ON tu FOR EACH STATEMENT EXECUTE FUNCTION tu_fill();
BEGIN;
TRUNCATE tu;
TRUNCATE tu;
INSERT INTO tu VALUES (300);
COMMIT;
INSERT INTO tu VALUES (1);
SELECT string_agg(k::text, ' ' ORDER BY k) AS tu_rows FROM tu;
RESET blinkam.defer_unique;
SELECT blink_check('tu_k', true);
DROP TABLE tt_self, tt_selfb, tt_other, tt_new, tt_newb, tu;
DROP FUNCTION tt_fill(), tu_fill();

SELECT blink_check('d_k', true), blink_check('oc_k', true), blink_check('u_k', true),
       blink_check('p_k', true);
SELECT blink_check('h_k', true), blink_check('hu_k', true), blink_check('he_k', true);

DROP TABLE d, seen, oc, u, p, pb, p_seen, h, hb, h_seen, hu, hub, he;
DROP FUNCTION p_count(), h_same(int, int), h_both(int, int, text), h_count(), drain(refcursor);
DROP FUNCTION d_counts(int, int), leaf_entries(regclass), counter(text), d_look(), d_after(), risky(int);
DROP EXTENSION blinkam;
