#!/bin/bash
# sweep7.sh: one device call of about 7 minutes -- an A/B of heap_blink
# against a baseline build, in alternated clusters, AB_ROUNDS times
# (default 3; ROUNDS is iot.sh's: runs per cluster), plain and pipelined
# (PIPE=10), at CL clients (default 128 512), with pgbench on JOBS
# threads (default 64: the most heap with no index reached in
# sweep6.sh), heap_btree beside the new build for the ratios (BESIDE
# names what runs beside the new build instead; empty for none).  The
# baseline's sources go into .dev/old first (see sweep3.sh).  Writes
# ab.csv (every run, tagged r<round>-p<PIPE>-<build>) and log.txt to $OUT.
. $(pwd)/.dev/lib.sh
{
el start
. $D/setup.sh || exit 1
build_old
[ -f /tmp/old.so ] || { echo "no baseline build"; exit 1; }
el built
for r in $(seq 1 ${AB_ROUNDS:-3}); do
	for p in 1 10; do
		left ${BY:-470} || break 2
		swap old
		OUT=$O2 TAG=r$r-p$p-old JOBS=${JOBS:-64} PIPE=$p DUR=${DUR:-5} CLIENTS="${CL:-128 512}" STATS_AT="${CL:-128 512}" \
			CONFIGS="heap_blink" bash $D/iot.sh | grep '^1,'
		swap new
		OUT=$O2 TAG=r$r-p$p-new JOBS=${JOBS:-64} PIPE=$p DUR=${DUR:-5} CLIENTS="${CL:-128 512}" STATS_AT="${CL:-128 512}" \
			CONFIGS="heap_blink ${BESIDE-heap_btree}" bash $D/iot.sh | grep '^1,'
		el "round $r pipe $p"
	done
done
for f in $O2/r*.csv; do [ -f "$f" ] && sed "s/^/$(basename $f .csv),/" "$f" | grep -v ',round,'; done >$OUT/ab.csv
el done
} 2>&1 | tee $OUT/log.txt
