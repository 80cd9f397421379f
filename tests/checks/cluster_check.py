"""Cluster summaries checked on the real multi-rank captures: each rank's report is written
as a summary file (as each host would print it), the folder of summaries is reported, and
  - its steps, ranks, comm, rank_steps and comm_ends sections equal the direct load's;
  - its comm rows are the ops of every rank's communication.json, with the file's wait
    figures (exact decimals);
  - per rank, wait_ms is the exact decimal sum of the file's Wait Time(ms) over the ops
    (the per-step "Total Op Info" aggregates left out) and comm_ops their number;
  - the rank the others wait for: in each collective (step and op key) seen with a wait on
    several ranks, the rank that waited least gets a vote (ties: the first rank); most votes,
    then least total wait, is waited_for = 1.
Computed here from the files with Python's json and Decimal, not from aptop's figures.
"""
import decimal, glob, os, shutil, subprocess, tempfile
import checklib as c

SECTIONS = 'capture,summary,overview,steps,phases,ranks,comm,rank_steps,comm_ends'
CLUSTER = 'overview,steps,phases,ranks,comm,rank_steps,comm_ends'


def captures():
    """Folders holding two or more rank*_ascend_pt folders with a communication.json."""
    out = []
    for d in sorted({os.path.dirname(os.path.dirname(os.path.dirname(p)))
                     for p in c.real_glob('**/rank*_ascend_pt/ASCEND_PROFILER_OUTPUT/communication.json')}):
        ranks = sorted(glob.glob(os.path.join(d, 'rank*_ascend_pt')))
        if len(ranks) >= 2:
            out.append((d, ranks))
    return out


def rank_of(folder):
    info = glob.glob(os.path.join(folder, 'profiler_info_*.json'))
    name = os.path.basename(info[0]) if info else os.path.basename(folder)
    return int(''.join(ch for ch in name.split('_')[2 if info else 0] if ch.isdigit()))


def file_ops(folder):
    """(step, kind, name, wait Decimal or None) per op of the rank's communication.json."""
    cj = c.load_json(os.path.join(folder, 'ASCEND_PROFILER_OUTPUT', 'communication.json'))
    ops = []
    for step, kinds in cj.items():
        for kind in ('collective', 'p2p'):
            for name, info in (kinds.get(kind) or {}).items():
                w = (info.get('Communication Time Info') or {}).get('Wait Time(ms)')
                ops.append((step, kind, name, None if w is None else decimal.Decimal(str(w))))
    return ops


def waited_for(ops_by_rank):
    """The rank the others wait for, by the vote described above, or None."""
    order = sorted(ops_by_rank)
    votes = {r: 0 for r in order}
    waits = {r: sum((w for s, k, n, w in ops_by_rank[r] if w is not None and n != 'Total Op Info'),
                    decimal.Decimal(0)) for r in order}
    keys = {}
    for r in order:
        for s, k, n, w in ops_by_rank[r]:
            if k == 'collective' and n != 'Total Op Info' and w is not None:
                keys.setdefault((s, n), []).append((w, order.index(r), r))
    for key, seen in keys.items():
        if len(seen) >= 2:
            votes[min(seen)[2]] += 1
    best = None
    for r in order:
        if best is None or votes[r] > votes[best] or (votes[r] == votes[best] and waits[r] < waits[best]):
            best = r
    return best if best is not None and votes[best] else None


def check_capture(aptop, root, ranks):
    tmp = tempfile.mkdtemp(prefix='aptop_cluster_check_')
    try:
        for r in ranks:
            p = subprocess.run([aptop, 'report', '--format', 'json', '--section', SECTIONS, r],
                               capture_output=True, timeout=120)
            with open(os.path.join(tmp, os.path.basename(r) + '.json'), 'wb') as f:
                f.write(p.stdout)
        merged, why = c.report(aptop, tmp, CLUSTER)
        direct, why2 = c.report(aptop, root, CLUSTER)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if merged is None or direct is None:
        return 'no report: %s %s' % (why, why2)
    problems = []
    for sec in CLUSTER.split(','):
        if merged.get(sec) != direct.get(sec):
            problems.append('%s differs from the direct load' % sec)
    ops = {rank_of(r): file_ops(r) for r in ranks}
    got = [(x['rank'], x['step'], x['kind'], x['name'], x.get('wait_ms')) for x in merged.get('comm', [])]
    want = [(rk, s, k, n, w) for rk in sorted(ops) for s, k, n, w in ops[rk]]
    if sorted(got, key=str) != sorted(want, key=str):
        problems.append('comm rows: %d, files %d ops (or their waits differ)' % (len(got), len(want)))
    for row in merged.get('ranks', []):
        mine = [w for s, k, n, w in ops.get(row['rank'], []) if n != 'Total Op Info']
        total = sum((w for w in mine if w is not None), decimal.Decimal(0))
        if row.get('comm_ops') != len(mine) or decimal.Decimal(str(row.get('wait_ms'))) != total:
            problems.append('rank %s: %s ops wait %s, files %d ops wait %s' % (row['rank'], row.get('comm_ops'),
                                                                               row.get('wait_ms'), len(mine), total))
    wf = waited_for(ops)
    marked = [row['rank'] for row in merged.get('ranks', []) if row.get('waited_for') == 1]
    if marked != ([wf] if wf is not None else []):
        problems.append('waited_for %s, files say %s' % (marked, wf))
    return '; '.join(problems)


def check(aptop):
    caps = captures()
    if not caps:
        return 'no multi-rank capture with communication.json in the real folder', True
    bad = []
    for root, ranks in caps:
        why = check_capture(aptop, root, ranks)
        if why:
            bad.append('%s: %s' % (os.path.relpath(root, c.REAL), why))
    if bad:
        return 'summaries differ: ' + ' | '.join(bad[:3]), False
    return '%d captures: summaries merged equal the direct load and the files' % len(caps), True
