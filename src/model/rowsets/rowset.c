#include "model/rowsets/rowset.h"
#include "model/index/num_prec.h"
#include "util/grow.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/free_all.h"

struct rowset *rowset_new(const char *name)
{
    return STRTAB_NAMED_NEW(struct rowset, name, name);
}

void rowset_free(struct rowset *rs)
{
    if (!rs)
        return;
    strtab_free(rs->str);
    FREE_ALL(rs->cols, rs->vals, rs->null, rs->link, rs->caption, rs);
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

/* Columns are added before rows; adding one later widens every row. When memory runs out
 * nothing changes and SIZE_MAX comes back (setting a cell of that column does nothing). */
size_t rowset_col(struct rowset *rs, const char *key, const char *title, enum rs_type type, int prec)
{
    size_t nc = rs->ncols + 1;
    /* the names live in the rowset's string table: nothing to free a column */
    const char *k = strtab_keep(rs->str, key), *t = strtab_keep(rs->str, title ? title : key);
    struct rs_col *cols = k && t ? grow_exact(rs->cols, nc, sizeof *cols) : NULL;
    if (!cols)
        return SIZE_MAX;
    rs->cols = cols;
    if (rs->nrows) {
        union rs_val *v = calloc(rs->cap * nc, sizeof *v);
        uint8_t *nl = malloc(rs->cap * nc);
        if (!v || !nl) {
            FREE_ALL(v, nl);
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
    cols[rs->ncols] = (struct rs_col){ k, t, type, prec };
    return rs->ncols++;
}

bool rowset_cols(struct rowset *rs, const struct rs_coldef *defs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (rowset_col(rs, defs[i].key, defs[i].title, defs[i].type, defs[i].prec) == SIZE_MAX)
            return false;
    return true;
}

struct rowset *rowset_new_cols(const char *name, const struct rs_coldef *defs, size_t n)
{
    struct rowset *rs = rowset_new(name);
    if (rs && !rowset_cols(rs, defs, n)) {
        rowset_free(rs);
        return NULL;
    }
    return rs;
}

struct rowset *rowset_new_ranked(const char *name, bool ranked, const struct rs_coldef *defs, size_t n,
                                 size_t *crank, size_t *base)
{
    static const struct rs_coldef rank_col = RS_COL_INT("rank", "Rank");
    struct rowset *rs = ranked ? rowset_new_cols(name, &rank_col, 1) : rowset_new(name);
    *crank = ranked ? 0 : SIZE_MAX;
    *base = ranked;
    if (rs && !rowset_cols(rs, defs, n)) {
        rowset_free(rs);
        return NULL;
    }
    return rs;
}

/* A row memory had no room for: counted, so that what shows the rowset says rows are missing. */
static size_t lost_row(struct rowset *rs)
{
    rs->lost_rows++;
    return SIZE_MAX;
}

size_t rowset_row(struct rowset *rs)
{
    if (rs->nrows == rs->cap) {
        size_t cap = rs->cap ? rs->cap * 2 : 64;
        size_t w = rs->ncols ? rs->ncols : 1;
        union rs_val *v = cap <= SIZE_MAX / w ? grow_exact(rs->vals, cap * w, sizeof *v) : NULL;
        if (!v)
            return lost_row(rs);
        rs->vals = v;
        uint8_t *nl = grow_exact(rs->null, cap * w, 1);
        if (!nl)
            return lost_row(rs);
        rs->null = nl;
        uint64_t *lk = grow_exact(rs->link, cap, sizeof *lk);
        if (!lk)
            return lost_row(rs);
        rs->link = lk;
        rs->cap = cap;
    }
    size_t r = rs->nrows++;
    memset(&rs->vals[r * rs->ncols], 0, rs->ncols * sizeof *rs->vals);
    memset(&rs->null[r * rs->ncols], 1, rs->ncols);
    rs->link[r] = UINT64_MAX;
    return r;
}

size_t rowset_linked_row(struct rowset *rs, uint64_t link)
{
    size_t r = rowset_row(rs);
    if (r != SIZE_MAX)
        rs->link[r] = link;
    return r;
}

size_t rowset_rank_row(struct rowset *rs, uint64_t link, size_t crank, int rank, size_t cdev, int device)
{
    size_t r = rowset_linked_row(rs, link);
    if (r != SIZE_MAX) {
        rowset_int(rs, r, crank, rank);
        if (device >= 0)
            rowset_int(rs, r, cdev, device);
    }
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
    if (v && rs->cols[col].type == RS_DEC) {     /* the column's precision: its numbers' largest */
        int p = num_prec_of_text(s, len);
        if (p > rs->cols[col].prec)
            rs->cols[col].prec = p;
    }
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

bool rowset_is_json_number(const char *s)
{
    if (!s)
        return false;
    if (*s == '-')
        s++;
    if (*s == '0')
        s++;
    else if (*s >= '1' && *s <= '9')
        while (*s >= '0' && *s <= '9')
            s++;
    else
        return false;
    if (*s == '.') {
        s++;
        if (*s < '0' || *s > '9')
            return false;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (*s < '0' || *s > '9')
            return false;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s == 0;
}

void rowset_dec(struct rowset *rs, size_t row, size_t col, const char *text)
{
    if (rowset_is_json_number(text))
        rowset_str(rs, row, col, text);
}

const char *rowset_shortest(double v, char *buf, size_t size)
{
    if (!isfinite(v)) {
        snprintf(buf, size, "null");
        return buf;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
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
    case RS_DEC:    /* the file's number at the column's precision (JSON and CSV keep its digits) */
        num_prec_round(strtab_get(rs->str, v->s), rs->cols[col].prec, buf, size);
        break;
    case RS_INT:
        snprintf(buf, size, "%" PRId64, v->i);
        break;
    case RS_NS:
        format_ns(v->i, buf, size);
        break;
    case RS_NUM:
        snprintf(buf, size, "%.*f", rs->cols[col].prec, v->d);
        if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1))
            memmove(buf, buf + 1, strlen(buf));   /* a value that rounds to zero is "0.000", not "-0.000" */
        break;
    case RS_PCT:
        snprintf(buf, size, "%.1f%%", v->d * 100.0);
        break;
    }
    return buf;
}

/* Sorting turns each cell into one unsigned key whose order is the wanted order (strings by
 * the rank of their text among the column's distinct strings, floats by their bit pattern),
 * so the sort itself compares plain integers: fast enough for a million rows per keypress. */
struct sort_item { uint64_t key; uint32_t row; };

static int compare_items(const void *a, const void *b)
{
    const struct sort_item *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);   /* ties keep row order: a stable sort */
}

static const struct strtab *sort_str;

static int compare_str_ids(const void *a, const void *b)
{
    return strcmp(strtab_get(sort_str, *(const uint32_t *)a), strtab_get(sort_str, *(const uint32_t *)b));
}

/* rank[id] = position of string id in text order, for the ids used in column col. */
static uint32_t *string_ranks(const struct rowset *rs, size_t col)
{
    uint32_t nstr = strtab_count(rs->str);
    uint32_t *rank = calloc(nstr ? nstr : 1, sizeof *rank);
    uint8_t *used = calloc(nstr ? nstr : 1, 1);
    uint32_t *ids = malloc((nstr ? nstr : 1) * sizeof *ids);
    if (!rank || !used || !ids) {
        FREE_ALL(rank, used, ids);
        return NULL;
    }
    size_t n = 0;
    for (size_t r = 0; r < rs->nrows; r++) {
        uint32_t id = rowset_cell(rs, r, col)->s;
        if (!rowset_is_null(rs, r, col) && id < nstr && !used[id]) {
            used[id] = 1;
            ids[n++] = id;
        }
    }
    sort_str = rs->str;   /* qsort has no context argument in C11; sorting is UI-thread only */
    qsort(ids, n, sizeof *ids, compare_str_ids);
    for (size_t i = 0; i < n; i++)
        rank[ids[i]] = (uint32_t)i;
    FREE_ALL(used, ids);
    return rank;
}

static uint64_t cell_key(const struct rowset *rs, size_t row, size_t col, const uint32_t *rank)
{
    const union rs_val *v = rowset_cell(rs, row, col);
    switch (rs->cols[col].type) {
    case RS_STR:
    case RS_RAW:
        return rank ? rank[v->s] : v->s;
    case RS_INT:
    case RS_NS:
        return (uint64_t)v->i ^ (UINT64_C(1) << 63);
    default: {
        uint64_t bits;
        double d = rs->cols[col].type == RS_DEC ? strtod(strtab_get(rs->str, v->s), NULL) : v->d;
        d = d == 0 ? 0.0 : d;   /* -0 sorts with +0 */
        memcpy(&bits, &d, sizeof bits);
        return bits >> 63 ? ~bits : bits | (UINT64_C(1) << 63);
    }
    }
}

void rowset_sort_order(const struct rowset *rs, size_t col, bool descending, uint32_t *order)
{
    for (size_t r = 0; r < rs->nrows; r++)
        order[r] = (uint32_t)r;
    if (col >= rs->ncols || rs->nrows < 2)
        return;
    struct sort_item *items = malloc(rs->nrows * sizeof *items);
    bool text = rs->cols[col].type == RS_STR || rs->cols[col].type == RS_RAW;
    uint32_t *rank = text ? string_ranks(rs, col) : NULL;
    if (!items || (text && !rank)) {
        FREE_ALL(items, rank);
        return;
    }
    size_t nn = 0, nulls = rs->nrows;
    for (size_t r = 0; r < rs->nrows; r++) {
        if (rowset_is_null(rs, r, col)) {
            order[--nulls] = (uint32_t)r;   /* nulls last, in row order (reversed below) */
            continue;
        }
        uint64_t k = cell_key(rs, r, col, rank);
        items[nn++] = (struct sort_item){ descending ? ~k : k, (uint32_t)r };
    }
    qsort(items, nn, sizeof *items, compare_items);
    for (size_t i = 0; i < nn; i++)
        order[i] = items[i].row;
    for (size_t a = nn, b = rs->nrows; a + 1 < b; a++, b--) {
        uint32_t t = order[a];
        order[a] = order[b - 1];
        order[b - 1] = t;
    }
    free(items);
    free(rank);
}

void rowset_truncate(struct rowset *rs, size_t n)
{
    if (n < rs->nrows)
        rs->nrows = n;
}
