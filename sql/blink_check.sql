--
-- blink_check(..., heapallindexed => true) on a unique index also checks
-- uniqueness: no two entries with one key may point at rows visible at
-- once.  A duplicate is made here by flagging a non-unique index unique
-- in the catalog (superuser only; amcheck's tests do the same).
--
CREATE EXTENSION blinkam;

CREATE TABLE uq (k int, j int);
INSERT INTO uq SELECT g, g FROM generate_series(1, 1000) g;
INSERT INTO uq VALUES (500, -1), (NULL, -2), (NULL, -3);
-- (no posting tuples: a unique index never has them, see blink_dedup)
CREATE INDEX uq_k ON uq USING blink (k) WITH (deduplicate_items = off);
SELECT blink_check('uq_k', true);

UPDATE pg_index SET indisunique = true WHERE indexrelid = 'uq_k'::regclass;
-- two live rows with k = 500
SELECT blink_check('uq_k', true);
-- without heapallindexed, only the structure is checked
SELECT blink_check('uq_k');

-- a dead duplicate is no violation
DELETE FROM uq WHERE j = -1;
SELECT blink_check('uq_k', true);

-- NULLs are distinct, unless the index says otherwise
UPDATE pg_index SET indnullsnotdistinct = true WHERE indexrelid = 'uq_k'::regclass;
SELECT blink_check('uq_k', true);
DELETE FROM uq WHERE j = -3;
SELECT blink_check('uq_k', true);

-- a multi-column unique index: equal first columns are not duplicates
CREATE TABLE uq2 (a int, b int);
INSERT INTO uq2 SELECT g / 10, g FROM generate_series(1, 2000) g;
CREATE UNIQUE INDEX uq2_ab ON uq2 USING blink (a, b);
SELECT blink_check('uq2_ab', true);
INSERT INTO uq2 VALUES (5, 55);
DROP INDEX uq2_ab;
INSERT INTO uq2 VALUES (5, 55);
CREATE INDEX uq2_ab ON uq2 USING blink (a, b) WITH (deduplicate_items = off);
UPDATE pg_index SET indisunique = true WHERE indexrelid = 'uq2_ab'::regclass;
SELECT blink_check('uq2_ab', true);

-- called above a parallel plan's Gather (blink_check is parallel
-- restricted): the leader is in parallel mode and may take no new
-- snapshot; the unique check uses the statement's
CREATE TABLE pu (k int);
INSERT INTO pu SELECT generate_series(1, 1000);
CREATE UNIQUE INDEX pu_k ON pu USING blink (k);
ANALYZE pu;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SET enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT blink_check('pu_k', true) FROM pu WHERE k = 1;
SELECT blink_check('pu_k', true) FROM pu WHERE k = 1;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET enable_indexscan;
RESET enable_bitmapscan;
RESET enable_indexonlyscan;

DROP TABLE uq, uq2, pu;
DROP EXTENSION blinkam;
