#!/bin/sh
# Real traces written by others (../shared/real): the largest Kineto trace and the largest
# Ascend trace_view.json, each read into a usable index by bench_load (built by bench/run.sh)
# against Python's json.load of the same file in the same run. The generated traces of
# bench/run.sh are compact; real ones have blanks, line breaks and long call stacks.
# Skipped with a message when that folder is absent. Timings are printed, never asserted.
cd "$(dirname "$0")/.." || exit 2
OUT=build/bench
REAL=../shared/real
[ -d "$REAL" ] || { echo "== real traces: skipped ($REAL is absent)"; exit 0; }
[ -x "$OUT/bench_load" ] || { echo "== real traces: skipped (no $OUT/bench_load; run bench/run.sh first)"; exit 0; }
echo "== real traces (bench_load, best of ${BENCH_RUNS:-3}, against python3 json.load)"
# largest FILE matching NAME under the real captures
largest() { find "$REAL" -name "$1" -type f -exec ls -s {} + 2>/dev/null | sort -n | tail -n 1 | awk '{print $2}'; }
kineto=$(largest '*.pt.trace.json.gz')
if [ -n "$kineto" ]; then
    # unpacked once: the figure is the reader's, not the decompressor's
    k="$OUT/real_kineto.json"
    [ -s "$k" ] && [ "$k" -nt "$kineto" ] || gzip -dc "$kineto" > "$k" || exit 1
fi
for f in ${k:-} $(largest trace_view.json); do
    [ -s "$f" ] || continue
    best=""
    i=0
    while [ $i -lt "${BENCH_RUNS:-3}" ]; do
        t=$("$OUT/bench_load" "$f" 2>/dev/null | tr ' ' '\n' | sed -n 's/^total_s=//p')
        if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
        i=$((i + 1))
    done
    py=$(python3 -c 'import json, sys, time; t = time.monotonic(); json.load(open(sys.argv[1])); print("%.4f" % (time.monotonic() - t))' "$f")
    size=$(wc -c < "$f")
    name=${f#"$REAL"/}
    [ "$f" = "$OUT/real_kineto.json" ] && name="${kineto#"$REAL"/} (unpacked)"
    echo "$size $best $py" | awk -v name="$name" '{ printf "    %s: %.1f MiB in %.4f s (%.0f MiB/s); python3 json.load %.3f s: aptop %.0fx faster\n",
        name, $1 / 1048576, $2, $1 / 1048576 / $2, $3, $3 / $2 }'
done
exit 0
