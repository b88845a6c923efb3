-- heap_blink_nobatch: heap_blink with cooperative batch inserts turned off
-- for the benchmark's clients, to measure what batching brings.
-- pgoptions: -c blinkam.batch_inserts=off
CREATE TABLE measure (
	sensor_id int NOT NULL,
	ts timestamp NOT NULL,
	value float8
);
CREATE UNIQUE INDEX measure_pkey ON measure USING blink (sensor_id, ts);
CREATE INDEX measure_ts ON measure USING blink (ts);
