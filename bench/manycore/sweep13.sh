#!/bin/bash
# sweep13.sh: the comparisons owed since stops 56-57 -- held-back unique
# entries (heap_blink_dunique, blinkam.defer_unique = on) against entries
# at once (heap_blink), a flush over several leaves (heap_blink_dunique,
# flush_leaves = 4) against one leaf a record (heap_blink_dunique_leaves1),
# and the same for blinkheap (blinkheap_blink, blinkheap_blink_dunique),
# beside heap_btree and heap_noindex in one cluster per workload: plain and
# pipelined (PIPE=10), at CL clients (default 128 256 512), DUR-second runs
# (default 5), JOBS pgbench threads (default 64), counters at 256 and 512
# clients.  About 330 s.  Writes log.txt and sweep.tgz (the .csv and
# -summary.txt of each workload) to $OUT.  A second call with ROUNDS=2
# CL="256 512" and CFGS naming fewer configurations repeats the points
# that decide.
. $(pwd)/.dev/lib.sh
sweep_out o13
{
el start
. $D/setup.sh || exit 1
el built
export JOBS=${JOBS:-64}
for p in ${PIPES:-1 10}; do
	t=s13-$([ $p = 1 ] && echo plain || echo pipe)
	TAG=$t PIPE=$p DUR=${DUR:-5} CLIENTS="${CL:-128 256 512}" STATS_AT="256 512" ROUNDS=${ROUNDS:-1} \
		CONFIGS="${CFGS:-heap_btree heap_blink heap_blink_dunique heap_blink_dunique_leaves1 heap_noindex blinkheap_blink blinkheap_blink_dunique}" bash $D/iot.sh
	el "$t done"
	pack
done
el done
} 2>&1 | tee $R/log.txt
