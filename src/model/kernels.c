#include "model/kernels.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* PMU columns averaged per kernel when the table has them. */
static const struct pmu {
    const char *key, *rs_key, *title;
    int prec;
} pmus[] = {
    { "aicore_time(us)", "aicore_time_us", "AI Core µs", 3 },
    { "aiv_time(us)", "aiv_time_us", "AIV µs", 3 },
    { "aic_mac_ratio", "aic_mac_ratio", "AIC MAC", 4 },
    { "aic_mte2_ratio", "aic_mte2_ratio", "AIC MTE2", 4 },
    { "aiv_vec_ratio", "aiv_vec_ratio", "AIV Vec", 4 },
    { "aiv_mte2_ratio", "aiv_mte2_ratio", "AIV MTE2", 4 },
    { "memory_bound", "memory_bound", "Mem bound", 3 },
    { "cube_utilization(%)", "cube_utilization_pct", "Cube util %", 2 },
};
#define NPMU (sizeof pmus / sizeof pmus[0])

/* Union of intervals fed in start order: the busy time they cover together. */
struct span_union { ns_t lo, hi, busy; bool open; };

struct kagg {
    uint32_t key, type, core;       /* ids in the source's strtab */
    uint64_t count;
    ns_t total, min, max;
    struct span_union u;            /* the time this kernel ran, overlaps counted once */
    double pmu_sum[NPMU];
    uint32_t pmu_n[NPMU];
};

/* One source's aggregation (a table or a model). */
struct kres {
    const struct strtab *str;
    struct kagg *rows;
    size_t n;
    ns_t total;
    struct span_union busy;         /* device busy time: the union of all kernels' intervals */
    bool has_busy;                  /* start times were known, so shares are of busy time */
    size_t skipped;                 /* rows without a duration */
    bool has_type, has_core;
    size_t pmu_col[NPMU];           /* table column of each PMU, SIZE_MAX when absent */
    const char *source;             /* for the caption */
};

static void kres_done(struct kres *r)
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
    if (r->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 256;
        struct kagg *nr = realloc(r->rows, nc * sizeof *nr);
        if (!nr)
            return NULL;
        r->rows = nr;
        *cap = nc;
    }
    struct kagg *k = &r->rows[r->n];
    memset(k, 0, sizeof *k);
    k->key = key;
    k->min = INT64_MAX;
    k->max = INT64_MIN;
    index[key] = (uint32_t)r->n++;
    return k;
}

/* Sums saturate: hostile files may hold durations near the int64 limits. */
static ns_t sat_add(ns_t a, ns_t b)
{
    ns_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN + 1;
    return r;
}

static void add_call(struct kagg *k, ns_t dur)
{
    k->count++;
    k->total = sat_add(k->total, dur);
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
        u->busy = sat_add(u->busy, u->hi - u->lo);
    u->lo = a;
    u->hi = b;
    u->open = true;
}

static ns_t union_total(const struct span_union *u)
{
    return u->open ? sat_add(u->busy, u->hi - u->lo) : u->busy;
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
    uint32_t *cur = malloc((nrows ? nrows : 1) * sizeof *cur), *end = malloc((nrows ? nrows : 1) * sizeof *end);
    if (!cur || !end) {
        free(cur);
        free(end);
        return;
    }
    size_t k = 0;
    for (uint32_t l = 0; l < m->nlanes; l++) {
        const struct lane *ln = &m->lanes[l];
        if (ln->kind != LANE_DEVICE || !ln->row_first)
            continue;
        for (uint32_t d = 0; d < ln->ndepth; d++)
            if (ln->row_first[d] < ln->row_first[d + 1]) {
                cur[k] = ln->row_first[d];
                end[k++] = ln->row_first[d + 1];
            }
    }
    for (;;) {
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < k; i++)
            if (cur[i] < end[i] && (best == SIZE_MAX || m->start[cur[i]] < m->start[cur[best]]))
                best = i;
        if (best == SIZE_MAX)
            break;
        uint32_t s = cur[best]++;
        ns_t a = m->start[s], b = model_end(m, s);
        union_add(&r->busy, a, b);
        if (index[m->name[s]] != UINT32_MAX)
            union_add(&r->rows[index[m->name[s]]].u, a, b);
    }
    r->has_busy = k > 0;
    free(cur);
    free(end);
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
    uint32_t nids = strtab_count(t->str);
    uint32_t *index = malloc((nids ? nids : 1) * sizeof *index);
    if (!index)
        return -1;
    memset(index, 0xff, (nids ? nids : 1) * sizeof *index);
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
        r->total = sat_add(r->total, d);
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
    uint32_t nids = strtab_count(m->str);
    uint32_t *index = malloc((nids ? nids : 1) * sizeof *index);
    if (!index)
        return -1;
    memset(index, 0xff, (nids ? nids : 1) * sizeof *index);
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
            r->total = sat_add(r->total, m->dur[s]);
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

struct kcols {
    size_t rank, key, type, core, count, total, mean, min, max, share, pmu[NPMU];
};

static void make_cols(struct rowset *rs, struct kcols *c, bool with_rank, enum kernels_group g,
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

static void emit_row(struct rowset *rs, const struct kcols *c, const struct kres *r, const struct kagg *k, int rank)
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
    make_cols(rs, &c, false, g, r->has_type, r->has_core, pmu);
    for (size_t i = 0; i < r->n; i++)
        emit_row(rs, &c, r, &r->rows[i], 0);
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
static int aggregate_rank(const struct table *t, const struct model *m, struct kres *r)
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
    if (aggregate_rank(t, m, &r))
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
    if (aggregate_rank(t, m, &r))
        return NULL;
    struct rowset *rs = kres_rowset("kernels", &r, KG_NAME);
    kres_done(&r);
    return rs;
}

/* --- report sections -------------------------------------------------------------------- */

static bool rank_wanted(const struct report_opts *o, const struct rank_data *rd)
{
    return !o || o->rank < 0 || rd->rank == o->rank;
}

struct ranked { const struct kres *r; const struct kagg *k; int rank; };

static int cmp_ranked(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->k->total != y->k->total)
        return x->k->total > y->k->total ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return strcmp(strtab_get(x->r->str, x->k->key), strtab_get(y->r->str, y->k->key));
}

struct rowset *report_kernels(const struct session *s, const struct report_opts *o)
{
    if (!s || !s->nranks)
        return NULL;
    struct kres *res = calloc(s->nranks, sizeof *res);
    int *ranks = calloc(s->nranks, sizeof *ranks);
    if (!res || !ranks) {
        free(res);
        free(ranks);
        return NULL;
    }
    size_t nres = 0, nrows = 0;
    bool type = false, core = false, pmu[NPMU] = { false };
    const char *source = NULL;
    bool mixed = false;
    for (size_t i = 0; i < s->nranks; i++) {
        const struct rank_data *rd = &s->ranks[i];
        if (!rank_wanted(o, rd))
            continue;
        struct kres *r = &res[nres];
        /* the kernels table when it has rows, else the trace's device lanes */
        if (aggregate_rank(rd->tables[TK_KERNELS], rd->model, r))
            continue;
        ranks[nres++] = rd->rank;
        nrows += r->n;
        type |= r->has_type;
        core |= r->has_core;
        for (size_t p = 0; p < NPMU; p++)
            pmu[p] |= r->pmu_col[p] != SIZE_MAX;
        if (source && strcmp(source, r->source))
            mixed = true;
        source = r->source;
    }
    struct rowset *rs = NULL;
    struct ranked *all = nres ? malloc((nrows ? nrows : 1) * sizeof *all) : NULL;
    if (all && (rs = rowset_new("kernels"))) {
        size_t n = 0;
        for (size_t i = 0; i < nres; i++)
            for (size_t j = 0; j < res[i].n; j++)
                all[n++] = (struct ranked){ &res[i], &res[i].rows[j], ranks[i] };
        if (n > 1)
            qsort(all, n, sizeof *all, cmp_ranked);
        struct kcols c;
        make_cols(rs, &c, s->nranks > 1, KG_NAME, type, core, pmu);
        for (size_t i = 0; i < n; i++)
            emit_row(rs, &c, all[i].r, all[i].k, all[i].rank);
        size_t skipped = 0;
        for (size_t i = 0; i < nres; i++)
            skipped += res[i].skipped;
        char extra[96] = "";
        if (skipped)
            snprintf(extra, sizeof extra, "; %zu rows without a duration left out", skipped);
        rowset_caption(rs, "%zu kernels by name from %s%s%s", n, mixed ? "several sources" : source,
                       nres > 1 ? " (all ranks)" : "", extra);
    }
    free(all);
    for (size_t i = 0; i < nres; i++)
        kres_done(&res[i]);
    free(res);
    free(ranks);
    return rs;
}

/* Copies chosen columns of each selected rank's table of kind tk into one rowset: spec is a
 * list of {canonical key, rowset key, title}; absent columns are skipped. */
struct colspec { const char *key, *rs_key, *title; bool us; /* µs figure even when TC_NUM */ };

static struct rowset *tables_rowset(const struct session *s, const struct report_opts *o, enum table_kind tk,
                                    const char *name, const struct colspec *spec, size_t nspec,
                                    const char *sort_key)
{
    struct rowset *rs = NULL;
    bool with_rank = s->nranks > 1;
    size_t *rscol = calloc(nspec ? nspec : 1, sizeof *rscol);
    if (!rscol)
        return NULL;
    for (size_t i = 0; i < nspec; i++)
        rscol[i] = SIZE_MAX;
    size_t crank = SIZE_MAX, files = 0;
    for (size_t i = 0; i < s->nranks; i++) {
        const struct rank_data *rd = &s->ranks[i];
        const struct table *t = rd->tables[tk];
        if (!t || !rank_wanted(o, rd))
            continue;
        if (!rs && !(rs = rowset_new(name)))
            break;
        if (with_rank && crank == SIZE_MAX)
            crank = rowset_col(rs, "rank", "Rank", RS_INT, 0);
        size_t tcol[64];
        for (size_t j = 0; j < nspec && j < 64; j++) {
            tcol[j] = table_col(t, spec[j].key);
            if (tcol[j] == SIZE_MAX || rscol[j] != SIZE_MAX)
                continue;
            enum table_col_type ty = t->cols[tcol[j]].type;
            rscol[j] = rowset_col(rs, spec[j].rs_key, spec[j].title,
                                  ty == TC_TIME || (ty == TC_NUM && spec[j].us) ? RS_NS : ty == TC_NUM ? RS_NUM : RS_STR,
                                  t->cols[tcol[j]].prec > 6 ? 6 : t->cols[tcol[j]].prec);
        }
        files++;
        for (size_t r = 0; r < t->nrows; r++) {
            size_t row = rowset_row(rs);
            if (row == SIZE_MAX)
                break;
            if (crank != SIZE_MAX)
                rowset_int(rs, row, crank, rd->rank);
            for (size_t j = 0; j < nspec && j < 64; j++) {
                size_t c = tcol[j];
                if (c == SIZE_MAX || rscol[j] == SIZE_MAX || table_is_missing(t, r, c))
                    continue;
                enum rs_type want = rs->cols[rscol[j]].type;
                const struct table_col *tc = &t->cols[c];
                if (tc->type == TC_TIME && want == RS_NS)
                    rowset_ns(rs, row, rscol[j], tc->time[r]);
                else if (tc->type == TC_NUM && want == RS_NS && fabs(tc->num[r]) < 9e15)
                    rowset_ns(rs, row, rscol[j], llround(tc->num[r] * 1000.0));    /* µs → ns */
                else if (tc->type == TC_NUM && want == RS_NUM)
                    rowset_num(rs, row, rscol[j], tc->num[r]);
                else if (tc->type == TC_TEXT && want == RS_STR)
                    rowset_strn(rs, row, rscol[j], strtab_get(t->str, tc->text[r]), strtab_len(t->str, tc->text[r]));
            }
        }
    }
    free(rscol);
    if (rs && sort_key) {
        size_t sc = rowset_find_col(rs, sort_key);
        uint32_t *order = sc != SIZE_MAX && rs->nrows ? malloc(rs->nrows * sizeof *order) : NULL;
        union rs_val *v = order ? malloc(rs->nrows * rs->ncols * sizeof *v) : NULL;
        uint8_t *nl = v ? malloc(rs->nrows * rs->ncols) : NULL;
        uint64_t *lk = nl ? malloc(rs->nrows * sizeof *lk) : NULL;
        if (lk) {
            rowset_sort_order(rs, sc, true, order);
            for (size_t r = 0; r < rs->nrows; r++) {
                memcpy(&v[r * rs->ncols], &rs->vals[order[r] * rs->ncols], rs->ncols * sizeof *v);
                memcpy(&nl[r * rs->ncols], &rs->null[order[r] * rs->ncols], rs->ncols);
                lk[r] = rs->link[order[r]];
            }
            memcpy(rs->vals, v, rs->nrows * rs->ncols * sizeof *v);
            memcpy(rs->null, nl, rs->nrows * rs->ncols);
            memcpy(rs->link, lk, rs->nrows * sizeof *lk);
        }
        free(order);
        free(v);
        free(nl);
        free(lk);
    }
    if (rs)
        rowset_caption(rs, "%zu rows from %zu file%s", rs->nrows, files, files == 1 ? "" : "s");
    return rs;
}

static const struct colspec api_spec[] = {
    { "device_id", "device_id", "Device", false },
    { "level", "level", "Level", false },
    { "api_name", "name", "API", false },
    { "count", "count", "Count", false },
    { "time(us)", "total_us", "Total µs", true },
    { "avg(us)", "avg_us", "Avg µs", true },
    { "min(us)", "min_us", "Min µs", true },
    { "max(us)", "max_us", "Max µs", true },
    { "variance", "variance", "Variance", false },
};

static const struct colspec opstat_spec[] = {
    { "device_id", "device_id", "Device", false },
    { "type", "type", "OP Type", false },
    { "core_type", "core_type", "Core", false },
    { "count", "count", "Count", false },
    { "total_time(us)", "total_us", "Total µs", true },
    { "avg_time(us)", "avg_us", "Avg µs", true },
    { "min_time(us)", "min_us", "Min µs", true },
    { "max_time(us)", "max_us", "Max µs", true },
    { "ratio(%)", "ratio_pct", "Ratio %", false },
};

/* A session with one rank holding just this table, for the per-table rowset functions. */
static struct rowset *one_table(const struct table *t, enum table_kind tk, const char *name,
                                const struct colspec *spec, size_t nspec, const char *sort_key)
{
    if (!t)
        return NULL;
    struct rank_data rd = { .rank = 0 };
    rd.tables[tk] = (struct table *)t;
    struct session s = { .ranks = &rd, .nranks = 1 };
    return tables_rowset(&s, NULL, tk, name, spec, nspec, sort_key);
}

struct rowset *kernels_api_statistic(const struct table *t)
{
    return one_table(t, TK_API_STATISTIC, "apis", api_spec, sizeof api_spec / sizeof api_spec[0], "total_us");
}

struct rowset *report_apis(const struct session *s, const struct report_opts *o)
{
    return tables_rowset(s, o, TK_API_STATISTIC, "apis", api_spec, sizeof api_spec / sizeof api_spec[0], "total_us");
}

/* Step-trace columns in µs without a unit in their name (a DB-built table keeps them as
 * numbers, the CSV reader as ns times: both come out in ns). */
static bool step_trace_us(const char *key)
{
    static const char *const keys[] = {
        "computing", "communication(not_overlapped)", "overlapped", "communication", "free", "stage",
        "bubble", "communication(not_overlapped_and_exclude_receive)", "preparing",
    };
    size_t n = strlen(key);
    if (n > 4 && !strcmp(key + n - 4, "(us)"))
        return true;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(key, keys[i]))
            return true;
    return false;
}

/* step_trace: every column as written, in file order (union over ranks). */
static struct rowset *step_trace_rowset(const struct session *s, const struct report_opts *o)
{
    struct colspec spec[64];
    char keys[64][96], titles[64][160];
    size_t n = 0;
    for (size_t i = 0; i < s->nranks; i++) {
        const struct table *t = s->ranks[i].tables[TK_STEP_TRACE];
        if (!t || !rank_wanted(o, &s->ranks[i]))
            continue;
        for (size_t c = 0; c < t->ncols && n < 64; c++) {
            bool seen = false;
            for (size_t j = 0; j < n && !seen; j++)
                seen = !strcmp(spec[j].key, t->cols[c].key);
            if (seen)
                continue;
            bool us = t->cols[c].type == TC_TIME || (t->cols[c].type == TC_NUM && step_trace_us(t->cols[c].key));
            table_rowset_key(t->cols[c].key, keys[n], sizeof keys[n] - 4);
            size_t kl = strlen(keys[n]);
            if (us && (kl < 3 || strcmp(keys[n] + kl - 3, "_us")))
                strcat(keys[n], "_us");
            /* the file's header, with the unit of the values under it when it names none */
            const char *h = t->cols[c].header;
            bool named = strstr(h, "(us)") || strstr(h, "(μs)") || strstr(h, "\xc2\xb5s");
            snprintf(titles[n], sizeof titles[n], "%s%s", h, us && !named ? " \xc2\xb5s" : "");
            spec[n] = (struct colspec){ t->cols[c].key, keys[n], titles[n], us };
            n++;
        }
    }
    return n ? tables_rowset(s, o, TK_STEP_TRACE, "step_trace", spec, n, NULL) : NULL;
}

struct rowset *kernels_step_trace(const struct table *t)
{
    if (!t)
        return NULL;
    struct rank_data rd = { .rank = 0 };
    rd.tables[TK_STEP_TRACE] = (struct table *)t;
    struct session s = { .ranks = &rd, .nranks = 1 };
    return step_trace_rowset(&s, NULL);
}

struct rowset *report_step_trace(const struct session *s, const struct report_opts *o)
{
    return step_trace_rowset(s, o);
}

/* operator_details per name (and rank): count and summed times. */
static const struct colspec opdet_times[] = {
    { "host_self_duration(us)", "host_self_us", "Host self µs", true },
    { "host_total_duration(us)", "host_total_us", "Host total µs", true },
    { "device_self_duration(us)", "device_self_us", "Device self µs", true },
    { "device_total_duration(us)", "device_total_us", "Device total µs", true },
    { "device_self_duration_with_aicore(us)", "device_self_aicore_us", "Dev self AICore µs", true },
    { "device_total_duration_with_aicore(us)", "device_total_aicore_us", "Dev total AICore µs", true },
};
#define NOPT (sizeof opdet_times / sizeof opdet_times[0])

struct opagg { uint32_t name; int rank; const struct table *t; uint64_t count; ns_t sum[NOPT]; bool has[NOPT]; };

static int cmp_opagg(const void *a, const void *b)
{
    const struct opagg *x = a, *y = b;
    if (x->sum[1] != y->sum[1])        /* host total, descending */
        return x->sum[1] > y->sum[1] ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return strcmp(strtab_get(x->t->str, x->name), strtab_get(y->t->str, y->name));
}

static struct rowset *operator_details_rowset(const struct session *s, const struct report_opts *o)
{
    struct opagg *all = NULL;
    size_t n = 0, cap = 0, files = 0;
    bool present[NOPT] = { false };
    for (size_t i = 0; i < s->nranks; i++) {
        const struct table *t = s->ranks[i].tables[TK_OPERATOR_DETAILS];
        if (!t || !rank_wanted(o, &s->ranks[i]))
            continue;
        size_t nc = table_col(t, "name");
        if (nc == SIZE_MAX || t->cols[nc].type != TC_TEXT)
            continue;
        size_t tc[NOPT];
        for (size_t k = 0; k < NOPT; k++) {
            tc[k] = table_col(t, opdet_times[k].key);
            if (tc[k] != SIZE_MAX && t->cols[tc[k]].type != TC_TIME)
                tc[k] = SIZE_MAX;
            present[k] |= tc[k] != SIZE_MAX;
        }
        uint32_t nids = strtab_count(t->str);
        uint32_t *index = malloc((nids ? nids : 1) * sizeof *index);
        if (!index)
            break;
        memset(index, 0xff, (nids ? nids : 1) * sizeof *index);
        files++;
        for (size_t r = 0; r < t->nrows; r++) {
            uint32_t id = t->cols[nc].text[r];
            if (index[id] == UINT32_MAX) {
                if (n == cap) {
                    size_t ncap = cap ? cap * 2 : 256;
                    struct opagg *na = realloc(all, ncap * sizeof *na);
                    if (!na)
                        break;
                    all = na;
                    cap = ncap;
                }
                memset(&all[n], 0, sizeof all[n]);
                all[n].name = id;
                all[n].rank = s->ranks[i].rank;
                all[n].t = t;
                index[id] = (uint32_t)n++;
            }
            struct opagg *a = &all[index[id]];
            a->count++;
            for (size_t k = 0; k < NOPT; k++)
                if (tc[k] != SIZE_MAX && t->cols[tc[k]].time[r] != NS_NONE) {
                    a->sum[k] = sat_add(a->sum[k], t->cols[tc[k]].time[r]);
                    a->has[k] = true;
                }
        }
        free(index);
    }
    if (!files) {
        free(all);
        return NULL;
    }
    if (n > 1)
        qsort(all, n, sizeof *all, cmp_opagg);
    struct rowset *rs = rowset_new("ops");
    if (rs) {
        size_t crank = s->nranks > 1 ? rowset_col(rs, "rank", "Rank", RS_INT, 0) : SIZE_MAX;
        size_t cname = rowset_col(rs, "name", "Name", RS_STR, 0);
        size_t ccount = rowset_col(rs, "count", "Count", RS_INT, 0);
        size_t ct[NOPT];
        for (size_t k = 0; k < NOPT; k++)
            ct[k] = present[k] ? rowset_col(rs, opdet_times[k].rs_key, opdet_times[k].title, RS_NS, 0) : SIZE_MAX;
        for (size_t i = 0; i < n; i++) {
            size_t row = rowset_row(rs);
            if (row == SIZE_MAX)
                break;
            if (crank != SIZE_MAX)
                rowset_int(rs, row, crank, all[i].rank);
            rowset_str(rs, row, cname, strtab_get(all[i].t->str, all[i].name));
            rowset_int(rs, row, ccount, (int64_t)all[i].count);
            for (size_t k = 0; k < NOPT; k++)
                if (ct[k] != SIZE_MAX && all[i].has[k])
                    rowset_ns(rs, row, ct[k], all[i].sum[k]);
        }
        rowset_caption(rs, "%zu host operators by name from operator_details (%zu file%s), by host total",
                       rs->nrows, files, files == 1 ? "" : "s");
    }
    free(all);
    return rs;
}

struct rowset *kernels_operator_details(const struct table *t)
{
    if (!t)
        return NULL;
    struct rank_data rd = { .rank = 0 };
    rd.tables[TK_OPERATOR_DETAILS] = (struct table *)t;
    struct session s = { .ranks = &rd, .nranks = 1 };
    return operator_details_rowset(&s, NULL);
}

/* Host operators from operator_details.csv; without it, the op_statistic rows (by type). */
struct rowset *report_ops(const struct session *s, const struct report_opts *o)
{
    struct rowset *rs = operator_details_rowset(s, o);
    if (rs)
        return rs;
    rs = tables_rowset(s, o, TK_OP_STATISTIC, "ops", opstat_spec, sizeof opstat_spec / sizeof opstat_spec[0], "total_us");
    if (rs)
        rowset_caption(rs, "no operator_details: %zu kernel types from op_statistic, by total", rs->nrows);
    return rs;
}

/* --- join ----------------------------------------------------------------------------- */

struct dslice { uint32_t name; uint32_t slice; ns_t start; };

static int cmp_dslice(const void *a, const void *b)
{
    const struct dslice *x = a, *y = b;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->slice < y->slice ? -1 : x->slice > y->slice;
}

static int cmp_row_slice(const void *a, const void *b, void *ctx)
{
    const uint32_t *slice = ctx;
    uint32_t x = slice[*(const uint32_t *)a], y = slice[*(const uint32_t *)b];
    return x < y ? -1 : x > y;
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
        if (m->lanes[l].kind == LANE_DEVICE)
            n += m->lanes[l].count;
    struct dslice *ds = malloc((n ? n : 1) * sizeof *ds);
    uint8_t *used = calloc(n ? n : 1, 1);
    uint32_t nids = strtab_count(t->str);
    uint32_t *map = malloc((nids ? nids : 1) * sizeof *map);     /* table name id → model id */
    uint32_t *slice = malloc((t->cap ? t->cap : 1) * sizeof *slice);
    if (!ds || !used || !map || !slice) {
        free(ds);
        free(used);
        free(map);
        free(slice);
        return 0;
    }
    n = 0;
    for (uint32_t l = 0; l < m->nlanes; l++) {
        const struct lane *ln = &m->lanes[l];
        if (ln->kind != LANE_DEVICE)
            continue;
        for (uint32_t s = ln->first; s < ln->first + ln->count; s++)
            ds[n++] = (struct dslice){ m->name[s], s, m->start[s] };
    }
    if (n > 1)
        qsort(ds, n, sizeof *ds, cmp_dslice);
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
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid2 = (lo + hi) / 2;
            if (ds[mid2].name < mid || (ds[mid2].name == mid && ds[mid2].start < from))
                lo = mid2 + 1;
            else
                hi = mid2;
        }
        size_t best = SIZE_MAX;
        ns_t best_gap = INT64_MAX;
        for (size_t i = lo; i < n && ds[i].name == mid && ds[i].start <= to; i++) {
            ns_t gap = ds[i].start > st ? ds[i].start - st : st - ds[i].start;
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
    free(ds);
    free(used);
    free(map);
    diag_add(d, DIAG_INFO, t->path, "%zu of %zu kernel rows joined to trace slices (same name, start within 1 µs)",
             joined, t->nrows);
    return (int)joined;
}

size_t kernels_row_for_slice(const struct table *t, uint32_t slice)
{
    if (!t || !t->slice || !t->by_slice)
        return SIZE_MAX;
    size_t lo = 0, hi = t->nby_slice;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->slice[t->by_slice[mid]] < slice)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->nby_slice && t->slice[t->by_slice[lo]] == slice ? t->by_slice[lo] : SIZE_MAX;
}
