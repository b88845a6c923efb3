# Without shared_preload_libraries, blinkam refuses to be installed or
# loaded, with a hint that says what to put in postgresql.conf; once
# preloaded, the same command works.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('nopreload');
$node->init;
$node->start;

my ($ret, $stdout, $stderr) =
  $node->psql('postgres', 'CREATE EXTENSION blinkam', extra_params => ['-v', 'VERBOSITY=verbose']);
isnt($ret, 0, 'CREATE EXTENSION fails without preload');
like($stderr, qr/blinkam must be loaded via shared_preload_libraries/,
	'error says why');
like($stderr, qr/HINT:.*shared_preload_libraries = 'blinkam'/,
	'hint says what to add to postgresql.conf');
like($stderr, qr/55000/, 'error has SQLSTATE object_not_in_prerequisite_state');
is($node->safe_psql('postgres',
		"SELECT count(*) FROM pg_extension WHERE extname = 'blinkam'"),
	'0', 'nothing was installed');

($ret, $stdout, $stderr) = $node->psql('postgres', "LOAD 'blinkam'");
isnt($ret, 0, 'LOAD fails without preload');
like($stderr, qr/must be loaded via shared_preload_libraries/, 'LOAD says why');

# The failed loads left the backend and the server healthy.
is($node->safe_psql('postgres', 'SELECT 1'), '1', 'server still answers');

$node->append_conf('postgresql.conf', "shared_preload_libraries = 'blinkam'");
$node->restart;
$node->safe_psql('postgres', 'CREATE EXTENSION blinkam');
is($node->safe_psql('postgres',
		"SELECT count(*) > 0 FROM blinkam_stats()"),
	't', 'with preload the extension installs and reports');
$node->stop;

done_testing();
