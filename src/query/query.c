/* The query engine (query.h): the database of virtual tables over one session, and a
 * statement's result turned into a rowset. */
#include "query/query.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query/query_internal.h"
#include "util/grow.h"

int64_t query_slice_base(const struct query *q, size_t ri) { return q->slice_base[ri]; }
int64_t query_track_base(const struct query *q, size_t ri) { return q->track_base[ri]; }

void query_result_slice(const struct query *q, size_t ri, uint32_t s, sqlite3_context *c)
{
    if (s == SLICE_NONE)
        sqlite3_result_null(c);
    else
        sqlite3_result_int64(c, q->slice_base[ri] + s);
}

bool query_slice_of_id(const struct query *q, int64_t id, size_t *rank_index, uint32_t *slice)
{
    size_t ri = query_rank_of(q->slice_base, q->s->nranks, id);
    if (ri == SIZE_MAX)
        return false;
    *rank_index = ri;
    *slice = (uint32_t)(id - q->slice_base[ri]);
    return true;
}

void query_close(struct query *q)
{
    if (!q)
        return;
    sqlite3_close(q->db);   /* frees every table (the modules' destructors) */
    free(q->slice_base);
    free(q->track_base);
    free(q);
}

/* Ids per rank: slices, and tracks (lanes, then counter series), of the finalized models. */
static bool number_rows(struct query *q)
{
    size_t n = q->s->nranks;
    q->slice_base = calloc(n + 1, sizeof *q->slice_base);
    q->track_base = calloc(n + 1, sizeof *q->track_base);
    if (!q->slice_base || !q->track_base)
        return false;
    for (size_t i = 0; i < n; i++) {
        const struct model *m = q->s->ranks[i].model;
        bool ok = m && m->finalized;
        q->slice_base[i + 1] = q->slice_base[i] + (ok ? m->nslices : 0);
        q->track_base[i + 1] = q->track_base[i] + (ok ? (int64_t)m->nlanes + m->ncounters : 0);
    }
    return true;
}

struct query *query_open(const struct session *s, char *err, size_t errsz)
{
    struct query *q = calloc(1, sizeof *q);
    if (!q || !number_rows(q = (q->s = s, q))) {
        snprintf(err, errsz, "out of memory");
        query_close(q);
        return NULL;
    }
    /* a private in-memory database: nothing is ever written to a file */
    if (sqlite3_open_v2(":memory:", &q->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) != SQLITE_OK) {
        snprintf(err, errsz, "SQLite: %s", q->db ? sqlite3_errmsg(q->db) : "cannot open a database");
        query_close(q);
        return NULL;
    }
    /* no ATTACH of a file, no loading of extensions: a query reads the index and nothing else */
    sqlite3_limit(q->db, SQLITE_LIMIT_ATTACHED, 0);
    if (!query_slice_tables(q, err, errsz) || !query_track_tables(q, err, errsz) ||
        !query_result_tables(q, err, errsz) || !query_kernel_table(q, err, errsz)) {
        query_close(q);
        return NULL;
    }
    return q;
}

/* --- results ------------------------------------------------------------------------------ */

/* A row of values kept until the column types are known. */
struct held {
    sqlite3_value **v;           /* nrows * ncols, dup'd */
    size_t nrows, cap, ncols;
};

static void held_free(struct held *h)
{
    for (size_t i = 0; i < h->nrows * h->ncols; i++)
        sqlite3_value_free(h->v[i]);
    free(h->v);
}

static bool held_add(struct held *h, sqlite3_stmt *st)
{
    if (h->nrows == h->cap) {   /* cap counts rows of ncols values */
        size_t nc = grow_capacity(h->cap, h->nrows + 1, h->ncols * sizeof *h->v);
        sqlite3_value **nv = nc ? grow_exact(h->v, nc * h->ncols, sizeof *nv) : NULL;
        if (!nv)
            return false;
        h->v = nv;
        h->cap = nc;
    }
    sqlite3_value **row = &h->v[h->nrows * h->ncols];
    for (size_t c = 0; c < h->ncols; c++) {
        row[c] = sqlite3_value_dup(sqlite3_column_value(st, (int)c));
        if (!row[c]) {
            for (size_t k = 0; k < c; k++)
                sqlite3_value_free(row[k]);
            return false;
        }
    }
    h->nrows++;
    return true;
}

/* The rowset type of column c: integers, reals (RS_DEC, exact shortest text), text; a
 * column mixing numbers and text is text. */
static enum rs_type column_type(const struct held *h, size_t c)
{
    bool real = false, text = false;
    for (size_t r = 0; r < h->nrows; r++) {
        int t = sqlite3_value_type(h->v[r * h->ncols + c]);
        real |= t == SQLITE_FLOAT;
        text |= t == SQLITE_TEXT || t == SQLITE_BLOB;
    }
    return text ? RS_STR : real ? RS_DEC : RS_INT;
}

static void put_cell(struct rowset *rs, size_t r, size_t c, sqlite3_value *v)
{
    int t = sqlite3_value_type(v);
    if (t == SQLITE_NULL)
        return;
    char buf[64];
    switch (rs->cols[c].type) {
    case RS_INT:
        rowset_int(rs, r, c, sqlite3_value_int64(v));
        break;
    case RS_DEC:
        if (t == SQLITE_INTEGER)
            snprintf(buf, sizeof buf, "%lld", (long long)sqlite3_value_int64(v));
        else if (sqlite3_value_double(v) == (double)(int64_t)sqlite3_value_double(v) &&
                 fabs(sqlite3_value_double(v)) < 1e15)
            snprintf(buf, sizeof buf, "%.0f", sqlite3_value_double(v));   /* 1800, not 1.8e+03 */
        else
            rowset_shortest(sqlite3_value_double(v), buf, sizeof buf);
        if (strcmp(buf, "null"))   /* NaN, infinities: no number, the cell stays null */
            rowset_dec(rs, r, c, buf);
        break;
    default:
        if (t == SQLITE_BLOB)
            rowset_str(rs, r, c, "(blob)");
        else
            rowset_strn(rs, r, c, (const char *)sqlite3_value_text(v), (size_t)sqlite3_value_bytes(v));
        break;
    }
}

/* The column whose values name slices: read from slice.id, flow.slice_out/slice_in,
 * kernel.slice_id, or named slice_id; SIZE_MAX when none. */
static size_t slice_column(sqlite3_stmt *st, size_t ncols)
{
    for (size_t c = 0; c < ncols; c++) {
        const char *tab = sqlite3_column_table_name(st, (int)c), *org = sqlite3_column_origin_name(st, (int)c);
        const char *name = sqlite3_column_name(st, (int)c);
        if ((tab && org && ((!strcmp(tab, "slice") && !strcmp(org, "id")) ||
                            (!strcmp(tab, "flow") && (!strcmp(org, "slice_out") || !strcmp(org, "slice_in"))) ||
                            !strcmp(org, "slice_id"))) ||
            (name && !strcmp(name, "slice_id")))
            return c;
    }
    return SIZE_MAX;
}

static struct rowset *fill_rowset(struct query *q, sqlite3_stmt *st, struct held *h, bool cut)
{
    struct rowset *rs = rowset_new("query");
    if (!rs)
        return NULL;
    for (size_t c = 0; c < h->ncols; c++) {
        const char *name = sqlite3_column_name(st, (int)c);
        const char *decl = sqlite3_column_decltype(st, (int)c);
        char title[256];
        /* a column read straight from a time column says its unit */
        snprintf(title, sizeof title, "%s%s", name ? name : "?", decl && !strcmp(decl, "INT_NS") ? " (ns)" : "");
        if (rowset_col(rs, name ? name : "?", title, column_type(h, c), 0) == SIZE_MAX) {
            rowset_free(rs);
            return NULL;
        }
    }
    size_t sc = slice_column(st, h->ncols);
    for (size_t r = 0; r < h->nrows; r++) {
        sqlite3_value **row = &h->v[r * h->ncols];
        uint64_t link = QUERY_NO_LINK;
        size_t ri;
        uint32_t s;
        if (sc != SIZE_MAX && sqlite3_value_type(row[sc]) == SQLITE_INTEGER &&
            query_slice_of_id(q, sqlite3_value_int64(row[sc]), &ri, &s))
            link = rowset_rank_link(ri, s);
        size_t rr = rowset_linked_row(rs, link);
        if (rr == SIZE_MAX) {
            rowset_free(rs);
            return NULL;
        }
        for (size_t c = 0; c < h->ncols; c++)
            put_cell(rs, rr, c, row[c]);
    }
    rowset_caption(rs, "%zu row%s%s", h->nrows, h->nrows == 1 ? "" : "s", cut ? " (the first; --limit cut the rest)" : "");
    return rs;
}

struct rowset *query_run(struct query *q, const char *sql, size_t limit, char *err, size_t errsz)
{
    sqlite3_stmt *st = NULL;
    const char *tail = NULL;
    if (sqlite3_prepare_v2(q->db, sql, -1, &st, &tail) != SQLITE_OK) {
        snprintf(err, errsz, "%s", sqlite3_errmsg(q->db));
        return NULL;
    }
    if (!st) {
        snprintf(err, errsz, "no SQL statement given");
        return NULL;
    }
    while (tail && (*tail == ' ' || *tail == '\n' || *tail == '\t' || *tail == '\r' || *tail == ';'))
        tail++;
    if (tail && *tail) {
        snprintf(err, errsz, "one statement at a time (more follows: \"%.40s\")", tail);
        sqlite3_finalize(st);
        return NULL;
    }
    struct held h = { .ncols = (size_t)sqlite3_column_count(st) };
    int rc;
    bool cut = false;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (limit && h.nrows == limit) {
            cut = true;
            break;
        }
        if (!held_add(&h, st)) {
            rc = SQLITE_NOMEM;
            break;
        }
    }
    struct rowset *rs = NULL;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        snprintf(err, errsz, "%s", rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(q->db));
    else if (!(rs = fill_rowset(q, st, &h, cut)))
        snprintf(err, errsz, "out of memory");
    held_free(&h);
    sqlite3_finalize(st);
    return rs;
}
