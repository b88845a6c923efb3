--
-- A unique blink index WITH (unique_check = statement) checks the rows a
-- statement inserts at the statement's end, as PostgreSQL checks a
-- DEFERRABLE INITIALLY IMMEDIATE unique constraint: the same statements
-- run on a heap table whose btree constraint is such, and the answers
-- (errors, rows) must match.  The concurrent cases are in
-- specs/blink_unique_statement_race.spec.
--
CREATE EXTENSION IF NOT EXISTS blinkam;
SET client_min_messages = warning;

CREATE TABLE ub (k int, v text, CONSTRAINT ub_k UNIQUE (k) DEFERRABLE INITIALLY IMMEDIATE);
CREATE TABLE ul (k int, v text);
CREATE UNIQUE INDEX ul_k ON ul USING blink (k) WITH (unique_check = statement);
SELECT reloptions FROM pg_class WHERE relname = 'ul_k';

-- the same statements on both; each result set must be the same
CREATE FUNCTION both_run(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	rb text;
	rl text;
BEGIN
	BEGIN
		EXECUTE replace(stmt, 'TBL', 'ub');
		rb := 'ok';
	EXCEPTION WHEN unique_violation THEN
		rb := 'unique_violation';
	END;
	BEGIN
		EXECUTE replace(stmt, 'TBL', 'ul');
		rl := 'ok';
	EXCEPTION WHEN unique_violation THEN
		rl := 'unique_violation';
	END;
	RETURN CASE WHEN rb = rl THEN rl ELSE 'btree ' || rb || ', blink ' || rl END;
END
$$;
CREATE FUNCTION both_same() RETURNS bigint LANGUAGE sql AS $$
	SELECT count(*) FROM ((TABLE ub EXCEPT ALL TABLE ul) UNION ALL (TABLE ul EXCEPT ALL TABLE ub)) d
$$;

SELECT blinkam_reset_stats();
SELECT both_run($$INSERT INTO TBL SELECT g, 'a' FROM generate_series(1, 1000) g$$);
-- buffered and added a leaf at a time: far fewer records than rows
SELECT value BETWEEN 1 AND 50 AS few_leaf_writes FROM blinkam_stats() WHERE name = 'deferred_leaf_writes';
SELECT value FROM blinkam_stats() WHERE name = 'deferred_inserts';
-- a key that exists, alone or among new ones
SELECT both_run($$INSERT INTO TBL VALUES (5, 'dup')$$);
SELECT both_run($$INSERT INTO TBL SELECT g, 'b' FROM generate_series(990, 1010) g$$);
-- two rows of one statement with one key
SELECT both_run($$INSERT INTO TBL VALUES (2001, 'x'), (2002, 'y'), (2001, 'z')$$);
-- keys that collide only row by row: checked at the statement's end, no
-- violation (a per-row check would fail at the first row)
SELECT both_run($$UPDATE TBL SET k = k + 1$$);
SELECT both_run($$UPDATE TBL SET k = CASE k WHEN 2 THEN 3 WHEN 3 THEN 2 ELSE k END WHERE k IN (2, 3)$$);
SELECT both_run($$UPDATE TBL SET k = 500 WHERE k IN (10, 11)$$);
-- a savepoint rolled back takes its buffered rows with it
SELECT both_run($s$
	DO $d$ BEGIN
		INSERT INTO TBL VALUES (3000, 'kept');
		BEGIN
			INSERT INTO TBL VALUES (3001, 'gone');
			INSERT INTO TBL VALUES (3000, 'dup');
		EXCEPTION WHEN unique_violation THEN NULL;
		END;
		INSERT INTO TBL VALUES (3001, 'after');
	END $d$$s$);
-- NULL keys never conflict
SELECT both_run($$INSERT INTO TBL VALUES (NULL, 'n1'), (NULL, 'n2')$$);
SELECT both_same() AS differing_rows;

-- blink only from here (ON CONFLICT takes no deferrable arbiter in btree)
-- ON CONFLICT statements check at once: the second row is the conflict
INSERT INTO ul VALUES (4000, 'first'), (4000, 'second') ON CONFLICT (k) DO NOTHING;
SELECT k, v FROM ul WHERE k = 4000;
-- a failed statement's AFTER ROW triggers never run: the check comes first
CREATE FUNCTION ul_after() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE WARNING 'after row %', NEW.k;
	RETURN NULL;
END
$$;
CREATE TRIGGER ul_after AFTER INSERT ON ul FOR EACH ROW EXECUTE FUNCTION ul_after();
INSERT INTO ul VALUES (5000, 'a'), (5000, 'b');
INSERT INTO ul VALUES (5001, 'a');
DROP TRIGGER ul_after ON ul;
-- COPY checks at its end
COPY ul FROM stdin;
6000	a
6000	b
\.
SELECT count(*) FROM ul WHERE k >= 6000;
-- keys that collide only row by row pass at the statement's end; with
-- blinkam.defer_inserts = off nothing is buffered, and with
-- unique_check = 'row' nothing of this index: per-row checks
CREATE TABLE um (k int);
CREATE UNIQUE INDEX um_k ON um USING blink (k) WITH (unique_check = statement);
INSERT INTO um SELECT generate_series(1, 10);
UPDATE um SET k = k + 1;
SET blinkam.defer_inserts = off;
UPDATE um SET k = k + 1;
RESET blinkam.defer_inserts;
ALTER INDEX um_k SET (unique_check = 'row');
SELECT reloptions FROM pg_class WHERE relname = 'um_k';
UPDATE um SET k = k + 1;
ALTER INDEX um_k SET (unique_check = statement);
UPDATE um SET k = k + 1;
SELECT min(k), max(k), count(*) FROM um;
SELECT blink_check('um_k', true);
DROP TABLE um;
-- SERIALIZABLE transactions buffer nothing either (their checks come at
-- once, with the leaf's predicate locks)
SELECT blinkam_reset_stats();
BEGIN ISOLATION LEVEL SERIALIZABLE;
INSERT INTO ul VALUES (7000, 'ser'), (7001, 'ser');
COMMIT;
SELECT value FROM blinkam_stats() WHERE name = 'deferred_inserts';
-- anything but row (the default) and statement is refused
CREATE UNIQUE INDEX ul_bad ON ul USING blink (k) WITH (unique_check = sometimes);
-- a non-unique index takes the setting and ignores it
CREATE INDEX ul_v ON ul USING blink (v) WITH (unique_check = statement);
INSERT INTO ul VALUES (8000, 'v'), (8001, 'v');

SELECT blink_check('ul_k', true), blink_check('ul_v', true);
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_bitmapscan = off;
SELECT count(*) = count(DISTINCT k) + count(*) FILTER (WHERE k IS NULL) AS keys_distinct FROM ul;
DROP TABLE ub, ul;
DROP FUNCTION both_run(text), both_same(), ul_after();
DROP EXTENSION blinkam;
