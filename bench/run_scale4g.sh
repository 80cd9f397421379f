#!/bin/sh
# Scale check: a generated trace over 4 GiB (no 32-bit sizes, offsets or counts anywhere)
# loads with the counts an independent pass over the file gives. The trace is generated
# once into build/bench/ with bench/gen_trace.py (several minutes), its counts once next to
# it. Prints timings and peak memory; exits 1 when a count differs, 0 otherwise (also when
# the machine lacks the disk or memory, saying so).
# usage: bench/run_scale4g.sh (run by make bench) [aptop binary]   Environment: SCALE_SIZE (default 4200M);
# SCALE_MIN_BYTES=0 lets a smaller SCALE_SIZE through (to try the script quickly).
cd "$(dirname "$0")/.." || exit 2
BIN=${1:-build/aptop}
OUT=build/bench
SIZE=${SCALE_SIZE:-4200M}
lc=$(echo "$SIZE" | tr 'A-Z' 'a-z')
f=$OUT/trace_$lc.json
mkdir -p "$OUT"
[ -x "$BIN" ] || { echo "scale4g: $BIN not built"; exit 2; }

bytes=$(python3 -c "import sys; s=sys.argv[1].upper(); m={'K':1<<10,'M':1<<20,'G':1<<30}.get(s[-1:],1); print(int(float(s.rstrip('KMG'))*m))" "$SIZE")
if [ ! -s "$f" ]; then
    free_kb=$(df -Pk "$OUT" | awk 'NR==2 {print $4}')
    if [ "$free_kb" -lt $((bytes / 1024 + 1048576)) ]; then
        echo "scale4g: skipped, not enough disk for a $SIZE trace in $OUT"
        exit 0
    fi
    echo "scale4g: generating $f (once, several minutes) ..."
    t0=$(date +%s)
    nice python3 bench/gen_trace.py "$SIZE" "$f" || exit 1
    echo "scale4g: generated in $(( $(date +%s) - t0 )) s"
fi
size=$(stat -c %s "$f")
if [ "$size" -le "${SCALE_MIN_BYTES:-4294967296}" ]; then
    echo "scale4g: $f is $size bytes, not over 4 GiB: set SCALE_SIZE higher"
    exit 1
fi

# independent counts: every event of the generator carries one "ph":"<c>" (never inside a
# string); split at commas so no line is long, count per phase
counts=$f.counts
if [ ! -s "$counts" ] || [ "$counts" -ot "$f" ]; then
    echo "scale4g: counting events by phase (once) ..."
    LC_ALL=C tr ',' '\n' < "$f" | LC_ALL=C grep -o '"ph":"[A-Za-z]"' | LC_ALL=C sort | LC_ALL=C uniq -c \
        | awk '{ split($2, a, "\""); printf "%s %s\n", a[4], $1 }' > "$counts.tmp" && mv "$counts.tmp" "$counts"
fi

avail_kb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
if [ -n "$avail_kb" ] && [ "$avail_kb" -lt $((size / 1024 / 2)) ]; then
    echo "scale4g: skipped, $((avail_kb / 1024)) MiB available is less than half the trace"
    exit 0
fi

json=$OUT/scale4g.summary.json
timefile=$OUT/scale4g.time
t0=$(date +%s.%N)
if [ -x /usr/bin/time ]; then
    /usr/bin/time -v -o "$timefile" "$BIN" report --format json --section summary "$f" > "$json" 2>"$OUT/scale4g.stderr"
else
    "$BIN" report --format json --section summary "$f" > "$json" 2>"$OUT/scale4g.stderr"
fi
rc=$?
t1=$(date +%s.%N)
if [ $rc != 0 ]; then
    echo "scale4g: aptop report exited $rc:"; sed 's/^/    /' "$OUT/scale4g.stderr" | head -n 5
    exit 1
fi
rss=$( [ -f "$timefile" ] && sed -n 's/.*Maximum resident set size (kbytes): //p' "$timefile")
python3 - "$json" "$counts" "$size" "$t0" "$t1" "${rss:-0}" <<'PY'
import json, sys
path, counts_path, size, t0, t1, rss_kb = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
s = json.load(open(path))["summary"]
if isinstance(s, list):
    s = s[0]
want = {}
for line in open(counts_path):
    ph, n = line.split()
    want[ph] = int(n)
bad = []
def expect(name, got, exp):
    if got != exp:
        bad.append("%s: report %s, file %s" % (name, got, exp))
expect("events", s["events"], sum(want.values()))
for ph, n in sorted(want.items()):
    expect("events_by_ph[%s]" % ph, s["events_by_ph"].get(ph, 0), n)
expect("slices", s["slices"], want.get("X", 0))
expect("flows_matched", s["flows_matched"], want.get("s", 0))
expect("flows_unmatched", s["flows_unmatched"], 0)
expect("unknown_ph", s["unknown_ph"], 0)
wall = t1 - t0
print("scale4g: %.2f GiB, %d events: %.1f s wall (%.0f MiB/s), peak RSS %.0f MiB (%.2f of the file), load_ms %.0f"
      % (size / 2**30, s["events"], wall, size / 2**20 / wall, rss_kb / 1024, rss_kb * 1024 / size, s["load_ms"]))
if bad:
    print("scale4g: COUNTS DIFFER\n    " + "\n    ".join(bad))
    sys.exit(1)
print("scale4g: counts match (%s)" % ", ".join("%s=%d" % kv for kv in sorted(want.items())))
PY
