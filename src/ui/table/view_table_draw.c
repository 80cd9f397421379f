/* Drawing the table widget: caption, header with units, visible rows and columns, the
 * column chooser. */
#include "ui/table/view_table.h"
#include "ui/table/view_table_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/index/session.h"

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

size_t vt_scrollable_count(const struct vtable *t)
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

/* The caption line: the table's caption, and its sort, filter and row count at the right. */
static void draw_caption(const struct vtable *t, WINDOW *w, int y, int cw)
{
    char right[400] = "";
    size_t o = 0;
    if (t->rs && t->sort_col != SIZE_MAX) {
        char title[300];
        vt_col_title(t, t->sort_col, title, sizeof title);
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
    if (t->rs && t->rs->lost_rows && o < sizeof right)
        o += (size_t)snprintf(right + o, sizeof right - o, "%s%zu rows missing: out of memory", o ? "   " : "",
                              t->rs->lost_rows);
    int rw = draw_text_width(right, SIZE_MAX);
    int x = draw_text(w, y, 1, cw - 2 - (rw ? rw + 3 : 0), t->caption, SIZE_MAX, A_BOLD);
    if (rw) {
        int rx = cw - rw - 1;
        if (rx < x + 3) rx = x + 3;
        draw_text(w, y, rx, cw - rx, right, SIZE_MAX, draw_attr(CP_LABEL));
    }
}

/* Visible row vi on screen line yy: its first `last` shown columns, then its mark. */
static void draw_row(const struct vtable *t, WINDOW *w, int yy, int cw, size_t vi, const size_t *cols,
                     size_t last)
{
    const struct rowset *rs = t->rs;
    char buf[1024];
    size_t r = t->vis[vi];
    bool sel = vi == t->sel && !t->passive;
    attr_t a = sel ? draw_attr(CP_SELECT) : A_NORMAL;
    if (sel) {
        draw_fill(w, yy, 0, cw, " ", a);
        draw_text(w, yy, 1, 1, sel_glyph(), SIZE_MAX, a | A_BOLD);
    }
    int x = GUTTER + 1;
    for (size_t i = 0; i < last; i++) {
        size_t c = cols[i];
        int cwid = t->width[c];
        int room = cw - x;
        if (room <= 0)
            break;
        int dw = cwid < room ? cwid : room;
        if (!rowset_is_null(rs, r, c)) {
            if (vt_col_numeric(rs, c)) {
                vt_cell_text(t, r, c, buf, sizeof buf);
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

void vt_draw(struct vtable *t, WINDOW *w, int y, int h)
{
    int cw = getmaxx(w);
    t->win = w;
    t->y_head = t->y_rows = -1;
    t->page = 1;
    if (h <= 0)
        return;
    draw_caption(t, w, y, cw);
    int x;
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
        vt_col_title(t, c, title, sizeof title);
        int cwid = t->width[c];
        int tw = draw_text_width(title, SIZE_MAX);
        attr_t ha = A_BOLD | A_UNDERLINE | (c == t->sort_col ? A_REVERSE : 0);
        int room = cw - x;
        int dw = cwid < room ? cwid : room;
        int tx = vt_col_numeric(rs, c) && tw < dw ? x + dw - tw : x;
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
    for (int k = 0; k < rh && t->top + (size_t)k < t->nvis; k++) {
        draw_row(t, w, ry + k, cw, t->top + (size_t)k, cols, last);
    }
    free(cols);
    if (t->chooser)
        draw_chooser(t, w, y, h, cw);
}
