#!/usr/bin/env python3
"""Writes a kernel_details.csv shaped like a torch_npu level-1 capture (CRLF, a TAB after
each start time, quoted shapes, N/A cells) with N rows, for the CSV benchmark.

usage: gen_csv.py OUT [ROWS]   (default 1000000; the same rows every time)
"""
import os
import random
import sys

HEADER = ("Step Id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),"
          "Duration(us),Wait Time(us),Block Dim,Mix Block Dim,HF32 Eligible,Input Shapes,"
          "Input Data Types,Input Formats,Output Shapes,Output Data Types,Output Formats,Context ID,"
          "aicore_time(us),aic_total_cycles,aic_mac_ratio,aiv_time(us),aiv_vec_ratio,cube_utilization(%)")

KERNELS = [("MatMulV2", "MatMulV2", "AI_CORE"), ("FlashAttentionScore", "FlashAttentionScore", "MIX_AIC"),
           ("Add", "Add", "AI_VECTOR_CORE"), ("Cast", "Cast", "AI_VECTOR_CORE"),
           ("RmsNorm", "RmsNorm", "AI_VECTOR_CORE"), ("TransData", "TransData", "AI_VECTOR_CORE"),
           ("hcom_allReduce__483_%d", "hcom_allReduce_", "HCCL"), ("SwiGlu", "SwiGlu", "AI_VECTOR_CORE"),
           ("GroupedMatmul", "GroupedMatmul", "AI_CORE"), ("RotaryMul", "RotaryMul", "AI_VECTOR_CORE")]
SHAPES = ['"4,1025"', '"2,8193;2;2"', '"1,32,128;1,32,128"', '"16,4096;4096,11008"', '""']


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000000
    rnd = random.Random(42)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    t = 1736405443881410320  # ns
    tmp = out + '.tmp'
    with open(tmp, 'w', newline='') as f:
        f.write(HEADER + '\r\n')
        buf = []
        for i in range(n):
            k = rnd.randrange(len(KERNELS)) if i % 7 else 0
            name, typ, core = KERNELS[k]
            if '%d' in name:
                name = name % (i % 50)
            dur = rnd.randrange(1000, 400000)
            wait = rnd.randrange(0, 20000)
            t += wait
            if core == 'HCCL':
                pmu = 'N/A,N/A,N/A,N/A,N/A,N/A,N/A'
                task = 'N/A,N/A'
            else:
                pmu = '%.2f,%d,%.4f,%.2f,%.4f,%.3f' % (dur / 1000 * 0.9, dur * 18, rnd.random(), dur / 1000 * 0.5,
                                                    rnd.random(), rnd.random() * 100)
                pmu = 'N/A,' + pmu
                task = '%d,%d' % (i % 65536, 9 if k % 3 else 7)
            sh = SHAPES[rnd.randrange(len(SHAPES))]
            buf.append('50,4294967295,%s,%s,%s,dynamic,%s,%d.%03d\t,%d.%03d,%d.%03d,%d,0,NO,%s,FLOAT16,FORMAT_ND,%s,FLOAT16,FORMAT_ND,%s\r\n' % (
                task, name, typ, core, t // 1000, t % 1000, dur // 1000, dur % 1000, wait // 1000, wait % 1000,
                rnd.choice((8, 20, 24, 40)), sh, sh, pmu))
            t += dur
            if len(buf) >= 10000:
                f.write(''.join(buf))
                buf = []
        f.write(''.join(buf))
    os.replace(tmp, out)


if __name__ == '__main__':
    main()
