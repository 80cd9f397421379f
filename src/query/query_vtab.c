/* The one SQLite module of the query engine: a virtual table over rows numbered in rank order
 * (query_internal.h). It pushes down id = X (one row), the rank (ranks outside are skipped)
 * and, where the table can enumerate it, a ts range. Every pushed constraint is still checked
 * by SQLite (omit stays 0), so a bound only has to keep every row that may match. Where the
 * table can group its rows by name, GROUP BY name reads them grouped (query_grouped.c) and
 * SQLite sorts nothing: the name comes from the run, the other columns' arrays are fetched a
 * few rows ahead (the rows lie all over them, and a miss waited for each row in turn cost
 * four times the rest of the row). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query/query_internal.h"

/* What xBestIndex pushed, as bits of idxNum; the argv values come in this order. */
enum {
    PUSH_ID = 1, PUSH_RANK_LO = 2, PUSH_RANK_HI = 4, PUSH_TS_LO = 8, PUSH_TS_HI = 16,
    PUSH_GROUPED = 32,   /* no argv: rows of equal names come together (GROUP BY name) */
    PUSH_RANK_EQ = 64, PUSH_TS_EQ = 128,   /* one value bounds both sides */
};

struct qvtab {
    sqlite3_vtab base;
    struct qtab *t;
};

struct qcursor {
    sqlite3_vtab_cursor base;
    const struct qtab *t;
    size_t ri;                   /* rank index being read */
    int64_t row;                 /* global row number of the current row */
    int64_t pos, end;            /* sequential reading: position within the rank, its end */
    int64_t rank_lo, rank_hi;    /* rank ids kept */
    bool one, ts_mode, grouped, eof;
    int64_t one_row;
    struct qts_iter ts;
    struct qrun *runs;           /* grouped reading: the runs of one name (query_grouped.c), */
    size_t nruns, run;           /* how many, the one being read (pos is within its order) */
    uint64_t fetch_cols;         /* grouped reading: the columns fetched ahead (bit i: column i) */
};

/* How many rows ahead a grouped read fetches: enough to cover a memory access at the pace
 * SQLite consumes rows, few enough to stay in the cache until they are read. */
enum { FETCH_AHEAD = 32 };

bool query_oom(char *err, size_t errsz)
{
    snprintf(err, errsz, "out of memory");
    return false;
}

size_t query_rank_of(const int64_t *base, size_t nranks, int64_t row)
{
    size_t lo = 0, hi = nranks;
    if (row < 0 || row >= base[hi])
        return SIZE_MAX;
    while (hi - lo > 1) {   /* base[lo] <= row < base[hi] */
        size_t mid = lo + (hi - lo) / 2;
        if (base[mid] <= row)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static int x_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
    (void)argc, (void)argv, (void)err;
    struct qtab *t = aux;
    int rc = sqlite3_declare_vtab(db, t->schema);
    if (rc != SQLITE_OK)
        return rc;
    struct qvtab *v = sqlite3_malloc(sizeof *v);
    if (!v)
        return SQLITE_NOMEM;
    memset(v, 0, sizeof *v);
    v->t = t;
    *out = &v->base;
    return SQLITE_OK;
}

static int x_disconnect(sqlite3_vtab *v)
{
    sqlite3_free(v);
    return SQLITE_OK;
}

/* Takes constraint i as argument number *argn of xFilter. */
static void use(sqlite3_index_info *info, int i, int *argn)
{
    info->aConstraintUsage[i].argvIndex = ++*argn;
    info->aConstraintUsage[i].omit = 0;
}

/* The first usable equality, lower and upper bound of one column (-1: none yet). */
struct col_bounds { int eq, lo, hi; };

/* Takes constraint i, of operator op, where its kind of bound has none yet. */
static void take_bound(struct col_bounds *b, int i, unsigned char op)
{
    int *at = op == SQLITE_INDEX_CONSTRAINT_EQ ? &b->eq
            : op == SQLITE_INDEX_CONSTRAINT_GE || op == SQLITE_INDEX_CONSTRAINT_GT ? &b->lo
            : op == SQLITE_INDEX_CONSTRAINT_LE || op == SQLITE_INDEX_CONSTRAINT_LT ? &b->hi : NULL;
    if (at && *at < 0)
        *at = i;
}

static int x_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
    const struct qtab *t = ((struct qvtab *)vt)->t;
    int id = -1;
    struct col_bounds rank = { -1, -1, -1 }, ts = { -1, -1, -1 };
    for (int i = 0; i < info->nConstraint; i++) {
        const struct sqlite3_index_constraint *c = &info->aConstraint[i];
        if (!c->usable)
            continue;
        if (c->iColumn == t->id_col && c->op == SQLITE_INDEX_CONSTRAINT_EQ && id < 0)
            id = i;
        if (c->iColumn == t->rank_col && t->rank_col >= 0)
            take_bound(&rank, i, c->op);
        if (c->iColumn == t->ts_col && t->ts_col >= 0 && t->ts_next)
            take_bound(&ts, i, c->op);
    }
    int argn = 0, plan = 0;
    double rows = (double)t->base[t->s->nranks] + 1;
    if (id >= 0) {
        use(info, id, &argn);
        plan |= PUSH_ID;
        rows = 1;
        info->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
    }
    /* the others in argv order, each dividing the rows by how selective it is thought to be
     * (a ts bound only without id) */
    const struct { int at, bit; double divisor; } pushes[] = {
        { rank.eq, PUSH_RANK_EQ, 8 }, { rank.lo, PUSH_RANK_LO, 2 }, { rank.hi, PUSH_RANK_HI, 2 },
        { id < 0 ? ts.eq : -1, PUSH_TS_EQ, 1000 }, { id < 0 ? ts.lo : -1, PUSH_TS_LO, 4 },
        { id < 0 ? ts.hi : -1, PUSH_TS_HI, 4 },
    };
    for (size_t k = 0; k < sizeof pushes / sizeof *pushes; k++)
        if (pushes[k].at >= 0) {
            use(info, pushes[k].at, &argn);
            plan |= pushes[k].bit;
            rows /= pushes[k].divisor;
        }
    /* GROUP BY name (1) or DISTINCT name (2): rows need only come grouped, not sorted (3, a
     * DISTINCT with ORDER BY, and 0 want them sorted: left to SQLite). */
    int distinct = sqlite3_vtab_distinct(info);
    if (!(plan & (PUSH_ID | PUSH_TS_LO | PUSH_TS_HI | PUSH_TS_EQ)) && t->grouped && info->nOrderBy == 1 &&
        info->aOrderBy[0].iColumn == t->name_col && !info->aOrderBy[0].desc && (distinct == 1 || distinct == 2)) {
        plan |= PUSH_GROUPED;
        info->orderByConsumed = 1;
        /* the columns the statement reads, for xFilter to fetch ahead (none when this fails) */
        info->idxStr = sqlite3_mprintf("%llx", (unsigned long long)info->colUsed);
        info->needToFreeIdxStr = 1;
    }
    info->idxNum = plan;
    info->estimatedRows = rows < 1 ? 1 : (sqlite3_int64)rows;
    info->estimatedCost = rows < 1 ? 1 : rows;
    return SQLITE_OK;
}

static int x_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
    struct qcursor *c = sqlite3_malloc(sizeof *c);
    if (!c)
        return SQLITE_NOMEM;
    memset(c, 0, sizeof *c);
    c->t = ((struct qvtab *)vt)->t;
    *out = &c->base;
    return SQLITE_OK;
}

static int x_close(sqlite3_vtab_cursor *vc)
{
    struct qcursor *c = (struct qcursor *)vc;
    sqlite3_free(c->runs);
    sqlite3_free(c);
    return SQLITE_OK;
}

/* The value's integer bounds: a real rounds outwards, anything that is no number bounds
 * nothing (SQLite's own comparison decides). lo_side: the value is a lower bound. */
static bool int_bound(sqlite3_value *v, bool lo_side, int64_t *out)
{
    int type = sqlite3_value_numeric_type(v);
    if (type == SQLITE_INTEGER) {
        *out = sqlite3_value_int64(v);
        return true;
    }
    if (type != SQLITE_FLOAT)
        return false;
    double d = sqlite3_value_double(v);
    if (isnan(d))
        return false;
    d = lo_side ? floor(d) : ceil(d);
    if (d <= -9.2e18 || d >= 9.2e18)
        return false;
    *out = (int64_t)d;
    return true;
}

static bool rank_kept(const struct qcursor *c, size_t ri)
{
    int64_t r = c->t->s->ranks[ri].rank;
    return r >= c->rank_lo && r <= c->rank_hi;
}

/* Moves to the next row at or after the cursor's place; sets eof at the end. */
static void settle(struct qcursor *c)
{
    const struct qtab *t = c->t;
    size_t nr = t->s->nranks;
    if (c->one) {
        c->eof = c->ri >= nr;
        c->row = c->one_row;
        return;
    }
    if (c->grouped) {
        for (; c->run < c->nruns; c->pos = ++c->run < c->nruns ? c->runs[c->run].from : 0) {
            const struct qrun *r = &c->runs[c->run];
            if (c->pos < r->to) {
                if (t->prefetch && c->pos + FETCH_AHEAD < r->to)
                    t->prefetch(t, r->ri, r->order[c->pos + FETCH_AHEAD], c->fetch_cols);
                c->ri = r->ri;
                c->row = t->base[r->ri] + r->order[c->pos];
                return;
            }
        }
        c->eof = true;
        return;
    }
    while (c->ri < nr) {
        if (rank_kept(c, c->ri)) {
            int64_t r;
            if (c->ts_mode) {
                if (t->ts_next(t, c->ri, &c->ts, &r)) {
                    c->row = t->base[c->ri] + r;
                    return;
                }
            } else if (c->pos < c->end) {
                c->row = t->base[c->ri] + c->pos;
                return;
            }
        }
        c->ri++;
        c->pos = 0;
        c->end = c->ri < nr ? t->base[c->ri + 1] - t->base[c->ri] : 0;
        int64_t lo = c->ts.lo, hi = c->ts.hi;
        memset(&c->ts, 0, sizeof c->ts);
        c->ts.lo = lo, c->ts.hi = hi;
    }
    c->eof = true;
}

static int x_filter(sqlite3_vtab_cursor *vc, int plan, const char *idx, int argc, sqlite3_value **argv)
{
    struct qcursor *c = (struct qcursor *)vc;
    const struct qtab *t = c->t;
    memset(&c->ts, 0, sizeof c->ts);
    c->rank_lo = INT64_MIN, c->rank_hi = INT64_MAX;
    c->ts.lo = INT64_MIN, c->ts.hi = INT64_MAX;
    c->one = c->ts_mode = c->eof = false;
    c->grouped = plan & PUSH_GROUPED;
    /* the name comes from the run, not the row */
    c->fetch_cols = c->grouped && idx ? strtoull(idx, NULL, 16) & ~(1ull << t->name_col) : 0;
    sqlite3_free(c->runs);
    c->runs = NULL;
    c->nruns = c->run = 0;
    int a = 0;
    int64_t v;
    if (plan & PUSH_ID) {
        c->one = true;
        c->ri = SIZE_MAX;
        /* an id that is no whole number names no row */
        if (a < argc && int_bound(argv[a], true, &v) && (double)v == sqlite3_value_double(argv[a])) {
            c->one_row = v;
            c->ri = query_rank_of(t->base, t->s->nranks, v);
        }
        a++;
        if (c->ri == SIZE_MAX)
            c->ri = t->s->nranks;   /* no such row */
    }
    if ((plan & PUSH_RANK_EQ) && a < argc) {
        if (int_bound(argv[a], true, &v))
            c->rank_lo = v;
        if (int_bound(argv[a++], false, &v))
            c->rank_hi = v;
    }
    if ((plan & PUSH_RANK_LO) && a < argc && int_bound(argv[a++], true, &v))
        c->rank_lo = v;
    if ((plan & PUSH_RANK_HI) && a < argc && int_bound(argv[a++], false, &v))
        c->rank_hi = v;
    if ((plan & PUSH_TS_EQ) && a < argc) {
        if (int_bound(argv[a], true, &v))
            c->ts.lo = v;
        if (int_bound(argv[a++], false, &v))
            c->ts.hi = v;
    }
    if ((plan & PUSH_TS_LO) && a < argc && int_bound(argv[a++], true, &v))
        c->ts.lo = v;
    if ((plan & PUSH_TS_HI) && a < argc && int_bound(argv[a++], false, &v))
        c->ts.hi = v;
    c->ts_mode = plan & (PUSH_TS_LO | PUSH_TS_HI | PUSH_TS_EQ);
    if (c->one) {
        if (c->ri < t->s->nranks && !rank_kept(c, c->ri))
            c->ri = t->s->nranks;
        settle(c);
        return SQLITE_OK;
    }
    c->ri = 0;
    c->pos = 0;
    c->end = t->s->nranks ? t->base[1] - t->base[0] : 0;
    if (c->grouped) {   /* never an ungrouped read where grouping was promised */
        if (!query_grouped_runs(t, c->rank_lo, c->rank_hi, &c->runs, &c->nruns))
            return SQLITE_NOMEM;
        c->pos = c->nruns ? c->runs[0].from : 0;
    }
    settle(c);
    return SQLITE_OK;
}

static int x_next(sqlite3_vtab_cursor *vc)
{
    struct qcursor *c = (struct qcursor *)vc;
    if (c->one)
        c->ri = c->t->s->nranks;
    else if (!c->ts_mode)
        c->pos++;
    settle(c);
    return SQLITE_OK;
}

static int x_eof(sqlite3_vtab_cursor *vc)
{
    return ((struct qcursor *)vc)->eof;
}

static int x_column(sqlite3_vtab_cursor *vc, sqlite3_context *ctx, int col)
{
    struct qcursor *c = (struct qcursor *)vc;
    const struct qtab *t = c->t;
    if (c->grouped && col == t->name_col) {   /* the run's: no read of the row */
        const struct qrun *r = &c->runs[c->run];
        sqlite3_result_text(ctx, r->name, (int)r->len, SQLITE_STATIC);
        return SQLITE_OK;
    }
    t->cell(t, c->ri, c->row - t->base[c->ri], col, ctx);
    return SQLITE_OK;
}

static int x_rowid(sqlite3_vtab_cursor *vc, sqlite3_int64 *out)
{
    *out = ((struct qcursor *)vc)->row;
    return SQLITE_OK;
}

static const sqlite3_module qmodule = {
    .iVersion = 1,
    .xCreate = NULL,   /* eponymous-only: the table exists as soon as the module does */
    .xConnect = x_connect,
    .xBestIndex = x_best_index,
    .xDisconnect = x_disconnect,
    .xOpen = x_open,
    .xClose = x_close,
    .xFilter = x_filter,
    .xNext = x_next,
    .xEof = x_eof,
    .xColumn = x_column,
    .xRowid = x_rowid,
};

void qtab_discard(struct qtab *t)
{
    if (!t)
        return;
    if (t->ctx_free)
        t->ctx_free(t->ctx);
    free(t->schema);
    free(t->base);
    free(t);
}

static void destroy(void *t)
{
    qtab_discard(t);
}

struct qtab *qtab_new(struct query *q, const char *name, const char *columns, const int64_t *counts)
{
    struct qtab *t = calloc(1, sizeof *t);
    size_t n = q->s->nranks;
    size_t len = strlen(columns) + 32;
    if (!t || !(t->base = calloc(n + 1, sizeof *t->base)) || !(t->schema = malloc(len))) {
        qtab_discard(t);
        return NULL;
    }
    snprintf(t->name, sizeof t->name, "%s", name);
    snprintf(t->schema, len, "CREATE TABLE x(%s)", columns);
    t->s = q->s;
    for (size_t i = 0; i < n; i++)
        t->base[i + 1] = t->base[i] + counts[i];
    t->id_col = t->rank_col = t->ts_col = t->name_col = -1;
    return t;
}

bool qtab_register(struct query *q, struct qtab *t, char *err, size_t errsz)
{
    /* the module owns t from here: SQLite frees it with the database (qtab_free) */
    int rc = sqlite3_create_module_v2(q->db, t->name, &qmodule, t, destroy);
    if (rc != SQLITE_OK) {
        snprintf(err, errsz, "table %s: %s", t->name, sqlite3_errmsg(q->db));
        return false;
    }
    return true;
}
