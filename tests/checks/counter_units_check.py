"""Counter units in `aptop query` (counter_track.unit) against trace_view.json of the real
torch_npu captures: a counter event's only numeric arg key names the unit ("KB", "MHz"),
or holds it in parentheses at its end ("Read(MB/s)", "Hit Rate(%)"); "value", "acc_id" and
a key equal to the series' name carry none. Events with several numeric keys make one
series per key ("name/key"), each with its key's unit. A window exported (`aptop export
--window`) writes each sample with its unit as the arg key, so it reads back with its units."""
import collections, decimal, json, os, subprocess, tempfile

import checklib

CAPTURES = ['Ascend-msinsight/test/data/pytorch/text/level%d' % k for k in (0, 1, 2)]
UNIT_WORDS = {'B', 'KB', 'MB', 'GB', 'KiB', 'MiB', 'GiB', 'B/s', 'KB/s', 'MB/s', 'GB/s',
              'Hz', 'kHz', 'KHz', 'MHz', 'GHz', '%', 'W', 'mW', 'ns', 'us', 'ms', 's', 'C'}


def unit_of(key):
    if key.endswith(')') and '(' in key[:-1]:
        inner = key[key.rindex('(', 0, len(key) - 1) + 1:-1]
        if inner:
            return inner
    return key if key in UNIT_WORDS else None


def expected(root):
    want = set()
    for d in sorted(os.listdir(root)):
        if not d.endswith('_ascend_pt'):
            continue
        rank = int(d[len('rank'):-len('_ascend_pt')])
        for e in checklib.trace_events(os.path.join(root, d, 'ASCEND_PROFILER_OUTPUT', 'trace_view.json')):
            if e.get('ph') != 'C' or not isinstance(e.get('args'), dict):
                continue
            keys = [k for k, v in e['args'].items() if isinstance(v, (int, float, decimal.Decimal)) and not isinstance(v, bool)]
            for k in keys:
                want.add((rank, e.get('name', '') if len(keys) == 1 else '%s/%s' % (e.get('name', ''), k), unit_of(k)))
    return want


def check(aptop):
    done, problems, units = 0, [], collections.Counter()
    for cap in CAPTURES:
        root = os.path.join(checklib.REAL, cap)
        if not os.path.isdir(root):
            continue
        want = expected(root)
        p = subprocess.run([aptop, 'query', '--format', 'json', root, 'SELECT rank, name, unit FROM counter_track'],
                           capture_output=True, timeout=120)
        if p.returncode != 0:
            return 'query failed on %s: %s' % (cap, p.stderr.decode('utf-8', 'replace')[-200:]), False
        got = {(r['rank'], r['name'], r['unit']) for r in json.loads(p.stdout.decode('utf-8'))}
        if got != want:
            diff = sorted(got ^ want, key=str)
            problems.append('%s: %d series differ, e.g. %s' % (cap, len(diff), diff[:3]))
        for _, _, u in want:
            units[u] += 1
        done += 1
    if not done:
        return 'skipped: no torch_npu text capture found', True
    root = os.path.join(checklib.REAL, CAPTURES[1], 'rank0_ascend_pt')
    want = {(n, u) for r, n, u in expected(os.path.dirname(root)) if r == 0}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'window.json')
        with open(out, 'wb') as f:
            p = subprocess.run([aptop, 'export', '--no-cache', '--window', '0..10s', root], stdout=f,
                               stderr=subprocess.PIPE, timeout=120)
        q = subprocess.run([aptop, 'query', '--no-cache', '--format', 'json', out, 'SELECT name, unit FROM counter_track'],
                           capture_output=True, timeout=120) if p.returncode == 0 else p
        got = {(r['name'], r['unit']) for r in json.loads(q.stdout.decode('utf-8'))} if q.returncode == 0 else None
    if got != want:
        problems.append('export --window read back: %s' % (sorted(got ^ want, key=str)[:3] if got is not None
                                                            else q.stderr.decode('utf-8', 'replace')[-200:]))
    if problems:
        return '; '.join(problems), False
    if not units.get('KB') or not units.get('MHz') or not units.get('MB/s') or not units.get('%') or not units.get(None):
        return 'the captures lack a kind of unit this check expects: %s' % dict(units), False
    return '%d captures, series by unit %s' % (done, dict(sorted(units.items(), key=str))), True
