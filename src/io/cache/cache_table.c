/* The index cache's table section: see cache_table.h. */
#include "io/cache/cache_table.h"

#include <stdlib.h>
#include <string.h>

#include "model/index/strtab.h"
#include "util/huge_pages.h"

/* A field added to these structures must be written and read here too. */
#if UINTPTR_MAX == 0xffffffffffffffffu
_Static_assert(sizeof(struct table) == 104, "struct table changed: update src/io/cache/cache_table.c");
_Static_assert(sizeof(struct table_col) == 56, "struct table_col changed: update src/io/cache/cache_table.c");
#endif

struct cache_table_counts {
    uint64_t kind, ncols, nrows, nstr, str_bytes, path_len, has_lines, no_lines, approx_cells;
};

struct cache_col {
    uint32_t type, auto_type;
    int32_t prec;
    uint32_t arrays;          /* COL_TEXT | COL_NUM | COL_TIME: which arrays follow */
    uint64_t header_len, key_len;
};
enum { COL_TEXT = 1, COL_NUM = 2, COL_TIME = 4 };

void cache_write_table(struct cw *w, const struct table *t)
{
    uint32_t nstr = strtab_count(t->str);
    struct cache_table_counts tc = {
        .kind = (uint64_t)t->kind, .ncols = t->ncols, .nrows = t->nrows, .nstr = nstr,
        .str_bytes = cache_strings_bytes(t->str, nstr), .path_len = strlen(t->path),
        .has_lines = t->line != NULL, .no_lines = t->no_lines, .approx_cells = t->approx_cells,
    };
    cw_put(w, &tc, sizeof tc);
    cw_put(w, t->path, tc.path_len);
    cw_strings(w, t->str, nstr);
    for (size_t c = 0; c < t->ncols; c++) {
        const struct table_col *col = &t->cols[c];
        struct cache_col cc = { (uint32_t)col->type, col->auto_type, col->prec,
                                (col->text ? COL_TEXT : 0) | (col->num ? COL_NUM : 0) | (col->time ? COL_TIME : 0),
                                strlen(col->header), strlen(col->key) };
        cw_put(w, &cc, sizeof cc);
        cw_put(w, col->header, cc.header_len);
        cw_put(w, col->key, cc.key_len);
        if (col->text)
            cw_put(w, col->text, t->nrows * sizeof *col->text);
        if (col->num)
            cw_put(w, col->num, t->nrows * sizeof *col->num);
        if (col->time)
            cw_put(w, col->time, t->nrows * sizeof *col->time);
    }
    if (t->line)
        cw_put(w, t->line, t->nrows * sizeof *t->line);
}

/* A malloc'd copy of n elements of size sz from the file (at least one element's room), on
 * huge pages when large: the copy's fresh pages were most of a table's warm reopen. */
static void *copy_n(struct cr *r, uint64_t n, size_t sz, const char *what)
{
    const void *src = cr_take_n(r, n, sz, what);
    if (!src)
        return NULL;
    void *p = huge_alloc(n ? (size_t)n * sz : sz);
    if (!p) {
        cr_fail(r, "out of memory");
        return NULL;
    }
    memcpy(p, src, (size_t)n * sz);
    return p;
}

static char *copy_text(struct cr *r, uint64_t len, const char *what)
{
    const char *s = cr_take(r, len, what);
    char *p = s ? strndup(s, (size_t)len) : NULL;
    if (s && !p)
        cr_fail(r, "out of memory");
    return p;
}

struct table *cache_read_table(struct cr *r)
{
    const struct cache_table_counts *tc = cr_take(r, sizeof *tc, "a table's counts");
    if (!tc)
        return NULL;
    if (tc->kind >= TK_COUNT || tc->ncols > r->len || tc->nrows > r->len || tc->nrows >= UINT32_MAX) {
        cr_fail(r, "impossible table counts");
        return NULL;
    }
    char *path = copy_text(r, tc->path_len, "a table's path");
    struct table *t = path ? table_new((enum table_kind)tc->kind, path) : NULL;
    free(path);
    if (!t) {
        cr_fail(r, "out of memory");
        return NULL;
    }
    if (!cr_strings(r, t->str, tc->nstr, tc->str_bytes))
        goto bad;
    t->cols = calloc((size_t)tc->ncols + 1, sizeof *t->cols);
    if (!t->cols) {
        cr_fail(r, "out of memory");
        goto bad;
    }
    t->nrows = t->cap = (size_t)tc->nrows;
    for (uint64_t c = 0; c < tc->ncols; c++) {
        const struct cache_col *cc = cr_take(r, sizeof *cc, "a column");
        if (!cc)
            goto bad;
        struct table_col *col = &t->cols[c];
        t->ncols = (size_t)c + 1;   /* table_free frees what this column has so far */
        if (cc->type > TC_TIME || cc->arrays > (COL_TEXT | COL_NUM | COL_TIME)) {
            cr_fail(r, "a column of an unknown type");
            goto bad;
        }
        /* every field by position: a field added to struct table_col stops the build here
         * (-Wmissing-field-initializers) until the cache writes it too */
        *col = (struct table_col){ NULL, NULL, (enum table_col_type)cc->type, cc->auto_type != 0, cc->prec,
                                   NULL, NULL, NULL };
        col->header = copy_text(r, cc->header_len, "a column header");
        col->key = copy_text(r, cc->key_len, "a column key");
        if (!col->header || !col->key)
            goto bad;
        if (cc->arrays & COL_TEXT) {
            col->text = copy_n(r, tc->nrows, sizeof *col->text, "text cells");
            if (!col->text)
                goto bad;
            if (tc->nrows && cache_max_u32(col->text, t->nrows) >= tc->nstr) {
                cr_fail(r, "a text cell out of bounds");
                goto bad;
            }
        }
        if ((cc->arrays & COL_NUM) && !(col->num = copy_n(r, tc->nrows, sizeof *col->num, "number cells")))
            goto bad;
        if ((cc->arrays & COL_TIME) && !(col->time = copy_n(r, tc->nrows, sizeof *col->time, "time cells")))
            goto bad;
        /* the queries read the array of the column's type */
        if ((col->type == TC_TEXT && !col->text) || (col->type == TC_NUM && !col->num)
            || (col->type == TC_TIME && !col->time)) {
            cr_fail(r, "a column without its cells");
            goto bad;
        }
    }
    if (tc->has_lines && !(t->line = copy_n(r, tc->nrows, sizeof *t->line, "row lines")))
        goto bad;
    t->no_lines = tc->no_lines != 0;
    t->approx_cells = (size_t)tc->approx_cells;
    return t;
bad:
    table_free(t);
    return NULL;
}
