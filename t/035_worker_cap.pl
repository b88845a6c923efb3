# blinkam workers take background worker slots (max_worker_processes)
# that parallel queries and logical replication need too.  After a
# restart the launcher asks every database for its start-up sweep at
# once, and a worker stays after its work for blinkam.worker_idle_timeout:
# with many databases, blinkam workers filled every slot for that long.
# Now at most blinkam.max_workers run at once, and an idle worker ends at
# once when another database waits for one.
#
# Six databases with the extension (postgres, template1, d1-d4), at most
# two workers, workers that would stay idle for an hour, eight background
# worker slots: after a restart every database gets a worker for its
# sweep (worker_starts reaches six), no more than two workers are seen at
# any time meanwhile, and then a parallel query gets the four workers it
# asks for.  Without the cap six workers ran at once and stayed, and the
# parallel query got one; without the idle worker making room, the first
# two stayed for an hour and the others got none.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $node = PostgreSQL::Test::Cluster->new('worker_cap');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'blinkam'
autovacuum = off
max_worker_processes = 8
blinkam.max_workers = 2
blinkam.worker_idle_timeout = '1h'
});
$node->start;

$node->safe_psql('template1', 'CREATE EXTENSION blinkam');
$node->safe_psql('postgres', 'CREATE EXTENSION blinkam');
for my $i (1 .. 4)
{
	$node->safe_psql('postgres', "CREATE DATABASE d$i");
	$node->safe_psql("d$i", q{
CREATE TABLE t (a int);
CREATE INDEX t_a ON t USING blink (a);
INSERT INTO t SELECT generate_series(1, 1000);
});
}

# every database asks for its start-up sweep at the restart
$node->restart;

my $workers = "SELECT count(*) FROM pg_stat_activity
	WHERE backend_type = 'blinkam worker'";
my $starts = "SELECT value FROM blinkam_stats() WHERE name = 'worker_starts'";
my $most = 0;
my $started = 0;
for (my $i = 0; $i < 600 && $started < 6; $i++)
{
	my $n = $node->safe_psql('postgres', $workers);
	$most = $n if $n > $most;
	$started = $node->safe_psql('postgres', $starts);
	usleep(100_000);
}
is($started, 6, 'each of the six databases got a worker for its sweep');
ok($most >= 1 && $most <= 2, "at most two workers at a time (seen: $most)");

# a parallel query gets its workers while blinkam's (idle for an hour) are there
$node->safe_psql('postgres', 'CREATE TABLE big AS SELECT g FROM generate_series(1, 200000) g');
my $plan = $node->safe_psql('postgres', q{
SET max_parallel_workers_per_gather = 4;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM big;
});
like($plan, qr/Workers Launched: 4/, 'a parallel query launches its four workers');

for my $i (1 .. 4)
{
	is($node->safe_psql("d$i", "SELECT blink_check('t_a', true)"), '',
		"d$i: t_a checks");
}

$node->stop;
done_testing();
