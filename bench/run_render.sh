#!/bin/sh
# Render benchmark: loads the largest generated trace (the 4 GiB one holds 9.8 M slices, the
# 1 GiB one 2.4 M) and draws a pan/zoom sequence of timeline frames into an off-screen
# terminal; prints per-frame p50/p99. Then the first frame and quitting during a load, and
# the kernel table's redraw while scrolling 229k instances of a 1M-row kernel_details.csv.
cd "$(dirname "$0")/.." || exit 2
APTOP=${1:-build/aptop}
f=build/bench/trace_4200m.json
[ -s "$f" ] || f=build/bench/trace_1g.json
[ -s "$f" ] || f=build/bench/trace_200m.json
[ -s "$f" ] || { echo "render bench: no generated trace in build/bench"; exit 0; }
echo "== timeline render ($f)"
"$APTOP" --bench-render 500 "$f"
echo "== first frame and quit while loading ($f)"
python3 bench/first_frame.py "$APTOP" "$f"
csv=build/bench/kernel_details_1m.csv
if [ -s "$csv" ]; then
    echo "== kernel table redraw ($csv)"
    "$APTOP" --bench-render 500 "$csv"
fi
