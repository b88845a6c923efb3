# Many clients inserting into blink indexes at once: random keys (splits
# everywhere), a unique index with colliding keys, and right-edge keys.
# Afterwards every index passes blink_check with heapallindexed, and index
# scans agree with sequential scans exactly.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('stress');
$node->init;
$node->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
max_connections = 60
));
$node->start;

$node->safe_psql('postgres', q(
CREATE EXTENSION blinkam;
CREATE TABLE r (k bigint, t timestamptz DEFAULT clock_timestamp(), pad text);
CREATE INDEX r_k ON r USING blink (k);
CREATE INDEX r_t ON r USING blink (t DESC);
CREATE INDEX r_kt ON r USING blink (k, t) INCLUDE (pad);
CREATE TABLE u (k int, who int);
CREATE UNIQUE INDEX u_k ON u USING blink (k);
));

# 32 clients, random keys, for a fixed number of transactions
$node->pgbench(
	'--no-vacuum --client=32 --jobs=2 --transactions=400',
	0,
	[qr{processed: 12800/12800}],
	[qr{^$}],
	'random inserts, 32 clients',
	{
		'003_random' => q(
\set k random(1, 100000000)
INSERT INTO r (k, pad) SELECT :k + i, repeat('x', (:k % 50)::int) FROM generate_series(0, 4) i;
)
	});

# 32 clients fighting over 3000 unique keys: every key ends up exactly once
$node->pgbench(
	'--no-vacuum --client=32 --jobs=2 --transactions=300',
	0,
	[qr{processed: 9600/9600}],
	[qr{^$}],
	'unique inserts with collisions, 32 clients',
	{
		'003_unique' => q(
\set k random(1, 3000)
DO $$ BEGIN INSERT INTO u VALUES (:k, :client_id); EXCEPTION WHEN unique_violation THEN NULL; END $$;
)
	});

# The IoT workload: every client writes at the right edge of (sensor, ts)
# and of ts, with transaction timestamps that interleave, so pages that
# just split keep receiving inserts and split again at once.
$node->safe_psql('postgres', q(
CREATE TABLE iot (sensor_id int, ts timestamp, value float8);
CREATE UNIQUE INDEX iot_st ON iot USING blink (sensor_id, ts);
CREATE INDEX iot_ts ON iot USING blink (ts);
));
$node->pgbench(
	'--no-vacuum --client=32 --jobs=2 --transactions=1500',
	0,
	[qr{processed: 48000/48000}],
	[qr{^$}],
	'IoT right-edge inserts, 32 clients',
	{
		'003_iot' => q(
INSERT INTO iot SELECT :client_id * 10 + i, current_timestamp, random() FROM generate_series(1, 10) i;
)
	});
is($node->safe_psql('postgres', 'SELECT count(*) FROM iot'), '480000',
	'every IoT row is there');

is($node->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT k) FROM u'),
	't', 'no key of the unique index is duplicated');
ok($node->safe_psql('postgres', 'SELECT count(*) FROM u') > 2000,
	'most keys were inserted');

for my $idx (qw(r_k r_t r_kt u_k iot_st iot_ts))
{
	is($node->safe_psql('postgres', "SELECT blink_check('$idx', true)"),
		'', "blink_check($idx, heapallindexed) passes");
}

# index and sequential scans agree
my $q_index = q(SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*), sum(k) FROM r WHERE k BETWEEN 1000000 AND 60000000;);
my $q_seq = q(SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;
	SELECT count(*), sum(k) FROM r WHERE k BETWEEN 1000000 AND 60000000;);
is($node->safe_psql('postgres', $q_index), $node->safe_psql('postgres', $q_seq),
	'range scan over the index matches a sequential scan');
is($node->safe_psql('postgres', q(SET enable_seqscan = off;
	SELECT count(*) FROM u WHERE k BETWEEN 1 AND 3000)),
	$node->safe_psql('postgres', 'SELECT count(*) FROM u'),
	'unique index scan finds every row');

my $splits = $node->safe_psql('postgres',
	"SELECT value FROM blinkam_stats() WHERE name = 'splits'");
ok($splits > 100, "the workload split pages ($splits splits)");

$node->stop;
done_testing();
