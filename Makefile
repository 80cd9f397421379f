# aptop — hand-written Makefile. `make` builds build/aptop; `make check` runs every test
# under ASan+UBSan; `make bench`, `make fuzz`, `make demo`, `make install`.
-include config.make

VERSION  = 0.1.0
PREFIX  ?= /usr/local
BINDIR   = $(PREFIX)/bin
MANDIR   = $(PREFIX)/share/man/man1
CC      ?= cc
PKGS     = ncursesw libcjson sqlite3 zlib

WARN     = -Wall -Wextra -Wshadow -Wstrict-prototypes
# gcc's -Wformat-truncation flags every snprintf into a bounded buffer (cutting is meant
# there); clang has no such warning and would note the unknown option on every file
WARN    += $(shell $(CC) -Werror -Wno-format-truncation -x c -c /dev/null -o /dev/null 2>/dev/null && echo -Wno-format-truncation)
ifeq ($(CI),true)
WARN    += -Werror
endif
CFLAGS  ?= -O2 -g
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
override CFLAGS += -std=c11 $(WARN) -D_GNU_SOURCE -DAPTOP_VERSION='"$(VERSION)"' \
                   -Isrc $(filter-out -D_XOPEN_SOURCE% -D_DEFAULT_SOURCE,$(PKG_CFLAGS))
CORE_LIBS = $(shell pkg-config --libs libcjson sqlite3 zlib 2>/dev/null || echo -lcjson -lsqlite3 -lz) -lcsv -pthread -lm
UI_LIBS   = $(shell pkg-config --libs ncursesw 2>/dev/null || echo -lncursesw)

# io and model never include curses: unit tests link them without -lncursesw.
CORE_SRCS = $(wildcard src/util/*.c src/io/*/*.c src/model/*/*.c src/query/*.c src/report/*.c)
UI_SRCS   = $(wildcard src/ui/*/*.c)
MAIN_SRCS = src/main.c $(wildcard src/mcp/*.c)
UNIT_SRCS = $(wildcard tests/unit/*.c) tests/runner.c
UITEST_SRCS = $(wildcard tests/ui/*.c) tests/runner.c

B ?= build
CORE_OBJS = $(CORE_SRCS:%.c=$(B)/%.o)
UI_OBJS   = $(UI_SRCS:%.c=$(B)/%.o)
MAIN_OBJS = $(MAIN_SRCS:%.c=$(B)/%.o)
UNIT_OBJS = $(UNIT_SRCS:%.c=$(B)/%.o)
UITEST_OBJS = $(UITEST_SRCS:%.c=$(B)/%.o)

Q = @
ifeq ($(V),1)
Q =
endif

.PHONY: man all check check-built test bench fuzz fuzz-build install uninstall clean deps demo fixtures acceptance

all: $(B)/aptop

# the man page's KEYS section is written from the key table (a test checks they agree)
man: $(B)/aptop
	$(Q)python3 tools/man_keys.py $(B)/aptop man/aptop.1

$(B)/aptop: $(MAIN_OBJS) $(UI_OBJS) $(CORE_OBJS)
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(UI_LIBS) $(CORE_LIBS)

$(B)/unit_tests: $(UNIT_OBJS) $(CORE_OBJS)
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CORE_LIBS)

# the time axis, the list cursor and a view's request path use no curses call: their tests
# call them directly
$(B)/ui_tests: $(UITEST_OBJS) $(B)/src/ui/timeline/time_axis.o $(B)/src/ui/shell/list_cursor.o $(B)/src/ui/shell/view_request.o
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CORE_LIBS)

$(B)/%.o: %.c
	@mkdir -p $(dir $@) $(B)/.deps/$(dir $*)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(CPPFLAGS) -MMD -MP -MF $(B)/.deps/$*.d -c -o $@ $<

-include $(wildcard $(B)/.deps/src/*/*/*.d $(B)/.deps/src/*/*.d $(B)/.deps/src/*.d $(B)/.deps/tests/*/*.d $(B)/.deps/tests/*.d)

# --- tests -------------------------------------------------------------------------------
SAN = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
# `check` and `demo` install the packages first, then run a new make: this Makefile asks
# pkg-config for flags when it is read, so a make started before the -dev packages were
# there would compile without them.
check: deps
	$(Q)$(MAKE) --no-print-directory check-built

check-built: fixtures
	$(Q)$(MAKE) --no-print-directory B=build/san CFLAGS="$(SAN)" LDFLAGS="$(SAN)" \
	    build/san/aptop build/san/unit_tests build/san/ui_tests
	$(Q)$(MAKE) --no-print-directory all
	$(Q)sh tests/run_all.sh build/san

test: check

fixtures: fixtures/.stamp
fixtures/.stamp: tools/gen_fixtures.py tools/gen_phase_fixtures.py tools/gen_prof_fixtures.py
fixtures/.stamp: tools/gen_advisor_fixtures.py tools/gen_comm_fixtures.py tools/gen_lazy_fixtures.py
fixtures/.stamp: tools/gen_trust_fixtures.py tools/gen_gpu_ranks_fixtures.py
	$(Q)python3 tools/gen_fixtures.py fixtures
	$(Q)python3 tools/gen_phase_fixtures.py fixtures/phases
	$(Q)python3 tools/gen_prof_fixtures.py fixtures
	$(Q)python3 tools/gen_advisor_fixtures.py fixtures/advisor
	$(Q)python3 tools/gen_comm_fixtures.py fixtures
	$(Q)python3 tools/gen_lazy_fixtures.py fixtures
	$(Q)python3 tools/gen_trust_fixtures.py fixtures/trust
	$(Q)python3 tools/gen_gpu_ranks_fixtures.py fixtures
	$(Q)touch $@

# --- independent checks: the report's figures recomputed from the real captures ---------------
acceptance: all
	$(Q)python3 tests/checks/run.py

# --- benchmarks (timings are printed, never asserted) ---------------------------------------
bench: all
	$(Q)sh bench/run.sh $(B)/aptop
	$(Q)sh bench/run_memory.sh

# --- fuzzing (clang libFuzzer) ------------------------------------------------------------
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_TARGETS = $(patsubst tests/fuzz/%.c,build/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
fuzz-build: $(FUZZ_TARGETS)
# APTOP_FUZZ_CHECKS: the reader's fast paths abort when they disagree with its plain ones
build/fuzz/%: tests/fuzz/%.c $(CORE_SRCS)
	@mkdir -p build/fuzz
	@echo "  FUZZ    $@"
	$(Q)$(FUZZ_CC) -std=c11 -g -O1 -D_GNU_SOURCE -DAPTOP_FUZZ_CHECKS -DAPTOP_VERSION='"fuzz"' -Isrc $(filter-out -D_XOPEN_SOURCE% -D_DEFAULT_SOURCE,$(PKG_CFLAGS)) \
	    -fsanitize=fuzzer,address,undefined -o $@ $< $(CORE_SRCS) $(CORE_LIBS)
fuzz: fixtures fuzz-build
	$(Q)sh tests/fuzz/run.sh $(FUZZ_SECONDS)

# --- setup, demo, install --------------------------------------------------------------------
deps:
	$(Q)sh tools/deps.sh

DEMO_FLAGS ?=
demo: deps
	$(Q)$(MAKE) --no-print-directory fixtures all
	$(Q)$(B)/aptop $(DEMO_FLAGS) fixtures/vllm_decode_2rank

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)
	install -m 755 $(B)/aptop $(DESTDIR)$(BINDIR)/aptop
	install -m 644 man/aptop.1 $(DESTDIR)$(MANDIR)/aptop.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/aptop $(DESTDIR)$(MANDIR)/aptop.1

clean:
	rm -rf build

# --- hardening: thread sanitizer, replay of kept fuzz inputs --------------------------------
# `make tsan`: the loader/UI hand-over under ThreadSanitizer (clang when installed).
# `make fuzz-regress`: every fuzz target once over its corpus and regress inputs (-runs=0).
TSAN_CC ?= $(shell command -v clang >/dev/null 2>&1 && echo clang || echo $(CC))
TSAN_FLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=thread
.PHONY: tsan fuzz-regress
build/tsan/test_handover: tests/tsan/test_handover.c $(CORE_SRCS) $(wildcard src/*/*/*.h src/*/*.h src/*.h)
	@mkdir -p build/tsan
	@echo "  TSAN    $@"
	$(Q)$(TSAN_CC) -std=c11 $(filter-out -Wno-format-truncation,$(WARN)) $(TSAN_FLAGS) -D_GNU_SOURCE -DAPTOP_VERSION='"tsan"' -Isrc \
	    $(filter-out -D_XOPEN_SOURCE% -D_DEFAULT_SOURCE,$(PKG_CFLAGS)) \
	    -o $@ tests/tsan/test_handover.c $(CORE_SRCS) $(CORE_LIBS)
tsan: fixtures
	@mkdir -p build/tsan
	$(Q)if echo 'int main(void){return 0;}' | $(TSAN_CC) -fsanitize=thread -x c -o build/tsan/probe - 2>/dev/null \
	        && build/tsan/probe 2>/dev/null; then \
	    $(MAKE) --no-print-directory build/tsan/test_handover || exit 1; \
	    R=""; setarch $$(uname -m) -R true 2>/dev/null && R="setarch $$(uname -m) -R"; \
	    TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1" \
	        $$R build/tsan/test_handover fixtures/vllm_decode_2rank fixtures/phases; \
	else echo "tsan: skipped ($(TSAN_CC) cannot build or run -fsanitize=thread programs)"; fi
fuzz-regress: fuzz-build
	$(Q)for t in $(FUZZ_TARGETS); do n=$$(basename $$t); \
	    mkdir -p tests/fuzz/corpus/$$n tests/fuzz/regress/$$n; \
	    $$t -runs=0 -rss_limit_mb=2048 -timeout=10 tests/fuzz/regress/$$n tests/fuzz/corpus/$$n >build/fuzz/$$n.regress.log 2>&1 \
	        && echo "$$n: $$(sed -n 's/.*INITED.*corp: \([0-9]*\).*/\1/p' build/fuzz/$$n.regress.log | tail -n 1) inputs, no crash" \
	        || { echo "$$n: FAILED (build/fuzz/$$n.regress.log)"; exit 1; }; done
check-built: tsan

# new targets live in small files of their own (cross builds, portable folder)
include $(wildcard mk/*.mk)
