--
-- blink_types: every type with a default blink operator class gives the
-- same answers through a blink index as through a sequential scan.
--
-- Each section builds a table with duplicates and NULLs (half of the rows
-- loaded before CREATE INDEX, the rest inserted through the index), deletes
-- some rows, vacuums, then compares index, index-only and bitmap scans with
-- a sequential scan for a standard battery of queries plus type-specific
-- ones (special values, cross-type operators), and ends with blink_check.
--
CREATE EXTENSION blinkam;

-- Fixed settings: the output must not depend on the environment.
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';
SET lc_monetary = 'C';
SET max_parallel_workers_per_gather = 0;
SET jit = off;

--
-- blink_plan_uses(query, node): does EXPLAIN of the query show a plan node
-- of this kind ('Index Scan', 'Index Only Scan', 'Bitmap Index Scan';
-- NULL for any of them) on a blink index?
--
CREATE FUNCTION blink_plan_uses(q text, node text) RETURNS boolean
LANGUAGE plpgsql AS $fn$
DECLARE
    line text;
    m text[];
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        m := regexp_match(line,
            '(Bitmap Index Scan|Index Only Scan|Index Scan)(?: Backward)? (?:using|on) (\S+)');
        IF m IS NOT NULL AND (node IS NULL OR m[1] = node)
           AND (SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
                WHERE c.oid = m[2]::regclass) = 'blink' THEN
            RETURN true;
        END IF;
    END LOOP;
    RETURN false;
END
$fn$;

--
-- blink_compare(query) runs the query four times: with a sequential scan
-- (the reference), then with only plain index scans, with index-only scans
-- allowed, and with only bitmap scans.  It returns
--     '<N> rows: index=<s> ios=<s> bitmap=<s>'
-- where N is the reference's row count and each <s> is
--     same       that plan used a blink index and gave the same rows,
--     DIFFERENT  it used a blink index and gave other rows,
--     -          the planner did not use a blink index that way,
--     ERROR: ... the query failed.
--
-- A query without ORDER BY is compared as a multiset (rows sorted by their
-- text).  A query with ORDER BY must return one column: its rows are
-- compared in order, except that within a run of equal values (by the
-- type's "=", e.g. 0 and -0, 1.5 and 1.50, '1 day' and '24 hours') they
-- are sorted by text, since any order among equal keys is correct.  (So a
-- LIMIT must not cut through a run of equal values with different texts:
-- either part of the run would be a correct answer.)
--
CREATE FUNCTION blink_compare(q text) RETURNS text
LANGUAGE plpgsql
SET enable_seqscan = on SET enable_indexscan = on
SET enable_indexonlyscan = on SET enable_bitmapscan = on
AS $fn$
DECLARE
    wrapped text;
    expected text[];
    got text[];
    report text;
    modes text[] := ARRAY['index', 'ios', 'bitmap'];
    nodes text[] := ARRAY['Index Scan', 'Index Only Scan', 'Bitmap Index Scan'];
    i int;
BEGIN
    IF q ~* '\morder\s+by\M' THEN
        wrapped := format($w$
            SELECT array_agg(x::text ORDER BY g, x::text) FROM (
              SELECT x, sum(b) OVER (ORDER BY n) AS g FROM (
                SELECT x, n,
                       CASE WHEN n > 1 AND x IS NOT DISTINCT FROM lag(x) OVER (ORDER BY n)
                            THEN 0 ELSE 1 END AS b
                FROM (SELECT x, row_number() OVER () AS n FROM (%s) s(x)) s1
              ) s2
            ) s3$w$, q);
    ELSE
        wrapped := format('SELECT array_agg(r::text ORDER BY r::text) FROM (%s) r', q);
    END IF;

    -- the reference: a sequential scan
    PERFORM set_config('enable_seqscan', 'on', true);
    PERFORM set_config('enable_indexscan', 'off', true);
    PERFORM set_config('enable_indexonlyscan', 'off', true);
    PERFORM set_config('enable_bitmapscan', 'off', true);
    IF blink_plan_uses(wrapped, NULL) THEN
        RETURN 'the sequential scan plan uses a blink index';
    END IF;
    EXECUTE wrapped INTO expected;
    report := coalesce(cardinality(expected), 0) || ' rows:';

    FOR i IN 1 .. 3 LOOP
        PERFORM set_config('enable_seqscan', 'off', true);
        PERFORM set_config('enable_indexscan',
                           CASE WHEN modes[i] = 'bitmap' THEN 'off' ELSE 'on' END, true);
        PERFORM set_config('enable_indexonlyscan',
                           CASE WHEN modes[i] = 'ios' THEN 'on' ELSE 'off' END, true);
        PERFORM set_config('enable_bitmapscan',
                           CASE WHEN modes[i] = 'bitmap' THEN 'on' ELSE 'off' END, true);
        BEGIN
            IF blink_plan_uses(wrapped, nodes[i]) THEN
                EXECUTE wrapped INTO got;
                report := report || ' ' || modes[i] || '='
                    || CASE WHEN got IS NOT DISTINCT FROM expected
                            THEN 'same' ELSE 'DIFFERENT' END;
            ELSE
                report := report || ' ' || modes[i] || '=-';
            END IF;
        EXCEPTION WHEN OTHERS THEN
            report := report || ' ' || modes[i] || '=ERROR: ' || SQLERRM;
        END;
    END LOOP;
    RETURN report;
END
$fn$;

-- blink_compare_all(query, ...): one row per query.
CREATE FUNCTION blink_compare_all(VARIADIC qs text[])
RETURNS TABLE (query text, result text)
LANGUAGE plpgsql AS $fn$
BEGIN
    FOREACH query IN ARRAY qs LOOP
        result := blink_compare(query);
        RETURN NEXT;
    END LOOP;
END
$fn$;

--
-- blink_battery(table, column, lo, mid, hi): the standard queries on one
-- column, given three SQL constants of its type with lo < mid < hi (mid
-- should occur in the data).
--
CREATE FUNCTION blink_battery(tbl text, col text, lo text, mid text, hi text)
RETURNS TABLE (query text, result text)
LANGUAGE plpgsql AS $fn$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY[
        'SELECT id, %2$s FROM %1$s WHERE %2$s = %4$s',
        'SELECT %2$s FROM %1$s WHERE %2$s < %4$s',
        'SELECT %2$s FROM %1$s WHERE %2$s <= %4$s',
        'SELECT %2$s FROM %1$s WHERE %2$s > %4$s',
        'SELECT %2$s FROM %1$s WHERE %2$s >= %4$s',
        'SELECT %2$s FROM %1$s WHERE %2$s BETWEEN %3$s AND %5$s',
        'SELECT %2$s FROM %1$s WHERE %2$s > %3$s AND %2$s < %5$s',
        'SELECT %2$s FROM %1$s WHERE %2$s >= %4$s AND %2$s <= %4$s',
        'SELECT %2$s FROM %1$s WHERE %2$s > %5$s AND %2$s < %3$s',
        'SELECT id, %2$s FROM %1$s WHERE %2$s IN (%5$s, %3$s, %4$s)',
        'SELECT %2$s FROM %1$s WHERE %2$s = ANY (ARRAY[%5$s, NULL, %3$s, %4$s, %3$s])',
        'SELECT id FROM %1$s WHERE %2$s IS NULL',
        'SELECT %2$s FROM %1$s WHERE %2$s IS NOT NULL',
        'SELECT %2$s FROM %1$s ORDER BY %2$s',
        'SELECT %2$s FROM %1$s ORDER BY %2$s DESC',
        'SELECT %2$s FROM %1$s ORDER BY %2$s LIMIT 10',
        'SELECT %2$s FROM %1$s WHERE %2$s IS NOT NULL ORDER BY %2$s DESC LIMIT 10',
        'SELECT %2$s FROM %1$s WHERE %2$s >= %4$s ORDER BY %2$s LIMIT 25',
        'SELECT %2$s FROM %1$s WHERE %2$s < %4$s ORDER BY %2$s DESC LIMIT 25',
        'SELECT %2$s FROM %1$s WHERE %2$s = ANY (ARRAY[%5$s, %3$s, %4$s]) ORDER BY %2$s DESC'
    ] LOOP
        query := format(t, tbl, col, lo, mid, hi);
        result := blink_compare(query);
        RETURN NEXT;
    END LOOP;
END
$fn$;

--
-- int2
--
CREATE TABLE t_int2 (id int, v int2) WITH (autovacuum_enabled = off);
INSERT INTO t_int2
  SELECT i, CASE WHEN i % 23 = 0 THEN NULL ELSE (i * 37) % 401 - 200 END
  FROM generate_series(1, 800) i;
CREATE INDEX t_int2_v_idx ON t_int2 USING blink (v);
INSERT INTO t_int2 SELECT id + 1000, v FROM t_int2 WHERE id % 3 = 0;
INSERT INTO t_int2 VALUES (2001, 32767), (2002, -32768), (2003, NULL), (2004, 32767);
DELETE FROM t_int2 WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_int2;
SELECT * FROM blink_battery('t_int2', 'v', '''-42''::int2', '''0''::int2', '''99''::int2');
-- cross-type: int2 column against int4 and int8 constants
SELECT * FROM blink_compare_all(
  $$SELECT id, v FROM t_int2 WHERE v = 7$$,
  $$SELECT v FROM t_int2 WHERE v < 100000$$,
  $$SELECT v FROM t_int2 WHERE v > -40000::int8$$,
  $$SELECT v FROM t_int2 WHERE v >= '-5'::int8 AND v < 30$$,
  $$SELECT v FROM t_int2 WHERE v BETWEEN -10::int8 AND 10::int4$$,
  $$SELECT v FROM t_int2 WHERE v IN (1, 2, 40000)$$,
  $$SELECT v FROM t_int2 WHERE v = ANY (ARRAY[-150, 150, 32767]::int8[])$$,
  $$SELECT v FROM t_int2 WHERE v >= 32767::int4$$,
  $$SELECT v FROM t_int2 WHERE v > 100::int8 ORDER BY v$$,
  $$SELECT v FROM t_int2 WHERE v < 100::int4 ORDER BY v DESC LIMIT 30$$);
SELECT blink_check('t_int2_v_idx', true);

--
-- int4
--
CREATE TABLE t_int4 (id int, v int4) WITH (autovacuum_enabled = off);
INSERT INTO t_int4
  SELECT i, CASE WHEN i % 23 = 0 THEN NULL ELSE ((i * 37) % 401 - 200) * 1000 END
  FROM generate_series(1, 800) i;
CREATE INDEX t_int4_v_idx ON t_int4 USING blink (v);
INSERT INTO t_int4 SELECT id + 1000, v FROM t_int4 WHERE id % 3 = 0;
INSERT INTO t_int4 VALUES (2001, 2147483647), (2002, -2147483648), (2003, NULL), (2004, 0);
DELETE FROM t_int4 WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_int4;
SELECT * FROM blink_battery('t_int4', 'v', '-50000', '0', '123000');
-- cross-type: int4 column against int2 and int8 constants
SELECT * FROM blink_compare_all(
  $$SELECT id, v FROM t_int4 WHERE v = 5000::int8$$,
  $$SELECT v FROM t_int4 WHERE v < 3000000000::int8$$,
  $$SELECT v FROM t_int4 WHERE v > -3000000000::int8$$,
  $$SELECT v FROM t_int4 WHERE v >= 1000::int2 AND v < 10000::int8$$,
  $$SELECT v FROM t_int4 WHERE v <= '-32768'::int2$$,
  $$SELECT v FROM t_int4 WHERE v = ANY ('{1000,2000,3000,4294967296}'::int8[])$$,
  $$SELECT v FROM t_int4 WHERE v IN (1000::int2, 2000::int8)$$,
  $$SELECT v FROM t_int4 WHERE v > 150000::int8 ORDER BY v$$,
  $$SELECT v FROM t_int4 WHERE v <= 2147483647::int8 ORDER BY v DESC LIMIT 20$$);
SELECT blink_check('t_int4_v_idx', true);

-- an index with DESC NULLS FIRST, explicitly
CREATE TABLE t_desc (id int, v int4) WITH (autovacuum_enabled = off);
INSERT INTO t_desc SELECT id, v FROM t_int4;
CREATE INDEX t_desc_v_idx ON t_desc USING blink (v DESC NULLS FIRST);
INSERT INTO t_desc SELECT id + 10000, v FROM t_int4 WHERE id % 4 = 1;
DELETE FROM t_desc WHERE id % 10 = 3;
VACUUM ANALYZE t_desc;
SELECT * FROM blink_battery('t_desc', 'v', '-50000', '0', '123000');
SELECT * FROM blink_compare_all(
  $$SELECT v FROM t_desc ORDER BY v DESC NULLS FIRST LIMIT 40$$,
  $$SELECT v FROM t_desc ORDER BY v ASC NULLS LAST LIMIT 40$$,
  $$SELECT v FROM t_desc ORDER BY v DESC NULLS LAST$$,
  $$SELECT v FROM t_desc ORDER BY v NULLS FIRST$$,
  $$SELECT v FROM t_desc WHERE v IS NULL ORDER BY v DESC$$,
  $$SELECT v FROM t_desc WHERE v > 10000::int8 ORDER BY v DESC$$,
  $$SELECT v FROM t_desc WHERE v < 0::int2 ORDER BY v LIMIT 15$$,
  $$SELECT v FROM t_desc WHERE v = ANY ('{0,-200000,200000}') ORDER BY v$$);
SELECT blink_check('t_desc_v_idx', true);

--
-- int8 (the index exists before any row: every row goes through insertion)
--
CREATE TABLE t_int8 (id int, v int8) WITH (autovacuum_enabled = off);
CREATE INDEX t_int8_v_idx ON t_int8 USING blink (v);
INSERT INTO t_int8
  SELECT i, CASE WHEN i % 23 = 0 THEN NULL ELSE ((i * 37) % 401 - 200) * 10000000000 END
  FROM generate_series(1, 800) i;
INSERT INTO t_int8 SELECT id + 1000, v FROM t_int8 WHERE id % 3 = 0;
INSERT INTO t_int8 VALUES (2001, 9223372036854775807), (2002, -9223372036854775808),
  (2003, NULL), (2004, 2147483647), (2005, 32767);
DELETE FROM t_int8 WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_int8;
SELECT * FROM blink_battery('t_int8', 'v', '''-500000000000''::int8', '0::int8', '''1230000000000''::int8');
-- cross-type: int8 column against int2 and int4 constants
SELECT * FROM blink_compare_all(
  $$SELECT id, v FROM t_int8 WHERE v = 0::int4$$,
  $$SELECT id, v FROM t_int8 WHERE v = 32767::int2$$,
  $$SELECT v FROM t_int8 WHERE v < 5::int2$$,
  $$SELECT v FROM t_int8 WHERE v >= 2147483647::int4$$,
  $$SELECT v FROM t_int8 WHERE v > -1::int2 AND v <= 2147483647::int4$$,
  $$SELECT v FROM t_int8 WHERE v IN (0::int4, 32767::int4)$$,
  $$SELECT v FROM t_int8 WHERE v = ANY ('{0,32767,-1}'::int2[])$$,
  $$SELECT v FROM t_int8 WHERE v > -1::int2 ORDER BY v LIMIT 5$$,
  $$SELECT v FROM t_int8 WHERE v < 0::int4 ORDER BY v DESC$$);
SELECT blink_check('t_int8_v_idx', true);

--
-- oid
--
CREATE TABLE t_oid (id int, v oid) WITH (autovacuum_enabled = off);
INSERT INTO t_oid
  SELECT i, CASE WHEN i % 23 = 0 THEN NULL ELSE ((i * 37) % 401)::oid END
  FROM generate_series(1, 800) i;
CREATE INDEX t_oid_v_idx ON t_oid USING blink (v);
INSERT INTO t_oid SELECT id + 1000, v FROM t_oid WHERE id % 3 = 0;
INSERT INTO t_oid VALUES (2001, 4294967295), (2002, 0), (2003, NULL), (2004, 2147483648);
DELETE FROM t_oid WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_oid;
SELECT * FROM blink_battery('t_oid', 'v', '''17''::oid', '''200''::oid', '''390''::oid');
SELECT * FROM blink_compare_all(
  $$SELECT v FROM t_oid WHERE v > '2147483647'::oid$$,
  $$SELECT v FROM t_oid WHERE v >= '2147483648'::oid ORDER BY v DESC$$);
SELECT blink_check('t_oid_v_idx', true);

--
-- float4: NaN, infinities, -0 and subnormals
--
CREATE TABLE t_float4 (id int, v float4) WITH (autovacuum_enabled = off);
INSERT INTO t_float4
  SELECT i, CASE WHEN i % 23 = 0 THEN NULL ELSE ((i * 37) % 401 - 200) / 8.0 END
  FROM generate_series(1, 800) i;
CREATE INDEX t_float4_v_idx ON t_float4 USING blink (v);
INSERT INTO t_float4 SELECT id + 1000, v FROM t_float4 WHERE id % 3 = 0;
INSERT INTO t_float4 VALUES (2001, 'NaN'), (2002, 'Infinity'), (2003, '-Infinity'),
  (2004, '-0'), (2005, 'NaN'), (2006, '1e-45'), (2007, '3.4e38'), (2008, '0.1'),
  (2009, '-Infinity'), (2010, NULL), (2011, '0.1');
DELETE FROM t_float4 WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_float4;
SELECT * FROM blink_battery('t_float4', 'v', '''-10.5''::float4', '''0''::float4', '''17.125''::float4');
SELECT * FROM blink_compare_all(
  $$SELECT id, v FROM t_float4 WHERE v = 'NaN'$$,
  $$SELECT v FROM t_float4 WHERE v > 'Infinity'$$,
  $$SELECT v FROM t_float4 WHERE v >= 'Infinity'$$,
  $$SELECT v FROM t_float4 WHERE v < 'NaN'$$,
  $$SELECT v FROM t_float4 WHERE v = '-Infinity'$$,
  $$SELECT v FROM t_float4 WHERE v <= '-Infinity'$$,
  $$SELECT id, v FROM t_float4 WHERE v = '-0'$$,
  $$SELECT v FROM t_float4 WHERE v > 0 AND v < 1e-30$$,
  $$SELECT v FROM t_float4 WHERE v IN ('NaN', '-Infinity', '0')$$,
  $$SELECT v FROM t_float4 ORDER BY v DESC LIMIT 30$$,
  $$SELECT v FROM t_float4 WHERE v >= 24 ORDER BY v$$,
  -- cross-type: float4 column against float8 constants
  $$SELECT id, v FROM t_float4 WHERE v = 0.1::float4$$,
  $$SELECT id, v FROM t_float4 WHERE v = 0.1::float8$$,
  $$SELECT v FROM t_float4 WHERE v < 0.1::float8 AND v > -1::float8$$,
  $$SELECT v FROM t_float4 WHERE v = 0.5::float8$$,
  $$SELECT v FROM t_float4 WHERE v > 1e39::float8$$,
  $$SELECT v FROM t_float4 WHERE v = 'NaN'::float8$$,
  $$SELECT v FROM t_float4 WHERE v = ANY ('{NaN,-Infinity,12.5}'::float8[])$$,
  $$SELECT v FROM t_float4 WHERE v < 'Infinity'::float8 ORDER BY v DESC LIMIT 20$$);
SELECT blink_check('t_float4_v_idx', true);

--
-- float8
--
CREATE TABLE t_float8 (id int, v float8) WITH (autovacuum_enabled = off);
INSERT INTO t_float8
  SELECT i, CASE WHEN i % 23 = 0 THEN NULL ELSE ((i * 37) % 401 - 200) / 3.0 END
  FROM generate_series(1, 800) i;
CREATE INDEX t_float8_v_idx ON t_float8 USING blink (v);
INSERT INTO t_float8 SELECT id + 1000, v FROM t_float8 WHERE id % 3 = 0;
INSERT INTO t_float8 VALUES (2001, 'NaN'), (2002, 'Infinity'), (2003, '-Infinity'),
  (2004, '-0'), (2005, 'NaN'), (2006, '1e-320'), (2007, '1.7976931348623157e308'),
  (2008, 0.5), (2009, NULL), (2010, 'Infinity');
DELETE FROM t_float8 WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_float8;
SELECT * FROM blink_battery('t_float8', 'v', '''-10''::float8', '''0''::float8', '(100 / 3.0)::float8');
SELECT * FROM blink_compare_all(
  $$SELECT id, v FROM t_float8 WHERE v = 'NaN'$$,
  $$SELECT v FROM t_float8 WHERE v > 'Infinity'$$,
  $$SELECT v FROM t_float8 WHERE v >= 'Infinity'$$,
  $$SELECT v FROM t_float8 WHERE v < 'NaN' AND v > 60$$,
  $$SELECT v FROM t_float8 WHERE v < '-Infinity'$$,
  $$SELECT id, v FROM t_float8 WHERE v = '-0'$$,
  $$SELECT v FROM t_float8 WHERE v > 0 AND v < 1e-300$$,
  $$SELECT v FROM t_float8 WHERE v = ANY ('{NaN,Infinity,-Infinity}')$$,
  $$SELECT v FROM t_float8 ORDER BY v DESC LIMIT 30$$,
  $$SELECT v FROM t_float8 WHERE v > 60 ORDER BY v$$,
  -- cross-type: float8 column against float4 constants
  $$SELECT id, v FROM t_float8 WHERE v = 0.5::float4$$,
  $$SELECT v FROM t_float8 WHERE v < 'NaN'::float4 AND v >= 50::float4$$,
  $$SELECT v FROM t_float8 WHERE v > 'Infinity'::float4$$,
  $$SELECT v FROM t_float8 WHERE v = ANY ('{NaN,-Infinity}'::float4[])$$,
  $$SELECT v FROM t_float8 WHERE v <= '-Infinity'::float4 ORDER BY v$$,
  $$SELECT v FROM t_float8 WHERE v < 1::float4 ORDER BY v DESC LIMIT 20$$);
SELECT blink_check('t_float8_v_idx', true);

--
-- numeric: several scales of equal values, NaN, infinities
--
CREATE TABLE t_numeric (id int, v numeric) WITH (autovacuum_enabled = off);
INSERT INTO t_numeric
  SELECT i, CASE WHEN i % 23 = 0 THEN NULL
                 ELSE round(((i * 37) % 401 - 200) / 7.0, i % 4) END
  FROM generate_series(1, 800) i;
CREATE INDEX t_numeric_v_idx ON t_numeric USING blink (v);
INSERT INTO t_numeric SELECT id + 1000, v FROM t_numeric WHERE id % 3 = 0;
INSERT INTO t_numeric VALUES (2001, '1.50'), (2002, '1.5'), (2003, '1.500000'), (2004, '-0'),
  (2005, '0.000'), (2006, 'NaN'), (2007, 'Infinity'), (2008, '-Infinity'), (2009, '1e100'),
  (2010, '-1e-100'), (2011, NULL), (2012, 'NaN');
DELETE FROM t_numeric WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_numeric;
SELECT * FROM blink_battery('t_numeric', 'v', '-3::numeric', '2::numeric', '12.5::numeric');
SELECT * FROM blink_compare_all(
  $$SELECT id, v FROM t_numeric WHERE v = 'NaN'$$,
  $$SELECT id, v FROM t_numeric WHERE v = 1.500$$,
  $$SELECT id, v FROM t_numeric WHERE v = 0$$,
  $$SELECT v FROM t_numeric WHERE v > 'Infinity'$$,
  $$SELECT v FROM t_numeric WHERE v >= 1e50$$,
  $$SELECT v FROM t_numeric WHERE v < '-1e50'$$,
  $$SELECT v FROM t_numeric WHERE v > -1e-50 AND v < 0$$,
  $$SELECT v FROM t_numeric WHERE v IN ('NaN', '-Infinity', 2.0)$$,
  $$SELECT v FROM t_numeric ORDER BY v DESC LIMIT 30$$,
  $$SELECT v FROM t_numeric WHERE v BETWEEN 1 AND 2 ORDER BY v$$);
SELECT blink_check('t_numeric_v_idx', true);

--
-- bool
--
CREATE TABLE t_bool (id int, v bool) WITH (autovacuum_enabled = off);
INSERT INTO t_bool
  SELECT i, CASE WHEN i % 11 = 0 THEN NULL ELSE i % 3 = 0 END
  FROM generate_series(1, 800) i;
CREATE INDEX t_bool_v_idx ON t_bool USING blink (v);
INSERT INTO t_bool SELECT id + 1000, v FROM t_bool WHERE id % 3 = 0;
DELETE FROM t_bool WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_bool;
SELECT * FROM blink_battery('t_bool', 'v', 'false', 'true', 'true');
SELECT * FROM blink_compare_all(
  $$SELECT id FROM t_bool WHERE v = false$$,
  $$SELECT id FROM t_bool WHERE v$$,
  $$SELECT id FROM t_bool WHERE NOT v$$,
  $$SELECT id FROM t_bool WHERE v IS NOT FALSE$$,
  $$SELECT v FROM t_bool WHERE v <= true ORDER BY v DESC LIMIT 300$$);
SELECT blink_check('t_bool_v_idx', true);

--
-- "char", including bytes above 127 (compared unsigned)
--
CREATE TABLE t_char (id int, v "char") WITH (autovacuum_enabled = off);
INSERT INTO t_char
  SELECT i, CASE WHEN i % 23 = 0 THEN NULL
                 WHEN i % 10 = 0 THEN chr(97 + i % 5)::"char"
                 ELSE chr(65 + (i * 7) % 26)::"char" END
  FROM generate_series(1, 800) i;
CREATE INDEX t_char_v_idx ON t_char USING blink (v);
INSERT INTO t_char SELECT id + 1000, v FROM t_char WHERE id % 3 = 0;
INSERT INTO t_char VALUES (2001, '\200'), (2002, '\377'), (2003, ''), (2004, '\001'),
  (2005, '\377'), (2006, NULL);
DELETE FROM t_char WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_char;
SELECT * FROM blink_battery('t_char', 'v', '''C''::"char"', '''M''::"char"', '''X''::"char"');
SELECT * FROM blink_compare_all(
  $$SELECT id, v FROM t_char WHERE v = '\377'$$,
  $$SELECT v FROM t_char WHERE v > 'Z'$$,
  $$SELECT v FROM t_char WHERE v >= '\200'$$,
  $$SELECT v FROM t_char WHERE v < 'A'$$,
  $$SELECT v FROM t_char WHERE v > 'z' ORDER BY v DESC$$);
SELECT blink_check('t_char_v_idx', true);

--
-- name (collation "C"), and name against text
--
CREATE TABLE t_name (id int, v name) WITH (autovacuum_enabled = off);
INSERT INTO t_name
  SELECT i, CASE WHEN i % 23 = 0 THEN NULL ELSE 'n' || (i * 37) % 401 END
  FROM generate_series(1, 800) i;
CREATE INDEX t_name_v_idx ON t_name USING blink (v);
INSERT INTO t_name SELECT id + 1000, v FROM t_name WHERE id % 3 = 0;
INSERT INTO t_name VALUES (2001, ''), (2002, repeat('z', 100)), (2003, 'N1'), (2004, 'n 1'),
  (2005, NULL), (2006, repeat('z', 63));
DELETE FROM t_name WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_name;
SELECT * FROM blink_battery('t_name', 'v', '''n100''::name', '''n150''::name', '''n42''::name');
SELECT * FROM blink_compare_all(
  $$SELECT id, v FROM t_name WHERE v = repeat('z', 80)::name$$,
  $$SELECT v FROM t_name WHERE v < 'n'$$,
  -- cross-type: name column against text constants
  $$SELECT id, v FROM t_name WHERE v = 'n150'::text$$,
  $$SELECT id, v FROM t_name WHERE v = repeat('z', 63)$$,
  $$SELECT id, v FROM t_name WHERE v = repeat('z', 100)$$,
  $$SELECT v FROM t_name WHERE v < 'n2'::text$$,
  $$SELECT v FROM t_name WHERE v >= 'n29'::text AND v < 'n3'::text$$,
  $$SELECT v FROM t_name WHERE v = ANY ('{n1,n2,n150,zz}'::text[])$$,
  $$SELECT v FROM t_name WHERE v > 'n39'::text ORDER BY v$$,
  $$SELECT v FROM t_name WHERE v < 'n2'::text ORDER BY v DESC LIMIT 20$$);
SELECT blink_check('t_name_v_idx', true);

--
-- text, default collation (index created on the empty table).  Keys here
-- use only lower-case letters and digits, whose order is the same in
-- every common collation, so the row counts do not depend on the locale.
--
CREATE TABLE t_text (id int, v text) WITH (autovacuum_enabled = off);
CREATE INDEX t_text_v_idx ON t_text USING blink (v);
INSERT INTO t_text
  SELECT i, CASE WHEN i % 23 = 0 THEN NULL
                 ELSE 'w' || (i * 37) % 401 || repeat('q', (i * 37) % 401 % 3 * 15) END
  FROM generate_series(1, 800) i;
INSERT INTO t_text SELECT id + 1000, v FROM t_text WHERE id % 3 = 0;
INSERT INTO t_text VALUES (2001, ''), (2002, repeat('abc', 700) || '1'),
  (2003, repeat('abc', 700) || '2'), (2004, (SELECT string_agg(md5(j::text), '') FROM generate_series(1, 30) j)),
  (2005, NULL), (2006, 'w150'), (2007, 'x');
DELETE FROM t_text WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_text;
SELECT * FROM blink_battery('t_text', 'v', '''w1''::text', '''w150''::text', '''w42qqq''::text');
SELECT * FROM blink_compare_all(
  $$SELECT id FROM t_text WHERE v = ''$$,
  $$SELECT id FROM t_text WHERE v = repeat('abc', 700) || '2'$$,
  $$SELECT id FROM t_text WHERE v > repeat('abc', 700) AND v < 'b'$$,
  $$SELECT id FROM t_text WHERE v >= 'w15' AND v < 'w16'$$,
  -- cross-type: text column against name constants
  $$SELECT id, v FROM t_text WHERE v = 'w150'::name$$,
  $$SELECT id, v FROM t_text WHERE v = 'w150'::name COLLATE "default"$$,
  $$SELECT v FROM t_text WHERE v < 'w2'::name COLLATE "default"$$,
  $$SELECT v FROM t_text WHERE v > 'w299'::name COLLATE "default" ORDER BY v LIMIT 5$$);
SELECT blink_check('t_text_v_idx', true);

--
-- text with collation "C" (column and index), and a default-collation
-- column with both a default-collation and a COLLATE "C" index.  Queries
-- on the default collation are limited to those whose row counts do not
-- depend on the locale.
--
CREATE TABLE t_coll (id int, d text, c text COLLATE "C") WITH (autovacuum_enabled = off);
INSERT INTO t_coll
  SELECT i, x, x
  FROM (SELECT i, CASE WHEN i % 23 = 0 THEN NULL
                       ELSE (ARRAY['apple', 'Apple', 'APPLE', 'banana', 'Banana', '_under',
                                   'a-b', 'a b', 'ab', 'B', 'z', 'Z', '1', '10', '9'])[1 + (i * 37) % 15]
                            || CASE WHEN i % 2 = 0 THEN (i % 17)::text ELSE '' END END
        FROM generate_series(1, 800) i) s(i, x);
CREATE INDEX t_coll_c_idx ON t_coll USING blink (c);
CREATE INDEX t_coll_d_idx ON t_coll USING blink (d);
CREATE INDEX t_coll_dc_idx ON t_coll USING blink (d COLLATE "C");
INSERT INTO t_coll SELECT id + 1000, d, c FROM t_coll WHERE id % 3 = 0;
DELETE FROM t_coll WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_coll;
SELECT * FROM blink_battery('t_coll', 'c', '''B''::text', '''a b''::text', '''apple''::text');
SELECT * FROM blink_compare_all(
  $$SELECT id, c FROM t_coll WHERE c = 'apple' COLLATE "POSIX"$$,
  $$SELECT c FROM t_coll WHERE c LIKE 'ap%'$$,
  $$SELECT c FROM t_coll ORDER BY c COLLATE "default"$$,
  -- the default-collation column: its own index, and its COLLATE "C" index
  $$SELECT id, d FROM t_coll WHERE d = 'Apple'$$,
  $$SELECT id, d FROM t_coll WHERE d IN ('a b', 'a-b', 'Z')$$,
  $$SELECT id FROM t_coll WHERE d IS NULL$$,
  $$SELECT d FROM t_coll ORDER BY d$$,
  $$SELECT d FROM t_coll ORDER BY d DESC$$,
  $$SELECT d FROM t_coll ORDER BY d LIMIT 37$$,
  $$SELECT d FROM t_coll WHERE d = ANY ('{banana,Banana,_under}') ORDER BY d$$,
  $$SELECT id, d FROM t_coll WHERE d COLLATE "C" = 'Apple'$$,
  $$SELECT d FROM t_coll WHERE d COLLATE "C" < 'B'$$,
  $$SELECT d FROM t_coll WHERE d COLLATE "C" >= 'a' AND d COLLATE "C" < 'b'$$,
  $$SELECT d FROM t_coll WHERE d > 'a' COLLATE "C" ORDER BY d COLLATE "C" LIMIT 30$$,
  $$SELECT d FROM t_coll ORDER BY d COLLATE "C" DESC$$);
SELECT blink_check('t_coll_c_idx', true);
SELECT blink_check('t_coll_d_idx', true);
SELECT blink_check('t_coll_dc_idx', true);

--
-- varchar (uses text_ops)
--
CREATE TABLE t_varchar (id int, v varchar(40)) WITH (autovacuum_enabled = off);
INSERT INTO t_varchar
  SELECT i, CASE WHEN i % 23 = 0 THEN NULL ELSE 'v' || (i * 37) % 401 || repeat('0', i % 5) END
  FROM generate_series(1, 800) i;
CREATE INDEX t_varchar_v_idx ON t_varchar USING blink (v);
INSERT INTO t_varchar SELECT id + 1000, v FROM t_varchar WHERE id % 3 = 0;
INSERT INTO t_varchar VALUES (2001, ''), (2002, 'v150'), (2003, NULL);
DELETE FROM t_varchar WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_varchar;
SELECT * FROM blink_battery('t_varchar', 'v', '''v1''::varchar', '''v150''::varchar', '''v42''::varchar');
SELECT * FROM blink_compare_all(
  $$SELECT id FROM t_varchar WHERE v = 'v1500'$$,
  $$SELECT id FROM t_varchar WHERE v = 'v1500'::text$$,
  $$SELECT id FROM t_varchar WHERE v = ANY ('{v1,v150,v42}'::varchar[])$$,
  $$SELECT v FROM t_varchar WHERE v > 'v39' ORDER BY v$$);
SELECT blink_check('t_varchar_v_idx', true);

--
-- bpchar: trailing blanks are insignificant
--
CREATE TABLE t_bpchar (id int, v char(10)) WITH (autovacuum_enabled = off);
INSERT INTO t_bpchar
  SELECT i, CASE WHEN i % 23 = 0 THEN NULL ELSE 'c' || (i * 37) % 401 END
  FROM generate_series(1, 800) i;
CREATE INDEX t_bpchar_v_idx ON t_bpchar USING blink (v);
INSERT INTO t_bpchar SELECT id + 1000, v FROM t_bpchar WHERE id % 3 = 0;
INSERT INTO t_bpchar VALUES (2001, ''), (2002, 'c1   '), (2003, 'c1 0'), (2004, NULL),
  (2005, 'c100000000');
DELETE FROM t_bpchar WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_bpchar;
SELECT * FROM blink_battery('t_bpchar', 'v', '''c1''::bpchar', '''c150''::bpchar', '''c42''::bpchar');
SELECT * FROM blink_compare_all(
  $$SELECT id FROM t_bpchar WHERE v = 'c1    '$$,
  $$SELECT id FROM t_bpchar WHERE v = ''$$,
  $$SELECT id FROM t_bpchar WHERE v < 'c'$$,
  $$SELECT id FROM t_bpchar WHERE v = 'c1'::text$$,
  $$SELECT v FROM t_bpchar WHERE v >= 'c1 ' ORDER BY v LIMIT 30$$);
SELECT blink_check('t_bpchar_v_idx', true);

--
-- bytea: keys of different lengths, one a prefix of another
--
CREATE TABLE t_bytea (id int, v bytea) WITH (autovacuum_enabled = off);
INSERT INTO t_bytea
  SELECT i, CASE WHEN i % 23 = 0 THEN NULL
                 ELSE decode(lpad(to_hex((i * 37) % 401), 4, '0'), 'hex')
                      || CASE WHEN i % 2 = 0 THEN '\x00'::bytea ELSE '\x'::bytea END END
  FROM generate_series(1, 800) i;
CREATE INDEX t_bytea_v_idx ON t_bytea USING blink (v);
INSERT INTO t_bytea SELECT id + 1000, v FROM t_bytea WHERE id % 3 = 0;
INSERT INTO t_bytea VALUES (2001, '\x'), (2002, '\x00'), (2003, '\x0000'), (2004, '\xff'),
  (2005, '\xffff'), (2006, NULL), (2007, decode(repeat('ab', 1500), 'hex'));
DELETE FROM t_bytea WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_bytea;
SELECT * FROM blink_battery('t_bytea', 'v', '''\x0010''::bytea', '''\x0080''::bytea', '''\x0100''::bytea');
SELECT * FROM blink_compare_all(
  $$SELECT id FROM t_bytea WHERE v = '\x'$$,
  $$SELECT id FROM t_bytea WHERE v = '\x008000'$$,
  $$SELECT v FROM t_bytea WHERE v < '\x0001'$$,
  $$SELECT v FROM t_bytea WHERE v > '\x0080' AND v < '\x0081'$$,
  $$SELECT v FROM t_bytea WHERE v >= '\xff' ORDER BY v$$);
SELECT blink_check('t_bytea_v_idx', true);

--
-- date, with infinities and values beyond the range of timestamp
--
CREATE TABLE t_date (id int, v date) WITH (autovacuum_enabled = off);
INSERT INTO t_date
  SELECT i, CASE WHEN i % 23 = 0 THEN NULL ELSE '2000-01-01'::date + (i * 37) % 401 * 10 END
  FROM generate_series(1, 800) i;
CREATE INDEX t_date_v_idx ON t_date USING blink (v);
INSERT INTO t_date SELECT id + 1000, v FROM t_date WHERE id % 3 = 0;
INSERT INTO t_date VALUES (2001, 'infinity'), (2002, '-infinity'), (2003, '4713-01-01 BC'),
  (2004, '5000000-01-01'), (2005, NULL), (2006, 'infinity'), (2007, '2002-09-27');
DELETE FROM t_date WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_date;
SELECT * FROM blink_battery('t_date', 'v', '''2000-06-29''::date', '''2002-09-27''::date', '''2008-03-19''::date');
SELECT * FROM blink_compare_all(
  $$SELECT id, v FROM t_date WHERE v = 'infinity'$$,
  $$SELECT v FROM t_date WHERE v > '3000-01-01'$$,
  $$SELECT v FROM t_date WHERE v <= '-infinity'$$,
  $$SELECT v FROM t_date WHERE v < '2000-01-01'$$,
  $$SELECT v FROM t_date ORDER BY v DESC LIMIT 20$$,
  -- cross-type: date column against timestamp and timestamptz constants
  $$SELECT id, v FROM t_date WHERE v = '2002-09-27 00:00'::timestamp$$,
  $$SELECT id, v FROM t_date WHERE v = '2002-09-27 00:00:01'::timestamp$$,
  $$SELECT v FROM t_date WHERE v < '2002-09-27 12:00'::timestamp$$,
  $$SELECT v FROM t_date WHERE v > '2005-01-01'::timestamptz$$,
  $$SELECT v FROM t_date WHERE v >= '2002-09-27 00:00+00'::timestamptz AND v < '2002-10-08'::timestamp$$,
  $$SELECT v FROM t_date WHERE v = 'infinity'::timestamp$$,
  $$SELECT v FROM t_date WHERE v < '-infinity'::timestamptz$$,
  $$SELECT v FROM t_date WHERE v > '294000-01-01'::timestamp$$,
  $$SELECT v FROM t_date WHERE v BETWEEN '2001-01-01'::timestamp AND '2003-01-01'::timestamptz$$,
  $$SELECT v FROM t_date WHERE v = ANY ('{2002-09-27,2000-01-01,infinity}'::timestamp[])$$,
  $$SELECT v FROM t_date WHERE v < '2001-01-01'::timestamptz ORDER BY v DESC$$,
  $$SELECT v FROM t_date WHERE v >= '2010-01-01'::timestamp ORDER BY v LIMIT 10$$);
SELECT blink_check('t_date_v_idx', true);

--
-- time
--
CREATE TABLE t_time (id int, v time) WITH (autovacuum_enabled = off);
INSERT INTO t_time
  SELECT i, CASE WHEN i % 23 = 0 THEN NULL
                 ELSE '00:00'::time + (i * 37) % 401 * interval '3 minutes 7 seconds' END
  FROM generate_series(1, 800) i;
CREATE INDEX t_time_v_idx ON t_time USING blink (v);
INSERT INTO t_time SELECT id + 1000, v FROM t_time WHERE id % 3 = 0;
INSERT INTO t_time VALUES (2001, '24:00:00'), (2002, '00:00:00'), (2003, '23:59:59.999999'),
  (2004, NULL), (2005, '24:00:00');
DELETE FROM t_time WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_time;
SELECT * FROM blink_battery('t_time', 'v', '''00:09:21''::time', '''01:02:20''::time', '''15:03:50''::time');
SELECT * FROM blink_compare_all(
  $$SELECT id FROM t_time WHERE v = '24:00'$$,
  $$SELECT v FROM t_time WHERE v > '23:59:59.999998'$$,
  $$SELECT v FROM t_time WHERE v > '20:00' ORDER BY v DESC$$);
SELECT blink_check('t_time_v_idx', true);

--
-- timetz: equal only when both the time and the zone are equal (the same
-- instant in different zones sorts by zone)
--
CREATE TABLE t_timetz (id int, v timetz) WITH (autovacuum_enabled = off);
INSERT INTO t_timetz
  SELECT i, CASE WHEN i % 23 = 0 THEN NULL
                 ELSE (('00:00'::time + (i * 37) % 401 * interval '3 minutes 7 seconds')::text
                       || (ARRAY['+00', '+01', '-05:30'])[1 + i % 3])::timetz END
  FROM generate_series(1, 800) i;
CREATE INDEX t_timetz_v_idx ON t_timetz USING blink (v);
INSERT INTO t_timetz SELECT id + 1000, v FROM t_timetz WHERE id % 3 = 0;
INSERT INTO t_timetz VALUES (2001, '24:00:00+00'), (2002, '00:00:00+15:59'),
  (2003, '00:00:00-15:59'), (2004, NULL), (2005, '01:02:20+01'), (2006, '00:02:20+00'),
  (2007, '02:02:20+02');
DELETE FROM t_timetz WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_timetz;
SELECT * FROM blink_battery('t_timetz', 'v', '''00:09:21+00''::timetz', '''01:02:20+01''::timetz', '''15:03:50-05:30''::timetz');
SELECT * FROM blink_compare_all(
  $$SELECT id, v FROM t_timetz WHERE v = '00:02:20+00'$$,
  $$SELECT v FROM t_timetz WHERE v >= '00:02:20+00' AND v <= '02:02:20+02'$$,
  $$SELECT v FROM t_timetz WHERE v >= '02:02:20+02' AND v <= '00:02:20+00'$$,
  $$SELECT v FROM t_timetz WHERE v < '00:00:00+00'$$,
  $$SELECT v FROM t_timetz WHERE v BETWEEN '02:02:20+02' AND '00:02:20+00' ORDER BY v DESC$$);
SELECT blink_check('t_timetz_v_idx', true);

--
-- timestamp, with infinities
--
CREATE TABLE t_timestamp (id int, v timestamp) WITH (autovacuum_enabled = off);
INSERT INTO t_timestamp
  SELECT i, CASE WHEN i % 23 = 0 THEN NULL
                 ELSE '2000-01-01'::timestamp
                      + (i * 37) % 401 * interval '1 day 3 hours 17 minutes 11.5 seconds' END
  FROM generate_series(1, 800) i;
CREATE INDEX t_timestamp_v_idx ON t_timestamp USING blink (v);
INSERT INTO t_timestamp SELECT id + 1000, v FROM t_timestamp WHERE id % 3 = 0;
INSERT INTO t_timestamp VALUES (2001, 'infinity'), (2002, '-infinity'),
  (2003, '294276-12-31 23:59:59'), (2004, '4713-01-01 BC'), (2005, NULL),
  (2006, '2000-03-01'), (2007, '-infinity');
DELETE FROM t_timestamp WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_timestamp;
SELECT * FROM blink_battery('t_timestamp', 'v', '''2000-02-15 11:27:40''::timestamp',
  '''2000-04-23 16:39:10''::timestamp', '''2000-12-07 01:57:30''::timestamp');
SELECT * FROM blink_compare_all(
  $$SELECT id FROM t_timestamp WHERE v = '-infinity'$$,
  $$SELECT v FROM t_timestamp WHERE v > '3000-01-01'$$,
  $$SELECT v FROM t_timestamp WHERE v < '1999-01-01'$$,
  $$SELECT v FROM t_timestamp ORDER BY v LIMIT 5$$,
  -- cross-type: timestamp column against date and timestamptz constants
  $$SELECT id, v FROM t_timestamp WHERE v = '2000-01-01'::date$$,
  $$SELECT id, v FROM t_timestamp WHERE v = '2000-03-01'::date$$,
  $$SELECT v FROM t_timestamp WHERE v < '2000-06-01'::date$$,
  $$SELECT v FROM t_timestamp WHERE v >= '2001-01-01'::date$$,
  $$SELECT v FROM t_timestamp WHERE v > 'infinity'::date$$,
  $$SELECT v FROM t_timestamp WHERE v >= 'infinity'::date$$,
  $$SELECT v FROM t_timestamp WHERE v = ANY ('{2000-01-01,2000-03-01,-infinity}'::date[])$$,
  $$SELECT v FROM t_timestamp WHERE v < '2000-03-01 00:00+00'::timestamptz$$,
  $$SELECT v FROM t_timestamp WHERE v BETWEEN '2000-04-01'::date AND '2000-05-01 12:00+00'::timestamptz$$,
  $$SELECT v FROM t_timestamp WHERE v < '2000-06-01'::date ORDER BY v DESC$$,
  $$SELECT v FROM t_timestamp WHERE v >= '2000-06-01 00:00+00'::timestamptz ORDER BY v LIMIT 20$$);
SELECT blink_check('t_timestamp_v_idx', true);

--
-- timestamptz, with infinities
--
CREATE TABLE t_timestamptz (id int, v timestamptz) WITH (autovacuum_enabled = off);
INSERT INTO t_timestamptz
  SELECT i, CASE WHEN i % 23 = 0 THEN NULL
                 ELSE '2000-01-01 00:00+00'::timestamptz
                      + (i * 37) % 401 * interval '1 day 3 hours 17 minutes 11.5 seconds' END
  FROM generate_series(1, 800) i;
CREATE INDEX t_timestamptz_v_idx ON t_timestamptz USING blink (v);
INSERT INTO t_timestamptz SELECT id + 1000, v FROM t_timestamptz WHERE id % 3 = 0;
INSERT INTO t_timestamptz VALUES (2001, 'infinity'), (2002, '-infinity'), (2003, NULL),
  (2004, '2000-03-01 00:00+00'), (2005, 'infinity');
DELETE FROM t_timestamptz WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_timestamptz;
SELECT * FROM blink_battery('t_timestamptz', 'v', '''2000-02-15 11:27:40+00''::timestamptz',
  '''2000-04-23 16:39:10+00''::timestamptz', '''2000-12-07 01:57:30+00''::timestamptz');
SELECT * FROM blink_compare_all(
  $$SELECT id FROM t_timestamptz WHERE v = 'infinity'$$,
  $$SELECT v FROM t_timestamptz WHERE v < '2000-01-01 00:00+00'$$,
  $$SELECT id FROM t_timestamptz WHERE v = '2000-04-23 17:39:10+01'$$,
  -- cross-type: timestamptz column against date and timestamp constants
  $$SELECT id, v FROM t_timestamptz WHERE v = '2000-03-01'::date$$,
  $$SELECT v FROM t_timestamptz WHERE v < '2000-06-01'::date$$,
  $$SELECT v FROM t_timestamptz WHERE v > 'infinity'::date$$,
  $$SELECT v FROM t_timestamptz WHERE v <= '-infinity'::timestamp$$,
  $$SELECT id, v FROM t_timestamptz WHERE v = '2000-04-23 16:39:10'::timestamp$$,
  $$SELECT v FROM t_timestamptz WHERE v >= '2000-12-01'::timestamp AND v < '2001-01-01'::date$$,
  $$SELECT v FROM t_timestamptz WHERE v = ANY ('{2000-01-01,2000-03-01,infinity}'::date[])$$,
  $$SELECT v FROM t_timestamptz WHERE v > '2000-06-01'::date ORDER BY v$$,
  $$SELECT v FROM t_timestamptz WHERE v < '2000-06-01'::timestamp ORDER BY v DESC LIMIT 20$$);
SELECT blink_check('t_timestamptz_v_idx', true);

--
-- interval: '1 day' = '24 hours' and '1 mon' = '30 days'
--
CREATE TABLE t_interval (id int, v interval) WITH (autovacuum_enabled = off);
INSERT INTO t_interval
  SELECT i, CASE WHEN i % 23 = 0 THEN NULL
                 ELSE make_interval(months => i % 3 - 1, days => (i * 37) % 31,
                                    hours => (i * 7) % 48) END
  FROM generate_series(1, 800) i;
CREATE INDEX t_interval_v_idx ON t_interval USING blink (v);
INSERT INTO t_interval SELECT id + 1000, v FROM t_interval WHERE id % 3 = 0;
INSERT INTO t_interval VALUES (2001, '1 mon'), (2002, '30 days'), (2003, '720 hours'),
  (2004, '-1 day'), (2005, '0'), (2006, '1 year'), (2007, '178000000 years'),
  (2008, '-178000000 years'), (2009, NULL), (2010, '2 days'), (2011, '1 day 24:00');
DELETE FROM t_interval WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_interval;
SELECT * FROM blink_battery('t_interval', 'v', '''1 day''::interval', '''2 days''::interval', '''20 days 12:00''::interval');
SELECT * FROM blink_compare_all(
  $$SELECT id, v FROM t_interval WHERE v = '1 mon'$$,
  $$SELECT id, v FROM t_interval WHERE v = '48 hours'$$,
  $$SELECT v FROM t_interval WHERE v > '1 year'$$,
  $$SELECT v FROM t_interval WHERE v < '-1 mon'$$,
  $$SELECT v FROM t_interval WHERE v BETWEEN '29 days' AND '31 days' ORDER BY v$$,
  $$SELECT v FROM t_interval ORDER BY v DESC LIMIT 50$$);
SELECT blink_check('t_interval_v_idx', true);

--
-- uuid
--
CREATE TABLE t_uuid (id int, v uuid) WITH (autovacuum_enabled = off);
INSERT INTO t_uuid
  SELECT i, CASE WHEN i % 23 = 0 THEN NULL ELSE md5(((i * 37) % 401)::text)::uuid END
  FROM generate_series(1, 800) i;
CREATE INDEX t_uuid_v_idx ON t_uuid USING blink (v);
INSERT INTO t_uuid SELECT id + 1000, v FROM t_uuid WHERE id % 3 = 0;
INSERT INTO t_uuid VALUES (2001, '00000000-0000-0000-0000-000000000000'),
  (2002, 'ffffffff-ffff-ffff-ffff-ffffffffffff'), (2003, NULL);
DELETE FROM t_uuid WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_uuid;
SELECT * FROM blink_battery('t_uuid', 'v', '''40000000-0000-0000-0000-000000000000''::uuid',
  'md5(''150'')::uuid', '''c0000000-0000-0000-0000-000000000000''::uuid');
SELECT * FROM blink_compare_all(
  $$SELECT id FROM t_uuid WHERE v = '00000000-0000-0000-0000-000000000000'$$,
  $$SELECT v FROM t_uuid WHERE v >= 'ff000000-0000-0000-0000-000000000000' ORDER BY v$$);
SELECT blink_check('t_uuid_v_idx', true);

--
-- inet: IPv4 and IPv6, several netmasks
--
CREATE TABLE t_inet (id int, v inet) WITH (autovacuum_enabled = off);
INSERT INTO t_inet
  SELECT i, CASE WHEN i % 23 = 0 THEN NULL
                 WHEN i % 4 = 0 THEN ('fe80::' || to_hex((i * 37) % 401) || '/' || (64 + i % 65))::inet
                 ELSE ('10.' || (i * 37) % 7 || '.' || (i * 37) % 401 % 256 || '.' || i % 9
                       || '/' || (16 + i % 17))::inet END
  FROM generate_series(1, 800) i;
CREATE INDEX t_inet_v_idx ON t_inet USING blink (v);
INSERT INTO t_inet SELECT id + 1000, v FROM t_inet WHERE id % 3 = 0;
INSERT INTO t_inet VALUES (2001, '0.0.0.0/0'), (2002, '255.255.255.255'), (2003, '::/0'),
  (2004, '::1'), (2005, NULL), (2006, '10.2.37.1'), (2007, '10.2.37.1/32');
DELETE FROM t_inet WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_inet;
SELECT * FROM blink_battery('t_inet', 'v', '''10.0.0.0/8''::inet', '''10.2.37.1/17''::inet', '''fe80::1/64''::inet');
SELECT * FROM blink_compare_all(
  $$SELECT id FROM t_inet WHERE v = '10.2.37.1'$$,
  $$SELECT v FROM t_inet WHERE v << '10.2.0.0/16'$$,
  $$SELECT v FROM t_inet WHERE v > '255.0.0.0' AND v < '::'$$,
  $$SELECT v FROM t_inet WHERE v >= '::' ORDER BY v LIMIT 30$$);
SELECT blink_check('t_inet_v_idx', true);

--
-- cidr (uses inet_ops)
--
CREATE TABLE t_cidr (id int, v cidr) WITH (autovacuum_enabled = off);
INSERT INTO t_cidr
  SELECT i, CASE WHEN i % 23 = 0 THEN NULL
                 WHEN i % 7 = 0 THEN ('2001:db8:' || to_hex(i % 50) || '::/48')::cidr
                 WHEN i % 5 = 0 THEN ('10.' || (i * 37) % 7 || '.0.0/16')::cidr
                 ELSE ('10.' || (i * 37) % 7 || '.' || (i * 37) % 401 % 256 || '.0/24')::cidr END
  FROM generate_series(1, 800) i;
CREATE INDEX t_cidr_v_idx ON t_cidr USING blink (v);
INSERT INTO t_cidr SELECT id + 1000, v FROM t_cidr WHERE id % 3 = 0;
INSERT INTO t_cidr VALUES (2001, '0.0.0.0/0'), (2002, '10.2.37.0/24'), (2003, NULL),
  (2004, '10.2.37.0/25');
DELETE FROM t_cidr WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_cidr;
SELECT * FROM blink_battery('t_cidr', 'v', '''10.1.0.0/16''::cidr', '''10.2.37.0/24''::cidr', '''2001:db8::/32''::cidr');
SELECT * FROM blink_compare_all(
  $$SELECT id FROM t_cidr WHERE v = '10.2.0.0/16'$$,
  $$SELECT id FROM t_cidr WHERE v = '10.2.37.0/24'::inet$$,
  $$SELECT id FROM t_cidr WHERE v = ANY ('{10.2.37.0/24,10.1.0.0/16}'::cidr[])$$,
  $$SELECT v FROM t_cidr WHERE v > '2001:db8::' ORDER BY v DESC$$);
SELECT blink_check('t_cidr_v_idx', true);

--
-- macaddr
--
CREATE TABLE t_macaddr (id int, v macaddr) WITH (autovacuum_enabled = off);
INSERT INTO t_macaddr
  SELECT i, CASE WHEN i % 23 = 0 THEN NULL
                 ELSE ('08:00:2b:' || lpad(to_hex((i * 37) % 401 % 256), 2, '0') || ':'
                       || lpad(to_hex((i * 37) % 401 / 256), 2, '0') || ':01')::macaddr END
  FROM generate_series(1, 800) i;
CREATE INDEX t_macaddr_v_idx ON t_macaddr USING blink (v);
INSERT INTO t_macaddr SELECT id + 1000, v FROM t_macaddr WHERE id % 3 = 0;
INSERT INTO t_macaddr VALUES (2001, '00:00:00:00:00:00'), (2002, 'ff:ff:ff:ff:ff:ff'), (2003, NULL);
DELETE FROM t_macaddr WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_macaddr;
SELECT * FROM blink_battery('t_macaddr', 'v', '''08:00:2b:10:00:01''::macaddr',
  '''08:00:2b:80:00:01''::macaddr', '''08:00:2b:20:01:01''::macaddr');
SELECT blink_check('t_macaddr_v_idx', true);

--
-- money
--
CREATE TABLE t_money (id int, v money) WITH (autovacuum_enabled = off);
INSERT INTO t_money
  SELECT i, CASE WHEN i % 23 = 0 THEN NULL ELSE (((i * 37) % 401 - 200) * 12.25)::money END
  FROM generate_series(1, 800) i;
CREATE INDEX t_money_v_idx ON t_money USING blink (v);
INSERT INTO t_money SELECT id + 1000, v FROM t_money WHERE id % 3 = 0;
INSERT INTO t_money VALUES (2001, 92233720368547758.07), (2002, -92233720368547758.08),
  (2003, NULL), (2004, 0.01);
DELETE FROM t_money WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_money;
SELECT * FROM blink_battery('t_money', 'v', '(-100)::money', '122.5::money', '1000::money');
SELECT * FROM blink_compare_all(
  $$SELECT v FROM t_money WHERE v > 0::money AND v < 1::money$$,
  $$SELECT v FROM t_money WHERE v >= 2000::money ORDER BY v$$);
SELECT blink_check('t_money_v_idx', true);

--
-- pg_lsn
--
CREATE TABLE t_pg_lsn (id int, v pg_lsn) WITH (autovacuum_enabled = off);
INSERT INTO t_pg_lsn
  SELECT i, CASE WHEN i % 23 = 0 THEN NULL
                 ELSE ((i * 37) % 401 % 20 || '/' || to_hex((i * 37) % 401 * 4096))::pg_lsn END
  FROM generate_series(1, 800) i;
CREATE INDEX t_pg_lsn_v_idx ON t_pg_lsn USING blink (v);
INSERT INTO t_pg_lsn SELECT id + 1000, v FROM t_pg_lsn WHERE id % 3 = 0;
INSERT INTO t_pg_lsn VALUES (2001, '0/0'), (2002, 'FFFFFFFF/FFFFFFFF'), (2003, NULL);
DELETE FROM t_pg_lsn WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_pg_lsn;
SELECT * FROM blink_battery('t_pg_lsn', 'v', '''1/0''::pg_lsn', '''10/96000''::pg_lsn', '''12/0''::pg_lsn');
SELECT * FROM blink_compare_all(
  $$SELECT id FROM t_pg_lsn WHERE v = 'FFFFFFFF/FFFFFFFF'$$,
  $$SELECT v FROM t_pg_lsn WHERE v > '13/0' ORDER BY v$$);
SELECT blink_check('t_pg_lsn_v_idx', true);

--
-- an enum whose sort order differs from the order of its values' OIDs
--
CREATE TYPE blink_mood AS ENUM ('sad', 'ok', 'happy');
ALTER TYPE blink_mood ADD VALUE 'meh' BEFORE 'ok';
ALTER TYPE blink_mood ADD VALUE 'ecstatic' AFTER 'happy';
ALTER TYPE blink_mood ADD VALUE 'awful' BEFORE 'sad';
SELECT enum_range(NULL::blink_mood);
CREATE TABLE t_enum (id int, v blink_mood) WITH (autovacuum_enabled = off);
INSERT INTO t_enum
  SELECT i, CASE WHEN i % 23 = 0 THEN NULL
                 ELSE (enum_range(NULL::blink_mood))[1 + (i * 37) % 6] END
  FROM generate_series(1, 800) i;
CREATE INDEX t_enum_v_idx ON t_enum USING blink (v);
INSERT INTO t_enum SELECT id + 1000, v FROM t_enum WHERE id % 3 = 0;
DELETE FROM t_enum WHERE id % 10 = 7 AND id < 2000;
VACUUM ANALYZE t_enum;
SELECT * FROM blink_battery('t_enum', 'v', '''sad''::blink_mood', '''meh''::blink_mood', '''happy''::blink_mood');
SELECT * FROM blink_compare_all(
  $$SELECT v FROM t_enum WHERE v < 'sad'$$,
  $$SELECT v FROM t_enum WHERE v >= 'ecstatic'$$,
  $$SELECT id FROM t_enum WHERE v = ANY ('{ok,awful}'::blink_mood[])$$,
  $$SELECT v FROM t_enum WHERE v < ANY ('{meh,sad}'::blink_mood[])$$,
  $$SELECT v FROM t_enum WHERE v > 'awful' AND v < 'ok' ORDER BY v DESC$$);
SELECT blink_check('t_enum_v_idx', true);

--
-- The plans really use the blink indexes.
--
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT v FROM t_int4 WHERE v > 1000 ORDER BY v LIMIT 5;
EXPLAIN (COSTS OFF) SELECT id, v FROM t_int8 WHERE v = 0::int4;
EXPLAIN (COSTS OFF) SELECT v FROM t_timestamp WHERE v < '2000-06-01'::date ORDER BY v DESC;
EXPLAIN (COSTS OFF) SELECT v FROM t_desc ORDER BY v DESC NULLS FIRST LIMIT 40;
EXPLAIN (COSTS OFF) SELECT v FROM t_float4 WHERE v = ANY ('{NaN,-Infinity,12.5}'::float8[]);
EXPLAIN (COSTS OFF) SELECT id FROM t_text WHERE v IS NULL;
EXPLAIN (COSTS OFF) SELECT d FROM t_coll WHERE d COLLATE "C" < 'B';
EXPLAIN (COSTS OFF) SELECT v FROM t_name WHERE v < 'n2'::text;
RESET enable_bitmapscan;
SET enable_indexscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM t_uuid WHERE v IN (md5('1')::uuid, md5('2')::uuid);
EXPLAIN (COSTS OFF) SELECT id FROM t_date WHERE v >= '2002-09-27 00:00+00'::timestamptz;
RESET enable_indexscan;
RESET enable_seqscan;

--
-- Clean up
--
DROP TABLE t_int2, t_int4, t_desc, t_int8, t_oid, t_float4, t_float8, t_numeric, t_bool,
  t_char, t_name, t_text, t_coll, t_varchar, t_bpchar, t_bytea, t_date, t_time, t_timetz,
  t_timestamp, t_timestamptz, t_interval, t_uuid, t_inet, t_cidr, t_macaddr, t_money,
  t_pg_lsn, t_enum;
DROP TYPE blink_mood;
DROP FUNCTION blink_battery(text, text, text, text, text);
DROP FUNCTION blink_compare_all(text[]);
DROP FUNCTION blink_compare(text);
DROP FUNCTION blink_plan_uses(text, text);
DROP EXTENSION blinkam;
