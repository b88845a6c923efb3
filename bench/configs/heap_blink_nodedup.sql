-- heap_blink_nodedup: heap_blink with deduplication off on the ts index
-- (ten equal time stamps per transaction), to measure what posting tuples
-- cost or bring on the insert path.
CREATE TABLE measure (
	sensor_id int NOT NULL,
	ts timestamp NOT NULL,
	value float8
);
CREATE UNIQUE INDEX measure_pkey ON measure USING blink (sensor_id, ts);
CREATE INDEX measure_ts ON measure USING blink (ts) WITH (deduplicate_items = off);
