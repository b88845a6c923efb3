# Mixed writes on three mirrored tables, checked against PostgreSQL itself
# while they run and after crashes.
#
# Every write transaction makes the same change to
#   hp: heap with btree indexes (the reference),
#   hb: heap with blink indexes,
#   bh: blinkheap with blink indexes,
# in one transaction: inserts of one row and of several (batches on
# blinkheap's shared hot page, holders' further rounds, statement buffers),
# updates of plain and of indexed columns, deletes, ON CONFLICT DO UPDATE.
# Writers run at REPEATABLE READ, so the three statements of one
# transaction see the same rows; pgbench retries their serialization
# failures and deadlocks.  At the same time VACUUM runs on all three
# tables and readers compare, in one REPEATABLE READ snapshot, what index
# scans, index-only scans, bitmap scans and parallel scans of hb and bh
# return with what hp returns: any difference ends that client with the
# two answers in its error.  After the run, and after each of two crashes
# in the middle of it (immediate stop), the three tables hold the same
# rows, every blink index passes blink_check with heapallindexed and the
# blinkheap table passes blinkheap_check.  A streaming standby and both
# crash recoveries replay it with wal_consistency_checking = 'generic';
# at the end the standby holds the primary's rows.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use Mirror;

my $node = PostgreSQL::Test::Cluster->new('mirror');
$node->init(allows_streaming => 1);
$node->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
wal_consistency_checking = 'generic'
max_connections = 60
max_worker_processes = 16
max_parallel_workers = 8
blinkam.hot_insert_pages = 1
blinkam.batch_rounds = 4
autovacuum_naptime = 1
autovacuum_vacuum_threshold = 50
autovacuum_vacuum_scale_factor = 0
autovacuum_vacuum_insert_threshold = 200
autovacuum_vacuum_insert_scale_factor = 0
autovacuum_analyze_threshold = 200
autovacuum_analyze_scale_factor = 0
));
$node->start;

# A streaming standby replays it all, comparing every page it replays with
# the primary's image of it.
$node->safe_psql('postgres', "SELECT pg_create_physical_replication_slot('mirror_slot')");
$node->backup('backup');
my $standby = PostgreSQL::Test::Cluster->new('mirror_standby');
$standby->init_from_backup($node, 'backup', has_streaming => 1);
$standby->append_conf('postgresql.conf', "primary_slot_name = 'mirror_slot'\n");
$standby->start;

$node->safe_psql('postgres', q{
CREATE EXTENSION blinkam;
CREATE SEQUENCE ids;
} . mirror_tables_sql() . q{

-- The query that reads one table for keys $1..$2 the way mode says, with
-- the planner settings that make it do so set for this transaction.
CREATE FUNCTION mirror_query(tab text, mode text)
RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_config('enable_seqscan', (mode = 'parallel')::text, true);
	PERFORM set_config('enable_bitmapscan', (mode = 'bitmap')::text, true);
	PERFORM set_config('enable_indexscan', (mode <> 'bitmap')::text, true);
	PERFORM set_config('enable_indexonlyscan', (mode = 'ios')::text, true);
	IF mode = 'ios' THEN
		-- only indexed columns: an index-only scan of (k, v) INCLUDE (id)
		RETURN format('SELECT count(*) || '':'' || coalesce(sum(id), 0) || '':'' || coalesce(sum(v), 0)'
					  ' FROM %I WHERE k BETWEEN $1 AND $2', tab);
	ELSIF mode = 'parallel' THEN
		PERFORM set_config('parallel_setup_cost', '0', true);
		PERFORM set_config('parallel_tuple_cost', '0', true);
		PERFORM set_config('min_parallel_table_scan_size', '0', true);
		PERFORM set_config('max_parallel_workers_per_gather', '2', true);
		RETURN format('SELECT count(*) || '':'' || coalesce(sum(id), 0) || '':'' || coalesce(sum(v), 0)'
					  ' || '':'' || coalesce(sum(length(pad)), 0) FROM %I'
					  ' WHERE $1 <= $2', tab);
	END IF;
	RETURN format('SELECT coalesce(md5(string_agg(id || '':'' || k || '':'' || v || '':'' || md5(pad), '','''
				  ' ORDER BY id)), ''none'') FROM %I WHERE k BETWEEN $1 AND $2', tab);
END $$;

CREATE FUNCTION mirror_digest(tab text, lo int, hi int, mode text)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	d text;
BEGIN
	EXECUTE mirror_query(tab, mode) INTO d USING lo, hi;
	RETURN d;
END $$;

-- The plan of that query, on one line.
CREATE FUNCTION mirror_plan(tab text, mode text)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	q text := mirror_query(tab, mode);
	l text;
	p text := '';
BEGIN
	FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || replace(replace(q, '$1', '1'), '$2', '9') LOOP
		p := p || l || ' ';
	END LOOP;
	RETURN p;
END $$;

} . mirror_check_sql());

my %scripts = (
	# several rows in one statement, the same rows into the three tables
	'ins_many@6' => q{
\set k random(1, 400)
\set n random(1, 6)
WITH r AS (INSERT INTO hp SELECT nextval('ids'), :k + g % 3, g, repeat(md5(:k::text), (:k * g) % 120) FROM generate_series(1, :n) g RETURNING *), a AS (INSERT INTO hb SELECT * FROM r) INSERT INTO bh SELECT * FROM r;
},
	# one row per statement; its holder waits a moment before it takes
	# what others published, so that the hot page's batches form
	'ins_one@6' => q{
\set k random(1, 400)
SELECT nextval('ids') AS nid \gset
BEGIN;
SET LOCAL blinkam.debug_batch_delay = 1;
INSERT INTO %T VALUES (:nid, :k, 0, 'one');
COMMIT;
},
	# plain columns of every row of one key
	'upd_group@3' => q{
\set k random(1, 400)
BEGIN ISOLATION LEVEL REPEATABLE READ;
UPDATE %T SET v = v + 1, pad = left(pad || 'u', 3000) WHERE k = :k;
COMMIT;
},
	# the indexed key of one row
	'upd_key@2' => q{
\set k random(1, 400)
\set off random(0, 3000)
SELECT last_value - :off AS tid FROM ids \gset
BEGIN ISOLATION LEVEL REPEATABLE READ;
UPDATE %T SET k = :k, v = v - 1 WHERE id = :tid;
COMMIT;
},
	'del_one@2' => q{
\set off random(0, 3000)
\set neg random(1, 1500)
SELECT last_value - :off AS tid FROM ids \gset
BEGIN ISOLATION LEVEL REPEATABLE READ;
DELETE FROM %T WHERE id IN (:tid, -:neg);
COMMIT;
},
	'del_group@1' => q{
\set k random(1, 400)
BEGIN ISOLATION LEVEL REPEATABLE READ;
DELETE FROM %T WHERE k = :k AND v % 2 = 0;
COMMIT;
},
	# ids of their own (negative: the sequence's ids may be taken and not
	# yet inserted): new ones, ones that exist, ones deleted and back again
	'upsert@2' => q{
\set k random(1, 400)
\set neg random(1, 1500)
BEGIN ISOLATION LEVEL REPEATABLE READ;
INSERT INTO %T VALUES (-:neg, :k, 7, 'ups') ON CONFLICT (id) DO UPDATE SET v = %T.v + 10;
COMMIT;
},
	'read_index@2' => q{
\set k random(1, 400)
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT mirror_check(:k, :k + 8, 'index');
COMMIT;
},
	'read_bitmap@1' => q{
\set k random(1, 400)
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT mirror_check(:k, :k + 30, 'bitmap');
COMMIT;
},
	'read_ios@2' => q{
\set k random(1, 400)
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT mirror_check(:k, :k + 30, 'ios');
COMMIT;
},
	'read_parallel@1' => q{
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT mirror_check(0, 0, 'parallel');
COMMIT;
},
	# No truncation of the heap tables: PostgreSQL's VACUUM tries for up
	# to 5 s to get the lock for it while these writers hold theirs, and
	# every other client's VACUUM of that table queues behind it (one run
	# stalled 45 s that way, with 7 clients in line).  blinkheap's
	# truncation makes one conditional try.
	'vacuum@1' => q{
VACUUM (TRUNCATE false) hp;
VACUUM (TRUNCATE false) hb;
VACUUM bh;
},
);
my @files = pgbench_files($node, '019', %scripts);

sub pgbench_cmd
{
	my ($secs) = @_;
	return [ 'pgbench', '--no-vacuum', '--client=12', '--jobs=2', "--time=$secs",
		'--max-tries=1000', @files, '--host', $node->host, '--port', $node->port,
		'postgres' ];
}

# The three tables hold the same rows; every index agrees with its table.
sub check_mirror
{
	my ($n, $when) = @_;
	check_same_rows($n, $when);
	check_scans($n, $when, qw(index ios bitmap));
	check_indexes($n, $when);
}

# A run to its end: no client may fail, readers included.
{
	my ($out, $err) = ('', '');
	IPC::Run::run(pgbench_cmd(30), '>', \$out, '2>', \$err);
	my $status = $?;
	is($status, 0, 'mixed run: pgbench exits cleanly') or diag($err);
	unlike($err, qr/mirror differs/, 'mixed run: no reader saw hb or bh differ from hp');
	my ($done) = $out =~ /number of transactions actually processed: (\d+)/;
	my ($retried) = $out =~ /number of transactions retried: (\d+)/;
	# A serialization failure once the time is up is not retried: those
	# are the only failures pgbench counts without ending the client.
	my ($failed) = $out =~ /number of failed transactions: (\d+)/;
	note("mixed run: $done transactions, " . ($retried // 0) . ' retried, '
		  . ($failed // 0) . ' failed at the end');
	ok(($done // 0) > 1000, 'mixed run: the clients did work');
}
my %count = map { split /\|/ } split /\n/, $node->safe_psql('postgres', q{
	SELECT name, value FROM blinkam_stats()
	 WHERE name IN ('batched_inserts', 'blinkheap_batched_inserts', 'batch_rounds')});
note(join(', ', map { "$_ $count{$_}" } sort keys %count));
ok($count{batched_inserts} > 0 && $count{blinkheap_batched_inserts} > 0,
	'mixed run: holders inserted entries and rows that other backends published');

# The readers read the way they say.
my %plan = (
	index => qr/Index Scan using \w+_kv on/,
	ios => qr/Index Only Scan using \w+_kv on/,
	bitmap => qr/Bitmap Heap Scan on .* Bitmap Index Scan on \w+_kv\b/,
	parallel => qr/Workers Planned: 2 .* Parallel Seq Scan on/);
for my $t (qw(hb bh))
{
	for my $mode (sort keys %plan)
	{
		like($node->safe_psql('postgres',
				"BEGIN; SELECT mirror_plan('$t', '$mode'); COMMIT;"),
			$plan{$mode}, "a $mode read of $t is planned as one");
	}
}
check_mirror($node, 'after the mixed run');

# Crashes in the middle of the same workload.
for my $cycle (1 .. 2)
{
	my ($out, $err) = ('', '');
	my $before = $node->safe_psql('postgres', 'SELECT last_value FROM ids');
	my $h = IPC::Run::start(pgbench_cmd(60), '>', \$out, '2>', \$err);
	my $after = 1500 + int(rand(3000));
	if (!$node->poll_query_until('postgres',
			"SELECT last_value > $before + $after FROM ids"))
	{
		# what every backend was doing, for whoever reads the log
		diag($node->safe_psql('postgres', q{
			SELECT pid, backend_type, state, wait_event_type, wait_event,
			       now() - query_start AS running, left(query, 100)
			  FROM pg_stat_activity WHERE pid <> pg_backend_pid()}));
		diag('pgbench: ' . $err);
		die "crash $cycle: pgbench made no progress";
	}
	$node->stop('immediate');
	$h->finish;
	unlike($err, qr/mirror differs/, "crash $cycle: no reader saw a difference before the crash");
	$node->start;
	check_mirror($node, "after crash $cycle");
}

# The standby, which went on through both crashes, holds what the primary
# holds, and its pages were always the primary's.
$node->wait_for_catchup($standby);
check_mirror($standby, 'on the standby');
for my $t (qw(hp hb bh))
{
	my $q = "SELECT mirror_digest('$t', -1000000, 1000000, 'index')";
	is($standby->safe_psql('postgres', $q), $node->safe_psql('postgres', $q),
		"the standby's $t is the primary's");
}
ok(!$standby->log_contains('inconsistent page'), 'no inconsistent page in standby replay');
ok(!$node->log_contains('inconsistent page'), 'no inconsistent page in crash recovery');

$standby->stop;
$node->stop;
done_testing();
