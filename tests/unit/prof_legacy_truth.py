#!/usr/bin/env python3
"""Independent figures of an older-layout msprof capture (PROF_*/device_N/timeline|summary),
read with the json and csv modules only, for tests/unit/test_prof_legacy.c.

    python3 prof_legacy_truth.py RUN_DIR

It takes the device's events from the COMPONENT timelines (task_time_*, hccl_*, step_trace_*),
never from the merged msprof_*.json aptop reads, so a double count or a missed file shows as
a difference. Prints one fact per line:
    R <rank> <device> <prof dir>
    D <rank> <name> <count> <total_ns>       device-lane (Task Scheduler) kernels
    K <rank> <name> <count> <total_ns>       op_summary rows (all iteration parts)
    C <rank> <offset_ns>                     monotonic → wall clock offset from the clock files
    S <rank> <iteration> <start_ns> <end_ns> <kernels> <busy_ns>   (wall clock)
    F <rank>|<category>|<matched ids>
    N <files a reader should read>           merged timelines + table parts
    X <slices>                               X events of the merged timelines
"""
import csv
import glob
import json
import os
import re
import sys
from decimal import Decimal


def ns(text):
    """Decimal µs text (or number) → integer ns, exactly."""
    return int((Decimal(str(text)) * 1000).to_integral_value())


def events(path):
    return json.load(open(path, encoding='utf-8'), parse_float=Decimal)


def procs(evs):
    return {e['pid']: e['args']['name'] for e in evs if e.get('ph') == 'M' and e['name'] == 'process_name'}


def clock_offset(dd, dev, t0, t1):
    """wall - monotonic from start_info.N / end_info.N when [t0, t1] lies on the monotonic
    clock (within a window's length of its collection window) and off the wall one."""
    s = json.load(open(os.path.join(dd, 'start_info.%d' % dev)))
    e = json.load(open(os.path.join(dd, 'end_info.%d' % dev)))
    w0, w1 = int(s['collectionTimeBegin']) * 1000, int(e['collectionTimeEnd']) * 1000
    m0, m1 = int(s['clockMonotonicRaw']), int(e['clockMonotonicRaw'])
    margin = m1 - m0
    mono = m0 - margin <= t0 and t1 <= m1 + margin
    wall = not (t1 < w0 - margin or t0 > w1 + margin)
    return w0 - m0 if mono and not wall else 0


def union(iv):
    tot, cur = 0, None
    for s, e in sorted(iv):
        if cur is None or s > cur[1]:
            if cur:
                tot += cur[1] - cur[0]
            cur = [s, e]
        else:
            cur[1] = max(cur[1], e)
    return tot + (cur[1] - cur[0] if cur else 0)


def main(run):
    files = slices = 0
    for prof in sorted(glob.glob(os.path.join(run, 'PROF_*'))):
        for dd in sorted(glob.glob(os.path.join(prof, 'device_*'))):
            dev = int(dd.rsplit('_', 1)[1])
            info = json.load(open(glob.glob(os.path.join(dd, 'info.json*'))[0]))
            rank = info['rank_id']
            print('R %d %d %s' % (rank, dev, os.path.basename(prof)))
            tl, sm = os.path.join(dd, 'timeline'), os.path.join(dd, 'summary')
            merged = [f for f in os.listdir(tl) if re.match(r'msprof_\d+_\d+_\d+\.json$', f)]
            files += len(merged)
            for f in merged:
                slices += sum(1 for e in events(os.path.join(tl, f)) if e.get('ph') == 'X')
            # device kernels from the task_time component timelines
            dev_k, kern = {}, []
            for f in sorted(glob.glob(os.path.join(tl, 'task_time_*.json'))):
                evs = events(f)
                pn = procs(evs)
                for e in evs:
                    if e.get('ph') == 'X' and pn.get(e['pid']) == 'Task Scheduler':
                        c = dev_k.setdefault(e['name'], [0, 0])
                        c[0] += 1
                        c[1] += ns(e['dur'])
                        kern.append((ns(e['ts']), ns(e['ts']) + ns(e['dur'])))
            for n, (c, t) in sorted(dev_k.items()):
                print('D %d %s %d %d' % (rank, n, c, t))
            off = clock_offset(dd, dev, min(k[0] for k in kern), max(k[1] for k in kern))
            kern = [(a + off, b + off) for a, b in kern]
            print('C %d %d' % (rank, off))
            # the kernel table: every op_summary part of every iteration
            tab = {}
            parts = sorted(glob.glob(os.path.join(sm, 'op_summary_*.csv')))
            files += len(parts) + len(glob.glob(os.path.join(sm, 'task_time_*.csv'))) \
                + len(glob.glob(os.path.join(sm, 'step_trace_*.csv')))
            for f in parts:
                for r in csv.DictReader(open(f, encoding='utf-8', newline='')):
                    c = tab.setdefault(r['Op Name'], [0, 0])
                    c[0] += 1
                    c[1] += ns(r['Task Duration(us)'])
            for n, (c, t) in sorted(tab.items()):
                print('K %d %s %d %d' % (rank, n, c, t))
            # steps: the Iteration slices of the step_trace component; a kernel belongs to the
            # iteration holding its start; busy = union of its kernels
            st = [e for f in glob.glob(os.path.join(tl, 'step_trace_*.json')) for e in events(f)]
            for e in sorted((e for e in st if e.get('ph') == 'X' and re.match(r'Iteration \d+$', e['name'])),
                            key=lambda e: ns(e['ts'])):
                a, b = ns(e['ts']) + off, ns(e['ts']) + ns(e['dur']) + off
                mine = [k for k in kern if a <= k[0] < b]
                if mine:
                    print('S %d %s %d %d %d %d' % (rank, e['name'].split()[1], min(k[0] for k in mine),
                                                  max(k[1] for k in mine), len(mine), union(mine)))
            # flows: ids with a start and an end (a step point ends a segment like an end)
            fl = {}
            for f in glob.glob(os.path.join(tl, '*.json')):
                if not re.match(r'msprof_', os.path.basename(f)):
                    continue
                for e in events(f):
                    if e.get('ph') in ('s', 't', 'f'):
                        fl.setdefault(e['cat'], {}).setdefault(str(e['id']), set()).add(e['ph'])
            for cat, ids in sorted(fl.items()):
                print('F %d|%s|%d' % (rank, cat, sum(1 for p in ids.values() if 's' in p and ('f' in p or 't' in p))))
    print('N %d' % files)
    print('X %d' % slices)


if __name__ == '__main__':
    main(sys.argv[1])
