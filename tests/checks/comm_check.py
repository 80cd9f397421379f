"""comm_ranks and comm_matrix recomputed from the real multi-rank captures.

Per rank: the ops of communication.json (step -> collective/p2p -> op key, "Total Op Info"
left out), or, without it, the CommAnalyzerTime rows of analysis.db (key
hccl_op_name@group_name). Instances: ops with the same step, kind, group (after the last
'@'), type (the name up to its first '__', else up to the '@') and order among those on
their rank (by start, then file order). Last arriver: least Wait Time(ms) among the ranks
with one (two needed, not all equal), ties to the later start then the lower rank; its caused wait: the
sum of the others' waits. Links: communication_matrix.json entries (or CommAnalyzerMatrix
rows) without the "Total Op Info" and the -topN/-middle/-bottomN sample groups, one per
(step, kind, group, link, transport) over all files, summed per src, dst, transport;
bandwidth = size / time to 4 decimals half-even; slow below half the median bandwidth of
the same transport (two links or more). Everything with json/sqlite3 and Decimal only.
"""
import decimal, json, os, re, sqlite3

import checklib

D = decimal.Decimal
decimal.getcontext().prec = 60

CAPTURES = [
    'Ascend-msinsight/test/data/pytorch/text/level1',
    'Ascend-msinsight/test/data/pytorch/text/level2',
    'Ascend-msinsight/test/data/pytorch/db/level1',
    'Ascend-msinsight/test/data/pytorch/db/level2',
    'Ascend-msinsight/server/src/test/test_data',
]
TOTAL_KEYS = ('Total Op Info', 'Total HCCL Operators')
SAMPLE = re.compile(r'-(top\d+|middle|bottom\d+)$')


def num(v):
    """A figure as an exact Decimal (JSON numbers come as Decimal; DB REALs by repr)."""
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, float):
        return D(repr(v))
    if isinstance(v, (int, D)):
        return D(v)
    try:
        return D(str(v).strip())
    except decimal.InvalidOperation:
        return None


def rank_dirs(cap):
    """(rank, ASCEND_PROFILER_OUTPUT path) of every rank folder of a capture."""
    out = []
    for name in sorted(os.listdir(cap)):
        m = re.search(r'rank_?(\d+)', name)
        out_dir = os.path.join(cap, name, 'ASCEND_PROFILER_OUTPUT')
        if m and os.path.isdir(out_dir):
            out.append((int(m.group(1)), out_dir))
    return sorted(out)


def db_rows(path, sql):
    con = sqlite3.connect('file:%s?mode=ro&immutable=1' % path, uri=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def ops_of(out_dir):
    """[(step, kind, name, start, wait, transit, elapse)] in file order."""
    js = os.path.join(out_dir, 'communication.json')
    ops = []
    if os.path.isfile(js):
        for step, kinds in checklib.load_json(js).items():
            for kind in ('collective', 'p2p'):
                for name, o in (kinds.get(kind) or {}).items():
                    if name in TOTAL_KEYS:
                        continue
                    t = o.get('Communication Time Info', {})
                    ops.append((step, kind, name, num(t.get('Start Timestamp(us)')), num(t.get('Wait Time(ms)')),
                                num(t.get('Transit Time(ms)')), num(t.get('Elapse Time(ms)'))))
        return ops
    db = os.path.join(out_dir, 'analysis.db')
    if os.path.isfile(db):
        for r in db_rows(db, 'SELECT hccl_op_name, group_name, start_timestamp, wait_time, transit_time, '
                             'elapse_time, step, type FROM CommAnalyzerTime ORDER BY rowid'):
            if r[0] in TOTAL_KEYS:
                continue
            name = r[0] + ('@' + r[1] if r[1] else '')
            ops.append((r[6], 'p2p' if (r[7] or '').lower() == 'p2p' else 'collective', name,
                        num(r[2]), num(r[3]), num(r[4]), num(r[5])))
    return ops


def links_of(out_dir):
    """[(step, kind, group, link, transport, src, dst, size, time)]."""
    js = os.path.join(out_dir, 'communication_matrix.json')
    out = []
    if os.path.isfile(js):
        for step, kinds in checklib.load_json(js).items():
            for kind, groups in kinds.items():
                for group, links in groups.items():
                    for link, v in links.items():
                        out.append((step, kind, group, link, v.get('Transport Type', ''),
                                    num(v.get('Transit Size(MB)')), num(v.get('Transit Time(ms)'))))
    elif os.path.isfile(os.path.join(out_dir, 'analysis.db')):
        for r in db_rows(os.path.join(out_dir, 'analysis.db'),
                         'SELECT hccl_op_name, group_name, src_rank, dst_rank, transport_type, transit_size, '
                         'transit_time, step, type FROM CommAnalyzerMatrix ORDER BY rowid'):
            group = (r[0] or '') + ('@' + r[1] if r[1] else '')
            out.append((r[7], 'p2p' if (r[8] or '').lower() == 'p2p' else 'collective', group,
                        '%s-%s' % (r[2], r[3]), r[4] or '', num(r[5]), num(r[6])))
    res = []
    for step, kind, group, link, tt, size, time in out:
        base = group.split('@')[0]
        if group in TOTAL_KEYS or SAMPLE.search(base):
            continue
        m = re.fullmatch(r'(-?\d+)-(-?\d+)', link)
        if not m or size is None or time is None:
            continue
        res.append((step, kind, group, link, tt, int(m.group(1)), int(m.group(2)), size, time))
    return res


def op_class(step, kind, name):
    group = name.rsplit('@', 1)[1] if '@' in name else ''
    head = name.rsplit('@', 1)[0] if '@' in name else name
    typ = head.split('__', 1)[0]
    return (step, kind, group, typ)


def expected_ranks(ranks):
    """{(rank, name, step): (instance key, row figures)}, {instance key: (last rank, caused)}."""
    rows, members = {}, {}
    for rank, ops in ranks:
        order = sorted(range(len(ops)), key=lambda i: (op_class(*ops[i][:3]),
                                                        ops[i][3] is None, ops[i][3] or 0, i))
        seen = {}
        for i in order:
            cls = op_class(*ops[i][:3])
            k = seen.get(cls, 0)
            seen[cls] = k + 1
            key = cls + (k,)
            rows[(rank, ops[i][2], ops[i][0])] = (key, ops[i])
            members.setdefault(key, []).append((rank, ops[i]))
    verdict = {}
    for key, ms in members.items():
        waited = [(r, o) for r, o in ms if o[4] is not None]
        if len(waited) < 2 or len({o[4] for r, o in waited}) < 2:
            continue
        best = None
        for r, o in sorted(waited):
            if best is None or o[4] < best[1][4] or (
                    o[4] == best[1][4] and o[3] is not None and (best[1][3] is None or o[3] > best[1][3])):
                best = (r, o)
        verdict[key] = (best[0], sum((o[4] for r, o in waited if r != best[0]), D(0)))
    return rows, verdict


def expected_links(per_rank):
    seen, agg = set(), {}
    for rank, links in per_rank:
        for step, kind, group, link, tt, src, dst, size, time in links:
            ident = (tt, src, dst, step, kind, group, link)
            if ident in seen:
                continue
            seen.add(ident)
            a = agg.setdefault((tt, src, dst), [D(0), D(0)])
            a[0] += size
            a[1] += time
    bw = {k: (v[0] / v[1]).quantize(D('0.0001'), rounding=decimal.ROUND_HALF_EVEN) if v[1] else None
          for k, v in agg.items()}
    median = {}
    for tt in {k[0] for k in agg}:
        vals = sorted(b for k, b in bw.items() if k[0] == tt and b is not None)
        if len(vals) >= 2:
            n = len(vals)
            median[tt] = vals[n // 2] if n % 2 else (vals[n // 2 - 1] + vals[n // 2]) / 2
    out = {}
    for k, (size, time) in agg.items():
        med = median.get(k[0])
        out[k] = (size, time, bw[k], med is not None and bw[k] is not None and bw[k] < med / 2, med)
    return out


def check_capture(aptop, cap):
    dirs = rank_dirs(cap)
    ops = [(r, ops_of(d)) for r, d in dirs]
    rows, verdict = expected_ranks(ops)
    links = expected_links([(r, links_of(d)) for r, d in dirs])
    rep, why = checklib.report(aptop, cap, 'comm_ranks,comm_matrix')
    if rep is None:
        return 'report failed: ' + why, 0, 0
    got = rep.get('comm_ranks') or []
    if len(got) != len(rows):
        return 'comm_ranks has %d rows, expected %d' % (len(got), len(rows)), 0, 0
    by_inst = {}
    for g in got:
        want = rows.get((g['rank'], g['name'], g['step']))
        if want is None:
            return 'unexpected op %s of rank %s' % (g['name'], g['rank']), 0, 0
        key, o = want
        if checklib.ns(g.get('start_us')) != checklib.ns(o[3]):
            return '%s rank %s: start_us %s, expected %s' % (g['name'], g['rank'], g.get('start_us'), o[3]), 0, 0
        for col, v in (('wait_ms', o[4]), ('transit_ms', o[5]), ('elapse_ms', o[6])):
            if num(g.get(col)) != v:
                return '%s rank %s: %s %s, expected %s' % (g['name'], g['rank'], col, g.get(col), v), 0, 0
        v = verdict.get(key)
        last = v is not None and v[0] == g['rank']
        if g.get('last_arriver') is not last:
            return '%s rank %s: last_arriver %s, expected %s' % (g['name'], g['rank'], g.get('last_arriver'), last), 0, 0
        if last and num(g.get('caused_wait_ms')) != v[1]:
            return '%s rank %s: caused_wait_ms %s, expected %s' % (g['name'], g['rank'], g.get('caused_wait_ms'), v[1]), 0, 0
        if not last and g.get('caused_wait_ms') is not None:
            return '%s rank %s: caused_wait_ms on a rank that is not the last arriver' % (g['name'], g['rank']), 0, 0
        by_inst.setdefault(g['instance'], set()).add(key)
    # one instance id per expected instance and back
    if any(len(k) != 1 for k in by_inst.values()) or len({next(iter(k)) for k in by_inst.values()}) != len(by_inst):
        return 'instances do not match the expected grouping', 0, 0
    gm = rep.get('comm_matrix') or []
    if len(gm) != len(links):
        return 'comm_matrix has %d rows, expected %d' % (len(gm), len(links)), 0, 0
    for g in gm:
        want = links.get((g.get('transport', ''), g['src_rank'], g['dst_rank']))
        if want is None:
            return 'unexpected link %s-%s %s' % (g['src_rank'], g['dst_rank'], g.get('transport')), 0, 0
        size, time, bw, slow, med = want
        if (num(g.get('size_mb')), num(g.get('time_ms')), num(g.get('bandwidth_gbps')), g.get('slow'),
                num(g.get('transport_median_gbps'))) != (size, time, bw, slow, med):
            return 'link %s-%s %s: %s, expected size %s time %s bw %s slow %s median %s' % (
                g['src_rank'], g['dst_rank'], g.get('transport'), g, size, time, bw, slow, med), 0, 0
    return '', len(got), len(gm)


def check(aptop):
    caps = [os.path.join(checklib.REAL, c) for c in CAPTURES if os.path.isdir(os.path.join(checklib.REAL, c))]
    if not caps:
        return 'no multi-rank capture found', False
    nops = nlinks = 0
    for cap in caps:
        msg, a, b = check_capture(aptop, cap)
        if msg:
            return '%s: %s' % (os.path.relpath(cap, checklib.REAL), msg), False
        nops += a
        nlinks += b
    return '%d captures: %d ops of comm_ranks and %d links of comm_matrix equal' % (len(caps), nops, nlinks), nops > 0 and nlinks > 0
