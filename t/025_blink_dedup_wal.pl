# A deduplication pass logs what it changed, not the whole leaf.  The pass
# rewrites the leaf in key order; the items that stay as they were keep
# their places, so its generic WAL record holds only the new posting
# tuples, the line pointers from the first change on and the header.
# Until 2026-11-27 every pass wrote a full page image: the rewritten page
# was built on a temporary page whose LSN was zero, and a buffer whose
# LSN is older than the last checkpoint gets a full image whatever the
# record asks.  A leaf of a growing time stamp (ten rows per time stamp,
# as in the IoT benchmark) deduplicates three or four times before it
# splits; those images were 13% of the IoT workload's index WAL.
#
# Checked with pg_walinspect after a checkpoint (nothing after it can
# force an image, and no checkpoint runs during the test): the only
# records of the index that carry a page image are the splits' (the new
# right page) and the new roots'.  (A statement's rows with one key now
# go in as one posting tuple; the rows here go in one by one, as from
# single-row statements.)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('dedupwal');
$node->init;
$node->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
autovacuum = off
checkpoint_timeout = '1h'
max_wal_size = '4GB'
));
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION blinkam; CREATE EXTENSION pg_walinspect;');

sub counter
{
	my ($name) = @_;
	return $node->safe_psql('postgres',
		"SELECT value FROM blinkam_stats() WHERE name = '$name'");
}

$node->safe_psql('postgres', q(
CHECKPOINT;
CREATE TABLE w (t timestamp);
CREATE INDEX w_t ON w USING blink (t);
SELECT blinkam_reset_stats();
));
my $start = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
# row by row (without statement buffers, whose runs of one key would go
# in as posting tuples at once), ten rows per time stamp: full leaves
# deduplicate, or split
$node->safe_psql('postgres', q(
SET blinkam.defer_inserts = off;
INSERT INTO w SELECT '2020-01-01'::timestamp + (g / 10) * interval '1 s'
  FROM generate_series(0, 5999) g;));
my $end = $node->safe_psql('postgres', 'SELECT pg_current_wal_flush_lsn()');

my $passes = counter('dedup_passes');
my $splits = counter('splits');
my $roots = counter('root_splits');
ok($passes >= 4, "leaves deduplicated several times ($passes passes)");
ok($splits >= 2, "and split ($splits splits, $roots new roots)");

my ($images, $records) = split /\|/, $node->safe_psql('postgres', qq(
SELECT count(*) FILTER (WHERE fpi_length > 0), count(*)
  FROM pg_get_wal_records_info('$start', '$end')
 WHERE resource_manager = 'Generic'
   AND block_ref ~ ('/' || pg_relation_filenode('w_t') || ' ')));
ok($records > $passes + $splits, "the index's records were found ($records)");
is($images, $splits + $roots,
	'page images only in splits and new roots, none in deduplication passes');

my $seq = $node->safe_psql('postgres',
	"SELECT count(*), count(DISTINCT t), min(t), max(t) FROM w");
is($seq, '6000|600|2020-01-01 00:00:00|2020-01-01 00:09:59', 'the table');
is($node->safe_psql('postgres', q(
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*), count(DISTINCT t), min(t), max(t) FROM w WHERE t >= '2020-01-01')),
	$seq, 'the same rows through the index');
is($node->safe_psql('postgres', "SELECT blink_check('w_t', true)"), '', 'blink_check');

$node->stop;
done_testing();
