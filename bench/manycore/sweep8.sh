#!/bin/bash
# sweep8.sh: one device call of about 9 minutes -- how a batch waiter
# should wait on 16 cores: heap_blink (its latch),
# heap_blink_lockwait (the leaf's lock, batch_sleep = page_lock) and
# heap_blink_nobatch (no batching), with heap_btree for the ratios, in
# one cluster, plain and pipelined (PIPE=10), at CL clients (default 16
# 128 512), ROUNDS8 rounds (default 2; a round is not started past BY
# seconds, default 470), pgbench on JOBS threads (default 64).  On 2
# cores the lock wait was level or ahead of the latch at 8-64 clients
# and behind at 256 (bench/results/batch-lockwait-2core-20261127.md).
# (A futex sleep it also ran was removed after sweep9.sh measured it
# behind the latch: bench/results/manycore-20261128.md.)  Writes
# wait.csv (every run, tagged r<round>-p<PIPE>) and log.txt to $OUT.
. $(pwd)/.dev/lib.sh
{
el start
. $D/setup.sh || exit 1
el built
for r in $(seq 1 ${ROUNDS8:-2}); do
	for p in 1 10; do
		left ${BY:-470} || break 2
		OUT=$O2 TAG=r$r-p$p JOBS=${JOBS:-64} PIPE=$p DUR=${DUR:-5} CLIENTS="${CL:-16 128 512}" \
			STATS_AT="${CL:-16 128 512}" \
			CONFIGS="heap_btree heap_blink heap_blink_lockwait heap_blink_nobatch" bash $D/iot.sh | grep '^1,'
		el "round $r pipe $p"
	done
done
for f in $O2/r*.csv; do [ -f "$f" ] && sed "s/^/$(basename $f .csv),/" "$f" | grep -v ',round,'; done >$OUT/wait.csv
el done
} 2>&1 | tee $OUT/log.txt
