"""Kineto launches: the launch latency and host-bound idle of `aptop report --section flows`
recomputed from the real GPU traces, each also reshaped in a temporary folder the way other
writers leave them: without flow records (sampled traces), with only their end points (graph
replays), without flows or correlation ids (nothing links a launch to its kernel), and in the
2021 writer's schema (Operator, Runtime, Kernel, Memcpy, Memset, async flows, stream tids
"stream N"), where the kernels (count and summed dur per name) are compared too.

Definitions, as aptop documents them (src/model/analysis/flowstats.h, src/model/index/model_corr.c):
  device slice  an X event of cat kernel, gpu_memcpy or gpu_memset.
  launcher      of a device slice: the runtime call bound to a flow ending on it (ac2g or
                async_cpu_to_gpu: the f point, "bp":"e", at a time the slice holds on its
                own thread; the s point of the same id inside the call on its thread); else,
                when no flow of the file binds one, the runtime call (cat cuda_runtime,
                cuda_driver, ..._runtime, ..._driver) carrying the same args.correlation.
  launch latency  device slice start - launcher start, over slices with a launcher; nearest
                rank percentiles.
  host-bound idle  per GPU process, device slices by start: a gap [busy end, next start) is
                host-bound when the next slice's launcher started after the busy end. With no
                launcher at all it is unknown: null in the report, never 0.
"""
import bisect, collections, decimal, json, os, re, shutil, tempfile
import checklib as c
from kineto_check import kineto_traces, truth as kineto_truth

DEVICE_CATS = ('kernel', 'gpu_memcpy', 'gpu_memset')
FLOW_CATS = ('ac2g', 'async_cpu_to_gpu')


def launch_side(cat):
    cat = cat or ''
    return cat in ('Runtime', 'Driver') or cat.endswith('_runtime') or cat.endswith('_driver')


def pct(v, p):
    r = (len(v) * p + 99) // 100
    return v[max(r, 1) - 1]


def truth(events):
    xs = [e for e in events if isinstance(e, dict) and e.get('ph') == 'X' and 'ts' in e]
    dev = [e for e in xs if e.get('cat') in DEVICE_CATS]
    calls = [e for e in xs if launch_side(e.get('cat'))]
    by_corr = {}
    for e in calls:
        k = (e.get('args') or {}).get('correlation')
        if isinstance(k, int) and k not in by_corr:
            by_corr[k] = e
    calls_by_thread = collections.defaultdict(list)
    for e in calls:
        calls_by_thread[(e.get('pid'), e.get('tid'))].append(e)
    starts, ends = collections.defaultdict(dict), collections.defaultdict(list)
    for e in events:
        if isinstance(e, dict) and e.get('cat') in FLOW_CATS:
            if e.get('ph') == 's':
                starts[e['cat']][e.get('id')] = e
            elif e.get('ph') == 'f':
                ends[e['cat']].append(e)

    def index(groups):   # per thread: events by start, for the search below
        out = {}
        for k, evs in groups.items():
            evs = sorted(evs, key=lambda e: c.ns(e['ts']))
            out[k] = ([c.ns(e['ts']) for e in evs], evs)
        return out

    def holding(ix, t):   # the latest-starting event holding t (events of a thread nest)
        if ix is None:
            return None
        ts, evs = ix
        i = bisect.bisect_right(ts, t)
        for j in range(i - 1, max(i - 64, 0) - 1, -1):
            if ts[j] + c.ns(evs[j].get('dur', 0)) >= t:
                return evs[j]
        return None
    dev_by_thread = collections.defaultdict(list)
    for e in dev:
        dev_by_thread[(e.get('pid'), e.get('tid'))].append(e)
    dev_ix, call_ix = index(dev_by_thread), index(calls_by_thread)
    launcher = {}
    for cat in FLOW_CATS:
        for f in ends[cat]:
            s = starts[cat].get(f.get('id'))
            if s is None:
                continue
            k = holding(dev_ix.get((f.get('pid'), f.get('tid'))), c.ns(f['ts']))
            src = holding(call_ix.get((s.get('pid'), s.get('tid'))), c.ns(s['ts']))
            if k is not None and src is not None:
                launcher[id(k)] = src
    for e in dev:
        if id(e) not in launcher:
            src = by_corr.get((e.get('args') or {}).get('correlation'))
            if src is not None:
                launcher[id(e)] = src
    lat = sorted(c.ns(e['ts']) - c.ns(launcher[id(e)]['ts']) for e in dev if id(e) in launcher)
    idle = host = 0
    by_pid = collections.defaultdict(list)
    for e in dev:
        by_pid[e.get('pid')].append(e)
    for evs in by_pid.values():
        evs.sort(key=lambda e: c.ns(e['ts']))
        busy = None
        for e in evs:
            t0, t1 = c.ns(e['ts']), c.ns(e['ts']) + c.ns(e.get('dur', 0))
            if busy is not None and t0 > busy:
                idle += t0 - busy
                if id(e) in launcher and c.ns(launcher[id(e)]['ts']) > busy:
                    host += t0 - busy
            busy = t1 if busy is None else max(busy, t1)
    return lat, idle, (host if launcher else None)


SCHEMA_2021 = {'cpu_op': 'Operator', 'cuda_runtime': 'Runtime', 'cuda_driver': 'Runtime', 'kernel': 'Kernel',
               'gpu_memcpy': 'Memcpy', 'gpu_memset': 'Memset', 'ac2g': 'async', 'async_cpu_to_gpu': 'async'}


def reshape(doc, how):
    """A copy of the trace as another writer leaves it."""
    events = doc['traceEvents'] if isinstance(doc, dict) else doc
    if how == 'schema 2021':
        gpu = {e.get('pid') for e in events if isinstance(e, dict) and e.get('cat') in DEVICE_CATS}
        out = []
        for e in events:
            if isinstance(e, dict):
                e = dict(e)
                if e.get('cat') in SCHEMA_2021:
                    e['cat'] = SCHEMA_2021[e['cat']]
                if e.get('pid') in gpu and e.get('ph') != 'M' and isinstance(e.get('tid'), int):
                    e['tid'] = 'stream %d' % e['tid']
                if isinstance(doc, dict):
                    e.pop('schemaVersion', None)
            out.append(e)
        return {k: v for k, v in doc.items() if k != 'schemaVersion'} | {'traceEvents': out} \
            if isinstance(doc, dict) else out
    out = []
    for e in events:
        if isinstance(e, dict) and e.get('cat') in FLOW_CATS and e.get('ph') in 'stf':
            if how == 'no flows' or how == 'no links' or (how == 'ends only' and e['ph'] == 's'):
                continue
        if how == 'no links' and isinstance(e, dict) and isinstance(e.get('args'), dict):
            e = dict(e, args={k: v for k, v in e['args'].items() if k != 'correlation'})
        out.append(e)
    return dict(doc, traceEvents=out) if isinstance(doc, dict) else out


def dump_exact(doc, path):
    """JSON with every Decimal written back as the digits it was read from."""
    def mark(o):
        if isinstance(o, decimal.Decimal):
            return '\0NUM%s\0' % o
        raise TypeError(type(o))
    text = json.dumps(doc, default=mark)
    with open(path, 'w') as f:
        f.write(re.sub(r'"\\u0000NUM([^"\\]*)\\u0000"', r'\1', text))


def compare(aptop, path, events, label, kernels=False):
    rep, why = c.report(aptop, path, 'flows,kernels' if kernels else 'flows')
    if rep is None:
        return 'aptop: %s' % why
    lat, idle, host = truth(events)
    problems = []
    if kernels:
        want_k = {n: tuple(v) for n, v in kineto_truth(events)[0].items()}
        got_k = {r['name']: (r['count'], c.ns(r['total_us'])) for r in rep.get('kernels', [])}
        if got_k != want_k:
            problems.append('kernels differ: %s' % (sorted(set(got_k.items()) ^ set(want_k.items()), key=str)[:3],))
    rows = {(r['kind'], r['category']): r for r in rep.get('flows', [])}
    ll, hb = rows.get(('latency', 'launch_latency')), rows.get(('idle', 'host_bound_idle'))
    got = (ll['count'], c.ns(ll['p50_us']), c.ns(ll['p90_us']), c.ns(ll['p99_us']), c.ns(ll['max_us']),
           c.ns(ll['total_us'])) if ll else None
    want = (len(lat), pct(lat, 50), pct(lat, 90), pct(lat, 99), lat[-1], sum(lat)) if lat else (0,) + (None,) * 5
    if got != want:
        problems.append('launch latency %s, trace %s' % (got, want))
    got_i = (c.ns(hb['idle_us']), c.ns(hb['host_bound_us'])) if hb else None
    if got_i != (idle, host):
        problems.append('idle, host-bound %s, trace %s' % (got_i, (idle, host)))
    return '%s: %s' % (label, '; '.join(problems)) if problems else None


def check(aptop):
    paths = [p for p in kineto_traces() if any(e.get('cat') in DEVICE_CATS for e in c.trace_events(p)
                                               if isinstance(e, dict))]
    if not paths:
        return 'no Kineto traces with device events in the real captures', True
    tmp = tempfile.mkdtemp(prefix='aptop-reshaped-')
    exact, total, bad = 0, 0, []
    try:
        for i, p in enumerate(paths):
            doc = c.load_json(p)
            for how in ('as written', 'no flows', 'ends only', 'no links', 'schema 2021'):
                total += 1
                if how == 'as written':
                    target, events = p, c.trace_events(p)
                else:
                    shaped = reshape(doc, how)
                    target = os.path.join(tmp, '%d-%s.pt.trace.json' % (i, how.replace(' ', '_')))
                    dump_exact(shaped, target)
                    # the 2021 copy renames, nothing more: the figures are the original's
                    events = c.trace_events(p) if how == 'schema 2021' else \
                        shaped['traceEvents'] if isinstance(shaped, dict) else shaped
                why = compare(aptop, target, events, '%s (%s)' % (p[len(c.REAL) + 1:], how), how == 'schema 2021')
                if why:
                    bad.append(why)
                else:
                    exact += 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    msg = '%d/%d traces exact as written and reshaped (no flows, ends only, no links, schema 2021): ' \
          'launch latency, idle, host-bound, kernels' % (exact, total)
    return (msg if not bad else msg + '\n    ' + '\n    '.join(bad)), not bad
