-- blinkheap_noindex_hot1: blinkheap_noindex with 1 shared hot insert pages
-- per table (blinkam.hot_insert_pages; the default, 0, is blinkheap_noindex:
-- each backend inserts into its own page).
-- pgoptions: -c blinkam.hot_insert_pages=1
CREATE TABLE measure (
	sensor_id int NOT NULL,
	ts timestamp NOT NULL,
	value float8
) USING blinkheap;
