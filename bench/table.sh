#!/usr/bin/env bash
# table.sh — `make bench-table`: blinkheap against heap as tables, in one
# private cluster, side by side:
#
#   1. WAL bytes per row and table bytes per row of the same 1 M rows
#      loaded by one INSERT ... SELECT, by COPY, and by ROUNDS
#      transactions of 10 rows each (the IoT pattern: many xids);
#   2. sequential scan time of those tables (count(*) and sum(value)),
#      alternating heap and blinkheap, REPEAT times each: with no other
#      transaction open, and with OPEN transactions holding xids (every
#      blinkheap visibility check asks the proc array and clog -- it sets
#      no hint bits -- so this is where it pays);
#   3. the same scans after VACUUM (heap has set its hint bits and
#      visibility map by then; blinkheap has frozen nothing yet but its
#      dead tuples are gone).
#
# Settings: ROWS (1000000), ROUNDS (20000 transactions for the IoT load),
# REPEAT (5), OPEN (250; the bench cluster allows 300 connections).
# Output: bench/results/table-STAMP.md (copied to table-latest.md).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
ROWS=${ROWS:-1000000}
ROUNDS=${ROUNDS:-20000}
REPEAT=${REPEAT:-5}
OPEN=${OPEN:-250}

# shellcheck source=bench/lib.sh
. "$here/lib.sh"
bench_start_cluster

psql_q <<'SQL'
CREATE FUNCTION wal_of(sql text) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE l0 pg_lsn;
BEGIN
	l0 := pg_current_wal_insert_lsn();
	EXECUTE sql;
	RETURN pg_wal_lsn_diff(pg_current_wal_insert_lsn(), l0);
END $$;
SQL
bench_create_scan_ms

declare -A res
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf (b > 0 ? "%.2f" : "-"), a / b }'; }

# --- 1. loads -------------------------------------------------------------
load() {	# am, how -> "wal_per_row table_bytes_per_row"
	local am=$1 how=$2 t=t_${1}_$2
	psql_q -c "DROP TABLE IF EXISTS $t" \
		-c "CREATE TABLE $t (sensor_id int, ts timestamp, value float8) USING $am
			WITH (autovacuum_enabled = off)" -c "CHECKPOINT"
	case $how in
		insert)
			psql_q -c "SELECT round(wal_of('INSERT INTO $t SELECT g % 1000, now(), g
				FROM generate_series(1, $ROWS) g') / $ROWS.0, 1)" ;;
		copy)
			psql_q -c "COPY (SELECT g % 1000, now(), g FROM generate_series(1, $ROWS) g)
				TO '$work/rows.copy'" >/dev/null
			chmod a+r "$work/rows.copy" 2>/dev/null || true
			psql_q -c "SELECT round(wal_of('COPY $t FROM ''$work/rows.copy''') / $ROWS.0, 1)" ;;
		iot)
			local l0 l1 per=$((ROWS / ROUNDS))
			l0=$(psql_q -c "SELECT pg_current_wal_insert_lsn()")
			echo "INSERT INTO $t SELECT :client_id * 100 + i, now(), random() FROM generate_series(1, $per) i;" \
				>"$work/iot-$am.sql"
			chmod a+r "$work/iot-$am.sql"
			as_owner "$bindir/pgbench" -U postgres -n -c 8 -j 2 -t $((ROUNDS / 8)) \
				-f "$work/iot-$am.sql" >/dev/null 2>&1
			l1=$(psql_q -c "SELECT pg_current_wal_insert_lsn()")
			psql_q -c "SELECT round(pg_wal_lsn_diff('$l1', '$l0') / greatest(count(*), 1), 1) FROM $t" ;;
	esac
}

for how in insert copy iot; do
	for am in heap blinkheap; do
		res[wal.$how.$am]=$(load "$am" "$how")
		res[size.$how.$am]=$(psql_q -c "SELECT round(pg_table_size('t_${am}_$how') / greatest(count(*), 1)::numeric, 1) FROM t_${am}_$how")
		say "$how $am: WAL ${res[wal.$how.$am]} B/row, table ${res[size.$how.$am]} B/row"
	done
done

# --- 2. and 3. scans --------------------------------------------------------
scan_series() {	# label
	local label=$1
	# dirty pages written out first, so that no flush runs beside the scans
	psql_q -c "CHECKPOINT"
	for how in insert iot; do
		for am in heap blinkheap; do res[scan.$label.$how.$am]=""; done
		for r in $(seq "$REPEAT"); do
			for am in heap blinkheap; do
				v=$(psql_q -c "SET max_parallel_workers_per_gather = 0" \
					-c "SELECT scan_ms('SELECT count(*), sum(value) FROM t_${am}_$how')")
				res[scan.$label.$how.$am]+="$v "
			done
		done
	done
}

# warm the caches once (heap sets its hint bits here)
for how in insert iot; do
	for am in heap blinkheap; do psql_q -c "SELECT count(*) FROM t_${am}_$how" >/dev/null; done
done
scan_series quiet

# OPEN sessions each holding an xid, for the duration of the scans
bench_open_xids "$OPEN"
scan_series open
bench_close_xids

for how in insert iot; do
	for am in heap blinkheap; do psql_q -c "VACUUM t_${am}_$how"; done
done
scan_series vacuumed

# --- report ---------------------------------------------------------------
stamp=$(date -u +%Y%m%dT%H%M%SZ)
md=$here/results/table-$stamp.md
mkdir -p "$here/results"
{
	echo "blinkheap vs heap as tables, $stamp: $(nproc) cores, synchronous_commit = off,"
	echo "$ROWS rows (sensor_id int, ts timestamp, value float8); scans: medians of"
	echo "$REPEAT alternating runs, count(*) and sum(value), no parallel workers."
	echo
	echo "| measurement | heap | blinkheap | blinkheap / heap |"
	echo "|---|---:|---:|---:|"
	for how in insert copy iot; do
		label=$(case $how in insert) echo "one INSERT ... SELECT" ;; copy) echo "COPY" ;;
			iot) echo "$ROUNDS transactions, 8 clients" ;; esac)
		echo "| WAL bytes per row, $label | ${res[wal.$how.heap]} | ${res[wal.$how.blinkheap]} | $(ratio "${res[wal.$how.blinkheap]}" "${res[wal.$how.heap]}") |"
		echo "| table bytes per row, $label | ${res[size.$how.heap]} | ${res[size.$how.blinkheap]} | $(ratio "${res[size.$how.blinkheap]}" "${res[size.$how.heap]}") |"
	done
	for label in quiet open vacuumed; do
		for how in insert iot; do
			h=$(echo "${res[scan.$label.$how.heap]}" | tr ' ' '\n' | grep . | median)
			b=$(echo "${res[scan.$label.$how.blinkheap]}" | tr ' ' '\n' | grep . | median)
			what=$(case $label in quiet) echo "no other transaction" ;;
				open) echo "$OPEN transactions holding xids" ;; vacuumed) echo "after VACUUM" ;; esac)
			src=$([ "$how" = insert ] && echo "rows of one transaction" || echo "rows of $ROUNDS transactions")
			echo "| seq scan ms, $src, $what | $h | $b | $(ratio "$b" "$h") |"
		done
	done
} >"$md"
cp "$md" "$here/results/table-latest.md"
cat "$md"
say "results: $md"
