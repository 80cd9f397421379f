#!/usr/bin/env python3
"""Writes small, deterministic Ascend profiling captures with known answers.

    python3 tools/gen_fixtures.py OUTDIR

OUTDIR/vllm_decode_2rank  a torch_profiler_dir of a vLLM-Ascend server: two analysed
                          *_ascend_pt rank directories (Class A), 1 prefill + 4 decode steps
OUTDIR/prof_classb        an msprof PROF_* tree exported as text (Class B)
OUTDIR/broken             small malformed cases, one folder each

Each fixture has an EXPECTED.json computed from the generator's own event lists (never by
re-reading the files); the generator then re-reads what it wrote with the json and csv
modules and stops if the two disagree. Standard library only; a fixed seed.
"""
import csv
import io
import json
import os
import random
import shutil
import sys

SEED = 20260119
BASE_NS = 1768790400_000_000_000   # 2026-01-19 02:40:00 UTC, in ns


def us(ns):
    """ns → the decimal µs string torch_npu writes as ts ("1768790400000123.456")."""
    return '%d.%03d' % (ns // 1000, ns % 1000)


def dur_us(ns):
    """ns → µs as a JSON number with at most 3 decimals (exact when parsed back)."""
    return ns / 1000


def write(path, data, mode='w', newline=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if isinstance(data, bytes):
        with open(path, 'wb') as f:
            f.write(data)
    else:
        with open(path, mode, encoding='utf-8', newline=newline) as f:
            f.write(data)


def dumps_events(events):
    """A bare JSON array, one event per line, like torch_npu's output."""
    return '[' + ',\n'.join(json.dumps(e, ensure_ascii=False) for e in events) + ']'


def csv_text(header, rows, crlf=False):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator='\r\n' if crlf else '\n')
    w.writerow(header)
    for r in rows:
        w.writerow(r)
    return buf.getvalue()


# ---- the model served: a 2-layer decoder with tensor parallelism 2 -----------------------------

# (kernel name, kernel type, accelerator core, aten op, decode µs, prefill factor)
LAYER = [
    ('RmsNorm', 'RmsNorm', 'AI_VECTOR_CORE', 'npu::npu_rms_norm', 6.2, 6.0),
    ('MatMulV2', 'MatMulV2', 'AI_CORE', 'aten::matmul', 38.5, 9.0),
    ('ATTN', 'ATTN', 'MIX_AIC', 'npu::npu_fused_infer_attention_score', 22.0, 12.0),
    ('MatMulV2', 'MatMulV2', 'AI_CORE', 'aten::matmul', 18.3, 9.0),
    ('hcom_allReduce_', 'hcom_allReduce_', 'HCCL', 'c10d::allreduce_', 31.0, 5.0),
    ('AddRmsNorm', 'AddRmsNorm', 'AI_VECTOR_CORE', 'npu::npu_add_rms_norm', 7.0, 6.0),
    ('MatMulV2', 'MatMulV2', 'AI_CORE', 'aten::matmul', 55.2, 9.0),
    ('SwiGlu', 'SwiGlu', 'AI_VECTOR_CORE', 'npu::npu_swiglu', 8.3, 7.0),
    ('MatMulV2', 'MatMulV2', 'AI_CORE', 'aten::matmul', 29.6, 9.0),
    ('hcom_allReduce_', 'hcom_allReduce_', 'HCCL', 'c10d::allreduce_', 31.0, 5.0),
]
HEAD = [('GatherV2', 'GatherV2', 'AI_VECTOR_CORE', 'aten::embedding', 4.8, 4.0)]
TAIL = [
    ('RmsNorm', 'RmsNorm', 'AI_VECTOR_CORE', 'npu::npu_rms_norm', 6.0, 6.0),
    ('MatMulV2', 'MatMulV2', 'AI_CORE', 'aten::matmul', 61.0, 4.0),
    ('ArgMaxV2', 'ArgMaxV2', 'AI_VECTOR_CORE', 'aten::argmax', 9.5, 2.0),
]
N_LAYERS = 2
STEPS = ['prefill', 'decode', 'decode', 'decode', 'decode']
GROUP_HASH = '10463207371547368563'
PY_FRAMES = ['vllm/v1/engine/core.py(236): step',
             'vllm_ascend/worker/worker_v1.py(226): execute_model',
             'vllm_ascend/worker/model_runner_v1.py(1581): execute_model',
             'vllm/model_executor/models/qwen2.py(341): forward']

# torch_npu packs pids of device-side lanes: (pid << 10) | (sort_index << 5) | device
LANE_SORT = {'CANN': 7, 'Ascend Hardware': 13, 'AI Core Freq': 14, 'Communication': 15, 'Overlap Analysis': 23}


def step_kernels(tp):
    """One forward pass; with tensor parallelism 1 there is no all-reduce."""
    return [k for k in HEAD + LAYER * N_LAYERS + TAIL if tp > 1 or k[2] != 'HCCL']


class Trace:
    """Events of one rank plus the known answers derived from them."""

    def __init__(self):
        self.events = []
        self.lanes = []          # (process, thread) in order of first appearance

    def lane(self, proc, thread):
        if (proc, thread) not in self.lanes:
            self.lanes.append((proc, thread))

    def add(self, e):
        self.events.append(e)


def meta(pid, proc, label, sort, threads):
    ev = [{'ph': 'M', 'name': 'process_name', 'pid': pid, 'tid': 0, 'args': {'name': proc}},
          {'ph': 'M', 'name': 'process_labels', 'pid': pid, 'tid': 0, 'args': {'labels': label}},
          {'ph': 'M', 'name': 'process_sort_index', 'pid': pid, 'tid': 0, 'args': {'sort_index': sort}}]
    for tid, tname in threads:
        ev.append({'ph': 'M', 'name': 'thread_name', 'pid': pid, 'tid': tid, 'args': {'name': tname}})
        ev.append({'ph': 'M', 'name': 'thread_sort_index', 'pid': pid, 'tid': tid, 'args': {'sort_index': tid}})
    return ev


def gen_rank(rank, os_pid, rng, slow, with_python=True, tp=2):
    """Simulates one rank serving 1 prefill + 4 decode steps. Returns (trace, kernels, extra)."""
    dev = rank
    t = Trace()
    pid_of = {k: (os_pid << 10) | (v << 5) | dev for k, v in LANE_SORT.items()}
    main_tid, q_tid = os_pid, os_pid + 13
    stream = 2
    hw, cann, comm, ovl, freq = (pid_of['Ascend Hardware'], pid_of['CANN'], pid_of['Communication'],
                                 pid_of['Overlap Analysis'], pid_of['AI Core Freq'])
    host = BASE_NS + 1_000_000 + rank * 1_317     # ranks start a little apart
    device_free = host
    kernels = []        # dicts: name, type, core, start, dur, step, stream, task_id, shapes, aten
    py_id = 0
    conn = 1000 + rank * 5000
    corr = 8000 + rank * 5000
    hcom_seq = 0
    aten_rows = []
    cann_rows = []
    steps = []
    for si, phase in enumerate(STEPS):
        tokens = 512 if phase == 'prefill' else 8
        step_host_start = host
        # Python frames of this step, nested; closed after the step's ops
        frames = []
        for depth, fr in enumerate(PY_FRAMES):
            py_id += 1
            frames.append({'ph': 'X', 'name': fr, 'pid': os_pid, 'tid': main_tid, 'cat': 'python_function',
                           'start': host + depth * 2_000, 'args': {'Python id': py_id,
                                                                   'Python parent id': py_id - 1 if depth else 0}})
        host += len(PY_FRAMES) * 2_000 + 15_000
        first_kernel = len(kernels)
        for (name, ktype, core, aten, dec_us, pf) in step_kernels(tp):
            factor = pf if phase == 'prefill' else 1.0
            jitter = 1.0 + rng.uniform(-0.04, 0.04)
            kdur = int(round(dec_us * factor * jitter * slow * 1000))
            if name == 'ATTN':
                name = ktype = 'FusedInferAttentionScore' if phase == 'prefill' else 'IncreFlashAttention'
            if core == 'HCCL':
                name = 'hcom_allReduce__%d_%d_1' % (431 + rank * 0, hcom_seq)
                hcom_seq += 1
            # host: aten op with an Enqueue inside; the consumer thread dequeues and launches
            a_start = host
            enq_start = a_start + 4_150
            enq_dur = 9_870 + rng.randint(0, 900)
            a_dur = enq_start - a_start + enq_dur + 3_020
            deq_start = enq_start + enq_dur + 6_300 + rng.randint(0, 400)
            launch_start = deq_start + 2_800
            launch_dur = 13_400 + rng.randint(0, 1_500)
            deq_dur = launch_start - deq_start + launch_dur + 2_100
            k_start = max(device_free + 1_200, launch_start + 19_000 + rng.randint(0, 2_000))
            device_free = k_start + kdur
            conn += 1
            corr += 1
            shapes = '"%d,%d"' % (tokens, 4096 if core != 'HCCL' else 2048)
            k = {'name': name, 'type': ktype, 'core': core, 'start': k_start, 'dur': kdur, 'step': si,
                 'stream': stream, 'task_id': 2100 + len(kernels), 'shapes': shapes, 'aten': aten,
                 'conn': conn, 'a_start': a_start, 'a_dur': a_dur, 'enq_dur': enq_dur}
            kernels.append(k)
            t.add({'ph': 'X', 'name': aten, 'pid': os_pid, 'tid': main_tid, 'ts': us(a_start), 'dur': dur_us(a_dur),
                   'cat': 'cpu_op', 'args': {'Sequence number': -1, 'Fwd thread id': 0}})
            t.add({'ph': 'X', 'name': 'Enqueue', 'pid': os_pid, 'tid': main_tid, 'ts': us(enq_start),
                   'dur': dur_us(enq_dur), 'cat': 'enqueue', 'args': {'correlation_id': corr}})
            t.add({'ph': 's', 'bp': 'e', 'name': 'enqueue_to_dequeue', 'id': corr, 'pid': os_pid, 'tid': main_tid,
                   'ts': us(enq_start), 'cat': 'async_task_queue'})
            t.add({'ph': 'X', 'name': 'Dequeue@' + aten.split('::')[-1], 'pid': os_pid, 'tid': q_tid,
                   'ts': us(deq_start), 'dur': dur_us(deq_dur), 'cat': 'dequeue', 'args': {'correlation_id': corr}})
            t.add({'ph': 'f', 'bp': 'e', 'name': 'enqueue_to_dequeue', 'id': corr, 'pid': os_pid, 'tid': q_tid,
                   'ts': us(deq_start), 'cat': 'async_task_queue'})
            t.add({'ph': 's', 'bp': 'e', 'name': 'torch_to_npu', 'id': k_start, 'pid': os_pid, 'tid': main_tid,
                   'ts': us(a_start), 'cat': 'async_npu'})
            if core == 'HCCL':
                cname = 'AscendCL@hcom_allReduce_'
                cargs = {'Thread Id': q_tid, 'Mode': 'ACL_OP', 'level': 'acl', 'id': 'hcom_allReduce_',
                         'item_id': '0', 'connection_id': conn}
                t.add({'ph': 'f', 'bp': 'e', 'name': 'torch_to_npu', 'id': k_start, 'pid': comm, 'tid': 0,
                       'ts': us(k_start), 'cat': 'async_npu'})
            else:
                cname = 'Node@launch'
                cargs = {'Thread Id': q_tid, 'Mode': 'launch', 'level': 'node', 'id': '0', 'item_id': name,
                         'connection_id': conn}
                t.add({'ph': 'f', 'bp': 'e', 'name': 'torch_to_npu', 'id': k_start, 'pid': hw, 'tid': stream,
                       'ts': us(k_start), 'cat': 'async_npu'})
            t.add({'ph': 'X', 'name': cname, 'pid': cann, 'tid': q_tid, 'ts': us(launch_start),
                   'dur': dur_us(launch_dur), 'args': cargs})
            cann_rows.append((cargs['level'], cname.split('@')[1], launch_dur))
            t.add({'ph': 's', 'name': 'HostToDevice%d' % conn, 'cat': 'HostToDevice', 'id': str(conn), 'pid': cann,
                   'tid': q_tid, 'ts': us(launch_start)})
            t.add({'ph': 'f', 'bp': 'e', 'name': 'HostToDevice%d' % conn, 'cat': 'HostToDevice', 'id': str(conn),
                   'pid': comm if core == 'HCCL' else hw, 'tid': 0 if core == 'HCCL' else stream, 'ts': us(k_start)})
            aten_rows.append(k)
            host = a_start + a_dur + 1_700 + rng.randint(0, 600)
        for f in reversed(frames):
            end = host + 3_000 * (len(frames) - frames.index(f))
            f['ts'] = us(f['start'])
            f['dur'] = dur_us(end - f['start'])
            del f['start']
        for f in frames:
            t.add(f)
        # the sampled tokens are copied to the host: the host waits for the device, then schedules
        host = max(host + 3_000 * len(frames), device_free + 24_000) + 260_000 + rng.randint(0, 40_000)
        ks = kernels[first_kernel:]
        steps.append({'index': si, 'phase': phase, 'start_ns': ks[0]['start'],
                      'end_ns': max(k['start'] + k['dur'] for k in ks), 'ops': len(ks),
                      'kernels': sum(k['core'] != 'HCCL' for k in ks), 'collectives': sum(k['core'] == 'HCCL' for k in ks),
                      'host_start_ns': step_host_start})
    # device lanes
    for k in kernels:
        if k['core'] == 'HCCL':
            t.add({'ph': 'X', 'name': k['name'], 'pid': comm, 'tid': 0, 'ts': us(k['start']), 'dur': dur_us(k['dur']),
                   'args': {'connection_id': k['conn'], 'model id': 4294967295, 'data_type': 'BFP16',
                            'alg_type': 'MESH', 'count': 1048576}})
            wait = k['wait'] = int(k['dur'] * (0.55 if rank == 0 else 0.12))
            t.add({'ph': 'X', 'name': 'Notify_Wait', 'pid': comm, 'tid': 1, 'ts': us(k['start']), 'dur': dur_us(wait),
                   'args': {'notify_id': '0', 'stream id': 5, 'task type': 'Notify_Wait', 'transport type': 'LOCAL'}})
            t.add({'ph': 'X', 'name': 'Memcpy', 'pid': comm, 'tid': 1, 'ts': us(k['start'] + wait),
                   'dur': dur_us(k['dur'] - wait), 'args': {'stream id': 5, 'task type': 'Memcpy',
                                                            'transport type': 'SDMA', 'size(Byte)': 2097152}})
        else:
            t.add({'ph': 'X', 'name': k['name'], 'pid': hw, 'tid': stream, 'ts': us(k['start']), 'dur': dur_us(k['dur']),
                   'args': {'Model Id': 4294967295, 'Task Type': k['core'], 'Physic Stream Id': stream,
                            'Task Id': k['task_id'], 'Batch Id': 0, 'Subtask Id': 4294967295,
                            'connection_id': k['conn']}})
    # overlap analysis: computing per kernel, communication per collective, free in the gaps
    busy = sorted((k['start'], k['start'] + k['dur'], k['core'] == 'HCCL') for k in kernels)
    ovl_count = {'Computing': 0, 'Communication': 0, 'Communication(Not Overlapped)': 0, 'Free': 0}
    for i, (s, e, is_comm) in enumerate(busy):
        if is_comm:
            for tid, nm in ((1, 'Communication'), (2, 'Communication(Not Overlapped)')):
                t.add({'ph': 'X', 'name': nm, 'pid': ovl, 'tid': tid, 'ts': us(s), 'dur': dur_us(e - s)})
                ovl_count[nm] += 1
        else:
            t.add({'ph': 'X', 'name': 'Computing', 'pid': ovl, 'tid': 0, 'ts': us(s), 'dur': dur_us(e - s)})
            ovl_count['Computing'] += 1
        if i + 1 < len(busy) and busy[i + 1][0] > e:
            t.add({'ph': 'X', 'name': 'Free', 'pid': ovl, 'tid': 3, 'ts': us(e), 'dur': dur_us(busy[i + 1][0] - e)})
            ovl_count['Free'] += 1
    # AI Core frequency: drops once in the middle of the capture
    for i, mhz in enumerate((1800, 1800, 1650, 1800)):
        t.add({'name': 'AI Core Freq', 'ts': us(BASE_NS + 900_000 + i * 4_000_000), 'pid': freq, 'tid': 0,
               'args': {'MHz': mhz}, 'ph': 'C'})
    # metadata: the Python lane's after its events (as torch_npu writes), the device lanes first
    py_meta = meta(os_pid, 'Python', 'CPU', 0, [(main_tid, 'Thread %d' % main_tid), (q_tid, 'Thread %d' % q_tid)])
    dev_meta = (meta(cann, 'CANN', 'CPU', LANE_SORT['CANN'], [(q_tid, 'Thread %d' % q_tid)])
                + meta(hw, 'Ascend Hardware', 'NPU', LANE_SORT['Ascend Hardware'], [(stream, 'Stream %d' % stream)])
                + meta(comm, 'Communication', 'NPU', LANE_SORT['Communication'], [(0, 'Group 0 Communication'), (1, 'Plane 0')])
                + meta(ovl, 'Overlap Analysis', 'NPU', LANE_SORT['Overlap Analysis'],
                       [(0, 'Computing'), (1, 'Communication'), (2, 'Communication(Not Overlapped)'), (3, 'Free')])
                + meta(freq, 'AI Core Freq', 'NPU', LANE_SORT['AI Core Freq'], []))
    host_ev = [e for e in t.events if e['pid'] == os_pid]
    dev_ev = [e for e in t.events if e['pid'] != os_pid]
    if not with_python:
        host_ev, py_meta = [], []
    t.events = host_ev + py_meta + dev_meta + dev_ev
    extra = {'steps': steps, 'cann_rows': cann_rows, 'overlap': ovl_count, 'pids': pid_of, 'stream': stream,
             'main_tid': main_tid, 'q_tid': q_tid}
    return t, kernels, extra


def answers(events):
    """Known answers of an event list: counts by ph, kernels by name, flows, lanes."""
    procs, threads = {}, {}
    for e in events:
        if e.get('ph') == 'M' and e['name'] == 'process_name':
            procs[e['pid']] = e['args']['name']
        if e.get('ph') == 'M' and e['name'] == 'thread_name':
            threads[(e['pid'], e['tid'])] = e['args']['name']
    by_ph = {}
    for e in events:
        by_ph[e.get('ph')] = by_ph.get(e.get('ph'), 0) + 1
    kern = {}
    for e in events:
        if e.get('ph') == 'X' and procs.get(e['pid']) == 'Ascend Hardware':
            c = kern.setdefault(e['name'], {'count': 0, 'total_ns': 0})
            c['count'] += 1
            c['total_ns'] += int(round(e['dur'] * 1000))
    flows = {}
    for e in events:
        if e.get('ph') in ('s', 'f'):
            fl = flows.setdefault(e['cat'], {'s': set(), 'f': set()})
            fl[e['ph']].add(str(e['id']))
    flow_out = {c: {'starts': len(v['s']), 'finishes': len(v['f']), 'pairs': len(v['s'] & v['f'])}
                for c, v in sorted(flows.items())}
    lanes = set()
    for e in events:
        if e.get('ph') in ('X', 'C'):
            lanes.add((procs.get(e['pid'], str(e['pid'])), threads.get((e['pid'], e['tid']), '') if e.get('ph') == 'X' else e['name']))
    slices = {}
    for e in events:
        if e.get('ph') == 'X':
            p = procs.get(e['pid'], str(e['pid']))
            slices[p] = slices.get(p, 0) + 1
    return {'events': len(events), 'events_by_ph': dict(sorted(by_ph.items())),
            'kernels': dict(sorted(kern.items())),
            'kernel_count': sum(v['count'] for v in kern.values()),
            'kernel_total_ns': sum(v['total_ns'] for v in kern.values()),
            'slices_by_process': dict(sorted(slices.items())),
            'flows': flow_out,
            'lanes': sorted([list(x) for x in lanes]),
            'processes': sorted(set(procs.values()))}


# ---- Class A tables --------------------------------------------------------------------------

KD_HEADER = ('Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),'
             'Wait Time(us),Block Dim,Mix Block Dim,HF32 Eligible,Input Shapes,Input Data Types,Input Formats,'
             'Output Shapes,Output Data Types,Output Formats,Context ID,aicore_time(us),aic_total_cycles,'
             'aic_mac_time(us),aic_mac_ratio,aic_scalar_time(us),aic_scalar_ratio,aic_mte1_time(us),aic_mte1_ratio,'
             'aic_mte2_time(us),aic_mte2_ratio,aic_fixpipe_time(us),aic_fixpipe_ratio,aic_icache_miss_rate,'
             'aiv_time(us),aiv_total_cycles,aiv_vec_time(us),aiv_vec_ratio,aiv_scalar_time(us),aiv_scalar_ratio,'
             'aiv_mte2_time(us),aiv_mte2_ratio,aiv_mte3_time(us),aiv_mte3_ratio,aiv_icache_miss_rate,'
             'cube_utilization(%)').split(',')


def kernel_rows(kernels, dev, rng, tab):
    rows, prev_end = [], None
    for k in kernels:
        wait = 0 if prev_end is None else max(0, k['start'] - prev_end)
        prev_end = k['start'] + k['dur']
        start = us(k['start']) + ('\t' if tab else '')
        if k['core'] == 'HCCL':
            rows.append([dev, 4294967295, 'N/A', 'N/A', k['name'], k['type'], 'N/A', 'HCCL', start, '%.3f' % dur_us(k['dur']),
                         '%.3f' % dur_us(wait), 0] + ['N/A'] * (len(KD_HEADER) - 12))
            continue
        d = k['dur'] / 1000
        aic = k['core'] in ('AI_CORE', 'MIX_AIC')
        aiv = k['core'] in ('AI_VECTOR_CORE', 'MIX_AIC')
        mac = round(rng.uniform(0.3, 0.8), 3) if aic else 0
        vec = round(rng.uniform(0.2, 0.7), 3) if aiv else 0
        pmu = [round(d * 0.9, 3) if aic else 0, int(d * 1800 * 20) if aic else 0,
               round(d * mac, 3), mac, round(d * 0.05, 3) if aic else 0, 0.05 if aic else 0, 0, 0,
               round(d * 0.4, 3) if aic else 0, 0.4 if aic else 0, round(d * 0.1, 3) if aic else 0, 0.1 if aic else 0,
               0.002 if aic else 0,
               round(d * 0.9, 3) if aiv else 0, int(d * 1800 * 40) if aiv else 0, round(d * vec, 3), vec,
               round(d * 0.08, 3) if aiv else 0, 0.08 if aiv else 0, round(d * 0.3, 3) if aiv else 0,
               0.3 if aiv else 0, round(d * 0.12, 3) if aiv else 0, 0.12 if aiv else 0, 0.001 if aiv else 0,
               round(mac * 90, 3) if aic else 0]
        rows.append([dev, 4294967295, k['task_id'], k['stream'], k['name'], k['type'], 'dynamic', k['core'], start,
                     '%.3f' % d, '%.3f' % dur_us(wait), 20 if aic else 40, 40 if k['core'] == 'MIX_AIC' else 0, 'NO',
                     k['shapes'], 'DT_BF16', 'ND', k['shapes'], 'DT_BF16', 'ND', 'N/A'] + pmu)
    return rows


def table_answers(kernels):
    out = {}
    for k in kernels:
        c = out.setdefault(k['name'], {'count': 0, 'total_ns': 0})
        c['count'] += 1
        c['total_ns'] += k['dur']
    return dict(sorted(out.items()))


def op_statistic_rows(kernels, classb_dev=None):
    agg = {}
    for k in kernels:
        if k['core'] == 'HCCL':
            continue
        agg.setdefault((k['type'], k['core']), []).append(k['dur'])
    total = sum(sum(v) for v in agg.values())
    rows = []
    for (ty, core), ds in sorted(agg.items(), key=lambda kv: -sum(kv[1])):
        r = [ty, core, len(ds), '%.3f' % (sum(ds) / 1000), '%.3f' % (min(ds) / 1000),
             '%.3f' % (sum(ds) / len(ds) / 1000), '%.3f' % (max(ds) / 1000), '%.3f' % (100.0 * sum(ds) / total)]
        rows.append(([classb_dev] if classb_dev is not None else []) + r)
    return rows


def api_rows(cann_rows, classb_dev=None):
    agg = {}
    for level, name, d in cann_rows:
        agg.setdefault((level, name), []).append(d)
    rows = []
    for (level, name), ds in sorted(agg.items()):
        mean = sum(ds) / len(ds)
        var = sum((x / 1000 - mean / 1000) ** 2 for x in ds) / len(ds)
        rows.append(([classb_dev] if classb_dev is not None else [])
                    + [level, name, '%.3f' % (sum(ds) / 1000), len(ds), '%.3f' % (mean / 1000),
                       '%.3f' % (min(ds) / 1000), '%.3f' % (max(ds) / 1000), '%.3f' % var])
    return rows


def union(intervals):
    tot, cur_s, cur_e = 0, None, None
    for s, e in sorted(intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                tot += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    return tot + ((cur_e - cur_s) if cur_e is not None else 0)


def step_trace(kernels):
    comp = union([(k['start'], k['start'] + k['dur']) for k in kernels if k['core'] != 'HCCL'])
    comm = union([(k['start'], k['start'] + k['dur']) for k in kernels if k['core'] == 'HCCL'])
    start = min(k['start'] for k in kernels)
    end = max(k['start'] + k['dur'] for k in kernels)
    free = (end - start) - comp - comm
    vals = {'Computing': comp, 'Communication(Not Overlapped)': comm, 'Overlapped': 0, 'Communication': comm,
            'Free': free, 'Stage': end - start, 'Bubble': 0,
            'Communication(Not Overlapped and Exclude Receive)': comm, 'Preparing': 0}
    return vals


def comm_json(kernels, rank):
    ops = {}
    for k in kernels:
        if k['core'] != 'HCCL':
            continue
        el = k['dur'] / 1e6
        wait = k['wait'] / 1e6
        transit = (k['dur'] - k['wait']) / 1e6
        size_mb = 2.097152
        ops['%s@%s' % (k['name'], GROUP_HASH)] = {
            'Communication Time Info': {
                'Start Timestamp(us)': k['start'] / 1000, 'Elapse Time(ms)': el, 'Transit Time(ms)': transit,
                'Wait Time(ms)': wait, 'Synchronization Time(ms)': wait, 'Idle Time(ms)': el - transit - wait,
                'Wait Time Ratio': round(wait / (wait + transit), 4),
                'Synchronization Time Ratio': round(wait / (wait + transit), 4)},
            'Communication Bandwidth Info': {
                t: ({'Transit Size(MB)': size_mb, 'Transit Time(ms)': transit,
                     'Bandwidth(GB/s)': round(size_mb / transit, 4), 'Large Packet Ratio': 0.0,
                     'Size Distribution': {'2.097152': [1, transit]}} if t in ('HCCS', 'SDMA') else
                    {'Transit Size(MB)': 0, 'Transit Time(ms)': 0, 'Bandwidth(GB/s)': 0, 'Large Packet Ratio': 0,
                     'Size Distribution': {}})
                for t in ('RDMA', 'HCCS', 'PCIE', 'SDMA', 'SIO')}}
    tot = {}
    for info in ops.values():
        for key, v in info['Communication Time Info'].items():
            if key not in ('Start Timestamp(us)', 'Wait Time Ratio', 'Synchronization Time Ratio'):
                tot[key] = tot.get(key, 0) + v
    tot['Wait Time Ratio'] = round(tot['Wait Time(ms)'] / (tot['Wait Time(ms)'] + tot['Transit Time(ms)']), 4)
    tot['Synchronization Time Ratio'] = round(tot['Synchronization Time(ms)'] /
                                              (tot['Synchronization Time(ms)'] + tot['Transit Time(ms)']), 4)
    collective = dict(ops)
    collective['Total Op Info'] = {'Communication Time Info': tot, 'Communication Bandwidth Info': {}}
    truth = {name.split('@')[0]: info['Communication Time Info']['Elapse Time(ms)'] for name, info in ops.items()}
    return {'step': {'p2p': {}, 'collective': collective}}, truth


def comm_matrix(kernels, rank, nranks=2):
    peer = (rank + 1) % nranks
    links = {}
    for k in kernels:
        if k['core'] != 'HCCL':
            continue
        tr = (k['dur'] - k['wait']) / 1e6
        for link, ty, size in (('%d-%d' % (rank, rank), 'LOCAL', 2.097152), ('%d-%d' % (rank, peer), 'HCCS', 1.048576)):
            links.setdefault(link, []).append({'Transport Type': ty, 'Transit Size(MB)': size, 'Transit Time(ms)': tr,
                                               'Bandwidth(GB/s)': round(size / tr, 4), 'Op Name': k['name']})
    out = {}
    for link, data in links.items():
        data.sort(key=lambda x: x['Bandwidth(GB/s)'], reverse=True)
        for tag, item in (('top1', data[0]), ('middle', data[len(data) // 2]), ('bottom1', data[-1]),
                          ('bottom2', data[-2]), ('bottom3', data[-3])):
            out.setdefault('allreduce-%s@%s' % (tag, GROUP_HASH), {})[link] = item
        ts = sum(x['Transit Size(MB)'] for x in data)
        tt = sum(x['Transit Time(ms)'] for x in data)
        out.setdefault('allreduce-total@%s' % GROUP_HASH, {})[link] = {
            'Transport Type': data[0]['Transport Type'], 'Transit Size(MB)': ts, 'Transit Time(ms)': tt,
            'Bandwidth(GB/s)': round(ts / tt, 4)}
    return {'step': {'p2p': {}, 'collective': out}}


def profiler_info(rank, start_ns, end_ns):
    return {
        'config': {
            'common_config': {'activities': ['ProfilerActivity.CPU', 'ProfilerActivity.NPU'], 'schedule': None,
                              'record_shapes': False, 'profile_memory': False, 'with_stack': False,
                              'with_flops': False, 'with_modules': False},
            'experimental_config': {'_profiler_level': 'Level1', '_aic_metrics': 'ACL_AICORE_PIPE_UTILIZATION',
                                    '_l2_cache': False, '_msprof_tx': False, '_data_simplification': True,
                                    'record_op_args': False, '_export_type': ['text'], '_op_attr': False,
                                    '_gc_detect_threshold': None}},
        'start_info': {'syscnt_enable': True, 'freq': 100, 'start_cnt': 17238197612056 + rank * 911,
                       'start_monotonic': 172163581670080 + rank * 911},
        'end_info': {'collectionTimeEnd': end_ns, 'MonotonicTimeEnd': 172164265133640 + rank * 911},
        'rank_id': rank}


def files_of(root, rank_dir):
    """(relative path, kind name) of what discovery should list, sorted like capture.c does."""
    out = []
    for dp, dn, fn in os.walk(os.path.join(root, rank_dir)):
        dn[:] = [d for d in dn if d not in ('FRAMEWORK',) and not d.startswith('PROF_')]
        for f in fn:
            if f.endswith(('.json', '.csv', '.db', '.dat')) and not f.startswith('.'):
                out.append(os.path.relpath(os.path.join(dp, f), os.path.join(root, rank_dir)))
    return sorted(out, key=lambda p: os.path.join(root, rank_dir, p))


KIND_BY_NAME = {
    'trace_view.json': 'trace', 'kernel_details.csv': 'kernel_details', 'op_statistic.csv': 'op_statistic',
    'operator_details.csv': 'operator_details', 'api_statistic.csv': 'api_statistic',
    'step_trace_time.csv': 'step_trace', 'communication.json': 'communication',
    'communication_matrix.json': 'comm_matrix', 'profiler_metadata.json': 'profiler_metadata',
}


def kind_of(rel):
    b = os.path.basename(rel)
    if b.startswith('profiler_info'):
        return 'profiler_info'
    for prefix, kind in (('msprof_', 'trace'), ('op_summary_', 'op_summary'), ('op_statistic_', 'op_statistic'),
                         ('api_statistic_', 'api_statistic'), ('task_time_', 'task_time'),
                         ('step_trace_', 'step_trace')):
        if b.startswith(prefix):
            return kind
    return KIND_BY_NAME.get(b, 'json' if b.endswith('.json') else 'csv')


# ---- fixtures ----------------------------------------------------------------------------------

def gen_vllm(out, rng):
    root = os.path.join(out, 'vllm_decode_2rank')
    # rank 1's process has the lower pid, so name order is not rank order: profiler_info decides
    ranks = [(0, 28417, '20260119104000123'), (1, 28391, '20260119104000131')]
    exp = {'fixture': 'vllm_decode_2rank', 'class': 'A', 'rank_count': 2, 'ranks': []}
    for rank, pid, ts in ranks:
        rdir = 'npu-node-07_%d_%s_ascend_pt' % (pid, ts)
        base = os.path.join(root, rdir)
        apo = os.path.join(base, 'ASCEND_PROFILER_OUTPUT')
        trace, kernels, extra = gen_rank(rank, pid, rng, slow=1.0 + 0.06 * rank)
        write(os.path.join(apo, 'trace_view.json'), dumps_events(trace.events))
        kd = kernel_rows(kernels, rank, rng, tab=True)
        write(os.path.join(apo, 'kernel_details.csv'), csv_text(KD_HEADER, kd, crlf=(rank == 0)), newline='')
        write(os.path.join(apo, 'op_statistic.csv'),
              csv_text(['OP Type', 'Core Type', 'Count', 'Total Time(us)', 'Min Time(us)', 'Avg Time(us)',
                        'Max Time(us)', 'Ratio(%)'], op_statistic_rows(kernels)), newline='')
        od = []
        for k in kernels:
            host_self = k['a_dur'] - k['enq_dur']
            dd = '%.3f' % dur_us(k['dur'])
            ai = dd if k['core'] in ('AI_CORE', 'MIX_AIC') else '0.000'
            od.append([k['aten'], k['shapes'], '', '%.3f' % dur_us(host_self), '%.3f' % dur_us(k['a_dur']), dd, dd, ai, ai])
        write(os.path.join(apo, 'operator_details.csv'),
              csv_text(['Name', 'Input Shapes', 'Call Stack', 'Host Self Duration(us)', 'Host Total Duration(us)',
                        'Device Self Duration(us)', 'Device Total Duration(us)',
                        'Device Self Duration With AICore(us)', 'Device Total Duration With AICore(us)'], od), newline='')
        write(os.path.join(apo, 'api_statistic.csv'),
              csv_text(['Level', 'API Name', 'Time(us)', 'Count', 'Avg(us)', 'Min(us)', 'Max(us)', 'Variance'],
                       api_rows(extra['cann_rows'])), newline='')
        st = step_trace(kernels)
        write(os.path.join(apo, 'step_trace_time.csv'),
              csv_text(['Step'] + list(st.keys()), [[''] + ['%.3f' % dur_us(v) for v in st.values()]], crlf=True),
              newline='')
        cj, comm_truth = comm_json(kernels, rank)
        write(os.path.join(apo, 'communication.json'), json.dumps(cj, indent=4))
        write(os.path.join(apo, 'communication_matrix.json'), json.dumps(comm_matrix(kernels, rank), indent=4))
        write(os.path.join(apo, 'analyse.done'), '')
        end_ns = max(k['start'] + k['dur'] for k in kernels) + 2_000_000
        write(os.path.join(base, 'profiler_info_%d.json' % rank), json.dumps(profiler_info(rank, BASE_NS, end_ns), indent=4))
        write(os.path.join(base, 'profiler_metadata.json'), json.dumps({
            'ENV_VARIABLES': {'ASCEND_GLOBAL_LOG_LEVEL': '', 'HCCL_RDMA_TC': '', 'PYTORCH_NPU_ALLOC_CONF': '',
                              'ASCEND_LAUNCH_BLOCKING': '', 'TASK_QUEUE_ENABLE': '1'},
            'distributed_args': {'tp': 2, 'pp': 1, 'dp': 1, 'rank': rank, 'world_size': 2}}, indent=4))
        # raw data left by the capture (simplified: the analysis deleted the CANN text)
        os.makedirs(os.path.join(base, 'FRAMEWORK'), exist_ok=True)
        os.makedirs(os.path.join(base, 'PROF_000001_%s_QWERTYUIOPASDFGH' % ts, 'device_%d' % rank, 'data'), exist_ok=True)
        os.makedirs(os.path.join(base, 'PROF_000001_%s_QWERTYUIOPASDFGH' % ts, 'host', 'data'), exist_ok=True)
        ans = answers(trace.events)
        rel_files = files_of(root, rdir)
        exp['ranks'].append({
            'rank': rank, 'device': rank, 'dir': rdir,
            'files': [{'path': p, 'kind': kind_of(p)} for p in rel_files],
            'trace': ans,
            'kernel_details': {'rows': len(kd), 'kernels': table_answers(kernels),
                               'total_ns': sum(k['dur'] for k in kernels)},
            'steps': {'count': len(extra['steps']), 'profiler_step_markers': 0,
                      'phases': [s['phase'] for s in extra['steps']], 'list': extra['steps']},
            'overlap_slices': extra['overlap'],
            'comm_ops_elapse_ms': comm_truth,
            'step_trace_time_us': {k: v / 1000 for k, v in st.items()},
        })
        check_class_a(apo, exp['ranks'][-1])
    exp['note'] = ('kernels = X events on the "Ascend Hardware" process; hcom_allReduce_* run on the '
                   '"Communication" process and appear in kernel_details.csv (Accelerator Core HCCL) but '
                   'not among trace kernels. No ProfilerStep# markers (vLLM passes no schedule).')
    write(os.path.join(root, 'EXPECTED.json'), json.dumps(exp, indent=1, sort_keys=False))


def check_class_a(apo, e):
    """Re-reads what was written and compares with the generator's own answers."""
    ev = json.load(open(os.path.join(apo, 'trace_view.json'), encoding='utf-8'))
    assert answers(ev) == e['trace'], 'trace answers differ from the events written'
    rows = list(csv.DictReader(open(os.path.join(apo, 'kernel_details.csv'), encoding='utf-8', newline='')))
    assert len(rows) == e['kernel_details']['rows']
    tot = {}
    for r in rows:
        c = tot.setdefault(r['Name'], {'count': 0, 'total_ns': 0})
        c['count'] += 1
        c['total_ns'] += int(round(float(r['Duration(us)']) * 1000))
        assert r['Start Time(us)'].endswith('\t')
    assert dict(sorted(tot.items())) == e['kernel_details']['kernels']
    for name, v in e['trace']['kernels'].items():
        assert e['kernel_details']['kernels'][name] == v, name
    cj = json.load(open(os.path.join(apo, 'communication.json')))
    for op, info in cj['step']['collective'].items():
        if op != 'Total Op Info':
            assert abs(info['Communication Time Info']['Elapse Time(ms)'] - e['comm_ops_elapse_ms'][op.split('@')[0]]) < 1e-12
    for f in os.listdir(apo):
        assert os.path.getsize(os.path.join(apo, f)) < 300_000, 'fixture file grew too big: ' + f


# Class B op_summary "show" headers plus the optional ones, then PipeUtilization columns.
OPSUM_HEADER = ('Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,OP State,Task Type,Task Start Time(us),'
                'Task Duration(us),Task Wait Time(us),Block Num,Mix Block Num,HF32 Eligible,Input Shapes,'
                'Input Data Types,Input Formats,Output Shapes,Output Data Types,Output Formats,Context ID,'
                'aicore_time(us),aic_total_cycles,aic_mac_time(us),aic_mac_ratio,aic_scalar_time(us),'
                'aic_scalar_ratio,aic_mte1_time(us),aic_mte1_ratio,aic_mte2_time(us),aic_mte2_ratio,'
                'aic_fixpipe_time(us),aic_fixpipe_ratio,aic_icache_miss_rate,aiv_time(us),aiv_total_cycles,'
                'aiv_vec_time(us),aiv_vec_ratio,aiv_scalar_time(us),aiv_scalar_ratio,aiv_mte2_time(us),'
                'aiv_mte2_ratio,aiv_mte3_time(us),aiv_mte3_ratio,aiv_icache_miss_rate,cube_utilization(%)').split(',')


def gen_classb(out, rng):
    root = os.path.join(out, 'prof_classb')
    prof = 'PROF_000001_20260119105012345_KDJFHEUWQLAPZXCV'
    mpo = os.path.join(root, prof, 'mindstudio_profiler_output')
    tag = '20260119105030'
    dev = 0
    trace, kernels, extra = gen_rank(0, 51200, rng, slow=1.0, with_python=False, tp=1)
    # a single-device msprof run: no Python lane, no framework flows, no collectives
    comm_pid = extra['pids']['Communication']
    keep = [e for e in trace.events if e.get('cat') not in ('async_npu', 'async_task_queue') and e['pid'] != comm_pid]
    write(os.path.join(mpo, 'msprof_%s.json' % tag), dumps_events(keep))
    rows = []
    for r in kernel_rows(kernels, dev, rng, tab=False):
        rows.append(r)
    write(os.path.join(mpo, 'op_summary_%s.csv' % tag), csv_text(OPSUM_HEADER, rows), newline='')
    write(os.path.join(mpo, 'op_statistic_%s.csv' % tag),
          csv_text(['Device_id', 'OP Type', 'Core Type', 'Count', 'Total Time(us)', 'Min Time(us)', 'Avg Time(us)',
                    'Max Time(us)', 'Ratio(%)'], op_statistic_rows(kernels, dev)), newline='')
    write(os.path.join(mpo, 'api_statistic_%s.csv' % tag),
          csv_text(['Device_id', 'Level', 'API Name', 'Time(us)', 'Count', 'Avg(us)', 'Min(us)', 'Max(us)', 'Variance'],
                   api_rows(extra['cann_rows'], dev)), newline='')
    tt = [[dev, k['name'], k['core'], k['stream'], k['task_id'], '%.3f' % dur_us(k['dur']), us(k['start']),
           us(k['start'] + k['dur'])] for k in kernels]
    write(os.path.join(mpo, 'task_time_%s.csv' % tag),
          csv_text(['Device_id', 'kernel_name', 'kernel_type', 'stream_id', 'task_id', 'task_time(us)', 'task_start(us)',
                    'task_stop(us)'], tt), newline='')
    sr = []
    for i, s in enumerate(extra['steps']):
        sr.append([dev, i + 1, 'N/A', 'N/A', us(s['end_ns']), '%.3f' % dur_us(s['end_ns'] - s['start_ns']), 'N/A',
                   'N/A', 'N/A', 4294967295, 'N/A', 'N/A'])
    write(os.path.join(mpo, 'step_trace_%s.csv' % tag),
          csv_text(['Device_id', 'Iteration ID', 'FP Start(us)', 'BP End(us)', 'Iteration End(us)', 'Iteration Time(us)',
                    'FP to BP Time(us)', 'Iteration Refresh(us)', 'Data Aug Bound(us)', 'Model ID',
                    'Reduce Start(us)', 'Reduce Duration(us)'], sr), newline='')
    write(os.path.join(mpo, 'README.txt'), 'Exported by msprof --export=on. One device (device_0).\n')
    for d in ('host/data', 'device_0/data', 'mindstudio_profiler_log'):
        os.makedirs(os.path.join(root, prof, d), exist_ok=True)
    ans = answers(keep)
    rel = sorted(os.path.join('mindstudio_profiler_output', f) for f in os.listdir(mpo)
                 if f.endswith(('.json', '.csv')))
    exp = {'fixture': 'prof_classb', 'class': 'B', 'rank_count': 1, 'ranks': [{
        'rank': 0, 'device': dev, 'dir': prof,
        'files': [{'path': p, 'kind': kind_of(p)} for p in rel],
        'trace': ans,
        'op_summary': {'rows': len(rows), 'kernels': table_answers(kernels),
                       'total_ns': sum(k['dur'] for k in kernels)},
        'steps': {'count': len(extra['steps']), 'phases': [s['phase'] for s in extra['steps']],
                  'list': extra['steps']}}]}
    assert ans['kernels'] == table_answers(kernels)
    back = answers(json.load(open(os.path.join(mpo, 'msprof_%s.json' % tag))))
    assert back == ans
    write(os.path.join(root, 'EXPECTED.json'), json.dumps(exp, indent=1))


def gen_broken(out, rng):
    root = os.path.join(out, 'broken')
    cases = {}
    hw = [{'ph': 'M', 'name': 'process_name', 'pid': 7, 'tid': 0, 'args': {'name': 'Ascend Hardware'}},
          {'ph': 'M', 'name': 'thread_name', 'pid': 7, 'tid': 2, 'args': {'name': 'Stream 2'}}]
    ks = [{'ph': 'X', 'name': n, 'pid': 7, 'tid': 2, 'ts': us(BASE_NS + i * 50_000), 'dur': dur_us(20_000 + i * 1_000),
           'args': {'Task Type': 'AI_CORE'}} for i, n in enumerate(['MatMulV2', 'RmsNorm', 'MatMulV2', 'SwiGlu', 'MatMulV2'])]

    # 1. an interrupted analysis: the array is never closed (torch_npu writes data[:-1] first)
    text = dumps_events(hw + ks)[:-1]
    write(os.path.join(root, 'truncated_trace', 'trace_view.json'), text)
    cases['truncated_trace'] = {
        'file': 'truncated_trace/trace_view.json', 'loadable': True, 'complete_events': len(hw + ks),
        'kernel_count': len(ks),
        'kernels': answers(hw + ks)['kernels'], 'size': len(text.encode()),
        'expect': 'all events kept; a warning that the closing "]" is missing (end of file at byte %d)' % len(text.encode())}

    # 2. cut in the middle of the last event
    full = dumps_events(hw + ks)
    cut = full.rindex('{"ph": "X"') + 25
    write(os.path.join(root, 'mid_event', 'trace_view.json'), full[:cut])
    cases['mid_event'] = {
        'file': 'mid_event/trace_view.json', 'loadable': True, 'complete_events': len(hw + ks) - 1,
        'kernel_count': len(ks) - 1,
        'kernels': answers(hw + ks[:-1])['kernels'], 'size': cut, 'cut_at_byte': cut,
        'event_started_at_byte': full.rindex('{"ph": "X"'),
        'expect': 'the %d complete events kept; an error naming the incomplete event at byte %d'
                  % (len(hw + ks) - 1, full.rindex('{"ph": "X"'))}

    # 3. an empty file
    write(os.path.join(root, 'empty_file', 'trace_view.json'), '')
    cases['empty_file'] = {'file': 'empty_file/trace_view.json', 'loadable': False, 'size': 0,
                           'expect': 'listed with the problem "0-byte file"; nothing loadable in that folder (exit 1)'}

    # 4. kernel_details with N/A cells, a short (ragged) row and a long one
    hdr = 'Device_id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim'
    lines = [hdr,
             '0,MatMulV2,MatMulV2,AI_CORE,%s\t,21.500,0,20' % us(BASE_NS),
             '0,hcom_allReduce__431_0_1,hcom_allReduce_,HCCL,%s\t,33.000,N/A,N/A' % us(BASE_NS + 30_000),
             '0,RmsNorm,RmsNorm,AI_VECTOR_CORE,%s\t,N/A,0,40' % us(BASE_NS + 70_000),
             '0,SwiGlu,SwiGlu,AI_VECTOR_CORE',
             '0,MatMulV2,MatMulV2,AI_CORE,%s\t,19.250,1.5,20,extra,cells' % us(BASE_NS + 90_000),
             '0,"Quoted, name",Cast,AI_VECTOR_CORE,%s\t,2.000,0,8' % us(BASE_NS + 120_000)]
    write(os.path.join(root, 'bad_csv', 'kernel_details.csv'), '\n'.join(lines) + '\n', newline='')
    cases['bad_csv'] = {
        'file': 'bad_csv/kernel_details.csv', 'loadable': True, 'data_rows': 6,
        'rows_with_duration': 4, 'duration_total_ns': 21_500 + 33_000 + 19_250 + 2_000,
        'ragged_rows': {'short': 5, 'long': 6}, 'na_duration_line': 4,
        'expect': 'rows kept; N/A read as missing (not 0); a warning naming line 5 (too few cells) and line 6 (too many)'}

    # 5. GBK bytes (not UTF-8) in names: a trace and a CSV
    gbk = '算子'.encode('gbk')
    raw = (dumps_events(hw).encode()[:-1] + b',\n{"ph": "X", "name": "' + gbk + b'_MatMul", "pid": 7, "tid": 2, '
           b'"ts": "' + us(BASE_NS).encode() + b'", "dur": 3.5}]')
    write(os.path.join(root, 'gbk_names', 'trace_view.json'), raw)
    write(os.path.join(root, 'gbk_names', 'kernel_details.csv'),
          (hdr + '\n0,').encode() + gbk + b'_Cast,Cast,AI_VECTOR_CORE,' + us(BASE_NS).encode() + b',4.000,0,8\n')
    cases['gbk_names'] = {
        'file': 'gbk_names/trace_view.json', 'loadable': True, 'kernel_count': 1, 'raw_name_hex': (gbk + b'_MatMul').hex(),
        'csv_rows': 1,
        'expect': 'loaded; the invalid UTF-8 bytes shown escaped (\\xNN), never raw'}

    # 6. names full of terminal escape sequences
    nasty = ['\u001b]0;owned\u0007', '\u001b[2J\u001b[H', 'bell\u0007\u0007', '\u009b31mred', 'tab\there',
             '\u001b[31mMatMulV2\u001b[0m', 'nl\nline', '\u001bP+q\u001b\\']
    evs = hw + [{'ph': 'X', 'name': n, 'pid': 7, 'tid': 2, 'ts': us(BASE_NS + i * 10_000), 'dur': 5.0,
                 'cat': 'kernel', 'args': {'Task Type': '\u001b]2;t\u0007'}} for i, n in enumerate(nasty)]
    write(os.path.join(root, 'escapes', 'trace_view.json'), json.dumps(evs))
    cases['escapes'] = {
        'file': 'escapes/trace_view.json', 'loadable': True, 'kernel_count': len(nasty), 'names': nasty,
        'expect': 'loaded; no byte 0x1b, 0x07 or 0x9b (nor C1 U+0080..U+009F) reaches the terminal'}

    for name, c in cases.items():
        d = os.path.join(root, name)
        c['files'] = [{'path': f, 'kind': kind_of(f), 'problem': os.path.getsize(os.path.join(d, f)) == 0}
                      for f in sorted(os.listdir(d))]
    exp = {'fixture': 'broken', 'rank_count': len(cases), 'loadable_ranks': sum(1 for c in cases.values() if c['loadable']),
           'cases': cases}
    write(os.path.join(root, 'EXPECTED.json'), json.dumps(exp, indent=1, ensure_ascii=True))


def gen_ranks4(out, rng):
    """Four ranks of one job, rank 2 computing 35% slower. Its collectives start last, so the
    other ranks wait for it: communication.json carries the waits a real run would show
    (each rank waits from its own start to the last rank's start of the same collective)."""
    root = os.path.join(out, 'ranks4_slow')
    slow_rank = 2
    gen = []
    for rank in range(4):
        trace, kernels, extra = gen_rank(rank, 40000 + rank * 7, rng, slow=1.35 if rank == slow_rank else 1.0)
        gen.append((rank, trace, kernels))
    # the timelines stay as generated; only the communication figures carry the waits
    waited = {}
    hccl = [[k for k in kernels if k['core'] == 'HCCL'] for _, _, kernels in gen]
    for j in range(min(len(h) for h in hccl)):
        last = max(h[j]['start'] for h in hccl)
        for h in hccl:
            transit = h[j]['dur'] - h[j]['wait']
            waited[id(h[j])] = {'wait': last - h[j]['start'], 'dur': last - h[j]['start'] + transit}
    exp = {'fixture': 'ranks4_slow', 'class': 'A', 'rank_count': 4, 'slow_rank': slow_rank, 'ranks': []}
    for rank, trace, kernels in gen:
        rdir = 'dp0_pp0_tp%d_dcp0_ep0_rank%d_20260119110000%03d_ascend_pt' % (rank, rank, rank)
        base = os.path.join(root, rdir)
        apo = os.path.join(base, 'ASCEND_PROFILER_OUTPUT')
        write(os.path.join(apo, 'trace_view.json'), dumps_events(trace.events))
        write(os.path.join(apo, 'kernel_details.csv'),
              csv_text(KD_HEADER, kernel_rows(kernels, rank, rng, tab=False)), newline='')
        st = step_trace(kernels)
        write(os.path.join(apo, 'step_trace_time.csv'),
              csv_text(['Step'] + list(st.keys()), [[''] + ['%.3f' % dur_us(v) for v in st.values()]]), newline='')
        comm_kernels = [dict(k, **waited.get(id(k), {})) for k in kernels]
        cj, _ = comm_json(comm_kernels, rank)
        write(os.path.join(apo, 'communication.json'), json.dumps(cj, indent=4))
        write(os.path.join(apo, 'communication_matrix.json'), json.dumps(comm_matrix(comm_kernels, rank, 4), indent=4))
        end_ns = max(k['start'] + k['dur'] for k in kernels) + 2_000_000
        write(os.path.join(base, 'profiler_info_%d.json' % rank), json.dumps(profiler_info(rank, BASE_NS, end_ns), indent=4))
        exp['ranks'].append({'rank': rank, 'dir': rdir, 'step_trace_time_us': {k: v / 1000 for k, v in st.items()}})
    write(os.path.join(root, 'EXPECTED.json'), json.dumps(exp, indent=1))


def main():
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        sys.stderr.write('usage: gen_fixtures.py OUTDIR\n')
        return 2
    out = sys.argv[1]
    for name in ('vllm_decode_2rank', 'prof_classb', 'broken', 'ranks4_slow'):
        shutil.rmtree(os.path.join(out, name), ignore_errors=True)
    gen_vllm(out, random.Random(SEED))
    gen_classb(out, random.Random(SEED + 1))
    gen_broken(out, random.Random(SEED + 2))
    gen_ranks4(out, random.Random(SEED + 3))
    return 0


if __name__ == '__main__':
    sys.exit(main())
