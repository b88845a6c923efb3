# A streaming standby replays blink's generic WAL (with
# wal_consistency_checking = 'generic', replay compares every page with
# the primary's image) and answers queries exactly as the primary does,
# after builds, inserts with splits, deletes and VACUUM; blink_check run
# on the standby during replay reports no corruption that is not there.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
wal_consistency_checking = 'generic'
));
$primary->start;
# A slot keeps the WAL the standby still needs, however far it falls
# behind (consistency checking makes every record carry full images).
$primary->safe_psql('postgres',
	"SELECT pg_create_physical_replication_slot('standby_slot')");
$primary->backup('backup');

my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'backup', has_streaming => 1);
$standby->append_conf('postgresql.conf', qq(
wal_consistency_checking = 'generic'
primary_slot_name = 'standby_slot'
));
$standby->start;

$primary->safe_psql('postgres', q(
CREATE EXTENSION blinkam;
CREATE TABLE m (sensor int, ts timestamp, v float8);
INSERT INTO m SELECT i % 100, '2026-01-01'::timestamp + i * interval '1 second', i
  FROM generate_series(1, 20000) i;
CREATE UNIQUE INDEX m_st ON m USING blink (sensor, ts);
CREATE INDEX m_ts ON m USING blink (ts);
CREATE INDEX m_v ON m USING blink (v DESC NULLS LAST);
-- 100 distinct keys: posting tuples, rewritten by inserts and VACUUM
CREATE INDEX m_sensor ON m USING blink (sensor);
));

my @queries = (
	'SELECT count(*), min(ts), max(ts) FROM m WHERE sensor = 42',
	'SELECT ts FROM m ORDER BY ts DESC LIMIT 5',
	'SELECT count(*) FROM m WHERE ts BETWEEN \'2026-01-01 01:00\' AND \'2026-01-01 02:00\'',
	'SELECT v FROM m WHERE v < 100 ORDER BY v DESC LIMIT 3',
	'SELECT count(*) FROM m WHERE sensor IN (1, 2, 3) AND ts > \'2026-01-01 03:00\'',
	'SELECT count(*), sum(v) FROM m WHERE sensor BETWEEN 10 AND 12');

sub compare_answers
{
	my ($round) = @_;
	$primary->wait_for_catchup($standby);
	for my $q (@queries)
	{
		my $sql = "SET enable_seqscan = off; SET enable_bitmapscan = off; $q";
		is($standby->safe_psql('postgres', $sql), $primary->safe_psql('postgres', $sql),
			"round $round: standby answers like the primary: $q");
	}
	for my $idx (qw(m_st m_ts m_v m_sensor))
	{
		is($standby->safe_psql('postgres', "SELECT blink_check('$idx', true)"), '',
			"round $round: blink_check($idx) on the standby");
	}
}

compare_answers('build');
for my $round (1 .. 3)
{
	$primary->safe_psql('postgres', qq(
INSERT INTO m SELECT i % 100, '2026-02-01'::timestamp + ($round * 100000 + i) * interval '1 second', random() * 1000
  FROM generate_series(1, 15000) i;
DELETE FROM m WHERE v::int % 7 = $round;
VACUUM m;
));
	compare_answers($round);
}

# blink_check on the standby while it replays a busy primary: it reads one
# level, then the next, while redo changes them; it must never report
# corruption that is not there (it checks again when replay moved on).
{
	my ($out, $err) = ('', '');
	my $writer = IPC::Run::start(
		[ 'pgbench', '--no-vacuum', '--client=4', '--transactions=400',
		  '-f', "$PostgreSQL::Test::Utils::tmp_check/004_writer.sql",
		  '-d', $primary->connstr('postgres') ],
		'>', \$out, '2>', \$err)
	  if write_file_ok("$PostgreSQL::Test::Utils::tmp_check/004_writer.sql",
		"INSERT INTO m SELECT (random() * 100)::int, clock_timestamp() + i * interval '1 us', random() * 1000 FROM generate_series(1, 50) i;\n");
	my ($passed, $corrupt, $busy) = (0, 0, 0);
	for my $run (1 .. 15)
	{
		for my $idx (qw(m_st m_ts m_v m_sensor))
		{
			my ($ret, $stdout, $stderr) = $standby->psql('postgres',
				"SELECT blink_check('$idx', true)");
			if ($ret == 0) { $passed++; }
			elsif ($stderr =~ /could not check blink index/) { $busy++; }
			else { $corrupt++; diag("blink_check($idx) on the replaying standby: $stderr"); }
		}
	}
	$writer->finish;
	note("blink_check on the replaying standby: $passed passed, $busy gave up");
	is($corrupt, 0, 'blink_check on a replaying standby reports no false corruption');
	ok($passed > 0, 'and it passes while replay goes on');
	compare_answers('after the busy replay');
}

sub write_file_ok
{
	my ($path, $text) = @_;
	open(my $fh, '>', $path) or die "$path: $!";
	print $fh $text;
	close $fh;
	return 1;
}

my $splits = $primary->safe_psql('postgres',
	"SELECT value FROM blinkam_stats() WHERE name = 'splits'");
ok($splits > 50, "the primary split pages ($splits splits)");
my $passes = $primary->safe_psql('postgres',
	"SELECT value FROM blinkam_stats() WHERE name = 'dedup_passes'");
ok($passes > 0, "the primary deduplicated full leaves ($passes passes)");
# the rounds' random v values reach m_v by flushes over neighbouring
# leaves: records of several leaves each (blinkam.flush_leaves), replayed
# and compared page by page like the rest
my $grouped = $primary->safe_psql('postgres',
	"SELECT value FROM blinkam_stats() WHERE name = 'flush_leaves_grouped'");
ok($grouped > 0, "the primary wrote flush records over several leaves ($grouped leaves grouped)");
ok(!$standby->log_contains('inconsistent page found'),
	'no inconsistent page during replay');

$standby->stop;
$primary->stop;
done_testing();
