-- blinkheap_blink: a blinkheap table (generic WAL, heap-format pages,
-- CSN snapshots) with the same blink indexes as heap_blink: a unique blink index
-- on (sensor_id, ts) and a blink index on ts.  Compare with heap_btree.
CREATE TABLE measure (
	sensor_id int NOT NULL,
	ts timestamp NOT NULL,
	value float8
) USING blinkheap;
CREATE UNIQUE INDEX measure_pkey ON measure USING blink (sensor_id, ts);
CREATE INDEX measure_ts ON measure USING blink (ts);
