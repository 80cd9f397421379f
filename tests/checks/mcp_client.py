#!/usr/bin/env python3
"""A scripted MCP client of `aptop mcp` (tests/ui/test_mcp.c runs it): initialize, tools/list,
every tool, bad arguments, a capture that cannot be loaded, and a second call answered from the
capture already loaded (its folder is removed after the first). Each tool's rows are compared
with `aptop report --format json` of the same capture, text for text (the server keeps the
report's exact digits); the query tool's with slice counts and duration sums by name
recomputed from each rank's trace_view.json (exact integer ns). Prints one line per check,
then "N passed, N failed".

  python3 tests/checks/mcp_client.py APTOP CAPTURE_DIR
"""
import collections
import decimal
import glob
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile

passed = failed = 0


def ok(cond, what):
    global passed, failed
    print(('ok   ' if cond else 'FAIL ') + what)
    if cond:
        passed += 1
    else:
        failed += 1


class Server:
    def __init__(self, aptop, paths, cache=False, env=None):
        self.p = subprocess.Popen([aptop, 'mcp'] + ([] if cache else ['--no-cache']) + paths, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.next_id = 0

    def send(self, line):
        self.p.stdin.write(line + '\n')
        self.p.stdin.flush()

    def request(self, method, params=None):
        self.next_id += 1
        msg = {'jsonrpc': '2.0', 'id': self.next_id, 'method': method}
        if params is not None:
            msg['params'] = params
        self.send(json.dumps(msg))
        reply = json.loads(self.p.stdout.readline())
        assert reply.get('id') == self.next_id, reply
        return reply

    def call(self, name, args):
        return self.request('tools/call', {'name': name, 'arguments': args})

    def close(self):
        self.p.stdin.close()
        rc = self.p.wait(timeout=60)
        return rc, self.p.stderr.read()


def report_rows(aptop, path, section):
    out = subprocess.run([aptop, 'report', '--no-cache', '--format', 'json', '--section', section, path],
                         capture_output=True, text=True, timeout=300).stdout
    return json.loads(out).get(section)


def ns(v):
    """Exact ns of decimal µs text, a half ns rounded away from zero (aptop's rule)."""
    d = decimal.Decimal(str(v).strip()) * 1000
    return int(d.to_integral_value(rounding=decimal.ROUND_HALF_UP))


def slices_by_name(capture):
    """(rank, name) -> [count, sum of dur ns] of the complete events of every rank's
    trace_view.json; the rank is the N of the folder's profiler_info_N.json."""
    out = collections.defaultdict(lambda: [0, 0])
    for info in glob.glob(os.path.join(capture, '*', 'profiler_info_*.json')):
        rank = int(os.path.basename(info)[len('profiler_info_'):-len('.json')])
        path = os.path.join(os.path.dirname(info), 'ASCEND_PROFILER_OUTPUT', 'trace_view.json')
        with open(path) as f:
            events = json.load(f, parse_float=decimal.Decimal)
        for e in events if isinstance(events, list) else events['traceEvents']:
            if e.get('ph') == 'X':
                c = out[(rank, e.get('name', ''))]
                c[0] += 1
                c[1] += ns(e.get('dur', 0))
    return out


def query_pages(s, sql, limit):
    """Every row of a query, asked a page at a time; (rows, pages, the first error reply)."""
    rows, pages, offset = [], 0, 0
    while offset is not None and pages < 1000:
        r = s.call('query', {'sql': sql, 'limit': limit, 'offset': offset})
        if 'result' not in r or r['result'].get('isError'):
            return rows, pages, r
        sc = r['result']['structuredContent']
        rows += sc['rows']
        pages += 1
        offset = sc['next_offset']
    return rows, pages, None


def files_under(root):
    return sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs)


def cache_inside(aptop, copy):
    """An index cache folder inside the capture (XDG_CACHE_HOME there): the server answers
    without the cache, says so on stderr, and writes nothing into the capture."""
    before = files_under(copy)
    s = Server(aptop, [copy], cache=True, env=dict(os.environ, XDG_CACHE_HOME=os.path.join(copy, 'cache')))
    s.request('initialize', {'protocolVersion': '2025-06-18'})
    r = s.call('kernels', {'limit': 1})
    rc, err = s.close()
    ok(not r['result'].get('isError') and r['result']['structuredContent']['sections']['kernels'],
       'with the cache folder inside the capture, the server still answers')
    ok(files_under(copy) == before, 'and writes nothing into the capture')
    ok('inside the capture' in err, 'and says on stderr why the cache is off')


def vm_size(pid):
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            if line.startswith('VmSize:'):
                return int(line.split()[1]) * 1024
    return 0


def short_of_memory(aptop, tmp, capture):
    """A capture that does not fit in memory: the server's address space capped 8 MiB above
    what it has once started (under AddressSanitizer, which reserves terabytes of address
    space, a 6 MiB cap per allocation instead: the CSV reader's 4 MiB pieces fit, the
    timeline's arrays do not), then a 48 MB trace and a small kernel table
    opened. The table fits, the timeline does not: the answer keeps what was read and says
    "out of memory: figures incomplete", never a plain failure, and the server goes on."""
    cap = os.path.join(tmp, 'big')
    out = os.path.join(cap, 'rank0_ascend_pt', 'ASCEND_PROFILER_OUTPUT')
    os.makedirs(out)
    gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'bench', 'gen_trace.py')
    subprocess.run([sys.executable, gen, '48M', os.path.join(out, 'trace_view.json')], check=True,
                   capture_output=True, timeout=300)
    for k in glob.glob(os.path.join(capture, '*', 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv'))[:1]:
        shutil.copy(k, out)
    env = dict(os.environ, APTOP_NO_MEMCHECK='1',   # past the estimate: the readers meet the limit
               ASAN_OPTIONS='allocator_may_return_null=1:max_allocation_size_mb=6:detect_leaks=0')
    s = Server(aptop, [], env=env)
    s.request('initialize', {'protocolVersion': '2025-06-18'})
    vm = vm_size(s.p.pid)
    if vm < 1 << 40:   # not under AddressSanitizer
        resource.prlimit(s.p.pid, resource.RLIMIT_AS, (vm + (12 << 20), vm + (12 << 20)))
    r = s.call('open_capture', {'path': cap, 'limit': 2}).get('result', {})
    text = r.get('content', [{}])[0].get('text', '')
    flag = (r.get('structuredContent') or {}).get('incomplete', '')
    ok(not r.get('isError') and flag.startswith('out of memory: figures incomplete'),
       'short of memory: the answer keeps what was read and says the figures are incomplete (%s)'
       % (flag or text)[:160])
    r = s.request('ping')
    rc, err = s.close()
    ok(r.get('result') == {} and rc == 0, 'short of memory: the server goes on (status %d)' % rc)
    ok('out of memory' in err, 'short of memory: stderr names what was not read')


def main(aptop, capture):
    tmp = tempfile.mkdtemp(prefix='aptop-mcp-')
    try:
        copy = os.path.join(tmp, 'capture')
        shutil.copytree(capture, copy)
        s = Server(aptop, [copy])
        r = s.request('initialize', {'protocolVersion': '2025-06-18', 'capabilities': {},
                                     'clientInfo': {'name': 'test', 'version': '1'}})
        ok(r['result']['protocolVersion'] == '2025-06-18', 'initialize answers the version asked')
        ok('tools' in r['result']['capabilities'], 'initialize says it has tools')
        s.send(json.dumps({'jsonrpc': '2.0', 'method': 'notifications/initialized'}))
        r = s.request('initialize', {'protocolVersion': '1999-01-01'})
        ok(r['result']['protocolVersion'] == '2025-06-18', 'an unknown version is answered with the server\'s')
        tools = {t['name']: t for t in s.request('tools/list')['result']['tools']}
        want = {'open_capture', 'overview', 'advice', 'kernels', 'steps', 'ranks', 'memory', 'diff',
                'find_slices', 'query', 'export_window'}
        ok(want <= set(tools), 'tools/list names every tool: %s' % sorted(want - set(tools)))
        ok(all(t['inputSchema']['type'] == 'object' for t in tools.values()), 'every tool has an input schema')

        # report sections, a page at a time, equal to the report's rows
        for tool, sections in (('overview', ['overview']), ('advice', ['advice']), ('kernels', ['kernels']),
                               ('steps', ['steps', 'phases']), ('ranks', ['ranks', 'comm']), ('memory', ['memory'])):
            r = s.call(tool, {'limit': 3})
            res = r.get('result', {})
            ok(not res.get('isError') and 'structuredContent' in res, tool + ' answers')
            sc = res.get('structuredContent', {})
            ok(json.loads(res['content'][0]['text']) == sc if res.get('content') else False,
               tool + ': the text is the structured content')
            for sec in sections:
                rows = report_rows(aptop, capture, sec)
                got = sc.get('sections', {}).get(sec)
                if isinstance(rows, list):
                    ok(got == rows[:3], '%s: %s rows 0..2 equal the report\'s' % (tool, sec))
                    if len(rows) > 3:
                        ok(sc.get('next_offset') == 3, '%s: next_offset says more rows' % tool)
                        r2 = s.call(tool, {'offset': 3, 'limit': 3})['result']['structuredContent']
                        ok(r2['sections'][sec] == rows[3:6], '%s: %s next page equals the report\'s' % (tool, sec))
                else:
                    ok(got == rows, '%s: %s equals the report\'s' % (tool, sec))
        # find_slices against the report's kernel counts: one kernel name's instances
        k = report_rows(aptop, capture, 'kernels')[0]
        r = s.call('find_slices', {'pattern': '^%s$' % k['name'], 'rank': k.get('rank', 0), 'limit': 1000})
        sc = r['result']['structuredContent']
        ok(sc['matched'] >= k['count'], 'find_slices finds every %s (%d, kernels says %d)' % (k['name'], sc['matched'], k['count']))
        ok(all(row['name'] == k['name'] for row in sc['sections']['slices']), 'find_slices rows match the pattern')
        out = os.path.join(tmp, 'window.json')
        r = s.call('export_window', {'window': '0ms..1ms', 'out': out})
        ok(not r['result']['isError'] and os.path.isfile(out), 'export_window writes the file')
        with open(out) as f:
            ok(isinstance(json.load(f)['traceEvents'], list), 'the exported window is a Chrome trace')
        r = s.call('export_window', {'window': '0ms..1ms', 'out': os.path.join(copy, 'w.json')})
        ok(r['result']['isError'], 'export_window refuses a file inside the capture')

        # query: the engine of `aptop query`, a page at a time, against the trace files
        q = tools.get('query', {}).get('inputSchema', {}).get('properties', {})
        ok('integer ns' in q.get('sql', {}).get('description', '') and 'limit' in q,
           'the query tool\'s schema says times are integer ns and takes a limit')
        want_names = slices_by_name(capture)
        rows, pages, err = query_pages(s, 'SELECT rank, name, count(*) AS n, sum(dur) AS total FROM slice '
                                          'GROUP BY rank, name ORDER BY rank, name', 40)
        got = {(r['rank'], r['name']): [r['n'], r['total']] for r in rows}
        ok(err is None and got == dict(want_names) and len(rows) == len(want_names),
           'query: slice counts and dur sums of %d (rank, name) pairs equal the trace files\' (%d pages of 40)%s'
           % (len(want_names), pages, '' if err is None else ': %s' % err))
        ok(pages == (len(want_names) + 39) // 40, 'query: next_offset pages through every row once')
        r = s.call('query', {'sql': 'SELECT count(*) AS n FROM slice', 'limit': 1})
        total = sum(c[0] for c in want_names.values())
        ok(r['result']['structuredContent']['rows'] == [{'n': total}] and
           r['result']['structuredContent']['columns'] == ['n'], 'query: %d slices in all' % total)
        r = s.call('query', {'sql': 'SELEC name FROM slice'})
        ok(r.get('error', {}).get('code') == -32602 and 'sql' in r['error'].get('message', ''),
           'query: bad SQL is error -32602 naming the argument')
        r = s.call('query', {'sql': 'SELECT x FROM no_such_table'})
        ok(r.get('error', {}).get('code') == -32602 and 'no_such_table' in r['error'].get('message', ''),
           'query: an unknown table is error -32602 naming it')
        r = s.call('query', {'limit': 5})
        ok(r.get('error', {}).get('code') == -32602, 'query: a missing sql is error -32602')

        # bad arguments: JSON-RPC errors, and the server goes on
        r = s.call('kernels', {'limit': 'ten'})
        ok(r.get('error', {}).get('code') == -32602, 'a bad argument is error -32602')
        r = s.call('find_slices', {})
        ok(r.get('error', {}).get('code') == -32602, 'a missing argument is error -32602')
        r = s.call('find_slices', {'pattern': '('})
        ok(r.get('error', {}).get('code') == -32602, 'a bad regular expression is error -32602')
        r = s.call('no_such_tool', {})
        ok(r.get('error', {}).get('code') == -32602, 'an unknown tool is error -32602')
        r = s.request('no/such/method')
        ok(r.get('error', {}).get('code') == -32601, 'an unknown method is error -32601')
        s.send('this is not json')
        r = json.loads(s.p.stdout.readline())
        ok(r.get('error', {}).get('code') == -32700 and r.get('id') is None, 'a line that is not JSON is error -32700')
        r = s.call('open_capture', {'path': os.path.join(tmp, 'nothing-here')})
        ok(r['result']['isError'] and 'nothing-here' in r['result']['content'][0]['text'],
           'a capture that cannot be loaded is a tool error naming it')
        r = s.call('diff', {'base': copy, 'new': copy, 'limit': 2})
        ok(not r['result'].get('isError') and r['result']['structuredContent']['sections'], 'diff answers')

        cache_inside(aptop, copy)
        short_of_memory(aptop, tmp, capture)

        # the capture stays loaded: its folder gone, a second call is still answered
        shutil.rmtree(copy)
        r = s.call('kernels', {'limit': 1})
        ok(not r['result'].get('isError') and r['result']['structuredContent']['sections']['kernels'],
           'a second call is answered from the capture already loaded')
        r = s.call('query', {'sql': 'SELECT rank, count(*) AS n, sum(dur) AS total FROM slice GROUP BY rank '
                                    'ORDER BY rank'})
        per_rank = collections.defaultdict(lambda: [0, 0])
        for (rank, _), (n, d) in want_names.items():
            per_rank[rank][0] += n
            per_rank[rank][1] += d
        ok(not r['result'].get('isError') and {x['rank']: [x['n'], x['total']] for x in
                                               r['result']['structuredContent']['rows']} == dict(per_rank),
           'a second query is answered from the capture already loaded, equal to the files\'')
        r = s.request('ping')
        ok(r.get('result') == {}, 'ping')
        rc, err = s.close()
        ok(rc == 0, 'the server ends with its input (status %d)' % rc)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1], sys.argv[2]))
