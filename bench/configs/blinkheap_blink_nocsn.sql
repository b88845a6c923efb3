-- blinkheap_blink_nocsn: blinkheap_blink with blinkam.csn_snapshots off
-- (no commit sequence numbers: committing writers take no CSN, MVCC
-- checks search the snapshot's xid array and clog).  Against
-- blinkheap_blink it shows what CSNs cost the insert path.
-- pgoptions: -c blinkam.csn_snapshots=off
CREATE TABLE measure (
	sensor_id int NOT NULL,
	ts timestamp NOT NULL,
	value float8
) USING blinkheap;
CREATE UNIQUE INDEX measure_pkey ON measure USING blink (sensor_id, ts);
CREATE INDEX measure_ts ON measure USING blink (ts);
