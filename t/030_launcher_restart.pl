# A launcher that restarts must not leave a database without workers.
# The launcher marks a database's request entry "starting" when it starts
# a worker for it, and clears the mark when the worker attaches or when it
# sees its worker stop.  A launcher that exits (pg_terminate_backend, an
# ERROR) while one of its workers is still connecting never sees that
# worker stop; if the worker then fails before attaching, nothing cleared
# the mark, and no worker started for the database again until the server
# restarted.  A launcher clears every mark when it starts.
#
# The worker is held in its connection by a lock on the database object:
# ALTER DATABASE ... RENAME in an open transaction keeps the database's
# AccessExclusiveLock until the transaction ends (blinkam's hold on the
# database ends with the command).
#   1. session A renames x in an open transaction;
#   2. the launcher is terminated; the new one (second) asks for a repair
#      sweep in every database and starts a worker for x, which waits for
#      the lock in InitPostgres;
#   3. that launcher is terminated too, and so is its waiting worker: it
#      dies before attaching, and the third launcher never knew it;
#   4. session A rolls back; splits in x ask for a refill: a worker
#      attaches to x and refills the pool.
# B. The same, but the worker of the launcher that exited lives on: it and
#    the worker the next launcher starts both get in once the lock goes;
#    one attaches, the other is refused, and neither counts as a start
#    failure.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $node = PostgreSQL::Test::Cluster->new('launcher_restart');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'blinkam'
autovacuum = off
# an attached worker stays long enough to be seen in pg_stat_activity
blinkam.worker_idle_timeout = '1min'
});
$node->start;

$node->safe_psql('postgres', 'CREATE EXTENSION blinkam; CREATE DATABASE x');
$node->safe_psql('x', q{
CREATE EXTENSION blinkam;
CREATE TABLE t (a int);
CREATE INDEX t_a ON t USING blink (a);
INSERT INTO t SELECT generate_series(1, 20000);
});
ok($node->poll_query_until('x',
		"SELECT leaf_pages > 0 FROM blinkam_pools() WHERE index = 't_a'::regclass"),
	'the pool of t_a is refilled');
my $xoid = $node->safe_psql('postgres', "SELECT oid FROM pg_database WHERE datname = 'x'");

sub counter
{
	my ($name) = @_;
	return $node->safe_psql('postgres',
		"SELECT value FROM blinkam_stats() WHERE name = '$name'");
}

# The running launcher, other than $old; waits for one to run.
sub launcher
{
	my ($old) = @_;
	my $cond = defined $old ? "AND pid <> $old" : '';
	$node->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM pg_stat_activity
		  WHERE backend_type = 'blinkam launcher' $cond")
	  or die 'timed out waiting for the blinkam launcher';
	return $node->safe_psql('postgres',
		"SELECT pid FROM pg_stat_activity WHERE backend_type = 'blinkam launcher'");
}

# Processes waiting for the lock on database x.
my $waiting = "FROM pg_locks WHERE locktype = 'object'
	AND classid = 'pg_database'::regclass AND objid = $xoid AND NOT granted";
my $attached = "FROM pg_stat_activity
	WHERE backend_type = 'blinkam worker' AND datname = 'x'";
my $failures = counter('worker_start_failures');

# x is locked until the returned session ends its transaction.  The
# RENAME's hook makes x's worker leave first.
sub lock_x
{
	my $a = $node->background_psql('postgres');
	$a->query_safe('BEGIN');
	$a->query_safe('ALTER DATABASE x RENAME TO y');
	is($node->safe_psql('postgres',
			"SELECT count(*) FROM pg_stat_activity
			  WHERE backend_type = 'blinkam worker' AND datid = $xoid"),
		'0', 'no worker is connected to x');
	return $a;
}

# --- A. the worker dies before attaching

# 1.
my $a = lock_x();
is($node->safe_psql('postgres', "SELECT count(*) $waiting"), '0',
	'and none waits for it');

# 2. The second launcher asks for a repair sweep of x (as of every
# database) and starts a worker for it; blinkam's hold ended with the
# RENAME, so only the lock on x keeps the worker out.
my $l1 = launcher();
my $starts = counter('launcher_starts');
$node->safe_psql('postgres', "SELECT pg_terminate_backend($l1)");
my $l2 = launcher($l1);
is(counter('launcher_starts'), $starts + 1, "second launcher ($l2)");
ok($node->poll_query_until('postgres', "SELECT count(*) = 1 $waiting"),
	'a worker for x waits for the lock on x');
my $w = $node->safe_psql('postgres', "SELECT pid $waiting");
# It has not reported itself yet (pg_stat_activity shows a process once
# it is connected); its process title names it.
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_stat_activity WHERE pid = $w"),
	'0', 'it is still connecting');
like(slurp_file("/proc/$w/cmdline"), qr/blinkam worker for database $xoid\b/,
	"it is the worker the second launcher started for x ($w)");

# 3. Both go: the launcher first, so that it never sees its worker stop;
# the worker dies before attaching.
$node->safe_psql('postgres', "SELECT pg_terminate_backend($l2)");
$node->safe_psql('postgres', "SELECT pg_terminate_backend($w)");
ok($node->poll_query_until('postgres',
		"SELECT count(*) = 0 FROM pg_locks WHERE pid = $w"),
	'the waiting worker is gone');
my $l3 = launcher($l2);
is(counter('launcher_starts'), $starts + 2, "third launcher ($l3)");

# 4. x is free again; splits drain its pool and ask for a refill.
my $refills = counter('pool_refills');
$a->query_safe('ROLLBACK');
$a->quit;
$node->safe_psql('x', 'INSERT INTO t SELECT generate_series(20001, 120000)');
ok($node->poll_query_until('postgres', "SELECT count(*) = 1 $attached"),
	'a worker attaches to x');
ok($node->poll_query_until('postgres',
		"SELECT value > $refills FROM blinkam_stats() WHERE name = 'pool_refills'"),
	'and refills its pool');
ok($node->poll_query_until('x',
		"SELECT leaf_pages > 0 FROM blinkam_pools() WHERE index = 't_a'::regclass"),
	'the pool of t_a holds pages');
is($node->safe_psql('x', 'SELECT count(*) FROM t'), '120000', 'the rows are there');
is($node->safe_psql('x', "SELECT blink_check('t_a', true)"), '', 'A: blink_check');

# --- B. two workers get in: one attaches, the other is refused

$a = lock_x();
$node->safe_psql('postgres', "SELECT pg_terminate_backend($l3)");
my $l4 = launcher($l3);
ok($node->poll_query_until('postgres', "SELECT count(*) = 1 $waiting"),
	"the fourth launcher ($l4) starts a worker for x, which waits");
my $w1 = $node->safe_psql('postgres', "SELECT pid $waiting");
$node->safe_psql('postgres', "SELECT pg_terminate_backend($l4)");
my $l5 = launcher($l4);
ok($node->poll_query_until('postgres', "SELECT count(*) = 2 $waiting"),
	"the fifth launcher ($l5) starts another beside it");
my $w2 = $node->safe_psql('postgres', "SELECT pid $waiting AND pid <> $w1");

$refills = counter('pool_refills');
$a->query_safe('ROLLBACK');
$a->quit;
ok($node->poll_query_until('postgres', "SELECT count(*) = 1 $attached"),
	'a worker attaches to x');
# the other one leaves; wait until the postmaster has reaped it
my $waited = 0;
while ((grep { kill(0, $_) } ($w1, $w2)) != 1)
{
	die 'both workers for x stay'
	  if $waited++ > 10 * $PostgreSQL::Test::Utils::timeout_default;
	usleep(100_000);
}
my ($stays) = grep { kill(0, $_) } ($w1, $w2);
is($node->safe_psql('postgres', "SELECT pid $attached"), $stays,
	"one of them is attached ($stays), the other is gone");
$node->safe_psql('x', 'INSERT INTO t SELECT generate_series(120001, 220000)');
ok($node->poll_query_until('postgres',
		"SELECT value > $refills FROM blinkam_stats() WHERE name = 'pool_refills'"),
	'the attached worker refills the pool');
is($node->safe_psql('postgres', "SELECT pid $attached"), $stays,
	'no other worker came for x');
# The launcher counts a worker that stopped at its next pass (woken by the
# exit, or a second later); the refills above took longer than that, and
# a late count could only make this pass wrongly, never fail it.
is(counter('worker_start_failures'), $failures,
	'the refused worker does not count as a start failure');
is($node->safe_psql('x', 'SELECT count(*) FROM t'), '220000', 'the rows are there');
is($node->safe_psql('x', "SELECT blink_check('t_a', true)"), '', 'B: blink_check');
ok(!$node->log_contains('TRAP:|terminated by signal'), 'no crash or assertion');

$node->stop;
done_testing();
