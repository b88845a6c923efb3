--
-- INSERT ... ON CONFLICT on blinkheap tables, side by side with heap.
--
-- Every statement runs on a blinkheap table (*_b) and on a heap table
-- (*_h) with the same rows and indexes; oc_same() compares the two with
-- EXCEPT ALL both ways.  ON CONFLICT arbiters are btree indexes here
-- (unique blink arbiters: sql/blink_onconflict.sql).  Runs with
-- wal_consistency_checking = 'generic'.  The races (speculative
-- insertions killed after a conflict) are in specs/blinkheap_onconflict_race.spec.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS blinkam;
RESET client_min_messages;

CREATE FUNCTION oc_same(a regclass, b regclass) RETURNS text
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

-- live chunks in a table's TOAST table
CREATE FUNCTION oc_toast_chunks(t regclass) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM %s',
				   (SELECT reltoastrelid::regclass FROM pg_class WHERE oid = t)) INTO n;
	RETURN n;
END $$;

-- a value too large and too random to stay in line (about 8 kB)
CREATE FUNCTION oc_big(seed int) RETURNS text
LANGUAGE sql AS $$
	SELECT string_agg(md5((seed * 1000 + g)::text), '') FROM generate_series(1, 250) g
$$;

--
-- 1. A btree unique index
--
CREATE TABLE u_b (k int, v text, n int DEFAULT 0) USING blinkheap;
CREATE TABLE u_h (k int, v text, n int DEFAULT 0);
CREATE UNIQUE INDEX u_b_k ON u_b (k);
CREATE UNIQUE INDEX u_h_k ON u_h (k);
INSERT INTO u_b SELECT g, 'v' || g FROM generate_series(1, 100) g;
INSERT INTO u_h SELECT g, 'v' || g FROM generate_series(1, 100) g;

-- DO NOTHING: half of the rows conflict
INSERT INTO u_b SELECT g, 'new' || g FROM generate_series(51, 150) g ON CONFLICT DO NOTHING;
INSERT INTO u_h SELECT g, 'new' || g FROM generate_series(51, 150) g ON CONFLICT DO NOTHING;
INSERT INTO u_b VALUES (1, 'x'), (151, 'y') ON CONFLICT (k) DO NOTHING RETURNING k, v;
INSERT INTO u_h VALUES (1, 'x'), (151, 'y') ON CONFLICT (k) DO NOTHING RETURNING k, v;
SELECT oc_same('u_b', 'u_h');

-- DO UPDATE with EXCLUDED and RETURNING
INSERT INTO u_b VALUES (1, 'one'), (200, 'two hundred')
	ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v, n = u_b.n + 1 RETURNING k, v, n;
INSERT INTO u_h VALUES (1, 'one'), (200, 'two hundred')
	ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v, n = u_h.n + 1 RETURNING k, v, n;
-- DO UPDATE ... WHERE: only even keys change, odd ones are left alone
INSERT INTO u_b SELECT g, 'w' || g FROM generate_series(90, 110) g
	ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v, n = u_b.n + 10 WHERE u_b.k % 2 = 0
	RETURNING k, v, n;
INSERT INTO u_h SELECT g, 'w' || g FROM generate_series(90, 110) g
	ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v, n = u_h.n + 10 WHERE u_h.k % 2 = 0
	RETURNING k, v, n;
-- the same rows again: every one conflicts now, and updates twice over
INSERT INTO u_b SELECT g, 'again' FROM generate_series(1, 300) g
	ON CONFLICT (k) DO UPDATE SET n = u_b.n + 1, v = u_b.v || '+';
INSERT INTO u_h SELECT g, 'again' FROM generate_series(1, 300) g
	ON CONFLICT (k) DO UPDATE SET n = u_h.n + 1, v = u_h.v || '+';
SELECT oc_same('u_b', 'u_h');
SELECT count(*), sum(n), count(*) FILTER (WHERE v LIKE '%+') FROM u_b;

-- the index finds exactly the rows a sequential scan finds
SET enable_seqscan = off;
SELECT count(*) FROM u_b WHERE k BETWEEN 1 AND 400;
RESET enable_seqscan;

--
-- 2. Conflicts within one statement: heap's errors, heap's results
--
INSERT INTO u_b VALUES (5, 'a'), (5, 'b') ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v;
INSERT INTO u_h VALUES (5, 'a'), (5, 'b') ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v;
-- a new key twice: the first is inserted, the second meets it
INSERT INTO u_b VALUES (500, 'a'), (500, 'b') ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v;
INSERT INTO u_h VALUES (500, 'a'), (500, 'b') ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v;
-- DO NOTHING keeps the first and drops the second
INSERT INTO u_b VALUES (501, 'a'), (501, 'b') ON CONFLICT DO NOTHING RETURNING k, v;
INSERT INTO u_h VALUES (501, 'a'), (501, 'b') ON CONFLICT DO NOTHING RETURNING k, v;
SELECT oc_same('u_b', 'u_h');
SELECT * FROM u_b WHERE k IN (5, 500, 501) ORDER BY k;

--
-- 3. A primary key, named by its constraint
--
CREATE TABLE pk_b (id int PRIMARY KEY, cnt int, t text) USING blinkheap;
CREATE TABLE pk_h (id int PRIMARY KEY, cnt int, t text);
INSERT INTO pk_b SELECT g % 10, 1, 'first' FROM generate_series(1, 10) g
	ON CONFLICT ON CONSTRAINT pk_b_pkey DO UPDATE SET cnt = pk_b.cnt + 1;
INSERT INTO pk_h SELECT g % 10, 1, 'first' FROM generate_series(1, 10) g
	ON CONFLICT ON CONSTRAINT pk_h_pkey DO UPDATE SET cnt = pk_h.cnt + 1;
INSERT INTO pk_b SELECT g, 1, 'second' FROM generate_series(5, 14) g
	ON CONFLICT ON CONSTRAINT pk_b_pkey DO UPDATE SET cnt = pk_b.cnt + 1, t = EXCLUDED.t
	RETURNING id, cnt, t;
INSERT INTO pk_h SELECT g, 1, 'second' FROM generate_series(5, 14) g
	ON CONFLICT ON CONSTRAINT pk_h_pkey DO UPDATE SET cnt = pk_h.cnt + 1, t = EXCLUDED.t
	RETURNING id, cnt, t;
-- updating the key itself to a value that is taken fails as for heap
INSERT INTO pk_b VALUES (1, 1, 'x') ON CONFLICT (id) DO UPDATE SET id = 2;
INSERT INTO pk_h VALUES (1, 1, 'x') ON CONFLICT (id) DO UPDATE SET id = 2;
INSERT INTO pk_b VALUES (1, 1, 'x') ON CONFLICT (id) DO UPDATE SET id = 100 RETURNING *;
INSERT INTO pk_h VALUES (1, 1, 'x') ON CONFLICT (id) DO UPDATE SET id = 100 RETURNING *;
SELECT oc_same('pk_b', 'pk_h');

--
-- 4. A partial unique index: only active rows are unique
--
CREATE TABLE pu_b (k int, active bool, v int) USING blinkheap;
CREATE TABLE pu_h (k int, active bool, v int);
CREATE UNIQUE INDEX pu_b_k ON pu_b (k) WHERE active;
CREATE UNIQUE INDEX pu_h_k ON pu_h (k) WHERE active;
INSERT INTO pu_b SELECT g % 5, g % 2 = 0, g FROM generate_series(1, 10) g
	ON CONFLICT (k) WHERE active DO UPDATE SET v = pu_b.v + EXCLUDED.v;
INSERT INTO pu_h SELECT g % 5, g % 2 = 0, g FROM generate_series(1, 10) g
	ON CONFLICT (k) WHERE active DO UPDATE SET v = pu_h.v + EXCLUDED.v;
INSERT INTO pu_b VALUES (1, true, 100), (1, false, 100), (7, true, 7)
	ON CONFLICT (k) WHERE active DO NOTHING RETURNING *;
INSERT INTO pu_h VALUES (1, true, 100), (1, false, 100), (7, true, 7)
	ON CONFLICT (k) WHERE active DO NOTHING RETURNING *;
INSERT INTO pu_b VALUES (1, true, 1000) ON CONFLICT (k) WHERE active
	DO UPDATE SET v = EXCLUDED.v WHERE pu_b.v < 1000 RETURNING *;
INSERT INTO pu_h VALUES (1, true, 1000) ON CONFLICT (k) WHERE active
	DO UPDATE SET v = EXCLUDED.v WHERE pu_h.v < 1000 RETURNING *;
SELECT oc_same('pu_b', 'pu_h');
SELECT * FROM pu_b ORDER BY k, active, v;

--
-- 5. A multi-column unique index
--
CREATE TABLE mc_b (a int, b text, c int) USING blinkheap;
CREATE TABLE mc_h (a int, b text, c int);
CREATE UNIQUE INDEX mc_b_ab ON mc_b (a, b);
CREATE UNIQUE INDEX mc_h_ab ON mc_h (a, b);
INSERT INTO mc_b SELECT g % 4, chr(97 + g % 3), 1 FROM generate_series(1, 12) g
	ON CONFLICT (a, b) DO NOTHING;
INSERT INTO mc_h SELECT g % 4, chr(97 + g % 3), 1 FROM generate_series(1, 12) g
	ON CONFLICT (a, b) DO NOTHING;
INSERT INTO mc_b SELECT g % 5, chr(97 + g % 4), g FROM generate_series(1, 20) g
	ON CONFLICT (b, a) DO UPDATE SET c = mc_b.c + EXCLUDED.c RETURNING *;
INSERT INTO mc_h SELECT g % 5, chr(97 + g % 4), g FROM generate_series(1, 20) g
	ON CONFLICT (b, a) DO UPDATE SET c = mc_h.c + EXCLUDED.c RETURNING *;
SELECT oc_same('mc_b', 'mc_h');

--
-- 6. TOAST values in speculative insertions
--
CREATE TABLE tt_b (k int PRIMARY KEY, big text) USING blinkheap;
CREATE TABLE tt_h (k int PRIMARY KEY, big text);
INSERT INTO tt_b SELECT g, oc_big(g) FROM generate_series(1, 5) g ON CONFLICT DO NOTHING;
INSERT INTO tt_h SELECT g, oc_big(g) FROM generate_series(1, 5) g ON CONFLICT DO NOTHING;
INSERT INTO tt_b SELECT g, oc_big(g + 100) FROM generate_series(4, 8) g ON CONFLICT DO NOTHING;
INSERT INTO tt_h SELECT g, oc_big(g + 100) FROM generate_series(4, 8) g ON CONFLICT DO NOTHING;
INSERT INTO tt_b SELECT g, oc_big(g + 200) FROM generate_series(7, 10) g
	ON CONFLICT (k) DO UPDATE SET big = EXCLUDED.big || tt_b.big;
INSERT INTO tt_h SELECT g, oc_big(g + 200) FROM generate_series(7, 10) g
	ON CONFLICT (k) DO UPDATE SET big = EXCLUDED.big || tt_h.big;
SELECT oc_same('tt_b', 'tt_h');
SELECT oc_toast_chunks('tt_b') = oc_toast_chunks('tt_h') AS same_chunks,
	   oc_toast_chunks('tt_b') > 0 AS toasted;
SELECT k, length(big), md5(big) = md5(oc_big(k)) AS first_value FROM tt_b ORDER BY k;

--
-- 7. Savepoints rolled back
--
BEGIN;
INSERT INTO u_b VALUES (600, 'sp') ON CONFLICT DO NOTHING;
INSERT INTO u_h VALUES (600, 'sp') ON CONFLICT DO NOTHING;
SAVEPOINT a;
INSERT INTO u_b VALUES (600, 'sp2'), (601, 'sp2') ON CONFLICT (k) DO UPDATE SET v = 'updated in a';
INSERT INTO u_h VALUES (600, 'sp2'), (601, 'sp2') ON CONFLICT (k) DO UPDATE SET v = 'updated in a';
INSERT INTO tt_b VALUES (20, oc_big(20)), (1, oc_big(21)) ON CONFLICT (k) DO UPDATE SET big = EXCLUDED.big;
INSERT INTO tt_h VALUES (20, oc_big(20)), (1, oc_big(21)) ON CONFLICT (k) DO UPDATE SET big = EXCLUDED.big;
ROLLBACK TO a;
SAVEPOINT b;
INSERT INTO u_b VALUES (602, 'b') ON CONFLICT DO NOTHING;
INSERT INTO u_h VALUES (602, 'b') ON CONFLICT DO NOTHING;
INSERT INTO u_b VALUES (602, 'b'), (602, 'c') ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v;
ROLLBACK TO b;
INSERT INTO u_b VALUES (601, 'after'), (600, 'after') ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v;
INSERT INTO u_h VALUES (601, 'after'), (600, 'after') ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v;
COMMIT;
SELECT * FROM u_b WHERE k >= 600 ORDER BY k;
SELECT oc_same('u_b', 'u_h');
SELECT oc_same('tt_b', 'tt_h');
SELECT oc_toast_chunks('tt_b') = oc_toast_chunks('tt_h') AS same_chunks;

--
-- 8. A table with a (non-unique) blink index besides the btree unique one
--
CREATE TABLE bl_b (k int, g int, v text) USING blinkheap;
CREATE TABLE bl_h (k int, g int, v text);
CREATE UNIQUE INDEX bl_b_k ON bl_b (k);
CREATE UNIQUE INDEX bl_h_k ON bl_h (k);
CREATE INDEX bl_b_g ON bl_b USING blink (g);
CREATE INDEX bl_h_g ON bl_h (g);
INSERT INTO bl_b SELECT i, i % 7, 'v' || i FROM generate_series(1, 500) i ON CONFLICT DO NOTHING;
INSERT INTO bl_h SELECT i, i % 7, 'v' || i FROM generate_series(1, 500) i ON CONFLICT DO NOTHING;
INSERT INTO bl_b SELECT i, i % 11, 'w' || i FROM generate_series(250, 750) i
	ON CONFLICT (k) DO UPDATE SET g = EXCLUDED.g, v = bl_b.v || EXCLUDED.v;
INSERT INTO bl_h SELECT i, i % 11, 'w' || i FROM generate_series(250, 750) i
	ON CONFLICT (k) DO UPDATE SET g = EXCLUDED.g, v = bl_h.v || EXCLUDED.v;
BEGIN;
SAVEPOINT s;
INSERT INTO bl_b SELECT i, 3, 'gone' FROM generate_series(700, 800) i
	ON CONFLICT (k) DO UPDATE SET g = 3;
ROLLBACK TO s;
COMMIT;
SELECT oc_same('bl_b', 'bl_h');
-- the blink index answers like heap's btree
SET enable_seqscan = off;
SELECT count(*), sum(k) FROM bl_b WHERE g = 3;
SELECT count(*), sum(k) FROM bl_h WHERE g = 3;
RESET enable_seqscan;

--
-- VACUUM, then verify everything
--
VACUUM u_b, pk_b, pu_b, mc_b, tt_b, bl_b;
SELECT oc_same('u_b', 'u_h');
SELECT oc_same('bl_b', 'bl_h');
SELECT blinkheap_check('u_b');
SELECT blinkheap_check('pk_b');
SELECT blinkheap_check('pu_b');
SELECT blinkheap_check('mc_b');
SELECT blinkheap_check('tt_b');
SELECT blinkheap_check('bl_b');
SELECT blink_check('bl_b_g');

DROP TABLE u_b, u_h, pk_b, pk_h, pu_b, pu_h, mc_b, mc_h, tt_b, tt_h, bl_b, bl_h;
DROP FUNCTION oc_same(regclass, regclass), oc_toast_chunks(regclass), oc_big(int);
-- leave the extension as we found it: drop it unless another test's tables use it
DO $$
BEGIN
	IF NOT EXISTS (SELECT FROM pg_class c JOIN pg_am a ON a.oid = c.relam
				   WHERE a.amname IN ('blinkheap', 'blink')) THEN
		DROP EXTENSION blinkam;
	END IF;
END $$;
