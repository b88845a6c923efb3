#!/usr/bin/env bash
# unique.sh — `make bench-unique`: the unique-index path, btree against
# blink, in one private cluster, side by side.
#
# A table of ROWS rows with a unique index on text keys of about 660
# bytes (a tall tree).  One row in every STEP is deleted while another
# session holds an xid (so the deleted versions stay: they are not dead to
# everyone), then the same keys are inserted again, one INSERT each, from
# a PL/pgSQL loop: every insert checks equal entries whose rows are
# deleted but not yet dead.  Measured per access method: the time of the
# re-insert loop (in the server), index WAL bytes per insert, and for
# blink the descents per insert (blinkam_stats).  The checkpoint comes
# before the index is built, so the re-inserts write no page images of
# index pages (the build logged them after it): the records measure the
# inserts themselves.
#
# Settings: ROWS (200000), STEP (100: 2,000 re-inserts), REPEAT (5).
# Output: bench/results/unique-STAMP.md (copied to unique-latest.md).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
ROWS=${ROWS:-200000}
STEP=${STEP:-100}
REPEAT=${REPEAT:-5}

# shellcheck source=bench/lib.sh
. "$here/lib.sh"
bench_start_cluster
bench_create_scan_ms

psql_q <<SQL
CREATE FUNCTION ukey(i int) RETURNS text IMMUTABLE LANGUAGE sql
	AS \$\$ SELECT lpad(i::text, 10, '0') || repeat(md5(i::text), 20) \$\$;
CREATE PROCEDURE reinsert(t regclass) LANGUAGE plpgsql AS \$\$
BEGIN
	FOR i IN 1..($ROWS / $STEP) LOOP
		EXECUTE format('INSERT INTO %s VALUES (ukey(\$1), \$1)', t) USING i * $STEP;
	END LOOP;
END \$\$;
CREATE FUNCTION counter(n text) RETURNS bigint LANGUAGE sql
	AS \$\$ SELECT value FROM blinkam_stats() WHERE name = n \$\$;
SQL

one_run() {		# am -> "ms wal_per_insert descents_per_insert"
	local am=$1 lsn0 d0 ms lsn1 d1
	psql_q -c "DROP TABLE IF EXISTS u" \
		-c "CREATE TABLE u (k text, v int)" \
		-c "INSERT INTO u SELECT ukey(i), i FROM generate_series(1, $ROWS) i" \
		-c "VACUUM ANALYZE u" -c "CHECKPOINT" \
		-c "CREATE UNIQUE INDEX u_k ON u USING $am (k)"
	bench_open_xids 1
	psql_q -c "DELETE FROM u WHERE v % $STEP = 0"
	lsn0=$(psql_q -c "SELECT pg_current_wal_insert_lsn()")
	d0=$(psql_q -c "SELECT counter('descents')")
	ms=$(psql_q -c "SELECT scan_ms('CALL reinsert(''u'')')")
	lsn1=$(psql_q -c "SELECT pg_current_wal_insert_lsn()")
	d1=$(psql_q -c "SELECT counter('descents')")
	bench_close_xids
	psql_q -c "SELECT round(pg_wal_lsn_diff('$lsn1', '$lsn0') / ($ROWS / $STEP)), round(($d1 - $d0)::numeric / ($ROWS / $STEP), 2)" |
		awk -F'|' -v ms="$ms" -v am="$am" '{ print ms, $1, (am == "blink" ? $2 : "-") }'
}

declare -A ms wal desc
for am in btree blink; do ms[$am]=""; wal[$am]=""; desc[$am]=""; done
for r in $(seq "$REPEAT"); do
	for am in btree blink; do
		read -r m w d < <(one_run "$am")
		ms[$am]+="$m "; wal[$am]+="$w "; desc[$am]+="$d "
		say "run $r, $am: $m ms, $w WAL bytes per insert, $d descents per insert"
	done
done

med() { tr ' ' '\n' <<<"$1" | grep -v '^$' | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf (b > 0 ? "%.2f" : "-"), a / b }'; }
stamp=$(date -u +%Y%m%dT%H%M%SZ)
md=$here/results/unique-$stamp.md
mkdir -p "$here/results"
{
	echo "Unique-index re-inserts over deleted-but-visible equal keys, $stamp:"
	echo "$(nproc) cores, $ROWS rows, text keys of ~660 bytes, $((ROWS / STEP)) single-row"
	echo "INSERTs from a PL/pgSQL loop; medians of $REPEAT alternating runs in one cluster."
	echo
	echo "| measurement | btree | blink | blink / btree |"
	echo "|---|---:|---:|---:|"
	echo "| re-insert loop, ms | $(med "${ms[btree]}") | $(med "${ms[blink]}") | $(ratio "$(med "${ms[blink]}")" "$(med "${ms[btree]}")") |"
	echo "| WAL bytes per insert | $(med "${wal[btree]}") | $(med "${wal[blink]}") | $(ratio "$(med "${wal[blink]}")" "$(med "${wal[btree]}")") |"
	echo "| descents per insert | - | $(med "${desc[blink]}") | |"
	echo
	echo "Every run (ms): btree ${ms[btree]}; blink ${ms[blink]}"
} >"$md"
cp "$md" "$here/results/unique-latest.md"
cat "$md"
