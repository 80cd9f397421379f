#!/bin/sh
# DB load benchmark: a generated SQLite capture with 5 M TASK rows (cached in build/bench/),
# read into the model and kernel table; prints rows/s and memory per slice.
cd "$(dirname "$0")/.." || exit 2
OUT=build/bench
mkdir -p "$OUT"
CC=${CC:-cc}
CJ=$(pkg-config --cflags libcjson 2>/dev/null)
echo "== DB load (bench/bench_db.c)"
$CC -O2 -g -std=c11 -D_GNU_SOURCE -DAPTOP_VERSION='"bench"' -Isrc -Ibench $CJ -o "$OUT/bench_db" bench/bench_db.c \
    $(ls src/util/*.c src/io/*/*.c src/model/*/*.c src/report/*.c) \
    -lsqlite3 -lcjson -lcsv -lz -lm -pthread || exit 1
"$OUT/bench_db" "$OUT/profiler_5m.db" ${BENCH_DB_ROWS:-5000000}
