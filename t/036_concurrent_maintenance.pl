# Maintenance commands beside writers, on mirrored tables.
#
# Writers make the same change to hp (heap, btree indexes: the reference),
# hb (heap, blink indexes) and bh (blinkheap, blink indexes) in one
# REPEATABLE READ transaction each -- single-row and multi-row inserts,
# COPY, updates, deletes, ON CONFLICT DO UPDATE, and a savepoint that
# rolls part of the work back -- while readers compare, in one snapshot
# taken after locking the three tables, what index, index-only, bitmap
# and sequential scans of hb and bh return with what hp returns.  Beside
# them one session runs, in a loop: CREATE INDEX CONCURRENTLY of a blink
# index on hb and bh, checked with blink_check(heapallindexed) and read
# through an index scan, then DROP INDEX CONCURRENTLY; REINDEX INDEX
# CONCURRENTLY, REINDEX TABLE CONCURRENTLY and plain REINDEX, each
# checked; blinkheap_check of bh while the writers run; VACUUM, VACUUM
# FREEZE, VACUUM (INDEX_CLEANUP off); CLUSTER; a TRUNCATE of the three
# tables that rolls back, with rows inserted before and after it; and
# CHECKPOINT.  Two rounds: statement buffers held to the commit with
# batches and a shared hot insert page, then buffers flushed at every
# statement without batches on each backend's own page.  At the end the
# three tables hold the same rows, every blink index passes blink_check
# and bh passes blinkheap_check, and the log has no internal error.
#
# It found an UPDATE that carried a finished locker's xid onto a new
# version after VACUUM had set relfrozenxid past it (blinkheap_check:
# "xmax ... precedes relfrozenxid"), about one run in six on the
# assertion build; specs/blinkheap_update_window now holds that window.
# Errors of the maintenance commands are repeated at the end of the log.
#
# Found with a stress harness of this shape: blink_check reported
# concurrently built indexes corrupted (a recently dead row has no entry
# there), and blinkheap_check reported rows written while it ran ("xmax
# ... is in the future"); see specs/blink_check_concurrent_build and
# specs/blinkheap_check_concurrent.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use Mirror;

my $node = PostgreSQL::Test::Cluster->new('maint');
$node->init;
$node->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
max_connections = 40
log_line_prefix = '%m [%p] %e '
autovacuum_naptime = 1
autovacuum_vacuum_threshold = 50
autovacuum_vacuum_scale_factor = 0
));
$node->start;

$node->safe_psql('postgres', q{
CREATE EXTENSION blinkam;
CREATE SEQUENCE blk;
CREATE SEQUENCE cpy;
} . mirror_tables_sql() . q{
INSERT INTO hp SELECT nextval('blk') * 8, g % 200, g % 50, md5(g::text)
  FROM generate_series(1, 2000) g;
INSERT INTO hb SELECT * FROM hp;
INSERT INTO bh SELECT * FROM hp;

-- One table read for keys $1..$2 the way mode says.
CREATE FUNCTION mirror_digest(tab text, lo int, hi int, mode text)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	q text;
	d text;
BEGIN
	PERFORM set_config('enable_seqscan', (mode = 'seq')::text, true);
	PERFORM set_config('enable_bitmapscan', (mode = 'bitmap')::text, true);
	PERFORM set_config('enable_indexscan', (mode IN ('index', 'ios', 'expr'))::text, true);
	PERFORM set_config('enable_indexonlyscan', (mode = 'ios')::text, true);
	PERFORM set_config('max_parallel_workers_per_gather', '0', true);
	IF mode = 'ios' THEN
		q := 'SELECT count(*) || '':'' || coalesce(sum(id), 0) || '':'' || coalesce(sum(v), 0)'
			 ' FROM %I WHERE k BETWEEN $1 AND $2';
	ELSIF mode = 'expr' THEN
		-- through the concurrently built index on (v + k)
		q := 'SELECT count(*) || '':'' || coalesce(sum(id), 0) || '':'' || coalesce(sum(k), 0)'
			 ' FROM %I WHERE (v + k) BETWEEN $1 AND $2';
	ELSE
		q := 'SELECT count(*) || '':'' || coalesce(md5(string_agg(id || '':'' || k || '':'' || v'
			 ' || '':'' || md5(pad), '','' ORDER BY id)), ''none'') FROM %I WHERE k BETWEEN $1 AND $2';
	END IF;
	EXECUTE format(q, tab) INTO d USING lo, hi;
	RETURN d;
END $$;

} . mirror_check_sql());

# A line naming %T runs on hp, hb and bh in that order (Mirror.pm), and
# every lock the maintenance session takes on more than one of them
# follows that order too: no deadlocks.
my %scripts = (
	'ins_many@4' => q{
\set k random(1, 200)
\set n random(1, 7)
SELECT nextval('blk') * 8 AS b \gset
BEGIN ISOLATION LEVEL REPEATABLE READ;
INSERT INTO %T SELECT :b + g, :k + g % 3, g, repeat(md5(:k::text), (:k * g) % 90) FROM generate_series(0, :n) g;
COMMIT;
},
	'ins_one@4' => q{
\set k random(1, 200)
SELECT nextval('blk') * 8 AS b \gset
BEGIN ISOLATION LEVEL REPEATABLE READ;
INSERT INTO %T VALUES (:b, :k, 0, 'one');
INSERT INTO %T VALUES (:b + 1, :k + 1, 1, 'two');
COMMIT;
},
	'copy@1' => q{
\set k random(1, 200)
SELECT 1000000000000 + nextval('cpy') * 8 AS lo \gset
\set hi :lo + 7
BEGIN ISOLATION LEVEL REPEATABLE READ;
COPY %T (id, k, v, pad) FROM PROGRAM 'seq -f %.0f,:k,5,copy :lo 1 :hi' WITH (FORMAT csv);
COMMIT;
},
	'savepoint@2' => q{
\set k random(1, 200)
\set off random(0, 300)
SELECT nextval('blk') * 8 AS b \gset
SELECT (last_value - :off) * 8 + :off % 8 AS tid FROM blk \gset
BEGIN ISOLATION LEVEL REPEATABLE READ;
INSERT INTO %T VALUES (:b, :k, 10, 'sp1');
SAVEPOINT s;
INSERT INTO %T SELECT :b + g, :k, g, 'gone' FROM generate_series(1, 4) g;
UPDATE %T SET v = v + 100, k = k + 1 WHERE id = :tid;
ROLLBACK TO s;
INSERT INTO %T VALUES (:b + 5, :k, 11, 'sp2');
UPDATE %T SET v = v + 1 WHERE id = :tid;
COMMIT;
},
	'upd_group@2' => q{
\set k random(1, 200)
BEGIN ISOLATION LEVEL REPEATABLE READ;
UPDATE %T SET v = v + 1, pad = left(pad || 'u', 2000) WHERE k = :k;
COMMIT;
},
	'upd_key@2' => q{
\set k random(1, 200)
\set off random(0, 300)
SELECT (last_value - :off) * 8 + :off % 8 AS tid FROM blk \gset
BEGIN ISOLATION LEVEL REPEATABLE READ;
UPDATE %T SET k = :k, v = v - 1 WHERE id = :tid;
COMMIT;
},
	'del@2' => q{
\set k random(1, 200)
\set neg random(1, 800)
BEGIN ISOLATION LEVEL REPEATABLE READ;
DELETE FROM %T WHERE (k = :k AND v % 2 = 0) OR id = -:neg;
COMMIT;
},
	'upsert@2' => q{
\set k random(1, 200)
\set neg random(1, 800)
BEGIN ISOLATION LEVEL REPEATABLE READ;
INSERT INTO %T VALUES (-:neg, :k, 7, 'ups') ON CONFLICT (id) DO UPDATE SET v = %T.v + 10;
COMMIT;
},
);
# Readers lock the three tables before their snapshot: TRUNCATE and
# CLUSTER are not MVCC-safe for a snapshot taken before them.
for my $mode (qw(index ios bitmap seq))
{
	my $w = $mode eq 'index' ? 8 : $mode eq 'seq' ? 100000 : 30;
	$scripts{"read_$mode\@1"} = qq{
\\set k random(1, 200)
BEGIN ISOLATION LEVEL REPEATABLE READ;
LOCK TABLE hp, hb, bh IN ACCESS SHARE MODE;
SELECT mirror_check(:k, :k + $w, '$mode');
COMMIT;
};
}
my @files = pgbench_files($node, '036', %scripts);

# The maintenance session's round; every command must succeed.
my @maintenance = (
	[ 'CREATE INDEX CONCURRENTLY', q{
		CREATE INDEX CONCURRENTLY hp_x ON hp ((v + k)) INCLUDE (id);
		CREATE INDEX CONCURRENTLY hb_x ON hb USING blink ((v + k)) INCLUDE (id);
		CREATE INDEX CONCURRENTLY bh_x ON bh USING blink ((v + k)) INCLUDE (id);
		SELECT blink_check('hb_x', true), blink_check('bh_x', true);
		BEGIN ISOLATION LEVEL REPEATABLE READ;
		LOCK TABLE hp, hb, bh IN ACCESS SHARE MODE;
		SELECT mirror_check(-1000000, 1000000, 'expr');
		COMMIT;
		DROP INDEX CONCURRENTLY hp_x;
		DROP INDEX CONCURRENTLY hb_x;
		DROP INDEX CONCURRENTLY bh_x;} ],
	[ 'REINDEX INDEX CONCURRENTLY', q{
		REINDEX INDEX CONCURRENTLY hb_kv;
		REINDEX INDEX CONCURRENTLY bh_kv;
		REINDEX INDEX CONCURRENTLY bh_v;
		SELECT blink_check('hb_kv', true), blink_check('bh_kv', true), blink_check('bh_v', true);} ],
	[ 'blinkheap_check beside writers', q{SELECT blinkheap_check('bh');} ],
	[ 'REINDEX TABLE CONCURRENTLY', q{
		REINDEX TABLE CONCURRENTLY bh;
		SELECT blink_check('bh_id', true), blink_check('bh_kv', true), blink_check('bh_v', true);} ],
	[ 'VACUUM', q{
		VACUUM hb;
		VACUUM bh;
		VACUUM (INDEX_CLEANUP off) hb, bh;
		VACUUM FREEZE bh;
		ANALYZE hp, hb, bh;} ],
	[ 'REINDEX', q{
		REINDEX INDEX bh_v;
		REINDEX TABLE hb;
		SELECT blink_check('bh_v', true), blink_check('hb_id', true), blink_check('hb_kv', true);} ],
	[ 'TRUNCATE rolled back', q{
		BEGIN;
		LOCK TABLE hp, hb, bh IN ACCESS EXCLUSIVE MODE;
		INSERT INTO hp SELECT -900 - g, g, g, 'tr' FROM generate_series(1, 20) g;
		INSERT INTO hb SELECT -900 - g, g, g, 'tr' FROM generate_series(1, 20) g;
		INSERT INTO bh SELECT -900 - g, g, g, 'tr' FROM generate_series(1, 20) g;
		TRUNCATE hp, hb, bh;
		INSERT INTO hp SELECT -950 - g, g, g, 'tr' FROM generate_series(1, 20) g;
		INSERT INTO hb SELECT -950 - g, g, g, 'tr' FROM generate_series(1, 20) g;
		INSERT INTO bh SELECT -950 - g, g, g, 'tr' FROM generate_series(1, 20) g;
		ROLLBACK;
		SELECT blink_check('hb_v', true), blink_check('bh_v', true), blinkheap_check('bh');} ],
	[ 'CLUSTER', q{
		CLUSTER bh USING bh_kv;
		SELECT blink_check('bh_v', true), blinkheap_check('bh');
		CHECKPOINT;} ],
);

# Every maintenance command's error, printed again at the end (where a
# failed run's log tail shows it).
my @maintenance_errors;

# A run of the writers and readers, and the maintenance rounds beside it
# until it ends.
sub run_round
{
	my ($round, $options) = @_;
	local $ENV{PGOPTIONS} = $options;
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[ 'pgbench', '--no-vacuum', '--client=6', '--jobs=2', '--time=25',
		  '--max-tries=1000', @files, '--host', $node->host,
		  '--port', $node->port, 'postgres' ],
		'>', \$out, '2>', \$err);
	my %done;
	while ($h->pumpable)
	{
		for my $m (@maintenance)
		{
			my ($name, $sql) = @$m;
			my ($ret, $stdout, $stderr) = $node->psql('postgres', $sql,
				on_error_stop => 1);
			if ($ret != 0)
			{
				my ($first) = split /\n/, $stderr;
				fail("$round: $name beside the writers: " . ($first // ''));
				diag($stderr);
				push @maintenance_errors, "$round: $name: $stderr";
			}
			$done{$name}++;
		}
		$h->pump_nb;
	}
	$h->finish;
	is($?, 0, "$round: pgbench exits cleanly") or diag($err);
	unlike($err, qr/mirror differs/, "$round: no reader saw hb or bh differ from hp");
	my ($n) = $out =~ /number of transactions actually processed: (\d+)/;
	note("$round: $n transactions; maintenance rounds: "
		  . join(', ', map { "$_ $done{$_}" } sort keys %done));
	ok($done{'CREATE INDEX CONCURRENTLY'} > 0 && ($n // 0) > 100,
		"$round: writers and maintenance both ran");
}

run_round('buffered, batched',
	'-c blinkam.defer_inserts=transaction -c blinkam.batch_inserts=on -c blinkam.hot_insert_pages=1');
run_round('per statement, no batches',
	'-c blinkam.defer_inserts=statement -c blinkam.batch_inserts=off -c blinkam.hot_insert_pages=0');

# The three tables hold the same rows; every index agrees with its table.
check_same_rows($node, 'at the end');
check_scans($node, 'at the end', qw(index ios bitmap seq));
is($node->safe_psql('postgres', q{
	SELECT string_agg(c.relname, ', ' ORDER BY c.relname)
	  FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid
	 WHERE i.indrelid IN ('hp'::regclass, 'hb'::regclass, 'bh'::regclass)}),
	'bh_id, bh_kv, bh_v, hb_id, hb_kv, hb_v, hp_id, hp_kv, hp_v',
	'the indexes are the original ones, none left behind');
check_indexes($node, 'at the end');
$node->stop;
my $log = slurp_file($node->logfile);
unlike($log, qr/TRAP:|PANIC:| XX000 /, 'no failed assertion, PANIC or internal error in the log');

diag("maintenance errors:\n" . join("\n", @maintenance_errors))
  if @maintenance_errors;
done_testing();
