# Commit sequence numbers (src/table/blinkheap_csn.c): a blinkheap table
# and a heap table written in the same transactions always look the same
# to one REPEATABLE READ snapshot, whichever path decides visibility.
#
# Every transaction below writes the same rows into h (heap) and b
# (blinkheap), so any snapshot must see equal count(*) and sum(v) in the
# two.  Heap decides visibility with PostgreSQL's XidInMVCCSnapshot and
# clog; b decides recent xids by their CSN where the map has one (fast
# path) and falls back to the same XidInMVCCSnapshot + clog where it has
# none (prepared transactions, after a restart, on a standby, setting
# off).  A disagreement is a visibility bug in the CSN code.
#
# A. Two deterministic cases, each a bug found while writing this test:
#    A1. a backend that built its snapshot view while it held an xid must
#        not reuse that view after it commits (it did, and stopped seeing
#        its own committed rows in b);
#    A2. a committed subxid whose top-level xid's map entry was evicted
#        (65536 xids later) must stay invisible to a snapshot that saw the
#        top-level transaction running (it became visible).
# B. 30 s on the primary: writers insert the same rows into h and b, with
#    SAVEPOINT ... ROLLBACK TO and RELEASE, updates of old rows (so xmax
#    is decided too), PREPARE TRANSACTION + COMMIT PREPARED, some with
#    SET LOCAL blinkam.csn_snapshots = off (no CSN); two clients hold an
#    xid for 0.4 s at a time, so the readers' xmin stays below the
#    writers' xids and the CSN fast path is what decides; REPEATABLE READ
#    readers compare h and b (whole tables by seq scan, recent ids by
#    index scan, twice under one snapshot, some with CSNs off).  Zero
#    mismatches; csn_fast_checks > 0 and csn_slow_checks > 0.
# C. An immediate stop in the middle of the writes, with prepared
#    transactions left open; after the restart the map is empty and CSNs
#    start again from 1; 10 s of the same load while the surviving
#    prepared transactions are committed: zero mismatches.
# D. A streaming hot standby: 10 s of writes on the primary and
#    REPEATABLE READ readers on the standby (its snapshots always take the
#    slow path): zero mismatches, no fast checks there.
# E. Final state: h and b hold the same rows (primary and standby), the
#    same answers with blinkam.csn_snapshots off, by seq scan and index
#    scan, and blinkheap_check passes on both nodes, also after VACUUM.
#
# How a mismatch is counted: the readers call hb_compare(), a plpgsql
# function that compares h and b under the transaction's snapshot and
# raises "hb mismatch: ..." (with both results and the snapshot) with
# SQLSTATE 40001.  pgbench counts a 40001 error as a failed transaction
# and lets the client go on checking (any other error would end the
# client), and the server logs the message; the test counts the
# "hb mismatch" lines in the node's log since the phase began and also
# requires pgbench to report no failed transaction.  A check at the start
# proves that hb_compare() does raise when h and b differ.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(sleep time);

my $t0 = time;
my $node = PostgreSQL::Test::Cluster->new('csn_primary');
$node->init(allows_streaming => 1);
$node->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
max_connections = 50
max_prepared_transactions = 20
log_min_messages = warning
# on again after phase A, whose xid arithmetic needs a quiet cluster (an
# autovacuum ANALYZE takes an xid)
autovacuum = off
));
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION blinkam;
CREATE TABLE h (id bigint, v int);
CREATE TABLE b (id bigint, v int) USING blinkheap;
CREATE INDEX h_id ON h (id);
CREATE INDEX b_id ON b (id);
CREATE SEQUENCE ids START 10000;
CREATE TABLE burn (x int);
INSERT INTO h SELECT i, i % 1000 FROM generate_series(1, 20000) i;
INSERT INTO b SELECT i, i % 1000 FROM generate_series(1, 20000) i;
CREATE FUNCTION hb_compare() RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	hc bigint; hs bigint; bc bigint; bs bigint;
	lo bigint; rhc bigint; rhs bigint; rbc bigint; rbs bigint;
BEGIN
	SELECT count(*), coalesce(sum(v), 0) INTO hc, hs FROM h;
	SELECT count(*), coalesce(sum(v), 0) INTO bc, bs FROM b;
	SELECT coalesce(max(id), 0) - 3000 INTO lo FROM h;
	PERFORM set_config('enable_seqscan', 'off', true);
	SELECT count(*), coalesce(sum(v), 0) INTO rhc, rhs FROM h WHERE id >= lo;
	SELECT count(*), coalesce(sum(v), 0) INTO rbc, rbs FROM b WHERE id >= lo;
	PERFORM set_config('enable_seqscan', 'on', true);
	IF hc <> bc OR hs <> bs OR rhc <> rbc OR rhs <> rbs THEN
		RAISE EXCEPTION 'hb mismatch: h %/% b %/%, ids >= %: h %/% b %/%, snapshot %, csn_snapshots %',
			hc, hs, bc, bs, lo, rhc, rhs, rbc, rbs, pg_current_snapshot(),
			current_setting('blinkam.csn_snapshots')
			USING ERRCODE = 'serialization_failure';
	END IF;
	RETURN hc || '/' || hs;
END
$f$;
});

# hb_compare() can fail: a row in b only must be reported.
my ($ret, $stdout, $stderr) = $node->psql('postgres', q{
BEGIN;
INSERT INTO b VALUES (-1, 1);
SELECT hb_compare();
ROLLBACK;});
like($stderr, qr/hb mismatch: h 20000\/\d+ b 20001\/\d+/,
	'hb_compare() raises when h and b differ');

sub stat_value
{
	my ($n, $name) = @_;
	return $n->safe_psql('postgres',
		"SELECT value FROM blinkam_stats() WHERE name = '$name'");
}

# the rows of phase A (negative ids) in h and in b
my $negative =
  'SELECT (SELECT count(*) FROM h WHERE id < 0), (SELECT count(*) FROM b WHERE id < 0)';

# --- A1. a view built while we held an xid, reused after our commit
{
	my $holder = $node->background_psql('postgres');
	my $p = $node->background_psql('postgres');
	$holder->query_safe('BEGIN; SELECT pg_current_xact_id()');    # xid A, stays open
	$p->query_safe('BEGIN; INSERT INTO h VALUES (-11, 1); INSERT INTO b VALUES (-11, 1)');  # xid Y
	# a later xid commits: xmax moves above Y and p's next check of b
	# looks at a row of a transaction that is not its own
	$node->safe_psql('postgres', 'INSERT INTO h VALUES (-12, 2); INSERT INTO b VALUES (-12, 2)');
	my $in = $p->query_safe($negative);
	is($in, '2|2', 'A1: inside the writing transaction both rows are seen in h and b');
	$p->query_safe('COMMIT');
	# the next snapshot has the same xmin (A), xmax and running xids
	my $after = $p->query_safe($negative);
	is($after, '2|2', 'A1: after its commit the same backend still sees its own rows in b');
	$holder->query_safe('COMMIT');
	$holder->quit;
	$p->quit;
}

# --- A2. a subxid's entry outlives its top-level xid's entry
{
	my $w = $node->background_psql('postgres');
	my $r = $node->background_psql('postgres');
	my $x = $w->query_safe('BEGIN; SELECT pg_current_xact_id()');
	$w->query_safe('SAVEPOINT s; INSERT INTO h VALUES (-21, 21); INSERT INTO b VALUES (-21, 21); RELEASE s');
	$node->safe_psql('postgres', 'INSERT INTO burn VALUES (0)');    # xmax above X
	$r->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM h');  # X running
	$w->query_safe('COMMIT');
	my $sub = $node->safe_psql('postgres', 'SELECT xmin FROM b WHERE id = -21');
	isnt($sub, $x, 'A2: the row was written by a subtransaction');
	# burn xids (aborted subtransactions) up to X + 65535; the next
	# blinkheap writer then gets X + 65536, the same map slot as X
	my $target = $x + 65535;
	$node->safe_psql('postgres', qq{
DO \$\$
DECLARE last bigint := 0;
BEGIN
	WHILE last < $target LOOP
		BEGIN
			INSERT INTO burn VALUES (1) RETURNING xmin::text::bigint INTO last;
			RAISE EXCEPTION 'burn';
		EXCEPTION WHEN raise_exception THEN NULL;
		END;
	END LOOP;
END
\$\$;});
	my $ev = $node->safe_psql('postgres',
		'BEGIN; INSERT INTO h VALUES (-22, 22); INSERT INTO b VALUES (-22, 22); SELECT pg_current_xact_id(); COMMIT;');
	is($node->safe_psql('postgres',
		"SELECT $ev = $x + 65536, blinkheap_csn_of('$x') IS NULL, blinkheap_csn_of('$sub') IS NOT NULL"),
		't|t|t', "A2: X's entry was evicted by xid X + 65536, its subxid's entry stayed");
	my $seen = $r->query_safe($negative);
	is($seen, '2|2', "A2: X's subxid row stays invisible to a snapshot that saw X running");
	$r->query_safe('COMMIT');
	$r->quit;
	$w->quit;
}
note(sprintf('phase A done at %.1f s', time - $t0));
$node->safe_psql('postgres', 'ALTER SYSTEM SET autovacuum = on');
$node->reload;

# --- pgbench scripts
my $dir = PostgreSQL::Test::Utils::tempdir;
my %script = (
	# plain writer: rows, one savepoint rolled back or released, a
	# second one sometimes rolled back, an update of an old row
	writer => q{
\set v random(1, 1000)
\set r random(0, 9)
\set t random(1, 20000)
BEGIN;
SELECT nextval('ids') * 10 AS id \gset
INSERT INTO h VALUES (:id, :v), (:id + 1, :v + 1);
INSERT INTO b VALUES (:id, :v), (:id + 1, :v + 1);
SAVEPOINT s1;
INSERT INTO h VALUES (:id + 2, :v * 7), (:id + 3, :v * 11);
INSERT INTO b VALUES (:id + 2, :v * 7), (:id + 3, :v * 11);
\if :r < 4
ROLLBACK TO s1;
\else
RELEASE s1;
\endif
SAVEPOINT s2;
INSERT INTO h VALUES (:id + 4, :v * 13);
INSERT INTO b VALUES (:id + 4, :v * 13);
\if :r % 3 = 0
ROLLBACK TO s2;
\endif
UPDATE h SET v = v + 1 WHERE id = :t;
UPDATE b SET v = v + 1 WHERE id = :t;
COMMIT;
},
	# the same without a CSN: its readers take the slow path
	writer_nocsn => q{
\set v random(1, 1000)
\set r random(0, 9)
\set t random(1, 20000)
BEGIN;
SET LOCAL blinkam.csn_snapshots = off;
SELECT nextval('ids') * 10 AS id \gset
INSERT INTO h VALUES (:id, :v);
INSERT INTO b VALUES (:id, :v);
SAVEPOINT s1;
INSERT INTO h VALUES (:id + 1, :v * 7);
INSERT INTO b VALUES (:id + 1, :v * 7);
\if :r < 5
ROLLBACK TO s1;
\else
RELEASE s1;
\endif
UPDATE h SET v = v + 2 WHERE id = :t;
UPDATE b SET v = v + 2 WHERE id = :t;
COMMIT;
},
	# two-phase commit: prepared transactions never get a CSN; the gid
	# comes from the sequence, unique across clients and restarts
	prepared => q{
\set v random(1, 1000)
\set r random(0, 9)
\set t random(1, 20000)
BEGIN;
SELECT nextval('ids') * 10 AS id \gset
INSERT INTO h VALUES (:id, :v), (:id + 1, :v + 5);
INSERT INTO b VALUES (:id, :v), (:id + 1, :v + 5);
SAVEPOINT s1;
INSERT INTO h VALUES (:id + 2, :v * 17);
INSERT INTO b VALUES (:id + 2, :v * 17);
\if :r < 5
ROLLBACK TO s1;
\else
RELEASE s1;
\endif
UPDATE h SET v = v + 3 WHERE id = :t;
UPDATE b SET v = v + 3 WHERE id = :t;
PREPARE TRANSACTION 'g:id';
\if :r % 2 = 0
SELECT pg_sleep(0.02);
\endif
COMMIT PREPARED 'g:id';
},
	# holds its xid for 0.4 s: readers' xmin stays below the other
	# writers' xids, whose rows are then decided by CSN
	holder => q{
\set v random(1, 1000)
BEGIN;
SELECT nextval('ids') * 10 AS id \gset
INSERT INTO h VALUES (:id, :v);
INSERT INTO b VALUES (:id, :v);
SAVEPOINT s1;
INSERT INTO h VALUES (:id + 1, :v * 19);
INSERT INTO b VALUES (:id + 1, :v * 19);
RELEASE s1;
SELECT pg_sleep(0.4);
INSERT INTO h VALUES (:id + 2, :v * 23);
INSERT INTO b VALUES (:id + 2, :v * 23);
COMMIT;
},
	# two comparisons under one snapshot, 50 ms apart
	reader => q{
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT hb_compare();
SELECT pg_sleep(0.05);
SELECT hb_compare();
COMMIT;
},
	reader_nocsn => q{
BEGIN ISOLATION LEVEL REPEATABLE READ;
SET LOCAL blinkam.csn_snapshots = off;
SELECT hb_compare();
SELECT pg_sleep(0.05);
SELECT hb_compare();
COMMIT;
});
for my $s (keys %script)
{
	PostgreSQL::Test::Utils::append_to_file("$dir/$s.sql", $script{$s});
}

# Starts pgbench on $n; @files are "name@weight".
sub start_pgbench
{
	my ($n, $clients, $secs, @files) = @_;
	my $pb = { out => '', err => '' };
	$pb->{h} = IPC::Run::start(
		[ 'pgbench', '--no-vacuum', "--client=$clients", '--jobs=1',
		  "--time=$secs",
		  (map { my ($f, $w) = split /@/; ('--file', "$dir/$f.sql\@$w") } @files),
		  '--host', $n->host, '--port', $n->port, 'postgres' ],
		'>', \$pb->{out}, '2>', \$pb->{err});
	return $pb;
}

# Waits for it; returns (exit status, transactions, failed transactions).
sub finish_pgbench
{
	my ($pb) = @_;
	$pb->{h}->finish;
	my $rc = $pb->{h}->result(0);
	my ($done) = $pb->{out} =~ /number of transactions actually processed: (\d+)/;
	my ($failed) = $pb->{out} =~ /number of failed transactions: (\d+)/;
	# transactions of each script, when it ran more than one
	my %per = $pb->{out} =~ m{SQL script \d+: \S*/(\w+)\.sql\n - weight: [^\n]*\n - (\d+) transactions}g;
	$pb->{per_script} = \%per;
	return ($rc, $done // 0, $failed // 0);
}

# "hb mismatch" errors in $n's log after byte $offset, with the first
# few of them for the diagnostics.
sub mismatches
{
	my ($n, $offset) = @_;
	my @lines = grep { /hb mismatch/ }
	  split /\n/, PostgreSQL::Test::Utils::slurp_file($n->logfile, $offset);
	return (scalar(@lines), join("\n", @lines[ 0 .. ($#lines < 4 ? $#lines : 4) ]));
}

# Runs writers and holders on $wnode, readers on $rnode, for $secs; the
# callback runs while they do.  Checks the readers' verdict.
sub run_load
{
	my ($phase, $wnode, $rnode, $secs, $during) = @_;
	my $offset = -s $rnode->logfile;
	my $writers = start_pgbench($wnode, 4, $secs,
		'writer@6', 'writer_nocsn@1', 'prepared@2');
	my $holders = start_pgbench($wnode, 2, $secs, 'holder@1');
	my $readers = start_pgbench($rnode, 3, $secs, 'reader@3', 'reader_nocsn@1');
	$during->() if $during;
	my @w = finish_pgbench($writers);
	my @h = finish_pgbench($holders);
	my @r = finish_pgbench($readers);
	my %per = (%{ $writers->{per_script} }, %{ $readers->{per_script} });
	note("$phase: writers $w[1] transactions ("
		  . join(', ', map { "$_ $per{$_}" } sort keys %per)
		  . "), holders $h[1], readers $r[1]");
	is(join(',', grep { ($per{$_} // 0) > 0 } qw(writer writer_nocsn prepared reader reader_nocsn)),
		'writer,writer_nocsn,prepared,reader,reader_nocsn', "$phase: every script ran");
	is($w[0] . '/' . $w[2] . '/' . $h[0] . '/' . $h[2], '0/0/0/0',
		"$phase: the writers ran without errors")
	  or diag($writers->{out} . $writers->{err} . $holders->{err});
	ok($w[1] > 100 && $h[1] > 5, "$phase: the writers made progress");
	ok($r[1] > 20, "$phase: the readers made progress");
	my ($count, $first) = mismatches($rnode, $offset);
	is($count, 0, "$phase: no reader saw h and b differ under one snapshot")
	  or diag($first);
	is($r[0] . '/' . $r[2], '0/0', "$phase: no reader transaction failed or aborted")
	  or diag($readers->{out} . $readers->{err});
}

# --- B. 30 s of writes and reads on the primary
$node->safe_psql('postgres', 'SELECT blinkam_reset_stats()');
run_load('B', $node, $node, 30);
my ($fast, $slow, $assigned) = map { stat_value($node, $_) }
  qw(csn_fast_checks csn_slow_checks csn_assigned);
note("B: csn_assigned $assigned, csn_fast_checks $fast, csn_slow_checks $slow, csn_map_evictions "
	  . stat_value($node, 'csn_map_evictions'));
ok($fast > 0, 'B: the CSN fast path decided checks');
ok($slow > 0, 'B: the slow path decided checks (prepared transactions, CSNs off)');
ok($assigned > 0, 'B: committing writers got CSNs');
note(sprintf('phase B done at %.1f s', time - $t0));

# --- C. crash in the middle of the writes
# Prepared transactions that survive the crash, committed during the
# next phase while readers run.
for my $i (1 .. 3)
{
	$node->safe_psql('postgres', qq{
BEGIN;
INSERT INTO h VALUES (-30 - $i, $i * 100);
INSERT INTO b VALUES (-30 - $i, $i * 100);
SAVEPOINT s;
INSERT INTO h VALUES (-40 - $i, $i * 1000);
INSERT INTO b VALUES (-40 - $i, $i * 1000);
RELEASE s;
PREPARE TRANSACTION 'left_$i';});
}
my ($mark_xid, $mark_csn) = split /\|/, $node->safe_psql('postgres', q{
BEGIN;
INSERT INTO h VALUES (-50, 50);
INSERT INTO b VALUES (-50, 50);
COMMIT;
SELECT xmin, blinkheap_csn_of(xmin) FROM b WHERE id = -50;});
ok($mark_csn > 0, 'C: a transaction before the crash had a CSN');
{
	my $start = $node->safe_psql('postgres', 'SELECT last_value FROM ids');
	my $writers = start_pgbench($node, 4, 60, 'writer@6', 'writer_nocsn@1', 'prepared@2');
	my $holders = start_pgbench($node, 2, 60, 'holder@1');
	$node->poll_query_until('postgres', "SELECT last_value > $start + 300 FROM ids")
	  or die 'the writers made no progress';
	$node->stop('immediate');
	finish_pgbench($_) for ($writers, $holders);
}
$node->start;
# pgbench's transactions that the crash left prepared: commit them now
# (they may hold row locks that the writers would wait on)
for my $gid (split /\n/, $node->safe_psql('postgres',
	"SELECT gid FROM pg_prepared_xacts WHERE gid LIKE 'g%'"))
{
	$node->safe_psql('postgres', "COMMIT PREPARED '$gid'");
}
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_prepared_xacts WHERE gid LIKE 'left_%'"),
	'3', 'C: the prepared transactions survived the crash');
is($node->safe_psql('postgres', "SELECT blinkheap_csn_of('$mark_xid') IS NULL"), 't',
	'C: after the restart the CSN map is empty');
is($node->safe_psql('postgres', q{
	SELECT (SELECT count(*) || '/' || sum(v) FROM h) = (SELECT count(*) || '/' || sum(v) FROM b)}),
	't', 'C: after crash recovery h and b hold the same rows');
is($node->safe_psql('postgres', "SELECT blinkheap_check('b')"), '',
	'C: blinkheap_check after crash recovery');
$node->safe_psql('postgres', 'SELECT blinkam_reset_stats()');
is($node->safe_psql('postgres', q{
BEGIN;
INSERT INTO h VALUES (-51, 51);
INSERT INTO b VALUES (-51, 51);
COMMIT;
SELECT blinkheap_csn_of(xmin) FROM b WHERE id = -51;}), '1',
	'C: CSNs start again from 1 after the restart');
run_load('C (after the crash)', $node, $node, 10, sub {
	sleep(4);
	$node->safe_psql('postgres', "COMMIT PREPARED 'left_$_'") for (1 .. 3);
});
is($node->safe_psql('postgres', 'SELECT count(*) FROM b WHERE id BETWEEN -43 AND -31'), '6',
	'C: the prepared transactions committed');
($fast, $slow, $assigned) = map { stat_value($node, $_) }
  qw(csn_fast_checks csn_slow_checks csn_assigned);
note("C: csn_assigned $assigned, csn_fast_checks $fast, csn_slow_checks $slow");
ok($assigned > 0 && $fast > 0, 'C: new CSNs were assigned and used after the restart');
ok($slow > 0, 'C: the slow path decided checks after the restart');
note(sprintf('phase C done at %.1f s', time - $t0));

# --- D. hot standby readers
$node->safe_psql('postgres', "SELECT pg_create_physical_replication_slot('csn_slot')");
$node->backup('backup');
my $standby = PostgreSQL::Test::Cluster->new('csn_standby');
$standby->init_from_backup($node, 'backup', has_streaming => 1);
$standby->append_conf('postgresql.conf', qq(
primary_slot_name = 'csn_slot'
hot_standby_feedback = on
log_min_messages = warning
));
$standby->start;
$node->wait_for_catchup($standby);
run_load('D (standby readers)', $node, $standby, 10);
is(stat_value($standby, 'csn_fast_checks') . '/' . stat_value($standby, 'csn_assigned'), '0/0',
	'D: the standby decided nothing by CSN');
ok(stat_value($standby, 'csn_slow_checks') > 0, 'D: the standby readers took the slow path');
note(sprintf('phase D done at %.1f s', time - $t0));

# --- E. final state
$node->wait_for_catchup($standby);
my $totals = q{SELECT (SELECT count(*) || '/' || sum(v) FROM h), (SELECT count(*) || '/' || sum(v) FROM b)};
my ($ht, $bt) = split /\|/, $node->safe_psql('postgres', $totals);
is($bt, $ht, 'E: primary: h and b have the same count and sum');
is($node->safe_psql('postgres', q{
	SELECT (SELECT count(*) FROM (SELECT id, v FROM h EXCEPT ALL SELECT id, v FROM b) x)
	     + (SELECT count(*) FROM (SELECT id, v FROM b EXCEPT ALL SELECT id, v FROM h) y)}),
	'0', 'E: primary: h and b hold exactly the same rows');
for my $n ($node, $standby)
{
	my $name = $n->name;
	my $on = $n->safe_psql('postgres', 'SELECT count(*), sum(v), sum(id) FROM b');
	is($n->safe_psql('postgres', 'SET blinkam.csn_snapshots = off; SELECT count(*), sum(v), sum(id) FROM b'),
		$on, "E: $name: the same answer with csn_snapshots off");
	is($n->safe_psql('postgres', q{SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT count(*), sum(v), sum(id) FROM b WHERE id > -100}),
		$on, "E: $name: the same answer by index scan");
	is($n->safe_psql('postgres', 'SELECT count(*), sum(v), sum(id) FROM h'), $on,
		"E: $name: b answers like h");
	is($n->safe_psql('postgres', "SELECT blinkheap_check('b')"), '',
		"E: $name: blinkheap_check");
}
is($standby->safe_psql('postgres', $totals), "$ht|$bt",
	'E: the standby has the primary\'s totals');
$node->safe_psql('postgres', 'VACUUM h; VACUUM b');
is($node->safe_psql('postgres', $totals), "$ht|$bt", 'E: the totals are unchanged after VACUUM');
is($node->safe_psql('postgres', "SELECT blinkheap_check('b')"), '',
	'E: blinkheap_check after VACUUM');
note(sprintf('done at %.1f s', time - $t0));

$standby->stop;
$node->stop;
done_testing();
