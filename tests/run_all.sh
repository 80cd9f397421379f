#!/bin/sh
# Runs every test binary of a build directory and prints the summed closing line. The unit
# and the UI tests run side by side, each split in shards (tests/run_shards.sh).
B=${1:-build}
export APTOP_BIN="$PWD/$B/aptop"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
out=$(mktemp -d "${TMPDIR:-/tmp}/aptop-tests-XXXXXX") || exit 2
for t in unit_tests ui_tests; do
    # the index cache of the tests stays in the build folder, never in the user's ~/.cache
    XDG_CACHE_HOME="$PWD/build/test_cache/xdg-$t" sh tests/run_shards.sh "$B/$t" > "$out/$t" 2>&1 &
done
wait
closing='^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$'
tp=0; tf=0; ts=0
for t in unit_tests ui_tests; do
    echo "== $t"
    sed '$d' "$out/$t"
    line=$(tail -n 1 "$out/$t")
    tp=$((tp + $(echo "$line" | sed -n "s/$closing/\1/p")))
    tf=$((tf + $(echo "$line" | sed -n "s/$closing/\2/p")))
    ts=$((ts + $(echo "$line" | sed -n "s/$closing/\3/p")))
done
rm -rf "$out"
echo "$tp passed, $tf failed, $ts skipped"
[ "$tf" = 0 ]
