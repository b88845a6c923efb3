-- heap_blink_dunique_leaves1: heap_blink_dunique with one WAL record per
-- leaf at the flush (blinkam.flush_leaves = 1), as before flushes wrote
-- up to four leaves a record: the comparison for blinkam.flush_leaves.
-- pgoptions: -c blinkam.defer_unique=on -c blinkam.flush_leaves=1
CREATE TABLE measure (
	sensor_id int NOT NULL,
	ts timestamp NOT NULL,
	value float8
);
CREATE UNIQUE INDEX measure_pkey ON measure USING blink (sensor_id, ts);
CREATE INDEX measure_ts ON measure USING blink (ts);
