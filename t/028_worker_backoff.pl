# A database whose workers cannot connect (ALLOW_CONNECTIONS false, set
# while a session stays connected and splits its blink index) gets three
# failing workers, then one every ten seconds: the launcher backs off,
# counts them in worker_start_failures and says so in the log, instead of
# starting hundreds of workers a second for as long as the database
# refuses connections.  Its requests are kept: once connections are
# allowed again a worker comes back by itself and refills the pool.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $node = PostgreSQL::Test::Cluster->new('backoff');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'blinkam'
# the worker leaves soon after its refills, before connections are refused
blinkam.worker_idle_timeout = '1s'
});
$node->start;

$node->safe_psql('postgres', 'CREATE EXTENSION blinkam; CREATE DATABASE shut');
$node->safe_psql('shut', q{
CREATE EXTENSION blinkam;
CREATE TABLE t (a int);
CREATE INDEX t_a ON t USING blink (a);
INSERT INTO t SELECT generate_series(1, 20000);
});

sub counter
{
	my ($name) = @_;
	return $node->safe_psql('postgres',
		"SELECT value FROM blinkam_stats() WHERE name = '$name'");
}

# The failing workers' own messages, since $offset in the server log.
sub refusals
{
	my ($offset) = @_;
	my $log = slurp_file($node->logfile, $offset);
	my @lines = $log =~ /database "shut" is not currently accepting connections/g;
	return scalar @lines;
}

# The session that stays connected; the pool's first refill is done and
# its worker has left.
my $s = $node->background_psql('shut');
ok($node->poll_query_until('shut',
		"SELECT leaf_pages > 0 FROM blinkam_pools() WHERE index = 't_a'::regclass"),
	'the pool of t_a is refilled');
ok($node->poll_query_until('postgres',
		"SELECT count(*) = 0 FROM pg_stat_activity
		  WHERE backend_type = 'blinkam worker' AND datname = 'shut'"),
	'its worker has left');

$node->safe_psql('postgres', 'ALTER DATABASE shut ALLOW_CONNECTIONS false');
my $offset = -s $node->logfile;

# Splits draw the pool down and ask for a refill: no worker can connect.
$s->query_safe('INSERT INTO t SELECT generate_series(20001, 120000)');
my $waited = 0;
while (refusals($offset) < 3)
{
	die 'no worker tried to connect to shut'
	  if $waited++ > 10 * $PostgreSQL::Test::Utils::timeout_default;
	usleep(100_000);
}
ok(1, 'workers stopped before attaching to shut');

# Three in a row, then one every ten seconds: ten would take seventy
# seconds with the backoff (and a few milliseconds without it).
sleep(3);
my $n = refusals($offset);
note("workers refused in three seconds: $n");
ok($n < 10, 'the launcher backed off')
  or die 'no backoff: the checks below would wait out their timeouts';
ok($node->poll_query_until('postgres',
		"SELECT value >= 3 FROM blinkam_stats() WHERE name = 'worker_start_failures'"),
	'worker_start_failures counts them');
my $failures = counter('worker_start_failures');
ok($failures < 10, 'no more than the workers that tried')
  or diag "worker_start_failures = $failures";
$waited = 0;
until ($node->log_contains(
		qr/blinkam workers for database \d+ stopped before attaching 3 times in a row/,
		$offset))
{
	die 'the backoff is not logged'
	  if $waited++ > 10 * $PostgreSQL::Test::Utils::timeout_default;
	usleep(100_000);
}
ok(1, 'the backoff is logged');

# When the backoff is over one worker tries again, and the launcher backs
# off again after it (the count goes on: no new run of three).
my $again = qr/stopped before attaching 4 times in a row/;
$waited = 0;
until ($node->log_contains($again, $offset) || refusals($offset) >= 10)
{
	die 'no second backoff'
	  if $waited++ > 10 * $PostgreSQL::Test::Utils::timeout_default;
	usleep(100_000);
}
ok($node->log_contains($again, $offset) && refusals($offset) < 10,
	'one worker tried again after the backoff, and the launcher backed off again');

# Connections allowed again: the kept request brings a worker back, which
# refills the pool.
my $starts = counter('worker_starts');
my $refills = counter('pool_refills');
$node->safe_psql('postgres', 'ALTER DATABASE shut ALLOW_CONNECTIONS true');
ok($node->poll_query_until('postgres',
		"SELECT value > $starts FROM blinkam_stats() WHERE name = 'worker_starts'"),
	'a worker attaches to shut once it allows connections');
ok($node->poll_query_until('postgres',
		"SELECT value > $refills FROM blinkam_stats() WHERE name = 'pool_refills'"),
	'the refill asked for while it refused them is done');
ok($node->poll_query_until('shut',
		"SELECT leaf_pages > 0 FROM blinkam_pools() WHERE index = 't_a'::regclass"),
	'the pool of t_a holds pages again');
is($s->query_safe('SELECT count(*) FROM t'), '120000', 'the rows are there');
$s->quit;
is($node->safe_psql('shut', "SELECT blink_check('t_a', true)"), '', 'blink_check');
ok(!$node->log_contains('TRAP:|terminated by signal'), 'no crash or assertion');

$node->stop;
done_testing();
