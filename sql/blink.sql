--
-- The blink index access method: builds, inserts with splits, scans of
-- every kind, unique indexes, maintenance commands, errors.
-- Answers are compared with a sequential scan of the same table.
--
CREATE EXTENSION blinkam;

-- same_answer(q): q gives the same rows (in the same order) through index
-- scans, bitmap scans and a sequential scan.
CREATE FUNCTION same_answer(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	by_index text[];
	by_bitmap text[];
	by_seq text[];
	ordered boolean := q ~* 'order by';
	agg text := CASE WHEN ordered THEN 'array_agg(x::text)'
					 ELSE 'array_agg(x::text ORDER BY x::text)' END;
BEGIN
	SET LOCAL enable_seqscan = off;
	SET LOCAL enable_bitmapscan = off;
	EXECUTE format('SELECT %s FROM (%s) x', agg, q) INTO by_index;
	SET LOCAL enable_bitmapscan = on;
	SET LOCAL enable_indexscan = off;
	SET LOCAL enable_indexonlyscan = off;
	IF NOT ordered THEN
		EXECUTE format('SELECT %s FROM (%s) x', agg, q) INTO by_bitmap;
	ELSE
		by_bitmap := by_index;
	END IF;
	SET LOCAL enable_seqscan = on;
	SET LOCAL enable_bitmapscan = off;
	EXECUTE format('SELECT %s FROM (%s) x', agg, q) INTO by_seq;
	RESET enable_seqscan; RESET enable_bitmapscan;
	RESET enable_indexscan; RESET enable_indexonlyscan;
	RETURN by_index IS NOT DISTINCT FROM by_seq
		AND by_bitmap IS NOT DISTINCT FROM by_seq;
END $$;

-- A table large enough for a three-level tree.
CREATE TABLE big (id int, grp int, payload text);
INSERT INTO big SELECT i, i % 100, 'p' || i FROM generate_series(1, 60000) i;
CREATE INDEX big_id ON big USING blink (id) WITH (fillfactor = 100);
SELECT level, root > 0 AS root_ok FROM blink_metap('big_id');
SELECT levels, leaf_pages > 100 AS many_leaves, incomplete_splits, free_pages
  FROM blink_tree_stats('big_id');
-- the root page is the metapage's root, and it is an internal page
SELECT s.type, s.level, s.left_link, s.right_link, s.incomplete_split
  FROM blink_metap('big_id') m, blink_page_stats('big_id', m.root) s;
SELECT blink_check('big_id', true);

-- inserts that split pages at both ends and in the middle
SELECT blinkam_reset_stats();
INSERT INTO big SELECT i, i % 7, 'n' || i FROM generate_series(60001, 70000) i;
INSERT INTO big SELECT -i, i % 7, 'm' || i FROM generate_series(1, 10000) i;
INSERT INTO big SELECT i * 3, 0, 'dup' FROM generate_series(1, 10000) i;
SELECT name, value > 0 AS moved FROM blinkam_stats()
 WHERE name IN ('descents', 'inserts', 'splits') ORDER BY name;
SELECT value FROM blinkam_stats() WHERE name = 'inserts';
SELECT blink_check('big_id', true);

SELECT same_answer('SELECT id FROM big WHERE id = 12345');
SELECT same_answer('SELECT id, payload FROM big WHERE id BETWEEN 59990 AND 60010');
SELECT same_answer('SELECT id FROM big WHERE id < -9990');
SELECT same_answer('SELECT id FROM big WHERE id >= 69995');
SELECT same_answer('SELECT id FROM big WHERE id = 3000');
SELECT same_answer('SELECT id FROM big WHERE id IN (1, 2, 3, 30000, -5, 1000000)');
SELECT same_answer('SELECT id FROM big WHERE id = ANY (ARRAY[7, 8, 9, 9, 12345])');
-- a null array matches nothing: constant, initplan, generic plan's parameter
SELECT same_answer('SELECT id FROM big WHERE id = ANY (NULL::int[])');
SELECT same_answer('SELECT id FROM big WHERE id < ANY (NULL::int[])');
SELECT same_answer('SELECT id FROM big WHERE id = ANY ((SELECT NULL::int[])::int[])');
SELECT same_answer('SELECT id FROM big WHERE id = ANY (ARRAY[NULL, NULL]::int[])');
SET plan_cache_mode = force_generic_plan;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
PREPARE ids_index(int[]) AS SELECT count(*) FROM big WHERE id = ANY ($1);
EXPLAIN (COSTS OFF) EXECUTE ids_index(NULL);
EXECUTE ids_index(NULL);
EXECUTE ids_index(ARRAY[3, 6, 7]);
SET enable_bitmapscan = on;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
PREPARE ids_bitmap(int[]) AS SELECT count(*) FROM big WHERE id = ANY ($1);
EXPLAIN (COSTS OFF) EXECUTE ids_bitmap(NULL);
EXECUTE ids_bitmap(NULL);
EXECUTE ids_bitmap(ARRAY[3, 6, 7]);
SET enable_seqscan = on;
SET enable_bitmapscan = off;
SELECT count(*) FROM big WHERE id IN (3, 6, 7);	-- the answer, by a sequential scan
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_indexscan;
RESET enable_indexonlyscan;
DEALLOCATE ids_index;
DEALLOCATE ids_bitmap;
RESET plan_cache_mode;
SELECT same_answer('SELECT id FROM big WHERE id > 100 AND id < 110 ORDER BY id');
SELECT same_answer('SELECT id FROM big WHERE id > 100 AND id < 110 ORDER BY id DESC');
SELECT same_answer('SELECT id FROM big ORDER BY id DESC LIMIT 25');
SELECT same_answer('SELECT id FROM big ORDER BY id LIMIT 25');
SELECT same_answer('SELECT id FROM big WHERE id IN (5, 3, 1) ORDER BY id DESC');

SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (costs off) SELECT id FROM big ORDER BY id DESC LIMIT 5;
SELECT id FROM big ORDER BY id DESC LIMIT 5;
EXPLAIN (costs off) SELECT id FROM big WHERE id IN (1, 2, 3) ORDER BY id;
SELECT id FROM big WHERE id IN (3, 1, 2, 2) ORDER BY id;
SELECT count(*) FROM big WHERE id > 0;
RESET enable_bitmapscan;
SET enable_indexscan = off;
EXPLAIN (costs off) SELECT count(*) FROM big WHERE id BETWEEN 1 AND 1000;
SELECT count(*) FROM big WHERE id BETWEEN 1 AND 1000;
RESET enable_indexscan;
RESET enable_seqscan;

-- statistics views move
SELECT pg_stat_force_next_flush();
SELECT idx_scan > 0 AS scanned, idx_tup_read > 0 AS read
  FROM pg_stat_user_indexes WHERE indexrelname = 'big_id';

-- cursors: forward, backward, and changing direction
SET enable_seqscan = off;
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT id FROM big WHERE id BETWEEN 1000 AND 1010 ORDER BY id;
FETCH 3 FROM c;
FETCH BACKWARD 2 FROM c;
FETCH LAST FROM c;
FETCH BACKWARD 3 FROM c;
FETCH ABSOLUTE 1 FROM c;
FETCH BACKWARD 1 FROM c;
FETCH FORWARD 2 FROM c;
COMMIT;
RESET enable_seqscan;

-- merge join uses mark and restore on the inner index scan
CREATE TABLE small AS SELECT i AS id FROM generate_series(1, 2000, 3) i;
INSERT INTO small SELECT id FROM small WHERE id < 100;	-- duplicates
CREATE INDEX small_id ON small USING blink (id);
SET enable_hashjoin = off; SET enable_nestloop = off; SET enable_seqscan = off;
SET enable_sort = off; SET enable_material = off;
SET max_parallel_workers_per_gather = 0;  -- (a serial merge join: parallel scans are tested in blink_parallel)
EXPLAIN (costs off) SELECT count(*) FROM small s JOIN big b ON b.id = s.id;
SELECT count(*), sum(b.id) FROM small s JOIN big b ON b.id = s.id;
RESET enable_hashjoin; RESET enable_nestloop; RESET enable_seqscan;
RESET enable_sort; RESET enable_material; RESET max_parallel_workers_per_gather;
SELECT count(*), sum(b.id) FROM small s JOIN big b ON b.id = s.id;
SELECT blink_check('small_id', true);

-- the same with = ANY on the inner index scan: the merge join marks it in
-- one combination of the array's elements and restores it after the scan
-- has gone on to the next; each value's rows span several leaves
CREATE TABLE mr_o (a int);
INSERT INTO mr_o VALUES (1), (1), (2), (2), (3), (3);
CREATE INDEX mr_o_a ON mr_o (a);
CREATE TABLE mr_i (a int, pad int);
INSERT INTO mr_i SELECT g % 4, g FROM generate_series(1, 3000) g;
CREATE TABLE mr_b AS SELECT * FROM mr_i;
CREATE INDEX mr_i_a ON mr_i USING blink (a);
CREATE INDEX mr_b_a ON mr_b (a);
VACUUM ANALYZE mr_o, mr_i, mr_b;
SET enable_hashjoin = off; SET enable_nestloop = off; SET enable_seqscan = off;
SET enable_bitmapscan = off; SET enable_sort = off; SET enable_material = off;
SET max_parallel_workers_per_gather = 0;
EXPLAIN (costs off) SELECT count(*), sum(i.pad) FROM mr_o o JOIN mr_i i ON i.a = o.a
  WHERE i.a = ANY ('{1,2,3}') AND o.a = ANY ('{1,2,3}');
SELECT 'blink' AS am, count(*), sum(i.pad) FROM mr_o o JOIN mr_i i ON i.a = o.a
  WHERE i.a = ANY ('{1,2,3}') AND o.a = ANY ('{1,2,3}')
UNION ALL
SELECT 'btree', count(*), sum(i.pad) FROM mr_o o JOIN mr_b i ON i.a = o.a
  WHERE i.a = ANY ('{1,2,3}') AND o.a = ANY ('{1,2,3}');
-- index-only, the tuples restored from the mark
EXPLAIN (costs off) SELECT count(*), sum(i.a) FROM mr_o o JOIN mr_i i ON i.a = o.a
  WHERE i.a = ANY ('{3,1,2}') AND o.a = ANY ('{1,2,3}');
SELECT 'blink' AS am, count(*), sum(i.a) FROM mr_o o JOIN mr_i i ON i.a = o.a
  WHERE i.a = ANY ('{3,1,2}') AND o.a = ANY ('{1,2,3}')
UNION ALL
SELECT 'btree', count(*), sum(i.a) FROM mr_o o JOIN mr_b i ON i.a = o.a
  WHERE i.a = ANY ('{3,1,2}') AND o.a = ANY ('{1,2,3}');
RESET enable_hashjoin; RESET enable_nestloop; RESET enable_seqscan;
RESET enable_bitmapscan; RESET enable_sort; RESET enable_material;
RESET max_parallel_workers_per_gather;
SELECT blink_check('mr_i_a', true);
DROP TABLE mr_o, mr_i, mr_b;

-- VACUUM after deletes: entries go, answers stay right
DELETE FROM big WHERE id % 10 = 0 OR id < -5000;
VACUUM big;
SELECT same_answer('SELECT id FROM big WHERE id BETWEEN 100 AND 200');
SELECT same_answer('SELECT id FROM big WHERE id < 0 ORDER BY id');
SELECT blink_check('big_id', true);
-- index-only scans after VACUUM set the visibility map
SET enable_seqscan = off; SET enable_bitmapscan = off;
EXPLAIN (costs off) SELECT id FROM big WHERE id BETWEEN 10 AND 20;
SELECT id FROM big WHERE id BETWEEN 10 AND 20;
RESET enable_seqscan; RESET enable_bitmapscan;

-- ---------------------------------------------------------------------
-- Multi-column, DESC / NULLS FIRST, NULLs, INCLUDE
-- ---------------------------------------------------------------------
CREATE TABLE mc (a int, b text, c float8, d int);
INSERT INTO mc SELECT i % 50, CASE WHEN i % 13 = 0 THEN NULL ELSE 'b' || (i % 17) END,
				  i / 7.0, i FROM generate_series(1, 5000) i;
INSERT INTO mc VALUES (NULL, NULL, NULL, -1), (NULL, 'x', 1, -2);
CREATE INDEX mc_ab ON mc USING blink (a, b DESC NULLS LAST) INCLUDE (d);
CREATE INDEX mc_c ON mc USING blink (c DESC NULLS FIRST);
SELECT same_answer('SELECT a, b, d FROM mc WHERE a = 7 AND b = ''b3''');
SELECT same_answer('SELECT a, b FROM mc WHERE a = 7 ORDER BY a, b DESC');
SELECT same_answer('SELECT a, b FROM mc WHERE a BETWEEN 3 AND 4 AND b > ''b5''');
SELECT same_answer('SELECT a, b FROM mc WHERE a IS NULL');
SELECT same_answer('SELECT a, b FROM mc WHERE a = 5 AND b IS NULL');
SELECT same_answer('SELECT a FROM mc WHERE a IS NOT NULL AND a > 45');
SELECT same_answer('SELECT b FROM mc WHERE b = ''b1''');	-- second column only
SELECT same_answer('SELECT c FROM mc ORDER BY c DESC NULLS FIRST LIMIT 10');
SELECT same_answer('SELECT c FROM mc WHERE c < 3 ORDER BY c DESC');
SELECT same_answer('SELECT c FROM mc WHERE c IS NULL');
SELECT same_answer('SELECT a, b FROM mc WHERE a IN (1, 2) AND b IN (''b1'', ''b2'') ORDER BY a, b DESC');
SET enable_seqscan = off; SET enable_bitmapscan = off;
EXPLAIN (costs off) SELECT a, b, d FROM mc WHERE a = 7 AND b = 'b3';
SELECT a, b, d FROM mc WHERE a = 7 AND b = 'b3' ORDER BY d LIMIT 3;
EXPLAIN (costs off) SELECT c FROM mc ORDER BY c DESC NULLS FIRST LIMIT 3;
SELECT c FROM mc ORDER BY c DESC NULLS FIRST LIMIT 3;
RESET enable_seqscan; RESET enable_bitmapscan;
SELECT blink_check('mc_ab', true);
SELECT blink_check('mc_c', true);

-- ---------------------------------------------------------------------
-- Unique indexes
-- ---------------------------------------------------------------------
CREATE TABLE u (k int, v text);
CREATE UNIQUE INDEX u_k ON u USING blink (k);
INSERT INTO u SELECT i, 'v' || i FROM generate_series(1, 3000) i;
INSERT INTO u VALUES (1500, 'again');
INSERT INTO u VALUES (NULL, 'n1'), (NULL, 'n2');	-- NULLs are distinct
SELECT blinkam_reset_stats();
INSERT INTO u VALUES (3001, 'x');
SELECT value FROM blinkam_stats() WHERE name = 'unique_checks';
-- one way down per insert: a descent, or (this backend has just inserted
-- into that leaf) a leaf hint
SELECT name, value FROM blinkam_stats() WHERE name IN ('descents', 'leaf_hints')
 ORDER BY name;
-- the leaf a hint gave counts in the index's block statistics all the same
SELECT pg_stat_force_next_flush();
SELECT idx_blks_hit + idx_blks_read AS u_k_blocks
  FROM pg_statio_all_indexes WHERE indexrelid = 'u_k'::regclass \gset
INSERT INTO u VALUES (3002, 'y');
SELECT pg_stat_force_next_flush();
SELECT idx_blks_hit + idx_blks_read - :u_k_blocks AS blocks_read
  FROM pg_statio_all_indexes WHERE indexrelid = 'u_k'::regclass;
-- deleted and updated rows free their key
DELETE FROM u WHERE k = 10;
INSERT INTO u VALUES (10, 'reused');
UPDATE u SET k = k + 100000 WHERE k BETWEEN 20 AND 30;
INSERT INTO u VALUES (20, 'free again');
UPDATE u SET k = 21 WHERE k = 22;	-- 21 moved away, so this is fine
UPDATE u SET k = 25 WHERE k = 100026;	-- 25 is taken
-- within one transaction
BEGIN;
DELETE FROM u WHERE k = 40;
INSERT INTO u VALUES (40, 'same xact');
COMMIT;
SELECT k, v FROM u WHERE k IN (10, 20, 21, 40) ORDER BY k;
-- a failed unique insert leaves nothing behind
SELECT count(*) FROM u WHERE k = 1500;
SELECT blink_check('u_k', true);

-- ON CONFLICT arbitrated by a unique blink index: sql/blink_onconflict.sql.
-- Here: a btree enforces the uniqueness beside a non-unique blink index.
CREATE TABLE oc (k int, v text);
CREATE UNIQUE INDEX oc_k_btree ON oc USING btree (k);
CREATE INDEX oc_k ON oc USING blink (k);
INSERT INTO oc SELECT i, 'v' || i FROM generate_series(1, 3000) i;
INSERT INTO oc VALUES (5, 'conflict') ON CONFLICT (k) DO NOTHING;
INSERT INTO oc VALUES (5, 'updated') ON CONFLICT (k) DO UPDATE SET v = excluded.v;
INSERT INTO oc VALUES (999999, 'new') ON CONFLICT (k) DO UPDATE SET v = excluded.v;
INSERT INTO oc SELECT i, 'bulk' FROM generate_series(2990, 3010) i
	ON CONFLICT (k) DO UPDATE SET v = 'bulk-updated';
SELECT same_answer('SELECT k, v FROM oc WHERE k IN (5, 999999, 2989, 2990, 3010)');
SELECT v, count(*) FROM oc WHERE k BETWEEN 2989 AND 3011 GROUP BY v ORDER BY v;
SELECT blink_check('oc_k', true);
SELECT blink_check('u_k', true);

-- NULLS NOT DISTINCT
CREATE TABLE und (a int, b int);
CREATE UNIQUE INDEX und_ab ON und USING blink (a, b) NULLS NOT DISTINCT;
INSERT INTO und VALUES (1, NULL), (2, NULL), (NULL, NULL);
INSERT INTO und VALUES (1, NULL);
INSERT INTO und VALUES (NULL, NULL);
INSERT INTO und VALUES (1, 1);
SELECT a, b FROM und ORDER BY a, b;
SELECT blink_check('und_ab', true);

-- a unique build that finds duplicates
CREATE TABLE dupes AS SELECT i % 100 AS k FROM generate_series(1, 150) i;
CREATE UNIQUE INDEX dupes_k ON dupes USING blink (k);
DELETE FROM dupes WHERE k < 50 AND ctid IN (SELECT min(ctid) FROM dupes GROUP BY k);
DELETE FROM dupes d USING (SELECT k, max(ctid) AS c FROM dupes GROUP BY k HAVING count(*) > 1) x
 WHERE d.k = x.k AND d.ctid = x.c;
CREATE UNIQUE INDEX dupes_k ON dupes USING blink (k);	-- dead duplicates are fine
SELECT blink_check('dupes_k', true);

-- a partial unique index
CREATE TABLE part_u (k int);
CREATE UNIQUE INDEX part_u_k ON part_u USING blink (k) WHERE k > 0;
INSERT INTO part_u VALUES (-1), (-1), (1);
INSERT INTO part_u VALUES (1);
SELECT blink_check('part_u_k', true);

-- ---------------------------------------------------------------------
-- Maintenance: REINDEX, concurrent builds, CLUSTER, unlogged, temporary
-- ---------------------------------------------------------------------
REINDEX INDEX big_id;
SELECT blink_check('big_id', true);
REINDEX INDEX CONCURRENTLY big_id;
SELECT blink_check('big_id', true);
CREATE INDEX CONCURRENTLY big_grp ON big USING blink (grp, id);
SELECT same_answer('SELECT grp, id FROM big WHERE grp = 3 AND id < 500');
SELECT blink_check('big_grp', true);
CLUSTER big USING big_grp;
SELECT same_answer('SELECT grp, id FROM big WHERE grp = 3 AND id < 500');
SELECT blink_check('big_grp', true);
SELECT blink_check('big_id', true);

CREATE UNLOGGED TABLE ul (k int);
CREATE INDEX ul_k ON ul USING blink (k);
INSERT INTO ul SELECT generate_series(1, 5000);
SELECT same_answer('SELECT k FROM ul WHERE k BETWEEN 10 AND 20');
SELECT blink_check('ul_k', true);

CREATE TEMP TABLE tt (k int);
CREATE INDEX tt_k ON tt USING blink (k);
INSERT INTO tt SELECT generate_series(5000, 1, -1);
SELECT same_answer('SELECT k FROM tt WHERE k > 4990 ORDER BY k');
SELECT blink_check('tt_k', true);

-- empty index, and an index on an empty table that grows
CREATE TABLE e (k int);
CREATE INDEX e_k ON e USING blink (k);
SELECT levels, pages FROM blink_tree_stats('e_k');
SELECT count(*) FROM e WHERE k = 1;
SELECT blink_check('e_k', true);


-- ---------------------------------------------------------------------
-- Errors
-- ---------------------------------------------------------------------
CREATE INDEX ON big USING blink (id) WITH (fillfactor = 5);
CREATE INDEX ON big USING blink (id) WITH (fillfactor = 101);
CREATE INDEX ON big USING blink (id) WITH (nonsense = 1);
CREATE TABLE pt (p point);
CREATE INDEX ON pt USING blink (p);
CREATE TABLE wide (t text);
CREATE INDEX wide_t ON wide USING blink (t);
INSERT INTO wide VALUES (repeat('x', 100));
INSERT INTO wide SELECT string_agg(md5(i::text), '') FROM generate_series(1, 200) i;
SELECT blink_check('wide_t', true);
-- index rows up to btree's limit, 2704 bytes: an 8-byte index tuple
-- header, a 4-byte text header and 2692 bytes that do not compress; one
-- byte more is refused (it would take 2712 bytes).  Rows of the largest
-- size in random order split leaves and internal pages on the way (a
-- leaf holds two of them and its high key); blink answers as btree does.
CREATE FUNCTION wide_value(i int, len int) RETURNS text LANGUAGE sql AS $$
	SELECT lpad(i::text, 8, '0') ||
	       left(string_agg(md5(i::text || ':' || j::text), '' ORDER BY j), len - 8)
	  FROM generate_series(1, 90) j $$;
CREATE TABLE wide2 (i int, t text);
ALTER TABLE wide2 ALTER COLUMN t SET STORAGE plain;
CREATE INDEX wide2_t ON wide2 USING blink (t);
CREATE INDEX wide2_t_btree ON wide2 USING btree (t);
INSERT INTO wide2 SELECT i, wide_value(i, 2692) FROM generate_series(1, 300) i ORDER BY random();
INSERT INTO wide2 VALUES (0, wide_value(0, 2693));
SELECT max(pg_column_size(t)) AS widest_value FROM wide2;
SELECT level >= 2 AS internal_levels, incomplete_splits = 0 AS complete FROM blink_metap('wide2_t') m, blink_tree_stats('wide2_t') s;
SELECT same_answer('SELECT i FROM wide2 WHERE t > wide_value(150, 2692) ORDER BY t');
SELECT same_answer('SELECT i FROM wide2 WHERE t = wide_value(77, 2692)');
SELECT blink_check('wide2_t', true);
-- and a build from rows of the largest size
CREATE INDEX wide2_t2 ON wide2 USING blink (t);
SELECT blink_check('wide2_t2', true);
DROP TABLE wide2;
DROP FUNCTION wide_value(int, int);
CREATE INDEX big_btree ON big USING btree (id);
SELECT blink_check('big_btree');
SELECT blink_check('big');
-- a partitioned blink index has no pages: its partitions' indexes do
CREATE TABLE bpart (id int) PARTITION BY RANGE (id);
CREATE TABLE bpart1 PARTITION OF bpart FOR VALUES FROM (0) TO (100);
CREATE INDEX bpart_id ON bpart USING blink (id);
INSERT INTO bpart SELECT generate_series(0, 99);
SELECT blink_check('bpart_id');
SELECT blink_check(c.oid, true) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
 WHERE i.inhparent = 'bpart_id'::regclass;
DROP TABLE bpart;
SELECT blink_check(0);	-- a relation that does not exist
SELECT * FROM blink_page_stats('big_id', 1000000);
SELECT * FROM blink_page_items('big_id', -1);
SELECT * FROM blink_page_stats('big_id', 0);
SELECT count(*) FROM blink_page_items('big_id', 0);
SELECT amvalidate(opc.oid) AS valid, count(*)
  FROM pg_opclass opc JOIN pg_am am ON am.oid = opc.opcmethod
 WHERE am.amname = 'blink' GROUP BY 1;

-- A leaf write changes its leaf in place and logs the appends it made
-- (gxlog.c, "Appends in place").  One that fails before its record (here
-- at the in_batch stop, after the appends) puts the leaf back: the same
-- items and the same free space as before, for a unique insert and for a
-- statement buffer's flush alike.
CREATE TABLE app_u (id int);
CREATE UNIQUE INDEX app_u_id ON app_u USING blink (id);
CREATE TABLE app_d (id int);
CREATE INDEX app_d_id ON app_d USING blink (id);
INSERT INTO app_u SELECT generate_series(1, 5);
INSERT INTO app_d SELECT generate_series(1, 5);
-- a leaf's items, free space and sorted part
CREATE FUNCTION app_leaf(idx regclass)
RETURNS TABLE (live_items int, free_size int, sorted_items int, keys text[])
LANGUAGE sql AS $$
SELECT s.live_items, s.free_size, s.sorted_items,
       array_agg(i.key ORDER BY i.itemoffset)
  FROM blink_page_stats(idx, (blink_metap(idx)).root) s,
       blink_page_items(idx, (blink_metap(idx)).root) i
 GROUP BY 1, 2, 3 $$;
CREATE TEMP TABLE app_before AS
SELECT 'u' AS idx, * FROM app_leaf('app_u_id')
UNION ALL SELECT 'd', * FROM app_leaf('app_d_id');
SET blinkam.debug_stop_at = 'in_batch';
INSERT INTO app_u VALUES (6);
INSERT INTO app_d VALUES (6), (7);
RESET blinkam.debug_stop_at;
SELECT idx, live_items, free_size > 0 AS has_room, sorted_items,
       array_length(keys, 1) AS nkeys FROM app_before ORDER BY idx;
SELECT count(*) AS changed_leaves FROM (
  SELECT 'u' AS idx, * FROM app_leaf('app_u_id')
  UNION ALL SELECT 'd', * FROM app_leaf('app_d_id')
  EXCEPT SELECT * FROM app_before) changed;
-- and the leaves take the same rows again
INSERT INTO app_u VALUES (6);
INSERT INTO app_d VALUES (6), (7);
SET enable_seqscan = off;
SELECT array_agg(id ORDER BY id) FROM app_u WHERE id > 0;
SELECT array_agg(id ORDER BY id) FROM app_d WHERE id > 0;
RESET enable_seqscan;
SELECT blink_check('app_u_id', true), blink_check('app_d_id', true);
DROP TABLE app_u, app_d, app_before;
DROP FUNCTION app_leaf(regclass);

DROP EXTENSION blinkam CASCADE;
DROP TABLE big, small, mc, u, oc, und, dupes, part_u, ul, tt, e, pt, wide;
DROP FUNCTION same_answer(text);
