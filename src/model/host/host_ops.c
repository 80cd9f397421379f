/* Host operators from the trace: calls, host total and self time, device time launched
 * (see host_ops.h). */
#include "model/host/host_ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/host/host_launch.h"
#include "model/host/host_self.h"
#include "model/index/model_ranks.h"
#include "model/index/table.h"
#include "util/free_all.h"
#include "util/grow.h"

static uint32_t cat_id(const struct model *m, const char *s)
{
    return strtab_find(m->str, s, strlen(s));
}

bool host_ops_all_host(const struct model *m)
{
    uint32_t a = cat_id(m, "cpu_op"), b = cat_id(m, "operator");   /* UINT32_MAX: absent */
    if (a == UINT32_MAX && b == UINT32_MAX)
        return true;
    for (uint32_t s = 0; s < m->nslices; s++)
        if (m->cat[s] == a || m->cat[s] == b)
            return false;
    return true;
}

bool host_op_slice(const struct model *m, uint32_t s, bool all_host)
{
    if (!host_lane_kind(m->lanes[m->lane[s]].kind))
        return false;
    const char *cat = model_str(m, m->cat[s]);
    if (!all_host)
        return !strcmp(cat, "cpu_op") || !strcmp(cat, "operator");
    return strcmp(cat, "python_function") && strcmp(cat, "enqueue") && strcmp(cat, "dequeue");
}

/* qsort has no context argument in C11: the model the comparator reads names from. */
static _Thread_local const struct model *sort_model;

static int cmp_op(const void *a, const void *b)
{
    const struct host_op *x = a, *y = b;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    int c = strcmp(model_str(sort_model, x->name), model_str(sort_model, y->name));
    return c ? c : (x->shapes > y->shapes) - (x->shapes < y->shapes);
}

/* Rows by (name, shapes): open addressing over row indices, UINT32_MAX empty. */
struct row_index {
    uint32_t *slot;
    size_t cap;        /* a power of two, at least twice the rows */
};

static size_t row_hash(uint32_t name, uint32_t shapes, size_t mask)
{
    return (size_t)((((uint64_t)name << 32 | shapes) * 0x9E3779B97F4A7C15ull) >> 20) & mask;
}

/* The slot of (name, shapes): its row, or the empty slot where it goes. */
static uint32_t *row_slot(const struct row_index *x, const struct host_op *ops, uint32_t name, uint32_t shapes)
{
    size_t h = row_hash(name, shapes, x->cap - 1);
    while (x->slot[h] != UINT32_MAX && (ops[x->slot[h]].name != name || ops[x->slot[h]].shapes != shapes))
        h = (h + 1) & (x->cap - 1);
    return &x->slot[h];
}

static bool row_index_grow(struct row_index *x, const struct host_op *ops, size_t n)
{
    if (x->cap && (n + 1) * 2 <= x->cap)
        return true;
    struct row_index nx = { .cap = x->cap ? x->cap * 2 : 256 };
    nx.slot = malloc(nx.cap * sizeof *nx.slot);
    if (!nx.slot)
        return false;
    memset(nx.slot, 0xff, nx.cap * sizeof *nx.slot);
    for (size_t r = 0; r < n; r++)
        *row_slot(&nx, ops, ops[r].name, ops[r].shapes) = (uint32_t)r;
    free(x->slot);
    *x = nx;
    return true;
}

/* The row of slice s (UINT32_MAX when none yet). */
static uint32_t row_of_slice(const struct row_index *x, const struct host_op *ops, const struct model *m,
                             const struct host_shapes *shapes, uint32_t s)
{
    uint32_t sh = shapes && s < shapes->n ? shapes->of[s] : 0;
    return x->cap ? *row_slot(x, ops, m->name[s], sh) : UINT32_MAX;
}

struct host_ops *host_ops_compute(const struct model *m, const struct host_shapes *shapes)
{
    struct host_ops *h = calloc(1, sizeof *h);
    struct row_index rows = { 0 };
    uint32_t *stamp = NULL;                                          /* row -> last device slice + 1 */
    uint32_t *launch = malloc(HOST_LAUNCH_MAX * sizeof *launch);
    ns_t *scratch = NULL;   /* host_self_time's room, reused */
    size_t scap = 0;
    if (!h || !launch)
        goto oom;
    h->all_host_slices = host_ops_all_host(m);
    size_t cap = 0;
    for (uint32_t s = 0; s < m->nslices; s++) {
        if (!host_op_slice(m, s, h->all_host_slices))
            continue;
        uint32_t r = row_of_slice(&rows, h->ops, m, shapes, s);
        if (r == UINT32_MAX) {
            struct host_op *no = grow_array(h->ops, &cap, h->n + 1, sizeof *no);
            if (!no || !row_index_grow(&rows, no, h->n))
                goto oom;
            h->ops = no;
            uint32_t sh = shapes && s < shapes->n ? shapes->of[s] : 0;
            r = (uint32_t)h->n++;
            h->ops[r] = (struct host_op){ .name = m->name[s], .shapes = sh, .longest = s };
            *row_slot(&rows, h->ops, m->name[s], sh) = r;
        }
        struct host_op *o = &h->ops[r];
        if (m->dur[s] > m->dur[o->longest])
            o->longest = s;
        o->calls++;
        o->total += m->dur[s] > 0 ? m->dur[s] : 0;
        o->self += host_self_time(m, s, &scratch, &scap);
    }
    stamp = calloc(h->n ? h->n : 1, sizeof *stamp);
    if (!stamp)
        goto oom;
    for (uint32_t k = 0; k < m->nslices && h->n; k++) {
        size_t nl = host_launch_slices(m, k, launch, HOST_LAUNCH_MAX);
        for (size_t i = 0; i < nl; i++) {
            uint32_t r = row_of_slice(&rows, h->ops, m, shapes, launch[i]);
            if (r == UINT32_MAX || stamp[r] == k + 1 || !host_op_slice(m, launch[i], h->all_host_slices))
                continue;
            stamp[r] = k + 1;
            h->ops[r].kernels++;
            h->ops[r].device += m->dur[k] > 0 ? m->dur[k] : 0;
        }
    }
    sort_model = m;
    if (h->n > 1)
        qsort(h->ops, h->n, sizeof *h->ops, cmp_op);
    FREE_ALL(rows.slot, stamp, launch, scratch);
    return h;
oom:
    FREE_ALL(rows.slot, stamp, launch, scratch);
    host_ops_free(h);
    return NULL;
}

void host_ops_free(struct host_ops *h)
{
    if (h)
        FREE_ALL(h->ops, h);
}

static const struct rs_coldef host_ops_cols[] = {
    RS_COL_STR("name", "Name"),
    RS_COL_INT("calls", "Calls"),
    RS_COL_NS("host_total_us", "Host total µs"),
    RS_COL_NS("host_self_us", "Host self µs"),
    RS_COL_NS("device_us", "Device µs"),
    RS_COL_INT("kernels", "Kernels"),
    RS_COL_STR("input_shapes", "Input shapes"),
};
enum { HC_NAME, HC_CALLS, HC_TOTAL, HC_SELF, HC_DEVICE, HC_KERNELS, HC_SHAPES };

struct rowset *host_ops_session_rowset(const struct session *s, int rank, struct host_shapes *const *shapes)
{
    if (!s)
        return NULL;
    struct rowset *rs = NULL;
    size_t crank = SIZE_MAX, base = 0, ops = 0, ranks = 0;
    uint64_t calls = 0, shaped = 0;
    bool any_shapes = false;
    bool all_host = false;
    const struct rank_data *rd;
    for (size_t i = 0; (rd = model_rank_next(s, &i, rank)); i++) {
        const struct host_shapes *sh = shapes ? shapes[i] : NULL;
        any_shapes |= sh != NULL;
        struct host_ops *h = host_ops_compute(rd->model, sh);
        if (!h)
            continue;
        if (h->n && !rs) {
            rs = ROWSET_NEW_RANKED("host_ops", s->nranks > 1, host_ops_cols, &crank, &base);
            if (!rs) {
                host_ops_free(h);
                return NULL;
            }
        }
        ranks += h->n > 0;
        all_host |= h->n && h->all_host_slices;
        for (size_t k = 0; k < h->n; k++) {
            const struct host_op *o = &h->ops[k];
            size_t row = rowset_linked_row(rs, rowset_rank_link(i, o->longest));
            if (row == SIZE_MAX)
                break;
            if (crank != SIZE_MAX)
                rowset_int(rs, row, crank, rd->rank);
            rowset_str(rs, row, base + HC_NAME, model_str(rd->model, o->name));
            rowset_int(rs, row, base + HC_CALLS, (int64_t)o->calls);
            rowset_ns(rs, row, base + HC_TOTAL, o->total);
            rowset_ns(rs, row, base + HC_SELF, o->self);
            rowset_ns(rs, row, base + HC_DEVICE, o->device);
            rowset_int(rs, row, base + HC_KERNELS, (int64_t)o->kernels);
            if (o->shapes)
                rowset_str(rs, row, base + HC_SHAPES, strtab_get(sh->str, o->shapes - 1));
            calls += o->calls;
            shaped += o->shapes ? o->calls : 0;
            ops++;
        }
        host_ops_free(h);
    }
    char by_shapes[96] = "";
    if (any_shapes)
        snprintf(by_shapes, sizeof by_shapes, " and input shapes (recorded on %llu of %llu calls)",
                 (unsigned long long)shaped, (unsigned long long)calls);
    if (rs)
        rowset_caption(rs, "%zu host operator%s by name%s from the trace (%s) of %zu rank%s, by host total;"
                       " device = the device slices launched from inside a call",
                       ops, any_shapes ? " rows" : "s", by_shapes, all_host ? "host slices" : "cpu_op slices", ranks, ranks == 1 ? "" : "s");
    return rs;
}

void host_ops_vs_details(const struct rank_data *rd, char *buf, size_t size)
{
    const struct table *t = rd ? rd->tables[TK_OPERATOR_DETAILS] : NULL;
    snprintf(buf, size, "%s", "");
    if (!t || !rd->model)
        return;
    size_t nc = table_col(t, "name");
    struct host_ops *h = host_ops_compute(rd->model, NULL);
    uint32_t nids = strtab_count(t->str);
    uint64_t *rows = calloc(nids ? nids : 1, sizeof *rows);   /* operator_details rows per name id */
    if (nc == SIZE_MAX || t->cols[nc].type != TC_TEXT || !h || !rows) {
        host_ops_free(h);
        free(rows);
        return;
    }
    for (size_t r = 0; r < t->nrows; r++)
        rows[t->cols[nc].text[r]]++;
    size_t differ = 0, same = 0;
    const char *first = NULL;
    uint64_t a = 0, b = 0;
    for (size_t k = 0; k < h->n; k++) {
        const char *name = model_str(rd->model, h->ops[k].name);
        uint32_t id = strtab_find(t->str, name, strlen(name));
        bool known = id != UINT32_MAX && id < nids;
        uint64_t in_table = known ? rows[id] : 0;
        if (known)
            rows[id] = 0;   /* seen: what stays counts as names only the table has */
        if (in_table == h->ops[k].calls) {
            same++;
            continue;
        }
        if (!differ++) {
            first = name;
            a = h->ops[k].calls;
            b = in_table;
        }
    }
    for (uint32_t id = 1; id < nids; id++)
        if (rows[id] && !differ++) {
            first = strtab_get(t->str, id);
            a = 0;
            b = rows[id];
        }
    if (!differ)
        snprintf(buf, size, "= operator_details (same %zu names and calls)", same);
    else
        snprintf(buf, size, "≠ operator_details in %zu name%s: %.60s (%llu call%s in the trace, %llu row%s)",
                 differ, differ == 1 ? "" : "s", first, (unsigned long long)a, a == 1 ? "" : "s",
                 (unsigned long long)b, b == 1 ? "" : "s");
    host_ops_free(h);
    free(rows);
}
