# Helpers shared by the forced-interleaving tests of cooperative batches
# (t/009 for blink leaves, t/018 for blinkheap insert pages).  A test sets
# its node once (BatchCases::start_node, or use_node for a node it started
# itself) and calls these by name.
package BatchCases;

use strict;
use warnings;
use Exporter 'import';
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

our @EXPORT = qw(bg counter leaf_items wait_for_waiters waiting hold_key release_key paused paused_on waits_on start_holder);

my $node;

sub use_node
{
	($node) = @_;
}

# Start the cases file's node, use it, and create the extension.
sub start_node
{
	my ($n) = @_;
	$n->start;
	use_node($n);
	$n->safe_psql('postgres', 'CREATE EXTENSION blinkam');
}

# Run SQL in a background psql; returns [handle, \$out, \$err].
sub bg
{
	my ($sql) = @_;
	my ($out, $err) = ('', '');
	# a session that never ends (a waiter nobody answers) fails the test
	# instead of hanging it
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-q', '-A', '-t', '-d', $node->connstr('postgres'), '-c', $sql ],
		'>', \$out, '2>', \$err,
		IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
	return [ $h, \$out, \$err ];
}

# A counter of blinkam_stats().
sub counter
{
	my ($name) = @_;
	return $node->safe_psql('postgres',
		"SELECT value FROM blinkam_stats() WHERE name = '$name'");
}

# SELECT what FROM the leaf items (not high keys, not downlinks) of a blink
# index, as i with their block number b, WHERE cond.
sub leaf_items
{
	my ($index, $what, $cond) = @_;
	return $node->safe_psql('postgres', qq{
SELECT $what FROM generate_series(1, pg_relation_size('$index') / 8192 - 1) b,
	LATERAL blink_page_items('$index', b) i
 WHERE NOT i.is_highkey AND i.downlink IS NULL AND ($cond)});
}

# Wait until n backends wait for a batch (wait event Extension) in an
# INSERT into the given table.
sub wait_for_waiters
{
	my ($table, $n) = @_;
	$node->poll_query_until('postgres',
		"SELECT count(*) >= $n FROM pg_stat_activity
		  WHERE wait_event_type = 'Extension' AND query LIKE '%INSERT INTO $table %'
		    AND pid <> pg_backend_pid()")
	  or die "no $n waiters";
}

# Wait until the one backend whose query mentions tag waits for a batch.
sub waiting
{
	my ($tag) = @_;
	$node->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM pg_stat_activity
		  WHERE wait_event_type = 'Extension' AND query LIKE '%$tag%'
		    AND pid <> pg_backend_pid()")
	  or die "$tag is not waiting";
}

# Hold advisory lock key in a session of its own (a pause point's key);
# release_key lets it go.
sub hold_key
{
	my ($key) = @_;
	my ($in, $out) = ('', '');
	# (a timeout, as in bg: a control session that never answers fails
	# the test instead of hanging it)
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-q', '-A', '-t', '-d', $node->connstr('postgres') ],
		'<', \$in, '>', \$out,
		IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
	$in .= "SELECT pg_advisory_lock($key), 'held';\n";
	$h->pump until $out =~ /held/;
	return [ $h, \$in, $key ];
}

sub release_key
{
	my ($ctl) = @_;
	${ $ctl->[1] } .= "SELECT pg_advisory_unlock($ctl->[2]);\n\\q\n";
	$ctl->[0]->finish;
}

# Wait until a backend whose query mentions tag waits at its pause point.
sub paused
{
	my ($tag) = @_;
	waits_on($tag, 'advisory');
}

# Wait until a backend waits at a pause point on advisory key $key (the
# query text cannot tell two pause points of one session apart).
sub paused_on
{
	my ($key) = @_;
	$node->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
		   AND classid = 0 AND objid = $key AND objsubid = 1 AND pid <> pg_backend_pid()")
	  or die "nobody waits at a pause point on key $key";
}

# Start a batch holder: an INSERT into $table of ($value), after its SET
# lines, held with its leaf or hot page locked before it claims what was
# published there (batch_before_claim: the session's second pause point,
# on key $pkey, which this takes first; its SET lines may name a later
# point in blinkam.debug_pause_at).  Returns (holder, key) once it is held
# there; release_key(key) lets it go on.  Nothing may need that page
# meanwhile: the holder keeps its lock, interrupts held off.
sub start_holder
{
	my ($pkey, $sets, $table, $value) = @_;
	my $k = hold_key($pkey);
	my $h = bg("SET blinkam.debug_pause_also_at = batch_before_claim; "
		  . "SET blinkam.debug_pause_also_key = $pkey; $sets INSERT INTO $table VALUES ($value)");
	paused_on($pkey);
	return ($h, $k);
}

# Wait until the one backend whose query mentions tag waits for event
# (a wait_event of pg_stat_activity).
sub waits_on
{
	my ($tag, $event) = @_;
	$node->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM pg_stat_activity WHERE wait_event = '$event'
		   AND query LIKE '%$tag%' AND pid <> pg_backend_pid()")
	  or die "$tag does not wait for $event";
}

1;
