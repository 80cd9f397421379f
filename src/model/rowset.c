#include "model/rowset.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rowset *rowset_new(const char *name)
{
    struct rowset *rs = calloc(1, sizeof *rs);
    if (!rs)
        return NULL;
    rs->name = strdup(name ? name : "");
    rs->str = strtab_new();
    if (!rs->name || !rs->str) {
        rowset_free(rs);
        return NULL;
    }
    return rs;
}

void rowset_free(struct rowset *rs)
{
    if (!rs)
        return;
    for (size_t c = 0; c < rs->ncols; c++) {
        free(rs->cols[c].key);
        free(rs->cols[c].title);
    }
    free(rs->cols);
    free(rs->vals);
    free(rs->null);
    free(rs->link);
    free(rs->name);
    free(rs->caption);
    if (rs->str)
        strtab_free(rs->str);
    free(rs);
}

void rowset_caption(struct rowset *rs, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    free(rs->caption);
    rs->caption = strdup(buf);
}

/* Columns are added before rows; adding one later widens every row. */
size_t rowset_col(struct rowset *rs, const char *key, const char *title, enum rs_type type, int prec)
{
    size_t nc = rs->ncols + 1;
    struct rs_col *cols = realloc(rs->cols, nc * sizeof *cols);
    if (!cols)
        return SIZE_MAX;
    rs->cols = cols;
    if (rs->nrows) {
        union rs_val *v = calloc(rs->cap * nc, sizeof *v);
        uint8_t *nl = malloc(rs->cap * nc);
        if (!v || !nl) {
            free(v);
            free(nl);
            return SIZE_MAX;
        }
        memset(nl, 1, rs->cap * nc);
        for (size_t r = 0; r < rs->nrows; r++) {
            memcpy(&v[r * nc], &rs->vals[r * rs->ncols], rs->ncols * sizeof *v);
            memcpy(&nl[r * nc], &rs->null[r * rs->ncols], rs->ncols);
        }
        free(rs->vals);
        free(rs->null);
        rs->vals = v;
        rs->null = nl;
    } else {
        free(rs->vals);
        free(rs->null);
        rs->vals = NULL;
        rs->null = NULL;
        rs->cap = 0;
    }
    cols[rs->ncols] = (struct rs_col){ strdup(key), strdup(title ? title : key), type, prec };
    return rs->ncols++;
}

size_t rowset_row(struct rowset *rs)
{
    if (rs->nrows == rs->cap) {
        size_t cap = rs->cap ? rs->cap * 2 : 64;
        size_t w = rs->ncols ? rs->ncols : 1;
        union rs_val *v = realloc(rs->vals, cap * w * sizeof *v);
        if (!v)
            return SIZE_MAX;
        rs->vals = v;
        uint8_t *nl = realloc(rs->null, cap * w);
        if (!nl)
            return SIZE_MAX;
        rs->null = nl;
        uint64_t *lk = realloc(rs->link, cap * sizeof *lk);
        if (!lk)
            return SIZE_MAX;
        rs->link = lk;
        rs->cap = cap;
    }
    size_t r = rs->nrows++;
    memset(&rs->vals[r * rs->ncols], 0, rs->ncols * sizeof *rs->vals);
    memset(&rs->null[r * rs->ncols], 1, rs->ncols);
    rs->link[r] = UINT64_MAX;
    return r;
}

static union rs_val *cell(struct rowset *rs, size_t row, size_t col)
{
    if (row >= rs->nrows || col >= rs->ncols)
        return NULL;
    rs->null[row * rs->ncols + col] = 0;
    return &rs->vals[row * rs->ncols + col];
}

void rowset_strn(struct rowset *rs, size_t row, size_t col, const char *s, size_t len)
{
    union rs_val *v = s ? cell(rs, row, col) : NULL;
    if (v)
        v->s = strtab_intern(rs->str, s, len);
}

void rowset_str(struct rowset *rs, size_t row, size_t col, const char *s)
{
    if (s)
        rowset_strn(rs, row, col, s, strlen(s));
}

void rowset_int(struct rowset *rs, size_t row, size_t col, int64_t x)
{
    union rs_val *v = cell(rs, row, col);
    if (v)
        v->i = x;
}

void rowset_ns(struct rowset *rs, size_t row, size_t col, int64_t ns)
{
    rowset_int(rs, row, col, ns);
}

void rowset_num(struct rowset *rs, size_t row, size_t col, double x)
{
    if (isnan(x))
        return;   /* stays null */
    union rs_val *v = cell(rs, row, col);
    if (v)
        v->d = x;
}

void rowset_raw(struct rowset *rs, size_t row, size_t col, const char *json)
{
    rowset_str(rs, row, col, json);
}

size_t rowset_find_col(const struct rowset *rs, const char *key)
{
    for (size_t c = 0; c < rs->ncols; c++)
        if (strcmp(rs->cols[c].key, key) == 0)
            return c;
    return SIZE_MAX;
}

/* ns as µs with exactly 3 decimals, from the integer (no rounding through double). */
static void format_ns(int64_t ns, char *buf, size_t size)
{
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    snprintf(buf, size, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", a / 1000, (unsigned)(a % 1000));
}

const char *rowset_format(const struct rowset *rs, size_t row, size_t col, char *buf, size_t size)
{
    if (!size)
        return buf;
    buf[0] = 0;
    if (row >= rs->nrows || col >= rs->ncols || rowset_is_null(rs, row, col))
        return buf;
    const union rs_val *v = rowset_cell(rs, row, col);
    switch (rs->cols[col].type) {
    case RS_STR:
    case RS_RAW:
        snprintf(buf, size, "%s", strtab_get(rs->str, v->s));
        break;
    case RS_INT:
        snprintf(buf, size, "%" PRId64, v->i);
        break;
    case RS_NS:
        format_ns(v->i, buf, size);
        break;
    case RS_NUM:
        snprintf(buf, size, "%.*f", rs->cols[col].prec, v->d);
        break;
    case RS_PCT:
        snprintf(buf, size, "%.1f%%", v->d * 100.0);
        break;
    }
    return buf;
}

static int compare_cells(const struct rowset *rs, size_t col, uint32_t a, uint32_t b)
{
    bool na = rowset_is_null(rs, a, col), nb = rowset_is_null(rs, b, col);
    if (na || nb)
        return na - nb;
    const union rs_val *x = rowset_cell(rs, a, col), *y = rowset_cell(rs, b, col);
    switch (rs->cols[col].type) {
    case RS_STR:
    case RS_RAW:
        return strcmp(strtab_get(rs->str, x->s), strtab_get(rs->str, y->s));
    case RS_INT:
    case RS_NS:
        return (x->i > y->i) - (x->i < y->i);
    default:
        return (x->d > y->d) - (x->d < y->d);
    }
}

/* Merge sort of row indices: stable, O(n log n), no global state (qsort_r is not C11). */
static void merge_sort(const struct rowset *rs, size_t col, bool desc, uint32_t *a, uint32_t *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    merge_sort(rs, col, desc, a, tmp, h);
    merge_sort(rs, col, desc, a + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        bool nj = rowset_is_null(rs, a[j], col), ni = rowset_is_null(rs, a[i], col);
        int c = compare_cells(rs, col, a[j], a[i]);
        /* take the right element first only when strictly before: keeps stability; nulls last */
        bool right_first = (ni && !nj) || (!ni && !nj && (desc ? c > 0 : c < 0));
        tmp[k++] = right_first ? a[j++] : a[i++];
    }
    while (i < h)
        tmp[k++] = a[i++];
    while (j < n)
        tmp[k++] = a[j++];
    memcpy(a, tmp, n * sizeof *a);
}

void rowset_sort_order(const struct rowset *rs, size_t col, bool descending, uint32_t *order)
{
    for (size_t r = 0; r < rs->nrows; r++)
        order[r] = (uint32_t)r;
    if (col >= rs->ncols || rs->nrows < 2)
        return;
    uint32_t *tmp = malloc(rs->nrows * sizeof *tmp);
    if (!tmp)
        return;
    merge_sort(rs, col, descending, order, tmp, rs->nrows);
    free(tmp);
}

void rowset_truncate(struct rowset *rs, size_t n)
{
    if (n < rs->nrows)
        rs->nrows = n;
}
