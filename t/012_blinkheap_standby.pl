# A streaming standby replays blinkheap's generic WAL with
# wal_consistency_checking = 'generic' (replay compares every page with
# the primary's image) and answers like the primary after rounds of
# COPY, inserts, updates that move rows across pages, deletes, row locks
# and TOAST values; then the primary crashes right after a burst of
# writes and recovers to a table that passes blinkheap_check.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('bh_primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
wal_consistency_checking = 'generic'
));
$primary->start;
$primary->safe_psql('postgres',
	"SELECT pg_create_physical_replication_slot('bh_slot')");
$primary->backup('backup');

my $standby = PostgreSQL::Test::Cluster->new('bh_standby');
$standby->init_from_backup($primary, 'backup', has_streaming => 1);
$standby->append_conf('postgresql.conf', qq(
wal_consistency_checking = 'generic'
primary_slot_name = 'bh_slot'
));
$standby->start;

$primary->safe_psql('postgres', q(
CREATE EXTENSION blinkam;
CREATE TABLE t (id int PRIMARY KEY, g int, s text, big text) USING blinkheap;
CREATE INDEX t_g ON t USING blink (g, id);
INSERT INTO t SELECT i, i % 10, 'row ' || i, NULL FROM generate_series(1, 5000) i;
));

my @queries = (
	'SELECT count(*), sum(id), sum(length(s)), sum(length(big)) FROM t',
	'SELECT g, count(*) FROM t GROUP BY g ORDER BY g',
	'SET enable_seqscan = off; SELECT count(*), sum(id) FROM t WHERE g = 3',
	'SET enable_seqscan = off; SELECT id, s FROM t WHERE id BETWEEN 100 AND 105 ORDER BY id',
	'SELECT md5(string_agg(big, \',\' ORDER BY id)) FROM t WHERE big IS NOT NULL');

sub compare_answers
{
	my ($round) = @_;
	$primary->wait_for_catchup($standby);
	for my $q (@queries)
	{
		is($standby->safe_psql('postgres', $q), $primary->safe_psql('postgres', $q),
			"round $round: standby answers like the primary: $q");
	}
	is($standby->safe_psql('postgres', "SELECT blinkheap_check('t')"), '',
		"round $round: blinkheap_check on the standby");
}

compare_answers('load');
for my $round (1 .. 3)
{
	my $lo = 10000 * $round + 1;
	my $hi = $lo + 8999;
	$primary->safe_psql('postgres', qq(
COPY t (id) FROM PROGRAM 'seq $lo $hi';
UPDATE t SET s = s || repeat('x', 300) WHERE id % 17 = $round;
UPDATE t SET big = (SELECT string_agg(md5((id * $round + j)::text), '') FROM generate_series(1, 200) j)
  WHERE id % 97 = $round;
DELETE FROM t WHERE id % 23 = $round;
BEGIN;
SELECT count(*) FROM (SELECT id FROM t WHERE id % 5 = 0 FOR SHARE) x;
SAVEPOINT a;
SELECT count(*) FROM (SELECT id FROM t WHERE id % 10 = 0 FOR UPDATE) x;
ROLLBACK TO a;
UPDATE t SET g = g + 1 WHERE id % 10 = 0;
COMMIT;
));
	compare_answers($round);
}
ok(!$standby->log_contains('inconsistent page'), 'no inconsistent page in standby replay');

# Crash the primary right after a burst of writes; recovery replays the
# generic WAL (with consistency checks) and the table checks clean.
$primary->safe_psql('postgres', q(
INSERT INTO t SELECT i, i % 10, 'late ' || i, NULL FROM generate_series(100001, 120000) i;
UPDATE t SET s = 'crash round' WHERE id > 110000;
));
$primary->stop('immediate');
$primary->start;
is($primary->safe_psql('postgres', "SELECT blinkheap_check('t')"), '',
	'blinkheap_check after crash recovery');
is($primary->safe_psql('postgres', "SELECT count(*) FROM t WHERE s = 'crash round'"), '10000',
	'committed work survives the crash');
is($primary->safe_psql('postgres', "SELECT blink_check('t_g', true)"), '',
	'blink_check on the table index after crash recovery');
ok(!$primary->log_contains('inconsistent page'), 'no inconsistent page in crash recovery');

done_testing();
