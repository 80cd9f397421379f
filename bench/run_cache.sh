#!/bin/sh
# The index cache (bench/bench_cache.c): a cold load of the generated 1 GB trace (200 MB when
# BENCH_SIZES has no 1G) against reopening it from the cache, in the same run.
cd "$(dirname "$0")/.." || exit 2
OUT=build/bench
CC=${CC:-cc}
CJ=$(pkg-config --cflags libcjson 2>/dev/null)
LJ=$(pkg-config --libs libcjson 2>/dev/null || echo -lcjson)
f="$OUT/trace_1g.json"
[ -s "$f" ] || f="$OUT/trace_200m.json"
[ -s "$f" ] || { echo "== index cache: skipped (no generated trace; run bench/run.sh first)"; exit 0; }
echo "== index cache (bench/bench_cache.c: cold load vs reopen from the cache, $(basename "$f"))"
$CC -O2 -g -std=c11 -D_GNU_SOURCE -DAPTOP_VERSION='"bench"' -Isrc $CJ -o "$OUT/bench_cache" bench/bench_cache.c \
    $(ls src/util/*.c src/io/*/*.c src/model/*/*.c src/report/*.c) \
    -lsqlite3 $LJ -lcsv -lz -pthread -lm || exit 1
line=$("$OUT/bench_cache" "$f" "$OUT/cache") || { echo "bench_cache failed"; exit 1; }
figure() { printf '%s\n' "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
printf '    cold %s s, written in %s s; warm reopen %s s = %s%% of cold (target <= 10%%); cache file %s MiB, index in memory %s MiB\n' \
    "$(figure cold_s)" "$(figure store_s)" "$(figure warm_s)" "$(figure warm_pct)" "$(figure cache_mib)" "$(figure index_mib)"
csv="$OUT/kernel_details_1m.csv"
if [ -s "$csv" ]; then
    line=$("$OUT/bench_cache" --csv "$csv" "$OUT/cache") || { echo "bench_cache --csv failed"; exit 1; }
    printf '    %s: cold %s s, written in %s s; warm reopen %s s = %s%% of cold; cache file %s MiB, table in memory %s MiB\n' \
        "$(basename "$csv")" "$(figure cold_s)" "$(figure store_s)" "$(figure warm_s)" "$(figure warm_pct)" \
        "$(figure cache_mib)" "$(figure index_mib)"
fi
