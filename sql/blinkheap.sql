--
-- blinkheap: the table access method, side by side with heap.
--
-- Every change is made to a blinkheap table and to a heap table holding
-- the same rows; same_rows() compares them both ways with EXCEPT ALL.
-- The suite runs with wal_consistency_checking = 'generic', so every
-- generic WAL record written here is also replayed and compared.
--
CREATE EXTENSION blinkam;
-- page layouts below must not depend on pages a worker adds ahead of need
SET blinkam.enable_pools = off;

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

-- chunks in a table's TOAST table
CREATE FUNCTION toast_chunks(t regclass) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM %s',
				   (SELECT reltoastrelid::regclass FROM pg_class WHERE oid = t)) INTO n;
	RETURN n;
END $$;

CREATE TABLE bh (id int, grp int, t text, n numeric)
	USING blinkheap WITH (autovacuum_enabled = off);
CREATE TABLE hp (id int, grp int, t text, n numeric)
	WITH (autovacuum_enabled = off);
SELECT c.relname, a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE c.relname IN ('bh', 'hp') ORDER BY 1;

-- an empty table
SELECT count(*) FROM bh;
SELECT blinkheap_check('bh');

-- single rows, several rows, NULLs
INSERT INTO bh VALUES (1, 1, 'one', 1.5);
INSERT INTO bh VALUES (2, NULL, NULL, NULL), (3, 3, 'three', NULL), (4, NULL, 'four', 4);
INSERT INTO hp VALUES (1, 1, 'one', 1.5);
INSERT INTO hp VALUES (2, NULL, NULL, NULL), (3, 3, 'three', NULL), (4, NULL, 'four', 4);
SELECT ctid, * FROM bh ORDER BY id;
SELECT same_rows('bh', 'hp');

-- COPY (multi-insert: one WAL record per page filled)
COPY bh FROM STDIN;
5	5	five	5.5
6	\N	six	\N
7	7	\N	7
\.
COPY hp FROM STDIN;
5	5	five	5.5
6	\N	six	\N
7	7	\N	7
\.
\copy bh FROM PROGRAM 'awk ''BEGIN { for (i = 8; i <= 6000; i++) printf "%d\t%d\trow number %d\t%d.25\n", i, i % 17, i, i }'''
\copy hp FROM PROGRAM 'awk ''BEGIN { for (i = 8; i <= 6000; i++) printf "%d\t%d\trow number %d\t%d.25\n", i, i % 17, i, i }'''
SELECT same_rows('bh', 'hp');
SELECT pg_relation_size('bh') / current_setting('block_size')::int > 40 AS many_pages;
-- COPY filled its pages: none but the last is left half empty
SELECT count(*) FILTER (WHERE s.free_size > 200) <= 1 AS pages_full
FROM generate_series(0, pg_relation_size('bh') / current_setting('block_size')::int - 1) b,
	 blinkheap_page_stats('bh', b) s;

-- seq scans
SELECT count(*), sum(id), count(grp), count(t), sum(n) FROM bh;
SELECT count(*), sum(id), count(grp), count(t), sum(n) FROM hp;
SELECT grp, count(*), min(id), max(id) FROM bh GROUP BY grp ORDER BY grp NULLS FIRST LIMIT 5;
SELECT * FROM bh WHERE t LIKE '%5999' OR id < 3 ORDER BY id;
SELECT id FROM bh WHERE id > 5990 ORDER BY id DESC;

-- cursors scan both ways
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT id FROM bh WHERE id <= 3;
FETCH ALL FROM c;
FETCH BACKWARD ALL FROM c;
FETCH LAST FROM c;
CLOSE c;
COMMIT;

-- parallel seq scan
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT count(*), sum(id) FROM bh;
SELECT count(*), sum(id) FROM bh;
SELECT count(*), sum(id) FROM bh WHERE grp = 3;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- TOAST: compressed inline, compressed external, uncompressed external
CREATE TABLE bt (id int PRIMARY KEY, small text, big text, plain_ext text)
	USING blinkheap;
CREATE TABLE ht (id int PRIMARY KEY, small text, big text, plain_ext text);
ALTER TABLE bt ALTER plain_ext SET STORAGE EXTERNAL;
ALTER TABLE ht ALTER plain_ext SET STORAGE EXTERNAL;
INSERT INTO bt SELECT i, 's' || i, repeat('x', 100000 + i),
	(SELECT string_agg(md5((i * 1000 + j)::text), '') FROM generate_series(1, 300) j)
FROM generate_series(1, 20) i;
INSERT INTO ht SELECT i, 's' || i, repeat('x', 100000 + i),
	(SELECT string_agg(md5((i * 1000 + j)::text), '') FROM generate_series(1, 300) j)
FROM generate_series(1, 20) i;
INSERT INTO bt VALUES (21, 'random', (SELECT string_agg(md5(j::text), '') FROM generate_series(1, 2000) j), NULL);
INSERT INTO ht VALUES (21, 'random', (SELECT string_agg(md5(j::text), '') FROM generate_series(1, 2000) j), NULL);
SELECT same_rows('bt', 'ht');
SELECT toast_chunks('bt') > 0 AS toasted, toast_chunks('bt') = toast_chunks('ht') AS same_chunks;
SELECT id, length(big), pg_column_size(big) < 10000 AS compressed,
	length(plain_ext), pg_column_size(plain_ext) FROM bt WHERE id IN (1, 20, 21) ORDER BY id;
-- updates keep, replace and drop TOAST values
UPDATE bt SET small = 'changed' WHERE id <= 5;
UPDATE ht SET small = 'changed' WHERE id <= 5;
UPDATE bt SET big = 'short now' WHERE id BETWEEN 6 AND 8;
UPDATE ht SET big = 'short now' WHERE id BETWEEN 6 AND 8;
UPDATE bt SET plain_ext = repeat('p', 50000) WHERE id = 9;
UPDATE ht SET plain_ext = repeat('p', 50000) WHERE id = 9;
DELETE FROM bt WHERE id > 18;
DELETE FROM ht WHERE id > 18;
SELECT same_rows('bt', 'ht');
SELECT blinkheap_check('bt');
-- a row that does not fit even after TOAST
CREATE TABLE toobig (a varchar, b varchar, c varchar) USING blinkheap;
ALTER TABLE toobig ALTER a SET STORAGE PLAIN, ALTER b SET STORAGE PLAIN,
	ALTER c SET STORAGE PLAIN;
INSERT INTO toobig VALUES (repeat('a', 3000), repeat('b', 3000), repeat('c', 3000));
INSERT INTO toobig VALUES ('a', 'b', 'c');
UPDATE toobig SET a = repeat('a', 3000), b = repeat('b', 3000), c = repeat('c', 3000);
SELECT * FROM toobig;

-- btree indexes: index scans and index-only scans
CREATE INDEX bh_id ON bh (id);
CREATE INDEX hp_id ON hp (id);
CREATE UNIQUE INDEX bh_id_uq ON bh (id) WHERE id > 5000;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM bh WHERE id = 4000;
SELECT * FROM bh WHERE id = 4000;
EXPLAIN (COSTS OFF) SELECT id FROM bh WHERE id BETWEEN 100 AND 110;
SELECT id FROM bh WHERE id BETWEEN 100 AND 110;
SELECT count(*), sum(id) FROM bh WHERE id > 5500;
-- a blink index on the blinkheap table
CREATE INDEX bh_grp_blink ON bh USING blink (grp, id);
EXPLAIN (COSTS OFF) SELECT id FROM bh WHERE grp = 3 AND id < 100;
SELECT id FROM bh WHERE grp = 3 AND id < 100;
SELECT count(*) FROM bh WHERE grp = 16;
SELECT count(*) FROM hp WHERE grp = 16;
RESET enable_seqscan;
RESET enable_bitmapscan;
-- bitmap heap scans (more in blinkheap_rewrite.sql)
SET enable_seqscan = off;
SET enable_indexscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM bh WHERE id < 50;
SELECT count(*) FROM bh WHERE id < 50;
SELECT count(*) FROM hp WHERE id < 50;
RESET enable_seqscan;
RESET enable_indexscan;
INSERT INTO bh VALUES (5001, 0, 'duplicate', 0);

-- UPDATE and DELETE with RETURNING
WITH u AS (UPDATE bh SET n = n * 2, t = upper(t) WHERE id % 10 = 1 RETURNING id, n, t)
SELECT count(*), sum(id), sum(n), max(t) FROM u;
WITH u AS (UPDATE hp SET n = n * 2, t = upper(t) WHERE id % 10 = 1 RETURNING id, n, t)
SELECT count(*), sum(id), sum(n), max(t) FROM u;
WITH d AS (DELETE FROM bh WHERE id % 13 = 0 RETURNING id, grp)
SELECT count(*), sum(id), count(grp) FROM d;
WITH d AS (DELETE FROM hp WHERE id % 13 = 0 RETURNING id, grp)
SELECT count(*), sum(id), count(grp) FROM d;
SELECT same_rows('bh', 'hp');
-- index-only scans must not return the deleted rows
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM bh WHERE id BETWEEN 1000 AND 2000;
SELECT count(*), sum(id) FROM bh WHERE id BETWEEN 1000 AND 2000;
SELECT count(*), sum(id) FROM hp WHERE id BETWEEN 1000 AND 2000;
RESET enable_seqscan;
RESET enable_bitmapscan;
-- the same row updated many times in one transaction (combo command ids)
BEGIN;
UPDATE bh SET n = 0 WHERE id = 2;
UPDATE bh SET n = n + 1 WHERE id = 2;
UPDATE bh SET n = n + 1 WHERE id = 2 RETURNING id, n;
DELETE FROM bh WHERE id = 2 RETURNING id, n;
SELECT count(*) FROM bh WHERE id = 2;
COMMIT;
DELETE FROM hp WHERE id = 2;

-- updates that move rows to other pages (both pages in one record)
UPDATE bh SET t = t || repeat('-', 700) WHERE id % 50 = 7;
UPDATE hp SET t = t || repeat('-', 700) WHERE id % 50 = 7;
SELECT same_rows('bh', 'hp');
SELECT count(*) > 0 AS moved_off_page_0 FROM blinkheap_page_items('bh', 0)
WHERE t_ctid <> ('(0,' || lp || ')')::tid AND t_ctid >= '(1,0)'::tid;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(length(t)) FROM bh WHERE id BETWEEN 1 AND 6000 AND id % 50 = 7;
SELECT count(*), sum(length(t)) FROM hp WHERE id BETWEEN 1 AND 6000 AND id % 50 = 7;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- rollback of insert, update, delete; savepoints
BEGIN;
INSERT INTO bh VALUES (-1, -1, 'gone', -1);
UPDATE bh SET t = 'gone' WHERE id < 100;
DELETE FROM bh WHERE id > 5000;
SELECT count(*) FROM bh;
ROLLBACK;
SELECT same_rows('bh', 'hp');
BEGIN;
INSERT INTO bh VALUES (-2, -2, 'kept', -2);
SAVEPOINT s1;
UPDATE bh SET t = 'rolled back' WHERE id < 100;
DELETE FROM bh WHERE id BETWEEN 200 AND 300;
ROLLBACK TO s1;
SAVEPOINT s2;
UPDATE bh SET t = 'kept' WHERE id BETWEEN 400 AND 410;
DELETE FROM bh WHERE id BETWEEN 500 AND 510;
RELEASE s2;
COMMIT;
BEGIN;
INSERT INTO hp VALUES (-2, -2, 'kept', -2);
UPDATE hp SET t = 'kept' WHERE id BETWEEN 400 AND 410;
DELETE FROM hp WHERE id BETWEEN 500 AND 510;
COMMIT;
SELECT same_rows('bh', 'hp');
SELECT count(*) FROM bh WHERE t = 'rolled back' OR id = -1;

-- SELECT FOR UPDATE / SHARE, MultiXacts
CREATE TABLE lk (k int PRIMARY KEY, v int) USING blinkheap;
INSERT INTO lk SELECT g, g FROM generate_series(1, 10) g;
BEGIN;
SELECT k FROM lk WHERE k <= 3 ORDER BY k FOR UPDATE;
SELECT k FROM lk WHERE k BETWEEN 4 AND 5 ORDER BY k FOR NO KEY UPDATE;
SELECT k FROM lk WHERE k BETWEEN 6 AND 7 ORDER BY k FOR SHARE;
SELECT k FROM lk WHERE k BETWEEN 8 AND 9 ORDER BY k FOR KEY SHARE;
SELECT lp, infomask FROM blinkheap_page_items('lk', 0) ORDER BY lp;
-- a subtransaction locking again makes MultiXacts
SAVEPOINT a;
SELECT k FROM lk WHERE k IN (6, 8) ORDER BY k FOR UPDATE;
SELECT lp, infomask FROM blinkheap_page_items('lk', 0) WHERE lp IN (6, 8) ORDER BY lp;
ROLLBACK TO a;
UPDATE lk SET v = v + 100 WHERE k IN (1, 4, 6, 8, 10);
COMMIT;
SELECT * FROM lk ORDER BY k;
SELECT blinkheap_check('lk');

-- foreign keys, both directions
CREATE TABLE fk_parent_b (id int PRIMARY KEY, name text) USING blinkheap;
CREATE TABLE fk_child_h (id int PRIMARY KEY, pid int REFERENCES fk_parent_b ON DELETE CASCADE);
CREATE TABLE fk_parent_h (id int PRIMARY KEY);
CREATE TABLE fk_child_b (id int PRIMARY KEY, pid int REFERENCES fk_parent_h ON UPDATE CASCADE)
	USING blinkheap;
INSERT INTO fk_parent_b SELECT g, 'p' || g FROM generate_series(1, 10) g;
INSERT INTO fk_child_h SELECT g, g % 10 + 1 FROM generate_series(1, 30) g;
INSERT INTO fk_child_h VALUES (31, 11);
DELETE FROM fk_parent_b WHERE id = 3;
SELECT count(*) FROM fk_child_h;
UPDATE fk_parent_b SET name = 'renamed' WHERE id = 4;
UPDATE fk_parent_b SET id = 40 WHERE id = 4;
INSERT INTO fk_parent_h SELECT g FROM generate_series(1, 5) g;
INSERT INTO fk_child_b SELECT g, g % 5 + 1 FROM generate_series(1, 20) g;
INSERT INTO fk_child_b VALUES (21, 6);
UPDATE fk_parent_h SET id = 50 WHERE id = 5;
SELECT pid, count(*) FROM fk_child_b GROUP BY pid ORDER BY pid;
DELETE FROM fk_parent_h WHERE id = 1;
UPDATE fk_child_b SET pid = 99 WHERE id = 1;
SELECT blinkheap_check('fk_parent_b'), blinkheap_check('fk_child_b');

-- triggers
CREATE TABLE trg_log (op text, old_v text, new_v text);
CREATE FUNCTION trg_before() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN NEW.v := NEW.v || '!'; RETURN NEW; END $$;
CREATE FUNCTION trg_after() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO trg_log VALUES (TG_OP,
		CASE WHEN TG_OP <> 'INSERT' THEN OLD.v END,
		CASE WHEN TG_OP <> 'DELETE' THEN NEW.v END);
	RETURN NULL;
END $$;
CREATE TABLE trg (k int, v text) USING blinkheap;
CREATE TRIGGER trg_b BEFORE INSERT OR UPDATE ON trg FOR EACH ROW EXECUTE FUNCTION trg_before();
CREATE TRIGGER trg_a AFTER INSERT OR UPDATE OR DELETE ON trg FOR EACH ROW EXECUTE FUNCTION trg_after();
INSERT INTO trg VALUES (1, 'a'), (2, 'b');
UPDATE trg SET v = v || 'c' WHERE k = 1;
DELETE FROM trg WHERE k = 2;
SELECT * FROM trg;
SELECT * FROM trg_log;
COPY trg TO STDOUT;

-- TID scans and TID range scans
EXPLAIN (COSTS OFF) SELECT count(*) FROM bh WHERE ctid >= '(2,0)' AND ctid < '(5,0)';
SELECT count(*) FROM bh WHERE ctid >= '(2,0)' AND ctid < '(5,0)';
SET enable_tidscan = off;
SELECT count(*) FROM bh WHERE ctid >= '(2,0)' AND ctid < '(5,0)';
RESET enable_tidscan;
SELECT count(*) FROM bh WHERE ctid < '(1,10)';
SELECT count(*) FROM bh WHERE ctid > '(100000,1)';
-- a range whose lower bound lies in a later block than its upper bound is
-- empty, and no block is read for it
BEGIN;
SELECT pg_stat_get_xact_blocks_fetched('bh'::regclass) AS before \gset
SELECT count(*) FROM bh WHERE ctid >= '(3,1)' AND ctid <= '(1,1)';
SELECT pg_stat_get_xact_blocks_fetched('bh'::regclass) - :before AS blocks_read;
COMMIT;
SELECT ctid, id FROM bh WHERE ctid = '(0,3)';
SELECT ctid, id FROM bh WHERE ctid = '(0,1)';
SELECT ctid, id FROM bh WHERE ctid = '(0,500)';
SELECT ctid, id FROM bh WHERE ctid = '(100000,1)';
-- currtid follows the update chain
CREATE TABLE chain (k int, v int) USING blinkheap;
INSERT INTO chain VALUES (1, 0);
UPDATE chain SET v = 1;
UPDATE chain SET v = 2;
SELECT currtid2('chain', '(0,1)'), (SELECT ctid FROM chain);

-- pg_stat_user_tables counters
CREATE TABLE st_b (k int, v int) USING blinkheap;
CREATE TABLE st_h (k int, v int);
INSERT INTO st_b SELECT g, g FROM generate_series(1, 10) g;
INSERT INTO st_h SELECT g, g FROM generate_series(1, 10) g;
UPDATE st_b SET v = 0 WHERE k <= 3;
UPDATE st_h SET v = 0 WHERE k <= 3;
DELETE FROM st_b WHERE k > 8;
DELETE FROM st_h WHERE k > 8;
BEGIN; INSERT INTO st_b VALUES (100, 100); ROLLBACK;
BEGIN; INSERT INTO st_h VALUES (100, 100); ROLLBACK;
SELECT count(*) FROM st_b;
SELECT count(*) FROM st_h;
SELECT pg_stat_force_next_flush();
SELECT relname, n_tup_ins, n_tup_upd, n_tup_del, seq_scan > 0 AS scanned
FROM pg_stat_user_tables WHERE relname IN ('st_b', 'st_h') ORDER BY relname;

-- reloptions: heap's are accepted (fillfactor is honoured), others not
CREATE TABLE ff (k int, v text) USING blinkheap WITH (fillfactor = 50);
INSERT INTO ff SELECT g, repeat('f', 100) FROM generate_series(1, 200) g;
SELECT free_size >= 8192 * 50 / 100 - 200 AS half_free FROM blinkheap_page_stats('ff', 0);
CREATE TABLE bad (k int) USING blinkheap WITH (nonsense = 1);
CREATE TABLE bad (k int) USING blinkheap WITH (fillfactor = 5);

-- VACUUM and ANALYZE complete
-- (TABLESAMPLE, CLUSTER and VACUUM FULL: blinkheap_rewrite.sql; ON CONFLICT:
-- blinkheap_onconflict.sql)
VACUUM bh;
ANALYZE bh;
SELECT reltuples = (SELECT count(*) FROM bh) AS reltuples_exact FROM pg_class WHERE relname = 'bh';
SELECT count(*) > 0 AS has_stats FROM pg_stats WHERE tablename = 'bh';

-- CREATE INDEX CONCURRENTLY, btree and blink
CREATE INDEX CONCURRENTLY bh_cic ON bh (grp);
CREATE INDEX CONCURRENTLY bh_cic_blink ON bh USING blink (n);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM bh WHERE grp = 7;
SELECT count(*) FROM bh WHERE grp = 7;
SELECT count(*) FROM bh WHERE n > 5000;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*) FROM hp WHERE grp = 7;
SELECT count(*) FROM hp WHERE n > 5000;
SELECT blink_check('bh_cic_blink', true);

-- TRUNCATE, also rolled back; temporary and unlogged tables
BEGIN;
TRUNCATE lk;
SELECT count(*) FROM lk;
ROLLBACK;
SELECT count(*) FROM lk;
TRUNCATE trg;
SELECT count(*) FROM trg;
INSERT INTO trg VALUES (3, 'c');
SELECT * FROM trg;
CREATE TEMP TABLE tmp_b (k int, v text) USING blinkheap;
INSERT INTO tmp_b SELECT g, 'v' || g FROM generate_series(1, 1000) g;
UPDATE tmp_b SET v = v || '!' WHERE k % 2 = 0;
DELETE FROM tmp_b WHERE k % 3 = 0;
SELECT count(*), count(*) FILTER (WHERE v LIKE '%!') FROM tmp_b;
SELECT blinkheap_check('tmp_b');
CREATE UNLOGGED TABLE unl_b (k int, v text) USING blinkheap;
INSERT INTO unl_b SELECT g, 'v' || g FROM generate_series(1, 1000) g;
SELECT count(*) FROM unl_b;
SELECT blinkheap_check('unl_b');

-- A single-row insert on a page in use changes the page in place: its
-- tuple is appended and older tuples' xmins are stamped (gxlog.c, "Appends
-- in place").  One that fails before its record (at the in_batch stop)
-- puts the page back: the same line pointers, free space and tuple
-- headers -- row 2's xmin, which the failed record stamped, unstamped
-- again.
CREATE TABLE app_h (id int) USING blinkheap;
INSERT INTO app_h VALUES (1);
INSERT INTO app_h VALUES (2);
CREATE TEMP TABLE app_h_before AS
SELECT s.free_size, s.line_pointers, i.lp, i.lp_len, i.t_ctid, i.infomask
  FROM blinkheap_page_stats('app_h', 0) s, blinkheap_page_items('app_h', 0) i;
SELECT lp, infomask FROM app_h_before ORDER BY lp;
SET blinkam.debug_stop_at = 'in_batch';
INSERT INTO app_h VALUES (3);
RESET blinkam.debug_stop_at;
SELECT count(*) AS changed FROM (
  SELECT s.free_size, s.line_pointers, i.lp, i.lp_len, i.t_ctid, i.infomask
    FROM blinkheap_page_stats('app_h', 0) s, blinkheap_page_items('app_h', 0) i
  EXCEPT SELECT * FROM app_h_before) c;
-- the same insert again: row 3 in the next line pointer, row 2 stamped
INSERT INTO app_h VALUES (3);
SELECT lp, t_ctid, infomask FROM blinkheap_page_items('app_h', 0) ORDER BY lp;
SELECT id, ctid FROM app_h ORDER BY id;
SELECT blinkheap_check('app_h');
DROP TABLE app_h, app_h_before;

-- the tools refuse other tables and blocks
SELECT blinkheap_check('hp');
SELECT blinkheap_check(0);	-- a relation that does not exist
SELECT * FROM blinkheap_page_stats('bh', 100000);

-- verify everything
SELECT same_rows('bh', 'hp');
SELECT blinkheap_check('bh');
SELECT blinkheap_check('bt');
SELECT blinkheap_check('chain');
SELECT blinkheap_check('trg');
SELECT blinkheap_check('ff');
SELECT blink_check('bh_grp_blink');
SELECT blink_check('bh_grp_blink', true);
