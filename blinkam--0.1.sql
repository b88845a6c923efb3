/* blinkam--0.1.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION blinkam" to load this file. \quit

-- Loading the library here is what refuses a server that does not have
-- blinkam in shared_preload_libraries (see src/blinkam.c).

CREATE FUNCTION blinkam_stats()
RETURNS TABLE (name text, value bigint)
AS 'MODULE_PATHNAME', 'blinkam_stats'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION blinkam_stats() IS
'blinkam''s shared counters, one row per counter';

CREATE FUNCTION blinkam_reset_stats()
RETURNS void
AS 'MODULE_PATHNAME', 'blinkam_reset_stats'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION blinkam_reset_stats() IS
'sets every blinkam counter to zero (not transactional)';

REVOKE ALL ON FUNCTION blinkam_reset_stats() FROM PUBLIC;

-- ---------------------------------------------------------------------
-- The blink index access method
-- ---------------------------------------------------------------------

CREATE FUNCTION blinkhandler(internal)
RETURNS index_am_handler
AS 'MODULE_PATHNAME', 'blinkhandler'
LANGUAGE C STRICT;

CREATE ACCESS METHOD blink TYPE INDEX HANDLER blinkhandler;
COMMENT ON ACCESS METHOD blink IS 'B-link tree index access method';

-- Verification and introspection.  They read index pages, so only
-- superusers (or roles granted EXECUTE) may call them.

CREATE FUNCTION blink_check(index regclass, heapallindexed boolean DEFAULT false)
RETURNS void
AS 'MODULE_PATHNAME', 'blink_check'
LANGUAGE C STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION blink_check(regclass, boolean) IS
'verifies every invariant of a blink index; with heapallindexed, that every table row is indexed';

CREATE FUNCTION blink_metap(index regclass,
	OUT magic bigint, OUT version integer, OUT root bigint, OUT level integer)
AS 'MODULE_PATHNAME', 'blink_metap'
LANGUAGE C STRICT PARALLEL SAFE;

CREATE FUNCTION blink_page_stats(index regclass, blkno bigint,
	OUT blkno bigint, OUT type text, OUT level integer,
	OUT live_items integer, OUT dead_items integer, OUT free_size integer,
	OUT right_link bigint, OUT left_link bigint, OUT incomplete_split boolean,
	OUT version bigint, OUT sorted_items integer, OUT vacuum_cycle integer)
AS 'MODULE_PATHNAME', 'blink_page_stats'
LANGUAGE C STRICT PARALLEL SAFE;

CREATE FUNCTION blink_page_items(index regclass, blkno bigint)
RETURNS TABLE (itemoffset integer, ctid tid, downlink bigint, itemlen integer,
			   key text, is_highkey boolean, dead boolean, htids tid[])
AS 'MODULE_PATHNAME', 'blink_page_items'
LANGUAGE C STRICT PARALLEL SAFE;

CREATE FUNCTION blink_tree_stats(index regclass,
	OUT pages bigint, OUT leaf_pages bigint, OUT internal_pages bigint,
	OUT free_pages bigint, OUT levels integer, OUT incomplete_splits bigint,
	OUT avg_leaf_fill float8)
AS 'MODULE_PATHNAME', 'blink_tree_stats'
LANGUAGE C STRICT PARALLEL SAFE;

REVOKE ALL ON FUNCTION blink_check(regclass, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION blink_metap(regclass) FROM PUBLIC;
REVOKE ALL ON FUNCTION blink_page_stats(regclass, bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION blink_page_items(regclass, bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION blink_tree_stats(regclass) FROM PUBLIC;

-- ---------------------------------------------------------------------
-- Operator classes: btree's strategies (1 <, 2 <=, 3 =, 4 >=, 5 >),
-- support 1 = the btree comparison proc, support 2 = sortsupport; the
-- families mirror btree's, cross-type members included.
-- ---------------------------------------------------------------------

-- Operator families and operator classes for the blink index access method.
--
-- blink orders keys exactly like btree and uses btree's strategy numbers
-- (1 <, 2 <=, 3 =, 4 >=, 5 >) and support function numbers 1 (three-way
-- comparison, required for every type pair with operators) and 2
-- (sortsupport, optional, same-type only).  Every operator and function
-- below is a built-in one.  Families and classes carry btree's names and,
-- per family, btree's operators and its support functions 1 and 2.
--
-- Same-type members sit in their operator class; cross-type members are
-- added to the family with ALTER OPERATOR FAMILY.
--
-- btree's support functions 3 (in_range) and 4 (equalimage) have no twin
-- here.  PostgreSQL asks for them only through btree operator families:
-- the parser finds a window frame's in_range function in the btree family
-- of the ORDER BY's sort operator, and equalimage is consulted only by
-- btree's own deduplication.  A blink family holding them would never be
-- asked, so blink's handler declares two support functions and
-- blinkvalidate rejects any other number.


-- ----------------------------------------------------------------------
-- integer_ops: int2, int4, int8, with every cross-type comparison among them.
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY integer_ops USING blink;

CREATE OPERATOR CLASS int2_ops
    DEFAULT FOR TYPE int2 USING blink FAMILY integer_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 btint2cmp(int2, int2),
        FUNCTION 2 btint2sortsupport(internal);

CREATE OPERATOR CLASS int4_ops
    DEFAULT FOR TYPE int4 USING blink FAMILY integer_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 btint4cmp(int4, int4),
        FUNCTION 2 btint4sortsupport(internal);

CREATE OPERATOR CLASS int8_ops
    DEFAULT FOR TYPE int8 USING blink FAMILY integer_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 btint8cmp(int8, int8),
        FUNCTION 2 btint8sortsupport(internal);

ALTER OPERATOR FAMILY integer_ops USING blink ADD
    -- int2 vs int4
    OPERATOR 1 < (int2, int4),
    OPERATOR 2 <= (int2, int4),
    OPERATOR 3 = (int2, int4),
    OPERATOR 4 >= (int2, int4),
    OPERATOR 5 > (int2, int4),
    FUNCTION 1 (int2, int4) btint24cmp(int2, int4),
    -- int2 vs int8
    OPERATOR 1 < (int2, int8),
    OPERATOR 2 <= (int2, int8),
    OPERATOR 3 = (int2, int8),
    OPERATOR 4 >= (int2, int8),
    OPERATOR 5 > (int2, int8),
    FUNCTION 1 (int2, int8) btint28cmp(int2, int8),
    -- int4 vs int2
    OPERATOR 1 < (int4, int2),
    OPERATOR 2 <= (int4, int2),
    OPERATOR 3 = (int4, int2),
    OPERATOR 4 >= (int4, int2),
    OPERATOR 5 > (int4, int2),
    FUNCTION 1 (int4, int2) btint42cmp(int4, int2),
    -- int4 vs int8
    OPERATOR 1 < (int4, int8),
    OPERATOR 2 <= (int4, int8),
    OPERATOR 3 = (int4, int8),
    OPERATOR 4 >= (int4, int8),
    OPERATOR 5 > (int4, int8),
    FUNCTION 1 (int4, int8) btint48cmp(int4, int8),
    -- int8 vs int2
    OPERATOR 1 < (int8, int2),
    OPERATOR 2 <= (int8, int2),
    OPERATOR 3 = (int8, int2),
    OPERATOR 4 >= (int8, int2),
    OPERATOR 5 > (int8, int2),
    FUNCTION 1 (int8, int2) btint82cmp(int8, int2),
    -- int8 vs int4
    OPERATOR 1 < (int8, int4),
    OPERATOR 2 <= (int8, int4),
    OPERATOR 3 = (int8, int4),
    OPERATOR 4 >= (int8, int4),
    OPERATOR 5 > (int8, int4),
    FUNCTION 1 (int8, int4) btint84cmp(int8, int4);

-- ----------------------------------------------------------------------
-- oid_ops: oid.
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY oid_ops USING blink;

CREATE OPERATOR CLASS oid_ops
    DEFAULT FOR TYPE oid USING blink FAMILY oid_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 btoidcmp(oid, oid),
        FUNCTION 2 btoidsortsupport(internal);

-- ----------------------------------------------------------------------
-- float_ops: float4 and float8, with the float4/float8 cross-type comparisons.
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY float_ops USING blink;

CREATE OPERATOR CLASS float4_ops
    DEFAULT FOR TYPE float4 USING blink FAMILY float_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 btfloat4cmp(float4, float4),
        FUNCTION 2 btfloat4sortsupport(internal);

CREATE OPERATOR CLASS float8_ops
    DEFAULT FOR TYPE float8 USING blink FAMILY float_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 btfloat8cmp(float8, float8),
        FUNCTION 2 btfloat8sortsupport(internal);

ALTER OPERATOR FAMILY float_ops USING blink ADD
    -- float4 vs float8
    OPERATOR 1 < (float4, float8),
    OPERATOR 2 <= (float4, float8),
    OPERATOR 3 = (float4, float8),
    OPERATOR 4 >= (float4, float8),
    OPERATOR 5 > (float4, float8),
    FUNCTION 1 (float4, float8) btfloat48cmp(float4, float8),
    -- float8 vs float4
    OPERATOR 1 < (float8, float4),
    OPERATOR 2 <= (float8, float4),
    OPERATOR 3 = (float8, float4),
    OPERATOR 4 >= (float8, float4),
    OPERATOR 5 > (float8, float4),
    FUNCTION 1 (float8, float4) btfloat84cmp(float8, float4);

-- ----------------------------------------------------------------------
-- numeric_ops: numeric.
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY numeric_ops USING blink;

CREATE OPERATOR CLASS numeric_ops
    DEFAULT FOR TYPE numeric USING blink FAMILY numeric_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 numeric_cmp(numeric, numeric),
        FUNCTION 2 numeric_sortsupport(internal);

-- ----------------------------------------------------------------------
-- bool_ops: bool.
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY bool_ops USING blink;

CREATE OPERATOR CLASS bool_ops
    DEFAULT FOR TYPE bool USING blink FAMILY bool_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 btboolcmp(bool, bool);

-- ----------------------------------------------------------------------
-- char_ops: "char" (the one-byte internal type).
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY char_ops USING blink;

CREATE OPERATOR CLASS char_ops
    DEFAULT FOR TYPE "char" USING blink FAMILY char_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 btcharcmp("char", "char");

-- ----------------------------------------------------------------------
-- text_ops: text and name, with the name/text cross-type comparisons.
-- varchar has no default class of its own: a varchar column is
-- binary-coercible to text and so gets text_ops.  varchar_ops is
-- a non-default alias class over text, as in btree.  Unlike btree,
-- name_ops has no STORAGE cstring: name keys are stored as name.
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY text_ops USING blink;

CREATE OPERATOR CLASS name_ops
    DEFAULT FOR TYPE name USING blink FAMILY text_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 btnamecmp(name, name),
        FUNCTION 2 btnamesortsupport(internal);

CREATE OPERATOR CLASS text_ops
    DEFAULT FOR TYPE text USING blink FAMILY text_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 bttextcmp(text, text),
        FUNCTION 2 bttextsortsupport(internal);

-- Non-default alias class; all its members are the family's text ones.
CREATE OPERATOR CLASS varchar_ops
    FOR TYPE text USING blink FAMILY text_ops AS
        STORAGE text;

ALTER OPERATOR FAMILY text_ops USING blink ADD
    -- name vs text
    OPERATOR 1 < (name, text),
    OPERATOR 2 <= (name, text),
    OPERATOR 3 = (name, text),
    OPERATOR 4 >= (name, text),
    OPERATOR 5 > (name, text),
    FUNCTION 1 (name, text) btnametextcmp(name, text),
    -- text vs name
    OPERATOR 1 < (text, name),
    OPERATOR 2 <= (text, name),
    OPERATOR 3 = (text, name),
    OPERATOR 4 >= (text, name),
    OPERATOR 5 > (text, name),
    FUNCTION 1 (text, name) bttextnamecmp(text, name);

-- ----------------------------------------------------------------------
-- bpchar_ops: bpchar (character(n)).
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY bpchar_ops USING blink;

CREATE OPERATOR CLASS bpchar_ops
    DEFAULT FOR TYPE bpchar USING blink FAMILY bpchar_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 bpcharcmp(bpchar, bpchar),
        FUNCTION 2 bpchar_sortsupport(internal);

-- ----------------------------------------------------------------------
-- bytea_ops: bytea.
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY bytea_ops USING blink;

CREATE OPERATOR CLASS bytea_ops
    DEFAULT FOR TYPE bytea USING blink FAMILY bytea_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 byteacmp(bytea, bytea),
        FUNCTION 2 bytea_sortsupport(internal);

-- ----------------------------------------------------------------------
-- datetime_ops: date, timestamp, timestamptz, with all cross-type
-- comparisons among them.
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY datetime_ops USING blink;

CREATE OPERATOR CLASS date_ops
    DEFAULT FOR TYPE date USING blink FAMILY datetime_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 date_cmp(date, date),
        FUNCTION 2 date_sortsupport(internal);

CREATE OPERATOR CLASS timestamp_ops
    DEFAULT FOR TYPE timestamp USING blink FAMILY datetime_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 timestamp_cmp(timestamp, timestamp),
        FUNCTION 2 timestamp_sortsupport(internal);

CREATE OPERATOR CLASS timestamptz_ops
    DEFAULT FOR TYPE timestamptz USING blink FAMILY datetime_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 timestamptz_cmp(timestamptz, timestamptz),
        FUNCTION 2 timestamp_sortsupport(internal);

ALTER OPERATOR FAMILY datetime_ops USING blink ADD
    -- date vs timestamp
    OPERATOR 1 < (date, timestamp),
    OPERATOR 2 <= (date, timestamp),
    OPERATOR 3 = (date, timestamp),
    OPERATOR 4 >= (date, timestamp),
    OPERATOR 5 > (date, timestamp),
    FUNCTION 1 (date, timestamp) date_cmp_timestamp(date, timestamp),
    -- date vs timestamptz
    OPERATOR 1 < (date, timestamptz),
    OPERATOR 2 <= (date, timestamptz),
    OPERATOR 3 = (date, timestamptz),
    OPERATOR 4 >= (date, timestamptz),
    OPERATOR 5 > (date, timestamptz),
    FUNCTION 1 (date, timestamptz) date_cmp_timestamptz(date, timestamptz),
    -- timestamp vs date
    OPERATOR 1 < (timestamp, date),
    OPERATOR 2 <= (timestamp, date),
    OPERATOR 3 = (timestamp, date),
    OPERATOR 4 >= (timestamp, date),
    OPERATOR 5 > (timestamp, date),
    FUNCTION 1 (timestamp, date) timestamp_cmp_date(timestamp, date),
    -- timestamp vs timestamptz
    OPERATOR 1 < (timestamp, timestamptz),
    OPERATOR 2 <= (timestamp, timestamptz),
    OPERATOR 3 = (timestamp, timestamptz),
    OPERATOR 4 >= (timestamp, timestamptz),
    OPERATOR 5 > (timestamp, timestamptz),
    FUNCTION 1 (timestamp, timestamptz) timestamp_cmp_timestamptz(timestamp, timestamptz),
    -- timestamptz vs date
    OPERATOR 1 < (timestamptz, date),
    OPERATOR 2 <= (timestamptz, date),
    OPERATOR 3 = (timestamptz, date),
    OPERATOR 4 >= (timestamptz, date),
    OPERATOR 5 > (timestamptz, date),
    FUNCTION 1 (timestamptz, date) timestamptz_cmp_date(timestamptz, date),
    -- timestamptz vs timestamp
    OPERATOR 1 < (timestamptz, timestamp),
    OPERATOR 2 <= (timestamptz, timestamp),
    OPERATOR 3 = (timestamptz, timestamp),
    OPERATOR 4 >= (timestamptz, timestamp),
    OPERATOR 5 > (timestamptz, timestamp),
    FUNCTION 1 (timestamptz, timestamp) timestamptz_cmp_timestamp(timestamptz, timestamp);

-- ----------------------------------------------------------------------
-- time_ops: time.
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY time_ops USING blink;

CREATE OPERATOR CLASS time_ops
    DEFAULT FOR TYPE time USING blink FAMILY time_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 time_cmp(time, time);

-- ----------------------------------------------------------------------
-- timetz_ops: timetz.
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY timetz_ops USING blink;

CREATE OPERATOR CLASS timetz_ops
    DEFAULT FOR TYPE timetz USING blink FAMILY timetz_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 timetz_cmp(timetz, timetz);

-- ----------------------------------------------------------------------
-- interval_ops: interval.
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY interval_ops USING blink;

CREATE OPERATOR CLASS interval_ops
    DEFAULT FOR TYPE interval USING blink FAMILY interval_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 interval_cmp(interval, interval);

-- ----------------------------------------------------------------------
-- uuid_ops: uuid.
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY uuid_ops USING blink;

CREATE OPERATOR CLASS uuid_ops
    DEFAULT FOR TYPE uuid USING blink FAMILY uuid_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 uuid_cmp(uuid, uuid),
        FUNCTION 2 uuid_sortsupport(internal);

-- ----------------------------------------------------------------------
-- network_ops: inet.  cidr columns use inet_ops (cidr is
-- binary-coercible to inet); cidr_ops is a non-default alias class
-- over inet, as in btree.
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY network_ops USING blink;

CREATE OPERATOR CLASS inet_ops
    DEFAULT FOR TYPE inet USING blink FAMILY network_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 network_cmp(inet, inet),
        FUNCTION 2 network_sortsupport(internal);

-- Non-default alias class; all its members are the family's inet ones.
CREATE OPERATOR CLASS cidr_ops
    FOR TYPE inet USING blink FAMILY network_ops AS
        STORAGE inet;

-- ----------------------------------------------------------------------
-- macaddr_ops: macaddr.
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY macaddr_ops USING blink;

CREATE OPERATOR CLASS macaddr_ops
    DEFAULT FOR TYPE macaddr USING blink FAMILY macaddr_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 macaddr_cmp(macaddr, macaddr),
        FUNCTION 2 macaddr_sortsupport(internal);

-- ----------------------------------------------------------------------
-- money_ops: money.
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY money_ops USING blink;

CREATE OPERATOR CLASS money_ops
    DEFAULT FOR TYPE money USING blink FAMILY money_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 cash_cmp(money, money);

-- ----------------------------------------------------------------------
-- pg_lsn_ops: pg_lsn.
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY pg_lsn_ops USING blink;

CREATE OPERATOR CLASS pg_lsn_ops
    DEFAULT FOR TYPE pg_lsn USING blink FAMILY pg_lsn_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 pg_lsn_cmp(pg_lsn, pg_lsn);

-- ----------------------------------------------------------------------
-- enum_ops: every enum type, through the polymorphic anyenum.
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY enum_ops USING blink;

CREATE OPERATOR CLASS enum_ops
    DEFAULT FOR TYPE anyenum USING blink FAMILY enum_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 enum_cmp(anyenum, anyenum);

-- ----------------------------------------------------------------------
-- Classes over pseudo-types, like enum_ops: one class serves every array,
-- range, multirange or composite type.  The comparison functions find the
-- concrete type (element type, range type, row type) in the values
-- themselves.
-- ----------------------------------------------------------------------

-- array_ops: every array type, compared element by element with the
-- element type's default btree comparison, then by length and shape.
CREATE OPERATOR FAMILY array_ops USING blink;

CREATE OPERATOR CLASS array_ops
    DEFAULT FOR TYPE anyarray USING blink FAMILY array_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 btarraycmp(anyarray, anyarray);

-- range_ops: every range type (empty ranges first, then by lower bound,
-- then by upper bound).
CREATE OPERATOR FAMILY range_ops USING blink;

CREATE OPERATOR CLASS range_ops
    DEFAULT FOR TYPE anyrange USING blink FAMILY range_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 range_cmp(anyrange, anyrange);

-- multirange_ops: every multirange type (range by range).
CREATE OPERATOR FAMILY multirange_ops USING blink;

CREATE OPERATOR CLASS multirange_ops
    DEFAULT FOR TYPE anymultirange USING blink FAMILY multirange_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 multirange_cmp(anymultirange, anymultirange);

-- record_ops: every composite type, column by column with each column
-- type's default btree comparison.
CREATE OPERATOR FAMILY record_ops USING blink;

CREATE OPERATOR CLASS record_ops
    DEFAULT FOR TYPE record USING blink FAMILY record_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 btrecordcmp(record, record);

-- record_image_ops: composite types compared by the binary images of
-- their columns (*<, *=, ...), so that e.g. 1.0 and 1.00 differ.  Not
-- the default, as in btree.
CREATE OPERATOR FAMILY record_image_ops USING blink;

CREATE OPERATOR CLASS record_image_ops
    FOR TYPE record USING blink FAMILY record_image_ops AS
        OPERATOR 1 *<,
        OPERATOR 2 *<=,
        OPERATOR 3 *=,
        OPERATOR 4 *>=,
        OPERATOR 5 *>,
        FUNCTION 1 btrecordimagecmp(record, record);

-- ----------------------------------------------------------------------
-- Pattern classes: text and bpchar compared byte by byte whatever the
-- collation (~<~, ~<=~, =, ~>=~, ~>~).  None is a default class, as in
-- btree.  varchar_pattern_ops is an alias class over text in
-- text_pattern_ops, the way varchar_ops is in text_ops.  PostgreSQL turns
-- a LIKE prefix into index bounds only for btree's own pattern families,
-- so on a blink index LIKE stays a filter; the pattern operators
-- themselves are index conditions.
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY text_pattern_ops USING blink;

CREATE OPERATOR CLASS text_pattern_ops
    FOR TYPE text USING blink FAMILY text_pattern_ops AS
        OPERATOR 1 ~<~,
        OPERATOR 2 ~<=~,
        OPERATOR 3 =,
        OPERATOR 4 ~>=~,
        OPERATOR 5 ~>~,
        FUNCTION 1 bttext_pattern_cmp(text, text),
        FUNCTION 2 bttext_pattern_sortsupport(internal);

-- Non-default alias class; all its members are the family's text ones.
CREATE OPERATOR CLASS varchar_pattern_ops
    FOR TYPE text USING blink FAMILY text_pattern_ops AS
        STORAGE text;

CREATE OPERATOR FAMILY bpchar_pattern_ops USING blink;

CREATE OPERATOR CLASS bpchar_pattern_ops
    FOR TYPE bpchar USING blink FAMILY bpchar_pattern_ops AS
        OPERATOR 1 ~<~,
        OPERATOR 2 ~<=~,
        OPERATOR 3 =,
        OPERATOR 4 ~>=~,
        OPERATOR 5 ~>~,
        FUNCTION 1 btbpchar_pattern_cmp(bpchar, bpchar),
        FUNCTION 2 btbpchar_pattern_sortsupport(internal);

-- ----------------------------------------------------------------------
-- bit_ops: bit(n).
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY bit_ops USING blink;

CREATE OPERATOR CLASS bit_ops
    DEFAULT FOR TYPE bit USING blink FAMILY bit_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 bitcmp(bit, bit);

-- ----------------------------------------------------------------------
-- varbit_ops: bit varying.
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY varbit_ops USING blink;

CREATE OPERATOR CLASS varbit_ops
    DEFAULT FOR TYPE varbit USING blink FAMILY varbit_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 varbitcmp(varbit, varbit);

-- ----------------------------------------------------------------------
-- jsonb_ops: jsonb.
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY jsonb_ops USING blink;

CREATE OPERATOR CLASS jsonb_ops
    DEFAULT FOR TYPE jsonb USING blink FAMILY jsonb_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 jsonb_cmp(jsonb, jsonb);

-- ----------------------------------------------------------------------
-- macaddr8_ops: macaddr8.
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY macaddr8_ops USING blink;

CREATE OPERATOR CLASS macaddr8_ops
    DEFAULT FOR TYPE macaddr8 USING blink FAMILY macaddr8_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 macaddr8_cmp(macaddr8, macaddr8);

-- ----------------------------------------------------------------------
-- oidvector_ops: oidvector.
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY oidvector_ops USING blink;

CREATE OPERATOR CLASS oidvector_ops
    DEFAULT FOR TYPE oidvector USING blink FAMILY oidvector_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 btoidvectorcmp(oidvector, oidvector);

-- ----------------------------------------------------------------------
-- tid_ops: tid.
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY tid_ops USING blink;

CREATE OPERATOR CLASS tid_ops
    DEFAULT FOR TYPE tid USING blink FAMILY tid_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 bttidcmp(tid, tid);

-- ----------------------------------------------------------------------
-- xid8_ops: xid8.
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY xid8_ops USING blink;

CREATE OPERATOR CLASS xid8_ops
    DEFAULT FOR TYPE xid8 USING blink FAMILY xid8_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 xid8cmp(xid8, xid8);

-- ----------------------------------------------------------------------
-- tsvector_ops: tsvector.
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY tsvector_ops USING blink;

CREATE OPERATOR CLASS tsvector_ops
    DEFAULT FOR TYPE tsvector USING blink FAMILY tsvector_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 tsvector_cmp(tsvector, tsvector);

-- ----------------------------------------------------------------------
-- tsquery_ops: tsquery.
-- ----------------------------------------------------------------------

CREATE OPERATOR FAMILY tsquery_ops USING blink;

CREATE OPERATOR CLASS tsquery_ops
    DEFAULT FOR TYPE tsquery USING blink FAMILY tsquery_ops AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 tsquery_cmp(tsquery, tsquery);

-- ---------------------------------------------------------------------
-- Page pools
-- ---------------------------------------------------------------------

CREATE FUNCTION blinkam_pools(
	OUT database oid, OUT index regclass, OUT relfilenode oid,
	OUT leaf_pages integer, OUT internal_pages integer,
	OUT leaf_low integer, OUT leaf_high integer,
	OUT internal_low integer, OUT internal_high integer,
	OUT next_leaf bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'blinkam_pools'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION blinkam_pools() IS
'the page pools of blink indexes and blinkheap tables: pages held, watermarks and the next leaf page handed out, per relation';

-- ---------------------------------------------------------------------
-- The blinkheap table access method
-- ---------------------------------------------------------------------

CREATE FUNCTION blinkheap_handler(internal)
RETURNS table_am_handler
AS 'MODULE_PATHNAME', 'blinkheap_handler'
LANGUAGE C STRICT;

CREATE ACCESS METHOD blinkheap TYPE TABLE HANDLER blinkheap_handler;
COMMENT ON ACCESS METHOD blinkheap IS
'heap-format table access method whose pages are logged with generic WAL';

-- Verification and introspection.  They read table pages, so only
-- superusers (or roles granted EXECUTE) may call them.

CREATE FUNCTION blinkheap_check(tbl regclass)
RETURNS void
AS 'MODULE_PATHNAME', 'blinkheap_check'
LANGUAGE C STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION blinkheap_check(regclass) IS
'verifies the pages, line pointers, tuple headers and TOAST pointers of a blinkheap table';

CREATE FUNCTION blinkheap_page_stats(tbl regclass, blkno bigint,
	OUT blkno bigint, OUT free_size integer, OUT line_pointers integer,
	OUT normal integer, OUT dead integer, OUT unused integer,
	OUT live_tuples integer, OUT dead_tuples integer)
AS 'MODULE_PATHNAME', 'blinkheap_page_stats'
LANGUAGE C STRICT PARALLEL SAFE;
COMMENT ON FUNCTION blinkheap_page_stats(regclass, bigint) IS
'free space, line pointers and live/dead tuples of one blinkheap page';

CREATE FUNCTION blinkheap_page_items(tbl regclass, blkno bigint)
RETURNS TABLE (lp integer, lp_flags text, lp_len integer, t_xmin xid,
			   t_xmax xid, t_ctid tid, infomask text)
AS 'MODULE_PATHNAME', 'blinkheap_page_items'
LANGUAGE C STRICT PARALLEL SAFE;
COMMENT ON FUNCTION blinkheap_page_items(regclass, bigint) IS
'one row per line pointer of a blinkheap page, with the tuple header fields';

CREATE FUNCTION blinkheap_csn_of(xid xid) RETURNS bigint
AS 'MODULE_PATHNAME', 'blinkheap_csn_of'
LANGUAGE C STRICT PARALLEL SAFE;
COMMENT ON FUNCTION blinkheap_csn_of(xid) IS
'the commit sequence number blinkam recorded for a transaction that wrote blinkheap rows, NULL if none is known';

REVOKE ALL ON FUNCTION blinkheap_check(regclass) FROM PUBLIC;
REVOKE ALL ON FUNCTION blinkheap_page_stats(regclass, bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION blinkheap_page_items(regclass, bigint) FROM PUBLIC;
