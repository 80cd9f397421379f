#!/bin/sh
# CSV benchmark: a generated 1-million-row kernel_details.csv (cached in build/bench/):
# load speed, table-to-rowset time and the sort time of every column.
cd "$(dirname "$0")/.." || exit 2
OUT=build/bench
mkdir -p "$OUT"
CC=${CC:-cc}
CJ=$(pkg-config --cflags libcjson 2>/dev/null)
echo "== CSV load and sort (bench/bench_csv.c)"
$CC -O2 -g -std=c11 -D_GNU_SOURCE -DAPTOP_VERSION='"bench"' -Isrc $CJ -o "$OUT/bench_csv" bench/bench_csv.c \
    $(ls src/util/*.c src/io/*/*.c src/model/*/*.c src/report/*.c) \
    -lsqlite3 -lcjson -lcsv -lz -lm -pthread || exit 1
"$OUT/bench_csv" "$OUT/kernel_details_1m.csv"
