#!/usr/bin/env bash
# churn.sh — `make bench-churn`: index size and TPS under churn with
# autovacuum off, btree against blink, in one private cluster, side by
# side.  Goal: blink's indexes within 1.1x of btree's size.
#
# Two workloads, each run with both access methods (the order alternates
# from one repetition to the next); every run builds its table and
# indexes afresh, then VACUUM ANALYZE and CHECKPOINT, then CLIENTS
# pgbench clients for DURATION seconds:
#   update    churn_u (id, k, pad) of ROWS rows, fillfactor 100, an index
#             on id and one on k (both of the access method under test);
#               UPDATE churn_u SET k = k + 1 WHERE id = :id;
#             (random id): every update changes an indexed column, so none
#             is HOT, and each adds an entry to both indexes; the executor
#             tells the id index its key did not change (the hint for
#             bottom-up deletion), and nothing scans the k index.
#   reinsert  churn_d (k, v) of ROWS rows, a unique index on k;
#               BEGIN; DELETE FROM churn_d WHERE k = :k;
#               INSERT INTO churn_d VALUES (:k, 0); COMMIT;
#             Each client draws its keys from its own residue class
#             (k = client_id + 1 + CLIENTS * n), so two clients never
#             re-insert the same key at once (which would be a unique
#             violation and abort the client).
# The tables have autovacuum_enabled = false: only the index AM's own
# cleanup (entries marked dead by scans, removed before a leaf splits,
# and btree's or blink's bottom-up deletion) keeps the indexes down.
# Reported per access method: index sizes after the build and after the
# churn, growth per transaction, TPS; for blink the deltas of the
# entries_marked_dead, entries_deleted and splits counters, and the size
# of the pages in use (blink's file also holds its pool's empty pages).  After each
# blink run blink_check(index, true) verifies every index (it raises an
# error on corruption) and the table must still hold ROWS rows.
#
# Settings: ROWS (100000), CLIENTS (4), DURATION (60 s), REPEAT (3),
# WORKLOADS ("update reinsert"), BLINK_OPTIONS (reloptions for blink's
# non-unique indexes, e.g. "deduplicate_items = off"; none by default).
# Output: bench/results/churn-STAMP.md (copied to churn-latest.md).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
ROWS=${ROWS:-100000}
CLIENTS=${CLIENTS:-4}
DURATION=${DURATION:-60}
REPEAT=${REPEAT:-3}
BLINK_OPTIONS=${BLINK_OPTIONS:-}
WORKLOADS=${WORKLOADS:-"update reinsert"}
JOBS=${JOBS:-$(nproc)}

for wl in $WORKLOADS; do
	case $wl in
	update | reinsert) ;;
	*) echo "churn.sh: unknown workload \"$wl\" (update, reinsert)" >&2; exit 1 ;;
	esac
done

# shellcheck source=bench/lib.sh
. "$here/lib.sh"
bench_start_cluster

cat >"$work/update.sql" <<SQL
\\set id random(1, $ROWS)
UPDATE churn_u SET k = k + 1 WHERE id = :id;
SQL
cat >"$work/reinsert.sql" <<SQL
\\set k 1 + :client_id + $CLIENTS * random(0, ($ROWS - 1 - :client_id) / $CLIENTS)
BEGIN;
DELETE FROM churn_d WHERE k = :k;
INSERT INTO churn_d VALUES (:k, 0);
COMMIT;
SQL
chown "$owner" "$work/update.sql" "$work/reinsert.sql"

psql_q <<'SQL'
-- (0 for a counter this build does not have: a run of an older build)
CREATE FUNCTION churn_counters() RETURNS text LANGUAGE sql AS $$
	SELECT string_agg(coalesce(s.value, 0)::text, ' ' ORDER BY n.name)
	  FROM unnest(ARRAY['entries_deleted', 'entries_marked_dead', 'splits']) n(name)
	  LEFT JOIN blinkam_stats() s ON s.name = n.name $$;
-- bytes of the pages in use: blink's workers keep empty pages in a pool
-- ahead of need, which its file size includes
CREATE FUNCTION used_bytes(i regclass) RETURNS bigint LANGUAGE sql AS $$
	SELECT CASE WHEN (SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
					   WHERE c.oid = i) = 'blink'
		   THEN (SELECT (pages - free_pages) * 8192 FROM blink_tree_stats(i))
		   ELSE pg_relation_size(i) END $$;
SQL

declare -A table indexes
table[update]=churn_u; indexes[update]="churn_u_id churn_u_k"
table[reinsert]=churn_d; indexes[reinsert]="churn_d_k"

# The WITH clause of blink's non-unique indexes (BLINK_OPTIONS), if any.
blink_with() {	# am
	if [ "$1" = blink ] && [ -n "$BLINK_OPTIONS" ]; then
		echo "WITH ($BLINK_OPTIONS)"
	fi
}

setup() {		# workload, am
	case $1 in
	update)
		psql_q -c "DROP TABLE IF EXISTS churn_u" \
			-c "CREATE TABLE churn_u (id int, k int, pad text)
				WITH (autovacuum_enabled = false, fillfactor = 100)" \
			-c "INSERT INTO churn_u SELECT i, i, md5(i::text) FROM generate_series(1, $ROWS) i" \
			-c "CREATE INDEX churn_u_id ON churn_u USING $2 (id) $(blink_with "$2")" \
			-c "CREATE INDEX churn_u_k ON churn_u USING $2 (k) $(blink_with "$2")" ;;
	reinsert)
		psql_q -c "DROP TABLE IF EXISTS churn_d" \
			-c "CREATE TABLE churn_d (k int, v int) WITH (autovacuum_enabled = false)" \
			-c "INSERT INTO churn_d SELECT i, 0 FROM generate_series(1, $ROWS) i" \
			-c "CREATE UNIQUE INDEX churn_d_k ON churn_d USING $2 (k)" ;;
	esac
	psql_q -c "VACUUM ANALYZE ${table[$1]}" -c "CHECKPOINT"
}

# Every figure of every run goes into r[workload.am.figure] as a list of
# numbers separated by spaces.
declare -A r

one_run() {		# workload, am, repetition
	local wl=$1 am=$2 rep=$3 jobs=$((CLIENTS < JOBS ? CLIENTS : JOBS))
	local i s0 s1 c0 c1 out tps xacts n ed0 em0 sp0 ed1 em1 sp1 note=""
	setup "$wl" "$am"
	declare -A size0
	for i in ${indexes[$wl]}; do
		size0[$i]=$(psql_q -c "SELECT pg_relation_size('$i')")
	done
	c0=$(psql_q -c "SELECT churn_counters()")
	if ! out=$(as_owner "$bindir/pgbench" -U postgres -n -M prepared -c "$CLIENTS" -j "$jobs" \
		-T "$DURATION" -f "$work/$wl.sql" 2>&1); then
		echo "$out" >&2
		say "pgbench failed ($wl, $am)"
		exit 1
	fi
	c1=$(psql_q -c "SELECT churn_counters()")
	tps=$(awk '/^tps = / { printf "%.0f", $3 }' <<<"$out")
	xacts=$(awk '/^number of transactions actually processed:/ { print $6 }' <<<"$out")
	r[$wl.$am.tps]+="$tps "
	for i in ${indexes[$wl]}; do
		s0=${size0[$i]}
		s1=$(psql_q -c "SELECT pg_relation_size('$i')")
		r[$wl.$am.$i.mb0]+="$(awk -v b="$s0" 'BEGIN { printf "%.2f", b / 1048576 }') "
		r[$wl.$am.$i.mb1]+="$(awk -v b="$s1" 'BEGIN { printf "%.2f", b / 1048576 }') "
		r[$wl.$am.$i.used]+="$(psql_q -c "SELECT round(used_bytes('$i') / 1048576.0, 2)") "
		r[$wl.$am.$i.grow]+="$(awk -v a="$s0" -v b="$s1" -v n="$xacts" 'BEGIN { printf "%.1f", (n > 0 ? (b - a) / n : 0) }') "
		note+=", $i $((s0 / 8192))->$((s1 / 8192)) pages"
		if [ "$am" = blink ]; then
			psql_q -c "SELECT blink_check('$i', true)" >/dev/null
		fi
	done
	n=$(psql_q -c "SELECT count(*) FROM ${table[$wl]}")
	if [ "$n" != "$ROWS" ]; then
		say "$wl, $am: ${table[$wl]} holds $n rows, not $ROWS"
		exit 1
	fi
	if [ "$am" = blink ]; then
		read -r ed0 em0 sp0 <<<"$c0"
		read -r ed1 em1 sp1 <<<"$c1"
		r[$wl.marked]+="$((em1 - em0)) "
		r[$wl.deleted]+="$((ed1 - ed0)) "
		r[$wl.splits]+="$((sp1 - sp0)) "
		note+=", marked dead $((em1 - em0)), deleted $((ed1 - ed0)), splits $((sp1 - sp0)); blink_check ok"
	fi
	say "$wl run $rep, $am: $tps TPS, $xacts transactions$note"
}

for wl in $WORKLOADS; do
	for rep in $(seq "$REPEAT"); do
		if ((rep % 2)); then order="btree blink"; else order="blink btree"; fi
		for am in $order; do
			one_run "$wl" "$am" "$rep"
		done
	done
done

med() { tr ' ' '\n' <<<"$1" | grep -v '^$' | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf (b > 0 ? "%.2f" : "-"), a / b }'; }
row() {		# label, key (without the am) -> a table row: btree, blink, ratio
	local b k
	b=$(med "${r[$2.btree$3]}")
	k=$(med "${r[$2.blink$3]}")
	echo "| $1 | $b | $k | $(ratio "$k" "$b") |"
}
label() {
	case $1 in
	churn_u_id) echo "id index" ;;
	churn_u_k) echo "k index" ;;
	churn_d_k) echo "unique k index" ;;
	esac
}

server=$(psql_q -c "SELECT 'PostgreSQL ' || current_setting('server_version') ||
	', debug_assertions ' || current_setting('debug_assertions')")
stamp=$(date -u +%Y%m%dT%H%M%SZ)
md=$here/results/churn-$stamp.md
mkdir -p "$here/results"
{
	echo "Index churn with autovacuum off, $stamp: $(nproc) cores, $server"
	echo "($("$pg_config" --bindir)); $ROWS rows, $CLIENTS clients, ${DURATION} s per run;"
	echo "medians of $REPEAT runs per access method, alternating their order, in one cluster."
	[ -z "$BLINK_OPTIONS" ] || echo "blink's non-unique indexes WITH ($BLINK_OPTIONS)."
	for wl in $WORKLOADS; do
		echo
		case $wl in
		update) echo "update: UPDATE churn_u SET k = k + 1 WHERE id = :id (non-HOT; indexes on id and k)" ;;
		reinsert) echo "reinsert: BEGIN; DELETE k; INSERT k; COMMIT (unique index on k)" ;;
		esac
		echo
		echo "| measurement | btree | blink | blink / btree |"
		echo "|---|---:|---:|---:|"
		row "TPS" "$wl" ".tps"
		for i in ${indexes[$wl]}; do
			row "$(label "$i") after build, MiB" "$wl" ".$i.mb0"
			row "$(label "$i") after churn, MiB" "$wl" ".$i.mb1"
			row "$(label "$i") after churn, pages in use, MiB" "$wl" ".$i.used"
			row "$(label "$i") growth, bytes per transaction" "$wl" ".$i.grow"
		done
		echo
		for i in ${indexes[$wl]}; do
			b=$(med "${r[$wl.btree.$i.mb1]}"); k=$(med "${r[$wl.blink.$i.mb1]}")
			echo "Goal (blink within 1.1x of btree's size), $(label "$i"): $(ratio "$k" "$b")x," \
				"$(awk -v a="$k" -v b="$b" 'BEGIN { print (a <= 1.1 * b ? "met" : "NOT met") }')."
		done
		echo "blink counters per run (median): entries_marked_dead $(med "${r[$wl.marked]}")," \
			"entries_deleted $(med "${r[$wl.deleted]}"), splits $(med "${r[$wl.splits]}")."
		echo "Every run: TPS btree ${r[$wl.btree.tps]}; blink ${r[$wl.blink.tps]}"
		for i in ${indexes[$wl]}; do
			echo "Every run: $(label "$i") after churn, MiB: btree ${r[$wl.btree.$i.mb1]}; blink ${r[$wl.blink.$i.mb1]}"
		done
		echo "Every run: blink entries_marked_dead ${r[$wl.marked]}; entries_deleted ${r[$wl.deleted]}; splits ${r[$wl.splits]}"
	done
} >"$md"
cp "$md" "$here/results/churn-latest.md"
cat "$md"
