#!/bin/bash
# sweep9.sh: issue 11's table in one device call of about 9 minutes, for a
# session lent 15 minutes of device time (one start, one call).  Plain,
# then pipelined (PIPE=10), each in one cluster with the working tree's
# build: heap_btree, heap_blink, heap_noindex and blinkheap_blink at CL
# clients (default 1 16 128 256 512); then, if the call has time left (a
# part is not started past BY seconds, default 420), how batching waits
# at VCL clients (default 16 128 512): heap_blink beside batching off
# (heap_blink_nobatch) and the page-lock sleep (heap_blink_lockwait),
# plain and pipelined, and pipelined also statement buffers flushed at
# each statement's end (heap_blink_stmt).  Wait events, blinkam counters
# (at STATS_AT: 128 and 512, every client count for the variants) and
# average batch sizes are in the rows; pgbench runs JOBS threads (default
# 64).  Last, if still before STK_BY seconds (default 500; the parts
# before took 484 s on 2026-11-28), the stacks of N backends (default 48)
# of heap_blink at 512 pipelined clients (stacks.sh, about 30 s), and
# then, if before STK2_BY (default 530), at 512 plain clients: a call of
# about 540 s, to be given a timeout of 590.  Writes log.txt and
# sweep.tgz to $OUT: the device tool returns at most 8 files, so the
# plain, pipe, var-plain and var-pipe .csv and -summary.txt and the
# stacks-pipe and stacks-plain .txt (and -raw.txt) are packed after each
# part, and a call stopped at its limit still returns what was done.
. $(pwd)/.dev/lib.sh
R=$OUT
OUT=/tmp/o9; mkdir -p $OUT; export OUT
pack() { tar czf $R/sweep.tgz -C $OUT .; }
{
el start
. $D/setup.sh || exit 1
el built
export JOBS=${JOBS:-64}
CL=${CL:-"1 16 128 256 512"}
VCL=${VCL:-"16 128 512"}
DUR=${DUR:-5}
for p in 1 10; do
	t=$([ $p = 1 ] && echo plain || echo pipe)
	TAG=$t PIPE=$p DUR=$DUR CLIENTS="$CL" STATS_AT="128 512" \
		CONFIGS="heap_btree heap_blink heap_noindex blinkheap_blink" bash $D/iot.sh
	el "$t done"
	pack
done
for p in 1 10; do
	left ${BY:-420} || break
	t=var-$([ $p = 1 ] && echo plain || echo pipe)
	TAG=$t PIPE=$p DUR=$DUR CLIENTS="$VCL" STATS_AT="$VCL" \
		CONFIGS="heap_btree heap_blink heap_blink_nobatch heap_blink_lockwait$([ $p = 10 ] && echo ' heap_blink_stmt')" bash $D/iot.sh
	el "$t done"
	pack
done
# what holds heap_blink at 512 clients: the stacks of N backends,
# pipelined first, then plain if the call still has time
for p in 10 1; do
	left $([ $p = 10 ] && echo ${STK_BY:-500} || echo ${STK2_BY:-530}) || break
	t=stacks-$([ $p = 1 ] && echo plain || echo pipe)
	(OUT=$O2 TAG=$t PIPE=$p DUR=16 CLIENTS=512 STATS_AT=512 CONFIGS="heap_blink" bash $D/iot.sh | grep '^1,' | cut -c1-200) &
	sleep 10
	N=${N:-48} bash $D/stacks.sh $OUT/$t-raw.txt >$OUT/$t.txt
	wait
	el "$t done"
	pack
	head -30 $OUT/$t.txt
done
el done
} 2>&1 | tee $R/log.txt
