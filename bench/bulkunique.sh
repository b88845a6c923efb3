#!/usr/bin/env bash
# bulkunique.sh — `make bench-bulk-unique`: one multi-row INSERT of ROWS
# rows into a table with a unique index, btree against blink, in one
# private cluster, alternated, REPEAT rounds.  Keys in order (a serial
# key: every row at the right edge) and in a scattered order (a
# permutation of 1..ROWS: rows all over the index, so blink's leaves grow
# unsorted tails that every unique check walks).  Measured: the INSERT's
# time in the server and the WAL it wrote (table and index), medians.
# The table is created and checkpointed before each INSERT.
#
# Settings: ROWS (1000000), REPEAT (3).
# Output: bench/results/bulkunique-STAMP.md (copied to bulkunique-latest.md).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
ROWS=${ROWS:-1000000}
REPEAT=${REPEAT:-3}

# shellcheck source=bench/lib.sh
. "$here/lib.sh"
bench_start_cluster
bench_create_scan_ms

configs="btree blink"
declare -A ms wal
for order in serial scattered; do
	if [ $order = serial ]; then
		keys="g"
	else
		keys="(g::bigint * 2654435761) % 1000000007"	# a bijection for g < 10^9
	fi
	for r in $(seq "$REPEAT"); do
		for cfg in $(rotate "$r" $configs); do
			psql_q -c "DROP TABLE IF EXISTS bu" -c "CREATE TABLE bu (k bigint, v text)" \
				-c "CREATE UNIQUE INDEX bu_k ON bu USING $cfg (k)" -c "CHECKPOINT"
			l0=$(psql_q -c "SELECT pg_current_wal_insert_lsn()")
			t=$(psql_q -c "SELECT scan_ms('INSERT INTO bu SELECT $keys, ''x'' FROM generate_series(1, $ROWS) g')")
			w=$(psql_q -c "SELECT round(pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '$l0') / 1e6, 1)")
			# blink_check raises an error on corruption: set -e stops the run
			if [ $cfg = blink ]; then
				psql_q -c "SELECT blink_check('bu_k', true)" >/dev/null
			fi
			ms[$order,$cfg]="${ms[$order,$cfg]:-} $t"
			wal[$order,$cfg]="${wal[$order,$cfg]:-} $w"
			say "$order $cfg round $r: $t ms, $w MB of WAL"
		done
	done
done

stamp=$(date -u +%Y%m%dT%H%M%SZ)
out="$here/results/bulkunique-$stamp.md"
{
	echo "Bulk INSERT into a unique index, $stamp: $(nproc) cores, $ROWS rows in one"
	echo "INSERT ... SELECT, medians of $REPEAT alternated rounds in one cluster"
	echo "(\`make bench-bulk-unique\`, bench/bulkunique.sh)."
	echo
	echo "| keys | index | INSERT ms | vs btree | WAL MB |"
	echo "|---|---|---:|---:|---:|"
	for order in serial scattered; do
		b=$(tr ' ' '\n' <<<"${ms[$order,btree]}" | grep . | median)
		for cfg in $configs; do
			m=$(tr ' ' '\n' <<<"${ms[$order,$cfg]}" | grep . | median)
			w=$(tr ' ' '\n' <<<"${wal[$order,$cfg]}" | grep . | median)
			printf '| %s | %s | %s | %.2f | %s |\n' "$order" "$cfg" "$m" "$(awk -v m="$m" -v b="$b" 'BEGIN { print m / b }')" "$w"
		done
	done
	echo
	echo "Every run (ms):"
	for order in serial scattered; do
		for cfg in $configs; do
			echo "- $order $cfg:${ms[$order,$cfg]}"
		done
	done
} >"$out"
cp "$out" "$here/results/bulkunique-latest.md"
cat "$out"
