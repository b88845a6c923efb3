-- heap_blink_dunique: heap_blink whose unique index's entries are held
-- back too (blinkam.defer_unique = on): checked at each INSERT, their keys
-- registered in shared memory, added at the commit: the runs of up to
-- four sensor leaves in one record (blinkam.flush_leaves) -- with PIPE=10,
-- four sensors' forty rows in one record.
-- pgoptions: -c blinkam.defer_unique=on
CREATE TABLE measure (
	sensor_id int NOT NULL,
	ts timestamp NOT NULL,
	value float8
);
CREATE UNIQUE INDEX measure_pkey ON measure USING blink (sensor_id, ts);
CREATE INDEX measure_ts ON measure USING blink (ts);
