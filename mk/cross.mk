# --- cross builds run under qemu-user -------------------------------------------------------
# `make check-aarch64`: aptop and the unit tests for aarch64 (most Ascend hosts) with Debian's
# cross compiler and arm64 -dev packages, the tests run under qemu-aarch64.
# `make check-s390x`: the unit tests for a big-endian machine (s390x), where the readers'
# word-at-a-time paths fall back to byte steps; its libraries come from Debian's s390x
# packages unpacked under build/s390x/sysroot. Both end with "N passed, N failed".
.PHONY: aarch64 check-aarch64 s390x-build check-s390x
AARCH64_CC ?= aarch64-linux-gnu-gcc
S390X_CC ?= s390x-linux-gnu-gcc
CROSS_CFLAGS ?= -O2 -g
S390X_ROOT = $(CURDIR)/build/s390x/sysroot
S390X_LIB = $(S390X_ROOT)/usr/lib/s390x-linux-gnu

aarch64:
	$(Q)sh tools/cross_deps.sh arm64
	$(Q)PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig \
	    $(MAKE) --no-print-directory B=build/aarch64 CC=$(AARCH64_CC) CFLAGS="$(CROSS_CFLAGS)" \
	    build/aarch64/aptop build/aarch64/unit_tests

check-aarch64: fixtures aarch64
	$(Q)m=$$(readelf -h build/aarch64/aptop | sed -n 's/^ *Machine: *//p'); echo "build/aarch64/aptop: ELF for $$m"; \
	    [ "$$m" = AArch64 ]
	$(Q)qemu-aarch64 build/aarch64/aptop --version
	@# tests that run aptop run the aarch64 one, through qemu
	$(Q)printf '#!/bin/sh\nexec qemu-aarch64 "%s/build/aarch64/aptop" "$$@"\n' "$(CURDIR)" > build/aarch64/aptop-qemu
	$(Q)chmod +x build/aarch64/aptop-qemu
	$(Q)APTOP_TEST_EMULATED=aarch64 APTOP_BIN=$(CURDIR)/build/aarch64/aptop-qemu sh tests/run_shards.sh qemu-aarch64 build/aarch64/unit_tests

# the unit tests built for s390x (what check-s390x runs)
s390x-build:
	$(Q)sh tools/cross_deps.sh s390x $(S390X_ROOT)
	$(Q)PKG_CONFIG_LIBDIR=$(S390X_LIB)/pkgconfig PKG_CONFIG_SYSROOT_DIR=$(S390X_ROOT) \
	    $(MAKE) --no-print-directory B=build/s390x CC=$(S390X_CC) \
	    CFLAGS="$(CROSS_CFLAGS) -I$(S390X_ROOT)/usr/include -I$(S390X_ROOT)/usr/include/cjson" \
	    LDFLAGS="-L$(S390X_LIB) -Wl,-rpath-link,$(S390X_LIB)" build/s390x/unit_tests

check-s390x: fixtures all s390x-build
	@# tests that run aptop run this machine's build (only the unit tests are built for s390x);
	@# APTOP_TEST_EMULATED (see tests/runner.h): the tests that qemu-user cannot show skip
	$(Q)APTOP_TEST_EMULATED=s390x APTOP_BIN=$(CURDIR)/build/aptop sh tests/run_shards.sh qemu-s390x -L $(S390X_ROOT) build/s390x/unit_tests
