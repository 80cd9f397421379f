"""Host operators of `aptop report --section host_ops` recomputed from the trace itself.

Definitions, as aptop documents them (src/model/host/host_ops.h, host_launch.h):
  operators   slices of category cpu_op (or operator); without any, every host slice
              except Python frames and task-queue marks.
  host total  summed durations per name; host self: the time each call was the innermost
              slice of its thread (the one that started last; ties: the shorter, then the
              later in the file).
  device      a device slice is launched by the sources of the flows ending on it; it is
              charged once to every operator name among those sources and the slices of
              their thread that enclose them; device = summed durations, kernels = count.
  shapes      rows are per name and input shapes: the args' "Input Dims" (else "Input
              Shapes"), a JSON array written compactly, a text without its line breaks;
              calls without them are one row of the name with input_shapes null.
Nesting is recomputed here with a stack per thread; flow points bind to the deepest slice
of their thread holding their time. Times are ns rounded half away from zero, as aptop
documents (src/model/index/timeparse.h).
"""
import bisect, collections, decimal, json
import checklib as c


def ns(v):
    d = decimal.Decimal(str(v).strip()) * 1000
    return int(d.to_integral_value(rounding=decimal.ROUND_HALF_UP))

DEVICE_CATS = ('kernel', 'gpu_memcpy', 'gpu_memset')
DEVICE_PROCS = ('Ascend Hardware',)
NOT_HOST_PROCS = ('Ascend Hardware', 'Overlap Analysis', 'HCCL', 'Communication', 'Step Trace')


def captures():
    """(path to give aptop, trace file) pairs: torch_npu ranks and Kineto traces."""
    out = [(t.rsplit('/ASCEND_PROFILER_OUTPUT', 1)[0], t)
           for t in c.real_glob('**/ASCEND_PROFILER_OUTPUT/trace_view.json')
           if '/test/data/pytorch/text/' in t]
    out += [(p, p) for p in c.real_glob('**/*.pt.trace.json.gz') + c.real_glob('**/*kineto.json.gz')
            if 'graph_capture' not in p]
    return out


def shapes_text(args):
    """A call's input shapes as aptop writes them, None when not recorded."""
    if not isinstance(args, dict):
        return None
    v = args['Input Dims'] if 'Input Dims' in args else args.get('Input Shapes')
    if v is None:
        return None
    if isinstance(v, str):
        return v.replace('\r', '').replace('\n', '')
    return json.dumps(v, separators=(',', ':'), ensure_ascii=False, default=str)


def lanes_of(events):
    procs = {}
    for e in events:
        if isinstance(e, dict) and e.get('ph') == 'M' and e.get('name') == 'process_name':
            procs[e.get('pid')] = str((e.get('args') or {}).get('name', ''))
    lanes = collections.defaultdict(list)
    for e in events:
        if isinstance(e, dict) and e.get('ph') == 'X' and 'ts' in e:
            t0 = ns(e['ts'])
            dur = max(ns(e.get('dur', 0)), 0)
            pname = procs.get(e.get('pid'), '')
            dev = e.get('cat') in DEVICE_CATS or pname in DEVICE_PROCS
            host = not dev and pname not in NOT_HOST_PROCS and e.get('cat') != 'gpu_user_annotation'
            lanes[(e.get('pid'), e.get('tid'))].append(
                {'order': len(lanes[(e.get('pid'), e.get('tid'))]), 'name': e.get('name'), 'cat': e.get('cat'), 't0': t0, 't1': t0 + dur, 'dur': dur,
                 'shapes': shapes_text(e.get('args')),
                 'dev': dev, 'host': host, 'parent': None, 'kids': 0})
    return lanes


def nest(slices):
    """Parent links and children's coverage by a stack, slices in (start, longest first) order."""
    slices.sort(key=lambda s: (s['t0'], -s['t1'], s['order']))
    stack = []
    for s in slices:
        while stack and not (stack[-1]['t0'] <= s['t0'] and s['t1'] <= stack[-1]['t1']):
            stack.pop()
        if stack:
            s['parent'] = stack[-1]
            stack[-1]['kids'] += s['dur']
        stack.append(s)


def self_times(slices):
    """Each slice's time as the innermost: the one that started last (ties: shorter, later)."""
    key = lambda s: (s['t0'], -s['t1'], s['order'])
    order = sorted(slices, key=key)
    for i, x in enumerate(order):
        spans = []
        for y in order[i + 1:]:
            if y['t0'] >= x['t1']:
                break
            spans.append((y['t0'], min(y['t1'], x['t1'])))
        covered, lo, hi = 0, None, None
        for a, b in sorted(spans):
            if b <= a:
                continue
            if hi is None or a > hi:
                covered += (hi - lo) if hi is not None else 0
                lo, hi = a, b
            else:
                hi = max(hi, b)
        covered += (hi - lo) if hi is not None else 0
        x['self'] = max(x['dur'] - covered, 0)


def deepest_at(slices, starts, ts):
    """The deepest slice of a lane holding time ts (start <= ts <= end)."""
    i = bisect.bisect_right(starts, ts) - 1
    best = None
    while i >= 0:
        s = slices[i]
        if s['t0'] <= ts <= s['t1'] and (best is None or s['t0'] > best['t0'] or
                                         (s['t0'] == best['t0'] and s['t1'] < best['t1'])):
            best = s
        if s['t1'] < ts and s['parent'] is None:
            break
        i -= 1
    return best


def truth(events):
    lanes = lanes_of(events)
    for sl in lanes.values():
        nest(sl)
        self_times(sl)
    starts = {k: [s['t0'] for s in v] for k, v in lanes.items()}
    has_cpu_op = any(s['cat'] in ('cpu_op', 'operator') for v in lanes.values() for s in v)

    def is_op(s):
        if not s['host']:
            return False
        if has_cpu_op:
            return s['cat'] in ('cpu_op', 'operator')
        return s['cat'] not in ('python_function', 'enqueue', 'dequeue')
    ops = collections.defaultdict(lambda: [0, 0, 0, 0, 0])   # calls, total, self, device, kernels
    for v in lanes.values():
        for s in v:
            if is_op(s):
                o = ops[(s['name'], s['shapes'])]
                o[0] += 1
                o[1] += s['dur']
                o[2] += s['self']
    points = collections.defaultdict(lambda: {'s': [], 'f': []})
    for e in events:
        if isinstance(e, dict) and e.get('ph') in ('s', 'f') and 'ts' in e:
            lane = (e.get('pid'), e.get('tid'))
            if lane in lanes:
                hit = deepest_at(lanes[lane], starts[lane], ns(e['ts']))
                if hit is not None:
                    points[(e.get('cat'), str(e.get('id')))][e['ph']].append(hit)
    sources = collections.defaultdict(list)   # device slice id -> host launchers
    for pts in points.values():
        for dst in pts['f']:
            if dst['dev']:
                for src in pts['s']:
                    if src['host']:
                        sources[id(dst)].append((dst, src))
    for pairs in sources.values():
        dst = pairs[0][0]
        names = set()
        for _, src in pairs:
            x = src
            while x is not None:
                if is_op(x):
                    names.add((x['name'], x['shapes']))
                x = x['parent']
        for n in names:
            ops[n][3] += dst['dur']
            ops[n][4] += 1
    return {n: tuple(v) for n, v in ops.items()}


def check(aptop):
    caps = captures()
    if not caps:
        return 'no traces with host slices in the real captures', True
    exact, bad, shaped = 0, [], 0
    for path, trace in caps:
        rep, why = c.report(aptop, path, 'host_ops')
        if rep is None:
            bad.append('%s: %s' % (path, why))
            continue
        want = truth(c.trace_events(trace))
        shaped += sum(1 for r in rep.get('host_ops') or [] if r.get('input_shapes') is not None)
        got = {(r['name'], r.get('input_shapes')): (r['calls'], c.ns(r['host_total_us']), c.ns(r['host_self_us']),
                           c.ns(r['device_us']), r['kernels']) for r in rep.get('host_ops') or []}
        if got != want:
            diff = sorted(set(got.items()) ^ set(want.items()), key=str)[:4]
            bad.append('%s: %d rows differ, e.g. %s' % (path[len(c.REAL) + 1:],
                                                        len(set(got.items()) ^ set(want.items())), diff))
        else:
            exact += 1
    msg = ('%d/%d traces: host operators (calls, host total and self, device, kernels) exact, per name and input '
           'shapes (%d rows with shapes)' % (exact, len(caps), shaped))
    return (msg if not bad else msg + '\n    ' + '\n    '.join(bad)), not bad
