#!/bin/bash
# iot.sh: the IoT insert sweep on a many-core machine that has no
# PostgreSQL package and reaches no package registry -- the shared kit's
# iot-manycore.sh, with wait events sampled for the whole of each run,
# blinkam counters printed at the client counts in STATS_AT for every
# configuration, and outputs named by TAG.  Runs the project's
# bench/configs/NAME.sql (or bench/manycore/configs/NAME.sql, the
# diagnostic ones, or .dev/configs/NAME.sql) and bench/iot.sql side
# by side in one private cluster, alternating configurations at each client
# count, their order moved on by one from one client count (and round) to
# the next (a configuration run later at a client count gains a few per
# cent on 2 cores: bench/results/batch-sleep-2core-20261127.md).  As root
# in the project checkout, after
#   mkdir -p .dev && cp ../shared/manycore/* bench/manycore/*.sh .dev/
# (on the developer's machine; .dev travels with the device call):
#   TAG=plain CLIENTS="1 16 128" CONFIGS="heap_btree heap_blink" bash .dev/iot.sh
# Writes $TAG.csv (a row per run: TPS, latency, WAL bytes per row, idle
# CPU and the machine's context switches per transaction from vmstat, wait
# events, counters) and $TAG-summary.txt (TPS and ratios to heap_btree) to
# $OUT (default /tmp/out).  CKPT=S issues a CHECKPOINT every S seconds
# during each run (PostgreSQL then writes the hot pages while clients wait
# for them).  JOBS sets pgbench's threads (default 16, at most one per
# client): heap with no index waits on the client from 128 clients on with
# 16 threads (bench/results/manycore-20261126c.md).
set -u
D=$(pwd)/.dev
. "$(pwd)/bench/lib.sh"	# rotate
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
CLIENTS=${CLIENTS:-"1 8 32 64 128 256 512"}
CONFIGS=${CONFIGS:-"heap_btree heap_blink heap_noindex"}
DUR=${DUR:-8}
PIPE=${PIPE:-1}
ROUNDS=${ROUNDS:-1}
EXTRA_CONF=${EXTRA_CONF:-}
log() { echo "[$(date +%T)] $*"; }
log "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -r)"
[ -x /tmp/pg/bin/postgres ] && [ -f /tmp/pg/lib/postgresql/blinkam.so ] || . "$D/setup.sh" || exit 1
PGB=/tmp/pg/bin
as() { runuser -u bench -- "$@"; }
W=/tmp/w; [ -f $W/data/postmaster.pid ] && as $PGB/pg_ctl -D $W/data -m immediate -w stop >/dev/null 2>&1; rm -rf $W; mkdir -p $W; chown bench $W
as $PGB/initdb -D $W/data -A trust -U postgres >/dev/null || exit 1
cat >>$W/data/postgresql.conf <<CONF
listen_addresses = ''
unix_socket_directories = '$W'
port = 5499
shared_preload_libraries = 'blinkam'
synchronous_commit = off
max_connections = 700
shared_buffers = 8GB
max_wal_size = 32GB
min_wal_size = 4GB
checkpoint_timeout = 30min
$EXTRA_CONF
CONF
as $PGB/pg_ctl -D $W/data -l $W/server.log -w start >/dev/null || { tail $W/server.log; exit 1; }
export PGHOST=$W PGPORT=5499 PGUSER=postgres
q() { as $PGB/psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
q -d postgres -c "CREATE DATABASE bench" && q -d bench -c "CREATE EXTENSION blinkam" || exit 1
if [ "${PIPE:-1}" -gt 1 ]; then
	# PIPE statements of the IoT insert sent in one round trip (one transaction),
	# so that the client/server round trip does not cap the server's work
	{ echo '\startpipeline'; for i in $(seq 1 "$PIPE"); do sed "s/current_timestamp/current_timestamp + interval '$i microseconds'/" /tmp/proj/bench/iot.sql; echo; done; echo '\endpipeline'; } >$W/iot.sql
else
	cp /tmp/proj/bench/iot.sql $W/iot.sql
fi
chown bench $W/iot.sql
TAG=${TAG:-iot}
csv=$OUT/$TAG.csv
STATS_AT=${STATS_AT:-"128 512"}
echo "round,config,clients,tps,lat_ms,wal_b_row,idle_pct,cs_xact,rows,waits,stats" >"$csv"
rotation=0
for r in $(seq 1 "$ROUNDS"); do
for c in $CLIENTS; do
	for cfg in $(rotate "$rotation" $CONFIGS); do
		f=/tmp/proj/bench/configs/$cfg.sql
		[ -f "$f" ] || f=/tmp/proj/bench/manycore/configs/$cfg.sql
		[ -f "$f" ] || f=$D/configs/$cfg.sql
		q -d bench -c "DROP TABLE IF EXISTS measure" -f "$f" -c "CHECKPOINT" -c "SELECT blinkam_reset_stats()" >/dev/null || { log "schema $cfg failed"; continue; }
		opts=$(sed -n 's/^-- pgoptions: //p' "$f")
		l0=$(q -d bench -c "SELECT pg_current_wal_insert_lsn()")
		j=$(( c < ${JOBS:-16} ? c : ${JOBS:-16} ))
		rm -f $W/done
		(sleep 2; while [ ! -f $W/done ]; do q -d bench -c "SELECT coalesce(wait_event_type||':'||wait_event,'CPU') FROM pg_stat_activity WHERE application_name='pgbench' AND state='active'"; sleep 0.1; done) >$W/waits 2>/dev/null &
		sp=$!
		vmstat 1 $((DUR - 1)) >$W/vmstat 2>/dev/null &
		vp=$!
		cp=
		if [ -n "${CKPT:-}" ]; then
			(while [ ! -f $W/done ]; do q -d bench -c CHECKPOINT >/dev/null 2>&1; sleep "$CKPT"; done) &
			cp=$!
		fi
		res=$(cd $W && PGOPTIONS="-c client_min_messages=warning $opts" as $PGB/pgbench -d bench -n -M prepared -c "$c" -j "$j" -T "$DUR" -f $W/iot.sql 2>&1)
		touch $W/done
		wait $sp $vp $cp 2>/dev/null
		tps=$(awk '/^tps = / {printf "%.0f", $3; exit}' <<<"$res")
		lat=$(awk '/^latency average/ {print $4; exit}' <<<"$res")
		l1=$(q -d bench -c "SELECT pg_current_wal_insert_lsn()")
		rows=$(q -d bench -c "SELECT count(*) FROM measure")
		wal=$(q -d bench -c "SELECT round(pg_wal_lsn_diff('$l1','$l0') / greatest($rows,1))")
		idle=$(awk 'NR > 3 {s += $15; n++} END {if (n) printf "%.0f", s / n}' $W/vmstat)
		# context switches of the whole machine per transaction (vmstat's cs)
		csx=$(awk -v t="${tps:-0}" 'NR > 3 {s += $12; n++} END {if (n && t > 0) printf "%.1f", s / n / t}' $W/vmstat)
		[ -z "$tps" ] && log "pgbench failed: $(tail -3 <<<"$res")"
		st=""
		case " $STATS_AT " in *" $c "*) [ "$cfg" != heap_btree ] && [ "$cfg" != heap_noindex ] && st=$(q -d bench -c "SELECT string_agg(name||'='||value, ' ') FROM blinkam_stats() WHERE value > 0 AND name NOT LIKE 'csn%' AND (name NOT LIKE 'pool%' OR name IN ('pool_pages_taken', 'pool_misses')) AND name NOT LIKE '%worker%' AND name NOT LIKE 'launcher%'");; esac
		waits=$(sort $W/waits | uniq -c | sort -rn | head -5 | awk -v t="$(wc -l <$W/waits)" '{printf "%s %.0f%%; ", $2, 100*$1/t}')
		echo "$r,$cfg,$c,$tps,$lat,$wal,$idle,$csx,$rows,$waits n=$(wc -l <$W/waits),$st" | tee -a "$csv"
	done
	rotation=$((rotation + 1))
done
done
log "summary (TPS ratio to heap_btree, median over rounds):"
awk -F, 'NR > 1 { k = $2 "," $3; v[k] = v[k] " " $4; if (!($3 in seen)) { seen[$3] = 1; cl[++n] = $3 } if (!($2 in sc)) { sc[$2] = 1; cf[++m] = $2 } }
	function med(s,   a, k, i, j, t) { k = split(s, a, " "); for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t } return k ? a[int((k + 1) / 2)] : 0 }
	END { printf "%-22s", "clients"; for (i = 1; i <= n; i++) printf "%8s", cl[i]; print "";
	      for (j = 1; j <= m; j++) { printf "%-22s", cf[j] " TPS"; for (i = 1; i <= n; i++) printf "%8s", med(v[cf[j] "," cl[i]]); print "" }
	      for (j = 1; j <= m; j++) { if (cf[j] == "heap_btree") continue; printf "%-22s", cf[j] "/btree"; for (i = 1; i <= n; i++) { b = med(v["heap_btree," cl[i]]); printf "%8.2f", b ? med(v[cf[j] "," cl[i]]) / b : 0 } print "" } }' "$csv" | tee "$OUT/$TAG-summary.txt"
grep -E "ERROR|PANIC|FATAL|TRAP" $W/server.log | head -5
as $PGB/pg_ctl -D $W/data -m fast stop >/dev/null
