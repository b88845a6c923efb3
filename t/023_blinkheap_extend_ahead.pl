# Extending a blinkheap table for the inserts queued behind the extension
# lock (_bh_extend_ahead).  Many clients insert rows of a quarter of a page
# into one table with the page pools off, so every new page comes from
# extending the table: a backend that holds the extension lock while others
# queue for it adds zero pages for them and records them in the free space
# map; the others, once they get the lock, find those pages there instead
# of extending in turn.  Then:
#   - pages were added ahead (the counter), and every row pgbench inserted
#     is there, exactly once, its value its client's;
#   - a later insert finds the zero pages left unused in the map, without
#     a VACUUM: the table does not grow while they last;
#   - blinkheap_check and blink_check pass, before and after VACUUM, and a
#     restart after an immediate stop (zero pages are not WAL-logged) finds
#     the same rows.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('extend_ahead');
$node->init;
$node->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
max_connections = 60
autovacuum = off
));
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION blinkam;
CREATE TABLE e (client int NOT NULL, n int NOT NULL, pad text) USING blinkheap;
CREATE INDEX e_client ON e USING blink (client, n);
CREATE TABLE ledger (client int NOT NULL, n int NOT NULL);
SELECT blinkam_reset_stats();
});

sub counter
{
	my ($name) = @_;
	return $node->safe_psql('postgres',
		"SELECT value FROM blinkam_stats() WHERE name = '$name'");
}

sub pages
{
	return $node->safe_psql('postgres', "SELECT pg_relation_size('e') / 8192");
}

# rows of about 1.8 kB (hex digits of md5s: nothing to compress, and below
# the TOAST threshold): four to a page.  Each transaction writes its row and
# a ledger row.
my $script = $node->basedir . '/extend.sql';
open(my $fh, '>', $script) or die;
print $fh q{\set n random(1, 1000000000)
BEGIN;
INSERT INTO e SELECT :client_id, :n, string_agg(md5((:n + g)::text), '' ORDER BY g) FROM generate_series(1, 55) g;
INSERT INTO ledger VALUES (:client_id, :n);
COMMIT;
};
close $fh;

{
	local $ENV{PGOPTIONS} = '-c blinkam.enable_pools=off';
	$node->command_ok(
		[ 'pgbench', '--no-vacuum', '--client=32', '--jobs=2', '--time=8',
			'--file', $script, '--host', $node->host, '--port', $node->port,
			'postgres' ],
		'32 clients insert with the pools off');
}

my $ahead = counter('blinkheap_pages_ahead');
cmp_ok($ahead, '>', 0, 'backends holding the extension lock added pages for those queued');

is($node->safe_psql('postgres', q{
	SELECT (SELECT count(*) FROM (SELECT client, n FROM e EXCEPT ALL SELECT client, n FROM ledger) a)
	     + (SELECT count(*) FROM (SELECT client, n FROM ledger EXCEPT ALL SELECT client, n FROM e) b)}),
	'0', 'the table holds exactly the ledger\'s rows');
is($node->safe_psql('postgres',
	q{SELECT count(*) FROM e
	   WHERE pad IS DISTINCT FROM (SELECT string_agg(md5((e.n + g)::text), '' ORDER BY g)
	                                 FROM generate_series(1, 55) g)}),
	'0', 'every row is whole');

# Blocks that hold no row: zero pages added ahead and not used yet.
my $used = $node->safe_psql('postgres',
	"SELECT count(DISTINCT (ctid::text::point)[0]) FROM e");
my $unused = pages() - $used;
note("$ahead pages added ahead, $unused of the table's pages unused");

is($node->safe_psql('postgres', "SELECT blinkheap_check('e')"), '', 'blinkheap_check');
is($node->safe_psql('postgres', "SELECT blink_check('e_client', true)"), '', 'blink_check');

# The unused pages are in the map, findable from its root: one backend's
# inserts use them before the table grows.
my $before = pages();
$node->safe_psql('postgres', qq{
SET blinkam.enable_pools = off;
INSERT INTO e SELECT -1, g, string_agg(md5((g + h)::text), '' ORDER BY h)
  FROM generate_series(1, $unused) g, generate_series(1, 55) h GROUP BY g;
});
is(pages(), $before, "$unused more rows went onto free pages, without extending");

$node->safe_psql('postgres', 'VACUUM e');
is($node->safe_psql('postgres', "SELECT blinkheap_check('e')"), '', 'blinkheap_check after VACUUM');
is($node->safe_psql('postgres', "SELECT blink_check('e_client', true)"), '', 'blink_check after VACUUM');

my $rows = $node->safe_psql('postgres', 'SELECT count(*), sum(n) FROM e');
$node->stop('immediate');
$node->start;
is($node->safe_psql('postgres', 'SELECT count(*), sum(n) FROM e'), $rows,
	'after a crash: the same rows');
is($node->safe_psql('postgres', "SELECT blinkheap_check('e')"), '', 'blinkheap_check after the crash');
is($node->safe_psql('postgres', "SELECT blink_check('e_client', true)"), '', 'blink_check after the crash');

$node->stop;
done_testing();
