# pg_upgrade of a cluster with blink indexes and blinkheap tables, from
# PostgreSQL 15 to PostgreSQL 15 (the same binaries), with --copy and then
# --link: the upgraded clusters hold the same rows and index definitions,
# pass blink_check and blinkheap_check, take inserts (pools and workers
# included), and recover from a crash.  The old cluster also has a
# publication that came to hold a blinkheap partition through CREATE TABLE
# ... PARTITION OF (which the publication check does not see): the
# upgrade's restore of ALTER PUBLICATION ... ADD TABLE must not be refused.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $conf = qq(
shared_preload_libraries = 'blinkam'
max_prepared_transactions = 10
wal_level = logical
);

my $old = PostgreSQL::Test::Cluster->new('old');
$old->init;
$old->append_conf('postgresql.conf', $conf);
$old->start;

$old->safe_psql('postgres', 'CREATE DATABASE app');
$old->safe_psql('postgres', 'CREATE DATABASE plain TEMPLATE template0');
$old->safe_psql('plain',
	'CREATE TABLE t (a int PRIMARY KEY, b text); '
	  . 'INSERT INTO t SELECT g, g::text FROM generate_series(1, 1000) g');
$old->safe_psql('app', q{
CREATE EXTENSION blinkam;
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE t (id int, k text, ts timestamptz, m mood, u uuid, j jsonb, f float8);
INSERT INTO t SELECT g, md5(g::text), '2020-01-01'::timestamptz + g * interval '1 min',
  (ARRAY['sad','ok','happy'])[g % 3 + 1]::mood, md5(g::text)::uuid,
  jsonb_build_object('g', g), g / 7.0
  FROM generate_series(1, 20000) g;
CREATE UNIQUE INDEX t_id ON t USING blink (id);
CREATE UNIQUE INDEX t_k_ts ON t USING blink (k, ts) INCLUDE (m);
CREATE INDEX t_part ON t USING blink (f) WHERE id % 2 = 0;
CREATE INDEX t_expr ON t USING blink (lower(k), (id % 10));
CREATE INDEX t_desc ON t USING blink (ts DESC NULLS LAST, id NULLS FIRST);
CREATE INDEX t_pat ON t USING blink (k text_pattern_ops);
CREATE INDEX t_m ON t USING blink (m);
CREATE INDEX t_u ON t USING blink (u);
CREATE INDEX t_j ON t USING blink (j);
CREATE TABLE h (id int PRIMARY KEY, big text, n int) USING blinkheap;
INSERT INTO h SELECT g, repeat(md5(g::text), 100 + g % 50), g % 100
  FROM generate_series(1, 3000) g;
CREATE INDEX h_n ON h USING blink (n);
DELETE FROM h WHERE id % 10 = 0;
CREATE TABLE parted (a int, b text) PARTITION BY RANGE (a);
CREATE TABLE parted_h PARTITION OF parted FOR VALUES FROM (0) TO (1000);
CREATE PUBLICATION pub FOR TABLE parted;
CREATE TABLE parted_b PARTITION OF parted FOR VALUES FROM (1000) TO (2000)
  USING blinkheap;
CREATE INDEX parted_a ON parted USING blink (a);
INSERT INTO parted SELECT g, g::text FROM generate_series(0, 1999) g;
CREATE TABLE inh (a int, b text) USING blinkheap;
CREATE TABLE inh_c (c int) INHERITS (inh) USING blinkheap;
INSERT INTO inh_c SELECT g, g::text, g FROM generate_series(1, 500) g;
});

# What must survive the upgrade: rows, index definitions, publication.
my $fingerprint = q{
SELECT 't', md5(string_agg(t::text, ',' ORDER BY id)) FROM t;
SELECT 'h', md5(string_agg(h::text, ',' ORDER BY id)), count(*) FROM h;
SELECT 'parted', md5(string_agg(p::text, ',' ORDER BY a)) FROM parted p;
SELECT 'inh', md5(string_agg(i::text, ',' ORDER BY a)) FROM inh i;
SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname;
SELECT pubname, tablename FROM pg_publication_tables ORDER BY 1, 2;
};
# Every blink index and blinkheap table verified (each raises an error on
# a fault); the output counts them.
my $checks = q{
SELECT count(*) FROM (SELECT blink_check(c.oid, true) FROM pg_class c
  JOIN pg_am a ON a.oid = c.relam WHERE a.amname = 'blink' AND c.relkind = 'i') s;
SELECT count(*) FROM (SELECT blinkheap_check(c.oid) FROM pg_class c
  JOIN pg_am a ON a.oid = c.relam WHERE a.amname = 'blinkheap') s;
};
my $checked = "12\n4";
my $before = $old->safe_psql('app', $fingerprint);
like($before, qr/pub\|parted_b/, 'the publication holds the blinkheap partition');
my $plain_before = $old->safe_psql('plain', 'SELECT sum(a), count(*) FROM t');
$old->stop;

my $bindir = $old->config_data('--bindir');
chdir ${PostgreSQL::Test::Utils::tmp_check};

foreach my $mode ('--copy', '--link')
{
	my $new = PostgreSQL::Test::Cluster->new('new' . substr($mode, 2));
	$new->init;
	$new->append_conf('postgresql.conf', $conf);
	my @cmd = (
		'pg_upgrade', '--no-sync',
		'-d', $old->data_dir, '-D', $new->data_dir,
		'-b', $bindir, '-B', $bindir,
		'-p', $old->port, '-P', $new->port,
		'-s', $new->host);
	push @cmd, '--link' if $mode eq '--link';
	command_ok(\@cmd, "pg_upgrade $mode");

	$new->start;
	is($new->safe_psql('app', $fingerprint), $before, "$mode: same rows, indexes, publication");
	is($new->safe_psql('app', $checks), $checked, "$mode: checks pass");
	is($new->safe_psql('plain', 'SELECT sum(a), count(*) FROM t'), $plain_before,
		"$mode: database without the extension");

	# inserts that split pages and fill pools, then a crash
	$new->safe_psql('app', q{
INSERT INTO t SELECT g, md5(g::text), now(), 'ok', md5(g::text)::uuid, '{}', g
  FROM generate_series(20001, 40000) g;
INSERT INTO h SELECT g, repeat('x', 3000), g % 100 FROM generate_series(5000, 8000) g;
INSERT INTO parted SELECT g % 2000, 'new' FROM generate_series(1, 4000) g;
});
	$new->stop('immediate');
	$new->start;
	is($new->safe_psql('app', $checks), $checked, "$mode: checks pass after inserts and a crash");
	is($new->safe_psql('app',
			'SELECT count(*) FROM t UNION ALL SELECT count(*) FROM h '
			  . 'UNION ALL SELECT count(*) FROM parted'),
		"40000\n5701\n6000", "$mode: the rows inserted after the upgrade are there");
	$new->safe_psql('app', 'SET enable_seqscan = off; SET enable_bitmapscan = off;'
		  . 'INSERT INTO t VALUES (40001, md5(\'x\'), now())');
	is($new->safe_psql('app',
			'SET enable_seqscan = off; SET enable_bitmapscan = off; '
			  . 'SELECT count(*) FROM t WHERE id BETWEEN 19990 AND 40001'),
		'20012', "$mode: index scan finds old and new rows");
	$new->stop;
}

done_testing();
