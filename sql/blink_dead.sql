--
-- Entries of dead rows between VACUUMs.  An index scan that finds an
-- entry's row dead to everyone marks the entry dead (LP_DEAD); a full
-- leaf removes such entries before it splits, and on an update that left
-- the index's columns unchanged it asks the table about all its entries
-- (bottom-up deletion); a unique insert marks the dead equal entries it
-- checks.  Rows inserted by aborted subtransactions are dead
-- to everyone at once, whatever other sessions do, so they make each step
-- deterministic.  Every figure is compared with btree on the same work.
-- Marks made while a scan is away from the page, and VACUUM freeing line
-- pointers meanwhile: specs/blink_dead_vacuum.spec.  Standbys:
-- t/017_blink_dead_standby.pl.
--
CREATE EXTENSION blinkam;
CREATE FUNCTION counter(n text) RETURNS bigint LANGUAGE sql
	AS $$ SELECT value FROM blinkam_stats() WHERE name = n $$;
-- pages in use besides the metapage: blink's workers may add empty pages
-- to an index's pool ahead of need, so its file size says less
CREATE FUNCTION tree_pages(i regclass) RETURNS bigint LANGUAGE sql AS $$
	SELECT CASE WHEN (SELECT amname FROM pg_am a JOIN pg_class c ON c.relam = a.oid
					   WHERE c.oid = i) = 'blink'
		   THEN (SELECT leaf_pages + internal_pages FROM blink_tree_stats(i))
		   ELSE pg_relation_size(i) / 8192 - 1 END $$;
-- live and dead entries over all leaves of an index
CREATE FUNCTION leaf_entries(i regclass, OUT live bigint, OUT dead bigint)
	LANGUAGE sql AS $$
	SELECT sum(s.live_items), sum(s.dead_items)
	  FROM generate_series(1, pg_relation_size(i) / 8192 - 1) b,
		   blink_page_stats(i, b) s
	 WHERE s.type IN ('leaf', 'root leaf') $$;

-- 1. PostgreSQL's own mvcc regression scenario: a loop that scans a key
-- range, inserts 100 rows into it and rolls them back.  The index used to
-- grow to 312 kB (38 pages); like btree's it must stay at its first leaf.
CREATE PROCEDURE aborted_churn(am text) LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE churn_%s (key int, data text)', am);
	EXECUTE format('CREATE INDEX churn_%s_key ON churn_%s USING %s (key)', am, am, am);
	EXECUTE format('INSERT INTO churn_%s VALUES (-1, %L)', am, 'the first entry');
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	PERFORM set_config('enable_indexonlyscan', 'off', true);
	-- each INSERT's entries go in at its end, so the rollbacks leave dead
	-- entries (held to the commit, they would never reach the index)
	PERFORM set_config('blinkam.defer_inserts', 'statement', true);
	FOR i IN 1..100 LOOP
		BEGIN
			EXECUTE format('SELECT count(*) FROM churn_%s WHERE key > 0 AND key < 100', am);
			EXECUTE format('INSERT INTO churn_%s SELECT g, %L FROM generate_series(1, 100) g',
						   am, 'rolled back at once');
			RAISE reading_sql_data_not_permitted;
		EXCEPTION WHEN reading_sql_data_not_permitted THEN
		END;
	END LOOP;
END $$;
SELECT counter('entries_marked_dead') AS marked0,
	   counter('entries_deleted') AS deleted0 \gset
CALL aborted_churn('btree');
CALL aborted_churn('blink');
SELECT tree_pages('churn_btree_key') AS btree_pages,
	   tree_pages('churn_blink_key') AS blink_pages;
-- the scans marked the rolled-back entries, the inserts removed them
SELECT counter('entries_marked_dead') - :marked0 >= 9000 AS marked,
	   counter('entries_deleted') - :deleted0 >= 9000 AS deleted;
SELECT * FROM churn_blink ORDER BY key;
SELECT blink_check('churn_blink_key', true);

-- 2. What a scan marks, it no longer returns, and a leaf with marked
-- entries drops them before it splits.  One leaf (it holds 407 int
-- entries): 100 rows, then 200 rolled back in the middle of its range.
CREATE TABLE dk (k int, v int) WITH (autovacuum_enabled = off);
CREATE TABLE db (k int, v int) WITH (autovacuum_enabled = off);
INSERT INTO dk SELECT i * 10, i FROM generate_series(1, 100) i;
INSERT INTO db SELECT k, v FROM dk;
CREATE INDEX dk_k ON dk USING blink (k);
CREATE INDEX db_k ON db USING btree (k);
BEGIN;
SET LOCAL blinkam.defer_inserts = statement;	-- (in at each INSERT's end)
INSERT INTO dk SELECT i * 10 + 5, -i FROM generate_series(1, 100) i;
INSERT INTO dk SELECT i * 10 + 3, -i FROM generate_series(1, 100) i;
ROLLBACK;
SELECT leaf_pages FROM blink_tree_stats('dk_k');
SELECT * FROM leaf_entries('dk_k');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
-- an index scan visits the rolled-back rows and marks their entries
SELECT count(*) FROM dk WHERE k BETWEEN 0 AND 2000;
SELECT * FROM leaf_entries('dk_k');
-- index, index-only and bitmap scans return what btree returns
SELECT count(*), sum(v) FROM dk WHERE k BETWEEN 400 AND 2600;
SELECT count(*), sum(v) FROM db WHERE k BETWEEN 400 AND 2600;
SELECT k FROM dk WHERE k BETWEEN 995 AND 1025 ORDER BY k DESC;
SELECT k FROM db WHERE k BETWEEN 995 AND 1025 ORDER BY k DESC;
SET enable_indexscan = off;
SET enable_bitmapscan = on;
SELECT count(*), sum(v) FROM dk WHERE k BETWEEN 400 AND 2600;
RESET enable_indexscan;
RESET enable_bitmapscan;
-- 150 more rows fill the leaf: the dead entries go instead of a split
SELECT counter('entries_deleted') AS deleted0 \gset
INSERT INTO dk SELECT i * 10 + 7, i FROM generate_series(1, 150) i;
INSERT INTO db SELECT i * 10 + 7, i FROM generate_series(1, 150) i;
SELECT counter('entries_deleted') - :deleted0 AS deleted;
SELECT * FROM leaf_entries('dk_k');
SELECT leaf_pages FROM blink_tree_stats('dk_k');
SELECT (SELECT array_agg(k ORDER BY k) FROM dk WHERE k > 0) =
	   (SELECT array_agg(k ORDER BY k) FROM db WHERE k > 0) AS same_rows;
SELECT blink_check('dk_k', true);
RESET enable_seqscan;

-- 3. Bottom-up deletion: updates that change another indexed column (so
-- they are not HOT) leave the id index a new entry for the same id each
-- time, with no scan of that index to mark anything.  Rolled back, each
-- of those entries points to a dead row; the full leaf asks the table.
-- btree also stores equal keys once (deduplication, which blink lacks),
-- so the size to match is btree's without it.
CREATE TABLE uk (id int, k int, pad text) WITH (autovacuum_enabled = off, fillfactor = 50);
CREATE TABLE ub (id int, k int, pad text) WITH (autovacuum_enabled = off, fillfactor = 50);
CREATE INDEX uk_id ON uk USING blink (id);
CREATE INDEX uk_k ON uk USING blink (k);
CREATE INDEX ub_id ON ub USING btree (id) WITH (deduplicate_items = off);
CREATE INDEX ub_k ON ub USING btree (k);
INSERT INTO uk SELECT i, i, repeat('x', 20) FROM generate_series(1, 200) i;
INSERT INTO ub SELECT id, k, pad FROM uk;
CREATE PROCEDURE aborted_updates(t text) LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_config('enable_indexscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	PERFORM set_config('blinkam.defer_inserts', 'statement', true);
	FOR i IN 1..40 LOOP
		BEGIN
			EXECUTE format('UPDATE %s SET k = k + 1', t);
			RAISE reading_sql_data_not_permitted;
		EXCEPTION WHEN reading_sql_data_not_permitted THEN
		END;
	END LOOP;
END $$;
SELECT counter('entries_deleted') AS deleted0 \gset
CALL aborted_updates('uk');
CALL aborted_updates('ub');
SELECT counter('entries_deleted') - :deleted0 > 1000 AS bottom_up_deleted;
SELECT tree_pages('uk_id') <= tree_pages('ub_id') AS id_no_larger_than_btree;
SELECT count(*), sum(id), sum(k) FROM uk WHERE id > 0;
SELECT blink_check('uk_id', true);
SELECT blink_check('uk_k', true);

-- 4. A unique insert checks the equal entries it finds: those whose rows
-- are dead to everyone are marked on the way (on the leaf it holds).
CREATE TABLE qk (k int, v int) WITH (autovacuum_enabled = off);
CREATE UNIQUE INDEX qk_k ON qk USING blink (k);
INSERT INTO qk SELECT g, 0 FROM generate_series(1, 50) g;
BEGIN;
INSERT INTO qk SELECT g, -1 FROM generate_series(51, 150) g;
ROLLBACK;
SELECT * FROM leaf_entries('qk_k');
INSERT INTO qk SELECT g, 1 FROM generate_series(51, 150) g;
SELECT * FROM leaf_entries('qk_k');
SELECT count(*), sum(v) FROM qk;
SELECT blink_check('qk_k', true);

-- 5. VACUUM after all this: nothing marked is left behind, and the
-- indexes still agree with their tables.
VACUUM dk;
VACUUM uk;
SELECT dead FROM leaf_entries('dk_k');
SELECT blink_check('dk_k', true);
SELECT blink_check('uk_id', true);

DROP TABLE churn_btree, churn_blink, dk, db, uk, ub, qk;
DROP PROCEDURE aborted_churn(text), aborted_updates(text);
DROP FUNCTION counter(text), leaf_entries(regclass), tree_pages(regclass);
DROP EXTENSION blinkam;
