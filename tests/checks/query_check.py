"""`aptop query` against the capture files: slice counts and duration sums by name, flows
joined to the slices at both ends, the steps' ProfilerStep markers, every kernel_details.csv
row and a slice's args, recomputed from trace_view.json and kernel_details.csv of the real
torch_npu captures (two ranks), with exact integer ns."""
import collections, csv, decimal, json, os, subprocess, tempfile

import checklib

CAPTURE = 'Ascend-msinsight/test/data/pytorch/text/level1'


def ns(v):
    """Exact ns of decimal µs text, a half ns rounded away from zero (aptop's documented rule)."""
    d = decimal.Decimal(str(v).strip()) * 1000
    return int(d.to_integral_value(rounding=decimal.ROUND_HALF_UP))


def query(aptop, path, sql, extra=(), env=None):
    p = subprocess.run([aptop, 'query', '--format', 'json', *extra, path, sql], capture_output=True, timeout=120,
                       env=env)
    if p.returncode != 0:
        raise RuntimeError('exit %d: %s' % (p.returncode, p.stderr.decode('utf-8', 'replace').strip()[-300:]))
    return json.loads(p.stdout.decode('utf-8'), parse_float=decimal.Decimal)


def rank_dirs(root):
    out = {}
    for d in sorted(os.listdir(root)):
        if d.endswith('_ascend_pt'):
            out[int(d[len('rank'):-len('_ascend_pt')])] = os.path.join(root, d, 'ASCEND_PROFILER_OUTPUT')
    return out


def slices_of(events):
    """Complete events as (pid, tid, ts, dur, name, event, file position) with exact ns."""
    return [(str(e['pid']), str(e['tid']), ns(e['ts']), ns(e.get('dur', 0)), e.get('name', ''), e, i)
            for i, e in enumerate(events) if e.get('ph') == 'X']


def enclosing(by_thread, pid, tid, t):
    """The innermost complete event on that thread holding time t (start <= t <= end): the
    latest start, then the shortest, then (the same span twice) the later in the file."""
    best = None
    for s in by_thread.get((pid, tid), ()):
        if s[2] <= t <= s[2] + s[3] and (best is None or (s[2], -s[3], s[6]) > (best[2], -best[3], best[6])):
            best = s
    return best


def expected(ranks):
    by_name, flows, steps, kernels, kernel_sums = collections.Counter(), collections.Counter(), set(), \
        collections.Counter(), collections.Counter()
    first_arg = None
    for rank, out in ranks.items():
        events = checklib.trace_events(os.path.join(out, 'trace_view.json'))
        sl = slices_of(events)
        by_thread = collections.defaultdict(list)
        for s in sl:
            by_name[(rank, s[4], 'n')] += 1
            by_name[(rank, s[4], 'dur')] += s[3]
            by_thread[(s[0], s[1])].append(s)
            if s[4].startswith('ProfilerStep#'):
                steps.add((rank, int(s[4].split('#')[1]), s[2], s[3]))
            if first_arg is None and rank == min(ranks) and 'Sequence number' in s[5].get('args', {}):
                first_arg = (s[2], s[4], s[5]['args']['Sequence number'])
        starts = {}
        for e in events:
            if e.get('ph') == 's':
                starts[(e.get('cat'), str(e.get('id')))] = e
        for e in events:
            if e.get('ph') != 'f':
                continue
            s = starts.get((e.get('cat'), str(e.get('id'))))
            if not s:
                continue
            a = enclosing(by_thread, str(s['pid']), str(s['tid']), ns(s['ts']))
            b = enclosing(by_thread, str(e['pid']), str(e['tid']), ns(e['ts']))
            if a and b:
                flows[(rank, e.get('cat'), a[4], a[2], b[4], b[2])] += 1
        with open(os.path.join(out, 'kernel_details.csv'), newline='', encoding='utf-8-sig') as f:
            for row in csv.DictReader(f):
                ts, dur = ns(row['Start Time(us)']), ns(row['Duration(us)'])
                kernels[(rank, row['Name'], ts, dur)] += 1
                kernel_sums[(rank, row['Name'])] += dur
    return by_name, flows, steps, kernels, kernel_sums, first_arg


def check(aptop):
    root = os.path.join(checklib.REAL, CAPTURE)
    if not os.path.isdir(root):
        return 'skipped: %s not found' % root, True
    ranks = rank_dirs(root)
    want_names, want_flows, want_steps, want_kernels, want_ksums, first_arg = expected(ranks)
    try:
        got_names = collections.Counter()
        for r in query(aptop, root, 'SELECT rank, name, count(*) AS n, sum(dur) AS total FROM slice GROUP BY rank, name'):
            got_names[(r['rank'], r['name'], 'n')] += r['n']
            got_names[(r['rank'], r['name'], 'dur')] += r['total']
        # the statement, over both ranks (the same name joined across them) and over
        # each one; with ORDER BY name, in byte order
        agg = 'SELECT name, count(*) AS n, sum(dur) AS total FROM slice %s GROUP BY name ORDER BY name'
        got_by_name = {None: query(aptop, root, agg % '')}
        for rank in ranks:
            got_by_name[rank] = query(aptop, root, agg % ('WHERE rank = %d' % rank))
        got_flows = collections.Counter(
            (r['rank'], r['category'], r['out_name'], r['out_ts'], r['in_name'], r['in_ts'])
            for r in query(aptop, root, 'SELECT f.rank, f.category, a.name AS out_name, a.ts AS out_ts, '
                                        'b.name AS in_name, b.ts AS in_ts FROM flow f '
                                        'JOIN slice a ON a.id = f.slice_out JOIN slice b ON b.id = f.slice_in'))
        got_steps = {(r['rank'], r['step'], r['mark_ts'], r['mark_dur'])
                     for r in query(aptop, root, 'SELECT rank, step, mark_ts, mark_dur FROM step')}
        got_kernels = collections.Counter((r['rank'], r['name'], r['ts'], r['dur'])
                                          for r in query(aptop, root, 'SELECT rank, name, ts, dur FROM kernel'))
        got_ksums = {(r['rank'], r['name']): r['total']
                     for r in query(aptop, root, 'SELECT rank, name, sum(dur) AS total FROM kernel GROUP BY 1, 2')}
        ts, name, seq = first_arg
        got_arg = query(aptop, root, "SELECT extract_arg(id, 'Sequence number') AS v, args(id) AS a FROM slice "
                                     "WHERE rank = %d AND ts = %d AND name = '%s'" % (min(ranks), ts, name.replace("'", "''")))
        # an index reopened from the cache answers the same: the first run writes it (every
        # file cached: --cache-min 0), the second maps it
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, XDG_CACHE_HOME=cache)
            sql = 'SELECT rank, count(*) AS n, sum(dur) AS total FROM slice GROUP BY rank'
            first = query(aptop, root, sql, ('--cache-min', '0'), env)
            cached = sum(len(files) for _, _, files in os.walk(cache))
            again = query(aptop, root, sql, ('--cache-min', '0'), env)
    except (RuntimeError, ValueError, subprocess.TimeoutExpired) as e:
        return 'query failed: %s' % e, False
    problems = []
    for only, rows in got_by_name.items():
        want = collections.Counter()
        for (rank, name, kind), v in want_names.items():
            if only is None or rank == only:
                want[(name, kind)] += v
        got = collections.Counter()
        for r in rows:
            got[(r['name'], 'n')] += r['n']
            got[(r['name'], 'dur')] += r['total']
        names = [r['name'].encode() for r in rows]
        if got != want or names != sorted(set(names)):
            problems.append('GROUP BY name over %s: %d groups against %d names (%s)' % (
                'every rank' if only is None else 'rank %d' % only, len(rows), len(want) // 2,
                'in byte order' if names == sorted(set(names)) else 'not in byte order'))
    if got_names != want_names:
        diff = set(got_names.items()) ^ set(want_names.items())
        problems.append('slices by name differ in %d figures, e.g. %s' % (len(diff), sorted(diff, key=str)[:2]))
    if got_flows != want_flows:
        problems.append('flows: %d joined against %d recomputed (%d differ)' % (
            sum(got_flows.values()), sum(want_flows.values()), len(set(got_flows.items()) ^ set(want_flows.items()))))
    if got_steps != want_steps:
        problems.append('steps %s against ProfilerStep markers %s' % (sorted(got_steps), sorted(want_steps)))
    if got_kernels != want_kernels or got_ksums != want_ksums:
        problems.append('kernel rows: %d against %d in kernel_details.csv' % (
            sum(got_kernels.values()), sum(want_kernels.values())))
    if len(got_arg) != 1 or got_arg[0]['v'] != seq or json.loads(got_arg[0]['a']).get('Sequence number') != str(seq):
        problems.append('extract_arg/args of the slice at %d: %s, file says %r' % (ts, got_arg, seq))
    per_rank = {r['rank']: (r['n'], r['total']) for r in again}
    want_rank = {rk: (sum(v for (r, _, k), v in want_names.items() if r == rk and k == 'n'),
                      sum(v for (r, _, k), v in want_names.items() if r == rk and k == 'dur')) for rk in ranks}
    if per_rank != want_rank or {r['rank']: (r['n'], r['total']) for r in first} != want_rank or not cached:
        problems.append('index cache (%d files written): %s against %s' % (cached, per_rank, want_rank))
    if problems:
        return '; '.join(problems), False
    return ('%d ranks: %d slices in %d names, %d flows joined, %d steps, %d kernel rows, args: all equal' % (
        len(ranks), sum(v for (_, _, k), v in want_names.items() if k == 'n'),
        len({(r, n) for r, n, _ in want_names}), sum(want_flows.values()), len(want_steps),
        sum(want_kernels.values()))), True
