"""Launch latency per step of `aptop report --section launch_steps` recomputed from the trace.

Definitions, as aptop documents them (src/model/host/launch_steps.h, flowstats.h): the
latency of a device slice launched through a flow is its start minus its launcher's start
(the launcher as gaps_check.py finds it); launches group by the step window holding the
slice's start (none: outside every window); pXX is the nearest rank, sorted[ceil(XX/100 n) - 1];
the slowest launch names the step's outlier (ties: either name may be shown, so only its
latency is compared through max).
"""
import collections
import checklib as c
import gaps_check as g
import host_check as h


def pct(v, p):
    r = (len(v) * p + 99) // 100
    return v[r - 1 if r else 0]


def truth(events, steps):
    launches = []
    g.truth(events, steps, launches=launches)
    by = collections.defaultdict(list)
    for step, lat, _ in launches:
        by[step].append(lat)
    out = {}
    for step, v in by.items():
        v.sort()
        out[step] = (len(v), pct(v, 50), pct(v, 90), pct(v, 99), v[-1])
    return out


def check(aptop):
    caps = h.captures()
    if not caps:
        return 'no traces in the real captures', True
    exact, bad, steps = 0, [], 0
    for path, trace in caps:
        rep, why = c.report(aptop, path, 'launch_steps,steps')
        if rep is None:
            bad.append('%s: %s' % (path, why))
            continue
        want = truth(c.trace_events(trace), rep.get('steps') or [])
        got = {r['step']: (r['kernels'], c.ns(r['p50_us']), c.ns(r['p90_us']), c.ns(r['p99_us']), c.ns(r['max_us']))
               for r in rep.get('launch_steps') or []}
        steps += len(want)
        if got != want:
            diff = sorted(set(got.items()) ^ set(want.items()), key=str)[:3]
            bad.append('%s: %s' % (path[len(c.REAL) + 1:], diff))
        else:
            exact += 1
    msg = '%d/%d traces: launch latency of %d step windows exact (launches, p50, p90, p99, max)' % (exact, len(caps), steps)
    return (msg if not bad else msg + '\n    ' + '\n    '.join(bad)), not bad
