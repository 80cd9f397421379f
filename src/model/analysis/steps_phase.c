/* Per-step figures (busy, idle, communication breakdown) and each step's phase (prefill,
 * decode, mixed) from its attention kernels' shapes. */
#include "model/analysis/steps.h"
#include "model/analysis/steps_internal.h"
#include "model/analysis/comm.h"
#include "model/analysis/engine_annot.h"
#include "model/analysis/kernels.h"
#include "model/index/table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/search.h"
#include "util/free_all.h"

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
int steps_breakdown(const struct ctx *c, struct steps *ss, struct step *st,
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
        /* free is the rest of the step, so the three add up to its duration: the Free lane
         * covers only the window the profiler analysed, which can be shorter than the step */
        ns_t rest = (t1 - t0) - st->computing - st->comm_not_overlapped;
        st->free_time = rest > 0 ? rest : 0;
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
        if (steps_nflags(c, m->name[s]) & NF_COMM)
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
    size_t lo;
    LOWER_BOUND(lo, (size_t)0, f->n, k, table_time(t, f->rows[k], f->cstart) < st);
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

void steps_classify_phases(const struct ctx *c, struct steps *ss, const struct table *kt)
{
    const struct model *m = c->m;
    uint8_t *fl = calloc(ss->n + 1, 1);
    ns_t *fd = malloc((ss->n + 1) * sizeof *fd);
    if (!fl || !fd) {
        FREE_ALL(fl, fd);
        return;
    }
    size_t nfd = 0;
    for (size_t i = 0; i < ss->n; i++) {
        struct step *st = &ss->v[i];
        for (uint32_t j = 0; j < st->kernels; j++)
            fl[i] |= steps_nflags(c, m->name[ss->kernel[st->first + j]]) & (NF_PREFILL | NF_DECODE | NF_FIAS);
        if (fl[i])   /* every step with attention: a lone FIAS prefill among IFA decodes stands out */
            fd[nfd++] = st->end - st->start;
    }
    qsort(fd, nfd, sizeof *fd, steps_cmp_ns);
    struct rowfind rf;
    rowfind_init(&rf, nfd ? kt : NULL, m);
    ns_t fmed = steps_pct_sorted(fd, nfd, 0.5);
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
                if (steps_nflags(c, m->name[ks]) & NF_FIAS)
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
    FREE_ALL(rf.rows, fl, fd);
}

void steps_phase_stats(struct steps *ss)
{
    ns_t *v = malloc((ss->n + 1) * sizeof *v), *dev = malloc((ss->n + 1) * sizeof *dev);
    if (!v || !dev) {
        FREE_ALL(v, dev);
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
        qsort(v, k, sizeof *v, steps_cmp_ns);
        ps->p50 = steps_pct_sorted(v, k, 0.5);
        ps->p90 = steps_pct_sorted(v, k, 0.9);
        ps->p99 = steps_pct_sorted(v, k, 0.99);
        ps->max = v[k - 1];
        for (size_t i = 0; i < k; i++)
            dev[i] = v[i] > ps->p50 ? v[i] - ps->p50 : ps->p50 - v[i];
        qsort(dev, k, sizeof *dev, steps_cmp_ns);
        ps->mad = steps_pct_sorted(dev, k, 0.5);
        ns_t mad = ps->mad > ps->p50 / 100 ? ps->mad : ps->p50 / 100;
        for (size_t i = 0; i < ss->n; i++)
            if (ss->v[i].phase == (enum step_phase)p)
                ss->v[i].outlier = k >= 3 && ss->v[i].end - ss->v[i].start > ps->p50 + 3 * mad;
    }
    free(v);
    free(dev);
}
