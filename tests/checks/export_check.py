"""`aptop export --window`: the exported window of a real trace read back with Python's json
module, against the trace file itself.

  inside    every event lies inside the window (ts and ts+dur, relative to the capture's start
            that otherData.origin_us gives), counters and flow ends too;
  flows     every flow id has one start and one end;
  slices    the X events of the export are the trace's complete events (ph X) overlapping
            the window, counted per name, each clipped to it;
  exact     ts and dur have at most 3 decimals (the export is exact to the ns).

Run as a script, it checks one file the explorer wrote (E on a range), the same way:
  python3 tests/checks/export_check.py OUT.json CAPTURE_DIR    (prints "ok ..." or "FAIL ...")
"""
import collections
import decimal
import glob
import json
import os
import subprocess
import sys

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


def complete_events(path):
    events = [e for e in c.trace_events(path) if isinstance(e, dict)]
    return [(c.ns(e['ts']), c.ns(e.get('dur', 0)), e.get('name', '')) for e in events
            if e.get('ph') == 'X' and 'ts' in e]


def verify(doc, xs, origin, w0, w1, path):
    """The export doc of window [w0, w1) (ns relative to origin) against the trace's complete
    events xs (ts, dur, name): (message, ok)."""
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


def check_one(aptop, path):
    xs = complete_events(path)
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
    return verify(doc, xs, origin, w0, w1, path)


def rank_trace(capture, rank):
    """The trace_view.json of rank `rank` in a torch_npu capture (profiler_info_N.json)."""
    for info in glob.glob(os.path.join(capture, '**', 'profiler_info_%d.json' % rank), recursive=True):
        t = os.path.join(os.path.dirname(info), 'ASCEND_PROFILER_OUTPUT', 'trace_view.json')
        if os.path.isfile(t):
            return t
    return None


def check_file(out, capture):
    """A file the explorer exported (E on a range): it loads with the json module, and
    otherData's window, rank and origin say what to check it against."""
    try:
        with open(out) as f:
            doc = json.load(f, parse_float=decimal.Decimal)
        od = doc['otherData']
        a, b = od['window'].split('..')
        w0, w1 = int(a[:-2]), int(b[:-2])   # the explorer writes exact ns: "123ns..456ns"
    except (OSError, ValueError, KeyError) as e:
        return '%s: not an exported window: %s' % (out, e), False
    trace = rank_trace(capture, od['rank'])
    if not trace:
        return 'no trace of rank %s in %s' % (od['rank'], capture), False
    origin = c.ns(od['origin_us'])
    msg, good = verify(doc, complete_events(trace), origin, w0, w1, trace)
    # the args, read again from the file by the explorer: those of each whole (unclipped) event
    args = collections.defaultdict(list)
    for e in c.trace_events(trace):
        if isinstance(e, dict) and e.get('ph') == 'X' and 'ts' in e:
            args[(e.get('name', ''), c.ns(e['ts']) - origin, c.ns(e.get('dur', 0)))].append(e.get('args'))
    compared = differ = 0
    for e in doc['traceEvents']:
        key = (e.get('name', ''), c.ns(e.get('ts', 0)), c.ns(e.get('dur', 0)))
        if e.get('ph') == 'X' and key in args:
            compared += 1
            differ += e.get('args') not in args[key]
    if differ or not compared:
        return '%s; args: %d of %d whole events differ from the file\'s' % (msg, differ, compared), False
    return '%s, args of %d whole events equal the file\'s' % (msg, compared), good


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


if __name__ == '__main__':
    msg, good = check_file(sys.argv[1], sys.argv[2])
    print(('ok ' if good else 'FAIL ') + msg)
    sys.exit(0 if good else 1)
