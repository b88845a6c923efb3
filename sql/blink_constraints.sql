--
-- Constraints on unique blink indexes.  PostgreSQL 15 builds PRIMARY KEY
-- and UNIQUE constraints with btree only and refuses a blink index for
-- them in its own words; a foreign key whose referenced columns' first
-- unique index is blink would meet an internal error, so blinkam refuses
-- it first with the reason and a way out.  What works is shown beside it.
--
CREATE EXTENSION blinkam;
\set VERBOSITY default

CREATE TABLE pk (k int NOT NULL, j int NOT NULL, v text);
INSERT INTO pk SELECT i, i, 'v' || i FROM generate_series(1, 100) i;
CREATE UNIQUE INDEX pk_k ON pk USING blink (k);

-- PostgreSQL's own refusals: constraints USING INDEX, partitioned indexes
ALTER TABLE pk ADD CONSTRAINT pk_pkey PRIMARY KEY USING INDEX pk_k;
ALTER TABLE pk ADD CONSTRAINT pk_uk UNIQUE USING INDEX pk_k;
CREATE TABLE part (k int, ts int) PARTITION BY RANGE (ts);
CREATE UNIQUE INDEX part_k ON part USING blink (k, ts);
DROP TABLE part;

-- foreign keys whose referenced columns lead to the blink index: refused
-- in every form, before PostgreSQL's internal error
CREATE TABLE fk (k int REFERENCES pk (k));
CREATE TABLE fk (k int, FOREIGN KEY (k) REFERENCES pk (k));
CREATE TABLE fk (k int);
ALTER TABLE fk ADD FOREIGN KEY (k) REFERENCES pk (k);
ALTER TABLE fk ADD COLUMN k2 int REFERENCES public.pk (k);
-- ... except by commands PostgreSQL skips with a notice, which add none
CREATE TABLE IF NOT EXISTS fk (k int REFERENCES pk (k));
ALTER TABLE IF EXISTS no_such_table ADD FOREIGN KEY (k) REFERENCES pk (k);
CREATE TABLE IF NOT EXISTS fk_new (k int REFERENCES pk (k));
ALTER TABLE IF EXISTS fk ADD FOREIGN KEY (k) REFERENCES pk (k);
-- a btree unique index created after the blink one does not help:
-- PostgreSQL takes the first unique index on the columns
CREATE UNIQUE INDEX pk_k_btree ON pk USING btree (k);
ALTER TABLE fk ADD FOREIGN KEY (k) REFERENCES pk (k);
-- the workaround the hint gives: the blink index after the btree one
DROP INDEX pk_k;
CREATE UNIQUE INDEX pk_k ON pk USING blink (k);
ALTER TABLE fk ADD FOREIGN KEY (k) REFERENCES pk (k);
INSERT INTO fk VALUES (5);
INSERT INTO fk VALUES (500);
-- a foreign key to the primary key (btree) with a unique blink index on
-- the same columns: works
ALTER TABLE pk ADD PRIMARY KEY (j);
CREATE UNIQUE INDEX pk_j ON pk USING blink (j);
CREATE TABLE fk2 (j int REFERENCES pk ON DELETE CASCADE);
INSERT INTO fk2 VALUES (7), (8);
DELETE FROM pk WHERE j = 7;
SELECT j FROM fk2 ORDER BY j;
-- other unique blink indexes of the referenced table are no obstacle
CREATE UNIQUE INDEX pk_v ON pk USING blink (v);
CREATE TABLE fk3 (j int REFERENCES pk (j));
SELECT conname, conrelid::regclass, confrelid::regclass,
       (SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = conindid) AS am
  FROM pg_constraint WHERE contype = 'f' AND conrelid::regclass::text LIKE 'fk%' ORDER BY conname;
SELECT blink_check('pk_k', true);
SELECT blink_check('pk_j', true);
SELECT blink_check('pk_v', true);
DROP TABLE fk, fk2, fk3, pk;
DROP EXTENSION blinkam;
