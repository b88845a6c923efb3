-- heap_blink_wakeall: heap_blink with blinkam.batch_leave_to_holder off: a
-- release of a busy leaf wakes its first waiter even when another
-- inserter has taken the leaf again (the waiter then finds it taken and
-- sleeps again); compare with heap_blink in the same cluster.
-- pgoptions: -c blinkam.batch_leave_to_holder=off
CREATE TABLE measure (
	sensor_id int NOT NULL,
	ts timestamp NOT NULL,
	value float8
);
CREATE UNIQUE INDEX measure_pkey ON measure USING blink (sensor_id, ts);
CREATE INDEX measure_ts ON measure USING blink (ts);
