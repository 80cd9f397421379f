"""What every independent check shares: finding the real captures and aptop, running
`aptop report --format json`, and exact decimal arithmetic.

The checks in this folder recompute aptop's figures from the capture files themselves
(json, gzip, csv and sqlite3 modules only, none of aptop's code) and compare. Each module
has a `check(aptop)` returning (message, ok). Run them all with `make acceptance`.
"""
import decimal, glob, gzip, json, os, subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
REAL = os.path.normpath(os.environ.get('APTOP_REAL') or os.path.join(ROOT, '..', 'shared', 'real'))


def real_dir():
    """The folder of real captures, or None when this machine has none."""
    return REAL if os.path.isdir(REAL) else None


def real_glob(pattern):
    return sorted(glob.glob(os.path.join(REAL, pattern), recursive=True))


def find_binary():
    for c in (os.environ.get('APTOP_BIN') or '', os.path.join(ROOT, 'build', 'aptop')):
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return os.path.abspath(c)
    return None


def report(aptop, paths, sections, extra=()):
    """The report's JSON with every number as a Decimal (exact, as printed), or
    (None, why) when aptop gave none."""
    if isinstance(paths, str):
        paths = [paths]
    try:
        p = subprocess.run([aptop, 'report', '--format', 'json', '--section', sections, *extra, *paths],
                           capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return None, 'timeout'
    try:
        return json.loads(p.stdout.decode('utf-8', 'replace'), parse_float=decimal.Decimal), ''
    except ValueError:
        return None, 'exit %d: %s' % (p.returncode, p.stderr.decode('utf-8', 'replace').strip()[-200:])


def ns(v):
    """Integer ns from decimal µs text or number, exact (no float on the way)."""
    if v is None:
        return None
    d = decimal.Decimal(str(v).strip())
    return int((d * 1000).to_integral_value(rounding=decimal.ROUND_HALF_UP))   # half away from zero, as aptop (timeparse.c)


def load_json(path):
    """A JSON file, gzipped or not (decided by the magic bytes), numbers kept exact."""
    with open(path, 'rb') as f:
        raw = f.read()
    if raw[:2] == b'\x1f\x8b':
        raw = gzip.decompress(raw)
    text = raw.decode('utf-8', 'replace')
    try:
        return json.loads(text, parse_float=decimal.Decimal)
    except ValueError:
        # a trace cut after its last event: close the array
        return json.loads(text.rstrip().rstrip(',') + ']', parse_float=decimal.Decimal)


def trace_events(path):
    d = load_json(path)
    return d.get('traceEvents', []) if isinstance(d, dict) else d


def union_total(intervals):
    """Length of the union of [a, b) intervals."""
    total, lo, hi = 0, None, None
    for a, b in sorted(intervals):
        if hi is None or a > hi:
            if hi is not None:
                total += hi - lo
            lo, hi = a, b
        elif b > hi:
            hi = b
    if hi is not None:
        total += hi - lo
    return total
