# Hot-standby queries on a blinkheap table while the primary deletes,
# updates and VACUUMs it.
#
# 1. Torn reads.  VACUUM compacts a page only under a cleanup lock on the
#    primary, so a primary scan may read tuples through a pin alone; on a
#    standby the compaction is replayed from generic WAL under a plain
#    exclusive lock, so standby readers must copy what they read under
#    their share lock.  Readers on the standby -- sequential, index,
#    bitmap, TID and TID range scans -- compare, in one snapshot, a
#    blinkheap table with a heap twin that every primary transaction
#    changes the same way; any difference or error ends the run.
# 2. The window itself, held open: a standby reader is paused (pause
#    point heap_tuple_stored) right after a tuple went into its slot and
#    the page's lock went, while the standby replays a VACUUM that moves
#    that very tuple; resumed, every read path returns the rows it would
#    have returned without the VACUUM.
# 3. Recovery conflicts.  A standby snapshot older than the primary's
#    horizon (no hot_standby_feedback) must be cancelled before the
#    standby replays a VACUUM that removes rows it still sees, or freezes
#    rows it must not see: never answered with rows missing or extra.
#    The heap twin shows the same scenario cancelling a heap query.
# 4. blink_check (heapallindexed) on the standby beside an open primary
#    transaction that wrote the table: it must not wait for it.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my $primary = PostgreSQL::Test::Cluster->new('sv_primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
max_connections = 40
autovacuum = off
));
$primary->start;
$primary->safe_psql('postgres',
	"SELECT pg_create_physical_replication_slot('sv_slot')");
$primary->backup('backup');

my $standby = PostgreSQL::Test::Cluster->new('sv_standby');
$standby->init_from_backup($primary, 'backup', has_streaming => 1);
$standby->append_conf('postgresql.conf', qq(
primary_slot_name = 'sv_slot'
hot_standby_feedback = on
wal_receiver_status_interval = 1
max_connections = 40
));
$standby->start;

# tr: blinkheap with a blink index; hr: its heap + btree twin.
$primary->safe_psql('postgres', q{
CREATE EXTENSION blinkam;
CREATE TABLE tr (id bigint, a int, t text) USING blinkheap;
CREATE TABLE hr (id bigint, a int, t text);
CREATE INDEX tr_id ON tr USING blink (id);
CREATE INDEX hr_id ON hr (id);
CREATE INDEX tr_a ON tr USING blink (a);
CREATE INDEX hr_a ON hr (a);
INSERT INTO tr SELECT i, i % 100, repeat(md5(i::text), 1 + i % 3) FROM generate_series(1, 20000) i;
INSERT INTO hr SELECT * FROM tr;
CREATE SEQUENCE batch START 201;
CREATE FUNCTION same(what text, a text, b text) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
	IF a IS DISTINCT FROM b THEN
		RAISE EXCEPTION 'standby % differs: blinkheap % heap %', what, a, b;
	END IF;
	RETURN 1;
END $$;
});

# --- 1. torn reads -----------------------------------------------------

my $dir = PostgreSQL::Test::Utils::tempdir;
sub script
{
	my ($name, $text) = @_;
	open my $fh, '>', "$dir/$name.sql" or die;
	print $fh $text;
	close $fh;
	return ('-f', "$dir/$name.sql");
}

# Primary: the same change to both tables in one REPEATABLE READ
# transaction (so both statements see the same rows; pgbench retries the
# serialization failures); and, in a client of its own, a fixed number of
# VACUUMs of both (a count that does not depend on the machine's speed).
my @writers = (
	script('write', q{
\set a random(0, 99)
\set r random(0, 96)
SELECT nextval('batch') * 100 AS base \gset
BEGIN ISOLATION LEVEL REPEATABLE READ;
DELETE FROM tr WHERE a = :a AND id % 3 = 0;
DELETE FROM hr WHERE a = :a AND id % 3 = 0;
UPDATE tr SET t = t || 'z' WHERE id % 97 = :r;
UPDATE hr SET t = t || 'z' WHERE id % 97 = :r;
INSERT INTO tr SELECT i, i % 100, repeat(md5(i::text), 1 + i % 3) FROM generate_series(:base, :base + 99) i;
INSERT INTO hr SELECT i, i % 100, repeat(md5(i::text), 1 + i % 3) FROM generate_series(:base, :base + 99) i;
COMMIT;
}));
# (spread over the readers' 20 s: a pause before each)
my @vacuums = script('vacuum', "\\sleep 1500 ms\nVACUUM tr;\nVACUUM hr;\n");
my $nvacuums = 8;

# Standby: each reader is one statement, so one snapshot for both tables.
my $agg = q{count(*)::text || '/' || coalesce(sum(a), 0) || '/' || coalesce(sum(length(t)), 0) || '/' || coalesce(sum(id), 0)};
my @readers = (
	script('seq', qq{
SET enable_indexscan = off; SET enable_bitmapscan = off;
SELECT same('seq scan', (SELECT $agg FROM tr), (SELECT $agg FROM hr));
}),
	script('index', qq{
\\set lo random(1, 20000)
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT same('index scan', (SELECT $agg FROM tr WHERE id BETWEEN :lo AND :lo + 2000),
	(SELECT $agg FROM hr WHERE id BETWEEN :lo AND :lo + 2000));
}),
	script('bitmap', qq{
\\set a random(0, 99)
SET enable_seqscan = off; SET enable_indexscan = off;
SELECT same('bitmap scan', (SELECT $agg FROM tr WHERE a = :a OR a = :a + 1),
	(SELECT $agg FROM hr WHERE a = :a OR a = :a + 1));
}),
	script('tid', qq{
\\set lo random(1, 20000)
SET enable_seqscan = on; SET enable_indexscan = on; SET enable_bitmapscan = on;
SELECT same('tid scan',
	(SELECT $agg FROM tr WHERE ctid = ANY (ARRAY(SELECT ctid FROM tr WHERE id BETWEEN :lo AND :lo + 300))),
	(SELECT $agg FROM hr WHERE id BETWEEN :lo AND :lo + 300));
}),
	script('tidrange', qq{
\\set b random(0, 60)
SELECT same('tid range scan',
	(SELECT $agg FROM tr WHERE ctid >= format('(%s,0)', :b)::tid AND ctid < format('(%s,0)', :b + 20)::tid),
	(SELECT $agg FROM tr WHERE (ctid::text::point)[0] >= :b AND (ctid::text::point)[0] < :b + 20));
}));

# The plans are the ones the readers name.
my %plans = (
	seq => [ q{SET enable_indexscan = off; SET enable_bitmapscan = off;
		EXPLAIN (COSTS OFF) SELECT count(*) FROM tr}, qr/Seq Scan on tr/ ],
	index => [ q{SET enable_seqscan = off; SET enable_bitmapscan = off;
		EXPLAIN (COSTS OFF) SELECT count(*), sum(length(t)) FROM tr WHERE id BETWEEN 5 AND 2005},
		qr/Index Scan using tr_id on tr/ ],
	bitmap => [ q{SET enable_seqscan = off; SET enable_indexscan = off;
		EXPLAIN (COSTS OFF) SELECT count(*) FROM tr WHERE a = 5 OR a = 6},
		qr/Bitmap Heap Scan on tr/ ],
	tid => [ q{EXPLAIN (COSTS OFF) SELECT count(*) FROM tr
		WHERE ctid = ANY (ARRAY(SELECT ctid FROM tr WHERE id BETWEEN 5 AND 305))},
		qr/Tid Scan on tr/ ],
	tidrange => [ q{EXPLAIN (COSTS OFF) SELECT count(*) FROM tr
		WHERE ctid >= '(5,0)'::tid AND ctid < '(25,0)'::tid}, qr/Tid Range Scan on tr/ ]);
$primary->wait_for_catchup($standby);
for my $r (sort keys %plans)
{
	like($standby->safe_psql('postgres', $plans{$r}[0]), $plans{$r}[1],
		"standby: the $r reader is planned as one");
}

# pgbench for $secs seconds, or (with $secs of the form "xN") N
# transactions per client
sub pgbench
{
	my ($node, $clients, $secs, @files) = @_;
	my $length = $secs =~ /^x(\d+)$/ ? "--transactions=$1" : "--time=$secs";
	return [ 'pgbench', '--no-vacuum', "--client=$clients",
		'--jobs=' . ($clients > 1 ? 2 : 1), $length, '--max-tries=100', @files,
		'--host', $node->host, '--port', $node->port, 'postgres' ];
}

my ($wout, $werr, $rout, $rerr) = ('', '', '', '');
my ($vout, $verr) = ('', '');
my $w = IPC::Run::start(pgbench($primary, 3, 25, @writers),
	'>', \$wout, '2>', \$werr);
my $v = IPC::Run::start(pgbench($primary, 1, "x$nvacuums", @vacuums),
	'>', \$vout, '2>', \$verr);
IPC::Run::run(pgbench($standby, 4, 20, @readers), '>', \$rout, '2>', \$rerr);
my $rstatus = $?;
$w->finish;
my $wstatus = $?;
$v->finish;
my $vstatus = $?;

is($wstatus, 0, 'primary: the writers ran cleanly') or diag($werr);
is($vstatus, 0, 'primary: the VACUUMs ran cleanly') or diag($verr);
is($rstatus, 0, 'standby: every reader ran without an error') or diag($rerr);
unlike($rerr, qr/differs|corrupted|vanished/,
	'standby: no reader saw a difference, a corrupted page or a vanished tuple');
my ($done) = $rout =~ /number of transactions actually processed: (\d+)/;
ok(($done // 0) > 100, 'standby: the readers did work') or diag($rout);
my ($vacs) = $primary->safe_psql('postgres',
	"SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = 'tr'");
ok($vacs >= $nvacuums, "primary: tr was vacuumed beside the writers and readers ($vacs times)");
note("readers: " . ($done // 0) . " transactions; tr vacuumed $vacs times");

$primary->wait_for_catchup($standby);
for my $node ($primary, $standby)
{
	my $name = $node->name;
	is($node->safe_psql('postgres', qq{
		SELECT (SELECT count(*) FROM (TABLE tr EXCEPT ALL TABLE hr) a)
		     + (SELECT count(*) FROM (TABLE hr EXCEPT ALL TABLE tr) b)}),
		'0', "$name: tr holds exactly hr's rows");
	is($node->safe_psql('postgres', "SELECT blinkheap_check('tr')"), '',
		"$name: blinkheap_check");
	is($node->safe_psql('postgres', "SELECT blink_check('tr_id', true)"), '',
		"$name: blink_check on tr_id");
	is($node->safe_psql('postgres', "SELECT blink_check('tr_a', true)"), '',
		"$name: blink_check on tr_a");
}

# No feedback from now on: the primary's horizon ignores the standby (so
# its VACUUMs remove what the standby's snapshots no longer need at once),
# and conflicting standby queries are cancelled at once.
$standby->append_conf('postgresql.conf', qq(
hot_standby_feedback = off
max_standby_streaming_delay = 0
));
$standby->reload;
$primary->poll_query_until('postgres',
	"SELECT xmin IS NULL FROM pg_replication_slots WHERE slot_name = 'sv_slot'")
  or die 'the slot keeps the standby horizon';

# --- 2. a reader held between its slot store and its use ---------------

# One page: rows 1..40 were inserted first, so they lie at the page's end;
# once they are deleted and vacuumed, rows 41..80 move there.  A pointer
# into the page kept across that compaction would read the zeroed hole.
my @rows = map { "$_:" . (chr(97 + $_ % 26) x 40) } 41 .. 80;
my %paths = (
	'sequential scan' => [ 'SELECT id || \':\' || t FROM pv', \@rows ],
	'bitmap scan' => [ 'SET enable_seqscan = off; SET enable_indexscan = off;
		SELECT id || \':\' || t FROM pv WHERE id > 0', \@rows ],
	'index scan' => [ 'SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT id || \':\' || t FROM pv WHERE id >= 41 ORDER BY id', \@rows ],
	'tid scan' => [ 'SELECT id || \':\' || t FROM pv WHERE ctid = \'TID41\'',
		[ $rows[0] ] ]);
for my $path (sort keys %paths)
{
	my ($query, $expect) = @{ $paths{$path} };	# (a copy: TID41 is filled in)
	$primary->safe_psql('postgres', q{
DROP TABLE IF EXISTS pv;
CREATE TABLE pv (id int, t text) USING blinkheap;
CREATE INDEX pv_id ON pv USING blink (id);
INSERT INTO pv SELECT i, repeat(chr(97 + i % 26), 40) FROM generate_series(1, 80) i;
DELETE FROM pv WHERE id <= 40;
});
	# (the rows' page comes from the table's page pool: not always block 0)
	my ($pages, $blk, $off) = split /\|/, $primary->safe_psql('postgres', q{
		SELECT count(DISTINCT (ctid::text::point)[0]),
		       (SELECT (ctid::text::point)[0] FROM pv WHERE id = 41),
		       (SELECT (ctid::text::point)[1] FROM pv WHERE id = 41)
		  FROM pv});
	is($pages, 1, "$path: the 40 remaining rows share one page");
	$primary->wait_for_catchup($standby);
	# the page's free space: it grows by the 40 removed rows' storage only
	# if the rows below them (41..80) moved up
	my $free = "SELECT free_size FROM blinkheap_page_stats('pv', $blk)";
	$query =~ s/TID41/($blk,$off)/;
	my $before = $standby->safe_psql('postgres', $free);

	my $lock = $standby->background_psql('postgres');
	$lock->query_safe('SELECT pg_advisory_lock(4242)');
	my ($out, $err) = ('', '');
	my $reader = IPC::Run::start(
		[ 'psql', '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-h', $standby->host,
		  '-p', $standby->port, '-d', 'postgres', '-c',
		  "SET blinkam.debug_pause_key = 4242; SET blinkam.debug_pause_at = 'heap_tuple_stored'; $query" ],
		'>', \$out, '2>', \$err);
	$standby->poll_query_until('postgres', q{
		SELECT count(*) = 1 FROM pg_stat_activity
		 WHERE wait_event_type = 'Lock' AND wait_event = 'advisory'})
	  or die "$path: the reader did not reach heap_tuple_stored";

	# The primary compacts the page; the standby replays it while the
	# reader holds its first row.  (No truncation: its lock would wait
	# for the reader.)
	$primary->safe_psql('postgres', 'VACUUM (TRUNCATE false) pv');
	$primary->wait_for_catchup($standby);
	my $gained = $standby->safe_psql('postgres', $free) - $before;
	ok($gained >= 40 * 69,
		"$path: the standby compacted the page while the reader held row 41 (free space +$gained)");
	$lock->query_safe('SELECT pg_advisory_unlock(4242)');
	$reader->finish;
	$lock->quit;
	is($err, '', "$path: the held reader ended without an error");
	is_deeply([ split /\n/, $out ], $expect,
		"$path: the held reader returned the rows as they were before the compaction");
}
is($standby->safe_psql('postgres', "SELECT blinkheap_check('pv')"), '',
	'standby: blinkheap_check on pv');
is($standby->safe_psql('postgres', "SELECT blink_check('pv_id', true)"), '',
	'standby: blink_check on pv_id');

# --- 3. recovery conflicts ---------------------------------------------


$primary->safe_psql('postgres', q{
CREATE TABLE cr (id int, pad text) USING blinkheap;
CREATE TABLE ch (id int, pad text);
INSERT INTO cr SELECT i, 'row ' || i FROM generate_series(1, 1000) i;
INSERT INTO ch SELECT * FROM cr;
VACUUM cr; VACUUM ch;
});
$primary->wait_for_catchup($standby);

# A REPEATABLE READ snapshot on the standby; the primary changes the
# table and VACUUMs; once the standby has replayed that, the snapshot's
# next read must fail with a recovery conflict, never answer.  Other
# records (a catalog page pruned on the way) can cancel it too, so for
# blinkheap the WAL must also hold VACUUM's own conflict record: nbtree's
# REUSE_PAGE naming the table's file, with a horizon at or past the xid
# of the change.
sub conflict_case
{
	my ($table, $change, $vacuum, $what) = @_;
	my $s = $standby->background_psql('postgres', on_error_stop => 0);
	$s->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
	my $before = $s->query_safe("SELECT count(*) FROM $table");
	my $start = $primary->lsn('insert');
	my $xid = $primary->safe_psql('postgres',
		"BEGIN; $change; SELECT pg_current_xact_id(); COMMIT;");
	my $file = $primary->safe_psql('postgres',
		"SELECT relfilenode FROM pg_class WHERE relname = '$table'");
	$primary->safe_psql('postgres', $vacuum);
	$primary->wait_for_catchup($standby);
	if ($table eq 'cr')
	{
		my ($dump, $dumperr) = ('', '');
		IPC::Run::run([ 'pg_waldump', '-p', $primary->data_dir . '/pg_wal',
				'-s', $start, '-e', $primary->lsn('flush'), '-r', 'Btree' ],
			'>', \$dump, '2>', \$dumperr);
		my @horizons = $dump =~ m{REUSE_PAGE.*rel \d+/\d+/$file; latestRemovedXid \d+:(\d+)}g;
		ok((grep { $_ >= $xid } @horizons) > 0,
			"$table, $what: VACUUM wrote a conflict record at or past xid $xid")
		  or diag("horizons: @horizons\n$dumperr");
	}
	my ($answer, $err) = ('', '');
	eval { $answer = $s->query("SELECT count(*) FROM $table"); 1 } or $err = $@;
	$err .= $s->{stderr} // '';
	like($err, qr/conflict with recovery/,
		"$table, $what: the standby snapshot was cancelled");
	ok($answer eq '' || $answer eq $before,
		"$table, $what: it never answered with a different count (had $before, got '$answer')");
	eval { $s->quit; };
}

for my $t (qw(ch cr))
{
	conflict_case($t, "DELETE FROM $t WHERE id <= 500", "VACUUM $t",
		'rows removed by VACUUM');
	conflict_case($t, "INSERT INTO $t SELECT i, 'new' FROM generate_series(2001, 2300) i",
		"VACUUM (FREEZE) $t", 'rows frozen by VACUUM');
}
is($standby->safe_psql('postgres', 'SELECT count(*) FROM cr'), '800',
	'standby: a new snapshot sees the rows that remain');
is($standby->safe_psql('postgres', "SELECT blinkheap_check('cr')"), '',
	'standby: blinkheap_check on cr');

# --- 4. blink_check on a standby while the primary writes ---------------

# A transaction on the primary inserted into tables with unique blink
# indexes and stays open.  blink_check with heapallindexed on the standby
# must not wait for it (the standby can only poll until it ends): it
# checks the rows of an MVCC snapshot there.  Both table kinds.
$primary->safe_psql('postgres', q{
CREATE TABLE ub (id int, t text) USING blinkheap;
CREATE TABLE uh (id int, t text);
CREATE UNIQUE INDEX ub_id ON ub USING blink (id);
CREATE UNIQUE INDEX uh_id ON uh USING blink (id);
INSERT INTO ub SELECT i, 'u' || i FROM generate_series(1, 1000) i;
INSERT INTO uh SELECT * FROM ub;
DELETE FROM ub WHERE id % 10 = 0;
DELETE FROM uh WHERE id % 10 = 0;
});
my $open = $primary->background_psql('postgres');
$open->query_safe(q{BEGIN;
INSERT INTO ub VALUES (5000, 'open'); INSERT INTO uh VALUES (5000, 'open');
DELETE FROM ub WHERE id = 7; DELETE FROM uh WHERE id = 7;});
$primary->safe_psql('postgres', 'SELECT 1');	# a commit after it, replayed
$primary->wait_for_catchup($standby);
my ($cout, $cerr) = ('', '');
my $t1 = time;
$standby->psql('postgres', q{SET statement_timeout = '60s';
	SELECT blink_check('ub_id', true), blink_check('uh_id', true), 'done'},
	stdout => \$cout, stderr => \$cerr);
is($cout, '||done', 'standby: blink_check with heapallindexed beside an open primary writer')
  or diag($cerr);
unlike($cerr, qr/in progress|timeout/,
	'standby: it neither waited for the writer nor warned about it');
note(sprintf('standby blink_check took %d s', time - $t1));
$open->query_safe('COMMIT');
$open->quit;
$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', q{SELECT blink_check('ub_id', true),
	blink_check('uh_id', true), blinkheap_check('ub'),
	(SELECT count(*) FROM ub) = (SELECT count(*) FROM uh)}), '|||t',
	'standby: after the commit both indexes, the table and the counts check');

$standby->stop;
$primary->stop;
done_testing();
