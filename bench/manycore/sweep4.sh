#!/bin/bash
# sweep4.sh: a second, shorter device call after sweep3.sh -- more
# alternated pairs of heap_blink against the baseline build in .dev/old
# (plain at ABCL clients, pipelined at 512), batching on and off at 16
# clients (plain and pipelined), then the stacks of 48 backends of the new
# build at 512 clients (stacks.sh).  Writes ab.csv, stacks.txt,
# stacks-raw.txt and log.txt to $OUT.
. $(pwd)/.dev/lib.sh
{
el start
. $D/setup.sh || exit 1
build_old
el built
DUR=${DUR:-5}
for r in 1 2; do
	left ${AB_BY:-250} || break
	swap old; OUT=$O2 TAG=p1-old-$r PIPE=1 DUR=$DUR CLIENTS="${ABCL:-512 128}" STATS_AT="512" CONFIGS="heap_blink" bash $D/iot.sh | grep '^1,' | cut -c1-160
	swap new; OUT=$O2 TAG=p1-new-$r PIPE=1 DUR=$DUR CLIENTS="${ABCL:-512 128}" STATS_AT="512" CONFIGS="heap_blink" bash $D/iot.sh | grep '^1,' | cut -c1-160
	swap old; OUT=$O2 TAG=p10-old-$r PIPE=10 DUR=$DUR CLIENTS="512" STATS_AT="512" CONFIGS="heap_blink" bash $D/iot.sh | grep '^1,' | cut -c1-160
	swap new; OUT=$O2 TAG=p10-new-$r PIPE=10 DUR=$DUR CLIENTS="512" STATS_AT="512" CONFIGS="heap_blink" bash $D/iot.sh | grep '^1,' | cut -c1-160
	el "pair $r"
done
swap new
if left ${C16_BY:-320}; then
	OUT=$O2 TAG=c16-p1 PIPE=1 DUR=$DUR CLIENTS="16" STATS_AT="16" CONFIGS="heap_blink heap_blink_nobatch heap_blink heap_blink_nobatch" bash $D/iot.sh | grep '^1,' | cut -c1-160
	OUT=$O2 TAG=c16-p10 PIPE=10 DUR=$DUR CLIENTS="16" STATS_AT="16" CONFIGS="heap_blink heap_blink_nobatch heap_blink heap_blink_nobatch" bash $D/iot.sh | grep '^1,' | cut -c1-160
	el "16 clients"
fi
if left ${STK_BY:-360}; then
	(OUT=$O2 TAG=stk DUR=16 CLIENTS=512 STATS_AT=512 CONFIGS="heap_blink" bash $D/iot.sh | grep '^1,' | cut -c1-160) &
	sleep 10
	N=${N:-48} bash $D/stacks.sh $OUT/stacks-raw.txt >$OUT/stacks.txt
	wait
	el "stacks done"
	head -30 $OUT/stacks.txt
fi
for f in $O2/*.csv; do [ -f "$f" ] && sed "s/^/$(basename $f .csv),/" "$f" | grep -v ',round,'; done >$OUT/ab.csv
el done
} 2>&1 | tee $OUT/log.txt
