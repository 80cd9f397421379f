#!/bin/sh
# gzipped trace benchmark: the ~1 GB generated trace gzipped once (cached in build/bench/),
# then, in the same run and on the same file, `gzip -dc > /dev/null` and aptop's load to a
# usable index (bench_load: decompression on its own thread feeding the parser, finalize
# included). Prints both walls, their ratio and peak memory per event. Timings are printed,
# never asserted. BENCH_GZIP_SIZE (default 1G) picks the trace; BENCH_RUNS (default 3) the
# best of how many.
cd "$(dirname "$0")/.." || exit 2
OUT=build/bench
size=${BENCH_GZIP_SIZE:-1G}
lc=$(echo "$size" | tr 'A-Z' 'a-z')
plain="$OUT/trace_$lc.json"
gz="$plain.gz"
echo "== gzipped trace load against gzip -dc (bench/run_gzip.sh)"
[ -x "$OUT/bench_load" ] || { echo "bench_load not built (run bench/run.sh first)"; exit 1; }
if [ ! -s "$plain" ] && [ ! -s "$gz" ]; then
    echo "generating $plain (once) ..."
    python3 bench/gen_trace.py "$size" "$plain" || exit 1
fi
if [ ! -s "$gz" ]; then
    echo "compressing $gz (once) ..."
    gzip -c -6 "$plain" > "$gz.tmp" && mv "$gz.tmp" "$gz" || exit 1
fi
now() { date +%s.%N; }
runs=${BENCH_RUNS:-3}
best_gz="" best_line=""
i=0
while [ $i -lt "$runs" ]; do
    t0=$(now); gzip -dc "$gz" > /dev/null; t1=$(now)
    w=$(echo "$t0 $t1" | awk '{printf "%.3f", $2 - $1}')
    if [ -z "$best_gz" ] || awk "BEGIN{exit !($w < $best_gz)}"; then best_gz=$w; fi
    line=$("$OUT/bench_load" "$gz") || { echo "bench_load failed on $gz"; exit 1; }
    t=$(printf '%s\n' "$line" | tr ' ' '\n' | sed -n 's/^total_s=//p')
    if [ -z "$best_line" ] || awk "BEGIN{exit !($t < $(printf '%s\n' "$best_line" | tr ' ' '\n' | sed -n 's/^total_s=//p'))}"; then
        best_line=$line
    fi
    i=$((i + 1))
done
fig() { printf '%s\n' "$best_line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
csize=$(wc -c < "$gz")
echo "$csize $(fig events) $best_gz $(fig total_s) $(fig read_s) $(fig finalize_s) $(fig peak_rss_mib) $(fig peak_b_per_event) $(fig index_b_per_event)" | awk '{
    printf "%s gzipped: %.1f MiB compressed, %d events; gzip -dc > /dev/null %.3f s wall; aptop %.3f s wall (read %.3f s + finalize %.3f s) = %.2fx gzip -dc\n",
           "'"$size"'", $1 / 1048576, $2, $3, $4, $5, $6, $4 / $3
    printf "    peak RSS %d MiB = %s B/event; index %s B/event\n", $7, $8, $9 }'
echo "    load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
