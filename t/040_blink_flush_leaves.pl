# A statement buffer's flush writing several leaves in one WAL record
# (blinkam.flush_leaves; blinkinsert.c, _blink_flush_companions): the
# windows where the leaf of a next run cannot go in the same record.
#
# 1. The leaf a hint names has split since the hint was taken: the run's
#    first tuple lies beyond its high key, so it is let go, the record
#    goes without it, and the flush finds that run's leaf by a descent.
# 2. The leaf a hint names is held by another backend (a batch holder
#    paused with it locked): it is not waited for under the first leaf's
#    lock; the record goes without it, and the flush then meets the busy
#    leaf the normal way (publishes its run, which the holder takes).
# 3. The same for a right sibling, the way a backend with no hint for the
#    next run finds its leaf (scattered keys).
# 4. The leaves the hints name are no longer in shared buffers (a large
#    index scan pushed them out of this node's 8 MB): none is read from
#    disk while another is held, so each run's leaf is read by the flush
#    with nothing held and written in a record of its own.
#
# Each case: the flush's records and grouped leaves, exactly; then the
# rows equal a btree twin's, and blink_check passes.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BatchCases;

my $node = PostgreSQL::Test::Cluster->new('flush_leaves');
$node->init;
$node->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
authentication_timeout = 600
shared_buffers = 8MB
));
BatchCases::start_node($node);

# Eight sensors, 500 rows each: each sensor's last rows on a leaf of
# their own (L1 .. L8).
$node->safe_psql('postgres', q(
CREATE TABLE f (s int, t int, v text) WITH (autovacuum_enabled = off);
CREATE INDEX f_st ON f USING blink (s, t);
CREATE TABLE fb (s int, t int, v text) WITH (autovacuum_enabled = off);
CREATE INDEX fb_st ON fb (s, t);
INSERT INTO f SELECT s, t, 'load' FROM generate_series(1, 8) s, generate_series(1, 500) t;
INSERT INTO fb SELECT * FROM f;
));

# One session makes the flushes: its leaf hints live in its backend.
my $s1 = $node->background_psql('postgres');

# one row per sensor at time stamp $t, in one transaction, on both tables;
# returns "records grouped" of the blink flush at its commit
sub flush_round
{
	my ($t) = @_;
	my $w0 = counter('deferred_leaf_writes');
	my $g0 = counter('flush_leaves_grouped');
	$s1->query_safe("BEGIN; INSERT INTO f SELECT s, $t, 'r$t' FROM generate_series(1, 8) s; "
		  . "INSERT INTO fb SELECT s, $t, 'r$t' FROM generate_series(1, 8) s; COMMIT");
	return (counter('deferred_leaf_writes') - $w0) . ' '
	  . (counter('flush_leaves_grouped') - $g0);
}

sub same_rows
{
	my ($what) = @_;
	is($node->safe_psql('postgres', q(
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT (SELECT string_agg(s || ':' || t || v, ',' ORDER BY s, t) FROM f WHERE s > 0)
     = (SELECT string_agg(s || ':' || t || v, ',' ORDER BY s, t) FROM fb WHERE s > 0))),
		't', "$what: the blink index returns the btree twin's rows");
	is($node->safe_psql('postgres', "SELECT blink_check('f_st', true)"), '',
		"$what: blink_check");
}

# warm-up: the leaves are found by descents and remembered as hints; then
# every leaf by a hint, four a record
flush_round(1001);
is(flush_round(1002), '2 6', 'all eight leaves hinted: two records of four leaves');

# 1. Another backend splits L3: 997 rows of sensor 3 between 1002 and
#    2000.  L3 held (3, 1002), so its low bound is at or below it, and it
#    cannot hold all of those rows: its high key is now below (3, 2000).
$node->safe_psql('postgres', q(
INSERT INTO f SELECT 3, t, 'split' FROM generate_series(1003, 1999) t;
INSERT INTO fb SELECT 3, t, 'split' FROM generate_series(1003, 1999) t;
));
is(flush_round(2000), '3 5',
	'a split hinted leaf ends the record ([L1 L2]); a descent finds its run\'s leaf ([L3\' L4 L5 L6], [L7 L8])');
same_rows('split since the hint');
# the hints are fresh again
is(flush_round(2001), '2 6', 'then two records of four leaves again');

# 2. A batch holder holds sensor 3's last leaf (its insert of (3, 2500) is
#    paused before it claims what was published there).
my ($h, $k) = start_holder(141, 'SET blinkam.defer_inserts = off;', 'f', "3, 2500, 'held'");
my $w0 = counter('deferred_leaf_writes');
my $g0 = counter('flush_leaves_grouped');
my $b0 = counter('batched_inserts');
$s1->query_until(qr/inserted/, "BEGIN; INSERT INTO f SELECT s, 3000, 'r3000' FROM generate_series(1, 8) s;\n"
	  . "\\echo inserted\nCOMMIT /* flush3000 */;\n\\echo committed\n");
waiting('flush3000');
is(counter('deferred_leaf_writes') - $w0, 1,
	'the busy leaf is not waited for under the first: [L1 L2] is written');
release_key($k);
$s1->query_until(qr/committed/, '');
$h->[0]->finish;
is($s1->{stderr} . ${ $h->[2] }, '', 'both statements succeed');
is((counter('deferred_leaf_writes') - $w0) . ' ' . (counter('flush_leaves_grouped') - $g0),
	'3 4', 'the rest: [L4 L5 L6 L7], [L8]');
is(counter('batched_inserts') - $b0, 1, 'the holder took the run\'s tuple for its leaf');
$node->safe_psql('postgres', q(
INSERT INTO fb VALUES (3, 2500, 'held');
INSERT INTO fb SELECT s, 3000, 'r3000' FROM generate_series(1, 8) s;
));
same_rows('busy leaf');

# 3. Scattered keys from a fresh backend (no hints): the next leaves are
#    right siblings (_blink_flush_right_sibling).  A batch holder holds
#    the leaf of key 800 (the second or third leaf): the flush's first
#    record ends before it, and the flush then publishes its run there.
$node->safe_psql('postgres', q(
CREATE TABLE g (k int) WITH (autovacuum_enabled = off);
INSERT INTO g SELECT x FROM generate_series(1, 4000) x;
CREATE INDEX g_k ON g USING blink (k);
CREATE TABLE gb (k int) WITH (autovacuum_enabled = off);
INSERT INTO gb SELECT * FROM g;
CREATE INDEX gb_k ON gb (k);
));
($h, $k) = start_holder(142, 'SET blinkam.defer_inserts = off;', 'g', '800');
$w0 = counter('deferred_leaf_writes');
$g0 = counter('flush_leaves_grouped');
my $f = bg("BEGIN; INSERT INTO g SELECT x FROM generate_series(20, 4000, 40) x; COMMIT /* scattered */");
waiting('scattered');
is(counter('deferred_leaf_writes') - $w0, 1,
	'scattered: the record before the busy leaf is written, the flush waits at that leaf');
release_key($k);
$f->[0]->finish;
$h->[0]->finish;
is(${ $f->[2] } . ${ $h->[2] }, '', 'scattered: both statements succeed');
ok(counter('flush_leaves_grouped') - $g0 > 0, 'scattered: right siblings went in others\' records');
$node->safe_psql('postgres', q(
INSERT INTO gb VALUES (800);
INSERT INTO gb SELECT x FROM generate_series(20, 4000, 40) x;
));
is($node->safe_psql('postgres', q(
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT (SELECT string_agg(k::text, ',' ORDER BY k) FROM g WHERE k > 0)
     = (SELECT string_agg(k::text, ',' ORDER BY k) FROM gb WHERE k > 0))),
	't', 'scattered: the blink index returns the btree twin\'s rows');
is($node->safe_psql('postgres', "SELECT blink_check('g_k', true)"), '',
	'scattered: blink_check');

# 4. Fresh hints, all eight leaves in shared buffers: two records of four.
#    Then the insert of a 45 MB table and an index scan of it (neither
#    uses a buffer ring, unlike a sequential scan) pass over the 1,024
#    buffers about eleven times, more than a usage count (at most 5)
#    survives: the leaves must be read again.
is(flush_round(4000), '2 6', 'leaves in shared buffers: two records of four');
$node->safe_psql('postgres', q(
CREATE TABLE big (id int, pad text) WITH (autovacuum_enabled = off);
INSERT INTO big SELECT x, repeat('x', 200) FROM generate_series(1, 200000) x;
CREATE INDEX big_id ON big (id);
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(pad) FROM big WHERE id > 0;
));
$s1->query_safe('SELECT pg_stat_force_next_flush()');
my $read0 = $node->safe_psql('postgres',
	"SELECT idx_blks_read FROM pg_statio_user_indexes WHERE indexrelname = 'f_st'");
is(flush_round(4001), '8 0',
	'leaves not in shared buffers: none read as a companion, one record each');
$s1->query_safe('SELECT pg_stat_force_next_flush()');
ok($node->safe_psql('postgres',
	"SELECT idx_blks_read FROM pg_statio_user_indexes WHERE indexrelname = 'f_st'") - $read0 >= 8,
	'the eight leaves were read from disk');
same_rows('leaves read from disk');

$s1->quit;
$node->stop;
done_testing();
