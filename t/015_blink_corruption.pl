# Corruption reports an operator can act on.  Each case damages one page of
# a blink index on disk while the server is down (a line pointer, a dead
# mark where none may be, the order of two entries, the special area, a
# right-link, the metapage, an entry's heap TID), starts the server again
# and checks that blink_check (and, for damage that normal operation runs
# into, an ordinary query) reports
#   ERROR:  XX002: blink index "<name>" is corrupted
#   DETAIL:  Block <n>: <what is wrong>.   (or, for a table row, without a block)
#   HINT:  Rebuild it from its table with REINDEX INDEX <schema>.<name>.
# and that the REINDEX the hint names gives an index that passes
# blink_check with heapallindexed and answers like the table.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('corrupt');
$node->init;
$node->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
autovacuum = off
));
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION blinkam');

my $page_size = 8192;
my $special_size = 24;    # MAXALIGN(sizeof(BlinkPageOpaqueData))

# A fresh table and blink index (6,000 unique keys over several leaves),
# flushed to disk.  Returns a leaf block that has a right sibling and at
# least 20 items, and that leaf's first data key.
sub fresh_index
{
	my ($name) = @_;
	$node->safe_psql('postgres', qq(
DROP TABLE IF EXISTS $name;
CREATE TABLE $name (k int, pad text);
INSERT INTO $name SELECT i, repeat('x', 20) FROM generate_series(1, 6000) i;
CREATE INDEX ${name}_k ON $name USING blink (k);
CHECKPOINT;
));
	my $leaf = $node->safe_psql('postgres', qq(
SELECT b FROM generate_series(1, pg_relation_size('${name}_k') / $page_size - 1) b,
       LATERAL blink_page_stats('${name}_k', b) s
 WHERE s.type = 'leaf' AND s.right_link IS NOT NULL AND s.live_items >= 20
 ORDER BY b LIMIT 1));
	die "no suitable leaf in ${name}_k" if $leaf eq '';
	my $key = $node->safe_psql('postgres', qq(
SELECT key FROM blink_page_items('${name}_k', $leaf)
 WHERE NOT is_highkey ORDER BY itemoffset LIMIT 1));
	$key =~ s/[()]//g;
	return ($leaf, $key);
}

# Read, change and write back one block of a relation while the server is
# stopped.
sub edit_block
{
	my ($rel, $blkno, $edit) = @_;
	my $path = $node->data_dir . '/'
	  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('$rel')");
	$node->stop('fast');
	open(my $fh, '+<', $path) or die "open $path: $!";
	binmode $fh;
	sysseek($fh, $blkno * $page_size, 0) or die "seek: $!";
	sysread($fh, my $page, $page_size) == $page_size or die "short read";
	$edit->(\$page);
	sysseek($fh, $blkno * $page_size, 0) or die "seek: $!";
	syswrite($fh, $page) == $page_size or die "short write";
	close($fh);
	$node->start;
}

# Line pointer n (1-based) of a page: (offset, flags, length).
sub get_lp
{
	my ($page, $n) = @_;
	my $v = unpack('V', substr($$page, 24 + 4 * ($n - 1), 4));
	return ($v & 0x7fff, ($v >> 15) & 3, $v >> 17);
}

sub set_lp
{
	my ($page, $n, $off, $flags, $len) = @_;
	substr($$page, 24 + 4 * ($n - 1), 4) =
	  pack('V', $off | ($flags << 15) | ($len << 17));
}

# Run SQL expected to fail; check the three parts of a corruption report.
sub expect_corrupt
{
	my ($sql, $index, $detail_re, $what) = @_;
	my ($ret, $out, $err) = $node->psql('postgres',
		"\\set VERBOSITY verbose\n$sql");
	isnt($ret, 0, "$what: fails");
	like($err, qr/ERROR:  XX002: blink index "$index" is corrupted/,
		"$what: says the index is corrupted, with ERRCODE_INDEX_CORRUPTED");
	like($err, qr/DETAIL:  $detail_re/, "$what: detail names what is wrong");
	like($err, qr/HINT:  Rebuild it from its table with REINDEX INDEX public\.$index\./,
		"$what: hint names REINDEX");
}

# After the REINDEX the hint gives, the index is whole and agrees with the
# table.
sub reindex_heals
{
	my ($table, $what) = @_;
	$node->safe_psql('postgres', "REINDEX INDEX ${table}_k");
	is($node->safe_psql('postgres', qq(
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT blink_check('${table}_k', true);
SELECT count(*), sum(k) FROM $table WHERE k > 0)),
		"\n6000|18003000", "$what: REINDEX rebuilds a checked, complete index");
}

# 1. A data item's line pointer marked unused.
{
	my ($leaf) = fresh_index('c1');
	edit_block('c1_k', $leaf, sub {
		my ($page) = @_;
		my ($off, $flags, $len) = get_lp($page, 5);
		set_lp($page, 5, $off, 0, $len);
	});
	expect_corrupt("SELECT blink_check('c1_k')", 'c1_k',
		qr/Block $leaf: item 5 is not in use\./, 'unused line pointer');
	reindex_heals('c1', 'unused line pointer');
}

# 1b. A data item marked dead (LP_DEAD) on a leaf not flagged as holding
#     any, and a high key marked dead: marks exist only on data items of
#     flagged leaves.
{
	my ($leaf) = fresh_index('c1b');
	edit_block('c1b_k', $leaf, sub {
		my ($page) = @_;
		my ($off, $flags, $len) = get_lp($page, 5);
		set_lp($page, 5, $off, 3, $len);
	});
	expect_corrupt("SELECT blink_check('c1b_k')", 'c1b_k',
		qr/Block $leaf: item 5 is marked dead but the page is not flagged\./,
		'dead item on an unflagged leaf');
	reindex_heals('c1b', 'dead item on an unflagged leaf');

	($leaf) = fresh_index('c1b');
	edit_block('c1b_k', $leaf, sub {
		my ($page) = @_;
		my ($off, $flags, $len) = get_lp($page, 1);
		set_lp($page, 1, $off, 3, $len);
	});
	expect_corrupt("SELECT blink_check('c1b_k')", 'c1b_k',
		qr/Block $leaf: high key item is not a normal item\./, 'dead high key');
	reindex_heals('c1b', 'dead high key');
}

# 2. Two neighbouring entries swapped.
{
	my ($leaf) = fresh_index('c2');
	edit_block('c2_k', $leaf, sub {
		my ($page) = @_;
		my @a = get_lp($page, 6);
		my @b = get_lp($page, 7);
		set_lp($page, 6, @b);
		set_lp($page, 7, @a);
	});
	expect_corrupt("SELECT blink_check('c2_k')", 'c2_k',
		qr/Block $leaf: items 6 and 7 are out of order\./, 'entries out of order');
	reindex_heals('c2', 'entries out of order');
}

# 3. A leaf's special area overwritten: an ordinary index scan that lands
#    on it reports it as well as blink_check.
{
	my ($leaf, $key) = fresh_index('c3');
	edit_block('c3_k', $leaf, sub {
		my ($page) = @_;
		substr($$page, $page_size - $special_size + 20, 2) = pack('v', 0x1234);
	});
	expect_corrupt(
		"SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT * FROM c3 WHERE k = $key",
		'c3_k', qr/Block $leaf: not a blink page \(page id 1234\)\./,
		'bad special area, index scan');
	expect_corrupt("SELECT blink_check('c3_k')", 'c3_k',
		qr/Block \d+: not a blink page \(page id 1234\)\./,
		'bad special area, blink_check');
	reindex_heals('c3', 'bad special area');
}

# 4. A right-link pointing past the end of the index.
{
	my ($leaf) = fresh_index('c4');
	edit_block('c4_k', $leaf, sub {
		my ($page) = @_;
		substr($$page, $page_size - $special_size + 4, 4) = pack('V', 900000);
	});
	expect_corrupt("SELECT blink_check('c4_k')", 'c4_k',
		qr/Block $leaf: right-link points to block 900000, out of range\./,
		'right-link out of range');
	reindex_heals('c4', 'right-link out of range');
}

# 5. The metapage's magic number: every use of the index reports it.
{
	fresh_index('c5');
	edit_block('c5_k', 0, sub {
		my ($page) = @_;
		my $meta = 24;    # BlinkMetaPageData follows the page header
		substr($$page, $meta, 4) = pack('V', 0xdeadbeef);
	});
	expect_corrupt(
		"SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT * FROM c5 WHERE k = 10",
		'c5_k', qr/Block 0: the metapage has no blink magic number\./,
		'bad metapage, index scan');
	reindex_heals('c5', 'bad metapage');
}

# 6. An entry whose heap TID was changed: the structure is intact (keys are
#    unique, so the TID is only a tiebreaker), but heapallindexed finds the
#    table row with no entry.
{
	my ($leaf) = fresh_index('c6');
	my $ctid = $node->safe_psql('postgres',
		"SELECT ctid FROM blink_page_items('c6_k', $leaf) WHERE itemoffset = 10");
	edit_block('c6_k', $leaf, sub {
		my ($page) = @_;
		my ($off) = get_lp($page, 10);
		substr($$page, $off + 4, 2) = pack('v', 250);    # ip_posid
	});
	$ctid =~ s/[()]//g;
	my ($b, $o) = split /,/, $ctid;
	$node->safe_psql('postgres', "SELECT blink_check('c6_k')");
	pass('a changed heap TID keeps the structure valid');
	expect_corrupt("SELECT blink_check('c6_k', true)", 'c6_k',
		qr/Row \($b,$o\) of table "c6" has no entry \(expected key \(\d+\)\)\./,
		'entry with a wrong heap TID');
	reindex_heals('c6', 'entry with a wrong heap TID');
}

$node->stop;
done_testing();
