#!/usr/bin/env python3
"""A scripted MCP client of `aptop mcp` (tests/ui/test_mcp.c runs it): initialize, tools/list,
every tool, bad arguments, a capture that cannot be loaded, and a second call answered from the
capture already loaded (its folder is removed after the first). Each tool's rows are compared
with `aptop report --format json` of the same capture, text for text (the server keeps the
report's exact digits). Prints one line per check, then "N passed, N failed".

  python3 tests/checks/mcp_client.py APTOP CAPTURE_DIR
"""
import json
import os
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
    def __init__(self, aptop, paths):
        self.p = subprocess.Popen([aptop, 'mcp', '--no-cache'] + paths, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
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
                'find_slices', 'export_window'}
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

        # the capture stays loaded: its folder gone, a second call is still answered
        shutil.rmtree(copy)
        r = s.call('kernels', {'limit': 1})
        ok(not r['result'].get('isError') and r['result']['structuredContent']['sections']['kernels'],
           'a second call is answered from the capture already loaded')
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
