-- heap_blink_ustmt: heap_blink whose unique index checks a statement's
-- rows at the statement's end (unique_check = statement): its entries are
-- buffered and added a leaf at a time, one WAL record per leaf instead of
-- one per row.  The semantics of a DEFERRABLE INITIALLY IMMEDIATE unique
-- constraint: compare with heap_btree_deferrable as well as heap_btree.
CREATE TABLE measure (
	sensor_id int NOT NULL,
	ts timestamp NOT NULL,
	value float8
);
CREATE UNIQUE INDEX measure_pkey ON measure USING blink (sensor_id, ts)
	WITH (unique_check = statement);
CREATE INDEX measure_ts ON measure USING blink (ts);
