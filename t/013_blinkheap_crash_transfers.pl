# blinkheap under replication, crashes and concurrent writers.
#
# A. A streaming standby (wal_consistency_checking = 'generic': replay
#    compares every page with the primary's image, so a hint bit set on
#    the primary outside a record would stop replay) answers like the
#    primary after rounds of inserts, COPY, same-page and cross-page
#    updates, TOAST values, row locks (MultiXacts), deletes and VACUUM
#    (dead tuples removed, line pointers freed and reused, FREEZE);
#    reads on the primary between rounds; blinkheap_check on both.
# B. Immediate-stop crashes while 8 clients insert into a blinkheap table
#    and a heap ledger in the same transactions: after each restart the
#    two agree exactly, and blinkheap_check and blink_check pass, also
#    after a VACUUM of the recovered table.
# C. 16 clients move money between accounts of a blinkheap table for
#    30 s (READ COMMITTED: concurrent updates of one row go through
#    EvalPlanQual); the total is unchanged and every check passes.
# D. pgbench TPC-B on tables pgbench -i created as blinkheap: balances
#    agree with the history, checks pass after VACUUM.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

# --- A. standby
my $primary = PostgreSQL::Test::Cluster->new('bh_primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
wal_consistency_checking = 'generic'
max_connections = 40
));
$primary->start;
$primary->safe_psql('postgres',
	"SELECT pg_create_physical_replication_slot('standby_slot')");
$primary->backup('backup');

my $standby = PostgreSQL::Test::Cluster->new('bh_standby');
$standby->init_from_backup($primary, 'backup', has_streaming => 1);
$standby->append_conf('postgresql.conf', qq(
wal_consistency_checking = 'generic'
primary_slot_name = 'standby_slot'
));
$standby->start;

$primary->safe_psql('postgres', q(
CREATE EXTENSION blinkam;
CREATE TABLE t (id int, grp int, v text, big text) USING blinkheap;
CREATE INDEX t_id ON t (id);
CREATE INDEX t_grp ON t USING blink (grp);
INSERT INTO t SELECT i, i % 50, md5(i::text), NULL FROM generate_series(1, 5000) i;
));

my $copyfile = $primary->basedir . '/rows.copy';
my @queries = (
	'SELECT count(*), sum(id), md5(string_agg(v, \',\' ORDER BY id)) FROM t',
	'SELECT count(*), sum(length(big)) FROM t WHERE big IS NOT NULL',
	'SELECT id, grp, v FROM t WHERE grp = 7 ORDER BY id LIMIT 20',
	'SELECT id, v FROM t WHERE id BETWEEN 1000 AND 1010 ORDER BY id',
	'SELECT count(*) FROM t WHERE grp IN (1, 2, 3)');

sub compare_answers
{
	my ($round) = @_;
	$primary->wait_for_catchup($standby);
	for my $q (@queries)
	{
		for my $plan ('SET enable_seqscan = off;', 'SET enable_indexscan = off; SET enable_bitmapscan = off;')
		{
			is($standby->safe_psql('postgres', "$plan $q"),
				$primary->safe_psql('postgres', "$plan $q"),
				"round $round: standby answers like the primary: $plan $q");
		}
	}
	is($standby->safe_psql('postgres', "SELECT blinkheap_check('t')"), '',
		"round $round: blinkheap_check on the standby");
	is($primary->safe_psql('postgres', "SELECT blinkheap_check('t')"), '',
		"round $round: blinkheap_check on the primary");
	is($standby->safe_psql('postgres', "SELECT blink_check('t_grp', true)"), '',
		"round $round: blink_check on the standby");
}

compare_answers('load');
for my $round (1 .. 3)
{
	my $base = $round * 100000;
	$primary->safe_psql('postgres', qq(
COPY (SELECT i, i % 50, md5(i::text), NULL FROM generate_series($base, $base + 3000) i) TO '$copyfile';
COPY t FROM '$copyfile';
UPDATE t SET v = v || 'u$round' WHERE id % 11 = $round;
UPDATE t SET big = repeat(md5(id::text), 300) WHERE id % 97 = $round;
UPDATE t SET big = (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 200) g)
  WHERE id % 89 = $round;
DELETE FROM t WHERE id % 13 = $round;
BEGIN;
SELECT count(*) FROM (SELECT id FROM t WHERE grp = $round FOR SHARE) s;
SAVEPOINT s1;
SELECT count(*) FROM (SELECT id FROM t WHERE grp = $round FOR KEY SHARE) s;
SELECT count(*) FROM (SELECT id FROM t WHERE grp = $round + 1 FOR UPDATE) s;
RELEASE s1;
UPDATE t SET v = 'locked' WHERE grp = $round AND id % 3 = 0;
COMMIT;
BEGIN;
INSERT INTO t VALUES (-$round, 0, 'rolled back', NULL);
UPDATE t SET v = 'rolled back' WHERE id % 17 = $round;
ROLLBACK;
VACUUM t;
));
	$primary->safe_psql('postgres', 'VACUUM FREEZE t') if $round == 2;
	# reads on the primary: with heap's functions these would set hint bits
	$primary->safe_psql('postgres', 'SELECT count(*) FROM t; SELECT count(*) FROM t WHERE id > 100');
	compare_answers($round);
}
$standby->stop;
$primary->stop;

# --- B. crashes with a heap ledger written in the same transactions
my $node = PostgreSQL::Test::Cluster->new('bh_crash');
$node->init;
$node->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
max_connections = 40
));
$node->start;
$node->safe_psql('postgres', q(
CREATE EXTENSION blinkam;
CREATE TABLE ev (id bigint, sensor int, payload text) USING blinkheap;
CREATE INDEX ev_sensor ON ev USING blink (sensor);
CREATE TABLE ledger (id bigint, sensor int, payload text);
CREATE SEQUENCE ev_seq;
));
my $script = $node->basedir . '/ledger.sql';
PostgreSQL::Test::Utils::append_to_file($script, q(
\set s random(1, 1000)
BEGIN;
SELECT nextval('ev_seq') AS id \gset
INSERT INTO ev VALUES (:id, :s, repeat('x', :s % 200));
INSERT INTO ledger VALUES (:id, :s, repeat('x', :s % 200));
COMMIT;
));

for my $cycle (1 .. 3)
{
	my ($out, $err) = ('', '');
	my $before = $node->safe_psql('postgres', 'SELECT count(*) FROM ledger');
	my $h = IPC::Run::start(
		[ 'pgbench', '--no-vacuum', '--client=8', '--jobs=2', '--time=60',
		  '--file', $script, '--host', $node->host, '--port', $node->port, 'postgres' ],
		'>', \$out, '2>', \$err);
	my $after = 500 + int(rand(3000));
	$node->poll_query_until('postgres',
		"SELECT count(*) > $before + $after FROM ledger")
	  or die 'pgbench made no progress';
	$node->stop('immediate');
	$h->finish;
	$node->start;

	is($node->safe_psql('postgres', q(
		SELECT (SELECT count(*) FROM (TABLE ev EXCEPT ALL TABLE ledger) a) +
		       (SELECT count(*) FROM (TABLE ledger EXCEPT ALL TABLE ev) b))), '0',
		"cycle $cycle: after the crash the blinkheap table and the heap ledger agree");
	is($node->safe_psql('postgres', 'SELECT count(*) FROM ev'),
		$node->safe_psql('postgres', 'SELECT count(*) FROM ledger'),
		"cycle $cycle: same number of rows");
	is($node->safe_psql('postgres', "SELECT blinkheap_check('ev')"), '',
		"cycle $cycle: blinkheap_check after crash recovery");
	is($node->safe_psql('postgres', "SELECT blink_check('ev_sensor', true)"), '',
		"cycle $cycle: blink_check(heapallindexed) after crash recovery");
	is($node->safe_psql('postgres', q(SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT count(*) FROM ev WHERE sensor > 0)),
		$node->safe_psql('postgres', 'SELECT count(*) FROM ev'),
		"cycle $cycle: the index finds every row");
	# the rows of transactions the crash cut off are dead: VACUUM them
	$node->safe_psql('postgres', 'VACUUM ev');
	is($node->safe_psql('postgres', q(
		SELECT (SELECT count(*) FROM (TABLE ev EXCEPT ALL TABLE ledger) a) +
		       (SELECT count(*) FROM (TABLE ledger EXCEPT ALL TABLE ev) b))), '0',
		"cycle $cycle: after VACUUM they still agree");
	is($node->safe_psql('postgres', "SELECT blinkheap_check('ev'), blink_check('ev_sensor', true)"), '|',
		"cycle $cycle: blinkheap_check and blink_check after VACUUM");
}

# --- C. money transfers
$node->safe_psql('postgres', q(
CREATE TABLE acct (id int PRIMARY KEY, bal bigint NOT NULL) USING blinkheap;
INSERT INTO acct SELECT i, 1000 FROM generate_series(1, 100) i;
));
my $xfer = $node->basedir . '/xfer.sql';
PostgreSQL::Test::Utils::append_to_file($xfer, q(
\set a random(1, 100)
\set b random(1, 100)
\set d random(1, 50)
BEGIN;
UPDATE acct SET bal = bal - :d WHERE id = :a;
UPDATE acct SET bal = bal + :d WHERE id = :b;
COMMIT;
));
my ($out, $err) = ('', '');
IPC::Run::run(
	[ 'pgbench', '--no-vacuum', '--client=16', '--jobs=2', '--time=30',
	  '--max-tries=100', '--file', $xfer, '--host', $node->host,
	  '--port', $node->port, 'postgres' ],
	'>', \$out, '2>', \$err);
my ($done) = $out =~ /number of transactions actually processed: (\d+)/;
ok(defined $done && $done > 0, 'transfers ran') or diag($out . $err);
my ($failed) = $out =~ /number of failed transactions: (\d+)/;
is($failed // 0, 0, 'no transfer failed (deadlocks retried)') or diag($out . $err);
note("transfers: " . ($done // 0));
is($node->safe_psql('postgres', 'SELECT sum(bal), count(*) FROM acct'), '100000|100',
	'the total is unchanged, every account is there once');
is($node->safe_psql('postgres', q(SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT sum(bal), count(*) FROM acct WHERE id > 0)), '100000|100',
	'through the primary key index too');
is($node->safe_psql('postgres', "SELECT blinkheap_check('acct')"), '',
	'blinkheap_check after the transfers');
# every transfer left a dead version: VACUUM removes them all
$node->safe_psql('postgres', 'VACUUM acct');
is($node->safe_psql('postgres', q(
	SELECT sum(s.dead_tuples) FROM generate_series(0,
	  pg_relation_size('acct') / current_setting('block_size')::int - 1) b,
	  blinkheap_page_stats('acct', b) s)), '0', 'VACUUM removed every dead version');
is($node->safe_psql('postgres', 'SELECT sum(bal), count(*) FROM acct'), '100000|100',
	'the total is unchanged after VACUUM');
is($node->safe_psql('postgres', "SELECT blinkheap_check('acct')"), '',
	'blinkheap_check after VACUUM');
# --- D. pgbench TPC-B on blinkheap tables (created by pgbench -i under
#        default_table_access_method = blinkheap)
{
	local $ENV{PGOPTIONS} = '-c default_table_access_method=blinkheap';
	my ($iout, $ierr) = ('', '');
	IPC::Run::run([ 'pgbench', '-i', '-s', '2', '--host', $node->host,
		'--port', $node->port, 'postgres' ], '>', \$iout, '2>', \$ierr)
	  or die "pgbench -i failed: $ierr";
}
is($node->safe_psql('postgres', q(
	SELECT string_agg(c.relname || ' ' || a.amname, ', ' ORDER BY c.relname)
	  FROM pg_class c JOIN pg_am a ON a.oid = c.relam
	 WHERE c.relname LIKE 'pgbench_%' AND c.relkind = 'r')),
	'pgbench_accounts blinkheap, pgbench_branches blinkheap, pgbench_history blinkheap, pgbench_tellers blinkheap',
	'pgbench -i made blinkheap tables');
($out, $err) = ('', '');
IPC::Run::run(
	[ 'pgbench', '--client=8', '--jobs=2', '--time=20', '--max-tries=100',
	  '--host', $node->host, '--port', $node->port, 'postgres' ],
	'>', \$out, '2>', \$err);
($done) = $out =~ /number of transactions actually processed: (\d+)/;
ok(defined $done && $done > 0, 'TPC-B ran') or diag($out . $err);
($failed) = $out =~ /number of failed transactions: (\d+)/;
is($failed // 0, 0, 'no TPC-B transaction failed') or diag($out . $err);
note("TPC-B transactions: " . ($done // 0));
is($node->safe_psql('postgres', q(
	SELECT (SELECT sum(abalance) FROM pgbench_accounts) = (SELECT sum(bbalance) FROM pgbench_branches)
	   AND (SELECT sum(bbalance) FROM pgbench_branches) = (SELECT sum(tbalance) FROM pgbench_tellers)
	   AND (SELECT sum(tbalance) FROM pgbench_tellers) = (SELECT coalesce(sum(delta), 0) FROM pgbench_history)
	   AND (SELECT count(*) FROM pgbench_history) = ) . ($done // -1)), 't',
	'TPC-B: the balances of accounts, branches and tellers equal the history, one history row per transaction');
$node->safe_psql('postgres', 'VACUUM');
for my $t (qw(pgbench_accounts pgbench_branches pgbench_tellers pgbench_history))
{
	is($node->safe_psql('postgres', "SELECT blinkheap_check('$t')"), '',
		"blinkheap_check($t) after TPC-B and VACUUM");
}
is($node->safe_psql('postgres', q(SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*) FROM pgbench_accounts WHERE aid > 0)), '200000',
	'every account through its primary key after VACUUM');

$node->stop;
done_testing();
