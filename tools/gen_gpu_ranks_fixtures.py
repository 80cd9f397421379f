#!/usr/bin/env python3
"""Writes generated multi-rank PyTorch profiler (Kineto) GPU captures for the collectives
matched from NCCL kernels, and a trace of an accelerator that is not a GPU.

usage: gen_gpu_ranks_fixtures.py OUTDIR

OUTDIR/gpu_ranks/rank-N.gpu.pt.trace.json (N = 0..3): one Kineto trace per rank
(distributedInfo.rank N of 4, nccl), three steps (ProfilerStep#1..3), per step on GPU N:
  - a compute kernel on stream 7, then ncclDevKernel_AllReduce (Process Group "0",
    In msg nelems 1048576) on stream 20; a second compute kernel, then
    ncclDevKernel_AllGather (group "0", 65536); a third, then ncclDevKernel_Broadcast on
    stream 24 (group "1", 16).
  - the planted straggler: rank 2's compute kernels take 400 µs more, so it arrives last
    at every collective; the others' arrivals differ by r x 3 µs.
  - every collective ends at the same true time on every rank (150 µs after the last
    arrival); rank 3's clock is 7 µs ahead of the others (its timestamps are 7 µs later),
    so the waits come right only once the ends are aligned.
  - [memory] instant events (cpu_instant_event) on the host thread: Total Allocated and
    Total Reserved of cuda:N, with a planted peak in step 2 (rank-dependent), and two
    CPU allocations (Device Type 0, Device Id -1).
  Timestamps are µs with 3 decimals, exact to the ns.
OUTDIR/gpu_ranks_diverge/: the same capture but rank 1 calls an extra Broadcast on group
  "0" (nelems 16) before its AllGather of step 2: from there its sequence on group "0" does
  not line up with the others'.
OUTDIR/kineto_mtia/mtia.pt.trace.json: an MTIA trace: mtia_runtime calls on the host and
  mtia_ccp_events slices on the device process (pid 0, label "MTIA 0").
Deterministic, Python stdlib only.
"""
import json
import os
import shutil
import sys

NRANKS = 4
T0 = 1700000000000000000          # true time of the capture's start, ns
SKEW = {0: 0, 1: 0, 2: 0, 3: 7000}
STEP_NS = 10_000_000
TRANSIT_NS = 150_000
COLLS = [  # (kernel name, collective, group, nelems, stream)
    ('ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)', 'allreduce', '0', 1048576, 20),
    ('ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)', 'allgather', '0', 65536, 20),
    ('ncclDevKernel_Broadcast_RING_LL(ncclDevKernelArgsStorage<4096ul>)', 'broadcast', '1', 16, 24),
]
EXTRA = ('ncclDevKernel_Broadcast_RING_LL(ncclDevKernelArgsStorage<4096ul>)', 'broadcast', '0', 16, 20)


def us(ns):
    """ns as µs text with 3 decimals (exact)."""
    return '%d.%03d' % divmod(ns, 1000)


class Raw:
    def __init__(self, text):
        self.text = text


def enc(o):
    if isinstance(o, Raw):
        return o.text
    if isinstance(o, dict):
        return '{' + ', '.join(json.dumps(k) + ': ' + enc(v) for k, v in o.items()) + '}'
    if isinstance(o, list):
        return '[' + ', '.join(enc(v) for v in o) + ']'
    return json.dumps(o)


def compute_ns(rank, step, k):
    return 2_000_000 + 500_000 * k + (400_000 if rank == 2 else 0) + 3_000 * rank + 1_000 * step


def build(rank, diverge):
    """Events of one rank; times in the rank's own clock."""
    ev = []
    sk = SKEW[rank]
    corr = [1000]

    def ts(true_ns):
        return Raw(us(true_ns + sk))

    def kernel(name, t, dur, stream, args):
        corr[0] += 1
        a = {'External id': corr[0], 'device': rank, 'stream': stream, 'correlation': corr[0]}
        a.update(args)
        ev.append({'ph': 'X', 'cat': 'kernel', 'name': name, 'pid': rank, 'tid': stream,
                   'ts': ts(t), 'dur': Raw(us(dur)), 'args': a})

    def memory(t, alloc, resv, nbytes, dev_type=1, dev_id=None):
        ev.append({'ph': 'i', 'cat': 'cpu_instant_event', 's': 't', 'name': '[memory]', 'pid': 100 + rank,
                   'tid': 100 + rank, 'ts': ts(t),
                   'args': {'Total Reserved': resv, 'Total Allocated': alloc, 'Bytes': nbytes,
                            'Addr': 139000000000000 + t % 1000000, 'Device Id': rank if dev_id is None else dev_id,
                            'Device Type': dev_type}})

    for step in range(1, 4):
        s0 = T0 + step * STEP_NS
        ev.append({'ph': 'X', 'cat': 'user_annotation', 'name': 'ProfilerStep#%d' % step, 'pid': 100 + rank,
                   'tid': 100 + rank, 'ts': ts(s0), 'dur': Raw(us(STEP_NS - 1000)), 'args': {}})
        t = s0 + 100_000
        calls = list(COLLS)
        if diverge and rank == 1 and step == 2:
            calls.insert(1, EXTRA)
        for k, (name, coll, group, nelems, stream) in enumerate(calls):
            base = [compute_ns(r, step, min(k, 2)) for r in range(NRANKS)]
            kernel('ampere_sgemm_128x64_tn', t, base[rank], 7, {'grid': [64, 1, 1]})
            arrivals = [t + base[r] + 5_000 for r in range(NRANKS)]
            end = max(arrivals) + TRANSIT_NS
            start = arrivals[rank]
            kernel(name, start, end - start, stream,
                   {'Collective name': coll, 'dtype': 'Float', 'In msg nelems': nelems, 'Out msg nelems': nelems,
                    'Group size': NRANKS, 'Process Group Name': group, 'Process Group Description': 'default_pg'})
            t = end + 20_000
        # memory: a rise to the step's peak, then back
        base_alloc = 1_000_000_000 + rank * 1_000_000
        peak = base_alloc + (step == 2) * (500_000_000 + rank * 10_000_000) + step * 4096
        memory(s0 + 50_000, base_alloc + step * 512, 2_147_483_648, 512)
        memory(s0 + 60_000, peak, 2_147_483_648 + (step == 2) * 1_073_741_824, peak - base_alloc)
        memory(s0 + 70_000, base_alloc + step * 512, 2_147_483_648 + (step == 2) * 1_073_741_824, -(peak - base_alloc))
    memory(T0 + STEP_NS + 80_000, 4096, 0, 4096, dev_type=0, dev_id=-1)
    memory(T0 + STEP_NS + 90_000, 0, 0, -4096, dev_type=0, dev_id=-1)
    return ev


def trace(rank, events):
    meta = [{'ph': 'M', 'name': 'process_name', 'pid': rank, 'tid': 0, 'args': {'name': 'python3'}},
            {'ph': 'M', 'name': 'process_labels', 'pid': rank, 'tid': 0, 'args': {'labels': 'GPU %d' % rank}},
            {'ph': 'M', 'name': 'process_name', 'pid': 100 + rank, 'tid': 0, 'args': {'name': 'python3'}}]
    head = ('{\n  "schemaVersion": 1,\n  "deviceProperties": [%s],\n'
            '  "distributedInfo": {"backend": "nccl", "rank": %d, "world_size": %d},\n'
            '  "traceEvents": [\n' % (', '.join('{"id": %d, "name": "NVIDIA H100 80GB HBM3"}' % i
                                                 for i in range(NRANKS)), rank, NRANKS))
    return head + ',\n'.join('  ' + enc(e) for e in meta + events) + '\n  ]\n}\n'


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)


def mtia():
    ev = [{'ph': 'M', 'name': 'process_name', 'pid': 0, 'tid': 0, 'args': {'name': 'MTIA 0'}},
          {'ph': 'M', 'name': 'process_labels', 'pid': 0, 'tid': 0, 'args': {'labels': 'MTIA 0'}},
          {'ph': 'M', 'name': 'process_name', 'pid': 900, 'tid': 0, 'args': {'name': 'python3'}}]
    t = T0
    for i in range(6):
        ev.append({'ph': 'X', 'cat': 'mtia_runtime', 'name': 'mtiaLaunchKernel', 'pid': 900, 'tid': 900,
                   'ts': Raw(us(t)), 'dur': Raw(us(8_000)), 'args': {'correlation': 50 + i}})
        ev.append({'ph': 'X', 'cat': 'mtia_ccp_events', 'name': 'mtia_kernel_%d' % (i % 2), 'pid': 0, 'tid': 3,
                   'ts': Raw(us(t + 20_000)), 'dur': Raw(us(100_000 + 1_000 * i)), 'args': {'correlation': 50 + i}})
        t += 150_000
    return ('{"schemaVersion": 1, "traceEvents": [\n' + ',\n'.join(enc(e) for e in ev) + '\n]}\n')


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else 'fixtures'
    for folder, diverge in (('gpu_ranks', False), ('gpu_ranks_diverge', True)):
        d = os.path.join(out, folder)
        shutil.rmtree(d, ignore_errors=True)
        for r in range(NRANKS):
            write(os.path.join(d, 'rank-%d.gpu.pt.trace.json' % r), trace(r, build(r, diverge)))
    d = os.path.join(out, 'kineto_mtia')
    shutil.rmtree(d, ignore_errors=True)
    write(os.path.join(d, 'mtia.pt.trace.json'), mtia())


if __name__ == '__main__':
    main()
