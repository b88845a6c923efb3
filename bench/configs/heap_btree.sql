-- heap_btree: the baseline.  A heap table whose primary key is a btree on
-- (sensor_id, ts), and a btree on ts.
CREATE TABLE measure (
	sensor_id int NOT NULL,
	ts timestamp NOT NULL,
	value float8,
	PRIMARY KEY (sensor_id, ts)
);
CREATE INDEX measure_ts ON measure USING btree (ts);
