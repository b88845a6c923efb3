# What VACUUM of a blinkheap table tells the operator, as heap's does:
# autovacuum logs its runs longer than log_autovacuum_min_duration (it
# never logged one), and VACUUM VERBOSE reports the pages it truncated
# (only at DEBUG1 before).  Found by helper-49.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $node = PostgreSQL::Test::Cluster->new('vacuum_log');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'blinkam'
autovacuum_naptime = 1s
log_autovacuum_min_duration = 0
});
$node->start;

$node->safe_psql('postgres', q{
CREATE EXTENSION blinkam;
CREATE TABLE av (id int, pad text) USING blinkheap
	WITH (autovacuum_vacuum_threshold = 0, autovacuum_vacuum_scale_factor = 0);
CREATE INDEX av_id ON av USING blink (id);
CREATE TABLE vv (id int, pad text) USING blinkheap WITH (autovacuum_enabled = off);
CREATE INDEX vv_id ON vv USING blink (id);
INSERT INTO av SELECT g, repeat('x', 100) FROM generate_series(1, 5000) g;
INSERT INTO vv SELECT * FROM av;
DELETE FROM av WHERE id > 100;
DELETE FROM vv WHERE id > 100;
});

my $found = 0;
for (my $i = 0; $i < 10 * $PostgreSQL::Test::Utils::timeout_default; $i++)
{
	$found = slurp_file($node->logfile) =~
	  /LOG:  automatic vacuum of blinkheap table "postgres\.public\.av": removed (\d+) dead tuples/;
	last if $found;
	usleep(100_000);
}
ok($found, 'autovacuum logged its run on the blinkheap table');

my ($ret, $out, $err) = $node->psql('postgres', 'VACUUM (VERBOSE) vv');
is($ret, 0, 'VACUUM VERBOSE ran');
like($err, qr/INFO:  "vv": truncated \d+ to \d+ pages/,
	'VACUUM VERBOSE reports the truncation');
like($err, qr/INFO:  blinkheap "vv": removed 4900 dead tuples/,
	'and what it removed');

is($node->safe_psql('postgres', 'SELECT count(*) FROM av'), '100', 'av keeps its rows');
is($node->safe_psql('postgres',
	"SELECT blinkheap_check('av'), blink_check('av_id', true), blinkheap_check('vv'), blink_check('vv_id', true)"),
	'|||', 'the checks pass');

$node->stop;
done_testing();
