# The blinkam worker's start-up repair sweep reads a relation in slices
# of 256 pages, each in a transaction of its own, and pauses
# (blinkam.repair_delay) between slices holding no lock.
#   A. A sweep over several slices: an incomplete split beyond the first
#      slice is finished by the sweep (the page is not in shared buffers
#      after the restart, so the buffered-pages pass does not see it), and
#      every zero page of the index (pool pages left by the crash, all at
#      its end) is recorded in the free space map and findable there.
#   B. A sweep held in a pause between slices (an hour's delay):
#      the worker holds no lock and is in no transaction; splits that
#      ask for a refill get it from the worker in its pause, which goes
#      on; TRUNCATE of the table (which locks the index AccessExclusive)
#      does not wait for the sweep; a reload (repair_delay 0) wakes the
#      worker, which ends the sweep of the truncated index; later rows
#      are indexed.
# Every part ends with blink_check(..., true).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('sweep_locks');
$node->init;
$node->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
autovacuum = off
blinkam.repair_delay = 1
));
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION blinkam');

sub counter
{
	my ($name) = @_;
	return $node->safe_psql('postgres',
		"SELECT value FROM blinkam_stats() WHERE name = '$name'");
}

# The worker of database postgres (template1 has one of its own).
my $worker = "FROM pg_stat_activity WHERE backend_type = 'blinkam worker'
	AND datname = 'postgres'";

# A worker that is not repairing: its query is the plain 'blinkam worker'
# (also before its repair begins: callers look at a counter too), or none.
my $not_repairing = "NOT EXISTS (SELECT 1 $worker AND query <> 'blinkam worker')";

# --- A. several slices: repair and zero pages beyond the first

# 500,000 keys at fillfactor 100: about 1,250 pages, five slices.
$node->safe_psql('postgres', q(
CREATE TABLE a (k int);
INSERT INTO a SELECT g * 2 FROM generate_series(1, 500000) g;
CREATE INDEX a_k ON a USING blink (k) WITH (fillfactor = 100);
));
my $pages = $node->safe_psql('postgres', "SELECT pg_relation_size('a_k') / 8192");
ok($pages > 4 * 256, "the index has $pages pages, more than four slices");

# Splits near the start give the index a pool, refilled by extending it:
# zero pages at its end.
$node->safe_psql('postgres',
	'INSERT INTO a SELECT g * 2 + 1 FROM generate_series(1, 20000) g');
$node->poll_query_until('postgres',
	"SELECT leaf_pages > 0 FROM blinkam_pools() WHERE index = 'a_k'::regclass")
  or die 'the pool of a_k was not refilled';

# A split left incomplete (the statement errors after the leaf split)
# in a leaf far beyond the first slice.
my ($ret, $out, $err) = $node->psql('postgres', q(
SET blinkam.debug_stop_at = after_leaf_split;
INSERT INTO a SELECT 600001 + 2 * g FROM generate_series(0, 400) g;));
isnt($ret, 0, 'the insert stopped after a leaf split');
like($err, qr/stopping at after_leaf_split/, 'at the named point');

my $scan = "FROM generate_series(1, pg_relation_size('a_k') / 8192 - 1) b,
	LATERAL blink_page_stats('a_k', b) s";
my $flagged = $node->safe_psql('postgres', "SELECT string_agg(b::text, ',') $scan
	WHERE s.incomplete_split");
like($flagged, qr/^\d+$/, "one page is flagged INCOMPLETE_SPLIT (block $flagged)");
ok($flagged >= 256, 'beyond the first slice');
my $zero_beyond = $node->safe_psql('postgres',
	"SELECT count(*) $scan WHERE s.type = 'unused' AND b >= 256");
ok($zero_beyond > 0, "$zero_beyond zero pages beyond the first slice");

# Nothing for recovery to replay into the index: after the restart its
# pages are not in shared buffers, and only the sweep reads them.
$node->safe_psql('postgres', 'CHECKPOINT');
$node->stop('immediate');
$node->start;

ok($node->poll_query_until('postgres',
		"SELECT (SELECT value >= 1 FROM blinkam_stats()
				 WHERE name = 'splits_repaired_by_worker') AND $not_repairing"),
	'the sweep finished the split and ended');
is($node->safe_psql('postgres', "SELECT incomplete_splits FROM blink_tree_stats('a_k')"),
	'0', 'no incomplete split is left');
my $zero = $node->safe_psql('postgres', "SELECT free_pages FROM blink_tree_stats('a_k')");
ok($zero >= $zero_beyond, "the index has $zero zero pages");
is(counter('free_pages_found'), $zero, 'the sweep recorded every one of them');

# They are findable in the free space map: splits without pools take
# them instead of extending the index.
my $size = $node->safe_psql('postgres', "SELECT pg_relation_size('a_k')");
$node->safe_psql('postgres', q(
SET blinkam.enable_pools = off;
INSERT INTO a SELECT 800001 + 2 * g FROM generate_series(0, 299) g;
));
my $zero2 = $node->safe_psql('postgres', "SELECT free_pages FROM blink_tree_stats('a_k')");
ok($zero2 < $zero, "splits took recorded zero pages ($zero -> $zero2)");
is($node->safe_psql('postgres', "SELECT pg_relation_size('a_k')"), $size,
	'without extending the index');
is($node->safe_psql('postgres', "SELECT blink_check('a_k', true)"), '',
	'A: blink_check');

# --- B. the sweep's pause holds no lock

# An hour's pause between slices: the sweep stands in one of them.
$node->append_conf('postgresql.conf', 'blinkam.repair_delay = 3600000');
$node->safe_psql('postgres', 'CHECKPOINT');
$node->stop('immediate');
$node->start;

# The worker's latch is set when it starts (PostgreSQL's
# SwitchToSharedLatch); that wake-up does not end a pause (only a request
# to leave, or a reload that shortens repair_delay, does), so the sweep
# stands in its first pause between two slices.
my $relid = $node->safe_psql('postgres', "SELECT 'a_k'::regclass::oid");
my $paused = "^blinkam worker: sweep of relation $relid paused before block [0-9]+\$";
ok($node->poll_query_until('postgres', "SELECT count(*) = 1 $worker
		AND wait_event_type = 'Extension' AND query ~ '$paused'"),
	'the sweep of a_k stands in a pause');
my ($pid, $where) = split /\|/, $node->safe_psql('postgres', "SELECT pid, query $worker");
note("worker $pid: $where");
my ($block) = $where =~ /block (\d+)$/;
ok($block >= 256 && $block < $pages, "a pause between two slices (before block $block)");
is($node->safe_psql('postgres', "SELECT xact_start IS NULL $worker"), 't',
	'the paused worker is in no transaction');
is($node->safe_psql('postgres', "SELECT string_agg(locktype || ' ' || mode, ', ')
		FROM pg_locks WHERE pid = $pid"),
	'', 'and holds no lock');

# Splits of a_k draw on its pool (empty since the restart) and ask for a
# refill, which wakes the worker: it refills the pool in its pause, and
# the pause goes on.  (Until the sweep was over, a refill used to wait,
# and the wake-up ended the pause: the sweep went on to its next slice.)
my $refills = counter('pool_refills');
my $misses = counter('pool_misses');
$node->safe_psql('postgres',
	'INSERT INTO a SELECT g * 2 + 1 FROM generate_series(20001, 40000) g');
ok($node->poll_query_until('postgres',
		"SELECT value > $refills FROM blinkam_stats() WHERE name = 'pool_refills'"),
	'the worker refills a pool while its sweep pauses');
ok($node->poll_query_until('postgres',
		"SELECT leaf_pages > 0 FROM blinkam_pools() WHERE index = 'a_k'::regclass"),
	'the pool of a_k holds pages');
note('pool refills: ', counter('pool_refills') - $refills,
	', pool misses: ', counter('pool_misses') - $misses);
# (the last splits' refill may still be under way)
ok($node->poll_query_until('postgres', "SELECT xact_start IS NULL $worker
		AND NOT EXISTS (SELECT 1 FROM pg_locks WHERE pid = $pid)"),
	'the worker is back in its pause with no transaction and no lock');
is($node->safe_psql('postgres', "SELECT query $worker"), $where,
	'the sweep is still in the same pause');

# TRUNCATE locks the index AccessExclusive: it does not wait for the sweep
# (on a sweep that held its lock through the pause, it would wait the
# hour and fail here).
($ret, $out, $err) = $node->psql('postgres', q(
SET lock_timeout = '60s';
TRUNCATE a;));
is($ret, 0, 'TRUNCATE does not wait for the paused sweep');
is($err, '', 'no lock timeout');
is($node->safe_psql('postgres', "SELECT query $worker"), $where,
	'the sweep is still in its pause');

# A reload wakes the worker and ends the pause; the index has a new,
# empty file: its sweep ends.
$node->append_conf('postgresql.conf', 'blinkam.repair_delay = 0');
$node->safe_psql('postgres', 'SELECT pg_reload_conf()');
ok($node->poll_query_until('postgres', "SELECT $not_repairing"),
	'the worker ends the sweep of the truncated index');

$node->safe_psql('postgres', 'INSERT INTO a SELECT generate_series(1, 20000)');
is($node->safe_psql('postgres', q(SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT count(*) FROM a WHERE k > 0)),
	'20000', 'rows inserted afterwards are found through the index');
is($node->safe_psql('postgres', "SELECT blink_check('a_k', true)"), '',
	'B: blink_check');

$node->stop;
done_testing();
