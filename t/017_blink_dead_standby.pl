# Dead entries and a hot standby.
#
# The primary marks entries dead when its scans find their rows dead to
# everyone, and removes them from a full leaf before a split.  "Dead to
# everyone" is judged by the primary's snapshots; a standby query may be
# older (here hot_standby_feedback is off).  So:
#   - standby scans do not skip entries marked dead: an old snapshot on
#     the standby still counts the rows those entries point to;
#   - before the removal reaches the standby, the queries that could still
#     see those rows are cancelled, as nbtree's deletion records do (the
#     heap rows are not pruned here, so nothing else cancels them): a
#     query that went on would miss rows its snapshot sees.
# wal_consistency_checking = 'generic' compares every replayed page with
# the primary's, marks included.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
wal_consistency_checking = 'generic'
autovacuum = off
));
$primary->start;
$primary->backup('backup');

my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'backup', has_streaming => 1);
$standby->append_conf('postgresql.conf', qq(
wal_consistency_checking = 'generic'
hot_standby_feedback = off
max_standby_streaming_delay = 0
));
$standby->start;

# Narrow rows on one mostly empty heap page (never pruned by the way),
# wide index keys: about 15 entries fill the one leaf.
$primary->safe_psql('postgres', q(
CREATE EXTENSION blinkam;
CREATE TABLE s (k int) WITH (autovacuum_enabled = off);
CREATE INDEX s_wide ON s USING blink ((lpad(k::text, 500, '*')));
INSERT INTO s SELECT g FROM generate_series(1, 12) g;
));
$primary->wait_for_catchup($standby);

my $by_index = q(SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) FROM s WHERE lpad(k::text, 500, '*') > '');
my $leaf = q(SELECT s.live_items || '/' || s.dead_items
  FROM blink_metap('s_wide') m, blink_page_stats('s_wide', m.root) s);
sub counter
{
	my ($name) = @_;
	return $primary->safe_psql('postgres',
		"SELECT value FROM blinkam_stats() WHERE name = '$name'");
}

# A standby query with a snapshot from before the delete.
my $old = $standby->background_psql('postgres', on_error_stop => 0);
$old->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
is($old->query_safe($by_index), '12', 'standby: the old snapshot counts 12 rows');

# The primary deletes 8 rows; its next index scan marks their entries.
$primary->safe_psql('postgres', 'DELETE FROM s WHERE k <= 8');
is($primary->safe_psql('postgres', $by_index), '4', 'primary: 4 rows after the delete');
is($primary->safe_psql('postgres', $leaf), '4/8', 'primary: the scan marked 8 entries dead');
$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', $leaf), '4/8', 'standby: the marks were replayed');
is($old->query_safe($by_index), '12',
	'standby: entries marked dead still count for the old snapshot');

# Eight more rows fill the leaf: the marked entries are removed instead of
# a split.
my $deleted0 = counter('entries_deleted');
$primary->safe_psql('postgres', 'INSERT INTO s SELECT g FROM generate_series(13, 20) g');
is(counter('entries_deleted') - $deleted0, 8, 'primary: the 8 dead entries were removed');
is($primary->safe_psql('postgres', $leaf), '12/0', 'primary: one leaf, no split');
$primary->wait_for_catchup($standby);

# The old query was cancelled before the removal was replayed.
# (idle in its transaction, the session is terminated; psql reports it
# on the next query)
my ($answer, $err) = ('', '');
eval { $answer = $old->query($by_index); 1 } or $err = $@;
$err .= $old->{stderr} // '';
like($err, qr/conflict with recovery/,
	'standby: the query that could see the removed rows was cancelled');
isnt($answer, '4', 'standby: the old snapshot never saw the rows go');
eval { $old->quit; };
ok($standby->safe_psql('postgres',
	"SELECT confl_snapshot > 0 FROM pg_stat_database_conflicts WHERE datname = 'postgres'") eq 't',
	'standby: counted as a snapshot conflict');

# A new standby query answers like the primary, and the index is sound.
is($standby->safe_psql('postgres', $by_index), '12', 'standby: 12 rows now');
is($primary->safe_psql('postgres', $by_index), '12', 'primary: 12 rows');
is($standby->safe_psql('postgres', $leaf), '12/0', 'standby: the same leaf');
is($standby->safe_psql('postgres', "SELECT blink_check('s_wide', true)"), '',
	'blink_check on the standby');
is($primary->safe_psql('postgres', "SELECT blink_check('s_wide', true)"), '',
	'blink_check on the primary');

$standby->stop;
$primary->stop;
done_testing();
