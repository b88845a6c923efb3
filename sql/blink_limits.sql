--
-- Edge cases compared with btree and heap: the flush of statement buffers
-- when no snapshot is active, key-size limits, special values.
--
CREATE EXTENSION blinkam;

-- An operator class whose comparison function is written in SQL (and one
-- in PL/pgSQL): they plan and run queries, which needs an active snapshot.
-- The statement buffers flushed such an index's entries at COMMIT and
-- before utility commands that run without one (SET, LOCK); that flush
-- once failed with "cannot execute SQL without an outer snapshot or
-- portal" (and an assertion in the planner for the SQL function), losing
-- the transaction at its COMMIT.  The flush now has the transaction's
-- snapshot, and an index whose comparisons are not written in C is not
-- buffered at all: its entries go in at the INSERT, as btree's do.
CREATE FUNCTION cmp_sql(int, int) RETURNS int LANGUAGE sql IMMUTABLE
	AS $$ SELECT btint4cmp($1, $2) $$;
CREATE FUNCTION cmp_plpgsql(int, int) RETURNS int LANGUAGE plpgsql IMMUTABLE
	AS $$ BEGIN RETURN btint4cmp($1, $2); END $$;
CREATE OPERATOR CLASS int4_sql_ops FOR TYPE int4 USING blink AS
	OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
	FUNCTION 1 cmp_sql(int, int);
CREATE OPERATOR CLASS int4_plpgsql_ops FOR TYPE int4 USING blink AS
	OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
	FUNCTION 1 cmp_plpgsql(int, int);
CREATE TABLE sq (a int, b int);
CREATE INDEX sq_a ON sq USING blink (a int4_sql_ops);
CREATE INDEX sq_b ON sq USING blink (b int4_plpgsql_ops);
CREATE TABLE sq_bt (a int, b int);
CREATE INDEX sq_bt_a ON sq_bt USING btree (a);
-- flushed by the COMMIT of a single statement
INSERT INTO sq SELECT g, g FROM generate_series(1, 5) g;
INSERT INTO sq_bt SELECT g, g FROM generate_series(1, 5) g;
-- flushed before SET and LOCK, inside a transaction block
BEGIN;
INSERT INTO sq SELECT g, -g FROM generate_series(1, 5) g;
SET LOCAL work_mem = '8MB';
INSERT INTO sq SELECT g, g * 10 FROM generate_series(6, 10) g;
LOCK TABLE sq IN SHARE MODE;
INSERT INTO sq SELECT g, 0 FROM generate_series(11, 15) g;
COMMIT;
BEGIN;
INSERT INTO sq_bt SELECT g, -g FROM generate_series(1, 5) g;
INSERT INTO sq_bt SELECT g, g * 10 FROM generate_series(6, 10) g;
INSERT INTO sq_bt SELECT g, 0 FROM generate_series(11, 15) g;
COMMIT;
-- PREPARE TRANSACTION flushes too
BEGIN;
INSERT INTO sq SELECT g, g FROM generate_series(100, 110) g;
PREPARE TRANSACTION 'blink_limits_sq';
COMMIT PREPARED 'blink_limits_sq';
INSERT INTO sq_bt SELECT g, g FROM generate_series(100, 110) g;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT (SELECT array_agg(a ORDER BY a) FROM sq WHERE a > 3) =
       (SELECT array_agg(a ORDER BY a) FROM sq_bt WHERE a > 3) AS same_a,
       (SELECT count(*) FROM sq WHERE b < 0) AS neg_b;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT blink_check('sq_a', true), blink_check('sq_b', true);

-- so a comparison that raises an error raises it at the INSERT, where an
-- EXCEPTION block catches it, as with btree (when such entries were
-- buffered, the error came at the COMMIT and took the transaction)
CREATE FUNCTION cmp_no13(int, int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	IF $1 = 13 OR $2 = 13 THEN
		RAISE EXCEPTION 'thirteen';
	END IF;
	RETURN btint4cmp($1, $2);
END $$;
CREATE OPERATOR CLASS int4_no13_ops FOR TYPE int4 USING blink AS
	OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
	FUNCTION 1 cmp_no13(int, int);
CREATE OPERATOR CLASS int4_no13_ops FOR TYPE int4 USING btree AS
	OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
	FUNCTION 1 cmp_no13(int, int);
CREATE TABLE e13 (a int);
CREATE INDEX e13_a ON e13 USING blink (a int4_no13_ops);
CREATE TABLE e13_bt (a int);
CREATE INDEX e13_bt_a ON e13_bt USING btree (a int4_no13_ops);
INSERT INTO e13 VALUES (1), (2);
INSERT INTO e13_bt VALUES (1), (2);
SELECT value AS deferred_before FROM blinkam_stats() WHERE name = 'deferred_inserts' \gset
BEGIN;
DO $$ BEGIN INSERT INTO e13 VALUES (13); EXCEPTION WHEN raise_exception THEN RAISE NOTICE 'caught: %', SQLERRM; END $$;
DO $$ BEGIN INSERT INTO e13_bt VALUES (13); EXCEPTION WHEN raise_exception THEN RAISE NOTICE 'caught: %', SQLERRM; END $$;
INSERT INTO e13 VALUES (3);
INSERT INTO e13_bt VALUES (3);
COMMIT;
SELECT (SELECT array_agg(a ORDER BY a) FROM e13) AS blink_rows,
       (SELECT array_agg(a ORDER BY a) FROM e13_bt) AS btree_rows;
SELECT value = :deferred_before AS none_buffered FROM blinkam_stats() WHERE name = 'deferred_inserts';
SELECT blink_check('e13_a', true);

-- The same through C comparisons that call the PL/pgSQL one: a range over
-- int4 with int4_no13_ops, an array of such ranges, a composite type of
-- one (range_cmp, btarraycmp and btrecordcmp are C, the comparison they
-- reach is not).  Such an index was buffered (none_buffered false), and
-- where the key went into a leaf's unsorted tail uncompared its error
-- came later, outside the EXCEPTION block (specs/blink_batch_not_c has
-- the tail).
CREATE TYPE r13 AS RANGE (subtype = int4, subtype_opclass = int4_no13_ops);
CREATE TYPE c13 AS (r r13);
CREATE TABLE e13r (r r13, a r13[], c c13);
CREATE INDEX e13r_r ON e13r USING blink (r);
CREATE INDEX e13r_a ON e13r USING blink (a);
CREATE INDEX e13r_c ON e13r USING blink (c);
CREATE TABLE e13r_bt (r r13, a r13[], c c13);
CREATE INDEX e13r_bt_r ON e13r_bt USING btree (r);
CREATE INDEX e13r_bt_a ON e13r_bt USING btree (a);
CREATE INDEX e13r_bt_c ON e13r_bt USING btree (c);
INSERT INTO e13r SELECT r13(g, g + 1), ARRAY[r13(g, g + 1)], ROW(r13(g, g + 1))::c13 FROM generate_series(1, 5) g;
INSERT INTO e13r_bt SELECT * FROM e13r;
SELECT value AS deferred_before FROM blinkam_stats() WHERE name = 'deferred_inserts' \gset
BEGIN;
INSERT INTO e13r VALUES (r13(9, 10), ARRAY[r13(9, 10)], ROW(r13(9, 10)));
INSERT INTO e13r VALUES (r13(8, 9), ARRAY[r13(8, 9)], ROW(r13(8, 9)));	-- a tail
INSERT INTO e13r_bt SELECT * FROM e13r WHERE lower(r) > 7;
DO $$ BEGIN
	BEGIN INSERT INTO e13r (r) VALUES (r13(13, 14));
	EXCEPTION WHEN raise_exception THEN RAISE NOTICE 'r: %', SQLERRM; END;
	BEGIN INSERT INTO e13r (a) VALUES (ARRAY[r13(13, 14)]);
	EXCEPTION WHEN raise_exception THEN RAISE NOTICE 'a: %', SQLERRM; END;
	BEGIN INSERT INTO e13r (c) VALUES (ROW(r13(13, 14)));
	EXCEPTION WHEN raise_exception THEN RAISE NOTICE 'c: %', SQLERRM; END;
	BEGIN INSERT INTO e13r_bt (r) VALUES (r13(13, 14));
	EXCEPTION WHEN raise_exception THEN RAISE NOTICE 'btree: %', SQLERRM; END;
END $$;
COMMIT;
SELECT (SELECT array_agg(r ORDER BY r) FROM e13r) = (SELECT array_agg(r ORDER BY r) FROM e13r_bt) AS same_rows,
       (SELECT count(*) FROM e13r) AS n;
SELECT value = :deferred_before AS none_buffered FROM blinkam_stats() WHERE name = 'deferred_inserts';
SELECT blink_check('e13r_r', true), blink_check('e13r_a', true), blink_check('e13r_c', true);

-- Key size: the same limit as btree's (2704 bytes), the same errcode.
CREATE TABLE ks (k text) ;
ALTER TABLE ks ALTER k SET STORAGE plain;
CREATE INDEX ks_blink ON ks USING blink (k);
CREATE TABLE ks_bt (k text);
ALTER TABLE ks_bt ALTER k SET STORAGE plain;
CREATE INDEX ks_btree ON ks_bt USING btree (k);
-- (the error carries the table and index names in its fields, as btree's)
CREATE FUNCTION try_ins(tbl text, n int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE t text; c text;
BEGIN
	EXECUTE format('INSERT INTO %I VALUES (repeat(''x'', %s))', tbl, n);
	RETURN 'ok';
EXCEPTION WHEN program_limit_exceeded THEN
	GET STACKED DIAGNOSTICS t = TABLE_NAME, c = CONSTRAINT_NAME;
	RETURN format('too large (%s, %s)', t, c);
END $$;
SELECT n, try_ins('ks', n) AS blink, try_ins('ks_bt', n) AS btree
FROM generate_series(2690, 2694) n;
SELECT blink_check('ks_blink', true);

-- Special values sort and compare as with btree.
CREATE TABLE sv (f4 float4, f8 float8, n numeric);
INSERT INTO sv VALUES ('NaN', 'NaN', 'NaN'), ('Infinity', 'Infinity', 'Infinity'),
	('-Infinity', '-Infinity', '-Infinity'), (0, 0, 0), ('-0', '-0', '-0'),
	(1, 1, 1.0), (1, 1, 1.00), (NULL, NULL, NULL);
CREATE INDEX sv_f4 ON sv USING blink (f4 DESC NULLS LAST);
CREATE INDEX sv_f8 ON sv USING blink (f8);
CREATE INDEX sv_n ON sv USING blink (n NULLS FIRST);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT f4 FROM sv ORDER BY f4 DESC NULLS LAST;
SELECT f8 FROM sv WHERE f8 >= 'Infinity' ORDER BY f8;
SELECT n FROM sv ORDER BY n NULLS FIRST;
SELECT count(*) FROM sv WHERE f8 = '-0';
RESET enable_seqscan;
RESET enable_bitmapscan;
CREATE TABLE nu (n numeric, i interval);
CREATE UNIQUE INDEX nu_n ON nu USING blink (n);
CREATE UNIQUE INDEX nu_i ON nu USING blink (i);
INSERT INTO nu VALUES (1.0, '1 day');
INSERT INTO nu VALUES (1.00, NULL);
INSERT INTO nu VALUES (NULL, '24 hours');
SELECT blink_check('sv_f4', true), blink_check('sv_f8', true), blink_check('sv_n', true),
       blink_check('nu_n', true), blink_check('nu_i', true);

-- blinkheap honours a low fillfactor for wide rows as heap does: a row
-- that cannot leave the reserve even on an empty page goes to an empty
-- (or nearly empty) page, not to any page with room for it alone.
CREATE TABLE ffb (id int, t text) USING blinkheap WITH (fillfactor = 10);
CREATE TABLE ffh (id int, t text) USING heap WITH (fillfactor = 10);
INSERT INTO ffb SELECT g, repeat('q', 800) FROM generate_series(1, 60) g;
INSERT INTO ffh SELECT g, repeat('q', 800) FROM generate_series(1, 60) g;
INSERT INTO ffb SELECT g, repeat('q', 300) FROM generate_series(61, 100) g;
INSERT INTO ffh SELECT g, repeat('q', 300) FROM generate_series(61, 100) g;
UPDATE ffb SET t = t || 'x' WHERE id % 4 = 0;
UPDATE ffh SET t = t || 'x' WHERE id % 4 = 0;
SELECT 'blinkheap' AS am, t / 100 AS len, n, count(*) FROM
	(SELECT (ctid::text::point)[0] AS blk, max(length(t)) AS t, count(*) AS n FROM ffb GROUP BY 1) s
GROUP BY 1, 2, 3
UNION ALL
SELECT 'heap', t / 100, n, count(*) FROM
	(SELECT (ctid::text::point)[0] AS blk, max(length(t)) AS t, count(*) AS n FROM ffh GROUP BY 1) s
GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
SELECT blinkheap_check('ffb');

DROP TABLE sq, sq_bt, ks, ks_bt, sv, nu, ffb, ffh;
DROP OPERATOR CLASS int4_sql_ops USING blink;
DROP OPERATOR CLASS int4_plpgsql_ops USING blink;
DROP TABLE e13, e13_bt, e13r, e13r_bt;
DROP TYPE c13, r13;
DROP OPERATOR FAMILY int4_no13_ops USING blink;
DROP OPERATOR FAMILY int4_no13_ops USING btree;
DROP FUNCTION cmp_no13(int, int);
DROP FUNCTION cmp_sql(int, int), cmp_plpgsql(int, int), try_ins(text, int);
DROP EXTENSION blinkam;
