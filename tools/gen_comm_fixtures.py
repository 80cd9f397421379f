#!/usr/bin/env python3
"""Writes a generated 4-rank capture for the collective x rank analysis and the link matrix.

usage: gen_comm_fixtures.py OUTDIR

OUTDIR/comm_xrank/rank<N>_ascend_pt/ (N = 0..3), each with profiler_info_N.json and
ASCEND_PROFILER_OUTPUT/{trace_view.json, communication.json, communication_matrix.json}:
  - one step ("step7"), 6 collectives of one group (allReduce x4, allGather x2 interleaved)
    and one p2p send of another group. Each rank numbers its ops from its own counter
    (rank r's sequence ids start at 10 * r), so the names of one instance differ between
    ranks, as when ranks join a group at different times.
  - planted late arrivers: rank 3 arrives 4.5 ms late at the third collective, rank 1
    1.25 ms late at the fifth; otherwise arrivals differ by a few µs. Each rank waits from
    its arrival to the last arrival plus 0.002 ms; transit is 0.8 ms everywhere.
  - the matrix: per rank links r-r (LOCAL) and r-(r+1)%4, r-(r+3)%4 (HCCS) under the
    "allreduce-total@G" group, the samples "-top1"/"-middle"/"-bottom1" beside them; the
    HCCS link 2-3 is planted slow (a quarter of the others' bandwidth).
  - trace_view.json: each collective on the "Communication" lane at its arrival, plus a
    compute kernel per gap on "Ascend Hardware", so the X-Rank view has lanes to align.
OUTDIR/comm_xrank/EXPECTED.json: per instance (in rank 0's file order) every rank's name,
the last arriver and the caused wait (ms, decimal text); per link size, time, bandwidth
(4 decimals) and slow. Computed here with Decimal from the values written, never by
reading the files back. Deterministic, Python stdlib only.
"""
import decimal
import json
import os
import shutil
import sys

D = decimal.Decimal
NRANKS = 4
GROUP = '9876543210987654321'
P2P_GROUP = '1234567890123456789'
BASE_US = D('1736405443000000.000')
OPS = ['allReduce', 'allReduce', 'allGather', 'allReduce', 'allGather', 'allReduce']
LATE = {2: (3, D('4500')), 4: (1, D('1250'))}     # instance -> (rank, µs late)
TRANSIT_MS = D('0.8')
BASE_WAIT_MS = D('0.002')


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)


class Num:
    """A number written with the exact digits of a Decimal."""

    def __init__(self, d):
        self.text = format(d, 'f')


def _enc(o):
    if isinstance(o, Num):
        return o.text
    if isinstance(o, dict):
        return '{' + ','.join(json.dumps(k) + ':' + _enc(v) for k, v in o.items()) + '}'
    if isinstance(o, list):
        return '[' + ','.join(_enc(v) for v in o) + ']'
    return json.dumps(o)


def arrivals():
    """arr[j][r]: rank r's arrival at collective j in µs (Decimal)."""
    arr = []
    for j in range(len(OPS)):
        t0 = BASE_US + D(20000) * j
        row = [t0 + D(j * 3 + r * 7) / D(4) for r in range(NRANKS)]   # a few µs of jitter
        if j in LATE:
            r, late = LATE[j]
            row[r] += late
        arr.append(row)
    return arr


def name_of(kind, seq, group):
    return 'hcom_%s__%s_%d_1@%s' % (kind, group[-3:], seq, group)


def gen(out):
    root = os.path.join(out, 'comm_xrank')
    shutil.rmtree(root, ignore_errors=True)
    arr = arrivals()
    expected = {'fixture': 'comm_xrank', 'ranks': NRANKS, 'step': 'step7', 'instances': [], 'links': []}
    per_rank_ops = [[] for _ in range(NRANKS)]
    for j, kind in enumerate(OPS):
        last_t = max(arr[j])
        inst = {'names': [], 'waits_ms': [], 'starts_us': []}
        for r in range(NRANKS):
            wait = (last_t - arr[j][r]) / D(1000) + BASE_WAIT_MS
            name = name_of(kind, 10 * r + j, GROUP)
            per_rank_ops[r].append((name, arr[j][r], wait, TRANSIT_MS, wait + TRANSIT_MS))
            inst['names'].append(name)
            inst['waits_ms'].append(str(wait))
            inst['starts_us'].append(str(arr[j][r]))
        waits = [D(w) for w in inst['waits_ms']]
        last = min(range(NRANKS), key=lambda r: (waits[r], -arr[j][r], r))
        inst['last_arriver'] = last
        inst['caused_wait_ms'] = str(sum(w for r, w in enumerate(waits) if r != last))
        expected['instances'].append(inst)
    # p2p: rank r sends to r^1 once, all at the same wait: no last arriver
    p2p_t = BASE_US + D(20000) * len(OPS)
    for r in range(NRANKS):
        per_rank_ops[r].append((name_of('send', r, P2P_GROUP), p2p_t + r, BASE_WAIT_MS, TRANSIT_MS,
                                BASE_WAIT_MS + TRANSIT_MS))
    expected['p2p'] = {'names': [name_of('send', r, P2P_GROUP) for r in range(NRANKS)], 'last_arriver': None}

    for r in range(NRANKS):
        base = os.path.join(root, 'rank%d_ascend_pt' % r)
        apo = os.path.join(base, 'ASCEND_PROFILER_OUTPUT')
        coll, p2p = {}, {}
        for name, st, wait, tr, el in per_rank_ops[r]:
            info = {'Communication Time Info': {
                'Start Timestamp(us)': Num(st), 'Elapse Time(ms)': Num(el), 'Transit Time(ms)': Num(tr),
                'Wait Time(ms)': Num(wait), 'Synchronization Time(ms)': Num(wait), 'Idle Time(ms)': Num(D(0)),
                'Wait Time Ratio': Num((wait / (wait + tr)).quantize(D('0.0001'))),
                'Synchronization Time Ratio': Num((wait / (wait + tr)).quantize(D('0.0001')))},
                'Communication Bandwidth Info': {}}
            (p2p if '_send_' in name or 'hcom_send' in name else coll)[name] = info
        coll['Total Op Info'] = {'Communication Time Info': {'Elapse Time(ms)': Num(D(1))},
                                 'Communication Bandwidth Info': {}}
        write(os.path.join(apo, 'communication.json'), _enc({'step7': {'p2p': p2p, 'collective': coll}}))
        write(os.path.join(apo, 'communication_matrix.json'), _enc(matrix(r, expected)))
        write(os.path.join(apo, 'trace_view.json'), json.dumps(trace(r, per_rank_ops[r])))
        write(os.path.join(base, 'profiler_info_%d.json' % r), json.dumps({'rank_id': r}))
    finish_links(expected)
    write(os.path.join(root, 'EXPECTED.json'), json.dumps(expected, indent=1))


LINKS = {}   # (src, dst, transport) -> [size, time]


def matrix(r, expected):
    groups = {}
    for dst, tt in ((r, 'LOCAL'), ((r + 1) % NRANKS, 'HCCS'), ((r + 3) % NRANKS, 'HCCS')):
        size = D('48.234496') if tt == 'HCCS' else D('96.468992')
        time = D('2.5') + D(r) / D(8) + D(dst) / D(16) if tt == 'HCCS' else D('0.2')
        if (r, dst) == (2, 3):
            time *= 4                                  # the planted slow link
        link = '%d-%d' % (r, dst)
        total = {'Transport Type': tt, 'Transit Size(MB)': Num(size), 'Transit Time(ms)': Num(time),
                 'Bandwidth(GB/s)': Num((size / time).quantize(D('0.0001')))}
        groups.setdefault('allreduce-total@' + GROUP, {})[link] = total
        for tag in ('top1', 'middle', 'bottom1'):
            half = {'Transport Type': tt, 'Transit Size(MB)': Num(size / 2), 'Transit Time(ms)': Num(time / 2),
                    'Bandwidth(GB/s)': Num((size / time).quantize(D('0.0001'))), 'Op Name': 'hcom_allReduce__321_1_1'}
            groups.setdefault('allreduce-%s@%s' % (tag, GROUP), {})[link] = half
        LINKS[(r, dst, tt)] = [size, time]
    return {'step7': {'p2p': {}, 'collective': groups}}


def finish_links(expected):
    bw = {k: (s / t).quantize(D('0.0001'), rounding=decimal.ROUND_HALF_EVEN) for k, (s, t) in LINKS.items()}
    for (src, dst, tt), (s, t) in sorted(LINKS.items(), key=lambda kv: (kv[0][2], kv[0][0], kv[0][1])):
        vals = sorted(b for k, b in bw.items() if k[2] == tt)
        n = len(vals)
        med = vals[n // 2] if n % 2 else (vals[n // 2 - 1] + vals[n // 2]) / 2
        expected['links'].append({'src': src, 'dst': dst, 'transport': tt, 'size_mb': str(s), 'time_ms': str(t),
                                  'bandwidth_gbps': str(bw[(src, dst, tt)]), 'slow': bw[(src, dst, tt)] < med / 2})


def trace(r, ops):
    hw, comm = 1000 + r, 2000 + r
    ev = [{'ph': 'M', 'name': 'process_name', 'pid': hw, 'tid': 0, 'args': {'name': 'Ascend Hardware'}},
          {'ph': 'M', 'name': 'thread_name', 'pid': hw, 'tid': 2, 'args': {'name': 'Stream 2'}},
          {'ph': 'M', 'name': 'process_name', 'pid': comm, 'tid': 0, 'args': {'name': 'Communication'}},
          {'ph': 'M', 'name': 'thread_name', 'pid': comm, 'tid': 0, 'args': {'name': 'Group 0 Communication'}}]
    prev_end = BASE_US - D(5000)
    for name, st, wait, tr, el in sorted(ops, key=lambda o: o[1]):
        # a compute kernel filling most of the gap before the collective
        ev.append({'ph': 'X', 'name': 'aclnnMm_MatMulCommon_MatMulV2', 'pid': hw, 'tid': 2,
                   'ts': str(prev_end + D(100)), 'dur': float(st - prev_end - D(200)), 'cat': 'kernel'})
        ev.append({'ph': 'X', 'name': name.split('@')[0], 'pid': comm, 'tid': 0, 'ts': str(st),
                   'dur': float(el * 1000), 'cat': 'communication'})
        prev_end = st + el * 1000
    return ev


def main():
    if len(sys.argv) != 2 or sys.argv[1].startswith('-'):
        sys.stderr.write('usage: gen_comm_fixtures.py OUTDIR\n')
        return 2
    gen(sys.argv[1])
    return 0


if __name__ == '__main__':
    sys.exit(main())
