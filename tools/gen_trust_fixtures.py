#!/usr/bin/env python3
"""Writes small captures, each built to show one rule of how figures are defined and shown.

usage: gen_trust_fixtures.py OUTDIR

OUTDIR/kernels_only/     one rank with kernel_details.csv and nothing else: device busy and
                         the top kernels come from the table (40 kernels of four names, two
                         of them overlapping on a second stream).
OUTDIR/two_step_traces/  one rank with two step tables: step_trace_time.csv (one step of
                         810 ms) and analysis.db's StepTraceTime (a step of 1 s, device 5); the
                         rank's steps come from one, and the diagnostic names it.
OUTDIR/precision/        one rank whose communication.json and step_trace_time.csv write
                         figures as a double prints them in full (0.45130000000000337,
                         -5.551115123125783e-17, 75174.57464453117).
Each rank is <dir>/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/. Deterministic, stdlib only.
"""
import json
import os
import sqlite3
import sys

BASE_US = 1736405443000000
KD_HEAD = ("Step Id,Model ID,Task ID,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us),"
           "Wait Time(us),Block Dim\n")
ST_HEAD = ("Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,"
           "Communication(Not Overlapped and Exclude Receive),Preparing")


def out_dir(root, name):
    d = os.path.join(root, name, "rank0_ascend_pt", "ASCEND_PROFILER_OUTPUT")
    os.makedirs(d, exist_ok=True)
    return d


def kernels_only(root):
    d = out_dir(root, "kernels_only")
    names = ["aclnnMm_MatMulCommon_MatMulV2", "aclnnRmsNorm_RmsNorm_RmsNorm", "aclnnSwiGlu_SwiGlu_SwiGlu",
             "aclnnAdd_AddAiCore_Add"]
    rows, t = [], BASE_US * 1000
    for i in range(40):
        name = names[i % 4]
        dur = (120 + 7 * (i % 5) + 3 * (i % 4)) * 1000 + 250 * (i % 3)      # ns, a different total per name
        stream = 2 if i % 10 != 9 else 3
        start = t if stream == 2 else t - 60000              # the second stream overlaps its neighbour
        rows.append((i, stream, name, start, dur))
        if stream == 2:
            t += dur + 15000
    with open(os.path.join(d, "kernel_details.csv"), "w", newline="") as f:
        f.write(KD_HEAD)
        for i, stream, name, start, dur in rows:
            f.write("1,4294967295,%d,%d,%s,%s,AI_CORE,%d.%03d\t,%d.%03d,0,24\n"
                    % (i, stream, name, name.split("_")[1], start // 1000, start % 1000, dur // 1000, dur % 1000))


def two_step_traces(root):
    d = out_dir(root, "two_step_traces")
    with open(os.path.join(d, "step_trace_time.csv"), "w", newline="") as f:
        f.write(ST_HEAD + "\n")
        f.write("1,600000.000,170000.000,30000.000,200000.000,40000.000,810000.000,0,170000.000,0\n")
    db = os.path.join(d, "analysis.db")
    if os.path.exists(db):
        os.remove(db)
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE StepTraceTime (deviceId INTEGER, step TEXT, computing REAL, communication_not_overlapped REAL, "
                "overlapped REAL, communication REAL, free REAL, stage REAL, bubble REAL, "
                "communication_not_overlapped_and_exclude_receive REAL, preparing REAL)")
    con.execute("INSERT INTO StepTraceTime VALUES (5, '1', 700000, 200000, 0, 200000, 100000, 1000000, 0, 200000, 0)")
    con.commit()
    con.close()


def precision(root):
    d = out_dir(root, "precision")
    with open(os.path.join(d, "step_trace_time.csv"), "w", newline="") as f:
        f.write(ST_HEAD + "\n")
        f.write("1,75174.57464453117,146614.02034375005,6987.303296874976,153601.32364062502,"
                "69909.50350390615,291698.0,0.45130000000000337,146614.02034375005,-5.551115123125783e-17\n")
    ops = {}
    for i, (wait, ratio, idle) in enumerate([(0.2, "0.45130000000000337", "-5.551115123125783e-17"),
                                             (0.125, "0.25", "0.0"), (0.3333333333333333, "0.6666666666666666",
                                                                       "1.1102230246251565e-16")]):
        ops["hcom_allReduce__586_%d_1@17522688603477080586" % i] = {
            "Communication Time Info": {"Start Timestamp(us)": BASE_US + 1000 * i, "Elapse Time(ms)": 0.5,
                                        "Transit Time(ms)": 0.5 - wait, "Wait Time(ms)": wait,
                                        "Synchronization Time(ms)": wait, "Idle Time(ms)": "IDLE%d" % i,
                                        "Wait Time Ratio": "RATIO%d" % i, "Synchronization Time Ratio": "RATIO%d" % i},
            "Communication Bandwidth Info": {}}
        ops[list(ops)[-1]]["_raw"] = (idle, ratio)
    text = json.dumps({"step1": {"collective": {k: {kk: vv for kk, vv in v.items() if kk != "_raw"}
                                                for k, v in ops.items()}, "p2p": {}}}, indent=1)
    for i, v in enumerate(ops.values()):   # the file's own digits, as a double prints them
        idle, ratio = v["_raw"]
        text = text.replace('"IDLE%d"' % i, idle).replace('"RATIO%d"' % i, ratio)
    with open(os.path.join(d, "communication.json"), "w") as f:
        f.write(text)


def main():
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        sys.stderr.write("usage: gen_trust_fixtures.py OUTDIR\n")
        return 2
    kernels_only(sys.argv[1])
    two_step_traces(sys.argv[1])
    precision(sys.argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
