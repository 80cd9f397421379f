#!/usr/bin/env python3
"""Writes a generated many-rank capture for the two-pass load (small files first, timelines
when opened, at most N in memory).

usage: gen_lazy_fixtures.py OUTDIR [--name NAME] [--ranks N] [--steps S] [--layers L]

OUTDIR/NAME/rank<R>_ascend_pt/ (default NAME lazy64, 64 ranks, 4 steps of 3 layers), each
with profiler_info_R.json and ASCEND_PROFILER_OUTPUT/{trace_view.json, kernel_details.csv,
step_trace_time.csv, communication.json}:
  - per step and layer a MatMulV2 and an RmsNorm kernel on "Ascend Hardware" stream 2, then
    one hcom_allReduce on the "Communication" lane and in kernel_details (HCCL core);
  - rank 37 is planted slow: its kernels last 1.5 times as long, so its steps are the
    longest and the others wait for it in communication.json;
  - step_trace_time.csv gives each step's computing / communication / free, as the
    profiler writes it (µs, 3 decimals), so the Ranks view has every rank's figures before
    any trace is read.
OUTDIR/NAME/EXPECTED.json: ranks, steps, the slow rank, each rank's step µs (exact decimal
text). Larger --steps and --layers make traces of a few MB per rank for bench/run_lazy.sh.
Deterministic, Python stdlib only.
"""
import argparse
import decimal
import json
import os
import shutil
import sys

D = decimal.Decimal
BASE_US = D('1736405443000000.000')
GROUP = '11223344556677889900'
SLOW_RANK = 37
KERNELS = [('aclnnMm_MatMulCommon_MatMulV2', 'MatMulV2', 'AI_CORE', D('38.500')),
           ('aclnnRmsNorm_RmsNorm_RmsNorm', 'RmsNorm', 'AI_VECTOR_CORE', D('6.250'))]
GAP_US = D('1.500')          # between kernels
ALLREDUCE_US = D('31.000')   # transit; the wait comes on top
STEP_GAP_US = D('200.000')   # free time between steps


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w', newline='') as f:
        f.write(text)


def us(d):
    return format(d.quantize(D('0.001')), 'f')


def rank_steps(r, steps, layers):
    """[(kernels [(name, type, core, start, dur)], allreduce start, step end)] of rank r,
    every rank's allreduce of a step starting when the slowest rank gets there."""
    scale = D('1.5') if r == SLOW_RANK else D(1)
    out = []
    t = BASE_US
    for s in range(steps):
        ks = []
        for _ in range(layers):
            for name, typ, core, dur in KERNELS:
                ks.append((name, typ, core, t, dur * scale))
                t += dur * scale + GAP_US
        out.append((ks, t))
        t += ALLREDUCE_US + STEP_GAP_US
    return out


def gen(out, name, nranks, steps, layers):
    root = os.path.join(out, name)
    shutil.rmtree(root, ignore_errors=True)
    per_rank = [rank_steps(r, steps, layers) for r in range(nranks)]
    # the collective of step s ends together on every rank: the last arriver's start + transit
    last = [max(per_rank[r][s][1] for r in range(nranks)) for s in range(steps)]
    expected = {'fixture': name, 'ranks': nranks, 'steps': steps, 'slow_rank': SLOW_RANK if nranks > SLOW_RANK else None,
                'step_us': {}}
    for r in range(nranks):
        apo = os.path.join(root, 'rank%d_ascend_pt' % r, 'ASCEND_PROFILER_OUTPUT')
        hw, comm = 1000 + r, 2000 + r
        ev = [{'ph': 'M', 'name': 'process_name', 'pid': hw, 'tid': 0, 'args': {'name': 'Ascend Hardware'}},
              {'ph': 'M', 'name': 'thread_name', 'pid': hw, 'tid': 2, 'args': {'name': 'Stream 2'}},
              {'ph': 'M', 'name': 'process_name', 'pid': comm, 'tid': 0, 'args': {'name': 'Communication'}},
              {'ph': 'M', 'name': 'thread_name', 'pid': comm, 'tid': 0, 'args': {'name': 'Group 0 Communication'}}]
        kd = ['Device_id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us)']
        st = ['Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,'
              'Communication(Not Overlapped and Exclude Receive),Preparing']
        coll = {}
        step_starts = [BASE_US] + [last[s - 1] + ALLREDUCE_US + STEP_GAP_US for s in range(1, steps)]
        expected['step_us'][str(r)] = []
        for s, (ks, arrive) in enumerate(per_rank[r]):
            shift = step_starts[s] - ks[0][3]          # every rank starts a step together
            for kname, typ, core, t0, dur in ks:
                ev.append({'ph': 'X', 'name': kname, 'pid': hw, 'tid': 2, 'ts': us(t0 + shift), 'dur': us(dur),
                           'cat': 'kernel', 'args': {'Task Type': core}})
                kd.append('%d,%s,%s,%s,%s,%s,0' % (r, kname, typ, core, us(t0 + shift), us(dur)))
            a0 = arrive + shift
            end = last[s] + ALLREDUCE_US
            wait = end - ALLREDUCE_US - a0
            op = 'hcom_allReduce__%s_%d_1' % (GROUP[-3:], s)
            ev.append({'ph': 'X', 'name': op, 'pid': comm, 'tid': 0, 'ts': us(a0), 'dur': us(end - a0),
                       'cat': 'communication'})
            kd.append('%d,%s,%s,HCCL,%s,%s,%s' % (r, op, 'hcom_allReduce_', us(a0), us(end - a0), us(wait)))
            comp = sum(k[4] for k in ks)
            stage = end - step_starts[s]
            free = stage - comp - (end - a0)
            st.append('%d,%s,%s,0,%s,%s,%s,0,%s,0' % (s + 1, us(comp), us(end - a0), us(end - a0), us(free), us(stage),
                                                      us(end - a0)))
            expected['step_us'][str(r)].append(us(stage))
            el = (end - a0) / 1000
            coll['%s@%s' % (op, GROUP)] = {
                'Communication Time Info': {
                    'Start Timestamp(us)': float(a0), 'Elapse Time(ms)': float(el),
                    'Transit Time(ms)': float(ALLREDUCE_US / 1000), 'Wait Time(ms)': float(wait / 1000),
                    'Synchronization Time(ms)': float(wait / 1000), 'Idle Time(ms)': 0.0,
                    'Wait Time Ratio': float((wait / (end - a0)).quantize(D('0.0001'))),
                    'Synchronization Time Ratio': float((wait / (end - a0)).quantize(D('0.0001')))},
                'Communication Bandwidth Info': {}}
        write(os.path.join(apo, 'trace_view.json'), '[' + ',\n'.join(json.dumps(e) for e in ev) + ']')
        write(os.path.join(apo, 'kernel_details.csv'), '\n'.join(kd) + '\n')
        write(os.path.join(apo, 'step_trace_time.csv'), '\n'.join(st) + '\n')
        write(os.path.join(apo, 'communication.json'),
              json.dumps({'step%d' % (s + 1): {'p2p': {}, 'collective': {k: v for k, v in coll.items()
                                                                          if k.split('@')[0].endswith('_%d_1' % s)}}
                          for s in range(steps)}))
        write(os.path.join(root, 'rank%d_ascend_pt' % r, 'profiler_info_%d.json' % r), json.dumps({'rank_id': r}))
    write(os.path.join(root, 'EXPECTED.json'), json.dumps(expected, indent=1))


def main():
    ap = argparse.ArgumentParser(description='a generated many-rank capture')
    ap.add_argument('outdir')
    ap.add_argument('--name', default='lazy64')
    ap.add_argument('--ranks', type=int, default=64)
    ap.add_argument('--steps', type=int, default=4)
    ap.add_argument('--layers', type=int, default=3)
    a = ap.parse_args()
    if a.ranks < 1 or a.steps < 1 or a.layers < 1:
        sys.stderr.write('gen_lazy_fixtures.py: --ranks, --steps and --layers take positive numbers\n')
        return 2
    gen(a.outdir, a.name, a.ranks, a.steps, a.layers)
    return 0


if __name__ == '__main__':
    sys.exit(main())
