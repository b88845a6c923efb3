-- heap_blink_nodefer: heap_blink with statement buffers turned off for
-- the benchmark's clients: each row's ts entry is added at once, to
-- measure what buffering brings.
-- pgoptions: -c blinkam.defer_inserts=off
CREATE TABLE measure (
	sensor_id int NOT NULL,
	ts timestamp NOT NULL,
	value float8
);
CREATE UNIQUE INDEX measure_pkey ON measure USING blink (sensor_id, ts);
CREATE INDEX measure_ts ON measure USING blink (ts);
