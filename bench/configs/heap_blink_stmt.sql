-- heap_blink_stmt: heap_blink whose statement buffers flush at every
-- statement's end (blinkam.defer_inserts = statement), as before they were
-- held to the commit: with PIPE=10, ten flushes per transaction, not one.
-- pgoptions: -c blinkam.defer_inserts=statement
CREATE TABLE measure (
	sensor_id int NOT NULL,
	ts timestamp NOT NULL,
	value float8
);
CREATE UNIQUE INDEX measure_pkey ON measure USING blink (sensor_id, ts);
CREATE INDEX measure_ts ON measure USING blink (ts);
