#!/usr/bin/env bash
# run-tests.sh — run blinkam's three suites against an installed build.
#
# Usage: scripts/run-tests.sh PG_CONFIG [SUITE ...]
#   SUITE is regress, isolation or tap (default: all three).
#   REGRESS="name ...", ISOLATION="name ..." and PROVE_TESTS="t/001_x.pl ..."
#   limit a suite to those tests.
#
# Runs from the directory above this script, must not run as root, writes
# everything under out/.  Prints the diffs of failed regression and
# isolation tests and the log tails of failed TAP files, and ends with
# "tests: N passed, N failed".
set -uo pipefail

pg_config=$1
shift
suites=${*:-regress isolation tap}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

bindir=$("$pg_config" --bindir)
pgxs=$(dirname "$("$pg_config" --pgxs)")/../..
pgxs=$(cd "$pgxs" && pwd)
passed=0
failed=0

run_pg_regress() {
	local suite=$1 driver=$2 inputs=$3 ext=$4 tests=$5 outdir status
	if [ -z "$tests" ]; then
		tests=$(for f in "$inputs"/*."$ext"; do basename "$f" ."$ext"; done)
	fi
	outdir=out/$suite
	rm -rf "$outdir" && mkdir -p "$outdir"
	echo "== $suite"
	"$driver" --inputdir=. --outputdir="$outdir" --bindir="$bindir" \
		--temp-instance="$outdir/tmp_check" --temp-config=regress.conf \
		--dbname=blinkam_regress $tests 2>&1 | tee "$outdir/run.log"
	status=${PIPESTATUS[0]}
	ok=$(grep -cE '\.\.\. +ok' "$outdir/run.log" || true)
	bad=$(grep -cE '\.\.\. +FAILED' "$outdir/run.log" || true)
	passed=$((passed + ok))
	failed=$((failed + bad))
	if [ "$status" != 0 ]; then
		[ -f "$outdir/regression.diffs" ] && cat "$outdir/regression.diffs"
		# A driver failure that is not a test failure (server did not start…)
		if [ "$bad" = 0 ]; then
			failed=$((failed + 1))
			cat "$outdir"/tmp_check/log/*.log 2>/dev/null | tail -40
		fi
	fi
}

run_tap() {
	local outdir=out/tap status ok bad
	rm -rf "$outdir" tmp_check && mkdir -p "$outdir"
	echo "== tap"
	TESTDIR="$top" PATH="$bindir:$PATH" PG_REGRESS="$pgxs/src/test/regress/pg_regress" \
		PERL5LIB="$pgxs/src/test/perl${PERL5LIB:+:$PERL5LIB}" PGPORT=65432 \
		prove --verbose ${PROVE_TESTS:-t/*.pl} >"$outdir/prove.log" 2>&1
	status=$?
	# Subtests: "ok N" and "not ok N" lines of the verbose output; a
	# "not ok ... # TODO" is a known gap that prove does not count as a
	# failure, and neither does this.
	ok=$(grep -cE '^ *ok [0-9]+' "$outdir/prove.log" || true)
	bad=$(grep -E '^ *not ok [0-9]+' "$outdir/prove.log" | grep -vc '# TODO' || true)
	sed -n '/^Test Summary Report/,$p; /^All tests successful/,$p' "$outdir/prove.log"
	grep -E '^t/.*\.\. ' "$outdir/prove.log" | sed 's/ \.\. .*//' | sort -u | sed 's/^/  /'
	if [ "$status" != 0 ]; then
		grep -nE '^ *not ok|^# |Dubious|died' "$outdir/prove.log" | head -60
		for f in tmp_check/log/regress_log_*; do
			[ -f "$f" ] || continue
			echo "--- tail of $f"
			tail -30 "$f"
		done
		[ "$bad" = 0 ] && bad=1
	fi
	cp -r tmp_check/log "$outdir/" 2>/dev/null || true
	passed=$((passed + ok))
	failed=$((failed + bad))
	echo "tap: $ok passed, $bad failed"
}

for suite in $suites; do
	case $suite in
		regress)
			run_pg_regress regress "$pgxs/src/test/regress/pg_regress" sql sql "${REGRESS:-}" ;;
		isolation)
			run_pg_regress isolation "$pgxs/src/test/isolation/pg_isolation_regress" specs spec "${ISOLATION:-}" ;;
		tap)
			run_tap ;;
		*)
			echo "unknown suite: $suite" >&2
			exit 2 ;;
	esac
done

echo "tests: $passed passed, $failed failed"
[ "$failed" = 0 ]
