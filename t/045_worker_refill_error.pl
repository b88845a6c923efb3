# A pool refill that fails does not end the worker.  With a full disk,
# each refill failed with "could not extend file", the worker exited, and
# the next take that found the pool low started another at once: hundreds
# of worker exits a minute while the tablespace stayed full.  Now the
# worker logs the error, counts it (pool_refills_failed), puts that refill
# off for ten seconds and goes on.
#
# A full disk without root: the server runs under a file size limit of
# 32 MB (ulimit -f; PostgreSQL ignores SIGXFSZ, so a write past it fails
# with "File too large"), above a WAL segment's 16 MB, and a blinkheap
# table grows until its extension fails.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('refill_error');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'blinkam'
autovacuum = off
blinkam.worker_idle_timeout = '1h'
});

# pg_ctl (and so the server) under the file size limit
my $wrapdir = PostgreSQL::Test::Utils::tempdir;
my ($real) = grep { -x $_ } map { "$_/pg_ctl" } split(/:/, $ENV{PATH});
die 'no pg_ctl in PATH' unless $real;
open(my $fh, '>', "$wrapdir/pg_ctl") or die "could not write $wrapdir/pg_ctl: $!";
print $fh "#!/bin/sh\nulimit -f 32768\nexec '$real' \"\$@\"\n";
close $fh;
chmod 0755, "$wrapdir/pg_ctl";
{
	local $ENV{PATH} = "$wrapdir:$ENV{PATH}";
	$node->start;
}

$node->safe_psql('postgres', q{
CREATE EXTENSION blinkam;
CREATE TABLE t (k int, pad text) USING blinkheap;
ALTER TABLE t ALTER pad SET STORAGE plain;
});

# Grow t until an extension fails (its own or a refill's); then a few
# more inserts, so that takes find the pool low and ask for refills.
my $failed = 0;
for (my $i = 0; $i < 100 && $failed < 3; $i++)
{
	my ($ret, $out, $err) = $node->psql('postgres',
		"INSERT INTO t SELECT g, repeat('x', 1000) FROM generate_series($i * 2000 + 1, $i * 2000 + 2000) g");
	if ($ret != 0)
	{
		like($err, qr/could not extend file .*File too large/,
			'an insert fails on the file size limit') if $failed == 0;
		$failed++;
	}
}
ok($failed > 0, 't reached the file size limit');

ok($node->poll_query_until('postgres',
		"SELECT value > 0 FROM blinkam_stats() WHERE name = 'pool_refills_failed'"),
	'a refill failed and was counted');
like(slurp_file($node->logfile),
	qr/ERROR:  could not extend file .*File too large/,
	'the worker logged its error');
is($node->safe_psql('postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'blinkam worker'"),
	'1', 'the worker is still there');
unlike(slurp_file($node->logfile),
	qr/background worker "blinkam worker[^"]*" \(PID \d+\) exited with exit code 1/,
	'no blinkam worker exited with an error');

# Room again: the table emptied, its rows and checks as they should be.
my $rows = $node->safe_psql('postgres', 'SELECT count(*) FROM t');
ok($rows > 0 && $rows % 2000 == 0, "t holds whole statements' rows ($rows)");
is($node->safe_psql('postgres', "SELECT blinkheap_check('t')"), '', 't checks');
$node->safe_psql('postgres', 'TRUNCATE t');
$node->safe_psql('postgres',
	"INSERT INTO t SELECT g, repeat('y', 1000) FROM generate_series(1, 1000) g");
is($node->safe_psql('postgres', 'SELECT count(*) FROM t'), '1000', 't takes rows again');
is($node->safe_psql('postgres', "SELECT blinkheap_check('t')"), '', 't checks again');

$node->stop;
done_testing();
