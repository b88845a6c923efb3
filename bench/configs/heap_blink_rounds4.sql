-- heap_blink_rounds4: heap_blink with blinkam.batch_rounds = 4 for the
-- benchmark's clients: a backend holding a busy leaf writes up to three
-- further records for the inserts published while it held it, instead of
-- letting the leaf go to the next waiter.
-- pgoptions: -c blinkam.batch_rounds=4
CREATE TABLE measure (
	sensor_id int NOT NULL,
	ts timestamp NOT NULL,
	value float8
);
CREATE UNIQUE INDEX measure_pkey ON measure USING blink (sensor_id, ts);
CREATE INDEX measure_ts ON measure USING blink (ts);
