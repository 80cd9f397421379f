/* Tables of what the analyses found: step (the detected steps of each rank), memory (every
 * operator allocation) and comm_op (the communication ops of communication.json or the DB,
 * as the Comm view lists them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/analysis/comm.h"
#include "model/analysis/memory.h"
#include "model/analysis/steps.h"
#include "query/query_internal.h"

static void result_ns(sqlite3_context *c, ns_t v)
{
    if (v == NS_NONE)
        sqlite3_result_null(c);
    else
        sqlite3_result_int64(c, v);
}

/* --- step ------------------------------------------------------------------------------- */

enum { S_ID, S_STEP, S_PHASE, S_TS, S_DUR, S_KERNELS, S_BUSY, S_COMPUTING, S_COMM, S_FREE, S_GAP, S_LAUNCH,
       S_OUTLIER, S_MARK_TS, S_MARK_DUR, S_SOURCE, S_RANK };

static void step_cell(const struct qtab *t, size_t ri, int64_t row, int col, sqlite3_context *c)
{
    const struct steps *ss = t->s->ranks[ri].steps;
    const struct step *st = steps_get(ss, (size_t)row);
    switch (col) {
    case S_ID: sqlite3_result_int64(c, t->base[ri] + row); break;
    case S_STEP: sqlite3_result_int64(c, st->index); break;
    case S_PHASE: query_result_text(c, step_phase_name(st->phase)); break;
    case S_TS: sqlite3_result_int64(c, st->start); break;
    case S_DUR: sqlite3_result_int64(c, st->end - st->start); break;
    case S_KERNELS: sqlite3_result_int64(c, st->kernels); break;
    case S_BUSY: result_ns(c, st->busy); break;
    case S_COMPUTING: result_ns(c, st->computing); break;
    case S_COMM: result_ns(c, st->comm_not_overlapped); break;
    case S_FREE: result_ns(c, st->free_time); break;
    case S_GAP: result_ns(c, st->gap_before); break;
    case S_LAUNCH: result_ns(c, st->launch); break;
    case S_OUTLIER: sqlite3_result_int(c, st->outlier); break;
    case S_MARK_TS: result_ns(c, st->mark_start); break;
    case S_MARK_DUR:
        if (st->mark_start == NS_NONE || st->mark_end == NS_NONE)
            sqlite3_result_null(c);
        else
            sqlite3_result_int64(c, st->mark_end - st->mark_start);
        break;
    case S_SOURCE: query_result_text(c, step_source_name(ss->source)); break;
    case S_RANK: sqlite3_result_int64(c, t->s->ranks[ri].rank); break;
    default: sqlite3_result_null(c); break;
    }
}

/* --- memory ----------------------------------------------------------------------------- */

enum { M_ID, M_NAME, M_COMPONENT, M_SIZE, M_TS, M_DUR, M_RELEASE, M_ACTIVE_RELEASE, M_ACTIVE_DUR, M_ALLOCATED,
       M_RESERVED, M_RANK };

static void memory_cell(const struct qtab *t, size_t ri, int64_t row, int col, sqlite3_context *c)
{
    const struct memory *mem = t->s->ranks[ri].memory;
    const struct mem_op *op = &mem->ops[row];
    switch (col) {
    case M_ID: sqlite3_result_int64(c, t->base[ri] + row); break;
    case M_NAME: query_result_text(c, strtab_get(mem->str, op->name)); break;
    case M_COMPONENT: query_result_text(c, strtab_get(mem->str, op->component)); break;
    case M_SIZE: result_ns(c, op->size == MEM_NONE ? NS_NONE : op->size); break;
    case M_TS: result_ns(c, op->alloc); break;
    case M_DUR: result_ns(c, mem_op_lifetime(op)); break;
    case M_RELEASE: result_ns(c, op->release); break;
    case M_ACTIVE_RELEASE: result_ns(c, op->active_release); break;
    case M_ACTIVE_DUR: result_ns(c, op->active_duration); break;
    case M_ALLOCATED: result_ns(c, op->at_alloc[MK_ALLOCATED] == MEM_NONE ? NS_NONE : op->at_alloc[MK_ALLOCATED]); break;
    case M_RESERVED: result_ns(c, op->at_alloc[MK_RESERVED] == MEM_NONE ? NS_NONE : op->at_alloc[MK_RESERVED]); break;
    case M_RANK: sqlite3_result_int64(c, t->s->ranks[ri].rank); break;
    default: sqlite3_result_null(c); break;
    }
}

/* --- comm_op: the Comm view's rowset, read cell by cell ------------------------------------ */

struct rowset_ctx {
    struct rowset *rs;
    int64_t *row_of_rank;        /* nranks + 1: first rowset row of each rank index */
};

static void rowset_ctx_free(void *p)
{
    struct rowset_ctx *x = p;
    if (x) {
        rowset_free(x->rs);
        free(x->row_of_rank);
    }
    free(x);
}

static void rowset_cell_result(const struct qtab *t, size_t ri, int64_t row, int col, sqlite3_context *c)
{
    const struct rowset_ctx *x = t->ctx;
    const struct rowset *rs = x->rs;
    if (col == 0) {
        sqlite3_result_int64(c, t->base[ri] + row);
        return;
    }
    size_t r = (size_t)(x->row_of_rank[ri] + row), k = (size_t)col - 1;
    if (rowset_is_null(rs, r, k)) {
        sqlite3_result_null(c);
        return;
    }
    const union rs_val *v = rowset_cell(rs, r, k);
    switch (rs->cols[k].type) {
    case RS_INT: case RS_NS: sqlite3_result_int64(c, v->i); break;
    case RS_NUM: case RS_PCT: sqlite3_result_double(c, v->d); break;
    case RS_DEC: {
        /* the file's digits: an integer stays exact, a fraction becomes SQLite's REAL */
        const char *text = strtab_get(rs->str, v->s), *end;
        char *e;
        long long i = strtoll(text, &e, 10);
        end = e;
        if (*text && !*end)
            sqlite3_result_int64(c, i);
        else
            sqlite3_result_double(c, strtod(text, NULL));
        break;
    }
    default: query_result_text(c, strtab_get(rs->str, v->s)); break;
    }
}

/* The column list of a rowset: "id INTEGER" first, times renamed from µs to ns. */
static char *rowset_columns(const struct rowset *rs, int *rank_col, int *ts_col)
{
    size_t cap = 64 + rs->ncols * 80, used = 0;
    char *cols = malloc(cap);
    if (!cols)
        return NULL;
    used += (size_t)snprintf(cols, cap, "id INTEGER");
    for (size_t k = 0; k < rs->ncols; k++) {
        char key[64];
        const char *type = "TEXT";
        snprintf(key, sizeof key, "%s", rs->cols[k].key);
        size_t n = strlen(key);
        switch (rs->cols[k].type) {
        case RS_NS:
            type = "INT_NS";
            if (!strcmp(key, "start_us"))
                snprintf(key, sizeof key, "ts");
            else if (n > 3 && !strcmp(key + n - 3, "_us"))
                key[n - 2] = 'n';
            break;
        case RS_INT: type = "INTEGER"; break;
        case RS_NUM: case RS_PCT: type = "REAL"; break;
        case RS_DEC: type = "NUMERIC"; break;
        default: break;
        }
        if (!strcmp(key, "rank"))
            *rank_col = (int)k + 1;
        if (!strcmp(key, "ts"))
            *ts_col = (int)k + 1;
        used += (size_t)snprintf(cols + used, cap - used, ", \"%s\" %s", key, type);
    }
    return cols;
}

/* A table over rs (taken; rows in rank order, each linked to its rank index). */
static bool rowset_table(struct query *q, const char *name, struct rowset *rs, char *err, size_t errsz)
{
    size_t n = q->s->nranks;
    struct rowset_ctx *x = calloc(1, sizeof *x);
    int64_t *counts = calloc(n + 1, sizeof *counts);
    if (x) {
        x->rs = rs;
        x->row_of_rank = calloc(n + 1, sizeof *x->row_of_rank);
    }
    int rank_col = -1, ts_col = -1;
    char *cols = x && x->row_of_rank && counts ? rowset_columns(rs, &rank_col, &ts_col) : NULL;
    struct qtab *t = NULL;
    if (cols) {
        for (size_t r = 0; r < rs->nrows; r++)
            if (rowset_link_rank(rs->link[r]) < n)
                counts[rowset_link_rank(rs->link[r])]++;
        for (size_t i = 0; i < n; i++)
            x->row_of_rank[i + 1] = x->row_of_rank[i] + counts[i];
        t = qtab_new(q, name, cols, counts);
    }
    free(cols);
    free(counts);
    if (!t) {
        rowset_ctx_free(x);
        if (!x)
            rowset_free(rs);
        return query_oom(err, errsz);
    }
    t->ctx = x, t->ctx_free = rowset_ctx_free;
    t->cell = rowset_cell_result;
    t->id_col = 0, t->rank_col = rank_col;
    return qtab_register(q, t, err, errsz);
}

/* --- registration ----------------------------------------------------------------------- */

bool query_result_tables(struct query *q, char *err, size_t errsz)
{
    const struct session *s = q->s;
    size_t n = s->nranks;
    int64_t *steps = calloc(n + 1, sizeof *steps), *ops = calloc(n + 1, sizeof *ops);
    for (size_t i = 0; steps && ops && i < n; i++) {
        const struct rank_data *rd = &s->ranks[i];
        steps[i] = rd->model && rd->steps ? (int64_t)steps_count(rd->steps) : 0;
        ops[i] = rd->memory ? (int64_t)rd->memory->nops : 0;
    }
    struct qtab *st = steps && ops ? qtab_new(q, "step",
        "id INTEGER, step INTEGER, phase TEXT, ts INT_NS, dur INT_NS, kernels INTEGER, busy INT_NS, computing INT_NS, "
        "comm_not_overlapped INT_NS, free_time INT_NS, gap_before INT_NS, launch INT_NS, outlier INTEGER, "
        "mark_ts INT_NS, mark_dur INT_NS, source TEXT, rank INTEGER", steps) : NULL;
    struct qtab *mt = steps && ops ? qtab_new(q, "memory",
        "id INTEGER, name TEXT, component TEXT, size INTEGER, ts INT_NS, dur INT_NS, release_ts INT_NS, "
        "active_release_ts INT_NS, active_dur INT_NS, total_allocated INTEGER, total_reserved INTEGER, rank INTEGER",
        ops) : NULL;
    free(steps), free(ops);
    if (!st || !mt) {
        qtab_discard(st), qtab_discard(mt);
        return query_oom(err, errsz);
    }
    st->cell = step_cell, st->id_col = S_ID, st->rank_col = S_RANK;
    mt->cell = memory_cell, mt->id_col = M_ID, mt->rank_col = M_RANK, mt->name_col = M_NAME;
    if (!qtab_register(q, st, err, errsz)) {
        qtab_discard(mt);
        return false;
    }
    if (!qtab_register(q, mt, err, errsz))
        return false;
    struct rowset *rs = comm_ops_rowset(s, -1);
    if (!rs)
        rs = rowset_new("comm");   /* no communication figures: the table is there, empty */
    return rs ? rowset_table(q, "comm_op", rs, err, errsz) : query_oom(err, errsz);
}
