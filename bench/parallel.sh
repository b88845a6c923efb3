#!/usr/bin/env bash
# parallel.sh — `make bench-parallel`: a range aggregate through an index
# scan with 0, 2 and 4 parallel workers, btree against blink, in one
# private cluster.
#
# Two tables of ROWS rows (k = 1..ROWS in random order, v), one with a
# btree and one with a blink index on k; each query
#   SELECT sum(v) FROM t WHERE k BETWEEN ROWS/10 AND 9*ROWS/10
# is timed in the server, with plans forced to (parallel) index scans,
# alternating the two tables, REPEAT times per worker count.
#
# Settings: ROWS (10000000), WORKERS ("0 2 4"), REPEAT (5).
# Output: bench/results/parallel-STAMP.md (copied to parallel-latest.md).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
ROWS=${ROWS:-10000000}
WORKERS=${WORKERS:-"0 2 4"}
REPEAT=${REPEAT:-5}

# shellcheck source=bench/lib.sh
. "$here/lib.sh"
bench_start_cluster
bench_create_scan_ms

say "loading $ROWS rows twice"
psql_q -c "CREATE TABLE p_btree (k int, v int)" \
	-c "INSERT INTO p_btree SELECT i, i % 1000 FROM generate_series(1, $ROWS) i ORDER BY random()" \
	-c "CREATE TABLE p_blink AS SELECT * FROM p_btree" \
	-c "CREATE INDEX ON p_btree USING btree (k)" \
	-c "CREATE INDEX ON p_blink USING blink (k)" \
	-c "VACUUM ANALYZE p_btree" -c "VACUUM ANALYZE p_blink" -c "CHECKPOINT"

query() {		# table -> SQL
	echo "SELECT sum(v) FROM $1 WHERE k BETWEEN $((ROWS / 10)) AND $((ROWS / 10 * 9))"
}

one_run() {		# table, workers -> ms
	psql_q -c "SET max_parallel_workers_per_gather = $2" \
		-c "SET parallel_setup_cost = 0" -c "SET parallel_tuple_cost = 0" \
		-c "SET min_parallel_index_scan_size = 0" \
		-c "SET enable_seqscan = off" -c "SET enable_bitmapscan = off" \
		-c "SET enable_indexonlyscan = off" \
		-c "SELECT scan_ms('$(query "$1")')"
}

plan() {		# table, workers -> the scan node of the plan
	psql_q -c "SET max_parallel_workers_per_gather = $2" \
		-c "SET parallel_setup_cost = 0" -c "SET parallel_tuple_cost = 0" \
		-c "SET min_parallel_index_scan_size = 0" \
		-c "SET enable_seqscan = off" -c "SET enable_bitmapscan = off" \
		-c "SET enable_indexonlyscan = off" \
		-c "EXPLAIN (COSTS OFF) $(query "$1")" | grep -E 'Index Scan|Workers Planned' | sed 's/^ *//; s/->  //' | paste -sd ';'
}

declare -A ms
for w in $WORKERS; do
	for am in btree blink; do
		ms[$w.$am]=""
		say "plan, $w workers, $am: $(plan "p_$am" "$w")"
	done
	one_run p_btree "$w" >/dev/null
	one_run p_blink "$w" >/dev/null
	for r in $(seq "$REPEAT"); do
		for am in btree blink; do
			v=$(one_run "p_$am" "$w")
			ms[$w.$am]+="$v "
			say "$w workers, $am, run $r: $v ms"
		done
	done
done

med() { tr ' ' '\n' <<<"$1" | grep -v '^$' | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf (b > 0 ? "%.2f" : "-"), a / b }'; }
stamp=$(date -u +%Y%m%dT%H%M%SZ)
md=$here/results/parallel-$stamp.md
mkdir -p "$here/results"
{
	echo "Range aggregate over $((ROWS / 10 * 8)) of $ROWS rows through an index scan, $stamp:"
	echo "$(nproc) cores; medians of $REPEAT alternating runs (ms, in the server) in one cluster."
	echo
	echo "| workers | btree ms | blink ms | blink / btree |"
	echo "|---:|---:|---:|---:|"
	for w in $WORKERS; do
		b=$(med "${ms[$w.btree]}"); k=$(med "${ms[$w.blink]}")
		echo "| $w | $b | $k | $(ratio "$k" "$b") |"
	done
} >"$md"
cp "$md" "$here/results/parallel-latest.md"
cat "$md"
