# Page pools: splits take preallocated pages that the worker refills under
# load; pages left in a pool by a crash come back through VACUUM; a pool
# slot of a dropped index is reused; a small index has none.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('pools');
$node->init;
$node->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
max_connections = 40
blinkam.pool_relations = 2
));
$node->start;

sub counter
{
	my ($name) = @_;
	return $node->safe_psql('postgres',
		"SELECT value FROM blinkam_stats() WHERE name = '$name'");
}

$node->safe_psql('postgres', q(
CREATE EXTENSION blinkam;
CREATE TABLE p (k bigint);
CREATE INDEX p_k ON p USING blink (k);
INSERT INTO p SELECT g * 1000 FROM generate_series(1, 100000) g;
SELECT blinkam_reset_stats();
));

# 1. Refill under load: 16 clients inserting random keys.
$node->pgbench(
	'--no-vacuum --client=16 --jobs=2 --transactions=2000',
	0, [qr{processed: 32000/32000}], [qr{^$}],
	'random inserts, 16 clients',
	{ '007_random' => q(
\set k random(1, 1000000000)
INSERT INTO p VALUES (:k), (:k + 1), (:k + 2);
) });
my ($taken, $misses, $refills) =
  (counter('pool_pages_taken'), counter('pool_misses'), counter('pool_refills'));
note("pool: $taken pages taken, $misses misses, $refills refills");
ok($taken > 0, 'splits took pages from the pool');
ok($refills > 0, 'the worker refilled the pool');
ok($taken > $misses, 'most splits found a page in the pool');
ok($node->poll_query_until('postgres',
		"SELECT leaf_pages > 0 AND internal_pages > 0 FROM blinkam_pools()
		  WHERE index = 'p_k'::regclass"),
	'blinkam_pools lists the refilled pool, leaf and internal pages');
is($node->safe_psql('postgres', "SELECT blink_check('p_k', true)"), '', 'blink_check');

# 2. A crash leaves the pooled pages as unused zero pages; VACUUM returns
#    them to the free space map, and splits use them before extending.
$node->poll_query_until('postgres',
	"SELECT leaf_pages > 0 FROM blinkam_pools() WHERE index = 'p_k'::regclass")
  or die 'pool not refilled';
$node->stop('immediate');
$node->start;
my $zero = $node->safe_psql('postgres', "SELECT free_pages FROM blink_tree_stats('p_k')");
ok($zero > 0, "pooled pages are zero pages after the crash ($zero)");
$node->safe_psql('postgres', 'VACUUM p');
my $size = $node->safe_psql('postgres', "SELECT pg_relation_size('p_k')");
# a few splits with pools off: they must take the free pages
$node->safe_psql('postgres', q(
SET blinkam.enable_pools = off;
INSERT INTO p SELECT g * 1000 + 1 FROM generate_series(1, 3000) g;
));
my $zero2 = $node->safe_psql('postgres', "SELECT free_pages FROM blink_tree_stats('p_k')");
ok($zero2 < $zero, "splits reused the returned pages ($zero -> $zero2 zero pages)");
is($node->safe_psql('postgres', "SELECT pg_relation_size('p_k')"), $size,
	'without growing the index');
is($node->safe_psql('postgres', "SELECT blink_check('p_k', true)"), '', 'blink_check');

# 3. Two pool slots: a dropped index's slot goes to the next index.
$node->safe_psql('postgres',
	'INSERT INTO p SELECT g * 1000 + 2 FROM generate_series(1, 3000) g');
$node->safe_psql('postgres', q(
CREATE TABLE q1 (k int); CREATE INDEX q1_k ON q1 USING blink (k);
INSERT INTO q1 SELECT generate_series(1, 20000);
));
$node->poll_query_until('postgres',
	"SELECT count(*) = 2 FROM blinkam_pools()") or die 'no second pool';
$node->safe_psql('postgres', 'DROP TABLE q1');
$node->safe_psql('postgres', q(
CREATE TABLE q2 (k int); CREATE INDEX q2_k ON q2 USING blink (k);
INSERT INTO q2 SELECT generate_series(1, 20000);
));
is($node->safe_psql('postgres', 'SELECT string_agg(index::text, \' \' ORDER BY index::text) FROM blinkam_pools()'),
	'p_k q2_k', "the dropped index's pool slot was reused");
is($node->safe_psql('postgres', "SELECT blink_check('q2_k', true)"), '', 'blink_check');

# 4. REINDEX gives the index a new relfilenode: its next split takes a new
#    slot and frees the old one.
my $old_node = $node->safe_psql('postgres',
	"SELECT relfilenode FROM blinkam_pools() WHERE index = 'q2_k'::regclass");
$node->safe_psql('postgres', 'REINDEX INDEX q2_k');
$node->safe_psql('postgres', 'INSERT INTO q2 SELECT generate_series(20001, 40000)');
is($node->safe_psql('postgres',
		"SELECT count(*), bool_and(relfilenode = pg_relation_filenode('q2_k'))
		   FROM blinkam_pools() WHERE index = 'q2_k'::regclass"),
	"1|t", "after REINDEX one pool for q2_k, on its new relfilenode (old $old_node)");
is($node->safe_psql('postgres', "SELECT blink_check('q2_k', true)"), '', 'blink_check');

# 5. A small index has no pool: until it has as many pages as a pool's
#    first refill (twice blinkam.pool_leaf_low), its splits extend it a
#    page at a time, as btree's do, and it takes no slot.
$node->safe_psql('postgres', q(
CREATE TABLE s (k int);
CREATE INDEX s_b ON s USING blink (k);
CREATE INDEX s_t ON s (k);
INSERT INTO s SELECT generate_series(1, 1000);
));
is($node->safe_psql('postgres', "SELECT count(*) FROM blinkam_pools() WHERE index = 's_b'::regclass"),
	'0', 'a small index has no pool');
is($node->safe_psql('postgres',
		"SELECT pg_relation_size('s_b') <= pg_relation_size('s_t')
		    AND pg_relation_size('s_b') / 8192 < 2 * current_setting('blinkam.pool_leaf_low')::int"),
	't', "and is no bigger than btree's");
is($node->safe_psql('postgres', "SELECT blink_check('s_b', true)"), '', 'blink_check');

$node->stop;
done_testing();
