"""Collectives across GPU ranks: the waits, last arrivers, caused waits and clock offsets of
`aptop report --section comm_ranks,ranks` recomputed from the Kineto traces themselves, on
  - the generated 4-rank capture (tools/gen_gpu_ranks_fixtures.py, written here into a
    temporary folder: a planted straggler, one rank's clock 7 µs ahead) and its variant where
    one rank's sequence leaves the others' (said in the op's note, never matched);
  - a real NCCL trace (HolisticTraceAnalysis trace_diff/test, no communicator args: kernels
    paired by stream) copied as two ranks, the second's NCCL kernels starting a planted
    37 µs later with the same ends.

Definitions, as aptop documents them (src/model/analysis/comm_match.h):
  op            an X event of cat kernel whose name is nccl* / rccl* or holds ncclKernel /
                ncclDevKernel; collective unless SendRecv / _Send / _Recv (p2p).
  communicator  args "Process Group Name", else "stream #k": k (from 1) the place of its
                tid among the trace's tids holding such kernels, by their first one.
  call          args "Collective name", else the name's part after ncclDevKernel_ /
                ncclKernel_ up to the next '_'; with "In msg nelems" when recorded.
  instance      the k-th op (by start) of a communicator on each rank; where a rank's k-th
                call is not the one most ranks make (ties: the earliest rank's), that rank's
                ops on that communicator from there on are in no instance.
  offset        per rank: median over shared collective instances of (reference end - its
                end), the reference the first rank; the lower middle plus half the gap.
  wait          (last arrival - own arrival), arrival = start + offset, at most the elapse;
                transit = elapse - wait; last arriver the least wait (ties: the later start),
                none when all equal; caused wait the sum of the others' waits.
"""
import decimal, gzip, json, os, re, shutil, subprocess, sys, tempfile
import checklib as c

D = decimal.Decimal
PREFIXES = ('ncclDevKernel_', 'ncclKernel_', 'rcclKernel_')


def is_comm(name):
    return name.startswith(('nccl', 'rccl')) or 'ncclKernel' in name or 'ncclDevKernel' in name


def base_name(name):
    n = name.split('(')[0]
    return n[5:] if n.startswith('void ') else n


def call_of(e):
    a = e.get('args') or {}
    coll = a.get('Collective name')
    if not coll:
        n = base_name(e['name'])
        coll = n
        for p in PREFIXES:
            i = n.find(p)
            if i >= 0 and len(n) > i + len(p):
                coll = n[i + len(p):].split('_')[0]
                break
    ne = a.get('In msg nelems')
    return coll, (int(ne) if isinstance(ne, int) else None)


def is_p2p(name):
    return 'SendRecv' in name or '_Send' in name or '_Recv' in name


def rank_ops(path):
    """The NCCL kernel ops of one trace: dicts start, end, elapse, comm, call, p2p."""
    d = c.load_json(path)
    rank = d.get('distributedInfo', {}).get('rank')
    ks = [e for e in d['traceEvents'] if isinstance(e, dict) and e.get('ph') == 'X' and e.get('cat') == 'kernel'
          and is_comm(e.get('name', ''))]
    first = {}
    for e in ks:
        t = c.ns(e['ts'])
        key = (e.get('pid'), e.get('tid'))
        first[key] = min(first.get(key, t), t)
    order = {k: i + 1 for i, k in enumerate(sorted(first, key=lambda k: (first[k], str(k))))}
    ops = []
    for i, e in enumerate(ks):
        a = e.get('args') or {}
        st, el = c.ns(e['ts']), max(c.ns(e.get('dur', 0)), 0)
        comm = a.get('Process Group Name') or 'stream #%d' % order[(e.get('pid'), e.get('tid'))]
        ops.append({'start': st, 'elapse': el, 'end': st + el, 'comm': comm, 'call': call_of(e),
                    'p2p': is_p2p(e['name']), 'i': i})
    return int(rank), ops


def same_call(a, b):
    return a[0] == b[0] and (a[1] is None or b[1] is None or a[1] == b[1])


def truth(paths):
    ranks = sorted(rank_ops(p) for p in paths)
    seqs = {}                       # (rank, comm) -> ops by start
    for r, ops in ranks:
        for o in ops:
            seqs.setdefault((r, o['comm']), []).append(o)
    for k in seqs:
        seqs[k].sort(key=lambda o: (o['start'], o['i']))
    comms = sorted({k[1] for k in seqs})
    cut = {}                        # (rank, comm) -> first ordinal not lined up
    notes = {}
    for cm in comms:
        members = [r for r, _ in ranks if (r, cm) in seqs]
        for k in range(max(len(seqs[(r, cm)]) for r in members)):
            here = [(r, seqs[(r, cm)][k]) for r in members if k < len(seqs[(r, cm)])]
            if len(here) < 2:
                continue
            best, best_n = here[0], 0
            for x in here:
                cnt = sum(same_call(x[1]['call'], y[1]['call']) for y in here)
                if cnt > best_n:
                    best, best_n = x, cnt
                if best_n * 2 > len(here):
                    break
            for r, o in here:
                if not same_call(o['call'], best[1]['call']) and (r, cm) not in cut:
                    cut[(r, cm)] = k
                    pass
    inst = {}                       # (comm, k) -> [(rank, op)]
    for (r, cm), ops in seqs.items():
        for k, o in enumerate(ops):
            if k < cut.get((r, cm), len(ops)):
                inst.setdefault((cm, k), []).append((r, o))
            else:
                notes[(r, o['start'])] = (cm, cut[(r, cm)])   # past the place it left
    # offsets from the ends of shared collective instances
    rank_ids = [r for r, _ in ranks]
    ref = next((r for r in rank_ids if any(any(x == r for x, o in m if not o['p2p']) for m in inst.values())), None)
    off = {r: 0 for r in rank_ids}
    for r in rank_ids:
        if r == ref:
            continue
        d = []
        for m in inst.values():
            e = {x: o['end'] for x, o in m if not o['p2p']}
            if ref in e and r in e:
                d.append(e[ref] - e[r])
        d.sort()
        if d:
            n = len(d)
            off[r] = d[n // 2] if n % 2 else d[n // 2 - 1] + (d[n // 2] - d[n // 2 - 1]) // 2
    rows = {}
    for m in inst.values():
        if len(m) < 2:
            for r, o in m:
                rows[(r, o['start'])] = None
            continue
        last = max(o['start'] + off[r] for r, o in m)
        ws = [(r, o, min(last - (o['start'] + off[r]), o['elapse'])) for r, o in m]
        least = min(w for _, _, w in ws)
        arriver = None
        if any(w != least for _, _, w in ws):
            arriver = max((x for x in ws if x[2] == least), key=lambda x: x[1]['start'])[0]
        caused = sum(w for r, _, w in ws if r != arriver) if arriver is not None else None
        for r, o, w in ws:
            rows[(r, o['start'])] = (w, o['elapse'] - w, r == arriver, caused if r == arriver else None)
    return rows, notes, off


def ms_ns(v):
    return None if v is None else int(D(str(v)) * 1000000)


def compare(aptop, folder, label):
    paths = sorted(os.path.join(folder, f) for f in os.listdir(folder))
    want, notes, off = truth(paths)
    rep, why = c.report(aptop, folder, 'comm_ranks,ranks')
    if rep is None:
        return ['%s: no report (%s)' % (label, why)], label, {}
    bad, n, noted = [], 0, 0
    for row in rep.get('comm_ranks') or []:
        key = (row['rank'], c.ns(row['start_us']))
        if row.get('note'):
            noted += 1
            if key not in notes:
                bad.append('%s: rank %d op at %s noted, not expected' % (label, *key))
            continue
        w = want.get(key, 'absent')
        if w == 'absent':
            bad.append('%s: rank %d op at %s not expected' % (label, *key))
            continue
        n += 1
        got = (ms_ns(row['wait_ms']), ms_ns(row['transit_ms']), row['last_arriver'], ms_ns(row['caused_wait_ms']))
        if w is not None and got != w:
            bad.append('%s: rank %d op at %s: %s, want %s' % (label, key[0], key[1], got, w))
    if noted != len([k for k in notes]) and not notes:
        bad.append('%s: %d notes, want none' % (label, noted))
    if notes and not noted:
        bad.append('%s: the divergence is not said' % label)
    for r in rep.get('ranks') or []:
        if c.ns(r['offset_us']) != off.get(r['rank'], 0):
            bad.append('%s: rank %d offset %s µs, want %d ns' % (label, r['rank'], r['offset_us'], off.get(r['rank'], 0)))
    waits = {}
    for (r, _), v in want.items():
        if v:
            waits[r] = waits.get(r, 0) + v[0]
    return bad, '%s: %d ops, %d noted, waits ns per rank %s' % (label, n, noted, dict(sorted(waits.items()))), waits


def real_pair(tmp):
    """The real trace as two ranks: rank 1's NCCL kernels start 37 µs later, same ends."""
    src = os.path.join(c.REAL, 'HolisticTraceAnalysis/tests/data/trace_diff/test/test.json.gz')
    if not os.path.isfile(src):
        return None
    with gzip.open(src, 'rt') as f:
        text = f.read()
    out = os.path.join(tmp, 'real_pair')
    os.makedirs(out)
    d0 = json.loads(text)
    d0['distributedInfo'] = {'backend': 'nccl', 'rank': 0, 'world_size': 2}
    d1 = json.loads(text)
    d1['distributedInfo'] = {'backend': 'nccl', 'rank': 1, 'world_size': 2}
    for e in d1['traceEvents']:
        if isinstance(e, dict) and e.get('ph') == 'X' and e.get('cat') == 'kernel' and is_comm(e.get('name', '')) \
                and isinstance(e.get('ts'), int) and isinstance(e.get('dur'), int) and e['dur'] > 37:
            e['ts'] += 37
            e['dur'] -= 37
    for r, d in ((0, d0), (1, d1)):
        with gzip.open(os.path.join(out, 'rank-%d.real.pt.trace.json.gz' % r), 'wt') as f:
            json.dump(d, f)
    return out


def check(aptop):
    tmp = tempfile.mkdtemp(prefix='aptop_gpu_ranks_')
    try:
        gen = os.path.join(c.ROOT, 'tools', 'gen_gpu_ranks_fixtures.py')
        subprocess.run([sys.executable, gen, tmp], check=True)
        bad, msgs = [], []
        for folder, label in (('gpu_ranks', 'generated'), ('gpu_ranks_diverge', 'diverging')):
            b, m, waits = compare(aptop, os.path.join(tmp, folder), label)
            bad += b
            msgs.append(m)
            if label == 'generated' and (not waits or min(waits, key=waits.get) != 2):
                bad.append('generated: the planted straggler (rank 2) does not wait least: %s' % waits)
        pair = real_pair(tmp) if c.real_dir() else None
        if pair:
            b, m, waits = compare(aptop, pair, 'real pair')
            bad += b
            msgs.append(m)
        if bad:
            return '; '.join(bad[:4]) + (' (+%d)' % (len(bad) - 4) if len(bad) > 4 else ''), False
        return '; '.join(msgs), True
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
