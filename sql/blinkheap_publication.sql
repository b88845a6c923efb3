-- Publications refuse blinkheap tables: logical decoding does not see
-- their changes, so a subscriber would get the initial copy and nothing
-- after it.  A blinkheap table the command names is an error that undoes
-- the command; blinkheap partitions of a partitioned table it names, and
-- tables a publication holds through FOR ALL TABLES or TABLES IN SCHEMA,
-- are a warning.  In a database of its own, so that FOR ALL TABLES sees
-- only this file's tables.
\set regressdb :DBNAME
CREATE DATABASE blinkam_pubs;
\c blinkam_pubs
CREATE EXTENSION blinkam;
SET client_min_messages = warning;
CREATE SCHEMA pubs;
CREATE TABLE pubs.h (id int PRIMARY KEY, v text);
CREATE TABLE pubs.b (id int PRIMARY KEY, v text) USING blinkheap;
CREATE INDEX b_v ON pubs.b USING blink (v);
CREATE TABLE pubs.parted (id int, v text) PARTITION BY RANGE (id);
CREATE TABLE pubs.parted_h PARTITION OF pubs.parted FOR VALUES FROM (0) TO (100);
CREATE TABLE pubs.parted_b PARTITION OF pubs.parted FOR VALUES FROM (100) TO (200)
  USING blinkheap;
INSERT INTO pubs.h SELECT i, 'h' || i FROM generate_series(1, 10) i;
INSERT INTO pubs.b SELECT i, 'b' || i FROM generate_series(1, 10) i;
INSERT INTO pubs.parted SELECT i, 'p' || i FROM generate_series(1, 199, 7) i;

-- a heap table: published
CREATE PUBLICATION pub_h FOR TABLE pubs.h;
-- a blinkheap table, alone or with others: refused, nothing created
CREATE PUBLICATION pub_b FOR TABLE pubs.b;
CREATE PUBLICATION pub_hb FOR TABLE pubs.h, pubs.b;
SELECT pubname FROM pg_publication WHERE pubname LIKE 'pub\_%' ORDER BY 1;
-- added or set later: refused, the publication keeps what it had
ALTER PUBLICATION pub_h ADD TABLE pubs.b;
ALTER PUBLICATION pub_h SET TABLE pubs.b;
SELECT pubname, schemaname, tablename FROM pg_publication_tables
 WHERE pubname LIKE 'pub\_%' ORDER BY 1, 2, 3;
-- a partitioned table with a blinkheap partition, either way of
-- publishing: created, with a warning; its heap partition is published
CREATE PUBLICATION pub_parted FOR TABLE pubs.parted;
CREATE PUBLICATION pub_parted_root FOR TABLE pubs.parted
  WITH (publish_via_partition_root = true);
-- the form pg_dump writes: the same warning, not an error (an error left
-- a restored publication without the partitioned table)
CREATE PUBLICATION pub_dumped;
ALTER PUBLICATION pub_dumped ADD TABLE ONLY pubs.parted;
SELECT pubname, schemaname, tablename FROM pg_publication_tables
 WHERE pubname IN ('pub_parted', 'pub_parted_root', 'pub_dumped')
 ORDER BY 1, 2, 3;
-- a publication that came to hold a blinkheap partition without being
-- asked (ATTACH is not checked) still takes other tables: only what a
-- command names is looked at (before, every later ADD was refused)
CREATE TABLE pubs.parted2 (id int, v text) PARTITION BY RANGE (id);
CREATE TABLE pubs.parted2_h PARTITION OF pubs.parted2 FOR VALUES FROM (0) TO (100);
CREATE PUBLICATION pub_attached FOR TABLE pubs.parted2;
CREATE TABLE pubs.parted2_b (id int, v text) USING blinkheap;
ALTER TABLE pubs.parted2 ATTACH PARTITION pubs.parted2_b FOR VALUES FROM (100) TO (200);
ALTER PUBLICATION pub_attached ADD TABLE pubs.h;
-- but not a blinkheap table named
ALTER PUBLICATION pub_attached ADD TABLE pubs.parted2_b;
SELECT pubname, schemaname, tablename FROM pg_publication_tables
 WHERE pubname = 'pub_attached' ORDER BY 1, 2, 3;
DROP PUBLICATION pub_parted, pub_parted_root, pub_dumped, pub_attached;
-- a failed ALTER inside a transaction is undone to the savepoint
BEGIN;
SAVEPOINT s;
ALTER PUBLICATION pub_h ADD TABLE pubs.b;
ROLLBACK TO s;
ALTER PUBLICATION pub_h ADD TABLE pubs.parted_h;
COMMIT;
SELECT pubname, schemaname, tablename FROM pg_publication_tables
 WHERE pubname LIKE 'pub\_%' ORDER BY 1, 2, 3;
-- other ALTERs of a publication are untouched
ALTER PUBLICATION pub_h DROP TABLE pubs.parted_h;
ALTER PUBLICATION pub_h SET (publish = 'insert');
-- TABLES IN SCHEMA and ALL TABLES: created, with a warning
CREATE PUBLICATION pub_schema FOR TABLES IN SCHEMA pubs;
CREATE PUBLICATION pub_all FOR ALL TABLES;
SELECT pubname FROM pg_publication WHERE pubname LIKE 'pub\_%' ORDER BY 1;
DROP PUBLICATION pub_all;
DROP PUBLICATION pub_schema;
-- a schema without blinkheap tables: no warning
CREATE SCHEMA pubs_heap;
CREATE TABLE pubs_heap.t (id int PRIMARY KEY);
CREATE PUBLICATION pub_schema_heap FOR TABLES IN SCHEMA pubs_heap;
DROP PUBLICATION pub_schema_heap;
DROP PUBLICATION pub_h;
-- an inheritance parent named without ONLY: PostgreSQL adds every child
-- as a member of its own, so a blinkheap child is refused as if named
-- (until 2026-11-28 it got in silently, and a subscriber lost its
-- changes); with ONLY, or with heap children only, the parent goes in
CREATE TABLE pubs.ip (id int PRIMARY KEY, v text);
CREATE TABLE pubs.ic_h (id int PRIMARY KEY, v text);
CREATE TABLE pubs.ic_b (id int PRIMARY KEY, v text) USING blinkheap;
ALTER TABLE pubs.ic_h INHERIT pubs.ip;
ALTER TABLE pubs.ic_b INHERIT pubs.ip;
CREATE PUBLICATION pub_inh FOR TABLE pubs.ip;
CREATE PUBLICATION pub_inh FOR TABLE pubs_heap.t;
ALTER PUBLICATION pub_inh ADD TABLE pubs.ip;
ALTER PUBLICATION pub_inh SET TABLE pubs.ip;
ALTER PUBLICATION pub_inh ADD TABLE ONLY pubs.ip, pubs.ic_h;
SELECT tablename FROM pg_publication_tables WHERE pubname = 'pub_inh' ORDER BY 1;
ALTER TABLE pubs.ic_b NO INHERIT pubs.ip;
ALTER PUBLICATION pub_inh SET TABLE pubs.ip;
SELECT tablename FROM pg_publication_tables WHERE pubname = 'pub_inh' ORDER BY 1;
DROP PUBLICATION pub_inh;
SELECT blinkheap_check('pubs.ic_b');

-- the tables are as they were
SELECT count(*), sum(id) FROM pubs.b;
SELECT count(*), sum(id) FROM pubs.parted;
SELECT blinkheap_check('pubs.b');
SELECT blinkheap_check('pubs.parted_b');
SELECT blinkheap_check('pubs.parted2_b');
SELECT blink_check('pubs.b_v', true);
\c :regressdb
DROP DATABASE blinkam_pubs;
