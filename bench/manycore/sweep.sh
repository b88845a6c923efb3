#!/bin/bash
# sweep.sh: one device call of about 8 minutes -- IoT plain and pipelined
# (PIPE=10) at CL clients for heap_btree, heap_blink, heap_noindex and
# blinkheap_blink; make bench-splits at 64 clients; then batching variants
# (off, holder rounds, blinkheap's shared hot pages) pipelined at 128 and
# 512 clients.  Writes plain/pipe/extra .csv and summaries, splits.md and
# log.txt to $OUT (eight files: the device call's limit).
set -u
D=$(pwd)/.dev
export MAKEFLAGS=-j$(nproc)
OUT=${OUT:-/tmp/out}; export OUT
T0=$(date +%s)
el() { echo "[+$(( $(date +%s) - T0 ))s] $*"; }
left() { [ $(( $(date +%s) - T0 )) -lt "${1}" ]; }
{
el "start"
CL=${CL:-"1 16 128 256 512"}
DUR=${DUR:-6}
TAG=plain PIPE=1 DUR=$DUR CLIENTS="$CL" CONFIGS="heap_btree heap_blink heap_noindex blinkheap_blink" bash $D/iot.sh
el "plain done"
TAG=pipe PIPE=10 DUR=$DUR CLIENTS="$CL" CONFIGS="heap_btree heap_blink heap_noindex blinkheap_blink" bash $D/iot.sh
el "pipe done"
if [ "${SPLITS:-1}" = 1 ] && left ${SPLIT_BY:-470}; then
	chown -R bench /tmp/proj
	(cd /tmp/proj && runuser -u bench -- env PATH=/tmp/pg/bin:$PATH PG_CONFIG=/tmp/pg/bin/pg_config ROWS=${SPLIT_ROWS:-2000000} CLIENTS=64 DURATION=${SPLIT_DUR:-8} REPEAT=1 JOBS=16 bash bench/splits.sh) 2>&1 | tail -25
	cp /tmp/proj/bench/results/splits-latest.md $OUT/splits.md 2>/dev/null
	el "splits done"
fi
if left ${EXTRA_BY:-520}; then
TAG=extra PIPE=10 DUR=${XDUR:-5} CLIENTS="${XCL:-128 512}" STATS_AT="128 512" CONFIGS="heap_blink heap_blink_nobatch heap_blink_rounds4 blinkheap_noindex blinkheap_noindex_hot1 blinkheap_noindex_hot4" bash $D/iot.sh
el "extra done"
fi
} 2>&1 | tee $OUT/log.txt
