# A subscriber's blink index under logical replication.  The apply worker
# inserts without an executor statement and truncates through
# ExecuteTruncateGuts, not ProcessUtility: entries it held back would be
# added after the TRUNCATE, into the new, empty index.  blinkam buffers
# only inside statements whose end it sees, so the apply worker's entries
# go straight in.  Each case: the subscriber's index scans return what its
# sequential scans return, and blink_check passes.
#
# And a blinkheap table without a usable index on the subscriber: the
# apply worker finds the row an UPDATE names by a sequential scan with a
# dirty snapshot, and waits for the transactions the snapshot reports as
# having written the row it returns.  With a local transaction's
# uncommitted row on the same page, those must be the returned row's
# writers, not the page's last row's (blinkheap decides a page's tuples
# at once): the update applies without waiting for the local transaction.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $pub = PostgreSQL::Test::Cluster->new('publisher');
$pub->init(allows_streaming => 'logical');
$pub->append_conf('postgresql.conf', "shared_preload_libraries = 'blinkam'");
$pub->start;

my $sub = PostgreSQL::Test::Cluster->new('subscriber');
$sub->init;
$sub->append_conf('postgresql.conf', "shared_preload_libraries = 'blinkam'");
$sub->start;

for my $node ($pub, $sub)
{
	$node->safe_psql('postgres', q(
CREATE EXTENSION blinkam;
CREATE TABLE r (id int PRIMARY KEY, k int, pad text);
CREATE INDEX r_k ON r USING blink (k);
));
}
$pub->safe_psql('postgres', 'CREATE PUBLICATION p FOR TABLE r');
my $connstr = $pub->connstr . ' dbname=postgres';
$sub->safe_psql('postgres',
	"CREATE SUBSCRIPTION s CONNECTION '$connstr' PUBLICATION p WITH (copy_data = false)");
$pub->wait_for_catchup('s');

# The subscriber's rows through the blink index and through a sequential
# scan, as text.
sub rows
{
	my ($node, $how) = @_;
	my $set = $how eq 'index'
	  ? 'SET enable_seqscan = off; SET enable_bitmapscan = off;'
	  : 'SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;';
	return $node->safe_psql('postgres',
		"$set SELECT string_agg(id || ':' || k, ',' ORDER BY k, id) FROM r WHERE k > -1000000");
}

sub check_case
{
	my ($name, $expected_count) = @_;
	$pub->wait_for_catchup('s');
	my $heap = rows($sub, 'seq');
	is(rows($sub, 'index'), $heap, "$name: index scan equals sequential scan");
	is(rows($pub, 'seq'), $heap, "$name: subscriber equals publisher");
	is($sub->safe_psql('postgres', 'SELECT count(*) FROM r'),
		$expected_count, "$name: row count");
	is($sub->safe_psql('postgres', "SELECT blink_check('r_k', true)"),
		'', "$name: blink_check");
}

# 1. One transaction inserts 1000 rows and truncates; then 10 more rows.
$pub->safe_psql('postgres', q(
BEGIN;
INSERT INTO r SELECT g, g, 'a' FROM generate_series(1, 1000) g;
TRUNCATE r;
COMMIT;
INSERT INTO r SELECT g, g, 'b' FROM generate_series(1, 10) g;
));
check_case('insert + truncate', 10);

# 2. One transaction inserts 1000 rows and deletes half of them.
$pub->safe_psql('postgres', q(
BEGIN;
INSERT INTO r SELECT g, g * 7 % 1000, 'c' FROM generate_series(11, 1010) g;
DELETE FROM r WHERE id % 2 = 0;
COMMIT;
));
check_case('insert + delete', 505);

# 3. Updates of the key, then a truncate and inserts in one transaction
#    with a savepoint rolled back.
$pub->safe_psql('postgres', q(
UPDATE r SET k = -k WHERE id % 3 = 0;
UPDATE r SET k = k + 5000 WHERE id % 5 = 0;
));
check_case('key updates', 505);
$pub->safe_psql('postgres', q(
BEGIN;
INSERT INTO r SELECT g, g, 'd' FROM generate_series(2001, 2500) g;
SAVEPOINT s;
INSERT INTO r SELECT g, g, 'e' FROM generate_series(3001, 3100) g;
ROLLBACK TO s;
TRUNCATE r;
INSERT INTO r SELECT g, g, 'f' FROM generate_series(4001, 4300) g;
COMMIT;
));
check_case('insert + truncate + insert', 300);

# 4. A blinkheap subscriber table found by a sequential scan (REPLICA
#    IDENTITY FULL, no index): the row to update is committed, a local
#    transaction's uncommitted row follows it on the page.
$pub->safe_psql('postgres', q(
CREATE TABLE rf (id int, v text);
ALTER TABLE rf REPLICA IDENTITY FULL;
ALTER PUBLICATION p ADD TABLE rf;
));
$sub->safe_psql('postgres', 'CREATE TABLE rf (id int, v text) USING blinkheap');
$sub->safe_psql('postgres', 'ALTER SUBSCRIPTION s REFRESH PUBLICATION WITH (copy_data = false)');
$pub->safe_psql('postgres', "INSERT INTO rf VALUES (1, 'x')");
$pub->wait_for_catchup('s');
my $local = $sub->background_psql('postgres');
$local->query_safe("BEGIN; INSERT INTO rf VALUES (2, 'local')");
$pub->safe_psql('postgres', "UPDATE rf SET v = 'y' WHERE id = 1");
$sub->poll_query_until('postgres', q(
SELECT (SELECT v FROM rf WHERE id = 1) = 'y'
	OR EXISTS (SELECT FROM pg_stat_activity
				WHERE backend_type = 'logical replication worker'
				  AND wait_event = 'transactionid')))
  or die 'the update neither applied nor waited';
is($sub->safe_psql('postgres', 'SELECT v FROM rf WHERE id = 1'), 'y',
	'blinkheap: the update applied while the local transaction is open');
$local->query_safe('COMMIT');
$local->quit;
$pub->wait_for_catchup('s');
is($sub->safe_psql('postgres', 'SELECT string_agg(id || v, \',\' ORDER BY id) FROM rf'),
	'1y,2local', 'blinkheap: rows');
is($sub->safe_psql('postgres', "SELECT blinkheap_check('rf')"), '', 'blinkheap_check');

# The apply worker buffered nothing.
is($sub->safe_psql('postgres',
		"SELECT value FROM blinkam_stats() WHERE name = 'deferred_inserts'"),
	'0', 'the apply worker buffers no entry');

$sub->stop;
$pub->stop;
done_testing();
