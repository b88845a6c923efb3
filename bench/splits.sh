#!/usr/bin/env bash
# splits.sh — `make bench-splits`: the concurrent-split workload of the
# InnoDB B-link seed, scaled to this machine.  A table of ROWS random
# bigint keys is indexed with fillfactor 100 (every leaf full), then
# CLIENTS clients insert random keys, so that inserts keep splitting
# pages.  Configurations, alternated in one private cluster and repeated:
#
#   btree             the baseline
#   blink             blink with page pools (the default)
#   blink_nopools     blink with blinkam.enable_pools = off for the clients
#
# Reports TPS, p95 and p99 latency (from pgbench's per-transaction logs),
# splits and pool counters, as medians of REPEAT runs.
# Settings: ROWS (2000000), CLIENTS (32), DURATION (10 s), REPEAT (3).
# Output: bench/results/splits-STAMP.md (copied to splits-latest.md).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
ROWS=${ROWS:-2000000}
CLIENTS=${CLIENTS:-32}
DURATION=${DURATION:-10}
REPEAT=${REPEAT:-3}
JOBS=${JOBS:-$(nproc)}

# shellcheck source=bench/lib.sh
. "$here/lib.sh"
bench_start_cluster


cat >"$work/insert.sql" <<'SQL'
\set k random(1, 9000000000000000000)
INSERT INTO s VALUES (:k);
SQL
chown "$owner" "$work/insert.sql"

declare -A res
configs="btree blink blink_nopools"
for r in $(seq "$REPEAT"); do
	for cfg in $configs; do
		am=${cfg%%_*}
		psql_q -c "DROP TABLE IF EXISTS s" -c "CREATE TABLE s (k bigint)" \
			-c "INSERT INTO s SELECT (random() * 9e18)::bigint FROM generate_series(1, $ROWS)" \
			-c "CREATE INDEX s_k ON s USING $am (k) WITH (fillfactor = 100)" \
			-c "VACUUM ANALYZE s" -c "CHECKPOINT" -c "SELECT blinkam_reset_stats()" >/dev/null
		dir=$work/run-$cfg-$r
		mkdir -p "$dir" && chown "$owner" "$dir"
		opts=""
		[ "$cfg" = blink_nopools ] && opts="-c blinkam.enable_pools=off"
		jobs=$((CLIENTS < JOBS ? CLIENTS : JOBS))
		(cd "$dir" && PGOPTIONS="$PGOPTIONS $opts" as_owner "$bindir/pgbench" -U postgres -n \
			-M prepared -c "$CLIENTS" -j "$jobs" -T "$DURATION" -f "$work/insert.sql" \
			-l --log-prefix="$dir/log") >"$dir/out" 2>&1 || { cat "$dir/out" >&2; exit 1; }
		tps=$(awk '/^tps = / { printf "%.0f", $3; exit }' "$dir/out")
		cat "$dir"/log.* | awk '{ print $3 }' | sort -n >"$dir/lat"
		p95=$(percentile "$dir/lat" 95)
		p99=$(percentile "$dir/lat" 99)
		counters=$(psql_q -F = -c "SELECT string_agg(name || '=' || value, ' ' ORDER BY name)
			FROM blinkam_stats() WHERE name IN ('splits', 'pool_pages_taken', 'pool_misses')")
		res[$cfg.tps]+="$tps "
		res[$cfg.p95]+="$p95 "
		res[$cfg.p99]+="$p99 "
		res[$cfg.counters]="$counters"
		say "$cfg run $r: tps $tps, p95 $p95 ms, p99 $p99 ms; $counters"
		rm -rf "$dir"
	done
done

stamp=$(date -u +%Y%m%dT%H%M%SZ)
md=$here/results/splits-$stamp.md
mkdir -p "$here/results"
{
	echo "Concurrent splits, $stamp: $ROWS random bigint keys indexed with fillfactor 100,"
	echo "then $CLIENTS clients inserting random keys for ${DURATION}s; $(nproc) cores,"
	echo "synchronous_commit = off; medians of $REPEAT alternating runs in one cluster."
	echo
	echo "| configuration | TPS | vs btree | p95 ms | p99 ms | counters (last run) |"
	echo "|---|---:|---:|---:|---:|---|"
	base=$(echo "${res[btree.tps]}" | tr ' ' '\n' | grep . | median)
	for cfg in $configs; do
		tps=$(echo "${res[$cfg.tps]}" | tr ' ' '\n' | grep . | median)
		p95=$(echo "${res[$cfg.p95]}" | tr ' ' '\n' | grep . | median)
		p99=$(echo "${res[$cfg.p99]}" | tr ' ' '\n' | grep . | median)
		ratio=$(awk -v a="$tps" -v b="$base" 'BEGIN { printf "%.2f", a / b }')
		echo "| $cfg | $tps | $ratio | $p95 | $p99 | ${res[$cfg.counters]:-} |"
	done
} >"$md"
cp "$md" "$here/results/splits-latest.md"
cat "$md"
say "results: $md"
