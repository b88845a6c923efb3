# lib.sh: sourced by the device sweeps (sweep*.sh) -- the output folder,
# elapsed-time logging, a time guard, and the baseline build of .dev/old
# (swap picks which build the next cluster loads).
set -u
export MAKEFLAGS=-j$(nproc)
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; export OUT
D=$(pwd)/.dev
O2=/tmp/o2; mkdir -p $O2
T0=$(date +%s)
el() { echo "[+$(( $(date +%s) - T0 ))s] $*"; }
log() { echo "[$(date +%T)] $*"; }
left() { [ $(( $(date +%s) - T0 )) -lt "${1}" ]; }
# after setup.sh: keep the new build, build the baseline next to it
build_old() {
	cp /tmp/pg/lib/postgresql/blinkam.so /tmp/new.so
	[ -d $D/old ] || return 0
	make -s -C $D/old PG_CONFIG=/tmp/pg/bin/pg_config PG_CFLAGS=-Wno-unused-parameter >/tmp/old.log 2>&1 &&
		cp $D/old/blinkam.so /tmp/old.so || tail /tmp/old.log
}
swap() { cp /tmp/$1.so /tmp/pg/lib/postgresql/blinkam.so; echo "== build $1"; }
# a sweep's own results folder /tmp/$1 (OUT from here on; R keeps the
# device call's $OUT), and pack: the folder so far into $R/sweep.tgz
sweep_out() { R=$OUT; OUT=/tmp/$1; mkdir -p "$OUT"; export OUT; }
pack() { tar czf "$R/sweep.tgz" -C "$OUT" .; }
