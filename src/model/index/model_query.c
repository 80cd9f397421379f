/* Queries over a finalized model: rows, busy time, parents, self time, flows of a slice,
 * aggregates, memory. */
#include "model/index/model.h"
#include "util/search.h"
#include "model/index/model_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- queries ---------------------------------------------------------------------------- */

/* First i in [a, b) with start[i] >= t (rows are sorted by start). */
static uint32_t lb_start(const struct model *m, uint32_t a, uint32_t b, ns_t t)
{
    LOWER_BOUND(a, a, b, i, m->start[i] < t);
    return a;
}

/* First i in [a, b) that reaches into [t, ...): end > t, or starts at or after t (zero-length). */
static uint32_t lb_end(const struct model *m, uint32_t a, uint32_t b, ns_t t)
{
    LOWER_BOUND(a, a, b, i, !(model_end(m, i) > t || m->start[i] >= t));
    return a;
}

int slice_start_cmp(const void *a, const void *b)
{
    const struct slice_start *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->slice < y->slice ? -1 : x->slice > y->slice;
}

bool model_slice_contains(const struct model *m, uint32_t s, ns_t t)
{
    return m->start[s] <= t && (t < model_end(m, s) || (m->dur[s] == 0 && m->start[s] == t));
}

uint32_t model_slice_enclosing(const struct model *m, uint32_t lane, ns_t t)
{
    if (lane >= m->nlanes || !m->lanes[lane].row_first)
        return SLICE_NONE;
    const struct lane *l = &m->lanes[lane];
    for (uint32_t d = l->ndepth; d-- > 0;) {
        uint32_t a = l->row_first[d], b = l->row_first[d + 1];
        uint32_t i = lb_start(m, a, b, t == INT64_MAX ? t : t + 1);   /* first start > t */
        if (i > a && model_slice_contains(m, i - 1, t))
            return i - 1;
    }
    return SLICE_NONE;
}

uint32_t model_slice_next_at(const struct model *m, uint32_t lane, ns_t t)
{
    if (lane >= m->nlanes || !m->lanes[lane].row_first)
        return SLICE_NONE;
    const struct lane *l = &m->lanes[lane];
    uint32_t best = SLICE_NONE;
    for (uint32_t d = 0; d < l->ndepth; d++) {
        uint32_t a = l->row_first[d], b = l->row_first[d + 1];
        uint32_t i = lb_start(m, a, b, t);
        if (i < b && (best == SLICE_NONE || m->start[i] < m->start[best]))
            best = i;
    }
    return best;
}

const char *model_lane_label(const struct model *m, uint32_t lane, char *buf, size_t size)
{
    if (!size)
        return buf;
    if (lane >= m->nlanes) {
        buf[0] = 0;
        return buf;
    }
    const struct lane *l = &m->lanes[lane];
    snprintf(buf, size, "%s \xe2\x96\xb8 %s", model_str(m, m->procs[l->proc].name), model_str(m, l->name));
    return buf;
}

void model_row_range(const struct model *m, uint32_t lane, uint32_t depth, ns_t t0, ns_t t1,
                     uint32_t *first, uint32_t *last)
{
    *first = *last = 0;
    if (lane >= m->nlanes || !m->lanes[lane].row_first || depth >= m->lanes[lane].ndepth || t0 >= t1)
        return;
    const struct lane *l = &m->lanes[lane];
    uint32_t a = l->row_first[depth], b = l->row_first[depth + 1];
    uint32_t lo = lb_end(m, a, b, t0);
    uint32_t hi = lb_start(m, lo, b, t1);
    *first = lo;
    *last = hi;
}

ns_t model_busy(const struct model *m, uint32_t lane, ns_t t0, ns_t t1)
{
    if (lane >= m->nlanes || !m->lanes[lane].ndepth || t0 >= t1)
        return 0;
    const struct lane *l = &m->lanes[lane];
    uint32_t a = l->row_first[0], b = l->row_first[1];
    uint32_t lo = lb_end(m, a, b, t0), hi = lb_start(m, lo, b, t1);
    if (lo >= hi)
        return 0;
    uint64_t busy = (uint64_t)l->busy_prefix[hi - a] - (uint64_t)l->busy_prefix[lo - a];
    if (m->start[lo] < t0)
        busy -= (uint64_t)t0 - (uint64_t)m->start[lo];
    ns_t e = model_end(m, hi - 1);
    if (e > t1)
        busy -= (uint64_t)e - (uint64_t)t1;
    return busy > (uint64_t)INT64_MAX ? INT64_MAX : (ns_t)busy;
}

uint32_t model_slice_at(const struct model *m, uint32_t lane, ns_t t)
{
    return model_slice_enclosing(m, lane, t);
}

static void row_of(const struct model *m, uint32_t s, uint32_t *a, uint32_t *b)
{
    const struct lane *l = &m->lanes[m->lane[s]];
    *a = l->row_first[m->depth[s]];
    *b = l->row_first[m->depth[s] + 1];
}

uint32_t model_next_in_row(const struct model *m, uint32_t s)
{
    if (s >= m->nslices)
        return SLICE_NONE;
    uint32_t a, b;
    row_of(m, s, &a, &b);
    return s + 1 < b ? s + 1 : SLICE_NONE;
}

uint32_t model_prev_in_row(const struct model *m, uint32_t s)
{
    if (s >= m->nslices)
        return SLICE_NONE;
    uint32_t a, b;
    row_of(m, s, &a, &b);
    return s > a ? s - 1 : SLICE_NONE;
}

uint32_t model_parent(const struct model *m, uint32_t s)
{
    if (s >= m->nslices || !m->depth[s])
        return SLICE_NONE;
    const struct lane *l = &m->lanes[m->lane[s]];
    uint32_t d = m->depth[s] - 1u;
    uint32_t a = l->row_first[d], b = l->row_first[d + 1];
    ns_t st = m->start[s];
    uint32_t i = lb_start(m, a, b, st == INT64_MAX ? st : st + 1);
    if (i > a && m->start[i - 1] <= st && model_end(m, i - 1) >= model_end(m, s))
        return i - 1;
    return SLICE_NONE;
}

ns_t model_self(const struct model *m, uint32_t s)
{
    if (s >= m->nslices)
        return 0;
    const struct lane *l = &m->lanes[m->lane[s]];
    uint32_t d = m->depth[s] + 1u;
    ns_t self = m->dur[s];
    if (d >= l->ndepth)
        return self;
    ns_t st = m->start[s], en = model_end(m, s);
    uint32_t a = l->row_first[d], b = l->row_first[d + 1];
    for (uint32_t i = lb_end(m, a, b, st); i < b && m->start[i] < en; i++) {
        ns_t cs = m->start[i] > st ? m->start[i] : st;
        ns_t ce = model_end(m, i) < en ? model_end(m, i) : en;
        if (ce > cs)
            self -= ce - cs;
    }
    return self > 0 ? self : 0;
}

static size_t flows_touching(const struct model *m, const uint32_t *idx, size_t n, bool dst,
                             uint32_t s, const uint32_t **out)
{
    size_t a;
    LOWER_BOUND(a, (size_t)0, n, i, (dst ? m->flows[idx[i]].dst : m->flows[idx[i]].src) < s);
    size_t e = a;
    while (e < n && (dst ? m->flows[idx[e]].dst : m->flows[idx[e]].src) == s)
        e++;
    *out = idx ? idx + a : NULL;
    return e - a;
}

size_t model_flows_from(const struct model *m, uint32_t s, const uint32_t **out)
{
    return flows_touching(m, m->flows_by_src, m->nflows_by_src, false, s, out);
}

size_t model_flows_to(const struct model *m, uint32_t s, const uint32_t **out)
{
    return flows_touching(m, m->flows_by_dst, m->nflows_by_dst, true, s, out);
}

size_t model_flows_matched_cat(const struct model *m, uint32_t cat)
{
    size_t n = 0;
    for (size_t i = 0; i < m->nflows;) {
        size_t e = i + 1;
        while (e < m->nflows && m->flows[e].cat == m->flows[i].cat && m->flows[e].id == m->flows[i].id &&
               m->flows[e].id_is_str == m->flows[i].id_is_str)
            e++;
        if (m->flows[i].cat == cat && !m->flows[i].by_correlation) {
            bool both = false;
            for (size_t k = i; k < e; k++)
                both |= m->flows[k].src_ts != NS_NONE && m->flows[k].dst_ts != NS_NONE;
            n += both;
        }
        i = e;
    }
    return n;
}

uint32_t model_find_lane(const struct model *m, const char *proc_name, const char *thread_name)
{
    for (uint32_t i = 0; i < m->nlanes; i++) {
        const struct lane *l = &m->lanes[i];
        if (!strcmp(model_str(m, m->procs[l->proc].name), proc_name) &&
            !strcmp(model_str(m, l->name), thread_name))
            return i;
    }
    return LANE_NONE;
}

/* by total descending, then name id for a stable order */
static int cmp_agg(const void *x, const void *y)
{
    const struct agg_row *a = x, *b = y;
    if (a->total != b->total)
        return a->total > b->total ? -1 : 1;
    return a->name < b->name ? -1 : a->name > b->name;
}

struct agg_row *model_aggregate(const struct model *m, const uint32_t *lanes, size_t nlanes,
                                enum lane_kind kind, ns_t t0, ns_t t1, size_t *n)
{
    struct u64map idx = { 0 };
    struct agg_row *rows = NULL;
    size_t nrows = 0, cap = 0;
    *n = 0;
    size_t nl = lanes ? nlanes : m->nlanes;
    for (size_t li = 0; li < nl; li++) {
        uint32_t lane = lanes ? lanes[li] : (uint32_t)li;
        if (lane >= m->nlanes || !m->lanes[lane].row_first)
            continue;
        const struct lane *l = &m->lanes[lane];
        if (!lanes && kind != LANE_OTHER && l->kind != kind)
            continue;
        for (uint32_t d = 0; d < l->ndepth; d++) {
            uint32_t a = l->row_first[d], b = l->row_first[d + 1];
            for (uint32_t s = lb_start(m, a, b, t0); s < b && m->start[s] < t1; s++) {
                uint32_t r = u64map_get(&idx, m->name[s]);
                if (r == UINT32_MAX) {
                    struct agg_row *nr = model_grow(rows, &cap, nrows + 1, sizeof *rows);
                    if (!nr || u64map_put(&idx, m->name[s], (uint32_t)nrows) < 0) {
                        free(nr ? nr : rows);
                        u64map_free(&idx);
                        return NULL;
                    }
                    rows = nr;
                    r = (uint32_t)nrows++;
                    rows[r] = (struct agg_row){ .name = m->name[s], .min = INT64_MAX, .max = INT64_MIN };
                }
                struct agg_row *row = &rows[r];
                row->count++;
                row->total = (ns_t)((uint64_t)row->total + (uint64_t)m->dur[s]);
                row->self = (ns_t)((uint64_t)row->self + (uint64_t)model_self(m, s));
                if (m->dur[s] < row->min) row->min = m->dur[s];
                if (m->dur[s] > row->max) row->max = m->dur[s];
            }
        }
    }
    u64map_free(&idx);
    if (nrows > 1)
        qsort(rows, nrows, sizeof *rows, cmp_agg);
    *n = nrows;
    if (!rows)
        rows = calloc(1, sizeof *rows);
    return rows;
}

size_t model_memory(const struct model *m)
{
    size_t per = 2 * sizeof(ns_t) + 3 * sizeof(uint32_t) + sizeof(uint16_t) + 1 + sizeof(uint64_t) + sizeof(uint32_t);
    size_t b = (size_t)m->slices_cap * per + (m->build_to_final ? (size_t)m->nslices * 4 : 0);
    b += sizeof *m + (size_t)m->procs_cap * sizeof(struct proc) + (size_t)m->lanes_cap * sizeof(struct lane);
    b += (size_t)m->nlanes * 2 * sizeof(uint32_t);
    for (uint32_t i = 0; i < m->nlanes; i++) {
        const struct lane *l = &m->lanes[i];
        b += ((size_t)l->ndepth + 1) * sizeof(uint32_t);
        if (l->ndepth)
            b += ((size_t)l->row_first[1] - l->row_first[0] + 1) * sizeof(ns_t);
    }
    b += m->flows_cap * sizeof(struct flow) + (m->nflows_by_src + m->nflows_by_dst) * sizeof(uint32_t);
    for (uint32_t i = 0; i < m->ncounters; i++)
        b += m->counters[i].cap * (sizeof(ns_t) + sizeof(double));
    b += (size_t)m->counters_cap * sizeof(struct counter_track);
    b += strtab_bytes(m->str);
    return b;
}
