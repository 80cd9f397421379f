#!/bin/sh
# Installs the Debian packages aptop needs when they are missing (as root), or prints the
# exact command to run and fails (any other user), so that make stops before compiling.
# Packages named as arguments are needed too (CI adds the compilers of its checks).
PKGS="libncurses-dev libcjson-dev libcsv-dev libsqlite3-dev zlib1g-dev pkg-config tmux python3 make gcc $*"
if ! command -v dpkg-query >/dev/null 2>&1; then
    # Not a Debian system: nothing here can tell what is installed, so let the build say.
    echo "deps: dpkg-query not found, so installed packages cannot be checked; aptop needs" \
         "ncursesw, cJSON, libcsv, SQLite 3 and zlib headers, pkg-config, tmux and python3"
    exit 0
fi
# installed for this machine's architecture (or for all): another architecture's copy of a
# -dev package (the cross checks add arm64 ones) does not link a native build
arch=$(dpkg --print-architecture)
installed() {
    dpkg-query -W -f='${Status} ${Architecture}\n' "$1" 2>/dev/null |
        grep -q -e "install ok installed $arch\$" -e "install ok installed all\$"
}
missing=""
for p in $PKGS; do
    installed "$p" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing$missing"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null || exit 1
else
    echo "deps: missing packages:$missing"
    echo "deps: run: sudo apt-get install -y$missing"
    exit 1
fi
