--
-- Partitioned tables whose partitions are blinkheap tables, with blink and
-- btree indexes on the parent, side by side with the same partitioned
-- table on heap: routing, pruning, moving rows across partitions,
-- ATTACH/DETACH, ON CONFLICT through the parent, VACUUM.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS blinkam;
RESET client_min_messages;

CREATE TABLE pm_b (sensor int NOT NULL, ts timestamp NOT NULL, v float8)
	PARTITION BY RANGE (ts);
CREATE TABLE pm_b_1 PARTITION OF pm_b FOR VALUES FROM ('2026-01-01') TO ('2026-02-01') USING blinkheap;
CREATE TABLE pm_b_2 PARTITION OF pm_b FOR VALUES FROM ('2026-02-01') TO ('2026-03-01') USING blinkheap;
CREATE TABLE pm_b_3 PARTITION OF pm_b FOR VALUES FROM ('2026-03-01') TO ('2026-04-01') USING blinkheap;
CREATE INDEX pm_b_ts ON pm_b USING blink (ts);
CREATE UNIQUE INDEX pm_b_key ON pm_b (sensor, ts);

CREATE TABLE pm_h (sensor int NOT NULL, ts timestamp NOT NULL, v float8)
	PARTITION BY RANGE (ts);
CREATE TABLE pm_h_1 PARTITION OF pm_h FOR VALUES FROM ('2026-01-01') TO ('2026-02-01');
CREATE TABLE pm_h_2 PARTITION OF pm_h FOR VALUES FROM ('2026-02-01') TO ('2026-03-01');
CREATE TABLE pm_h_3 PARTITION OF pm_h FOR VALUES FROM ('2026-03-01') TO ('2026-04-01');
CREATE INDEX pm_h_ts ON pm_h (ts);
CREATE UNIQUE INDEX pm_h_key ON pm_h (sensor, ts);

CREATE FUNCTION pm_diff() RETURNS bigint LANGUAGE sql AS $$
	SELECT (SELECT count(*) FROM (SELECT * FROM pm_b EXCEPT ALL SELECT * FROM pm_h) a) +
	       (SELECT count(*) FROM (SELECT * FROM pm_h EXCEPT ALL SELECT * FROM pm_b) b)
$$;

-- the partitions really are blinkheap, their indexes blink and btree
SELECT c.relname, a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
 WHERE c.relname LIKE 'pm_b_%' ORDER BY 1;

-- routing: rows go to their partitions
INSERT INTO pm_b SELECT i % 20, '2026-01-01'::timestamp + i * interval '20 minutes', i
  FROM generate_series(0, 6000) i;
INSERT INTO pm_h SELECT i % 20, '2026-01-01'::timestamp + i * interval '20 minutes', i
  FROM generate_series(0, 6000) i;
SELECT tableoid::regclass, count(*) FROM pm_b GROUP BY 1 ORDER BY 1;
SELECT pm_diff();

-- pruning and index scans through the blink index of one partition
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM pm_b WHERE ts >= '2026-02-10' AND ts < '2026-02-12';
SELECT count(*), sum(v) FROM pm_b WHERE ts >= '2026-02-10' AND ts < '2026-02-12';
SELECT count(*), sum(v) FROM pm_h WHERE ts >= '2026-02-10' AND ts < '2026-02-12';
RESET enable_seqscan;
RESET enable_bitmapscan;

-- an UPDATE that moves rows to another partition (delete + insert)
UPDATE pm_b SET ts = ts + interval '31 days' WHERE sensor = 3 AND ts < '2026-01-10';
UPDATE pm_h SET ts = ts + interval '31 days' WHERE sensor = 3 AND ts < '2026-01-10';
SELECT pm_diff();
DELETE FROM pm_b WHERE sensor = 5;
DELETE FROM pm_h WHERE sensor = 5;
SELECT pm_diff();

-- ON CONFLICT through the parent (btree unique arbiter)
INSERT INTO pm_b VALUES (1, '2026-01-01 00:20', -1), (99, '2026-03-05', -2)
  ON CONFLICT (sensor, ts) DO UPDATE SET v = EXCLUDED.v;
INSERT INTO pm_h VALUES (1, '2026-01-01 00:20', -1), (99, '2026-03-05', -2)
  ON CONFLICT (sensor, ts) DO UPDATE SET v = EXCLUDED.v;
SELECT pm_diff();

-- DETACH and ATTACH a blinkheap partition
ALTER TABLE pm_b DETACH PARTITION pm_b_3;
ALTER TABLE pm_h DETACH PARTITION pm_h_3;
SELECT count(*) FROM pm_b_3;
ALTER TABLE pm_b ATTACH PARTITION pm_b_3 FOR VALUES FROM ('2026-03-01') TO ('2026-04-01');
ALTER TABLE pm_h ATTACH PARTITION pm_h_3 FOR VALUES FROM ('2026-03-01') TO ('2026-04-01');
SELECT pm_diff();

-- COPY into the parent
COPY pm_b FROM STDIN;
7	2026-03-20 10:00:00	1.5
8	2026-01-20 10:00:00	2.5
\.
INSERT INTO pm_h VALUES (7, '2026-03-20 10:00:00', 1.5), (8, '2026-01-20 10:00:00', 2.5);
SELECT pm_diff();

VACUUM pm_b;
ANALYZE pm_b;
SELECT pm_diff();
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM pm_b WHERE ts > '2026-01-01';
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*) FROM pm_h WHERE ts > '2026-01-01';

SELECT blinkheap_check('pm_b_1'), blinkheap_check('pm_b_2'), blinkheap_check('pm_b_3');
SELECT blink_check(i.indexrelid::regclass, true)
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
 WHERE a.amname = 'blink' AND i.indrelid IN ('pm_b_1'::regclass, 'pm_b_2'::regclass, 'pm_b_3'::regclass)
 ORDER BY c.relname;
DROP TABLE pm_b, pm_h;
DROP FUNCTION pm_diff();
