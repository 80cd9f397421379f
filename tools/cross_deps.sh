#!/bin/sh
# Installs what a cross build for ARCH (arm64 or s390x) needs when it is missing (as root),
# or prints the exact commands and fails (any other user), like tools/deps.sh.
#   arm64: Debian's cross compiler, qemu-user, and the arm64 -dev packages (multiarch).
#   s390x: the cross compiler and qemu-user; its libraries are unpacked from Debian's
#          packages into SYSROOT (the second argument) instead of being installed, since
#          the big-endian build exists only to run the unit tests.
arch=$1
sysroot=$2
case $arch in
arm64) triplet=aarch64-linux-gnu
       host="gcc-aarch64-linux-gnu qemu-user"
       foreign="libncurses-dev libcjson-dev libcsv-dev libsqlite3-dev zlib1g-dev" ;;
s390x) triplet=s390x-linux-gnu
       host="gcc-s390x-linux-gnu qemu-user"
       foreign="" ;;
*) echo "cross_deps: usage: cross_deps.sh arm64|s390x [SYSROOT]"; exit 2 ;;
esac
if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "cross_deps: dpkg-query not found: install a $triplet cross compiler, qemu-user and" \
         "$arch builds of ncursesw, cJSON, libcsv and SQLite 3 by hand"
    exit 1
fi
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
root=false
[ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && root=true
missing=""
for p in $host; do installed "$p" || missing="$missing $p"; done
for p in $foreign; do installed "$p:$arch" || missing="$missing $p:$arch"; done
have_arch=false
dpkg --print-foreign-architectures 2>/dev/null | grep -qx "$arch" && have_arch=true
if [ -n "$missing" ] || ! $have_arch; then
    if ! $root; then
        echo "cross_deps: missing:$missing"
        $have_arch || echo "cross_deps: run: sudo dpkg --add-architecture $arch && sudo apt-get update"
        echo "cross_deps: run: sudo apt-get install -y$missing"
        exit 1
    fi
    if ! $have_arch; then
        dpkg --add-architecture "$arch" || exit 1
    fi
    echo "cross_deps: installing$missing"
    apt-get update -qq || exit 1
    if [ -n "$missing" ]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null || exit 1
    fi
fi
if [ "$arch" = s390x ] && [ -n "$sysroot" ] && [ ! -e "$sysroot/.unpacked" ]; then
    mkdir -p "$sysroot/debs" && chmod a+rwx "$sysroot/debs" || exit 1
    # libc6 for its character-set converters (GBK): the cross libc has none
    pkgs="libc6:s390x libgcc-s1:s390x libcjson-dev:s390x libcjson1:s390x libcsv-dev:s390x libcsv3:s390x libsqlite3-dev:s390x libsqlite3-0:s390x zlib1g-dev:s390x zlib1g:s390x"
    echo "cross_deps: unpacking $pkgs into $sysroot"
    (cd "$sysroot/debs" && apt-get download -qq $pkgs) || {
        apt-get update -qq && (cd "$sysroot/debs" && apt-get download -qq $pkgs) || exit 1; }
    for d in "$sysroot"/debs/*.deb; do dpkg-deb -x "$d" "$sysroot" || exit 1; done
    touch "$sysroot/.unpacked"
fi
exit 0
