# --- a folder that can be copied to a host that cannot install packages -----------------------
# `make portable` (and `make portable-aarch64`): build/portable/aptop-VERSION-ARCH/ and its
# tarball. ncursesw, SQLite, zlib and libcsv are linked statically (Debian ships their static
# libraries); libcjson (shared only in Debian) is copied into lib/ and found through an
# $ORIGIN rpath; terminfo/ holds xterm, tmux and screen entries for hosts that lack them.
# Only the C library's own libraries are taken from the host.
.PHONY: portable portable-aarch64
PORTABLE_STATIC = -Wl,-Bstatic -lncursesw -ltinfo -lsqlite3 -lz -lcsv -Wl,-Bdynamic
PORTABLE_RPATH = -Wl,--disable-new-dtags -Wl,-rpath,'$$ORIGIN/lib'
PORTABLE_TERMS = xterm xterm-256color tmux tmux-256color screen screen-256color
# $(call portable_folder,ARCH,OBJDIR,CC,MULTIARCH-LIBDIR)
define portable_folder
	$(Q)d=build/portable/aptop-$(VERSION)-$(1); rm -rf $$d $$d.tar.gz; mkdir -p $$d/lib $$d/terminfo && \
	echo "  LD      $$d/aptop" && \
	$(3) $(CFLAGS) -o $$d/aptop $(MAIN_SRCS:%.c=$(2)/%.o) $(UI_SRCS:%.c=$(2)/%.o) $(CORE_SRCS:%.c=$(2)/%.o) \
	    $(PORTABLE_STATIC) -lcjson -pthread -lm -ldl $(PORTABLE_RPATH) && \
	cp -L $(4)/libcjson.so.1 $$d/lib/ && \
	for t in $(PORTABLE_TERMS); do infocmp -x $$t >$$d/terminfo/.src && tic -x -o $$d/terminfo $$d/terminfo/.src || exit 1; done && \
	rm -f $$d/terminfo/.src && cp man/aptop.1 $$d/ && \
	tar -C build/portable -czf $$d.tar.gz aptop-$(VERSION)-$(1) && echo "portable: $$d ($$d.tar.gz)" && \
	echo "portable: needs the host's glibc $$(readelf -V $$d/aptop $$d/lib/libcjson.so.1 | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n -u | tail -n 1) or newer"
endef

HOST_ARCH := $(shell uname -m)
HOST_MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null || echo $(HOST_ARCH)-linux-gnu)

portable: all
	$(call portable_folder,$(HOST_ARCH),$(B),$(CC),/usr/lib/$(HOST_MULTIARCH))

portable-aarch64: aarch64
	$(call portable_folder,aarch64,build/aarch64,$(AARCH64_CC),/usr/lib/aarch64-linux-gnu)

# the tests check the folder (tests/ui/test_portable.c)
check-built: portable

# the aarch64 folder: only libcjson (in lib/) and the C library's own files are needed, and
# it runs under qemu-aarch64 with an empty LD_LIBRARY_PATH
check-portable-aarch64: portable-aarch64
	$(Q)d=build/portable/aptop-$(VERSION)-aarch64; \
	n=$$(readelf -d $$d/aptop | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' '); echo "$$d/aptop needs: $$n"; \
	for l in $$n; do case $$l in libcjson.so.1) [ -e $$d/lib/$$l ] || exit 1;; \
	    libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|ld-linux-*) ;; *) echo "not in the folder: $$l"; exit 1;; esac; done; \
	readelf -d $$d/aptop | grep -q 'rpath.*\[\$$ORIGIN/lib\]' && LD_LIBRARY_PATH= qemu-aarch64 $$d/aptop --version
.PHONY: check-portable-aarch64
