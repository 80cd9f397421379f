/* Step detection and phase classification; the rules are described in steps.h. */
#include "model/steps.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/comm.h"
#include "model/engine_annot.h"
#include "model/kernels.h"
#include "model/table.h"

#define MAX_CANDIDATES 24

const char *step_phase_name(enum step_phase p)
{
    static const char *const names[] = { "prefill", "decode", "mixed", "other" };
    return (unsigned)p < PHASE_COUNT ? names[p] : "other";
}

const char *step_source_name(enum step_source s)
{
    switch (s) {
    case STEP_SRC_MARKERS: return "markers";
    case STEP_SRC_HOST: return "host";
    case STEP_SRC_PERIOD: return "period";
    case STEP_SRC_STEP_TRACE: return "step_trace";
    case STEP_SRC_ANNOTATION: return "annotation";
    default: return "none";
    }
}

/* --- per-name classification ------------------------------------------------------------- */

enum {
    NF_COMM = 1,        /* communication kernel */
    NF_PREFILL = 2,     /* prefill-only attention */
    NF_DECODE = 4,      /* decode-only attention */
    NF_FIAS = 8,        /* FusedInferAttentionScore: either */
    NF_STEPMARK = 16,   /* ProfilerStep#N */
    NF_EXEC = 32,       /* ...execute_model */
    NF_CORESTEP = 64,   /* EngineCore.step */
    NF_PROFCTL = 128,   /* PROFILING_ENABLE / PROFILING_DISABLE: the profiler's own tasks */
    NF_ANNOT = 256,     /* a serving engine's step annotation (model/engine_annot.h) */
};

static bool has(const char *s, const char *sub) { return strstr(s, sub) != NULL; }

static bool ends_with(const char *s, size_t n, const char *suf)
{
    size_t k = strlen(suf);
    return n >= k && memcmp(s + n - k, suf, k) == 0;
}

static uint16_t classify_name(const char *s, size_t n)
{
    uint16_t f = 0;
    if (!strncmp(s, "hcom_", 5) || !strncasecmp(s, "hccl", 4) || comm_kernel_name(s))
        f |= NF_COMM;
    if (engine_annot_phase(s, n) >= 0)
        f |= NF_ANNOT;
    if (has(s, "FusedInferAttentionScore"))
        f |= NF_FIAS;
    else if (has(s, "PromptFlashAttention") || has(s, "FlashAttentionScore") ||
             has(s, "UnpadFlashAttention") || has(s, "_npu_flash_attention") ||
             has(s, "FlashAttentionEncoder") ||
             /* GPU: FlashInfer's prefill kernels */
             has(s, "BatchPrefillWith") || has(s, "SinglePrefillWith"))
        f |= NF_PREFILL;
    else if (has(s, "IncreFlashAttention") || has(s, "PagedAttention") ||
             has(s, "FlashAttentionDecoder") ||
             /* GPU: vLLM's paged attention (CUDA and ROCm), FlashInfer's decode kernels */
             has(s, "paged_attention_v1_kernel") || has(s, "paged_attention_v2_kernel") ||
             has(s, "paged_attention_ll4mi") || has(s, "BatchDecodeWith") || has(s, "SingleDecodeWith"))
        f |= NF_DECODE;
    if (!strncmp(s, "ProfilerStep#", 13))
        f |= NF_STEPMARK;
    if (!strcmp(s, "PROFILING_ENABLE") || !strcmp(s, "PROFILING_DISABLE"))
        f |= NF_PROFCTL;
    if (has(s, "execute_model"))
        f |= NF_EXEC;
    if (has(s, "EngineCore.step") || (ends_with(s, n, ": step") && has(s, "core.py")))
        f |= NF_CORESTEP;
    return f;
}

/* --- small helpers ------------------------------------------------------------------------- */

static int cmp_ns(const void *a, const void *b)
{
    ns_t x = *(const ns_t *)a, y = *(const ns_t *)b;
    return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of a sorted array. */
static ns_t pct_sorted(const ns_t *v, size_t n, double p)
{
    if (!n)
        return 0;
    size_t k = (size_t)ceil(p * (double)n);
    if (k < 1)
        k = 1;
    if (k > n)
        k = n;
    return v[k - 1];
}

struct kev { ns_t start; uint32_t s; };

static int cmp_kev(const void *a, const void *b)
{
    const struct kev *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->s < y->s ? -1 : x->s > y->s;
}

/* Merged busy intervals with a prefix sum, for idle-time queries in O(log n). */
struct busy {
    ns_t *a, *b, *pre;   /* pre[i] = covered length of intervals [0, i) */
    size_t n;
};

static int busy_build(struct busy *u, const struct model *m, const struct kev *k, size_t n)
{
    memset(u, 0, sizeof *u);
    u->a = malloc((n + 1) * sizeof *u->a);
    u->b = malloc((n + 1) * sizeof *u->b);
    u->pre = malloc((n + 2) * sizeof *u->pre);
    if (!u->a || !u->b || !u->pre)
        return -1;
    u->pre[0] = 0;
    for (size_t i = 0; i < n; i++) {
        ns_t s = k[i].start, e = model_end(m, k[i].s);
        if (u->n && s <= u->b[u->n - 1]) {
            if (e > u->b[u->n - 1])
                u->b[u->n - 1] = e;
        } else {
            u->a[u->n] = s;
            u->b[u->n] = e;
            u->n++;
        }
    }
    for (size_t i = 0; i < u->n; i++)
        u->pre[i + 1] = u->pre[i] + (u->b[i] - u->a[i]);
    return 0;
}

static void busy_done(struct busy *u)
{
    free(u->a);
    free(u->b);
    free(u->pre);
}

/* Covered length of [0, t). */
static ns_t busy_upto(const struct busy *u, ns_t t)
{
    size_t lo = 0, hi = u->n;            /* first interval with a >= t */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (u->a[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return 0;
    ns_t r = u->pre[lo - 1];
    ns_t e = u->b[lo - 1] < t ? u->b[lo - 1] : t;
    return r + (e - u->a[lo - 1]);
}

static ns_t busy_in(const struct busy *u, ns_t t0, ns_t t1)
{
    return t1 > t0 ? busy_upto(u, t1) - busy_upto(u, t0) : 0;
}

/* Middle of the longest device-idle interval within [t0, t1] (t0 when there is none): a
 * step boundary, so that kernels of other streams in the bubble go to the step they touch. */
static ns_t longest_hole(const struct busy *u, ns_t t0, ns_t t1)
{
    if (t1 <= t0)
        return t0;
    size_t lo = 0, hi = u->n;            /* first interval ending after t0 */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (u->b[mid] <= t0)
            lo = mid + 1;
        else
            hi = mid;
    }
    ns_t at = t0, best = -1, cut = t0;
    for (size_t i = lo; i <= u->n; i++) {
        ns_t hs = at, he = i < u->n && u->a[i] < t1 ? u->a[i] : t1;
        if (he - hs > best) {
            best = he - hs;
            cut = hs + (he - hs) / 2;
        }
        if (i == u->n || u->a[i] >= t1)
            break;
        if (u->b[i] > at)
            at = u->b[i];
    }
    return cut;
}

/* --- detection state ----------------------------------------------------------------------- */

struct ctx {
    const struct model *m;
    uint16_t *nf;           /* per name id: NF_* */
    uint32_t nnames;
    struct kev *dev;        /* device kernels (LANE_DEVICE lanes) sorted by start */
    size_t ndev;
    int32_t *step_of;       /* per dev index: step number or -1 */
    struct busy dbusy;      /* union of device kernels */
};

static uint16_t nflags(const struct ctx *c, uint32_t name)
{
    return name < c->nnames ? c->nf[name] : 0;
}

static bool is_comm_slice(const struct ctx *c, uint32_t s)
{
    return c->m->lanes[c->m->lane[s]].kind == LANE_COMM || (nflags(c, c->m->name[s]) & NF_COMM);
}

struct mark { ns_t start, end; int64_t index; int8_t phase; /* NF_ANNOT: the phase it names */ };

static int cmp_mark(const void *a, const void *b)
{
    const struct mark *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Host markers of one kind, outermost only, sorted. */
static struct mark *find_markers(const struct ctx *c, uint16_t flag, size_t *nout)
{
    const struct model *m = c->m;
    size_t n = 0, cap = 0;
    struct mark *v = NULL;
    for (uint32_t l = 0; l < m->nlanes; l++) {
        const struct lane *ln = &m->lanes[l];
        if (ln->kind == LANE_DEVICE || ln->kind == LANE_COMM || ln->kind == LANE_OVERLAP ||
            ln->kind == LANE_COUNTER || ln->kind == LANE_DEVICE_ANNOT)
            continue;
        for (uint32_t s = ln->first; s < ln->first + ln->count; s++) {
            if (!(nflags(c, m->name[s]) & flag))
                continue;
            if (n == cap) {
                size_t nc = cap ? cap * 2 : 64;
                struct mark *nv = realloc(v, nc * sizeof *nv);
                if (!nv) {
                    free(v);
                    *nout = 0;
                    return NULL;
                }
                v = nv;
                cap = nc;
            }
            int64_t idx = (int64_t)n;
            if (flag == NF_STEPMARK) {
                const char *t = model_str(m, m->name[s]) + 13;
                char *end;
                long long x = strtoll(t, &end, 10);
                if (end != t)
                    idx = x;
            }
            int8_t ph = flag == NF_ANNOT ? (int8_t)engine_annot_phase(model_str(m, m->name[s]), strtab_len(m->str, m->name[s])) : -1;
            v[n++] = (struct mark){ m->start[s], model_end(m, s), idx, ph };
        }
    }
    if (!n) {
        free(v);
        *nout = 0;
        return NULL;
    }
    qsort(v, n, sizeof *v, cmp_mark);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && v[i].start < v[k - 1].end)
            continue;           /* nested in (or overlapping) the previous marker */
        v[k++] = v[i];
    }
    if (flag != NF_STEPMARK)
        for (size_t i = 0; i < k; i++)
            v[i].index = (int64_t)i;
    *nout = k;
    return v;
}

/* The "Iteration N" slices of the Step Trace lanes (N from the name), sorted, outermost only. */
static struct mark *find_iterations(const struct ctx *c, size_t *nout)
{
    const struct model *m = c->m;
    size_t n = 0;
    struct mark *v = NULL;
    *nout = 0;
    for (uint32_t l = 0; l < m->nlanes; l++) {
        const struct lane *ln = &m->lanes[l];
        if (ln->kind != LANE_STEP_TRACE)
            continue;
        for (uint32_t s = ln->first; s < ln->first + ln->count; s++) {
            const char *name = model_str(m, m->name[s]), *t = name + 10;
            char *end;
            if (strncmp(name, "Iteration ", 10) || *t < '0' || *t > '9')
                continue;
            long long idx = strtoll(t, &end, 10);
            if (*end)
                continue;           /* "Iteration Refresh 3" and the like */
            struct mark *nv = realloc(v, (n + 1) * sizeof *nv);
            if (!nv) {
                free(v);
                return NULL;
            }
            v = nv;
            v[n++] = (struct mark){ m->start[s], model_end(m, s), idx, -1 };
        }
    }
    if (!n)
        return NULL;
    qsort(v, n, sizeof *v, cmp_mark);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!k || v[i].start >= v[k - 1].end)
            v[k++] = v[i];
    *nout = k;
    return v;
}

/* Window [start_i, start_{i+1}) holding t, or -1 before the first marker. */
static int32_t window_at(const struct mark *mk, size_t n, ns_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (mk[mid].start <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (int32_t)lo - 1;
}

/* Marker containing t (a zero-length one holds its whole window), or -1. */
static int32_t marker_at(const struct mark *mk, size_t n, ns_t t)
{
    int32_t w = window_at(mk, n, t);
    return w >= 0 && (t < mk[w].end || mk[w].end == mk[w].start) ? w : -1;
}

static ns_t launch_time(const struct model *m, uint32_t s)
{
    const uint32_t *fl;
    size_t nf = model_flows_to(m, s, &fl);
    ns_t best = NS_NONE;
    for (size_t i = 0; i < nf; i++) {
        const struct flow *f = &m->flows[fl[i]];
        if (f->src_ts != NS_NONE && (best == NS_NONE || f->src_ts > best))
            best = f->src_ts;
    }
    return best;
}

/* Assigns each device kernel to a marker; returns 0 or -1 (memory). */
static int assign_by_markers(struct ctx *c, const struct mark *mk, size_t nmk)
{
    const struct model *m = c->m;
    int32_t *last = malloc((m->nlanes + 1) * sizeof *last);
    bool *has_flow = calloc(m->nlanes + 1, sizeof *has_flow);
    if (!last || !has_flow) {
        free(last);
        free(has_flow);
        return -1;
    }
    ns_t *lt = malloc((c->ndev + 1) * sizeof *lt);
    if (!lt) {
        free(last);
        free(has_flow);
        return -1;
    }
    for (size_t i = 0; i < c->ndev; i++) {
        lt[i] = launch_time(m, c->dev[i].s);
        if (lt[i] != NS_NONE)
            has_flow[m->lane[c->dev[i].s]] = true;
    }
    for (uint32_t l = 0; l < m->nlanes; l++)
        last[l] = INT32_MIN;
    for (size_t i = 0; i < c->ndev; i++) {
        uint32_t s = c->dev[i].s, l = m->lane[s];
        int32_t st;
        if (lt[i] != NS_NONE)
            st = last[l] = marker_at(mk, nmk, lt[i]);
        else if (has_flow[l] && last[l] != INT32_MIN)
            st = last[l];
        else
            st = window_at(mk, nmk, c->dev[i].start);
        c->step_of[i] = st;
    }
    free(lt);
    free(last);
    free(has_flow);
    return 0;
}

/* --- period detection ----------------------------------------------------------------------- */

struct cand { uint32_t g; uint32_t name; uint32_t count; };

static int cmp_cand(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    if (x->g != y->g)
        return x->g < y->g ? -1 : 1;
    return x->count > y->count ? -1 : x->count < y->count;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

struct period_try {
    uint32_t *cuts;     /* indices into the stream sequence where steps begin */
    size_t ncuts;
    double strength;
    uint32_t g;
};

/* Places cuts for period g anchored at the occurrences pos[0..c) of one name; measures how
 * clearly the cuts sit in idle gaps. gap[i]: device idle before stream kernel i. */
static int try_period(const ns_t *gap, size_t n, const uint32_t *pos, size_t c, uint32_t g,
                      struct period_try *out)
{
    memset(out, 0, sizeof *out);
    out->g = g;
    int32_t half = (int32_t)g / 2;
    double best = -1;
    int32_t bestd = 0;
    for (int32_t d = -half; d < (int32_t)g - half; d++) {
        double sum = 0;
        for (size_t j = 0; j < c; j++) {
            int64_t p = (int64_t)pos[j] + d;
            if (p >= 0 && p < (int64_t)n)
                sum += log1p((double)gap[p] / 1000.0);
        }
        if (sum > best) {
            best = sum;
            bestd = d;
        }
    }
    uint32_t *cuts = malloc((2 * c + 2 + n / (g ? g : 1) * 2) * sizeof *cuts);
    if (!cuts)
        return -1;
    size_t nc = 0;
    int32_t w = (int32_t)g / 16 > 1 ? (int32_t)g / 16 : 1;
    cuts[nc++] = 0;
    for (size_t j = 0; j < c; j++) {
        int64_t p0 = (int64_t)pos[j] + bestd, bp = -1;
        for (int64_t p = p0 - w; p <= p0 + w; p++)
            if (p > 0 && p < (int64_t)n && (bp < 0 || gap[p] > gap[bp]))
                bp = p;
        if (bp > 0)
            cuts[nc++] = (uint32_t)bp;
    }
    qsort(cuts, nc, sizeof *cuts, cmp_u32);
    /* drop cuts too close to the previous one (extra anchors), keeping the larger gap */
    size_t k = 0;
    for (size_t i = 0; i < nc; i++) {
        if (k && cuts[i] - cuts[k - 1] < (g + 1) / 2) {
            if (k > 1 && gap[cuts[i]] > gap[cuts[k - 1]])
                cuts[k - 1] = cuts[i];
            continue;
        }
        cuts[k++] = cuts[i];
    }
    nc = k;
    /* fill holes (missing anchors): cut at the largest gap near the expected place */
    size_t cap = 2 * c + 2 + n / (g ? g : 1) * 2;
    uint32_t *fill = malloc(cap * sizeof *fill);
    if (!fill) {
        free(cuts);
        return -1;
    }
    size_t nf = 0;
    for (size_t i = 0; i < nc && nf < cap; i++) {
        fill[nf++] = cuts[i];
        uint64_t next = i + 1 < nc ? cuts[i + 1] : n;
        uint32_t at = cuts[i];
        while (next - at > g + g / 2 && nf < cap) {
            int64_t lo = (int64_t)at + g - g / 4, hi = (int64_t)at + g + g / 4, bp = -1;
            for (int64_t p = lo; p <= hi && p < (int64_t)next; p++)
                if (bp < 0 || gap[p] > gap[bp])
                    bp = p;
            if (bp < 0 || (uint64_t)bp >= next)
                break;
            fill[nf++] = (uint32_t)bp;
            at = (uint32_t)bp;
        }
    }
    free(cuts);
    out->cuts = fill;
    out->ncuts = nf;
    /* strength: lower quartile of cut gaps against the 90th percentile of the others */
    ns_t *cg = malloc((nf + 1) * sizeof *cg), *og = malloc((n + 1) * sizeof *og);
    if (!cg || !og) {
        free(cg);
        free(og);
        return -1;
    }
    size_t ncg = 0, nog = 0, ci = 0;
    for (size_t i = 1; i < n; i++) {
        while (ci < nf && fill[ci] < i)
            ci++;
        if (ci < nf && fill[ci] == i)
            cg[ncg++] = gap[i];
        else
            og[nog++] = gap[i];
    }
    if (ncg >= 1) {
        qsort(cg, ncg, sizeof *cg, cmp_ns);
        qsort(og, nog, sizeof *og, cmp_ns);
        ns_t q = pct_sorted(cg, ncg, 0.25), o = pct_sorted(og, nog, 0.90);
        if (o < 1000)
            o = 1000;
        out->strength = q >= 1000 ? (double)q / (double)o : 0;
    }
    free(cg);
    free(og);
    return 0;
}

/* Finds periodic steps on the busiest compute stream. Fills c->step_of and *out_steps;
 * returns the number of steps (0: none, note says why), or -1 (memory). */
static int detect_period(struct ctx *c, struct steps *st, ns_t **win_out)
{
    const struct model *m = c->m;
    /* busiest compute stream */
    uint32_t *cnt = calloc(m->nlanes + 1, sizeof *cnt);
    if (!cnt)
        return -1;
    for (size_t i = 0; i < c->ndev; i++)
        if (!is_comm_slice(c, c->dev[i].s))
            cnt[m->lane[c->dev[i].s]]++;
    uint32_t lane = LANE_NONE;
    for (uint32_t l = 0; l < m->nlanes; l++)
        if (cnt[l] && (lane == LANE_NONE || cnt[l] > cnt[lane]))
            lane = l;
    size_t n = lane == LANE_NONE ? 0 : cnt[lane];
    free(cnt);
    if (n < 4) {
        snprintf(st->note, sizeof st->note, "no periodic steps found: %zu compute kernels on the device", n);
        return 0;
    }
    st->stream_lane = lane;
    uint32_t *seq = malloc(n * sizeof *seq);       /* dev indices of the stream, by start */
    ns_t *gap = malloc(n * sizeof *gap);
    uint32_t *lname = malloc(n * sizeof *lname);    /* dense local name ids */
    uint32_t *map = malloc((c->nnames + 1) * sizeof *map);
    if (!seq || !gap || !lname || !map) {
        free(seq); free(gap); free(lname); free(map);
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < c->ndev; i++)
        if (m->lane[c->dev[i].s] == lane && !is_comm_slice(c, c->dev[i].s))
            seq[k++] = (uint32_t)i;
    /* idle device time before each stream kernel */
    ns_t run_end = NS_NONE, maxgap = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t s = c->dev[seq[i]].s;
        ns_t t = m->start[s];
        gap[i] = 0;
        if (run_end != NS_NONE && t > run_end)
            gap[i] = (t - run_end) - busy_in(&c->dbusy, run_end, t);
        if (gap[i] > maxgap)
            maxgap = gap[i];
        ns_t e = model_end(m, s);
        if (run_end == NS_NONE || e > run_end)
            run_end = e;
    }
    gap[0] = maxgap;
    /* dense names, occurrence lists by counting sort */
    for (uint32_t i = 0; i <= c->nnames; i++)
        map[i] = UINT32_MAX;
    uint32_t nl = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t nm = m->name[c->dev[seq[i]].s];
        if (nm > c->nnames)
            nm = c->nnames;
        if (map[nm] == UINT32_MAX)
            map[nm] = nl++;
        lname[i] = map[nm];
    }
    free(map);
    uint32_t *off = calloc(nl + 1, sizeof *off), *pos = malloc(n * sizeof *pos);
    uint32_t *fillp = malloc((nl + 1) * sizeof *fillp), *gtmp = malloc(n * sizeof *gtmp);
    struct cand *cand = malloc((nl + 1) * sizeof *cand);
    if (!off || !pos || !fillp || !gtmp || !cand) {
        free(off); free(pos); free(fillp); free(gtmp); free(cand);
        free(seq); free(gap); free(lname);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        off[lname[i] + 1]++;
    for (uint32_t i = 0; i < nl; i++)
        off[i + 1] += off[i];
    memcpy(fillp, off, nl * sizeof *fillp);
    for (size_t i = 0; i < n; i++)
        pos[fillp[lname[i]]++] = (uint32_t)i;
    free(fillp);
    /* candidate periods: names recurring at a regular interval through the whole stream */
    size_t ncand = 0;
    for (uint32_t a = 0; a < nl; a++) {
        uint32_t cc = off[a + 1] - off[a];
        if (cc < 2)
            continue;
        const uint32_t *p = &pos[off[a]];
        for (uint32_t j = 0; j + 1 < cc; j++)
            gtmp[j] = p[j + 1] - p[j];
        qsort(gtmp, cc - 1, sizeof *gtmp, cmp_u32);
        uint32_t g = gtmp[(cc - 1) / 2];
        if (g < 2 || (size_t)g * 2 > n)
            continue;
        uint32_t reg = 0;
        for (uint32_t j = 0; j + 1 < cc; j++)
            if (gtmp[j] * 4 >= g * 3 && gtmp[j] * 4 <= g * 5)
                reg++;
        if (reg * 10 < (cc - 1) * 7 || (uint64_t)(cc - 1) * g * 2 < n)
            continue;
        cand[ncand++] = (struct cand){ g, a, cc };
    }
    free(gtmp);
    qsort(cand, ncand, sizeof *cand, cmp_cand);
    /* one representative per period (within 3%), at most MAX_CANDIDATES */
    size_t nrep = 0;
    for (size_t i = 0; i < ncand; i++) {
        if (nrep && (uint64_t)cand[i].g * 100 <= (uint64_t)cand[nrep - 1].g * 103) {
            continue;
        }
        cand[nrep++] = cand[i];
    }
    struct period_try best = { 0 };
    double best_strength = 0;
    struct period_try tries[MAX_CANDIDATES];
    size_t ntries = 0;
    for (size_t i = 0; i < nrep && ntries < MAX_CANDIDATES; i++) {
        uint32_t g = cand[i].g;
        size_t match = 0;
        /* a missing or extra kernel shifts the rest of a step: allow a drift of 2 */
        size_t drift = g >= 8 ? 2 : g >= 4 ? 1 : 0;
        for (size_t j = 0; j + g < n; j++) {
            size_t lo = j + g - drift, hi = j + g + drift < n ? j + g + drift : n - 1;
            for (size_t q = lo; q <= hi; q++)
                if (lname[q] == lname[j]) {
                    match++;
                    break;
                }
        }
        if (match * 2 < n - g)
            continue;
        struct period_try t;
        if (try_period(gap, n, &pos[off[cand[i].name]], cand[i].count, g, &t) < 0) {
            free(t.cuts);
            continue;
        }
        if (t.strength < 3.0 || t.ncuts < 2) {
            free(t.cuts);
            continue;
        }
        if (t.strength > best_strength)
            best_strength = t.strength;
        tries[ntries++] = t;
    }
    for (size_t i = 0; i < ntries; i++) {       /* tries are by increasing period */
        if (!best.cuts && tries[i].strength >= 0.7 * best_strength)
            best = tries[i];
        else
            free(tries[i].cuts);
    }
    free(off);
    free(pos);
    free(cand);
    free(lname);
    int nsteps = 0;
    if (!best.cuts) {
        snprintf(st->note, sizeof st->note,
                 "no periodic steps found: no kernel sequence on the busiest stream repeats with idle gaps between repeats");
    } else {
        /* windows: a step begins where the device went idle before its first stream kernel */
        ns_t *win = malloc((best.ncuts + 1) * sizeof *win);
        if (!win) {
            free(best.cuts);
            free(seq);
            free(gap);
            return -1;
        }
        ns_t re = NS_NONE;
        size_t ci = 0;
        for (size_t i = 0; i < n; i++) {
            uint32_t s = c->dev[seq[i]].s;
            if (ci < best.ncuts && best.cuts[ci] == i) {
                win[ci] = ci == 0 ? INT64_MIN : longest_hole(&c->dbusy, re, m->start[s]);
                ci++;
            }
            ns_t e = model_end(m, s);
            if (re == NS_NONE || e > re)
                re = e;
        }
        win[best.ncuts] = INT64_MAX;
        for (size_t i = 0; i < c->ndev; i++) {
            ns_t t = c->dev[i].start;
            size_t lo = 0, hi = best.ncuts;      /* last window starting <= t */
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (win[mid] <= t)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            c->step_of[i] = (int32_t)lo - 1;
            if (c->step_of[i] < 0)
                c->step_of[i] = 0;
        }
        /* stream kernels follow the cut indices exactly */
        ci = 0;
        for (size_t i = 0; i < n; i++) {
            while (ci + 1 < best.ncuts && best.cuts[ci + 1] <= i)
                ci++;
            c->step_of[seq[i]] = (int32_t)ci;
        }
        nsteps = (int)best.ncuts;
        st->period_kernels = best.g;
        *win_out = win;
        snprintf(st->note, sizeof st->note,
                 "steps from the device: a sequence of about %u kernels on the busiest stream repeats %d times",
                 best.g, nsteps);
        free(best.cuts);
    }
    free(seq);
    free(gap);
    return nsteps;
}

/* --- per-step figures ----------------------------------------------------------------------- */

static ns_t union_len(ns_t (*iv)[2], size_t n)
{
    /* iv sorted by start */
    ns_t tot = 0, a = 0, b = 0;
    bool open = false;
    for (size_t i = 0; i < n; i++) {
        if (!open || iv[i][0] > b) {
            if (open)
                tot += b - a;
            a = iv[i][0];
            b = iv[i][1];
            open = true;
        } else if (iv[i][1] > b) {
            b = iv[i][1];
        }
    }
    if (open)
        tot += b - a;
    return tot;
}

static int cmp_iv(const void *x, const void *y)
{
    const ns_t *a = x, *b = y;
    return a[0] < b[0] ? -1 : a[0] > b[0];
}

static void clip_add(ns_t (*iv)[2], size_t *n, ns_t s, ns_t e, ns_t t0, ns_t t1)
{
    if (s < t0)
        s = t0;
    if (e > t1)
        e = t1;
    if (e > s) {
        iv[*n][0] = s;
        iv[*n][1] = e;
        (*n)++;
    }
}

/* Computing / communication not overlapped / free of step st. */
static int breakdown(const struct ctx *c, struct steps *ss, struct step *st,
                     const uint32_t *comm_lanes, size_t ncomm_lanes)
{
    const struct model *m = c->m;
    ns_t t0 = st->start, t1 = st->end;
    if (t1 <= t0)
        return 0;
    uint32_t lc = LANE_NONE, lk = LANE_NONE, lf = LANE_NONE;
    for (uint32_t l = 0; l < m->nlanes; l++) {
        if (m->lanes[l].kind != LANE_OVERLAP)
            continue;
        const char *nm = model_str(m, m->lanes[l].name);
        if (!strcmp(nm, "Computing"))
            lc = l;
        else if (!strcmp(nm, "Communication(Not Overlapped)"))
            lk = l;
        else if (!strcmp(nm, "Free"))
            lf = l;
    }
    if (lc != LANE_NONE || lk != LANE_NONE || lf != LANE_NONE) {
        ss->overlap_lanes = true;
        st->computing = lc != LANE_NONE ? model_busy(m, lc, t0, t1) : 0;
        st->comm_not_overlapped = lk != LANE_NONE ? model_busy(m, lk, t0, t1) : 0;
        st->free_time = lf != LANE_NONE ? model_busy(m, lf, t0, t1) : 0;
        return 0;
    }
    /* from the lanes: compute kernels of the step, communication on device and comm lanes */
    size_t cap = st->kernels + 1;
    for (size_t i = 0; i < ncomm_lanes; i++) {
        uint32_t a, b;
        const struct lane *ln = &m->lanes[comm_lanes[i]];
        for (uint32_t d = 0; d < ln->ndepth; d++) {
            model_row_range(m, comm_lanes[i], d, t0, t1, &a, &b);
            cap += b - a;
        }
    }
    ns_t (*cv)[2] = malloc(cap * sizeof *cv), (*kv)[2] = malloc(cap * sizeof *kv),
         (*allv)[2] = malloc(cap * sizeof *allv);
    if (!cv || !kv || !allv) {
        free(cv); free(kv); free(allv);
        return -1;
    }
    size_t nc = 0, nk = 0;
    for (uint32_t i = 0; i < st->kernels; i++) {
        uint32_t s = ss->kernel[st->first + i];
        if (nflags(c, m->name[s]) & NF_COMM)
            clip_add(kv, &nk, m->start[s], model_end(m, s), t0, t1);
        else
            clip_add(cv, &nc, m->start[s], model_end(m, s), t0, t1);
    }
    for (size_t i = 0; i < ncomm_lanes; i++) {
        const struct lane *ln = &m->lanes[comm_lanes[i]];
        for (uint32_t d = 0; d < ln->ndepth; d++) {
            uint32_t a, b;
            model_row_range(m, comm_lanes[i], d, t0, t1, &a, &b);
            for (uint32_t s = a; s < b; s++)
                clip_add(kv, &nk, m->start[s], model_end(m, s), t0, t1);
        }
    }
    qsort(cv, nc, sizeof *cv, cmp_iv);
    qsort(kv, nk, sizeof *kv, cmp_iv);
    memcpy(allv, cv, nc * sizeof *cv);
    memcpy(allv + nc, kv, nk * sizeof *kv);
    qsort(allv, nc + nk, sizeof *allv, cmp_iv);
    ns_t uc = union_len(cv, nc), ua = union_len(allv, nc + nk);
    st->computing = uc;
    st->comm_not_overlapped = ua - uc;
    st->free_time = (t1 - t0) - ua;
    free(cv); free(kv); free(allv);
    return 0;
}

/* --- phases ---------------------------------------------------------------------------------- */

/* Dimensions of the k-th ';'-separated shape in text (quotes ignored); returns the count. */
static int shape_dims(const char *s, int k, long long *dims, int max)
{
    while (k > 0 && *s) {
        if (*s++ == ';')
            k--;
    }
    if (k > 0)
        return -1;
    int n = 0;
    while (*s && *s != ';') {
        if (*s >= '0' && *s <= '9') {
            char *end;
            long long v = strtoll(s, &end, 10);
            if (n < max)
                dims[n] = v;
            n++;
            s = end;
        } else {
            s++;
        }
    }
    return n < max ? n : max;
}

/* Finds the kernel table's row of a slice: through the table's join when it was made, else
 * by the same start time and name (rows sorted by start once). */
struct rowfind {
    const struct table *t;
    const struct model *m;
    uint32_t *rows;         /* rows by start time (own index), NULL when the join is used */
    size_t n, cstart, cname;
};

static int cmp_row_start(const void *a, const void *b, void *arg)
{
    const struct rowfind *f = arg;
    int64_t x = table_time(f->t, *(const uint32_t *)a, f->cstart);
    int64_t y = table_time(f->t, *(const uint32_t *)b, f->cstart);
    return x < y ? -1 : x > y;
}

static void rowfind_init(struct rowfind *f, const struct table *t, const struct model *m)
{
    memset(f, 0, sizeof *f);
    f->m = m;
    if (!t)
        return;
    f->t = t;
    if (t->slice && t->by_slice)
        return;
    f->cstart = table_col(t, "start_time(us)");
    f->cname = table_col(t, "name");
    if (f->cstart == SIZE_MAX || f->cname == SIZE_MAX || t->cols[f->cstart].type != TC_TIME ||
        t->cols[f->cname].type == TC_NUM || t->cols[f->cname].type == TC_TIME ||
        !(f->rows = malloc((t->nrows + 1) * sizeof *f->rows))) {
        f->t = NULL;
        return;
    }
    for (size_t r = 0; r < t->nrows; r++)
        if (table_time(t, r, f->cstart) != NS_NONE)
            f->rows[f->n++] = (uint32_t)r;
    qsort_r(f->rows, f->n, sizeof *f->rows, cmp_row_start, f);
}

static size_t table_row_of(const struct rowfind *f, uint32_t s)
{
    const struct table *t = f->t;
    if (!t)
        return SIZE_MAX;
    if (!f->rows)
        return kernels_row_for_slice(t, s);
    ns_t st = f->m->start[s];
    size_t lo = 0, hi = f->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (table_time(t, f->rows[mid], f->cstart) < st)
            lo = mid + 1;
        else
            hi = mid;
    }
    const char *nm = model_str(f->m, f->m->name[s]);
    for (; lo < f->n && table_time(t, f->rows[lo], f->cstart) == st; lo++)
        if (!strcmp(table_text(t, f->rows[lo], f->cname), nm))
            return f->rows[lo];
    return SIZE_MAX;
}

/* Phase of a FusedInferAttentionScore kernel from its shapes (see steps.h), or -1. */
static int fias_phase(const struct rowfind *f, uint32_t s)
{
    const struct table *t = f->t;
    size_t r = table_row_of(f, s);
    if (r == SIZE_MAX)
        return -1;
    size_t cs = table_col(t, "input_shapes"), ct = table_col(t, "input_data_types");
    if (cs == SIZE_MAX || t->cols[cs].type == TC_NUM || t->cols[cs].type == TC_TIME)
        return -1;
    const char *sh = table_text(t, r, cs);
    long long d[8];
    int nd = shape_dims(sh, 0, d, 8);
    if (nd < 2)
        return -1;
    long long tok = nd == 4 ? d[0] * d[2] : d[0], req = -1;
    if (ct != SIZE_MAX && t->cols[ct].type != TC_NUM && t->cols[ct].type != TC_TIME) {
        const char *ty = table_text(t, r, ct);
        for (int k = 1; k < 32 && *ty; k++) {
            const char *semi = strchr(ty, ';');
            ty = semi ? semi + 1 : ty + strlen(ty);
            while (*ty == '"' || *ty == ' ')
                ty++;
            if (strncasecmp(ty, "INT32", 5))
                continue;
            long long bd[8];
            if (shape_dims(sh, k, bd, 8) == 2) {
                req = bd[0];
                break;
            }
        }
    }
    if (req > 0 && tok == req)
        return PHASE_DECODE;
    if (req > 1 && tok > req)
        return PHASE_MIXED;
    if (req == 1 && tok > 1)
        return PHASE_PREFILL;
    return -1;
}

static void classify_phases(const struct ctx *c, struct steps *ss, const struct table *kt)
{
    const struct model *m = c->m;
    uint8_t *fl = calloc(ss->n + 1, 1);
    ns_t *fd = malloc((ss->n + 1) * sizeof *fd);
    if (!fl || !fd) {
        free(fl);
        free(fd);
        return;
    }
    size_t nfd = 0;
    for (size_t i = 0; i < ss->n; i++) {
        struct step *st = &ss->v[i];
        for (uint32_t j = 0; j < st->kernels; j++)
            fl[i] |= nflags(c, m->name[ss->kernel[st->first + j]]) & (NF_PREFILL | NF_DECODE | NF_FIAS);
        if (fl[i])   /* every step with attention: a lone FIAS prefill among IFA decodes stands out */
            fd[nfd++] = st->end - st->start;
    }
    qsort(fd, nfd, sizeof *fd, cmp_ns);
    struct rowfind rf;
    rowfind_init(&rf, nfd ? kt : NULL, m);
    ns_t fmed = pct_sorted(fd, nfd, 0.5);
    for (size_t i = 0; i < ss->n; i++) {
        struct step *st = &ss->v[i];
        bool p = fl[i] & NF_PREFILL, d = fl[i] & NF_DECODE;
        if (st->annot_phase >= 0)
            st->phase = (enum step_phase)st->annot_phase;   /* the engine said */
        else if (p && d)
            st->phase = PHASE_MIXED;
        else if (p)
            st->phase = PHASE_PREFILL;
        else if (d)
            st->phase = PHASE_DECODE;
        else if (fl[i] & NF_FIAS) {
            int ph = -1;
            for (uint32_t j = 0; j < st->kernels && ph < 0 && rf.t; j++) {
                uint32_t ks = ss->kernel[st->first + j];
                if (nflags(c, m->name[ks]) & NF_FIAS)
                    ph = fias_phase(&rf, ks);
            }
            if (ph >= 0)
                st->phase = (enum step_phase)ph;
            else
                st->phase = (st->end - st->start) <= 2 * fmed ? PHASE_DECODE : PHASE_PREFILL;
        }
        else
            st->phase = PHASE_OTHER;
    }
    free(rf.rows);
    free(fl);
    free(fd);
}

static void phase_stats(struct steps *ss)
{
    ns_t *v = malloc((ss->n + 1) * sizeof *v), *dev = malloc((ss->n + 1) * sizeof *dev);
    if (!v || !dev) {
        free(v);
        free(dev);
        return;
    }
    for (int p = 0; p < PHASE_COUNT; p++) {
        size_t k = 0;
        for (size_t i = 0; i < ss->n; i++)
            if (ss->v[i].phase == (enum step_phase)p)
                v[k++] = ss->v[i].end - ss->v[i].start;
        struct phase_stat *ps = &ss->phase[p];
        memset(ps, 0, sizeof *ps);
        ps->count = (uint32_t)k;
        if (!k)
            continue;
        qsort(v, k, sizeof *v, cmp_ns);
        ps->p50 = pct_sorted(v, k, 0.5);
        ps->p90 = pct_sorted(v, k, 0.9);
        ps->p99 = pct_sorted(v, k, 0.99);
        ps->max = v[k - 1];
        for (size_t i = 0; i < k; i++)
            dev[i] = v[i] > ps->p50 ? v[i] - ps->p50 : ps->p50 - v[i];
        qsort(dev, k, sizeof *dev, cmp_ns);
        ps->mad = pct_sorted(dev, k, 0.5);
        ns_t mad = ps->mad > ps->p50 / 100 ? ps->mad : ps->p50 / 100;
        for (size_t i = 0; i < ss->n; i++)
            if (ss->v[i].phase == (enum step_phase)p)
                ss->v[i].outlier = k >= 3 && ss->v[i].end - ss->v[i].start > ps->p50 + 3 * mad;
    }
    free(v);
    free(dev);
}

/* --- main entry ------------------------------------------------------------------------------ */

static void ctx_done(struct ctx *c)
{
    free(c->nf);
    free(c->dev);
    free(c->step_of);
    busy_done(&c->dbusy);
}

/* Groups kernels by step (c->step_of) into ss->v / ss->kernel. */
static int build_steps(struct ctx *c, struct steps *ss, size_t nsteps, const struct mark *mk,
                       const ns_t *win)
{
    const struct model *m = c->m;
    ss->v = calloc(nsteps + 1, sizeof *ss->v);
    uint32_t *cnt = calloc(nsteps + 1, sizeof *cnt);
    if (!ss->v || !cnt) {
        free(cnt);
        return -1;
    }
    size_t tot = 0;
    for (size_t i = 0; i < c->ndev; i++)
        if (c->step_of[i] >= 0 && (size_t)c->step_of[i] < nsteps) {
            cnt[c->step_of[i]]++;
            tot++;
        }
    ss->kernel = malloc((tot + 1) * sizeof *ss->kernel);
    if (!ss->kernel) {
        free(cnt);
        return -1;
    }
    ss->nkernel = tot;
    uint32_t acc = 0;
    for (size_t k = 0; k < nsteps; k++) {
        ss->v[k].first = acc;
        acc += cnt[k];
        ss->v[k].kernels = 0;
    }
    for (size_t i = 0; i < c->ndev; i++) {
        int32_t k = c->step_of[i];
        if (k < 0 || (size_t)k >= nsteps)
            continue;
        struct step *st = &ss->v[k];
        ss->kernel[st->first + st->kernels++] = c->dev[i].s;
    }
    free(cnt);
    /* drop steps without kernels, keep order */
    size_t n = 0;
    for (size_t k = 0; k < nsteps; k++) {
        struct step st = ss->v[k];
        if (!st.kernels)
            continue;
        st.index = mk ? mk[k].index : (int64_t)k;
        st.annot_phase = mk ? mk[k].phase : -1;
        st.mark_start = mk ? mk[k].start : (win && win[k] != INT64_MIN ? win[k] : NS_NONE);
        st.mark_end = mk ? mk[k].end : (win && win[k + 1] != INT64_MAX ? win[k + 1] : NS_NONE);
        st.start = INT64_MAX;
        st.end = INT64_MIN;
        for (uint32_t j = 0; j < st.kernels; j++) {
            uint32_t s = ss->kernel[st.first + j];
            if (m->start[s] < st.start)
                st.start = m->start[s];
            if (model_end(m, s) > st.end)
                st.end = model_end(m, s);
        }
        ss->v[n++] = st;
    }
    ss->n = n;
    if (!mk)
        for (size_t k = 0; k < n; k++)
            ss->v[k].index = (int64_t)k;
    return 0;
}

struct steps *steps_detect(const struct model *m, const struct table *kernels)
{
    struct steps *ss = calloc(1, sizeof *ss);
    if (!ss)
        return NULL;
    ss->m = m;
    ss->stream_lane = LANE_NONE;
    struct ctx c = { .m = m };
    if (!m || !m->finalized) {
        snprintf(ss->note, sizeof ss->note, "no steps: no timeline");
        return ss;
    }
    c.nnames = strtab_count(m->str);
    c.nf = calloc(c.nnames + 1, sizeof *c.nf);
    if (!c.nf)
        goto oom;
    for (uint32_t i = 0; i < c.nnames; i++) {
        const char *s = strtab_get(m->str, i);
        c.nf[i] = classify_name(s, strtab_len(m->str, i));
    }
    size_t ndev = 0;
    for (uint32_t l = 0; l < m->nlanes; l++)
        if (m->lanes[l].kind == LANE_DEVICE)
            ndev += m->lanes[l].count;
    c.dev = malloc((ndev + 1) * sizeof *c.dev);
    c.step_of = malloc((ndev + 1) * sizeof *c.step_of);
    if (!c.dev || !c.step_of)
        goto oom;
    /* the profiler's start and stop tasks sit on the device lanes but are no work of any
     * step: counted in, the last step would stretch to the moment profiling stopped */
    for (uint32_t l = 0; l < m->nlanes; l++)
        if (m->lanes[l].kind == LANE_DEVICE)
            for (uint32_t s = m->lanes[l].first; s < m->lanes[l].first + m->lanes[l].count; s++)
                if (!(nflags(&c, m->name[s]) & NF_PROFCTL))
                    c.dev[c.ndev++] = (struct kev){ m->start[s], s };
    qsort(c.dev, c.ndev, sizeof *c.dev, cmp_kev);
    if (busy_build(&c.dbusy, m, c.dev, c.ndev) < 0)
        goto oom;
    if (!c.ndev) {
        snprintf(ss->note, sizeof ss->note, "no steps: no device kernels in the capture");
        ctx_done(&c);
        return ss;
    }

    static const uint16_t marker_kinds[] = { NF_STEPMARK, NF_ANNOT, NF_EXEC, NF_CORESTEP };
    size_t nmk = 0;
    struct mark *mk = find_iterations(&c, &nmk);
    if (nmk) {
        /* a kernel outside every iteration belongs to none (msprof's own rule) */
        ss->source = STEP_SRC_STEP_TRACE;
        for (size_t i = 0; i < c.ndev; i++)
            c.step_of[i] = marker_at(mk, nmk, c.dev[i].start);
        if (build_steps(&c, ss, nmk, mk, NULL) < 0) {
            free(mk);
            goto oom;
        }
        snprintf(ss->note, sizeof ss->note, "steps from %zu Iteration slices of the Step Trace lane", nmk);
        if (!ss->n) {
            free(ss->v);
            free(ss->kernel);
            ss->v = NULL;
            ss->kernel = NULL;
            ss->nkernel = 0;
            ss->source = STEP_SRC_NONE;
            nmk = 0;
        }
    }
    free(mk);
    mk = NULL;
    for (size_t i = 0; i < sizeof marker_kinds / sizeof *marker_kinds && !nmk; i++) {
        mk = find_markers(&c, marker_kinds[i], &nmk);
        if (nmk) {
            ss->source = i == 0 ? STEP_SRC_MARKERS : i == 1 ? STEP_SRC_ANNOTATION : STEP_SRC_HOST;
            if (assign_by_markers(&c, mk, nmk) < 0) {
                free(mk);
                goto oom;
            }
            if (build_steps(&c, ss, nmk, mk, NULL) < 0) {
                free(mk);
                goto oom;
            }
            snprintf(ss->note, sizeof ss->note, "steps from %zu host markers (%s)", nmk,
                     i == 0 ? "ProfilerStep#N" : i == 1 ? "serving engine step annotations" : i == 2 ? "execute_model" : "EngineCore.step");
            if (!ss->n) {       /* markers without device work: try the device */
                free(ss->v);
                free(ss->kernel);
                ss->v = NULL;
                ss->kernel = NULL;
                ss->nkernel = 0;
                ss->source = STEP_SRC_NONE;
                nmk = 0;
            }
        }
        free(mk);
        mk = NULL;
    }
    if (!ss->n) {
        ns_t *win = NULL;
        int k = detect_period(&c, ss, &win);
        if (k < 0)
            goto oom;
        if (k > 0) {
            ss->source = STEP_SRC_PERIOD;
            if (build_steps(&c, ss, (size_t)k, NULL, win) < 0) {
                free(win);
                goto oom;
            }
        }
        free(win);
    }
    /* figures */
    uint32_t *comm_lanes = malloc((m->nlanes + 1) * sizeof *comm_lanes);
    if (!comm_lanes)
        goto oom;
    size_t ncl = 0;
    for (uint32_t l = 0; l < m->nlanes; l++)
        if (m->lanes[l].kind == LANE_COMM)
            comm_lanes[ncl++] = l;
    for (size_t i = 0; i < ss->n; i++) {
        struct step *st = &ss->v[i];
        st->busy = busy_in(&c.dbusy, st->start, st->end);
        st->gap_before = i ? st->start - ss->v[i - 1].end : NS_NONE;
        if (st->gap_before != NS_NONE && st->gap_before < 0)
            st->gap_before = 0;
        ns_t lt = launch_time(m, ss->kernel[st->first]);
        st->launch = lt != NS_NONE ? st->start - lt : NS_NONE;
        if (breakdown(&c, ss, st, comm_lanes, ncl) < 0) {
            free(comm_lanes);
            goto oom;
        }
    }
    free(comm_lanes);
    classify_phases(&c, ss, kernels);
    phase_stats(ss);
    ctx_done(&c);
    return ss;
oom:
    ctx_done(&c);
    steps_free(ss);
    return NULL;
}

void steps_free(struct steps *s)
{
    if (!s)
        return;
    free(s->v);
    free(s->kernel);
    free(s);
}

const uint32_t *steps_kernels(const struct steps *s, size_t i, size_t *n)
{
    if (!s || i >= s->n) {
        *n = 0;
        return NULL;
    }
    *n = s->v[i].kernels;
    return &s->kernel[s->v[i].first];
}

size_t steps_at(const struct steps *s, ns_t t)
{
    if (!s || !s->n)
        return SIZE_MAX;
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->v[mid].start <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || t >= s->v[lo - 1].end)
        return SIZE_MAX;
    return lo - 1;
}

/* --- rowsets ------------------------------------------------------------------------------- */

struct rowset *steps_rowset(const struct steps *s)
{
    struct rowset *rs = rowset_new("steps");
    if (!rs)
        return NULL;
    size_t c_idx = rowset_col(rs, "index", "Step", RS_INT, 0);
    size_t c_ph = rowset_col(rs, "phase", "Phase", RS_STR, 0);
    size_t c_st = rowset_col(rs, "start_us", "Start µs", RS_NS, 0);
    size_t c_du = rowset_col(rs, "dur_us", "Dur µs", RS_NS, 0);
    size_t c_k = rowset_col(rs, "kernels", "Kernels", RS_INT, 0);
    size_t c_b = rowset_col(rs, "busy_share", "Busy", RS_PCT, 1);
    size_t c_cp = rowset_col(rs, "computing_us", "Computing µs", RS_NS, 0);
    size_t c_cm = rowset_col(rs, "comm_not_overlapped_us", "Comm not ovl µs", RS_NS, 0);
    size_t c_fr = rowset_col(rs, "free_us", "Free µs", RS_NS, 0);
    size_t c_gap = rowset_col(rs, "gap_before_us", "Gap before µs", RS_NS, 0);
    size_t c_la = rowset_col(rs, "launch_us", "Launch µs", RS_NS, 0);
    size_t c_out = rowset_col(rs, "outlier", "Outlier", RS_STR, 0);
    size_t c_src = rowset_col(rs, "source", "Source", RS_STR, 0);
    if (s && s->note[0])
        rowset_caption(rs, "%s", s->note);
    for (size_t i = 0; s && i < s->n; i++) {
        const struct step *st = &s->v[i];
        size_t r = rowset_row(rs);
        if (r == SIZE_MAX)
            break;
        ns_t d = st->end - st->start;
        rowset_int(rs, r, c_idx, st->index);
        rowset_str(rs, r, c_ph, step_phase_name(st->phase));
        rowset_ns(rs, r, c_st, st->start);
        rowset_ns(rs, r, c_du, d);
        rowset_int(rs, r, c_k, st->kernels);
        rowset_num(rs, r, c_b, d > 0 ? (double)st->busy / (double)d : 0.0);
        rowset_ns(rs, r, c_cp, st->computing);
        rowset_ns(rs, r, c_cm, st->comm_not_overlapped);
        rowset_ns(rs, r, c_fr, st->free_time);
        if (st->gap_before != NS_NONE)
            rowset_ns(rs, r, c_gap, st->gap_before);
        if (st->launch != NS_NONE)
            rowset_ns(rs, r, c_la, st->launch);
        rowset_str(rs, r, c_out, st->outlier ? "yes" : "");
        rowset_str(rs, r, c_src, step_source_name(s->source));
        rs->link[r] = i;
    }
    return rs;
}

struct rowset *steps_phase_rowset(const struct steps *s)
{
    struct rowset *rs = rowset_new("phases");
    if (!rs)
        return NULL;
    size_t c_ph = rowset_col(rs, "phase", "Phase", RS_STR, 0);
    size_t c_n = rowset_col(rs, "count", "Steps", RS_INT, 0);
    size_t c_50 = rowset_col(rs, "p50_us", "p50 µs", RS_NS, 0);
    size_t c_90 = rowset_col(rs, "p90_us", "p90 µs", RS_NS, 0);
    size_t c_99 = rowset_col(rs, "p99_us", "p99 µs", RS_NS, 0);
    size_t c_mx = rowset_col(rs, "max_us", "Max µs", RS_NS, 0);
    size_t c_o = rowset_col(rs, "outliers", "Outliers", RS_INT, 0);
    for (int p = 0; s && p < PHASE_COUNT; p++) {
        const struct phase_stat *ps = &s->phase[p];
        if (!ps->count)
            continue;
        size_t r = rowset_row(rs);
        if (r == SIZE_MAX)
            break;
        int64_t no = 0;
        for (size_t i = 0; i < s->n; i++)
            no += s->v[i].phase == (enum step_phase)p && s->v[i].outlier;
        rowset_str(rs, r, c_ph, step_phase_name((enum step_phase)p));
        rowset_int(rs, r, c_n, ps->count);
        rowset_ns(rs, r, c_50, ps->p50);
        rowset_ns(rs, r, c_90, ps->p90);
        rowset_ns(rs, r, c_99, ps->p99);
        rowset_ns(rs, r, c_mx, ps->max);
        rowset_int(rs, r, c_o, no);
        rs->link[r] = (uint64_t)p;
    }
    return rs;
}

static int cmp_u32v(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

struct rowset *steps_canonical_rowset(const struct steps *s, size_t slow)
{
    if (!s || !s->n)
        return NULL;
    const struct model *m = s->m;
    /* the usual kernel count of decode steps */
    uint32_t *kc = malloc(s->n * sizeof *kc);
    if (!kc)
        return NULL;
    size_t nd = 0;
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].phase == PHASE_DECODE)
            kc[nd++] = s->v[i].kernels;
    if (!nd) {
        free(kc);
        return NULL;
    }
    qsort(kc, nd, sizeof *kc, cmp_u32v);
    uint32_t mode = kc[0], best = 0;
    for (size_t i = 0; i < nd;) {
        size_t j = i;
        while (j < nd && kc[j] == kc[i])
            j++;
        if (j - i > best) {
            best = (uint32_t)(j - i);
            mode = kc[i];
        }
        i = j;
    }
    free(kc);
    size_t npos = mode, nsamp = best;
    ns_t *d = malloc((nsamp * npos + 1) * sizeof *d), *col = malloc((nsamp + 1) * sizeof *col);
    uint32_t *ref = NULL;
    struct rowset *rs = NULL;
    if (!d || !col)
        goto out;
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        const struct step *st = &s->v[i];
        if (st->phase != PHASE_DECODE || st->kernels != mode)
            continue;
        if (!ref)
            ref = &s->kernel[st->first];
        for (size_t p = 0; p < npos; p++)
            d[p * nsamp + k] = m->dur[s->kernel[st->first + p]];
        k++;
    }
    rs = rowset_new("canonical_decode");
    if (!rs)
        goto out;
    size_t c_pos = rowset_col(rs, "position", "#", RS_INT, 0);
    size_t c_nm = rowset_col(rs, "name", "Kernel", RS_STR, 0);
    size_t c_md = rowset_col(rs, "median_us", "Median µs", RS_NS, 0);
    size_t c_90 = rowset_col(rs, "p90_us", "p90 µs", RS_NS, 0);
    size_t c_sd = SIZE_MAX, c_gr = SIZE_MAX;
    /* a step is compared only with steps of its own phase: the canonical step is decode */
    const struct step *sel = slow < s->n && s->v[slow].phase == PHASE_DECODE ? &s->v[slow] : NULL;
    if (sel) {
        c_sd = rowset_col(rs, "step_us", "Step µs", RS_NS, 0);
        c_gr = rowset_col(rs, "grew_us", "Grew µs", RS_NS, 0);
    }
    if (slow < s->n && !sel)
        rowset_caption(rs, "canonical decode step: %zu kernels, from %zu decode steps; step %lld is %s, "
                       "compared only with steps of its own phase", npos, nsamp, (long long)s->v[slow].index,
                       step_phase_name(s->v[slow].phase));
    else
        rowset_caption(rs, "canonical decode step: %zu kernels, from %zu decode steps", npos, nsamp);
    size_t sj = 0;      /* position in the selected step, aligned by name */
    for (size_t p = 0; p < npos; p++) {
        memcpy(col, &d[p * nsamp], nsamp * sizeof *col);
        qsort(col, nsamp, sizeof *col, cmp_ns);
        size_t r = rowset_row(rs);
        if (r == SIZE_MAX)
            break;
        ns_t med = pct_sorted(col, nsamp, 0.5);
        rowset_int(rs, r, c_pos, (int64_t)p);
        rowset_str(rs, r, c_nm, model_str(m, m->name[ref[p]]));
        rowset_ns(rs, r, c_md, med);
        rowset_ns(rs, r, c_90, pct_sorted(col, nsamp, 0.9));
        rs->link[r] = ref[p];
        if (sel) {
            /* resynchronise over a few missing or extra kernels */
            size_t hit = SIZE_MAX;
            for (size_t look = 0; look < 4 && sj + look < sel->kernels; look++)
                if (m->name[s->kernel[sel->first + sj + look]] == m->name[ref[p]]) {
                    hit = sj + look;
                    break;
                }
            if (hit != SIZE_MAX) {
                uint32_t ks = s->kernel[sel->first + hit];
                rowset_ns(rs, r, c_sd, m->dur[ks]);
                rowset_ns(rs, r, c_gr, m->dur[ks] - med);
                rs->link[r] = ks;
                sj = hit + 1;
            }
        }
    }
out:
    free(d);
    free(col);
    return rs;
}
