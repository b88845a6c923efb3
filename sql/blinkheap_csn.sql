-- blinkheap_csn: commit sequence numbers decide recent rows' visibility
-- (blinkam.csn_snapshots), with the same answers as heap.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS blinkam;
CREATE EXTENSION IF NOT EXISTS dblink;
RESET client_min_messages;
CREATE TABLE csn_h (id int, v int);
CREATE TABLE csn_b (id int, v int) USING blinkheap;

-- another session holds an xid, so everything written below is above
-- every new snapshot's xmin: each row's xmin is a "recent" xid
SELECT dblink_connect('csn_open', 'dbname=' || current_database());
SELECT dblink_exec('csn_open', 'BEGIN');
SELECT count(*) FROM dblink('csn_open', 'SELECT txid_current()') AS t(x bigint);

-- writers: plain, with a released and a rolled-back savepoint, aborted
INSERT INTO csn_h SELECT g, g FROM generate_series(1, 100) g;
INSERT INTO csn_b SELECT g, g FROM generate_series(1, 100) g;
BEGIN;
INSERT INTO csn_h VALUES (101, 1000);
INSERT INTO csn_b VALUES (101, 1000);
SAVEPOINT a;
INSERT INTO csn_h VALUES (102, 2000);
INSERT INTO csn_b VALUES (102, 2000);
RELEASE a;
SAVEPOINT b;
INSERT INTO csn_h VALUES (103, 4000);
INSERT INTO csn_b VALUES (103, 4000);
ROLLBACK TO b;
COMMIT;
BEGIN;
INSERT INTO csn_h VALUES (104, 8000);
INSERT INTO csn_b VALUES (104, 8000);
ROLLBACK;
DELETE FROM csn_h WHERE id = 50;
DELETE FROM csn_b WHERE id = 50;
UPDATE csn_h SET v = v + 1 WHERE id = 60;
UPDATE csn_b SET v = v + 1 WHERE id = 60;

-- committed writers have a CSN (the subtransaction's row: its own xid,
-- mapped to the same CSN as its parent); the same answers as heap
SELECT count(DISTINCT xmin::text) AS writers, count(blinkheap_csn_of(xmin)) AS rows_with_csn,
       count(*) AS rows
  FROM csn_b;
SELECT blinkheap_csn_of(xmin) = (SELECT blinkheap_csn_of(xmin) FROM csn_b WHERE id = 101)
       AS same_csn_as_parent
  FROM csn_b WHERE id = 102;
SELECT blinkheap_csn_of(txid_current()::text::xid) AS own_xid_has_none;
SELECT blinkheap_csn_of('0'::xid) AS invalid_xid_has_none;

SELECT blinkam_reset_stats();
SELECT (SELECT count(*) || '/' || sum(v) FROM csn_h) AS heap,
       (SELECT count(*) || '/' || sum(v) FROM csn_b) AS blinkheap;
SELECT (SELECT value FROM blinkam_stats() WHERE name = 'csn_fast_checks') > 0 AS fast_checks,
       (SELECT value FROM blinkam_stats() WHERE name = 'csn_slow_checks') AS slow_checks;

-- the same snapshot asked row by row (index scan) and with CSNs off
CREATE INDEX ON csn_h (id);
CREATE INDEX ON csn_b (id);
SET enable_seqscan = off;
SELECT (SELECT string_agg(id::text, ',' ORDER BY id) FROM csn_h WHERE id BETWEEN 45 AND 65 AND v % 2 = 1) AS heap,
       (SELECT string_agg(id::text, ',' ORDER BY id) FROM csn_b WHERE id BETWEEN 45 AND 65 AND v % 2 = 1) AS blinkheap;
RESET enable_seqscan;
SET blinkam.csn_snapshots = off;
SELECT blinkam_reset_stats();
SELECT (SELECT count(*) || '/' || sum(v) FROM csn_h) AS heap,
       (SELECT count(*) || '/' || sum(v) FROM csn_b) AS blinkheap;
SELECT (SELECT value FROM blinkam_stats() WHERE name = 'csn_fast_checks') AS fast_checks,
       (SELECT value FROM blinkam_stats() WHERE name = 'csn_slow_checks') > 0 AS slow_checks;
-- a transaction that commits with CSNs off gets none
INSERT INTO csn_b VALUES (105, 1);
INSERT INTO csn_h VALUES (105, 1);
SELECT blinkheap_csn_of(xmin) IS NULL AS no_csn FROM csn_b WHERE id = 105;
RESET blinkam.csn_snapshots;
SELECT (SELECT count(*) || '/' || sum(v) FROM csn_h) AS heap,
       (SELECT count(*) || '/' || sum(v) FROM csn_b) AS blinkheap;

-- REPEATABLE READ: a writer committing after our snapshot stays unseen
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT (SELECT count(*) FROM csn_h) AS heap, (SELECT count(*) FROM csn_b) AS blinkheap;
SELECT dblink_connect('csn_w', 'dbname=' || current_database());
SELECT dblink_exec('csn_w', 'INSERT INTO csn_h VALUES (106, 1); INSERT INTO csn_b VALUES (106, 1)');
SELECT (SELECT count(*) FROM csn_h) AS heap, (SELECT count(*) FROM csn_b) AS blinkheap;
COMMIT;
SELECT (SELECT count(*) FROM csn_h) AS heap, (SELECT count(*) FROM csn_b) AS blinkheap;

SELECT dblink_exec('csn_open', 'COMMIT');
SELECT dblink_disconnect('csn_open');
SELECT dblink_disconnect('csn_w');
SELECT blinkheap_check('csn_b');
DROP TABLE csn_h, csn_b;

-- stamps: an insert record marks the finished inserters of the newest
-- tuples on its page committed (or aborted) in the record it writes
-- anyway, so later checks skip clog
CREATE TABLE csn_s (id int) USING blinkheap WITH (autovacuum_enabled = off);
-- (the insert page may be any block the page pool handed out)
INSERT INTO csn_s VALUES (1) RETURNING (ctid::text::point)[0]::int AS blk \gset
BEGIN;
INSERT INTO csn_s VALUES (2);
ROLLBACK;
SELECT lp, infomask LIKE '%XMIN_COMMITTED%' AS committed,
       infomask LIKE '%XMIN_INVALID%' AS aborted
  FROM blinkheap_page_items('csn_s', :blk) ORDER BY lp;
-- this insert's snapshot has both earlier xids below its xmin
INSERT INTO csn_s VALUES (3);
SELECT lp, infomask LIKE '%XMIN_COMMITTED%' AS committed,
       infomask LIKE '%XMIN_INVALID%' AS aborted
  FROM blinkheap_page_items('csn_s', :blk) ORDER BY lp;
SELECT id FROM csn_s ORDER BY id;
SELECT blinkheap_check('csn_s');
DROP TABLE csn_s;
