#!/bin/bash
# sweep10.sh: what is still owed on 16 cores for issue 11, in one device
# call of about 8 minutes (timeout 590).  Each part runs in its own
# cluster with the working tree's build; a part is not started past its
# time guard, so a call stopped early still returns what was done.
#   A, B  plain, then pipelined (PIPE=10), at VCL clients (default 128 256
#         512): heap_btree, heap_blink, its holder rounds
#         (heap_blink_rounds4, blinkam.batch_rounds = 4) and heap_noindex.
#         (Run on 2026-11-28 with heap_blink_lockwait too, the page-lock
#         sleep, removed after it: bench/results/manycore-20261128b.md.)
#   C     (before C_BY, default 300 s) the table's four configurations at
#         WCL clients (default 256 512), plain and pipelined, with
#         wal_buffers = 128MB (the kit's default is 16 MB for 100-150 MB of
#         WAL a second): how much of LWLock:WALInsert is buffer replacement.
#   D     (before D_BY, default 420 s) at 512 clients, plain and pipelined:
#         heap_btree and heap_blink beside each with only its unique index
#         (*_pkeyonly) and only its ts index (*_tsonly), from
#         bench/manycore/configs: which index holds the fall past 128.
#   E     (before E_BY, default 520 s) the stacks of N backends (default
#         48) of heap_blink at 512 plain clients (stacks.sh).
# pgbench runs JOBS threads (default 64); runs are DUR seconds (default 5).
# Writes log.txt and sweep.tgz (every part's .csv and -summary.txt, the
# stacks) to $OUT: the device tool returns at most 8 files.
. $(pwd)/.dev/lib.sh
R=$OUT
OUT=/tmp/o10; mkdir -p $OUT; export OUT
pack() { tar czf $R/sweep.tgz -C $OUT .; }
{
el start
. $D/setup.sh || exit 1
el built
export JOBS=${JOBS:-64}
VCL=${VCL:-"128 256 512"}
WCL=${WCL:-"256 512"}
DUR=${DUR:-5}
wl() { [ $1 = 1 ] && echo plain || echo pipe; }
for p in 1 10; do
	TAG=var-$(wl $p) PIPE=$p DUR=$DUR CLIENTS="$VCL" STATS_AT="$VCL" \
		CONFIGS="heap_btree heap_blink heap_blink_rounds4 heap_noindex" bash $D/iot.sh
	el "var-$(wl $p) done"
	pack
done
for p in 1 10; do
	left ${C_BY:-300} || break
	TAG=walbuf-$(wl $p) PIPE=$p DUR=$DUR CLIENTS="$WCL" STATS_AT="512" EXTRA_CONF="wal_buffers = 128MB" \
		CONFIGS="heap_btree heap_blink heap_noindex blinkheap_blink" bash $D/iot.sh
	el "walbuf-$(wl $p) done"
	pack
done
for p in 1 10; do
	left ${D_BY:-420} || break
	TAG=idx-$(wl $p) PIPE=$p DUR=$DUR CLIENTS=512 STATS_AT=512 \
		CONFIGS="heap_btree heap_blink heap_btree_pkeyonly heap_blink_pkeyonly heap_btree_tsonly heap_blink_tsonly" bash $D/iot.sh
	el "idx-$(wl $p) done"
	pack
done
if left ${E_BY:-520}; then
	t=stacks-plain
	(OUT=$O2 TAG=$t PIPE=1 DUR=16 CLIENTS=512 STATS_AT=512 CONFIGS="heap_blink" bash $D/iot.sh | grep '^1,' | cut -c1-200) &
	sleep 10
	N=${N:-48} bash $D/stacks.sh $OUT/$t-raw.txt >$OUT/$t.txt
	wait
	el "$t done"
	pack
	head -30 $OUT/$t.txt
fi
el done
} 2>&1 | tee $R/log.txt
