/* Rowsets over kernel, API, step-trace and operator tables, of every rank of a session or of
 * one rank (the report's kernels, apis, step_trace and ops sections print them). */
#include "model/analysis/kernels.h"
#include "util/grow.h"
#include "model/analysis/kernels_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/index/rank_filter.h"
#include "model/analysis/steps.h"
#include "model/index/session.h"
#include "util/free_all.h"

/* --- every rank of a session ------------------------------------------------------------ */

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

void kernels_count_note(const struct rank_data *rd, uint64_t table_calls, char *buf, size_t size)
{
    buf[0] = 0;
    if (!rd || !rd->tables[TK_KERNELS] || !rd->tables[TK_KERNELS]->nrows || !rd->steps || !rd->steps->n)
        return;   /* no table (the kernels are the timeline's own) or no steps */
    uint64_t in_steps = 0;
    for (size_t i = 0; i < rd->steps->n; i++)
        in_steps += rd->steps->v[i].kernels;
    if (in_steps != table_calls)
        snprintf(buf, size, "; the table lists %" PRIu64 " kernels, the rank's steps (%zu) count %" PRIu64
                 " device tasks of the timeline", table_calls, rd->steps->n, in_steps);
}

struct rowset *kernels_session_rowset(const struct session *s, int rank)
{
    if (!s || !s->nranks)
        return NULL;
    struct kres *res = calloc(s->nranks, sizeof *res);
    int *ranks = calloc(s->nranks, sizeof *ranks);
    if (!res || !ranks) {
        FREE_ALL(res, ranks);
        return NULL;
    }
    size_t nres = 0, nrows = 0;
    bool type = false, core = false, pmu[NPMU] = { false };
    const char *source = NULL;
    bool mixed = false;
    for (size_t i = 0; i < s->nranks; i++) {
        const struct rank_data *rd = &s->ranks[i];
        if (!rank_selected(rd->rank, rank))
            continue;
        struct kres *r = &res[nres];
        /* the kernels table when it has rows, else the trace's device lanes */
        if (kres_aggregate_rank(rd->tables[TK_KERNELS], rd->model, r))
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
        kres_make_cols(rs, &c, s->nranks > 1, KG_NAME, type, core, pmu);
        for (size_t i = 0; i < n; i++)
            kres_emit_row(rs, &c, all[i].r, all[i].k, all[i].rank);
        size_t skipped = 0;
        for (size_t i = 0; i < nres; i++)
            skipped += res[i].skipped;
        char extra[256] = "";
        if (skipped)
            snprintf(extra, sizeof extra, "; %zu rows without a duration left out", skipped);
        else if (nres == 1) {   /* one rank: its table against its steps */
            uint64_t calls = 0;
            for (size_t j = 0; j < res[0].n; j++)
                calls += res[0].rows[j].count;
            for (size_t i = 0; i < s->nranks; i++)
                if (s->ranks[i].rank == ranks[0])
                    kernels_count_note(&s->ranks[i], calls, extra, sizeof extra);
        }
        rowset_caption(rs, "%zu kernels by name from %s%s%s", n, mixed ? "several sources" : source,
                       nres > 1 ? " (all ranks)" : "", extra);
    }
    free(all);
    for (size_t i = 0; i < nres; i++)
        kres_done(&res[i]);
    FREE_ALL(res, ranks);
    return rs;
}

/* Copies chosen columns of each selected rank's table of kind tk into one rowset: spec is a
 * list of {canonical key, rowset key, title}; absent columns are skipped. */
struct colspec { const char *key, *rs_key, *title; bool us; /* µs figure even when TC_NUM */ };

static struct rowset *tables_rowset(const struct session *s, int rank, enum table_kind tk,
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
        if (!t || !rank_selected(rd->rank, rank))
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
        FREE_ALL(order, v, nl, lk);
    }
    if (rs)
        rowset_caption(rs, "%zu rows from %zu file%s", rs->nrows, files, files == 1 ? "" : "s");
    return rs;
}

/* The time statistics of a statistics table, read from its columns named total, avg, min
 * and max (µs), under one name each. */
#define TIME_STATS(total, avg, min, max)                                                     \
    { total, "total_us", "Total µs", true }, { avg, "avg_us", "Avg µs", true },              \
    { min, "min_us", "Min µs", true }, { max, "max_us", "Max µs", true }

static const struct colspec api_spec[] = {
    { "device_id", "device_id", "Device", false },
    { "level", "level", "Level", false },
    { "api_name", "name", "API", false },
    { "count", "count", "Count", false },
    TIME_STATS("time(us)", "avg(us)", "min(us)", "max(us)"),
    { "variance", "variance", "Variance", false },
};

static const struct colspec opstat_spec[] = {
    { "device_id", "device_id", "Device", false },
    { "type", "type", "OP Type", false },
    { "core_type", "core_type", "Core", false },
    { "count", "count", "Count", false },
    TIME_STATS("total_time(us)", "avg_time(us)", "min_time(us)", "max_time(us)"),
    { "ratio(%)", "ratio_pct", "Ratio %", false },
};

/* The per-table rowset functions: what a session builder makes of a session with one rank
 * holding just this table. */
static struct rowset *one_table_rowset(const struct table *t, enum table_kind kind,
                                       struct rowset *(*session_rowset)(const struct session *, int))
{
    if (!t)
        return NULL;
    struct rank_data rd = { .rank = 0 };
    rd.tables[kind] = (struct table *)t;
    struct session s = { .ranks = &rd, .nranks = 1 };
    return session_rowset(&s, -1);
}

struct rowset *kernels_apis_session_rowset(const struct session *s, int rank)
{
    return tables_rowset(s, rank, TK_API_STATISTIC, "apis", api_spec, sizeof api_spec / sizeof api_spec[0], "total_us");
}

struct rowset *kernels_api_statistic(const struct table *t)
{
    return one_table_rowset(t, TK_API_STATISTIC, kernels_apis_session_rowset);
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
struct rowset *kernels_step_trace_session_rowset(const struct session *s, int rank)
{
    struct colspec spec[64];
    char keys[64][96], titles[64][160];
    size_t n = 0;
    for (size_t i = 0; i < s->nranks; i++) {
        const struct table *t = s->ranks[i].tables[TK_STEP_TRACE];
        if (!t || !rank_selected(s->ranks[i].rank, rank))
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
    return n ? tables_rowset(s, rank, TK_STEP_TRACE, "step_trace", spec, n, NULL) : NULL;
}

struct rowset *kernels_step_trace(const struct table *t)
{
    return one_table_rowset(t, TK_STEP_TRACE, kernels_step_trace_session_rowset);
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

static struct rowset *operator_details_rowset(const struct session *s, int rank)
{
    struct opagg *all = NULL;
    size_t n = 0, cap = 0, files = 0;
    bool present[NOPT] = { false };
    for (size_t i = 0; i < s->nranks; i++) {
        const struct table *t = s->ranks[i].tables[TK_OPERATOR_DETAILS];
        if (!t || !rank_selected(s->ranks[i].rank, rank))
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
                all = grow_array_or_exit(all, &cap, n + 1, sizeof *all, "operator details rows");
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
                    a->sum[k] = kres_sat_add(a->sum[k], t->cols[tc[k]].time[r]);
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
    return one_table_rowset(t, TK_OPERATOR_DETAILS, operator_details_rowset);
}

/* Host operators from operator_details.csv; without it, the op_statistic rows (by type). */
struct rowset *kernels_ops_session_rowset(const struct session *s, int rank)
{
    struct rowset *rs = operator_details_rowset(s, rank);
    if (rs)
        return rs;
    rs = tables_rowset(s, rank, TK_OP_STATISTIC, "ops", opstat_spec, sizeof opstat_spec / sizeof opstat_spec[0], "total_us");
    if (rs)
        rowset_caption(rs, "no operator_details: %zu kernel types from op_statistic, by total", rs->nrows);
    return rs;
}
