#!/bin/sh
# Runs every build/fuzz/fuzz_* target for $1 seconds (default 60) on its corpus
# tests/fuzz/corpus/<target>/, seeded from fixtures/ and a few built-in inputs. Prints the
# executions and findings of each target; exits 1 when any target found a crash.
SECS=${1:-60}
cd "$(dirname "$0")/../.." || exit 2
mkdir -p build/fuzz/findings
status=0
found_any=0
for t in build/fuzz/fuzz_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    corpus=tests/fuzz/corpus/$name
    mkdir -p "$corpus"
    # seeds: fixture files this target reads (small ones only)
    case $name in
        fuzz_trace) pat='trace_view.json msprof*.json *timeline*.json' ;;
        fuzz_comm) pat='communication*.json' ;;
        fuzz_db) pat='*.db' ;;
        fuzz_csv) pat='*.csv' ;;
        fuzz_memory) pat='*mem*.csv memory_record*.csv' ;;
        fuzz_capture) pat='profiler_info*.json profiler_metadata.json' ;;
        *) pat='' ;;
    esac
    for p in $pat; do
        find fixtures -name "$p" -size -256k -type f 2>/dev/null | head -n 20 | while read -r f; do
            # the first byte of every fuzz input is a mode byte: prefix one
            key=$(echo "$f" | cksum | cut -d' ' -f1)
            [ -f "$corpus/seed-$key" ] || { printf '\377'; cat "$f"; } > "$corpus/seed-$key"
        done
    done
    if [ "$name" = fuzz_trace ]; then
        printf '\377[{"ph":"X","name":"a","pid":1,"tid":1,"ts":"1.5","dur":2,"args":{"k":[1]}},{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"Ascend Hardware"}}]' > "$corpus/seed-basic"
        printf '\020{"traceEvents":[{"ph":"B","name":"b","pid":"p","tid":"t","ts":1},{"ph":"E","pid":"p","tid":"t","ts":3},{"ph":"s","bp":"e","cat":"async_npu","id":"18446744073709551615","pid":"p","tid":"t","ts":2},{"ph":"f","cat":"async_npu","id":18446744073709551615,"pid":"p","tid":"t","ts":2},{"ph":"C","name":"c","processName":"HBM","pid":2,"tid":0,"ts":1,"args":{"a":1,"b":2}}]}' > "$corpus/seed-object"
    fi
    if [ "$name" = fuzz_summary ]; then
        printf '{"capture": [{"rank": 1, "device": 0, "label": "r1", "status": "loaded", "steps_note": "", "comm_sources": 1}],\n"steps": [{"index": 1, "phase": "decode", "start_us": 1.000, "dur_us": 2.500, "busy_share": 0.5}],\n"ranks": [{"rank": 1, "groups": {"tp": [0, 1], "dp": [1]}}],\n"comm": [{"rank": 1, "step": "step1", "kind": "collective", "name": "hcom_a@1", "start_us": 1.000, "elapse_ms": 0.002, "wait_ms": 1e-3, "transit_mb": 2.5}],\n"rank_steps": [{"rank": 1, "step": 1, "step_us": 2.500, "source": "markers"}],\n"comm_ends": [{"rank": 1, "name": "hcom_a", "ordinal": 0, "end_us": 3.000}]}' > "$corpus/seed-summary"
        printf '{"parallel_group_info": {"group_name_1": {"group_name": "tp", "group_rank": 0, "global_ranks": [0, 1]}}, "comm_group_parallel_info": [{"type": "collective", "rank_set": [0, 1], "pg_name": "dp"}]}' > "$corpus/seed-groups"
    fi
    if [ "$name" = fuzz_gzip ]; then
        printf '\001\040\377{"schemaVersion":1,"deviceProperties":[{"id":0,"name":"G"}],"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1.25,"dur":2},{"ph":"f","cat":"ac2g","id":1,"pid":0,"tid":7,"ts":1.25,"bp":"e"},{"ph":"X","cat":"gpu_user_annotation","name":"a","pid":0,"tid":7,"ts":1,"dur":5}],"baseTimeNanoseconds":1751410836000000000}' > "$corpus/seed-kineto"
        printf '\001\100\200[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2},{"ph":"i","cat":"cpu_instant_event","name":"m","pid":1,"tid":1,"ts":2}]' > "$corpus/seed-cut"
    fi
    log=build/fuzz/findings/$name.log
    "$t" -max_total_time="$SECS" -print_final_stats=1 -rss_limit_mb=2048 -max_len=65536 -timeout=10 \
        -artifact_prefix="build/fuzz/findings/$name-" "$corpus" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    findings=$(ls build/fuzz/findings/"$name"-* 2>/dev/null | grep -v '\.log$' | wc -l)
    echo "$name: ${execs:-0} executions in ${SECS}s, exit $rc, $findings finding(s)"
    if [ "$rc" != 0 ] || [ "$findings" != 0 ]; then
        status=1
        found_any=1
        grep -m 5 -E 'ERROR|SUMMARY|runtime error' "$log" | sed 's/^/    /'
        ls build/fuzz/findings/"$name"-* 2>/dev/null | grep -v '\.log$' | sed 's/^/    finding: /'
    fi
done
[ "$found_any" = 0 ] && echo "fuzz: no findings"
exit $status
