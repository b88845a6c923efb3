-- blinkheap_noindex: a blinkheap table with no index, the table AM alone.
-- Compare with heap_noindex.
CREATE TABLE measure (
	sensor_id int NOT NULL,
	ts timestamp NOT NULL,
	value float8
) USING blinkheap;
