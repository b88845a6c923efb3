# Makefile for blinkam (PGXS)
#
#   make                 build
#   make install         install into the PostgreSQL that PG_CONFIG names
#   make test            as root on Debian bookworm: install what is missing,
#                        build, install, run every suite as postgres
#   make test-assert     the same against an assertion-enabled PostgreSQL 15
#                        built once from Debian's source package
#   make bench           IoT insert benchmark on a private temporary cluster
#   make bench-keys      btree vs blink: WAL per row, random inserts, lookups
#   make bench-splits    concurrent splits: btree vs blink with/without pools
#   make bench-table     blinkheap vs heap: WAL and size per row, seq scans
#   make bench-csn       scans of recent rows under open transactions, CSNs on/off
#   make installcheck    the suites through PGXS, against an installed build

EXTENSION = blinkam
EXTVERSION = 0.1
MODULE_big = blinkam
OBJS = \
	src/blinkam.o \
	src/common/batch.o \
	src/common/counters.o \
	src/common/guc.o \
	src/common/gxlog.o \
	src/common/launcher.o \
	src/common/pool.o \
	src/common/shmem.o \
	src/common/worker.o \
	src/index/blinkbuild.o \
	src/index/blinkdedup.o \
	src/index/blinkdelete.o \
	src/index/blinkfuncs.o \
	src/index/blinkinsert.o \
	src/index/blinkpage.o \
	src/index/pending.o \
	src/index/blinkrepair.o \
	src/index/blinkscan.o \
	src/index/blinksearch.o \
	src/index/blinkutils.o \
	src/index/blinkvacuum.o \
	src/index/blinkverify.o \
	src/index/defer.o \
	src/index/fkcheck.o \
	src/index/onconflict.o \
	src/index/splitreg.o \
	src/table/blinkheap_bitmap.o \
	src/table/blinkheap_build.o \
	src/table/blinkheap_csn.o \
	src/table/blinkheap_dml.o \
	src/table/blinkheap_fetch.o \
	src/table/blinkheap_handler.o \
	src/table/blinkheap_hot.o \
	src/table/blinkheap_page.o \
	src/table/blinkheap_pool.o \
	src/table/blinkheap_publication.o \
	src/table/blinkheap_rewrite.o \
	src/table/blinkheap_scan.o \
	src/table/blinkheap_vacuum.o \
	src/table/blinkheap_verify.o \
	src/table/blinkheap_visibility.o
DATA = blinkam--$(EXTVERSION).sql

REGRESS = $(basename $(notdir $(wildcard sql/*.sql)))
REGRESS_OPTS = --temp-instance=tmp_check --temp-config=$(srcdir)/regress.conf
ISOLATION = $(basename $(notdir $(wildcard specs/*.spec)))
ISOLATION_OPTS = --temp-instance=tmp_check_iso --temp-config=$(srcdir)/regress.conf
TAP_TESTS = 1

PG_CONFIG ?= pg_config

# Our own files build warning-free under -Wall -Wextra.  Unused parameters
# are the rule for fmgr and callback signatures, so that one is off.
PG_CFLAGS = -Wall -Wextra -Werror -Wno-unused-parameter
# Our headers are named by part: "common/pool.h", "index/blink.h".
PG_CPPFLAGS = -I$(srcdir)/src

EXTRA_CLEAN = out results output_iso tmp_check tmp_check_iso regression.diffs regression.out

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS does not track header dependencies.
$(OBJS): $(wildcard src/*/*.h)

ASSERT_DIR ?= $(CURDIR)/.pg-assert

.PHONY: test test-assert bench bench-keys bench-splits bench-table bench-csn bench-unique bench-bulk-unique bench-ssi bench-churn bench-parallel

test:
	scripts/test.sh $(PG_CONFIG)

test-assert:
	pgc=$$(scripts/build-assert-pg.sh $(ASSERT_DIR)) && scripts/test.sh "$$pgc"

bench:
	bench/run.sh

bench-keys:
	bench/keys.sh

bench-splits:
	bench/splits.sh

bench-table:
	bench/table.sh

bench-csn:
	bench/csn.sh

bench-unique:
	bench/unique.sh

bench-bulk-unique:
	bench/bulkunique.sh

bench-ssi:
	bench/ssi.sh

bench-churn:
	bench/churn.sh

bench-parallel:
	bench/parallel.sh
