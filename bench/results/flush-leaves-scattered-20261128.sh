#!/bin/bash
# Scattered-key rounds for bench/results/flush-leaves-2core-20261128.md:
# run against a cluster (socket /tmp/wd, port 5477, database pf) with
#   CREATE TABLE sk (k bigint); CREATE TABLE skb (k bigint);
#   1,000,000 random bigints in each; CREATE INDEX ON sk USING blink (k);
#   CREATE INDEX ON skb (k);  (autovacuum off for both)
# one round: flush_leaves $1, a fresh backend, 20000 random keys into sk (blink) or skb (btree)
q() { psql -h /tmp/wd -p 5477 -U postgres -d pf -qAt "$@"; }
run() {
  local tbl=$1 fl=$2
  q <<SQL
SELECT pg_current_wal_insert_lsn() AS l0, clock_timestamp() AS t0,
  (SELECT value FROM blinkam_stats() WHERE name='deferred_leaf_writes') AS w0,
  (SELECT value FROM blinkam_stats() WHERE name='flush_leaves_grouped') AS g0 \gset
BEGIN;
SET LOCAL blinkam.flush_leaves = $fl;
INSERT INTO $tbl SELECT (random() * 1e12)::bigint FROM generate_series(1, 20000);
COMMIT;
SELECT '$tbl fl=$fl', pg_wal_lsn_diff(pg_current_wal_insert_lsn(), :'l0') AS wal,
  round(extract(epoch from clock_timestamp() - :'t0')::numeric * 1000, 1) AS ms,
  (SELECT value FROM blinkam_stats() WHERE name='deferred_leaf_writes') - :w0 AS records,
  (SELECT value FROM blinkam_stats() WHERE name='flush_leaves_grouped') - :g0 AS grouped;
SQL
}
for r in 1 2 3 4 5; do
  run sk 1; run sk 4; run skb 4
  run sk 4; run sk 1; run skb 4
done
