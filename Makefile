# aptop — hand-written Makefile. `make` builds build/aptop; `make check` runs every test
# under ASan+UBSan; `make bench`, `make fuzz`, `make demo`, `make install`.
-include config.make

VERSION  = 0.1.0
PREFIX  ?= /usr/local
BINDIR   = $(PREFIX)/bin
MANDIR   = $(PREFIX)/share/man/man1
CC      ?= cc
PKGS     = ncursesw libcjson sqlite3

WARN     = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-format-truncation
ifeq ($(CI),true)
WARN    += -Werror
endif
CFLAGS  ?= -O2 -g
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
override CFLAGS += -std=c11 $(WARN) -D_GNU_SOURCE -DAPTOP_VERSION='"$(VERSION)"' \
                   -Isrc $(filter-out -D_XOPEN_SOURCE% -D_DEFAULT_SOURCE,$(PKG_CFLAGS))
CORE_LIBS = $(shell pkg-config --libs libcjson sqlite3 2>/dev/null || echo -lcjson -lsqlite3) -lcsv -pthread -lm
UI_LIBS   = $(shell pkg-config --libs ncursesw 2>/dev/null || echo -lncursesw)

# io and model never include curses: unit tests link them without -lncursesw.
CORE_SRCS = $(wildcard src/io/*.c src/model/*.c) src/report.c
UI_SRCS   = $(wildcard src/ui/*.c)
MAIN_SRCS = src/main.c
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

.PHONY: man all check test bench fuzz fuzz-build install uninstall clean deps demo fixtures

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

$(B)/ui_tests: $(UITEST_OBJS)
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CORE_LIBS)

$(B)/%.o: %.c
	@mkdir -p $(dir $@) $(B)/.deps/$(dir $*)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(CPPFLAGS) -MMD -MP -MF $(B)/.deps/$*.d -c -o $@ $<

-include $(wildcard $(B)/.deps/src/*/*.d $(B)/.deps/src/*.d $(B)/.deps/tests/*/*.d $(B)/.deps/tests/*.d)

# --- tests -------------------------------------------------------------------------------
SAN = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
check: deps fixtures
	$(Q)$(MAKE) --no-print-directory B=build/san CFLAGS="$(SAN)" LDFLAGS="$(SAN)" \
	    build/san/aptop build/san/unit_tests build/san/ui_tests
	$(Q)$(MAKE) --no-print-directory all
	$(Q)sh tests/run_all.sh build/san

test: check

fixtures: fixtures/.stamp
fixtures/.stamp: tools/gen_fixtures.py tools/gen_phase_fixtures.py
	$(Q)python3 tools/gen_fixtures.py fixtures
	$(Q)python3 tools/gen_phase_fixtures.py fixtures/phases
	$(Q)touch $@

# --- benchmarks (timings are printed, never asserted) ---------------------------------------
bench: all
	$(Q)sh bench/run.sh $(B)/aptop

# --- fuzzing (clang libFuzzer) ------------------------------------------------------------
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_TARGETS = $(patsubst tests/fuzz/%.c,build/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
fuzz-build: $(FUZZ_TARGETS)
build/fuzz/%: tests/fuzz/%.c $(CORE_SRCS)
	@mkdir -p build/fuzz
	@echo "  FUZZ    $@"
	$(Q)$(FUZZ_CC) -std=c11 -g -O1 -D_GNU_SOURCE -DAPTOP_VERSION='"fuzz"' -Isrc $(filter-out -D_XOPEN_SOURCE% -D_DEFAULT_SOURCE,$(PKG_CFLAGS)) \
	    -fsanitize=fuzzer,address,undefined -o $@ $< $(CORE_SRCS) $(CORE_LIBS)
fuzz: fixtures fuzz-build
	$(Q)sh tests/fuzz/run.sh $(FUZZ_SECONDS)

# --- setup, demo, install --------------------------------------------------------------------
deps:
	$(Q)sh tools/deps.sh

demo: deps fixtures all
	$(Q)$(B)/aptop fixtures/vllm_decode_2rank

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)
	install -m 755 $(B)/aptop $(DESTDIR)$(BINDIR)/aptop
	install -m 644 man/aptop.1 $(DESTDIR)$(MANDIR)/aptop.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/aptop $(DESTDIR)$(MANDIR)/aptop.1

clean:
	rm -rf build
