--
-- blink_opclasses: blink has a twin of every btree operator class, and the
-- classes blink_types does not cover (arrays, ranges, multiranges,
-- composites, the pattern classes, bit strings, jsonb, macaddr8,
-- oidvector, tid, xid8, tsvector, tsquery) answer like btree's.
--
-- Each section puts a btree index and a blink index of the same operator
-- class on the same column.  Every query then runs once with only the
-- btree index on the table (the reference) and once per scan kind (plain
-- index, index-only, bitmap) with only the blink index; the indexes of the
-- other access method are dropped in a subtransaction that is rolled back.
-- The answers must be equal.
--
CREATE EXTENSION blinkam;

-- Fixed settings: the output must not depend on the environment.
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
SET jit = off;

--
-- The catalogs: one blink class per btree class, of the same name, input
-- type, family name and default-ness, with the same operators and the
-- same support functions 1 and 2.  btree's support functions 3 (in_range)
-- and 4 (equalimage) have no twin: PostgreSQL looks them up only in btree
-- families (see blinkam--0.1.sql).
--
SELECT a.amname, count(*) AS classes, count(*) FILTER (WHERE amvalidate(c.oid)) AS valid
FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
WHERE a.amname IN ('btree', 'blink') GROUP BY 1 ORDER BY 1;
SELECT opcname FROM pg_opclass
WHERE opcmethod = (SELECT oid FROM pg_am WHERE amname = 'blink') AND NOT amvalidate(oid);

-- Classes: the one difference is that btree's name_ops stores name keys
-- as cstring and blink's stores them as name (see blinkam--0.1.sql).
WITH c AS (
  SELECT a.amname, c.opcname, f.opfname, c.opcintype::regtype, c.opcdefault,
         c.opckeytype::regtype
  FROM pg_opclass c JOIN pg_opfamily f ON f.oid = c.opcfamily
       JOIN pg_am a ON a.oid = c.opcmethod
  WHERE a.amname IN ('btree', 'blink'))
(SELECT 'btree only' AS side, opcname, opfname, opcintype, opcdefault, opckeytype
 FROM (SELECT opcname, opfname, opcintype, opcdefault, opckeytype FROM c WHERE amname = 'btree'
       EXCEPT SELECT opcname, opfname, opcintype, opcdefault, opckeytype FROM c WHERE amname = 'blink') x
 UNION ALL
 SELECT 'blink only', opcname, opfname, opcintype, opcdefault, opckeytype
 FROM (SELECT opcname, opfname, opcintype, opcdefault, opckeytype FROM c WHERE amname = 'blink'
       EXCEPT SELECT opcname, opfname, opcintype, opcdefault, opckeytype FROM c WHERE amname = 'btree') x)
ORDER BY opcname, side;

-- Operators of each family, both ways: no difference.
WITH o AS (
  SELECT a.amname, f.opfname, o.amoplefttype::regtype AS lefttype,
         o.amoprighttype::regtype AS righttype, o.amopstrategy,
         o.amopopr::regoperator AS opr
  FROM pg_amop o JOIN pg_opfamily f ON f.oid = o.amopfamily
       JOIN pg_am a ON a.oid = f.opfmethod
  WHERE a.amname IN ('btree', 'blink'))
(SELECT opfname, lefttype, righttype, amopstrategy, opr FROM o WHERE amname = 'btree'
 EXCEPT SELECT opfname, lefttype, righttype, amopstrategy, opr FROM o WHERE amname = 'blink')
UNION ALL
(SELECT opfname, lefttype, righttype, amopstrategy, opr FROM o WHERE amname = 'blink'
 EXCEPT SELECT opfname, lefttype, righttype, amopstrategy, opr FROM o WHERE amname = 'btree');

-- Support functions: btree's 1 and 2 are blink's, no more and no fewer;
-- what btree has beyond them is only 3 and 4.
WITH p AS (
  SELECT a.amname, f.opfname, p.amproclefttype::regtype AS lefttype,
         p.amprocrighttype::regtype AS righttype, p.amprocnum,
         p.amproc::regprocedure AS proc
  FROM pg_amproc p JOIN pg_opfamily f ON f.oid = p.amprocfamily
       JOIN pg_am a ON a.oid = f.opfmethod
  WHERE a.amname IN ('btree', 'blink'))
(SELECT opfname, lefttype, righttype, amprocnum, proc FROM p WHERE amname = 'btree' AND amprocnum <= 2
 EXCEPT SELECT opfname, lefttype, righttype, amprocnum, proc FROM p WHERE amname = 'blink')
UNION ALL
(SELECT opfname, lefttype, righttype, amprocnum, proc FROM p WHERE amname = 'blink'
 EXCEPT SELECT opfname, lefttype, righttype, amprocnum, proc FROM p WHERE amname = 'btree');
SELECT DISTINCT amprocnum FROM pg_amproc p JOIN pg_opfamily f ON f.oid = p.amprocfamily
WHERE f.opfmethod = (SELECT oid FROM pg_am WHERE amname = 'btree') ORDER BY 1;

--
-- opc_plan_uses(query, am, node): does the plan of the query have a node
-- of this type ('Index Scan', 'Index Only Scan', 'Bitmap Index Scan') on
-- an index of this access method?
--
CREATE FUNCTION opc_plan_uses(q text, am text, node text) RETURNS boolean
LANGUAGE plpgsql AS $fn$
DECLARE
    plan json;
BEGIN
    EXECUTE 'EXPLAIN (COSTS OFF, FORMAT JSON) ' || q INTO plan;
    RETURN EXISTS (
        SELECT FROM jsonb_path_query(plan::jsonb, 'lax $.** ? (@."Node Type" == $n)',
                                     jsonb_build_object('n', node)) AS s(n)
             JOIN pg_class c ON c.oid = (s.n->>'Index Name')::regclass
             JOIN pg_am a ON a.oid = c.relam
        WHERE a.amname = am);
END
$fn$;

--
-- opc_run(table, am, mode, query): run the query with only the indexes of
-- access method am left on the table and one kind of scan enabled:
-- 'index' (plain index scans), 'ios' (index-only scans; plain ones stay
-- enabled, as PostgreSQL disables both with enable_indexscan), 'bitmap'
-- or 'seq'.  used says whether the plan scanned an index of am that way
-- (always true for 'seq'); answer is the query's single value, NULL when
-- not used.  The indexes dropped come back when the subtransaction is
-- rolled back.
--
CREATE FUNCTION opc_run(tbl regclass, am text, mode text, q text,
                        OUT used boolean, OUT answer text[])
LANGUAGE plpgsql
SET enable_seqscan = off SET enable_indexscan = off
SET enable_indexonlyscan = off SET enable_bitmapscan = off
AS $fn$
DECLARE
    idx regclass;
    setting text;
BEGIN
    used := false;
    BEGIN
        FOR idx IN
            SELECT i.indexrelid FROM pg_index i
                JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
            WHERE i.indrelid = tbl AND a.amname <> am
        LOOP
            EXECUTE format('DROP INDEX %s', idx);
        END LOOP;
        FOREACH setting IN ARRAY CASE mode
                WHEN 'index' THEN ARRAY['enable_indexscan']
                WHEN 'ios' THEN ARRAY['enable_indexscan', 'enable_indexonlyscan']
                WHEN 'bitmap' THEN ARRAY['enable_bitmapscan']
                WHEN 'seq' THEN ARRAY['enable_seqscan'] END
        LOOP
            PERFORM set_config(setting, 'on', true);
        END LOOP;
        used := mode = 'seq' OR
            opc_plan_uses(q, am, CASE mode WHEN 'index' THEN 'Index Scan'
                                           WHEN 'ios' THEN 'Index Only Scan'
                                           ELSE 'Bitmap Index Scan' END);
        IF used THEN
            EXECUTE q INTO answer;
        END IF;
        RAISE SQLSTATE 'OPCUN';
    EXCEPTION WHEN SQLSTATE 'OPCUN' THEN
        NULL;
    END;
END
$fn$;

--
-- opc_compare(table, query) returns
--     '<N> rows: btree=<m,...> index=<s> ios=<s> bitmap=<s>'
-- <m,...> are the kinds of scan of a btree index the planner takes for the
-- query with only the btree indexes ('seq' if none); the first of them
-- gives the reference answer, of N rows.  Each <s> is the outcome with
-- only the blink indexes and that kind of scan, whose rows are compared
-- with btree's by the same kind of scan, else with the reference:
--     same       a blink index was scanned that way and the rows are equal,
--     DIFFERENT  it was, and the rows differ,
--     -          the planner did not scan a blink index that way,
--     ERROR: ... the query failed.
-- Rows without ORDER BY are compared as multisets.  A query with ORDER BY
-- returns one column, compared in order, except that within a run of
-- values equal by the type's "=" the texts are sorted (any order among
-- equal keys is right).
--
CREATE FUNCTION opc_compare(tbl regclass, q text) RETURNS text
LANGUAGE plpgsql AS $fn$
DECLARE
    modes text[] := ARRAY['index', 'ios', 'bitmap'];
    wrapped text;
    r record;
    btree jsonb := '{}';
    btmodes text[] := '{}';
    ref jsonb;
    mode text;
    report text;
BEGIN
    IF q ~* '\morder\s+by\M' THEN
        wrapped := format($w$
            SELECT array_agg(t ORDER BY run, t) FROM (
              SELECT x::text AS t, count(*) FILTER (WHERE NOT tie) OVER (ORDER BY n) AS run
              FROM (SELECT x, n, coalesce(x IS NOT DISTINCT FROM lag(x) OVER (ORDER BY n), false) AS tie
                    FROM (SELECT x, row_number() OVER () AS n FROM (%s) q(x)) numbered) marked
            ) runs$w$, q);
    ELSE
        wrapped := format('SELECT array_agg(r::text ORDER BY r::text) FROM (%s) r', q);
    END IF;

    FOREACH mode IN ARRAY modes || 'seq'::text LOOP
        CONTINUE WHEN mode = 'seq' AND btmodes <> '{}';
        r := opc_run(tbl, 'btree', mode, wrapped);
        IF r.used THEN
            btmodes := btmodes || mode;
            btree := btree || jsonb_build_object(mode, coalesce(to_jsonb(r.answer), '[]'));
        END IF;
    END LOOP;
    ref := btree -> btmodes[1];
    report := format('%s rows: btree=%s', jsonb_array_length(ref), array_to_string(btmodes, ','));

    FOREACH mode IN ARRAY modes LOOP
        BEGIN
            r := opc_run(tbl, 'blink', mode, wrapped);
            report := report || ' ' || mode || '=' ||
                CASE WHEN NOT r.used THEN '-'
                     WHEN coalesce(to_jsonb(r.answer), '[]') = coalesce(btree -> mode, ref) THEN 'same'
                     ELSE 'DIFFERENT' END;
        EXCEPTION WHEN OTHERS THEN
            report := report || ' ' || mode || '=ERROR: ' || SQLERRM;
        END;
    END LOOP;
    RETURN report;
END
$fn$;

-- opc_compare_all(table, query, ...): one row per query.
CREATE FUNCTION opc_compare_all(tbl regclass, VARIADIC qs text[])
RETURNS TABLE (query text, result text)
LANGUAGE plpgsql AS $fn$
BEGIN
    FOREACH query IN ARRAY qs LOOP
        result := opc_compare(tbl, query);
        RETURN NEXT;
    END LOOP;
END
$fn$;

--
-- opc_battery(table, column, lo, mid, hi, ops): the standard queries on
-- one column, given three constants with lo < mid < hi in the class's
-- order (mid should occur in the data) and the class's operators for
-- strategies 1 to 5 (<, <=, =, >=, > by default).
--
CREATE FUNCTION opc_battery(tbl regclass, col text, lo text, mid text, hi text,
                            ops text[] DEFAULT '{<,<=,=,>=,>}')
RETURNS TABLE (query text, result text)
LANGUAGE plpgsql AS $fn$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY[
        'SELECT id, %2$s FROM %1$s WHERE %2$s %8$s %4$s',
        'SELECT %2$s FROM %1$s WHERE %2$s %6$s %4$s',
        'SELECT %2$s FROM %1$s WHERE %2$s %7$s %4$s',
        'SELECT %2$s FROM %1$s WHERE %2$s %9$s %4$s',
        'SELECT %2$s FROM %1$s WHERE %2$s %10$s %4$s',
        'SELECT %2$s FROM %1$s WHERE %2$s %10$s %3$s AND %2$s %7$s %5$s',
        'SELECT %2$s FROM %1$s WHERE %2$s %10$s %5$s AND %2$s %6$s %3$s',
        CASE WHEN ops[3] = '=' THEN 'SELECT id FROM %1$s WHERE %2$s IN (%5$s, %3$s, %4$s)'
             ELSE 'SELECT id FROM %1$s WHERE %2$s %8$s ANY (ARRAY[%5$s, %3$s, %4$s])' END,
        'SELECT id FROM %1$s WHERE %2$s %8$s %3$s OR %2$s %8$s %4$s OR %2$s %8$s %5$s',
        'SELECT id FROM %1$s WHERE %2$s IS NULL',
        'SELECT %2$s FROM %1$s WHERE %2$s IS NOT NULL',
        'SELECT %2$s FROM %1$s ORDER BY %2$s USING %6$s',
        'SELECT %2$s FROM %1$s ORDER BY %2$s USING %10$s LIMIT 15',
        'SELECT %2$s FROM %1$s WHERE %2$s IS NOT NULL ORDER BY %2$s USING %10$s LIMIT 10',
        'SELECT %2$s FROM %1$s WHERE %2$s %9$s %4$s ORDER BY %2$s USING %6$s LIMIT 20',
        'SELECT %2$s FROM %1$s WHERE %2$s %6$s %4$s ORDER BY %2$s USING %10$s LIMIT 20'
    ] LOOP
        query := format(t, tbl, col, lo, mid, hi, ops[1], ops[2], ops[3], ops[4], ops[5]);
        result := opc_compare(tbl, query);
        RETURN NEXT;
    END LOOP;
END
$fn$;

--
-- opc_unique_probe(am, type, opclass, values): a table with a unique index
-- of that access method and class on one column; inserts the values one
-- at a time and says what became of each.
--
CREATE FUNCTION opc_unique_probe(am text, coltype text, opclass text, vals text[])
RETURNS TABLE (n int, val text, outcome text)
LANGUAGE plpgsql AS $fn$
DECLARE
    detail text;
BEGIN
    EXECUTE format('CREATE TABLE opc_u (v %s)', coltype);
    EXECUTE format('CREATE UNIQUE INDEX opc_u_v ON opc_u USING %s (v %s)', am, opclass);
    FOR i IN 1 .. cardinality(vals) LOOP
        n := i;
        val := vals[i];
        BEGIN
            EXECUTE format('INSERT INTO opc_u VALUES (%s)', val);
            outcome := 'inserted';
        EXCEPTION WHEN unique_violation THEN
            GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
            outcome := SQLERRM || ': ' || detail;
        END;
        RETURN NEXT;
    END LOOP;
    IF am = 'blink' THEN
        PERFORM blink_check('opc_u_v', true);
    END IF;
    DROP TABLE opc_u;
END
$fn$;

-- opc_unique_compare(type, opclass, values): btree's outcomes beside blink's.
CREATE FUNCTION opc_unique_compare(coltype text, opclass text, vals text[])
RETURNS TABLE (val text, btree text, same boolean)
LANGUAGE sql AS $fn$
    SELECT b.val, b.outcome, b.outcome IS NOT DISTINCT FROM k.outcome
    FROM opc_unique_probe('btree', coltype, opclass, vals) b
         FULL JOIN opc_unique_probe('blink', coltype, opclass, vals) k USING (n)
    ORDER BY n
$fn$;

--
-- array_ops: int4[] (NULL elements, empty and two-dimensional arrays, all
-- lengths) and text[] (compared with the column's collation).
--
CREATE TABLE t_array (id int, v int4[], w text[]) WITH (autovacuum_enabled = off);
INSERT INTO t_array
  SELECT i,
         CASE WHEN i % 23 = 0 THEN NULL
              WHEN i % 19 = 0 THEN '{}'
              WHEN i % 29 = 0 THEN ARRAY[[i % 3, i % 5], [i % 7, NULL]]
              ELSE (SELECT array_agg(CASE WHEN (i + j) % 17 = 0 THEN NULL ELSE (i * j * 7) % 23 END)
                    FROM generate_series(1, 1 + i % 4) j) END,
         CASE WHEN i % 31 = 0 THEN NULL
              ELSE (SELECT array_agg('w' || (i * j) % 13) FROM generate_series(1, 1 + i % 3) j) END
  FROM generate_series(1, 400) i;
CREATE INDEX t_array_v_bt ON t_array USING btree (v);
CREATE INDEX t_array_v_bl ON t_array USING blink (v);
CREATE INDEX t_array_w_bt ON t_array USING btree (w);
CREATE INDEX t_array_w_bl ON t_array USING blink (w);
INSERT INTO t_array SELECT id + 1000, v, w FROM t_array WHERE id % 3 = 0;
INSERT INTO t_array VALUES (2001, '{NULL}', '{NULL}'), (2002, '{2147483647}', '{""}'),
  (2003, '{-2147483648,0}', '{}'), (2004, '{{1,2},{3,4}}', '{{a,b},{c,d}}'), (2005, '{1,2,3,4,5,6,7,8}', NULL);
DELETE FROM t_array WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_array;
SELECT * FROM opc_battery('t_array', 'v', '''{3,6,NULL,12}''::int4[]', '''{11,22,10}''::int4[]', '''{19,15,11}''::int4[]');
SELECT * FROM opc_battery('t_array', 'w', '''{w10,w7}''::text[]', '''{w3}''::text[]', '''{w7}''::text[]');
SELECT * FROM opc_compare_all('t_array',
  $$SELECT id FROM t_array WHERE v = '{}'$$,
  $$SELECT id FROM t_array WHERE v = '{{1,2},{3,4}}'$$,
  $$SELECT v FROM t_array WHERE v > '{{1,2},{3,4}}' AND v < '{2}'$$,
  $$SELECT v FROM t_array WHERE v >= '{7,NULL}' ORDER BY v LIMIT 12$$,
  $$SELECT v FROM t_array WHERE v < '{0}' ORDER BY v DESC$$,
  $$SELECT w FROM t_array WHERE w > '{w1,w10}' AND w <= '{w11}' ORDER BY w DESC$$);
SELECT blink_check('t_array_v_bl', true);
SELECT blink_check('t_array_w_bl', true);

--
-- range_ops: int4range (empty, unbounded, both bound kinds) and a range
-- type defined here, over float8.
--
CREATE TYPE blink_floatrange AS RANGE (subtype = float8);
CREATE TABLE t_range (id int, v int4range, f blink_floatrange) WITH (autovacuum_enabled = off);
INSERT INTO t_range
  SELECT i,
         CASE WHEN i % 23 = 0 THEN NULL
              WHEN i % 17 = 0 THEN 'empty'
              WHEN i % 13 = 0 THEN int4range(NULL, i % 10)
              WHEN i % 11 = 0 THEN int4range(i % 20, NULL)
              ELSE int4range(i % 20, i % 20 + 1 + i % 4, CASE WHEN i / 20 % 2 = 0 THEN '[)' ELSE '[]' END) END,
         CASE WHEN i % 29 = 0 THEN NULL
              WHEN i % 19 = 0 THEN 'empty'
              WHEN i % 14 = 0 THEN blink_floatrange(NULL, i % 6 / 4.0)
              ELSE blink_floatrange(i % 8 / 4.0, i % 8 / 4.0 + i % 3,
                                    (ARRAY['[)', '(]', '()', '[]'])[1 + i / 8 % 4]) END
  FROM generate_series(1, 400) i;
CREATE INDEX t_range_v_bt ON t_range USING btree (v);
CREATE INDEX t_range_v_bl ON t_range USING blink (v);
CREATE INDEX t_range_f_bt ON t_range USING btree (f);
CREATE INDEX t_range_f_bl ON t_range USING blink (f);
INSERT INTO t_range SELECT id + 1000, v, f FROM t_range WHERE id % 3 = 0;
INSERT INTO t_range VALUES (2001, '(,)', '(,)'), (2002, '[5,5]', '[5,5]'), (2003, 'empty', '(1,1.5)');
DELETE FROM t_range WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_range;
SELECT * FROM opc_battery('t_range', 'v', '''[1,3)''::int4range', '''[8,9)''::int4range', '''[14,18)''::int4range');
SELECT * FROM opc_battery('t_range', 'f', '''[0.25,1.25)''::blink_floatrange', '''[1.25,1.25]''::blink_floatrange', '''(1.5,2.5)''::blink_floatrange');
SELECT * FROM opc_compare_all('t_range',
  $$SELECT id FROM t_range WHERE v = 'empty'$$,
  $$SELECT v FROM t_range WHERE v < '(,0)'$$,
  $$SELECT v FROM t_range WHERE v >= '[0,)' AND v < '[1,)' ORDER BY v DESC$$,
  $$SELECT f FROM t_range WHERE f > '(2,3)' AND f < '[2.5,3)' ORDER BY f$$,
  $$SELECT id FROM t_range WHERE f = '[5,5]'$$);
SELECT blink_check('t_range_v_bl', true);
SELECT blink_check('t_range_f_bl', true);

--
-- multirange_ops: int4multirange and the multirange of the range type
-- above.
--
CREATE TABLE t_multirange (id int, v int4multirange, f blink_floatmultirange)
  WITH (autovacuum_enabled = off);
CREATE INDEX t_multirange_v_bl ON t_multirange USING blink (v);
CREATE INDEX t_multirange_f_bl ON t_multirange USING blink (f);
INSERT INTO t_multirange
  SELECT i,
         CASE WHEN i % 23 = 0 THEN NULL
              WHEN i % 17 = 0 THEN '{}'
              ELSE int4multirange(int4range(i % 10, i % 10 + 1 + i % 3),
                                  int4range(20 + i % 4, 22 + i % 4 + i % 3)) END,
         CASE WHEN i % 19 = 0 THEN NULL
              ELSE blink_floatmultirange(blink_floatrange(i % 9 / 2.0, i % 9 / 2.0 + 1),
                                         blink_floatrange(10 - i % 4, NULL)) END
  FROM generate_series(1, 400) i;
CREATE INDEX t_multirange_v_bt ON t_multirange USING btree (v);
CREATE INDEX t_multirange_f_bt ON t_multirange USING btree (f);
INSERT INTO t_multirange SELECT id + 1000, v, f FROM t_multirange WHERE id % 3 = 0;
DELETE FROM t_multirange WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_multirange;
SELECT * FROM opc_battery('t_multirange', 'v', '''{[1,2), [23,25)}''::int4multirange',
  '''{[4,5), [20,22)}''::int4multirange', '''{[8,9), [20,22)}''::int4multirange');
SELECT * FROM opc_battery('t_multirange', 'f', '''{[0.5,1.5), [8,)}''::blink_floatmultirange',
  '''{[2,3), [7,)}''::blink_floatmultirange', '''{[3,4), [10,)}''::blink_floatmultirange');
SELECT * FROM opc_compare_all('t_multirange',
  $$SELECT id FROM t_multirange WHERE v = '{}'$$,
  $$SELECT v FROM t_multirange WHERE v > '{[7,8)}' AND v < '{[7,9)}' ORDER BY v DESC$$);
SELECT blink_check('t_multirange_v_bl', true);
SELECT blink_check('t_multirange_f_bl', true);

--
-- record_ops and record_image_ops on a composite column.  The numeric field
-- has several scales of equal values: equal for record_ops, different
-- (and ordered by their bytes) for record_image_ops.  On a composite
-- column "v IS NULL" tests every field, which no index answers (btree=seq
-- below), and "v IS NOT NULL" only an index-only scan's filter.
--
CREATE TYPE blink_pair AS (a int, b numeric, c text);
CREATE TABLE t_record (id int, v blink_pair) WITH (autovacuum_enabled = off);
INSERT INTO t_record
  SELECT i,
         CASE WHEN i % 23 = 0 THEN NULL
              WHEN i % 19 = 0 THEN ROW(NULL, i % 3, 'x')::blink_pair
              ELSE ROW(i % 5, round((i % 3)::numeric, i / 7 % 3),
                       CASE WHEN i % 13 = 0 THEN NULL ELSE 'c' || i % 2 END)::blink_pair END
  FROM generate_series(1, 400) i;
CREATE INDEX t_record_v_bt ON t_record USING btree (v);
CREATE INDEX t_record_v_bl ON t_record USING blink (v);
CREATE INDEX t_record_vi_bt ON t_record USING btree (v record_image_ops);
CREATE INDEX t_record_vi_bl ON t_record USING blink (v record_image_ops);
INSERT INTO t_record SELECT id + 1000, v FROM t_record WHERE id % 3 = 0;
INSERT INTO t_record VALUES (2001, ROW(NULL, NULL, NULL)), (2002, ROW(5, 1.000, 'c1')),
  (2003, ROW(5, -0.0, ''));
DELETE FROM t_record WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_record;
SELECT * FROM opc_battery('t_record', 'v', 'ROW(1, 0, ''c0'')::blink_pair',
  'ROW(3, 0, ''c0'')::blink_pair', 'ROW(4, 1, ''c1'')::blink_pair');
SELECT * FROM opc_battery('t_record', 'v', 'ROW(1, 0, ''c0'')::blink_pair',
  'ROW(3, 0, ''c0'')::blink_pair', 'ROW(4, 0.0, ''c0'')::blink_pair', '{*<,*<=,*=,*>=,*>}');
SELECT * FROM opc_compare_all('t_record',
  $$SELECT id, v FROM t_record WHERE v *= ROW(5, 1.000, 'c1')::blink_pair$$,
  $$SELECT id, v FROM t_record WHERE v = ROW(5, 1.000, 'c1')::blink_pair$$,
  $$SELECT id, v FROM t_record WHERE v *= ROW(2, 1.0, 'c1')::blink_pair$$,
  $$SELECT id, v FROM t_record WHERE v = ROW(2, 1, 'c1')::blink_pair$$,
  $$SELECT v FROM t_record WHERE v *> ROW(2, 1, 'c1')::blink_pair AND v *< ROW(2, 1.00, 'c1')::blink_pair$$,
  $$SELECT v FROM t_record WHERE v *>= ROW(2, 1, 'c1')::blink_pair ORDER BY v USING *< LIMIT 30$$,
  $$SELECT v FROM t_record WHERE v > ROW(NULL, 0, 'x')::blink_pair ORDER BY v$$);
SELECT blink_check('t_record_v_bl', true);
SELECT blink_check('t_record_vi_bl', true);

--
-- text_pattern_ops, varchar_pattern_ops, bpchar_pattern_ops: byte order,
-- whatever the collation.  The columns take a collation other than "C"
-- where the server has one (so that btree's text_ops could not serve
-- LIKE), else the database's.  On blink, LIKE is a filter (the planner
-- derives index bounds from a LIKE prefix only for btree's pattern
-- families), which an index-only scan or an ordered scan applies; the
-- answers must still be btree's.
--
DO $$
DECLARE
    coll text;
BEGIN
    SELECT collname INTO coll FROM pg_collation
    WHERE collname NOT IN ('C', 'POSIX', 'ucs_basic', 'default') AND collisdeterministic
      AND collencoding IN (-1, pg_char_to_encoding(getdatabaseencoding()))
    ORDER BY collname LIMIT 1;
    EXECUTE format('CREATE TABLE t_pattern (id int, t text COLLATE %1$I,
                      vc varchar(20) COLLATE %1$I, bp char(8) COLLATE %1$I)
                    WITH (autovacuum_enabled = off)', coalesce(coll, 'default'));
END
$$;
INSERT INTO t_pattern
  SELECT i, x, x, x
  FROM (SELECT i, CASE WHEN i % 23 = 0 THEN NULL
                       ELSE (ARRAY['abc', 'abd', 'ab', 'Abc', 'ABC', 'a_c', 'a%c', 'b', 'ab c',
                                   'zz', '_', 'a'])[1 + (i * 37) % 12]
                            || CASE WHEN i % 3 = 0 THEN '' ELSE ((i * 7) % 31)::text END END
        FROM generate_series(1, 500) i) s(i, x);
CREATE INDEX t_pattern_t_bt ON t_pattern USING btree (t text_pattern_ops);
CREATE INDEX t_pattern_t_bl ON t_pattern USING blink (t text_pattern_ops);
CREATE INDEX t_pattern_vc_bt ON t_pattern USING btree (vc varchar_pattern_ops);
CREATE INDEX t_pattern_vc_bl ON t_pattern USING blink (vc varchar_pattern_ops);
CREATE INDEX t_pattern_bp_bt ON t_pattern USING btree (bp bpchar_pattern_ops);
CREATE INDEX t_pattern_bp_bl ON t_pattern USING blink (bp bpchar_pattern_ops);
INSERT INTO t_pattern SELECT id + 1000, t, vc, bp FROM t_pattern WHERE id % 3 = 0;
INSERT INTO t_pattern VALUES (2001, '', '', ''), (2002, 'ab ', 'ab ', 'ab '), (2003, 'ab  ', 'ab  ', 'ab  '),
  (2004, 'abc~', 'abc~', 'abc~'), (2005, 'abd', 'abd', 'abd');
DELETE FROM t_pattern WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_pattern;
SELECT * FROM opc_battery('t_pattern', 't', '''Abc''::text', '''abc''::text', '''abd19''::text',
  '{~<~,~<=~,=,~>=~,~>~}');
SELECT * FROM opc_battery('t_pattern', 'vc', '''Abc''::varchar', '''abc''::varchar', '''abd19''::varchar',
  '{~<~,~<=~,=,~>=~,~>~}');
SELECT * FROM opc_battery('t_pattern', 'bp', '''Abc''::bpchar', '''abc''::bpchar', '''abd19''::bpchar',
  '{~<~,~<=~,=,~>=~,~>~}');
SELECT * FROM opc_compare_all('t_pattern',
  $$SELECT t FROM t_pattern WHERE t LIKE 'ab%'$$,
  $$SELECT t FROM t_pattern WHERE t LIKE 'abc%' ORDER BY t USING ~<~$$,
  $$SELECT t FROM t_pattern WHERE t LIKE 'a\_c%' ORDER BY t USING ~>~$$,
  $$SELECT t FROM t_pattern WHERE t LIKE 'A%'$$,
  $$SELECT t FROM t_pattern WHERE t LIKE 'ab_1%'$$,
  $$SELECT t FROM t_pattern WHERE t ~>=~ 'ab' AND t ~<~ 'ac' AND t LIKE '%1'$$,
  $$SELECT t FROM t_pattern WHERE t ~>~ 'ab' AND t ~<=~ 'ab c' ORDER BY t USING ~>~ LIMIT 5$$,
  $$SELECT vc FROM t_pattern WHERE vc LIKE 'ab%' ORDER BY vc USING ~<~$$,
  $$SELECT vc FROM t_pattern WHERE vc ~<~ 'a%' ORDER BY vc USING ~>~$$,
  $$SELECT bp FROM t_pattern WHERE bp LIKE 'ab%'$$,
  $$SELECT id, bp FROM t_pattern WHERE bp = 'ab'$$,
  $$SELECT bp FROM t_pattern WHERE bp ~>=~ 'a' AND bp ~<~ 'b' ORDER BY bp USING ~<~$$);
SELECT blink_check('t_pattern_t_bl', true);
SELECT blink_check('t_pattern_vc_bl', true);
SELECT blink_check('t_pattern_bp_bl', true);

--
-- bit_ops and varbit_ops: bit(8), and bit strings of every length up to 8
-- (one often the prefix of another).
--
CREATE TABLE t_bit (id int, b bit(8), vb varbit) WITH (autovacuum_enabled = off);
INSERT INTO t_bit
  SELECT i,
         CASE WHEN i % 23 = 0 THEN NULL ELSE ((i * 37) % 97)::bit(8) END,
         CASE WHEN i % 19 = 0 THEN NULL
              ELSE substring(((i * 37) % 256)::bit(8)::varbit FROM 1 FOR i % 9) END
  FROM generate_series(1, 400) i;
CREATE INDEX t_bit_b_bt ON t_bit USING btree (b);
CREATE INDEX t_bit_b_bl ON t_bit USING blink (b);
CREATE INDEX t_bit_vb_bt ON t_bit USING btree (vb);
CREATE INDEX t_bit_vb_bl ON t_bit USING blink (vb);
INSERT INTO t_bit SELECT id + 1000, b, vb FROM t_bit WHERE id % 3 = 0;
INSERT INTO t_bit VALUES (2001, B'00000000', B''), (2002, B'11111111', B'1111111111111111'),
  (2003, NULL, B'0');
DELETE FROM t_bit WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_bit;
SELECT * FROM opc_battery('t_bit', 'b', 'B''00010010''', 'B''00101111''', 'B''01001101''');
SELECT * FROM opc_battery('t_bit', 'vb', 'B''0''::varbit', 'B''011''::varbit', 'B''11''::varbit');
SELECT * FROM opc_compare_all('t_bit',
  $$SELECT id FROM t_bit WHERE vb = B''$$,
  $$SELECT vb FROM t_bit WHERE vb > B'10' AND vb < B'1001' ORDER BY vb DESC$$);
SELECT blink_check('t_bit_b_bl', true);
SELECT blink_check('t_bit_vb_bl', true);

--
-- jsonb_ops: every kind of value (jsonb orders objects > arrays > booleans
-- > numbers > strings > null), SQL NULL, numbers equal at several scales.
--
CREATE TABLE t_jsonb (id int, v jsonb) WITH (autovacuum_enabled = off);
INSERT INTO t_jsonb
  SELECT i,
         CASE WHEN i % 23 = 0 THEN NULL
              WHEN i % 6 = 0 THEN to_jsonb(round((i % 17)::numeric, i / 6 % 3))
              WHEN i % 6 = 1 THEN jsonb_build_object('k', i % 7, 'n', 'v' || i % 3)
              WHEN i % 6 = 2 THEN jsonb_build_array(i % 4, 'x' || i % 3)
              WHEN i % 6 = 3 THEN to_jsonb('s' || i % 9)
              WHEN i % 6 = 4 THEN (ARRAY['true', 'false', 'null'])[1 + i / 6 % 3]::jsonb
              ELSE jsonb_build_object('k', jsonb_build_array(i % 3)) END
  FROM generate_series(1, 400) i;
CREATE INDEX t_jsonb_v_bt ON t_jsonb USING btree (v);
CREATE INDEX t_jsonb_v_bl ON t_jsonb USING blink (v);
INSERT INTO t_jsonb SELECT id + 1000, v FROM t_jsonb WHERE id % 3 = 0;
INSERT INTO t_jsonb VALUES (2001, '[]'), (2002, '{}'), (2003, '""'), (2004, '1e2'), (2005, '-0'),
  (2006, '{"a": {"b": [1, 2, {"c": null}]}}');
DELETE FROM t_jsonb WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_jsonb;
SELECT * FROM opc_battery('t_jsonb', 'v', '''"s6"''::jsonb', '''16''::jsonb', '''{"k": [2]}''::jsonb');
SELECT * FROM opc_compare_all('t_jsonb',
  $$SELECT id, v FROM t_jsonb WHERE v = '5'$$,
  $$SELECT id FROM t_jsonb WHERE v = 'null'$$,
  $$SELECT v FROM t_jsonb WHERE v >= 'false' AND v < '{}'$$,
  $$SELECT v FROM t_jsonb WHERE v <= 'null'$$,
  $$SELECT v FROM t_jsonb WHERE v > '10' AND v < 'false' ORDER BY v DESC$$);
SELECT blink_check('t_jsonb_v_bl', true);

--
-- macaddr8
--
CREATE TABLE t_macaddr8 (id int, v macaddr8) WITH (autovacuum_enabled = off);
INSERT INTO t_macaddr8
  SELECT i,
         CASE WHEN i % 23 = 0 THEN NULL
              ELSE ('08:00:2b:' || lpad(to_hex(i % 3), 2, '0') || ':ff:fe:' ||
                    lpad(to_hex((i * 37) % 64), 2, '0') || ':' || lpad(to_hex(i % 2), 2, '0'))::macaddr8 END
  FROM generate_series(1, 400) i;
CREATE INDEX t_macaddr8_v_bt ON t_macaddr8 USING btree (v);
CREATE INDEX t_macaddr8_v_bl ON t_macaddr8 USING blink (v);
INSERT INTO t_macaddr8 SELECT id + 1000, v FROM t_macaddr8 WHERE id % 3 = 0;
INSERT INTO t_macaddr8 VALUES (2001, '00:00:00:00:00:00:00:00'), (2002, 'ff:ff:ff:ff:ff:ff:ff:ff');
DELETE FROM t_macaddr8 WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_macaddr8;
SELECT * FROM opc_battery('t_macaddr8', 'v', '''08:00:2b:00:ff:fe:18:00''::macaddr8',
  '''08:00:2b:00:ff:fe:3f:01''::macaddr8', '''08:00:2b:02:ff:fe:0a:00''::macaddr8');
SELECT blink_check('t_macaddr8_v_bl', true);

--
-- oidvector: vectors of different lengths, the empty one
--
CREATE TABLE t_oidvector (id int, v oidvector) WITH (autovacuum_enabled = off);
INSERT INTO t_oidvector
  SELECT i,
         CASE WHEN i % 23 = 0 THEN NULL
              ELSE (SELECT coalesce(string_agg(((i * j * 13) % 7)::text, ' '), '')
                    FROM generate_series(1, 1 + i % 4) j)::oidvector END
  FROM generate_series(1, 400) i;
CREATE INDEX t_oidvector_v_bt ON t_oidvector USING btree (v);
CREATE INDEX t_oidvector_v_bl ON t_oidvector USING blink (v);
INSERT INTO t_oidvector SELECT id + 1000, v FROM t_oidvector WHERE id % 3 = 0;
INSERT INTO t_oidvector VALUES (2001, '4294967295'), (2002, '0 0 0 0 0'), (2003, '6 6 6 6'),
  (2004, ''), (2005, '');
DELETE FROM t_oidvector WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_oidvector;
SELECT * FROM opc_battery('t_oidvector', 'v', '''4''::oidvector', '''6 5 4''::oidvector', '''0 0 0 0''::oidvector');
SELECT * FROM opc_compare_all('t_oidvector',
  $$SELECT id FROM t_oidvector WHERE v = ''$$);
SELECT blink_check('t_oidvector_v_bl', true);

--
-- tid
--
CREATE TABLE t_tid (id int, v tid) WITH (autovacuum_enabled = off);
INSERT INTO t_tid
  SELECT i,
         CASE WHEN i % 23 = 0 THEN NULL
              ELSE format('(%s,%s)', (i * 37) % 31, i % 3)::tid END
  FROM generate_series(1, 400) i;
CREATE INDEX t_tid_v_bt ON t_tid USING btree (v);
CREATE INDEX t_tid_v_bl ON t_tid USING blink (v);
INSERT INTO t_tid SELECT id + 1000, v FROM t_tid WHERE id % 3 = 0;
INSERT INTO t_tid VALUES (2001, '(0,0)'), (2002, '(4294967295,65535)'), (2003, '(2147483648,1)');
DELETE FROM t_tid WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_tid;
SELECT * FROM opc_battery('t_tid', 'v', '''(6,0)''::tid', '''(15,1)''::tid', '''(24,1)''::tid');
SELECT blink_check('t_tid_v_bl', true);

--
-- xid8: values beyond 2^32 and 2^63
--
CREATE TABLE t_xid8 (id int, v xid8) WITH (autovacuum_enabled = off);
INSERT INTO t_xid8
  SELECT i,
         CASE WHEN i % 23 = 0 THEN NULL
              ELSE ((i * 37) % 101 * 100000000::bigint)::text::xid8 END
  FROM generate_series(1, 400) i;
CREATE INDEX t_xid8_v_bt ON t_xid8 USING btree (v);
CREATE INDEX t_xid8_v_bl ON t_xid8 USING blink (v);
INSERT INTO t_xid8 SELECT id + 1000, v FROM t_xid8 WHERE id % 3 = 0;
INSERT INTO t_xid8 VALUES (2001, '0'), (2002, '18446744073709551615'), (2003, '9223372036854775808');
DELETE FROM t_xid8 WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_xid8;
SELECT * FROM opc_battery('t_xid8', 'v', '''1900000000''::xid8', '''4900000000''::xid8', '''7800000000''::xid8');
SELECT blink_check('t_xid8_v_bl', true);

--
-- tsvector and tsquery
--
CREATE TABLE t_ts (id int, tv tsvector, tq tsquery) WITH (autovacuum_enabled = off);
INSERT INTO t_ts
  SELECT i,
         CASE WHEN i % 23 = 0 THEN NULL
              ELSE ('w' || i % 7 || ' x' || (i * 37) % 11 ||
                    CASE WHEN i % 4 = 0 THEN ' y' || i % 5 || ':' || 1 + i % 3 ELSE '' END)::tsvector END,
         CASE WHEN i % 19 = 0 THEN NULL
              ELSE ('w' || i % 7 || (ARRAY[' & ', ' | ', ' <-> ', ' & !'])[1 + i % 4] || 'x' || i % 5)::tsquery END
  FROM generate_series(1, 400) i;
CREATE INDEX t_ts_tv_bt ON t_ts USING btree (tv);
CREATE INDEX t_ts_tv_bl ON t_ts USING blink (tv);
CREATE INDEX t_ts_tq_bt ON t_ts USING btree (tq);
CREATE INDEX t_ts_tq_bl ON t_ts USING blink (tq);
INSERT INTO t_ts SELECT id + 1000, tv, tq FROM t_ts WHERE id % 3 = 0;
INSERT INTO t_ts VALUES (2001, '', 'a'), (2002, 'a:1A b:2B', '!a'), (2003, 'zzz', 'a & b & c & d');
DELETE FROM t_ts WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_ts;
SELECT * FROM opc_battery('t_ts', 'tv', '''w2 x1''::tsvector', '''w5 x3''::tsvector', '''w2 x0 y4:3''::tsvector');
SELECT * FROM opc_battery('t_ts', 'tq', '''w5 <-> x2''::tsquery', '''w6 | x3''::tsquery', '''w1 & !x1''::tsquery');
SELECT blink_check('t_ts_tv_bl', true);
SELECT blink_check('t_ts_tq_bl', true);

--
-- The indexes above: each blink index has a btree twin of the same class
-- on the same column, and where no class was named both took the same
-- default.
--
SELECT i.indrelid::regclass AS tbl, a.attname, bl.opcname AS blink, bt.opcname AS btree
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
     JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
     JOIN pg_opclass bl ON bl.oid = i.indclass[0]
     LEFT JOIN (pg_index i2 JOIN pg_class c2 ON c2.oid = i2.indexrelid
                JOIN pg_opclass bt ON bt.oid = i2.indclass[0])
       ON i2.indrelid = i.indrelid AND i2.indkey[0] = i.indkey[0] AND bt.opcname = bl.opcname
          AND c2.relam = (SELECT oid FROM pg_am WHERE amname = 'btree')
WHERE c.relam = (SELECT oid FROM pg_am WHERE amname = 'blink')
ORDER BY 1, 2, 3;

--
-- UNIQUE: the same values inserted one by one under a unique btree index
-- and under a unique blink index; each row shows btree's outcome and
-- whether blink's was the same.
--
SELECT * FROM opc_unique_compare('int4[]', '',
  ARRAY['''{1,2}''', '''{1,2,NULL}''', 'NULL', 'NULL', '''{}''', '''{1,2}''', '''{{1,2}}''',
        '''{1,2,NULL}''', '''{}''']);
SELECT * FROM opc_unique_compare('jsonb', '',
  ARRAY['''1.0''', '''{"a": 1, "b": [2]}''', '''1''', '''{"b": [2], "a": 1}''', '''"1"''', '''null''',
        'NULL', '''null''']);
SELECT * FROM opc_unique_compare('blink_pair', '',
  ARRAY['ROW(1, 1.0, ''a'')', 'ROW(1, 1.00, ''a'')', 'ROW(1, NULL, ''a'')', 'ROW(1, NULL, ''a'')']);
SELECT * FROM opc_unique_compare('blink_pair', 'record_image_ops',
  ARRAY['ROW(1, 1.0, ''a'')', 'ROW(1, 1.00, ''a'')', 'ROW(1, NULL, ''a'')', 'ROW(1, NULL, ''a'')',
        'ROW(1, 1.00, ''a'')']);
SELECT * FROM opc_unique_compare('char(6)', 'bpchar_pattern_ops',
  ARRAY['''abc''', '''ABC''', '''abc   ''', '''ab''', '''ab ''']);
SELECT * FROM opc_unique_compare('int4range', '',
  ARRAY['''[1,3)''', '''[1,2]''', '''empty''', '''(3,3)''', '''[1,3]''']);

--
-- Plans: with only the blink indexes, the planner uses them for these
-- classes (the btree ones are dropped in a transaction rolled back).
--
BEGIN;
DROP INDEX t_array_v_bt, t_range_v_bt, t_record_v_bt, t_record_vi_bt, t_pattern_t_bt,
  t_pattern_bp_bt, t_jsonb_v_bt, t_tid_v_bt, t_multirange_v_bt;
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT v FROM t_array WHERE v > '{3}' ORDER BY v DESC LIMIT 5;
EXPLAIN (COSTS OFF) SELECT id FROM t_range WHERE v = '[8,9)';
EXPLAIN (COSTS OFF) SELECT v FROM t_multirange ORDER BY v LIMIT 3;
EXPLAIN (COSTS OFF) SELECT id FROM t_record WHERE v *= ROW(2, 1.0, 'c1')::blink_pair;
EXPLAIN (COSTS OFF) SELECT id FROM t_record WHERE v < ROW(1, 0, NULL)::blink_pair;
EXPLAIN (COSTS OFF) SELECT t FROM t_pattern WHERE t ~>=~ 'ab' AND t ~<~ 'ac' ORDER BY t USING ~>~;
EXPLAIN (COSTS OFF) SELECT t FROM t_pattern WHERE t LIKE 'ab%';
EXPLAIN (COSTS OFF) SELECT id FROM t_pattern WHERE bp = 'ab';
EXPLAIN (COSTS OFF) SELECT id FROM t_jsonb WHERE v = '{"k": 3, "n": "v0"}';
SET LOCAL enable_indexscan = off;
SET LOCAL enable_bitmapscan = on;
EXPLAIN (COSTS OFF) SELECT id FROM t_tid WHERE v IN ('(15,1)', '(0,0)');
EXPLAIN (COSTS OFF) SELECT id FROM t_array WHERE v IN ('{11,22,10}', '{}');
ROLLBACK;

-- every blink index made here, once more
SELECT c.relname, blink_check(c.oid, true)
FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE a.amname = 'blink' ORDER BY 1;

--
-- Clean up
--
DROP TABLE t_array, t_range, t_multirange, t_record, t_pattern, t_bit, t_jsonb, t_macaddr8,
  t_oidvector, t_tid, t_xid8, t_ts;
DROP TYPE blink_pair, blink_floatrange;
DROP FUNCTION opc_unique_compare(text, text, text[]);
DROP FUNCTION opc_unique_probe(text, text, text, text[]);
DROP FUNCTION opc_battery(regclass, text, text, text, text, text[]);
-- Operator classes a blink index cannot use are refused up front.
-- A comparison function of other types than the class's: refused when the
-- class is created (it used to be filed under int and called on integers
-- read as text: a server crash at the first insert).
CREATE OPERATOR CLASS blink_mismatch FOR TYPE int USING blink AS
	OPERATOR 1 <, FUNCTION 1 bttextcmp(text, text);
CREATE OPERATOR CLASS blink_badsort FOR TYPE int USING blink AS
	OPERATOR 1 <, FUNCTION 1 btint4cmp(int, int), FUNCTION 2 btint4cmp(int, int);
CREATE OPERATOR CLASS blink_badnum FOR TYPE int USING blink AS
	OPERATOR 1 <, FUNCTION 1 btint4cmp(int, int), FUNCTION 3 btint4cmp(int, int);
-- No comparison function at all: CREATE INDEX fails, as btree's does
-- (it used to build, then fail at every insert).
CREATE OPERATOR CLASS blink_nocmp FOR TYPE int USING blink AS
	OPERATOR 1 <, OPERATOR 3 =;
CREATE TABLE opc_bad (a int);
INSERT INTO opc_bad SELECT generate_series(1, 100);
CREATE INDEX opc_bad_nocmp ON opc_bad USING blink (a blink_nocmp);
-- Operators no btree class knows: a build sorts through btree, so a
-- clear error rather than an internal one.
CREATE FUNCTION rev_lt(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT $1 > $2';
CREATE FUNCTION rev_le(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT $1 >= $2';
CREATE FUNCTION rev_eq(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT $1 = $2';
CREATE FUNCTION rev_ge(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT $1 <= $2';
CREATE FUNCTION rev_gt(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT $1 < $2';
CREATE FUNCTION rev_cmp(int, int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT btint4cmp($2, $1)';
CREATE OPERATOR <<< (FUNCTION = rev_lt, LEFTARG = int, RIGHTARG = int);
CREATE OPERATOR <<<= (FUNCTION = rev_le, LEFTARG = int, RIGHTARG = int);
CREATE OPERATOR === (FUNCTION = rev_eq, LEFTARG = int, RIGHTARG = int);
CREATE OPERATOR >>>= (FUNCTION = rev_ge, LEFTARG = int, RIGHTARG = int);
CREATE OPERATOR >>> (FUNCTION = rev_gt, LEFTARG = int, RIGHTARG = int);
CREATE OPERATOR CLASS blink_rev FOR TYPE int USING blink AS
	OPERATOR 1 <<<, OPERATOR 2 <<<=, OPERATOR 3 ===, OPERATOR 4 >>>=,
	OPERATOR 5 >>>, FUNCTION 1 rev_cmp(int, int);
SELECT amvalidate(oid) FROM pg_opclass WHERE opcname = 'blink_rev';
CREATE INDEX opc_bad_rev ON opc_bad USING blink (a blink_rev);
SELECT count(*) AS blink_indexes_left FROM pg_class c JOIN pg_am a ON a.oid = c.relam
 WHERE a.amname = 'blink' AND c.relname LIKE 'opc_bad%';
DROP TABLE opc_bad;
DROP OPERATOR CLASS blink_nocmp USING blink;
DROP OPERATOR CLASS blink_rev USING blink;
DROP OPERATOR <<< (int, int), <<<= (int, int), === (int, int), >>>= (int, int), >>> (int, int);
DROP FUNCTION rev_lt(int, int), rev_le(int, int), rev_eq(int, int), rev_ge(int, int),
	rev_gt(int, int), rev_cmp(int, int);

DROP FUNCTION opc_compare_all(regclass, text[]);
DROP FUNCTION opc_compare(regclass, text);
DROP FUNCTION opc_run(regclass, text, text, text);
DROP FUNCTION opc_plan_uses(text, text, text);
DROP EXTENSION blinkam;
