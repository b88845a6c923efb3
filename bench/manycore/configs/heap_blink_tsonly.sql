-- heap_blink_tsonly: heap_blink with only its index on ts (every
-- insert lands on the right-most leaf), no unique index: see
-- heap_blink_pkeyonly.
CREATE TABLE measure (
	sensor_id int NOT NULL,
	ts timestamp NOT NULL,
	value float8
);
CREATE INDEX measure_ts ON measure USING blink (ts);
