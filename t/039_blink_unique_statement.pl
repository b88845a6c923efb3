# A unique blink index checked at the statement's end (unique_check =
# statement) under concurrency: 16 clients insert runs of ten colliding
# keys (a run that meets a key already there fails whole, caught in a
# savepoint), move small key ranges up by one (legal only if checked at
# the statement's end), and upsert single keys with ON CONFLICT.  Each
# transaction records in a ledger how many rows it added.  Afterwards the
# table holds exactly the ledger's rows, no key twice (by a sequential
# scan), the index passes blink_check with heapallindexed, and the
# counters show the runs went in several entries to a record.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('unique_statement');
$node->init;
$node->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
max_connections = 40
));
$node->start;

$node->safe_psql('postgres', q(
CREATE EXTENSION blinkam;
CREATE TABLE us (k int, who int);
CREATE UNIQUE INDEX us_k ON us USING blink (k) WITH (unique_check = statement);
CREATE TABLE ledger (n int);
SELECT blinkam_reset_stats();
));

$node->pgbench(
	'--no-vacuum --client=16 --jobs=2 --transactions=1000',
	0,
	[qr{processed: 16000/16000}],
	[qr{^$}],
	'colliding runs, key moves and upserts, 16 clients',
	{
		'039_runs' => q(
\set k random(1, 20000)
DO $$ BEGIN
	INSERT INTO us SELECT :k + g, :client_id FROM generate_series(0, 9) g;
	INSERT INTO ledger VALUES (10);
EXCEPTION WHEN unique_violation THEN NULL;
END $$;
),
		'039_moves' => q(
\set k random(1, 20000)
DO $$ BEGIN
	UPDATE us SET k = k + 1 WHERE k BETWEEN :k AND :k + 3;
EXCEPTION WHEN unique_violation THEN NULL;
END $$;
),
		'039_upserts' => q(
\set k random(1, 20000)
WITH i AS (INSERT INTO us VALUES (:k, -:client_id) ON CONFLICT (k) DO NOTHING RETURNING 1)
INSERT INTO ledger SELECT count(*) FROM i;
)
	});

my $seq = 'SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; ';
is($node->safe_psql('postgres', $seq . 'SELECT count(*) = (SELECT sum(n) FROM ledger) FROM us'),
	't', 'the table holds exactly the rows the ledger counts');
is($node->safe_psql('postgres', $seq . 'SELECT count(*) FROM (SELECT k FROM us GROUP BY k HAVING count(*) > 1) d'),
	'0', 'no key twice');
is($node->safe_psql('postgres', "SELECT blink_check('us_k', true)"), '',
	'blink_check with heapallindexed');
is($node->safe_psql('postgres', q(
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) FROM us WHERE k > 0)),
	$node->safe_psql('postgres', $seq . 'SELECT count(*) FROM us WHERE k > 0'),
	'an index scan finds every row');
my %c = map { split /\|/ } split /\n/, $node->safe_psql('postgres',
	"SELECT name, value FROM blinkam_stats() WHERE name IN ('deferred_inserts', 'deferred_leaf_writes')");
ok($c{deferred_inserts} > 0 && $c{deferred_leaf_writes} < $c{deferred_inserts},
	"runs went in several entries to a record ($c{deferred_inserts} entries, $c{deferred_leaf_writes} leaf writes)");

$node->stop;
done_testing();
