# Unique entries held back (blinkam.defer_unique; blinkinsert.c, "Pending
# unique entries"; pending.c).
#
# 1. The window specs/blink_defer_unique.spec cannot hold: an insert at
#    once (D) has checked the leaf and pending.c and holds the leaf (pause
#    point unique_probed) when a held-back insert (P) of the same key
#    enters its key; P's look at the leaf then waits for the leaf's lock,
#    and once D's entry is in, P finds it and waits for D's transaction:
#    a violation if D commits, P's row if D aborts.
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

for my $end ('COMMIT', 'ROLLBACK')
{
	my $key = hold_key(91);
	my $d = session();
	send_sql($d, "SET blinkam.defer_unique = off; SET blinkam.debug_pause_key = 91; "
		  . "SET blinkam.debug_pause_at = unique_probed; BEGIN; "
		  . "INSERT INTO u VALUES (500, 'D first');");
	paused_on(91);
	my $p = bg("SET blinkam.defer_unique = on; INSERT INTO u VALUES (500, 'P held back')");
	waits_on('P held back', 'BufferContent');
	release_key($key);
	waits_on('P held back', 'transactionid');
	send_sql($d, "RESET blinkam.debug_pause_at; $end;");
	wait_marker($d, "ended");
	$p->[0]->finish;
	${ $d->{in} } .= "\\q\n";
	$d->{h}->finish;
	if ($end eq 'COMMIT')
	{
		like(${ $p->[2] }, qr/duplicate key value violates unique constraint "u_k"/,
			'D checked first and committed: P, whose key went in meanwhile, fails');
		is($node->safe_psql('postgres', 'SELECT who FROM u WHERE k = 500'), 'D first',
			"D's row only");
		$node->safe_psql('postgres', 'DELETE FROM u WHERE k = 500');
	}
	else
	{
		is(${ $p->[2] }, '', 'D checked first and aborted: P goes in');
		is($node->safe_psql('postgres', 'SELECT who FROM u WHERE k = 500'), 'P held back',
			"P's row only");
	}
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
