# Page pools never strand pages.
#   A. Five crashes (immediate stop) and five clean restarts between rounds
#      of split-heavy inserts, with VACUUM: after each start the pages the
#      pools held are found again (start-up sweep, VACUUM) and refills take
#      them from the free space map, so an index's zero pages stay within
#      one pool and its size within 1.05x of the same rounds on a cluster
#      that never restarts.
#   B. More busy indexes than pool slots (64 indexes, 16 slots), inserted
#      round robin: recycled slots return their pages to the free space
#      map; zero pages stay within one pool per index.
#   C. 256 indexes with the default number of slots, the same; and their
#      pools, sized by demand, stay at twice the low watermarks.
# Each index ends with blink_check(..., true) and index answers equal to a
# sequential scan.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# one pool: what a slot holds at most (its high watermarks)
my $one_pool = 32 + 8;

sub new_node
{
	my ($name, $extra) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
autovacuum = off
blinkam.pool_leaf_low = 8
blinkam.pool_leaf_high = 32
blinkam.pool_internal_low = 2
blinkam.pool_internal_high = 8
$extra
));
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION blinkam');
	return $node;
}

sub counter
{
	my ($node, $name) = @_;
	return $node->safe_psql('postgres',
		"SELECT value FROM blinkam_stats() WHERE name = '$name'");
}

# pages and zero pages of an index
sub sizes
{
	my ($node, $index) = @_;
	return split /\|/, $node->safe_psql('postgres',
		"SELECT pages, free_pages FROM blink_tree_stats('$index')");
}

# The same answers through the index as through a sequential scan, and a
# clean blink_check.
sub check_index
{
	my ($node, $table, $col, $index, $what) = @_;
	my $q = "SELECT count(*), sum($col), min($col), max($col) FROM $table WHERE $col > 0";
	my $seq = $node->safe_psql('postgres', "SET enable_indexscan = off; SET enable_bitmapscan = off;
		SET enable_indexonlyscan = off; $q");
	my $idx = $node->safe_psql('postgres', "SET enable_seqscan = off; SET enable_bitmapscan = off; $q");
	my $check = $node->safe_psql('postgres', "SELECT blink_check('$index', true)");
	return ($seq eq $idx && $check eq '') ? 'ok' : "$what: seq [$seq] index [$idx] check [$check]";
}

# --- A. restarts and crashes
my $restarts = new_node('restarts', '');
my $reference = new_node('reference', '');
for my $node ($restarts, $reference)
{
	$node->safe_psql('postgres', q(
CREATE TABLE t (k bigint, r bigint);
CREATE INDEX t_k ON t USING blink (k);
CREATE INDEX t_r ON t USING blink (r);
));
}
my $rows = 40000;
my $found = 0;
for my $round (0 .. 10)
{
	my $from = $round * $rows + 1;
	my $to = ($round + 1) * $rows;
	for my $node ($restarts, $reference)
	{
		# growing keys and scattered ones (a fixed permutation)
		$node->safe_psql('postgres', "INSERT INTO t SELECT g, (g::bigint * 7919) % 1000003
			FROM generate_series($from, $to) g");
		$node->safe_psql('postgres', 'VACUUM t');
	}
	next if $round == 10;
	# rounds 0-4 end with a crash, 5-9 with a clean restart
	$found += counter($restarts, 'free_pages_found');
	$restarts->stop($round < 5 ? 'immediate' : 'fast');
	$restarts->start;
}

for my $index ('t_k', 't_r')
{
	my ($pages, $zero) = sizes($restarts, $index);
	my ($ref_pages, $ref_zero) = sizes($reference, $index);
	note("$index: $pages pages, $zero zero, against $ref_pages and $ref_zero without restarts");
	ok($zero <= $one_pool, "$index: zero pages ($zero) within one pool after 5 crashes and 5 restarts");
	ok($pages <= 1.05 * $ref_pages,
		"$index: $pages pages, within 1.05x of $ref_pages without restarts");
	is(check_index($restarts, 't', $index eq 't_k' ? 'k' : 'r', $index, $index), 'ok',
		"$index: answers and blink_check after restarts");
	is(check_index($reference, 't', $index eq 't_k' ? 'k' : 'r', $index, $index), 'ok',
		"$index: answers and blink_check on the reference");
}
ok($found + counter($restarts, 'free_pages_found') > 0
	  || counter($restarts, 'pool_pages_from_fsm') > 0,
	'stranded pages were found again and reused');
$reference->stop;

# Round robin over n tables p1..pn of one blink index each.
sub round_robin
{
	my ($node, $n, $rounds, $rows_each) = @_;
	$node->safe_psql('postgres', qq(
DO \$\$
BEGIN
	FOR i IN 1..$n LOOP
		EXECUTE format('CREATE TABLE p%s (k bigint)', i);
		EXECUTE format('CREATE INDEX p%s_k ON p%s USING blink (k)', i, i);
	END LOOP;
END \$\$;
));
	$node->safe_psql('postgres', qq(
DO \$\$
BEGIN
	FOR r IN 0..$rounds - 1 LOOP
		FOR i IN 1..$n LOOP
			EXECUTE format('INSERT INTO p%s SELECT g FROM generate_series(%s, %s) g',
						   i, r * $rows_each + 1, (r + 1) * $rows_each);
			COMMIT;
		END LOOP;
	END LOOP;
END \$\$;
));
	$node->safe_psql('postgres', 'VACUUM');
	my @bad;
	my $worst = 0;
	for my $i (1 .. $n)
	{
		my ($pages, $zero) = sizes($node, "p${i}_k");
		$worst = $zero if $zero > $worst;
		push @bad, "p${i}_k: $zero of $pages" if $zero > $one_pool;
		my $c = check_index($node, "p$i", 'k', "p${i}_k", "p${i}_k");
		push @bad, $c if $c ne 'ok';
	}
	note("$n indexes: at most $worst zero pages in one index");
	return (join('; ', @bad), $worst);
}

# --- B. 64 indexes, 16 pool slots: slots are recycled all the time
$restarts->append_conf('postgresql.conf', 'blinkam.pool_relations = 16');
$restarts->restart;
$restarts->safe_psql('postgres', 'DROP TABLE t');
is((round_robin($restarts, 64, 8, 2000))[0], '',
	'64 indexes, 16 slots: zero pages within one pool per index, answers, blink_check');
ok(counter($restarts, 'pool_pages_returned') > 0, 'recycled slots returned their pages');
is(counter($restarts, 'pool_pages_stranded'), '0', 'none was stranded');
$restarts->stop;

# --- C. 256 indexes, default slots
my $many = new_node('many', '');
my ($bad, $worst) = round_robin($many, 256, 8, 500);
is($bad, '', '256 indexes: zero pages within one pool per index, answers, blink_check');
# Pools are sized by demand: an index splitting once or twice per turn
# never empties its pool after a refill, so its target stays at twice the
# low watermarks (2 x (8 + 2)), not the full pool.
ok($worst <= 2 * (8 + 2), "pools of rarely splitting indexes stay small ($worst zero pages at most)");
$many->stop;

done_testing();
