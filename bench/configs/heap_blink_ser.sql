-- heap_blink_ser: heap_blink with every transaction SERIALIZABLE (blink then
-- neither buffers nor batches: its checks come when entries go in).
-- pgoptions: -c default_transaction_isolation=serializable
CREATE TABLE measure (
	sensor_id int NOT NULL,
	ts timestamp NOT NULL,
	value float8
);
CREATE UNIQUE INDEX measure_pkey ON measure USING blink (sensor_id, ts);
CREATE INDEX measure_ts ON measure USING blink (ts);
