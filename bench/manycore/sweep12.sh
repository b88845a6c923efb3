#!/bin/bash
# sweep12.sh: blinkam.batch_leave_to_holder on (heap_blink) against off
# (heap_blink_wakeall), and blinkheap_blink with 0, 4 and 16 shared hot
# insert pages, beside heap_btree and heap_noindex in one cluster per
# workload: plain and pipelined (PIPE=10), at CL clients (default 128 256
# 512), DUR-second runs (default 5), JOBS pgbench threads (default 64),
# counters at 256 and 512 clients.  About 380 s.  Writes log.txt and
# sweep.tgz (the .csv and -summary.txt of each workload) to $OUT.  The
# setting and heap_blink_wakeall were removed after this call (iot.sh skips
# a configuration it cannot create).
. $(pwd)/.dev/lib.sh
sweep_out o12
{
el start
. $D/setup.sh || exit 1
el built
export JOBS=${JOBS:-64}
for p in ${PIPES:-1 10}; do
	t=s12-$([ $p = 1 ] && echo plain || echo pipe)
	TAG=$t PIPE=$p DUR=${DUR:-5} CLIENTS="${CL:-128 256 512}" STATS_AT="256 512" \
		CONFIGS="${CFGS:-heap_btree heap_blink heap_blink_wakeall heap_noindex blinkheap_blink blinkheap_blink_hot4 blinkheap_blink_hot16}" bash $D/iot.sh
	el "$t done"
	pack
done
el done
} 2>&1 | tee $R/log.txt
