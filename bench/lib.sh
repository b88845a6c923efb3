#!/usr/bin/env bash
# lib.sh — shared by the benchmark scripts: install what is missing, build
# and install blinkam, start a private temporary cluster, stop it on exit.
#
# Source it, then call bench_start_cluster.  Provides: as_owner (run as the
# cluster owner), psql_q (quiet psql into the bench database), $work,
# $bindir, $owner, and the PG* variables that point at the cluster.
# BENCH_CONF, if set, is appended to the cluster's postgresql.conf (lines
# such as "blinkam.pool_leaf_high = 64"), to compare settings.

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(dirname "$here")

say() { echo "bench: $*" >&2; }

bench_start_cluster() {
	local extra_pkgs=$*

	if [ "$(id -u)" = 0 ]; then
		# shellcheck disable=SC2086
		"$top/scripts/install-deps.sh" $extra_pkgs
		id postgres >/dev/null 2>&1 || useradd --system --create-home --shell /bin/bash postgres
		as_owner() { runuser -u postgres -- "$@"; }
		owner=postgres
	else
		as_owner() { "$@"; }
		owner=$(id -un)
	fi
	pg_config=${PG_CONFIG:-pg_config}
	bindir=$("$pg_config" --bindir)
	say "building and installing blinkam into $("$pg_config" --version)"
	make -s -C "$top" PG_CONFIG="$pg_config" >/dev/null
	make -s -C "$top" install PG_CONFIG="$pg_config" >/dev/null

	work=$(mktemp -d /tmp/blinkam-bench.XXXXXX)
	chown "$owner" "$work"
	export PGHOST=$work PGPORT=${BENCH_PORT:-5499} PGDATABASE=bench
	trap bench_cleanup EXIT

	as_owner "$bindir/initdb" -D "$work/data" -A trust -U postgres >/dev/null
	cat >>"$work/data/postgresql.conf" <<CONF
# blinkam bench settings
listen_addresses = ''
unix_socket_directories = '$work'
port = $PGPORT
shared_preload_libraries = 'blinkam'
synchronous_commit = off
max_connections = ${BENCH_MAX_CONNECTIONS:-300}
shared_buffers = 2GB
max_wal_size = 16GB
min_wal_size = 1GB
checkpoint_timeout = 30min
${BENCH_CONF:-}
CONF
	as_owner "$bindir/pg_ctl" -D "$work/data" -l "$work/server.log" -w start >/dev/null
	export PGOPTIONS='-c client_min_messages=warning'
	psql_q -d postgres -c "CREATE DATABASE bench"
	psql_q -c "CREATE EXTENSION blinkam"

	say "settings:"
	psql_q -F ' = ' -c "SELECT name, setting || coalesce(unit, '') FROM pg_settings
		WHERE name IN ('shared_preload_libraries', 'synchronous_commit', 'max_connections',
		               'shared_buffers', 'max_wal_size', 'checkpoint_timeout', 'wal_level',
		               'full_page_writes', 'fsync', 'server_version')
		ORDER BY name" | sed 's/^/    /' >&2
}

bench_cleanup() {
	as_owner "$bindir/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1 || true
	rm -rf "$work"
}

psql_q() { as_owner "$bindir/psql" -U postgres -X -q -At -v ON_ERROR_STOP=1 "$@"; }

# percentile P (0-100) of the sorted microsecond numbers in file $1, in ms
percentile() {
	awk -v p="$2" '{ v[NR] = $1 } END {
		if (NR == 0) { print "NaN"; exit }
		i = int(p / 100 * NR + 0.999999); if (i < 1) i = 1; if (i > NR) i = NR
		printf "%.3f", v[i] / 1000 }' "$1"
}

# median of the numbers on standard input, one per line
median() {
	sort -n | awk '{ v[NR] = $1 } END {
		if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# scan_ms(sql): the milliseconds one statement takes, in the server.
bench_create_scan_ms() {
	psql_q <<'SQL'
CREATE FUNCTION scan_ms(sql text) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz;
BEGIN
	t0 := clock_timestamp();
	EXECUTE sql;
	RETURN round(extract(epoch FROM clock_timestamp() - t0)::numeric * 1000, 1);
END $$;
SQL
}

# Start N sessions that each hold an xid (one query string: one implicit
# transaction, kept open by pg_sleep), and wait until they all do;
# bench_close_xids ends them.
bench_open_xids() {
	local n=$1
	for _ in $(seq "$n"); do
		as_owner "$bindir/psql" -U postgres -X -q \
			-c "SELECT txid_current(); SELECT pg_sleep(100000)" >/dev/null 2>&1 &
	done
	until [ "$(psql_q -c "SELECT count(*) FROM pg_stat_activity WHERE backend_xid IS NOT NULL")" -ge "$n" ]; do
		sleep 0.5
	done
}

bench_close_xids() {
	psql_q -c "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE backend_xid IS NOT NULL AND pid <> pg_backend_pid()" >/dev/null
	wait
}

# Its arguments from the (N mod count)-th on, then those before it: the
# words after N, rotated left by N (the order of configurations at the
# N-th client count; also bench/manycore/iot.sh).
rotate() {
	local n=$1 i=0 w head='' tail=''
	shift
	n=$((n % $#))
	for w in "$@"; do
		if [ "$i" -lt "$n" ]; then head="$head $w"; else tail="$tail $w"; fi
		i=$((i + 1))
	done
	echo $tail $head
}
