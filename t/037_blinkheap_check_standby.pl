# blinkheap_check on a standby must not call a waiter's xid "in the
# future".  A batch holder's record carries its waiters' rows under the
# holder's own xid (batch.c); the startup process moves nextXid only past
# the xids of the records it replays (and those a commit, abort or
# running-xacts record lists), so while a waiter with a newer xid keeps its
# transaction open, its row's xmin lies past the standby's nextXid.  The
# check reported the table corrupted ("xmin N is in the future"); found by
# running blinkheap_check on a standby beside PostgreSQL's suites.  At the
# end, the checks and page tools on unlogged relations (helper-51).
#
# The same test then found that such a waiter's COMMIT was asynchronous:
# PostgreSQL flushes a commit record (and waits for synchronous standbys)
# only if the transaction wrote WAL itself, and the waiter's only change
# went in with the holder's record.  Its COMMIT returned before its commit
# record was written, so a crash lost a transaction reported committed,
# and the standby, once caught up with what was written, still had the
# holder's row only.  Here the standby is synchronous and the waiter
# commits with synchronous_commit = remote_apply: the standby must have
# both rows the moment the COMMIT returns (before the fix: one, as the
# waiter did not wait at all).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('chk_primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
));
$primary->start;
$primary->backup('backup');
my $standby = PostgreSQL::Test::Cluster->new('chk_standby');
$standby->init_from_backup($primary, 'backup', has_streaming => 1);
$standby->start;

$primary->safe_psql('postgres',
	"ALTER SYSTEM SET synchronous_standby_names = 'chk_standby'");
$primary->reload;
$primary->safe_psql('postgres', q(
CREATE EXTENSION blinkam;
CREATE TABLE bt (a int, pad text) USING blinkheap;
INSERT INTO bt SELECT g, repeat('x', 50) FROM generate_series(1, 5000) g;
));

sub counter
{
	my ($name) = @_;
	return $primary->safe_psql('postgres',
		"SELECT value FROM blinkam_stats() WHERE name = '$name'");
}
my $batched0 = counter('blinkheap_batched_inserts');

# The holder takes the shared hot page and is held (batch_before_claim)
# before it takes the wait list; the waiter, with a newer xid, finds the
# page busy and publishes its row; released, the holder writes both rows
# in one record under its own xid.
my $ctl = $primary->background_psql('postgres');
$ctl->query_safe('SELECT pg_advisory_lock(7037)');
my $holder = $primary->background_psql('postgres');
$holder->query_safe('SET blinkam.hot_insert_pages = 1; '
	  . 'SET blinkam.debug_pause_at = batch_before_claim; '
	  . 'SET blinkam.debug_pause_key = 7037');
$holder->query_safe('BEGIN');
my $holder_xid = $holder->query_safe('SELECT txid_current()');
$holder->query_until(qr/started/, "\\echo started\nINSERT INTO bt VALUES (-1, 'holder');\n");
ok($primary->poll_query_until('postgres',
	"SELECT count(*) = 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
	  . "AND query LIKE 'INSERT INTO bt VALUES (-1%'"), 'the holder is held');

my $waiter = $primary->background_psql('postgres');
$waiter->query_safe('SET blinkam.hot_insert_pages = 1');
$waiter->query_safe('BEGIN');
my $waiter_xid = $waiter->query_safe('SELECT txid_current()');
ok($waiter_xid > $holder_xid, 'the waiter\'s xid is the newer one');
$waiter->query_until(qr/started/, "\\echo started\nINSERT INTO bt VALUES (-2, 'waiter');\n");
ok($primary->poll_query_until('postgres',
	"SELECT count(*) = 1 FROM pg_stat_activity WHERE state = 'active' "
	  . "AND query LIKE 'INSERT INTO bt VALUES (-2%' AND wait_event IS NOT NULL"),
	'the waiter waits');

$ctl->query_safe('SELECT pg_advisory_unlock(7037)');
is($waiter->query_safe('SELECT 1'), '1', 'the waiter\'s insert returned');
$holder->query_safe('SELECT 1');
$holder->query_safe('COMMIT');
is(counter('blinkheap_batched_inserts') - $batched0, 1,
	'the waiter\'s row went in with the holder\'s record');

# The waiter's transaction is open: the standby has replayed nothing that
# names its xid.
$primary->wait_for_catchup($standby);
my $next = $standby->safe_psql('postgres',
	'SELECT txid_snapshot_xmax(txid_current_snapshot())');
ok($next <= $waiter_xid, "standby's next xid $next is not past the waiter's $waiter_xid");
is($standby->safe_psql('postgres',
	"SELECT count(*) FROM bt WHERE a < 0"), '1', 'standby: the holder\'s row only');
is($standby->safe_psql('postgres', "SELECT blinkheap_check('bt')"), '',
	'blinkheap_check on the standby, the waiter still open');
is($primary->safe_psql('postgres', "SELECT blinkheap_check('bt')"), '',
	'blinkheap_check on the primary, the waiter still open');

$waiter->query_safe('SET LOCAL synchronous_commit = remote_apply');
$waiter->query_safe('COMMIT');
is($standby->safe_psql('postgres',
	"SELECT count(*) FROM bt WHERE a < 0"), '2',
	'standby: both rows as soon as the waiter\'s COMMIT returned (remote_apply)');
is($standby->safe_psql('postgres', "SELECT blinkheap_check('bt')"), '',
	'blinkheap_check on the standby after the commit');

# Unlogged relations have no pages on a standby: the checks skip them
# with a notice, as amcheck does (a loop over every relation goes on);
# the page tools refuse them as PostgreSQL refuses a query.  Both used to
# fail with "could not open file".
$primary->safe_psql('postgres', q(
	CREATE UNLOGGED TABLE ul (a int) USING blinkheap;
	INSERT INTO ul SELECT generate_series(1, 1000);
	CREATE INDEX ul_a ON ul USING blink (a);
	CREATE UNLOGGED TABLE ulh (a int);
	CREATE INDEX ulh_a ON ulh USING blink (a);));
$primary->wait_for_catchup($standby);
my ($ret, $out, $err) = $standby->psql('postgres',
	"SELECT blinkheap_check('ul'); SELECT blink_check('ul_a', true); SELECT blink_check('ulh_a')");
is($ret, 0, 'standby: the checks of unlogged relations succeed');
like($err, qr/skipping unlogged blinkheap table "ul" during recovery/,
	'standby: blinkheap_check skips the unlogged table');
like($err, qr/skipping unlogged blink index "ul_a" during recovery.*skipping unlogged blink index "ulh_a"/s,
	'standby: blink_check skips the unlogged indexes');
for my $tool ("blinkheap_page_stats('ul', 0)", "blink_tree_stats('ul_a')",
	"blink_page_items('ulh_a', 1)")
{
	($ret, $out, $err) = $standby->psql('postgres', "SELECT * FROM $tool");
	like($err, qr/cannot access temporary or unlogged relations during recovery/,
		"standby: $tool is refused");
}
is($primary->safe_psql('postgres',
	"SELECT blinkheap_check('ul'), blink_check('ul_a', true), blink_check('ulh_a', true)"),
	'||', 'primary: the unlogged relations check');

$ctl->quit;
$holder->quit;
$waiter->quit;
$standby->stop;
$primary->stop;
done_testing();
