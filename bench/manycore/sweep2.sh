#!/bin/bash
# sweep2.sh: a build against a baseline build in alternated clusters
# (heap_blink at 512 and 128 clients), batching off and btree beside the
# new build, then the stacks of 48 backends at 512 clients (stacks.sh).
# The baseline's sources go into .dev/old first, on the developer's machine:
#   mkdir -p .dev/old && git archive BASE src Makefile blinkam.control \
#       blinkam--0.1.sql | tar x -C .dev/old
# Writes ab.csv, stacks.txt (folded), stacks-raw.txt and log.txt to $OUT.
. $(pwd)/.dev/lib.sh
{
el start
[ -n "${SKIP_SETUP:-}" ] || . $D/setup.sh || exit 1
build_old
el built
R=iot; DUR=${DUR:-6}
swap old; OUT=$O2 TAG=ab1 DUR=$DUR CLIENTS="${ABCL:-512 128}" CONFIGS="heap_blink" bash $D/iot.sh | grep '^1,'
swap new; OUT=$O2 TAG=ab2 DUR=$DUR CLIENTS="${ABCL:-512 128}" CONFIGS="heap_blink heap_blink_nobatch heap_btree" bash $D/iot.sh | grep '^1,'
el "ab half"
swap old; OUT=$O2 TAG=ab3 DUR=$DUR CLIENTS="${ABCL:-512 128}" CONFIGS="heap_blink" bash $D/iot.sh | grep '^1,'
swap new; OUT=$O2 TAG=ab4 DUR=$DUR CLIENTS="${ABCL:-512 128}" CONFIGS="heap_blink" bash $D/iot.sh | grep '^1,'
el "ab done"
if [ $(( $(date +%s) - T0 )) -lt ${STK_BY:-200} ]; then
	(OUT=$O2 TAG=stk DUR=16 CLIENTS="${STKCL:-512}" STATS_AT="${STKCL:-512}" CONFIGS="heap_blink" bash $D/iot.sh | grep '^1,') &
	sleep 10
	N=${N:-48} bash $D/stacks.sh $OUT/stacks-raw.txt >$OUT/stacks.txt
	wait
	el "stacks done"
	cat $OUT/stacks.txt | head -30
fi
cat $O2/ab*.csv $O2/stk.csv 2>/dev/null | grep -v '^round' >$OUT/ab.csv
} 2>&1 | tee $OUT/log.txt
