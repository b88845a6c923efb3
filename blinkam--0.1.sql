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
