/* Step detection: kernel names classified, steps found from markers, host iterations or a
 * period, and built; the rules are described in steps.h. Period detection is in
 * steps_period.c, per-step figures and phases in steps_phase.c, tables in steps_rowset.c. */
#include "model/analysis/steps.h"
#include "util/search.h"
#include "util/grow.h"
#include "model/analysis/steps_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/analysis/comm.h"
#include "model/analysis/engine_annot.h"
#include "model/analysis/kernels.h"
#include "model/index/table.h"
#include "util/free_all.h"

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

int steps_cmp_ns(const void *a, const void *b)
{
    ns_t x = *(const ns_t *)a, y = *(const ns_t *)b;
    return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of a sorted array. */
ns_t steps_pct_sorted(const ns_t *v, size_t n, double p)
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

static int cmp_kev(const void *a, const void *b)
{
    const struct kev *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->s < y->s ? -1 : x->s > y->s;
}

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
    FREE_ALL(u->a, u->b, u->pre);
}

/* Covered length of [0, t). */
static ns_t busy_upto(const struct busy *u, ns_t t)
{
    size_t lo = lower_bound_i64(u->a, 0, u->n, t);   /* first interval with a >= t */
    if (lo == 0)
        return 0;
    ns_t r = u->pre[lo - 1];
    ns_t e = u->b[lo - 1] < t ? u->b[lo - 1] : t;
    return r + (e - u->a[lo - 1]);
}

ns_t steps_busy_in(const struct busy *u, ns_t t0, ns_t t1)
{
    return t1 > t0 ? busy_upto(u, t1) - busy_upto(u, t0) : 0;
}

/* Middle of the longest device-idle interval within [t0, t1] (t0 when there is none): a
 * step boundary, so that kernels of other streams in the bubble go to the step they touch. */
ns_t steps_longest_hole(const struct busy *u, ns_t t0, ns_t t1)
{
    if (t1 <= t0)
        return t0;
    size_t lo;                           /* first interval ending after t0 */
    LOWER_BOUND(lo, (size_t)0, u->n, i, u->b[i] <= t0);
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

uint16_t steps_nflags(const struct ctx *c, uint32_t name)
{
    return name < c->nnames ? c->nf[name] : 0;
}

bool steps_is_comm_slice(const struct ctx *c, uint32_t s)
{
    return c->m->lanes[c->m->lane[s]].kind == LANE_COMM || (steps_nflags(c, c->m->name[s]) & NF_COMM);
}

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
            if (!(steps_nflags(c, m->name[s]) & flag))
                continue;
            if (n == cap) {
                struct mark *nv = grow_array(v, &cap, n + 1, sizeof *nv);
                if (!nv) {
                    free(v);
                    *nout = 0;
                    return NULL;
                }
                v = nv;
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
    size_t n = 0, cap = 0;
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
            struct mark *nv = grow_array(v, &cap, n + 1, sizeof *nv);
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
    size_t lo;
    LOWER_BOUND(lo, (size_t)0, n, k, mk[k].start <= t);
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
        FREE_ALL(last, has_flow);
        return -1;
    }
    ns_t *lt = malloc((c->ndev + 1) * sizeof *lt);
    if (!lt) {
        FREE_ALL(last, has_flow);
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
    FREE_ALL(lt, last, has_flow);
    return 0;
}

/* --- main entry ------------------------------------------------------------------------------ */

static void ctx_done(struct ctx *c)
{
    FREE_ALL(c->nf, c->dev, c->step_of);
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

/* The detection state: every name classified, the device kernels in start order and
 * their busy union. -1 when memory ran out. */
static int ctx_init(struct ctx *cp, const struct model *m)
{
    struct ctx c = *cp;
    int rc = -1;
    c.nnames = strtab_count(m->str);
    c.nf = calloc(c.nnames + 1, sizeof *c.nf);
    if (!c.nf)
        goto out;
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
        goto out;
    /* the profiler's start and stop tasks sit on the device lanes but are no work of any
     * step: counted in, the last step would stretch to the moment profiling stopped */
    for (uint32_t l = 0; l < m->nlanes; l++)
        if (m->lanes[l].kind == LANE_DEVICE)
            for (uint32_t s = m->lanes[l].first; s < m->lanes[l].first + m->lanes[l].count; s++)
                if (!(steps_nflags(&c, m->name[s]) & NF_PROFCTL))
                    c.dev[c.ndev++] = (struct kev){ m->start[s], s };
    qsort(c.dev, c.ndev, sizeof *c.dev, cmp_kev);
    rc = busy_build(&c.dbusy, m, c.dev, c.ndev) < 0 ? -1 : 0;
out:
    *cp = c;   /* ctx_done frees what was made */
    return rc;
}

/* Steps that turned out to hold no device work are dropped: the next source is tried.
 * Returns the marker count to go on with (0). */
static size_t drop_steps(struct steps *ss)
{
    free(ss->v);
    free(ss->kernel);
    ss->v = NULL;
    ss->kernel = NULL;
    ss->nkernel = 0;
    ss->source = STEP_SRC_NONE;
    return 0;
}

/* Each step's busy time, gap before it, launch latency and breakdown. */
static int step_figures(const struct ctx *c, struct steps *ss)
{
    const struct model *m = c->m;
    uint32_t *comm_lanes = malloc((m->nlanes + 1) * sizeof *comm_lanes);
    if (!comm_lanes)
        return -1;
    size_t ncl = 0;
    for (uint32_t l = 0; l < m->nlanes; l++)
        if (m->lanes[l].kind == LANE_COMM)
            comm_lanes[ncl++] = l;
    for (size_t i = 0; i < ss->n; i++) {
        struct step *st = &ss->v[i];
        st->busy = steps_busy_in(&c->dbusy, st->start, st->end);
        st->gap_before = i ? st->start - ss->v[i - 1].end : NS_NONE;
        if (st->gap_before != NS_NONE && st->gap_before < 0)
            st->gap_before = 0;
        ns_t lt = launch_time(m, ss->kernel[st->first]);
        st->launch = lt != NS_NONE ? st->start - lt : NS_NONE;
        if (steps_breakdown(c, ss, st, comm_lanes, ncl) < 0) {
            free(comm_lanes);
            return -1;
        }
    }
    free(comm_lanes);
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
    if (ctx_init(&c, m) < 0)
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
        if (!ss->n)
            nmk = drop_steps(ss);
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
            if (!ss->n)         /* markers without device work: try the device */
                nmk = drop_steps(ss);
        }
        free(mk);
        mk = NULL;
    }
    if (!ss->n) {
        ns_t *win = NULL;
        int k = steps_detect_period(&c, ss, &win);
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
    if (step_figures(&c, ss) < 0)
        goto oom;
    steps_classify_phases(&c, ss, kernels);
    steps_phase_stats(ss);
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
    FREE_ALL(s->v, s->kernel, s);
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
    size_t lo;
    LOWER_BOUND(lo, (size_t)0, s->n, k, s->v[k].start <= t);
    if (lo == 0 || t >= s->v[lo - 1].end)
        return SIZE_MAX;
    return lo - 1;
}
