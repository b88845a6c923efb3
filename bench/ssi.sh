#!/usr/bin/env bash
# ssi.sh — `make bench-ssi`: SERIALIZABLE transactions that read a row
# through the index and update it, btree against blink, in one private
# cluster, side by side.
#
# A table of ROWS rows with an index on id; CLIENTS clients each run
#   BEGIN ISOLATION LEVEL SERIALIZABLE;
#   SELECT v FROM s WHERE id = :id;  UPDATE s SET v = v + 1 WHERE id = :id;
#   COMMIT;
# for DURATION seconds (pgbench, --max-tries=1: a serialization failure
# is counted, not retried).  Reported per access method: TPS and the share
# of transactions that failed with a serialization error.  The index
# reads lock what they read (btree and blink: the leaf pages), and an
# update that cannot stay on its heap page inserts an index entry, which
# checks for those locks.
#
# Settings: ROWS (100000), CLIENTS (8), DURATION (10 s), REPEAT (3).
# Output: bench/results/ssi-STAMP.md (copied to ssi-latest.md).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
ROWS=${ROWS:-100000}
CLIENTS=${CLIENTS:-8}
DURATION=${DURATION:-10}
REPEAT=${REPEAT:-3}
JOBS=${JOBS:-$(nproc)}

# shellcheck source=bench/lib.sh
. "$here/lib.sh"
bench_start_cluster

cat >"$work/ssi.sql" <<SQL
\\set id random(1, $ROWS)
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT v FROM s WHERE id = :id;
UPDATE s SET v = v + 1 WHERE id = :id;
COMMIT;
SQL
chown "$owner" "$work/ssi.sql"

one_run() {		# am -> "tps failed_percent"
	local jobs=$((CLIENTS < JOBS ? CLIENTS : JOBS)) out
	psql_q -c "DROP TABLE IF EXISTS s" \
		-c "CREATE TABLE s (id int, v int)" \
		-c "INSERT INTO s SELECT i, 0 FROM generate_series(1, $ROWS) i" \
		-c "CREATE INDEX s_id ON s USING $1 (id)" \
		-c "VACUUM ANALYZE s" -c "CHECKPOINT"
	out=$(as_owner "$bindir/pgbench" -U postgres -n -M prepared -c "$CLIENTS" -j "$jobs" \
		-T "$DURATION" --max-tries=1 -f "$work/ssi.sql" 2>&1)
	awk '/^number of transactions actually processed:/ { ok = $6 }
		/^number of failed transactions:/ { failed = $5 }
		/^tps = / { tps = $3 }
		END { printf "%.0f %.2f\n", tps, (ok + failed > 0 ? 100 * failed / (ok + failed) : 0) }' <<<"$out"
}

declare -A tps fail
for am in btree blink; do tps[$am]=""; fail[$am]=""; done
for r in $(seq "$REPEAT"); do
	for am in btree blink; do
		read -r t f < <(one_run "$am")
		tps[$am]+="$t "; fail[$am]+="$f "
		say "run $r, $am: $t TPS, $f% serialization failures"
	done
done

med() { tr ' ' '\n' <<<"$1" | grep -v '^$' | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf (b > 0 ? "%.2f" : "-"), a / b }'; }
stamp=$(date -u +%Y%m%dT%H%M%SZ)
md=$here/results/ssi-$stamp.md
mkdir -p "$here/results"
{
	echo "SERIALIZABLE read-then-update through the index, $stamp: $(nproc) cores,"
	echo "$ROWS rows, $CLIENTS clients, ${DURATION} s, --max-tries=1; medians of $REPEAT alternating runs."
	echo
	echo "| measurement | btree | blink | blink / btree |"
	echo "|---|---:|---:|---:|"
	echo "| TPS (committed) | $(med "${tps[btree]}") | $(med "${tps[blink]}") | $(ratio "$(med "${tps[blink]}")" "$(med "${tps[btree]}")") |"
	echo "| serialization failures, % | $(med "${fail[btree]}") | $(med "${fail[blink]}") | |"
	echo
	echo "Every run (failures %): btree ${fail[btree]}; blink ${fail[blink]}"
} >"$md"
cp "$md" "$here/results/ssi-latest.md"
cat "$md"
