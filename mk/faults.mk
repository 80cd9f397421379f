# `make check-faults`: fault injection against the real binary, built under ASan+UBSan like
# `make check` (tests/faults/faults.h lists the fault families, one file each): a trace cut
# while read, no terminal or one that goes away, SIGQUIT and SIGXFSZ, settings that are no
# file. Every tests/faults/*.c is part of build/san/faults_tests; it links no aptop code.
FAULTS_SRCS = $(wildcard tests/faults/*.c) tests/runner.c

.PHONY: check-faults check-faults-built
check-faults: deps
	$(Q)$(MAKE) --no-print-directory check-faults-built

check-faults-built: fixtures
	$(Q)$(MAKE) --no-print-directory B=build/san CFLAGS="$(SAN)" LDFLAGS="$(SAN)" build/san/aptop build/san/faults_tests
	$(Q)APTOP_BIN="$(CURDIR)/build/san/aptop" XDG_CACHE_HOME="$(CURDIR)/build/test_cache/xdg" \
	    ASAN_OPTIONS=$${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} build/san/faults_tests

$(B)/faults_tests: $(FAULTS_SRCS:%.c=$(B)/%.o)
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^
