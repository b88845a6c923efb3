-- heap_noindex: the same table with no index at all.  Not a competitor: it
-- shows the ceiling the table and the machine set (the heap's hot last
-- page, relation extension, WAL, the server's own per-transaction work),
-- which no index method can exceed.
CREATE TABLE measure (
	sensor_id int NOT NULL,
	ts timestamp NOT NULL,
	value float8
);
