#!/bin/sh
# Memory benchmark: a generated 1.5 GB memory_record.csv (cached in build/bench/) streamed into
# the memory model: read rate, peak RSS / file size (the target is at most 0.3 and at least
# 150 MB/s), and the peaks compared with the generator's. BENCH_MEMORY_MB sets the size.
cd "$(dirname "$0")/.." || exit 2
OUT=build/bench
mkdir -p "$OUT"
CC=${CC:-cc}
MB=${BENCH_MEMORY_MB:-1536}
F="$OUT/memory_record_${MB}m.csv"
echo "== memory_record.csv streaming (bench/bench_memory.c)"
$CC -O2 -g -std=c11 -D_GNU_SOURCE -Isrc -o "$OUT/bench_memory" bench/bench_memory.c \
    src/io/tables/memory_read.c src/io/tables/csv_stream.c src/model/analysis/memory.c src/model/index/strtab.c src/model/index/diag.c \
    src/model/index/timeparse.c src/model/index/num_prec.c src/model/index/table.c src/model/rowsets/rowset.c src/model/rowsets/escape.c src/util/*.c -lcsv -lm -pthread || exit 1
$CC -O2 -std=c11 -D_GNU_SOURCE -o "$OUT/gen_memory" bench/gen_memory.c || exit 1
if [ ! -s "$F" ] || [ ! -s "$F.expect" ]; then
    echo "generating $F (once) ..."
    "$OUT/gen_memory" "$F.tmp" "$MB" > "$F.expect.tmp" && mv "$F.tmp" "$F" && mv "$F.expect.tmp" "$F.expect" || exit 1
fi
cat "$F" > /dev/null   # from the page cache, like the other benchmarks' best runs
line=$("$OUT/bench_memory" "$F") || { echo "bench_memory failed"; exit 1; }
first=$(printf '%s\n' "$line" | head -n 1)
printf '%s\n' "$first" | tr ' ' '\n' | awk -F= '
    { v[$1] = $2 }
    END { printf "%s MiB, %s rows: %s s wall = %s MiB/s (cpu %s MiB/s); peak RSS %s MiB = %s of the file; model %s MiB, %s curve points\n",
                 v["size_mib"], v["rows"], v["wall_s"], v["mib_s"], v["cpu_mib_s"], v["peak_rss_mib"], v["rss_ratio"], v["model_mib"], v["points"] }'
want=$(grep '^peak' "$F.expect" | sort)
got=$(printf '%s\n' "$line" | grep '^peak' | sort)
if [ "$want" = "$got" ]; then echo "    peaks equal the generator's (4 components)"; else echo "    PEAKS DIFFER:"; echo "$want"; echo "$got"; fi
