-- heap_btree_deferrable: heap_btree whose primary key is DEFERRABLE
-- INITIALLY IMMEDIATE, checked at each statement's end as the SQL standard
-- says (btree still adds each row's entry at once, and rechecks a row
-- only when its insert met an equal key): the semantics of
-- heap_blink_ustmt.
CREATE TABLE measure (
	sensor_id int NOT NULL,
	ts timestamp NOT NULL,
	value float8,
	PRIMARY KEY (sensor_id, ts) DEFERRABLE INITIALLY IMMEDIATE
);
CREATE INDEX measure_ts ON measure USING btree (ts);
