#!/usr/bin/env python3
"""Writes a generated cluster capture: many small ranks of one data-parallel job.

usage: gen_cluster_fixtures.py [--ranks N] [--steps S] OUTDIR      (64 ranks, 4 steps by default)

OUTDIR/capture/rank<N>_ascend_pt/ (torch_npu layout) holds per rank profiler_info_<N>.json,
profiler_metadata.json (the parallel groups, below) and ASCEND_PROFILER_OUTPUT/ with
trace_view.json (ProfilerStep#N host markers, one device stream, the HCCL lane's
communication slices), kernel_details.csv, communication.json and step_trace_time.csv.
OUTDIR/capture/cluster_analysis_output/communication_group.json lists the groups the way the
cluster analysis writes them. OUTDIR/EXPECTED.json says what was planted.

The job: each step computes, then runs two allReduce collectives over all ranks. Every rank
arrives at a collective when its compute ends; the collective starts when the last rank
arrives, so the others wait. Rank SLOW (N // 2 + 1, or 0 with one rank) computes 20% longer
than the others: it waits least and the others wait for it. Each rank's clock is offset by
rank * 137 ns (the host clocks of a cluster disagree), so the collective ends line up only
after the clock offsets are applied. Parallel groups: tensor parallel of TP consecutive ranks
(TP = 8, or fewer ranks), data parallel across them (ranks r, r + TP, ...), one pipeline stage.
Deterministic (fixed seeds), Python stdlib only.
"""
import json
import os
import random
import sys

BASE_NS = 1736405443000000 * 1000
DEV_PID = 3170820512
HCCL_PID = 3170820576
PY_PID = 3096504 << 10
HOST_TID = 3096504
STREAM = 2
OP_ID = 586
GROUP = "17522688603477080586"
KD_HEADER = ["Step Id", "Model ID", "Task ID", "Stream ID", "Name", "Type", "Accelerator Core",
             "Start Time(us)", "Duration(us)", "Wait Time(us)", "Block Dim", "Input Shapes",
             "Input Data Types", "Output Shapes"]
ST_HEADER = ["Step", "Computing", "Communication(Not Overlapped)", "Overlapped", "Communication", "Free",
             "Stage", "Bubble", "Communication(Not Overlapped and Exclude Receive)", "Preparing"]
# (name, type, core, base duration ns): the compute part of a step
KERNELS = [
    ("aclnnRmsNorm_RmsNormAiCore_RmsNorm", "RmsNorm", "AI_VECTOR_CORE", 21000),
    ("aclnnMm_MatMulCommon_MatMulV2", "MatMulV2", "AI_CORE", 180000),
    ("aclnnFlashAttentionScore_FlashAttentionScore", "FlashAttentionScore", "AI_CORE", 95000),
    ("aclnnSwiGlu_SwiGlu_SwiGlu", "SwiGlu", "AI_VECTOR_CORE", 38000),
]
TRANSIT_NS = 150000   # time a collective moves data once every rank is there


def us(ns):
    return "%s%d.%03d" % ("-" if ns < 0 else "", abs(ns) // 1000, abs(ns) % 1000)


def ms(ns):
    return "%d.%06d" % (ns // 1000000, ns % 1000000)


def plan(nranks, steps, slow):
    """Global-clock times: per step and rank the compute kernels, per collective the arrivals."""
    rngs = [random.Random(7000 + r) for r in range(nranks)]
    t = BASE_NS + 1000000
    out = []
    for step in range(steps):
        kernels = [[] for _ in range(nranks)]
        coll = []
        start = t
        cur = [start] * nranks
        for seq in range(2):
            for r in range(nranks):
                for name, typ, core, dur in KERNELS:
                    d = dur * rngs[r].randint(980, 1020) // 1000
                    if r == slow:
                        d = d * 12 // 10
                    kernels[r].append((name, typ, core, cur[r], d))
                    cur[r] += d + 1000
            begin = max(cur)            # the last arrival starts the collective
            coll.append((seq, list(cur), begin))
            for r in range(nranks):
                cur[r] = begin + TRANSIT_NS + 1000
        out.append((step, kernels, coll))
        t = max(cur) + 2000000
    return out


def write_rank(root, rank, nranks, steps_plan, tp):
    off = rank * 137                     # this rank's clock: global + off
    events = [
        {"ph": "M", "name": "process_name", "pid": DEV_PID, "tid": 0, "args": {"name": "Ascend Hardware"}},
        {"ph": "M", "name": "thread_name", "pid": DEV_PID, "tid": STREAM, "args": {"name": "Stream %d" % STREAM}},
        {"ph": "M", "name": "process_name", "pid": HCCL_PID, "tid": 0, "args": {"name": "HCCL"}},
        {"ph": "M", "name": "thread_name", "pid": HCCL_PID, "tid": 0, "args": {"name": "Group 0 Communication"}},
        {"ph": "M", "name": "process_name", "pid": PY_PID, "tid": 0, "args": {"name": "Python"}},
        {"ph": "M", "name": "thread_name", "pid": PY_PID, "tid": HOST_TID, "args": {"name": "Thread %d" % HOST_TID}},
    ]
    rows, st_rows, comm = [], [], {}
    task = 100
    for step, kernels, coll in steps_plan:
        first = kernels[rank][0][3]
        key = "step%d" % (step + 1)
        comm[key] = {"collective": {}, "p2p": {}}
        comp = comm_ns = 0
        for i, (name, typ, core, t0, d) in enumerate(kernels[rank]):
            task += 1
            events.append({"name": name, "pid": DEV_PID, "tid": STREAM, "ts": us(t0 + off), "dur": us(d), "ph": "X",
                           "args": {"Model Id": 4294967295, "Task Type": "AI_CORE", "Physic Stream Id": STREAM,
                                    "Task Id": task}})
            rows.append([step + 1, 4294967295, task, STREAM, name, typ, core, us(t0 + off) + "\t", us(d), "0.000", 24,
                         '"8,4096"', "DT_BF16", '"8,4096"'])
            comp += d
        for seq, arrivals, begin in coll:
            arrive = arrivals[rank]
            wait = begin - arrive
            elapse = wait + TRANSIT_NS
            name = "hcom_allReduce__%d_%d_1" % (OP_ID, seq)
            task += 1
            for pid, tid in ((DEV_PID, STREAM), (HCCL_PID, 0)):
                events.append({"name": name, "pid": pid, "tid": tid, "ts": us(arrive + off), "dur": us(elapse),
                               "ph": "X", "args": {"model id": 4294967295}})
            rows.append([step + 1, 4294967295, task, STREAM, name, "hcom_allReduce_", "HCCL", us(arrive + off) + "\t",
                         us(elapse), "0.000", 1, '""', "", '""'])
            comm_ns += elapse
            mb = "%d.%06d" % (16 + seq, rank % 7)
            bw = {t: {"Transit Size(MB)": 0, "Transit Time(ms)": 0, "Bandwidth(GB/s)": 0, "Large Packet Ratio": 0,
                      "Size Distribution": {}} for t in ("RDMA", "PCIE", "SIO")}
            for t in ("HCCS", "SDMA"):
                bw[t] = {"Transit Size(MB)": float(mb), "Transit Time(ms)": float(ms(TRANSIT_NS)),
                         "Bandwidth(GB/s)": round(float(mb) / (TRANSIT_NS / 1e6), 4), "Large Packet Ratio": 0.0,
                         "Size Distribution": {}}
            comm[key]["collective"]["%s@%s" % (name, GROUP)] = {
                "Communication Time Info": {
                    "Start Timestamp(us)": float(us(arrive + off)), "Elapse Time(ms)": float(ms(elapse)),
                    "Transit Time(ms)": float(ms(TRANSIT_NS)), "Wait Time(ms)": float(ms(wait)),
                    "Synchronization Time(ms)": float(ms(wait)), "Idle Time(ms)": 0,
                    "Wait Time Ratio": round(wait / (wait + TRANSIT_NS), 4),
                    "Synchronization Time Ratio": round(wait / (wait + TRANSIT_NS), 4)},
                "Communication Bandwidth Info": bw}
        last = coll[-1][2] + TRANSIT_NS
        events.append({"ph": "X", "name": "ProfilerStep#%d" % (step + 1), "pid": PY_PID, "tid": HOST_TID,
                       "ts": us(first + off - 300000), "dur": us(last - first + 400000), "cat": "cpu_op", "args": {}})
        stage = last - first
        st_rows.append([step + 1, us(comp), us(comm_ns), "0", us(comm_ns), us(stage - comp - comm_ns), us(stage), "0",
                        us(comm_ns), "0"])
    top = os.path.join(root, "rank%d_ascend_pt" % rank)
    apo = os.path.join(top, "ASCEND_PROFILER_OUTPUT")
    os.makedirs(apo, exist_ok=True)
    with open(os.path.join(apo, "trace_view.json"), "w") as f:
        json.dump(events, f, separators=(",", ":"))
    with open(os.path.join(apo, "kernel_details.csv"), "w", newline="") as f:
        f.write(",".join(KD_HEADER) + "\n")
        for r in rows:
            f.write(",".join(str(c) for c in r) + "\n")
    with open(os.path.join(apo, "step_trace_time.csv"), "w", newline="") as f:
        f.write(",".join(ST_HEADER) + "\n")
        for r in st_rows:
            f.write(",".join(str(c) for c in r) + "\n")
    with open(os.path.join(apo, "communication.json"), "w") as f:
        json.dump(comm, f)
    with open(os.path.join(top, "profiler_info_%d.json" % rank), "w") as f:
        json.dump({"config": {"common_config": {"activities": ["ProfilerActivity.CPU", "ProfilerActivity.NPU"]}},
                   "start_info": {}, "end_info": {}, "rank_id": rank}, f)
    with open(os.path.join(top, "profiler_metadata.json"), "w") as f:
        json.dump(metadata(rank, nranks, tp), f, indent=1)


def groups(nranks, tp):
    """The parallel groups: name -> list of rank lists."""
    tp_groups = [list(range(i, min(i + tp, nranks))) for i in range(0, nranks, tp)]
    dp_groups = [list(range(j, nranks, tp)) for j in range(min(tp, nranks))]
    return {"tp": tp_groups, "dp": dp_groups, "pp": [list(range(nranks))]}


def metadata(rank, nranks, tp):
    """torch_npu's profiler_metadata.json with the parallel groups the job registered."""
    g = groups(nranks, tp)
    pg = {"group_name_0": {"group_name": "default_group", "group_rank": rank, "global_ranks": list(range(nranks))}}
    n = 1
    for kind, lists in g.items():
        for ranks in lists:
            if rank in ranks:
                pg["group_name_%d" % n] = {"group_name": kind, "group_rank": ranks.index(rank), "global_ranks": ranks}
            n += 1
    return {"ENV_VARIABLES": {"ASCEND_GLOBAL_LOG_LEVEL": ""},
            "distributed_args": {"tensor_model_parallel_size": min(tp, nranks), "pipeline_model_parallel_size": 1,
                                 "data_parallel_size": (nranks + tp - 1) // tp, "expert_model_parallel_size": 1,
                                 "world_size": nranks, "rank": rank},
            "parallel_group_info": pg}


def main():
    args = sys.argv[1:]
    nranks, steps = 64, 4
    while len(args) >= 2 and args[0] in ("--ranks", "--steps") and args[1].isdigit():
        if args[0] == "--ranks":
            nranks = int(args[1])
        else:
            steps = int(args[1])
        args = args[2:]
    if len(args) != 1 or nranks < 1 or steps < 1:
        sys.exit(__doc__)
    out = args[0]
    tp = min(8, nranks)
    slow = nranks // 2 + 1 if nranks > 2 else 0
    cap = os.path.join(out, "capture")
    p = plan(nranks, steps, slow)
    for r in range(nranks):
        write_rank(cap, r, nranks, p, tp)
    cao = os.path.join(cap, "cluster_analysis_output")
    os.makedirs(cao, exist_ok=True)
    g = groups(nranks, tp)
    with open(os.path.join(cao, "communication_group.json"), "w") as f:
        info = [{"type": "collective", "rank_set": ranks, "group_name": "%s_%d" % (kind, i), "group_id": str(i),
                 "pg_name": kind} for kind, lists in g.items() for i, ranks in enumerate(lists)]
        json.dump({"collective": [ranks for lists in g.values() for ranks in lists], "p2p": [],
                   "comm_group_parallel_info": info}, f)
    with open(os.path.join(out, "EXPECTED.json"), "w") as f:
        json.dump({"ranks": nranks, "steps": steps, "slow_rank": slow, "groups": g,
                   "about": "rank %d computes 20%% longer: the others wait for it" % slow}, f, indent=1)


if __name__ == "__main__":
    main()
