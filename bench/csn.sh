#!/usr/bin/env bash
# csn.sh — `make bench-csn`: what open transactions cost a scan of recent
# rows, heap against blinkheap with and without commit sequence numbers,
# in one private cluster.
#
# OPEN sessions begin and take an xid; then WRITERS transactions (8
# clients) write ROWS rows into a heap and a blinkheap table, so every row's
# xid lies above a new snapshot's xmin: PostgreSQL must ask whether each
# one is in the snapshot's xid array (XidInMVCCSnapshot walks it), and
# blinkheap with blinkam.csn_snapshots on decides it by the writer's CSN.
# The scans (count(*) and sum(value), no parallel workers) alternate
# heap, blinkheap (CSNs on), blinkheap (CSNs off), REPEAT times each, in
# one session per set (so that no figure includes a new backend's page
# faults on shared buffers); then the open sessions end and the same scans
# run with no other transaction (every xid is then below xmin: the clog
# path).  heap's hint bits are set
# by a first scan before anything is timed.
#
# Settings: ROWS (1000000), WRITERS (2000 transactions), OPEN (300),
# REPEAT (7).  Output: bench/results/csn-STAMP.md (and csn-latest.md).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
ROWS=${ROWS:-1000000}
WRITERS=${WRITERS:-2000}
OPEN=${OPEN:-300}
REPEAT=${REPEAT:-7}
export BENCH_MAX_CONNECTIONS=$((OPEN + 50))

# shellcheck source=bench/lib.sh
. "$here/lib.sh"
bench_start_cluster

bench_create_scan_ms
psql_q <<'SQL'
CREATE TABLE t_heap (sensor_id int, ts timestamp, value float8)
	WITH (autovacuum_enabled = off);
CREATE TABLE t_blinkheap (sensor_id int, ts timestamp, value float8)
	USING blinkheap WITH (autovacuum_enabled = off);
SQL

bench_open_xids "$OPEN"

# the rows, by WRITERS transactions after the open ones began
per=$((ROWS / WRITERS))
echo "INSERT INTO t_heap SELECT i % 1000, now(), random() FROM generate_series(1, $per) i;
INSERT INTO t_blinkheap SELECT i % 1000, now(), random() FROM generate_series(1, $per) i;" \
	>"$work/write.sql"
chmod a+r "$work/write.sql"
as_owner "$bindir/pgbench" -U postgres -n -c 8 -j 2 -t $((WRITERS / 8)) \
	-f "$work/write.sql" >/dev/null 2>&1
psql_q -c "CHECKPOINT"
psql_q -c "SELECT count(*) FROM t_heap" >/dev/null	# heap's hint bits
psql_q -c "CHECKPOINT"

declare -A res
# label: REPEAT alternating rounds of the three variants, all in one
# session (as a pooled connection would run them: a new backend's first
# touch of each shared buffer costs a page fault, heap's and blinkheap's
# alike, which a session per scan would add to every figure)
scan() {
	local label=$1 variant
	for variant in heap csn nocsn; do res[$label.$variant]=""; done
	{
		echo "SET max_parallel_workers_per_gather = 0;"
		for r in $(seq "$REPEAT"); do
			echo "SET blinkam.csn_snapshots = on;"
			echo "SELECT 'heap', scan_ms('SELECT count(*), sum(value) FROM t_heap');"
			echo "SELECT 'csn', scan_ms('SELECT count(*), sum(value) FROM t_blinkheap');"
			echo "SET blinkam.csn_snapshots = off;"
			echo "SELECT 'nocsn', scan_ms('SELECT count(*), sum(value) FROM t_blinkheap');"
		done
	} >"$work/scan.sql"
	chmod a+r "$work/scan.sql"
	while IFS='|' read -r variant v; do
		res[$label.$variant]+="$v "
	done < <(psql_q -F '|' -f "$work/scan.sql" | grep '|')
}

psql_q -c "SELECT blinkam_reset_stats()" >/dev/null
scan open
fast=$(psql_q -c "SELECT value FROM blinkam_stats() WHERE name = 'csn_fast_checks'")
slow=$(psql_q -c "SELECT value FROM blinkam_stats() WHERE name = 'csn_slow_checks'")
bench_close_xids
scan none

# --- report ---------------------------------------------------------------
med() { echo "${res[$1]}" | tr ' ' '\n' | grep . | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf (b > 0 ? "%.2f" : "-"), a / b }'; }
stamp=$(date -u +%Y%m%dT%H%M%SZ)
md=$here/results/csn-$stamp.md
mkdir -p "$here/results"
{
	echo "Seq scan of $ROWS rows written by $WRITERS transactions, $stamp: $(nproc) cores;"
	echo "medians of $REPEAT alternating runs (ms), count(*) and sum(value), no parallel workers."
	echo "With $OPEN open transactions the rows' xids are all inside the snapshot's"
	echo "[xmin, xmax); with none they are all below xmin."
	echo
	echo "| open transactions | heap | blinkheap, CSNs on | blinkheap, CSNs off | on / heap | on / off |"
	echo "|---|---:|---:|---:|---:|---:|"
	for label in open none; do
		h=$(med "$label.heap"); c=$(med "$label.csn"); n=$(med "$label.nocsn")
		n_open=$([ "$label" = open ] && echo "$OPEN" || echo 0)
		echo "| $n_open | $h | $c | $n | $(ratio "$c" "$h") | $(ratio "$c" "$n") |"
	done
	echo
	echo "blinkheap with CSNs on, $OPEN open against none: $(ratio "$(med open.csn)" "$(med none.csn)")."
	echo "Counters over the scans with open transactions: csn_fast_checks $fast, csn_slow_checks $slow."
} >"$md"
cp "$md" "$here/results/csn-latest.md"
cat "$md"
say "results: $md"
