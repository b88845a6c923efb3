#!/bin/bash
# sweep2.sh: a build against a baseline build in alternated clusters
# (heap_blink at 512 and 128 clients), batching off and btree beside the
# new build, then the stacks of 48 backends at 512 clients (stacks.sh).
# The baseline's sources go into .dev/old first, on the developer's machine:
#   mkdir -p .dev/old && git archive BASE src Makefile blinkam.control \
#       blinkam--0.1.sql | tar x -C .dev/old
# Writes ab.csv, stacks.txt (folded), stacks-raw.txt and log.txt to $OUT.
set -u
export MAKEFLAGS=-j$(nproc)
OUT=${OUT:-/tmp/out}; D=$(pwd)/.dev
O2=/tmp/o2; mkdir -p $O2
T0=$(date +%s)
el() { echo "[+$(( $(date +%s) - T0 ))s] $*"; }
log() { echo "[$(date +%T)] $*"; }
{
el start
[ -n "${SKIP_SETUP:-}" ] || . $D/setup.sh || exit 1
cp /tmp/pg/lib/postgresql/blinkam.so /tmp/new.so
make -s -C $D/old PG_CONFIG=/tmp/pg/bin/pg_config PG_CFLAGS=-Wno-unused-parameter >/tmp/old.log 2>&1 && cp $D/old/blinkam.so /tmp/old.so || { tail /tmp/old.log; }
el built
swap() { cp /tmp/$1.so /tmp/pg/lib/postgresql/blinkam.so; echo "== build $1"; }
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
