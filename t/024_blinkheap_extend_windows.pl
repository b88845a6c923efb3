# Forced interleavings of extending a blinkheap table ahead
# (_bh_get_insert_page, _bh_extend_ahead; src/README, "Extending ahead").
# An insert that waits for the table's extension lock looks, once it has
# the lock, for a block number in the free space map or the pool, lets the
# lock go and only then claims the page, under its buffer lock.  The
# window between the two is where another insert can take the same page:
# the claim must find that out and go round again.  Two cases hold a
# backend inside it:
#   1. the page came from the map (pools off): another session fills every
#      page the map offers, that one among them;
#   2. the page came from the pool: VACUUM records the pool's zero pages in
#      the map meanwhile, and another session fills them through the map;
#   3. as 1, for an UPDATE whose new row version needs another page (its
#      own page is locked with the one it found, in block order);
#   4. a foreign key check's FOR KEY SHARE lock taken on the row while such
#      an UPDATE is held there: the update must keep it;
#   5. a backend holding a full hot page queued for the extension lock
#      (its free space map record creates the map) behind the held
#      extender: nobody deadlocks.
#   6. an UPDATE that lets its just-added page go to lock its own page
#      first: a new session's first insert, trying the table's last page,
#      fills it meanwhile.
# In both the insert must put its row on a page with room (not fail, not
# overfill the page it found), and the table and its index must check.
#
# The extender is held at heap_extend_locked, inside the extension lock,
# where a pause cannot take a heavyweight lock (PostgreSQL asserts that no
# other one is taken under an extension lock): it polls for the key
# instead, with wait event Extension.  The waiter is held at
# heap_extend_found (the lock let go, the page not yet claimed) on its own
# key.  The workers are off, so no pool refill takes the extension lock or
# adds pages meanwhile.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use BatchCases;

my $node = PostgreSQL::Test::Cluster->new('extend_windows');
$node->init;
$node->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
autovacuum = off
blinkam.enable_workers = off
));
$node->start;
BatchCases::use_node($node);
$node->safe_psql('postgres', 'CREATE EXTENSION blinkam');

# A row of about 1.8 kB (md5 hex digits: nothing to compress, below the
# TOAST threshold), four to a page; $what names its client and its tag.
sub rows
{
	my ($client, $tag, $n) = @_;
	return qq{SELECT $client, '$tag', x, string_agg(md5((x + g)::text), '' ORDER BY g)
  FROM generate_series(1, $n) x, generate_series(1, 55) g GROUP BY x};
}

# The statements that create table $t and its blink index ${t}_x.
sub table_sql
{
	my ($t) = @_;
	return qq{
CREATE TABLE $t (client int NOT NULL, tag text NOT NULL, x int NOT NULL, pad text) USING blinkheap;
CREATE INDEX ${t}_x ON $t USING blink (client, x);
};
}

# An UPDATE of $t (tagged $tag) whose new version of the row x = 2 (now
# x = 102, its pad to match) does not fit on its full page; it returns
# the block the new version went to.
sub move_sql
{
	my ($t, $tag) = @_;
	return qq{UPDATE $t /* $tag */ SET x = 102,
       pad = (SELECT string_agg(md5((102 + g)::text), '' ORDER BY g) FROM generate_series(1, 55) g)
 WHERE x = 2 RETURNING (ctid::text::point)[0]};
}

# Rows per block, for blocks below $limit, as "block:rows" in block order.
sub per_block
{
	my ($table, $limit) = @_;
	return $node->safe_psql('postgres', qq{
SELECT string_agg(b || ':' || n, ' ' ORDER BY b)
  FROM (SELECT (ctid::text::point)[0]::int b, count(*) n FROM $table GROUP BY 1) s
 WHERE b < $limit});
}

sub full_blocks
{
	my ($limit) = @_;
	return join(' ', map { "$_:4" } 0 .. $limit - 1);
}

sub pages
{
	my ($table) = @_;
	return $node->safe_psql('postgres', "SELECT pg_relation_size('$table') / 8192");
}

sub checks
{
	my ($table, $what) = @_;
	is($node->safe_psql('postgres', "SELECT blinkheap_check('$table')"), '',
		"$what: blinkheap_check");
	is($node->safe_psql('postgres', "SELECT blink_check('${table}_x', true)"), '',
		"$what: blink_check");
	is($node->safe_psql('postgres', qq{
SELECT count(*) FROM $table
 WHERE pad IS DISTINCT FROM (SELECT string_agg(md5(($table.x + g)::text), '' ORDER BY g)
                               FROM generate_series(1, 55) g)}),
		'0', "$what: every row is whole");
}

# Start an extender held inside the extension lock (key $k1) and a waiter
# queued for that lock that will be held at heap_extend_found (key $k2):
# by default an insert, else the statement $sql, tagged waiter_$table.  Let
# the extender go and wait until the waiter has found its page.  The
# table has $npages pages before.  Returns the waiter's session.
sub extender_and_waiter
{
	my ($table, $pools, $k1, $k2, $npages, $sql) = @_;
	my $ext;
	my $wait;
	my $ahead = counter('blinkheap_pages_ahead');
	my $ctl1 = hold_key($k1);

	$sql //= "INSERT INTO $table " . rows(2, "waiter_$table", 1)
	  . " RETURNING (ctid::text::point)[0]";
	{
		local $ENV{PGOPTIONS} = "-c blinkam.enable_pools=$pools "
		  . "-c blinkam.debug_pause_at=heap_extend_locked -c blinkam.debug_pause_key=$k1";
		$ext = bg("INSERT INTO $table " . rows(1, "extender_$table", 1)
			  . " RETURNING (ctid::text::point)[0]");
	}
	waits_on("extender_$table", "Extension");
	{
		local $ENV{PGOPTIONS} = "-c blinkam.enable_pools=$pools "
		  . "-c blinkam.debug_pause_at=heap_extend_found -c blinkam.debug_pause_key=$k2";
		$wait = bg($sql);
	}
	waits_on("waiter_$table", 'extend');

	release_key($ctl1);
	$ext->[0]->finish;
	is(${ $ext->[2] }, '', "$table: the extender succeeded");
	is(${ $ext->[1] }, ($npages + 20) . "\n",
		"$table: the extender's own page comes after the 20 it added ahead");
	is(counter('blinkheap_pages_ahead') - $ahead, 20,
		"$table: 20 pages added for the one insert queued");
	paused("waiter_$table");
	return $wait;
}

# Another session inserts $n rows into $table (pools off, so through the
# map): they must fill blocks 0 to $limit - 1, four rows each, without
# the table growing past $pages.
sub fill
{
	my ($table, $what, $n, $limit, $pages) = @_;
	$node->safe_psql('postgres',
		"SET blinkam.enable_pools = off; INSERT INTO $table " . rows(3, "filler_$table", $n));
	is(per_block($table, $limit), full_blocks($limit),
		"$what: the filler filled every page the map offers");
	is(pages($table), $pages, "$what: without extending the table");
}

# Let the held waiter go: it must succeed, its row on block $block.
sub release_waiter
{
	my ($ctl, $wait, $what, $block) = @_;
	release_key($ctl);
	$wait->[0]->finish;
	is(${ $wait->[2] }, '', "$what: the waiter succeeded");
	is(${ $wait->[1] }, "$block\n", "$what: its row is on a new page, not the one it found");
}

# 1. A page from the map, filled before the waiter claims it.
$node->safe_psql('postgres', table_sql('m'));
my $ctl_m = hold_key(302);
my $wait_m = extender_and_waiter('m', 'off', 301, 302, 0);

# The waiter holds a block number among 0-19 (the pages added ahead, all
# in the map) and no lock.  Eighty rows fill those twenty pages.
fill('m', 'map', 80, 20, 21);
release_waiter($ctl_m, $wait_m, 'map', 21);
is($node->safe_psql('postgres', "SELECT count(*) FROM m WHERE tag = 'waiter_m'"), '1',
	'map: its row is there once');
is(per_block('m', 20), full_blocks(20), 'map: no page holds more than it can');
checks('m', 'map');

# 2. A page from the pool, recorded in the map by VACUUM and filled from
# there before the waiter claims it.  A table takes pages from a pool once
# it has as many as a new pool's first refill (twice blinkam.pool_leaf_low,
# 16): 64 rows fill blocks 0-15 first.
$node->safe_psql('postgres', table_sql('p') . q{
SET blinkam.enable_pools = off;
INSERT INTO p } . rows(0, 'old_p', 64));
is(pages('p'), 16, 'pool: 64 rows fill 16 pages');
is($node->safe_psql('postgres', "SELECT count(*) FROM blinkam_pools() WHERE index = 'p'::regclass"),
	'0', 'pool: none yet');
my $ctl_p = hold_key(312);
my $taken = counter('pool_pages_taken');
my $wait_p = extender_and_waiter('p', 'on', 311, 312, 16);
is(counter('pool_pages_taken') - $taken, 1, 'pool: the waiter took its block number from the pool');

# VACUUM records the zero pages -- the waiter's and the 19 still pooled,
# blocks 16-35 -- and the extender's page, 36, in the map; 83 rows fill
# them all.
$node->safe_psql('postgres', 'VACUUM p');
fill('p', 'pool', 83, 37, 37);

# The waiter finds its page full, then the map and the pool offer only
# full pages (the pool's were filled through the map): it extends.
my $misses = counter('pool_misses');
release_waiter($ctl_p, $wait_p, 'pool', 37);
is(counter('pool_misses') - $misses, 1, 'pool: it went through the pooled pages, all full');
is($node->safe_psql('postgres', "SELECT count(*) FROM p WHERE tag = 'waiter_p'"), '1',
	'pool: its row is there once');
is(per_block('p', 37), full_blocks(37), 'pool: no page holds more than it can');
checks('p', 'pool');

# 3. The same window for an UPDATE whose new row version does not fit on
# its page: its own page is locked with the one it found, in block order.
# Page 0 holds four rows; the extender's 20 pages are 1-20.
$node->safe_psql('postgres', table_sql('u') . q{
SET blinkam.enable_pools = off;
INSERT INTO u } . rows(4, 'old_u', 4));
is(pages('u'), 1, 'update: four rows fill the first page');
my $ctl_u = hold_key(322);
my $wait_u = extender_and_waiter('u', 'off', 321, 322, 1, move_sql('u', 'waiter_u'));

fill('u', 'update', 80, 21, 22);
release_waiter($ctl_u, $wait_u, 'update', 22);
is($node->safe_psql('postgres', 'SELECT count(*), sum(x) FROM u WHERE client = 4'), '4|110',
	'update: the row has its new version only');
# (block 0 keeps the old version, no longer visible, of the row updated)
is(per_block('u', 21), '0:3 ' . join(' ', map { "$_:4" } 1 .. 20),
	'update: no page holds more than it can');
checks('u', 'update');

# 4. A FOR KEY SHARE lock taken inside the window of a non-key UPDATE:
# that mode does not conflict with the update's lock, so the locker -- a
# foreign key check of a child row inserted meanwhile -- joins the
# updater's lock-only xmax and does not wait.  The update must keep its
# lock when it writes its final xmax, on both versions: a DELETE of the
# row must then wait for the child's transaction, and fail on the foreign
# key once it commits, leaving no orphan.  (PostgreSQL 15's heap_update
# writes the xmax it computed before the window and drops the lock.)
$node->safe_psql('postgres', table_sql('k') . q{
-- (a foreign key cannot reference a table through a blink index)
CREATE UNIQUE INDEX k_key ON k USING btree (client, x);
CREATE TABLE kc (client int, x int, FOREIGN KEY (client, x) REFERENCES k (client, x));
SET blinkam.enable_pools = off;
INSERT INTO k } . rows(4, 'old_k', 4));
my $ctl_k = hold_key(342);
my $wait_k = extender_and_waiter('k', 'off', 341, 342, 1,
	q{UPDATE k /* waiter_k */ SET tag = 'updated_k' WHERE client = 4 AND x = 2});

my ($child_in, $child_out) = ('', '');
my $child = IPC::Run::start(
	[ 'psql', '-X', '-q', '-A', '-t', '-d', $node->connstr('postgres') ],
	'<', \$child_in, '>', \$child_out, '2>', \$child_out);
$child_in .= "BEGIN; INSERT INTO kc VALUES (4, 2); SELECT 'child inserted';\n";
$child->pump until $child_out =~ /child inserted|ERROR/;
unlike($child_out, qr/ERROR/, 'key share: the child row went in, its check did not wait');

release_key($ctl_k);
$wait_k->[0]->finish;
is(${ $wait_k->[2] }, '', 'key share: the update succeeded');
my $del = bg('DELETE FROM k /* deleter_k */ WHERE client = 4 AND x = 2');
waits_on('deleter_k', 'transactionid');
$child_in .= "COMMIT; SELECT 'child committed';\n";
$child->pump until $child_out =~ /child committed/;
$del->[0]->finish;
like(${ $del->[2] }, qr/violates foreign key constraint/,
	"key share: the DELETE waited for the child's transaction, then failed on the key");
$child_in .= "\\q\n";
$child->finish;
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM kc WHERE NOT EXISTS (SELECT 1 FROM k WHERE k.client = kc.client AND k.x = kc.x)}),
	'0', 'key share: no orphan');
is($node->safe_psql('postgres', "SELECT tag FROM k WHERE client = 4 AND x = 2"), 'updated_k',
	'key share: the row has its new version');
checks('k', 'key share');

# 5. A holder of a page lock queued for the extension lock, behind a
# backend held inside it: a full hot page records its free space while
# still locked, and the free space map's first record creates its fork
# under the table's extension lock.  The extender must finish without
# the hot page (no existing page is locked under the extension lock), and
# so must the hot page's holder and an insert waiting for that page.
$node->safe_psql('postgres', table_sql('h') . q{
SET blinkam.enable_pools = off;
SET blinkam.hot_insert_pages = 1;
INSERT INTO h } . rows(4, 'old_h', 4));
is($node->safe_psql('postgres',
		"SELECT pg_relation_size('h') / 8192, pg_relation_size('h', 'fsm')"),
	'1|0', 'hot: four rows fill the hot page; no free space map yet');
my $ctl_h = hold_key(351);
my ($ext_h, $hot_h, $third_h);
{
	local $ENV{PGOPTIONS} = '-c blinkam.enable_pools=off '
	  . '-c blinkam.debug_pause_at=heap_extend_locked -c blinkam.debug_pause_key=351';
	$ext_h = bg("INSERT INTO h " . rows(1, 'extender_h', 1));
}
waits_on('extender_h', 'Extension');
{
	local $ENV{PGOPTIONS} = '-c blinkam.enable_pools=off -c blinkam.hot_insert_pages=1';
	$hot_h = bg("INSERT INTO h " . rows(2, 'hot_h', 1));
	waits_on('hot_h', 'extend');
	$third_h = bg("INSERT INTO h " . rows(3, 'third_h', 1));
}
$node->poll_query_until('postgres', q{
	SELECT wait_event IS NOT NULL FROM pg_stat_activity
	 WHERE query LIKE '%third_h%' AND pid <> pg_backend_pid()})
  or die 'the third insert does not wait';
release_key($ctl_h);
$_->[0]->finish for ($ext_h, $hot_h, $third_h);
is(${ $ext_h->[2] } . ${ $hot_h->[2] } . ${ $third_h->[2] }, '',
	'hot: the extender, the hot page holder and the insert behind it all succeeded');
is($node->safe_psql('postgres', 'SELECT count(*) FROM h'), '7', 'hot: every row is there');
checks('h', 'hot');

# 6. An UPDATE whose new row version needs a new page extends the table
# and, finding its own page locked by another session (a reader held at
# page_items_locked, in share mode), lets the new page go to lock its own
# page first, in block order.  Meanwhile a new session's first insert
# finds no page in the free space map and tries the table's last page,
# as heap does: that new page.  It initializes it and fills it.  The
# update, having relocked it, must find it full and take another page.
# The update is held inside the extension lock (heap_extend_locked) until
# the reader has its page.
$node->safe_psql('postgres', table_sql('l') . q{
INSERT INTO l } . rows(4, 'old_l', 4));
is(pages('l'), 1, 'relock: four rows fill the first page');
my $ctl_l1 = hold_key(361);
my $ctl_l2 = hold_key(362);
my ($upd_l, $reader_l);
{
	local $ENV{PGOPTIONS} = '-c blinkam.enable_pools=off '
	  . '-c blinkam.debug_pause_at=heap_extend_locked -c blinkam.debug_pause_key=361';
	$upd_l = bg(move_sql('l', 'updater_l'));
}
waits_on('updater_l', 'Extension');
$reader_l = bg('SET blinkam.debug_pause_at = page_items_locked; SET blinkam.debug_pause_key = 362; '
	  . "SELECT count(*) FROM blinkheap_page_items('l', 0) /* reader_l */");
paused('reader_l');
release_key($ctl_l1);
waits_on('updater_l', 'BufferContent');
is(pages('l'), 2, 'relock: the update added a page and waits for its own');
$node->safe_psql('postgres', 'INSERT INTO l ' . rows(5, 'new_l', 4));
is(per_block('l', 2), '0:4 1:4', 'relock: a new session filled the new page, the last one');
release_key($ctl_l2);
$_->[0]->finish for ($reader_l, $upd_l);
is(${ $reader_l->[2] } . ${ $upd_l->[2] }, '', 'relock: the reader and the update succeeded');
is(${ $upd_l->[1] }, "2\n", 'relock: the new version is on a third page');
is($node->safe_psql('postgres', "SELECT count(*), sum(x) FROM l WHERE client = 4"), '4|110',
	'relock: the row has its new version only');
checks('l', 'relock');

$node->safe_psql('postgres', 'VACUUM m; VACUUM p; VACUUM u; VACUUM k; VACUUM h; VACUUM l');
checks('m', 'map, after VACUUM');
checks('p', 'pool, after VACUUM');
checks('u', 'update, after VACUUM');
checks('k', 'key share, after VACUUM');
checks('h', 'hot, after VACUUM');
checks('l', 'relock, after VACUUM');

$node->stop;
done_testing();
