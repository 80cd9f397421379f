"""Memory sections (memory, memory_ops, memory_static) recomputed from the memory files.

Every real capture folder holding memory_record / operator_memory / npu_module_mem / npu_mem /
static_op_mem CSV files or a DB with the memory tables (MEMORY_RECORD, OP_MEMORY, NPU_OP_MEM,
NPU_MEM, NPU_MODULE_MEM) is read here with the csv and sqlite3 modules and compared with
`aptop report --format json --section memory,memory_ops,memory_static`:

- sizes in bytes from the unit the header states (MB, KB: 2^20, 2^10 bytes; the DB: bytes),
  compared as exact fractions (the report's number must read back to exactly bytes / 2^20 or
  bytes / 2^10);
- times in integer ns from the decimal µs text (the DB: ns), compared exactly;
- per rank and component: the peak of each kind, the earliest time the peak is reached, the
  first and last time, the row count;
- per operator allocation: size, allocation, release, lifetime (Duration as written, else
  release - allocation), the totals at allocation and release; NPU_OP_MEM events pair by
  address (allocate, then release) in time order;
- static graph rows as written;
- every rank compared (memory_ranks): the main memory_record curve's peaks (the largest
  allocated peak), the gap to the lowest rank, the largest allocation, the static sum.
Folders whose memory files are all empty must give no memory rows. The text and DB exports of
one job (two runs: times differ) hold the same operator allocations, size and the totals beside
them, row by row: the files are compared, then aptop's reports of both.
"""
import csv, decimal, fractions, glob, json, os, re, sqlite3

import checklib

D = decimal.Decimal
F = fractions.Fraction
MB, KB = 1 << 20, 1 << 10
CURVE_MAX = 65536
KINDS = ('allocated', 'reserved', 'active')

CSV_KINDS = (('ge_memory_record', 'record'), ('memory_record', 'record'),
             ('ge_operator_memory', 'operator'), ('operator_memory', 'operator'),
             ('npu_module_mem', 'module'), ('npu_mem', 'npu_mem'), ('static_op_mem', 'static'))
DB_TABLES = ('MEMORY_RECORD', 'OP_MEMORY', 'NPU_OP_MEM', 'NPU_MEM', 'NPU_MODULE_MEM')
MISSING = {'', 'n/a', 'na', '-', '--', 'none', 'null', 'host', 'nan', 'nil'}
SIZE_UNITS = {'mb': MB, 'mib': MB, 'kb': KB, 'kib': KB, 'gb': 1 << 30, 'gib': 1 << 30,
              'b': 1, 'byte': 1, 'bytes': 1}
TIME_UNITS = {'us': 1000, 'µs': 1000, 'μs': 1000, 'ns': 1, 'ms': 1000000}


def csv_kind(path):
    base = os.path.basename(path)
    if not base.endswith('.csv'):
        return None
    for prefix, kind in CSV_KINDS:
        if base.startswith(prefix):
            return kind
    return None


def db_memory_tables(path):
    try:
        db = sqlite3.connect('file:%s?mode=ro&immutable=1' % path, uri=True)
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        db.close()
    except sqlite3.Error:
        return set()
    return names & set(DB_TABLES)


# ---- one series (curve) of a rank ------------------------------------------------------------

class Series:
    def __init__(self):
        self.rows = self.timed = 0
        self.rowvals = []            # (t, [bytes or None] * 3)
        self.first = self.last = None

    def add(self, t, v):
        self.rows += 1
        self.rowvals.append((t, v))
        if t is not None:
            self.timed += 1
            self.first = t if self.first is None else min(self.first, t)
            self.last = t if self.last is None else max(self.last, t)

    def peak(self, k):
        vals = [v[k] for _, v in self.rowvals if v[k] is not None]
        if not vals:
            return None, None
        top = max(vals)
        times = [t for t, v in self.rowvals if v[k] == top and t is not None]
        return top, (min(times) if times else None)

    def expected(self):
        peaks = [self.peak(k) for k in range(3)]
        kind = next((k for k in range(3) if peaks[k][0] is not None), 0)
        mb = lambda b: None if b is None else F(b, MB)
        return {
            'peak_allocated_mb': mb(peaks[0][0]), 'peak_reserved_mb': mb(peaks[1][0]),
            'peak_active_mb': mb(peaks[2][0]), 'peak_at_us': peaks[kind][1],
            'peak_reserved_at_us': peaks[1][1], 'first_us': self.first, 'last_us': self.last,
            'rows': self.rows, 'curve_points': self.timed if self.timed <= CURVE_MAX else None,
        }


class Rank:
    def __init__(self):
        self.series = {}             # (source, component) -> Series
        self.ops = []                # dicts in memory_ops' keys
        self.statics = []

    def curve(self, source, component):
        return self.series.setdefault((source, component), Series())


# ---- CSV files -------------------------------------------------------------------------------

def header_roles(header):
    """Header cell -> (role, unit): 'Total Allocated(MB)' -> ('total_allocated', 'mb')."""
    roles = {}
    for i, h in enumerate(header):
        h = h.strip().lstrip('\ufeff')
        m = re.match(r'^(.*?)\s*\(([^)]*)\)\s*$', h)
        name, unit = (m.group(1), m.group(2).strip().lower()) if m else (h, '')
        role = re.sub(r'[\s_]+', '_', name.strip().lower())
        if role == 'op_name':
            role = 'name'
        roles.setdefault(role, (i, unit))
    return roles


def cell(row, roles, role):
    if role not in roles or roles[role][0] >= len(row):
        return None
    s = row[roles[role][0]].strip(' \t\r')
    return None if s.lower() in MISSING else s


def size_bytes(row, roles, role, default_unit):
    s = cell(row, roles, role)
    if s is None:
        return None
    unit = SIZE_UNITS.get(roles[role][1], default_unit)
    return int((D(s) * unit).to_integral_value(rounding=decimal.ROUND_HALF_UP))


def time_ns(row, roles, role):
    s = cell(row, roles, role)
    if s is None:
        return None
    unit = TIME_UNITS.get(roles[role][1], 1000)
    return int((D(s) * unit).to_integral_value(rounding=decimal.ROUND_HALF_UP))


def plain_int(row, roles, role):
    s = cell(row, roles, role)
    return None if s is None else int(D(s))


def lifetime(duration, alloc, release):
    if duration is not None:
        return duration
    if alloc is not None and release is not None:
        return release - alloc
    return None


def op_entry(name, component, size, alloc, release, active_release, duration, active_duration,
             at_alloc, at_release, line):
    life = lifetime(duration, alloc, release)
    mb = lambda b: None if b is None else F(b, MB)
    return {
        'name': name, 'component': component, 'size_kb': None if size is None else F(size, KB),
        'alloc_us': alloc, 'release_us': release, 'lifetime_us': life,
        'active_release_us': active_release, 'active_lifetime_us': active_duration,
        'size_x_lifetime_kb_ms': None if life is None or size is None else F(size * life, KB * 1000000),
        'alloc_total_allocated_mb': mb(at_alloc[0]), 'alloc_total_reserved_mb': mb(at_alloc[1]),
        'release_total_allocated_mb': mb(at_release[0]), 'release_total_reserved_mb': mb(at_release[1]),
        'line': line,
    }


def read_csv(path, kind, rank):
    with open(path, newline='', encoding='utf-8', errors='replace') as f:
        rows = csv.reader(f)
        header = next(rows, None)
        if header is None:
            return False
        roles = header_roles(header)
        for row in rows:
            line = rows.line_num
            if kind in ('record', 'module'):
                comp = cell(row, roles, 'component')
                if comp is None and ('component' not in roles or roles['component'][0] >= len(row)):
                    continue
                comp = row[roles['component'][0]].strip(' \t\r')
                v = [size_bytes(row, roles, 'total_' + k, MB) for k in KINDS]
                src = 'memory_record' if kind == 'record' else 'npu_module_mem'
                rank.curve(src, comp).add(time_ns(row, roles, 'timestamp'), v)
            elif kind == 'npu_mem':
                comp = row[roles['event'][0]].strip(' \t\r') if 'event' in roles and roles['event'][0] < len(row) else 'NPU'
                total = size_bytes(row, roles, 'memory', KB)
                if total is None:
                    ddr, hbm = size_bytes(row, roles, 'ddr', KB), size_bytes(row, roles, 'hbm', KB)
                    if ddr is not None or hbm is not None:
                        total = (ddr or 0) + (hbm or 0)
                rank.curve('npu_mem', comp).add(time_ns(row, roles, 'timestamp'), [None, total, None])
            elif kind == 'operator':
                rank.ops.append(op_entry(
                    (row[roles['name'][0]].strip(' \t\r') if roles['name'][0] < len(row) else ''), '',
                    size_bytes(row, roles, 'size', KB), time_ns(row, roles, 'allocation_time'),
                    time_ns(row, roles, 'release_time'), time_ns(row, roles, 'active_release_time'),
                    time_ns(row, roles, 'duration'), time_ns(row, roles, 'active_duration'),
                    [size_bytes(row, roles, 'allocation_total_' + k, MB) for k in KINDS],
                    [size_bytes(row, roles, 'release_total_' + k, MB) for k in KINDS], line))
            elif kind == 'static':
                text = lambda r: row[roles[r][0]].strip(' \t\r') if r in roles and roles[r][0] < len(row) else ''
                rank.statics.append({
                    'name': text('name'), 'model': text('model_name'),
                    'graph_id': plain_int(row, roles, 'graph_id'),
                    'node_index_start': plain_int(row, roles, 'node_index_start'),
                    'node_index_end': plain_int(row, roles, 'node_index_end'),
                    'size_kb': (lambda b: None if b is None else F(b, KB))(size_bytes(row, roles, 'size', KB)),
                    'device': text('device_id'),
                })
    return True


# ---- DB exports ------------------------------------------------------------------------------

def read_db(path, rank):
    db = sqlite3.connect('file:%s?mode=ro&immutable=1' % path, uri=True)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    strings = dict(db.execute('SELECT id, value FROM STRING_IDS')) if 'STRING_IDS' in tables else {}
    text = lambda v: None if v is None else strings.get(v, str(v)) if strings else str(v)
    i = lambda v: None if v is None else int(v)
    if 'MEMORY_RECORD' in tables:
        for comp, t, a, r, act, stream in db.execute(
                'SELECT component, timestamp, totalAllocated, totalReserved, totalActive, streamPtr '
                'FROM MEMORY_RECORD ORDER BY rowid'):
            act = i(act)
            if act == 0 and stream is None:     # GE rows: no stream, no active figure
                act = None
            rank.curve('memory_record', text(comp)).add(i(t), [i(a), i(r), act])
    if 'NPU_MEM' in tables:
        for ty, ddr, hbm, t in db.execute('SELECT type, ddr, hbm, timestampNs FROM NPU_MEM ORDER BY timestampNs, rowid'):
            ty = text(ty)
            total = None if ddr is None and hbm is None else (i(ddr) or 0) + (i(hbm) or 0)
            rank.curve('npu_mem', ty).add(i(t), [None, total, None])
            if ty.lower() == 'app':             # the text export's memory_record APP
                rank.curve('memory_record', 'APP').add(i(t), [None, i(hbm), None])
    if 'NPU_MODULE_MEM' in tables:
        modules = dict(db.execute('SELECT id, name FROM ENUM_MODULE')) if 'ENUM_MODULE' in tables else {}
        for mod, t, r in db.execute('SELECT moduleId, timestampNs, totalReserved FROM NPU_MODULE_MEM ORDER BY rowid'):
            rank.curve('npu_module_mem', modules.get(mod, str(mod))).add(i(t), [None, i(r), None])
    if 'OP_MEMORY' in tables:
        for row in db.execute(
                'SELECT name, size, allocationTime, releaseTime, activeReleaseTime, duration, activeDuration, '
                'allocationTotalAllocated, allocationTotalReserved, allocationTotalActive, releaseTotalAllocated, '
                'releaseTotalReserved, releaseTotalActive FROM OP_MEMORY ORDER BY rowid'):
            v = [i(x) for x in row[1:]]
            rank.ops.append(op_entry(text(row[0]), '', *v[:6], v[6:9], v[9:12], None))
    if 'NPU_OP_MEM' in tables:
        # the event type: an ENUM_MEMORY id in msprof DBs, a STRING_IDS id in torch_npu DBs
        enum = dict(db.execute('SELECT id, name FROM ENUM_MEMORY')) if 'ENUM_MEMORY' in tables else None
        held = {}
        for name, addr, ty, size, t, ta, tr, comp in db.execute(
                'SELECT operatorName, addr, type, size, timestampNs, totalAllocate, totalReserve, component '
                'FROM NPU_OP_MEM ORDER BY timestampNs, rowid'):
            kind = (enum.get(ty, '') if enum is not None else text(ty) or '').lower()
            if kind not in ('allocate', 'release'):
                kind = 'release' if addr in held else 'allocate'
            if kind == 'release' and addr in held:
                op = held.pop(addr)
                op['release_us'] = i(t)
                op['lifetime_us'] = lifetime(None, op['alloc_us'], i(t))
                op['release_total_allocated_mb'] = F(i(ta), MB) if ta is not None else None
                op['release_total_reserved_mb'] = F(i(tr), MB) if tr is not None else None
                if op['size_kb'] is not None and op['lifetime_us'] is not None:
                    op['size_x_lifetime_kb_ms'] = op['size_kb'] * op['lifetime_us'] / 1000000
                continue
            alloc = kind == 'allocate'
            op = op_entry(text(name), text(comp) or '', i(size), i(t) if alloc else None,
                          None if alloc else i(t), None, None, None,
                          [i(ta), i(tr), None] if alloc else [None] * 3,
                          [None] * 3 if alloc else [i(ta), i(tr), None], None)
            rank.ops.append(op)
            if alloc:
                held[addr] = op
    db.close()


# ---- captures --------------------------------------------------------------------------------

def rank_dir_of(path):
    d = os.path.dirname(path)
    if os.path.basename(d) in ('ASCEND_PROFILER_OUTPUT', 'mindstudio_profiler_output'):
        d = os.path.dirname(d)
    return d


def rank_number(rank_dir, files):
    for info in sorted(glob.glob(os.path.join(rank_dir, 'profiler_info*.json'))):
        try:
            with open(info) as f:
                r = json.load(f).get('rank_id')
            if isinstance(r, int) and r >= 0:
                return r
        except (OSError, ValueError, AttributeError):
            pass
        m = re.search(r'_(\d+)\.json$', info)
        if m:
            return int(m.group(1))
    for f in files:
        m = re.search(r'_(\d+)\.(db|dat)$', os.path.basename(f))
        if m:
            return int(m.group(1))
    return 0


def captures():
    """{capture folder: {rank dir: [memory files]}}"""
    out = {}
    for path in checklib.real_glob('**/*'):
        if not os.path.isfile(path):
            continue
        is_db = path.endswith(('.db', '.dat')) and db_memory_tables(path)
        if not csv_kind(path) and not is_db:
            continue
        rd = rank_dir_of(path)
        cap = os.path.dirname(rd) if rd.endswith('_ascend_pt') else rd
        out.setdefault(cap, {}).setdefault(rd, []).append(path)
    return out


def expected_ranks(rank_dirs):
    ranks = {}
    for rd, files in sorted(rank_dirs.items()):
        n = rank_number(rd, files)
        rank = ranks.setdefault(n, Rank())
        dbs = [f for f in files if f.endswith(('.db', '.dat'))]
        texts = [f for f in files if csv_kind(f)]
        # a DB export and text files in one folder: the text files are what is read
        for f in (texts or dbs):
            if f in dbs:
                read_db(f, rank)
            elif os.path.getsize(f):
                read_csv(f, csv_kind(f), rank)
    return {n: r for n, r in ranks.items() if r.series or r.ops or r.statics}


# ---- every rank compared (memory_ranks) ------------------------------------------------------

def expected_rank_rows(ranks):
    """memory_ranks rows: each rank's main memory_record curve (the largest allocated peak, else
    reserved, else active), its gap to the lowest rank's allocated peak, its operators."""
    rows = {}
    for n, r in sorted(ranks.items()):
        record = [(comp, s) for (src, comp), s in r.series.items() if src == 'memory_record']
        main = None
        for k in range(3):
            have = [(comp, s) for comp, s in record if s.peak(k)[0] is not None]
            if have:
                top = max(s.peak(k)[0] for _, s in have)
                main = next((comp, s) for comp, s in have if s.peak(k)[0] == top)
                break
        sizes = [o['size_kb'] for o in r.ops if o['size_kb'] is not None]
        big = max(sizes) if sizes else None
        row = {'rank': n, 'component': None, 'peak_allocated_mb': None, 'peak_reserved_mb': None,
               'peak_at_us': None, 'op_allocations': len(r.ops), 'largest_allocation_kb': big,
               'largest_allocation': next(o['name'] for o in r.ops if o['size_kb'] == big) if sizes else None,
               'static_kb': sum((s['size_kb'] for s in r.statics if s['size_kb'] is not None), F(0))
               if r.statics else None}
        if main:
            e = main[1].expected()
            row.update(component=main[0], peak_allocated_mb=e['peak_allocated_mb'],
                       peak_reserved_mb=e['peak_reserved_mb'], peak_at_us=e['peak_at_us'])
        rows[n] = row
    alloc = [r['peak_allocated_mb'] for r in rows.values() if r['peak_allocated_mb'] is not None]
    for r in rows.values():
        r['above_lowest_allocated_mb'] = (None if r['peak_allocated_mb'] is None
                                          else r['peak_allocated_mb'] - min(alloc))
    return list(rows.values())


# ---- the text and DB exports of one job ------------------------------------------------------

def op_sizes(ops, strip_prefix):
    """(name, size, totals at allocation and release) of each operator_memory / OP_MEMORY row,
    in order; the text export writes GE operators as cann::NAME, the DB as NAME."""
    out = []
    for o in ops:
        name = o['name']
        if strip_prefix and name.startswith('cann::'):
            name = name[len('cann::'):]
        out.append((name, o['size_kb'], o['alloc_total_allocated_mb'], o['alloc_total_reserved_mb'],
                    o['release_total_allocated_mb'], o['release_total_reserved_mb']))
    return out


def report_op_sizes(rep, rank, strip_prefix):
    rows = [dict(g) for g in rep.get('memory_ops') or [] if g.get('rank') == rank and g.get('component') == '']
    for g in rows:
        for k in ('size_kb', 'alloc_total_allocated_mb', 'alloc_total_reserved_mb',
                  'release_total_allocated_mb', 'release_total_reserved_mb'):
            g[k] = None if g[k] is None else F(float(g[k]))
    return op_sizes(rows, strip_prefix)


def text_db_pairs(caps):
    sep = os.sep + 'text' + os.sep
    return [(c, c.replace(sep, os.sep + 'db' + os.sep)) for c in sorted(caps)
            if sep in c + os.sep and c.replace(sep, os.sep + 'db' + os.sep) in caps]


def check_text_db(aptop, caps):
    """The text and DB exports of one job hold the same operator allocations (sizes and the
    totals beside them; times differ: two runs): so must aptop's two reports."""
    pairs = text_db_pairs(caps)
    ops = 0
    for text, db in pairs:
        want_t, want_d = expected_ranks(caps[text]), expected_ranks(caps[db])
        rep_t, _ = checklib.report(aptop, text, 'memory_ops')
        rep_d, _ = checklib.report(aptop, db, 'memory_ops')
        rel = os.path.relpath(text, checklib.REAL)
        if rep_t is None or rep_d is None:
            return len(pairs), ops, '%s: no report' % rel
        if sorted(want_t) != sorted(want_d):
            return len(pairs), ops, '%s: ranks %s in text, %s in the DB' % (rel, sorted(want_t), sorted(want_d))
        for n in sorted(want_t):
            ft = op_sizes(want_t[n].ops, True)
            fd = op_sizes([o for o in want_d[n].ops if o['component'] == ''], False)
            if ft != fd:
                return len(pairs), ops, '%s rank %d: the files differ (%d and %d allocations)' % (rel, n, len(ft), len(fd))
            if report_op_sizes(rep_t, n, True) != ft or report_op_sizes(rep_d, n, False) != fd:
                return len(pairs), ops, '%s rank %d: aptop reads the text and DB allocations differently' % (rel, n)
            ops += len(ft)
    return len(pairs), ops, ''


# ---- comparison ------------------------------------------------------------------------------

def same(key, want, got):
    if want is None or got is None:
        return want is None and got is None
    if key.endswith('_us'):
        return checklib.ns(got) == want
    if key == 'size_x_lifetime_kb_ms':         # a product of two doubles: the format is float
        return abs(F(float(got)) - want) <= abs(want) * F(1, 10 ** 12)
    if isinstance(want, F):
        return F(float(got)) == want            # the printed double is exactly the fraction
    return got == want


def diff_rows(what, want, got):
    """First difference between two lists of row dicts (compared as multisets), or ''."""
    if len(want) != len(got):
        return '%s: %d rows, aptop %d' % (what, len(want), len(got))
    left = list(got)
    for w in want:
        hit = next((j for j, g in enumerate(left) if all(same(k, w[k], g.get(k)) for k in w)), None)
        if hit is None:
            near = [g for g in left if g.get('name', g.get('component')) == w.get('name', w.get('component'))]
            bad = [(k, str(w[k]), near[0].get(k)) for k in w if near and not same(k, w[k], near[0].get(k))]
            return '%s: no row %s in aptop%s' % (what, {k: str(v) for k, v in list(w.items())[:3]},
                                                 ' (e.g. %s: want %s, aptop %s)' % bad[0] if bad else '')
        left.pop(hit)
    return ''


def compare_capture(aptop, cap, rank_dirs):
    want = expected_ranks(rank_dirs)
    rep, why = checklib.report(aptop, cap, 'memory,memory_ops,memory_static,memory_ranks')
    rel = os.path.relpath(cap, checklib.REAL)
    if not want:
        rows = sum(len(rep.get(k) or []) for k in ('memory', 'memory_ops', 'memory_static', 'memory_ranks')) if rep else 0
        return None, ('' if rows == 0 else '%s: empty memory files gave %d rows' % (rel, rows))
    if rep is None:
        return True, '%s: %s' % (rel, why)
    for n, r in sorted(want.items()):
        series = []
        for (src, comp), s in r.series.items():
            row = {'source': src, 'component': comp}
            row.update(s.expected())
            series.append(row)
        got = [g for g in rep.get('memory') or [] if g.get('rank') == n]
        for g in got:                           # the curve's point count: exact below its bound
            if g.get('curve_points') is not None and g['curve_points'] > CURVE_MAX:
                return True, '%s rank %d: %s has %d curve points' % (rel, n, g['component'], g['curve_points'])
        for w in series:
            if w['curve_points'] is None:
                del w['curve_points']
        for what, w, g in (('memory', series, got),
                           ('memory_ops', r.ops, [g for g in rep.get('memory_ops') or [] if g.get('rank') == n]),
                           ('memory_static', r.statics,
                            [g for g in rep.get('memory_static') or [] if g.get('rank') == n])):
            d = diff_rows(what, w, g)
            if d:
                return True, '%s rank %d: %s' % (rel, n, d)
    d = diff_rows('memory_ranks', expected_rank_rows(want), rep.get('memory_ranks') or [])
    if d:
        return True, '%s: %s' % (rel, d)
    extra = {g.get('rank') for k in ('memory', 'memory_ops', 'memory_static', 'memory_ranks')
             for g in rep.get(k) or []} - set(want)
    if extra:
        return True, '%s: aptop has memory rows for ranks %s the files do not have' % (rel, sorted(extra))
    return True, ''


def check(aptop):
    caps = captures()
    if not caps:
        return 'no capture with memory files', True
    exact = total = 0
    empty_ok = empty = 0
    bad = []
    counts = [0, 0, 0]
    for cap, rank_dirs in sorted(caps.items()):
        has_data, err = compare_capture(aptop, cap, rank_dirs)
        if has_data is None:
            empty += 1
            empty_ok += not err
        else:
            total += 1
            exact += not err
            if not err:
                ranks = expected_ranks(rank_dirs)
                counts[0] += sum(len(r.series) for r in ranks.values())
                counts[1] += sum(len(r.ops) for r in ranks.values())
                counts[2] += sum(len(r.statics) for r in ranks.values())
        if err:
            bad.append(err)
    msg = ('%d/%d captures with memory data exact (%d curves, %d operator allocations, %d static rows, '
           'every rank compared), %d/%d with empty memory files give none'
           % (exact, total, counts[0], counts[1], counts[2], empty_ok, empty))
    pairs, ops, err = check_text_db(aptop, caps)
    msg += '; %d text/DB export pairs: %d operator allocations of equal size and totals in both' % (pairs, ops)
    if err:
        bad.append(err)
    if bad:
        msg += '; ' + bad[0]
    return msg, not bad
