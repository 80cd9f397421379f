#!/usr/bin/env python3
"""Writes a vLLM-Ascend-like trace_view.json of about SIZE bytes for the benchmarks.

usage: gen_trace.py SIZE OUT      (SIZE like 100M or 1G)

The trace repeats decode steps: per step a ProfilerStep on the Python thread, per layer a
handful of aten ops (with call stacks in args, as with_stack=True writes them), their CANN
API and Node@launch slices, the NPU kernels on two streams, async_npu and HostToDevice
flows (ids above 2^53, string ids, as torch_npu writes them), an HCCL allreduce, Overlap
Analysis slices and counters. Metadata comes first as in real files. Stdlib only; the
output is cached by the caller (bench/run.sh), so a 1 GB file is written once.
"""
import os
import random
import sys

PY_PID, CANN_PID, HW_PID, HCCL_PID, OVL_PID, FREQ_PID, HBM_PID = (
    3016828, 3089232096, 3089232288, 3089232352, 3089232608, 3089232320, 3089232416)
PY_TID, HW_STREAMS = 3016828, (2, 4)

OPS = [  # (aten op, CANN api, kernel, kernel type, mean kernel us)
    ("aten::linear", "aclnnMatmul", "MatMulV2", "AI_CORE", 38.0),
    ("aten::add", "aclnnAdd", "Add", "AI_VECTOR_CORE", 4.2),
    ("aten::mul", "aclnnMul", "Mul", "AI_VECTOR_CORE", 3.9),
    ("npu::npu_rms_norm", "aclnnRmsNorm", "RmsNorm", "AI_VECTOR_CORE", 6.5),
    ("npu::npu_fused_infer_attention_score", "aclnnFusedInferAttentionScore",
     "FusedInferAttentionScore", "MIX_AIC", 55.0),
    ("aten::silu", "aclnnSilu", "Swish", "AI_VECTOR_CORE", 5.1),
    ("npu::npu_rotary_mul", "aclnnRotaryMul", "RotaryMul", "AI_VECTOR_CORE", 7.7),
    ("aten::copy_", "aclnnInplaceCopy", "TensorMove", "AI_VECTOR_CORE", 2.8),
]

STACK = ("vllm/worker/model_runner.py(1532): execute_model;\\r\\n"
         "vllm_ascend/worker/model_runner_v1.py(1048): _process_reqs;\\r\\n"
         "torch/nn/modules/module.py(1518): _call_impl;\\r\\n"
         "vllm_ascend/models/qwen2.py(%d): forward;\\r\\n"
         "torch/nn/modules/linear.py(116): forward")


def us(ns):
    return '"%d.%03d"' % (ns // 1000, ns % 1000)


def meta():
    ev = []
    def m(name, pid, tid, args):
        ev.append('{"ph":"M","name":"%s","pid":%d,"tid":%d,"args":%s}' % (name, pid, tid, args))
    for pid, name, idx, lab in ((PY_PID, "Python", 0, "CPU"), (CANN_PID, "CANN", 7, "CPU"),
                                (HW_PID, "Ascend Hardware", 13, "NPU"), (HCCL_PID, "HCCL", 15, "NPU"),
                                (OVL_PID, "Overlap Analysis", 23, "NPU"), (FREQ_PID, "AI Core Freq", 14, "NPU"),
                                (HBM_PID, "HBM", 17, "NPU")):
        m("process_name", pid, 0, '{"name":"%s"}' % name)
        m("process_labels", pid, 0, '{"labels":"%s"}' % lab)
        m("process_sort_index", pid, 0, '{"sort_index":%d}' % idx)
    m("thread_name", PY_PID, PY_TID, '{"name":"Thread %d"}' % PY_TID)
    m("thread_name", CANN_PID, PY_TID, '{"name":"Thread %d"}' % PY_TID)
    for s in HW_STREAMS:
        m("thread_name", HW_PID, s, '{"name":"Stream %d"}' % s)
        m("thread_sort_index", HW_PID, s, '{"sort_index":%d}' % s)
    m("thread_name", HCCL_PID, 0, '{"name":"Group 0 Communication"}')
    for i, n in enumerate(("Computing", "Communication", "Communication(Not Overlapped)", "Free")):
        m("thread_name", OVL_PID, i, '{"name":"%s"}' % n)
    return ev


def step(n, t, rnd, corr):
    """Events of decode step n starting at host time t (ns); returns (events, end, corr)."""
    ev = []
    out = ev.append
    layers = 24
    host = t + 20000
    dev = t + 400000
    step_start = t
    comp0 = dev
    for layer in range(layers):
        for k, (op, api, kern, ktype, mean) in enumerate(OPS):
            odur = 9000 + rnd.randrange(9000)
            seq = corr
            out('{"ph":"X","name":"%s","pid":%d,"tid":%d,"ts":%s,"dur":%d.%02d,"cat":"cpu_op",'
                '"args":{"Sequence number":%d,"Fwd thread id":0,"Input Dims":"[[%d, 4096], [4096, 4096]]",'
                '"Input type":"c10::BFloat16;\\r\\nc10::BFloat16","Call stack":"%s"}}'
                % (op, PY_PID, PY_TID, us(host), odur // 1000, odur % 1000 // 10, seq, 8 + n % 56, STACK % (200 + k)))
            adur = odur - 3000
            out('{"ph":"X","name":"AscendCL@%s","pid":%d,"tid":%d,"ts":%s,"dur":%d.%03d,"cat":"AscendCL",'
                '"args":{"Thread Id":%d,"Mode":"ACL_OP","level":"acl","id":"%d","item_id":"0","connection_id":%d}}'
                % (api, CANN_PID, PY_TID, us(host + 1000), adur // 1000, adur % 1000, PY_TID, corr, corr))
            out('{"ph":"X","name":"Node@launch","pid":%d,"tid":%d,"ts":%s,"dur":3.210,"cat":"Node",'
                '"args":{"Thread Id":%d,"Mode":"launch","level":"node","connection_id":%d}}'
                % (CANN_PID, PY_TID, us(host + 2500), PY_TID, corr))
            kd = int(mean * 1000 * (0.8 + 0.4 * rnd.random()))
            stream = HW_STREAMS[0] if k != 7 else HW_STREAMS[1]
            kts = dev
            out('{"ph":"X","name":"%s","pid":%d,"tid":%d,"ts":%s,"dur":%d.%03d,"cat":"kernel",'
                '"args":{"Model Id":4294967295,"Task Type":"%s","Physic Stream Id":%d,"Task Id":%d,'
                '"Batch Id":0,"Subtask Id":4294967295,"connection_id":%d}}'
                % (kern, HW_PID, stream, us(kts), kd // 1000, kd % 1000, ktype, stream, corr % 65536, corr))
            fid = 1736405443000000000 + kts // 1000 * 1000 + corr % 1000
            out('{"ph":"s","bp":"e","name":"torch_to_npu","id":%d,"pid":%d,"tid":%d,"ts":%s,"cat":"async_npu"}'
                % (fid, PY_PID, PY_TID, us(host)))
            out('{"ph":"f","bp":"e","name":"torch_to_npu","id":%d,"pid":%d,"tid":%d,"ts":%s,"cat":"async_npu"}'
                % (fid, HW_PID, stream, us(kts)))
            out('{"name":"HostToDevice%d","ph":"s","cat":"HostToDevice","id":"%d","pid":%d,"tid":%d,"ts":%s}'
                % (corr, corr, CANN_PID, PY_TID, us(host + 2500)))
            out('{"name":"HostToDevice%d","ph":"f","id":"%d","ts":%s,"cat":"HostToDevice","pid":%d,"tid":%d,"bp":"e"}'
                % (corr, corr, us(kts), HW_PID, stream))
            corr += 1
            host += odur + 1500 + rnd.randrange(2000)
            dev += kd + 800 + rnd.randrange(1500)
        if layer % 6 == 5:
            cd = 60000 + rnd.randrange(40000)
            out('{"ph":"X","name":"hcom_allReduce__%d_%d_1","pid":%d,"tid":0,"ts":%s,"dur":%d.%03d,'
                '"cat":"hccl","args":{"connection_id":%d,"model id":4294967295,"data_type":"BF16","alg_type":"MESH-RING"}}'
                % (n % 1000, layer, HCCL_PID, us(dev), cd // 1000, cd % 1000, corr))
            dev += cd + 1000
    out('{"ph":"X","name":"ProfilerStep#%d","pid":%d,"tid":%d,"ts":%s,"dur":%d.%03d,"cat":"cpu_op",'
        '"args":{"Sequence number":-1,"Fwd thread id":0}}'
        % (n, PY_PID, PY_TID, us(step_start), (host - step_start) // 1000, (host - step_start) % 1000))
    out('{"ph":"X","name":"Computing","pid":%d,"tid":0,"ts":%s,"dur":%d.%03d}'
        % (OVL_PID, us(comp0), (dev - comp0) // 1000, (dev - comp0) % 1000))
    out('{"ph":"X","name":"Free","pid":%d,"tid":3,"ts":%s,"dur":150.000}' % (OVL_PID, us(dev)))
    for i in range(4):
        out('{"name":"AI Core Freq","ts":%s,"pid":%d,"tid":0,"args":{"MHz":%d.0},"ph":"C"}'
            % (us(comp0 + i * 50000), FREQ_PID, 1800 - 200 * (i == 3)))
        out('{"name":"HBM 0/Read","ts":%s,"pid":%d,"tid":0,"args":{"MB/s":%d.%d},"ph":"C"}'
            % (us(comp0 + i * 50000), HBM_PID, rnd.randrange(90000), rnd.randrange(10)))
    end = max(host, dev - 380000) + 500000
    return ev, end, corr


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    s = sys.argv[1].upper()
    mult = {'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30}.get(s[-1:], 1)
    target = int(float(s.rstrip('KMG')) * mult)
    out = sys.argv[2]
    rnd = random.Random(42)
    tmp = out + '.tmp'
    written = 0
    with open(tmp, 'w', buffering=1 << 22) as f:
        head = '[' + ', '.join(meta())
        f.write(head)
        written += len(head)
        t = 1736405443863674400   # ns, the epoch-µs base torch_npu writes
        n, corr = 0, 1000
        while written < target:
            ev, t, corr = step(n, t, rnd, corr)
            chunk = ', ' + ', '.join(ev)
            f.write(chunk)
            written += len(chunk)
            n += 1
        f.write(']')
    os.replace(tmp, out)


if __name__ == '__main__':
    main()
