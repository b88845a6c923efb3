-- heap_blink: a heap table with blink indexes.  PostgreSQL 15 builds
-- PRIMARY KEY constraints with btree only, so the key is a unique blink
-- index instead of a constraint.
CREATE TABLE measure (
	sensor_id int NOT NULL,
	ts timestamp NOT NULL,
	value float8
);
CREATE UNIQUE INDEX measure_pkey ON measure USING blink (sensor_id, ts);
CREATE INDEX measure_ts ON measure USING blink (ts);
