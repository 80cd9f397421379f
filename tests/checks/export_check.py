"""`aptop export --window`: the exported window of a real trace read back with Python's json
module, against the trace file itself.

  inside    every event lies inside the window (ts and ts+dur, relative to the capture's start
            that otherData.origin_us gives), counters and flow ends too;
  flows     every flow id has one start and one end;
  slices    the X events of the export are the trace's complete events (ph X) overlapping
            the window, counted per name, each clipped to it;
  exact     ts and dur have at most 3 decimals (the export is exact to the ns).
"""
import collections
import decimal
import json
import subprocess

import checklib as c


def traces():
    text = c.real_glob('Ascend-msinsight/test/data/pytorch/text/level1/rank0_ascend_pt/**/trace_view.json')
    kineto = [p for p in c.real_glob('HolisticTraceAnalysis/**/*.pt.trace.json.gz') if 'ns_resolution' in p]
    return text[:1] + kineto[:1]


def export(aptop, path, window):
    p = subprocess.run([aptop, 'export', '--no-cache', '--window', window, path], capture_output=True, timeout=300)
    if p.returncode != 0:
        return None, p.stderr.decode('utf-8', 'replace').strip()[-200:]
    return json.loads(p.stdout.decode('utf-8'), parse_float=decimal.Decimal), ''


def check_one(aptop, path):
    events = [e for e in c.trace_events(path) if isinstance(e, dict)]
    xs = [(c.ns(e['ts']), c.ns(e.get('dur', 0)), e.get('name', '')) for e in events
          if e.get('ph') == 'X' and 'ts' in e]
    if not xs:
        return 'no X events', False
    lo = min(a for a, _, _ in xs)
    hi = max(a + d for a, d, _ in xs)
    # the middle third of the span, in whole ns relative to the trace's first slice; aptop's
    # origin (otherData) may be earlier (counters, flow points): the window is re-based on it
    first, exp = export(aptop, path, '0ns..1ns')
    if first is None:
        return 'export failed: ' + exp, False
    origin = c.ns(first['otherData']['origin_us'])
    w0 = lo - origin + (hi - lo) // 3
    w1 = lo - origin + 2 * (hi - lo) // 3
    doc, err = export(aptop, path, '%dns..%dns' % (w0, w1))
    if doc is None:
        return 'export failed: ' + err, False
    evs = doc['traceEvents']
    bad = []
    for e in evs:
        if e.get('ph') == 'M':
            continue
        for k in ('ts', 'dur'):
            if k in e and decimal.Decimal(e[k]).as_tuple().exponent < -3:
                bad.append('%s %s has more than 3 decimals' % (k, e[k]))
        t = c.ns(e['ts'])
        end = t + c.ns(e.get('dur', 0))
        if t < w0 or end > w1:
            bad.append('%s %r at %d..%d outside %d..%d' % (e.get('ph'), e.get('name'), t, end, w0, w1))
    ends = collections.defaultdict(lambda: [0, 0])
    for e in evs:
        if e.get('ph') in ('s', 'f'):
            ends[e['id']][e['ph'] == 'f'] += 1
    broken = [i for i, (s, f) in ends.items() if s != 1 or f != 1]
    want = collections.Counter(n for a, d, n in xs
                               if a - origin < w1 and (a + d - origin > w0 or (d == 0 and a - origin >= w0)))
    got = collections.Counter(e['name'] for e in evs if e.get('ph') == 'X')
    missing = want - got
    extra = got - want
    if bad or broken or missing or extra:
        return '%s: %d outside, %d broken flows, %d missing, %d extra (%s)' % (
            path.split('/')[-1], len(bad), len(broken), sum(missing.values()), sum(extra.values()),
            (bad + [str(list(missing.items())[:2]), str(list(extra.items())[:2])])[0]), False
    return '%s: %d slices, %d flows' % (path.split('/')[-1], sum(got.values()), len(ends)), True


def check(aptop):
    ps = traces()
    if not ps:
        return 'skipped: no trace found', True
    msgs, ok = [], True
    for p in ps:
        m, good = check_one(aptop, p)
        msgs.append(m)
        ok &= good
    return '; '.join(msgs), ok
