#!/usr/bin/env python3
"""Writes pairs of generated captures for `aptop report --diff` with planted changes.

usage: gen_diff_fixtures.py [--steps N] OUTDIR      (N steps per rank, 20 by default)

Each pair is OUTDIR/<pair>/base and OUTDIR/<pair>/new (torch_npu layout:
rank<N>_ascend_pt/ASCEND_PROFILER_OUTPUT/{trace_view.json,kernel_details.csv}) and
OUTDIR/<pair>/EXPECTED.json: which kernels (by name and by type) must come out "slower",
"added" or "removed" -- every other kernel must be "unchanged" -- and the expected status of
the decode phase and of each rank.

The captures model a decode-only serving loop: ProfilerStep#N host markers, one stream, a
fixed kernel sequence per step (one IncreFlashAttention, so every step is decode). Both
sides draw independent noise: every kernel duration varies by +-2% and the idle gap between
kernels by +-20%, so the steps of one side vary by about 1%. Planted in "new" (pair
"planted"): one kernel 30% slower, one kernel inserted into every step, one removed from
every step. The communication kernel's per-process op id differs between the sides
(hcom_allReduce__<id>_0_1), as it does between two runs. Pair "ranks": base has ranks 0-1,
new ranks 0-2 and nothing planted (rank 2 is only in new). Pair "steps": nothing planted,
base has 20 steps, new 15 (totals differ, the time per step does not). Deterministic (fixed seeds),
Python stdlib only.
"""
import json
import os
import random
import sys

BASE_NS = 1736405443000000 * 1000
DEV_PID = 3170820512
PY_PID = 3096504 << 10
HOST_TID = 3096504
STREAM = 2
STEPS = 20

# (name, type, core, base duration ns)
KERNELS = [
    ("aclnnRmsNorm_RmsNormAiCore_RmsNorm", "RmsNorm", "AI_VECTOR_CORE", 21000),
    ("aclnnMm_MatMulCommon_MatMulV2", "MatMulV2", "AI_CORE", 180000),
    ("aclnnApplyRotaryPosEmb_ApplyRotaryPosEmb", "ApplyRotaryPosEmb", "AI_VECTOR_CORE", 16000),
    ("aclnnIncreFlashAttentionV4_IncreFlashAttention_IncreFlashAttention", "IncreFlashAttention", "AI_CORE", 95000),
    ("aclnnQuantMatmulV4_QuantBatchMatmulV3_QuantBatchMatmulV3", "QuantBatchMatmulV3", "AI_CORE", 400000),
    ("aclnnSwiGlu_SwiGlu_SwiGlu", "SwiGlu", "AI_VECTOR_CORE", 38000),
    ("aclnnAdd_AddAiCore_Add", "Add", "AI_VECTOR_CORE", 9000),
    ("aclnnCast_CastAiCore_Cast", "Cast", "AI_VECTOR_CORE", 20000),
    ("hcom_allReduce__{id}_0_1", "hcom_allReduce_", "HCCL", 120000),
    ("aclnnArgMax_ArgMaxV2_ArgMaxV2", "ArgMaxV2", "AI_VECTOR_CORE", 12000),
]
SLOWER = "aclnnQuantMatmulV4_QuantBatchMatmulV3_QuantBatchMatmulV3"        # x 1.3 in new
REMOVED = "aclnnCast_CastAiCore_Cast"                                       # gone in new
INSERTED = ("aclnnTopKV2_TopKV2_TopKV2", "TopKV2", "AI_VECTOR_CORE", 55000)  # new, after SwiGlu
INSERT_AFTER = "aclnnSwiGlu_SwiGlu_SwiGlu"

KD_HEADER = ["Step Id", "Model ID", "Task ID", "Stream ID", "Name", "Type", "Accelerator Core",
             "Start Time(us)", "Duration(us)", "Wait Time(us)", "Block Dim", "Input Shapes",
             "Input Data Types", "Output Shapes"]


def us(ns):
    return "%d.%03d" % (ns // 1000, ns % 1000)


def sequence(planted):
    seq = []
    for name, typ, core, dur in KERNELS:
        if planted and name == REMOVED:
            continue
        if planted and name == SLOWER:
            dur = dur * 13 // 10
        seq.append((name, typ, core, dur))
        if planted and name == INSERT_AFTER:
            seq.append(INSERTED)
    return seq


def write_rank(root, rank, seq, seed, op_id, steps=STEPS):
    rng = random.Random(seed)
    events = [
        {"ph": "M", "name": "process_name", "pid": DEV_PID, "tid": 0, "args": {"name": "Ascend Hardware"}},
        {"ph": "M", "name": "thread_name", "pid": DEV_PID, "tid": STREAM, "args": {"name": "Stream %d" % STREAM}},
        {"ph": "M", "name": "process_name", "pid": PY_PID, "tid": 0, "args": {"name": "Python"}},
        {"ph": "M", "name": "thread_name", "pid": PY_PID, "tid": HOST_TID, "args": {"name": "Thread %d" % HOST_TID}},
    ]
    rows = []
    t = BASE_NS + 1000000 + rank * 1000
    task = 100
    for step in range(steps):
        mark0 = t - 300000
        for name, typ, core, dur in seq:
            name = name.format(id=op_id)
            d = dur * rng.randint(980, 1020) // 1000
            task += 1
            events.append({"name": name, "pid": DEV_PID, "tid": STREAM, "ts": us(t), "dur": us(d), "ph": "X",
                           "args": {"Model Id": 4294967295, "Task Type": "HCCL" if core == "HCCL" else "AI_CORE",
                                    "Physic Stream Id": STREAM, "Task Id": task}})
            rows.append([step, 4294967295, task, STREAM, name, typ, core, us(t) + "\t", us(d), "0.000", 24,
                         '"8,4096"', "DT_BF16", '"8,4096"'])
            t += d + 2000 * rng.randint(800, 1200) // 1000
        events.append({"ph": "X", "name": "ProfilerStep#%d" % (step + 1), "pid": PY_PID, "tid": HOST_TID,
                       "ts": us(mark0), "dur": us(t - mark0 + 100000), "cat": "cpu_op", "args": {}})
        t += 2000000
    apo = os.path.join(root, "rank%d_ascend_pt" % rank, "ASCEND_PROFILER_OUTPUT")
    os.makedirs(apo, exist_ok=True)
    with open(os.path.join(apo, "trace_view.json"), "w") as f:
        json.dump(events, f, separators=(",", ":"))
    with open(os.path.join(apo, "kernel_details.csv"), "w", newline="") as f:
        f.write(",".join(KD_HEADER) + "\n")
        for r in rows:
            f.write(",".join(str(c) for c in r) + "\n")


def main():
    args = sys.argv[1:]
    steps = STEPS
    if len(args) == 3 and args[0] == '--steps' and args[1].isdigit():
        steps = int(args[1])
        args = args[2:]
    if len(args) != 1:
        sys.exit(__doc__)
    out = args[0]
    # planted: 2 ranks on both sides, changes in new
    pair = os.path.join(out, "planted")
    for rank in range(2):
        write_rank(os.path.join(pair, "base"), rank, sequence(False), 1000 + rank, 868, steps)
        write_rank(os.path.join(pair, "new"), rank, sequence(True), 2000 + rank, 586, steps)
    typ = {k[0]: k[1] for k in KERNELS + [INSERTED]}
    with open(os.path.join(pair, "EXPECTED.json"), "w") as f:
        json.dump({"kernels": {"slower": [SLOWER], "added": [INSERTED[0]], "removed": [REMOVED]},
                   "kernel_types": {"slower": [typ[SLOWER]], "added": [INSERTED[1]], "removed": [typ[REMOVED]]},
                   "phases": {"decode": "slower"}, "ranks": {"0": "slower", "1": "slower"},
                   "decode_positions": {"slower": [SLOWER], "added": [INSERTED[0]], "removed": [REMOVED]},
                   "about": "new: one kernel 30%% slower, one inserted after %s, one removed" % INSERT_AFTER},
                  f, indent=1)
    # ranks: nothing planted, new has one more rank
    pair = os.path.join(out, "ranks")
    for rank in range(2):
        write_rank(os.path.join(pair, "base"), rank, sequence(False), 3000 + rank, 868)
    for rank in range(3):
        write_rank(os.path.join(pair, "new"), rank, sequence(False), 4000 + rank, 586)
    with open(os.path.join(pair, "EXPECTED.json"), "w") as f:
        json.dump({"kernels": {"slower": [], "added": [], "removed": []}, "added_rank": 2,
                   "phases": {"decode": "unchanged"}, "ranks": {"0": "unchanged", "1": "unchanged", "2": "added"},
                   "about": "no change; rank 2 only in new"}, f, indent=1)
    # steps: nothing planted, fewer steps in new
    pair = os.path.join(out, "steps")
    write_rank(os.path.join(pair, "base"), 0, sequence(False), 5000, 868, 20)
    write_rank(os.path.join(pair, "new"), 0, sequence(False), 6000, 586, 15)
    with open(os.path.join(pair, "EXPECTED.json"), "w") as f:
        json.dump({"kernels": {"slower": [], "added": [], "removed": []},
                   "phases": {"decode": "unchanged"}, "ranks": {"0": "unchanged"},
                   "about": "no change; 20 steps in base, 15 in new"}, f, indent=1)


if __name__ == "__main__":
    main()
