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
#
# And a replicated UPDATE whose row's unique blink entry a local
# transaction holds back (blinkam.defer_unique): the apply worker waits
# for it, as for an entry on the leaf (blinkscan.c, _blink_wait_pending).
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

# 5. A replicated UPDATE of a key whose row a local transaction is
#    inserting, its unique blink entry held back (blinkam.defer_unique):
#    the entry is not on its leaf, only its key in pending.c.  The apply
#    worker's lookup by the replica identity index (a dirty snapshot)
#    must wait for the local transaction as it does for an entry on the
#    leaf, then update the row -- as with a btree twin, in the same steps.
#    A marker row sent after the UPDATE tells an apply that went on
#    without waiting (the row "not found", the update lost) from one that
#    waits.
$pub->safe_psql('postgres', 'CREATE TABLE marker (n int)');
$sub->safe_psql('postgres', 'CREATE TABLE marker (n int)');
for my $node ($pub, $sub)
{
	$node->safe_psql('postgres', q(
CREATE TABLE ru (k int NOT NULL, v text);
CREATE UNIQUE INDEX ru_k ON ru USING blink (k);
ALTER TABLE ru REPLICA IDENTITY USING INDEX ru_k;
CREATE TABLE rb (k int NOT NULL, v text);
CREATE UNIQUE INDEX rb_k ON rb (k);
ALTER TABLE rb REPLICA IDENTITY USING INDEX rb_k;
));
}
$pub->safe_psql('postgres', 'ALTER PUBLICATION p ADD TABLE ru, rb, marker');
$sub->safe_psql('postgres', 'ALTER SUBSCRIPTION s REFRESH PUBLICATION WITH (copy_data = false)');
my $n = 0;
for my $t ('ru', 'rb')
{
	$n++;
	$pub->safe_psql('postgres', "INSERT INTO $t VALUES (1, 'a'), (2, 'a')");
	$pub->wait_for_catchup('s');
	$sub->safe_psql('postgres', "DELETE FROM $t WHERE k = 1");
	my $held = $sub->safe_psql('postgres',
		"SELECT value FROM blinkam_stats() WHERE name = 'pending_unique_inserts'");
	my $lt = $sub->background_psql('postgres');
	$lt->query_safe("SET blinkam.defer_unique = on; BEGIN; INSERT INTO $t VALUES (1, 'local')");
	is($sub->safe_psql('postgres',
			"SELECT value - $held FROM blinkam_stats() WHERE name = 'pending_unique_inserts'"),
		$t eq 'ru' ? '1' : '0', "$t: the local entry is held back (blink only)");
	$pub->safe_psql('postgres', "UPDATE $t SET v = 'pub' WHERE k = 1; INSERT INTO marker VALUES ($n)");
	$sub->poll_query_until('postgres', qq(
SELECT EXISTS (SELECT FROM marker WHERE n = $n)
	OR EXISTS (SELECT FROM pg_stat_activity
				WHERE backend_type = 'logical replication worker'
				  AND wait_event = 'transactionid')))
	  or die 'the apply worker neither waited nor went on';
	is($sub->safe_psql('postgres', "SELECT count(*) FROM marker WHERE n = $n"), '0',
		"$t: the apply worker waits for the local transaction");
	$lt->query_safe('COMMIT');
	$lt->quit;
	$pub->wait_for_catchup('s');
	is($sub->safe_psql('postgres', "SELECT string_agg(k || v, ',' ORDER BY k) FROM $t"),
		'1pub,2a', "$t: the replicated update applied to the local row");
}
is($sub->safe_psql('postgres', "SELECT blink_check('ru_k', true)"), '',
	'blink_check after the held-back key');

$sub->stop;
$pub->stop;
done_testing();
