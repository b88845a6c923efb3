-- heap_blink_lockwait: heap_blink whose batch waiters sleep on the page lock
-- (blinkam.batch_sleep = page_lock), not on their latches.
-- pgoptions: -c blinkam.batch_sleep=page_lock
CREATE TABLE measure (
	sensor_id int NOT NULL,
	ts timestamp NOT NULL,
	value float8
);
CREATE UNIQUE INDEX measure_pkey ON measure USING blink (sensor_id, ts);
CREATE INDEX measure_ts ON measure USING blink (ts);
