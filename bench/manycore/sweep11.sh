#!/bin/bash
# sweep11.sh: which of heap_blink's two indexes holds it at 256 and 512
# clients, a second sample of sweep10.sh's part D with heap with no index
# beside it: heap_noindex, heap_btree, heap_blink and each of the two
# with only its unique index (*_pkeyonly) or only its ts index (*_tsonly,
# bench/manycore/configs), plain and pipelined (PIPE=10), at CL clients
# (default 256 512), DUR-second runs (default 5), JOBS pgbench threads
# (default 64).  About 210 s.  Writes log.txt and sweep.tgz (the .csv and
# -summary.txt of each workload) to $OUT.
. $(pwd)/.dev/lib.sh
R=$OUT
OUT=/tmp/o11; mkdir -p $OUT; export OUT
{
el start
. $D/setup.sh || exit 1
el built
export JOBS=${JOBS:-64}
for p in 1 10; do
	t=idx2-$([ $p = 1 ] && echo plain || echo pipe)
	TAG=$t PIPE=$p DUR=${DUR:-5} CLIENTS="${CL:-256 512}" STATS_AT=512 \
		CONFIGS="heap_noindex heap_btree heap_blink heap_btree_pkeyonly heap_blink_pkeyonly heap_btree_tsonly heap_blink_tsonly" bash $D/iot.sh
	el "$t done"
	tar czf $R/sweep.tgz -C $OUT .
done
el done
} 2>&1 | tee $R/log.txt
