/* The generic table widget (see view_table.h). */
#include "ui/view_table.h"
#include "ui/table_export.h"
#include "ui/view_settings.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/session.h"
#include "report.h"
#include "ui/draw.h"

enum vt_unit { U_TEXT, U_INT, U_US, U_MS, U_START, U_NUM, U_PCT };

#define GAP 2            /* blanks between columns */
#define GUTTER 2         /* the selection marker */
#define STR_SAMPLE 4000  /* rows measured for the width of text columns */
#define STR_MAX 48       /* widest text column */

/* The prompt and the column chooser act on one table at a time. */
static struct vtable *prompt_vt;

static const char *sel_glyph(void) { return draw_utf8 ? "\xe2\x96\xb8" : ">"; }

/* --- values -------------------------------------------------------------------------- */

static bool is_start_col(const struct rs_col *c)
{
    return c->type == RS_NS && (strstr(c->key, "start") || !strcmp(c->key, "ts_us"));
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
static const char *cell_text(const struct vtable *t, size_t row, size_t col, char *buf, size_t size)
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
static void col_title(const struct vtable *t, size_t col, char *out, size_t size)
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

static bool col_numeric(const struct rowset *rs, size_t col)
{
    return rs->cols[col].type != RS_STR && rs->cols[col].type != RS_RAW;
}

/* Units and widths: numbers from the largest magnitude (O(n) per column, no formatting),
 * text from a sample of rows. */
static void measure(struct vtable *t)
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
        col_title(t, c, title, sizeof title);
        int w = draw_text_width(title, SIZE_MAX) + (t->sort_col == c ? 0 : 1);
        char buf[128];
        if (rc->type == RS_STR || rc->type == RS_RAW || rc->type == RS_DEC) {
            size_t n = rs->nrows < STR_SAMPLE ? rs->nrows : STR_SAMPLE;
            for (size_t i = 0; i < n; i++) {
                size_t r = t->order ? t->order[i] : i;
                if (rowset_is_null(rs, r, c))
                    continue;
                const union rs_val *v = rowset_cell(rs, r, c);
                int tw = draw_text_width(strtab_get(rs->str, v->s), strtab_len(rs->str, v->s));
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
                int tw = (int)strlen(cell_text(t, rows[k], c, buf, sizeof buf));
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
    bool m = s && regexec(&t->re, s, 0, NULL, 0) == 0;
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
static void refilter(struct vtable *t)
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
    refilter(t);
    if (keep != SIZE_MAX)
        vt_select_row(t, keep);
    /* widths stay: measure() left room for the sort arrow in every header */
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
    refilter(t);
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
    free(t->order);
    free(t->vis);
    free(t->hidden);
    free(t->width);
    free(t->unit);
    free(t->col_x);
    free(t->re_cache);
    t->order = t->vis = NULL;
    t->hidden = NULL;
    t->width = t->col_x = NULL;
    t->unit = NULL;
    t->re_cache = NULL;
    t->nvis = 0;
}

void vt_init(struct vtable *t)
{
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
    if (prompt_vt == t)
        prompt_vt = NULL;
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
    refilter(t);
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
    measure(t);
out:
    for (size_t i = 0; i < nhidden; i++)
        free(hidden_keys[i]);
    free(hidden_keys);
}

void vt_empty(struct vtable *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->empty, sizeof t->empty, fmt, ap);
    va_end(ap);
}

/* --- drawing ------------------------------------------------------------------------- */

/* Visible columns in display order into out (frozen ones, then from hscroll); returns n. */
static size_t shown_cols(const struct vtable *t, size_t *out)
{
    size_t n = 0, scroll_i = 0;
    for (size_t c = 0; c < t->rs->ncols; c++) {
        if (t->hidden[c])
            continue;
        if (c < t->frozen) {
            out[n++] = c;
        } else {
            if (scroll_i++ >= t->hscroll)
                out[n++] = c;
        }
    }
    return n;
}

/* The sort column stays on screen: when it is scrolled off to the left, or lies past the
 * right edge, it is shown right after the frozen key columns and the columns between give
 * way (they are the ones the user did not sort by). Returns the new count. */
static size_t keep_sort_col(const struct vtable *t, size_t *cols, size_t n, int cw)
{
    size_t sc = t->sort_col;
    if (!t->rs || sc >= t->rs->ncols || sc < t->frozen || t->hidden[sc])
        return n;
    size_t at = SIZE_MAX, first = n;
    int x = GUTTER + 1;
    bool fits = false;
    for (size_t i = 0; i < n; i++) {
        if (cols[i] >= t->frozen && first == n)
            first = i;
        if (cols[i] == sc) {
            at = i;
            fits = x + t->width[sc] <= cw;
        }
        x += t->width[cols[i]] + GAP;
    }
    if (fits)
        return n;
    if (at == SIZE_MAX) {   /* scrolled past: add it */
        at = n++;
        cols[at] = sc;
    }
    memmove(cols + first + 1, cols + first, (at - first) * sizeof *cols);
    cols[first] = sc;
    return n;
}

static size_t scrollable_count(const struct vtable *t)
{
    size_t n = 0;
    for (size_t c = t->frozen; c < t->rs->ncols; c++)
        if (!t->hidden[c])
            n++;
    return n;
}

static void draw_chooser(struct vtable *t, WINDOW *w, int y, int h, int cw)
{
    const struct rowset *rs = t->rs;
    int width = 30;
    for (size_t c = 0; c < rs->ncols; c++) {
        int tw = draw_text_width(rs->cols[c].title, SIZE_MAX) + 8;
        if (tw > width) width = tw;
    }
    if (width > cw - 2) width = cw - 2;
    int rows = (int)rs->ncols;
    if (rows > h - 3) rows = h - 3;
    if (rows < 1) rows = 1;
    static size_t top;
    if (t->chooser_sel < top) top = t->chooser_sel;
    if (t->chooser_sel >= top + (size_t)rows) top = t->chooser_sel - (size_t)rows + 1;
    if (top >= rs->ncols) top = 0;
    int x0 = cw - width - 1, y0 = y + 1;
    if (x0 < 0) x0 = 0;
    attr_t a = draw_attr(CP_TAB);
    draw_fill(w, y0, x0, width, " ", a);
    draw_text(w, y0, x0 + 1, width - 2, "Columns: Enter/Space shows or hides", SIZE_MAX, a | A_BOLD);
    for (int r = 0; r < rows; r++) {
        size_t c = top + (size_t)r;
        if (c >= rs->ncols)
            break;
        attr_t ra = c == t->chooser_sel ? draw_attr(CP_SELECT) : a;
        draw_fill(w, y0 + 1 + r, x0, width, " ", ra);
        draw_text(w, y0 + 1 + r, x0 + 1, 2, c == t->chooser_sel ? sel_glyph() : " ", SIZE_MAX, ra);
        draw_text(w, y0 + 1 + r, x0 + 3, 4, t->hidden[c] ? "[ ]" : "[x]", 3, ra);
        draw_text(w, y0 + 1 + r, x0 + 7, width - 8, rs->cols[c].title, SIZE_MAX, ra);
    }
    draw_fill(w, y0 + 1 + rows, x0, width, " ", a);
    draw_text(w, y0 + 1 + rows, x0 + 1, width - 2, "Esc: close", SIZE_MAX, a);
}

void vt_draw(struct vtable *t, WINDOW *w, int y, int h)
{
    int cw = getmaxx(w);
    t->win = w;
    t->y_head = t->y_rows = -1;
    t->page = 1;
    if (h <= 0)
        return;
    /* caption with sort and filter */
    char right[400] = "";
    size_t o = 0;
    if (t->rs && t->sort_col != SIZE_MAX) {
        char title[300];
        col_title(t, t->sort_col, title, sizeof title);
        /* col_title already ends with the arrow */
        o += (size_t)snprintf(right + o, sizeof right - o, "sort: %s", title);
    }
    if (t->rs && t->re_on && o < sizeof right)
        o += (size_t)snprintf(right + o, sizeof right - o, "%sfilter: /%s/", o ? "   " : "", t->pattern);
    if (t->rs && (t->re_on || t->eq_col != SIZE_MAX) && o < sizeof right) {
        char a[32], b[32];
        o += (size_t)snprintf(right + o, sizeof right - o, "%s%s of %s rows", o ? "   " : "",
                              vt_thousands(t->nvis, a, sizeof a), vt_thousands(t->rs->nrows, b, sizeof b));
    }
    int rw = draw_text_width(right, SIZE_MAX);
    int x = draw_text(w, y, 1, cw - 2 - (rw ? rw + 3 : 0), t->caption, SIZE_MAX, A_BOLD);
    if (rw) {
        int rx = cw - rw - 1;
        if (rx < x + 3) rx = x + 3;
        draw_text(w, y, rx, cw - rx, right, SIZE_MAX, draw_attr(CP_LABEL));
    }
    if (!t->rs || !t->rs->ncols) {
        if (h > 2)
            draw_text(w, y + 2, 3, cw - 4, t->empty[0] ? t->empty : "nothing to show", SIZE_MAX, draw_attr(CP_DIM));
        return;
    }
    if (h < 3)
        return;
    const struct rowset *rs = t->rs;
    size_t *cols = malloc(rs->ncols * sizeof *cols);
    if (!cols)
        return;
    size_t nshown = keep_sort_col(t, cols, shown_cols(t, cols), cw);
    for (size_t c = 0; c < rs->ncols; c++)
        t->col_x[c] = -1;
    /* header */
    int hy = y + 1;
    t->y_head = hy;
    x = GUTTER + 1;
    size_t last = 0;
    for (size_t i = 0; i < nshown && x < cw; i++) {
        size_t c = cols[i];
        char title[300];
        col_title(t, c, title, sizeof title);
        int cwid = t->width[c];
        int tw = draw_text_width(title, SIZE_MAX);
        attr_t ha = A_BOLD | A_UNDERLINE | (c == t->sort_col ? A_REVERSE : 0);
        int room = cw - x;
        int dw = cwid < room ? cwid : room;
        int tx = col_numeric(rs, c) && tw < dw ? x + dw - tw : x;
        draw_fill(w, hy, x, dw, " ", A_UNDERLINE);
        draw_text(w, hy, tx, dw - (tx - x), title, SIZE_MAX, ha);
        t->col_x[c] = x;
        x += cwid + GAP;
        last = i + 1;
    }
    int hidden_right = (int)(nshown - last);
    /* more columns off screen: a dim arrow at that edge of the header */
    if (t->hscroll)
        draw_text(w, hy, 0, 1, draw_utf8 ? "\xe2\x86\x90" : "<", SIZE_MAX, draw_attr(CP_DIM) | A_BOLD);
    if (hidden_right > 0 || (last && x - GAP > cw))
        draw_text(w, hy, cw - 1, 1, draw_utf8 ? "\xe2\x86\x92" : ">", SIZE_MAX, draw_attr(CP_DIM) | A_BOLD);
    /* rows */
    int ry = hy + 1, rh = h - 2;
    t->y_rows = ry;
    t->page = rh > 1 ? rh : 1;
    if (!t->nvis) {
        draw_text(w, ry, 3, cw - 4, t->re_on ? "no row matches the filter (Esc clears it)" : "no rows", SIZE_MAX, draw_attr(CP_DIM));
    }
    if (t->sel >= t->nvis)
        t->sel = t->nvis ? t->nvis - 1 : 0;
    if (t->sel < t->top)
        t->top = t->sel;
    if (t->sel >= t->top + (size_t)rh)
        t->top = t->sel - (size_t)rh + 1;
    if (t->top + (size_t)rh > t->nvis)
        t->top = t->nvis > (size_t)rh ? t->nvis - (size_t)rh : 0;
    char buf[1024];
    for (int k = 0; k < rh && t->top + (size_t)k < t->nvis; k++) {
        size_t vi = t->top + (size_t)k;
        size_t r = t->vis[vi];
        bool sel = vi == t->sel && !t->passive;
        attr_t a = sel ? draw_attr(CP_SELECT) : A_NORMAL;
        int yy = ry + k;
        if (sel) {
            draw_fill(w, yy, 0, cw, " ", a);
            draw_text(w, yy, 1, 1, sel_glyph(), SIZE_MAX, a | A_BOLD);
        }
        x = GUTTER + 1;
        for (size_t i = 0; i < last; i++) {
            size_t c = cols[i];
            int cwid = t->width[c];
            int room = cw - x;
            if (room <= 0)
                break;
            int dw = cwid < room ? cwid : room;
            if (!rowset_is_null(rs, r, c)) {
                if (col_numeric(rs, c)) {
                    cell_text(t, r, c, buf, sizeof buf);
                    int tw = (int)strlen(buf);
                    int tx = tw < dw ? x + dw - tw : x;
                    draw_text(w, yy, tx, dw - (tx - x), buf, SIZE_MAX, a);
                } else {
                    const union rs_val *v = rowset_cell(rs, r, c);
                    draw_text(w, yy, x, dw, strtab_get(rs->str, v->s), strtab_len(rs->str, v->s), a);
                }
            }
            x += cwid + GAP;
        }
        const char *mk = t->mark ? t->mark(rs, r, t->mark_ctx) : NULL;
        if (mk) {
            /* after the last column, or over the right end of a line too wide for it */
            int mw = draw_text_width(mk, SIZE_MAX) + 2;
            int mx = x < cw - mw ? x : cw - mw;
            if (mx < GUTTER + 1)
                mx = GUTTER + 1;
            draw_fill(w, yy, mx, cw - mx, " ", a);
            draw_text(w, yy, mx + 1, cw - mx - 1, mk, SIZE_MAX, a | A_BOLD);
        }
    }
    free(cols);
    if (t->chooser)
        draw_chooser(t, w, y, h, cw);
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

/* --- filter prompt ------------------------------------------------------------------- */

static void filter_clear(struct vtable *t)
{
    if (t->re_on)
        regfree(&t->re);
    t->re_on = false;
    t->pattern[0] = 0;
    refilter(t);
}

/* Compiles text; an invalid pattern keeps the previous filter and says why. */
static bool filter_set(struct ui *ui, struct vtable *t, const char *text)
{
    if (!text || !*text) {
        filter_clear(t);
        return true;
    }
    regex_t re;
    int rc = regcomp(&re, text, REG_EXTENDED | REG_ICASE | REG_NOSUB);
    if (rc) {
        char err[128];
        regerror(rc, &re, err, sizeof err);
        ui_error(ui, "filter: %s", err);
        return false;
    }
    if (t->re_on)
        regfree(&t->re);
    t->re = re;
    t->re_on = true;
    snprintf(t->pattern, sizeof t->pattern, "%s", text);
    refilter(t);
    return true;
}

static void filter_change(struct view *v, const char *text, bool accepted)
{
    (void)accepted;
    if (!prompt_vt)
        return;
    /* live filtering while typing, except on huge tables (then at Enter) */
    if (prompt_vt->rs && prompt_vt->rs->nrows <= 200000)
        filter_set(v->ui, prompt_vt, text);
    v->dirty = true;
}

static void filter_done(struct view *v, const char *text, bool accepted)
{
    struct vtable *t = prompt_vt;
    prompt_vt = NULL;
    if (!t)
        return;
    if (!accepted)
        filter_clear(t);
    else if (filter_set(v->ui, t, text) && t->re_on)
        ui_message(v->ui, "%zu of %zu rows match /%s/", t->nvis, t->rs ? t->rs->nrows : 0, t->pattern);
    v->dirty = true;
}

/* --- search: the cursor goes to matching rows; the rows stay (& filters them) --------- */

static bool row_has(const struct vtable *t, size_t r)
{
    const struct rowset *rs = t->rs;
    for (size_t c = 0; c < rs->ncols; c++) {
        if (rs->cols[c].type != RS_STR || rowset_is_null(rs, r, c))
            continue;
        const char *s = strtab_get(rs->str, rowset_cell(rs, r, c)->s);
        if (s && regexec(&t->srch, s, 0, NULL, 0) == 0)
            return true;
    }
    return false;
}

/* Moves to the next (dir 1) or previous matching visible row, from the selection (itself
 * included when `here`), wrapping; says "match i/n". */
static void search_step(struct ui *ui, struct vtable *t, int dir, bool here)
{
    if (!t->rs || !t->nvis) {
        ui_message(ui, "no rows to search");
        return;
    }
    size_t n = 0, at = SIZE_MAX, pos = 0;
    for (size_t k = 0; k < t->nvis; k++) {
        size_t i = dir > 0 ? (t->sel + (here ? 0 : 1) + k) % t->nvis
                           : (t->sel + t->nvis * 2 - (here ? 0 : 1) - k) % t->nvis;
        if (row_has(t, t->vis[i])) {
            at = i;
            break;
        }
    }
    if (at == SIZE_MAX) {
        ui_error(ui, "/%s/: no row matches", t->srch_pat);
        return;
    }
    for (size_t i = 0; i < t->nvis; i++)
        if (row_has(t, t->vis[i])) {
            n++;
            if (i == at)
                pos = n;
        }
    t->sel = at;
    ui_message(ui, "/%s/ match %zu/%zu", t->srch_pat, pos, n);
}

static bool search_set(struct ui *ui, struct vtable *t, const char *text)
{
    if (t->srch_on)
        regfree(&t->srch);
    t->srch_on = false;
    if (!text || !*text)
        return false;
    int rc = regcomp(&t->srch, text, REG_EXTENDED | REG_ICASE | REG_NOSUB);
    if (rc) {
        char e[128];
        regerror(rc, &t->srch, e, sizeof e);
        ui_error(ui, "bad regular expression: %s", e);
        return false;
    }
    t->srch_on = true;
    snprintf(t->srch_pat, sizeof t->srch_pat, "%s", text);
    return true;
}

static void search_change(struct view *v, const char *text, bool accepted)
{
    (void)v; (void)text; (void)accepted;
}

static void search_done(struct view *v, const char *text, bool accepted)
{
    struct vtable *t = prompt_vt;
    prompt_vt = NULL;
    if (t && accepted && search_set(v->ui, t, text))
        search_step(v->ui, t, 1, true);
    v->dirty = true;
}

/* After a sort: the cursor on the first row, and the order said as the header marks it. */
static void sorted_to_top(struct ui *ui, struct vtable *t)
{
    t->sel = t->top = 0;
    char title[300];
    col_title(t, t->sort_col, title, sizeof title);
    ui_message(ui, "sorted by %s (%s)", title, t->desc ? "largest first" : "smallest first");
}

/* --- input --------------------------------------------------------------------------- */

static void move_sel(struct vtable *t, long d)
{
    if (!t->nvis)
        return;
    long s = (long)t->sel + d;
    if (s < 0) s = 0;
    if (s >= (long)t->nvis) s = (long)t->nvis - 1;
    t->sel = (size_t)s;
}

/* Next / previous visible column after cur (wrapping). */
static size_t step_col(const struct vtable *t, size_t cur, int dir)
{
    size_t n = t->rs->ncols;
    size_t c = cur == SIZE_MAX ? (dir > 0 ? n - 1 : 0) : cur;
    for (size_t k = 0; k < n; k++) {
        c = (c + n + (size_t)(dir > 0 ? 1 : n - 1)) % n;
        if (!t->hidden[c])
            return c;
    }
    return cur;
}

/* Numbers sort largest first, text A to Z. */
static bool default_desc(const struct rowset *rs, size_t c)
{
    return col_numeric(rs, c);
}

/* Shows column c: scrolls so it is on screen. */
static void scroll_to_col(struct vtable *t, size_t c)
{
    if (c < t->frozen || t->hidden[c])
        return;
    size_t idx = 0;
    for (size_t k = t->frozen; k < c; k++)
        if (!t->hidden[k])
            idx++;
    if (idx < t->hscroll || (t->col_x && t->col_x[c] < 0))
        t->hscroll = idx;
}

static enum request chooser_request(struct vtable *t, enum request req, int key)
{
    size_t n = t->rs->ncols;
    if (req == REQ_MOVE_UP && t->chooser_sel > 0) t->chooser_sel--;
    else if (req == REQ_MOVE_DOWN && t->chooser_sel + 1 < n) t->chooser_sel++;
    else if (req == REQ_HOME) t->chooser_sel = 0;
    else if (req == REQ_END) t->chooser_sel = n - 1;
    else if (req == REQ_PAGE_DOWN) t->chooser_sel = t->chooser_sel + 10 < n ? t->chooser_sel + 10 : n - 1;
    else if (req == REQ_PAGE_UP) t->chooser_sel = t->chooser_sel > 10 ? t->chooser_sel - 10 : 0;
    else if (req == REQ_ENTER || key == ' ') {
        size_t c = t->chooser_sel;
        if (c < n) {
            size_t shown = 0;
            for (size_t k = 0; k < n; k++)
                shown += !t->hidden[k];
            if (!t->hidden[c] && shown <= 1)
                return REQ_NONE;      /* keep one column */
            t->hidden[c] = !t->hidden[c];
            if (t->hidden[c] && t->sort_col == c)
                vt_sort(t, SIZE_MAX, false);
            size_t sc = scrollable_count(t);
            if (t->hscroll >= sc)
                t->hscroll = sc ? sc - 1 : 0;
        }
    } else if (req == REQ_CLOSE || req == REQ_COLUMNS) {
        t->chooser = false;
    } else if (req == REQ_QUIT) {
        return req;
    }
    return REQ_NONE;
}

static enum request mouse_request(struct vtable *t, struct ui *ui)
{
    MEVENT me = ui->mouse;
    int y = me.y, x = me.x;
    if (!t->win || !t->rs || !wmouse_trafo(t->win, &y, &x, FALSE))
        return REQ_NONE;
    if (me.bstate & BUTTON4_PRESSED) {
        move_sel(t, -3);
        return REQ_NONE;
    }
    if (me.bstate & BUTTON5_PRESSED) {
        move_sel(t, 3);
        return REQ_NONE;
    }
    /* a click acts once: on the press, or on the release when the press was not seen
     * (terminals and curses may deliver only one of the two) */
    static bool pressed;
    if (me.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) {
        pressed = !(me.bstate & BUTTON1_CLICKED);
    } else if (me.bstate & BUTTON1_RELEASED) {
        bool skip = pressed;
        pressed = false;
        if (skip)
            return REQ_NONE;
    } else {
        return REQ_NONE;
    }
    if (y == t->y_head) {
        size_t best = SIZE_MAX;
        for (size_t c = 0; c < t->rs->ncols; c++)
            if (t->col_x[c] >= 0 && x >= t->col_x[c] - 1 && x < t->col_x[c] + t->width[c] + 1)
                best = c;
        if (best != SIZE_MAX)
            vt_sort(t, best, best == t->sort_col ? !t->desc : default_desc(t->rs, best));
    } else if (t->y_rows >= 0 && y >= t->y_rows && y < t->y_rows + t->page) {
        size_t vi = t->top + (size_t)(y - t->y_rows);
        if (vi < t->nvis)
            t->sel = vi;
    }
    return REQ_NONE;
}

static enum request table_request(struct view *v, struct vtable *t, enum request req, int key)
{
    struct ui *ui = v->ui;
    if (t->chooser && t->rs)
        return chooser_request(t, req, key);
    if (req == REQ_MOUSE || key == KEY_MOUSE)
        return mouse_request(t, ui);
    size_t page = t->page > 1 ? (size_t)t->page - 1 : 1;
    switch (req) {
    case REQ_MOVE_UP: move_sel(t, -1); return REQ_NONE;
    case REQ_MOVE_DOWN: move_sel(t, 1); return REQ_NONE;
    case REQ_PAGE_UP: move_sel(t, -(long)page); return REQ_NONE;
    case REQ_PAGE_DOWN: move_sel(t, (long)page); return REQ_NONE;
    case REQ_HOME: t->sel = 0; return REQ_NONE;
    case REQ_END: t->sel = t->nvis ? t->nvis - 1 : 0; return REQ_NONE;
    case REQ_MOVE_LEFT:
        if (t->hscroll) t->hscroll--;
        return REQ_NONE;
    case REQ_MOVE_RIGHT:
        if (t->rs && t->hscroll + 1 < scrollable_count(t)) t->hscroll++;
        return REQ_NONE;
    case REQ_SORT_NEXT:
    case REQ_SORT_PREV:
        if (t->rs && t->rs->ncols) {
            size_t c = step_col(t, t->sort_col, req == REQ_SORT_NEXT ? 1 : -1);
            vt_sort(t, c, default_desc(t->rs, c));
            scroll_to_col(t, c);
            sorted_to_top(ui, t);
        }
        return REQ_NONE;
    case REQ_SORT_REVERSE:
        if (t->rs && t->sort_col != SIZE_MAX)
            vt_sort(t, t->sort_col, !t->desc);
        else if (t->rs && t->rs->ncols)
            vt_sort(t, 0, true);
        if (t->rs && t->sort_col != SIZE_MAX)
            sorted_to_top(ui, t);
        return REQ_NONE;
    case REQ_TABLE_SEARCH:
        prompt_vt = t;
        ui_prompt(ui, v, "search (regex) /", t->srch_on ? t->srch_pat : NULL, search_change, search_done);
        return REQ_NONE;
    case REQ_TABLE_SEARCH_NEXT:
    case REQ_TABLE_SEARCH_PREV:
        if (!t->srch_on)
            ui_message(ui, "no search yet: / searches the rows' text");
        else
            search_step(ui, t, req == REQ_TABLE_SEARCH_NEXT ? 1 : -1, false);
        return REQ_NONE;
    case REQ_FILTER:
        prompt_vt = t;
        ui_prompt(ui, v, "filter (regex) /", t->re_on ? t->pattern : NULL, filter_change, filter_done);
        return REQ_NONE;
    case REQ_EXPORT:
        vt_export_start(ui, v, t);
        return REQ_NONE;
    case REQ_COLUMNS:
        if (t->rs && t->rs->ncols) {
            t->chooser = true;
            t->chooser_sel = 0;
        }
        return REQ_NONE;
    case REQ_EXACT:
        t->exact = !t->exact;
        measure(t);
        ui_message(ui, t->exact ? "exact times: µs as written, absolute starts" : "times in the unit that fits, starts from the capture start");
        return REQ_NONE;
    case REQ_CLOSE:
        if (t->re_on) {
            filter_clear(t);
            ui_message(ui, "filter cleared");
            return REQ_NONE;
        }
        return req;
    default:
        return req;
    }
}

enum request vt_request(struct view *v, struct vtable *t, enum request req, int key)
{
    enum request r = table_request(v, t, req, key);
    if (t->rs)
        vt_remember(t);   /* sort, columns and units the user chose: kept for the next run */
    return r;
}

ns_t vt_origin(struct ui *ui)
{
    ns_t o = NS_NONE;
    if (!ui->s)
        return o;
    for (size_t i = 0; i < ui->s->nranks; i++) {
        const struct model *m = ui->s->ranks[i].model;
        if (m && m->finalized && m->nslices && (o == NS_NONE || m->t_min < o))
            o = m->t_min;
    }
    return o;
}

bool vt_goto_slice(struct ui *ui, uint64_t link, const char *what)
{
    struct rank_data *rd = ui_rank(ui);
    if (!rd || !rd->model || !rd->model->finalized) {
        ui_error(ui, "%s is not in the timeline: rank %d has no timeline%s", what, rd ? rd->rank : 0,
                 rd && rd->digest ? " (read from a summary, without its trace)" : "");
        return false;
    }
    if (link == UINT64_MAX || link >= rd->model->nslices) {
        ui_error(ui, "%s is not in the timeline (no trace slice matched it)", what);
        return false;
    }
    ui_goto_slice(ui, ui->rank, (uint32_t)link);
    return true;
}

uint32_t vt_find_slice(const struct model *m, const char *name, enum lane_kind kind, ns_t near)
{
    if (!m || !m->finalized || !name)
        return SLICE_NONE;
    uint32_t id = strtab_find(m->str, name, strlen(name));
    if (id == UINT32_MAX)
        return SLICE_NONE;
    uint32_t best = SLICE_NONE;
    for (uint32_t l = 0; l < m->nlanes; l++) {
        const struct lane *ln = &m->lanes[l];
        if (kind != LANE_OTHER && ln->kind != kind)
            continue;
        for (uint32_t s = ln->first; s < ln->first + ln->count; s++) {
            if (m->name[s] != id)
                continue;
            if (best == SLICE_NONE) {
                best = s;
            } else if (near == NS_NONE) {
                if (m->dur[s] > m->dur[best])
                    best = s;
            } else {
                ns_t a = m->start[s] - near, b = m->start[best] - near;
                if ((a < 0 ? -a : a) < (b < 0 ? -b : b))
                    best = s;
            }
        }
    }
    return best;
}
