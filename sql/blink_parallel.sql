--
-- Parallel index scans and parallel index-only scans on blink, forward,
-- backward (ORDER BY ... DESC under Gather Merge) and with array keys,
-- give the rows a serial scan gives, and btree's.  Concurrent inserts and
-- splits: t/016_blink_parallel.pl.
--
CREATE EXTENSION blinkam;
CREATE TABLE par_k (k int, v int);
CREATE TABLE par_b (k int, v int);
-- random order, so that the index has split pages in every order
INSERT INTO par_k SELECT i, i % 1000 FROM generate_series(1, 200000) i ORDER BY random();
INSERT INTO par_b SELECT k, v FROM par_k;
CREATE INDEX par_k_k ON par_k USING blink (k);
CREATE INDEX par_b_k ON par_b USING btree (k);
INSERT INTO par_k SELECT i, i % 1000 FROM generate_series(200001, 260000) i ORDER BY random();
INSERT INTO par_b SELECT i, i % 1000 FROM generate_series(200001, 260000) i;
VACUUM ANALYZE par_k;
VACUUM ANALYZE par_b;

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_index_scan_size = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = on;
SET enable_seqscan = off;
SET enable_bitmapscan = off;

-- par_answers(q): q's answer (as text) through a parallel plan on the
-- blink table, a serial plan on it, and a parallel plan on the btree twin
-- (%s is the table); the three must be equal.
CREATE FUNCTION par_answers(q text) RETURNS TABLE (plan text, answer text)
LANGUAGE plpgsql AS $$
DECLARE a text;
BEGIN
	EXECUTE format('SELECT (%s)::text', format(q, 'par_k')) INTO a;
	plan := 'blink parallel'; answer := a; RETURN NEXT;
	SET LOCAL max_parallel_workers_per_gather = 0;
	EXECUTE format('SELECT (%s)::text', format(q, 'par_k')) INTO a;
	plan := 'blink serial'; answer := a; RETURN NEXT;
	SET LOCAL max_parallel_workers_per_gather = 2;
	EXECUTE format('SELECT (%s)::text', format(q, 'par_b')) INTO a;
	plan := 'btree parallel'; answer := a; RETURN NEXT;
END $$;

-- Plans in a particular order and plans of array keys are chosen only
-- when comparisons cost nothing; every query below runs that way.
SET cpu_operator_cost = 0;
SELECT array_agg(g)::text AS many FROM generate_series(1, 260000, 37) g \gset
-- par_plan(q): q's plan, without its conditions (array literals are long)
CREATE FUNCTION par_plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN
	FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		IF l !~ 'Cond:' THEN RETURN NEXT l; END IF;
	END LOOP;
END $$;

-- forward: a range aggregate
EXPLAIN (COSTS OFF) SELECT sum(v) FROM par_k WHERE k BETWEEN 1000 AND 250000;
SELECT * FROM par_answers('SELECT count(*) || '':'' || sum(v) FROM %s WHERE k BETWEEN 1000 AND 250000');
-- index-only
EXPLAIN (COSTS OFF) SELECT count(k) FROM par_k WHERE k > 5000;
SELECT * FROM par_answers('SELECT count(k) || '':'' || sum(k) FROM %s WHERE k > 5000');
-- backward, in order (index-only, then plain)
EXPLAIN (COSTS OFF) SELECT k FROM par_k WHERE k < 150000 ORDER BY k DESC;
SELECT * FROM par_answers('SELECT md5(string_agg(k::text, '','')) FROM (SELECT k FROM %s WHERE k < 150000 ORDER BY k DESC) s');
SET enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT v FROM par_k WHERE k < 250000 ORDER BY k DESC;
SELECT * FROM par_answers('SELECT md5(string_agg(v::text, '','')) FROM (SELECT v FROM %s WHERE k < 250000 ORDER BY k DESC) s');
RESET enable_indexonlyscan;
-- forward, in order
EXPLAIN (COSTS OFF) SELECT k FROM par_k WHERE k >= 90000 ORDER BY k;
SELECT * FROM par_answers('SELECT md5(string_agg(k::text, '','')) FROM (SELECT k FROM %s WHERE k >= 90000 ORDER BY k) s');
-- array keys: 7,028 values, each a primitive scan the backends share
-- in turn, forward and backward (planned in parallel once pages cost
-- nothing either)
SET random_page_cost = 0;
SET seq_page_cost = 0;
SELECT par_plan('SELECT sum(v) FROM par_k WHERE k = ANY (' || quote_literal(:'many') || '::int[])');
SELECT * FROM par_answers('SELECT count(*) || '':'' || sum(v) FROM %s WHERE k = ANY (' || quote_literal(:'many') || '::int[])');
SELECT par_plan('SELECT k FROM par_k WHERE k = ANY (' || quote_literal(:'many') || '::int[]) ORDER BY k DESC');
SELECT * FROM par_answers('SELECT md5(string_agg(k::text, '','')) FROM (SELECT k FROM %s WHERE k = ANY (' || quote_literal(:'many') || '::int[]) ORDER BY k DESC) s');
-- a null array (from an initplan) matches nothing
SELECT par_plan('SELECT sum(v) FROM par_k WHERE k = ANY ((SELECT NULL::int[])::int[])');
SELECT * FROM par_answers('SELECT count(*) || '':'' || coalesce(sum(v), 0) FROM %s WHERE k = ANY ((SELECT NULL::int[])::int[])');
RESET random_page_cost;
RESET seq_page_cost;
-- an empty range
SELECT * FROM par_answers('SELECT count(*) FROM %s WHERE k > 10000000');
-- rescans: the shared position starts over for each outer row
SET enable_material = off;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
-- (random() is parallel restricted: the outer side stays above Gather)
SELECT par_plan('SELECT count(*) FROM (SELECT g FROM generate_series(1, 3) g WHERE random() >= 0) o, (SELECT k FROM par_k WHERE k < 20000) s WHERE s.k % 7 = o.g');
SELECT * FROM par_answers('SELECT count(*) || '':'' || sum(s.k) FROM (SELECT g FROM generate_series(1, 3) g WHERE random() >= 0) o, (SELECT k FROM %s WHERE k < 20000) s WHERE s.k %% 7 = o.g');
RESET enable_material;
RESET enable_hashjoin;
RESET enable_mergejoin;
SELECT blink_check('par_k_k', true);
DROP FUNCTION par_answers(text), par_plan(text);
DROP TABLE par_k, par_b;
DROP EXTENSION blinkam;
