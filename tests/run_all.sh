#!/bin/sh
# Runs every test binary of a build directory and prints the summed closing line.
B=${1:-build}
export APTOP_BIN="$PWD/$B/aptop"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
# the index cache of the tests stays in the build folder, never in the user's ~/.cache
export XDG_CACHE_HOME="$PWD/build/test_cache/xdg"
tp=0; tf=0; ts=0; rc=0
for t in unit_tests ui_tests; do
    echo "== $t"
    out=$("$B/$t" 2>&1); st=$?
    printf '%s\n' "$out"
    line=$(printf '%s\n' "$out" | tail -n 1)
    p=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1/p')
    f=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\2/p')
    s=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\3/p')
    if [ -z "$p" ]; then echo "$t did not finish (status $st)"; tf=$((tf + 1)); rc=1; continue; fi
    tp=$((tp + p)); tf=$((tf + f)); ts=$((ts + s))
    [ "$st" = 0 ] || rc=1
done
echo "$tp passed, $tf failed, $ts skipped"
exit $rc
