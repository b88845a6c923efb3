# The hold of a command that needs a database to itself (CREATE DATABASE
# ... TEMPLATE here) is kept while the command runs, even for a database
# that had no request entry (no work, no worker) when the command began,
# and even when another command on the same database ends meanwhile:
# work that arrives during the command starts no worker for the database,
# the command succeeds, and the work is done once the command is over.
# Until 2026-11-27 release recorded no hold for a database without an
# entry, and the end of any command cleared every hold on the database:
# a worker attached during the command, which then failed ("source
# database ... is being accessed by other users").
#
# The command is held at the pause point database_held (its hold taken,
# before PostgreSQL runs it).  A launcher pass that starts a worker for a
# witness database w after t's work arrived has seen t's work too: once
# w's worker is there, t would have had one.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('holdkept');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'blinkam'
# a worker stays after its last job: one that got into t would still be
# there when CREATE DATABASE counts t's sessions
blinkam.worker_idle_timeout = '600s'
});
$node->start;

my $index = q{
CREATE EXTENSION blinkam;
CREATE TABLE t (a int);
CREATE INDEX t_a ON t USING blink (a);
};
my $splits = 'INSERT INTO t SELECT generate_series(1, 50000)';
# t: blinkam and an empty index, no work asked for: no entry
$node->safe_psql('postgres', 'CREATE DATABASE t; CREATE DATABASE w');
$node->safe_psql('t', $index);
$node->safe_psql('w', $index);

my $workers_in = sub {
	my ($db) = @_;
	return "SELECT count(*) FROM pg_stat_activity
			 WHERE backend_type = 'blinkam worker' AND datname = '$db'";
};
is($node->safe_psql('postgres', $workers_in->('t')), '0', 't has no worker');

# the key session holds the pause point's advisory lock
my $key = $node->background_psql('postgres');
$key->query_safe('SELECT pg_advisory_lock(42)');

# the command, held with its hold taken
my $cmd = $node->background_psql('postgres');
$cmd->query_safe("SET blinkam.debug_pause_at = 'database_held'");
$cmd->query_safe('SET blinkam.debug_pause_key = 42');
$cmd->query_until(qr/started/, "\\echo started\nCREATE DATABASE c TEMPLATE t;\n");
ok($node->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM pg_locks WHERE locktype = 'advisory'
		   AND objid = 42 AND NOT granted"),
	'CREATE DATABASE c TEMPLATE t waits at database_held');

# another command on t begins and ends meanwhile (SET TABLESPACE to the
# tablespace t is in: PostgreSQL does nothing)
$node->safe_psql('postgres', 'ALTER DATABASE t SET TABLESPACE pg_default');

# work arrives in t, then in w
$node->safe_psql('t', $splits);
$node->safe_psql('w', $splits);
ok($node->poll_query_until('postgres', 'SELECT (' . $workers_in->('w') . ') = 1'),
	'the witness w gets its worker');
is($node->safe_psql('postgres', $workers_in->('t')), '0',
	't, held, gets none');

# the command goes on and succeeds
$key->query_safe('SELECT pg_advisory_unlock(42)');
$cmd->query_safe('SELECT 1');
is($cmd->{stderr}, '', 'CREATE DATABASE c TEMPLATE t succeeded')
  or diag $cmd->{stderr};
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_database WHERE datname = 'c'"),
	'1', 'c exists');
is($node->safe_psql('c', "SELECT blink_check('t_a', true)"), '', 'c\'s index checks');

# and t's work, kept, is done once the hold is over
ok($node->poll_query_until('postgres', 'SELECT (' . $workers_in->('t') . ') = 1'),
	't gets its worker after the command');
is($node->safe_psql('t', "SELECT blink_check('t_a', true)"), '', 't\'s index checks');
$key->quit;
$cmd->quit;
ok(!$node->log_contains('TRAP:|terminated by signal'), 'no crash or assertion');

$node->stop;
done_testing();
