#!/usr/bin/env bash
# run.sh — `make bench`: the IoT insert benchmark on a private cluster.
#
# As root on a fresh Debian machine: installs what is missing (PostgreSQL
# 15, its server headers, gnuplot), builds and installs blinkam, starts a
# temporary cluster as the postgres user (initdb in a temp directory,
# blinkam preloaded, synchronous_commit = off), runs the workload for each
# client count and each configuration in turn, and stops the cluster.
# As another user it skips the installs and runs the cluster as itself.
#
# Settings (environment variables):
#   CLIENTS    client counts to sweep        (default "1 8 32 64 128 256")
#   DURATION   seconds per run               (default 10)
#   CONFIGS    configurations, from bench/configs/NAME.sql
#                                            (default: every file there; a
#                                            line "-- pgoptions: ..." in one
#                                            sets its clients' options)
#   JOBS       pgbench threads at most       (default: number of cores)
#   PIPE       IoT statements per transaction, sent in one pipeline
#                                            (default 1: one statement per
#                                            round trip).  With PIPE=10 each
#                                            transaction writes 100 rows in
#                                            one round trip, so the server's
#                                            own work shows where the round
#                                            trip would cap the plain run.
#   CHECKPOINT_EVERY  seconds between CHECKPOINTs issued during each run
#                                            (default: none).  Checkpoints write
#                                            the hot pages while clients wait
#                                            for them (src/README, "Share holders").
#   PERF=1     also `perf record -a -g` each run (needs perf)
#   WALKINDS=1 also read each run's WAL with pg_waldump: bytes per row by
#              resource manager, relation and kind of record (a letter
#              per page: d a delta, F a full page image), into
#              bench/results/iot-STAMP-wal.txt
#
# Output: bench/results/iot-STAMP.{csv,md,png} (copied to iot-latest.*)
# and the markdown table on standard output.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
CLIENTS=${CLIENTS:-"1 8 32 64 128 256"}
DURATION=${DURATION:-10}
JOBS=${JOBS:-$(nproc)}
PIPE=${PIPE:-1}
case $PIPE in '' | *[!0-9]* | 0) echo "bench: PIPE must be a positive integer" >&2; exit 2 ;; esac
if [ -z "${CONFIGS:-}" ]; then
	CONFIGS=$(for f in "$here"/configs/*.sql; do basename "$f" .sql; done | sort)
fi
for c in $CONFIGS; do
	[ -f "$here/configs/$c.sql" ] || { echo "bench: no configuration $c" >&2; exit 2; }
done

# --- install, build, private cluster --------------------------------------
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
bench_start_cluster gnuplot-nox $([ "${PERF:-0}" = 1 ] && echo linux-perf)

# The wait-event sampler: once per 50 ms, the wait event of every pgbench
# backend that is running a statement ('CPU' when it waits for nothing;
# backends idle between transactions, waiting for pgbench, are left out)
# into a temporary table, so the sampling itself writes no WAL.  COMMIT
# refreshes pg_stat_activity.
psql_q <<'SQL'
CREATE PROCEDURE bench_sample_waits(seconds float8)
LANGUAGE plpgsql AS $$
DECLARE
	stop_at timestamptz := clock_timestamp() + seconds * interval '1 second';
BEGIN
	WHILE clock_timestamp() < stop_at LOOP
		INSERT INTO bench_waits
		SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU')
		  FROM pg_stat_activity
		 WHERE application_name = 'pgbench' AND state = 'active';
		COMMIT;
		PERFORM pg_sleep(0.05);
	END LOOP;
END $$;
SQL
say "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; clients: $CLIENTS; ${DURATION}s per run; statements per transaction: $PIPE; configurations: $(echo $CONFIGS)"

# The workload file: bench/iot.sql, or PIPE copies of it in one pipeline
# (one transaction).  Each copy's time stamp is a microsecond later, so
# (sensor_id, ts) stays unique within the transaction.
script=$work/iot.sql
if [ "$PIPE" -gt 1 ]; then
	{
		echo '\startpipeline'
		for i in $(seq 1 "$PIPE"); do
			sed "s/current_timestamp/current_timestamp + interval '$i microseconds'/" "$here/iot.sql"
			echo
		done
		echo '\endpipeline'
	} >"$script"
else
	cp "$here/iot.sql" "$script"
fi
chown "$owner" "$script"

# --- runs -----------------------------------------------------------------
stamp=$(date -u +%Y%m%dT%H%M%SZ)
results=$here/results
mkdir -p "$results"
csv=$results/iot-$stamp.csv
echo "config,clients,tps,p50_ms,p95_ms,p99_ms,rows,wal_bytes_per_row,table_mb,index_mb,avg_batch,top_waits,batch_waits,cpu_us_per_xact" >"$csv"

# The machine's busy CPU time (user, nice, system, irq, softirq), in
# clock ticks, from /proc/stat.
cpu_busy() {
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8; exit }' /proc/stat
}

# In the background during a run: the machine's busy ticks between 3 s
# after the start (the clients are connected) and 1 s before the end,
# written with the window's bounds (epoch seconds) to $1/cpu.
cpu_window() {
	local a b t0 t1
	[ "$DURATION" -ge 6 ] || return 0
	sleep 3
	t0=$(date +%s.%N); a=$(cpu_busy)
	sleep $((DURATION - 4))
	b=$(cpu_busy); t1=$(date +%s.%N)
	echo "$t0 $t1 $((b - a))" >"$1/cpu"
}

# Machine CPU per transaction over that window: its busy time over the
# transactions that ended inside it (pgbench's log: epoch seconds and
# microseconds in fields 5 and 6); "-" if there was no window.
cpu_per_xact() {
	local dir=$1 t0 t1 ticks
	[ -s "$dir/cpu" ] || { echo -; return; }
	read -r t0 t1 ticks <"$dir/cpu"
	cat "$dir"/log.* | awk -v t0="$t0" -v t1="$t1" -v us=$((ticks * 1000000 / $(getconf CLK_TCK))) '
		{ t = $5 + $6 / 1e6; if (t >= t0 && t < t1) n++ }
		END { if (n > 0) printf "%.0f", us / n; else print "-" }'
}

run_one() {
	local config=$1 clients=$2 jobs dir lsn0 lsn1 tps rows waits
	jobs=$((clients < JOBS ? clients : JOBS))
	dir=$work/run-$config-$clients
	mkdir -p "$dir" && chown "$owner" "$dir"

	psql_q -c "DROP TABLE IF EXISTS measure" -f "$here/configs/$config.sql" -c "CHECKPOINT" \
		-c "SELECT blinkam_reset_stats()" >/dev/null
	lsn0=$(psql_q -c "SELECT pg_current_wal_insert_lsn()")

	as_owner "$bindir/psql" -U postgres -X -q -At -v ON_ERROR_STOP=1 \
		-c "CREATE TEMP TABLE bench_waits (w text)" \
		-c "CALL bench_sample_waits($DURATION)" \
		-c "SELECT string_agg(w || ' ' || round(100.0 * n / total) || '%', '; ' ORDER BY n DESC)
			  FROM (SELECT w, count(*) AS n, sum(count(*)) OVER () AS total
					  FROM bench_waits GROUP BY w ORDER BY n DESC LIMIT 3) s" \
		>"$dir/waits" 2>&1 &
	local sampler=$!
	local ckpt=
	if [ -n "${CHECKPOINT_EVERY:-}" ]; then
		(
			end=$((SECONDS + DURATION))
			while [ $SECONDS -lt $end ]; do
				psql_q -c CHECKPOINT >/dev/null 2>&1 || true
				sleep "$CHECKPOINT_EVERY"
			done
		) &
		ckpt=$!
	fi
	cpu_window "$dir" &
	local cpuw=$!
	local pstat=
	if [ -n "${PERFSTAT:-}" ]; then
		perf stat -a -x, -e "$PERFSTAT" -o "$dir/perfstat" -- sleep "$DURATION" >/dev/null 2>&1 &
		pstat=$!
	fi
	local perf=
	if [ "${PERF:-0}" = 1 ]; then
		perf record -a -g -o "$results/perf-$stamp-$config-$clients.data" \
			-- sleep "$DURATION" >/dev/null 2>&1 &
		perf=$!
	fi

	# A configuration may set session options for its clients with a line
	# "-- pgoptions: ..." (for instance to turn batching off).
	local opts
	opts=$(sed -n 's/^-- pgoptions: //p' "$here/configs/$config.sql")
	(cd "$dir" && PGOPTIONS="$PGOPTIONS $opts" as_owner "$bindir/pgbench" -U postgres -n -M prepared \
		-c "$clients" -j "$jobs" -T "$DURATION" -f "$script" \
		-l --log-prefix="$dir/log") >"$dir/pgbench.out" 2>&1 ||
		{ cat "$dir/pgbench.out" >&2; exit 1; }
	wait "$sampler" || true
	wait "$cpuw" || true
	[ -n "$perf" ] && { wait "$perf" || true; }
	[ -n "$pstat" ] && { wait "$pstat" || true; }
	[ -n "$ckpt" ] && { wait "$ckpt" || true; }

	lsn1=$(psql_q -c "SELECT pg_current_wal_insert_lsn()")
	rows=$(psql_q -c "SELECT count(*) FROM measure")
	[ "${WALKINDS:-0}" = 1 ] && wal_kinds "$config" "$clients" "$lsn0" "$lsn1" "$rows"
	tps=$(awk '/^tps = / { printf "%.0f", $3; exit }' "$dir/pgbench.out")
	cat "$dir"/log.* | awk '{ print $3 }' | sort -n >"$dir/lat"
	[ -n "$pstat" ] && perfstat_per_xact "$config" "$clients" "$dir"
	waits=$(tr -d '\n,' <"$dir/waits")
	psql_q -F , -c "SELECT '$config', $clients, $tps,
			'$(percentile "$dir/lat" 50)', '$(percentile "$dir/lat" 95)',
			'$(percentile "$dir/lat" 99)', $rows,
			round(pg_wal_lsn_diff('$lsn1', '$lsn0') / greatest($rows, 1)),
			round(pg_table_size('measure') / 1048576.0, 1),
			round(pg_indexes_size('measure') / 1048576.0, 1),
			(SELECT CASE WHEN b.value > 0
					THEN round((bi.value + b.value)::numeric / b.value, 2)::text ELSE '-' END
			   FROM blinkam_stats() b, blinkam_stats() bi
			  WHERE b.name = 'batches' AND bi.name = 'batched_inserts'),
			'$waits',
			(SELECT CASE WHEN sp.value + sl.value > 0
					THEN 'runs ' || ru.value || ' (' || pa.value || ' cut) spun ' ||
						round(100.0 * sp.value / (sp.value + sl.value)) || '% of '
						|| sp.value + sl.value || ' ('
						|| CASE WHEN sl.value > 0 THEN round(wk.value::numeric / sl.value, 2)::text
							ELSE '-' END || ' sleeps each that slept; woken to a busy page '
						|| wb.value || ') timeouts ' || ti.value || ' (lost '
						|| lo.value || ') share waits '
						|| coalesce((SELECT value FROM blinkam_stats()
									  WHERE name = 'batch_share_waits')::text, '-')
					ELSE '-' END
			   FROM blinkam_stats() ru, blinkam_stats() pa, blinkam_stats() sp,
					blinkam_stats() sl, blinkam_stats() ti, blinkam_stats() lo,
					blinkam_stats() wk, blinkam_stats() wb
			  WHERE ru.name = 'batched_runs' AND pa.name = 'batch_partial'
				AND sp.name = 'batch_spins' AND sl.name = 'batch_sleeps'
				AND wk.name = 'batch_wakeups' AND wb.name = 'batch_woken_busy'
				AND ti.name = 'batch_wait_timeouts' AND lo.name = 'batch_lost_wakeups'),
			'$(cpu_per_xact "$dir")'" >>"$csv"
	say "$(tail -1 "$csv")"
	rm -rf "$dir"
}

# PERFSTAT=events: the counts of perf stat -a over one run (config,
# clients, run dir), per transaction of the run (a line each in the run's
# sorted latencies, lat), appended to iot-STAMP-perfstat.txt.
perfstat_per_xact() {
	local xacts
	xacts=$(wc -l <"$3/lat")
	awk -F, -v c="$1" -v n="$2" -v x="$xacts" '
		BEGIN { printf "== %s, %s clients: %d transactions\n", c, n, x }
		/^[0-9]/ { printf "%12.2f per transaction  %s\n", $1 / (x > 0 ? x : 1), $3 }' \
		"$3/perfstat" >>"$results/iot-$stamp-perfstat.txt"
}

# WALKINDS=1: the WAL of one run (config, clients, from, to, rows) by kind
# of record, appended to iot-STAMP-wal.txt, once the WAL writer has
# flushed it (synchronous_commit is off; a CHECKPOINT would also recycle
# the segments pg_waldump is to read).
wal_kinds() {
	local out=$results/iot-$stamp-wal.txt names
	until [ "$(psql_q -c "SELECT pg_current_wal_flush_lsn() >= '$4'")" = t ]; do
		sleep 0.2
	done
	names=$(psql_q -c "SELECT string_agg(pg_relation_filenode(oid) || '=' || relname, ' ')
						 FROM pg_class WHERE relname LIKE 'measure%'")
	{
		echo "== $1, $2 clients: $5 rows"
		as_owner "$bindir/pg_waldump" -p "$work/data/pg_wal" -b -s "$3" -e "$4" |
			awk -v names="$names" -v rows="$5" '
			BEGIN { n = split(names, a, " "); for (i = 1; i <= n; i++) { split(a[i], p, "="); name[p[1]] = p[2] } }
			function done() { if (k != "") { cnt[k ":" pat]++; sz[k ":" pat] += tot; all += tot } k = ""; pat = "" }
			/^rmgr:/ { done(); rm = $2; t = $0; sub(/.*rec\/tot\): *[0-9]+\/ */, "", t); sub(/,.*/, "", t); tot = t + 0; k = rm; next }
			/blkref #/ { t = $0; sub(/.* rel [0-9]+\/[0-9]+\//, "", t); sub(/ .*/, "", t)
						 if (pat == "") k = k " " (t in name ? name[t] : "rel " t)
						 pat = pat ($0 ~ /\(FPW\)/ ? "F" : "d") }
			END { done(); for (x in cnt) if (sz[x] / rows >= 0.05) printf "%8.1f bytes/row %5.1f%% %9d records  %s\n", sz[x] / rows, 100 * sz[x] / all, cnt[x], x; else rest += sz[x]
				  printf "%8.1f bytes/row in all (%.1f in kinds of records below 0.05 each)\n", all / rows, rest / rows }' |
			sort -rn
	} >>"$out"
}

# The configurations run in turn at each client count, and their order
# moves on by one from one client count to the next (rotate, lib.sh): on 2 cores a
# configuration run later at the same client count gained a few per cent
# over one run before it (bench/results/batch-sleep-2core-20261127.md).
rotation=0
for clients in $CLIENTS; do
	for config in $(rotate "$rotation" $CONFIGS); do
		run_one "$config" "$clients"
	done
	rotation=$((rotation + 1))
done

# --- report ---------------------------------------------------------------
md=$results/iot-$stamp.md
png=$results/iot-$stamp.png
{
	echo "IoT insert benchmark, $stamp: $(nproc) cores, synchronous_commit = off,"
	echo "${DURATION}s per run, configurations run alternately in one cluster (their order"
	echo "moving on by one at each client count),"
	echo "$PIPE IoT statement(s) of 10 rows per transaction (PIPE; more than one: sent"
	echo "in one pipeline)."
	echo "TPS ratio: against heap_btree at the same client count.  avg batch: index"
	echo "tuples per blink leaf insert record that took waiters' tuples (own + batched)."
	echo "batch waits: statement-buffer runs that holders took (and how many of them"
	echo "only in part); the share of waits for a batch answered while spinning,"
	echo "of all waits that spun or slept (and the sleeps per wait that slept, and"
	echo "the wake-ups to take a page that found it taken again);"
	echo "waits that slept to their 100 ms timeout"
	echo "(lost: of those, the ones that found the page free and nobody woken);"
	echo "short sleeps of waiters whose page was held in share mode (PostgreSQL writing it out)."
	echo "CPU µs/xact: the machine's busy CPU time (server and clients) per transaction,"
	echo "from 3 s after a run's start to 1 s before its end (runs of 6 s or more)."
	[ -n "${CHECKPOINT_EVERY:-}" ] && echo "A CHECKPOINT every ${CHECKPOINT_EVERY}s during each run."
	echo
	echo "| config | clients | TPS | vs heap_btree | CPU µs/xact | p50 ms | p95 ms | p99 ms | WAL B/row | table MB | indexes MB | avg batch | batch waits | top wait events |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"
	awk -F, 'NR > 1 { row[NR] = $0; if ($1 == "heap_btree") base[$2] = $3 }
		END {
			for (i = 2; i <= NR; i++) {
				split(row[i], f, ",")
				ratio = (f[2] in base && base[f[2]] > 0) ? sprintf("%.2f", f[3] / base[f[2]]) : "-"
				printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
					f[1], f[2], f[3], ratio, f[14], f[4], f[5], f[6], f[8], f[9], f[10], f[11], f[13], f[12]
			}
		}' "$csv"
} >"$md"

xtics=$(echo $CLIENTS | sed 's/ /, /g')
plot_cmds="set terminal png noenhanced size 900,560; set output '$png';
set title 'IoT inserts: TPS by client count ($(nproc) cores, synchronous_commit=off)';
set xlabel 'clients'; set ylabel 'transactions per second ($((10 * PIPE)) rows each)';
set logscale x 2; set xtics ($xtics); set grid; set key top left; set yrange [0:*]; set datafile separator ',';"
plots=
for config in $CONFIGS; do
	awk -F, -v c="$config" 'NR > 1 && $1 == c { print $2 "," $3 }' "$csv" >"$work/$config.dat"
	plots="${plots:+$plots, }'$work/$config.dat' using 1:2 with linespoints lw 2 title '$config'"
done
gnuplot -e "$plot_cmds plot $plots"

for f in csv md png; do cp "$results/iot-$stamp.$f" "$results/iot-latest.$f"; done
cat "$md"
say "results: $csv, $md, $png"
