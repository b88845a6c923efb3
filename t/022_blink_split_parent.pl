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
# as without it, and blink_check.  Cases 3 and 4 (below): a writer that
# must split L again while s1 is held waits for s1's ascent, and finishes
# the split itself only once s1 is gone.
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
# insert of a key between two others into any leaf's range splits that
# leaf.  Keys $step apart, $n of them (2 and 8000 unless given).
sub setup_table
{
	my ($t, $step, $n) = @_;
	$step //= 2;
	$n //= 8000;
	$node->safe_psql('postgres', qq(
CREATE TABLE $t (k int) WITH (autovacuum_enabled = off);
INSERT INTO $t SELECT $step * g FROM generate_series(1, $n) g;
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

# s1: an insert of key into t that splits its leaf L and is held before
# the ascent (split_parent, advisory key $key, which the caller holds).
sub split_held
{
	my ($t, $key, $value) = @_;
	my $s1 = bg("SET blinkam.debug_pause_at = split_parent; SET blinkam.debug_pause_key = "
		  . "$key; INSERT INTO $t VALUES ($value) /* s1 */");
	paused('/* s1 */');
	is($node->safe_psql('postgres', "SELECT incomplete_splits FROM blink_tree_stats('${t}_k')"),
		'1', "$t: s1 split L and waits before its ascent");
	return $s1;
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
	my $s1 = split_held($t, 300 + $case, 8001);
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

# 3 and 4.  A writer that must split a leaf whose last split has no
# downlink yet gets that split finished first -- and if a live backend is
# finishing it (registered in the split registry), it waits for that
# backend instead of finishing it alongside.  s1 splits the full leaf L
# of key 20000 and is held before its ascent; s2 then fills L until it
# must split again (keys ten apart leave nine gaps each; deferred inserts off, so
# each key goes in alone, in order).  s2 must wait (wait event Extension,
# the registry's condition variable) without finishing s1's split:
#   3. s1 goes on: its ascent puts the downlink, s2 wakes and splits L;
#   4. s1 is cancelled where it is held: its split is left unfinished,
#      its registry entry goes with its abort, and s2, woken, finishes it
#      (incomplete_splits_finished) and then splits L.
for my $case (3, 4)
{
	my $t = "p$case";
	setup_table($t, 10, 4000);
	my $lblk = leaf_items("${t}_k", 'b', "i.key = '(20000)'");
	hold(320 + $case);
	my $s1 = split_held($t, 320 + $case, 20001);
	my $low = leaf_items("${t}_k", q{min(btrim(i.key, '()')::int)}, "b = $lblk");
	my $high = $node->safe_psql('postgres', qq(
SELECT btrim(key, '()') FROM blink_page_items('${t}_k', $lblk) WHERE is_highkey));
	ok($high > $low, "$t: L keeps [$low, $high)");
	my $s2 = bg("SET blinkam.defer_inserts = off; INSERT INTO $t SELECT g FROM generate_series("
		  . ($low + 1) . ", " . ($high - 1) . ") g WHERE g % 10 <> 0 /* s2 */");
	waits_on('/* s2 */', 'Extension');
	is(counter('incomplete_splits_finished'), '0', "$t: s2 waits for s1, not finishing its split");

	if ($case == 3)
	{
		let_go(320 + $case);
		$_->[0]->finish for ($s1, $s2);
		is(${ $s1->[2] } . ${ $s2->[2] }, '', "$t: s1 and s2 succeeded");
		is(counter('incomplete_splits_finished'), '0', "$t: s1 finished its own split");
	}
	else
	{
		$node->safe_psql('postgres', q{
SELECT pg_cancel_backend(pid) FROM pg_stat_activity
 WHERE query LIKE '%/* s1 */%' AND pid <> pg_backend_pid()});
		$_->[0]->finish for ($s1, $s2);
		like(${ $s1->[2] }, qr/canceling statement due to user request/, "$t: s1 was cancelled");
		is(${ $s2->[2] }, '', "$t: s2 succeeded");
		is(counter('incomplete_splits_finished'), '1', "$t: s2 finished the split s1 left");
		let_go(320 + $case);
	}
	ok(counter('splits') >= 2, "$t: s2 split L again");
	my $s2rows = grep { $_ % 10 != 0 } ($low + 1 .. $high - 1);
	check_index($t, 4000 + $s2rows + ($case == 3 ? 1 : 0), $t);
}

$ctl_in .= "\\q\n";
$ctl->finish;
$node->stop;
done_testing();
