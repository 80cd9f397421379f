"""The host call tree of `aptop report --section call_tree` recomputed from the trace itself.

Definitions, as aptop documents them (src/model/host/call_tree.h):
  nodes      paths of names: on every host thread a slice's parent is the enclosing slice
             that started last (ties: the shorter, then the earlier in the file); threads
             merge by name at the roots.
  host       summed durations of a node's slices; calls, their count.
  device     a device slice counts once, with its duration, for every node on the paths of
             its flows' sources.
  idle_self  the host-bound gaps (gaps_check.py) whose innermost frame belongs to the node;
  idle       idle_self of the node and of every node below it.
The report's rows are depth-first with a depth each: paths are rebuilt from that order.
"""
import collections
import checklib as c
import gaps_check as g
import host_check as h


def path_of(s):
    p = []
    while s is not None:
        p.append(s['name'])
        s = s['parent']
    return tuple(reversed(p))


def truth(events, steps):
    lanes = h.lanes_of(events)
    for sl in lanes.values():
        h.nest(sl)
    nodes = collections.defaultdict(lambda: [0, 0, 0, 0, 0])   # calls, host, device, idle, idle_self
    for sl in lanes.values():
        for s in sl:
            if s['host']:
                n = nodes[path_of(s)]
                n[0] += 1
                n[1] += s['dur']
    starts = {k: [s['t0'] for s in v] for k, v in lanes.items()}
    points = collections.defaultdict(lambda: {'s': [], 'f': []})
    for e in events:
        if isinstance(e, dict) and e.get('ph') in ('s', 'f') and 'ts' in e:
            lane = (e.get('pid'), e.get('tid'))
            if lane in lanes:
                hit = h.deepest_at(lanes[lane], starts[lane], h.ns(e['ts']))
                if hit is not None:
                    points[(e.get('cat'), str(e.get('id')))][e['ph']].append(hit)
    charged = collections.defaultdict(set)
    for pts in points.values():
        for dst in pts['f']:
            if not dst['dev']:
                continue
            for src in pts['s']:
                if src['host']:
                    p = path_of(src)
                    for i in range(1, len(p) + 1):
                        charged[id(dst)].add(p[:i])
    devs = {id(s): s for v in lanes.values() for s in v if s['dev']}
    for k, paths in charged.items():
        for p in paths:
            nodes[p][2] += devs[k]['dur']
    for row in g.truth(events, steps, lanes):
        inner = row[-1]
        if row[3] != 'host_bound' or inner is None or not inner['host']:
            continue
        p = path_of(inner)
        nodes[p][4] += row[2]
        for i in range(1, len(p) + 1):
            nodes[p[:i]][3] += row[2]
    return {p: tuple(v) for p, v in nodes.items()}


def rows_to_paths(rows):
    out, stack = {}, []
    for r in rows:
        del stack[r['depth']:]
        stack.append(r['name'])
        out[tuple(stack)] = (r['calls'], c.ns(r['host_us']), c.ns(r['device_us']), c.ns(r['idle_us']),
                             c.ns(r['idle_self_us']))
    return out


def check(aptop):
    caps = h.captures()
    if not caps:
        return 'no traces in the real captures', True
    exact, bad, nodes = 0, [], 0
    for path, trace in caps:
        rep, why = c.report(aptop, path, 'call_tree,steps')
        if rep is None:
            bad.append('%s: %s' % (path, why))
            continue
        got = rows_to_paths(rep.get('call_tree') or [])
        want = truth(c.trace_events(trace), rep.get('steps') or [])
        nodes += len(want)
        if got != want:
            diff = sorted(set(got.items()) ^ set(want.items()), key=str)[:3]
            bad.append('%s: %d nodes, trace %d; e.g. %s' % (path[len(c.REAL) + 1:], len(got), len(want),
                                                           [(p[-2:], v) for p, v in diff]))
        else:
            exact += 1
    msg = '%d/%d traces: %d call tree nodes exact (calls, host, device, idle, idle self)' % (exact, len(caps), nodes)
    return (msg if not bad else msg + '\n    ' + '\n    '.join(bad)), not bad
