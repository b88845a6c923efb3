-- heap_btree_tsonly: heap_btree with only its index on ts (every
-- insert lands on the right-most leaf), no unique index: see
-- heap_btree_pkeyonly.
CREATE TABLE measure (
	sensor_id int NOT NULL,
	ts timestamp NOT NULL,
	value float8
);
CREATE INDEX measure_ts ON measure USING btree (ts);
