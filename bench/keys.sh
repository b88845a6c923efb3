#!/usr/bin/env bash
# keys.sh — `make bench-keys`: btree against blink on single-column bigint
# keys, in one private cluster, side by side:
#
#   1. WAL bytes per inserted row written by the index (the WAL of an
#      INSERT into the indexed table minus that of the same INSERT into an
#      unindexed one), for growing and for random keys;
#   2. random-key insert TPS (pgbench, one row per transaction);
#   3. point-lookup TPS (pgbench, an index scan per transaction).
#
# Each measurement alternates btree and blink and is repeated; the report
# gives medians and blink/btree ratios.
#
# Settings: ROWS (rows per WAL run, 200000), PREFILL (rows before the TPS
# runs, 1000000), CLIENTS ("8 32"), DURATION (10 s), REPEAT (3).
# Output: bench/results/keys-STAMP.md (copied to keys-latest.md).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
ROWS=${ROWS:-200000}
PREFILL=${PREFILL:-1000000}
CLIENTS=${CLIENTS:-"8 32"}
DURATION=${DURATION:-10}
REPEAT=${REPEAT:-3}
JOBS=${JOBS:-$(nproc)}

# shellcheck source=bench/lib.sh
. "$here/lib.sh"
bench_start_cluster


# --- 1. WAL per row -------------------------------------------------------
psql_q <<'SQL'
CREATE FUNCTION wal_of(sql text) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE l0 pg_lsn;
BEGIN
	l0 := pg_current_wal_insert_lsn();
	EXECUTE sql;
	RETURN pg_wal_lsn_diff(pg_current_wal_insert_lsn(), l0);
END $$;
SQL

wal_run() {		# am, key expression -> index WAL bytes per row
	local am=$1 expr=$2
	psql_q -c "DROP TABLE IF EXISTS w_idx, w_heap" \
		-c "CREATE TABLE w_heap (k bigint)" \
		-c "CREATE TABLE w_idx (k bigint)" \
		-c "CREATE INDEX ON w_idx USING $am (k)" \
		-c "CHECKPOINT"
	psql_q -c "SELECT round((wal_of('INSERT INTO w_idx SELECT $expr FROM generate_series(1, $ROWS) g')
		- wal_of('INSERT INTO w_heap SELECT $expr FROM generate_series(1, $ROWS) g')) / $ROWS.0, 1)"
}

declare -A wal
for keys in growing random; do
	case $keys in
		growing) expr="g" ;;
		random) expr="(random() * 1e12)::bigint" ;;
	esac
	for am in btree blink; do wal[$keys.$am]=""; done
	for r in $(seq "$REPEAT"); do
		for am in btree blink; do
			v=$(wal_run "$am" "$expr")
			wal[$keys.$am]+="$v "
			say "WAL per row, $keys keys, $am, run $r: $v"
		done
	done
done

# --- 2 and 3. TPS ---------------------------------------------------------
cat >"$work/insert.sql" <<'SQL'
\set k random(1, 1000000000000)
INSERT INTO t (k, v) VALUES (:k, 0);
SQL
cat >"$work/lookup.sql" <<'SQL'
\set k random(1, 1000000)
SELECT v FROM t WHERE k = :k * 1000;
SQL
chown "$owner" "$work"/*.sql

prepare_table() {	# am: a fresh table of PREFILL rows (k = 1000 * i)
	psql_q -c "DROP TABLE IF EXISTS t" \
		-c "CREATE TABLE t (k bigint, v int)" \
		-c "INSERT INTO t SELECT g * 1000, 0 FROM generate_series(1, $PREFILL) g" \
		-c "CREATE INDEX t_k ON t USING $1 (k)" \
		-c "VACUUM ANALYZE t" -c "CHECKPOINT"
}

tps_run() {		# script, clients -> tps
	local clients=$2 jobs
	jobs=$((clients < JOBS ? clients : JOBS))
	as_owner "$bindir/pgbench" -U postgres -n -M prepared -c "$clients" -j "$jobs" \
		-T "$DURATION" -f "$work/$1" 2>&1 | awk '/^tps = / { printf "%.0f", $3 }'
}

declare -A tps
for clients in $CLIENTS; do
	for w in insert lookup; do
		for am in btree blink; do tps[$w.$clients.$am]=""; done
		for r in $(seq "$REPEAT"); do
			for am in btree blink; do
				prepare_table "$am"
				v=$(tps_run "$w.sql" "$clients")
				tps[$w.$clients.$am]+="$v "
				say "$w TPS, $clients clients, $am, run $r: $v"
			done
		done
	done
done

# --- report ---------------------------------------------------------------
stamp=$(date -u +%Y%m%dT%H%M%SZ)
md=$here/results/keys-$stamp.md
mkdir -p "$here/results"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf (b > 0 ? "%.2f" : "-"), a / b }'; }
{
	echo "btree vs blink on bigint keys, $stamp: $(nproc) cores, synchronous_commit = off,"
	echo "medians of $REPEAT alternating runs in one cluster."
	echo
	echo "| measurement | btree | blink | blink / btree |"
	echo "|---|---:|---:|---:|"
	for keys in growing random; do
		b=$(echo "${wal[$keys.btree]}" | tr ' ' '\n' | grep . | median)
		l=$(echo "${wal[$keys.blink]}" | tr ' ' '\n' | grep . | median)
		echo "| index WAL bytes per row, $keys keys ($ROWS rows) | $b | $l | $(ratio "$l" "$b") |"
	done
	for clients in $CLIENTS; do
		for w in insert lookup; do
			b=$(echo "${tps[$w.$clients.btree]}" | tr ' ' '\n' | grep . | median)
			l=$(echo "${tps[$w.$clients.blink]}" | tr ' ' '\n' | grep . | median)
			label=$([ "$w" = insert ] && echo "random-key insert TPS" || echo "point-lookup TPS (index scan)")
			echo "| $label, $clients clients, ${DURATION}s | $b | $l | $(ratio "$l" "$b") |"
		done
	done
} >"$md"
cp "$md" "$here/results/keys-latest.md"
cat "$md"
say "results: $md"
