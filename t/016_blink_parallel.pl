# Parallel blink scans while other sessions insert and split pages.
# The table starts with 200,000 rows of even keys (tag 0) that nobody
# changes; four pgbench clients insert rows with random odd keys (tag 1),
# splitting leaves all the time.  Meanwhile parallel index scans, parallel
# index-only scans (forward, backward under Gather Merge, with array keys)
# count the tag-0 rows of random ranges: every answer must be the number
# of even keys in the range, as a serial scan gives.  Then blink_check.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my $node = PostgreSQL::Test::Cluster->new('parallel');
$node->init;
$node->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
max_worker_processes = 16
max_parallel_workers = 8
autovacuum = off
));
$node->start;
$node->safe_psql('postgres', q(
CREATE EXTENSION blinkam;
CREATE TABLE t (k bigint, tag int);
INSERT INTO t SELECT 2 * i, 0 FROM generate_series(1, 200000) i;
CREATE INDEX t_k ON t USING blink (k);
VACUUM ANALYZE t;
));

my $script = $node->basedir . '/insert.sql';
PostgreSQL::Test::Utils::append_to_file($script, q(
\set k random(0, 200000)
INSERT INTO t SELECT 2 * (:k + i) + 1, 1 FROM generate_series(0, 9) i;
));
my ($out, $err) = ('', '');
my $h = IPC::Run::start(
	[ 'pgbench', '--no-vacuum', '--client=4', '--jobs=2', '--time=25',
	  '--file', $script, '--host', $node->host, '--port', $node->port, 'postgres' ],
	'>', \$out, '2>', \$err);

my $settings = q(
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET cpu_operator_cost = 0;
SET min_parallel_index_scan_size = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 3;
SET enable_seqscan = off; SET enable_bitmapscan = off;
);

# The plans are parallel.
my $plans = $node->safe_psql('postgres', $settings . q(
EXPLAIN (COSTS OFF) SELECT count(*) FROM t WHERE k BETWEEN 1000 AND 300000 AND tag = 0;
EXPLAIN (COSTS OFF) SELECT k FROM t WHERE k BETWEEN 1000 AND 300000 AND tag = 0 ORDER BY k DESC;
));
like($plans, qr/Parallel Index Scan using t_k/, 'forward parallel index scan planned');
like($plans, qr/Parallel Index Scan Backward using t_k/, 'backward parallel index scan planned');

my ($rounds, $bad) = (0, 0);
my $deadline = time() + 20;
while (time() < $deadline)
{
	my $a = int(rand(350000));
	my $b = $a + int(rand(60000));
	# even keys in [a, b] below 400001
	my $lo = $a % 2 ? $a + 1 : $a;
	$lo = 2 if $lo < 2;
	my $hi = $b > 400000 ? 400000 : ($b % 2 ? $b - 1 : $b);
	my $expect = $hi >= $lo ? ($hi - $lo) / 2 + 1 : 0;
	my @keys = map { 2 * (1 + int(rand(200000))) } 1 .. 300;
	my %uniq = map { $_ => 1 } @keys;
	my $nkeys = scalar(keys %uniq);
	my $arr = join(',', @keys);
	my $res = $node->safe_psql('postgres', $settings . qq(
SELECT count(*) FROM t WHERE k BETWEEN $a AND $b AND tag = 0;
SELECT count(*), coalesce(bool_and(ordered), true) FROM
  (SELECT k <= lag(k) OVER () IS NOT FALSE AS ordered FROM
    (SELECT k FROM t WHERE k BETWEEN $a AND $b AND tag = 0 ORDER BY k DESC) s) o;
SELECT count(*) FROM t WHERE k = ANY ('{$arr}'::bigint[]) AND tag = 0;
SELECT count(k) FROM t WHERE k BETWEEN $a AND $b AND k % 2 = 0;
));
	my @r = split /\n/, $res;
	$rounds++;
	if ($r[0] != $expect || $r[1] ne "$expect|t" || $r[2] != $nkeys || $r[3] != $expect)
	{
		$bad++;
		diag("range [$a, $b]: expected $expect, $nkeys keys; got @r");
	}
}
$h->finish;
ok($rounds > 10, "$rounds rounds of parallel scans during concurrent inserts");
is($bad, 0, 'parallel scans gave the serial answer every time');
like($out, qr/number of transactions actually processed: [1-9]/, 'the inserts ran');
cmp_ok($node->safe_psql('postgres',
	"SELECT value FROM blinkam_stats() WHERE name = 'splits'"), '>', 100,
	'leaves split meanwhile');
$node->safe_psql('postgres', "SELECT blink_check('t_k', true)");
pass('blink_check with heapallindexed after the run');
$node->stop;
done_testing();
