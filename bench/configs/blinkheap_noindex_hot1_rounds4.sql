-- blinkheap_noindex_hot1_rounds4: blinkheap_noindex_hot1 with
-- blinkam.batch_rounds = 4: the backend holding the shared hot page writes
-- up to three further records for the rows published while it held it.
-- pgoptions: -c blinkam.hot_insert_pages=1 -c blinkam.batch_rounds=4
CREATE TABLE measure (
	sensor_id int NOT NULL,
	ts timestamp NOT NULL,
	value float8
) USING blinkheap;
