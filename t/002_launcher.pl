# The blinkam launcher: appears after start, is restarted after it is
# terminated or killed, exits on shutdown, and is absent when
# blinkam.enable_workers is off.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $launcher_pid_sql =
  "SELECT pid FROM pg_stat_activity WHERE backend_type = 'blinkam launcher'";

# Wait until exactly one launcher runs whose pid differs from $old (if
# given); return its pid.  After a kill -9 the server restarts under us: a
# psql that finds it in recovery exits before reading its query, and the
# test framework dies writing to it (a broken pipe) rather than retrying,
# so each try is wrapped and a failed one is simply tried again.
sub wait_for_launcher
{
	my ($node, $old) = @_;
	my $cond = defined $old ? "AND pid <> $old" : '';
	my $sql = "SELECT pid FROM pg_stat_activity
		  WHERE backend_type = 'blinkam launcher' $cond";
	my $deadline = time() + $PostgreSQL::Test::Utils::timeout_default;

	while (time() < $deadline)
	{
		my $pids = eval { $node->safe_psql('postgres', $sql) };
		return $pids if defined $pids && $pids =~ /^\d+$/;
		select(undef, undef, undef, 0.1);
	}
	die 'timed out waiting for the blinkam launcher';
}

my $node = PostgreSQL::Test::Cluster->new('launcher');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'blinkam'");
# The test framework turns crash restarts off; the kill -9 case needs them.
$node->append_conf('postgresql.conf', 'restart_after_crash = on');
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION blinkam');

my $pid = wait_for_launcher($node);
ok($pid > 0, "launcher runs after start (pid $pid)");
is($node->safe_psql('postgres',
		"SELECT backend_type, datname IS NULL, wait_event_type
		   FROM pg_stat_activity WHERE pid = $pid"),
	'blinkam launcher|t|Extension',
	'launcher reports itself, connected to no database, idle on its latch');
is($node->safe_psql('postgres',
		"SELECT value FROM blinkam_stats() WHERE name = 'launcher_starts'"),
	'1', 'launcher_starts counts one start');

# SIGHUP: a reload is handled without the launcher exiting.
$node->reload;
$node->safe_psql('postgres', 'SELECT pg_sleep(0.2)');
is($node->safe_psql('postgres', $launcher_pid_sql), $pid,
	'launcher survives a configuration reload');

# SIGTERM (pg_terminate_backend): it exits and the postmaster restarts it.
$node->safe_psql('postgres', "SELECT pg_terminate_backend($pid)");
my $pid2 = wait_for_launcher($node, $pid);
isnt($pid2, $pid, "launcher restarted after pg_terminate_backend (pid $pid2)");
ok(!kill(0, $pid), 'the terminated launcher process is gone');
is($node->safe_psql('postgres',
		"SELECT value FROM blinkam_stats() WHERE name = 'launcher_starts'"),
	'2', 'launcher_starts counts the restart');
ok($node->log_contains('blinkam launcher shutting down'),
	'terminated launcher logged its exit');

# SIGKILL: the postmaster treats it as a crash, reinitializes shared
# memory and starts a new launcher.
my $log_offset = -s $node->logfile;
kill 'KILL', $pid2;
my $pid3 = wait_for_launcher($node, $pid2);
isnt($pid3, $pid2, "launcher back after kill -9 (pid $pid3)");
ok($node->log_contains('terminated by signal 9', $log_offset),
	'postmaster saw the killed launcher');

# Shutdown: the launcher exits with the server.
$node->stop('fast');
ok(!kill(0, $pid3), 'launcher exited on shutdown');

# blinkam.enable_workers = off: no launcher is registered.
$node->append_conf('postgresql.conf', 'blinkam.enable_workers = off');
$node->start;
# The logical replication launcher is registered after ours and started in
# the same postmaster pass: once it is visible ours would be too.
$node->poll_query_until('postgres',
	"SELECT count(*) = 1 FROM pg_stat_activity
	  WHERE backend_type = 'logical replication launcher'")
  or die 'timed out waiting for the logical replication launcher';
is($node->safe_psql('postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'blinkam launcher'"),
	'0', 'no launcher with blinkam.enable_workers = off');
is($node->safe_psql('postgres',
		"SELECT value FROM blinkam_stats() WHERE name = 'launcher_starts'"),
	'0', 'launcher_starts stays zero');
$node->stop;

done_testing();
