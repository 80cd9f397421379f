/* The kernel table: every row of each rank's kernel table (kernel_details.csv, op_summary,
 * the DB's tasks) with every column, read in place. Columns are the union over the ranks of
 * the tables' canonical keys (model/index/table.h): the start and duration are ts and dur,
 * other times <key>_ns, all integer ns; plus the joined slice (slice_id) and the rank. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/index/table.h"
#include "query/query_internal.h"
#include "util/grow.h"

struct kernel_ctx {
    const struct query *q;
    size_t ncols;                /* union columns (SQL columns 1..ncols) */
    size_t nranks;
    size_t **map;                /* per rank: union column -> its table's column, SIZE_MAX: none */
};

static void kernel_ctx_free(void *p)
{
    struct kernel_ctx *x = p;
    if (x)
        QUERY_FREE_PER_RANK(x->map, x->nranks);
    free(x);
}

static const struct table *kernels_of(const struct session *s, size_t ri)
{
    return s->ranks[ri].tables[TK_KERNELS];
}

static void kernel_cell(const struct qtab *t, size_t ri, int64_t row, int col, sqlite3_context *c)
{
    const struct kernel_ctx *x = t->ctx;
    const struct table *k = kernels_of(t->s, ri);
    size_t r = (size_t)row;
    if (col == 0) {
        sqlite3_result_int64(c, t->base[ri] + row);
        return;
    }
    if ((size_t)col == x->ncols + 1) {   /* slice_id */
        query_result_slice(x->q, ri, k->slice ? k->slice[r] : SLICE_NONE, c);
        return;
    }
    if ((size_t)col == x->ncols + 2) {
        sqlite3_result_int64(c, t->s->ranks[ri].rank);
        return;
    }
    size_t kc = x->map[ri][col - 1];
    if (kc == SIZE_MAX || table_is_missing(k, r, kc)) {
        sqlite3_result_null(c);
        return;
    }
    switch (k->cols[kc].type) {
    case TC_TIME: sqlite3_result_int64(c, table_time(k, r, kc)); break;
    case TC_NUM: {
        double v = table_num(k, r, kc);
        if (v == floor(v) && fabs(v) < 9007199254740992.0)   /* a whole number stays an integer */
            sqlite3_result_int64(c, (int64_t)v);
        else
            sqlite3_result_double(c, v);
        break;
    }
    default: query_result_text(c, table_text(k, r, kc)); break;
    }
}

/* The SQL name of a table column: ts, dur, <key>_ns for other times, the rowset key else. */
static void column_name(const struct table_col *tc, char *out, size_t size)
{
    if (tc->type == TC_TIME && !strcmp(tc->key, "start_time(us)")) {
        snprintf(out, size, "ts");
        return;
    }
    if (tc->type == TC_TIME && !strcmp(tc->key, "duration(us)")) {
        snprintf(out, size, "dur");
        return;
    }
    table_rowset_key(tc->key, out, size);
    for (char *p = out; *p; p++)   /* a name SQL takes without quoting trouble */
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            *p = '_';
    size_t n = strlen(out);
    if (tc->type == TC_TIME && n > 3 && !strcmp(out + n - 3, "_us"))
        out[n - 2] = 'n';
    if (!strcmp(out, "id") || !strcmp(out, "rank") || !strcmp(out, "slice_id") || !out[0]) {
        char tmp[128];
        snprintf(tmp, sizeof tmp, "file_%s", out);
        snprintf(out, size, "%s", tmp);
    }
}

bool query_kernel_table(struct query *q, char *err, size_t errsz)
{
    const struct session *s = q->s;
    size_t n = s->nranks, cap = 0, ncols = 0;
    char (*names)[96] = NULL;
    const char **types = NULL;
    struct kernel_ctx *x = calloc(1, sizeof *x);
    int64_t *counts = calloc(n + 1, sizeof *counts);
    bool ok = x && counts && (x->map = calloc(n + 1, sizeof *x->map));
    if (x)
        x->nranks = n;
    /* the union of the columns, in first-seen order */
    for (size_t i = 0; ok && i < n; i++) {
        const struct table *k = kernels_of(s, i);
        if (!k)
            continue;
        counts[i] = (int64_t)k->nrows;
        if (!(x->map[i] = malloc((k->ncols + 1) * sizeof *x->map[i]))) {
            ok = false;
            break;
        }
        for (size_t c = 0; c < k->ncols; c++) {
            char name[96];
            column_name(&k->cols[c], name, sizeof name);
            size_t u = 0;
            while (u < ncols && strcmp(names[u], name))
                u++;
            if (u == ncols) {
                if (ncols == cap) {   /* names and types share one capacity */
                    size_t nc = grow_capacity(cap, ncols + 1, sizeof *names);
                    void *nn = nc ? grow_exact(names, nc, sizeof *names) : NULL, *nt = nn ? grow_exact(types, nc, sizeof *types) : NULL;
                    if (nn)
                        names = nn;
                    if (!nn || !nt) {
                        ok = false;
                        break;
                    }
                    types = nt;
                    cap = nc;
                }
                snprintf(names[ncols], sizeof names[ncols], "%s", name);
                types[ncols++] = k->cols[c].type == TC_TIME ? "INT_NS" : k->cols[c].type == TC_NUM ? "NUMERIC" : "TEXT";
            }
            x->map[i][c] = u;   /* table column -> union column, turned around below */
        }
    }
    /* per rank: union column -> table column */
    for (size_t i = 0; ok && i < n; i++) {
        const struct table *k = kernels_of(s, i);
        if (!k)
            continue;
        size_t *inv = malloc((ncols + 1) * sizeof *inv);
        if (!inv) {
            ok = false;
            break;
        }
        for (size_t u = 0; u < ncols; u++)
            inv[u] = SIZE_MAX;
        for (size_t c = 0; c < k->ncols; c++)
            inv[x->map[i][c]] = c;
        free(x->map[i]);
        x->map[i] = inv;
    }
    size_t len = 64 + ncols * 110;
    char *cols = ok ? malloc(len) : NULL;
    struct qtab *t = NULL;
    if (cols) {
        size_t used = (size_t)snprintf(cols, len, "id INTEGER");
        for (size_t u = 0; u < ncols; u++)
            used += (size_t)snprintf(cols + used, len - used, ", \"%s\" %s", names[u], types[u]);
        snprintf(cols + used, len - used, ", slice_id INTEGER, rank INTEGER");
        t = qtab_new(q, "kernel", cols, counts);
    }
    free(cols), free(names), free(types), free(counts);
    if (!t) {
        kernel_ctx_free(x);
        return query_oom(err, errsz);
    }
    x->q = q;
    x->ncols = ncols;
    t->ctx = x, t->ctx_free = kernel_ctx_free;
    t->cell = kernel_cell;
    t->id_col = 0, t->rank_col = (int)ncols + 2;
    return qtab_register(q, t, err, errsz);
}
