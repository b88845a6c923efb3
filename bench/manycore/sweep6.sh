#!/bin/bash
# sweep6.sh: one device call of about 6 minutes -- does the client cap
# the IoT runs?  heap_btree, heap_noindex and heap_blink at 128 and 512
# clients, plain and pipelined (PIPE=10), with pgbench running 16, 32 and
# 64 threads (JOBS).  In the sweeps of 2026-11-26 heap with no index
# waited on the client (ClientRead 84-100%, the CPU 39-55% idle) from
# 128 clients on with 16 threads; if more threads lift it, the targets of
# issue 11 are measured against the wrong ceiling.  Writes jobs.csv (the
# rows of every run, tagged j<JOBS>-p<PIPE>), jobs-summary.txt and
# log.txt to $OUT.
. $(pwd)/.dev/lib.sh
{
el start
. $D/setup.sh || exit 1
el built
for j in ${JOBSET:-16 32 64}; do
	for p in 1 10; do
		left ${BY:-520} || break 2
		OUT=$O2 TAG=j$j-p$p JOBS=$j PIPE=$p DUR=${DUR:-5} CLIENTS="${CL:-128 512}" STATS_AT="" \
			CONFIGS="heap_btree heap_noindex heap_blink" bash $D/iot.sh | grep '^1,'
		el "jobs $j pipe $p"
	done
done
for f in $O2/j*.csv; do [ -f "$f" ] && sed "s/^/$(basename $f .csv),/" "$f" | grep -v ',round,'; done >$OUT/jobs.csv
for f in $O2/j*-summary.txt; do [ -f "$f" ] && { echo "== $(basename $f -summary.txt)"; cat "$f"; }; done >$OUT/jobs-summary.txt
el done
} 2>&1 | tee $OUT/log.txt
