# The ascent of a split never waits for the split page while it holds the
# parent.  The split page L is often the hottest leaf of the index, with a
# queue of inserters; an ascent that waited in that queue holding the
# parent P would stop every descent through P until the queue drained.
# Forced here: s1 splits L and is held before its ascent
# (blinkam.debug_pause_at = split_parent); s2 takes L for an insert that
# fits and is held there (batch_before_claim); s1 goes on, takes P, finds
# L busy.  Then:
#   1. a lookup descending through P (s3) finishes while L is still held:
#      s1 let P go while it waits (parent_let_go counts it);
#   2. the same, and while s1 waits another split inserts a downlink into
#      P ahead of L's, so that L's downlink has moved when s1 takes P
#      back: s1 starts its ascent over and puts N's downlink in the right
#      place (blink_check checks every downlink against its child).
# Both end with every split finished, the same answers through the index
# as without it, and blink_check.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use BatchCases;

my $node = PostgreSQL::Test::Cluster->new('splitparent');
$node->init;
$node->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
autovacuum = off
));
$node->start;
BatchCases::use_node($node);
$node->safe_psql('postgres', 'CREATE EXTENSION blinkam');

# Leaves filled to the brim (fillfactor 100) under one internal root: an
# insert of an odd key into any leaf's range splits that leaf.
sub setup_table
{
	my ($t) = @_;
	$node->safe_psql('postgres', qq(
CREATE TABLE $t (k int) WITH (autovacuum_enabled = off);
INSERT INTO $t SELECT 2 * g FROM generate_series(1, 8000) g;
CREATE INDEX ${t}_k ON $t USING blink (k) WITH (fillfactor = 100);
SELECT blinkam_reset_stats();
));
}

# The lowest key of the leaf holding key (the leaf's first item).
sub leaf_low
{
	my ($t, $key) = @_;
	my $b = leaf_items("${t}_k", 'b', "i.key = '($key)'");
	return leaf_items("${t}_k", q{min(btrim(i.key, '()')::int)}, "b = $b");
}

# The session that holds the pause points' advisory locks.
my ($ctl_in, $ctl_out) = ('', '');
my $ctl = IPC::Run::start(
	[ 'psql', '-X', '-q', '-A', '-t', '-d', $node->connstr('postgres') ],
	'<', \$ctl_in, '>', \$ctl_out);
sub hold
{
	my ($key) = @_;
	$ctl_in .= "SELECT pg_advisory_lock($key), 'held $key';\n";
	$ctl->pump until $ctl_out =~ /held $key/;
}
sub let_go
{
	my ($key) = @_;
	$ctl_in .= "SELECT pg_advisory_unlock($key), 'let go $key';\n";
	$ctl->pump until $ctl_out =~ /let go $key/;
}

# Every split finished, the index agrees with the table, blink_check.
sub check_index
{
	my ($t, $rows, $name) = @_;
	is($node->safe_psql('postgres', "SELECT incomplete_splits FROM blink_tree_stats('${t}_k')"),
		'0', "$name: every split finished");
	is($node->safe_psql('postgres', qq(
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*), sum(k) FROM $t WHERE k > 0)),
		$node->safe_psql('postgres', "SET enable_indexscan = off; SET enable_bitmapscan = off;
			SET enable_indexonlyscan = off; SELECT count(*), sum(k) FROM $t WHERE k > 0"),
		"$name: the index returns what the table holds");
	is($node->safe_psql('postgres', "SELECT count(*) FROM $t"), $rows, "$name: rows");
	is($node->safe_psql('postgres', "SELECT blink_check('${t}_k', true)"), '', "$name: blink_check");
}

for my $case (1, 2)
{
	my $t = "p$case";
	setup_table($t);
	my $low = leaf_low($t, 8000);
	ok($low > 2 && $low < 8000, "$t: the leaf L of key 8000 starts at $low, not the first leaf");
	hold(300 + $case);
	hold(310 + $case);
	my $s1 = bg("SET blinkam.debug_pause_at = split_parent; SET blinkam.debug_pause_key = "
		  . (300 + $case) . "; INSERT INTO $t VALUES (8001) /* s1 */");
	paused('/* s1 */');
	is($node->safe_psql('postgres', "SELECT incomplete_splits FROM blink_tree_stats('${t}_k')"),
		'1', "$t: s1 split L and waits before its ascent");
	my $s2 = bg("SET blinkam.debug_pause_at = batch_before_claim; SET blinkam.debug_pause_key = "
		  . (310 + $case) . "; INSERT INTO $t VALUES (" . ($low + 1) . ") /* s2 */");
	paused('/* s2 */');
	let_go(300 + $case);
	waits_on('/* s1 */', 'BufferContent');
	is(counter('parent_let_go'), '1', "$t: s1 found L busy and let P go");

	# Had s1 kept P while it waits for L, this lookup would wait for P until
	# s2 lets L go, which happens only further down: it would never end,
	# and the harness's timeout would fail it.
	my $s3 = bg("SET enable_seqscan = off; SET enable_bitmapscan = off; "
		  . "SELECT count(*) FROM $t WHERE k = 2 /* s3 */");
	ok(eval { $s3->[0]->finish; 1 }, "$t: a lookup through P finishes while L is held");
	is(${ $s3->[1] }, "1\n", "$t: and finds its row");

	if ($case == 2)
	{
		# another split ahead of L inserts its downlink into P meanwhile
		# (nothing may read L meanwhile: s2 holds it)
		$node->safe_psql('postgres', "INSERT INTO $t VALUES (3)");
		is(counter('splits') . ' ' . counter('parent_let_go'), '2 1',
			"$t: the first leaf split, its ascent took P while L's waits");
	}

	let_go(310 + $case);
	$_->[0]->finish for ($s1, $s2);
	is(${ $s1->[2] } . ${ $s2->[2] }, '', "$t: s1 and s2 succeeded");
	check_index($t, $case == 2 ? '8003' : '8002', $t);
}

$ctl_in .= "\\q\n";
$ctl->finish;
$node->stop;
done_testing();
