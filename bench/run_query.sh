#!/bin/sh
# Query benchmark (bench/bench_query.c): a full-scan aggregation over 10 M slices through
# aptop's query engine against the same statement in the sqlite3 library over the same rows
# exported to a SQLite file (build/bench/query_slices.db), in the same run. Printed, never
# asserted. BENCH_QUERY_SLICES sets the slice count.
cd "$(dirname "$0")/.." || exit 2
OUT=build/bench
mkdir -p "$OUT"
CC=${CC:-cc}
CJ=$(pkg-config --cflags libcjson 2>/dev/null)
echo "== SQL over the index (bench/bench_query.c)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
$CC -O2 -g -std=c11 -D_GNU_SOURCE -DAPTOP_VERSION='"bench"' -Isrc $CJ -o "$OUT/bench_query" bench/bench_query.c \
    $(ls src/util/*.c src/io/*/*.c src/model/*/*.c src/query/*.c) \
    -lsqlite3 -lcjson -lcsv -lz -lm -pthread || exit 1
"$OUT/bench_query" "${BENCH_QUERY_SLICES:-10000000}" "$OUT/query_slices.db"
rm -f "$OUT/query_slices.db"
