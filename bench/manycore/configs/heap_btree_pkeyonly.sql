-- heap_btree_pkeyonly: heap_btree with only its unique index on
-- (sensor_id, ts), no index on ts: with heap_btree_tsonly, shows which of
-- the two indexes holds a configuration back (the ts index's one hot
-- right-most leaf, or the unique index's record per row).
CREATE TABLE measure (
	sensor_id int NOT NULL,
	ts timestamp NOT NULL,
	value float8
);
CREATE UNIQUE INDEX measure_pkey ON measure USING btree (sensor_id, ts);
