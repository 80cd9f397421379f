"""Device idle gaps of `aptop report --section gaps` recomputed from the trace itself.

Definitions, as aptop documents them (src/model/host/host_gaps.h, model/analysis/flowstats.h):
  gaps      per device (process), its slices by start: where the next starts after the
            latest end so far, [that end, its start) is idle.
  launcher  of a device slice: among the sources of the flows ending on it, the one that
            starts last; without a flow, the latest host slice named like a graph launch
            (GraphLaunch, ModelExecute, aclmdlExecute, aclmdlRIExecute) at most 1 s before.
  cause     host_bound: a flow launcher that started after the gap began; sync: a launcher
            that started at or before; other: none.
  step      the window [end of the previous step, end of the step) holding the gap's start
            (steps as the steps section gives them).
  frames    the slices running when the gap began on the thread that launched the next
            slice (a Python thread among its flow sources first), else the previous slice's;
            outermost first.
"""
import bisect, collections
import checklib as c
import host_check as h

GRAPH = ('graphlaunch', 'modelexecute', 'aclmdlexecute', 'aclmdlriexecute')


def truth(events, steps, lanes=None, launches=None):
    """The gap rows; with lanes given (host_check.lanes_of, nested), each row ends with the
    innermost slice running when the gap began (None when no frame). launches (a list)
    receives (step window or None, latency, kernel name) of every flow launch."""
    keep = lanes is not None
    lanes = lanes if keep else h.lanes_of(events)
    procs = {}
    for e in events:
        if isinstance(e, dict) and e.get('ph') == 'M' and e.get('name') == 'process_name':
            procs[e.get('pid')] = str((e.get('args') or {}).get('name', ''))
    for key, sl in lanes.items():
        if not keep:
            h.nest(sl)
        for s in sl:
            s['lane'] = key
    starts = {k: [s['t0'] for s in v] for k, v in lanes.items()}
    points = collections.defaultdict(lambda: {'s': [], 'f': []})
    for e in events:
        if isinstance(e, dict) and e.get('ph') in ('s', 'f') and 'ts' in e:
            lane = (e.get('pid'), e.get('tid'))
            if lane in lanes:
                hit = h.deepest_at(lanes[lane], starts[lane], h.ns(e['ts']))
                if hit is not None:
                    points[(e.get('cat'), str(e.get('id')))][e['ph']].append(hit)
    sources = collections.defaultdict(list)
    for pts in points.values():
        for dst in pts['f']:
            if dst['dev']:
                sources[id(dst)] += [s for s in pts['s'] if s is not dst]
    graph = sorted((s['t0'], s['order'], s) for v in lanes.values() for s in v
                   if s['host'] and any(g in str(s['name']).lower() for g in GRAPH))
    graph_t0 = [g[0] for g in graph]

    def launcher(k):
        src = sources.get(id(k))
        if src:
            return max(src, key=lambda s: s['t0']), 'flow'
        i = bisect.bisect_right(graph_t0, k['t0']) - 1
        if i >= 0 and k['t0'] - graph[i][0] <= 10 ** 9:
            return graph[i][2], 'graph'
        return None, None

    def thread(k):
        for s in sources.get(id(k), []):
            if procs.get(s['lane'][0]) == 'Python':
                return s['lane']
        l, _ = launcher(k)
        return l['lane'] if l is not None else None

    windows = []
    for st in sorted(steps, key=lambda r: c.ns(r['start_us'])):
        t0, t1 = c.ns(st['start_us']), c.ns(st['start_us']) + c.ns(st['dur_us'])
        if windows and windows[-1][1] < t0:
            t0 = windows[-1][1]
        elif windows and windows[-1][1] > t0:
            windows[-1][1] = t0
        windows.append([t0, t1, st['index']])
    devices = collections.defaultdict(list)
    for key, sl in lanes.items():
        for s in sl:
            if s['dev']:
                devices[key[0]].append(s)
    if launches is not None:
        for d in devices.values():
            for k in d:
                l, how = launcher(k)
                if how == 'flow':
                    step = next((w[2] for w in windows if w[0] <= k['t0'] < w[1]), None)
                    launches.append((step, k['t0'] - l['t0'], k['name']))
    rows = []
    for pid in devices:
        d = sorted(devices[pid], key=lambda s: s['t0'])
        end, last = d[0]['t1'], d[0]
        for k in d[1:]:
            if k['t0'] > end:
                l, how = launcher(k)
                cause = ('host_bound' if how == 'flow' and l['t0'] > end else
                         'sync' if l is not None and l['t0'] <= end else 'other')
                step = next((w[2] for w in windows if w[0] <= end < w[1]), None)
                lane = thread(k) or thread(last)
                run = []
                if lane is not None:
                    upto = bisect.bisect_right(starts[lane], end)
                    run = sorted((s for s in lanes[lane][:upto] if end < s['t1']),
                                 key=lambda s: (s['t0'], -s['t1'], s['order']))
                row = (step, end, k['t0'] - end, cause, tuple(s['name'] for s in run))
                rows.append(row + ((run[-1] if run else None),) if keep else row)
            if k['t1'] > end:
                end, last = k['t1'], k
    return rows


def check(aptop):
    caps = h.captures()
    if not caps:
        return 'no traces in the real captures', True
    exact, bad, total = 0, [], 0
    for path, trace in caps:
        rep, why = c.report(aptop, path, 'gaps,steps')
        if rep is None:
            bad.append('%s: %s' % (path, why))
            continue
        want = truth(c.trace_events(trace), rep.get('steps') or [])
        got = [(r['step'], c.ns(r['start_us']), c.ns(r['dur_us']), r['cause'], tuple(r['frames']))
               for r in rep.get('gaps') or []]
        total += len(want)
        if sorted(got, key=str) != sorted(want, key=str):
            diff = sorted(set(got) ^ set(want), key=str)[:3]
            bad.append('%s: %d gaps, trace %d; e.g. %s' % (path[len(c.REAL) + 1:], len(got), len(want), diff))
        else:
            exact += 1
    msg = '%d/%d traces: %d device idle gaps exact (start, duration, cause, step, frames)' % (exact, len(caps), total)
    return (msg if not bad else msg + '\n    ' + '\n    '.join(bad)), not bad
