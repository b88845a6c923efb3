#!/usr/bin/env bash
# install-deps.sh — install from Debian's packages whatever blinkam's build,
# tests and benchmarks need and this machine lacks.  Needs root; as another
# user it only reports what is missing.
#
# Usage: scripts/install-deps.sh [extra-package ...]
set -euo pipefail

pkgs=(postgresql-15 postgresql-server-dev-15 postgresql-contrib
	libipc-run-perl build-essential "$@")

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing packages: ${missing[*]} (run as root to install them)" >&2
	exit 1
fi

echo "install-deps: installing ${missing[*]}" >&2
apt-get update -q >&2
# The packaged cluster is of no use to us: do not let the package create one.
mkdir -p /etc/postgresql-common/createcluster.d
echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.d/blinkam.conf
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
