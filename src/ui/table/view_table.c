/* The generic table widget (see view_table.h): cell values, filtering, sorting, the rowset
 * and export. Drawing is in view_table_draw.c, input in view_table_input.c. */
#include "ui/table/view_table.h"
#include "ui/table/view_table_internal.h"
#include "ui/table/table_export.h"
#include "ui/table/view_settings.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/index/session.h"
#include "ui/shell/draw.h"
#include "util/demangle.h"
#include "util/free_all.h"

#define STR_SAMPLE 4000  /* rows measured for the width of text columns */
#define STR_MAX 48       /* widest text column */

/* --- values -------------------------------------------------------------------------- */

static bool is_start_col(const struct rs_col *c)
{
    return c->type == RS_NS && (strstr(c->key, "start") || !strcmp(c->key, "ts_us")
                                /* the memory tables' points in time */
                                || !strcmp(c->key, "alloc_us") || strstr(c->key, "release_us")
                                || strstr(c->key, "_at_us") || !strcmp(c->key, "first_us") || !strcmp(c->key, "last_us"));
}

/* "-0.000" (a value that rounds to zero) reads as a negative figure: drop the sign. */
static const char *no_negative_zero(char *buf)
{
    if (buf[0] == '-' && !buf[strspn(buf + 1, "0.") + 1])
        memmove(buf, buf + 1, strlen(buf));
    return buf;
}

/* ns / unit with all its digits (digits decimals), from the integer: no figure loses a
 * nanosecond to the display. */
static const char *exact_scaled(int64_t ns, int64_t unit, int digits, char *buf, size_t size)
{
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    snprintf(buf, size, "%s%llu.%0*llu", ns < 0 ? "-" : "", (unsigned long long)(a / (uint64_t)unit), digits,
             (unsigned long long)(a % (uint64_t)unit));
    return buf;
}

/* The cell as the widget shows it (one unit for all the durations of a table). */
const char *vt_cell_text(const struct vtable *t, size_t row, size_t col, char *buf, size_t size)
{
    const struct rowset *rs = t->rs;
    if (rowset_is_null(rs, row, col)) {
        buf[0] = 0;
        return buf;
    }
    const union rs_val *v = rowset_cell(rs, row, col);
    switch (t->exact ? U_TEXT : t->unit[col]) {
    case U_MS:
        return exact_scaled(v->i, 1000000, 6, buf, size);
    case U_US:
        return exact_scaled(v->i, 1000, 3, buf, size);
    case U_START:
        snprintf(buf, size, "%.3f", (double)(v->i - t->origin) / 1e6);
        return no_negative_zero(buf);
    default:
        {
            const char *txt = rowset_format(rs, row, col, buf, size);
            return txt == buf && rs->cols[col].type == RS_NUM ? no_negative_zero(buf) : txt;
        }
    }
}

/* Header text with the display unit. */
void vt_col_title(const struct vtable *t, size_t col, char *out, size_t size)
{
    const struct rs_col *c = &t->rs->cols[col];
    const char *mu = "\xc2\xb5s";
    const char *want = NULL;
    if (!t->exact) {
        if (t->unit[col] == U_MS || t->unit[col] == U_START)
            want = "ms";
    }
    char tmp[256];
    const char *p = strstr(c->title, mu);
    const char *pu = strstr(c->title, "(us)");   /* a file's header: "Duration(us)" */
    if (want && p) {
        snprintf(tmp, sizeof tmp, "%.*s%s%s", (int)(p - c->title), c->title, want, p + strlen(mu));
    } else if (want && pu) {
        /* the values are shown in ms: the header must say so, not the file's "(us)" */
        snprintf(tmp, sizeof tmp, "%.*s(%s)%s", (int)(pu - c->title), c->title, want, pu + 4);
    } else if (c->type == RS_NS && !p && !strstr(c->title, "us")) {
        snprintf(tmp, sizeof tmp, "%s %s", c->title, want ? want : mu);
    } else {
        snprintf(tmp, sizeof tmp, "%s", c->title);
    }
    if (!draw_utf8) {
        /* "µs" as "us" where the terminal lacks it */
        char *q;
        while ((q = strstr(tmp, mu)) != NULL)
            memmove(q, q + 1, strlen(q + 1) + 1), q[0] = 'u';
    }
    if (t->sort_col == col)
        snprintf(out, size, "%s%s", tmp, draw_utf8 ? (t->desc ? "\xe2\x96\xbc" : "\xe2\x96\xb2") : (t->desc ? "v" : "^"));
    else
        snprintf(out, size, "%s", tmp);
}

bool vt_col_numeric(const struct rowset *rs, size_t col)
{
    return rs->cols[col].type != RS_STR && rs->cols[col].type != RS_RAW;
}

/* Units and widths: numbers from the largest magnitude (O(n) per column, no formatting),
 * text from a sample of rows. */
void vt_measure(struct vtable *t)
{
    const struct rowset *rs = t->rs;
    if (!rs)
        return;
    /* every duration column of the table in one unit, so no row mixes ms and µs: ms when
     * any duration reaches 10 ms */
    enum vt_unit dur_unit = U_US;
    for (size_t c = 0; c < rs->ncols && dur_unit == U_US; c++)
        if (rs->cols[c].type == RS_NS && !is_start_col(&rs->cols[c]))
            for (size_t r = 0; r < rs->nrows; r++)
                if (!rowset_is_null(rs, r, c) && (rowset_cell(rs, r, c)->i >= 10000000 || rowset_cell(rs, r, c)->i <= -10000000)) {
                    dur_unit = U_MS;
                    break;
                }
    for (size_t c = 0; c < rs->ncols; c++) {
        const struct rs_col *rc = &rs->cols[c];
        int64_t lo = 0, hi = 0;
        double dlo = 0, dhi = 0;
        bool any = false;
        if (rc->type == RS_STR || rc->type == RS_RAW || rc->type == RS_DEC) {
            t->unit[c] = rc->type == RS_DEC ? U_NUM : U_TEXT;   /* a file's digits: shown as written */
        } else {
            for (size_t r = 0; r < rs->nrows; r++) {
                if (rowset_is_null(rs, r, c))
                    continue;
                const union rs_val *v = rowset_cell(rs, r, c);
                if (rc->type == RS_INT || rc->type == RS_NS) {
                    if (!any || v->i < lo) lo = v->i;
                    if (!any || v->i > hi) hi = v->i;
                } else {
                    if (!any || v->d < dlo) dlo = v->d;
                    if (!any || v->d > dhi) dhi = v->d;
                }
                any = true;
            }
            if (rc->type == RS_NS) {
                if (is_start_col(rc))
                    t->unit[c] = t->origin != NS_NONE ? U_START : U_TEXT;   /* absolute: as written */
                else
                    t->unit[c] = dur_unit;
            } else {
                t->unit[c] = rc->type == RS_INT ? U_INT : rc->type == RS_PCT ? U_PCT : U_NUM;
            }
        }
        char title[300];
        vt_col_title(t, c, title, sizeof title);
        int w = draw_text_width(title, SIZE_MAX) + (t->sort_col == c ? 0 : 1);
        char buf[128];
        if (rc->type == RS_STR || rc->type == RS_RAW || rc->type == RS_DEC) {
            size_t n = rs->nrows < STR_SAMPLE ? rs->nrows : STR_SAMPLE;
            for (size_t i = 0; i < n; i++) {
                size_t r = t->order ? t->order[i] : i;
                if (rowset_is_null(rs, r, c))
                    continue;
                size_t len;
                const char *s = vt_cell_shown(t, r, c, &len);
                int tw = draw_text_width(s, len);
                if (tw > w)
                    w = tw;
                if (w >= STR_MAX)
                    break;
            }
            if (w > STR_MAX)
                w = STR_MAX;
        } else if (any) {
            /* format the extremes the way cells are shown */
            size_t rows[2] = { SIZE_MAX, SIZE_MAX };
            for (size_t r = 0; r < rs->nrows && (rows[0] == SIZE_MAX || rows[1] == SIZE_MAX); r++) {
                if (rowset_is_null(rs, r, c))
                    continue;
                const union rs_val *v = rowset_cell(rs, r, c);
                bool isint = rc->type == RS_INT || rc->type == RS_NS;
                if (isint ? v->i == lo : v->d == dlo) rows[0] = r;
                if (isint ? v->i == hi : v->d == dhi) rows[1] = r;
            }
            for (int k = 0; k < 2; k++) {
                if (rows[k] == SIZE_MAX)
                    continue;
                int tw = (int)strlen(vt_cell_text(t, rows[k], c, buf, sizeof buf));
                if (tw > w)
                    w = tw;
            }
        }
        t->width[c] = w;
    }
}

/* --- filtering and sorting ---------------------------------------------------------- */

static bool re_match_id(struct vtable *t, uint32_t id)
{
    if (t->re_cache) {
        if (t->re_cache[id])
            return t->re_cache[id] == 2;
    }
    const char *s = strtab_get(t->rs->str, id);
    bool m = demangle_regmatch(&t->re, s);
    if (t->re_cache)
        t->re_cache[id] = m ? 2 : 1;
    return m;
}

static bool row_passes(struct vtable *t, size_t r)
{
    const struct rowset *rs = t->rs;
    if (t->eq_col != SIZE_MAX) {
        if (rowset_is_null(rs, r, t->eq_col) || rowset_cell(rs, r, t->eq_col)->s != t->eq_id)
            return false;
    }
    if (!t->re_on)
        return true;
    for (size_t c = 0; c < rs->ncols; c++) {
        if (rs->cols[c].type != RS_STR || rowset_is_null(rs, r, c))
            continue;
        if (re_match_id(t, rowset_cell(rs, r, c)->s))
            return true;
    }
    return false;
}

/* Rebuilds vis from order, keeping the selected row when it still passes. */
void vt_refilter(struct vtable *t)
{
    size_t keep = vt_selected(t);
    t->nvis = 0;
    if (!t->rs)
        return;
    free(t->re_cache);
    t->re_cache = NULL;
    if (t->re_on) {
        uint32_t n = strtab_count(t->rs->str);
        t->re_cache = calloc((size_t)n + 1, 1);
    }
    for (size_t i = 0; i < t->rs->nrows; i++) {
        uint32_t r = t->order[i];
        if (row_passes(t, r))
            t->vis[t->nvis++] = r;
    }
    t->sel = 0;
    if (keep != SIZE_MAX)
        vt_select_row(t, keep);
    if (t->sel >= t->nvis)
        t->sel = t->nvis ? t->nvis - 1 : 0;
}

void vt_sort(struct vtable *t, size_t col, bool desc)
{
    if (!t->rs)
        return;
    size_t keep = vt_selected(t);
    if (col >= t->rs->ncols)
        col = SIZE_MAX;
    t->sort_col = col;
    t->desc = desc;
    if (col == SIZE_MAX) {
        for (size_t r = 0; r < t->rs->nrows; r++)
            t->order[r] = (uint32_t)r;
    } else {
        rowset_sort_order(t->rs, col, desc, t->order);
    }
    vt_refilter(t);
    if (keep != SIZE_MAX)
        vt_select_row(t, keep);
    /* widths stay: vt_measure() left room for the sort arrow in every header */
}

void vt_sort_key(struct vtable *t, const char *key, bool desc)
{
    if (!t->rs)
        return;
    size_t c = rowset_find_col(t->rs, key);
    if (vt_saved_sort(t, &c, &desc)) {   /* the sort the user chose last time wins */
        vt_sort(t, c, desc);
        return;
    }
    if (c != SIZE_MAX)
        vt_sort(t, c, desc);
}

void vt_filter_eq(struct vtable *t, const char *key, const char *text)
{
    t->eq_col = SIZE_MAX;
    if (t->rs && key && text) {
        size_t c = rowset_find_col(t->rs, key);
        if (c != SIZE_MAX) {
            t->eq_col = c;
            t->eq_id = strtab_find(t->rs->str, text, strlen(text));
        }
    }
    vt_refilter(t);
}

size_t vt_selected(const struct vtable *t)
{
    return t->rs && t->sel < t->nvis ? t->vis[t->sel] : SIZE_MAX;
}

void vt_select_row(struct vtable *t, size_t row)
{
    for (size_t i = 0; i < t->nvis; i++)
        if (t->vis[i] == row) {
            t->sel = i;
            return;
        }
}

const char *vt_cell_shown(const struct vtable *t, size_t r, size_t c, size_t *len)
{
    uint32_t id = rowset_cell(t->rs, r, c)->s;
    const char *s = strtab_get(t->rs->str, id);
    const char *shown = t->rs->cols[c].type == RS_STR ? demangle_shown(s) : s;
    *len = shown == s ? strtab_len(t->rs->str, id) : strlen(shown);
    return shown;
}

const char *vt_text(const struct vtable *t, size_t row, const char *key)
{
    if (!t->rs || row >= t->rs->nrows)
        return NULL;
    size_t c = rowset_find_col(t->rs, key);
    if (c == SIZE_MAX || rowset_is_null(t->rs, row, c) || t->rs->cols[c].type != RS_STR)
        return NULL;
    return strtab_get(t->rs->str, rowset_cell(t->rs, row, c)->s);
}

bool vt_int(const struct vtable *t, size_t row, const char *key, int64_t *out)
{
    if (!t->rs || row >= t->rs->nrows)
        return false;
    size_t c = rowset_find_col(t->rs, key);
    if (c == SIZE_MAX || rowset_is_null(t->rs, row, c))
        return false;
    if (t->rs->cols[c].type != RS_INT && t->rs->cols[c].type != RS_NS)
        return false;
    *out = rowset_cell(t->rs, row, c)->i;
    return true;
}

/* --- setting the rowset ------------------------------------------------------------- */

/* Identity of a row across rebuilt rowsets: its first two cells as text. */
static void row_identity(const struct vtable *t, size_t row, char *out, size_t size)
{
    out[0] = 0;
    if (!t->rs || row >= t->rs->nrows)
        return;
    char a[256], b[256];
    size_t n = t->rs->ncols;
    rowset_format(t->rs, row, 0, a, sizeof a);
    if (n > 1)
        rowset_format(t->rs, row, 1, b, sizeof b);
    else
        b[0] = 0;
    snprintf(out, size, "%s\x1f%s", a, b);
}

static void free_arrays(struct vtable *t)
{
    FREE_ALL(t->order, t->vis, t->hidden, t->width, t->unit, t->col_x, t->re_cache);
    t->order = t->vis = NULL;
    t->hidden = NULL;
    t->width = t->col_x = NULL;
    t->unit = NULL;
    t->re_cache = NULL;
    t->nvis = 0;
}

void vt_init(struct vtable *t)
{
    t->pin_fit = SIZE_MAX;
    t->sort_col = SIZE_MAX;
    t->eq_col = SIZE_MAX;
}

void vt_free(struct vtable *t)
{
    free_arrays(t);
    rowset_free(t->rs);
    t->rs = NULL;
    if (t->re_on)
        regfree(&t->re);
    t->re_on = false;
    if (t->srch_on)
        regfree(&t->srch);
    t->srch_on = false;
}

void vt_set(struct vtable *t, struct rowset *rs)
{
    char keep_id[600] = "";
    char sort_key[128] = "";
    char eq_key[128] = "", eq_text[512] = "";
    bool had_eq = false;
    char **hidden_keys = NULL;
    size_t nhidden = 0;
    if (t->rs) {
        row_identity(t, vt_selected(t), keep_id, sizeof keep_id);
        if (t->sort_col != SIZE_MAX)
            snprintf(sort_key, sizeof sort_key, "%s", t->rs->cols[t->sort_col].key);
        if (t->eq_col != SIZE_MAX) {
            had_eq = true;
            snprintf(eq_key, sizeof eq_key, "%s", t->rs->cols[t->eq_col].key);
            snprintf(eq_text, sizeof eq_text, "%s", strtab_get(t->rs->str, t->eq_id) ? strtab_get(t->rs->str, t->eq_id) : "");
        }
        hidden_keys = calloc(t->rs->ncols + 1, sizeof *hidden_keys);
        for (size_t c = 0; hidden_keys && c < t->rs->ncols; c++)
            if (t->hidden[c])
                hidden_keys[nhidden++] = strdup(t->rs->cols[c].key);
    }
    bool fresh = !t->rs;   /* the first rowset: the user's saved settings apply */
    bool was_sorted = t->rs && t->sort_col != SIZE_MAX;
    bool desc = t->desc;
    free_arrays(t);
    rowset_free(t->rs);
    t->rs = rs;
    t->sel = t->top = 0;
    t->sort_col = SIZE_MAX;
    t->eq_col = SIZE_MAX;
    if (t->hscroll > 64)
        t->hscroll = 0;
    if (!rs)
        goto out;
    size_t n = rs->nrows ? rs->nrows : 1, nc = rs->ncols ? rs->ncols : 1;
    t->order = malloc(n * sizeof *t->order);
    t->vis = malloc(n * sizeof *t->vis);
    t->hidden = calloc(nc, 1);
    t->width = calloc(nc, sizeof *t->width);
    t->unit = calloc(nc, 1);
    t->col_x = calloc(nc, sizeof *t->col_x);
    if (!t->order || !t->vis || !t->hidden || !t->width || !t->unit || !t->col_x) {
        free_arrays(t);
        rowset_free(rs);
        t->rs = NULL;
        vt_empty(t, "out of memory");
        goto out;
    }
    for (size_t r = 0; r < rs->nrows; r++)
        t->order[r] = (uint32_t)r;
    for (size_t i = 0; i < nhidden; i++) {
        size_t c = rowset_find_col(rs, hidden_keys[i]);
        if (c != SIZE_MAX)
            t->hidden[c] = 1;
    }
    if (fresh)
        vt_restore(t);
    /* freeze the leading columns up to the first text column (rank, name) */
    t->frozen = 0;
    for (size_t c = 0; c < rs->ncols && c < 3; c++) {
        if (rs->cols[c].type == RS_STR) {
            t->frozen = c + 1;
            break;
        }
    }
    if (had_eq) {
        size_t c = rowset_find_col(rs, eq_key);
        if (c != SIZE_MAX) {
            t->eq_col = c;
            t->eq_id = strtab_find(rs->str, eq_text, strlen(eq_text));
        }
    }
    if (was_sorted && sort_key[0] && rowset_find_col(rs, sort_key) != SIZE_MAX) {
        t->sort_col = rowset_find_col(rs, sort_key);
        t->desc = desc;
        rowset_sort_order(rs, t->sort_col, desc, t->order);
    }
    vt_refilter(t);
    if (keep_id[0]) {
        char id[600];
        for (size_t i = 0; i < t->nvis; i++) {
            row_identity(t, t->vis[i], id, sizeof id);
            if (!strcmp(id, keep_id)) {
                t->sel = i;
                break;
            }
        }
    }
    vt_measure(t);
out:
    draw_strings_free(hidden_keys, nhidden);
}

void vt_empty(struct vtable *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->empty, sizeof t->empty, fmt, ap);
    va_end(ap);
}

/* --- export -------------------------------------------------------------------------- */

const char *vt_thousands(uint64_t n, char *buf, size_t size)
{
    char tmp[32];
    int len = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)n);
    size_t o = 0;
    for (int i = 0; i < len && o + 2 < size; i++) {
        if (i && (len - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = tmp[i];
    }
    buf[o] = 0;
    return buf;
}

/* The visible rows and columns as a new rowset. */
struct rowset *vt_visible_copy(const struct vtable *t)
{
    const struct rowset *rs = t->rs;
    struct rowset *out = rowset_new(rs->name ? rs->name : "table");
    if (!out)
        return NULL;
    size_t *map = malloc(rs->ncols * sizeof *map);
    if (!map) {
        rowset_free(out);
        return NULL;
    }
    for (size_t c = 0; c < rs->ncols; c++)
        map[c] = t->hidden[c] ? SIZE_MAX
                              : rowset_col(out, rs->cols[c].key, rs->cols[c].title, rs->cols[c].type, rs->cols[c].prec);
    for (size_t i = 0; i < t->nvis; i++) {
        size_t r = t->vis[i], o = rowset_row(out);
        if (o == SIZE_MAX)
            break;
        out->link[o] = rs->link[r];
        for (size_t c = 0; c < rs->ncols; c++) {
            if (map[c] == SIZE_MAX || rowset_is_null(rs, r, c))
                continue;
            const union rs_val *v = rowset_cell(rs, r, c);
            switch (rs->cols[c].type) {
            case RS_STR:
            case RS_RAW:
            case RS_DEC:
                rowset_strn(out, o, map[c], strtab_get(rs->str, v->s), strtab_len(rs->str, v->s));
                break;
            case RS_INT:
            case RS_NS:
                rowset_int(out, o, map[c], v->i);
                break;
            default:
                rowset_num(out, o, map[c], v->d);
                break;
            }
        }
    }
    free(map);
    return out;
}
