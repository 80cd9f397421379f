#!/usr/bin/env python3
"""Writes generated serving captures with known step boundaries and phases.

usage: gen_phase_fixtures.py OUTDIR

Each capture is OUTDIR/<name>/ASCEND_PROFILER_OUTPUT/trace_view.json (a bare JSON array, as
torch_npu writes it), sometimes with kernel_details.csv, and OUTDIR/<name>/EXPECTED_STEPS.json:
  {"source": "markers"|"host"|"period"|"none", "steps": [{"index", "phase", "start_ns",
   "end_ns", "kernels"}], "about": "..."}
start_ns/end_ns are the first device kernel start and last device kernel end of the step, in
ns on the trace's own clock (trace ts in µs * 1000). "none": no steps should be found.

The captures model an LLM served in eager mode (one launch per kernel, host-bound decode,
the device idle between steps while the host schedules), chunked prefill (prefill and decode
attention in one step), several streams, and graph-mode decode (no per-kernel launches, very
regular steps, long bubbles). Deterministic: a fixed seed per capture, Python stdlib only.
"""
import json
import os
import random
import sys

BASE_NS = 1736405443000000 * 1000
DEV_PID = 3170820512
PY_PID = 3096504 << 10
HOST_TID = 3096504

ATTN_PREFILL = "aclnnPromptFlashAttentionV3_PromptFlashAttention_PromptFlashAttention"
ATTN_DECODE = "aclnnIncreFlashAttentionV4_IncreFlashAttention_IncreFlashAttention"
MM = "aclnnMm_MatMulCommon_MatMulV2"
EXTRA = "aclnnInplaceZero_ZerosLikeAiCore_ZerosLike"


def us(ns):
    return "%d.%03d" % (ns // 1000, ns % 1000)


def dur_us(ns):
    return round(ns / 1000.0, 3)


class Capture:
    def __init__(self, name, seed):
        self.name = name
        self.rng = random.Random(seed)
        self.events = []
        self.steps = []
        self.csv_rows = []
        self.task_id = 1000
        self.flow_id = 0
        self.streams = set()
        self.host = False

    def meta(self):
        ev = [{"ph": "M", "name": "process_name", "pid": DEV_PID, "tid": 0, "args": {"name": "Ascend Hardware"}},
              {"ph": "M", "name": "process_sort_index", "pid": DEV_PID, "tid": 0, "args": {"sort_index": 8}}]
        for s in sorted(self.streams):
            ev.append({"ph": "M", "name": "thread_name", "pid": DEV_PID, "tid": s, "args": {"name": "Stream %d" % s}})
            ev.append({"ph": "M", "name": "thread_sort_index", "pid": DEV_PID, "tid": s, "args": {"sort_index": s}})
        if self.host:
            ev += [{"ph": "M", "name": "process_name", "pid": PY_PID, "tid": 0, "args": {"name": "Python"}},
                   {"ph": "M", "name": "thread_name", "pid": PY_PID, "tid": HOST_TID, "args": {"name": "Thread %d" % HOST_TID}},
                   {"ph": "M", "name": "thread_sort_index", "pid": PY_PID, "tid": HOST_TID, "args": {"sort_index": HOST_TID}}]
        return ev

    def kernel(self, name, stream, start, dur, shapes=None):
        self.streams.add(stream)
        self.task_id += 1
        ttype = "HCCL" if name.startswith("hcom_") else ("MEMCPY_ASYNC" if name == "MEMCPY_ASYNC" else "AI_CORE")
        self.events.append({"name": name, "pid": DEV_PID, "tid": stream, "ts": us(start), "dur": dur_us(dur),
                            "ph": "X", "args": {"Model Id": 4294967295, "Task Type": ttype, "Physic Stream Id": stream,
                                                "Task Id": self.task_id, "Batch Id": 0, "Subtask Id": 4294967295}})
        if shapes is not None:
            self.csv_rows.append((name, start, dur, stream, shapes))

    def host_slice(self, name, start, dur, cat):
        self.host = True
        self.events.append({"ph": "X", "name": name, "pid": PY_PID, "tid": HOST_TID, "ts": us(start),
                            "dur": dur_us(dur), "cat": cat, "args": {"Sequence number": -1, "Fwd thread id": 0}})

    def flow(self, host_ts, kernel_ts, stream):
        fid = kernel_ts  # torch_npu uses the kernel's ts in ns as the id
        self.events.append({"ph": "s", "bp": "e", "name": "torch_to_npu", "id": fid, "pid": PY_PID,
                            "tid": HOST_TID, "ts": us(host_ts), "cat": "async_npu"})
        self.events.append({"ph": "f", "bp": "e", "name": "torch_to_npu", "id": fid, "pid": DEV_PID,
                            "tid": stream, "ts": us(kernel_ts), "cat": "async_npu"})

    def write(self, out, source, about, steps=None):
        d = os.path.join(out, self.name, "ASCEND_PROFILER_OUTPUT")
        os.makedirs(d, exist_ok=True)
        ev = self.meta() + self.events
        with open(os.path.join(d, "trace_view.json"), "w") as f:
            f.write("[")
            f.write(",\n".join(json.dumps(e, separators=(",", ":")) for e in ev))
            f.write("]\n")
        if self.csv_rows:
            with open(os.path.join(d, "kernel_details.csv"), "w", newline="") as f:
                f.write("Step Id,Model ID,Task ID,Stream ID,Name,Type,Accelerator Core,Start Time(us),"
                        "Duration(us),Wait Time(us),Block Dim,Input Shapes,Input Data Types\n")
                prev_end = None
                for i, (name, start, dur, stream, shapes) in enumerate(sorted(self.csv_rows, key=lambda r: r[1])):
                    wait = 0 if prev_end is None else max(0, start - prev_end)
                    prev_end = start + dur
                    shp, typ = shapes
                    core = "HCCL" if name.startswith("hcom_") else "AI_CORE"
                    f.write('%d,4294967295,%d,%d,%s,%s,%s,%s\t,%s,%s,24,"%s","%s"\n' % (
                        1, i, stream, name, name.split("_")[0], core, us(start), dur_us(dur), dur_us(wait), shp, typ))
        exp = {"source": source, "about": about, "steps": steps if steps is not None else self.steps}
        with open(os.path.join(out, self.name, "EXPECTED_STEPS.json"), "w") as f:
            json.dump(exp, f, indent=1)


# --- eager serving model ---------------------------------------------------------------------

def layer_kernels(li, phase, comm, side_stream):
    """Kernels of one decoder layer: (name, stream, cost class)."""
    main = 2
    side = 3 if side_stream else 2
    ks = [("aclnnRmsNorm_RmsNorm_RmsNorm" if li == 0 else "aclnnAddRmsNorm_AddRmsNorm_AddRmsNorm", main, "norm"),
          (MM, main, "mm"),
          ("aclnnRotaryPositionEmbedding_RotaryPositionEmbedding_RotaryPositionEmbedding", side, "small"),
          ("aclnnReshapeAndCache_ReshapeAndCache_ReshapeAndCache", side, "small")]
    if phase in ("prefill", "mixed"):
        ks.append((ATTN_PREFILL, main, "attn_p"))
    if phase in ("decode", "mixed"):
        ks.append((ATTN_DECODE, main, "attn_d"))
    ks.append((MM, main, "mm"))
    if comm:
        ks.append(("hcom_allReduce__586_%d_1" % li, 5, "comm"))
    ks += [("aclnnAddRmsNorm_AddRmsNorm_AddRmsNorm", main, "norm"),
           (MM, main, "mm"),
           ("aclnnSwiGlu_SwiGlu_SwiGlu", main, "small"),
           (MM, main, "mm")]
    if comm:
        ks.append(("hcom_allReduce__586_%d_2" % li, 5, "comm"))
    return ks


def step_kernels(phase, layers, comm, side_stream):
    ks = [("MEMCPY_ASYNC", 2, "copy"),
          ("aclnnEmbedding_GatherV2AiCore_GatherV2", 2, "small"),
          ("aclnnCast_CastAiCore_Cast", 2, "small")]
    for li in range(layers):
        ks += layer_kernels(li, phase, comm, side_stream)
    ks += [("aclnnRmsNorm_RmsNorm_RmsNorm", 2, "norm"),
           (MM, 2, "lm"),
           ("aclnnArgMax_ArgMaxV2AiCore_ArgMaxV2", 2, "small"),
           ("aclnnInplaceCopy_TensorMoveAiCore_TensorMove", 2, "small"),
           ("MEMCPY_ASYNC", 2, "copy")]
    return ks


COST_DECODE = {"norm": 4000, "mm": 22000, "small": 3500, "attn_d": 18000, "attn_p": 60000, "comm": 15000,
               "lm": 45000, "copy": 2000}
COST_PREFILL = {"norm": 40000, "mm": 380000, "small": 25000, "attn_d": 18000, "attn_p": 420000,
                "comm": 140000, "lm": 60000, "copy": 6000}


def eager(name, seed, phases, layers=6, comm=True, side_stream=False, markers=None,
          flows=True, drop=0.01, extra=0.01):
    """markers: None, "profiler" (ProfilerStep#N) or "execute_model" (python_function)."""
    c = Capture(name, seed)
    r = c.rng
    h = BASE_NS + 1000000
    dev = h
    for si, phase in enumerate(phases):
        h += r.randint(800000, 2500000)          # scheduling and input preparation on the host
        mstart = h
        h += r.randint(20000, 40000)
        ks = step_kernels(phase, layers, comm, side_stream)
        out = []
        for k in ks:
            if r.random() < drop:
                continue
            out.append(k)
            if r.random() < extra:
                out.append((EXTRA, 2, "small"))
        first = last = None
        n = 0
        for kname, stream, cls in out:
            launch = r.randint(6000, 14000)
            if flows:
                c.host_slice("aten::" + kname.split("_")[0][5:].lower() if kname.startswith("aclnn") else "npu::" + kname.lower(),
                             h, launch, "cpu_op")
            cost = (COST_PREFILL if phase == "prefill" else COST_DECODE)[cls]
            if phase == "mixed" and cls != "attn_d":
                cost = (COST_PREFILL[cls] + COST_DECODE[cls]) // 3
            d = max(500, int(cost * r.uniform(0.9, 1.1)))
            start = max(dev + r.randint(300, 1500), h + launch + r.randint(2000, 5000))
            c.kernel(kname, stream, start, d)
            if flows:
                c.flow(h + 1000, start, stream)
            h += launch
            dev = start + d
            first = start if first is None else first
            last = dev
            n += 1
        h = max(h, dev) + r.randint(15000, 30000)  # the host waits for the sampled tokens
        idx = 40 + si if markers == "profiler" else si
        if markers == "profiler":
            c.host_slice("ProfilerStep#%d" % idx, mstart, h - mstart, "cpu_op")
        elif markers == "execute_model":
            c.host_slice("vllm_ascend/worker/model_runner_v1.py(1389): execute_model", mstart, h - mstart,
                         "python_function")
            # the worker's own execute_model encloses the runner's: only the outer one counts
            c.host_slice("vllm_ascend/worker/worker_v1.py(212): execute_model", mstart - 5000, h - mstart + 10000,
                         "python_function")
        c.steps.append({"index": idx, "phase": phase, "start_ns": first, "end_ns": last, "kernels": n})
    return c


# --- graph mode --------------------------------------------------------------------------------

def graph(name, seed, phases, layers=8, reqs=16):
    c = Capture(name, seed)
    r = c.rng
    dev = BASE_NS + 2000000
    for si, phase in enumerate(phases):
        dev += r.randint(3000000, 6000000)        # large bubble: host prepares and replays the graph
        ks = [("GatherV2_0", "small")]
        for li in range(layers):
            ks += [("AddRmsNorm_%d" % (li * 2), "norm"), ("MatMulV2_%d" % (li * 4), "mm"),
                   ("InterleaveRope_%d" % li, "small"), ("ScatterUpdate_%d" % li, "small"),
                   ("FusedInferAttentionScore_%d" % li, "attn"), ("MatMulV2_%d" % (li * 4 + 1), "mm"),
                   ("hcom_allReduce__%d_0_1" % (700 + li), "comm"),
                   ("AddRmsNorm_%d" % (li * 2 + 1), "norm"), ("MatMulV2_%d" % (li * 4 + 2), "mm"),
                   ("SwiGlu_%d" % li, "small"), ("MatMulV2_%d" % (li * 4 + 3), "mm"),
                   ("hcom_allReduce__%d_1_1" % (700 + li), "comm")]
        ks += [("RmsNorm_final", "norm"), ("MatMulV2_lm_head", "lm"), ("ArgMaxV2_0", "small")]
        cost = {"small": 3000, "norm": 4000, "mm": 20000, "attn": 15000, "comm": 12000, "lm": 40000}
        scale = 4.0 if phase == "mixed" else 1.0
        toks = reqs if phase == "decode" else reqs - 4 + 384
        nreq = reqs if phase == "decode" else reqs - 4
        first = None
        for kname, cls in ks:
            d = int(cost[cls] * (scale if cls in ("mm", "attn") else 1.0) * r.uniform(0.99, 1.01))
            start = dev + r.randint(200, 900)
            stream = 5 if cls == "comm" else 2
            if cls == "attn":
                shp = ("%d,8,128;2048,128,1024;2048,128,1024;%d,64;%d" % (toks, nreq, nreq),
                       "FLOAT16;FLOAT16;FLOAT16;INT32;INT64")
            elif cls in ("mm", "lm"):
                shp = ("%d,4096;4096,4096" % toks, "FLOAT16;FLOAT16")
            else:
                shp = ("%d,4096" % toks, "FLOAT16")
            c.kernel(kname, stream, start, d, shp)
            dev = start + d
            first = start if first is None else first
        c.steps.append({"index": si, "phase": phase, "start_ns": first, "end_ns": dev, "kernels": len(ks)})
    return c


def no_period(name, seed, n=600):
    c = Capture(name, seed)
    r = c.rng
    names = ["aclnnOp%02d_Kernel%02d_K" % (i, i) for i in range(25)]
    dev = BASE_NS + 1000000
    for _ in range(n):
        dev += int(r.expovariate(1 / 20000.0)) + (r.randint(200000, 3000000) if r.random() < 0.03 else 0)
        d = r.randint(2000, 60000)
        c.kernel(r.choice(names), r.choice([2, 2, 2, 3]), dev, d)
        dev += d
    return c


def main():
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        sys.stderr.write("usage: gen_phase_fixtures.py OUTDIR\n")
        return 2
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)

    def mixseq(r, n, pre=2):
        return ["prefill"] * pre + ["decode"] * (n - pre)

    c = eager("eager_profiler_steps", 1, mixseq(None, 12), markers="profiler")
    c.write(out, "markers", "eager TP=2, ProfilerStep#N around each step, async_npu flows")

    c = eager("eager_host_markers", 2, ["prefill"] + ["decode"] * 9 + ["prefill"] + ["decode"] * 9,
              markers="execute_model", drop=0.02, extra=0.02)
    c.write(out, "host", "eager TP=2, nested execute_model python frames, jitter, missing and extra kernels")

    c = eager("eager_decode_device_only", 3, ["prefill", "prefill"] + ["decode"] * 36, flows=False,
              drop=0.02, extra=0.02)
    c.write(out, "period", "eager TP=2, no host events at all, jitter, missing and extra kernels")

    r = random.Random(4)
    seq = ["prefill"] + [("mixed" if r.random() < 0.3 else "decode") for _ in range(33)]
    c = eager("chunked_prefill", 4, seq, drop=0.01, extra=0.01)
    c.write(out, "period", "chunked prefill: steps mix prefill and decode attention; no step markers")

    c = eager("multi_stream", 5, ["prefill"] + ["decode"] * 29, side_stream=True, layers=4)
    c.write(out, "period", "rope and cache on a second compute stream, allreduce on a third")

    seq = ["decode"] * 12 + ["mixed"] + ["decode"] * 12 + ["mixed"] + ["decode"] * 6
    c = graph("graph_decode", 6, seq)
    c.write(out, "period", "graph-mode decode: no per-kernel launches, regular steps, long bubbles, "
            "kernel_details.csv with FusedInferAttentionScore shapes")

    c = eager("one_step", 7, ["decode"], layers=12, drop=0, extra=0)
    c.write(out, "period", "a single decode step: one step or no periodic steps are both right")

    c = no_period("no_period", 8)
    c.write(out, "none", "random kernels and gaps: no periodic steps", steps=[])
    return 0


if __name__ == "__main__":
    sys.exit(main())
