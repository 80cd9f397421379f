/* Kernel aggregation (per name, type or core; busy time and share), instances and the join
 * of kernel table rows to timeline slices. The session-wide rowsets are in kernels_rowsets.c. */
#include "model/analysis/kernels.h"
#include "util/grow.h"
#include "util/search.h"
#include "model/analysis/kernels_internal.h"
#include "model/index/named_slice.h"
#include "util/free_all.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Union of intervals fed in start order: the busy time they cover together. */
void kres_done(struct kres *r)
{
    free(r->rows);
    memset(r, 0, sizeof *r);
}

static int cmp_total_desc(const void *a, const void *b)
{
    const struct kagg *x = a, *y = b;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* Slot of key in the dense index (ids are small: one strtab), adding a row when new. */
static struct kagg *slot(struct kres *r, uint32_t *index, size_t *cap, uint32_t key)
{
    if (index[key] != UINT32_MAX)
        return &r->rows[index[key]];
    struct kagg *nr = grow_array(r->rows, cap, r->n + 1, sizeof *nr);
    if (!nr)
        return NULL;
    r->rows = nr;
    r->rows[r->n] = (struct kagg){ .key = key, .min = INT64_MAX, .max = INT64_MIN };
    index[key] = (uint32_t)r->n;
    return &r->rows[r->n++];
}

/* Sums saturate: hostile files may hold durations near the int64 limits. */
ns_t kres_sat_add(ns_t a, ns_t b)
{
    ns_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN + 1;
    return r;
}

static void add_call(struct kagg *k, ns_t dur)
{
    k->count++;
    k->total = kres_sat_add(k->total, dur);
    if (dur < k->min)
        k->min = dur;
    if (dur > k->max)
        k->max = dur;
}

/* --- busy time: "share" is the fraction of the device's busy time (the union of all kernel
 * intervals) during which a kernel ran (the union of its own intervals), so a kernel whose
 * calls overlap on several streams is not counted twice and no share exceeds 1. ---------- */

static void union_add(struct span_union *u, ns_t a, ns_t b)
{
    if (u->open && a <= u->hi) {
        if (b > u->hi)
            u->hi = b;
        return;
    }
    if (u->open)
        u->busy = kres_sat_add(u->busy, u->hi - u->lo);
    u->lo = a;
    u->hi = b;
    u->open = true;
}

static ns_t union_total(const struct span_union *u)
{
    return u->open ? kres_sat_add(u->busy, u->hi - u->lo) : u->busy;
}

struct ival { ns_t lo, hi; uint32_t key; };

static int by_lo(const void *a, const void *b)
{
    const struct ival *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Busy times from a table's start and duration columns; nothing when it has no starts. */
static void table_busy(const struct table *t, size_t dur, size_t key, const uint32_t *index, struct kres *r)
{
    size_t st = table_col(t, "start_time(us)");
    if (st == SIZE_MAX || t->cols[st].type != TC_TIME || !t->nrows)
        return;
    struct ival *v = malloc(t->nrows * sizeof *v);
    if (!v)
        return;
    size_t n = 0;
    for (size_t row = 0; row < t->nrows; row++) {
        ns_t a = t->cols[st].time[row], d = t->cols[dur].time[row];
        if (a == NS_NONE || d == NS_NONE || d < 0 || a > INT64_MAX - d)
            continue;
        v[n++] = (struct ival){ a, a + d, t->cols[key].text[row] };
    }
    qsort(v, n, sizeof *v, by_lo);
    for (size_t i = 0; i < n; i++) {
        union_add(&r->busy, v[i].lo, v[i].hi);
        if (index[v[i].key] != UINT32_MAX)
            union_add(&r->rows[index[v[i].key]].u, v[i].lo, v[i].hi);
    }
    r->has_busy = n > 0;
    free(v);
}

/* Busy times of the model's device lanes. Each depth row is sorted and free of overlaps, so
 * the rows are merged in start order (a linear pick: device rows are few) rather than
 * sorted again. */
static void model_busy_times(const struct model *m, const uint32_t *index, struct kres *r)
{
    size_t nrows = 0;
    for (uint32_t l = 0; l < m->nlanes; l++)
        if (m->lanes[l].kind == LANE_DEVICE)
            nrows += m->lanes[l].ndepth;
    /* per depth row: the next slice to merge, and the end of the row */
    struct { uint32_t cur, end; } *row = malloc((nrows ? nrows : 1) * sizeof *row);
    if (!row)
        return;
    size_t k = 0;
    for (uint32_t l = 0; l < m->nlanes; l++) {
        const struct lane *ln = &m->lanes[l];
        if (ln->kind != LANE_DEVICE || !ln->row_first)
            continue;
        for (uint32_t d = 0; d < ln->ndepth; d++)
            if (ln->row_first[d] < ln->row_first[d + 1]) {
                row[k].cur = ln->row_first[d];
                row[k++].end = ln->row_first[d + 1];
            }
    }
    for (;;) {
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < k; i++)
            if (row[i].cur < row[i].end && (best == SIZE_MAX || m->start[row[i].cur] < m->start[row[best].cur]))
                best = i;
        if (best == SIZE_MAX)
            break;
        uint32_t s = row[best].cur++;
        ns_t a = m->start[s], b = model_end(m, s);
        union_add(&r->busy, a, b);
        if (index[m->name[s]] != UINT32_MAX)
            union_add(&r->rows[index[m->name[s]]].u, a, b);
    }
    r->has_busy = k > 0;
    free(row);
}

/* Per string id of str: its aggregate row, UINT32_MAX (none yet) everywhere at first. */
static uint32_t *new_index(const struct strtab *str)
{
    uint32_t nids = strtab_count(str);
    uint32_t *index = malloc((nids ? nids : 1) * sizeof *index);
    if (index)
        memset(index, 0xff, (nids ? nids : 1) * sizeof *index);
    return index;
}

static int aggregate_table(const struct table *t, enum kernels_group g, struct kres *r)
{
    memset(r, 0, sizeof *r);
    if (!t)
        return -1;
    size_t name = table_col(t, "name"), dur = table_col(t, "duration(us)");
    size_t type = table_col(t, "type"), core = table_col(t, "accelerator_core");
    size_t key = g == KG_NAME ? name : g == KG_TYPE ? type : core;
    if (key == SIZE_MAX || dur == SIZE_MAX || t->cols[key].type != TC_TEXT || t->cols[dur].type != TC_TIME)
        return -1;
    if (type != SIZE_MAX && t->cols[type].type != TC_TEXT)
        type = SIZE_MAX;
    if (core != SIZE_MAX && t->cols[core].type != TC_TEXT)
        core = SIZE_MAX;
    r->str = t->str;
    r->has_type = g == KG_NAME && type != SIZE_MAX;
    r->has_core = g != KG_CORE && core != SIZE_MAX;
    for (size_t p = 0; p < NPMU; p++) {
        r->pmu_col[p] = table_col(t, pmus[p].key);
        if (r->pmu_col[p] != SIZE_MAX && t->cols[r->pmu_col[p]].type == TC_TEXT)
            r->pmu_col[p] = SIZE_MAX;
    }
    const char *b = strrchr(t->path, '/');
    r->source = b ? b + 1 : t->path;
    uint32_t *index = new_index(t->str);
    if (!index)
        return -1;
    size_t cap = 0;
    const uint32_t *keys = t->cols[key].text;
    const int64_t *durs = t->cols[dur].time;
    for (size_t row = 0; row < t->nrows; row++) {
        ns_t d = durs[row];
        if (d == NS_NONE) {
            r->skipped++;
            continue;
        }
        if (d < 0)
            d = 0;      /* as the timeline takes it: a negative total would push shares past 1 */
        struct kagg *k = slot(r, index, &cap, keys[row]);
        if (!k) {
            free(index);
            kres_done(r);
            return -1;
        }
        add_call(k, d);
        r->total = kres_sat_add(r->total, d);
        if (r->has_type && !k->type)
            k->type = t->cols[type].text[row];
        if (r->has_core && !k->core)
            k->core = t->cols[core].text[row];
        for (size_t p = 0; p < NPMU; p++) {
            size_t c = r->pmu_col[p];
            if (c == SIZE_MAX)
                continue;
            double v = t->cols[c].type == TC_TIME
                ? (t->cols[c].time[row] == NS_NONE ? NAN : (double)t->cols[c].time[row])
                : t->cols[c].num[row];
            if (!isnan(v)) {
                k->pmu_sum[p] += v;
                k->pmu_n[p]++;
            }
        }
    }
    table_busy(t, dur, key, index, r);
    free(index);
    if (r->n > 1)
        qsort(r->rows, r->n, sizeof *r->rows, cmp_total_desc);
    return 0;
}

static int aggregate_model(const struct model *m, struct kres *r)
{
    memset(r, 0, sizeof *r);
    for (size_t p = 0; p < NPMU; p++)
        r->pmu_col[p] = SIZE_MAX;
    if (!m || !m->finalized)
        return -1;
    r->str = m->str;
    r->source = "the trace's device lanes";
    uint32_t *index = new_index(m->str);
    if (!index)
        return -1;
    size_t cap = 0;
    bool any = false;
    for (uint32_t l = 0; l < m->nlanes; l++) {
        const struct lane *ln = &m->lanes[l];
        if (ln->kind != LANE_DEVICE)
            continue;
        any = true;
        for (uint32_t s = ln->first; s < ln->first + ln->count; s++) {
            struct kagg *k = slot(r, index, &cap, m->name[s]);
            if (!k) {
                free(index);
                kres_done(r);
                return -1;
            }
            add_call(k, m->dur[s]);
            r->total = kres_sat_add(r->total, m->dur[s]);
        }
    }
    if (any)
        model_busy_times(m, index, r);
    free(index);
    if (!any)
        return -1;
    if (r->n > 1)
        qsort(r->rows, r->n, sizeof *r->rows, cmp_total_desc);
    return 0;
}

/* --- emitting ------------------------------------------------------------------------- */

void kres_make_cols(struct rowset *rs, struct kcols *c, bool with_rank, enum kernels_group g,
                    bool type, bool core, const bool *pmu)
{
    static const char *const kkey[] = { "name", "type", "core" };
    static const char *const ktitle[] = { "Name", "Type", "Core" };
    c->rank = with_rank ? rowset_col(rs, "rank", "Rank", RS_INT, 0) : SIZE_MAX;
    c->key = rowset_col(rs, kkey[g], ktitle[g], RS_STR, 0);
    c->type = type ? rowset_col(rs, "type", "Type", RS_STR, 0) : SIZE_MAX;
    c->core = core ? rowset_col(rs, "core", "Core", RS_STR, 0) : SIZE_MAX;
    c->count = rowset_col(rs, "count", "Count", RS_INT, 0);
    c->total = rowset_col(rs, "total_us", "Total µs", RS_NS, 0);
    c->mean = rowset_col(rs, "mean_us", "Mean µs", RS_NS, 0);
    c->min = rowset_col(rs, "min_us", "Min µs", RS_NS, 0);
    c->max = rowset_col(rs, "max_us", "Max µs", RS_NS, 0);
    c->share = rowset_col(rs, "share", "Share", RS_PCT, 0);
    for (size_t p = 0; p < NPMU; p++)
        c->pmu[p] = pmu[p] ? rowset_col(rs, pmus[p].rs_key, pmus[p].title,
                                         strstr(pmus[p].key, "(us)") ? RS_NS : RS_NUM, pmus[p].prec)
                           : SIZE_MAX;
}

void kres_emit_row(struct rowset *rs, const struct kcols *c, const struct kres *r, const struct kagg *k, int rank)
{
    size_t row = rowset_row(rs);
    if (row == SIZE_MAX)
        return;
    if (c->rank != SIZE_MAX)
        rowset_int(rs, row, c->rank, rank);
    rowset_strn(rs, row, c->key, strtab_get(r->str, k->key), strtab_len(r->str, k->key));
    if (c->type != SIZE_MAX && r->has_type && k->type)
        rowset_str(rs, row, c->type, strtab_get(r->str, k->type));
    if (c->core != SIZE_MAX && r->has_core && k->core)
        rowset_str(rs, row, c->core, strtab_get(r->str, k->core));
    rowset_int(rs, row, c->count, (int64_t)k->count);
    rowset_ns(rs, row, c->total, k->total);
    if (k->count) {
        /* mean rounded to the nearest ns */
        int64_t n = (int64_t)k->count;
        rowset_ns(rs, row, c->mean, k->total / n + (2 * (k->total % n) >= n ? 1 : 2 * (k->total % n) <= -n ? -1 : 0));
        rowset_ns(rs, row, c->min, k->min);
        rowset_ns(rs, row, c->max, k->max);
    }
    /* of device busy time (see union_add); of the summed kernel time when starts are unknown */
    ns_t whole = r->has_busy ? union_total(&r->busy) : r->total;
    ns_t part = r->has_busy ? union_total(&k->u) : k->total;
    if (whole > 0)
        rowset_num(rs, row, c->share, (double)part / (double)whole);
    for (size_t p = 0; p < NPMU; p++) {
        if (c->pmu[p] == SIZE_MAX || !k->pmu_n[p])
            continue;
        double v = k->pmu_sum[p] / k->pmu_n[p];
        if (rs->cols[c->pmu[p]].type == RS_NS)
            rowset_ns(rs, row, c->pmu[p], llround(v));
        else
            rowset_num(rs, row, c->pmu[p], v);
    }
}

static struct rowset *kres_rowset(const char *name, const struct kres *r, enum kernels_group g)
{
    struct rowset *rs = rowset_new(name);
    if (!rs)
        return NULL;
    bool pmu[NPMU];
    for (size_t p = 0; p < NPMU; p++)
        pmu[p] = r->pmu_col[p] != SIZE_MAX;
    struct kcols c;
    kres_make_cols(rs, &c, false, g, r->has_type, r->has_core, pmu);
    for (size_t i = 0; i < r->n; i++)
        kres_emit_row(rs, &c, r, &r->rows[i], 0);
    rowset_caption(rs, "%zu kernel %s from %s", r->n, g == KG_NAME ? "names" : g == KG_TYPE ? "types" : "core kinds",
                   r->source ? r->source : "");
    return rs;
}

struct rowset *kernels_aggregate(const struct table *kernels, enum kernels_group g)
{
    static const char *const names[] = { "kernels", "kernel_types", "kernel_cores" };
    struct kres r;
    if (aggregate_table(kernels, g, &r))
        return NULL;
    struct rowset *rs = kres_rowset(names[g], &r, g);
    kres_done(&r);
    return rs;
}

struct rowset *kernels_aggregate_model(const struct model *m)
{
    struct kres r;
    if (aggregate_model(m, &r))
        return NULL;
    struct rowset *rs = kres_rowset("kernels", &r, KG_NAME);
    kres_done(&r);
    return rs;
}

struct rowset *kernels_instances(const struct table *kernels)
{
    return kernels ? table_to_rowset(kernels, "kernel_instances") : NULL;
}

struct rowset *kernels_instances_of(const struct table *t, enum kernels_group g, const char *key)
{
    static const char *const tkey[] = { "name", "type", "accelerator_core" };
    size_t kc = t ? table_col(t, tkey[g]) : SIZE_MAX;
    if (kc == SIZE_MAX || t->cols[kc].type != TC_TEXT)
        return NULL;
    return table_rows_to_rowset(t, "kernel_instances", kc, strtab_find(t->str, key, strlen(key)));
}

struct rowset *kernels_instances_model(const struct model *m, const char *name)
{
    uint32_t id = strtab_find(m->str, name, strlen(name));
    struct rowset *rs = rowset_new("kernel_instances");
    if (!rs)
        return NULL;
    size_t c_name = rowset_col(rs, "name", "Name", RS_STR, 0);
    size_t c_lane = rowset_col(rs, "lane", "Lane", RS_STR, 0);
    size_t c_start = rowset_col(rs, "start_us", "Start µs", RS_NS, 0);
    size_t c_dur = rowset_col(rs, "duration_us", "Duration µs", RS_NS, 0);
    for (uint32_t l = 0; id != UINT32_MAX && l < m->nlanes; l++) {
        const struct lane *ln = &m->lanes[l];
        if (ln->kind != LANE_DEVICE)
            continue;
        char label[256];
        model_lane_label(m, l, label, sizeof label);
        for (uint32_t s = ln->first; s < ln->first + ln->count; s++) {
            if (m->name[s] != id)
                continue;
            size_t row = rowset_row(rs);
            if (row == SIZE_MAX)
                return rs;
            rowset_str(rs, row, c_name, name);
            rowset_str(rs, row, c_lane, label);
            rowset_ns(rs, row, c_start, m->start[s]);
            rowset_ns(rs, row, c_dur, m->dur[s]);
            rs->link[row] = s;
        }
    }
    return rs;
}

/* The kernels of a rank as report_kernels aggregates them: the table when it has rows,
 * else the trace's device lanes. */
int kres_aggregate_rank(const struct table *t, const struct model *m, struct kres *r)
{
    if (aggregate_table(t, KG_NAME, r) || r->n == 0) {
        struct kres alt;
        if (aggregate_model(m, &alt) == 0 && (alt.n || !r->str)) {
            kres_done(r);
            *r = alt;
        } else {
            kres_done(&alt);
            if (!r->str)
                return -1;
        }
    }
    return 0;
}

bool kernels_busy(const struct table *t, const struct model *m, ns_t *busy, const char **source)
{
    struct kres r;
    *busy = 0;
    if (source)
        *source = "";
    if (kres_aggregate_rank(t, m, &r))
        return false;
    bool ok = r.has_busy;
    if (ok)
        *busy = union_total(&r.busy);
    if (source)
        *source = r.source ? r.source : "";
    kres_done(&r);
    return ok;
}

struct rowset *kernels_rank(const struct table *t, const struct model *m)
{
    struct kres r;
    if (kres_aggregate_rank(t, m, &r))
        return NULL;
    struct rowset *rs = kres_rowset("kernels", &r, KG_NAME);
    kres_done(&r);
    return rs;
}

/* --- join ----------------------------------------------------------------------------- */

static int cmp_row_slice(const void *a, const void *b, void *ctx)
{
    const uint32_t *slice = ctx;
    uint32_t x = slice[*(const uint32_t *)a], y = slice[*(const uint32_t *)b];
    return x < y ? -1 : x > y;
}

/* Lanes a kernel table row can be: device tasks, and collectives (kernel_details lists the
 * HCCL ops, the trace draws them on the Communication / HCCL lanes). */
static bool join_lane(enum lane_kind k)
{
    return k == LANE_DEVICE || k == LANE_COMM;
}

int kernels_join(struct table *t, const struct model *m, struct diag *d)
{
    if (!t || !m || !m->finalized)
        return 0;
    size_t nc = table_col(t, "name"), sc = table_col(t, "start_time(us)");
    if (nc == SIZE_MAX || sc == SIZE_MAX || t->cols[nc].type != TC_TEXT || t->cols[sc].type != TC_TIME)
        return 0;
    size_t n = 0;
    for (uint32_t l = 0; l < m->nlanes; l++)
        if (join_lane(m->lanes[l].kind))
            n += m->lanes[l].count;
    struct named_slice *ds = malloc((n ? n : 1) * sizeof *ds);   /* t: the start */
    uint8_t *used = calloc(n ? n : 1, 1);
    uint32_t nids = strtab_count(t->str);
    uint32_t *map = malloc((nids ? nids : 1) * sizeof *map);     /* table name id → model id */
    uint32_t *slice = malloc((t->cap ? t->cap : 1) * sizeof *slice);
    if (!ds || !used || !map || !slice) {
        FREE_ALL(ds, used, map, slice);
        return 0;
    }
    n = 0;
    for (uint32_t l = 0; l < m->nlanes; l++) {
        const struct lane *ln = &m->lanes[l];
        if (!join_lane(ln->kind))
            continue;
        for (uint32_t s = ln->first; s < ln->first + ln->count; s++)
            ds[n++] = (struct named_slice){ m->name[s], s, m->start[s] };
    }
    if (n > 1)
        qsort(ds, n, sizeof *ds, named_slice_cmp);
    for (uint32_t i = 0; i < nids; i++)
        map[i] = strtab_find(m->str, strtab_get(t->str, i), strtab_len(t->str, i));
    size_t joined = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        slice[r] = SLICE_NONE;
        uint32_t mid = map[t->cols[nc].text[r]];
        ns_t st = t->cols[sc].time[r];
        if (mid == UINT32_MAX || st == NS_NONE)
            continue;
        /* first slice of this name starting at or after st - 1 µs (bounds saturate) */
        ns_t from = st < INT64_MIN + 1000 ? INT64_MIN : st - 1000;
        ns_t to = st > INT64_MAX - 1000 ? INT64_MAX : st + 1000;
        size_t lo;
        LOWER_BOUND(lo, (size_t)0, n, k, ds[k].name < mid || (ds[k].name == mid && ds[k].t < from));
        size_t best = SIZE_MAX;
        ns_t best_gap = INT64_MAX;
        for (size_t i = lo; i < n && ds[i].name == mid && ds[i].t <= to; i++) {
            ns_t gap = ds[i].t > st ? ds[i].t - st : st - ds[i].t;
            if (!used[i] && gap < best_gap) {
                best = i;
                best_gap = gap;
            }
        }
        if (best != SIZE_MAX) {
            used[best] = 1;
            slice[r] = ds[best].slice;
            joined++;
        }
    }
    uint32_t *by = malloc((joined ? joined : 1) * sizeof *by);
    if (by) {
        size_t k = 0;
        for (size_t r = 0; r < t->nrows; r++)
            if (slice[r] != SLICE_NONE)
                by[k++] = (uint32_t)r;
        free(t->slice);
        free(t->by_slice);
        t->slice = slice;
        if (joined > 1)
            qsort_r(by, joined, sizeof *by, cmp_row_slice, slice);
        t->by_slice = by;
        t->nby_slice = joined;
    } else {
        free(slice);
        joined = 0;
    }
    FREE_ALL(ds, used, map);
    diag_add(d, DIAG_INFO, t->path, "%zu of %zu kernel rows joined to trace slices (same name, start within 1 µs)",
             joined, t->nrows);
    return (int)joined;
}

size_t kernels_row_for_slice(const struct table *t, uint32_t slice)
{
    if (!t || !t->slice || !t->by_slice)
        return SIZE_MAX;
    size_t lo;
    LOWER_BOUND(lo, (size_t)0, t->nby_slice, k, t->slice[t->by_slice[k]] < slice);
    return lo < t->nby_slice && t->slice[t->by_slice[lo]] == slice ? t->by_slice[lo] : SIZE_MAX;
}
