# A command that needs a database to itself makes the database's blinkam
# worker leave only if the user may run it: ALTER DATABASE ... RENAME or
# ... SET TABLESPACE by a role that does not own the database, and CREATE
# DATABASE ... TEMPLATE by a CREATEDB role that may not copy the template,
# are refused by PostgreSQL and leave the worker where it is (until
# 2026-11-27 the worker left before PostgreSQL checked anything).  The
# owner's RENAME still makes it leave (and so do the other commands of
# t/020_worker_databases.pl), and so does a CREATEDB role's copy of a
# database marked IS_TEMPLATE.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('holdperm');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'blinkam'
# the worker stays after its last job unless it is made to leave
blinkam.worker_idle_timeout = '600s'
});
$node->start;

$node->safe_psql('postgres', q{
CREATE ROLE nobody LOGIN;
CREATE ROLE maker LOGIN CREATEDB;
CREATE DATABASE w1;
});
$node->safe_psql('w1', q{
CREATE EXTENSION blinkam;
CREATE TABLE t (a int);
CREATE INDEX t_a ON t USING blink (a);
INSERT INTO t SELECT generate_series(1, 50000);
});
my $ts = PostgreSQL::Test::Utils::tempdir_short();
$node->safe_psql('postgres', "CREATE TABLESPACE wts LOCATION '$ts'");

my $worker_pid = q{SELECT pid FROM pg_stat_activity
	WHERE backend_type = 'blinkam worker' AND datname = 'w1'};
$node->poll_query_until('postgres', "SELECT count(*) = 1 FROM ($worker_pid) w")
  or die "no blinkam worker connected to w1";
my $pid = $node->safe_psql('postgres', $worker_pid);

my @refused = (
	[ 'nobody', 'ALTER DATABASE w1 RENAME TO w1x',       qr/must be owner/ ],
	[ 'nobody', 'ALTER DATABASE w1 SET TABLESPACE wts',  qr/must be owner/ ],
	[ 'nobody', 'CREATE DATABASE x TEMPLATE w1',         qr/permission denied to create/ ],
	[ 'maker',  'ALTER DATABASE w1 RENAME TO w1x',       qr/must be owner/ ],
	[ 'maker',  'CREATE DATABASE x TEMPLATE w1',         qr/permission denied to copy/ ]);
for my $c (@refused)
{
	my ($role, $sql, $msg) = @$c;
	my ($rc, $out, $err) = $node->psql('postgres', $sql,
		extra_params => [ '-U', $role ]);
	isnt($rc, 0, "$role: $sql is refused");
	like($err, $msg, 'by PostgreSQL\'s permission check');
	is($node->safe_psql('postgres', $worker_pid), $pid,
		'and the worker of w1 is still connected');
}

# The owner's RENAME still makes it leave.
my ($rc, $out, $err) = $node->psql('postgres', 'ALTER DATABASE w1 RENAME TO w1r');
is($rc, 0, 'the owner renames w1 with its worker connected') or diag $err;
isnt($node->safe_psql('postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE pid = $pid"), '1',
	'the worker left');
# A CREATEDB role may copy a template it does not own: the worker leaves.
$node->safe_psql('postgres', 'ALTER DATABASE w1r IS_TEMPLATE true');
$node->safe_psql('w1r', 'INSERT INTO t SELECT generate_series(1, 50000)');
$worker_pid =~ s/'w1'/'w1r'/;
$node->poll_query_until('postgres', "SELECT count(*) = 1 FROM ($worker_pid) w")
  or die "no blinkam worker connected to w1r";
($rc, $out, $err) = $node->psql('postgres', 'CREATE DATABASE x TEMPLATE w1r',
	extra_params => [ '-U', 'maker' ]);
is($rc, 0, 'maker copies the template w1r with its worker connected')
  or diag $err;
ok(!$node->log_contains('TRAP:|terminated by signal'), 'no crash or assertion');

$node->stop;
done_testing();
