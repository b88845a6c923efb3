-- blinkheap_blink_dunique: blinkheap_blink whose unique index's entries
-- are held back too (blinkam.defer_unique = on), added at the commit with
-- the ts index's: one statement's ten sensor leaves in three records
-- (blinkam.flush_leaves = 4, the default).
-- pgoptions: -c blinkam.defer_unique=on
CREATE TABLE measure (
	sensor_id int NOT NULL,
	ts timestamp NOT NULL,
	value float8
) USING blinkheap;
CREATE UNIQUE INDEX measure_pkey ON measure USING blink (sensor_id, ts);
CREATE INDEX measure_ts ON measure USING blink (ts);
