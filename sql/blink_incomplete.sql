--
-- Splits left incomplete (the cascade stopped by blinkam.debug_stop_at,
-- as after an error or a crash between its WAL records): the tree still
-- answers correctly and passes blink_check, and the next writer that needs
-- such a split finished finishes it.
--
CREATE EXTENSION blinkam;

-- counts through the index and through a sequential scan
CREATE FUNCTION both_counts(lo int, hi int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE a bigint; b bigint;
BEGIN
	SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;
	SELECT count(*) INTO a FROM inc WHERE k BETWEEN lo AND hi;
	SET LOCAL enable_seqscan = on; SET LOCAL enable_indexscan = off;
	SET LOCAL enable_indexonlyscan = off;
	SELECT count(*) INTO b FROM inc WHERE k BETWEEN lo AND hi;
	RETURN a || ' ' || b;
END $$;

-- only superusers may set the stop points
CREATE ROLE blink_incomplete_user;
SET ROLE blink_incomplete_user;
SET blinkam.debug_stop_at = 'after_leaf_split';
RESET ROLE;
DROP ROLE blink_incomplete_user;

CREATE TABLE inc (k int);
CREATE INDEX inc_k ON inc USING blink (k);
INSERT INTO inc SELECT generate_series(1, 300);
SELECT levels, incomplete_splits FROM blink_tree_stats('inc_k');

-- 1. The root leaf splits, and the cascade stops before the new root.
SET blinkam.debug_stop_at = 'before_new_root';
INSERT INTO inc SELECT generate_series(301, 600);
RESET blinkam.debug_stop_at;
SELECT levels, leaf_pages, incomplete_splits FROM blink_tree_stats('inc_k');
SELECT s.type, s.incomplete_split, s.right_link IS NOT NULL AS has_right
  FROM blink_metap('inc_k') m, blink_page_stats('inc_k', m.root) s;
SELECT both_counts(1, 100000);
SELECT blink_check('inc_k', true);

-- 2. Its new right page splits too, and stops before its downlink: two
--    splits are now unfinished, one under the other.
SET blinkam.debug_stop_at = 'after_leaf_split';
INSERT INTO inc SELECT generate_series(601, 1200);
RESET blinkam.debug_stop_at;
SELECT levels, leaf_pages, incomplete_splits FROM blink_tree_stats('inc_k');
SELECT both_counts(1, 100000);
SELECT blink_check('inc_k', true);

-- 3. The next split needs both finished: the writer finishes the root
--    split, then the leaf's, then its own.
SELECT blinkam_reset_stats();
INSERT INTO inc SELECT generate_series(1201, 2400);
SELECT levels, incomplete_splits FROM blink_tree_stats('inc_k');
SELECT name, value FROM blinkam_stats()
 WHERE name IN ('incomplete_splits_finished', 'root_splits') ORDER BY name;
SELECT both_counts(1, 100000);
SELECT both_counts(1190, 1210);
SELECT blink_check('inc_k', true);

-- 4. An internal page split stops before its own downlink (the leaf's
--    flag was cleared in the same record, so one split is unfinished).
CREATE TABLE inc2 (k int);
INSERT INTO inc2 SELECT generate_series(1, 100000);
CREATE INDEX inc2_k ON inc2 USING blink (k) WITH (fillfactor = 100);
SELECT levels, incomplete_splits FROM blink_tree_stats('inc2_k');
SET blinkam.debug_stop_at = 'after_parent_split';
INSERT INTO inc2 SELECT generate_series(100001, 400000);
RESET blinkam.debug_stop_at;
SELECT incomplete_splits FROM blink_tree_stats('inc2_k');
SELECT count(*) AS flagged_internal_pages
  FROM generate_series(1, pg_relation_size('inc2_k') / 8192 - 1) AS g(b),
	   LATERAL blink_page_stats('inc2_k', g.b) s
 WHERE s.incomplete_split AND s.level > 0;
SELECT blink_check('inc2_k', true);
SELECT blinkam_reset_stats();
INSERT INTO inc2 SELECT generate_series(100001, 400000);
SELECT incomplete_splits FROM blink_tree_stats('inc2_k');
SELECT value > 0 AS finished FROM blinkam_stats() WHERE name = 'incomplete_splits_finished';
SET enable_seqscan = off;
SELECT count(*) FROM inc2 WHERE k > 0;
RESET enable_seqscan;
SELECT blink_check('inc2_k', true);

-- 5. A stop inside a subtransaction: the savepoint rollback releases the
--    registry entry, and the same session finishes the split later.
CREATE TABLE inc3 (k int);
CREATE INDEX inc3_k ON inc3 USING blink (k);
BEGIN;
SET LOCAL blinkam.defer_inserts = statement;	-- (the split at the INSERT's end)
SAVEPOINT s;
SET LOCAL blinkam.debug_stop_at = 'before_new_root';
INSERT INTO inc3 SELECT generate_series(1, 1000);
ROLLBACK TO SAVEPOINT s;
INSERT INTO inc3 SELECT generate_series(1001, 3000);
COMMIT;
SELECT levels, incomplete_splits FROM blink_tree_stats('inc3_k');
SELECT blink_check('inc3_k', true);

DROP TABLE inc, inc2, inc3;
DROP FUNCTION both_counts(int, int);
DROP EXTENSION blinkam;
