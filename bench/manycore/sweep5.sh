#!/bin/bash
# sweep5.sh: one device call of about 6 minutes -- heap_blink against
# heap_blink_rounds4 (blinkam.batch_rounds = 4: a holder writes further
# records for what was published while it held the leaf, instead of
# handing the leaf to the next waiter) at 128 and 512 clients, plain and
# pipelined, alternated twice; then heap_btree and heap_blink of the
# working tree's build against a baseline build with a CHECKPOINT every
# CKPT (0.5) seconds during each run (page writes of the hot leaves; see
# src/README, "Share holders"), and without them at 512 clients (what the
# waiters' share try costs).  The baseline's sources go into .dev/old
# first, as for sweep3.sh.  Writes the .csv files, summaries, ab.csv and
# log.txt to $OUT.
. $(pwd)/.dev/lib.sh
{
el start
. $D/setup.sh || exit 1
build_old
el built
DUR=${DUR:-5}
for r in 1 2; do
	for p in 1 10; do
		left ${RND_BY:-250} || break
		TAG=rounds-p$p-$r PIPE=$p DUR=$DUR CLIENTS="${RNDCL:-128 512}" STATS_AT="128 512" CONFIGS="heap_blink heap_blink_rounds4" bash $D/iot.sh
		el "rounds pipe=$p round $r"
	done
done
if [ -f /tmp/old.so ]; then
	for b in old new; do
		left ${CK_BY:-330} || break
		swap $b; OUT=$O2 TAG=ck-$b CKPT=${CKPT:-0.5} PIPE=1 DUR=$DUR CLIENTS="${CKCL:-512 128}" STATS_AT="512 128" CONFIGS="heap_btree heap_blink" bash $D/iot.sh | grep -v '^\['
		OUT=$O2 TAG=nock-$b PIPE=1 DUR=$DUR CLIENTS="${NOCKCL:-512}" STATS_AT="${NOCKCL:-512}" CONFIGS="heap_btree heap_blink" bash $D/iot.sh | grep -v '^\['
		el "checkpoints $b"
	done
	swap new
fi
for f in $O2/ck*.csv $O2/nock*.csv; do [ -f "$f" ] && sed "s/^/$(basename $f .csv),/" "$f" | grep -v ',round,'; done >$OUT/ab.csv
el done
} 2>&1 | tee $OUT/log.txt
