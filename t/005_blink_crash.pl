# Ten crashes (immediate stop, no shutdown checkpoint) at random moments of
# 24 clients inserting random keys that split pages.  After each restart:
# recovery replays blink's generic WAL, the blinkam worker finishes the
# splits the crash left incomplete (no user action), every index passes
# blink_check with heapallindexed, index and table agree, and inserts go on.
# One index has 50 distinct keys, so its full leaves are rewritten with
# posting tuples (deduplication) all along.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my $node = PostgreSQL::Test::Cluster->new('crash');
$node->init;
$node->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
max_connections = 40
blinkam.repair_delay = 0
));
$node->start;
$node->safe_psql('postgres', q(
CREATE EXTENSION blinkam;
CREATE TABLE c (k bigint, id bigserial);
CREATE INDEX c_k ON c USING blink (k) WITH (fillfactor = 100);
CREATE UNIQUE INDEX c_id ON c USING blink (id);
-- 50 distinct keys: full leaves group them into posting tuples
CREATE INDEX c_g ON c USING blink ((k % 50));
));

my $script = $node->basedir . '/crash.sql';
PostgreSQL::Test::Utils::append_to_file($script, q(
\set k random(1, 1000000000)
INSERT INTO c (k) SELECT :k + i FROM generate_series(1, 20) i;
));

my $repaired = 0;
for my $cycle (1 .. 10)
{
	my ($out, $err) = ('', '');
	my $before = $node->safe_psql('postgres', 'SELECT count(*) FROM c');
	my $h = IPC::Run::start(
		[ 'pgbench', '--no-vacuum', '--client=24', '--jobs=2', '--time=60',
		  '--file', $script, '--host', $node->host, '--port', $node->port, 'postgres' ],
		'>', \$out, '2>', \$err);

	# Crash at a random moment, once the clients have written something.
	my $after = 2000 + int(rand(30000));
	$node->poll_query_until('postgres',
		"SELECT count(*) > $before + $after FROM c")
	  or die 'pgbench made no progress';
	$node->stop('immediate');
	$h->finish;

	$node->start;
	for my $idx (qw(c_k c_id c_g))
	{
		$node->poll_query_until('postgres',
			"SELECT incomplete_splits = 0 FROM blink_tree_stats('$idx')")
		  or die "cycle $cycle: $idx not repaired";
	}
	$repaired += $node->safe_psql('postgres',
		"SELECT value FROM blinkam_stats() WHERE name = 'splits_repaired_by_worker'");
	for my $idx (qw(c_k c_id c_g))
	{
		is($node->safe_psql('postgres', "SELECT blink_check('$idx', true)"), '',
			"cycle $cycle: blink_check($idx, heapallindexed) after crash recovery");
	}
	is($node->safe_psql('postgres', q(SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT count(*) FROM c WHERE k > 0)),
		$node->safe_psql('postgres', 'SELECT count(*) FROM c'),
		"cycle $cycle: the index finds every row");

	# More inserts after the crash: splits left incomplete get finished.
	$node->safe_psql('postgres',
		'INSERT INTO c (k) SELECT (random() * 1000000000)::bigint FROM generate_series(1, 20000)');
	is($node->safe_psql('postgres', "SELECT blink_check('c_k', true)"), '',
		"cycle $cycle: blink_check after more inserts");
}

note("splits repaired by the worker over the 10 cycles: $repaired");
ok($node->safe_psql('postgres',
		"SELECT count(*) FROM generate_series(1, pg_relation_size('c_g') / 8192 - 1) b,
			LATERAL blink_page_items('c_g', b) i WHERE i.htids IS NOT NULL") > 0,
	'c_g holds posting tuples');

$node->stop;
done_testing();
