/* Flow chains, launchers and launch figures: small models built here, and every real trace
 * checked against an independent pairing and binding done in Python. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/trace/trace_json.h"
#include "model/analysis/flowstats.h"
#include "model/analysis/steps.h"
#include "report/report.h"
#include "../runner.h"
#include "helpers.h"

#define US 1000

static void slice(struct model *m, uint32_t l, ns_t t0, ns_t t1, const char *name)
{
    test_slice(m, l, t0, t1 - t0, name);
}

static void point(struct model *m, uint32_t l, char ph, ns_t t, const char *cat, uint64_t id)
{
    model_add_flow_point(m, l, (enum flow_ph)ph, t, cat, strlen(cat), "f", 1, id, false, true);
}

static uint32_t find(const struct model *m, const char *name)
{
    for (uint32_t s = 0; s < m->nslices; s++)
        if (!strcmp(model_str(m, m->name[s]), name))
            return s;
    return SLICE_NONE;
}

/* Index of the hop on slice s, or -1. */
static int hop_of(const struct flow_hop *h, size_t n, uint32_t s)
{
    for (size_t i = 0; i < n; i++)
        if (h[i].slice == s)
            return (int)i;
    return -1;
}

static const struct flow_cat_stats *cat_of(const struct model *m, const struct flowstats *fs,
                                           const char *cat)
{
    for (size_t i = 0; i < fs->ncats; i++)
        if (!strcmp(model_str(m, fs->cats[i].cat), cat))
            return &fs->cats[i];
    return NULL;
}

/* Times in µs:
 *   Python tid 10: frame [0,100] > aten::add [10,50] (async_npu 7 s, fwdbwd 1 s)
 *                                  > enqueue [20,30] (async_task_queue 7 s);
 *                  aten::late [250,260] (async_npu 9 s); a stray async_npu 55 s at 150
 *                  (no slice); async_npu 99 s at 12 (no f)
 *   Python tid 11: dequeue [40,60] (async_task_queue 7 f)
 *   Python tid 12: bwd [500,600] (fwdbwd 1 f) > aten::mm_bwd [510,520] (async_npu 8 s)
 *   CANN tid 11:   AscendCL@x [44,56] > Node@launch [45,55] (HostToDevice 7 s)
 *   Device stream 5: K1 [70,80] (async_npu 7 f, HostToDevice 7 f), K2 [200,210],
 *                    K3 [300,310] (async_npu 9 f), K5 [700,710] (async_npu 8 f)
 *   Device stream 6: K4 [400,410] (async_npu 55 f), an HostToDevice 77 f at 400 (no s)
 * Ids are shared across categories on purpose. */
static struct model *chain_model(void)
{
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t py = test_lane(m, "1", "Python", "10"), dq = test_lane(m, "1", "Python", "11");
    uint32_t bw = test_lane(m, "1", "Python", "12"), cn = test_lane(m, "2", "CANN", "11");
    uint32_t d5 = test_lane(m, "3", "Ascend Hardware", "5"), d6 = test_lane(m, "3", "Ascend Hardware", "6");
    slice(m, py, 0, 100 * US, "frame");
    slice(m, py, 10 * US, 50 * US, "aten::add");
    slice(m, py, 20 * US, 30 * US, "enqueue");
    slice(m, py, 250 * US, 260 * US, "aten::late");
    slice(m, dq, 40 * US, 60 * US, "dequeue");
    slice(m, bw, 500 * US, 600 * US, "bwd");
    slice(m, bw, 510 * US, 520 * US, "aten::mm_bwd");
    slice(m, cn, 44 * US, 56 * US, "AscendCL@x");
    slice(m, cn, 45 * US, 55 * US, "Node@launch");
    slice(m, d5, 70 * US, 80 * US, "K1");
    slice(m, d5, 200 * US, 210 * US, "K2");
    slice(m, d5, 300 * US, 310 * US, "K3");
    slice(m, d5, 700 * US, 710 * US, "K5");
    slice(m, d6, 400 * US, 410 * US, "K4");
    point(m, py, 's', 10 * US, "async_npu", 7);
    point(m, d5, 'f', 70 * US, "async_npu", 7);
    point(m, py, 's', 10 * US, "fwdbwd", 1);
    point(m, bw, 'f', 500 * US, "fwdbwd", 1);
    point(m, py, 's', 20 * US, "async_task_queue", 7);
    point(m, dq, 'f', 40 * US, "async_task_queue", 7);
    point(m, cn, 's', 45 * US, "HostToDevice", 7);
    point(m, d5, 'f', 70 * US, "HostToDevice", 7);
    point(m, py, 's', 250 * US, "async_npu", 9);
    point(m, d5, 'f', 300 * US, "async_npu", 9);
    point(m, bw, 's', 510 * US, "async_npu", 8);
    point(m, d5, 'f', 700 * US, "async_npu", 8);
    point(m, py, 's', 150 * US, "async_npu", 55);
    point(m, d6, 'f', 400 * US, "async_npu", 55);
    point(m, py, 's', 12 * US, "async_npu", 99);
    point(m, d6, 'f', 400 * US, "HostToDevice", 77);
    if (model_finalize(m) < 0) {
        model_free(m);
        return NULL;
    }
    return m;
}

TEST(flows_chain_forward)
{
    struct model *m = chain_model();
    CHECK(m != NULL);
    if (!m)
        return;
    struct flow_hop *h;
    size_t n = flow_chain_forward(m, find(m, "frame"), &h);
    CHECK(n > 0);
    CHECK_INT(h[0].kind, HOP_ORIGIN);
    CHECK_INT(h[0].slice, find(m, "frame"));
    int add = hop_of(h, n, find(m, "aten::add")), k1 = hop_of(h, n, find(m, "K1"));
    int enq = hop_of(h, n, find(m, "enqueue")), deq = hop_of(h, n, find(m, "dequeue"));
    int node = hop_of(h, n, find(m, "Node@launch")), bwd = hop_of(h, n, find(m, "bwd"));
    CHECK(add > 0 && k1 > 0 && enq > 0 && deq > 0 && node > 0 && bwd > 0);
    if (add > 0 && enq > 0 && deq > 0 && node > 0 && k1 > 0) {
        CHECK_INT(h[add].kind, HOP_ENCLOSED);
        CHECK_STR(flow_hop_category(m, &h[deq]), "async_task_queue");
        CHECK_INT(h[deq].from, enq);
        CHECK_INT(h[node].kind, HOP_ENCLOSED);   /* same thread, CANN process */
        CHECK_INT(h[node].from, deq);
        CHECK_STR(flow_hop_category(m, &h[k1]), "async_npu");
        CHECK_INT(h[k1].from, add);
        CHECK_INT(h[k1].level, 2);
    }
    /* the backward op is shown, its kernel is not this frame's; the late op is outside */
    CHECK_INT(hop_of(h, n, find(m, "K5")), -1);
    CHECK_INT(hop_of(h, n, find(m, "aten::late")), -1);
    CHECK_INT(hop_of(h, n, find(m, "K3")), -1);
    CHECK_INT(hop_of(h, n, find(m, "AscendCL@x")), -1);   /* no flow leaves it */
    /* every slice appears once */
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            CHECK(h[i].slice != h[j].slice);
    free(h);
    /* from a kernel: nothing beyond itself */
    n = flow_chain_forward(m, find(m, "K1"), &h);
    CHECK_INT(n, 1);
    free(h);
    CHECK_INT(flow_chain_forward(m, m->nslices, &h), 0);
    CHECK(h == NULL);
    model_free(m);
}

TEST(flows_chain_backward)
{
    struct model *m = chain_model();
    if (!m)
        return;
    struct flow_hop *h;
    size_t n = flow_chain_backward(m, find(m, "K1"), &h);
    int node = hop_of(h, n, find(m, "Node@launch")), add = hop_of(h, n, find(m, "aten::add"));
    int frame = hop_of(h, n, find(m, "frame")), deq = hop_of(h, n, find(m, "dequeue"));
    int enq = hop_of(h, n, find(m, "enqueue")), acl = hop_of(h, n, find(m, "AscendCL@x"));
    CHECK(node > 0 && add > 0 && frame > 0 && deq > 0 && enq > 0 && acl > 0);
    if (node > 0 && add > 0 && frame > 0 && deq > 0 && enq > 0 && acl > 0) {
        CHECK_STR(flow_hop_category(m, &h[node]), "HostToDevice");
        CHECK_STR(flow_hop_category(m, &h[add]), "async_npu");
        CHECK_INT(h[frame].kind, HOP_ENCLOSING);
        CHECK_INT(h[acl].kind, HOP_ENCLOSING);
        CHECK_INT(h[deq].kind, HOP_THREAD);
        CHECK_STR(flow_hop_category(m, &h[enq]), "async_task_queue");
        CHECK_INT(h[enq].from, deq);
    }
    CHECK_INT(hop_of(h, n, find(m, "bwd")), -1);
    free(h);
    /* the backward op's kernel: back to the backward op, its fwdbwd source shown, not followed */
    n = flow_chain_backward(m, find(m, "K5"), &h);
    CHECK(hop_of(h, n, find(m, "aten::mm_bwd")) > 0);
    CHECK(hop_of(h, n, find(m, "bwd")) > 0);
    int fwd = hop_of(h, n, find(m, "aten::add"));
    CHECK(fwd > 0);
    if (fwd > 0)
        CHECK_STR(flow_hop_category(m, &h[fwd]), "fwdbwd");
    CHECK_INT(hop_of(h, n, find(m, "frame")), -1);
    free(h);
    /* unbound source: the kernel stays without launcher */
    n = flow_chain_backward(m, find(m, "K4"), &h);
    CHECK_INT(n, 1);
    free(h);
    model_free(m);
}

TEST(flows_stats_small)
{
    struct model *m = chain_model();
    if (!m)
        return;
    enum flow_launch_how how;
    CHECK_INT(flow_launcher(m, find(m, "K1"), &how), find(m, "Node@launch"));
    CHECK_INT(how, LAUNCH_FLOW);
    CHECK_INT(flow_launcher(m, find(m, "K2"), &how), SLICE_NONE);
    CHECK_INT(how, LAUNCH_NONE);
    struct flowstats *fs = flowstats_compute(m, NULL);
    CHECK(fs != NULL);
    if (!fs) {
        model_free(m);
        return;
    }
    const struct flow_cat_stats *an = cat_of(m, fs, "async_npu"), *hd = cat_of(m, fs, "HostToDevice");
    const struct flow_cat_stats *q = cat_of(m, fs, "async_task_queue"), *fb = cat_of(m, fs, "fwdbwd");
    CHECK(an && hd && q && fb);
    if (an && hd && q && fb) {
        CHECK_INT(an->matched, 4);        /* 7, 9, 8, 55 have s and f; 99 has no f */
        CHECK_INT(an->bound, 3);          /* 55's start landed on no slice */
        CHECK_INT(an->unbound, 1);
        CHECK_INT(an->missing_end, 1);
        CHECK_INT(an->missing_start, 0);
        CHECK_INT(hd->matched, 1);
        CHECK_INT(hd->missing_start, 1);  /* 77 */
        CHECK_INT(hd->bound, 1);
        CHECK_INT(q->bound, 1);
        CHECK_INT(fb->bound, 1);
        CHECK(strcmp(model_str(m, fs->cats[0].cat), model_str(m, fs->cats[1].cat)) < 0);
    }
    CHECK_INT(fs->device_slices, 5);
    CHECK_INT(fs->with_launcher, 3);      /* K1, K3, K5 */
    CHECK_INT(fs->no_launcher, 2);        /* K2 (no flow), K4 (unbound source) */
    CHECK_INT(fs->no_launcher_flowless, 0);   /* both streams have flows */
    CHECK_INT(fs->graph_launched, 0);
    CHECK_INT(fs->multi_launcher, 0);
    /* latencies: K1 70-45 = 25, K3 300-250 = 50, K5 700-510 = 190 */
    CHECK_INT(fs->launch.n, 3);
    CHECK_INT(fs->launch.p50, 50 * US);
    CHECK_INT(fs->launch.p99, 190 * US);
    CHECK_INT(fs->launch.max, 190 * US);
    CHECK_INT(fs->launch.total, 265 * US);
    CHECK_INT(fs->queue.n, 1);
    CHECK_INT(fs->queue.max, 20 * US);
    CHECK_INT(fs->nkernels, 3);
    if (fs->nkernels == 3) {
        CHECK_STR(model_str(m, fs->kernels[0].name), "K5");
        CHECK_INT(fs->kernels[0].worst, find(m, "K5"));
    }
    /* idle gaps: 80-200 (K2 no launcher), 210-300 (K3 launched at 250: host), 310-400
     * (K4 no launcher), 410-700 (K5 launched at 510: host) */
    CHECK_INT(fs->gaps, 4);
    CHECK_INT(fs->idle, 590 * US);
    CHECK_INT(fs->host_bound_gaps, 2);
    CHECK_INT(fs->host_bound_idle, 380 * US);
    const struct flow_launch *fl = flowstats_launch(fs, find(m, "K3"));
    CHECK(fl && fl->launcher == find(m, "aten::late") && fl->how == LAUNCH_FLOW);
    CHECK(flowstats_launch(fs, find(m, "frame")) == NULL);
    struct rowset *rs = flowstats_kernel_rowset(fs, m);
    CHECK(rs && rs->nrows == 3);
    rowset_free(rs);
    struct flow_hop *h;
    size_t n = flow_chain_backward(m, find(m, "K1"), &h);
    rs = flowstats_chain_rowset(m, h, n);
    CHECK(rs && rs->nrows == n);
    if (rs && n)
        CHECK_INT(rs->link[0], find(m, "K1"));
    rowset_free(rs);
    free(h);
    flowstats_free(fs);
    model_free(m);
}

TEST(flows_graph_launch)
{
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t cn = test_lane(m, "2", "CANN", "11"), d = test_lane(m, "3", "Ascend Hardware", "5");
    slice(m, cn, 1000 * US, 1100 * US, "AscendCL@aclmdlRIExecuteAsync");
    slice(m, cn, 1050 * US, 1060 * US, "AscendCL@aclrtMemcpy");
    slice(m, d, 500 * US, 510 * US, "early");
    slice(m, d, 1200 * US, 1300 * US, "g1");
    slice(m, d, 1300 * US, 1400 * US, "g2");
    slice(m, d, 1000 * US + 2 * FLOW_GRAPH_WINDOW, 1001 * US + 2 * FLOW_GRAPH_WINDOW, "far");
    CHECK_INT(model_finalize(m), 0);
    enum flow_launch_how how;
    uint32_t g = find(m, "AscendCL@aclmdlRIExecuteAsync");
    CHECK_INT(flow_launcher(m, find(m, "g2"), &how), g);
    CHECK_INT(how, LAUNCH_GRAPH);
    CHECK_INT(flow_launcher(m, find(m, "early"), &how), SLICE_NONE);
    CHECK_INT(flow_launcher(m, find(m, "far"), &how), SLICE_NONE);
    struct flowstats *fs = flowstats_compute(m, NULL);
    CHECK(fs != NULL);
    for (size_t i = 0; fs && i < fs->nlaunches; i++)
        CHECK_INT(flow_launcher(m, fs->launches[i].kernel, &how), fs->launches[i].launcher);
    if (fs) {
        CHECK_INT(fs->graph_launched, 2);
        CHECK_INT(fs->no_launcher, 2);
        CHECK_INT(fs->no_launcher_flowless, 2);
        CHECK_INT(fs->launch.n, 0);
        CHECK_INT(fs->host_bound_idle, 0);
        CHECK_INT(fs->ncats, 0);
    }
    struct flow_hop *h;
    size_t n = flow_chain_backward(m, find(m, "g1"), &h);
    CHECK_INT(n, 2);
    if (n == 2) {
        CHECK_INT(h[1].slice, g);
        CHECK_STR(flow_hop_category(m, &h[1]), "graph_launch");
    }
    free(h);
    flowstats_free(fs);
    model_free(m);
}

TEST(flows_empty_model)
{
    struct model *m = model_new(TIME_LOCAL_US);
    CHECK_INT(model_finalize(m), 0);
    struct flowstats *fs = flowstats_compute(m, NULL);
    CHECK(fs != NULL);
    if (fs) {
        CHECK_INT(fs->ncats + fs->nkernels + fs->device_slices + fs->gaps, 0);
        CHECK_INT(fs->launch.n, 0);
    }
    flowstats_free(fs);
    model_free(m);
}

/* Independent pairing: async_npu s/f paired by id, each point bound to the X event on the
 * same pid/tid whose [ts, ts+dur] holds it (the deepest: latest start, then shortest). Prints
 * "pairs N", "bound N", then one "id<TAB>op<TAB>kernel" line per bound pair. */
static const char pair_py[] =
    "import json,sys,collections,decimal\n"
    "def ns(v):\n"
    "    d=decimal.Decimal(str(v).strip())*1000\n"
    "    return int(d.to_integral_value(rounding=decimal.ROUND_HALF_UP))\n"
    "raw=open(sys.argv[1],'rb').read().decode('utf-8','replace')\n"
    "try: d=json.loads(raw)\n"
    "except ValueError: d=json.loads(raw.rstrip().rstrip(',')+']')\n"
    "ev=d.get('traceEvents',[]) if isinstance(d,dict) else d\n"
    "X=collections.defaultdict(list)\n"
    "for e in ev:\n"
    "    if e.get('ph')=='X': X[(str(e.get('pid')),str(e.get('tid')))].append((ns(e['ts']),ns(e.get('dur',0)),e.get('name','')))\n"
    "def bind(p):\n"
    "    t=ns(p['ts']); best=None\n"
    "    for s,du,n in X[(str(p.get('pid')),str(p.get('tid')))]:\n"
    "        if s<=t<=s+du and (best is None or s>best[0] or (s==best[0] and du<best[1])): best=(s,du,n)\n"
    "    return best\n"
    "S={};F={}\n"
    "for e in ev:\n"
    "    if e.get('cat')=='async_npu' and e.get('ph') in ('s','f'):\n"
    "        (S if e['ph']=='s' else F).setdefault(str(e.get('id')),e)\n"
    "ids=sorted(set(S)&set(F))\n"
    "out=[]\n"
    "for i in ids:\n"
    "    a=bind(S[i]); b=bind(F[i])\n"
    "    if a and b: out.append('%s\\t%s\\t%s'%(i,a[2],b[2]))\n"
    "pn={str(e.get('pid')):e.get('args',{}).get('name') for e in ev if e.get('ph')=='M' and e.get('name')=='process_name'}\n"
    "src=collections.defaultdict(dict); dst=collections.defaultdict(list)\n"
    "for e in ev:\n"
    "    if e.get('ph')=='s': src[e.get('cat')].setdefault(str(e.get('id')),e)\n"
    "    if e.get('ph')=='f': dst[(e.get('cat'),str(e.get('id')))].append(e)\n"
    "launch={}\n"
    "for (c,i),fs in dst.items():\n"
    "    s=src[c].get(i); a=bind(s) if s else None\n"
    "    for f in fs:\n"
    "        b=bind(f)\n"
    "        if a and b and a!=b:\n"
    "            k=(str(f.get('pid')),str(f.get('tid')),b); launch[k]=max(launch.get(k,a[0]),a[0])\n"
    "idle=host=0\n"
    "for pid in [p for p,n in pn.items() if n=='Ascend Hardware']:\n"
    "    ks=sorted((s,du,n,t) for (p,t),v in X.items() if p==pid for s,du,n in v)\n"
    "    if not ks: continue\n"
    "    end=ks[0][0]+ks[0][1]\n"
    "    for s,du,n,t in ks[1:]:\n"
    "        if s>end:\n"
    "            idle+=s-end; L=launch.get((pid,t,(s,du,n)))\n"
    "            if L is not None and L>end: host+=s-end\n"
    "        end=max(end,s+du)\n"
    "print('pairs',len(ids)); print('bound',len(out)); print('idle',idle); print('host',host); print('\\n'.join(out))\n";

static void check_trace(const char *path, const char *script)
{
    char cmd[4608];
    int st;
    snprintf(cmd, sizeof cmd, "python3 '%s' '%s'", script, path);
    char *out = test_run(cmd, &st);
    long pairs = -1, bound = -1;
    long long idle = -1, host = -1;
    char *line = strstr(out, "pairs ");
    if (line)
        sscanf(line, "pairs %ld\nbound %ld\nidle %lld\nhost %lld", &pairs, &bound, &idle, &host);
    CHECK(st == 0 && pairs >= 0 && bound >= 0 && idle >= 0 && host >= 0);
    struct model *m = model_new(TIME_LOCAL_US);
    struct diag *d = diag_new();
    CHECK_INT(trace_json_load(m, path, d, NULL), 0);
    CHECK_INT(model_finalize(m), 0);
    struct flowstats *fs = flowstats_compute(m, NULL);
    CHECK(fs != NULL);
    const struct flow_cat_stats *an = fs ? cat_of(m, fs, "async_npu") : NULL;
    if (pairs > 0) {
        CHECK(an != NULL);
        if (an) {
            CHECK_INT(an->matched, pairs);
            CHECK_INT(an->bound, bound);
        }
    }
    /* each bound async_npu flow: both names as Python bound them, and the chains agree */
    uint32_t cat = strtab_find(m->str, "async_npu", 9);
    size_t checked = 0, chained = 0;
    for (size_t i = 0; cat != UINT32_MAX && i < m->nflows; i++) {
        const struct flow *f = &m->flows[i];
        if (f->cat != cat || f->src == SLICE_NONE || f->dst == SLICE_NONE)
            continue;
        char key[64];
        snprintf(key, sizeof key, "\n%llu\t", (unsigned long long)f->id);
        char *p = strstr(out, key);
        CHECK(p != NULL);
        if (!p)
            continue;
        p += strlen(key);
        char want[1024];
        snprintf(want, sizeof want, "%s\t%s\n", model_str(m, m->name[f->src]), model_str(m, m->name[f->dst]));
        CHECK(strncmp(p, want, strlen(want)) == 0);
        if (strncmp(p, want, strlen(want)))
            fprintf(stderr, "  %s: id %llu: python %.120s\n", path, (unsigned long long)f->id, p);
        checked++;
        /* a sample of chains: forward from the op reaches the kernel, backward the op */
        if (i % 16 == 0) {
            struct flow_hop *h;
            size_t n = flow_chain_forward(m, f->src, &h);
            CHECK(hop_of(h, n, f->dst) > 0);
            free(h);
            n = flow_chain_backward(m, f->dst, &h);
            CHECK(hop_of(h, n, f->src) > 0);
            free(h);
            chained++;
        }
    }
    CHECK_INT(checked, bound < 0 ? 0 : bound);
    /* the per-kernel query and the precomputed table agree */
    for (size_t i = 0; fs && i < fs->nlaunches; i++) {
        enum flow_launch_how how;
        uint32_t l = flow_launcher(m, fs->launches[i].kernel, &how);
        CHECK(l == fs->launches[i].launcher && how == fs->launches[i].how);
    }
    if (fs) {
        CHECK_INT(fs->with_launcher + fs->graph_launched + fs->no_launcher, fs->device_slices);
        CHECK_INT(fs->idle, idle);
        CHECK_INT(fs->host_bound_idle, host);
    }
    /* with detected steps: step windows are disjoint, so their sums stay within the totals */
    struct steps *sd = steps_detect(m, NULL);
    struct flowstats *fs2 = sd ? flowstats_compute(m, sd) : NULL;
    CHECK(sd && fs2);
    if (fs && fs2) {
        ns_t sidle = 0, shost = 0;
        for (size_t i = 0; i < fs2->nsteps; i++) {
            CHECK(fs2->steps[i].host_bound <= fs2->steps[i].idle);
            CHECK(fs2->steps[i].t0 <= fs2->steps[i].t1);
            CHECK(!i || fs2->steps[i - 1].t1 <= fs2->steps[i].t0);
            sidle += fs2->steps[i].idle;
            shost += fs2->steps[i].host_bound;
        }
        CHECK(sidle <= fs->idle && shost <= fs->host_bound_idle);
        CHECK_INT(fs2->host_bound_idle, fs->host_bound_idle);
        printf("  %s: %ld async_npu pairs, %zu chains (%zu walked), %zu kernels launched, "
               "%zu without launcher, launch p50 %.3f µs p99 %.3f µs, queue p50 %.3f µs, "
               "host-bound idle %.3f of %.3f µs, %zu steps\n",
               strstr(path, "pytorch/") ? strstr(path, "pytorch/") : path, pairs, checked,
               chained, fs->with_launcher, fs->no_launcher, fs->launch.p50 / 1e3,
               fs->launch.p99 / 1e3, fs->queue.p50 / 1e3, fs->host_bound_idle / 1e3,
               fs->idle / 1e3, fs2 ? fs2->nsteps : 0);
    }
    flowstats_free(fs2);
    steps_free(sd);
    flowstats_free(fs);
    diag_free(d);
    model_free(m);
    free(out);
}

TEST(flows_real_traces)
{
    const char *dir = test_real_dir();
    if (!dir)
        SKIP("../shared/real not found");
    char script[] = "/tmp/aptop_flows_XXXXXX.py";
    int fd = mkstemps(script, 3);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    CHECK(write(fd, pair_py, sizeof pair_py - 1) == (ssize_t)(sizeof pair_py - 1));
    close(fd);
    char cmd[4200];
    int st;
    snprintf(cmd, sizeof cmd, "find '%s' -name trace_view.json -size +0 | sort", dir);
    char *list = test_run(cmd, &st);
    size_t n = 0;
    for (char *save = NULL, *p = strtok_r(list, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
        check_trace(p, script);
        n++;
    }
    CHECK(n > 0);
    free(list);
    unlink(script);
}

TEST(flows_step_windows)
{
    struct model *m = chain_model();
    if (!m)
        return;
    /* two steps given out of order: K1..K3 and K4..K5 */
    struct step v[2] = {
        { .index = 8, .start = 400 * US, .end = 710 * US },
        { .index = 7, .start = 70 * US, .end = 310 * US },
    };
    struct steps st = { .m = m, .v = v, .n = 2 };
    struct flowstats *fs = flowstats_compute(m, &st);
    CHECK(fs && fs->nsteps == 2);
    if (fs && fs->nsteps == 2) {
        CHECK_INT(fs->steps[0].index, 7);
        CHECK_INT(fs->steps[0].t0, 70 * US);
        CHECK_INT(fs->steps[0].t1, 310 * US);
        CHECK_INT(fs->steps[0].idle, 210 * US);
        CHECK_INT(fs->steps[0].host_bound, 90 * US);
        CHECK_INT(fs->steps[1].index, 8);
        CHECK_INT(fs->steps[1].t0, 310 * US);   /* reaches back to the previous step's end */
        CHECK_INT(fs->steps[1].idle, 380 * US);
        CHECK_INT(fs->steps[1].host_bound, 290 * US);
        CHECK_INT(fs->steps[1].host_bound_inside, 290 * US);   /* the gap before K5 lies in step 8 */
        CHECK_INT(fs->steps[0].host_bound_inside, 90 * US);
    }
    flowstats_free(fs);
    /* step 8 now only K5: the host-bound gap before K5 lies before the step, in its window */
    v[0].start = 700 * US;
    fs = flowstats_compute(m, &st);
    CHECK(fs && fs->nsteps == 2);
    if (fs && fs->nsteps == 2) {
        CHECK_INT(fs->steps[1].host_bound, 290 * US);
        CHECK_INT(fs->steps[1].host_bound_inside, 0);
    }
    flowstats_free(fs);
    model_free(m);
}

static size_t row_of(const struct rowset *rs, const char *category)
{
    size_t c = rowset_find_col(rs, "category");
    for (size_t r = 0; rs && c != SIZE_MAX && r < rs->nrows; r++)
        if (!strcmp(strtab_get(rs->str, rowset_cell(rs, r, c)->s), category))
            return r;
    return SIZE_MAX;
}

static int64_t cell_int(const struct rowset *rs, size_t r, const char *key)
{
    size_t c = rowset_find_col(rs, key);
    if (r == SIZE_MAX || c == SIZE_MAX || rowset_is_null(rs, r, c))
        return -1;
    return rowset_cell(rs, r, c)->i;
}

TEST(flows_report_rows)
{
    struct model *m = chain_model();
    if (!m)
        return;
    struct rank_data rd[2] = { { .rank = 0, .model = m }, { .rank = 1, .model = NULL } };
    struct session s = { .ranks = rd, .nranks = 2 };
    struct report_opts o = { .format = FMT_JSON, .rank = -1 };
    struct rowset *rs = report_flows(&s, &o);
    CHECK(rs != NULL);
    if (rs) {
        CHECK_INT(rowset_find_col(rs, "rank"), SIZE_MAX);   /* one rank with a model */
        size_t an = row_of(rs, "async_npu");
        CHECK_INT(cell_int(rs, an, "matched"), 4);
        /* unmatched: no partner (99 has no f); unbound: both points, one on no slice (55) */
        CHECK_INT(cell_int(rs, an, "unmatched"), 1);
        CHECK_INT(cell_int(rs, an, "unbound"), 1);
        CHECK_INT(cell_int(rs, an, "bound"), 3);
        CHECK_INT(cell_int(rs, an, "unmatched") + cell_int(rs, an, "unbound") + cell_int(rs, an, "bound"),
                  cell_int(rs, an, "count"));
        size_t hd = row_of(rs, "HostToDevice");
        CHECK_INT(cell_int(rs, hd, "unmatched"), 1);   /* 77: an f without its s */
        CHECK_INT(cell_int(rs, hd, "unbound"), 0);
        size_t ll = row_of(rs, "launch_latency");
        CHECK_INT(cell_int(rs, ll, "count"), 3);
        CHECK_INT(cell_int(rs, ll, "p99_us"), 190 * US);
        CHECK_INT(cell_int(rs, row_of(rs, "none"), "count"), 2);
        size_t hb = row_of(rs, "host_bound_idle");
        CHECK_INT(cell_int(rs, hb, "host_bound_us"), 380 * US);
        CHECK_INT(cell_int(rs, hb, "idle_us"), 590 * US);
        size_t k5 = row_of(rs, "kernel:K5");
        CHECK(k5 != SIZE_MAX && k5 == row_of(rs, "kernel:K5") && k5 < row_of(rs, "kernel:K1"));
        if (k5 != SIZE_MAX)
            CHECK_INT(rs->link[k5], find(m, "K5"));
    }
    rowset_free(rs);
    /* a rank filter that matches nothing: no section */
    o.rank = 5;
    CHECK(report_flows(&s, &o) == NULL);
    model_free(m);
}

TEST(flows_chain_forward_budget)
{
    /* a frame enclosing many launching ops: the bounded chain stops at its budget and says so */
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t host = model_lane(m, "1", 1, "1", 1);
    uint32_t dev = model_lane(m, "2", 1, "7", 1);
    model_set_process_name(m, 0, "Python", 6);
    model_set_process_name(m, 1, "Ascend Hardware", 15);
    model_add_slice(m, host, 0, 100000, "frame", 5, "python_function", 15, 0, UINT64_MAX, 0);
    for (int i = 0; i < 50; i++) {
        model_add_slice(m, host, 10 + i * 1000, 100, "aten::mm", 8, "cpu_op", 6, 0, UINT64_MAX, 0);
        model_add_slice(m, dev, 500 + i * 1000, 200, "MatMul", 6, "kernel", 6, 0, UINT64_MAX, 0);
        model_add_flow_point(m, host, FLOW_START, 10 + i * 1000, "async_npu", 9, "f", 1, (uint64_t)i, false, true);
        model_add_flow_point(m, dev, FLOW_END, 500 + i * 1000, "async_npu", 9, "f", 1, (uint64_t)i, false, true);
    }
    CHECK_INT(model_finalize(m), 0);
    uint32_t frame = model_slice_at(m, model_find_lane(m, "Python", "Thread 1"), 5);
    CHECK(frame != SLICE_NONE);
    struct flow_hop *h = NULL;
    bool cut = true;
    size_t all = flow_chain_forward_max(m, frame, 0, &h, &cut);
    CHECK_INT(all, 101);   /* the frame, 50 ops, 50 kernels */
    CHECK(!cut);
    free(h);
    size_t some = flow_chain_forward_max(m, frame, 20, &h, &cut);
    CHECK_INT(some, 20);
    CHECK(cut);
    free(h);
    model_free(m);
}
