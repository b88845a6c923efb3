--
-- The extension itself: install, functions, settings, drop.
--
CREATE EXTENSION blinkam;

SELECT extname, extversion FROM pg_extension WHERE extname = 'blinkam';

-- blinkam_stats(): its result type and one row per counter
SELECT pg_get_function_result('blinkam_stats()'::regprocedure);
SELECT name FROM blinkam_stats() ORDER BY name;
SELECT count(*) = count(DISTINCT name) AS names_unique,
       bool_and(value >= 0) AS values_non_negative
  FROM blinkam_stats();

-- reset: counters read zero afterwards (those moved by this session's
-- work; background workers may refill page pools at any moment)
SELECT blinkam_reset_stats();
SELECT name, value FROM blinkam_stats()
 WHERE value <> 0 AND name IN ('descents', 'inserts', 'unique_checks', 'splits',
							   'root_splits', 'moverights', 'launcher_starts');

-- only superusers (or those granted EXECUTE) may reset
CREATE ROLE blinkam_regress_user;
SET ROLE blinkam_regress_user;
SELECT count(*) > 0 AS can_read FROM blinkam_stats();
SELECT blinkam_reset_stats();
RESET ROLE;
DROP ROLE blinkam_regress_user;

-- settings: the prefix is reserved, the real ones are visible
SHOW blinkam.enable_workers;
SET blinkam.enable_workers = off;
SET blinkam.no_such_setting = 1;
SELECT name, setting, context FROM pg_settings WHERE name LIKE 'blinkam.%' ORDER BY name;
-- how long statement buffers hold entries: on and off as when it was a
-- bool (on: to the commit), anything else refused with the list
SET blinkam.defer_inserts = on;
SHOW blinkam.defer_inserts;
SET blinkam.defer_inserts = false;
SHOW blinkam.defer_inserts;
SET blinkam.defer_inserts = statement;
SHOW blinkam.defer_inserts;
SET blinkam.defer_inserts = 'sometimes';
RESET blinkam.defer_inserts;

-- the library is already loaded at server start; LOAD again is a no-op
LOAD 'blinkam';

DROP EXTENSION blinkam;
SELECT count(*) FROM pg_proc WHERE proname LIKE 'blinkam%';

-- and it comes back
CREATE EXTENSION blinkam;
SELECT count(*) FROM pg_proc WHERE proname LIKE 'blinkam%';
DROP EXTENSION blinkam;
