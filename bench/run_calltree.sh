#!/bin/sh
# The host call tree of the generated traces (bench/run.sh makes them, cached in build/bench/):
# its build time after the load (the explorer builds it on a thread of its own once the load
# is done, so it never delays the first frame; the target is at most 10% of the load), the
# time until the view can show it (the bottom-up tree and sorting too) and the memory it holds.
# BENCH_SIZES as in run.sh.
cd "$(dirname "$0")/.." || exit 2
OUT=build/bench
mkdir -p "$OUT"
CC=${CC:-cc}
CJ=$(pkg-config --cflags libcjson 2>/dev/null)
LIBS=$(pkg-config --libs libcjson sqlite3 zlib 2>/dev/null || echo -lcjson -lsqlite3 -lz)
echo "== host call tree (bench/bench_calltree.c: load, flow figures, then the tree)"
$CC -O2 -g -std=c11 -D_GNU_SOURCE -DAPTOP_VERSION='"bench"' -Isrc $CJ -o "$OUT/bench_calltree" bench/bench_calltree.c \
    src/util/*.c src/io/*/*.c src/model/*/*.c $LIBS -lcsv -pthread -lm || exit 1
for size in ${BENCH_SIZES:-200M 1G}; do
    f="$OUT/trace_$(echo "$size" | tr 'A-Z' 'a-z').json"
    if [ ! -s "$f" ]; then
        echo "generating $f (once) ..."
        python3 bench/gen_trace.py "$size" "$f" || exit 1
    fi
    line=$("$OUT/bench_calltree" "$f") || { echo "bench_calltree failed on $f"; exit 1; }
    printf '%s\n' "$line" | tr ' ' '\n' | awk -F= -v size="$size" '
        { v[$1] = $2 }
        END { printf "%s: %s slices loaded in %s s; flow figures %s s; call tree %s s = %.1f%% of the load (the view ready, bottom-up tree and sorting included: %s s = %.1f%%), %s nodes%s, %s MiB; peak RSS %s MiB (%s after the load)\n",
                     size, v["slices"], v["load_s"], v["flows_s"], v["tree_s"], 100 * v["tree_share"], v["ready_s"], 100 * v["ready_share"], v["nodes"],
                     v["truncated"] == 1 ? " (truncated)" : "", v["tree_mib"], v["peak_rss_mib"], v["peak_rss_load_mib"] }'
done
