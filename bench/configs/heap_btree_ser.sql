-- heap_btree_ser: heap_btree with every transaction SERIALIZABLE (blink then
-- neither buffers nor batches: its checks come when entries go in).
-- pgoptions: -c default_transaction_isolation=serializable
CREATE TABLE measure (
	sensor_id int NOT NULL,
	ts timestamp NOT NULL,
	value float8,
	PRIMARY KEY (sensor_id, ts)
);
CREATE INDEX measure_ts ON measure USING btree (ts);
