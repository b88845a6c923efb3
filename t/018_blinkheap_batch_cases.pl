# Cooperative batch inserts on blinkheap's hot insert page, forced
# interleavings.  A holder held with the page locked, between its own tuple
# and its record (blinkam.debug_pause_also_at = batch_before_claim, its key
# held by the test), lets other inserters find it locked and publish their
# rows; the test lets it go once they wait.  Then:
#   1. it puts them on the page in its record; each waiter's RETURNING ctid
#      names the row it inserted;
#   2. a waiter cancelled while published (statement_timeout) withdraws:
#      its row is nowhere; one cancelled after the holder claimed its row
#      waits for the holder's answer: its row is on the page once, dead;
#   3. a holder that errors out after claiming the waiters' rows hands them
#      back, and the waiters insert them themselves;
#   4. rows that do not fit are handed back, and their owners put them on
#      another page;
#   5. a holder whose session does not batch, or that fails before its
#      record, wakes its waiters (its release, or the abort);
#   6. a page held by something other than an insert (VACUUM's cleanup
#      lock): an insert does not sleep on a batch slot, it waits for the
#      page lock;
#   7. the hot page full: one inserter finds the next page (held there),
#      the others sleep until it has and put their rows on that page, not
#      each on a page of its own;
#   8. the same with that inserter cancelled: the others take the switch
#      over between them;
#   9. an inserter that gives up waiting for the switch (its timeout)
#      puts its row on a page of its own, which the free space map then
#      offers to the next insert without a VACUUM.
#  10. a holder with further rounds (blinkam.batch_rounds) puts what was
#      published while it wrote its record on the page in another record
#      (the first record's waiters have their TIDs meanwhile); one that
#      fails there hands that round back.
#  11. a speculative insertion (ON CONFLICT) holding the hot page serves
#      its waiters, then loses the race for its key: its tuple is killed,
#      the waiters' rows stay.
#  12. a waiter that published after its announced holder left, with
#      the page held by a reader that wakes nobody: it withdraws and
#      waits for the page lock, never sleeping on its slot.
#  13. a waiter woken with a cancel pending, whose slot another insert
#      finished before the waiter's look at it, and the page then held by
#      a reader: it must not take its finished slot back (a reused
#      compare-and-exchange value did, DONE -> WITHDRAWN, and an
#      assertion-enabled server crashed); it is cancelled, its row in
#      once and dead with its transaction.
# The holders of cases 2b, 10 and 10b are then held at a later point too,
# named in blinkam.debug_pause_at on a key of its own.
# Waiters' last-resort timeout is raised to 60 s, so a missed wake-up
# shows as batch_wait_timeouts.  Every case checks the rows' TIDs, the
# table (blinkheap_check) and, where there is one, the blink index.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use BatchCases;

my $node = PostgreSQL::Test::Cluster->new('heapbatch');
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
# every inserter of a table uses its one hot page
blinkam.hot_insert_pages = 1
));
BatchCases::start_node($node);

# A waiter: a one-row insert returning the TID it was given.
sub waiter
{
	my ($table, $value, $sets) = @_;
	$sets //= '';
	return bg("SET blinkam.debug_batch_wait_timeout = '60s'; $sets "
		  . "INSERT INTO $table VALUES ($value) RETURNING ctid");
}

# The first column of the row at a TID a waiter printed.
sub at_tid
{
	my ($table, $w) = @_;
	my $tid = ${ $w->[1] };
	chomp $tid;
	return "no TID" if $tid eq '';
	return $node->safe_psql('postgres', "SELECT k FROM $table WHERE ctid = '$tid'");
}

sub check_table
{
	my ($table, $what) = @_;
	is($node->safe_psql('postgres', "SELECT blinkheap_check('$table')"), '',
		"$what: blinkheap_check");
}

# --- 1. a batch of two waiters, with a blink index on the table
$node->safe_psql('postgres', q(
CREATE TABLE b1 (k int, pad text) USING blinkheap;
CREATE INDEX b1_k ON b1 USING blink (k);
INSERT INTO b1 SELECT g, 'x' FROM generate_series(1, 50) g;
SELECT blinkam_reset_stats();
));
my ($a, $ctl1) = start_holder(71, '', 'b1', "1000, 'h'");
my @w = map { waiter('b1', "$_, 'w'") } 1001, 1002;
wait_for_waiters('b1', 2);
release_key($ctl1);
$_->[0]->finish for ($a, @w);
is(${ $w[0]->[2] } . ${ $w[1]->[2] }, '', 'both waiters succeeded');
is(counter('blinkheap_batched_inserts') . ' ' . counter('blinkheap_batches'), '2 1',
	"the holder put both waiters' rows on its page, in one record");
is(at_tid('b1', $w[0]) . ' ' . at_tid('b1', $w[1]), '1001 1002',
	"each waiter's TID names its own row");
is($node->safe_psql('postgres', q(SELECT count(DISTINCT (ctid::text::point)[0]) FROM b1 WHERE k >= 1000)), '1',
	"the holder's and the waiters' rows are on one page");
is($node->safe_psql('postgres', q(SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT string_agg(k::text, ' ' ORDER BY k) FROM b1 WHERE k >= 1000)), '1000 1001 1002',
	'the index finds the three rows');
is(counter('batch_wait_timeouts'), '0', 'no waiter was left to its timeout');
check_table('b1', 'case 1');
is($node->safe_psql('postgres', "SELECT blink_check('b1_k', true)"), '', 'case 1: blink_check');

# --- 2. a waiter cancelled while published: its statement_timeout ends
#        its wait before the holder is let go
$node->safe_psql('postgres', q(
CREATE TABLE b2 (k int, pad text) USING blinkheap;
INSERT INTO b2 SELECT g, 'x' FROM generate_series(1, 50) g;
SELECT blinkam_reset_stats();
));
($a, my $ctl2) = start_holder(72, '', 'b2', "2000, 'h'");
my $b = bg("SET statement_timeout = '2s'; INSERT INTO b2 VALUES (2001, 'cancelled')");
my $c = waiter('b2', "2002, 'w'");
waiting('cancelled');
waiting('VALUES (2002,');
$b->[0]->finish;
like(${ $b->[2] }, qr/canceling statement due to statement timeout/,
	'the published waiter was cancelled');
release_key($ctl2);
$_->[0]->finish for ($a, $c);
is(${ $c->[2] }, '', 'the other waiter succeeded');
is(counter('blinkheap_batched_inserts'), '1', 'only the remaining waiter was batched');
is(counter('batch_withdrawals'), '1', 'the cancelled waiter withdrew its published row');
is(at_tid('b2', $c), '2002', "its TID names its row");
is($node->safe_psql('postgres', q(SELECT count(*) FROM b2 WHERE k = 2001)), '0',
	"the cancelled waiter's row is nowhere");
is($node->safe_psql('postgres', q(SELECT count(*) FROM b2 WHERE pad = 'cancelled')), '0',
	'not even as a dead tuple a scan could see');
check_table('b2', 'case 2');

# --- 2b. a waiter cancelled after the holder claimed its row: it cannot
#         leave (the holder is copying its tuple), so it waits for the
#         holder's answer and only then takes the cancel -- its row is on
#         the page exactly once, dead with its aborted transaction.  The
#         holder is held at batch_checked, its waiter's row claimed and
#         added to its page copy, its record not yet written (key 77),
#         after it was held before its claim (key 76) until the waiter
#         had published.
$node->safe_psql('postgres', 'SELECT blinkam_reset_stats()');
$ctl2 = hold_key(77);
($a, my $ctl2h) = start_holder(76, "SET blinkam.debug_pause_at = batch_checked; SET blinkam.debug_pause_key = 77;",
	'b2', "2100, 'h'");
$b = waiter('b2', "2101, 'claimed'");
waiting("2101, ''claimed''");
release_key($ctl2h);
paused_on(77);
my $bxid = $node->safe_psql('postgres',
	q(SELECT backend_xid FROM pg_stat_activity WHERE query LIKE '%2101, ''claimed''%'
	   AND pid <> pg_backend_pid()));
isnt($bxid, '', 'the claimed waiter has its xid');
$node->safe_psql('postgres',
	q(SELECT pg_cancel_backend(pid) FROM pg_stat_activity
	   WHERE query LIKE '%2101, ''claimed''%' AND pid <> pg_backend_pid()));
# a waiter that left its claimed slot would be gone by now
sleep(1);
waits_on("2101, ''claimed''", 'Extension');
release_key($ctl2);
$_->[0]->finish for ($a, $b);
is(${ $a->[2] }, '', 'the holder succeeded');
like(${ $b->[2] }, qr/canceling statement due to user request/,
	'the claimed waiter took the cancel once answered');
is(counter('blinkheap_batched_inserts'), '1', "the holder put the waiter's row on its page");
is($node->safe_psql('postgres', qq(
	SELECT count(*) FROM generate_series(0, pg_relation_size('b2') / 8192 - 1) blk,
		LATERAL blinkheap_page_items('b2', blk) WHERE t_xmin = '$bxid')), '1',
	"the waiter's tuple is on the page once");
is($node->safe_psql('postgres', q(SELECT count(*) FROM b2 WHERE k = 2101)), '0',
	'and dead: no scan sees it');
is($node->safe_psql('postgres', q(SELECT count(*) FROM b2 WHERE k = 2100)), '1',
	"the holder's row is there");
is(counter('batch_wait_timeouts') . counter('batch_lost_wakeups'), '00',
	'the holder woke it');
is(counter('batch_withdrawals'), '0', 'a claimed waiter does not withdraw');
check_table('b2', 'case 2b');

# --- 3. the holder errors out after claiming the waiters' rows: while
#        collecting them (in_batch), or when its record fails to be
#        written (batch_record: the claimed waiters would otherwise wait
#        for good)
for my $case ([ 'in_batch', 3000 ], [ 'batch_record', 3300 ])
{
	my ($stop, $base) = @$case;
	my ($w1, $w2) = ($base + 1, $base + 2);
	$node->safe_psql('postgres', 'SELECT blinkam_reset_stats()');
	($a, my $ctl3) = start_holder(73, "SET blinkam.debug_stop_at = $stop;", 'b2', "$base, 'h'");
	@w = map { waiter('b2', "$_, 'w'") } $w1, $w2;
	wait_for_waiters('b2', 2);
	release_key($ctl3);
	$_->[0]->finish for ($a, @w);
	like(${ $a->[2] }, qr/stopping at $stop/, "$stop: the holder failed");
	is(${ $w[0]->[2] } . ${ $w[1]->[2] }, '', "$stop: both waiters still succeeded");
	ok(counter('batch_skips') >= 2, "$stop: their rows were handed back");
	is(counter('blinkheap_batched_inserts'), '0', "$stop: and not put anywhere by the failed holder");
	is($node->safe_psql('postgres',
			"SELECT string_agg(k::text, ' ' ORDER BY k) FROM b2 WHERE k BETWEEN $base AND $base + 9"),
		"$w1 $w2", "$stop: the waiters' rows are there, the holder's is not");
	is(at_tid('b2', $w[0]) . ' ' . at_tid('b2', $w[1]), "$w1 $w2",
		"$stop: each waiter's TID names its row");
	is(counter('batch_wait_timeouts') . counter('batch_lost_wakeups'), '00',
		"$stop: the failed holder woke them");
	check_table('b2', "case 3, $stop");
}

# --- 4. a page with room for some: the rest are handed back and go to
#        another page
$node->safe_psql('postgres', q(
CREATE TABLE b4 (k int, pad text) USING blinkheap;
INSERT INTO b4 VALUES (1, repeat('x', 900)), (2, repeat('x', 900)), (3, repeat('x', 900)),
	(4, repeat('x', 900)), (5, repeat('x', 900));
SELECT blinkam_reset_stats();
));
# (rows of 936 bytes: eight fit on a page)
is($node->safe_psql('postgres', q(SELECT count(*) FROM b4 WHERE ctid < '(1,0)')), '5',
	'five rows on the hot page, room for three more');
($a, my $ctl4) = start_holder(74, '', 'b4', "100, repeat('x', 900)");
@w = map { waiter('b4', "$_, repeat('x', 900)") } 101 .. 106;
wait_for_waiters('b4', 6);
release_key($ctl4);
$_->[0]->finish for ($a, @w);
is(join('', map { ${ $_->[2] } } @w), '', 'every waiter succeeded');
# (the page is full after the holder's record, so a waiter's row on it came
# in that record; the counter also counts batches the handed-back waiters
# may form among themselves on the next page)
is($node->safe_psql('postgres',
		q(SELECT count(*) FROM b4 WHERE ctid < '(1,0)' AND k BETWEEN 101 AND 106)),
	'2', 'the holder took the two rows that fit');
ok(counter('blinkheap_batched_inserts') >= 2, 'they were counted as batched');
ok(counter('batch_skips') >= 4, 'the others were handed back');
is(join(' ', map { at_tid('b4', $w[$_ - 101]) } 101 .. 106), '101 102 103 104 105 106',
	"each waiter's TID names its row, on whichever page");
is($node->safe_psql('postgres', q(SELECT count(*) FROM b4 WHERE ctid < '(1,0)')), '8',
	'the first page is full with eight rows');
is($node->safe_psql('postgres', 'SELECT count(*) FROM b4'), '12', 'all rows');
check_table('b4', 'case 4');

# --- 5. a holder whose session does not batch serves nobody, but its
#        release hands the waiters back awake; the same holder failing
#        before its record: the abort wakes them
for my $fail (0, 1)
{
	$node->safe_psql('postgres', 'SELECT blinkam_reset_stats()');
	my $base = 5000 + 100 * $fail;
	($a, my $ctl5) = start_holder(75, "SET blinkam.batch_inserts = off; "
		  . ($fail ? 'SET blinkam.debug_stop_at = in_batch;' : ''), 'b2', "$base, 'h'");
	@w = map { waiter('b2', ($base + $_) . ", 'w'") } 1, 2;
	wait_for_waiters('b2', 2);
	release_key($ctl5);
	$_->[0]->finish for ($a, @w);
	my $what = $fail ? 'a failing holder that does not batch' : 'a holder that does not batch';
	if ($fail)
	{
		like(${ $a->[2] }, qr/stopping at in_batch/, "$what: it failed");
	}
	else
	{
		is(${ $a->[2] }, '', "$what: it succeeded");
	}
	is(${ $w[0]->[2] } . ${ $w[1]->[2] }, '', "$what: both waiters succeeded");
	is(counter('batch_wait_timeouts') . counter('batch_lost_wakeups'), '00',
		"$what: they were woken");
	is(at_tid('b2', $w[0]) . ' ' . at_tid('b2', $w[1]), ($base + 1) . ' ' . ($base + 2),
		"$what: each waiter's TID names its row");
	is($node->safe_psql('postgres', "SELECT count(*) FROM b2 WHERE k BETWEEN $base AND $base + 2"),
		$fail ? '2' : '3', "$what: the rows");
}
check_table('b2', 'case 5');

# --- 6. a page held by something that will not look at the wait list
#        when it lets it go: blinkheap VACUUM, held with the page's
#        cleanup lock (blinkam.debug_pause_at = heap_vacuum_locked).  An
#        insert that finds the page locked sees no announced holder and
#        waits for the page lock itself (LWLock BufferContent), not on its
#        slot, where only its 60 s timeout would end the wait.
$node->safe_psql('postgres', q(
CREATE TABLE b6 (k int, pad text) USING blinkheap;
INSERT INTO b6 VALUES (1, 'x');
INSERT INTO b6 VALUES (2, 'x');
DELETE FROM b6 WHERE k = 2;
SELECT blinkam_reset_stats();
));
my $ctl = hold_key(79);
{
	local $ENV{PGOPTIONS} = '-c blinkam.debug_pause_at=heap_vacuum_locked -c blinkam.debug_pause_key=79';
	$c = bg("VACUUM b6 /* heap_vacuum_locked */");
}
paused('heap_vacuum_locked');
$b = waiter('b6', "6001, 'w'");
$node->poll_query_until('postgres',
	"SELECT count(*) = 1 FROM pg_stat_activity WHERE wait_event = 'BufferContent'
	   AND query LIKE '%INSERT INTO b6 %'")
  or die 'the insert did not wait for the page lock';
is(counter('batch_sleeps'), '0', 'the insert did not sleep on a batch slot');
release_key($ctl);
$_->[0]->finish for ($b, $c);
is(${ $b->[2] } . ${ $c->[2] }, '', 'insert and VACUUM succeeded');
is(counter('batch_sleeps') . counter('batch_wait_timeouts') . counter('batch_lost_wakeups'), '000',
	'no sleep, no timeout');
is(at_tid('b6', $b), '6001', "the insert's TID names its row");
is($node->safe_psql('postgres', 'SELECT string_agg(k::text, \' \' ORDER BY k) FROM b6'), '1 6001',
	'the rows');
check_table('b6', 'case 6');

# --- 7-9. switching the hot page.  A table whose hot page is full (eight
#          rows of 936 bytes); the inserter that claims the switch to the
#          next page is held at hot_switch_claimed (advisory lock 81).
# A full table: its hot page holds eight rows.  Returns that page's number
# (the first page unless the pool's worker extended the table first).
sub full_table
{
	my ($table) = @_;
	$node->safe_psql('postgres', qq(
CREATE TABLE $table (k int, pad text) USING blinkheap;
INSERT INTO $table SELECT g, repeat('x', 900) FROM generate_series(1, 8) g;
SELECT blinkam_reset_stats();
));
	is($node->safe_psql('postgres',
			"SELECT count(DISTINCT (ctid::text::point)[0]) FROM $table"),
		'1', "$table: eight rows on one page, the hot page, now full");
	return $node->safe_psql('postgres',
		"SELECT min((ctid::text::point)[0])::int FROM $table");
}

# The insert that claims the switch, held there.
sub claimer
{
	my ($table, $value) = @_;
	local $ENV{PGOPTIONS} = '-c blinkam.debug_pause_at=hot_switch_claimed -c blinkam.debug_pause_key=81';
	my $h = bg("INSERT INTO $table VALUES ($value, repeat('x', 900)) RETURNING ctid /* claimer */");
	paused('/* claimer */');
	return $h;
}

sub block_of
{
	my ($w) = @_;
	my $tid = ${ $w->[1] };
	return $tid =~ /^\((\d+),/ ? $1 : "no TID ($tid)";
}

# --- 7. the others sleep until the switch is made, then use that page
my $full = full_table('h7');
my $ctl7 = hold_key(81);
$a = claimer('h7', 700);
@w = map { waiter('h7', "$_, repeat('x', 900)") } 701, 702;
wait_for_waiters('h7', 2);
is(counter('hot_switch_waits'), '2', 'case 7: both inserters sleep for the switch');
is($node->safe_psql('postgres', 'SELECT count(*) FROM h7'), '8',
	'case 7: and have taken no page of their own meanwhile');
release_key($ctl7);
$_->[0]->finish for ($a, @w);
is(${ $a->[2] } . ${ $w[0]->[2] } . ${ $w[1]->[2] }, '', 'case 7: the three inserts succeeded');
is(join(' ', map { at_tid('h7', $_) } $a, @w), '700 701 702', "case 7: each TID names its row");
is(block_of($w[0]) . ' ' . block_of($w[1]), block_of($a) . ' ' . block_of($a),
	"case 7: the waiters' rows are on the claimer's new page");
isnt(block_of($a), $full, 'case 7: the next page');
is(counter('batch_wait_timeouts') . counter('batch_lost_wakeups'), '00',
	'case 7: the end of the switch woke them');
check_table('h7', 'case 7');

# --- 8. the inserter that claimed the switch is cancelled: its abort ends
#        the claim and wakes the others, one of which makes the switch
$full = full_table('h8');
my $ctl8 = hold_key(81);
$a = claimer('h8', 800);
@w = map { waiter('h8', "$_, repeat('x', 900)") } 801, 802;
wait_for_waiters('h8', 2);
$node->safe_psql('postgres',
	q(SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%/* claimer */%'
	    AND pid <> pg_backend_pid()));
$_->[0]->finish for (@w);
release_key($ctl8);
$a->[0]->finish;
like(${ $a->[2] }, qr/canceling statement/, 'case 8: the claimer was cancelled');
is(${ $w[0]->[2] } . ${ $w[1]->[2] }, '', 'case 8: both waiting inserts succeeded');
is(join(' ', map { at_tid('h8', $_) } @w), '801 802', "case 8: each TID names its row");
is(block_of($w[0]), block_of($w[1]), 'case 8: on one page');
is(counter('batch_wait_timeouts') . counter('batch_lost_wakeups'), '00',
	"case 8: the claimer's abort woke them");
is($node->safe_psql('postgres', 'SELECT string_agg(k::text, \' \' ORDER BY k) FROM h8 WHERE k > 8'),
	'801 802', "case 8: the rows, the cancelled one's not among them");
check_table('h8', 'case 8');

# --- 9. an insert that gives up waiting (a 1 ms last resort) takes a page
#        of its own and loses the race to make it the hot page; its free
#        space is then visible from the map's root: an insert that looks
#        there (hot pages off, no page of its own yet) finds that page
$full = full_table('h9');
my $ctl9 = hold_key(81);
$a = claimer('h9', 900);
$b = bg("SET blinkam.debug_batch_wait_timeout = 1; "
	  . "INSERT INTO h9 VALUES (901, repeat('x', 900)) RETURNING ctid");
$b->[0]->finish;
is(${ $b->[2] }, '', 'case 9: the insert that gave up succeeded');
is(counter('batch_wait_timeouts'), '1', 'case 9: after its last-resort timeout');
isnt(block_of($b), $full, 'case 9: on a page of its own');
$c = bg("SET blinkam.hot_insert_pages = 0; "
	  . "INSERT INTO h9 VALUES (902, repeat('x', 900)) RETURNING ctid");
$c->[0]->finish;
is(${ $c->[2] }, '', 'case 9: the next insert succeeded');
is(block_of($c), block_of($b), 'case 9: the map gave it the page of the insert that gave up');
release_key($ctl9);
$a->[0]->finish;
is(${ $a->[2] }, '', 'case 9: the claimer succeeded');
is(join(' ', map { at_tid('h9', $_) } $a, $b, $c), '900 901 902', "case 9: each TID names its row");
check_table('h9', 'case 9');

# --- 10. rounds (blinkam.batch_rounds): the holder, held between its
#         records (debug_pause_at = batch_round) with the page still
#         locked: the waiter of its first record has returned already (its
#         last resort is 10 min), and a waiter that publishes meanwhile is
#         put on the page by the second record.  Before its first claim
#         the holder is held (batch_before_claim, key 78; 80 in 10b) until
#         the first waiter has published.
my $round_sets = "SET blinkam.batch_rounds = 4; "
  . "SET blinkam.debug_pause_at = batch_round; SET blinkam.debug_pause_key = 82;";
my $long = "SET blinkam.debug_batch_wait_timeout = '10min';";
$node->safe_psql('postgres', q(
CREATE TABLE b10 (k int, pad text) USING blinkheap;
INSERT INTO b10 SELECT g, 'x' FROM generate_series(1, 50) g;
SELECT blinkam_reset_stats();
));
my $ctl10 = hold_key(82);
($a, my $ctl10h) = start_holder(78, $round_sets, 'b10', "10000, 'h'");
$b = waiter('b10', "10001, 'w'", $long);
wait_for_waiters('b10', 1);
release_key($ctl10h);
paused_on(82);
ok($node->poll_query_until('postgres',
		"SELECT count(*) = 0 FROM pg_stat_activity WHERE query LIKE '%VALUES (10001,%'
		   AND state = 'active' AND pid <> pg_backend_pid()"),
	"case 10: the first record's waiter returned while its holder still holds the page");
$b->[0]->finish;
is(${ $b->[2] }, '', 'case 10: it succeeded');
$c = waiter('b10', "10002, 'w'", $long);
wait_for_waiters('b10', 1);
release_key($ctl10);
$_->[0]->finish for ($a, $c);
is(${ $a->[2] } . ${ $c->[2] }, '', 'case 10: the holder and the second waiter succeeded');
is(counter('blinkheap_batched_inserts') . ' ' . counter('blinkheap_batches') . ' '
	  . counter('batch_rounds'), '2 2 1',
	"case 10: both waiters' rows put on the page by the holder, in two records, one a further round");
# (the page is readable again only now)
is(at_tid('b10', $b) . ' ' . at_tid('b10', $c), '10001 10002', "case 10: each waiter's TID names its row");
is($node->safe_psql('postgres', q(SELECT count(DISTINCT (ctid::text::point)[0]) FROM b10 WHERE k >= 10000)),
	'1', 'case 10: the three rows are on one page');
is(counter('batch_wait_timeouts') . counter('batch_lost_wakeups'), '00',
	'case 10: no waiter was left to its timeout');
check_table('b10', 'case 10');

# --- 10b. the holder fails in its further round (debug_stop_at =
#          in_round): that round's row is handed back and its owner puts
#          it on the page itself; the first record's waiter keeps its row
$node->safe_psql('postgres', 'SELECT blinkam_reset_stats()');
$ctl10 = hold_key(82);
($a, $ctl10h) = start_holder(80, "$round_sets SET blinkam.debug_stop_at = in_round;", 'b10', "10100, 'h'");
$b = waiter('b10', "10101, 'w'", $long);
wait_for_waiters('b10', 1);
release_key($ctl10h);
paused_on(82);
$c = waiter('b10', "10102, 'w'", $long);
waiting('VALUES (10102,');
release_key($ctl10);
$_->[0]->finish for ($a, $b, $c);
like(${ $a->[2] }, qr/stopping at in_round/, 'case 10b: the holder failed in its further round');
is(${ $b->[2] } . ${ $c->[2] }, '', 'case 10b: both waiters succeeded');
is(counter('blinkheap_batched_inserts') . ' ' . counter('batch_rounds') . ' ' . counter('batch_skips'),
	'1 0 1', 'case 10b: the first went in by the holder, the second was handed back');
is(at_tid('b10', $b) . ' ' . at_tid('b10', $c), '10101 10102', "case 10b: each waiter's TID names its row");
is($node->safe_psql('postgres', q(SELECT string_agg(k::text, ' ' ORDER BY k) FROM b10 WHERE k >= 10100)),
	'10101 10102', "case 10b: the waiters' rows, not the failed holder's");
is(counter('batch_wait_timeouts') . counter('batch_lost_wakeups'), '00',
	'case 10b: the failed holder woke its waiter');
check_table('b10', 'case 10b');

# --- 11. a speculative insertion (INSERT ... ON CONFLICT) as the holder:
#         it does not publish, but holding the hot page (its session's
#         target page, after a plain insert there) it serves the waiters
#         in its record.  Then it loses the race for its key, and its
#         tuple is killed: a rival insert of the same key, held before its
#         index insertion (insert_start), has its row on the page but no
#         index entry yet, so the holder's check for a conflict finds none;
#         with the holder held (batch_before_claim), the rival inserts its
#         entry and commits, and the holder, let go, meets that entry at
#         its own index insertion.  The waiters' rows, in the same record,
#         must stay, each at the TID its owner was given.
$node->safe_psql('postgres', q(
CREATE TABLE b11 (k int, pad text) USING blinkheap;
CREATE UNIQUE INDEX b11_k ON b11 USING blink (k);
INSERT INTO b11 SELECT g, 'x' FROM generate_series(1, 50) g;
SELECT blinkam_reset_stats();
));
my $ctl11r = hold_key(86);
my $r = bg("SET blinkam.debug_pause_at = insert_start; SET blinkam.debug_pause_key = 86; "
	  . "INSERT INTO b11 VALUES (11007, 'rival') /* rival */");
paused('/* rival */');
my $ctl11 = hold_key(83);
$a = bg("INSERT INTO b11 VALUES (11000, 'warm'); "
	  . "SET blinkam.debug_pause_at = batch_before_claim; SET blinkam.debug_pause_key = 83; "
	  . "INSERT INTO b11 VALUES (11007, 'spec') ON CONFLICT DO NOTHING /* spec holder */");
paused('/* spec holder */');
@w = map { waiter('b11', "$_, 'w'") } 11001, 11002;
wait_for_waiters('b11', 2);
release_key($ctl11r);
$r->[0]->finish;
release_key($ctl11);
$_->[0]->finish for ($a, @w);
is(counter('blinkheap_batched_inserts'), '2', "case 11: the speculative holder put both waiters' rows on its page");
is(${ $a->[2] } . ${ $w[0]->[2] } . ${ $w[1]->[2] }, '', 'case 11: the holder and both waiters succeeded');
is($node->safe_psql('postgres', 'SELECT pad FROM b11 WHERE k = 11007'), 'rival',
	'case 11: the rival kept the key, the speculative insertion did nothing');
is(at_tid('b11', $w[0]) . ' ' . at_tid('b11', $w[1]), '11001 11002', "case 11: each waiter's TID names its row");
my $blk11 = $node->safe_psql('postgres', q(SELECT (ctid::text::point)[0] FROM b11 WHERE k = 11001));
is($node->safe_psql('postgres', qq(
	SELECT count(*) FROM blinkheap_page_items('b11', $blk11) WHERE t_xmin = '0')), '1',
	"case 11: the killed speculative tuple is on the waiters' page");
is($node->safe_psql('postgres', q(SELECT count(*) FROM b11 WHERE k BETWEEN 11000 AND 11009)), '4',
	'case 11: warm, two waiters, rival');
is(counter('batch_wait_timeouts') . counter('batch_lost_wakeups'), '00',
	'case 11: the holder woke its waiters');
check_table('b11', 'case 11');
is($node->safe_psql('postgres', "SELECT blink_check('b11_k', true)"), '', 'case 11: blink_check');
$node->safe_psql('postgres', 'VACUUM b11');
check_table('b11', 'case 11, after VACUUM');
is($node->safe_psql('postgres', "SELECT blink_check('b11_k', true)"), '', 'case 11: blink_check after VACUUM');

# --- 12. the page held by a locker that is not an announced inserter
#         when a waiter has already published: a waiter that saw an
#         announced holder (it is held at batch_publish, after that check)
#         publishes only after that holder is gone and a reader holds the
#         page in share mode (blinkheap_page_items held at
#         page_items_locked), whose release wakes nobody.  It must not
#         sleep on its slot: it finds no announced holder, withdraws and
#         waits for the page lock itself, then inserts its row.
$node->safe_psql('postgres', q(
CREATE TABLE b12 (k int, pad text) USING blinkheap;
INSERT INTO b12 SELECT g, 'x' FROM generate_series(1, 50) g;
SELECT blinkam_reset_stats();
));
my $ctl12w = hold_key(84);
my $ctl12r = hold_key(85);
($a, my $ctl12h) = start_holder(87, '', 'b12', "12000, 'h'");
$b = waiter('b12', "12001, 'pub'",
	'SET blinkam.debug_pause_at = batch_publish; SET blinkam.debug_pause_key = 84;');
paused("12001, ''pub''");
release_key($ctl12h);
$a->[0]->finish;
is(${ $a->[2] }, '', 'case 12: the announced holder finished');
my $blk12 = $node->safe_psql('postgres', q(SELECT (ctid::text::point)[0] FROM b12 WHERE k = 12000));
$c = bg("SET blinkam.debug_pause_at = page_items_locked; SET blinkam.debug_pause_key = 85; "
	  . "SELECT count(*) FROM blinkheap_page_items('b12', $blk12) /* reader */");
paused('/* reader */');
release_key($ctl12w);
waits_on("12001, ''pub''", 'BufferContent');
release_key($ctl12r);
$_->[0]->finish for ($b, $c);
is(${ $b->[2] } . ${ $c->[2] }, '', 'case 12: the waiter and the reader succeeded');
is(at_tid('b12', $b), '12001', "case 12: the waiter's TID names its row");
is(counter('batch_sleeps') . ' ' . counter('batch_wait_timeouts') . ' ' . counter('blinkheap_batched_inserts'),
	'0 0 0', 'case 12: it never slept on its slot and inserted its row itself');
check_table('b12', 'case 12');

# --- 13. a finished slot is not taken back.  H1 (batching off: it
#         claims nobody) holds the page at batch_before_claim; W publishes
#         and sleeps.  H1's release wakes W, held at batch_woken (state
#         read as pending, lock not tried; interrupts held off there, so
#         the cancel below stays pending).  H2, a plain insert, takes the
#         free page, puts W's row in and finishes W's slot.  A reader
#         holds the page in share mode; W's lock attempt fails (counted as
#         batch_woken_busy), its cancel finds the slot finished, and no
#         announced holder remains: the withdrawal it tries next must
#         compare with "pending" afresh.  (The cancel signal is handled by
#         the time the next control session has connected; had it not
#         been, W would go the plain way and the case would not fail.)
$node->safe_psql('postgres', q(
CREATE TABLE b13 (k int, pad text) USING blinkheap;
INSERT INTO b13 SELECT g, 'x' FROM generate_series(1, 50) g;
SELECT blinkam_reset_stats();
));
my $ctl13w = hold_key(94);
my $ctl13r = hold_key(95);
($a, my $ctl13h) = start_holder(93, 'SET blinkam.batch_inserts = off;', 'b13', "13000, 'h1'");
$b = waiter('b13', "13001, 'w'",
	'SET blinkam.debug_pause_at = batch_woken; SET blinkam.debug_pause_key = 94;');
waiting("13001, ''w''");
release_key($ctl13h);
$a->[0]->finish;
is(${ $a->[2] }, '', 'case 13: H1 finished');
paused("13001, ''w''");
$c = bg("INSERT INTO b13 VALUES (13002, 'h2')");
$c->[0]->finish;
is(${ $c->[2] } . ' ' . counter('blinkheap_batched_inserts'), ' 1',
	"case 13: H2 put W's row on the page");
my $blk13 = $node->safe_psql('postgres', q(SELECT (ctid::text::point)[0] FROM b13 WHERE k = 13002));
my $r13 = bg("SET blinkam.debug_pause_at = page_items_locked; SET blinkam.debug_pause_key = 95; "
	  . "SELECT count(*) FROM blinkheap_page_items('b13', $blk13) /* reader */");
paused('/* reader */');
$node->safe_psql('postgres',
	q(SELECT pg_cancel_backend(pid) FROM pg_stat_activity
	   WHERE query LIKE '%13001, ''w''%' AND pid <> pg_backend_pid()));
my $busy13 = counter('batch_woken_busy');
release_key($ctl13w);
$node->poll_query_until('postgres',
	"SELECT value > $busy13 FROM blinkam_stats() WHERE name = 'batch_woken_busy'")
  or die 'case 13: W did not try the page';
release_key($ctl13r);
$_->[0]->finish for ($b, $r13);
like(${ $b->[2] }, qr/canceling statement due to user request/, 'case 13: W was cancelled');
is(${ $r13->[2] }, '', 'case 13: the reader succeeded');
ok(!$node->log_contains('TRAP:|terminated by signal'), 'case 13: no assertion failure, no crash');
is($node->safe_psql('postgres', q(SELECT string_agg(k::text, ' ' ORDER BY k) FROM b13 WHERE k > 12999)),
	'13000 13002', "case 13: W's row is dead with its transaction");
is(counter('batch_withdrawals'), '0', 'case 13: the finished slot was not taken back');
check_table('b13', 'case 13');

$node->stop;
done_testing();
