"""Kineto (PyTorch profiler) GPU traces: the kernels, flow pairs and ProfilerStep steps of
`aptop report` recomputed from the trace itself.

Definitions, as aptop documents them (src/io/trace/kineto.h, src/model/analysis/steps.h):
  kernels  device events: cat kernel, gpu_memcpy, gpu_memset; count and summed dur per name.
  flows    per flow category (ac2g, async_cpu_to_gpu): ids that have both a start (ph s)
           and an end (ph f) are matched.
  steps    from host "ProfilerStep#N" slices: a device event belongs to the step whose
           host slice holds the start of its launch flow; one without a flow follows the
           last event of its stream that had one; before that, or on a stream without
           flows, it goes to the marker window [marker start, next marker start) holding
           its own start. A step spans its device events.
  phase    of such a step, from its attention kernels: names that say prefill
           (BatchPrefillWith*, SinglePrefillWith*) or decode (paged_attention_v1/v2_kernel,
           paged_attention_ll4mi*, BatchDecodeWith*, SingleDecodeWith*); both: mixed;
           neither: other.
"""
import collections
import checklib as c

DEVICE_CATS = ('kernel', 'gpu_memcpy', 'gpu_memset')
PREFILL = ('BatchPrefillWith', 'SinglePrefillWith')
DECODE = ('paged_attention_v1_kernel', 'paged_attention_v2_kernel', 'paged_attention_ll4mi',
          'BatchDecodeWith', 'SingleDecodeWith')


def phase_of(names):
    p = any(k in n for n in names for k in PREFILL)
    d = any(k in n for n in names for k in DECODE)
    return 'mixed' if p and d else 'prefill' if p else 'decode' if d else 'other'
FLOW_CATS = ('ac2g', 'async_cpu_to_gpu')


def kineto_traces():
    return [p for p in c.real_glob('**/*.json.gz') + c.real_glob('**/*.pt.trace.json')
            if 'ASCEND_PROFILER_OUTPUT' not in p and 'PROF_' not in p]


def truth(events):
    xs = [e for e in events if isinstance(e, dict) and e.get('ph') == 'X' and 'ts' in e]
    dev = [e for e in xs if e.get('cat') in DEVICE_CATS]
    kernels = collections.defaultdict(lambda: [0, 0])
    for e in dev:
        k = kernels[e.get('name')]
        k[0] += 1
        k[1] += c.ns(e.get('dur', 0))
    starts, ends = collections.defaultdict(dict), collections.defaultdict(dict)
    for e in events:
        if not isinstance(e, dict) or e.get('cat') not in FLOW_CATS:
            continue
        if e.get('ph') == 's':
            starts[e['cat']][e.get('id')] = c.ns(e['ts'])
        elif e.get('ph') == 'f':
            ends[e['cat']][e.get('id')] = (e.get('pid'), e.get('tid'), c.ns(e['ts']))
    flows = {cat: sum(1 for i in ends[cat] if i in starts[cat]) for cat in FLOW_CATS if starts[cat] or ends[cat]}
    # the launch time of each device event: a flow end at its own start on its own lane
    launch = {}
    for cat in FLOW_CATS:
        for i, (pid, tid, ts) in ends[cat].items():
            if i in starts[cat]:
                launch[(pid, tid, ts)] = starts[cat][i]
    markers = sorted((c.ns(e['ts']), c.ns(e['ts']) + c.ns(e.get('dur', 0)), int(e['name'][13:]))
                     for e in xs if str(e.get('name', '')).startswith('ProfilerStep#')
                     and e.get('cat') not in ('gpu_user_annotation',) and e['name'][13:].isdigit())
    steps = {}
    if markers:
        def holding(t):
            for a, b, n in markers:
                if a <= t < b or (t == a):
                    return n
            return None

        def window(t):
            hit = None
            for a, _, n in markers:
                if a <= t:
                    hit = n
            return hit
        by_stream = collections.defaultdict(list)
        for e in dev:
            by_stream[(e.get('pid'), e.get('tid'))].append(e)
        for lane, evs in by_stream.items():
            evs.sort(key=lambda e: c.ns(e['ts']))
            has_flows = any((lane[0], lane[1], c.ns(e['ts'])) in launch for e in evs)
            prev, seen = None, False
            for e in evs:
                t0 = c.ns(e['ts'])
                if has_flows:
                    lt = launch.get((lane[0], lane[1], t0))
                    n = holding(lt) if lt is not None else prev if seen else window(t0)
                    seen = seen or lt is not None
                else:
                    n = window(t0)
                prev = n
                if n is None:
                    continue
                s = steps.setdefault(n, [None, None, 0, set()])
                t1 = t0 + c.ns(e.get('dur', 0))
                s[0] = t0 if s[0] is None else min(s[0], t0)
                s[1] = t1 if s[1] is None else max(s[1], t1)
                s[2] += 1
                s[3].add(str(e.get('name')))
    for n, s in steps.items():
        s[3] = phase_of(s[3])
    return kernels, flows, steps


def check(aptop):
    paths = kineto_traces()
    if not paths:
        return 'no Kineto traces in the real captures', True
    exact, bad = 0, []
    for p in paths:
        rep, why = c.report(aptop, p, 'kernels,flows,steps')
        if rep is None:
            bad.append('%s: %s' % (p, why))
            continue
        kernels, flows, steps = truth(c.trace_events(p))
        got_k = {r['name']: (r['count'], c.ns(r['total_us'])) for r in rep.get('kernels', [])}
        want_k = {n: tuple(v) for n, v in kernels.items()}
        problems = []
        if got_k != want_k:
            diff = sorted(set(got_k.items()) ^ set(want_k.items()), key=str)[:3]
            problems.append('kernels differ: %s' % (diff,))
        got_f = {r['category']: r['matched'] for r in rep.get('flows', []) if r.get('kind') == 'flow'}
        for cat, n in flows.items():
            if got_f.get(cat) != n:
                problems.append('flows %s: aptop %s, trace %d' % (cat, got_f.get(cat), n))
        marker_steps = [r for r in rep.get('steps', []) if r.get('source') == 'markers']
        if steps or marker_steps:
            got_s = {r['index']: (c.ns(r['start_us']), c.ns(r['start_us']) + c.ns(r['dur_us']), r['kernels'],
                                  r['phase']) for r in marker_steps}
            want_s = {n: tuple(v) for n, v in steps.items()}
            if got_s != want_s:
                diff = sorted(set(got_s.items()) ^ set(want_s.items()))[:4]
                problems.append('steps differ: %s' % (diff,))
        if problems:
            bad.append('%s: %s' % (p[len(c.REAL) + 1:], '; '.join(problems)))
        else:
            exact += 1
    msg = '%d/%d Kineto traces exact (kernels, flow pairs, ProfilerStep steps and phases)' % (exact, len(paths))
    return (msg if not bad else msg + '\n    ' + '\n    '.join(bad)), not bad
