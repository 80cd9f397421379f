#!/usr/bin/env python3
"""Independent check of `aptop report --diff` on one pair of captures.

usage: diff_check.py APTOP BASE NEW      (BASE/NEW may end in :rankN)

Computes in Python, from the files themselves where the figure is a file's own:
  kernels_diff  per (rank, name): count and total ns from kernel_details.csv (exact from the
                decimal text); a side without kernel_details.csv is skipped (DB exports);
  comm_diff     per (rank, op): count, elapse / wait / transit from communication.json
                (ms as decimal text, rounded to the nearest ns), "Total Op Info" left out;
  phases_diff   per (rank, phase): step count and summed duration from each side's
                `report --section steps`, p50 from its `report --section phases`;
then joins base and new by the documented key (collective op ids and "@group" suffixes
normalised; the rank unless each side holds one rank) and judges the status with the
documented noise band (3 x max(MAD, 1% of p50) / p50 of the reference phase's step
durations, at least 3%; phases: 3 x max(MAD base, MAD new, 1% of base p50); totals of
sides with different step counts compared per step). Rows within
0.5% of a band's edge are not judged. Prints "OK <rows>" or "BAD <what>".
"""
import csv, decimal, glob, json, os, re, subprocess, sys

b, base, new = sys.argv[1:4]


def ns(s):
    s = str(s).strip()
    neg = s.startswith('-')
    ip, _, fp = s.lstrip('-').partition('.')
    v = int(ip or '0') * 1000 + int((fp + '000')[:3])
    return -v if neg else v


def ms_ns(d):
    v = decimal.Decimal(str(d)) * 1000000
    return int(v.to_integral_value(rounding=decimal.ROUND_HALF_UP))


def key(n):
    if not n.startswith('hcom_'):
        return n
    return re.sub(r'^(hcom_.*?__)\d+', r'\g<1>*', n.split('@')[0], count=1)


def spec(p):
    m = re.match(r'^(.*):(?:rank)?(\d+)$', p)
    return (m.group(1), int(m.group(2))) if m and not os.path.exists(p) else (p, None)


def rank_dirs(p):
    path, want = spec(p)
    out = []
    for d in sorted(glob.glob(os.path.join(path, '**', 'ASCEND_PROFILER_OUTPUT'), recursive=True)):
        m = re.search(r'rank(\d+)', d)
        info = glob.glob(os.path.join(os.path.dirname(d), 'profiler_info_*.json'))
        r = int(re.search(r'profiler_info_(\d+)', info[0]).group(1)) if info else int(m.group(1)) if m else 0
        if want is None or r == want:
            out.append((r, d))
    return out


KINETO_DEV_CATS = ('kernel', 'gpu_memcpy', 'gpu_memset')


def kineto_kernels(path):
    """a PyTorch profiler (Kineto) trace: device events (kernels, memcpy, memset) by name"""
    import gzip
    raw = (gzip.open if path.endswith('.gz') else open)(path, 'rb').read()
    j = json.loads(raw, parse_float=decimal.Decimal)
    out = {}
    for e in j.get('traceEvents', []) if isinstance(j, dict) else j:
        if e.get('ph') != 'X' or e.get('cat') not in KINETO_DEV_CATS or 'dur' not in e:
            continue
        k = (0, key(e.get('name', '')))
        c, t = out.get(k, (0, 0))
        out[k] = (c + 1, t + ms_ns(decimal.Decimal(str(e['dur'])) / 1000))
    return out


def kernels(p):
    if os.path.isfile(spec(p)[0]) and '.json' in p:
        return kineto_kernels(spec(p)[0])
    out, seen = {}, False
    for r, d in rank_dirs(p):
        f = os.path.join(d, 'kernel_details.csv')
        if not os.path.exists(f):
            continue
        seen = True
        for row in csv.DictReader(open(f, encoding='utf-8-sig')):
            dur = (row.get('Duration(us)') or '').strip()
            if not dur or dur == 'N/A':
                continue
            k = (r, key(row['Name']))
            c, t = out.get(k, (0, 0))
            out[k] = (c + 1, t + ns(dur))
    return out if seen else None


def comm(p):
    out, seen = {}, False
    for r, d in rank_dirs(p):
        f = os.path.join(d, 'communication.json')
        if not os.path.exists(f):
            continue
        seen = True
        j = json.load(open(f), parse_float=decimal.Decimal)
        for step in j.values():
            for kind in step.values():
                for op, v in kind.items():
                    if op == 'Total Op Info':
                        continue
                    ti = v.get('Communication Time Info', {})
                    k = (r, key(op))
                    c, t, w, tr = out.get(k, (0, 0, 0, 0))
                    out[k] = (c + 1, t + ms_ns(ti['Elapse Time(ms)']), w + ms_ns(ti['Wait Time(ms)']),
                              tr + ms_ns(ti['Transit Time(ms)']))
    return out if seen else None


def rep(p, sec, diff=None):
    args = [b, 'report', '--format', 'json', '--section', sec] + ([ '--diff', diff[0], diff[1]] if diff else [p])
    return json.loads(subprocess.run(args, capture_output=True).stdout or b'{}')


def med(v):
    """the nearest-rank median (the lower one of an even count), as the steps' p50"""
    v = sorted(v)
    return v[(len(v) + 1) // 2 - 1]


def phase_stats(p):
    """(rank, phase) -> [durations ns]"""
    by = {}
    for s in rep(p, 'steps').get('steps', []):
        by.setdefault((s.get('rank', 0), s['phase']), []).append(ns(s['dur_us']))
    return by


def band_rel(by):
    out, cnt = {}, {}
    for (r, ph), v in by.items():
        m = med(v)
        mad = med([abs(x - m) for x in v])
        out[ph] = max(out.get(ph, 0.0), 3 * max(mad, m // 100) / m if m else 0)
        cnt[ph] = cnt.get(ph, 0) + len(v)
    return out, cnt


def one_rank(d):
    return len({r for r, _ in d}) <= 1


def unrank(d):
    return {(0, n): v for (r, n), v in d.items()}


sb, sn = phase_stats(base), phase_stats(new)
(bb, cb), (bn, _) = band_rel(sb), band_rel(sn)
common = [p for p in ('prefill', 'decode', 'mixed', 'other') if p in bb and p in bn]
ref = 'decode' if 'decode' in common else (max(common, key=lambda p: cb[p]) if common else None)
rel = max(0.03, bb.get(ref, 0), bn.get(ref, 0)) if ref else 0.03
def nranks(p):
    return 1 if os.path.isfile(spec(p)[0]) else len(rank_dirs(p))


single = nranks(base) == 1 and nranks(new) == 1
out = rep(None, 'diff,kernels_diff,comm_diff,phases_diff', (base, new))
bad, rows = [], 0
if abs(out.get('diff', {}).get('noise_band', -1) - rel) > 1e-9:
    bad.append('noise band %r, expected %r' % (out.get('diff', {}).get('noise_band'), rel))


def judge(tb, tn, lim):
    d = tn - tb
    if abs(abs(d) - lim) <= 0.005 * abs(tb):
        return None
    return 'slower' if d > lim else 'faster' if d < -lim else 'unchanged'


def check(section, truth_b, truth_n, figs, compare):
    """figs: names of the truth tuple's fields after count and total (base_/new_ keys)"""
    global rows
    if truth_b is None or truth_n is None:
        return
    if single:
        truth_b, truth_n = unrank(truth_b), unrank(truth_n)
    got = {(0 if single else r['rank'], r['name']): r for r in out.get(section, [])}
    keys = set(truth_b) | set(truth_n)
    if len(got) != len(keys):
        bad.append('%s: %d rows, expected %d' % (section, len(got), len(keys)))
    for k in keys:
        r = got.get(k)
        if r is None:
            bad.append('%s: no row %r' % (section, k))
            continue
        rows += 1
        vb, vn = truth_b.get(k), truth_n.get(k)
        cb_, tb = (vb[0], vb[1]) if vb else (0, 0)
        cn_, tn = (vn[0], vn[1]) if vn else (0, 0)
        if (r['base_count'], r['new_count']) != (cb_, cn_) or ns(r['base_total_us']) != tb or ns(r['new_total_us']) != tn \
                or ns(r['delta_total_us']) != tn - tb:
            bad.append('%s: figures of %r: %r' % (section, k, r))
            continue
        for i, f in enumerate(figs):
            for side, v in (('base_', vb), ('new_', vn)):
                if v is not None and v[2 + i] is not None and ns(r[side + f]) != v[2 + i]:
                    bad.append('%s: %s%s of %r: %s, expected %d' % (section, side, f, k, r[side + f], v[2 + i]))
        want = 'added' if vb is None else 'removed' if vn is None else compare(k, vb, vn)
        if want is not None and r['status'] != want:
            bad.append('%s: status of %r: %s, expected %s' % (section, k, r['status'], want))


def steps_of(st, k):
    return sum(len(v) for x, v in st.items() if single or x[0] == k[0])


def total_compare(k, vb, vn):
    """totals; per step (cross-multiplied) when the rank's step counts differ"""
    nb, nn = steps_of(sb, k), steps_of(sn, k)
    tb, tn = vb[1], vn[1]
    if nb and nn and nb != nn:
        tb, tn = tb * nn, tn * nb
    return judge(tb, tn, rel * abs(tb))


kb, kn = kernels(base), kernels(new)
check('kernels_diff', kb, kn, [], total_compare)
check('comm_diff', comm(base), comm(new), ['wait_us', 'transit_us'], total_compare)

# phases: count and total from the steps, p50 from the phases section, band per phase
pb = {(r['rank'] if 'rank' in r else 0, r['phase']): ns(r['p50_us']) for r in rep(base, 'phases').get('phases', [])}
pn = {(r['rank'] if 'rank' in r else 0, r['phase']): ns(r['p50_us']) for r in rep(new, 'phases').get('phases', [])}


def ph_truth(st, p50):
    return {k: (len(v), sum(v), p50.get(k)) for k, v in st.items()}


def mad_of(v):
    m = med(v)
    return med([abs(x - m) for x in v])


def ph_compare(k, vb, vn):
    # the same key on both sides; MAD of each side's own steps of that phase
    kbk = [x for x in sb if (x[1] == k[1] and (single or x == k))]
    knk = [x for x in sn if (x[1] == k[1] and (single or x == k))]
    mb = max([mad_of(sb[x]) for x in kbk] or [0])
    mn = max([mad_of(sn[x]) for x in knk] or [0])
    lim = 3 * max(mb, mn, vb[2] // 100)
    return judge(vb[2], vn[2], lim)


check('phases_diff', ph_truth(sb, pb), ph_truth(sn, pn), ['p50_us'], ph_compare)
print('OK %d rows' % rows if not bad else 'BAD ' + '; '.join(bad[:4]))
