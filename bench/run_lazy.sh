#!/bin/sh
# Many ranks in two passes: a generated 64-rank capture (tools/gen_lazy_fixtures.py,
# BENCH_STEPS steps of BENCH_LAYERS layers per rank, 400 x 40 by default: a trace of about
# 8 MB per rank), opened headless (--script) with at most 4 timelines in memory and with all
# 64, each run opening the same 16 ranks one after the other from the Ranks view. Prints the
# peak RSS of each run (/usr/bin/time), the time the small files took (the Ranks view is
# there then) against the time of a whole load, and the same with the index cache warm.
# Figures are printed, never asserted.
cd "$(dirname "$0")/.." || exit 2
APTOP=${1:-build/aptop}
STEPS=${BENCH_STEPS:-400}
LAYERS=${BENCH_LAYERS:-40}
OUT=build/bench/lazy
CAP="$OUT/s${STEPS}l${LAYERS}"
echo "== many ranks (bench/run_lazy.sh: 64 ranks, $STEPS steps x $LAYERS layers each)"
if [ ! -d "$CAP/lazy64" ]; then
    echo "generating $CAP (once) ..."
    rm -rf "$CAP"
    python3 tools/gen_lazy_fixtures.py --steps "$STEPS" --layers "$LAYERS" "$CAP" >/dev/null || exit 1
fi
echo "capture: $(du -sb "$CAP/lazy64" | cut -f1) bytes, trace of rank 0: $(wc -c < "$CAP/lazy64/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json") bytes"
# the script: the Ranks view, then ranks 8, 9, ..., 23 opened with Enter, each until its lanes show
SCRIPT="$OUT/open16.script"
{
    echo "timeout 120"
    echo "loaded"
    echo "dump"
    r=8
    while [ $r -lt 24 ]; do
        echo "keys 6"
        echo "wait [6]Ranks"
        printf 'keys Home'
        i=0
        while [ $i -lt $r ]; do printf ' Down'; i=$((i + 1)); done
        echo " Enter"
        echo "wait rank $r ▸"
        echo "wait Stream 2"
        echo "loaded"
        r=$((r + 1))
    done
    echo "keys 6"
    echo "wait [6]Ranks"
    echo "dump"
} > "$SCRIPT"
CACHE="$OUT/xdg"
run() {   # $1: label, the rest: options; prints peak RSS, the first message, the last caption
    label=$1
    shift
    log="$OUT/run.log"
    /usr/bin/time -f "%M %e" -o "$OUT/time.txt" env XDG_CACHE_HOME="$CACHE" LANG=C.UTF-8 \
        "$APTOP" --script "$SCRIPT" --size 200x40 "$@" "$CAP/lazy64" > "$log" 2>&1
    st=$?
    set -- $(cat "$OUT/time.txt")
    first=$(grep -m1 -o 'loaded 64 ranks[^;]* in [0-9]* ms' "$log")
    inmem=$(grep -o 'timelines in memory: [0-9]* of 64' "$log" | tail -1)
    echo "$label: peak RSS $(( $1 / 1024 )) MiB, wall $2 s, exit $st; $first; at the end $inmem"
}
rm -rf "$CACHE"
run "N=4,  cold, no cache " --no-cache --max-ranks 4
run "N=64, cold, no cache " --no-cache --max-ranks 64
run "N=4,  cache written  " --cache-min 1M --max-ranks 4
run "N=4,  cache warm     " --cache-min 1M --max-ranks 4
run "N=64, cache warm     " --cache-min 1M --max-ranks 64
/usr/bin/time -f "%M %e" -o "$OUT/time.txt" "$APTOP" report --no-cache --section ranks "$CAP/lazy64" > /dev/null
set -- $(cat "$OUT/time.txt")
echo "report (one pass, every rank whole): peak RSS $(( $1 / 1024 )) MiB, wall $2 s"
