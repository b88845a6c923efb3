# Row locks, foreign keys and MultiXacts beside aggressive VACUUMs, on a
# heap table and its blinkheap mirror.
#
# Parents hp (heap) and bp (blinkheap, a blink unique index), each with
# children hc / bc whose foreign key takes FOR KEY SHARE locks on the
# parent row.  Writers make the same change to both sides in one
# transaction: row locks of every strength (FOR KEY SHARE, FOR SHARE, FOR
# NO KEY UPDATE, FOR UPDATE), also in a subtransaction rolled back; child
# inserts and deletes; parent updates that roll back (beside a key-share
# locker they leave a MultiXact with an aborted updater); parent updates
# that leave the key alone and grow the row until its new version needs
# another page or TOAST rows (the update lets the old page go while it
# finds one or writes them, keeping what lockers it must); updates of a
# second unique column (a key update, which waits for key-share lockers).
# Many clients lock the same rows at once, so MultiXacts form.  Beside
# them VACUUM FREEZE runs with every freeze age at zero, each pass
# advancing relfrozenxid and relminmxid as far as the rows allow.
#
# blinkheap once carried a finished locker's xid, or a rolled-back
# updater's inside a MultiXact, onto an updated row's new version after
# such a VACUUM had set relfrozenxid past it
# (specs/blinkheap_update_window).  At the end: both sides hold the same
# rows, a last VACUUM FREEZE of every table succeeds (it fails on any xid
# or MultiXact older than relfrozenxid / relminmxid), blinkheap_check
# (which compares every tuple's xids with them) and blink_check pass, and
# the log holds no internal error.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use Mirror;

my $node = PostgreSQL::Test::Cluster->new('rowlocks');
$node->init;
$node->append_conf('postgresql.conf', qq(
shared_preload_libraries = 'blinkam'
max_connections = 40
log_line_prefix = '%m [%p] %e '
autovacuum = off
vacuum_freeze_min_age = 0
vacuum_freeze_table_age = 0
vacuum_multixact_freeze_min_age = 0
vacuum_multixact_freeze_table_age = 0
));
$node->start;

my $parents = 60;
$node->safe_psql('postgres', qq{
CREATE EXTENSION blinkam;
CREATE TABLE hp (id int PRIMARY KEY, u int UNIQUE, v int, pad text);
-- a foreign key needs a btree (see the README); u's blink index makes
-- u a key column as hp's unique constraint does
CREATE TABLE bp (id int PRIMARY KEY, u int, v int, pad text) USING blinkheap;
CREATE UNIQUE INDEX bp_u ON bp USING blink (u);
CREATE TABLE hc (id bigserial, parent int REFERENCES hp (id), note text);
CREATE INDEX hc_parent ON hc (parent);
CREATE TABLE bc (id bigint, parent int REFERENCES bp (id), note text) USING blinkheap;
CREATE INDEX bc_parent ON bc USING blink (parent);
-- a long pad goes to the TOAST table uncompressed: an update that makes
-- one writes TOAST rows with the old version let go
ALTER TABLE hp ALTER pad SET STORAGE EXTERNAL;
ALTER TABLE bp ALTER pad SET STORAGE EXTERNAL;
INSERT INTO hp SELECT g, g, 0, 'p' FROM generate_series(1, $parents) g;
INSERT INTO bp SELECT * FROM hp;
});

# %P names the parent, %C the child: hp and hc, then bp and bc.
my %scripts = (
	'keyshare@3' => qq{
\\set id random(1, $parents)
BEGIN;
SELECT 1 FROM %P WHERE id = :id FOR KEY SHARE;
SELECT pg_sleep(0.002);
COMMIT;
},
	'share@2' => qq{
\\set id random(1, $parents)
BEGIN;
SELECT 1 FROM %P WHERE id = :id FOR SHARE;
COMMIT;
},
	'nokeyupd@1' => qq{
\\set id random(1, $parents)
BEGIN;
SELECT 1 FROM %P WHERE id = :id FOR NO KEY UPDATE;
COMMIT;
},
	'forupd@1' => qq{
\\set id random(1, $parents)
BEGIN;
SELECT 1 FROM %P WHERE id = :id FOR UPDATE;
COMMIT;
},
	# a locker that is a subtransaction, rolled back, then one kept
	'sublock@1' => qq{
\\set id random(1, $parents)
BEGIN;
SAVEPOINT s;
SELECT 1 FROM %P WHERE id = :id FOR KEY SHARE;
ROLLBACK TO s;
SAVEPOINT t;
SELECT 1 FROM %P WHERE id = :id FOR SHARE;
RELEASE t;
COMMIT;
},
	# the foreign key check locks the parent FOR KEY SHARE
	'child@3' => qq{
\\set id random(1, $parents)
SELECT nextval('hc_id_seq') AS cid \\gset
BEGIN;
INSERT INTO %C VALUES (:cid, :id, 'c');
COMMIT;
},
	# one snapshot for both deletes: at READ COMMITTED a child inserted
	# between them would be deleted on one side only
	'delchild@1' => qq{
\\set id random(1, $parents)
BEGIN ISOLATION LEVEL REPEATABLE READ;
DELETE FROM %C WHERE parent = :id;
COMMIT;
},
	# the row grows until its new version goes to another page
	'grow@3' => qq{
\\set id random(1, $parents)
BEGIN;
UPDATE %P SET v = v + 1, pad = left(pad || repeat('x', 300), 1500) WHERE id = :id;
COMMIT;
},
	'toast@1' => qq{
\\set id random(1, $parents)
BEGIN;
UPDATE %P SET v = v + 1, pad = left(pad || repeat(md5(v::text), 100), 3000) WHERE id = :id;
COMMIT;
},
	# an update that rolls back: beside a key-share locker it leaves a
	# MultiXact of the locker and an aborted updater
	'abortupd@1' => qq{
\\set id random(1, $parents)
BEGIN;
UPDATE %P SET v = v + 1, pad = left(pad || repeat('a', 300), 1500) WHERE id = :id;
ROLLBACK;
},
	'shrink@1' => qq{
\\set id random(1, $parents)
BEGIN;
UPDATE %P SET v = v + 1, pad = 'p' WHERE id = :id;
COMMIT;
},
	# a key update: waits for the key-share lockers
	'keyupd@1' => qq{
\\set id random(1, $parents)
BEGIN;
UPDATE %P SET u = -u WHERE id = :id;
COMMIT;
},
	# No truncation of the heap tables: PostgreSQL's VACUUM tries for 5 s
	# to get the lock for it while the writers hold theirs, and every other
	# client's VACUUM of the table queues behind it (a run stalled 50 s so,
	# all ten clients in line).  blinkheap's truncation makes one try.
	'vacuum@1' => q{
VACUUM (FREEZE, TRUNCATE false) hp;
VACUUM FREEZE bp;
VACUUM (FREEZE, TRUNCATE false) hc;
VACUUM FREEZE bc;
},
);
my @files = pgbench_files_for($node, '038',
	{ '%P' => [qw(hp bp)], '%C' => [qw(hc bc)] }, %scripts);

# The next MultiXact id, as of a checkpoint taken now.
sub next_multi
{
	$node->safe_psql('postgres', 'CHECKPOINT');
	return $node->safe_psql('postgres',
		'SELECT next_multixact_id::text::bigint FROM pg_control_checkpoint()');
}
my $multi_before = next_multi();

my ($out, $err) = ('', '');
IPC::Run::run(
	[ 'pgbench', '--no-vacuum', '--client=10', '--jobs=2', '--time=30',
	  '--max-tries=1000', @files, '--host', $node->host,
	  '--port', $node->port, 'postgres' ],
	'>', \$out, '2>', \$err);
is($?, 0, 'pgbench exits cleanly') or diag($err);
my ($done) = $out =~ /number of transactions actually processed: (\d+)/;
note("$done transactions");
ok(($done // 0) > 500, 'the clients did work');

# Locks of several transactions on one row: MultiXacts were made.
cmp_ok(next_multi(), '>', $multi_before + 100, 'concurrent lockers made MultiXacts');

# Both sides hold the same rows.
check_same_rows($node, 'after the run', [qw(hp bp)], [qw(hc bc)]);
ok($node->safe_psql('postgres', "SELECT count(*) FROM hp WHERE length(pad) > 1000") > 0,
	'some rows grew past a page share');
my $toast = $node->safe_psql('postgres',
	"SELECT reltoastrelid::regclass FROM pg_class WHERE oid = 'bp'::regclass");
ok($node->safe_psql('postgres', "SELECT count(*) FROM $toast") > 0,
	"some of bp's rows have their pad in the TOAST table");

# A last aggressive VACUUM of every table succeeds, and every check passes.
for my $t (qw(hp bp hc bc))
{
	my ($ret, $stdout, $stderr) = $node->psql('postgres', "VACUUM FREEZE $t");
	is($ret, 0, "VACUUM FREEZE $t succeeds") or diag($stderr);
}
for my $t (qw(bp bc))
{
	is($node->safe_psql('postgres', "SELECT blinkheap_check('$t')"), '',
		"blinkheap_check($t)");
}
for my $i (qw(bp_u bc_parent))
{
	is($node->safe_psql('postgres', "SELECT blink_check('$i', true)"), '',
		"blink_check($i, heapallindexed)");
}
$node->stop;
unlike(slurp_file($node->logfile), qr/TRAP:|PANIC:| XX000 | XX001 /,
	'no failed assertion, PANIC, internal error or corruption in the log');
done_testing();
