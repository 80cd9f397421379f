#!/bin/sh
# Runs one test binary (the command and its arguments, e.g. under qemu-user) as
# APTOP_TEST_SHARDS shards side by side (default: the machine's cores; tests/runner.c keeps a
# test file's tests in one shard), each with its own index-cache folder, then prints the
# shards' outputs one after another and one summed closing line "N passed, N failed, N skipped".
# Exits 1 when a test failed or a shard did not finish.
[ $# -ge 1 ] || { echo "usage: tests/run_shards.sh COMMAND [ARGS...]" >&2; exit 2; }
n=${APTOP_TEST_SHARDS:-$(nproc 2>/dev/null || echo 1)}
[ "$n" -ge 1 ] 2>/dev/null || n=1
out=$(mktemp -d "${TMPDIR:-/tmp}/aptop-shards-XXXXXX") || exit 2
cache=${XDG_CACHE_HOME:-$PWD/build/test_cache/xdg}
i=0
while [ "$i" -lt "$n" ]; do
    ( APTOP_TEST_SHARD="$i/$n" XDG_CACHE_HOME="$cache-shard$i" "$@" > "$out/$i" 2>&1
      echo $? > "$out/$i.status" ) &
    i=$((i + 1))
done
wait
closing='^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$'
tp=0; tf=0; ts=0; rc=0; i=0
while [ "$i" -lt "$n" ]; do
    line=$(tail -n 1 "$out/$i")
    p=$(echo "$line" | sed -n "s/$closing/\1/p")
    if [ -n "$p" ]; then
        sed '$d' "$out/$i"   # the shard's own closing line: summed into the one below
        tp=$((tp + p))
        tf=$((tf + $(echo "$line" | sed -n "s/$closing/\2/p")))
        ts=$((ts + $(echo "$line" | sed -n "s/$closing/\3/p")))
        [ "$(cat "$out/$i.status")" = 0 ] || rc=1
    else
        cat "$out/$i"
        echo "$1: shard $i of $n did not finish (status $(cat "$out/$i.status" 2>/dev/null))"
        tf=$((tf + 1)); rc=1
    fi
    i=$((i + 1))
done
rm -rf "$out"
echo "$tp passed, $tf failed, $ts skipped"
exit $rc
