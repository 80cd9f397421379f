/* model_finalize: slices sorted per lane and row, lanes ordered, depth and busy prefix sums
 * computed, counters sorted; flow binding is in model_flows.c. Large models are sorted by two
 * threads (lanes shared out largest first, columns permuted in two halves). */
#include "model/index/model.h"
#include "model/index/model_internal.h"
#include "util/grow.h"
#include "util/free_all.h"
#include "util/huge_pages.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- finalize ------------------------------------------------------------------------- */

struct skey { ns_t start; uint32_t idx; };

/* (start asc, dur desc, build order): parents come before the children they enclose. */
static inline bool skey_less(const struct model *m, struct skey a, struct skey b)
{
    if (a.start != b.start)
        return a.start < b.start;
    if (m->dur[a.idx] != m->dur[b.idx])
        return m->dur[a.idx] > m->dur[b.idx];
    return a.idx < b.idx;
}

static void merge_sort(const struct model *m, struct skey *a, struct skey *tmp, size_t n)
{
    if (n < 24) {
        for (size_t i = 1; i < n; i++) {
            struct skey k = a[i];
            size_t j = i;
            while (j > 0 && skey_less(m, k, a[j - 1])) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = k;
        }
        return;
    }
    size_t h = n / 2;
    merge_sort(m, a, tmp, h);
    merge_sort(m, a + h, tmp, n - h);
    if (!skey_less(m, a[h], a[h - 1]))
        return;   /* already in order: common for traces written in time order */
    memcpy(tmp, a, h * sizeof *a);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        a[k++] = skey_less(m, a[j], tmp[i]) ? a[j++] : tmp[i++];
    while (i < h)
        a[k++] = tmp[i++];
}

struct lorder { int64_t psort, lsort; uint32_t pidx, lidx; };

static int cmp_lorder(const void *x, const void *y)
{
    const struct lorder *a = x, *b = y;
    if (a->psort != b->psort) return a->psort < b->psort ? -1 : 1;
    if (a->pidx != b->pidx) return a->pidx < b->pidx ? -1 : 1;
    if (a->lsort != b->lsort) return a->lsort < b->lsort ? -1 : 1;
    return a->lidx < b->lidx ? -1 : a->lidx > b->lidx;
}

static void empty_model(struct model *m)
{
    model_free_slices(m);
    for (uint32_t i = 0; i < m->nlanes; i++) {
        free(m->lanes[i].row_first);
        free(m->lanes[i].busy_prefix);
        m->lanes[i].row_first = NULL;
        m->lanes[i].busy_prefix = NULL;
        m->lanes[i].first = m->lanes[i].count = m->lanes[i].ndepth = 0;
    }
    free(m->flows); m->flows = NULL; m->nflows = m->flows_cap = 0;
    free(m->flows_by_src); m->flows_by_src = NULL; m->nflows_by_src = 0;
    free(m->flows_by_dst); m->flows_by_dst = NULL; m->nflows_by_dst = 0;
    free(m->build_to_final); m->build_to_final = NULL;
    for (uint32_t i = 0; i < m->ncounters; i++) {
        free(m->counters[i].ts);
        free(m->counters[i].value);
    }
    free(m->counters); m->counters = NULL; m->ncounters = m->counters_cap = 0;
    m->flows_matched = m->flows_unmatched = 0;
}

/* Puts lanes in display order and fills kinds and default names. */
static int order_lanes(struct model *m, const uint32_t *slices_per_lane)
{
    uint32_t n = m->nlanes;
    struct lorder *o = malloc((n ? n : 1) * sizeof *o);
    struct lane *nl = malloc((n ? n : 1) * sizeof *nl);
    uint32_t *map = malloc((n ? n : 1) * sizeof *map);
    uint32_t *ord = malloc((n ? n : 1) * sizeof *ord);
    bool *has_slices = calloc(m->nprocs ? m->nprocs : 1, sizeof *has_slices);
    bool *has_counters = calloc(m->nprocs ? m->nprocs : 1, sizeof *has_counters);
    if (!o || !nl || !map || !ord || !has_slices || !has_counters) {
        free(o); free(nl); free(map); free(ord); free(has_slices); free(has_counters);
        return -1;
    }
    for (uint32_t i = 0; i < m->ncounters; i++)
        has_counters[m->counters[i].proc] = true;
    for (uint32_t i = 0; i < n; i++)
        if (slices_per_lane[i])
            has_slices[m->lanes[i].proc] = true;
    for (uint32_t p = 0; p < m->nprocs; p++) {
        struct proc *pr = &m->procs[p];
        if (!pr->kind_set)
            pr->kind = lane_kind_from_process_name(strtab_get(m->str, pr->name));
        if (pr->kind == LANE_OTHER && has_counters[p] && !has_slices[p])
            pr->kind = LANE_COUNTER;
        pr->first_lane = 0;
        pr->nlanes = 0;
    }
    for (uint32_t i = 0; i < n; i++)
        o[i] = (struct lorder){ m->procs[m->lanes[i].proc].sort_index, m->lanes[i].sort_index,
                                m->lanes[i].proc, i };
    qsort(o, n, sizeof *o, cmp_lorder);
    for (uint32_t k = 0; k < n; k++) {
        struct lane l = m->lanes[o[k].lidx];
        struct proc *pr = &m->procs[l.proc];
        l.kind = lane_kind_of_thread(pr->kind, l.name ? strtab_get(m->str, l.name) : NULL);
        if (!l.name) {
            char buf[300];
            const char *tid = strtab_get(m->str, l.key);
            snprintf(buf, sizeof buf, "%s %.280s", l.kind == LANE_DEVICE ? "Stream" : "Thread", tid);
            l.name = model_intern(m, buf, strlen(buf));
        }
        if (!pr->nlanes)
            pr->first_lane = k;
        pr->nlanes++;
        nl[k] = l;
        map[o[k].lidx] = k;
        ord[k] = k;
    }
    free(m->lanes);
    m->lanes = nl;
    m->lanes_cap = n;
    free(m->lane_build_to_final);
    m->lane_build_to_final = map;
    free(m->lane_order);
    m->lane_order = ord;
    FREE_ALL(o, has_slices, has_counters);
    return 0;
}

/* --- two threads over the slices --------------------------------------------------------- */

/* fn over [0, n) in two halves, the second on a thread when two (large models). */
struct halves { void (*fn)(void *ctx, uint32_t a, uint32_t b); void *ctx; uint32_t h, n; };

static void *second_half(void *arg)
{
    struct halves *w = arg;
    w->fn(w->ctx, w->h, w->n);
    return NULL;
}

static void in_halves(uint32_t n, bool two, void (*fn)(void *, uint32_t, uint32_t), void *ctx)
{
    struct halves w = { fn, ctx, n / 2, n };
    pthread_t th;
    if (two && pthread_create(&th, NULL, second_half, &w) == 0) {
        fn(ctx, 0, n / 2);
        pthread_join(th, NULL);
    } else {
        fn(ctx, 0, n);
    }
}

/* One column put in final order: gathered through perm (final -> build) into a spare
 * buffer, which becomes the column; the column's old memory is the spare for the next one,
 * so nothing is copied back. */
struct permute_job { void *col; void *tmp; const uint32_t *perm; size_t size; };

#define GATHER(type) do { const type *c_ = j->col; type *t_ = j->tmp; \
        for (uint32_t k_ = a; k_ < b; k_++) t_[k_] = c_[j->perm[k_]]; } while (0)

static void gather_range(void *ctx, uint32_t a, uint32_t b)
{
    const struct permute_job *j = ctx;
    switch (j->size) {
    case 8: GATHER(uint64_t); break;
    case 4: GATHER(uint32_t); break;
    case 2: GATHER(uint16_t); break;
    default: GATHER(uint8_t); break;
    }
}
#undef GATHER

/* *col (n entries of size bytes, at least that much memory) in final order; *spare holds
 * *spare_size bytes and is replaced by the old column. The columns go from the widest down,
 * so the spare is large enough and the new column is cut to its size. */
static int permute_column(void **col, size_t size, void **spare, size_t *spare_size, const uint32_t *perm,
                          uint32_t n, bool two)
{
    size_t need = (n ? n : 1) * size;
    if (*spare_size < need) {
        void *nb = malloc(need);
        if (!nb)
            return -1;
        free(*spare);
        *spare = nb;
        *spare_size = need;
    }
    struct permute_job j = { *col, *spare, perm, size };
    in_halves(n, two, gather_range, &j);
    void *old = *col;
    *col = *spare;
    if (*spare_size > need) {
        void *fit = grow_exact(*col, need, 1);   /* shrinking: in place */
        if (fit)
            *col = fit;
    }
    *spare = old;
    *spare_size = need;
    return 0;
}

struct final_index_job { uint32_t *build_to_final; const uint32_t *perm; };

static void final_index_range(void *ctx, uint32_t a, uint32_t b)
{
    const struct final_index_job *j = ctx;
    for (uint32_t k = a; k < b; k++)
        j->build_to_final[j->perm[k]] = k;
}

/* Lane l's slices perm[a..e) (build indexes) put in skey_less order. */
static int sort_lane(struct model *m, uint32_t a, uint32_t e, uint32_t *perm)
{
    uint32_t c = e - a;
    struct skey *keys = model_realloc_big(NULL, (size_t)c * sizeof *keys);
    struct skey *ktmp = model_realloc_big(NULL, ((size_t)c / 2 + 1) * sizeof *ktmp);
    if (!keys || !ktmp) {
        FREE_ALL(keys, ktmp);
        return -1;
    }
    for (uint32_t k = 0; k < c; k++)
        keys[k] = (struct skey){ m->start[perm[a + k]], perm[a + k] };
    merge_sort(m, keys, ktmp, c);
    for (uint32_t k = 0; k < c; k++)
        perm[a + k] = keys[k].idx;
    FREE_ALL(keys, ktmp);
    return 0;
}

/* Lane l's slices perm[a..e) (build indexes) sorted by (start, -dur), each given its depth,
 * then ordered by depth (stable) with the lane's row starts. t32: scratch for the lane's c
 * slices, ld: for their depths. span gets the lane's time span (NS_NONE when empty).
 * Traces are mostly written in time order: the depths are found while checking the order,
 * and only a lane found out of order is sorted and gone through again. */
static int order_lane(struct model *m, uint32_t l, uint32_t a, uint32_t e, uint32_t *perm, uint32_t *t32,
                      uint16_t *ld, ns_t span[2])
{
    ns_t row_end[MAX_DEPTH];
    ns_t stack_end[MAX_DEPTH];      /* the open enclosing slices: their ends and depths */
    uint16_t stack_depth[MAX_DEPTH];
    uint32_t dcount[MAX_DEPTH + 1];
    uint32_t c = e - a;
    struct lane *ln = &m->lanes[l];
    span[0] = span[1] = NS_NONE;
    ln->first = a;
    ln->count = c;
    if (!c) {
        ln->ndepth = 0;
        ln->row_first = calloc(1, sizeof *ln->row_first);
        if (!ln->row_first)
            return -1;
        ln->row_first[0] = a;
        return 0;
    }
    uint32_t nd = 0;
    for (bool sorted_now = false;;) {
        uint32_t sp = 0, ps = 0;
        ns_t pst = 0, pdur = 0;
        bool in_order = true;
        nd = 0;
        span[0] = span[1] = NS_NONE;
        memset(dcount, 0, sizeof dcount);
        for (uint32_t k = a; k < e; k++) {
            uint32_t s = perm[k];
            ns_t st = m->start[s], dur = m->dur[s], en = st + dur, end = st + (dur > 0 ? dur : 0);
            if (k > a && !sorted_now &&
                !(st > pst || (st == pst && (dur < pdur || (dur == pdur && s > ps))))) {
                in_order = false;   /* not (start, -dur, build order) after the one before */
                break;
            }
            pst = st;
            pdur = dur;
            ps = s;
            ns_range_widen(&span[0], &span[1], st, end);
            while (sp && stack_end[sp - 1] <= st)
                sp--;
            uint32_t d = sp ? stack_depth[sp - 1] + 1u : 0;
            while (d < nd && row_end[d] > st)
                d++;
            if (d >= MAX_DEPTH)
                d = MAX_DEPTH - 1;
            if (d >= nd) {
                for (uint32_t x = nd; x <= d; x++)
                    row_end[x] = INT64_MIN;
                nd = d + 1;
            }
            if (row_end[d] < en)
                row_end[d] = en;
            ld[k - a] = (uint16_t)d;
            dcount[d + 1]++;
            if (sp < MAX_DEPTH && (!sp || stack_depth[sp - 1] < d)) {
                stack_end[sp] = end;
                stack_depth[sp++] = (uint16_t)d;
            }
        }
        if (in_order)
            break;
        if (sort_lane(m, a, e, perm) < 0)
            return -1;
        sorted_now = true;
    }
    ln->ndepth = nd;
    ln->row_first = malloc(((size_t)nd + 1) * sizeof *ln->row_first);
    if (!ln->row_first)
        return -1;
    ln->row_first[0] = a;
    for (uint32_t d = 0; d < nd; d++)
        ln->row_first[d + 1] = ln->row_first[d] + dcount[d + 1];
    /* stable scatter by depth into t32, then back into perm */
    for (uint32_t d = 0; d < nd; d++)
        dcount[d] = ln->row_first[d] - a;
    for (uint32_t k = 0; k < c; k++)
        t32[dcount[ld[k]]++] = perm[a + k];
    memcpy(perm + a, t32, (size_t)c * sizeof *perm);
    return 0;
}

/* Busy prefix sums on each lane's depth-0 rows. */
static int busy_prefix_sums(struct model *m)
{
    for (uint32_t l = 0; l < m->nlanes; l++) {
        struct lane *ln = &m->lanes[l];
        uint32_t r0 = ln->ndepth ? ln->row_first[1] - ln->row_first[0] : 0;
        ln->busy_prefix = model_realloc_big(NULL, ((size_t)r0 + 1) * sizeof *ln->busy_prefix);
        if (!ln->busy_prefix)
            return -1;
        ln->busy_prefix[0] = 0;
        /* unsigned: hostile spans may exceed int64 in sum; differences stay exact */
        for (uint32_t i = 0; i < r0; i++)
            ln->busy_prefix[i + 1] = (ns_t)((uint64_t)ln->busy_prefix[i] + (uint64_t)m->dur[ln->first + i]);
    }
    return 0;
}

/* Lanes are ordered independently: two threads take them, largest first, from one list. */
struct lanes_job {
    struct model *m;
    const uint32_t *first, *todo;   /* todo: lanes by slice count, largest first */
    uint32_t *perm, *t32;
    uint16_t *depth;                /* each lane's part: scratch for its depths */
    ns_t *span;                     /* two per lane */
    uint32_t nl;
    atomic_uint next;
    atomic_int rc;
};

static bool stopped(const struct model *m)
{
    return m->stop && atomic_load_explicit(m->stop, memory_order_relaxed);
}

static void *order_lanes_main(void *arg)
{
    struct lanes_job *j = arg;
    for (uint32_t i; (i = atomic_fetch_add(&j->next, 1)) < j->nl;) {
        if (stopped(j->m)) {   /* the rest of the lanes are not worth sorting */
            atomic_store(&j->rc, -1);
            break;
        }
        uint32_t l = j->todo[i], a = j->first[l];
        /* each lane its own part of the scratch: lanes share nothing */
        if (order_lane(j->m, l, a, j->first[l + 1], j->perm, j->t32 + a, j->depth + a, j->span + 2 * (size_t)l) < 0)
            atomic_store(&j->rc, -1);
    }
    return NULL;
}

static int cmp_lane_size(const void *x, const void *y, void *ctx)
{
    const uint32_t *first = ctx;
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    uint32_t ca = first[a + 1] - first[a], cb = first[b + 1] - first[b];
    if (ca != cb)
        return ca > cb ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* Every lane's slices sorted, given depths and rows (order_lane); t32: n entries of scratch. */
static int order_all_lanes(struct model *m, const uint32_t *first, uint32_t *perm, uint16_t *depth, uint32_t *t32,
                           bool two)
{
    uint32_t nl = m->nlanes;
    uint32_t *todo = malloc(((size_t)nl + 1) * sizeof *todo);
    ns_t *span = malloc(((size_t)nl + 1) * 2 * sizeof *span);
    if (!todo || !span) {
        FREE_ALL(todo, span);
        return -1;
    }
    for (uint32_t l = 0; l < nl; l++)
        todo[l] = l;
    if (two)
        qsort_r(todo, nl, sizeof *todo, cmp_lane_size, (void *)first);
    struct lanes_job j = { .m = m, .first = first, .todo = todo, .perm = perm, .t32 = t32, .depth = depth,
                           .span = span, .nl = nl };
    atomic_init(&j.next, 0);
    atomic_init(&j.rc, 0);
    pthread_t th;
    bool threaded = two && nl > 1 && pthread_create(&th, NULL, order_lanes_main, &j) == 0;
    order_lanes_main(&j);
    if (threaded)
        pthread_join(th, NULL);
    struct build *b = B(m);
    b->slices_lo = b->slices_hi = NS_NONE;
    for (uint32_t l = 0; l < nl; l++)
        ns_range_widen(&b->slices_lo, &b->slices_hi, span[2 * l], span[2 * l + 1]);
    b->slices_spanned = atomic_load(&j.rc) == 0;
    FREE_ALL(todo, span);
    return atomic_load(&j.rc);
}

/* tmp: scratch for nslices + 1 entries of 8 bytes (NULL: none, a failure), freed here */
static int finalize_slices(struct model *m, void *tmp)
{
    uint32_t n = m->nslices, nl = m->nlanes;
    uint32_t *cnt = calloc((size_t)nl + 1, sizeof *cnt);
    if (!cnt) {
        free(tmp);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++)
        cnt[m->lane[i]]++;
    if (order_lanes(m, cnt) < 0) {
        FREE_ALL(cnt, tmp);
        return -1;
    }
    /* counting sort by final lane */
    uint32_t *first = calloc((size_t)nl + 1, sizeof *first);
    /* scratch from resident memory where a merged-away part left some */
    uint32_t *perm = model_scratch(B(m), ((size_t)n + 1) * sizeof *perm);
    uint16_t *depth = model_scratch(B(m), ((size_t)n + 1) * sizeof *depth);
    if (!first || !perm || !depth || !tmp)
        goto fail;
    huge_advise(tmp, (size_t)n * sizeof(ns_t));
    for (uint32_t b = 0; b < nl; b++)
        first[m->lane_build_to_final[b] + 1] = cnt[b];
    for (uint32_t l = 0; l < nl; l++)
        first[l + 1] += first[l];
    memcpy(cnt, first, (size_t)nl * sizeof *cnt);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t fl = m->lane_build_to_final[m->lane[i]];
        m->lane[i] = fl;
        perm[cnt[fl]++] = i;
    }
    /* per lane: sort by (start, -dur), depth with a stack, then stable order by depth */
    bool two = n >= model_thread_min;
    if (order_all_lanes(m, first, perm, depth, tmp, two) < 0)
        goto fail;
    /* build -> final map, then permute every column */
    free(m->build_to_final);
    m->build_to_final = model_scratch(B(m), ((size_t)n + 1) * sizeof *m->build_to_final);
    if (!m->build_to_final)
        goto fail;
    struct final_index_job fj = { m->build_to_final, perm };
    in_halves(n, two, final_index_range, &fj);
    free(m->depth);
    m->depth = depth;   /* put in final order below */
    depth = NULL;
    size_t tmp_size = ((size_t)n + 1) * sizeof(ns_t);
#define PERMUTE(c) do { void *c_ = m->c; \
        if (permute_column(&c_, sizeof *m->c, &tmp, &tmp_size, perm, n, two) < 0) \
            goto fail; \
        m->c = c_; \
    } while (0)
    PERMUTE(start); PERMUTE(dur); PERMUTE(off);
    PERMUTE(name); PERMUTE(cat); PERMUTE(len); PERMUTE(file);
#undef PERMUTE
    /* lanes and depths are runs in final order: written in place, not gathered (their
     * build-order values are not needed any more) */
    for (uint32_t l = 0; l < nl; l++) {
        const struct lane *ln = &m->lanes[l];
        for (uint32_t k = ln->first; k < ln->first + ln->count; k++)
            m->lane[k] = l;
        for (uint32_t d = 0; d < ln->ndepth; d++)
            for (uint32_t k = ln->row_first[d]; k < ln->row_first[d + 1]; k++)
                m->depth[k] = (uint16_t)d;
    }
    free(tmp);
    tmp = NULL;
    free(perm);
    perm = NULL;
    if (busy_prefix_sums(m) < 0)
        goto fail;
    FREE_ALL(first, cnt);
    return 0;
fail:
    FREE_ALL(cnt, first, perm, depth, tmp);
    return -1;
}

struct cpair { ns_t ts; double v; size_t seq; };

static int cmp_cpair(const void *x, const void *y)
{
    const struct cpair *a = x, *b = y;
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int finalize_counters(struct model *m)
{
    for (uint32_t i = 0; i < m->ncounters; i++) {
        struct counter_track *c = &m->counters[i];
        bool sorted = true;
        for (size_t k = 1; k < c->n && sorted; k++)
            sorted = c->ts[k - 1] <= c->ts[k];
        if (sorted)
            continue;
        struct cpair *p = malloc(c->n * sizeof *p);
        if (!p)
            return -1;
        for (size_t k = 0; k < c->n; k++)
            p[k] = (struct cpair){ c->ts[k], c->value[k], k };
        qsort(p, c->n, sizeof *p, cmp_cpair);
        for (size_t k = 0; k < c->n; k++) {
            c->ts[k] = p[k].ts;
            c->value[k] = p[k].v;
        }
        free(p);
    }
    return 0;
}

/* The time spans finalize found on the way (see struct build), kept past the build. */
struct known_spans { ns_t slices_lo, slices_hi, pts_lo, pts_hi; bool slices, pts; };

/* What of m lies in [*lo, *hi]: widened by every slice (when slices), every counter track
 * and every flow end (when flows). */
static void widen_by(const struct model *m, bool slices, bool flows, ns_t *lo, ns_t *hi)
{
    for (uint32_t i = 0; slices && i < m->nslices; i++)
        ns_range_widen(lo, hi, m->start[i], model_end(m, i));
    for (uint32_t i = 0; i < m->ncounters; i++)
        if (m->counters[i].n)
            ns_range_widen(lo, hi, m->counters[i].ts[0], m->counters[i].ts[m->counters[i].n - 1]);
    for (size_t i = 0; flows && i < m->nflows; i++) {
        ns_range_widen(lo, hi, m->flows[i].src_ts, m->flows[i].src_ts);
        ns_range_widen(lo, hi, m->flows[i].dst_ts, m->flows[i].dst_ts);
    }
}

/* t_min and t_max: the earliest start and the latest end of slices, counters and flows. The
 * slices' and the flows' come from known when finalize found them (every flow's times are
 * its points'; the direct flows' are slice starts); else from a pass over them. */
static void time_span(struct model *m, const struct known_spans *known)
{
    m->t_min = m->t_max = NS_NONE;
    if (known->slices)
        ns_range_widen(&m->t_min, &m->t_max, known->slices_lo, known->slices_hi);
    if (known->pts)
        ns_range_widen(&m->t_min, &m->t_max, known->pts_lo, known->pts_hi);
    widen_by(m, !known->slices, !known->pts, &m->t_min, &m->t_max);
#ifdef APTOP_FUZZ_CHECKS
    /* the fuzzer holds the spans found on the way to the full passes */
    ns_t lo = NS_NONE, hi = NS_NONE;
    widen_by(m, true, true, &lo, &hi);
    if (lo != m->t_min || hi != m->t_max)
        abort();
#endif
}

/* model_free_build on a building state already taken off its model */
static void *free_build_main(void *arg)
{
    struct model holder = { .build = arg };
    model_free_build(&holder);
    return NULL;
}

static void shrink_columns(struct model *m)
{
    size_t n = m->nslices ? m->nslices : 1;
#define SHRINK(f) do { void *p_ = grow_exact(m->f, n, sizeof *m->f); if (p_) m->f = p_; } while (0)
    SHRINK(start); SHRINK(dur); SHRINK(name); SHRINK(cat); SHRINK(lane); SHRINK(file); SHRINK(off); SHRINK(len);
#undef SHRINK
    m->slices_cap = m->nslices;
}

struct group_job { struct build *b; int rc; _Atomic bool done; };

static void *group_main(void *arg)
{
    struct group_job *job = arg;
    job->rc = job->b->npts > 1 ? model_group_points(job->b) : 0;
    atomic_store(&job->done, true);
    return NULL;
}

int model_finalize(struct model *m)
{
    if (m->finalized)
        return 0;
    int rc = 0;
    if (!m->build || m->oom || stopped(m)) {
        rc = -1;
    } else {
        shrink_columns(m);
        /* the widest scratch first: the largest resident array handed on goes to it rather
         * than to grouping's hash table (which is narrower and takes what is left) */
        void *tmp = model_scratch(B(m), ((size_t)m->nslices + 1) * sizeof(ns_t));
        /* grouping flow points needs nothing from the slices: on a second thread when large */
        struct group_job job = { B(m), 0, false };
        pthread_t th;
        bool threaded = job.b->npts >= model_thread_min && pthread_create(&th, NULL, group_main, &job) == 0;
        if (finalize_slices(m, tmp) < 0)
            rc = -1;
        if (threaded) {
            /* the points are still being grouped: meanwhile the flows' memory is faulted in,
             * as much as a flow per two points needs (binding them was mostly page faults) */
            if (rc == 0 && model_flows_room(m) == 0) {
                size_t want = (job.b->npts / 2 + job.b->ndirect) * sizeof *m->flows;
                for (size_t done = 0; done < want && !atomic_load(&job.done); done += 64u << 10)
                    model_touch_pages(m->flows, done, done + (64u << 10) < want ? done + (64u << 10) : want);
            }
            pthread_join(th, NULL);
            if (job.rc < 0)
                rc = -1;
        }
        /* what finalize's scratch did not take: freed before the flows' memory is at its peak */
        model_recycle_clear(B(m));
        /* a stop is looked at between the steps: each takes a fraction of a second per GiB */
        if (rc == 0 && (stopped(m) || model_finalize_flows(m, threaded) < 0 || stopped(m) ||
                        finalize_counters(m) < 0))
            rc = -1;
    }
    if (rc < 0 && stopped(m))
        rc = MODEL_STOPPED;   /* not memory: the caller says nothing of it */
    if (rc != 0) {
        empty_model(m);
        if (!m->lane_build_to_final || !m->lane_order) {
            /* lanes were not reordered: keep them as they are, each with no slices */
            free(m->lane_build_to_final);
            free(m->lane_order);
            m->lane_build_to_final = calloc(m->nlanes + 1, sizeof(uint32_t));
            m->lane_order = calloc(m->nlanes + 1, sizeof(uint32_t));
            for (uint32_t i = 0; m->lane_order && m->lane_build_to_final && i < m->nlanes; i++)
                m->lane_order[i] = m->lane_build_to_final[i] = i;
        }
        for (uint32_t i = 0; i < m->nlanes; i++) {
            m->lanes[i].row_first = calloc(1, sizeof(uint32_t));
            m->lanes[i].busy_prefix = calloc(1, sizeof(ns_t));
        }
        for (uint32_t p = 0; p < m->nprocs; p++)
            m->procs[p].first_lane = m->procs[p].nlanes = 0;
        for (uint32_t i = 0; i < m->nlanes; i++) {
            struct proc *pr = &m->procs[m->lanes[i].proc];
            if (!pr->nlanes)
                pr->first_lane = i;
            pr->nlanes++;
        }
    }
    struct known_spans known = { 0 };
    const struct build *kb = B(m);
    if (rc == 0 && kb) {
        known = (struct known_spans){ kb->slices_lo, kb->slices_hi, kb->pts_lo, kb->pts_hi,
                                      kb->slices_spanned, kb->pts_spanned };
    }
    /* the building state (the flow points: tens of MB to unmap) is freed on a thread while
     * the time span is computed */
    pthread_t th;
    bool threaded = m->nslices + m->nflows >= model_thread_min && pthread_create(&th, NULL, free_build_main, m->build) == 0;
    if (threaded)
        m->build = NULL;
    time_span(m, &known);
    if (threaded)
        pthread_join(th, NULL);
    model_free_build(m);
    m->finalized = true;
    return rc;
}

uint32_t model_build_to_final(const struct model *m, uint32_t build_index)
{
    if (!m->build_to_final || build_index >= m->nslices)
        return SLICE_NONE;
    return m->build_to_final[build_index];
}

uint32_t model_lane_build_to_final(const struct model *m, uint32_t build_lane)
{
    if (!m->lane_build_to_final || build_lane >= m->nlanes)
        return LANE_NONE;
    return m->lane_build_to_final[build_lane];
}
