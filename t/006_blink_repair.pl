# Crash in the middle of a split cascade, at each point blinkam can stop
# at, and check that after the restart the blinkam worker finishes the
# split on its own (no user action), the index passes blink_check with
# heapallindexed, and no committed row is missing.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('repair');
$node->init;
$node->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
restart_after_crash = on
blinkam.repair_delay = 0
));
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION blinkam');

# stop point => [ setup SQL, committed rows, SQL that reaches the point ]
my %cases = (
	after_leaf_split => [
		q(CREATE TABLE t1 (k int);
		  INSERT INTO t1 SELECT (g * 7919) % 100003 FROM generate_series(1, 100000) g;
		  CREATE INDEX t1_k ON t1 USING blink (k);),
		't1', 't1_k', 100000,
		q(INSERT INTO t1 SELECT (g * 7907) % 100003 FROM generate_series(1, 50000) g)],
	after_parent_split => [
		q(CREATE TABLE t2 (k int);
		  INSERT INTO t2 SELECT generate_series(1, 100000);
		  CREATE INDEX t2_k ON t2 USING blink (k) WITH (fillfactor = 100);),
		't2', 't2_k', 100000,
		q(INSERT INTO t2 SELECT generate_series(100001, 300000))],
	before_new_root => [
		q(CREATE TABLE t3 (k int);
		  CREATE INDEX t3_k ON t3 USING blink (k);
		  INSERT INTO t3 SELECT generate_series(1, 300);),
		't3', 't3_k', 300,
		q(INSERT INTO t3 SELECT generate_series(301, 5000))]);

for my $point (sort keys %cases)
{
	my ($setup, $table, $index, $rows, $crash_sql) = @{ $cases{$point} };

	$node->safe_psql('postgres', $setup);

	# The statement PANICs at the stop point: the server crashes and
	# restarts by itself.
	my ($ret, $out, $err) = $node->psql('postgres', qq(
SET blinkam.debug_stop_action = panic;
SET blinkam.debug_stop_at = $point;
$crash_sql;));
	isnt($ret, 0, "$point: the statement crashed the server");
	ok($node->log_contains("PANIC:  blinkam.debug_stop_at: stopping at $point"),
		"$point: it stopped at the named point");

	# Back up, the worker finds the flagged page and finishes the split.
	$node->poll_query_until('postgres',
		"SELECT incomplete_splits = 0 FROM blink_tree_stats('$index')")
	  or die "$point: incomplete split not repaired";
	$node->poll_query_until('postgres',
		"SELECT value >= 1 FROM blinkam_stats() WHERE name = 'splits_repaired_by_worker'")
	  or die "$point: the worker did not count a repair";
	pass("$point: the worker finished the split after the restart");

	is($node->safe_psql('postgres', "SELECT blink_check('$index', true)"), '',
		"$point: blink_check passes");
	is($node->safe_psql('postgres',
			"SET enable_seqscan = off; SET enable_bitmapscan = off;
			 SELECT count(*) FROM $table WHERE k > -1"),
		$rows, "$point: every committed row is found through the index");

	# and the index keeps working
	$node->safe_psql('postgres',
		"INSERT INTO $table SELECT generate_series(1, 20000) * 3");
	is($node->safe_psql('postgres', "SELECT blink_check('$index', true)"), '',
		"$point: blink_check after more inserts");
}

$node->stop;
done_testing();
