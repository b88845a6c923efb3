# old_snapshot_threshold: a scan whose snapshot is older than the
# threshold fails with "snapshot too old" when it reads a page changed
# since the snapshot was taken, rather than answer without what VACUUM
# may have removed early -- as btree and heap scans fail.  Until
# 2026-11-28 blink leaves and blinkheap pages were never tested: an old
# REPEATABLE READ snapshot got a short answer from a blink index scan
# after VACUUM removed a row it still saw (found by a helper's review).
#
# With old_snapshot_threshold = 0 (PostgreSQL's own test setting, see
# src/test/modules/snapshot_too_old) a snapshot is "old" once a few
# seconds have passed.  One REPEATABLE READ transaction reads four
# tables, sleeps, another session updates three of them, and the same
# reads run again, each in a savepoint: the btree index scan (the
# reference), the blink index scan and the blinkheap sequential scan
# fail; the blink index scan of the untouched table still answers.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('old_snapshot');
$node->init;
$node->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
autovacuum = off
old_snapshot_threshold = 0
));
$node->start;
$node->safe_psql('postgres', q(
CREATE EXTENSION blinkam;
CREATE TABLE ht (k int, v int);
CREATE INDEX ht_k ON ht (k);
CREATE TABLE hb (k int, v int);
CREATE INDEX hb_k ON hb USING blink (k);
CREATE TABLE quiet (k int, v int);
CREATE INDEX quiet_k ON quiet USING blink (k);
CREATE TABLE bh (k int, v int) USING blinkheap;
INSERT INTO ht SELECT g, g FROM generate_series(1, 1000) g;
INSERT INTO hb SELECT * FROM ht;
INSERT INTO quiet SELECT * FROM ht;
INSERT INTO bh SELECT * FROM ht;
VACUUM ANALYZE ht, hb, quiet, bh;
));

my %read = (
	'btree index scan'    => 'SELECT count(*) FROM ht WHERE k BETWEEN 1 AND 10',
	'blink index scan'    => 'SELECT count(*) FROM hb WHERE k BETWEEN 1 AND 10',
	'blink bitmap scan'   => 'SELECT count(*) FROM hb WHERE k BETWEEN 1 AND 10',
	'untouched blink'     => 'SELECT count(*) FROM quiet WHERE k BETWEEN 1 AND 10',
	'blinkheap seq scan'  => 'SELECT count(*) FROM bh WHERE k BETWEEN 1 AND 10');
my %plan = (
	'blink bitmap scan'  => 'SET LOCAL enable_indexscan = off; SET LOCAL enable_bitmapscan = on;',
	'blinkheap seq scan' => 'SET LOCAL enable_seqscan = on;');

my $s1 = $node->background_psql('postgres', on_error_stop => 0);
$s1->query_safe('SET enable_seqscan = off; SET enable_bitmapscan = off');
$s1->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');

# one read of each, in a savepoint (a failure leaves the snapshot as is);
# returns its count, or the error's text
sub read_old
{
	my ($what) = @_;
	$s1->{stderr} = '';
	$s1->query('SAVEPOINT r; ' . ($plan{$what} // ''));
	my $out = $s1->query($read{$what});
	my $err = $s1->{stderr};
	$s1->query('ROLLBACK TO SAVEPOINT r');
	$s1->{stderr} = '';
	return $err ne '' ? $err : $out;
}

is(read_old($_), '10', "$_: counted before") foreach sort keys %read;

$s1->query_safe(q{SELECT pg_sleep(6)});
$node->safe_psql('postgres', q(
UPDATE ht SET v = v + 1 WHERE k = 5;
UPDATE hb SET v = v + 1 WHERE k = 5;
UPDATE bh SET v = v + 1 WHERE k = 5;
));

like(read_old('btree index scan'), qr/snapshot too old/,
	'btree index scan: snapshot too old (the reference)');
like(read_old('blink index scan'), qr/snapshot too old/,
	'blink index scan: snapshot too old');
like(read_old('blink bitmap scan'), qr/snapshot too old/,
	'blink bitmap scan: snapshot too old');
like(read_old('blinkheap seq scan'), qr/snapshot too old/,
	'blinkheap sequential scan: snapshot too old');
is(read_old('untouched blink'), '10',
	'a blink index none of whose leaves changed still answers');
$s1->query_safe('COMMIT');
$s1->quit;

is($node->safe_psql('postgres',
	"SELECT blink_check('hb_k', true), blink_check('quiet_k', true), blinkheap_check('bh')"),
	'||', 'blink_check and blinkheap_check');
$node->stop;
done_testing();
