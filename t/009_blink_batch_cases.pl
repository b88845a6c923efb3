# Cooperative batch inserts, forced interleavings.  A holder held with the
# leaf locked before it claims what was published for it
# (blinkam.debug_pause_also_at = batch_before_claim, until the test lets
# its advisory key go) lets other inserters publish their tuples while it
# holds it; then:
#   1. it inserts them in its batch, and they return without the lock;
#   2. a waiter cancelled while published (statement_timeout) withdraws,
#      and its tuple is never inserted;
#   3. a holder that errors out after claiming waiters' tuples hands them
#      back, and the waiters insert them themselves;
#   4. tuples that do not fit are handed back, and their owners split;
#   5. in a unique index, two waiters with the same key: at most one is
#      accepted into the batch, and the other reports the violation;
#   6-10. runs (a statement buffer's flush publishes all its tuples for
#      the leaf): taken whole; cut by the high key of a leaf that split
#      after the run was published (7b: and the rest published again for
#      the busy right sibling); cut where the leaf is full; withdrawn
#      by a cancelled waiter; handed back by a holder that fails;
#   11. a holder with further rounds (blinkam.batch_rounds) takes what
#      was published while it wrote its record in another record; one
#      that fails there hands that round back;
#   12. a share holder that lets the leaf go without waking anyone (as
#      PostgreSQL's page writes do): its waiter retries, not woken;
#   13. a waiter that sleeps to its timeout while another, woken to take
#      the leaf, has not tried it yet: not counted as a missed wake-up;
#   14. a run's equal keys published as one posting tuple: taken as one
#      item; handed back where the leaf holds an entry inside its range,
#      or where its range reaches past the leaf's high key;
#   (15. the sleep on the leaf's lock went with blinkam.batch_sleep;)
#   16. a descent that moves right onto a busy leaf publishes there;
#   17. a holder's wake-up that comes while its waiter is between its
#      last look at its slot and its sleep is not lost;
#   18. a waiter woken to take its leaf that finds it taken again waits
#      on, and the new holder takes its entry;
#   19. a run held to the commit, published from the commit's flush and
#      cancelled there, withdraws; its transaction rolls back;
#   and holders that do not batch (blinkam.batch_inserts = off), or fail
#   before their record, wake their waiters, even when a third inserter
#   claims the first of them while the release still has the others (3f):
#   batch_lost_wakeups stays 0
#   (their last-resort timeout is raised, so that a missed wake-up would
#   also show as a long wait).
# Cases whose holder is held at a later point too (3d, 3f, 7c, 8b, 11, 11b)
# name that one in blinkam.debug_pause_at, on a key of its own.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use BatchCases;

my $node = PostgreSQL::Test::Cluster->new('batchcases');
$node->init;
$node->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
max_connections = 60
# A backend's authentication timer, disabled after login, still fires its
# SIGALRM once, authentication_timeout after the connection, and the
# handler sets the latch: a sleeping batch waiter wakes then for nothing.
# The longest setting keeps that stray wake-up out of the cases that
# require a waiter to be woken by its holder.
authentication_timeout = 600
# Statement buffers flush at each statement's end, so that a waiter's
# statement_timeout still covers its wait (it is off by the time a commit
# flushes); case 19 holds one to the commit.
blinkam.defer_inserts = statement
));
BatchCases::start_node($node);

# Two waiters inserting key + 1 and key + 2 into h1 with their
# last-resort timeout raised (a wake-up that does not come shows as a
# 60 s wait); returns them once both have published.
sub two_waiters
{
	my ($key) = @_;
	my @w = map {
		bg("SET blinkam.debug_batch_wait_timeout = '60s'; INSERT INTO h1 VALUES ("
			  . ($key + $_) . ")")
	} 1, 2;
	wait_for_waiters('h1', 2);
	return @w;
}

# A holder of h1 (after its SET lines) inserting key, held (pause key pkey)
# until two_waiters have published; returns (holder, waiter, waiter) once
# it has been let go.
sub holder_and_two_waiters
{
	my ($pkey, $sets, $key) = @_;
	my ($h, $k) = start_holder($pkey, $sets, 'h1', $key);
	my @w = two_waiters($key);
	release_key($k);
	return ($h, @w);
}

# A table $name (k bigint) with a blink index ${name}_k, holding keys 1 to
# $n; the counters reset.
sub keys_table
{
	my ($name, $n) = @_;
	$node->safe_psql('postgres', qq(
CREATE TABLE $name (k bigint);
CREATE INDEX ${name}_k ON $name USING blink (k);
INSERT INTO $name SELECT generate_series(1, $n);
SELECT blinkam_reset_stats();
));
}

# How many items with this key text are in the index (high keys aside)?
sub entries
{
	my ($index, $keytext) = @_;
	return leaf_items($index, 'count(*)', "i.key = '$keytext'");
}

# --- 1. a batch of two waiters
$node->safe_psql('postgres', q(
CREATE TABLE h1 (k bigint);
CREATE INDEX h1_k ON h1 USING blink (k);
INSERT INTO h1 SELECT generate_series(1, 100);
SELECT blinkam_reset_stats();
));
my ($a, $k) = start_holder(141, '', 'h1', "1000");
my $b = bg("INSERT INTO h1 VALUES (1001)");
my $c = bg("INSERT INTO h1 VALUES (1002)");
wait_for_waiters('h1', 2);
release_key($k);
$_->[0]->finish for ($a, $b, $c);
is(${ $b->[2] } . ${ $c->[2] }, '', 'both waiters succeeded');
is(counter('batched_inserts'), '2', "the holder inserted both waiters' tuples");
is(counter('batches'), '1', 'in one batch');
is($node->safe_psql('postgres', 'SELECT count(*) FROM h1 WHERE k >= 1000'), '3', 'all three rows');
is(entries('h1_k', '(1001)') . entries('h1_k', '(1002)'), '11', 'each entry once');
is($node->safe_psql('postgres', "SELECT blink_check('h1_k', true)"), '', 'blink_check');

# --- 2. a waiter cancelled while published: both waiters publish while
#        the holder is held; the one with a statement_timeout times out and
#        returns before the holder is let go
$node->safe_psql('postgres', 'SELECT blinkam_reset_stats()');
($a, $k) = start_holder(142, '', 'h1', "2000");
$b = bg("SET statement_timeout = '2s'; INSERT INTO h1 VALUES (2001)");
$c = bg("INSERT INTO h1 VALUES (2002)");
wait_for_waiters('h1', 2);
$b->[0]->finish;
like(${ $b->[2] }, qr/canceling statement due to statement timeout/,
	'the published waiter was cancelled');
release_key($k);
$_->[0]->finish for ($a, $c);
is(counter('batched_inserts'), '1', 'only the remaining waiter was batched');
is(counter('batch_withdrawals'), '1', 'the cancelled waiter withdrew its published tuple');
is(entries('h1_k', '(2001)'), '0', "the cancelled waiter's tuple was never inserted");
is(entries('h1_k', '(2002)'), '1', "the other waiter's tuple is in once");
is($node->safe_psql('postgres', 'SELECT count(*) FROM h1 WHERE k >= 2000'), '2', 'rows');
is($node->safe_psql('postgres', "SELECT blink_check('h1_k', true)"), '', 'blink_check');

# --- 3. the holder errors out after claiming the waiters' tuples: while
#        collecting them (in_batch), or when its record fails to be
#        written (batch_record: the claimed waiters would otherwise wait
#        for good; they wait 60 s before retrying on their own)
for my $case ([ 'in_batch', 3000, 143 ], [ 'batch_record', 3300, 144 ])
{
	my ($stop, $base, $pkey) = @$case;
	$node->safe_psql('postgres', 'SELECT blinkam_reset_stats()');
	($a, $b, $c) = holder_and_two_waiters($pkey, "SET blinkam.debug_stop_at = $stop;", $base);
	$_->[0]->finish for ($a, $b, $c);
	like(${ $a->[2] }, qr/stopping at $stop/, "$stop: the holder failed");
	is(${ $b->[2] } . ${ $c->[2] }, '', "$stop: both waiters still succeeded");
	ok(counter('batch_skips') >= 2, "$stop: their tuples were handed back");
	is(counter('batched_inserts'), '0', "$stop: and not inserted by the failed holder");
	is($node->safe_psql('postgres',
			"SELECT string_agg(k::text, ' ' ORDER BY k) FROM h1 WHERE k BETWEEN $base AND $base + 9"),
		($base + 1) . ' ' . ($base + 2), "$stop: the waiters' rows are there, the holder's is not");
	is(entries('h1_k', '(' . ($base + 1) . ')') . entries('h1_k', '(' . ($base + 2) . ')'), '11',
		"$stop: each entry once");
	is(counter('batch_wait_timeouts') . counter('batch_lost_wakeups'), '00',
		"$stop: the failed holder woke them");
	is($node->safe_psql('postgres', "SELECT blink_check('h1_k', true)"), '', "$stop: blink_check");
}

# --- 3b. a holder whose session does not batch: it serves nobody, but its
#        release hands the waiters back, awake
$node->safe_psql('postgres', 'SELECT blinkam_reset_stats()');
($a, $b, $c) = holder_and_two_waiters(145, "SET blinkam.batch_inserts = off;", 3500);
$_->[0]->finish for ($a, $b, $c);
is(${ $a->[2] } . ${ $b->[2] } . ${ $c->[2] }, '', 'holder and waiters succeeded');
# (the first waiter woken takes the page and may serve the other)
ok(counter('batched_inserts') <= 1, 'the holder inserted no waiter');
is(counter('batch_lost_wakeups'), '0', 'the waiters were woken at its release');
is(entries('h1_k', '(3501)') . entries('h1_k', '(3502)'), '11', 'each entry once');

# --- 3c. the same holder fails before its record: the error releases the
#        leaf without _blink_unlock; the abort wakes the waiters
$node->safe_psql('postgres', 'SELECT blinkam_reset_stats()');
($a, $b, $c) = holder_and_two_waiters(146,
	"SET blinkam.batch_inserts = off; SET blinkam.debug_stop_at = in_batch;", 3600);
$_->[0]->finish for ($a, $b, $c);
like(${ $a->[2] }, qr/stopping at in_batch/, 'the holder failed');
is(${ $b->[2] } . ${ $c->[2] }, '', 'both waiters succeeded');
is(counter('batch_lost_wakeups'), '0', 'the abort woke them');
is($node->safe_psql('postgres', 'SELECT string_agg(k::text, \' \' ORDER BY k) FROM h1 WHERE k >= 3600'),
	'3601 3602', "the waiters' rows are there, the holder's is not");
is($node->safe_psql('postgres', "SELECT blink_check('h1_k', true)"), '', 'blink_check');

# --- 3d. the release of 3b, held (blinkam.debug_pause_at =
#        drain_pushed_back) after it has put the first waiter of the page
#        back into the wait list, while the other is still in its hands.
#        That waiter is woken only once the whole list is back: woken at
#        once, it could insert and look at the list at its own release
#        before the other was back, and nobody would wake that one.
#        (The holder is held before its claim, key 153, until both waiters
#        have published, then in its release, key 77.)
$node->safe_psql('postgres', 'SELECT blinkam_reset_stats()');
my $k77 = hold_key(77);
($a, $k) = start_holder(153, "SET blinkam.batch_inserts = off; "
	  . "SET blinkam.debug_pause_at = drain_pushed_back; SET blinkam.debug_pause_key = 77;", 'h1', 3700);
($b, $c) = two_waiters(3700);
release_key($k);
paused_on(77);
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_stat_activity
	  WHERE wait_event_type = 'Extension' AND query LIKE '%INSERT INTO h1 %'"),
	'2', 'while part of the list is out, no waiter of the page has been woken');
release_key($k77);
$_->[0]->finish for ($a, $b, $c);
is(${ $a->[2] } . ${ $b->[2] } . ${ $c->[2] }, '', 'holder and waiters succeeded');
is(counter('batch_lost_wakeups'), '0', 'both waiters were woken');
is(entries('h1_k', '(3701)') . entries('h1_k', '(3702)'), '11', 'each entry once');
is($node->safe_psql('postgres', "SELECT blink_check('h1_k', true)"), '', 'blink_check');

# --- 3e. VACUUM wants a cleanup lock on the leaf while a waiter holds a
#        pin on it.  VACUUM is held (blinkam.debug_pause_at =
#        vacuum_cleanup_locked) with the leaf locked, before it looks at
#        the pins; an insert meanwhile finds the leaf locked, publishes
#        its tuple and sleeps.  Let go, VACUUM finds the waiter's pin and
#        must unlock.  PostgreSQL's LockBufferForCleanup unlocks without
#        waking anyone: the waiter would sleep to its (here 60 s) timeout
#        while VACUUM waits for its pin.  blink's cleanup lock unlocks
#        through _blink_unlock, which wakes it.
$node->safe_psql('postgres', 'SELECT blinkam_reset_stats()');
$node->safe_psql('postgres', 'DELETE FROM h1 WHERE k = 3701');
is($node->safe_psql('postgres',
	"SELECT leaf_pages FROM blink_tree_stats('h1_k')"), '1',
	'h1_k is one leaf, so VACUUM pauses on the waiter\'s page');
my $k78 = hold_key(78);
{
	# VACUUM cannot run in the transaction block of a one-string psql -c
	local $ENV{PGOPTIONS} = '-c blinkam.debug_pause_at=vacuum_cleanup_locked -c blinkam.debug_pause_key=78';
	$c = bg("VACUUM (INDEX_CLEANUP on) h1 /* vacuum_cleanup_locked */");
}
paused('vacuum_cleanup_locked');
$b = bg("SET blinkam.debug_batch_wait_timeout = '60s'; INSERT INTO h1 VALUES (3801)");
wait_for_waiters('h1', 1);
release_key($k78);
$_->[0]->finish for ($b, $c);
is(${ $b->[2] } . ${ $c->[2] }, '', 'waiter and VACUUM succeeded');
is(counter('batch_lost_wakeups') . counter('batch_wait_timeouts'), '00',
	'the waiter was woken when VACUUM let the leaf go');
is(entries('h1_k', '(3801)') . entries('h1_k', '(3701)'), '10',
	"the new entry once, the deleted row's entry gone");
is($node->safe_psql('postgres', "SELECT blink_check('h1_k', true)"), '', 'blink_check');

# --- 3f. the release of 3d held at the same point while a third inserter
#        takes the leaf (free by then), claims the waiter that was put back
#        first, inserts its entry and finds the list empty at its own
#        release: the other waiter is still in the releaser's hands.  The
#        releaser must not rely on that first waiter, which no longer
#        waits, to serve the other: once the rest is back it sees it gone,
#        looks at the list again (batch_first_gone) and wakes the other.
#        Before that, the other waiter slept to its (here 60 s) timeout.
#        (The holder is held before its claim, key 191, until both waiters
#        have published, then in its release, key 192.)
$node->safe_psql('postgres', 'SELECT blinkam_reset_stats()');
my $k192 = hold_key(192);
($a, $k) = start_holder(191, "SET blinkam.batch_inserts = off; "
	  . "SET blinkam.debug_pause_at = drain_pushed_back; SET blinkam.debug_pause_key = 192;", 'h1', 3900);
($b, $c) = two_waiters(3900);
release_key($k);
paused_on(192);
$node->safe_psql('postgres', 'INSERT INTO h1 VALUES (3903)');
is(counter('batched_inserts'), '1', '3f: the third inserter took the first waiter\'s entry');
# (the waiter it served returns; the other sleeps on)
ok($node->poll_query_until('postgres', "SELECT count(*) = 1 FROM pg_stat_activity
	  WHERE query ~ 'INSERT INTO h1 VALUES \\(390[12]\\)' AND state = 'active'"),
	'3f: one waiter still waits while the release is held');
release_key($k192);
$_->[0]->finish for ($a, $b, $c);
is(${ $a->[2] } . ${ $b->[2] } . ${ $c->[2] }, '', '3f: holder and waiters succeeded');
is(counter('batch_first_gone'), '1', '3f: the releaser found its first waiter gone');
is(counter('batch_lost_wakeups') . counter('batch_wait_timeouts'), '00',
	'3f: the other waiter was woken, not left to its timeout');
is(counter('batched_inserts'), '1', '3f: it inserted its entry itself');
is(entries('h1_k', '(3901)') . entries('h1_k', '(3902)') . entries('h1_k', '(3903)'), '111',
	'3f: each entry once');
is($node->safe_psql('postgres', 'SELECT count(*) FROM h1 WHERE k BETWEEN 3900 AND 3903'), '4', '3f: rows');
is($node->safe_psql('postgres', "SELECT blink_check('h1_k', true)"), '', '3f: blink_check');

# --- 4. a batch that does not fit: the holder takes what fits and leaves
#        the rest published, its waiters asleep (deferred); its release
#        wakes one of them, which splits the leaf; the split moves the
#        others, still published, to the new right page's wait list
#        (forwarded), whose release wakes one of them to take it and serve
#        the rest.  The waiters publish one after another in key order:
#        the holder claims the latest first, takes what fits and puts the
#        rest back so that the earliest, with the smallest key, is woken
#        first and splits; every other deferred key is above it and,
#        with a fill factor of 50, above the new high key (at 100 the
#        left half keeps the holder's keys too, the others stay and the
#        leaf splits twice).  Their last-resort timeout is raised: a
#        wake-up that does not come shows as a 60 s wait and a timeout
#        counted.
$node->safe_psql('postgres', q(
CREATE TABLE h4 (t text);
CREATE INDEX h4_t ON h4 USING blink (t) WITH (fillfactor = 50);
INSERT INTO h4 SELECT lpad(g::text, 200, '0') FROM generate_series(1, 30) g;
SELECT blinkam_reset_stats();
));
is($node->safe_psql('postgres', "SELECT leaf_pages FROM blink_tree_stats('h4_t')"), '1',
	'one leaf, nearly full');
# (the holder is held until all twelve have published, one after another)
($a, $k) = start_holder(147, '', 'h4', "lpad('1000', 200, '0')");
my @w;
for my $i (1 .. 12)
{
	push @w, bg("SET blinkam.debug_batch_wait_timeout = '60s'; "
		  . "INSERT INTO h4 VALUES (lpad('" . (1000 + $i) . "', 200, '0'))");
	wait_for_waiters('h4', $i);
}
release_key($k);
$_->[0]->finish for ($a, @w);
is(join('', map { ${ $_->[2] } } @w), '', 'every waiter succeeded');
ok(counter('batched_inserts') > 0, 'some tuples went into the batch');
ok(counter('batch_refused_room') > 0, 'the others found no room on the leaf');
is(counter('batch_skips'), '0', 'none of them was handed back');
ok(counter('batch_deferred') > 0, 'they stayed published, asleep');
ok(counter('splits') > 0, 'one of them split the page');
ok(counter('batch_forwarded') > 0, 'the split moved the others to the new page');
is(counter('splits'), '1', 'the leaf split once');
is(counter('batch_forwarded') + 1, counter('batch_deferred'),
	"every deferred run but the splitter's was forwarded");
is(counter('batched_inserts'), '10',
	'all but the splitter and the first woken of the new page went in through a holder');
is(counter('batch_lost_wakeups') . counter('batch_wait_timeouts'), '00',
	'no waiter was left to its timeout');
is(leaf_items('h4_t', q{count(*)},
	q{right(i.key, 5) BETWEEN '1000)' AND '1012)'}), '13', 'each entry once');
is($node->safe_psql('postgres', 'SELECT count(*) FROM h4'), '43', 'all rows');
is($node->safe_psql('postgres', "SELECT blink_check('h4_t', true)"), '', 'blink_check');

# --- 5. unique index: two waiters with the same key in one batch; at
#       most one is accepted, the other finds it and reports the violation
$node->safe_psql('postgres', q(
CREATE TABLE h5 (k int);
CREATE UNIQUE INDEX h5_k ON h5 USING blink (k);
INSERT INTO h5 SELECT generate_series(1, 100);
SELECT blinkam_reset_stats();
));
($a, $k) = start_holder(148, '', 'h5', "1000");
$b = bg("INSERT INTO h5 VALUES (500)");
$c = bg("INSERT INTO h5 VALUES (500)");
my $d = bg("INSERT INTO h5 VALUES (501)");
wait_for_waiters('h5', 3);
release_key($k);
$_->[0]->finish for ($a, $b, $c, $d);
my @errs = grep { ${ $_->[2] } =~ /duplicate key value violates unique constraint "h5_k"/ } ($b, $c);
is(scalar(@errs), 1, 'exactly one of the two same-key waiters got the unique violation');
is(${ $d->[2] }, '', 'the other waiter succeeded');
ok(counter('batched_inserts') >= 2, 'the holder inserted the first same-key tuple and the other key');
ok(counter('batch_skips') >= 1, 'the second same-key tuple was handed back');
ok(counter('batch_refused_other') >= 1, 'refused for its waiter to judge the equal key');
is($node->safe_psql('postgres', 'SELECT count(*) FROM h5 WHERE k = 500'), '1', 'key 500 once');
is(entries('h5_k', '(500)'), '1', 'one index entry for key 500');
is($node->safe_psql('postgres', "SELECT blink_check('h5_k', true)"), '', 'blink_check');

# --- Runs: a statement buffer's flush (a multi-row INSERT into a
#     non-unique index) that finds its leaf held publishes the whole run
#     for the holder, which takes the prefix below its high key that fits.
#     (Runs come only from statement buffers, which unique indexes never
#     use: two runs cannot carry the same unique key; same-key single
#     tuples are case 5.)

# --- 6. a run taken whole, with a single tuple of another backend
$node->safe_psql('postgres', q(
CREATE TABLE r6 (k bigint);
CREATE INDEX r6_k ON r6 USING blink (k);
INSERT INTO r6 SELECT generate_series(1, 100);
SELECT blinkam_reset_stats();
));
($a, $k) = start_holder(149, '', 'r6', "1000");
$b = bg("INSERT INTO r6 SELECT generate_series(1001, 1010)");
$c = bg("INSERT INTO r6 VALUES (1011)");
wait_for_waiters('r6', 2);
release_key($k);
$_->[0]->finish for ($a, $b, $c);
is(${ $b->[2] } . ${ $c->[2] }, '', 'both waiters succeeded');
is(counter('batched_inserts'), '11', "the holder inserted the run's ten tuples and the single one");
is(counter('batched_runs') . counter('batches'), '11', 'one run, in one batch');
is(counter('batch_partial') . counter('batch_skips'), '00', 'nothing handed back');
is($node->safe_psql('postgres', 'SELECT count(*) FROM r6 WHERE k >= 1000'), '12', 'all rows');
is(leaf_items('r6_k', q{count(*)},
	q{btrim(i.key, '()')::bigint BETWEEN 1000 AND 1011}), '12',
	'each entry once');
is($node->safe_psql('postgres', "SELECT blink_check('r6_k', true)"), '', 'blink_check');

# --- 7. a run published for a leaf that then splits.  Forced order
#        (blinkam.debug_pause_at, each session its own advisory key, all
#        held by a control session):
#          x holds the only leaf L (batch_before_claim, key 91);
#          w's flush of 11 13 15 2011 2013 finds L busy and stops before
#            publishing, holding a pin (batch_publish, key 92);
#          x goes; y's 300 rows split L: its high key falls below 2011;
#          z holds L for its own insert (batch_before_claim, key 93);
#          w publishes its run for L and sleeps; z goes on.
#        z takes 11 13 15 and hands 2011 2013 back; w, holding L, moves
#        right and inserts them itself.
$node->safe_psql('postgres', q(
CREATE TABLE r7 (k bigint);
INSERT INTO r7 SELECT 10 * g FROM generate_series(1, 300) g;
CREATE INDEX r7_k ON r7 USING blink (k);
SELECT blinkam_reset_stats();
));
is($node->safe_psql('postgres', "SELECT leaf_pages FROM blink_tree_stats('r7_k')"), '1',
	'r7_k is one leaf');
my ($ctl_in, $ctl_out) = ('', '');
my $ctl = IPC::Run::start(
	[ 'psql', '-X', '-q', '-A', '-t', '-d', $node->connstr('postgres') ],
	'<', \$ctl_in, '>', \$ctl_out);
$ctl_in .= "SELECT pg_advisory_lock(91), pg_advisory_lock(92), pg_advisory_lock(93), 'held';\n";
$ctl->pump until $ctl_out =~ /held/;

sub let_go
{
	my ($key) = @_;
	$ctl_in .= "SELECT pg_advisory_unlock($key), 'let go $key';\n";
	$ctl->pump until $ctl_out =~ /let go $key/;
}

my $x = bg("SET blinkam.debug_pause_at = batch_before_claim; SET blinkam.debug_pause_key = 91; "
	  . "INSERT INTO r7 VALUES (5) /* x */");
paused('/* x */');
my $w = bg("SET blinkam.debug_pause_at = batch_publish; SET blinkam.debug_pause_key = 92; "
	  . "SET blinkam.debug_batch_wait_timeout = '60s'; "
	  . "INSERT INTO r7 VALUES (2013), (11), (2011), (15), (13) /* w */");
paused('/* w */');
let_go(91);
$x->[0]->finish;
is(${ $x->[2] }, '', 'x inserted');
$node->safe_psql('postgres', 'INSERT INTO r7 SELECT 10 * g + 2 FROM generate_series(1, 300) g');
my $hk = $node->safe_psql('postgres',
	"SELECT key FROM blink_page_items('r7_k', 1) WHERE is_highkey");
$hk =~ s/[()]//g;
ok($hk ne '' && $hk > 15 && $hk < 2011, "L split: its high key ($hk) lies inside w's run");
my $z = bg("SET blinkam.debug_pause_at = batch_before_claim; SET blinkam.debug_pause_key = 93; "
	  . "INSERT INTO r7 VALUES (7) /* z */");
paused('/* z */');
let_go(92);
wait_for_waiters('r7', 1);
let_go(93);
$ctl_in .= "\\q\n";
$ctl->finish;
$_->[0]->finish for ($w, $z);
is(${ $w->[2] } . ${ $z->[2] }, '', 'w and z succeeded');
is(counter('batched_runs') . counter('batch_partial'), '11',
	"z took part of w's run and handed the rest back");
is(join(' ', map { counter("batch_refused_$_") } qw(right room other)), '1 0 0',
	"z stopped at the first of w's tuples right of L");
is(counter('batched_inserts'), '3', 'the three tuples below the new high key');
is(counter('batch_lost_wakeups'), '0', 'no missed wake-up');
is($node->safe_psql('postgres', q(
SELECT string_agg(i.key, ' ' ORDER BY btrim(i.key, '()')::bigint)
  FROM blink_page_items('r7_k', 1) i WHERE NOT i.is_highkey AND i.downlink IS NULL AND btrim(i.key, '()')::bigint < 20)),
	'(5) (7) (10) (11) (12) (13) (15)', 'the taken tuples are on L');
is(leaf_items('r7_k', q{count(*)},
	q{i.key IN ('(2011)', '(2013)') AND b > 1}), '2',
	'the handed-back ones once each, right of L');
is($node->safe_psql('postgres', 'SELECT count(*) FROM r7'), '607', 'all rows');
is($node->safe_psql('postgres', "SELECT blink_check('r7_k', true)"), '', 'blink_check');

# --- 7b. the same, with L's right sibling R busy too when w moves right
#         (v holds R: batch_before_claim): w lets L go and publishes the
#         rest of its run for R, whose holder takes it.  (Moving right with
#         coupling, w would wait for R while holding L.)
$node->safe_psql('postgres', q(
CREATE TABLE r7b (k bigint);
INSERT INTO r7b SELECT 10 * g FROM generate_series(1, 300) g;
CREATE INDEX r7b_k ON r7b USING blink (k);
));
my @keys7b = map { hold_key($_) } 95 .. 98;
$x = bg("SET blinkam.debug_pause_at = batch_before_claim; SET blinkam.debug_pause_key = 95; "
	  . "INSERT INTO r7b VALUES (5) /* x7b */");
paused('/* x7b */');
$w = bg("SET blinkam.debug_pause_at = batch_publish; SET blinkam.debug_pause_key = 96; "
	  . "SET blinkam.debug_batch_wait_timeout = '60s'; "
	  . "INSERT INTO r7b VALUES (2013), (11), (2011), (15), (13) /* w7b */");
paused('/* w7b */');
release_key($keys7b[0]);
$x->[0]->finish;
$node->safe_psql('postgres', 'INSERT INTO r7b SELECT 10 * g + 2 FROM generate_series(1, 300) g');
$hk = $node->safe_psql('postgres',
	"SELECT key FROM blink_page_items('r7b_k', 1) WHERE is_highkey");
$hk =~ s/[()]//g;
ok($hk ne '' && $hk > 15 && $hk < 2011, "7b: L split: its high key ($hk) lies inside w's run");
$node->safe_psql('postgres', 'SELECT blinkam_reset_stats()');
is(leaf_items('r7b_k', q{count(DISTINCT b)},
	q{i.key IN ('(2010)', '(2020)')}), '1',
	"7b: 2010 and 2020 share a leaf R, right of L: where w's 2011 and 2013 go");
my $v = bg("SET blinkam.debug_pause_at = batch_before_claim; SET blinkam.debug_pause_key = 98; "
	  . "INSERT INTO r7b VALUES (2014) /* v7b */");
paused('/* v7b */');
$z = bg("SET blinkam.debug_pause_at = batch_before_claim; SET blinkam.debug_pause_key = 97; "
	  . "INSERT INTO r7b VALUES (7) /* z7b */");
paused('/* z7b */');
release_key($keys7b[1]);
wait_for_waiters('r7b', 1);
release_key($keys7b[2]);
# w has moved right (the only move since the reset) and waits for a batch
# again: for R's holder
$node->poll_query_until('postgres', q{
SELECT (SELECT value FROM blinkam_stats() WHERE name = 'moverights') >= 1
   AND EXISTS (SELECT FROM pg_stat_activity WHERE wait_event_type = 'Extension'
				  AND query LIKE '%/* w7b */%')})
  or die 'w did not publish the rest of its run for R';
release_key($keys7b[3]);
$_->[0]->finish for ($w, $z, $v);
is(${ $w->[2] } . ${ $z->[2] } . ${ $v->[2] }, '', '7b: w, z and v succeeded');
is(counter('batched_runs') . counter('batch_partial'), '21',
	"7b: z took part of w's run, v the rest");
is(counter('batched_inserts'), '5', "7b: all of w's run went in through batches");
is(counter('batch_lost_wakeups'), '0', '7b: no missed wake-up');
is(leaf_items('r7b_k', q{count(*)},
	q{i.key IN ('(11)', '(13)', '(15)') AND b = 1}), '3',
	'7b: the tuples z took are on L');
is(leaf_items('r7b_k', q{count(*)},
	q{i.key IN ('(2011)', '(2013)') AND b > 1}), '2',
	'7b: the ones v took once each, right of L');
is($node->safe_psql('postgres', 'SELECT count(*) FROM r7b'), '608', '7b: all rows');
is($node->safe_psql('postgres', "SELECT blink_check('r7b_k', true)"), '', '7b: blink_check');

# --- 7c. a whole run published for a leaf L that has split: L's holder
#         forwards it, still published, to L's right sibling R, whose
#         holder takes it; its owner never takes a page lock.  Forced order:
#           y splits L and stops before the downlink (split_parent, key
#             111), so descents for keys right of L's high key still land
#             on L;
#           v holds R for its own insert (batch_before_claim, key 114);
#           z holds L (batch_before_claim, key 154) while w's flush of
#             5011 5013 lands on L, finds it busy and publishes there;
#           z forwards w's run to R and, having let L go, stops before it
#             looks at R's wait list (batch_forwarded, key 113); then it
#             looks, and wakes w to take R;
#           w lets its pin on L go and stops before pinning R, still
#             published (batch_follow, key 115); meanwhile v takes its run.
$node->safe_psql('postgres', q(
CREATE TABLE r7c (k bigint);
INSERT INTO r7c SELECT 10 * g FROM generate_series(1, 300) g;
CREATE INDEX r7c_k ON r7c USING blink (k);
));
my @keys7c = map { hold_key($_) } 111, 113, 114, 115;
my $y = bg("SET blinkam.debug_pause_at = split_parent; SET blinkam.debug_pause_key = 111; "
	  . "INSERT INTO r7c SELECT 10 * g + 2 FROM generate_series(1, 300) g /* y7c */");
paused('/* y7c */');
my $rblk = $node->safe_psql('postgres', "SELECT right_link FROM blink_page_stats('r7c_k', 1)");
$hk = $node->safe_psql('postgres',
	"SELECT key FROM blink_page_items('r7c_k', 1) WHERE is_highkey");
$hk =~ s/[()]//g;
ok($hk ne '' && $hk > 7 && $hk < 5011 && $rblk > 1,
	"7c: L split into L (high key $hk) and R (block $rblk), no downlink yet");
$node->safe_psql('postgres', 'SELECT blinkam_reset_stats()');
$v = bg("SET blinkam.debug_pause_at = batch_before_claim; SET blinkam.debug_pause_key = 114; "
	  . "INSERT INTO r7c VALUES (5014) /* v7c */");
paused('/* v7c */');
($z, $k) = start_holder(154, "SET blinkam.debug_pause_at = batch_forwarded; "
	  . "SET blinkam.debug_pause_key = 113;", 'r7c', '7 /* z7c */');
$w = bg("SET blinkam.debug_pause_at = batch_follow; SET blinkam.debug_pause_key = 115; "
	  . "SET blinkam.debug_batch_wait_timeout = '60s'; "
	  . "INSERT INTO r7c VALUES (5013), (5011) /* w7c */");
waiting('/* w7c */');
release_key($k);
paused_on(113);
is(counter('batch_forwarded') . counter('batch_skips') . counter('batched_inserts'), '100',
	"7c: z forwarded w's run to R, took none of it, handed nothing back");
release_key($keys7c[1]);
paused('/* w7c */');
release_key($keys7c[2]);
$v->[0]->finish;
$z->[0]->finish;
is(counter('batched_inserts') . counter('batched_runs'), '21',
	"7c: v took w's run while w, published, held no pin");
release_key($keys7c[3]);
$w->[0]->finish;
release_key($keys7c[0]);
$y->[0]->finish;
is(${ $w->[2] } . ${ $z->[2] } . ${ $v->[2] } . ${ $y->[2] }, '', '7c: w, z, v and y succeeded');
is(counter('batch_skips') . counter('batch_partial') . counter('batch_lost_wakeups')
	  . counter('batch_wait_timeouts'), '0000',
	'7c: nothing handed back, no wake-up missed, no waiter left to its timeout');
is(leaf_items('r7c_k', q{count(*) || ' ' || count(DISTINCT b)},
	q{i.key IN ('(5011)', '(5013)', '(5014)')}), '3 1',
	"7c: w's entries once each, on one leaf with v's");
is($node->safe_psql('postgres', 'SELECT count(*) FROM r7c'), '604', '7c: all rows');
is($node->safe_psql('postgres', "SELECT blink_check('r7c_k', true)"), '', '7c: blink_check');

# --- 7d. the same forward, but w is cancelled while it holds no pin, its
#         run still published for R (batch_follow): it withdraws before
#         the error leaves, and R's holder finds nothing to take.  z holds
#         L (batch_before_claim, key 122) until w has published there.
$node->safe_psql('postgres', q(
CREATE TABLE r7d (k bigint);
INSERT INTO r7d SELECT 10 * g FROM generate_series(1, 300) g;
CREATE INDEX r7d_k ON r7d USING blink (k);
));
my @keys7d = map { hold_key($_) } 121, 124, 125;
$y = bg("SET blinkam.debug_pause_at = split_parent; SET blinkam.debug_pause_key = 121; "
	  . "INSERT INTO r7d SELECT 10 * g + 2 FROM generate_series(1, 300) g /* y7d */");
paused('/* y7d */');
$node->safe_psql('postgres', 'SELECT blinkam_reset_stats()');
$v = bg("SET blinkam.debug_pause_at = batch_before_claim; SET blinkam.debug_pause_key = 124; "
	  . "INSERT INTO r7d VALUES (5014) /* v7d */");
paused('/* v7d */');
($z, $k) = start_holder(122, '', 'r7d', '7 /* z7d */');
$w = bg("SET blinkam.debug_pause_at = batch_follow; SET blinkam.debug_pause_key = 125; "
	  . "SET blinkam.debug_batch_wait_timeout = '60s'; "
	  . "INSERT INTO r7d VALUES (5013), (5011) /* w7d */");
waiting('/* w7d */');
release_key($k);
paused('/* w7d */');
$z->[0]->finish;
$node->safe_psql('postgres',
	"SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%/* w7d */%'
	   AND pid <> pg_backend_pid()");
$w->[0]->finish;
like(${ $w->[2] }, qr/canceling statement due to user request/, '7d: w was cancelled');
release_key($keys7d[1]);
$v->[0]->finish;
release_key($keys7d[2]);
release_key($keys7d[0]);
$y->[0]->finish;
is(${ $z->[2] } . ${ $v->[2] } . ${ $y->[2] }, '', '7d: z, v and y succeeded');
is(counter('batch_forwarded') . counter('batched_inserts'), '10',
	"7d: w's run was forwarded, and nobody took it");
is(counter('batch_withdrawals'), '1', '7d: w withdrew it as its error left');
is(leaf_items('r7d_k', q{count(*)}, q{i.key IN ('(5011)', '(5013)')}), '0',
	"7d: none of w's entries is in the index");
is($node->safe_psql('postgres', 'SELECT count(*) FROM r7d'), '602', '7d: rows');
is($node->safe_psql('postgres', "SELECT blink_check('r7d_k', true)"), '', '7d: blink_check');

# --- 7e. the forward of 7c, but R's holder v has room for only the first
#         of w's tuples: it takes that one and defers the other (w's slot
#         is pending again, part of its run in), while w, woken to follow
#         the run to R, holds no pin (batch_follow, key 196).  w is
#         cancelled there: it withdraws its slot and the error leaves --
#         but the entry v put in stays in.  w's flush runs inside a plpgsql
#         block that catches the cancel (a statement-level AFTER trigger
#         of its INSERT, whose query's end flushes the INSERT's entries);
#         the entries belong to the INSERT, which lives on and flushes what
#         is left at its end.  The flush must know that 5011 is in, or it
#         adds it a second time.  Forced order: y splits L and stops before
#         the downlink (split_parent, key 193); R is filled until it has
#         room for two more entries; v holds R (batch_before_claim, key
#         195); z holds L (batch_before_claim, key 197) while w publishes
#         there, then forwards w's run to R and stops before it looks at
#         R's list (batch_forwarded, key 194).
$node->safe_psql('postgres', q(
CREATE TABLE r7e (k bigint);
INSERT INTO r7e SELECT 10 * g FROM generate_series(1, 300) g;
CREATE INDEX r7e_k ON r7e USING blink (k);
CREATE FUNCTION r7e_flush_in_block() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF current_setting('test.flush_in_block', true) = 'on' THEN
		BEGIN
			-- (not a simple expression: it runs in the executor, whose end
			-- flushes the INSERT's entries)
			PERFORM FROM pg_class LIMIT 1;
		EXCEPTION WHEN query_canceled THEN
			RAISE NOTICE 'flush cancelled, caught';
		END;
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER r7e_flush AFTER INSERT ON r7e
	FOR EACH STATEMENT EXECUTE FUNCTION r7e_flush_in_block();
));
my @keys7e = map { hold_key($_) } 193, 194, 195, 196;
$y = bg("SET blinkam.debug_pause_at = split_parent; SET blinkam.debug_pause_key = 193; "
	  . "INSERT INTO r7e SELECT 10 * g + 2 FROM generate_series(1, 300) g /* y7e */");
paused('/* y7e */');
$rblk = $node->safe_psql('postgres', "SELECT right_link FROM blink_page_stats('r7e_k', 1)");
$hk = $node->safe_psql('postgres',
	"SELECT key FROM blink_page_items('r7e_k', 1) WHERE is_highkey");
$hk =~ s/[()]//g;
ok($hk ne '' && $hk > 7 && $hk < 5011 && $rblk > 1,
	"7e: L split into L (high key $hk) and R (block $rblk), no downlink yet");
# an entry takes 20 bytes (16 and its line pointer) and fits while the
# free size is at least 16: leave R 36 to 55 bytes, room for two
my $free = $node->safe_psql('postgres', "SELECT free_size FROM blink_page_stats('r7e_k', $rblk)");
my $fill = int(($free - 36) / 20);
$node->safe_psql('postgres', "INSERT INTO r7e SELECT 4000 + g FROM generate_series(1, $fill) g");
$free = $node->safe_psql('postgres', "SELECT free_size FROM blink_page_stats('r7e_k', $rblk)");
ok($free >= 36 && $free < 56, "7e: R has room for two entries ($free bytes free)");
$node->safe_psql('postgres', 'SELECT blinkam_reset_stats()');
$v = bg("SET blinkam.debug_pause_at = batch_before_claim; SET blinkam.debug_pause_key = 195; "
	  . "INSERT INTO r7e VALUES (5014) /* v7e */");
paused('/* v7e */');
($z, $k) = start_holder(197, "SET blinkam.debug_pause_at = batch_forwarded; "
	  . "SET blinkam.debug_pause_key = 194;", 'r7e', '7 /* z7e */');
$w = bg("SET test.flush_in_block = on; "
	  . "SET blinkam.debug_pause_at = batch_follow; SET blinkam.debug_pause_key = 196; "
	  . "SET blinkam.debug_batch_wait_timeout = '60s'; "
	  . "INSERT INTO r7e VALUES (5013), (5011) /* w7e */");
waiting('/* w7e */');
release_key($k);
paused_on(194);
is(counter('batch_forwarded') . counter('batched_inserts'), '10',
	"7e: z forwarded w's run to R and took none of it");
release_key($keys7e[1]);
paused('/* w7e */');
$z->[0]->finish;
release_key($keys7e[2]);
$v->[0]->finish;
is(counter('batched_inserts') . counter('batch_deferred') . counter('batch_refused_room'), '111',
	"7e: v took w's first entry and deferred the other, while w held no pin");
$node->safe_psql('postgres',
	"SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%/* w7e */%'
	   AND pid <> pg_backend_pid()");
# once the cancel has ended w's pause, let y and w's pause point go: w's
# last flush may have to split R, whose downlink y has not added yet
$node->poll_query_until('postgres', "SELECT count(*) = 0 FROM pg_locks
	WHERE locktype = 'advisory' AND NOT granted AND objid = 196")
  or die 'w is still held at batch_follow';
release_key($keys7e[3]);
release_key($keys7e[0]);
$w->[0]->finish;
$y->[0]->finish;
like(${ $w->[2] }, qr/flush cancelled, caught/, "7e: w's flush was cancelled in the block");
unlike(${ $w->[2] }, qr/ERROR/, '7e: and its INSERT succeeded');
is(${ $z->[2] } . ${ $v->[2] } . ${ $y->[2] }, '', '7e: z, v and y succeeded');
is(counter('batch_withdrawals'), '1', '7e: w withdrew its slot as the error left');
is(leaf_items('r7e_k', q{count(*) || ' ' || count(DISTINCT i.key)},
	q{i.key IN ('(5011)', '(5013)', '(5014)')}), '3 3',
	"7e: w's entries once each: the one v took was not added again");
is($node->safe_psql('postgres', 'SELECT count(*) FROM r7e WHERE k IN (5011, 5013, 5014)'), '3',
	'7e: rows');
is($node->safe_psql('postgres', "SELECT blink_check('r7e_k', true)"), '', '7e: blink_check');

# --- 8. a run that does not all fit: the holder takes what fits and
#        leaves the rest published (deferred); its release wakes the
#        owner, which splits the leaf for the rest
$node->safe_psql('postgres', q(
CREATE TABLE r8 (t text);
CREATE INDEX r8_t ON r8 USING blink (t) WITH (fillfactor = 100);
INSERT INTO r8 SELECT lpad(g::text, 200, '0') FROM generate_series(1, 30) g;
SELECT blinkam_reset_stats();
));
is($node->safe_psql('postgres', "SELECT leaf_pages FROM blink_tree_stats('r8_t')"), '1',
	'one leaf, nearly full');
($a, $k) = start_holder(150, '', 'r8', "lpad('1000', 200, '0')");
$b = bg("INSERT INTO r8 SELECT lpad(g::text, 200, '0') FROM generate_series(2001, 2009) g");
wait_for_waiters('r8', 1);
release_key($k);
$_->[0]->finish for ($a, $b);
is(${ $b->[2] }, '', 'the waiter succeeded');
is(counter('batch_partial'), '1', 'its run was taken in part');
is(join(' ', map { counter("batch_refused_$_") } qw(right room other)), '0 1 0',
	'the holder stopped at the first tuple its leaf had no room for');
my $took = counter('batched_inserts');
ok($took > 0 && $took < 9, "the holder took the $took tuples that fit");
ok(counter('splits') > 0, 'and the waiter split the leaf for the rest');
is(leaf_items('r8_t', q{count(*)},
	q{right(i.key, 5) BETWEEN '2001)' AND '2009)'}), '9',
	'each of the run\'s entries once');
is($node->safe_psql('postgres', 'SELECT count(*) FROM r8'), '40', 'all rows');
is($node->safe_psql('postgres', "SELECT blink_check('r8_t', true)"), '', 'blink_check');

# --- 8b. the same, with the owner cancelled while the holder has its run
#         claimed (batch_checked, key 131): the claim cannot be withdrawn;
#         the holder takes the part that fits and defers the rest, and the
#         owner, cancelled or not, must count that part as in -- none of
#         its entries may go in twice.  (The holder is held before its
#         claim, key 155, until the run is published.)
$node->safe_psql('postgres', q(
CREATE TABLE r8b (t text);
CREATE INDEX r8b_t ON r8b USING blink (t) WITH (fillfactor = 100);
INSERT INTO r8b SELECT lpad(g::text, 200, '0') FROM generate_series(1, 30) g;
SELECT blinkam_reset_stats();
));
my $k131 = hold_key(131);
($a, $k) = start_holder(155, "SET blinkam.debug_pause_at = batch_checked; "
	  . "SET blinkam.debug_pause_key = 131;", 'r8b', "lpad('1000', 200, '0')");
$b = bg("SET blinkam.debug_batch_wait_timeout = '60s'; "
	  . "INSERT INTO r8b SELECT lpad(g::text, 200, '0') FROM generate_series(2001, 2009) g /* w8b */");
waiting('/* w8b */');
release_key($k);
paused_on(131);
$node->safe_psql('postgres',
	"SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%/* w8b */%'
	   AND pid <> pg_backend_pid()");
release_key($k131);
$_->[0]->finish for ($a, $b);
is(${ $a->[2] }, '', '8b: the holder succeeded');
ok(counter('batched_inserts') > 0 && counter('batch_deferred') > 0,
	"8b: it took part of the cancelled owner's run and deferred the rest");
my $rows8b = $node->safe_psql('postgres',
	q{SELECT count(*) FROM r8b WHERE right(t, 4) BETWEEN '2001' AND '2009'});
my $entries8b = leaf_items('r8b_t', q{count(*) || ' ' || count(DISTINCT i.key)},
	q{right(i.key, 5) BETWEEN '2001)' AND '2009)'});
if (${ $b->[2] } =~ /canceling statement due to user request/)
{
	is($rows8b, '0', '8b: cancelled: none of its rows');
	my ($n, $d) = split / /, $entries8b;
	is($n, $d, "8b: cancelled: each of its entries at most once ($n)");
}
else
{
	is(${ $b->[2] }, '', '8b: or it finished before the cancel was seen');
	is("$rows8b $entries8b", '9 9 9', '8b: then all rows, each entry once');
}
is($node->safe_psql('postgres', "SELECT blink_check('r8b_t', true)"), '', '8b: blink_check');

# --- 9. a waiter cancelled while its run is published: none of it goes
#        in (as in 2, it times out and returns before the holder goes on)
$node->safe_psql('postgres', 'SELECT blinkam_reset_stats()');
($a, $k) = start_holder(151, '', 'r6', "3000");
$b = bg("SET statement_timeout = '2s'; INSERT INTO r6 SELECT generate_series(3001, 3010)");
$c = bg("INSERT INTO r6 SELECT generate_series(3011, 3020)");
wait_for_waiters('r6', 2);
$b->[0]->finish;
like(${ $b->[2] }, qr/canceling statement due to statement timeout/,
	'the published waiter was cancelled');
release_key($k);
$_->[0]->finish for ($a, $c);
is(${ $c->[2] }, '', 'the other waiter succeeded');
is(counter('batch_withdrawals'), '1', 'the cancelled waiter withdrew its published run');
is(counter('batched_inserts') . ' ' . counter('batched_runs'), '10 1',
	"only the other waiter's run was batched");
is(leaf_items('r6_k', q{count(*)},
	q{btrim(i.key, '()')::bigint BETWEEN 3001 AND 3010}), '0',
	"none of the cancelled run's tuples is in the index");
is($node->safe_psql('postgres', 'SELECT count(*) FROM r6 WHERE k BETWEEN 3000 AND 3020'), '11', 'rows');
is($node->safe_psql('postgres', "SELECT blink_check('r6_k', true)"), '', 'blink_check');

# --- 10. the holder errors out after claiming two runs: both are handed
#         back whole, and their owners insert them
$node->safe_psql('postgres', 'SELECT blinkam_reset_stats()');
($a, $k) = start_holder(152, "SET blinkam.debug_stop_at = in_batch;", 'r6', "4000");
$b = bg("SET blinkam.debug_batch_wait_timeout = '60s'; INSERT INTO r6 SELECT generate_series(4001, 4010)");
$c = bg("SET blinkam.debug_batch_wait_timeout = '60s'; INSERT INTO r6 SELECT generate_series(4011, 4020)");
wait_for_waiters('r6', 2);
release_key($k);
$_->[0]->finish for ($a, $b, $c);
like(${ $a->[2] }, qr/stopping at in_batch/, 'the holder failed mid-batch');
is(${ $b->[2] } . ${ $c->[2] }, '', 'both waiters still succeeded');
is(counter('batch_skips'), '2', 'both runs were handed back whole');
is(counter('batched_inserts') . counter('batch_lost_wakeups'), '00',
	'nothing inserted by the failed holder, no missed wake-up');
is(leaf_items('r6_k', q{count(*), count(DISTINCT i.key)},
	q{btrim(i.key, '()')::bigint BETWEEN 4000 AND 4020}), '20|20',
	"the runs' entries once each, the holder's not at all");
is($node->safe_psql('postgres', 'SELECT count(*) FROM r6 WHERE k BETWEEN 4000 AND 4020'), '20', 'rows');
is($node->safe_psql('postgres', "SELECT blink_check('r6_k', true)"), '', 'blink_check');

# --- 11. rounds (blinkam.batch_rounds): a holder that finds more tuples
#         published for its leaf after its record takes them in a further
#         record before it lets the leaf go.  It is held between its
#         rounds (debug_pause_at = batch_round), the leaf still locked:
#         the waiter of its first record has already returned (woken
#         before the pause, it never needs the leaf; its last resort is
#         10 min), and a waiter that publishes meanwhile is served by the
#         second record, never taking the leaf.  The first waiter
#         publishes while the holder is held before its first claim (key
#         156).
$node->safe_psql('postgres', 'SELECT blinkam_reset_stats()');
$k78 = hold_key(78);
($a, $k) = start_holder(156, "SET blinkam.batch_rounds = 4; "
	  . "SET blinkam.debug_pause_at = batch_round; SET blinkam.debug_pause_key = 78;",
	'h1', 5000);
$b = bg("SET blinkam.debug_batch_wait_timeout = '10min'; INSERT INTO h1 VALUES (5001)");
wait_for_waiters('h1', 1);
release_key($k);
paused_on(78);
ok($node->poll_query_until('postgres',
		"SELECT count(*) = 0 FROM pg_stat_activity WHERE query LIKE '%VALUES (5001)%'
		   AND state = 'active' AND pid <> pg_backend_pid()"),
	"the first record's waiter returned while its holder still holds the leaf");
$b->[0]->finish;
is(${ $b->[2] }, '', 'it succeeded');
$c = bg("SET blinkam.debug_batch_wait_timeout = '10min'; INSERT INTO h1 VALUES (5002)");
wait_for_waiters('h1', 1);
release_key($k78);
$_->[0]->finish for ($a, $c);
is(${ $a->[2] } . ${ $c->[2] }, '', 'the holder and the second waiter succeeded');
is(counter('batched_inserts') . ' ' . counter('batches') . ' ' . counter('batch_rounds'),
	'2 2 1', "both waiters' tuples went in by the holder, in two records, one a further round");
is(counter('batch_wait_timeouts') . counter('batch_lost_wakeups'), '00', 'no waiter was left to its timeout');
is(entries('h1_k', '(5001)') . entries('h1_k', '(5002)'), '11', 'each entry once');
is($node->safe_psql('postgres', 'SELECT count(*) FROM h1 WHERE k BETWEEN 5000 AND 5002'), '3', 'rows');
is($node->safe_psql('postgres', "SELECT blink_check('h1_k', true)"), '', 'blink_check');

# --- 11b. the holder fails in its further round (debug_stop_at =
#          in_round): the tuples of that round are handed back and their
#          owner inserts them; the first record's waiter stays in
$node->safe_psql('postgres', 'SELECT blinkam_reset_stats()');
$k78 = hold_key(78);
($a, $k) = start_holder(157, "SET blinkam.batch_rounds = 4; "
	  . "SET blinkam.debug_pause_at = batch_round; SET blinkam.debug_pause_key = 78; "
	  . "SET blinkam.debug_stop_at = in_round;",
	'h1', 5100);
$b = bg("SET blinkam.debug_batch_wait_timeout = '10min'; INSERT INTO h1 VALUES (5101)");
wait_for_waiters('h1', 1);
release_key($k);
paused_on(78);
$c = bg("SET blinkam.debug_batch_wait_timeout = '10min'; INSERT INTO h1 VALUES (5102)");
waiting('VALUES (5102)');
release_key($k78);
$_->[0]->finish for ($a, $b, $c);
like(${ $a->[2] }, qr/stopping at in_round/, 'the holder failed in its further round');
is(${ $b->[2] } . ${ $c->[2] }, '', 'both waiters succeeded');
is(counter('batched_inserts') . ' ' . counter('batch_rounds') . ' ' . counter('batch_skips'),
	'1 0 1', 'the first waiter went in by the holder; the second was handed back');
is(counter('batch_wait_timeouts') . counter('batch_lost_wakeups'), '00', 'the failed holder woke it');
is(entries('h1_k', '(5101)') . entries('h1_k', '(5102)'), '11', 'each entry once');
is($node->safe_psql('postgres', 'SELECT string_agg(k::text, \' \' ORDER BY k) FROM h1 WHERE k BETWEEN 5100 AND 5102'),
	'5101 5102', "the waiters' rows, not the failed holder's");
is($node->safe_psql('postgres', "SELECT blink_check('h1_k', true)"), '', 'blink_check');

# --- 12. a share holder that lets the leaf go without a look at the wait
#         list, as PostgreSQL does after writing a page out (stood in for
#         by blink_page_items, paused at page_items_locked): the waiter
#         that meets it must not sleep until woken, nobody would wake it.
#         It sleeps briefly and tries again while the page is held in
#         share mode, and inserts once it is let go.  Its last-resort
#         timeout is raised to 10 minutes: a sleep to it would show.
$node->safe_psql('postgres', q(
CREATE TABLE h12 (k bigint);
CREATE INDEX h12_k ON h12 USING blink (k);
INSERT INTO h12 SELECT generate_series(1, 10);
SELECT blinkam_reset_stats();
));
my $root12 = $node->safe_psql('postgres', "SELECT root FROM blink_metap('h12_k')");
my $k79 = hold_key(79);
$a = bg("SET blinkam.debug_pause_at = page_items_locked; SET blinkam.debug_pause_key = 79; "
	  . "SELECT count(*) FROM blink_page_items('h12_k', $root12) /* share holder */");
paused('share holder');
$b = bg("SET blinkam.debug_batch_wait_timeout = '10min'; INSERT INTO h12 VALUES (11)");
waiting('VALUES (11)');
$node->poll_query_until('postgres',
	"SELECT value >= 3 FROM blinkam_stats() WHERE name = 'batch_share_waits'")
  or die 'the waiter does not retry';
release_key($k79);
$_->[0]->finish for ($a, $b);
is(${ $a->[2] } . ${ $b->[2] }, '', 'the share holder and the waiter succeeded');
is(counter('batch_wait_timeouts') . counter('batch_lost_wakeups'), '00',
	'the waiter was not left to its timeout');
is($node->safe_psql('postgres', 'SELECT count(*) FROM h12'), '11', 'rows');
is(entries('h12_k', '(11)'), '1', 'its entry once');
is($node->safe_psql('postgres', "SELECT blink_check('h12_k', true)"), '', 'blink_check');

# --- 13. a waiter that sleeps to its timeout and finds the leaf free
#         while another waiter of the leaf has been woken to take it, but
#         has not tried yet (held at batch_woken, key 132, as a backend
#         the scheduler puts aside there would be): not a missed wake-up
#         -- the woken one still comes to the leaf.  batch_lost_wakeups
#         must tell the two apart.  The holder does not batch, so its
#         release wakes the first waiter of the leaf, v: the list is a
#         stack and v published last.  The holder is held
#         (batch_before_claim, key 133) until v has published.
keys_table('h13', 10);
my $k132 = hold_key(132);
($a, $k) = start_holder(133, "SET blinkam.batch_inserts = off;", 'h13', '11');
$b = bg("SET blinkam.debug_batch_wait_timeout = '200ms'; INSERT INTO h13 VALUES (12) /* w13 */");
$node->poll_query_until('postgres',
	"SELECT value >= 1 FROM blinkam_stats() WHERE name = 'batch_wait_timeouts'")
  or die 'w13 does not sleep to its timeout';
$c = bg("SET blinkam.debug_pause_at = batch_woken; SET blinkam.debug_pause_key = 132; "
	  . "SET blinkam.debug_batch_wait_timeout = '60s'; INSERT INTO h13 VALUES (13) /* v13 */");
waiting('/* v13 */');
release_key($k);
paused('/* v13 */');
$_->[0]->finish for ($a, $b);
is(${ $a->[2] } . ${ $b->[2] }, '', '13: the holder and the waiter that timed out succeeded');
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_stat_activity
	  WHERE wait_event = 'advisory' AND query LIKE '%/* v13 */%'"),
	'1', '13: while the woken waiter had not tried the leaf yet');
is(counter('batch_lost_wakeups'), '0', '13: no missed wake-up counted');
release_key($k132);
$c->[0]->finish;
is(${ $c->[2] }, '', '13: the woken waiter succeeded');
is($node->safe_psql('postgres', 'SELECT string_agg(k::text, \' \' ORDER BY k) FROM h13 WHERE k > 10'),
	'11 12 13', '13: rows');
is(entries('h13_k', '(12)') . entries('h13_k', '(13)'), '11', '13: each entry once');
is($node->safe_psql('postgres', "SELECT blink_check('h13_k', true)"), '', '13: blink_check');

# --- 14. a run's equal keys, published as one posting tuple: the holder
#         takes it as one item (14a).  One whose range holds an entry of
#         the leaf with its key (heap TIDs freed by VACUUM and reused: the
#         new rows fill gaps between the old ones) is handed back, and its
#         owner appends its entries as plain items (14b).
$node->safe_psql('postgres', q(
CREATE TABLE r14 (k bigint) WITH (autovacuum_enabled = off);
CREATE INDEX r14_k ON r14 USING blink (k);
INSERT INTO r14 SELECT generate_series(1, 10);
SELECT blinkam_reset_stats();
));
($a, $k) = start_holder(158, '', 'r14', '100');
$b = bg("INSERT INTO r14 SELECT 2000 FROM generate_series(1, 10)");
wait_for_waiters('r14', 1);
release_key($k);
$_->[0]->finish for ($a, $b);
is(${ $a->[2] } . ${ $b->[2] }, '', '14a: the holder and the waiter succeeded');
is(counter('batched_postings') . '/' . counter('batched_inserts') . '/' . counter('batch_skips')
	  . '/' . counter('batched_runs'),
	'1/10/0/1', '14a: the holder took the ten entries, as one posting tuple, a run');
is(leaf_items('r14_k', q{count(*) || '/' || sum(coalesce(cardinality(i.htids), 1))},
	q{i.key = '(2000)'}), '1/10', '14a: one item with ten TIDs');
is($node->safe_psql('postgres', "SELECT blink_check('r14_k', true)"), '', '14a: blink_check');

# every other row of the ten goes (by heap line pointer: the rows lie on
# one heap page, one after the other); VACUUM frees their line pointers
$node->safe_psql('postgres', q{
DELETE FROM r14 WHERE k = 2000 AND (ctid::text::point)[1]::int % 2 = 0;
CREATE TABLE r14_old AS SELECT ctid AS t FROM r14 WHERE k = 2000;
VACUUM r14;
SELECT blinkam_reset_stats();
});
($a, $k) = start_holder(159, '', 'r14', '101');
$b = bg("INSERT INTO r14 SELECT 2000 FROM generate_series(1, 3)");
wait_for_waiters('r14', 1);
release_key($k);
$_->[0]->finish for ($a, $b);
is(${ $a->[2] } . ${ $b->[2] }, '', '14b: the holder and the waiter succeeded');
is($node->safe_psql('postgres', q{
WITH n AS (SELECT ctid AS t FROM r14 WHERE k = 2000 AND ctid NOT IN (SELECT t FROM r14_old))
SELECT count(*) > 0 FROM r14_old o
 WHERE o.t > (SELECT min(t) FROM n) AND o.t < (SELECT max(t) FROM n)}), 't',
	"14b: the new rows' TIDs lie around old ones");
is(counter('batched_postings') . '/' . counter('batched_inserts') . '/'
	  . counter('batch_refused_other') . '/' . counter('batch_skips'),
	'0/0/1/1', '14b: the holder handed the posting tuple back');
is(leaf_items('r14_k', q{count(*) FILTER (WHERE i.htids IS NULL) || '/' || sum(coalesce(cardinality(i.htids), 1))},
	q{i.key = '(2000)'}), '3/8', '14b: its entries went in as three plain items');
is($node->safe_psql('postgres', 'SELECT count(*) FROM r14 WHERE k = 2000'), '8', '14b: rows');
is($node->safe_psql('postgres', "SELECT blink_check('r14_k', true)"), '', '14b: blink_check');

# --- 14c. a posting tuple cut by the leaf's high key: its first entry
#          belongs on the leaf, its last right of it.  The leaf holds no
#          entry with its key (the range test passes); the holder must
#          still hand it back, and its owner inserts the two entries where
#          they belong.  A built index's first leaf (block 1) has for its
#          high key the key h and heap TID (b,o) of the next leaf's first
#          entry.  The rows at (b,o-2), (b,o-1) and (b,o+1) are deleted
#          and vacuumed away; every heap page is full but b (226 rows of
#          36 bytes a page), so the holder's row takes (b,o-2) and the
#          waiter's two rows with key h take (b,o-1) and (b,o+1).
$node->safe_psql('postgres', q{
CREATE TABLE r14c (k bigint) WITH (autovacuum_enabled = off);
INSERT INTO r14c SELECT generate_series(1, 226 * 9);
CREATE INDEX r14c_k ON r14c USING blink (k);
});
my ($h14, $b14, $o14) = split /\|/, $node->safe_psql('postgres', q{
SELECT btrim(key, '()'), (ctid::text::point)[0], (ctid::text::point)[1]
  FROM blink_page_items('r14c_k', 1) WHERE is_highkey});
is($node->safe_psql('postgres', "SELECT string_agg(ctid::text, ' ' ORDER BY k) FROM r14c
	  WHERE k BETWEEN $h14 - 2 AND $h14 + 1"),
	join(' ', map { "($b14," . ($o14 + $_) . ')' } (-2 .. 1)),
	"14c: the rows around the first leaf's high key lie side by side");
$node->safe_psql('postgres', qq{
DELETE FROM r14c WHERE k IN ($h14 - 2, $h14 - 1, $h14 + 1);
VACUUM r14c;
SELECT blinkam_reset_stats();
});
($a, $k) = start_holder(161, '', 'r14c', $h14 - 1);
$b = bg("INSERT INTO r14c SELECT $h14 FROM generate_series(1, 2)");
wait_for_waiters('r14c', 1);
release_key($k);
$_->[0]->finish for ($a, $b);
is(${ $a->[2] } . ${ $b->[2] }, '', '14c: the holder and the waiter succeeded');
is($node->safe_psql('postgres', "SELECT string_agg(ctid::text, ' ' ORDER BY ctid) FROM r14c
	  WHERE k IN ($h14 - 1, $h14)"),
	join(' ', map { "($b14," . ($o14 + $_) . ')' } (-2 .. 1)),
	"14c: the holder's row and the waiter's took the freed TIDs");
is(counter('batched_postings') . '/' . counter('batched_inserts') . '/'
	  . counter('batch_refused_other') . '/' . counter('batch_skips'),
	'0/0/1/1', '14c: the holder handed the posting tuple back');
is(leaf_items('r14c_k', q{count(*) FILTER (WHERE b = 1) || '/' || count(*) || '/' || count(i.htids)},
	qq{i.key = '($h14)'}), '1/3/0',
	'14c: its entries, plain: one on the first leaf, the other right of it');
is($node->safe_psql('postgres', "SELECT blink_check('r14c_k', true)"), '', '14c: blink_check');

# --- 16. a descent that must move right onto a busy leaf publishes there,
#         as an insert by a leaf hint does, instead of queueing for its
#         lock.  The root leaf's split is left unfinished (debug_stop_at =
#         after_leaf_split): the root is still its left half, so every
#         descent lands there and moves right.  The holder holds the right
#         half; a waiter for a key there (a new session: no leaf hints)
#         publishes on it and goes in by the holder.
$node->safe_psql('postgres', q{
CREATE TABLE h16 (k int) WITH (autovacuum_enabled = off);
CREATE INDEX h16_k ON h16 USING blink (k) WITH (fillfactor = 100);
INSERT INTO h16 SELECT 2 * g FROM generate_series(1, 300) g;
DO $$
BEGIN
	SET LOCAL blinkam.debug_stop_at = 'after_leaf_split';
	FOR g IN 301..1000 LOOP
		BEGIN
			INSERT INTO h16 VALUES (2 * g);
		EXCEPTION WHEN object_not_in_prerequisite_state THEN
			EXIT;
		END;
	END LOOP;
END $$;
SELECT blinkam_reset_stats();
});
is($node->safe_psql('postgres', q{
SELECT m.root || ' ' || s.incomplete_split FROM blink_metap('h16_k') m, blink_page_stats('h16_k', m.root) s}),
	'1 true', '16: the root leaf split, its downlink not in');
($a, $k) = start_holder(162, '', 'h16', 5000);
$b = bg("INSERT INTO h16 VALUES (5001)");
wait_for_waiters('h16', 1);
release_key($k);
$_->[0]->finish for ($a, $b);
is(${ $a->[2] } . ${ $b->[2] }, '', '16: the holder and the waiter succeeded');
is(counter('moverights') . '/' . counter('batched_inserts') . '/' . counter('batch_skips'),
	'2/1/0', '16: both moved right; the holder took the waiter\'s entry');
is(entries('h16_k', '(5000)') . entries('h16_k', '(5001)'), '11', '16: each entry once');
is($node->safe_psql('postgres', "SELECT blink_check('h16_k', true)"), '', '16: blink_check');

# --- 17. a holder's wake-up that comes while its waiter is between its last
#         look at its slot and its sleep.  The waiter is held there
#         (batch_sleep_start), polling for its key without touching its
#         latch; the holder, let go, takes its entry and wakes it there.
#         Let go in turn, the waiter's sleep must end at once: its
#         last-resort timeout is raised, so a lost wake-up shows as a 60 s
#         sleep and in batch_wait_timeouts.
keys_table('h17', 100);
$node->safe_psql('postgres', 'SELECT blinkam_reset_stats()');
($a, $k) = start_holder(171, '', 'h17', 7010);
my $wk17 = hold_key(172);
$b = bg("SET blinkam.debug_batch_wait_timeout = '60s'; "
	  . "SET blinkam.debug_pause_at = batch_sleep_start; SET blinkam.debug_pause_key = 172; "
	  . "INSERT INTO h17 VALUES (7011)");
waits_on(7011, 'PgSleep');
release_key($k);
$a->[0]->finish;
is(${ $a->[2] }, '', '17: the holder succeeded');
is(entries('h17_k', '(7011)') . '/' . counter('batched_inserts'), '1/1',
	"17: it took the held waiter's entry");
# (polled: between its sleeps the held waiter reads the lock table, with
# no wait event)
ok($node->poll_query_until('postgres', "SELECT count(*) = 1 FROM pg_stat_activity
	  WHERE wait_event = 'PgSleep' AND query LIKE '%7011%'"),
	'17: the waiter, woken, is still held before its sleep');
release_key($wk17);
$b->[0]->finish;
is(${ $b->[2] }, '', '17: the waiter succeeded');
is(counter('batch_wait_timeouts') . counter('batch_lost_wakeups'), '00',
	'17: its sleep ended at once: the wake-up was not lost');
is(counter('batch_sleeps') . '/' . counter('batch_wakeups'), '1/1', '17: one wait that slept, once');
is($node->safe_psql('postgres', "SELECT count(*) FROM h17 WHERE k IN (7010, 7011)"),
	'2', '17: both rows');
is($node->safe_psql('postgres', "SELECT blink_check('h17_k', true)"), '', '17: blink_check');

# --- 18. a waiter woken to take its leaf (its holder, not batching, let it
#         go) that finds it taken again by an insert that came meanwhile:
#         it counts in batch_woken_busy, waits on, and the new holder
#         takes its entry.  The woken waiter is held at batch_woken (key
#         182) while the new insert takes the leaf and is held there
#         (batch_before_claim, key 183).
keys_table('h18', 10);
my $k182 = hold_key(182);
($a, $k) = start_holder(181, "SET blinkam.batch_inserts = off;", 'h18', '11');
$b = bg("SET blinkam.debug_pause_at = batch_woken; SET blinkam.debug_pause_key = 182; "
	  . "SET blinkam.debug_batch_wait_timeout = '60s'; INSERT INTO h18 VALUES (12) /* v18 */");
waiting('/* v18 */');
release_key($k);
paused('/* v18 */');
$a->[0]->finish;
is(${ $a->[2] }, '', '18: the first holder succeeded');
($c, $k) = start_holder(183, '', 'h18', '13');
release_key($k182);
waiting('/* v18 */');
is(counter('batch_woken_busy'), '1', '18: the woken waiter found the leaf taken');
release_key($k);
$_->[0]->finish for ($b, $c);
is(${ $b->[2] } . ${ $c->[2] }, '', '18: the woken waiter and the new holder succeeded');
is(counter('batched_inserts') . '/' . counter('batch_wait_timeouts') . '/' . counter('batch_lost_wakeups'),
	'1/0/0', "18: the new holder took the woken waiter's entry; no timeout");
# (at least: a latch may also be set for other reasons, such as the end
# of its pause's lock wait)
is(counter('batch_sleeps') . '/' . (counter('batch_wakeups') >= 2 ? 'twice' : counter('batch_wakeups')),
	'1/twice', '18: one wait that slept twice (woken to take the leaf, then by the new holder)');
is($node->safe_psql('postgres', 'SELECT string_agg(k::text, \' \' ORDER BY k) FROM h18 WHERE k > 10'),
	'11 12 13', '18: rows');
is(entries('h18_k', '(12)') . entries('h18_k', '(13)'), '11', '18: each entry once');
is($node->safe_psql('postgres', "SELECT blink_check('h18_k', true)"), '', '18: blink_check');

# --- 19. a statement buffer held to the commit (blinkam.defer_inserts =
#        transaction) publishes its run from the commit's flush.  Cancelled
#        there (pg_cancel_backend: no statement_timeout runs at the commit),
#        the waiter withdraws its run and its transaction rolls back; the
#        other waiter's run is taken.
keys_table('h19', 10);
($a, $k) = start_holder(191, '', 'h19', '11');
$b = bg("SET blinkam.defer_inserts = transaction; SET blinkam.debug_batch_wait_timeout = '60s'; "
	  . "INSERT INTO h19 VALUES (12), (13) /* c19 */");
$c = bg("SET blinkam.defer_inserts = transaction; SET blinkam.debug_batch_wait_timeout = '60s'; "
	  . "INSERT INTO h19 VALUES (14), (15)");
wait_for_waiters('h19', 2);
$node->safe_psql('postgres',
	"SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%/* c19 */%' "
	  . "AND pid <> pg_backend_pid()");
$b->[0]->finish;
like(${ $b->[2] }, qr/canceling statement due to user request/,
	'19: the waiter was cancelled in its commit');
release_key($k);
$_->[0]->finish for ($a, $c);
is(${ $a->[2] } . ${ $c->[2] }, '', '19: the holder and the other waiter succeeded');
is(counter('batch_withdrawals') . '/' . counter('batched_runs'), '1/1',
	'19: the cancelled run was withdrawn, the other taken');
is($node->safe_psql('postgres', 'SELECT string_agg(k::text, \' \' ORDER BY k) FROM h19 WHERE k > 10'),
	'11 14 15', '19: rows (the cancelled transaction rolled back)');
is(entries('h19_k', '(12)') . entries('h19_k', '(13)') . entries('h19_k', '(14)')
	  . entries('h19_k', '(15)'), '0011', '19: entries');
is(counter('batch_wait_timeouts') . '/' . counter('batch_lost_wakeups'), '0/0', '19: no timeout');
is($node->safe_psql('postgres', "SELECT blink_check('h19_k', true)"), '', '19: blink_check');

$node->stop;
done_testing();
