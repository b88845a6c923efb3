#!/bin/bash
# sweep3.sh: one device call of about 9 minutes -- IoT plain and pipelined
# (PIPE=10) at CL clients for heap_btree, heap_blink, heap_noindex and
# blinkheap_blink with the working tree's build, then an A/B of heap_blink
# against a baseline build in alternated clusters (plain, then pipelined,
# at ABCL clients), with batching off beside the new build.  ABCONF names
# other configurations for the A/B (default heap_blink), ABEXTRA what runs
# beside the new build only (default heap_blink_nobatch; empty for none),
# e.g. ABCONF="blinkheap_noindex blinkheap_blink" ABEXTRA="".  The
# baseline's sources go into .dev/old first, on the developer's machine:
#   mkdir -p .dev/old && git archive BASE src Makefile blinkam.control \
#       blinkam--0.1.sql | tar x -C .dev/old
# Writes plain/pipe/ab .csv and summaries and log.txt to $OUT.
. $(pwd)/.dev/lib.sh
{
el start
. $D/setup.sh || exit 1
build_old
el built
CL=${CL:-"1 16 128 256 512"}
DUR=${DUR:-5}
TAG=plain PIPE=1 DUR=$DUR CLIENTS="$CL" STATS_AT="128 512" CONFIGS="heap_btree heap_blink heap_noindex blinkheap_blink" bash $D/iot.sh
el "plain done"
TAG=pipe PIPE=10 DUR=$DUR CLIENTS="$CL" STATS_AT="128 512" CONFIGS="heap_btree heap_blink heap_noindex blinkheap_blink" bash $D/iot.sh
el "pipe done"
if [ -f /tmp/old.so ]; then
	for p in ${ABPIPE:-1 10}; do
		left ${AB_BY:-500} || break
		swap old; OUT=$O2 TAG=ab-p$p-1 PIPE=$p DUR=$DUR CLIENTS="${ABCL:-512 128}" STATS_AT="512 128" CONFIGS="${ABCONF:-heap_blink}" bash $D/iot.sh | grep '^1,'
		swap new; OUT=$O2 TAG=ab-p$p-2 PIPE=$p DUR=$DUR CLIENTS="${ABCL:-512 128}" STATS_AT="512 128" CONFIGS="${ABCONF:-heap_blink} ${ABEXTRA-heap_blink_nobatch}" bash $D/iot.sh | grep '^1,'
		el "ab pipe=$p"
	done
	swap new
fi
for f in $O2/ab*.csv; do [ -f "$f" ] && sed "s/^/$(basename $f .csv),/" "$f" | grep -v ',round,'; done >$OUT/ab.csv
el done
} 2>&1 | tee $OUT/log.txt
