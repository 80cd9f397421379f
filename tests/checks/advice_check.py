"""The advisor's costs and evidence (`report --section advice`) recomputed from the files.

  host_bound evidence  on fixtures/advisor/host_stall: the device idle gaps whose next kernel
                       was launched (the host slice holding its flow's start began) after the
                       device went idle; a gap inside a step (ProfilerStep#N: the kernels
                       launched within the marker, first start to last end) ranks by its
                       step's host-bound idle, then by length; gaps between steps come after,
                       by length. The first items are compared: start, duration and step.
  comm_wait cost       per rank, the union of [start, start + min(wait, elapse)] over the ops
                       of communication.json ("Total Op Info" left out), within the trace's
                       span when the rank has a trace, exact from the file's decimal text.
  every finding        its cost is at most the time it is measured against (share <= 1),
                       and its severity is that share's: >= 10% high, >= 3% medium, else low.
Captures: the generated fixtures/advisor ones, fixtures/ranks4_slow, and the real captures
that have communication.json.
"""
import decimal, glob, json, os
import checklib as c
from overview_check import trace_span

FIX = os.path.join(c.ROOT, 'fixtures')


def ms_ns(text):
    return int((decimal.Decimal(str(text)) * 1000000).to_integral_value(rounding=decimal.ROUND_HALF_UP))


def comm_wait_ns(comm_path, window):
    spans = []
    for step in c.load_json(comm_path).values():
        for kind in step.values():
            for name, op in kind.items():
                info = op.get('Communication Time Info', {})
                if name == 'Total Op Info' or 'Wait Time(ms)' not in info or 'Elapse Time(ms)' not in info:
                    continue
                w = min(ms_ns(info['Wait Time(ms)']), ms_ns(info['Elapse Time(ms)']))
                st = c.ns(info['Start Timestamp(us)']) if 'Start Timestamp(us)' in info else None
                if w <= 0:
                    continue
                if st is None:
                    spans.append((0, w))
                    continue
                a, b = st, st + w
                if window:
                    a, b = max(a, window[0]), min(b, window[1])
                if b > a:
                    spans.append((a, b))
    return c.union_total(spans)


def trace_window(events):
    span = trace_span(events)
    if span is None:
        return None
    lo = min(c.ns(e['ts']) for e in events if isinstance(e, dict) and e.get('ph') not in ('M', 'i', 'I')
             and 'ts' in e)
    return (lo, lo + span)


def check_comm_wait(aptop, capture):
    rep, why = c.report(aptop, capture, 'advice,capture')
    if rep is None:
        return ['%s: no report: %s' % (capture, why)]
    problems = []
    dirs = {}                        # rank -> its folder, found by the capture section's label
    for r in rep.get('capture', []):
        found = [p for p in glob.glob(os.path.join(capture, '**', r.get('label', '')), recursive=True)
                 if os.path.isdir(p)] if r.get('label') else []
        dirs[r['rank']] = found[0] if found else None
    for f in rep.get('advice', []):
        share = decimal.Decimal(str(f['share']))
        if share > 1:
            problems.append('%s: %s costs %s of the %s' % (capture, f['rule'], share, f.get('of')))
        sev = 'high' if share >= decimal.Decimal('0.1') else 'medium' if share >= decimal.Decimal('0.03') else 'low'
        if f['severity'] != sev and abs(share - decimal.Decimal('0.1')) > decimal.Decimal('1e-9') \
                and abs(share - decimal.Decimal('0.03')) > decimal.Decimal('1e-9'):
            problems.append('%s: %s severity %s at a share of %s' % (capture, f['rule'], f['severity'], share))
        if f['rule'] != 'comm_wait':
            continue
        rank = f.get('rank', next(iter(dirs), 0))
        d = dirs.get(rank)
        paths = glob.glob(os.path.join(d, '**', 'communication.json'), recursive=True) if d else []
        if not paths:
            problems.append('%s: rank %s: no communication.json found' % (capture, rank))
            continue
        traces = glob.glob(os.path.join(os.path.dirname(paths[0]), 'trace_view.json'))
        window = trace_window(c.trace_events(traces[0])) if traces else None
        want = comm_wait_ns(paths[0], window)
        if c.ns(f['cost_us']) != want:
            problems.append('%s: rank %s comm_wait cost %s µs, files %d ns' % (capture, rank, f['cost_us'], want))
    return problems


def host_stall_order(folder):
    """The expected first evidence items of host_bound: (start_ns, dur_ns, step or None)."""
    tv = glob.glob(os.path.join(folder, '**', 'trace_view.json'), recursive=True)[0]
    ev = [e for e in c.trace_events(tv) if isinstance(e, dict)]
    names = {e['pid']: e['args']['name'] for e in ev if e.get('ph') == 'M' and e.get('name') == 'process_name'}
    dev = sorted(((c.ns(e['ts']), c.ns(e['dur'])) for e in ev if e.get('ph') == 'X'
                  and names.get(e['pid']) == 'Ascend Hardware'))
    host = [e for e in ev if e.get('ph') == 'X' and names.get(e['pid']) == 'Python']
    starts = {}                      # flow id -> the host slice holding its start
    for e in ev:
        if e.get('ph') == 's':
            t = c.ns(e['ts'])
            holders = [h for h in host if h['pid'] == e['pid'] and h['tid'] == e['tid']
                       and c.ns(h['ts']) <= t <= c.ns(h['ts']) + c.ns(h['dur'])]
            starts[e['id']] = max(c.ns(h['ts']) for h in holders)
    launch = {c.ns(e['ts']): starts[e['id']] for e in ev if e.get('ph') == 'f' and e['id'] in starts}
    markers = [(int(e['name'].split('#')[1]), c.ns(e['ts']), c.ns(e['ts']) + c.ns(e['dur']))
               for e in host if e['name'].startswith('ProfilerStep#')]
    steps = []
    for n, a, b in markers:
        ks = [(s, d) for s, d in dev if s in launch and a <= launch[s] <= b]
        if ks:
            steps.append((n, min(s for s, _ in ks), max(s + d for s, d in ks)))
    gaps, end = [], None
    for s, d in dev:
        if end is not None and s > end and s in launch and launch[s] > end:
            step = next((n for n, a, b in steps if a <= end and s <= b), None)
            gaps.append((end, s - end, step))
        end = s + d if end is None else max(end, s + d)
    idle = {}
    for t0, d, step in gaps:
        if step is not None:
            idle[step] = idle.get(step, 0) + d
    return sorted(gaps, key=lambda g: (-(idle[g[2]] if g[2] is not None else 0), -g[1], g[0]))


def check_host_stall(aptop):
    folder = os.path.join(FIX, 'advisor', 'host_stall')
    if not os.path.isdir(folder):
        return ['fixtures/advisor/host_stall missing (make fixtures)']
    rep, why = c.report(aptop, folder, 'advice')
    hb = [f for f in (rep or {}).get('advice', []) if f['rule'] == 'host_bound']
    if not hb:
        return ['host_stall: no host_bound finding: %s' % why]
    got = [(c.ns(e['start_us']), c.ns(e['dur_us']), e.get('step')) for e in hb[0]['evidence']]
    want = host_stall_order(folder)[:len(got)]
    planted = json.load(open(os.path.join(folder, 'PLANTED.json')))
    if got != want:
        return ['host_stall: evidence %s, files %s' % (got, want)]
    if [g[2] for g in got[:2]] != planted['steps']:
        return ['host_stall: first evidence in steps %s, planted %s' % ([g[2] for g in got[:2]], planted['steps'])]
    return []


def check(aptop):
    problems = check_host_stall(aptop)
    captures = [os.path.join(FIX, 'ranks4_slow')] + sorted(glob.glob(os.path.join(FIX, 'advisor', '*')))
    real = {os.path.dirname(os.path.dirname(os.path.dirname(p)))
            for p in c.real_glob('**/ASCEND_PROFILER_OUTPUT/communication.json')}
    captures += sorted(real)
    n = 0
    for cap in captures:
        if os.path.isdir(cap):
            problems += check_comm_wait(aptop, cap)
            n += 1
    msg = '%d captures: advice costs within what they are measured against, comm_wait and ' \
          'host_bound evidence equal the files' % n
    return (msg if not problems else msg + '\n    ' + '\n    '.join(problems)), not problems
