"""The overview rows (`report --section overview`) recomputed from the capture files, and
checked against the other sections that show the same figure.

From the files (src/model/analysis/overview.h gives the definitions):
  span_us           the trace's first to last moment: slices (ts .. ts+dur), the host
                    instants aptop keeps (Kineto's cpu_instant_event), counter samples and
                    flow points
  device_busy_us    the union of the kernels' [start, start+dur) intervals, from
                    kernel_details.csv when the rank has one, else from the trace's device
                    events
  idle_us           per device process, the gaps between its kernels (after the union of the
                    kernels before each), summed over devices
  outside_us        span_us minus each device's window (first kernel start to last kernel
                    end, summed); other_us = that window - busy - idle, so that
                    span = busy + idle + outside + other
  top_kernels       per name: total_us = summed durations, share = the union of that
                    name's intervals over device_busy_us; the five largest shares
                    (a rank with only kernel_details.csv: from that table, no span)
From the other sections (one figure, one definition):
  steps             the ranks section's steps of the rank (and, with a timeline, the
                    number of rows of the steps section); split_source its source
  computing / comm_not_overlapped / free shares: the steps section's summed figures, and
                    each step's three parts add up to its duration
"""
import csv, decimal, glob, io, os
import checklib as c

TOP = 5


def text_ranks():
    """(rank folder, trace file, kernel_details.csv or None) of the real Class A captures."""
    out = []
    for tv in c.real_glob('**/ASCEND_PROFILER_OUTPUT/trace_view.json'):
        d = os.path.dirname(tv)
        kd = os.path.join(d, 'kernel_details.csv')
        out.append((os.path.dirname(d), tv, kd if os.path.isfile(kd) else None))
    return out


def trace_span(events):
    lo = hi = None
    for e in events:
        if not isinstance(e, dict) or e.get('ph') == 'M' or 'ts' not in e:
            continue
        if e.get('ph') in ('i', 'I') and e.get('cat') != 'cpu_instant_event':
            continue    # global markers such as "Record Window End" are not shown
        try:
            a = c.ns(e['ts'])
        except decimal.InvalidOperation:
            continue
        b = a + (c.ns(e.get('dur', 0)) if e.get('ph') == 'X' else 0)
        lo = a if lo is None else min(lo, a)
        hi = b if hi is None else max(hi, b)
    return None if lo is None else hi - lo


def csv_kernels(path):
    text = open(path, 'rb').read().decode('utf-8-sig', 'replace')
    rows = list(csv.reader(io.StringIO(text)))
    head = [h.strip() for h in rows[0]]
    ni, si, di = head.index('Name'), head.index('Start Time(us)'), head.index('Duration(us)')
    out = []
    for r in rows[1:]:
        if len(r) <= max(ni, si, di):
            continue
        try:
            a, d = c.ns(r[si]), c.ns(r[di])
        except decimal.InvalidOperation:
            continue
        out.append((r[ni], a, a + d, d))
    return out


def device_events(events):
    out = []
    for e in events:
        if isinstance(e, dict) and e.get('ph') == 'X' and e.get('cat') in ('kernel', 'gpu_memcpy', 'gpu_memset'):
            a, d = c.ns(e['ts']), c.ns(e.get('dur', 0))
            out.append((e.get('name'), a, a + d, d))
    return out


def device_windows(events):
    """Per device process: (window, idle gaps) of its kernels; Ascend: the X events of the
    process named "Ascend Hardware" but its Step Trace thread; Kineto: kernels, memcpys and
    memsets."""
    names, threads = {}, {}
    for e in events:
        if isinstance(e, dict) and e.get('ph') == 'M' and e.get('name') == 'process_name':
            names[e.get('pid')] = (e.get('args') or {}).get('name')
        if isinstance(e, dict) and e.get('ph') == 'M' and e.get('name') == 'thread_name':
            threads[(e.get('pid'), e.get('tid'))] = (e.get('args') or {}).get('name') or ''
    per = {}
    for e in events:
        if not isinstance(e, dict) or e.get('ph') != 'X':
            continue
        ascend = names.get(e.get('pid')) == 'Ascend Hardware' and \
            not threads.get((e.get('pid'), e.get('tid')), '').startswith('Step Trace')
        if ascend or e.get('cat') in ('kernel', 'gpu_memcpy', 'gpu_memset'):
            a = c.ns(e['ts'])
            per.setdefault(e.get('pid'), []).append((a, a + max(c.ns(e.get('dur', 0)), 0)))
    window = idle = 0
    for iv in per.values():
        iv.sort()
        end = iv[0][1]
        for a, b in iv[1:]:
            if a > end:
                idle += a - end
            end = max(end, b)
        window += end - iv[0][0]
    return (window, idle) if per else (None, None)


def truth(kernels):
    busy = c.union_total([(a, b) for _, a, b, _ in kernels])
    per = {}
    for n, a, b, d in kernels:
        p = per.setdefault(n, [[], 0])
        p[0].append((a, b))
        p[1] += d
    shares = sorted(((decimal.Decimal(c.union_total(iv)) / busy if busy else 0, n, tot)
                     for n, (iv, tot) in per.items()), key=lambda x: (-x[0], x[1]))
    return busy, shares


def near(a, b):
    return abs(decimal.Decimal(str(a)) - decimal.Decimal(str(b))) <= decimal.Decimal('1e-12')


def check_rank(aptop, folder, trace, kd):
    rep, why = c.report(aptop, folder, 'overview,steps,ranks')
    if rep is None or not rep.get('overview'):
        return 'no overview: %s' % why
    ov = rep['overview'][0]
    events = c.trace_events(trace) if trace else []
    problems = []
    span = trace_span(events)
    if c.ns(ov.get('span_us')) != span:
        problems.append('span %s, trace %s ns' % (ov.get('span_us'), span))
    rk = (rep.get('ranks') or [{}])[0]
    if rk and (ov.get('steps') != rk.get('steps') or ov.get('split_source') != rk.get('source')):
        problems.append('steps %s from %s, ranks section %s from %s' % (ov.get('steps'), ov.get('split_source'),
                                                                        rk.get('steps'), rk.get('source')))
    kernels = csv_kernels(kd) if kd else device_events(events)
    busy, shares = truth(kernels)
    if not kernels:
        busy = None     # no device work: no busy figure rather than a zero
    if c.ns(ov.get('device_busy_us')) != busy:
        problems.append('busy %s, files %d ns' % (ov.get('device_busy_us'), busy))
    window, idle = device_windows(events)
    if window is not None and busy is not None and span is not None:
        if c.ns(ov.get('idle_us')) != idle:
            problems.append('idle %s, trace %d ns' % (ov.get('idle_us'), idle))
        outside, other = span - window, window - idle - busy
        if c.ns(ov.get('outside_us')) != outside or c.ns(ov.get('other_us')) != other:
            problems.append('outside %s other %s, trace %d %d ns' % (ov.get('outside_us'), ov.get('other_us'),
                                                                     outside, other))
        elif busy + idle + outside + other != span:
            problems.append('busy + idle + outside + other != span')
    got = ov.get('top_kernels') or []
    for k, (share, name, tot) in zip(got, shares[:TOP]):
        if k['name'] != name or c.ns(k['total_us']) != tot or not near(k['share'], share):
            problems.append('top kernel %s %s %s, files %s %s %s' % (k['name'], k['total_us'], k['share'],
                                                                      name, tot, share))
            break
    if len(got) != min(TOP, len(shares)):
        problems.append('%d top kernels, files %d' % (len(got), min(TOP, len(shares))))
    steps = rep.get('steps', [])
    if trace and ov.get('steps') != len(steps):
        problems.append('steps %s, steps section %d' % (ov.get('steps'), len(steps)))
    for s in steps:
        split = [s.get(k) for k in ('computing_us', 'comm_not_overlapped_us', 'free_us')]
        if None not in split and sum(c.ns(x) for x in split) != c.ns(s['dur_us']):
            problems.append('step %s: computing + comm + free = %d ns, its duration %d ns'
                            % (s.get('index'), sum(c.ns(x) for x in split), c.ns(s['dur_us'])))
            break
    parts = [sum(c.ns(s.get(k) or 0) for s in steps) for k in ('computing_us', 'comm_not_overlapped_us', 'free_us')]
    whole = sum(parts)
    if whole and ov.get('split_source') not in ('step_trace_time', 'overlap lanes'):
        for key, part in zip(('computing_share', 'comm_not_overlapped_share', 'free_share'), parts):
            if not near(ov.get(key), decimal.Decimal(part) / whole):
                problems.append('%s %s, steps section %s' % (key, ov.get(key), decimal.Decimal(part) / whole))
    return '; '.join(problems)


def check(aptop):
    ranks = text_ranks()
    ranks += [(p, p, None) for p in c.real_glob('**/*.pt.trace.json.gz') + c.real_glob('**/*kineto.json.gz')]
    if not ranks:
        return 'no captures with a trace in the real folder', True
    # a rank with only its kernel table (generated: the real ones come with more files)
    only = glob.glob(os.path.join(c.ROOT, 'fixtures', 'trust', 'kernels_only', '*', 'ASCEND_PROFILER_OUTPUT',
                                  'kernel_details.csv'))
    ranks += [(os.path.dirname(os.path.dirname(p)), None, p) for p in only]
    bad = []
    for folder, trace, kd in ranks:
        why = check_rank(aptop, folder, trace, kd)
        if why:
            bad.append('%s: %s' % (os.path.relpath(folder, c.REAL if folder.startswith(c.REAL) else c.ROOT), why))
    msg = '%d/%d ranks (%d with a kernel table only): overview figures equal the trace and CSV figures' % (
        len(ranks) - len(bad), len(ranks), len(only))
    return (msg if not bad else msg + '\n    ' + '\n    '.join(bad)), not bad
