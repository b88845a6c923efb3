-- heap_blink_futex: heap_blink whose batch waiters sleep on their latches'
-- flag words (blinkam.batch_sleep = futex), woken by one futex call each.
-- pgoptions: -c blinkam.batch_sleep=futex
CREATE TABLE measure (
	sensor_id int NOT NULL,
	ts timestamp NOT NULL,
	value float8
);
CREATE UNIQUE INDEX measure_pkey ON measure USING blink (sensor_id, ts);
CREATE INDEX measure_ts ON measure USING blink (ts);
