#!/usr/bin/env python3
"""Writes generated captures for the advisor: one clean capture and one per rule that plants
exactly that rule's problem.

usage: gen_advisor_fixtures.py OUTDIR

OUTDIR/clean/        two ranks, every figure healthy and every rule just short of firing:
                     launches run ahead of the device, the AI Core clock alternates 1800/1650
                     MHz, AI Core kernels only, decode steps only, ranks alike, low waits,
                     links of one speed.
OUTDIR/host_frames/  host_bound again, with Python frames: a slow frame (SLOW_FRAME) runs when the
                     device goes idle before the late steps, a shorter decoy frame before others;
                     the slow frame must own the most idle (call tree, gaps, host_bound finding).
OUTDIR/<rule>/       the clean rank 0 with one problem planted, and PLANTED.json:
                     {"rule", "rank", "windows": [["start_ns", "end_ns"], ...] (decimal strings) where the
                     evidence must lie (trace clock, ns), "what": text the evidence names}.
OUTDIR/host_stall/   a slow host in two steps (7 and 13: the host thread stalls 2.1 ms between
                     two launches and the device idles) among ordinary 3 ms copies between
                     every two steps (each step's first kernel is launched after the copy);
                     PLANTED.json as above, rule host_bound, its windows the two stalls, in
                     step order, "steps" their step numbers.
OUTDIR/slow_rank_p2p/ the slow_rank capture plus a send/receive op per step in which rank 1
                     (the straggler) waits long.
OUTDIR/comm_wait_steps/ a rank without a timeline whose collectives wait 170 ms of an 810 ms step.
Each rank is <dir>/rank<N>_ascend_pt/ASCEND_PROFILER_OUTPUT/ with trace_view.json (a bare
JSON array), kernel_details.csv, and communication(_matrix).json where the rule needs them.
Deterministic (fixed seeds), Python stdlib only.
"""
import json
import os
import random
import sys

BASE_NS = 1736405443000000 * 1000
DEV_PID, PY_PID, CANN_PID, FREQ_PID = 3170820512, 3096504 << 10, 3170820320, 3170820544
HOST_TID = 3096504
STREAM = 2
DECODE_ATTN = "aclnnIncreFlashAttentionV4_IncreFlashAttention_IncreFlashAttention"
PREFILL_ATTN = "aclnnPromptFlashAttentionV3_PromptFlashAttention_PromptFlashAttention"
KERNELS = ["aclnnRmsNorm_RmsNorm_RmsNorm", "aclnnMm_MatMulCommon_MatMulV2", DECODE_ATTN,
           "aclnnMm_MatMulCommon_MatMulV2", "aclnnSwiGlu_SwiGlu_SwiGlu", "aclnnMm_MatMulCommon_MatMulV2",
           "aclnnAddRmsNorm_AddRmsNorm_AddRmsNorm", "aclnnArgMax_ArgMaxV2AiCore_ArgMaxV2"]
AICPU = "aicpu_UniqueWithCountsExt_UniqueWithCountsExt"
GROUP = "allreduce-total@17522688603477080586"
NSTEPS = 20
STALL_NS = 2100000          # host_stall: the host stall inside a step
STALL_AFTER = 3             # ... after the step's fourth kernel
SLOW_FRAME = "model.py(88): slow_sampler"
DECOY_FRAME = "model.py(75): postprocess"


def us(ns):
    return "%d.%03d" % (ns // 1000, ns % 1000)


class Rank:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.ev = []
        self.rows = []
        self.fid = 0
        self.steps = []          # (index, host_t0, dev_t0, dev_t1)
        self.comm = None
        self.matrix = None

    def kernel(self, name, start, dur, core="AI_CORE"):
        self.ev.append({"name": name, "pid": DEV_PID, "tid": STREAM, "ts": us(start), "dur": us(dur), "ph": "X",
                        "args": {"Task Type": "AI_CPU" if core == "AI_CPU" else "AI_CORE"}})
        self.rows.append((name, start, dur, core))

    def host(self, name, start, dur, pid=PY_PID, tid=HOST_TID):
        self.ev.append({"name": name, "pid": pid, "tid": tid, "ts": us(start), "dur": us(dur), "ph": "X",
                        "cat": "cpu_op"})

    def frame(self, name, start, dur):
        """A Python frame (with_stack) on the host thread."""
        self.ev.append({"name": name, "pid": PY_PID, "tid": HOST_TID, "ts": us(start), "dur": us(dur), "ph": "X",
                        "cat": "python_function"})

    def launch(self, at, kernel_start, name="aten::mm"):
        """A host op at `at` launching the kernel starting at kernel_start (async_npu flow)."""
        self.host(name, at, 2000)
        self.fid += 1
        self.ev.append({"ph": "s", "bp": "e", "name": "async_npu", "id": self.fid, "pid": PY_PID, "tid": HOST_TID,
                        "ts": us(at + 1000), "cat": "async_npu"})
        self.ev.append({"ph": "f", "bp": "e", "name": "async_npu", "id": self.fid, "pid": DEV_PID, "tid": STREAM,
                        "ts": us(kernel_start), "cat": "async_npu"})

    def freq(self, t0, t1, low=None):
        """AI Core Freq every 100 µs alternating 1800/1650; `low` = (a, b, mhz) planted."""
        t, i = t0, 0
        while t <= t1:
            v = 1800 if i % 2 == 0 else 1650
            if low and low[0] <= t < low[1]:
                v = low[2]
            self.ev.append({"name": "AI Core Freq", "pid": FREQ_PID, "tid": 0, "ts": us(t), "ph": "C",
                            "args": {"MHz": v}})
            t += 100000
            i += 1

    def write(self, d):
        d = os.path.join(d, "ASCEND_PROFILER_OUTPUT")
        os.makedirs(d, exist_ok=True)
        meta = [{"ph": "M", "name": "process_name", "pid": DEV_PID, "tid": 0, "args": {"name": "Ascend Hardware"}},
                {"ph": "M", "name": "thread_name", "pid": DEV_PID, "tid": STREAM, "args": {"name": "Stream 2"}},
                {"ph": "M", "name": "process_name", "pid": PY_PID, "tid": 0, "args": {"name": "Python"}},
                {"ph": "M", "name": "thread_name", "pid": PY_PID, "tid": HOST_TID,
                 "args": {"name": "Thread %d" % HOST_TID}},
                {"ph": "M", "name": "process_name", "pid": CANN_PID, "tid": 0, "args": {"name": "CANN"}},
                {"ph": "M", "name": "process_name", "pid": FREQ_PID, "tid": 0, "args": {"name": "AI Core Freq"}}]
        with open(os.path.join(d, "trace_view.json"), "w") as f:
            f.write("[" + ",\n".join(json.dumps(e, separators=(",", ":")) for e in meta + self.ev) + "]\n")
        with open(os.path.join(d, "kernel_details.csv"), "w", newline="") as f:
            f.write("Step Id,Model ID,Task ID,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us),"
                    "Wait Time(us),Block Dim\n")
            for i, (name, start, dur, core) in enumerate(sorted(self.rows, key=lambda x: x[1])):
                f.write("1,4294967295,%d,%d,%s,%s,%s,%s\t,%s,0,24\n" % (i, STREAM, name, name.split("_")[0], core,
                                                                         us(start), us(dur)))
        if self.comm is not None:
            with open(os.path.join(d, "communication.json"), "w") as f:
                json.dump(self.comm, f, indent=1)
        if self.matrix is not None:
            with open(os.path.join(d, "communication_matrix.json"), "w") as f:
                json.dump(self.matrix, f, indent=1)


def serve(seed, scale=1.0, host_late=(), tiny=False, aicpu=False, mixed=(), graph=False, freq_low=None,
          wait_ms=0.002, slow_link=None, copy_gap=0, stall=(), p2p_wait_ms=None, frames=False,
          decoy_late=()):
    """NSTEPS decode steps on one stream. Healthy unless told: host_late (steps whose first
    kernel is launched 300 µs after the device went idle), tiny (60 kernels of 3 µs, 4 µs
    apart), aicpu (an AI_CPU kernel per step), mixed (steps with prefill chunks: both attention
    kernels and 12 more kernels), graph (no launch flows: one aclmdlRIExecute per step, 300 µs
    apart), freq_low ((from_step, to_step, MHz)), wait_ms (per 0.1 ms op in communication.json),
    slow_link (link key of 7 HCCS links that runs at 3 GB/s instead of 18), copy_gap (ns of
    device idle before every step but the first while the host copies results back: the
    step's first kernel is launched after it), stall (steps whose host thread stalls
    STALL_NS before launching the kernel after the fourth: the device idles that long),
    p2p_wait_ms (a 0.1 ms hcom_batchSendRecv per step after its kernels, filed among the
    collectives as some writers file it, waiting that long), frames (Python frames:
    SLOW_FRAME running from before the device goes idle until the late launch of each
    host_late step, DECOY_FRAME likewise before the steps of decoy_late, launched 100 µs late,
    all inside one frame spanning the run)."""
    k = Rank(seed)
    r = k.r
    dev = BASE_NS + 1000000
    planted = []
    ops = {}
    for s in range(NSTEPS):
        names = list(KERNELS)
        durs = None
        if tiny:
            names = ["aclnnInplaceAdd_AddAiCore_Add"] * 60
        if s in mixed:
            names = names[:2] + [PREFILL_ATTN] + names[2:] + ["aclnnMm_MatMulCommon_MatMulV2"] * 12
        if aicpu:
            names = names[:4] + [AICPU] + names[4:]
        gap_between = 300000 if graph else 20000
        if s in host_late:
            step_gap = 320000
        elif copy_gap and s > 0:
            step_gap = copy_gap
        elif s in decoy_late:
            step_gap = 120000
        else:
            step_gap = gap_between
        first = dev + step_gap
        if graph:
            gl = first - 50000
            k.host("aclmdlRIExecute", gl, 10000, pid=CANN_PID, tid=HOST_TID)
        marker_t0 = first - 150000
        late = copy_gap and s > 0
        t = first
        starts = []
        for i, n in enumerate(names):
            d = 3000 if tiny else (60000 if n == AICPU else 50000)
            d = int(d * scale) + r.randint(-50, 50)
            if s in stall and i == STALL_AFTER + 1:
                t += STALL_NS - 2000           # the host stalls: the device idles STALL_NS
                planted.append((t - STALL_NS, t))
            starts.append((n, t, d))
            t += d + (4000 if tiny else 2000)
        marker_end = starts[-1][1] if s in stall else marker_t0 + 140000
        k.host("ProfilerStep#%d" % s, marker_t0, marker_end - marker_t0)
        if late:
            k.host("aten::copy_", dev, step_gap - 30000)   # the sampled tokens copied back
        for i, (n, st, d) in enumerate(starts):
            k.kernel(n, st, d, "AI_CPU" if n == AICPU else "AI_CORE")
            if graph:
                continue
            if i == 0 and (s in host_late or s in decoy_late):
                k.launch(st - 20000, st)        # launched 300 (decoy: 100) µs after the device went idle
                if s in host_late:
                    planted.append((dev, st))
                if frames:                      # the host was in this frame when the device went idle
                    k.frame(SLOW_FRAME if s in host_late else DECOY_FRAME, dev - 5000, st - 25000 - (dev - 5000))
            elif (i == 0 and late) or (s in stall and i == STALL_AFTER + 1):
                k.launch(st - 20000, st)        # launched after the device went idle
            else:
                k.launch(marker_t0 + 5000 + i * (1000 if tiny else 2500), st)   # well ahead of the device
        dev_end = starts[-1][1] + starts[-1][2]
        if s in mixed:
            planted.append((first, dev_end))
        if graph and s > 0:
            planted.append((dev, first))
        k.steps.append((s, marker_t0, first, dev_end))
        el = 0.1
        ops["hcom_allReduce__586_%d_1@%s" % (s, GROUP.split("@")[1])] = {
            "Communication Time Info": {"Start Timestamp(us)": first // 1000, "Elapse Time(ms)": el,
                                        "Transit Time(ms)": el - wait_ms, "Wait Time(ms)": wait_ms,
                                        "Synchronization Time(ms)": wait_ms, "Idle Time(ms)": 0.0,
                                        "Wait Time Ratio": round(wait_ms / el, 4),
                                        "Synchronization Time Ratio": round(wait_ms / el, 4)},
            "Communication Bandwidth Info": {}}
        if wait_ms >= 0.02:
            planted.append((first // 1000 * 1000, first // 1000 * 1000 + 100000))
        if p2p_wait_ms is not None:
            ops["hcom_batchSendRecv__822_%d_1@13337953553061386822" % s] = {
                "Communication Time Info": {"Start Timestamp(us)": dev_end // 1000 + 10, "Elapse Time(ms)": el,
                                            "Transit Time(ms)": el - p2p_wait_ms, "Wait Time(ms)": p2p_wait_ms,
                                            "Synchronization Time(ms)": p2p_wait_ms, "Idle Time(ms)": 0.0,
                                            "Wait Time Ratio": round(p2p_wait_ms / el, 4),
                                            "Synchronization Time Ratio": round(p2p_wait_ms / el, 4)},
                "Communication Bandwidth Info": {}}
        dev = dev_end
    t_end = dev + 50000
    lo = None
    if freq_low:
        lo = (k.steps[freq_low[0]][2], k.steps[freq_low[1]][3], freq_low[2])
        planted.append((lo[0] - 100000, lo[1] + 100000))
    k.freq(BASE_NS + 1000000, t_end, lo)
    if frames:
        k.frame("serve.py(40): run", BASE_NS, t_end - BASE_NS)
    k.comm = {"step1": {"collective": ops, "p2p": {}}}
    links = {}
    for peer in range(1, 8):
        key = "0-%d" % peer
        bw = 3.0 if key == slow_link else round(18.0 + r.uniform(-0.4, 0.4), 4)
        links[key] = {"Transport Type": "HCCS", "Transit Size(MB)": 3.6, "Transit Time(ms)": round(3.6 / bw, 6),
                      "Bandwidth(GB/s)": bw, "Large Packet Ratio": 1.0}
    links["0-0"] = {"Transport Type": "LOCAL", "Transit Size(MB)": 7.2, "Transit Time(ms)": 0.015,
                    "Bandwidth(GB/s)": 480.0, "Large Packet Ratio": 1.0}
    k.matrix = {"step1": {"collective": {GROUP: links}, "p2p": {}}}
    return k, planted


def steps_only(d):
    """A rank without a timeline: step_trace_time.csv and communication.json only. One
    810 ms step whose ten all-reduces wait 17 ms each: 170 ms, 21% of the step time."""
    d = os.path.join(d, "rank0_ascend_pt", "ASCEND_PROFILER_OUTPUT")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "step_trace_time.csv"), "w", newline="") as f:
        f.write("Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,"
                "Communication(Not Overlapped and Exclude Receive),Preparing\n")
        f.write("1,600000.000,170000.000,30000.000,200000.000,40000.000,810000.000,0,170000.000,0\n")
    ops = {}
    for i in range(10):
        ops["hcom_allReduce__586_%d_1@%s" % (i, GROUP.split("@")[1])] = {
            "Communication Time Info": {"Start Timestamp(us)": BASE_NS // 1000 + 81000 * i, "Elapse Time(ms)": 20.0,
                                        "Transit Time(ms)": 3.0, "Wait Time(ms)": 17.0,
                                        "Synchronization Time(ms)": 17.0, "Idle Time(ms)": 0.0,
                                        "Wait Time Ratio": 0.85, "Synchronization Time Ratio": 0.85},
            "Communication Bandwidth Info": {}}
    with open(os.path.join(d, "communication.json"), "w") as f:
        json.dump({"step1": {"collective": ops, "p2p": {}}}, f, indent=1)


def write(out, name, ranks, planted=None):
    for i, k in enumerate(ranks):
        k.write(os.path.join(out, name, "rank%d_ascend_pt" % i))
    if planted is not None:
        # ns as decimal strings: JSON numbers above 2^53 do not survive a double
        planted["windows"] = [[str(a), str(b)] for a, b in planted["windows"]]
        with open(os.path.join(out, name, "PLANTED.json"), "w") as f:
            json.dump(planted, f, indent=1)


def main():
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        sys.stderr.write("usage: gen_advisor_fixtures.py OUTDIR\n")
        return 2
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    a, _ = serve(1)
    b, _ = serve(2)
    write(out, "clean", [a, b])

    def plant(rule, rank=0, what="", **kw):
        k, win = serve(1, **kw)
        write(out, rule, [k], {"rule": rule, "rank": rank, "windows": win, "what": what})

    plant("host_bound", host_late=tuple(range(1, NSTEPS, 2)), what="launched by aten::mm")
    k, win = serve(1, copy_gap=3000000, stall=(7, 13))
    write(out, "host_stall", [k], {"rule": "host_bound", "rank": 0, "windows": win, "steps": [7, 13],
                                   "what": "launched by aten::mm"})
    k, win = serve(1, host_late=tuple(range(1, NSTEPS, 2)), decoy_late=tuple(range(2, NSTEPS, 2)), frames=True)
    write(out, "host_frames", [k], {"rule": "host_bound", "rank": 0, "windows": win, "what": SLOW_FRAME})
    plant("aicore_freq_low", freq_low=(6, 9, 900), what="900 MHz")
    plant("aicpu_ops", aicpu=True, what=AICPU)
    plant("tiny_kernels", tiny=True, what="aclnnInplaceAdd")
    plant("prefill_interference", mixed=(6, 13), what="mixed step")
    plant("graph_bubbles", graph=True, what="aclmdlRIExecute")
    plant("comm_wait", wait_ms=0.05, what="hcom_allReduce")
    plant("slow_link", slow_link="0-3", what="0-3 HCCS")
    a, _ = serve(1, wait_ms=0.018)       # rank 0 waits for rank 1 (below comm_wait's threshold)
    b, _ = serve(2, scale=1.3)
    write(out, "slow_rank", [a, b], {"rule": "slow_rank", "rank": 1, "windows": [], "what": "rank 1"})
    # the same straggler, and pipeline sends / receives in which rank 1 waits far longer
    a, _ = serve(1, wait_ms=0.018, p2p_wait_ms=0.001)
    b, _ = serve(2, scale=1.3, p2p_wait_ms=0.08)
    write(out, "slow_rank_p2p", [a, b], {"rule": "slow_rank", "rank": 1, "windows": [], "what": "point-to-point"})
    steps_only(os.path.join(out, "comm_wait_steps"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
