# A frozen row keeps its original xmin (PostgreSQL 9.4 and later freeze by
# a hint bit).  Once more than 2^31 transactions have passed, that xmin
# reads as one in the future, and blinkheap_check reported a healthy old
# table as corrupted ("xmin 7xx is in the future").  Frozen rows are now
# exempt from that test, as they were from the relfrozenxid one.
#
# The xid counter is moved on with pg_resetwal in two steps of 1.1
# billion, each followed by VACUUM FREEZE in every database, so that the
# wraparound limits never stop the server.  After the first step, the
# wraparound failsafe of VACUUM (helper-49: blinkheap had none).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('frozen_check');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'blinkam'
autovacuum = off
vacuum_failsafe_age = 0
});
$node->start;

$node->safe_psql('postgres', q{
CREATE EXTENSION blinkam;
CREATE TABLE f (id int, pad text) USING blinkheap;
CREATE INDEX f_id ON f USING blink (id);
INSERT INTO f SELECT g, 'old' FROM generate_series(1, 100) g;
CREATE TABLE fh AS SELECT * FROM f;
VACUUM FREEZE f;
CREATE TABLE fs (id int) USING blinkheap WITH (autovacuum_enabled = off);
CREATE INDEX fs_id ON fs USING blink (id);
INSERT INTO fs SELECT generate_series(1, 100);
DELETE FROM fs WHERE id > 90;
});
my $xmin = $node->safe_psql('postgres',
	"SELECT DISTINCT t_xmin FROM blinkheap_page_items('f', 0)");
note("the rows' xmin: $xmin");

# Every database frozen, so that datfrozenxid follows the counter.
sub freeze_all
{
	$node->safe_psql('postgres', 'ALTER DATABASE template0 ALLOW_CONNECTIONS true');
	$node->safe_psql($_, 'VACUUM FREEZE') for qw(postgres template1 template0);
	$node->safe_psql('postgres', 'ALTER DATABASE template0 ALLOW_CONNECTIONS false');
}

for my $next (1_100_000_000, 2_200_000_000)
{
	$node->stop;
	# the commit log segment the new counter falls in (32 pages of 8 kB)
	my $seg = sprintf('%s/pg_xact/%04X', $node->data_dir, int($next / 1048576));
	open(my $fh, '>', $seg) or die "could not create $seg: $!";
	binmode $fh;
	print $fh "\0" x (32 * 8192);
	close $fh;
	command_ok([ 'pg_resetwal', '-x', $next, '-D', $node->data_dir ],
		"pg_resetwal -x $next");
	$node->start;

	# The wraparound failsafe (effective from 105% of
	# autovacuum_freeze_max_age, 210 million): with the table's
	# relfrozenxid a billion transactions old, VACUUM only freezes, as
	# heap's does -- no index pass, no truncation -- and says so.
	# (vacuum_failsafe_age = 0 here: after the jump, anti-wraparound
	# autovacuum may come first, so the server log is where to look.)
	if ($next == 1_100_000_000)
	{
		$node->safe_psql('postgres', 'VACUUM fs');
		like(slurp_file($node->logfile),
			qr/WARNING:  bypassing nonessential maintenance of blinkheap table "postgres\.public\.fs" as a failsafe after 0 index scans/,
			'VACUUM of an old blinkheap table triggers the failsafe');
		ok($node->safe_psql('postgres',
				"SELECT age(relfrozenxid) < 1000000 FROM pg_class WHERE relname = 'fs'") eq 't',
			'and still advances relfrozenxid');
		is($node->safe_psql('postgres', 'SELECT count(*) FROM fs'), '90',
			'fs keeps its live rows');
		is($node->safe_psql('postgres',
				"SELECT blinkheap_check('fs'), blink_check('fs_id', true)"),
			'|', 'fs and its index check');
	}
	freeze_all();
}

my $now = $node->safe_psql('postgres', 'SELECT txid_current()');
ok($now - $xmin > 2**31, "more than 2^31 transactions since the rows' xmin ($now)");
is($node->safe_psql('postgres', "SELECT DISTINCT t_xmin FROM blinkheap_page_items('f', 0)"),
	$xmin, 'the frozen rows keep their xmin');
is($node->safe_psql('postgres', 'SELECT count(*), sum(id) FROM f'),
	$node->safe_psql('postgres', 'SELECT count(*), sum(id) FROM fh'),
	'every row is still visible, as in heap');
is($node->safe_psql('postgres', 'SET enable_seqscan = off; SELECT count(*) FROM f WHERE id > 50'),
	'50', 'and found through the index');
is($node->safe_psql('postgres', "SELECT blinkheap_check('f')"), '',
	'blinkheap_check passes');
is($node->safe_psql('postgres', "SELECT blink_check('f_id', true)"), '',
	'blink_check passes');

$node->stop;
done_testing();
