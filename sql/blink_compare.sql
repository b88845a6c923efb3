--
-- Inline comparators (_blink_call_cmp): the built-in comparison functions
-- of int2, int4, int8, date, timestamp, timestamptz and oid are evaluated
-- without the function-call interface.  For each type, values at both
-- ends of its range (oid is unsigned: 2147483648 sorts after 1), in a
-- shuffled order with duplicates and NULLs, must come back from blink
-- index scans in the order and with the counts a sort and a sequential
-- scan give, ascending and DESC NULLS FIRST (either index may serve
-- either order, scanned backward); a unique index must refuse
-- every duplicate.
--
CREATE EXTENSION blinkam;

CREATE FUNCTION cmp_case(typ text, vals text[],
                         OUT type text, OUT uses_index boolean,
                         OUT same_order boolean, OUT same_counts boolean,
                         OUT duplicates_refused int, OUT checked text)
LANGUAGE plpgsql AS $fn$
DECLARE
    by_index text;
    by_sort text;
    plan text;
    line text;
    bad int := 0;
    n_idx bigint;
    n_seq bigint;
    op text;
    b text;
BEGIN
    type := typ;
    EXECUTE format('CREATE TABLE cmp_t (v %s)', typ);
    EXECUTE format('INSERT INTO cmp_t SELECT x::%s FROM unnest($1) x, generate_series(1, 3) g
                    ORDER BY md5(x || g)', typ) USING vals;
    INSERT INTO cmp_t VALUES (NULL), (NULL);
    CREATE INDEX cmp_asc ON cmp_t USING blink (v);
    CREATE INDEX cmp_desc ON cmp_t USING blink (v DESC NULLS FIRST);

    SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;
    SET LOCAL enable_sort = off;
    plan := '';
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) SELECT v FROM cmp_t ORDER BY v' LOOP
        plan := plan || line;
    END LOOP;
    uses_index := plan LIKE 'Index Only Scan%using cmp\_%';
    plan := '';
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) SELECT v FROM cmp_t ORDER BY v DESC NULLS FIRST' LOOP
        plan := plan || line;
    END LOOP;
    uses_index := uses_index AND plan LIKE 'Index Only Scan%using cmp\_%';
    SELECT string_agg(coalesce(v::text, 'null'), ',') INTO by_index
      FROM (SELECT v FROM cmp_t ORDER BY v) s;
    SELECT by_index || ';' || string_agg(coalesce(v::text, 'null'), ',') INTO by_index
      FROM (SELECT v FROM cmp_t ORDER BY v DESC NULLS FIRST) s;
    -- ranges through the index, each bound a value of the list
    FOREACH b IN ARRAY vals LOOP
        FOREACH op IN ARRAY ARRAY['<', '<=', '=', '>=', '>'] LOOP
            EXECUTE format('SELECT count(*) FROM cmp_t WHERE v %s $1::%s', op, typ)
              INTO n_idx USING b;
            SET LOCAL enable_seqscan = on; SET LOCAL enable_indexscan = off;
            SET LOCAL enable_indexonlyscan = off;
            EXECUTE format('SELECT count(*) FROM cmp_t WHERE v %s $1::%s', op, typ)
              INTO n_seq USING b;
            SET LOCAL enable_seqscan = off; SET LOCAL enable_indexscan = on;
            SET LOCAL enable_indexonlyscan = on;
            IF n_idx <> n_seq THEN bad := bad + 1; END IF;
        END LOOP;
    END LOOP;
    same_counts := bad = 0;

    SET LOCAL enable_seqscan = on; SET LOCAL enable_indexscan = off;
    SET LOCAL enable_indexonlyscan = off; SET LOCAL enable_sort = on;
    SELECT string_agg(coalesce(v::text, 'null'), ',' ORDER BY v) INTO by_sort FROM cmp_t;
    SELECT by_sort || ';' || string_agg(coalesce(v::text, 'null'), ','
                                        ORDER BY v DESC NULLS FIRST) INTO by_sort FROM cmp_t;
    same_order := by_index = by_sort;
    PERFORM blink_check('cmp_asc', true), blink_check('cmp_desc', true);

    -- unique: one row per value goes in, every second one is refused
    DELETE FROM cmp_t;
    CREATE UNIQUE INDEX cmp_u ON cmp_t USING blink (v);
    EXECUTE format('INSERT INTO cmp_t SELECT x::%s FROM unnest($1) x ORDER BY md5(x)', typ)
      USING vals;
    duplicates_refused := 0;
    FOREACH b IN ARRAY vals LOOP
        BEGIN
            EXECUTE format('INSERT INTO cmp_t VALUES ($1::%s)', typ) USING b;
        EXCEPTION WHEN unique_violation THEN
            duplicates_refused := duplicates_refused + 1;
        END;
    END LOOP;
    PERFORM blink_check('cmp_u', true);
    checked := 'blink_check passed';
    DROP TABLE cmp_t;
END
$fn$;

SELECT * FROM cmp_case('int2', '{-32768,-32767,-256,-1,0,1,255,256,32766,32767}');
SELECT * FROM cmp_case('int4', '{-2147483648,-2147483647,-65536,-1,0,1,65536,2147483646,2147483647}');
SELECT * FROM cmp_case('int8', '{-9223372036854775808,-9223372036854775807,-4294967296,-2147483649,-1,0,1,2147483648,4294967296,9223372036854775807}');
SELECT * FROM cmp_case('date', '{-infinity,4713-01-01 BC,1999-12-31,2000-01-01,2000-01-02,5874897-12-31,infinity}');
SELECT * FROM cmp_case('timestamp', '{-infinity,4713-01-01 00:00 BC,1999-12-31 23:59:59.999999,2000-01-01,2000-01-01 00:00:00.000001,294276-12-31 23:59:59,infinity}');
SELECT * FROM cmp_case('timestamptz', '{-infinity,4713-01-01 00:00+00 BC,1999-12-31 23:59:59.999999+00,2000-01-01 00:00+00,2000-01-01 00:00:00.000001+00,294276-12-31 23:59:59+00,infinity}');
SELECT * FROM cmp_case('oid', '{0,1,2147483647,2147483648,2147483649,4294967294,4294967295}');
-- a type compared through the function-call interface, for contrast
SELECT * FROM cmp_case('numeric', '{-1e30,-1,-0.5,0,0.5,1,1e30}');

DROP FUNCTION cmp_case(text, text[]);

--
-- A unique check walks the whole unsorted tail of its leaf, and rules
-- items out by their first column alone where its comparator is one of
-- those above (_blink_first_eq_width).  Items equal on the first column
-- but not on the second, and items or keys with NULLs, must still be
-- judged in full: the same inserts must be refused as by a btree unique
-- index given the same rows (200 rows in a shuffled order, all in one
-- leaf's tail).
--
CREATE TABLE tail_blink (a int4, b int8);
CREATE TABLE tail_btree (a int4, b int8);
CREATE UNIQUE INDEX tail_blink_ab ON tail_blink USING blink (a, b);
CREATE UNIQUE INDEX tail_btree_ab ON tail_btree USING btree (a, b);
INSERT INTO tail_blink SELECT a, b FROM unnest('{-1,0,1,NULL}'::int4[]) a,
  generate_series(1, 50) b ORDER BY md5(coalesce(a, 7) || ':' || b);
INSERT INTO tail_btree SELECT * FROM tail_blink;
SELECT type, live_items, live_items - sorted_items AS tail_items
  FROM blink_page_stats('tail_blink_ab', (blink_metap('tail_blink_ab')).root);
CREATE FUNCTION tail_try(tab text, x int4, y int8) RETURNS text
LANGUAGE plpgsql AS $fn$
BEGIN
    EXECUTE format('INSERT INTO %I VALUES ($1, $2)', tab) USING x, y;
    RETURN 'in';
EXCEPTION WHEN unique_violation THEN
    RETURN 'dup';
END
$fn$;
SELECT a, string_agg(b_out, ' ' ORDER BY ord) AS blink_answers,
       bool_and(b_out = t_out) AS same_as_btree
  FROM (SELECT a, ord, tail_try('tail_blink', a, b) AS b_out,
               tail_try('tail_btree', a, b) AS t_out
          FROM unnest('{-1,0,1,2,NULL}'::int4[]) a,
               unnest('{0,1,25,50,51,NULL}'::int8[]) WITH ORDINALITY AS bb(b, ord)) s
 GROUP BY a ORDER BY a NULLS LAST;
SELECT (SELECT count(*) FROM tail_blink) AS blink_rows,
       (SELECT count(*) FROM tail_btree) AS btree_rows,
       blink_check('tail_blink_ab', true) AS checked;
DROP FUNCTION tail_try(text, int4, int8);
DROP TABLE tail_blink, tail_btree;
DROP EXTENSION blinkam;
