# The per-database workers and the databases they serve:
#  - a command PostgreSQL refuses while another session is connected to a
#    database (DROP DATABASE, CREATE DATABASE from it as a template,
#    template1 included, ALTER DATABASE ... RENAME and ... SET TABLESPACE)
#    succeeds while a blinkam worker is
#    connected to it: the worker leaves first (PostgreSQL waits only for
#    autovacuum workers, and only five seconds);
#  - more databases than the shared request entries (64) are all served:
#    an entry is freed when its database has no work and no worker, and
#    the start-up repair sweeps that found no entry are asked for again.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('workerdbs');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'blinkam'
max_worker_processes = 16
# the worker stays a minute after its last job: it is there for every
# command below unless it is made to leave
blinkam.worker_idle_timeout = '60s'
});
$node->start;

my $splits = q{
CREATE TABLE IF NOT EXISTS t (a int);
CREATE INDEX IF NOT EXISTS t_a ON t USING blink (a);
INSERT INTO t SELECT generate_series(1, 50000);
};

# Make a worker connect to $db (its pool refills after splits) and wait
# until it is there.
sub worker_in
{
	my ($db) = @_;
	$node->safe_psql($db, $splits);
	$node->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM pg_stat_activity
		  WHERE backend_type = 'blinkam worker' AND datname = '$db'")
	  or die "no blinkam worker connected to $db";
	return 1;
}

$node->safe_psql('postgres', 'CREATE DATABASE w1');
$node->safe_psql('w1', 'CREATE EXTENSION blinkam');

ok(worker_in('w1'), 'a worker is connected to w1');
my ($rc, $out, $err) = $node->psql('postgres', 'CREATE DATABASE w2 TEMPLATE w1');
is($rc, 0, 'CREATE DATABASE ... TEMPLATE of a database with a worker') or diag $err;
is($node->safe_psql('w2', "SELECT count(*) FROM t"), '50000', 'the copy has the rows');
is($node->safe_psql('w2', "SELECT blink_check('t_a', true)"), '', 'the copy\'s index checks');

ok(worker_in('w1'), 'a worker is connected to w1 again');
($rc, $out, $err) = $node->psql('postgres', 'ALTER DATABASE w1 RENAME TO w1r');
is($rc, 0, 'ALTER DATABASE ... RENAME of a database with a worker') or diag $err;
$node->safe_psql('postgres', 'ALTER DATABASE w1r RENAME TO w1');

my $ts = PostgreSQL::Test::Utils::tempdir_short();
$node->safe_psql('postgres', "CREATE TABLESPACE wts LOCATION '$ts'");
ok(worker_in('w1'), 'and again');
($rc, $out, $err) = $node->psql('postgres', 'ALTER DATABASE w1 SET TABLESPACE wts');
is($rc, 0, 'ALTER DATABASE ... SET TABLESPACE of a database with a worker') or diag $err;
is($node->safe_psql('w1', "SELECT count(*) FROM t"), '150000', 'w1 has its rows');
is($node->safe_psql('w1', "SELECT blink_check('t_a', true)"), '', 'w1\'s index checks');

ok(worker_in('w1'), 'and again');
($rc, $out, $err) = $node->psql('postgres', 'DROP DATABASE w1');
is($rc, 0, 'DROP DATABASE of a database with a worker') or diag $err;
ok(worker_in('w2'), 'a worker is connected to w2');
($rc, $out, $err) = $node->psql('postgres', 'DROP DATABASE w2');
is($rc, 0, 'DROP DATABASE of the copy with a worker') or diag $err;
$node->safe_psql('postgres', 'DROP TABLESPACE wts');

# CREATE DATABASE copies template1, where blinkam may be installed too.
$node->safe_psql('template1', 'CREATE EXTENSION blinkam');
ok(worker_in('template1'), 'a worker is connected to template1');
($rc, $out, $err) = $node->psql('postgres', 'CREATE DATABASE w3');
is($rc, 0, 'CREATE DATABASE from template1 with a worker there') or diag $err;
is($node->safe_psql('w3', "SELECT blink_check('t_a', true)"), '', 'w3\'s index checks');
$node->safe_psql('template1', 'DROP TABLE t; DROP EXTENSION blinkam');
$node->safe_psql('postgres', 'DROP DATABASE w3');

# The workers came back after each command: new requests were served.
is($node->safe_psql('postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'blinkam worker'
		   AND datname IS NULL"), '0', 'no worker is left without a database');

# More databases than request entries.  Each gets blinkam and a blink
# index; after a restart every one of them must get its start-up sweep
# (worker_starts counts workers that found blinkam in their database).
$node->append_conf('postgresql.conf', "blinkam.worker_idle_timeout = '100ms'");
$node->restart;
my $ndb = 70;
for my $i (1 .. $ndb)
{
	$node->safe_psql('postgres', "CREATE DATABASE many$i");
	$node->safe_psql("many$i",
		'CREATE EXTENSION blinkam; CREATE TABLE t (a int);
		 CREATE INDEX t_a ON t USING blink (a); INSERT INTO t VALUES (1)');
}
$node->restart;
ok($node->poll_query_until('many1',
		"SELECT value >= $ndb FROM blinkam_stats() WHERE name = 'worker_starts'"),
	"all $ndb databases got their start-up sweep");
# and a refill is served in the last of them, after all those sweeps
$node->safe_psql("many$ndb", $splits);
ok($node->poll_query_until('many1',
		"SELECT value > 0 FROM blinkam_stats() WHERE name = 'pool_refills'"),
	'a later refill request is served');
is($node->safe_psql("many$ndb", "SELECT blink_check('t_a', true)"), '',
	'its index checks');
ok(!$node->log_contains('TRAP:|terminated by signal'), 'no crash or assertion');

$node->stop;
done_testing();
