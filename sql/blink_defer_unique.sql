--
-- Unique entries held back (blinkam.defer_unique; blinkinsert.c, "Pending
-- unique entries"): each row's check is made at its INSERT, as btree makes
-- it, while the entry waits in the statement buffer.  One session here
-- (specs/blink_defer_unique.spec has the others): every statement runs on a
-- btree table and a blink table alike and must end the same way, and the
-- two tables must hold the same rows.
--
CREATE EXTENSION blinkam;
SET blinkam.defer_unique = on;

CREATE TABLE tb (k int, t timestamp, v text);
CREATE UNIQUE INDEX tb_k ON tb USING btree (k, t);
CREATE TABLE tk (k int, t timestamp, v text);
CREATE UNIQUE INDEX tk_k ON tk USING blink (k, t);

-- Runs sql on tb and then on tk (%T), each in a subtransaction of its own:
-- 'ok' and the row count, or the error's condition.
CREATE FUNCTION on_both(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	t text;
	n bigint;
	res text := '';
BEGIN
	FOREACH t IN ARRAY ARRAY['tb', 'tk'] LOOP
		BEGIN
			EXECUTE replace(sql, '%T', t);
			GET DIAGNOSTICS n = ROW_COUNT;
			res := res || t || ': ok ' || n || '  ';
		EXCEPTION WHEN unique_violation THEN
			res := res || t || ': unique_violation  ';
		END;
	END LOOP;
	RETURN rtrim(res);
END $$;

-- Do tb and tk hold the same rows?
CREATE FUNCTION same() RETURNS boolean LANGUAGE sql AS $$
	SELECT (SELECT array_agg(row(k, t, v) ORDER BY k, t, v) FROM tb)
	       IS NOT DISTINCT FROM
	       (SELECT array_agg(row(k, t, v) ORDER BY k, t, v) FROM tk) $$;

CREATE FUNCTION counter(n text) RETURNS bigint LANGUAGE sql AS $$
	SELECT value FROM blinkam_stats() WHERE name = n $$;

-- Held back, and a later statement of the transaction meets them: its
-- own check finds the held-back row.
SELECT counter('deferred_inserts') AS d0 \gset
BEGIN;
SELECT on_both($$INSERT INTO %T SELECT g, '2020-01-01', 'a' FROM generate_series(1, 10) g$$);
SELECT counter('deferred_inserts') - :d0 AS held_back;
SELECT on_both($$INSERT INTO %T VALUES (5, '2020-01-01', 'dup')$$);
SELECT on_both($$INSERT INTO %T VALUES (5, '2020-01-02', 'other time')$$);
COMMIT;
SELECT same(), count(*) FROM tk;

-- Two rows with one key in one statement.
SELECT on_both($$INSERT INTO %T VALUES (20, '2020-01-01', 'x'), (20, '2020-01-01', 'y')$$);

-- At the top level: the error ends the transaction, and nothing of it
-- stays (the held-back entries and their keys go with it).
BEGIN;
INSERT INTO tk SELECT g, '2021-01-01', 'top' FROM generate_series(1, 5) g;
INSERT INTO tk VALUES (3, '2021-01-01', 'top dup');
ROLLBACK;
INSERT INTO tk SELECT g, '2021-01-01', 'top' FROM generate_series(1, 5) g;
INSERT INTO tb SELECT g, '2021-01-01', 'top' FROM generate_series(1, 5) g;
SELECT same();

-- A savepoint rolled back takes its rows' keys out; the key goes in again.
BEGIN;
INSERT INTO tk VALUES (30, '2020-01-01', 'rolled back');
INSERT INTO tb VALUES (30, '2020-01-01', 'rolled back');
SAVEPOINT a;
INSERT INTO tk VALUES (31, '2020-01-01', 'rolled back');
INSERT INTO tb VALUES (31, '2020-01-01', 'rolled back');
ROLLBACK TO a;
SELECT on_both($$INSERT INTO %T VALUES (31, '2020-01-01', 'again')$$);
SELECT on_both($$INSERT INTO %T VALUES (30, '2020-01-01', 'dup of held back')$$);
COMMIT;
SELECT same();

-- Our own held-back row deleted, then its key again; a key changed to a
-- held-back one; ON CONFLICT over held-back rows.
BEGIN;
SELECT on_both($$INSERT INTO %T SELECT g, '2022-01-01', 'b' FROM generate_series(40, 49) g$$);
SELECT on_both($$DELETE FROM %T WHERE k = 41 AND t = '2022-01-01'$$);
SELECT on_both($$INSERT INTO %T VALUES (41, '2022-01-01', 'after delete')$$);
SELECT on_both($$UPDATE %T SET k = 43 WHERE k = 42 AND t = '2022-01-01'$$);
SELECT on_both($$UPDATE %T SET k = 142 WHERE k = 42 AND t = '2022-01-01'$$);
SELECT on_both($$INSERT INTO %T VALUES (44, '2022-01-01', 'c') ON CONFLICT (k, t) DO UPDATE SET v = EXCLUDED.v || ' over ' || %T.v$$);
SELECT on_both($$INSERT INTO %T VALUES (45, '2022-01-01', 'c') ON CONFLICT DO NOTHING$$);
SELECT on_both($$INSERT INTO %T VALUES (50, '2022-01-01', 'c') ON CONFLICT DO NOTHING$$);
COMMIT;
SELECT same(), count(*) FROM tk;

-- A backend holds at most 128 keys (BLINK_PENDING_PER_BACKEND); past that
-- its entries go in at once.  Duplicates of both kinds are found.
SELECT counter('deferred_inserts') AS d0 \gset
BEGIN;
SELECT on_both($$INSERT INTO %T SELECT g, '2023-01-01', 'many' FROM generate_series(1000, 1299) g$$);
SELECT counter('deferred_inserts') - :d0 AS held_back;
SELECT on_both($$INSERT INTO %T VALUES (1001, '2023-01-01', 'dup of a held-back one')$$);
SELECT on_both($$INSERT INTO %T VALUES (1290, '2023-01-01', 'dup of one that went in')$$);
-- (our own scan adds the held-back entries first)
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
SELECT count(*) FROM tk WHERE k BETWEEN 1000 AND 1299 AND t = '2023-01-01';
COMMIT;
SELECT same(), count(*) FROM tk;

-- Keys with a NULL, and indexes whose keys pending.c cannot take (text),
-- are never held back: their inserts go in at once.
CREATE TABLE tx (s text, n int);
CREATE UNIQUE INDEX tx_s ON tx USING blink (s);
CREATE UNIQUE INDEX tx_n ON tx USING blink (n);
SELECT counter('deferred_inserts') AS d0 \gset
INSERT INTO tx VALUES ('a', NULL), ('b', NULL);
SELECT counter('deferred_inserts') - :d0 AS held_back_none;
INSERT INTO tx VALUES ('a', 7);
INSERT INTO tx VALUES ('c', 7), ('d', 8);
SELECT counter('deferred_inserts') - :d0 AS held_back_int_keys;
INSERT INTO tx VALUES ('e', 8);
SELECT * FROM tx ORDER BY s;

-- With the setting off, nothing is held back.
SET blinkam.defer_unique = off;
SELECT counter('deferred_inserts') AS d0 \gset
SELECT on_both($$INSERT INTO %T SELECT g, '2024-01-01', 'off' FROM generate_series(1, 20) g$$);
SELECT counter('deferred_inserts') - :d0 AS held_back_when_off;
SELECT on_both($$INSERT INTO %T VALUES (7, '2024-01-01', 'dup')$$);
RESET blinkam.defer_unique;

SELECT same(), count(*) FROM tk;
SELECT blink_check('tk_k', true), blink_check('tx_s', true), blink_check('tx_n', true);
DROP TABLE tb, tk, tx;
DROP FUNCTION on_both(text), same(), counter(text);
DROP EXTENSION blinkam;
