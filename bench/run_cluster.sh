#!/bin/sh
# Cluster summaries: a generated 64-rank capture (tools/gen_cluster_fixtures.py, BENCH_STEPS
# steps per rank, 100 by default), one summary per rank, then the cluster sections reported
# from the capture and from the folder of summaries (best of BENCH_RUNS, default 3), with
# the bytes each reads and the peak memory. Timings are printed, never asserted.
cd "$(dirname "$0")/.." || exit 2
APTOP=${1:-build/aptop}
OUT=build/bench/cluster
STEPS=${BENCH_STEPS:-100}
SECTIONS=capture,summary,overview,steps,phases,ranks,comm,rank_steps,comm_ends
CLUSTER=overview,steps,phases,ranks,comm
echo "== cluster summaries (bench/run_cluster.sh: 64 ranks, $STEPS steps each)"
if [ ! -d "$OUT/s$STEPS/capture" ]; then
    echo "generating $OUT/s$STEPS (once) ..."
    rm -rf "$OUT/s$STEPS"
    python3 tools/gen_cluster_fixtures.py --ranks 64 --steps "$STEPS" "$OUT/s$STEPS" >/dev/null || exit 1
fi
cap="$OUT/s$STEPS/capture"
sums="$OUT/s$STEPS/summaries"
rm -rf "$sums"
mkdir -p "$sums"
start=$(date +%s.%N)
for d in "$cap"/rank*_ascend_pt; do
    "$APTOP" report --format json --section "$SECTIONS" "$d" > "$sums/$(basename "$d").json" || exit 1
done
end=$(date +%s.%N)
echo "64 summaries written in $(awk "BEGIN{printf \"%.2f\", $end - $start}") s (one aptop per rank, as each host would)"
echo "capture: $(du -sb "$cap" | cut -f1) bytes; summaries: $(du -cb "$sums"/*.json | tail -1 | cut -f1) bytes"
best() {   # best wall time and its peak RSS of BENCH_RUNS reports of $1
    b=""
    i=0
    while [ $i -lt "${BENCH_RUNS:-3}" ]; do
        l=$( { /usr/bin/time -f "%e %M" "$APTOP" report --format json --section "$CLUSTER" --no-cache "$1" >/dev/null; } 2>&1 | tail -1)
        if [ -z "$b" ] || awk "BEGIN{exit !($(echo "$l" | cut -d' ' -f1) < $(echo "$b" | cut -d' ' -f1))}"; then b=$l; fi
        i=$((i + 1))
    done
    echo "$b"
}
d=$(best "$cap")
m=$(best "$sums")
echo "report $CLUSTER: direct load ${d% *} s, peak ${d#* } KB; summaries ${m% *} s, peak ${m#* } KB"
"$APTOP" report --format json --section "$CLUSTER" --no-cache "$cap" > "$OUT/direct.json"
"$APTOP" report --format json --section "$CLUSTER" "$sums" > "$OUT/merged.json"
if cmp -s "$OUT/direct.json" "$OUT/merged.json"; then echo "same JSON: yes"; else echo "same JSON: NO"; fi
