# The mirrored tables of t/019 and t/036, and what those tests share:
#   hp: heap with btree indexes (the reference),
#   hb: heap with blink indexes,
#   bh: blinkheap with blink indexes,
# with the same columns and indexes.  Writers make each change to all
# three in one transaction; readers and the checks after a run require
# that hb and bh answer as hp does.  t/038 uses the pgbench script writer
# and the row comparison for its own pairs of tables.
package Mirror;

use strict;
use warnings;
use Exporter 'import';
use Test::More;

our @EXPORT = qw(mirror_tables_sql mirror_check_sql pgbench_files pgbench_files_for
  check_same_rows check_scans check_indexes);

# The three tables and their indexes.
sub mirror_tables_sql
{
	return q{
CREATE TABLE hp (id bigint, k int, v int, pad text);
CREATE UNIQUE INDEX hp_id ON hp (id);
CREATE INDEX hp_kv ON hp (k, v) INCLUDE (id);
CREATE INDEX hp_v ON hp (v);
CREATE TABLE hb (id bigint, k int, v int, pad text);
CREATE UNIQUE INDEX hb_id ON hb USING blink (id);
CREATE INDEX hb_kv ON hb USING blink (k, v) INCLUDE (id);
CREATE INDEX hb_v ON hb USING blink (v);
CREATE TABLE bh (id bigint, k int, v int, pad text) USING blinkheap;
CREATE UNIQUE INDEX bh_id ON bh USING blink (id);
CREATE INDEX bh_kv ON bh USING blink (k, v) INCLUDE (id);
CREATE INDEX bh_v ON bh USING blink (v);
};
}

# mirror_check(lo, hi, mode), to call in a REPEATABLE READ transaction:
# raises "mirror differs" with both answers when hb or bh reads otherwise
# than hp.  The test defines mirror_digest(tab, lo, hi, mode), which reads
# one table for keys lo..hi the way mode says (a test has its own modes).
sub mirror_check_sql
{
	return q{
CREATE FUNCTION mirror_check(lo int, hi int, mode text)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	ref text := mirror_digest('hp', lo, hi, mode);
	t text;
	d text;
BEGIN
	FOREACH t IN ARRAY ARRAY['hb', 'bh'] LOOP
		d := mirror_digest(t, lo, hi, mode);
		IF d IS DISTINCT FROM ref THEN
			RAISE EXCEPTION 'mirror differs: % scan of % for k in [%, %] gives %, hp gives %',
				mode, t, lo, hi, d, ref;
		END IF;
	END LOOP;
END $$;
};
}

# Write pgbench scripts, named "name@weight", under the node's base
# directory with the file name prefix; returns pgbench's --file options.
# A line that names the table %T is written once for each of hp, hb and
# bh, in that order: every statement and lock takes the three in the same
# order, so writers do not deadlock on them.
sub pgbench_files
{
	my ($node, $prefix, %scripts) = @_;
	return pgbench_files_for($node, $prefix, { '%T' => [qw(hp hb bh)] },
		%scripts);
}

# The same for other mirrored tables: $tables maps placeholders to lists
# of names of one length; a line naming any placeholder is written once
# per position, with each placeholder replaced by its name there.
sub pgbench_files_for
{
	my ($node, $prefix, $tables, %scripts) = @_;
	my @holders = sort keys %$tables;
	my $copies = scalar @{ $tables->{ $holders[0] } };
	my $any = join('|', map { quotemeta } @holders);
	my @files;
	for my $name (sort keys %scripts)
	{
		my ($base, $weight) = $name =~ /^([^@]*)(\@\d+)?$/;
		my $file = $node->basedir . "/${prefix}_$base.sql";
		my $text = '';
		for my $line (split /^/, $scripts{$name})
		{
			if ($line !~ /$any/)
			{
				$text .= $line;
				next;
			}
			for my $i (0 .. $copies - 1)
			{
				(my $l = $line) =~ s/($any)/$tables->{$1}[$i]/g;
				$text .= $l;
			}
		}
		open(my $fh, '>', $file) or die "cannot write $file: $!";
		print $fh $text;
		close $fh;
		push @files, '--file', $file . ($weight // '');
	}
	return @files;
}

# hb and bh hold exactly hp's rows; or, given pairs [reference, copy],
# each copy exactly its reference's.
sub check_same_rows
{
	my ($node, $when, @pairs) = @_;
	@pairs = ([qw(hp hb)], [qw(hp bh)]) unless @pairs;
	for my $pair (@pairs)
	{
		my ($r, $t) = @$pair;
		is($node->safe_psql('postgres', qq{
			SELECT (SELECT count(*) FROM (TABLE $r EXCEPT ALL TABLE $t) a)
			     + (SELECT count(*) FROM (TABLE $t EXCEPT ALL TABLE $r) b)}),
			'0', "$when: $t holds exactly $r\'s rows");
	}
}

# Scans of hb and bh in each mode, over all keys, answer as hp's.
sub check_scans
{
	my ($node, $when, @modes) = @_;
	for my $mode (@modes)
	{
		is($node->safe_psql('postgres', qq{
			BEGIN ISOLATION LEVEL REPEATABLE READ;
			SELECT mirror_check(-1000000, 1000000, '$mode');
			COMMIT;}), '',
			"$when: $mode scans of hb and bh over all keys answer as hp's");
	}
}

# Every blink index passes blink_check with heapallindexed, and bh passes
# blinkheap_check.
sub check_indexes
{
	my ($node, $when) = @_;
	for my $idx (qw(hb_id hb_kv hb_v bh_id bh_kv bh_v))
	{
		is($node->safe_psql('postgres', "SELECT blink_check('$idx', true)"), '',
			"$when: blink_check($idx, heapallindexed)");
	}
	is($node->safe_psql('postgres', "SELECT blinkheap_check('bh')"), '',
		"$when: blinkheap_check(bh)");
}

1;
