-- shared_preload_libraries loads blinkam into every database, also those
-- where CREATE EXTENSION blinkam was never run: there, "blink" is no
-- access method, and its hooks must leave PostgreSQL alone.  INSERT ...
-- ON CONFLICT used to fail with 'access method "blink" does not exist'.
-- The same statements then run in a database with the extension, on
-- btree and on blink, with the same outcomes.
\set regressdb :DBNAME
CREATE DATABASE blinkam_noext TEMPLATE template0;
\c blinkam_noext
SELECT count(*) FROM pg_am WHERE amname IN ('blink', 'blinkheap');
CREATE TABLE t (k int PRIMARY KEY, v text);
CREATE UNIQUE INDEX t_v ON t (v);
INSERT INTO t VALUES (1, 'a'), (2, 'b');
INSERT INTO t VALUES (1, 'x') ON CONFLICT (k) DO UPDATE SET v = excluded.v;
INSERT INTO t VALUES (3, 'b') ON CONFLICT (v) DO NOTHING;
INSERT INTO t VALUES (3, 'c') ON CONFLICT DO NOTHING RETURNING *;
SELECT * FROM t ORDER BY k;
CREATE TABLE p (k int PRIMARY KEY, v text) PARTITION BY RANGE (k);
CREATE TABLE p1 PARTITION OF p FOR VALUES FROM (0) TO (10);
INSERT INTO p VALUES (1, 'a') ON CONFLICT (k) DO UPDATE SET v = 'x';
INSERT INTO p VALUES (1, 'b') ON CONFLICT (k) DO UPDATE SET v = excluded.v;
SELECT * FROM p;
CREATE TABLE r (k int REFERENCES t);
INSERT INTO r VALUES (1);
INSERT INTO r VALUES (9);
\c :regressdb
DROP DATABASE blinkam_noext;

SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS blinkam;
RESET client_min_messages;
CREATE TABLE noext_k (k int, v text);
CREATE UNIQUE INDEX noext_k_k ON noext_k USING blink (k);
CREATE UNIQUE INDEX noext_k_v ON noext_k USING blink (v);
CREATE TABLE noext_b (k int, v text);
CREATE UNIQUE INDEX noext_b_k ON noext_b USING btree (k);
CREATE UNIQUE INDEX noext_b_v ON noext_b USING btree (v);
INSERT INTO noext_k VALUES (1, 'a'), (2, 'b');
INSERT INTO noext_b VALUES (1, 'a'), (2, 'b');
INSERT INTO noext_k VALUES (1, 'x') ON CONFLICT (k) DO UPDATE SET v = excluded.v;
INSERT INTO noext_b VALUES (1, 'x') ON CONFLICT (k) DO UPDATE SET v = excluded.v;
INSERT INTO noext_k VALUES (3, 'b') ON CONFLICT (v) DO NOTHING;
INSERT INTO noext_b VALUES (3, 'b') ON CONFLICT (v) DO NOTHING;
INSERT INTO noext_k VALUES (3, 'c') ON CONFLICT DO NOTHING RETURNING *;
INSERT INTO noext_b VALUES (3, 'c') ON CONFLICT DO NOTHING RETURNING *;
(SELECT * FROM noext_k EXCEPT ALL SELECT * FROM noext_b)
UNION ALL (SELECT * FROM noext_b EXCEPT ALL SELECT * FROM noext_k);
SELECT * FROM noext_k ORDER BY k;
SELECT blink_check('noext_k_k', true), blink_check('noext_k_v', true);
DROP TABLE noext_k, noext_b;
