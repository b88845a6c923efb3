# A pool refill never waits for its relation's lock.  A transaction that
# holds a blinkheap table in ACCESS EXCLUSIVE mode and inserts into it
# drains the table's page pool; its refill request wakes the worker of
# its database.  That worker used to wait for the lock, as long as the
# transaction lasted, serving nothing else -- and with blinkam.max_workers
# = 1, no other database got a worker either: its pools stayed empty.
# Now the worker puts that refill off (pool_refills_locked), is not seen
# waiting for a lock, and leaves for the other database, whose pool is
# refilled while the lock is still held.  Once the transaction commits,
# the refill put off is done.  Nor are
# the pages of t's pool, when its slot is recycled while t is locked,
# waited for: they are left to VACUUM.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('worker_locked');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'blinkam'
autovacuum = off
blinkam.max_workers = 1
blinkam.pool_relations = 2
# an idle worker stays, unless another database waits for one
blinkam.worker_idle_timeout = '1h'
});
$node->start;

$node->safe_psql('postgres',
	'CREATE EXTENSION blinkam; CREATE DATABASE a; CREATE DATABASE b');
$node->safe_psql('a', q{
CREATE EXTENSION blinkam;
CREATE TABLE t (k int, pad text) USING blinkheap;
INSERT INTO t SELECT g, repeat('x', 200) FROM generate_series(1, 5000) g;
});
$node->safe_psql('b', q{
CREATE EXTENSION blinkam;
CREATE TABLE u (k int);
CREATE INDEX u_k ON u USING blink (k);
INSERT INTO u SELECT generate_series(1, 20000);
});

sub counter
{
	my ($name) = @_;
	return $node->safe_psql('postgres',
		"SELECT value FROM blinkam_stats() WHERE name = '$name'");
}

# Both pools exist and were filled once.
ok($node->poll_query_until('a',
		"SELECT leaf_pages > 0 FROM blinkam_pools() WHERE index = 't'::regclass"),
	'the pool of t is filled');
ok($node->poll_query_until('b',
		"SELECT leaf_pages > 0 FROM blinkam_pools() WHERE index = 'u_k'::regclass"),
	'the pool of u_k is filled');

# The locking transaction drains t's pool and asks for a refill.
my $locked = counter('pool_refills_locked');
my $x = $node->background_psql('a');
$x->query_safe('BEGIN');
$x->query_safe('LOCK TABLE t IN ACCESS EXCLUSIVE MODE');
$x->query_safe(
	"INSERT INTO t SELECT g, repeat('y', 200) FROM generate_series(5001, 15000) g");
ok($node->poll_query_until('postgres',
		"SELECT value > $locked FROM blinkam_stats() WHERE name = 'pool_refills_locked'"),
	'the refill of t is put off while t is locked');
is($node->safe_psql('postgres', q{
SELECT count(*) FROM pg_stat_activity
 WHERE backend_type = 'blinkam worker' AND wait_event_type = 'Lock'}),
	'0', 'no worker waits for a lock');

# Database b drains its pool: its worker comes, though t is still locked.
my $refills = counter('pool_refills');
$node->safe_psql('b', 'INSERT INTO u SELECT generate_series(20001, 120000)');
ok($node->poll_query_until('postgres',
		"SELECT value > $refills FROM blinkam_stats() WHERE name = 'pool_refills'"),
	'the pool of u_k is refilled while t is locked');
ok($node->poll_query_until('b',
		"SELECT leaf_pages > 0 FROM blinkam_pools() WHERE index = 'u_k'::regclass"),
	'u_k has pages in its pool');

is($node->safe_psql('a',
		"SELECT leaf_pages FROM blinkam_pools() WHERE index = 't'::regclass"),
	'0', 't\'s pool is still empty while t is locked');
$x->query_safe('COMMIT');
$x->quit;

# After the commit, with no further insert, the refill put off is done.
ok($node->poll_query_until('a',
		"SELECT leaf_pages > 0 FROM blinkam_pools() WHERE index = 't'::regclass"),
	't is refilled after the commit');
$node->safe_psql('a',
	"INSERT INTO t SELECT g, repeat('z', 200) FROM generate_series(15001, 25000) g");

# Locked again, with pages in its pool: a third pool (two places)
# recycles t's slot, now the least recently used, and its pages go to the
# return queue of database a, whose worker does not wait for t either:
# they stay zero pages of t, counted as stranded.
$x = $node->background_psql('a');
$x->query_safe('BEGIN');
$x->query_safe('LOCK TABLE t IN ACCESS EXCLUSIVE MODE');
$node->safe_psql('b', 'INSERT INTO u SELECT generate_series(120001, 140000)');
my $stranded = counter('pool_pages_stranded');
$node->safe_psql('b', q{
CREATE TABLE v (k int);
CREATE INDEX v_k ON v USING blink (k);
INSERT INTO v SELECT generate_series(1, 60000);
});
ok($node->poll_query_until('a',
		"SELECT count(*) = 0 FROM blinkam_pools() WHERE index = 't'::regclass"),
	'the slot of t is recycled');
ok($node->poll_query_until('postgres',
		"SELECT value > $stranded FROM blinkam_stats() WHERE name = 'pool_pages_stranded'"),
	'its pages are left to VACUUM while t is locked');
is($node->safe_psql('postgres', q{
SELECT count(*) FROM pg_stat_activity
 WHERE backend_type = 'blinkam worker' AND wait_event_type = 'Lock'}),
	'0', 'still no worker waits for a lock');
$x->query_safe('COMMIT');
$x->quit;

# A refill put off keeps its worker past blinkam.worker_idle_timeout,
# trying again (after 100 ms, then twice as long each time): the worker
# used to leave at its idle timeout and the launcher started another for
# the refill, one worker per try (helper-53).
$node->safe_psql('postgres', "ALTER SYSTEM SET blinkam.worker_idle_timeout = '500ms'");
$node->reload;
$x = $node->background_psql('a');
$x->query_safe('BEGIN');
$x->query_safe('LOCK TABLE t IN ACCESS EXCLUSIVE MODE');
$locked = counter('pool_refills_locked');
$x->query_safe(
	"INSERT INTO t SELECT g, repeat('w', 200) FROM generate_series(25001, 35000) g");
ok($node->poll_query_until('postgres',
		"SELECT value > $locked FROM blinkam_stats() WHERE name = 'pool_refills_locked'"),
	'a refill of t is put off again');
my $starts = counter('worker_starts');
$locked = counter('pool_refills_locked');
ok($node->poll_query_until('postgres',
		"SELECT value >= $locked + 3 FROM blinkam_stats() WHERE name = 'pool_refills_locked'"),
	'and tried three more times');
is(counter('worker_starts'), $starts,
	'by the same worker, which stayed past its idle timeout');
$x->query_safe('COMMIT');
$x->quit;
ok($node->poll_query_until('a',
		"SELECT leaf_pages > 0 FROM blinkam_pools() WHERE index = 't'::regclass"),
	't is refilled after this commit too');

is($node->safe_psql('a', 'SELECT count(*), count(DISTINCT k) FROM t'),
	'35000|35000', 't has every row once');
is($node->safe_psql('a', "SELECT blinkheap_check('t')"), '', 't checks');
is($node->safe_psql('b', 'SELECT count(*) FROM u'), '140000', 'u has every row');
is($node->safe_psql('b', "SELECT blink_check('u_k', true)"), '', 'u_k checks');
is($node->safe_psql('b', "SELECT blink_check('v_k', true)"), '', 'v_k checks');

$node->stop;
done_testing();
