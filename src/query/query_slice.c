/* The slice table (every slice of every loaded timeline) and the functions reading a slice's
 * args: args(slice_id) and extract_arg(slice_id, key). Columns follow Perfetto's slice table:
 * id, ts, dur, name, category, track_id, depth, parent_id, plus the rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "io/load/slice_fields.h"
#include "query/query.h"
#include "query/query_internal.h"
#include "util/huge_pages.h"

enum { C_ID, C_TS, C_DUR, C_NAME, C_CATEGORY, C_TRACK, C_DEPTH, C_PARENT, C_RANK };

struct slice_ctx {
    const struct query *q;
    uint32_t **by_name;          /* per rank: its slices grouped by name, made when first asked */
    uint32_t **name_first;       /* per rank: where each name's slices start in by_name, and the end */
    size_t nranks;
};

static void slice_ctx_free(void *p)
{
    struct slice_ctx *x = p;
    if (x) {
        QUERY_FREE_PER_RANK(x->by_name, x->nranks);
        QUERY_FREE_PER_RANK(x->name_first, x->nranks);
    }
    free(x);
}

static void slice_cell(const struct qtab *t, size_t ri, int64_t row, int col, sqlite3_context *c)
{
    const struct slice_ctx *x = t->ctx;
    const struct model *m = t->s->ranks[ri].model;
    uint32_t s = (uint32_t)row;
    switch (col) {
    case C_ID: sqlite3_result_int64(c, t->base[ri] + row); break;
    case C_TS: sqlite3_result_int64(c, m->start[s]); break;
    case C_DUR: sqlite3_result_int64(c, m->dur[s]); break;
    case C_NAME: query_result_str(c, m->str, m->name[s]); break;
    case C_CATEGORY: query_result_str(c, m->str, m->cat[s]); break;
    case C_TRACK: sqlite3_result_int64(c, query_track_base(x->q, ri) + m->lane[s]); break;
    case C_DEPTH: sqlite3_result_int64(c, m->depth[s]); break;
    case C_PARENT: query_result_slice(x->q, ri, model_parent(m, s), c); break;
    case C_RANK: sqlite3_result_int64(c, t->s->ranks[ri].rank); break;
    default: sqlite3_result_null(c); break;
    }
}

/* The per-slice arrays the used columns read (the parent reads the slice's own start, lane and
 * depth first: those are what a fetch can know ahead). */
static void slice_prefetch(const struct qtab *t, size_t ri, int64_t row, uint64_t cols)
{
    const struct model *m = t->s->ranks[ri].model;
    uint32_t s = (uint32_t)row;
#define WANTS(col) (cols & (1ull << (col)))
    if (WANTS(C_TS) || WANTS(C_PARENT))
        __builtin_prefetch(&m->start[s]);
    if (WANTS(C_DUR))
        __builtin_prefetch(&m->dur[s]);
    if (WANTS(C_NAME))
        __builtin_prefetch(&m->name[s]);
    if (WANTS(C_CATEGORY))
        __builtin_prefetch(&m->cat[s]);
    if (WANTS(C_TRACK) || WANTS(C_PARENT))
        __builtin_prefetch(&m->lane[s]);
    if (WANTS(C_DEPTH) || WANTS(C_PARENT))
        __builtin_prefetch(&m->depth[s]);
#undef WANTS
}

/* First index of [a, b) whose start is >= t (slices of one depth row are sorted by start). */
static uint32_t first_at_or_after(const struct model *m, uint32_t a, uint32_t b, ns_t t)
{
    while (a < b) {
        uint32_t mid = a + (b - a) / 2;
        if (m->start[mid] < t)
            a = mid + 1;
        else
            b = mid;
    }
    return a;
}

/* Slices starting in [lo, hi]: each lane's depth rows in turn, a binary search into each. */
static bool slice_ts_next(const struct qtab *t, size_t ri, struct qts_iter *it, int64_t *row)
{
    const struct model *m = t->s->ranks[ri].model;
    if (!m)
        return false;
    for (;;) {
        if (it->started && it->i < it->end && m->start[it->i] <= it->hi) {
            *row = it->i++;
            return true;
        }
        if (it->started && ++it->depth >= m->lanes[it->lane].ndepth) {
            it->depth = 0;
            it->lane++;
        }
        it->started = true;
        while (it->lane < m->nlanes && m->lanes[it->lane].ndepth == 0)
            it->lane++;
        if (it->lane >= m->nlanes)
            return false;
        const struct lane *l = &m->lanes[it->lane];
        it->i = first_at_or_after(m, l->row_first[it->depth], l->row_first[it->depth + 1], it->lo);
        it->end = l->row_first[it->depth + 1];
    }
}

/* The rank's slices ordered by name id (a counting sort: O(n), no text compared), group g
 * being name id g. Made when first asked and kept with the engine: reading it again costs
 * nothing, and it takes 4 bytes a slice plus 4 a name. */
static bool slice_grouped(const struct qtab *t, size_t ri, struct qgroups *out)
{
    struct slice_ctx *x = t->ctx;
    const struct model *m = t->s->ranks[ri].model;
    if (!m)
        return false;
    uint32_t nnames = strtab_count(m->str);
    if (!x->by_name[ri]) {
        uint32_t *first = calloc((size_t)nnames + 1, sizeof *first);
        uint32_t *order = huge_alloc(((size_t)m->nslices + 1) * sizeof *order);
        uint32_t *next = malloc(((size_t)nnames + 1) * sizeof *next);
        if (!first || !order || !next) {
            free(first), free(order), free(next);
            return false;
        }
        for (uint32_t s = 0; s < m->nslices; s++)
            first[m->name[s] + 1]++;
        for (uint32_t n = 0; n < nnames; n++)
            first[n + 1] += first[n];
        memcpy(next, first, ((size_t)nnames + 1) * sizeof *next);
        for (uint32_t s = 0; s < m->nslices; s++)
            order[next[m->name[s]]++] = s;
        free(next);
        x->by_name[ri] = order;
        x->name_first[ri] = first;
    }
    *out = (struct qgroups){ .order = x->by_name[ri], .first = x->name_first[ri], .ngroups = nnames };
    return true;
}

static const char *slice_group_name(const struct qtab *t, size_t ri, uint32_t g, size_t *len)
{
    const struct strtab *str = t->s->ranks[ri].model->str;
    *len = strtab_len(str, g);
    return strtab_get(str, g);
}

/* --- args ------------------------------------------------------------------------------ */

/* The slice of an id argument, or false (the result is then NULL). */
static bool slice_arg(sqlite3_context *c, sqlite3_value *v, const struct model **m, uint32_t *s)
{
    const struct query *q = sqlite3_user_data(c);
    size_t ri;
    if (sqlite3_value_numeric_type(v) != SQLITE_INTEGER ||
        !query_slice_of_id(q, sqlite3_value_int64(v), &ri, s))
        return false;
    *m = q->s->ranks[ri].model;
    return true;
}

/* Fields read again from the slice's file; NULL (the result set to NULL or an error). */
static struct slice_fields_job *read_fields(sqlite3_context *c, sqlite3_value *id, const struct slice_field **v,
                                            size_t *n)
{
    const struct model *m;
    uint32_t s;
    if (!slice_arg(c, id, &m, &s)) {
        sqlite3_result_null(c);
        return NULL;
    }
    struct slice_fields_job *j = slice_fields_read_now(m, s);
    if (!j) {
        sqlite3_result_error_nomem(c);
        return NULL;
    }
    const char *err;
    *n = slice_fields_get(j, v, &err);
    return j;
}

/* A field's key as a query names it: "key" for a trace event's args, "SECTION.key" else. */
static void field_key(const struct slice_field *f, char *buf, size_t size)
{
    if (!strcmp(f->section, "Args"))
        snprintf(buf, size, "%s", f->key);
    else
        snprintf(buf, size, "%s.%s", f->section, f->key);
}

/* args(slice_id): every field as one JSON object of texts ({"Input Dims": "1,2", ...}). */
static void fn_args(sqlite3_context *c, int argc, sqlite3_value **argv)
{
    (void)argc;
    const struct slice_field *v;
    size_t n = 0;
    struct slice_fields_job *j = read_fields(c, argv[0], &v, &n);
    if (!j)
        return;
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; o && i < n; i++) {
        char key[512];
        field_key(&v[i], key, sizeof key);
        cJSON_AddItemToObject(o, key, cJSON_CreateString(v[i].value));
    }
    char *text = o ? cJSON_PrintUnformatted(o) : NULL;
    if (text)
        sqlite3_result_text(c, text, -1, SQLITE_TRANSIENT);
    else
        sqlite3_result_error_nomem(c);
    free(text);
    cJSON_Delete(o);
    slice_fields_release(j);
}

/* extract_arg(slice_id, key): one field (key as args() names it; a leading "args." is
 * allowed, as Perfetto writes it), an integer when its text is one, else the text. */
static void fn_extract_arg(sqlite3_context *c, int argc, sqlite3_value **argv)
{
    (void)argc;
    const char *want = (const char *)sqlite3_value_text(argv[1]);
    if (!want) {
        sqlite3_result_null(c);
        return;
    }
    if (!strncmp(want, "args.", 5))
        want += 5;
    const struct slice_field *v;
    size_t n = 0;
    struct slice_fields_job *j = read_fields(c, argv[0], &v, &n);
    if (!j)
        return;
    sqlite3_result_null(c);
    for (size_t i = 0; i < n; i++) {
        char key[512];
        field_key(&v[i], key, sizeof key);
        if (strcmp(key, want))
            continue;
        char *end;
        long long x = strtoll(v[i].value, &end, 10);
        if (v[i].value[0] && !*end && (v[i].value[0] == '-' || (v[i].value[0] >= '0' && v[i].value[0] <= '9')))
            sqlite3_result_int64(c, x);
        else
            sqlite3_result_text(c, v[i].value, -1, SQLITE_TRANSIENT);
        break;
    }
    slice_fields_release(j);
}

bool query_slice_tables(struct query *q, char *err, size_t errsz)
{
    size_t n = q->s->nranks;
    int64_t *counts = calloc(n + 1, sizeof *counts);
    struct slice_ctx *x = calloc(1, sizeof *x);
    if (x) {
        x->by_name = calloc(n + 1, sizeof *x->by_name);
        x->name_first = calloc(n + 1, sizeof *x->name_first);
    }
    struct qtab *t = NULL;
    if (counts && x && x->by_name && x->name_first) {
        for (size_t i = 0; i < n; i++)
            counts[i] = q->slice_base[i + 1] - q->slice_base[i];
        t = qtab_new(q, "slice",
                     "id INTEGER, ts INT_NS, dur INT_NS, name TEXT, category TEXT, track_id INTEGER, "
                     "depth INTEGER, parent_id INTEGER, rank INTEGER", counts);
    }
    free(counts);
    if (!t) {
        slice_ctx_free(x);
        return query_oom(err, errsz);
    }
    x->q = q, x->nranks = n;
    t->ctx = x, t->ctx_free = slice_ctx_free;
    t->cell = slice_cell;
    t->id_col = C_ID, t->rank_col = C_RANK, t->ts_col = C_TS, t->name_col = C_NAME;
    t->ts_next = slice_ts_next;
    t->grouped = slice_grouped;
    t->group_name = slice_group_name;
    t->prefetch = slice_prefetch;
    if (!qtab_register(q, t, err, errsz))
        return false;
    int flags = SQLITE_UTF8 | SQLITE_DIRECTONLY;   /* they read files: not from views or triggers */
    if (sqlite3_create_function(q->db, "args", 1, flags, (void *)q, fn_args, NULL, NULL) != SQLITE_OK ||
        sqlite3_create_function(q->db, "extract_arg", 2, flags, (void *)q, fn_extract_arg, NULL, NULL) != SQLITE_OK) {
        snprintf(err, errsz, "args functions: %s", sqlite3_errmsg(q->db));
        return false;
    }
    return true;
}
