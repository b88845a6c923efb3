-- blinkheap_blink_hot16: blinkheap_blink with 16 shared hot insert pages per
-- table (blinkam.hot_insert_pages; the default, 0, is blinkheap_blink: each
-- backend inserts into its own page, and rows rarely batch).
-- pgoptions: -c blinkam.hot_insert_pages=16
CREATE TABLE measure (
	sensor_id int NOT NULL,
	ts timestamp NOT NULL,
	value float8
) USING blinkheap;
CREATE UNIQUE INDEX measure_pkey ON measure USING blink (sensor_id, ts);
CREATE INDEX measure_ts ON measure USING blink (ts);
