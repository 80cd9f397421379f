"""Kineto memory: the `memory` section of every real Kineto trace with [memory] events (and
of the generated 4-rank capture, tools/gen_gpu_ranks_fixtures.py) recomputed from the events.

Definitions, as aptop documents them (src/io/trace/kineto.h):
  curve        one per device: the [memory] instants (any ph "i" event named "[memory]")
               with integer args "Total Allocated" and "Total Reserved", keyed by
               "Device Type" and "Device Id": "cuda:N" (type 1), "hip:N" (6), "mtia:N" (19),
               "cpu" (type 0, id -1), ...
  peak         the largest Total Allocated / Total Reserved in bytes, reported in MB
               (2^20 bytes: the report's number, read as a double, must be exactly
               bytes / 2^20); its time the earliest event
               reaching it; first / last the smallest and largest event time; rows the events.
"""
import fractions, glob, os, subprocess, sys, tempfile, shutil
import checklib as c
from kineto_check import kineto_traces

F = fractions.Fraction
TYPES = {0: 'cpu', 1: 'cuda', 6: 'hip', 12: 'xpu', 13: 'mps', 19: 'mtia', 20: 'privateuseone'}


def curves(path):
    out = {}
    for e in c.trace_events(path):
        if not isinstance(e, dict) or e.get('name') != '[memory]' or e.get('ph') != 'i':
            continue
        a = e.get('args') or {}
        al, rs = a.get('Total Allocated'), a.get('Total Reserved')
        if not isinstance(al, int) or not isinstance(rs, int):
            continue
        t, dev = a.get('Device Type', -1), a.get('Device Id', -1)
        tn = TYPES.get(t)
        comp = (tn or 'device') if dev < 0 else ('%s:%d' % (tn, dev) if tn else 'type %d:%d' % (t, dev))
        s = out.setdefault(comp, {'rows': 0, 'alloc': None, 'alloc_t': None, 'resv': None, 'resv_t': None,
                                  'first': None, 'last': None})
        ts = c.ns(e['ts'])
        s['rows'] += 1
        s['first'] = ts if s['first'] is None else min(s['first'], ts)
        s['last'] = ts if s['last'] is None else max(s['last'], ts)
        for k, v in (('alloc', al), ('resv', rs)):
            if s[k] is None or v > s[k] or (v == s[k] and ts < s[k + '_t']):
                s[k], s[k + '_t'] = v, ts
    return out


def compare(aptop, path, want):
    rep, why = c.report(aptop, path, 'memory')
    if rep is None:
        return ['%s: no report (%s)' % (path, why)], 0
    got = {r['component']: r for r in rep.get('memory') or [] if r['source'] == '[memory] events'}
    bad = []
    if set(got) != set(want):
        bad.append('%s: devices %s, want %s' % (os.path.basename(path), sorted(got), sorted(want)))
    for comp, w in want.items():
        g = got.get(comp)
        if not g:
            continue
        checks = ((F(float(g['peak_allocated_mb'])), F(w['alloc'], 1 << 20)),
                  (F(float(g['peak_reserved_mb'])), F(w['resv'], 1 << 20)),
                  (c.ns(g['peak_at_us']), w['alloc_t']), (c.ns(g['peak_reserved_at_us']), w['resv_t']),
                  (c.ns(g['first_us']), w['first']), (c.ns(g['last_us']), w['last']), (g['rows'], w['rows']))
        for a, b in checks:
            if a != b:
                bad.append('%s %s: %s, want %s' % (os.path.basename(path), comp, a, b))
    return bad, len(want)


def check(aptop):
    tmp = tempfile.mkdtemp(prefix='aptop_kmem_')
    try:
        subprocess.run([sys.executable, os.path.join(c.ROOT, 'tools', 'gen_gpu_ranks_fixtures.py'), tmp], check=True)
        paths = sorted(glob.glob(os.path.join(tmp, 'gpu_ranks', '*.json'))) + kineto_traces()
        bad, n, traces = [], 0, 0
        for p in paths:
            want = curves(p)
            if not want:
                continue
            b, k = compare(aptop, p, want)
            bad += b
            n += k
            traces += 1
        if bad:
            return '; '.join(bad[:4]), False
        return '%d device curves of %d traces with [memory] events: peaks, times and rows equal' % (n, traces), traces > 4
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
