#!/bin/sh
# Render benchmark: loads the ~1 GB generated trace (about 5 M slices) and draws a pan/zoom
# sequence of timeline frames into an off-screen terminal; prints per-frame p50/p99.
cd "$(dirname "$0")/.." || exit 2
APTOP=${1:-build/aptop}
f=build/bench/trace_1g.json
[ -s "$f" ] || f=build/bench/trace_100m.json
[ -s "$f" ] || { echo "render bench: no generated trace in build/bench"; exit 0; }
echo "== timeline render ($f)"
"$APTOP" --bench-render 500 "$f"
echo "== first frame and quit while loading ($f)"
python3 bench/first_frame.py "$APTOP" "$f"
