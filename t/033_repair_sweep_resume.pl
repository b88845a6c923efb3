# The start-up repair sweep survives the death of its worker: the
# database's request entry keeps the request, with the sweep's position,
# until the sweep is complete, and the next worker resumes it there.
#   A. A worker killed (pg_terminate_backend) in a pause of its sweep: the
#      next one resumes from that block of the same index (its pause is
#      further on, and it says so in the log).  That one dies on an ERROR
#      in its next slice (a lock timeout: a session holds the index); the
#      next one resumes there too, and completes the sweep: a split left
#      incomplete beyond those points is finished, in both indexes, and
#      every zero page is recorded.
#   B. The retry bound: workers that die at the same position three times
#      in a row (the index locked, a lock timeout each time) make the next
#      one skip that index, with a LOG message, and go on with the next
#      (its incomplete split is finished); the skipped one's split is left
#      to writers.
#   C. Refills between slices: with one pool slot (one job per round), a
#      wake-up that announced two jobs (a recycled slot's return, and the
#      refill of the index that took the slot) gets both served in the
#      sweep's hour-long pause, which goes on.
# Every part ends with blink_check(..., true).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $node = PostgreSQL::Test::Cluster->new('sweep_resume');
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

# Wait up to $secs for $sql to return 't' (shorter than poll_query_until,
# so that a test run against a build without the fix ends in reasonable
# time).
sub wait_for
{
	my ($sql, $secs) = @_;
	for (my $i = 0; $i < $secs * 5; $i++)
	{
		return 1 if $node->safe_psql('postgres', $sql) eq 't';
		usleep(200_000);
	}
	return 0;
}

# The log since $offset.
sub log_since
{
	my ($offset) = @_;
	return slurp_file($node->logfile, $offset);
}

# The worker of database postgres (template1 has one of its own).
my $worker = "FROM pg_stat_activity WHERE backend_type = 'blinkam worker'
	AND datname = 'postgres'";
my $not_repairing = "NOT EXISTS (SELECT 1 $worker AND query <> 'blinkam worker')";

# a_k: 500,000 keys at fillfactor 100, about 1,250 pages (five slices);
# b_k, made after it, comes after it in the sweep (oid order).
$node->safe_psql('postgres', q(
CREATE TABLE a (k int);
INSERT INTO a SELECT g * 2 FROM generate_series(1, 500000) g;
CREATE INDEX a_k ON a USING blink (k) WITH (fillfactor = 100);
CREATE TABLE b (k int);
INSERT INTO b SELECT g * 2 FROM generate_series(1, 50000) g;
CREATE INDEX b_k ON b USING blink (k) WITH (fillfactor = 100);
));
my $a_k = $node->safe_psql('postgres', "SELECT 'a_k'::regclass::oid");
my $b_k = $node->safe_psql('postgres', "SELECT 'b_k'::regclass::oid");
ok($a_k < $b_k, "a_k ($a_k) is swept before b_k ($b_k)");
my $pages = $node->safe_psql('postgres', "SELECT pg_relation_size('a_k') / 8192");
ok($pages > 4 * 256, "a_k has $pages pages, more than four slices");

# Splits near the start give a_k a pool, refilled by extending it: zero
# pages at its end.
$node->safe_psql('postgres',
	'INSERT INTO a SELECT g * 2 + 1 FROM generate_series(1, 20000) g');
$node->poll_query_until('postgres',
	"SELECT leaf_pages > 0 FROM blinkam_pools() WHERE index = 'a_k'::regclass")
  or die 'the pool of a_k was not refilled';

# Leave a split incomplete (the statement errors after the leaf split) in
# the leaf of $table that holds $first.
sub incomplete_split
{
	my ($table, $first) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', qq(
SET blinkam.debug_stop_at = after_leaf_split;
INSERT INTO $table SELECT $first + 2 * g FROM generate_series(0, 400) g;));
	like($err, qr/stopping at after_leaf_split/,
		"an insert into $table stopped after a leaf split");
}

# The blocks of $index flagged INCOMPLETE_SPLIT.
sub flagged
{
	my ($index) = @_;
	return $node->safe_psql('postgres', "SELECT coalesce(string_agg(b::text, ','), '')
		FROM generate_series(1, pg_relation_size('$index') / 8192 - 1) b,
			LATERAL blink_page_stats('$index', b) s WHERE s.incomplete_split");
}

# A restart after which the sweep stands in an hour-long pause.  Nothing
# for recovery to replay into the indexes: only the sweep reads their
# pages.
sub crash_restart
{
	$node->append_conf('postgresql.conf', 'blinkam.repair_delay = 3600000');
	$node->safe_psql('postgres', 'CHECKPOINT');
	$node->stop('immediate');
	$node->start;
}

# The worker's pid and the block its sweep of a_k pauses before.
sub paused_in_a_k
{
	my ($not_pid) = @_;
	my $paused = "^blinkam worker: sweep of relation $a_k paused before block [0-9]+\$";
	ok( wait_for(
			"SELECT count(*) = 1 $worker AND pid <> $not_pid
			   AND wait_event_type = 'Extension' AND query ~ '$paused'", 60),
		'a worker\'s sweep of a_k stands in a pause');
	my ($pid, $where) = split /\|/,
	  $node->safe_psql('postgres', "SELECT pid, query $worker");
	note("worker $pid: $where");
	my ($block) = $where =~ /block (\d+)$/;
	return ($pid, $block // -1);
}

# Workers' lock waits on the index time out; the test's own sessions
# get the setting too (they wait for nothing).
$node->safe_psql('postgres', "ALTER DATABASE postgres SET lock_timeout = '3s'");

# --- A. a sweep resumed after its worker is killed, and after one errors

incomplete_split('a', 980001);
incomplete_split('b', 90001);
my $flag_a = flagged('a_k');
my $flag_b = flagged('b_k');
like($flag_a, qr/^\d+$/, "one page of a_k is flagged (block $flag_a)");
like($flag_b, qr/^\d+$/, "one page of b_k is flagged (block $flag_b)");

my $offset = -s $node->logfile;
crash_restart();

my ($pid1, $p1) = paused_in_a_k(0);
ok($p1 >= 256, "the first worker pauses between two slices (before block $p1)");

# Killed in its pause: the next worker resumes from there.
$node->safe_psql('postgres', "SELECT pg_terminate_backend($pid1)");
my ($pid2, $p2) = paused_in_a_k($pid1);
ok($p2 > $p1 && $p2 <= $p1 + 512,
	"the next worker goes on from block $p1 (paused before block $p2)");
like(log_since($offset), qr/resumes the repair sweep of database "postgres".*\n.*DETAIL:  It goes on from block $p1 of relation $a_k\./,
	'and says so in the log');
ok($flag_a > $p2, "a_k's incomplete split (block $flag_a) lies beyond");

# A session holds a_k (DROP INDEX, rolled back later); repair_delay 0
# ends the pause, and the worker's next slice times out on the index's
# lock: an ERROR ends it.
my $s = $node->background_psql('postgres');
$s->query_safe('BEGIN');
$s->query_safe('DROP INDEX a_k');
$node->append_conf('postgresql.conf', 'blinkam.repair_delay = 0');
$node->safe_psql('postgres', 'SELECT pg_reload_conf()');
ok(wait_for("SELECT NOT EXISTS (SELECT 1 $worker AND pid = $pid2)", 60),
	'the worker erroring in its slice is gone');
$s->query_safe('ROLLBACK');
$s->quit;
like(log_since($offset), qr/canceling statement due to lock timeout/,
	'it died of a lock timeout');

# The next one resumes at the same position and completes the sweep.
ok( wait_for(
		"SELECT (SELECT value >= 2 FROM blinkam_stats()
				 WHERE name = 'splits_repaired_by_worker') AND $not_repairing", 60),
	'the sweep is completed');
like(log_since($offset), qr/DETAIL:  It goes on from block $p2 of relation $a_k\./,
	"the last worker went on from block $p2");
is($node->safe_psql('postgres', "SELECT incomplete_splits FROM blink_tree_stats('a_k')"),
	'0', 'no incomplete split is left in a_k');
is($node->safe_psql('postgres', "SELECT incomplete_splits FROM blink_tree_stats('b_k')"),
	'0', 'nor in b_k');
my $zero = $node->safe_psql('postgres', "SELECT
	(SELECT free_pages FROM blink_tree_stats('a_k')) +
	(SELECT free_pages FROM blink_tree_stats('b_k'))");
ok($zero > 0, "the indexes have $zero zero pages");
is(counter('free_pages_found'), $zero, 'the sweep recorded every one of them');
is($node->safe_psql('postgres', "SELECT blink_check('a_k', true)"), '', 'A: blink_check a_k');
is($node->safe_psql('postgres', "SELECT blink_check('b_k', true)"), '', 'A: blink_check b_k');

# --- B. workers that die at the same position: the relation is skipped

incomplete_split('a', 960001);
incomplete_split('b', 80001);
$flag_a = flagged('a_k');
$flag_b = flagged('b_k');
like($flag_a, qr/^\d+$/, "one page of a_k is flagged (block $flag_a)");
like($flag_b, qr/^\d+$/, "one page of b_k is flagged (block $flag_b)");

$offset = -s $node->logfile;
crash_restart();
($pid1, $p1) = paused_in_a_k(0);
ok($p1 >= 256 && $flag_a > $p1,
	"the sweep pauses before block $p1, a_k's split lies beyond");

# Every worker that resumes at this position times out on a_k's lock.
$s = $node->background_psql('postgres');
$s->query_safe('BEGIN');
$s->query_safe('DROP INDEX a_k');
$node->append_conf('postgresql.conf', 'blinkam.repair_delay = 0');
$node->safe_psql('postgres', 'SELECT pg_reload_conf()');
ok( wait_for(
		"SELECT (SELECT incomplete_splits FROM blink_tree_stats('b_k')) = 0
		   AND $not_repairing", 90),
	'the sweep goes on to b_k and finishes its split');
my $log = log_since($offset);
like($log, qr/LOG:  blinkam worker skips relation $a_k in the repair sweep of database "postgres"\n.*DETAIL:  3 workers in a row stopped sweeping it at block $p1\./,
	'after three workers died at the same block of a_k, it is skipped');
my $timeouts = () = $log =~ /canceling statement due to lock timeout/g;
is($timeouts, 3, 'three workers died of a lock timeout');
$s->query_safe('ROLLBACK');
$s->quit;
is(flagged('a_k'), $flag_a, 'the split in the skipped a_k is left for writers');
is($node->safe_psql('postgres', "SELECT blink_check('a_k', true)"), '', 'B: blink_check a_k');
is($node->safe_psql('postgres', "SELECT blink_check('b_k', true)"), '', 'B: blink_check b_k');

# --- C. refills between slices: a round that reached its cap goes on

# One pool slot: a round of the gap serves one job before it looks at the
# time.  Two indexes that split in turn: the second recycles the first's
# slot, whose pages go to the return queue, and asks for a refill -- two
# jobs announced by one wake-up (the recycling take wakes the worker
# once, and later takes find the refill already asked for).
$node->safe_psql('postgres', q(
CREATE TABLE t1 (k int);
INSERT INTO t1 SELECT g * 2 FROM generate_series(1, 20000) g;
CREATE INDEX i1 ON t1 USING blink (k) WITH (fillfactor = 100);
CREATE TABLE t2 (k int);
INSERT INTO t2 SELECT g * 2 FROM generate_series(1, 20000) g;
CREATE INDEX i2 ON t2 USING blink (k) WITH (fillfactor = 100);
));
$node->append_conf('postgresql.conf', 'blinkam.pool_relations = 1');
crash_restart();
($pid1, $p1) = paused_in_a_k(0);
my $where = $node->safe_psql('postgres', "SELECT query $worker");

# i1's splits get its pool refilled in the pause
$node->safe_psql('postgres', 'INSERT INTO t1 SELECT g * 2 + 1 FROM generate_series(1, 3000) g');
ok(wait_for("SELECT coalesce((SELECT leaf_pages > 0 FROM blinkam_pools()
		WHERE index = 'i1'::regclass), false)", 30),
	'the worker refills i1\'s pool while its sweep pauses');

# i2's splits take the slot; the worker's wake-up serves the return of
# i1's pages, reaching the cap, then i2's refill
$node->safe_psql('postgres', 'INSERT INTO t2 SELECT g * 2 + 1 FROM generate_series(1, 3000) g');
ok(wait_for("SELECT coalesce((SELECT leaf_pages > 0 FROM blinkam_pools()
		WHERE index = 'i2'::regclass), false)", 30),
	'and then i2\'s, the job after the cap');
ok(counter('pool_pages_returned') > 0, 'i1\'s pages went back to its free space map');
is($node->safe_psql('postgres', "SELECT query $worker"), $where,
	'the sweep is still in the same pause');
is($node->safe_psql('postgres', "SELECT blink_check('i1', true)"), '', 'C: blink_check i1');
is($node->safe_psql('postgres', "SELECT blink_check('i2', true)"), '', 'C: blink_check i2');
is($node->safe_psql('postgres', "SELECT blink_check('a_k', true)"), '', 'C: blink_check a_k');

ok(!$node->log_contains('TRAP:|terminated by signal'), 'no crash or assertion');
$node->stop;
done_testing();
