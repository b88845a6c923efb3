#!/usr/bin/env bash
# build-assert-pg.sh — build a PostgreSQL 15 with assertions from Debian's
# source package, once, into a cache directory, and print its pg_config.
#
# Usage: scripts/build-assert-pg.sh [CACHE_DIR]   (default: .pg-assert)
#
# A second run finds CACHE_DIR/install/bin/pg_config and returns at once.
# Needs root for apt-get (deb-src entry, build dependencies); the build
# itself does not care who runs it.
set -euo pipefail

cache=$(realpath -m "${1:-.pg-assert}")
prefix="$cache/install"
stamp="$cache/.built"

# contrib modules the tests use (isolation specs start VACUUMs through
# dblink, which isolationtester cannot otherwise leave waiting on a pin;
# t/025 reads WAL records with pg_walinspect)
contrib="dblink pg_walinspect"

build_contrib() {
	for m in $contrib; do
		make -s -C "$1/contrib/$m" install >>"$cache/build.log" 2>&1 ||
			{ tail -40 "$cache/build.log" >&2; exit 1; }
	done
}

if [ -f "$stamp" ] && [ -x "$prefix/bin/pg_config" ]; then
	# a cache built before a contrib module was needed
	for m in $contrib; do
		if [ ! -f "$("$prefix/bin/pg_config" --sharedir)/extension/$m.control" ]; then
			build_contrib "$(ls -d "$cache"/postgresql-15*/ | head -1)"
			break
		fi
	done
	echo "$prefix/bin/pg_config"
	exit 0
fi

log() { echo "build-assert-pg: $*" >&2; }

mkdir -p "$cache"
if [ "$(id -u)" = 0 ]; then
	if ! apt-cache showsrc postgresql-15 2>/dev/null | grep -q '^Version:'; then
		log "adding a deb-src entry for bookworm main"
		cat > /etc/apt/sources.list.d/blinkam-deb-src.sources <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
		apt-get update -q >&2
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		dpkg-dev build-essential bison flex libreadline-dev zlib1g-dev \
		libipc-run-perl >&2
fi

cd "$cache"
if ! ls -d postgresql-15*/configure >/dev/null 2>&1; then
	log "fetching the postgresql-15 source package"
	rm -rf src-download && mkdir src-download
	# Take the version of bookworm main (security pockets may list
	# versions whose sources are gone from the mirror).
	ver=$(apt-cache showsrc postgresql-15 | awk '/^Version:/ {print $2}' | sort -V | head -1)
	(cd src-download && apt-get source -q --download-only "postgresql-15=$ver" >&2)
	tar -xjf src-download/postgresql-15_*.orig.tar.bz2
fi
srcdir=$(ls -d "$cache"/postgresql-15*/ | head -1)

log "configuring $srcdir (cassert, debug, tap tests) into $prefix"
cd "$srcdir"
./configure --prefix="$prefix" --enable-cassert --enable-debug \
	--enable-tap-tests --without-icu --without-readline \
	CFLAGS="-O1 -g" >"$cache/configure.log" 2>&1 ||
	{ tail -30 "$cache/configure.log" >&2; exit 1; }
log "building (log: $cache/build.log)"
# Generate the shared headers first: a parallel build that starts in
# src/common can otherwise race their generation.
{ make -s -C src/backend generated-headers &&
	make -j"$(nproc)" -s; } >"$cache/build.log" 2>&1 ||
	{ tail -40 "$cache/build.log" >&2; exit 1; }
make -s install >>"$cache/build.log" 2>&1 || { tail -40 "$cache/build.log" >&2; exit 1; }
build_contrib "$srcdir"
touch "$stamp"
echo "$prefix/bin/pg_config"
