#!/usr/bin/env python3
"""Writes an older-layout msprof capture and discovery cases around it.

    python3 tools/gen_prof_fixtures.py OUTDIR

OUTDIR/prof_legacy   site/cluster/node-a/2026-01-19/run1/ holds two PROF_* trees (two ranks of
                     one job, one device each) in the older per-device layout:
                       device_N/timeline/msprof_<dev>_<model>_<iter>.json   the merged timeline
                         of one iteration, beside the component timelines it merges
                         (task_time_*, hccl_*, step_trace_*)
                       device_N/summary/op_summary_*, task_time_* per iteration, step_trace_*
                       device_N/info.json.N, start_info.N, end_info.N; host/ the same;
                       rank 1's times are on the host's monotonic clock (its clock files map
                       them to the wall clock rank 0 is written in)
                     beside them non-data loose files; site/other_job/ holds an unrelated
                     one-rank capture (newer layout) that must not become a third rank.
OUTDIR/prof_ms       a MindSpore profiler folder: two PROF_* trees (device 0 and 1 of one job)
                     whose merged timelines are shaped as msprof wrote them for MindSpore: float
                     ts on the host's monotonic clock, the step trace as the thread
                     "Step Trace(Model ID:1)" of the process "Ascend Hardware" (Iteration N,
                     FP_BP Time N, Iteration Refresh N, Reduce_N_0), a kernel between two
                     iterations, the HCCL process's ops on "Communication Kernel" and their
                     tasks on "Plane 0/1"; beside them MindSpore's own analysed files: two
                     display timelines on different clocks (one from 0, one in Unix µs) and
                     tables aptop does not read (framework_raw_0.csv, step_trace_raw_0_...).

EXPECTED.json lists what the generator put where. The figures are not written there: the
test recomputes every one from the files with an independent Python reading. Standard
library only; deterministic.
"""
import json
import os
import random
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_fixtures import BASE_NS, csv_text, dumps_events, dur_us, us, write  # noqa: E402

SEED = 20260120
# (name, task type, decode µs) of one iteration on the compute stream; one collective
ITER_KERNELS = [('GatherV2', 'AI_VECTOR_CORE', 4.8), ('RmsNorm', 'AI_VECTOR_CORE', 6.2),
                ('MatMulV2', 'AI_CORE', 38.5), ('IncreFlashAttention', 'AI_CORE', 22.0),
                ('MatMulV2', 'AI_CORE', 18.3), ('hcom_allReduce__431_%d_1', 'HCCL', 31.0),
                ('AddRmsNorm', 'AI_VECTOR_CORE', 7.0), ('MatMulV2', 'AI_CORE', 55.2),
                ('SwiGlu', 'AI_VECTOR_CORE', 8.3), ('ArgMaxV2', 'AI_VECTOR_CORE', 9.5)]
ITERATIONS = 3
MODEL_ID = 1
MONO_OFFSET = 1_700_000_000_000_000_000   # wall clock minus the host's raw monotonic clock, ns
PIDS = {'CANN': 2000, 'Task Scheduler': 3000, 'HCCL': 4000, 'Step Trace': 5000}
STREAM = 5
OPSUM = ['Device_id', 'Model ID', 'Task ID', 'Stream ID', 'Op Name', 'OP Type', 'Task Type',
         'Task Start Time(us)', 'Task Duration(us)', 'Task Wait Time(us)', 'Block Dim']
TASK_TIME = ['Device_id', 'kernel_name', 'kernel_type', 'stream_id', 'task_id', 'task_time(us)',
             'task_start(us)', 'task_stop(us)']
STEP_TRACE = ['Device_id', 'Iteration ID', 'FP Start(us)', 'BP End(us)', 'Iteration End(us)',
              'Iteration Time(us)', 'FP to BP Time(us)', 'Iteration Refresh(us)', 'Data Aug Bound(us)',
              'Model ID', 'Reduce Start(us)', 'Reduce Duration(us)']


def meta(pid, name, threads):
    ev = [{'name': 'process_name', 'ph': 'M', 'pid': pid, 'tid': 0, 'args': {'name': name}}]
    for tid, tname in threads:
        ev.append({'name': 'thread_name', 'ph': 'M', 'pid': pid, 'tid': tid, 'args': {'name': tname}})
    return ev


def simulate(dev, rng, clock_ns):
    """One device, ITERATIONS iterations: kernels, CANN launches, step-trace figures."""
    iters = []
    t = clock_ns + 2_000_000
    task_id = 100
    for it in range(1, ITERATIONS + 1):
        host = t - 40_000
        start = t
        ks, launches = [], []
        for name, ttype, dec in ITER_KERNELS:
            dur = int(round(dec * 1000 * (1 + rng.uniform(-0.05, 0.05))))
            if '%d' in name:
                name = name % (it - 1)
            launch = host
            host += 9_000 + rng.randint(0, 2_000)
            t = max(t, launch + 30_000) + 1_500 + rng.randint(0, 800)
            k = {'name': name, 'type': ttype, 'start': t, 'dur': dur, 'task_id': task_id, 'conn': dev * 10000 + task_id,
                 'launch': launch, 'launch_dur': 6_000}
            task_id += 1
            ks.append(k)
            t += dur
        end = t + 3_000
        fp, bp = start + 1_000, ks[-2]['start'] + ks[-2]['dur']
        iters.append({'id': it, 'start': start, 'end': end, 'fp': fp, 'bp': bp, 'kernels': ks,
                      'data_aug': 12_000 + it * 1_000})
        t = end + 180_000 + rng.randint(0, 20_000)
    return iters


def component_events(dev, it):
    """The component timelines of one iteration: task_time, hccl, and the CANN launches."""
    task, hccl, cann = [], [], []
    for k in it['kernels']:
        if k['type'] == 'HCCL':
            hccl.append({'name': k['name'], 'ph': 'X', 'pid': PIDS['HCCL'], 'tid': 0, 'ts': us(k['start']),
                         'dur': dur_us(k['dur']), 'args': {'connection_id': k['conn']}})
        else:
            task.append({'name': k['name'], 'ph': 'X', 'pid': PIDS['Task Scheduler'], 'tid': STREAM,
                         'ts': us(k['start']), 'dur': dur_us(k['dur']),
                         'args': {'Task Type': k['type'], 'Stream Id': STREAM, 'Task Id': k['task_id']}})
        cann.append({'name': 'Node@launch', 'ph': 'X', 'pid': PIDS['CANN'], 'tid': 7000 + dev, 'ts': us(k['launch']),
                     'dur': dur_us(k['launch_dur']), 'args': {'connection_id': k['conn']}})
        dst = (PIDS['HCCL'], 0) if k['type'] == 'HCCL' else (PIDS['Task Scheduler'], STREAM)
        cann.append({'name': 'HostToDevice%d' % k['conn'], 'ph': 's', 'cat': 'HostToDevice', 'id': str(k['conn']),
                     'pid': PIDS['CANN'], 'tid': 7000 + dev, 'ts': us(k['launch'] + 1_000)})
        cann.append({'name': 'HostToDevice%d' % k['conn'], 'ph': 'f', 'bp': 'e', 'cat': 'HostToDevice',
                     'id': str(k['conn']), 'pid': dst[0], 'tid': dst[1], 'ts': us(k['start'])})
    return task, hccl, cann


def step_trace_events(it):
    """The Step Trace lane of one iteration, as msprof writes it: the iteration, FP to BP,
    the refresh, and the data augmentation bound as an s/t flow pair."""
    pid, tid, n = PIDS['Step Trace'], MODEL_ID, it['id']
    iter_time = it['end'] - it['start']
    return [
        {'name': 'Iteration %d' % n, 'ph': 'X', 'pid': pid, 'tid': tid, 'ts': us(it['start']), 'dur': dur_us(iter_time),
         'cat': 'Iteration Time', 'args': {'Iteration ID': n, 'FP Start': us(it['fp']), 'BP End': us(it['bp']),
                                           'Iteration End': us(it['end']), 'Iteration Time(us)': dur_us(iter_time)}},
        {'name': 'FP_BP Time %d' % n, 'ph': 'X', 'pid': pid, 'tid': tid, 'ts': us(it['fp']),
         'dur': dur_us(it['bp'] - it['fp']), 'cat': 'FP_BP Time', 'args': {'Iteration ID': n}},
        {'name': 'Iteration Refresh %d' % n, 'ph': 'X', 'pid': pid, 'tid': tid, 'ts': us(it['bp']),
         'dur': dur_us(it['end'] - it['bp']), 'cat': 'Iteration Refresh', 'args': {'Iteration ID': n}},
        {'name': 'Data_aug Bound %d' % n, 'ph': 's', 'cat': 'Data_aug Bound', 'id': 'Data_aug Bound %d' % n,
         'pid': pid, 'tid': tid, 'ts': us(it['end'] - 1_000)},
        {'name': 'Data_aug Bound %d' % n, 'ph': 't', 'cat': 'Data_aug Bound', 'id': 'Data_aug Bound %d' % n,
         'pid': pid, 'tid': tid, 'ts': us(it['end'] - 1_000 + it['data_aug'] // 100)},
    ]


META = (meta(PIDS['CANN'], 'CANN', []) + meta(PIDS['Task Scheduler'], 'Task Scheduler', [(STREAM, 'Stream %d' % STREAM)])
        + meta(PIDS['HCCL'], 'HCCL', [(0, 'Plane 0')]) + meta(PIDS['Step Trace'], 'Step Trace', [(MODEL_ID, 'Model ID:1')]))


def clock_files(d, dev, rank, clock_ns, suffix):
    """info.json.N / start_info.N / end_info.N: collection time on the host's wall clock and
    its monotonic raw clock (ns), the device's counter and frequency."""
    write(os.path.join(d, 'info.json' + suffix), json.dumps({
        'jobInfo': 'NA', 'devices': str(dev), 'rank_id': rank, 'pid': 31000 + rank,
        'DeviceInfo': [{'id': dev, 'hwts_frequency': '50', 'aic_frequency': '1800'}]}))
    write(os.path.join(d, 'start_info' + suffix), json.dumps({
        'collectionDateBegin': '2026-01-19 02:40:00', 'collectionTimeBegin': str(clock_ns // 1000),
        'clockMonotonicRaw': str(clock_ns - MONO_OFFSET), 'cntvct': str(88_000_000 + rank)}))
    write(os.path.join(d, 'end_info' + suffix), json.dumps({
        'collectionDateEnd': '2026-01-19 02:40:03', 'collectionTimeEnd': str(clock_ns // 1000 + 3_000_000),
        'clockMonotonicRaw': str(clock_ns - MONO_OFFSET + 3_000_000_000)}))


def gen_prof(run, prof, dev, rank, rng, monotonic=False):
    """monotonic: the device's times are written on the host's raw monotonic clock (as older
    exports did); its start_info/end_info map them to the wall clock."""
    clock_ns = BASE_NS + rank * 1_713
    iters = simulate(dev, rng, clock_ns - (MONO_OFFSET if monotonic else 0))
    base = os.path.join(run, prof)
    dd = os.path.join(base, 'device_%d' % dev)
    tl, sm = os.path.join(dd, 'timeline'), os.path.join(dd, 'summary')
    steps = []
    for it in iters:
        task, hccl, cann = component_events(dev, it)
        st = step_trace_events(it)
        sfx = '%d_%d_%d' % (dev, MODEL_ID, it['id'])
        write(os.path.join(tl, 'msprof_%s.json' % sfx), dumps_events(META + cann + task + hccl + st))
        write(os.path.join(tl, 'task_time_%s.json' % sfx), dumps_events(meta(PIDS['Task Scheduler'], 'Task Scheduler',
                                                                               [(STREAM, 'Stream %d' % STREAM)]) + task))
        write(os.path.join(tl, 'hccl_%s.json' % sfx), dumps_events(meta(PIDS['HCCL'], 'HCCL', [(0, 'Plane 0')]) + hccl))
        rows = [[dev, MODEL_ID, k['task_id'], STREAM if k['type'] != 'HCCL' else 'N/A', k['name'],
                 k['name'].split('__')[0], k['type'], us(k['start']), '%.3f' % dur_us(k['dur']), '0', 8]
                for k in it['kernels']]
        write(os.path.join(sm, 'op_summary_%s.csv' % sfx), csv_text(OPSUM, rows), newline='')
        tt = [[dev, k['name'], k['type'], STREAM, k['task_id'], '%.3f' % dur_us(k['dur']), us(k['start']),
               us(k['start'] + k['dur'])] for k in it['kernels'] if k['type'] != 'HCCL']
        write(os.path.join(sm, 'task_time_%s.csv' % sfx), csv_text(TASK_TIME, tt), newline='')
        steps.append(it)
    write(os.path.join(tl, 'step_trace_%d_%d.json' % (dev, MODEL_ID)),
          dumps_events(meta(PIDS['Step Trace'], 'Step Trace', [(MODEL_ID, 'Model ID:1')])
                       + [e for it in iters for e in step_trace_events(it)]))
    write(os.path.join(sm, 'step_trace_%d_%d.csv' % (dev, MODEL_ID)), csv_text(STEP_TRACE, [
        [dev, it['id'], us(it['fp']), us(it['bp']), us(it['end']), '%.3f' % dur_us(it['end'] - it['start']),
         '%.3f' % dur_us(it['bp'] - it['fp']), '%.3f' % dur_us(it['end'] - it['bp']), '%.3f' % dur_us(it['data_aug']),
         MODEL_ID, 'N/A', 'N/A'] for it in iters]), newline='')
    write(os.path.join(sm, 'hccl_%d_%d_1.csv' % (dev, MODEL_ID)),
          csv_text(['Op Name', 'Start Time(us)', 'Duration(us)'],
                   [[k['name'], us(k['start']), '%.3f' % dur_us(k['dur'])] for it in iters for k in it['kernels']
                    if k['type'] == 'HCCL']), newline='')
    clock_files(dd, dev, rank, clock_ns, '.%d' % dev)
    clock_files(os.path.join(base, 'host'), dev, rank, clock_ns, '')
    os.makedirs(os.path.join(dd, 'data'), exist_ok=True)
    os.makedirs(os.path.join(base, 'host', 'data'), exist_ok=True)
    write(os.path.join(dd, 'data', 'ts_track.data.%d.slice_0' % dev), b'\0' * 64)
    return {'prof': prof, 'device': dev, 'rank': rank, 'iterations': len(iters), 'monotonic_clock': monotonic}


def gen_legacy(out):
    root = os.path.join(out, 'prof_legacy')
    shutil.rmtree(root, ignore_errors=True)
    run_rel = os.path.join('site', 'cluster', 'node-a', '2026-01-19', 'run1')
    run = os.path.join(root, run_rel)
    rng = random.Random(SEED)
    ranks = [gen_prof(run, 'PROF_000001_20260119024000123_AAAABBBBCCCCDDDD', 0, 0, rng),
             gen_prof(run, 'PROF_000002_20260119024000131_EEEEFFFFGGGGHHHH', 1, 1, rng, monotonic=True)]
    write(os.path.join(run, 'README.txt'), 'Two processes of one job, msprof --export=on (older layout).\n')
    write(os.path.join(run, 'topology.json'), json.dumps({'nodes': ['node-a'], 'devices': [0, 1]}))
    # an unrelated capture elsewhere under the same root: its own job, one rank
    other = os.path.join(root, 'site', 'other_job', 'PROF_000009_20251201101010101_ZZZZYYYYXXXXWWWW')
    rng2 = random.Random(SEED + 1)
    its = simulate(0, rng2, BASE_NS - 86_400_000_000_000)
    evs = list(META)
    for it in its:
        task, hccl, cann = component_events(0, it)
        evs += task + hccl + cann + step_trace_events(it)
    write(os.path.join(other, 'mindstudio_profiler_output', 'msprof_20251201101011.json'), dumps_events(evs))
    exp = {'fixture': 'prof_legacy', 'class': 'B', 'run': run_rel, 'rank_count': 2, 'ranks': ranks,
           'other_captures': [os.path.relpath(other, root)],
           'merged_glob': 'device_*/timeline/msprof_*_*_*.json',
           'component_prefixes': ['task_time_', 'hccl_', 'step_trace_'],
           'loose_files': ['README.txt', 'topology.json'],
           'note': 'figures are recomputed by the test from the files; nothing here is a figure'}
    write(os.path.join(root, 'EXPECTED.json'), json.dumps(exp, indent=1))


MS_MONO_NS = 56_635_000_000_000          # the device's first time on the host's monotonic clock, in ns
MS_WALL_US = 1_692_340_024_000_000        # the collection's start on the wall clock, in µs
MS_KERNELS = [('Cast-op1', 3, 12_340), ('Conv2D-op2', 3, 88_120), ('MatMul-op3', 3, 41_500),
              ('ApplyMomentum-op4', 2, 9_870)]


def fus(ns):
    """ns → µs as msprof's float ts (2 decimals)."""
    return round(ns / 1000, 2)


def ms_device(prof_dir, dev, skew_ns, collect_ns):
    """One device of the MindSpore job: 3 iterations, each file msprof_<dev>_1_<iter>.json;
    its times skew_ns after device 0's, its collection started collect_ns after device 0's."""
    dd = os.path.join(prof_dir, 'device_%d' % dev)
    hw, hccl, st_tid = 3, 1003611, 10036
    meta_ev = (meta(hw, 'Ascend Hardware', [(2, 'Stream 2'), (3, 'Stream 3'), (st_tid, 'Step Trace(Model ID:1)')])
               + meta(hccl, 'HCCL', [(0, 'Plane 0'), (1, 'Plane 1'), (70000, 'Communication Kernel')]))
    t = MS_MONO_NS + skew_ns
    for it in range(1, 4):
        evs, it_start = list(meta_ev), t
        t += 6_130                                   # the iteration starts before its first kernel
        fp = t
        for name, stream, dur in MS_KERNELS:
            evs.append({'name': 'Default/' + name, 'pid': hw, 'tid': stream, 'ts': fus(t), 'dur': dur / 1000,
                        'ph': 'X', 'args': {'Task Type': 'AI_CORE'}})
            t += dur + 1_010
        bp = t
        # the AllReduce: its tasks on Plane 0 (wait, copy, reduce, record) and Plane 1
        op_start, tasks = t, [('Notify_Wait', 2_000 + 700 * it + 50 * dev), ('Memcpy', 5_210),
                              ('Reduce_Inline', 3_330), ('Notify_Record', 40)]
        tt = t + 10
        for name, dur in tasks:
            evs.append({'name': name, 'pid': hccl, 'tid': 0, 'ts': fus(tt), 'dur': dur / 1000, 'ph': 'X',
                        'args': {'task type': name, 'transport type': 'SDMA', 'size(Byte)': 4096}})
            evs.append({'name': 'REDUCE_ASYNC_V2' if name == 'Reduce_Inline' else name.upper(), 'pid': hw, 'tid': 3,
                        'ts': fus(tt), 'dur': dur / 1000, 'ph': 'X'})
            tt += dur + 20
        evs.append({'name': 'Notify_Wait', 'pid': hccl, 'tid': 1, 'ts': fus(op_start + 30), 'dur': 1.5, 'ph': 'X'})
        op_dur = tt - op_start + 10
        evs.append({'name': 'Default/AllReduce-op9_0', 'pid': hccl, 'tid': 70000, 'ts': fus(op_start),
                    'dur': op_dur / 1000, 'ph': 'X'})
        t = op_start + op_dur + 500
        end = t + 4_000                              # and ends after its last kernel
        for name, a, d in (('Iteration %d' % it, it_start, end - it_start), ('FP_BP Time %d' % it, fp, bp - fp),
                           ('Iteration Refresh %d' % it, bp, end - bp), ('Reduce_%d_0' % it, op_start, op_dur)):
            evs.append({'name': name, 'pid': hw, 'tid': st_tid, 'ts': fus(a), 'dur': d / 1000, 'ph': 'X',
                        'args': {'Iteration ID': it}})
        evs.append({'name': 'Data_aug Bound %d' % it, 'cat': 'Data_aug Bound', 'ph': 's', 'ts': fus(end), 'pid': hw,
                    'tid': st_tid, 'id': 'Data_aug Bound %d' % it, 'args': {'Iteration ID': it}})
        evs.append({'name': 'Data_aug Bound %d' % it, 'cat': 'Data_aug Bound', 'ph': 't', 'ts': fus(end), 'pid': hw,
                    'tid': st_tid, 'id': 'Data_aug Bound %d' % it, 'args': {'Data_aug Bound(us)': 0}})
        # between two iterations: a kernel no step holds
        evs.append({'name': 'Default/MemSet-op7', 'pid': hw, 'tid': 2, 'ts': fus(end + 2_000), 'dur': 0.75, 'ph': 'X'})
        t = end + 30_000
        write(os.path.join(dd, 'timeline', 'msprof_%d_1_%d.json' % (dev, it)), json.dumps(evs))
        write(os.path.join(dd, 'timeline', 'hccl_%d_1_%d.json' % (dev, it)),
              json.dumps([e for e in evs if e.get('pid') == hccl]))
    mono0 = MS_MONO_NS + collect_ns - 50_000_000
    wall0 = MS_WALL_US + collect_ns // 1000
    write(os.path.join(dd, 'info.json.%d' % dev), json.dumps({'jobInfo': 'NA', 'devices': str(dev), 'rank_id': dev,
                                                             'DeviceInfo': [{'id': dev}]}))
    write(os.path.join(dd, 'start_info.%d' % dev), json.dumps({
        'collectionDateBegin': '2023-08-18 14:27:04', 'collectionTimeBegin': str(wall0), 'clockMonotonicRaw': str(mono0)}))
    write(os.path.join(dd, 'end_info.%d' % dev), json.dumps({
        'collectionDateEnd': '2023-08-18 14:28:04', 'collectionTimeEnd': str(wall0 + 60_000_000),
        'clockMonotonicRaw': str(mono0 + 60_000_000_000)}))


def gen_mindspore(out):
    root = os.path.join(out, 'prof_ms')
    shutil.rmtree(root, ignore_errors=True)
    prof = os.path.join(root, 'profiler')
    ms_device(os.path.join(prof, 'PROF_000001_20230818142704322_AAAABBBBCCCCDDDD'), 0, 0, 0)
    ms_device(os.path.join(prof, 'PROF_000001_20230818142704567_EEEEFFFFGGGGHHHH'), 1, 29_050, 245_000_000)
    # MindSpore's analysed files beside them: a display timeline counted from 0, another in Unix µs
    write(os.path.join(prof, 'ascend_timeline_display_0.json'), json.dumps([
        {'name': 'InitData', 'ph': 'X', 'tid': '0', 'ts': 0.0, 'dur': 160.0, 'pid': 9000},
        {'name': 'GetNext', 'ph': 'X', 'tid': '0', 'ts': 6042139.0, 'dur': 518.0, 'pid': 9000},
        {'name': 'AssignAdd-op142', 'ph': 'X', 'tid': '519', 'ts': 6042909.56, 'dur': 3.1, 'pid': 1}]))
    write(os.path.join(prof, 'gpu_timeline_display_0.json'), json.dumps([
        {'name': 'Default/InitDataSetQueue-op0', 'ph': 'X', 'tid': 'Ops', 'ts': 1600695893269618.2, 'dur': 303.84,
         'pid': 0},
        {'name': 'MomentumUpdateVariableKernel', 'ph': 'X', 'tid': '17', 'ts': 1600695897737724.8, 'dur': 5.792,
         'pid': 0}]))
    write(os.path.join(prof, 'framework_raw_0.csv'), csv_text(
        ['task_id', 'stream_id', 'block_dim', 'full_kernel_name', 'op_name', 'kernel_name', 'kernel_type', 'subgraph',
         'op_info'], [[51517, 0, 32, 'Default/Cast-op1', 'Default/Cast-op1', 'Cast-op1', 'Cast', 'Default', '{}']]))
    write(os.path.join(prof, 'step_trace_raw_0_detail_time.csv'), csv_text(
        ['step_num', 'start_point', 'end_point', 'total', 'fp_point', 'bp_point', 'iteration_interval', 'fp_and_bp',
         'tail'], [[1, 45000030081, 45004033128, 4003047, 45000030081, 45001733025, 0, 1702944, 2300103]]))
    exp = {'fixture': 'prof_ms', 'folder': 'profiler', 'ranks': 2, 'iterations_per_device': 3,
           'not_kernels': ['Iteration ', 'FP_BP Time ', 'Iteration Refresh ', 'Reduce_'],
           'outside_every_step': 'Default/MemSet-op7', 'comm_op': 'Default/AllReduce-op9_0',
           'display_files': ['ascend_timeline_display_0.json', 'gpu_timeline_display_0.json'],
           'not_read': ['framework_raw_0.csv', 'step_trace_raw_0_detail_time.csv'],
           'note': 'figures are recomputed by tests/checks/prof_tree_check.py from the files'}
    write(os.path.join(root, 'EXPECTED.json'), json.dumps(exp, indent=1))


def main():
    if len(sys.argv) != 2 or sys.argv[1].startswith('-'):
        sys.stderr.write('usage: gen_prof_fixtures.py OUTDIR\n')
        return 2
    gen_legacy(sys.argv[1])
    gen_mindspore(sys.argv[1])
    return 0


if __name__ == '__main__':
    sys.exit(main())
