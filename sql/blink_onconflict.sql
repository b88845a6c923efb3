--
-- INSERT ... ON CONFLICT arbitrated by unique blink indexes, side by side
-- with btree.  Every statement runs through on_both() on a table whose
-- unique indexes are blink (*_k) and on a twin whose unique indexes are
-- btree (*_b), with the same rows; both_same() compares the two tables
-- with EXCEPT ALL both ways, and RETURNING rows are shown for both.
-- Concurrent same-key upserts: specs/blink_onconflict_race.spec.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS blinkam;
RESET client_min_messages;

-- Run sql with %1$s replaced by the blink table, then by the btree twin;
-- returns both outcomes: the rows of a SELECT or of an INSERT's RETURNING
-- (run as a WITH query), the row count of another statement (run at the
-- top level), or the error.
CREATE FUNCTION on_both(sql text, k text, b text) RETURNS TABLE (am text, result text)
LANGUAGE plpgsql AS $$
DECLARE
	t text;
	r text;
	n bigint;
BEGIN
	FOREACH t IN ARRAY ARRAY[k, b] LOOP
		am := CASE WHEN t = k THEN 'blink' ELSE 'btree' END;
		BEGIN
			IF sql ~* '^\s*SELECT' THEN
				EXECUTE format('SELECT coalesce(string_agg(x::text, '' '' ORDER BY x::text), ''-'') FROM (%s) x',
							   format(sql, t)) INTO r;
			ELSIF sql ~* '^\s*INSERT' AND sql ~* 'RETURNING' THEN
				EXECUTE format('WITH x AS (%s) SELECT coalesce(string_agg(x::text, '' '' ORDER BY x::text), ''-'') FROM x',
							   format(sql, t)) INTO r;
			ELSE
				EXECUTE format(sql, t);
				GET DIAGNOSTICS n = ROW_COUNT;
				r := n || ' rows';
			END IF;
			result := r;
		EXCEPTION WHEN OTHERS THEN
			result := 'ERROR ' || SQLSTATE || ': ' || replace(SQLERRM, t, '<t>');
		END;
		RETURN NEXT;
	END LOOP;
END $$;

CREATE FUNCTION both_same(k regclass, b regclass) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	n1 bigint; n2 bigint; d1 bigint; d2 bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM %s', k) INTO n1;
	EXECUTE format('SELECT count(*) FROM %s', b) INTO n2;
	EXECUTE format('SELECT count(*) FROM (TABLE %s EXCEPT ALL TABLE %s) x', k, b) INTO d1;
	EXECUTE format('SELECT count(*) FROM (TABLE %s EXCEPT ALL TABLE %s) x', b, k) INTO d2;
	RETURN format('%s / %s rows, %s / %s differ', n1, n2, d1, d2);
END $$;

-- 0. blinkam remembers per session whether any unique blink index exists
--    (ON CONFLICT through a partitioned table only looks at the partitions
--    when one does); a new one must be seen at once.
CREATE TABLE r (k int, ts int) PARTITION BY RANGE (ts);
CREATE TABLE r1 PARTITION OF r FOR VALUES FROM (0) TO (100);
INSERT INTO r VALUES (1, 1) ON CONFLICT DO NOTHING;
CREATE UNIQUE INDEX r1_k ON r1 USING blink (k, ts);
INSERT INTO r VALUES (1, 1) ON CONFLICT DO NOTHING;
DROP INDEX r1_k;
INSERT INTO r VALUES (2, 2) ON CONFLICT DO NOTHING;
SELECT * FROM r ORDER BY k;
DROP TABLE r;

-- 1. One unique index on k, plus a non-unique blink index on v (which
--    statement buffers would hold back outside ON CONFLICT).
CREATE TABLE o_k (k int, v text, n int DEFAULT 0);
CREATE TABLE o_b (k int, v text, n int DEFAULT 0);
CREATE UNIQUE INDEX o_k_k ON o_k USING blink (k);
CREATE UNIQUE INDEX o_b_k ON o_b USING btree (k);
CREATE INDEX o_k_v ON o_k USING blink (v);
CREATE INDEX o_b_v ON o_b USING btree (v);
INSERT INTO o_k SELECT i, 'v' || i FROM generate_series(1, 3000) i;
INSERT INTO o_b SELECT i, 'v' || i FROM generate_series(1, 3000) i;

SELECT * FROM on_both($$INSERT INTO %1$s VALUES (5, 'new') ON CONFLICT (k) DO NOTHING RETURNING k, v$$, 'o_k', 'o_b');
SELECT * FROM on_both($$INSERT INTO %1$s VALUES (5, 'new') ON CONFLICT DO NOTHING RETURNING k, v$$, 'o_k', 'o_b');
SELECT * FROM on_both($$INSERT INTO %1$s VALUES (3001, 'new') ON CONFLICT DO NOTHING RETURNING k, v$$, 'o_k', 'o_b');
SELECT * FROM on_both($$INSERT INTO %1$s VALUES (5, 'upd') ON CONFLICT (k) DO UPDATE SET v = excluded.v, n = %1$s.n + 1 RETURNING k, v, n$$, 'o_k', 'o_b');
SELECT * FROM on_both($$INSERT INTO %1$s VALUES (6, 'upd') ON CONFLICT (k) DO UPDATE SET v = excluded.v WHERE %1$s.k > 100 RETURNING k, v$$, 'o_k', 'o_b');
-- many rows, half of them conflicts, in one statement
SELECT * FROM on_both($$INSERT INTO %1$s SELECT i, 'bulk' FROM generate_series(2901, 3100) i ON CONFLICT (k) DO UPDATE SET n = %1$s.n + 10$$, 'o_k', 'o_b');
SELECT * FROM on_both($$SELECT n, count(*) FROM %1$s WHERE k BETWEEN 2890 AND 3110 GROUP BY n ORDER BY n$$, 'o_k', 'o_b');
-- the same key twice in one statement
SELECT * FROM on_both($$INSERT INTO %1$s VALUES (7, 'a'), (7, 'b') ON CONFLICT (k) DO UPDATE SET v = excluded.v$$, 'o_k', 'o_b');
SELECT * FROM on_both($$INSERT INTO %1$s VALUES (9001, 'a'), (9001, 'b') ON CONFLICT (k) DO NOTHING RETURNING k, v$$, 'o_k', 'o_b');
-- a conflict on a unique index that is not the arbiter is an error
CREATE UNIQUE INDEX o_k_kv ON o_k USING blink (v);
CREATE UNIQUE INDEX o_b_kv ON o_b USING btree (v);
SELECT * FROM on_both($$INSERT INTO %1$s VALUES (9002, 'v10') ON CONFLICT (k) DO NOTHING RETURNING k$$, 'o_k', 'o_b');
SELECT * FROM on_both($$INSERT INTO %1$s VALUES (10, 'v10x') ON CONFLICT (v) DO UPDATE SET n = -1 RETURNING k, n$$, 'o_k', 'o_b');
SELECT * FROM on_both($$INSERT INTO %1$s VALUES (10, 'v11') ON CONFLICT DO NOTHING RETURNING k$$, 'o_k', 'o_b');
DROP INDEX o_k_kv, o_b_kv;
-- in a data-modifying WITH, and a prepared statement run more than five
-- times (so a generic plan is cached)
SELECT * FROM on_both($$WITH w AS (INSERT INTO %1$s VALUES (8, 'cte') ON CONFLICT (k) DO UPDATE SET v = 'cte-upd' RETURNING k, v) INSERT INTO %1$s SELECT k + 100000, v FROM w$$, 'o_k', 'o_b');
SELECT * FROM on_both($$SELECT k, v FROM %1$s WHERE k IN (8, 100008)$$, 'o_k', 'o_b');
PREPARE up_k(int) AS INSERT INTO o_k VALUES ($1, 'prep') ON CONFLICT (k) DO UPDATE SET n = o_k.n + 1;
PREPARE up_b(int) AS INSERT INTO o_b VALUES ($1, 'prep') ON CONFLICT (k) DO UPDATE SET n = o_b.n + 1;
DO $$ BEGIN FOR i IN 1..8 LOOP EXECUTE format('EXECUTE up_k(%s)', 4000 + i % 3); EXECUTE format('EXECUTE up_b(%s)', 4000 + i % 3); END LOOP; END $$;
SELECT * FROM on_both($$SELECT k, v, n FROM %1$s WHERE k >= 4000 AND k < 5000 ORDER BY k$$, 'o_k', 'o_b');
SELECT both_same('o_k', 'o_b');
EXPLAIN (COSTS OFF) INSERT INTO o_k VALUES (1, 'x') ON CONFLICT (k) DO NOTHING;
SELECT blink_check('o_k_k', true);
SELECT blink_check('o_k_v', true);

-- 2. Through a view and through a rule.
CREATE VIEW ov_k AS SELECT k, v FROM o_k;
CREATE VIEW ov_b AS SELECT k, v FROM o_b;
SELECT * FROM on_both($$INSERT INTO %1$s VALUES (11, 'view') ON CONFLICT (k) DO UPDATE SET v = excluded.v RETURNING k, v$$, 'ov_k', 'ov_b');
CREATE TABLE src_k (k int, v text);
CREATE TABLE src_b (k int, v text);
CREATE RULE r_k AS ON INSERT TO src_k DO INSTEAD
	INSERT INTO o_k VALUES (new.k, new.v) ON CONFLICT (k) DO UPDATE SET v = 'rule:' || excluded.v;
CREATE RULE r_b AS ON INSERT TO src_b DO INSTEAD
	INSERT INTO o_b VALUES (new.k, new.v) ON CONFLICT (k) DO UPDATE SET v = 'rule:' || excluded.v;
INSERT INTO src_k VALUES (12, 'x'), (99999, 'y');
INSERT INTO src_b VALUES (12, 'x'), (99999, 'y');
SELECT * FROM on_both($$SELECT k, v FROM %1$s WHERE k IN (11, 12, 99999) ORDER BY k$$, 'o_k', 'o_b');
SELECT both_same('o_k', 'o_b');
SELECT blink_check('o_k_k', true);

-- 3. Several columns, NULLS NOT DISTINCT, an expression and a partial
--    index as arbiters.
CREATE TABLE m_k (a int, b int, t text, f boolean DEFAULT true);
CREATE TABLE m_b (a int, b int, t text, f boolean DEFAULT true);
CREATE UNIQUE INDEX m_k_ab ON m_k USING blink (a, b) NULLS NOT DISTINCT;
CREATE UNIQUE INDEX m_b_ab ON m_b USING btree (a, b) NULLS NOT DISTINCT;
CREATE UNIQUE INDEX m_k_lt ON m_k USING blink (lower(t)) WHERE f;
CREATE UNIQUE INDEX m_b_lt ON m_b USING btree (lower(t)) WHERE f;
INSERT INTO m_k SELECT i % 50, i / 50, 'T' || i FROM generate_series(1, 1000) i;
INSERT INTO m_b SELECT i % 50, i / 50, 'T' || i FROM generate_series(1, 1000) i;
SELECT * FROM on_both($$INSERT INTO %1$s VALUES (1, NULL, 'n1') ON CONFLICT (a, b) DO NOTHING RETURNING a, b$$, 'm_k', 'm_b');
SELECT * FROM on_both($$INSERT INTO %1$s VALUES (1, NULL, 'n2') ON CONFLICT (a, b) DO UPDATE SET t = excluded.t RETURNING a, b, t$$, 'm_k', 'm_b');
SELECT * FROM on_both($$INSERT INTO %1$s VALUES (3, 4, 'x') ON CONFLICT (a, b) DO UPDATE SET t = 'ab-upd' RETURNING a, b, t$$, 'm_k', 'm_b');
SELECT * FROM on_both($$INSERT INTO %1$s VALUES (500, 500, 't7') ON CONFLICT (lower(t)) WHERE f DO UPDATE SET t = 'lt-upd' RETURNING a, b, t$$, 'm_k', 'm_b');
SELECT * FROM on_both($$INSERT INTO %1$s VALUES (501, 501, 't8', false) ON CONFLICT (lower(t)) WHERE f DO NOTHING RETURNING a, b$$, 'm_k', 'm_b');
SELECT * FROM on_both($$INSERT INTO %1$s VALUES (502, 502, 't9') ON CONFLICT (lower(t)) DO NOTHING RETURNING a$$, 'm_k', 'm_b');
SELECT both_same('m_k', 'm_b');
SELECT blink_check('m_k_ab', true);
SELECT blink_check('m_k_lt', true);

-- 4. A blinkheap table with a unique blink index.
CREATE TABLE h_k (k int, v text) USING blinkheap;
CREATE TABLE h_b (k int, v text);
CREATE UNIQUE INDEX h_k_k ON h_k USING blink (k);
CREATE UNIQUE INDEX h_b_k ON h_b USING btree (k);
INSERT INTO h_k SELECT i, 'h' FROM generate_series(1, 500) i;
INSERT INTO h_b SELECT i, 'h' FROM generate_series(1, 500) i;
SELECT * FROM on_both($$INSERT INTO %1$s SELECT i, 'up' FROM generate_series(490, 510) i ON CONFLICT (k) DO UPDATE SET v = excluded.v || %1$s.v$$, 'h_k', 'h_b');
SELECT * FROM on_both($$INSERT INTO %1$s VALUES (1, 'x'), (600, 'y') ON CONFLICT DO NOTHING RETURNING k$$, 'h_k', 'h_b');
SELECT both_same('h_k', 'h_b');
SELECT blinkheap_check('h_k');
SELECT blink_check('h_k_k', true);

-- 5. A partitioned table whose partitions have unique blink indexes:
--    PostgreSQL prepares a partition's indexes while it routes rows,
--    where blinkam cannot step in, so ON CONFLICT through the parent is
--    refused before any row is routed; through the partition it works.
CREATE TABLE p (k int, ts int, v text) PARTITION BY RANGE (ts);
CREATE TABLE p1 PARTITION OF p FOR VALUES FROM (0) TO (100);
CREATE TABLE p2 PARTITION OF p FOR VALUES FROM (100) TO (200) PARTITION BY HASH (k);
CREATE TABLE p2a PARTITION OF p2 FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE p2b PARTITION OF p2 FOR VALUES WITH (MODULUS 2, REMAINDER 1);
CREATE UNIQUE INDEX p2b_k ON p2b USING blink (k, ts);
INSERT INTO p VALUES (1, 1, 'a'), (2, 150, 'b'), (3, 150, 'c');
INSERT INTO p VALUES (1, 1, 'x') ON CONFLICT DO NOTHING;
INSERT INTO p2 VALUES (3, 150, 'x') ON CONFLICT DO NOTHING;
INSERT INTO p1 VALUES (1, 1, 'x') ON CONFLICT DO NOTHING;
INSERT INTO p2b SELECT k, ts, 'via partition' FROM p2b ON CONFLICT (k, ts) DO UPDATE SET v = excluded.v RETURNING k, ts, v;
EXPLAIN (COSTS OFF) INSERT INTO p VALUES (1, 1, 'x') ON CONFLICT DO NOTHING;
SELECT * FROM p ORDER BY k;
SELECT blink_check('p2b_k', true);
-- A partitioned table whose unique indexes are btree, with a non-unique
-- blink index beside them: ON CONFLICT through the parent works.
CREATE TABLE q (k int, ts int, v text) PARTITION BY RANGE (ts);
CREATE TABLE q1 PARTITION OF q FOR VALUES FROM (0) TO (100);
CREATE TABLE q2 PARTITION OF q FOR VALUES FROM (100) TO (200);
CREATE UNIQUE INDEX q_k ON q USING btree (k, ts);
CREATE INDEX q1_v ON q1 USING blink (v);
INSERT INTO q VALUES (1, 1, 'a'), (2, 150, 'b');
INSERT INTO q VALUES (1, 1, 'x'), (3, 50, 'c') ON CONFLICT DO NOTHING;
INSERT INTO q VALUES (2, 150, 'y') ON CONFLICT (k, ts) DO UPDATE SET v = excluded.v;
SELECT * FROM q ORDER BY k;
SELECT blink_check('q1_v', true);

-- 6. An inference element that names an operator class.  PostgreSQL 15
--    looks the name up among btree's operator classes (parse_clause.c) and
--    the planner then wants the index column's operator family to be that
--    btree class's, so a unique blink index never matches ON CONFLICT (k
--    text_pattern_ops): "no unique or exclusion constraint matching" (the
--    last statement; README.md, limits).  The column alone matches a
--    unique index whatever its operator class, and a collation matches.
CREATE TABLE c_k (k text, n int DEFAULT 0);
CREATE TABLE c_b (k text, n int DEFAULT 0);
CREATE UNIQUE INDEX c_k_k ON c_k USING blink (k text_pattern_ops);
CREATE UNIQUE INDEX c_b_k ON c_b USING btree (k text_pattern_ops);
INSERT INTO c_k VALUES ('a'), ('b');
INSERT INTO c_b VALUES ('a'), ('b');
SELECT * FROM on_both($$INSERT INTO %1$s VALUES ('a') ON CONFLICT (k) DO UPDATE SET n = %1$s.n + 1 RETURNING k, n$$, 'c_k', 'c_b');
SELECT * FROM on_both($$INSERT INTO %1$s VALUES ('b'), ('c') ON CONFLICT (k) DO NOTHING RETURNING k$$, 'c_k', 'c_b');
CREATE UNIQUE INDEX c_k_c ON c_k USING blink (k COLLATE "C");
CREATE UNIQUE INDEX c_b_c ON c_b USING btree (k COLLATE "C");
SELECT * FROM on_both($$INSERT INTO %1$s VALUES ('b') ON CONFLICT (k COLLATE "C") DO UPDATE SET n = %1$s.n + 1 RETURNING k, n$$, 'c_k', 'c_b');
SELECT both_same('c_k', 'c_b');
SELECT blink_check('c_k_k', true);
SELECT blink_check('c_k_c', true);
SELECT * FROM on_both($$INSERT INTO %1$s VALUES ('a') ON CONFLICT (k text_pattern_ops) DO UPDATE SET n = %1$s.n + 1 RETURNING k, n$$, 'c_k', 'c_b');

-- User code while the target's indexes are opened (executor start):
-- building an index's IndexInfo evaluates its expressions and predicate
-- the first time, constant-argument IMMUTABLE functions included (a lie,
-- as in PostgreSQL's own insert-conflict-specconflict spec).  Here such
-- a function plans a row-comparison query on the table, and another runs
-- an upsert of its own.  Until 2026-11-28 the unique blink indexes said
-- btree in the relcache while that ran: the planner read a blink metapage
-- as btree's (a false "corrupted page" error; an assertion failure) and
-- the nested upsert tripped an assertion.  Each runs as a new session's
-- first statement, when nothing is cached yet.
CREATE TABLE w (a int, b int);
CREATE UNIQUE INDEX w_ab ON w USING blink (a, b);
INSERT INTO w SELECT g, g FROM generate_series(1, 1000) g;
CREATE FUNCTION w_f(int) RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$
DECLARE n int;
BEGIN
	IF current_setting('w.go', true) = 'on' THEN
		-- (once: planning the query below evaluates w_e's expression again)
		PERFORM set_config('w.go', 'off', true);
		PERFORM set_config('enable_seqscan', 'off', true);
		PERFORM set_config('enable_bitmapscan', 'off', true);
		SELECT count(*) INTO n FROM w WHERE (a, b) > (990, 990);
		RAISE NOTICE 'w_f: % rows above (990, 990)', n;
	END IF;
	RETURN $1;
END $$;
CREATE UNIQUE INDEX w_e ON w USING blink ((a + w_f(0)));
CREATE TABLE n2 (k int);
CREATE UNIQUE INDEX n2_k ON n2 USING blink (k);
CREATE FUNCTION n_up() RETURNS void VOLATILE LANGUAGE sql AS
	'INSERT INTO n2 VALUES (1) ON CONFLICT DO NOTHING';
CREATE FUNCTION n_g(int) RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$
BEGIN
	IF current_setting('w.go', true) = 'on' THEN
		PERFORM set_config('w.go', 'off', true);
		PERFORM n_up();
	END IF;
	RETURN $1;
END $$;
CREATE TABLE n1 (k int);
CREATE UNIQUE INDEX n1_k ON n1 USING blink (k);
CREATE INDEX n1_p ON n1 (k) WHERE k > n_g(0);
\c
SET w.go = on;
INSERT INTO w VALUES (5000, 5000) ON CONFLICT DO NOTHING;
\c
SET w.go = on;
INSERT INTO n1 VALUES (1) ON CONFLICT DO NOTHING;
RESET w.go;
SELECT (SELECT count(*) FROM w) AS w_rows, (SELECT count(*) FROM n1) AS n1_rows,
       (SELECT count(*) FROM n2) AS n2_rows;
SELECT blink_check('w_ab', true), blink_check('w_e', true), blink_check('n1_k', true),
       blink_check('n2_k', true);
DROP TABLE w, n1, n2;
DROP FUNCTION w_f(int), n_up(), n_g(int);

DROP TABLE o_k, o_b, src_k, src_b, m_k, m_b, h_k, h_b, p, q, c_k, c_b CASCADE;
DROP FUNCTION on_both(text, text, text), both_same(regclass, regclass);
DROP EXTENSION blinkam;
