#!/usr/bin/env bash
# test.sh — what `make test` and `make test-assert` run.
#
# Usage: scripts/test.sh PG_CONFIG
#
# As root (CI, a fresh machine): installs what is missing, builds with
# -Werror, installs into the PostgreSQL that PG_CONFIG names, copies the
# test files to a directory the postgres user owns and runs every suite
# there as postgres (initdb refuses root).  As any other user: builds,
# installs (needs write access to that PostgreSQL) and runs the suites in
# place.  Exits non-zero when anything fails; the last line is
# "tests: N passed, N failed".
set -euo pipefail

pg_config=${1:?usage: scripts/test.sh PG_CONFIG}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

if [ "$(id -u)" = 0 ]; then
	scripts/install-deps.sh
fi
pg_config=$(command -v "$pg_config" || echo "$pg_config")
echo "== building against $("$pg_config" --version) ($pg_config)"

make -s clean PG_CONFIG="$pg_config" >/dev/null
make -s PG_CONFIG="$pg_config" 2>&1 | { grep -v '^$' || true; }
make -s install PG_CONFIG="$pg_config" >/dev/null

if [ "$(id -u)" = 0 ]; then
	id postgres >/dev/null 2>&1 || useradd --system --create-home --shell /bin/bash postgres
	stage=$(mktemp -d /tmp/blinkam-test.XXXXXX)
	cp -r sql expected specs t regress.conf scripts "$stage"/
	chown -R postgres: "$stage"
	# The postgres user must reach the server binaries; a PostgreSQL built
	# under a private directory (root's home) is run from a copy instead.
	# PostgreSQL installations are relocatable, so the copy works as is.
	bindir=$("$pg_config" --bindir)
	if ! runuser -u postgres -- test -x "$bindir/postgres"; then
		cp -a "$(dirname "$bindir")" "$stage/pg"
		chown -R postgres: "$stage/pg"
		pg_config=$stage/pg/bin/pg_config
		echo "== postgres cannot read $bindir: running from a copy in $stage/pg"
	fi
	status=0
	runuser -u postgres -- "$stage/scripts/run-tests.sh" "$pg_config" || status=$?
	# Keep the logs of a failed run where the caller can read them.
	rm -rf "$top/out"
	cp -r "$stage/out" "$top/out" 2>/dev/null || true
	rm -rf "$stage"
	exit $status
else
	exec scripts/run-tests.sh "$pg_config"
fi
