"""msprof's per-device timelines (PROF_*/device_N/timeline/msprof_*.json, one file per
iteration) recomputed from the files: kernels, steps and communication ops of
`aptop report`, on the real MindSpore trees and on the generated fixtures/prof_ms.

Definitions, as aptop documents them (man aptop, FILES; docs/phases.md; src/model/analysis/comm.h):
  kernels  X events of the process "Ascend Hardware" (or "Task Scheduler"), except its
           thread "Step Trace(Model ID:N)": count and summed dur per name.
  steps    one per "Iteration N" slice of that Step Trace thread; a kernel belongs to the
           iteration whose [ts, ts + dur) holds its start (profiler start / stop tasks
           excepted); a step spans its kernels (first start to last end); index N.
  comm     (read from the hccl_*.json timelines msprof merged into msprof_*.json)
           one op per slice of the HCCL process's lanes other than "Plane N"; step: the
           step whose span holds the op's start; wait = Notify_Wait tasks on "Plane 0"
           inside the op, transit = its other tasks but Notify_Record, idle = elapse -
           wait - transit.
  clock    a device's times on the host's monotonic clock are moved to the wall clock by
           start_info.N (collectionTimeBegin µs - clockMonotonicRaw ns).
"""
import collections, glob, json, os

import checklib as c

DEVICE = ('Ascend Hardware', 'Task Scheduler')


def prof_trees():
    """PROF_* folders with per-device timelines: the real MindSpore ones and those of the
    generated fixtures/prof_ms."""
    files = c.real_glob('**/PROF_*/device_*/timeline/msprof_*.json')
    files += glob.glob(os.path.join(c.ROOT, 'fixtures', 'prof_ms', '**', 'PROF_*', 'device_*', 'timeline',
                                    'msprof_*.json'), recursive=True)
    return sorted(set(os.path.dirname(os.path.dirname(os.path.dirname(f))) for f in files))


def clock_offset(dev_dir, t0):
    """wall - monotonic in ns when t0 lies on the host's monotonic clock, else 0."""
    try:
        s = json.load(open([p for p in glob.glob(os.path.join(dev_dir, 'start_info*')) if not p.endswith('.done')][0]))
        e = json.load(open([p for p in glob.glob(os.path.join(dev_dir, 'end_info*')) if not p.endswith('.done')][0]))
    except (IndexError, OSError, ValueError):
        return 0
    w0, w1 = int(s['collectionTimeBegin']) * 1000, int(e['collectionTimeEnd']) * 1000
    m0, m1 = int(s['clockMonotonicRaw']), int(e['clockMonotonicRaw'])
    margin = m1 - m0
    mono = m0 - margin <= t0 <= m1 + margin
    wall = w0 - margin <= t0 <= w1 + margin
    return w0 - m0 if mono and not wall else 0


def truth(dev_dir):
    evs = []
    for p in sorted(glob.glob(os.path.join(dev_dir, 'timeline', 'msprof_*.json'))):
        evs += [e for e in c.trace_events(p) if isinstance(e, dict)]
    # the communication from the hccl_* timelines msprof merged (aptop reads the merge)
    hccl = sorted(glob.glob(os.path.join(dev_dir, 'timeline', 'hccl_*.json')))
    if hccl:
        hpids = {e['pid'] for e in evs if e.get('ph') == 'M' and e.get('name') == 'process_name'
                 and e['args']['name'] == 'HCCL'}
        evs = [e for e in evs if e.get('pid') not in hpids]
        for p in hccl:
            evs += [e for e in c.trace_events(p) if isinstance(e, dict)]
    pname = {e['pid']: e['args']['name'] for e in evs if e.get('ph') == 'M' and e.get('name') == 'process_name'}
    tname = {(e['pid'], e['tid']): e['args']['name'] for e in evs
             if e.get('ph') == 'M' and e.get('name') == 'thread_name'}
    xs = [e for e in evs if e.get('ph') == 'X']
    kern, iters, ops, planes = [], [], [], collections.defaultdict(list)
    for e in xs:
        proc, thread = pname.get(e['pid']), tname.get((e['pid'], e['tid']), '')
        a, d = c.ns(e['ts']), max(c.ns(e.get('dur', 0)), 0)
        if proc in DEVICE and thread.startswith('Step Trace'):
            n = e['name']
            if n.startswith('Iteration ') and n[10:].isdigit():
                iters.append((a, a + d, int(n[10:])))
        elif proc in DEVICE:
            kern.append((a, a + d, e['name']))
        elif proc == 'HCCL' and thread.startswith('Plane '):
            planes[(e['pid'], thread)].append((a, a + d, e['name']))
        elif proc == 'HCCL':
            ops.append((a, a + d, e['name'], e['pid']))
    t0 = min(k[0] for k in kern)
    off = clock_offset(dev_dir, t0)
    kernels = collections.defaultdict(lambda: [0, 0])
    for a, b, n in kern:
        kernels[n][0] += 1
        kernels[n][1] += b - a
    steps = []
    for a, b, n in sorted(iters):
        ks = [k for k in kern if a <= k[0] < b and k[2] not in ('PROFILING_ENABLE', 'PROFILING_DISABLE')]
        if ks:
            steps.append((n, min(k[0] for k in ks) + off, max(k[1] for k in ks) - min(k[0] for k in ks), len(ks)))
    comm = []
    for a, b, n, pid in sorted(ops):
        st = [s for s in steps if s[1] <= a + off < s[1] + s[2]]
        tasks = [t for t in planes.get((pid, 'Plane 0'), []) if a <= t[0] and t[1] <= b]
        wait = sum(t[1] - t[0] for t in tasks if t[2].lower() == 'notify_wait')
        transit = sum(t[1] - t[0] for t in tasks if t[2].lower() not in ('notify_wait', 'notify_record'))
        comm.append(('step%d' % st[0][0] if st else None, n, a + off, b - a, wait, transit))
    return kernels, steps, comm


def check_tree(aptop, prof):
    dev_dir = glob.glob(os.path.join(prof, 'device_*'))[0]
    kernels, steps, comm = truth(dev_dir)
    rep, err = c.report(aptop, prof, 'kernels,steps,comm', ('--no-cache',))
    if rep is None:
        return ['%s: %s' % (prof, err)], 0
    bad, n = [], 0
    got = {r['name']: (r['count'], c.ns(r['total_us'])) for r in rep.get('kernels') or []}
    want = {k: tuple(v) for k, v in kernels.items()}
    n += len(want)
    if got != want:
        diff = sorted(set(got.items()) ^ set(want.items()))[:2]
        bad.append('%s kernels differ: %s' % (os.path.basename(prof), diff))
    gs = [(r['index'], c.ns(r['start_us']), c.ns(r['dur_us']), r['kernels'], r['source']) for r in rep.get('steps') or []]
    ws = [s + ('step_trace',) for s in steps]
    n += len(ws)
    if gs != ws:
        bad.append('%s steps: %s, expected %s' % (os.path.basename(prof), gs[:1], ws[:1]))
    gc = [(r['step'], r['name'], c.ns(r['start_us']), c.ns(r['elapse_ms'] * 1000), c.ns(r['wait_ms'] * 1000),
           c.ns(r['transit_ms'] * 1000)) for r in rep.get('comm') or []]
    n += len(comm)
    if gc != comm:
        bad.append('%s comm: %s, expected %s' % (os.path.basename(prof), gc[:1], comm[:1]))
    return bad, n


def check(aptop):
    profs = prof_trees()
    if not profs:
        return 'no PROF_* tree with per-device timelines found', True
    bad, n = [], 0
    for prof in profs:
        b, k = check_tree(aptop, prof)
        bad += b
        n += k
    if bad:
        return '; '.join(bad[:3]), False
    return '%d PROF_* trees: %d kernel names, steps and communication ops equal the timelines' % (len(profs), n), True
