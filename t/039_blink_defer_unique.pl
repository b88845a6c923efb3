# Unique entries held back (blinkam.defer_unique; blinkinsert.c, "Pending
# unique entries"; pending.c).
#
# 1. The windows specs/blink_defer_unique_race.spec cannot hold, where a
#    check holds the key's first leaf and the other backend waits for its
#    lock: an insert at once (D) has checked the leaf and pending.c (pause
#    point unique_probed) when a held-back insert (P) of the key comes: P
#    waits for the leaf, finds D's entry and waits for D's transaction (a
#    violation if D commits, P's row if D aborts); and P has checked and
#    entered its key (unique_entered) when D comes: D finds P's key.
# 2. Stress: 32 clients holding their entries back and 32 inserting at
#    once fight over 400 keys of a unique index, with held-back entries
#    kept across statements, savepoints rolled back, ON CONFLICT and
#    deletes; a ledger written in the same subtransactions must hold
#    exactly the index's keys, no key twice, and blink_check must pass.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use BatchCases;

my $node = PostgreSQL::Test::Cluster->new('defer_unique');
$node->init;
$node->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
max_connections = 100
synchronous_commit = off
));
BatchCases::start_node($node);
$node->safe_psql('postgres', q(
CREATE TABLE u (k int, who text);
CREATE UNIQUE INDEX u_k ON u USING blink (k);
INSERT INTO u SELECT g, 'setup' FROM generate_series(1, 1000) g WHERE g <> 500;
));

# an interactive session: send it statements, wait for a marker
sub session
{
	my ($in, $out, $err) = ('', '', '');
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-q', '-A', '-t', '-d', $node->connstr('postgres') ],
		'<', \$in, '>', \$out, '2>', \$err,
		IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
	return { h => $h, in => \$in, out => \$out, err => \$err };
}

sub send_sql
{
	my ($s, $sql) = @_;
	${ $s->{in} } .= "$sql\n";
	$s->{h}->pump_nb;
}

sub wait_marker
{
	my ($s, $marker) = @_;
	${ $s->{in} } .= "SELECT '$marker';\n";
	$s->{h}->pump until ${ $s->{out} } =~ /$marker/;
}

# One window: the first backend (defer_unique $first_defer, row $first)
# pauses at $pause holding the key's first leaf, in an open transaction;
# the second (row $second) comes, waits for the leaf, and once the first
# goes on, finds its entry or key and waits for its transaction, which
# then ends with $end.  The second fails (COMMIT) or goes in (ROLLBACK).
sub window_case
{
	my ($pause, $pkey, $first_defer, $first, $second, $end, $what) = @_;
	my $second_defer = $first_defer eq 'on' ? 'off' : 'on';
	my $key = hold_key($pkey);
	my $one = session();
	send_sql($one, "SET blinkam.defer_unique = $first_defer; "
		  . "SET blinkam.debug_pause_key = $pkey; "
		  . "SET blinkam.debug_pause_at = $pause; BEGIN; "
		  . "INSERT INTO u VALUES (500, '$first');");
	paused_on($pkey);
	my $two = bg("SET blinkam.defer_unique = $second_defer; "
		  . "INSERT INTO u VALUES (500, '$second')");
	# (it waits for the leaf's lock -- or, batching, published for the
	# leaf's holder, which hands it back: the first writes no record)
	$node->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM pg_stat_activity
		  WHERE wait_event IN ('BufferContent', 'Extension')
		    AND query LIKE '%$second%' AND pid <> pg_backend_pid()")
	  or die "$second does not wait for the leaf";
	release_key($key);
	waits_on($second, 'transactionid');
	send_sql($one, "RESET blinkam.debug_pause_at; $end;");
	wait_marker($one, "ended");
	$two->[0]->finish;
	${ $one->{in} } .= "\\q\n";
	$one->{h}->finish;
	if ($end eq 'COMMIT')
	{
		like(${ $two->[2] }, qr/duplicate key value violates unique constraint "u_k"/,
			"$what, committed: the second fails");
	}
	else
	{
		is(${ $two->[2] }, '', "$what, aborted: the second goes in");
	}
	is($node->safe_psql('postgres', 'SELECT who FROM u WHERE k = 500'),
		$end eq 'COMMIT' ? $first : $second, "$what, $end: one row, the right one");
	$node->safe_psql('postgres', 'DELETE FROM u WHERE k = 500');
}

for my $end ('COMMIT', 'ROLLBACK')
{
	# an insert at once checked first (unique_probed); a held-back one comes
	window_case('unique_probed', 91, 'off', 'D first', 'P held back', $end,
		'insert at once first');
	# a held-back insert checked and entered its key first; one at once comes
	window_case('unique_entered', 92, 'on', 'P first', 'D at once', $end,
		'held-back insert first');
}

# A backend terminated while its key is entered: its transaction aborts on
# the way out and takes the key with it; another insert of the key then
# goes in without waiting.
{
	my $before = BatchCases::counter('pending_unique_inserts');
	my $a = session();
	send_sql($a, "SET blinkam.defer_unique = on; BEGIN; "
		  . "INSERT INTO u VALUES (500, 'terminated');");
	wait_marker($a, "inserted");
	is(BatchCases::counter('pending_unique_inserts') - $before, 1,
		'the entry was held back');
	$node->safe_psql('postgres', q{SELECT pg_terminate_backend(pid)
		FROM pg_stat_activity WHERE query LIKE '%inserted%' AND pid <> pg_backend_pid()});
	$a->{h}->finish;
	$node->poll_query_until('postgres', q{SELECT count(*) = 0 FROM pg_stat_activity
		WHERE query LIKE '%inserted%' AND pid <> pg_backend_pid()})
	  or die 'the terminated backend is still there';
	is($node->psql('postgres', "SET statement_timeout = '10s'; "
			. "SET blinkam.defer_unique = off; INSERT INTO u VALUES (500, 'after')"),
		0, 'after the termination the key goes in at once');
	is($node->safe_psql('postgres', 'SELECT who FROM u WHERE k = 500'), 'after',
		'only the later row');
	$node->safe_psql('postgres', 'DELETE FROM u WHERE k = 500');
}

# --- 2. stress ---------------------------------------------------------
$node->safe_psql('postgres', q(
CREATE TABLE s (k int, t timestamp, who int);
CREATE UNIQUE INDEX s_kt ON s USING blink (k, t);
CREATE TABLE s_ledger (k int, t timestamp);
SELECT blinkam_reset_stats();
));
my $script = "$PostgreSQL::Test::Utils::tmp_check/039_stress.sql";
open(my $fh, '>', $script) or die;
print $fh q(
\set k1 random(1, 400)
\set k2 random(1, 400)
\set k3 random(1, 400)
\set k4 random(1, 400)
BEGIN;
DO $$ BEGIN
	INSERT INTO s VALUES (:k1, '2020-01-01', :client_id);
	INSERT INTO s_ledger VALUES (:k1, '2020-01-01');
EXCEPTION WHEN unique_violation THEN NULL; END $$;
DO $$ BEGIN
	INSERT INTO s VALUES (:k2, '2020-01-02', :client_id);
	INSERT INTO s_ledger VALUES (:k2, '2020-01-02');
	IF :k2 % 4 = 0 THEN RAISE EXCEPTION 'roll back'; END IF;
EXCEPTION WHEN unique_violation OR raise_exception THEN NULL; END $$;
WITH i AS (INSERT INTO s VALUES (:k3, '2020-01-03', :client_id) ON CONFLICT DO NOTHING RETURNING k, t)
	INSERT INTO s_ledger SELECT k, t FROM i;
WITH d AS (DELETE FROM s WHERE k = :k4 AND t = '2020-01-01' RETURNING k, t)
	DELETE FROM s_ledger l USING d WHERE l.k = d.k AND l.t = d.t;
COMMIT;
);
close $fh;
# (Deadlocks between clients come as with btree -- two transactions each
# waiting for the other's key -- and pgbench retries them.  Its output goes
# to files: a pipe nobody reads while the other run is awaited would stop
# it, with its clients' locks held.)
my @runs;
for my $defer ('on', 'off')
{
	local $ENV{PGOPTIONS} = "-c blinkam.defer_unique=$defer";
	my $out = "$PostgreSQL::Test::Utils::tmp_check/039_stress_$defer.out";
	push @runs, [ IPC::Run::start(
		[ 'pgbench', '--no-vacuum', '--client=32', '--jobs=2', '--transactions=150',
		  '--max-tries=100', '-f', $script, '-d', $node->connstr('postgres') ],
		'>', $out, '2>', "$out.err",
		IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default)), $out ];
}
$_->[0]->finish for @runs;
like(slurp_file($_->[1]), qr{processed: 4800/4800}, "stress run") for @runs;
is($node->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT (k, t)) FROM s'), 't',
	'no key twice');
is($node->safe_psql('postgres', q{
	SELECT (SELECT count(*) FROM (SELECT k, t FROM s EXCEPT ALL SELECT k, t FROM s_ledger) a)
	     + (SELECT count(*) FROM (SELECT k, t FROM s_ledger EXCEPT ALL SELECT k, t FROM s) b)}),
	'0', 'the table holds exactly the keys the ledger says');
is($node->safe_psql('postgres', q{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*) FROM s WHERE k > 0}),
	$node->safe_psql('postgres', 'SELECT count(*) FROM s_ledger'),
	'an index scan finds every row');
my $held = BatchCases::counter('pending_unique_inserts');
my $found = BatchCases::counter('pending_unique_found');
note("pending_unique_inserts $held, pending_unique_found $found");
ok($held > 0, 'entries were held back');
ok($found > 0, 'checks found held-back keys of others');
is($node->safe_psql('postgres', "SELECT blink_check('s_kt', true)"), '', 'blink_check(s_kt)');
is($node->safe_psql('postgres', "SELECT blink_check('u_k', true)"), '', 'blink_check(u_k)');
done_testing();
