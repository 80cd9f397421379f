/* Drawing the table widget: caption, header with units, visible rows and columns, the
 * column chooser. */
#include "ui/table/view_table.h"
#include "ui/table/view_table_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/index/session.h"
#include "util/shorten.h"

/* --- drawing ------------------------------------------------------------------------- */

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
        char title[300];
        vt_col_title(t, c, title, sizeof title);   /* with the unit the header shows */
        draw_text(w, y0 + 1 + r, x0 + 7, width - 8, title, SIZE_MAX, ra);
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

/* The text cells of column c on the page (count rows from visible row first) shortened
 * together to width w, cell bytes each, so no two different names look the same; NULL when
 * they all fit. */
static char *shorten_page(const struct vtable *t, size_t c, int w, size_t first, size_t count, size_t cell)
{
    const struct rowset *rs = t->rs;
    bool any = false;
    for (size_t k = 0; k < count && !any; k++) {
        size_t r = t->vis[first + k];
        if (!rowset_is_null(rs, r, c)) {
            size_t len;
            const char *s = vt_cell_shown(t, r, c, &len);
            any = draw_text_width(s, len) > w;
        }
    }
    if (!any)
        return NULL;
    const char **names = malloc(count * sizeof *names);
    size_t *lens = malloc(count * sizeof *lens);
    char *out = malloc(count * cell);
    if (!names || !lens || !out) {
        free(names);
        free(lens);
        free(out);
        return NULL;
    }
    for (size_t k = 0; k < count; k++) {
        size_t r = t->vis[first + k];
        names[k] = "";
        lens[k] = 0;
        if (!rowset_is_null(rs, r, c))
            names[k] = vt_cell_shown(t, r, c, &lens[k]);
    }
    shorten_unique(names, lens, count, w, draw_utf8 ? "\xe2\x80\xa6" : "~", out, cell);
    free(names);
    free(lens);
    return out;
}

/* Visible row vi (page line k) on screen line yy: its cells, then its note. */
static void draw_row(const struct vtable *t, WINDOW *w, int yy, int cw, size_t vi, size_t k,
                     const struct vt_layout *L, char *const *shortened, size_t cell)
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
    for (size_t i = 0; i < L->n; i++) {
        size_t c = L->cols[i];
        int x = L->x[i], dw = L->w[i];
        if (rowset_is_null(rs, r, c))
            continue;
        if (vt_col_numeric(rs, c)) {
            vt_cell_text(t, r, c, buf, sizeof buf);
            int tw = (int)strlen(buf);
            int tx = tw < dw ? x + dw - tw : x;
            draw_text(w, yy, tx, dw - (tx - x), buf, SIZE_MAX, a);
        } else if (shortened[i]) {
            draw_text(w, yy, x, dw, shortened[i] + k * cell, SIZE_MAX, a);
        } else {
            size_t len;
            const char *s = vt_cell_shown(t, r, c, &len);
            draw_text(w, yy, x, dw, s, len, a);
        }
    }
    const char *mk = t->mark ? t->mark(rs, r, t->mark_ctx) : NULL;
    if (mk && L->mark_w)
        draw_text(w, yy, L->mark_x, L->mark_w, mk, SIZE_MAX, a | A_BOLD);
}

/* The widest note of the rows on the page (0: none). */
static int mark_width(const struct vtable *t, size_t first, size_t count)
{
    int mw = 0;
    for (size_t k = 0; t->mark && k < count; k++) {
        const char *mk = t->mark(t->rs, t->vis[first + k], t->mark_ctx);
        int tw = mk ? draw_text_width(mk, SIZE_MAX) : 0;
        if (tw > mw)
            mw = tw;
    }
    return mw;
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
    if (!t->rs || !t->rs->ncols) {
        if (h > 2)
            draw_text(w, y + 2, 3, cw - 4, t->empty[0] ? t->empty : "nothing to show", SIZE_MAX, draw_attr(CP_DIM));
        return;
    }
    if (h < 3)
        return;
    const struct rowset *rs = t->rs;
    /* the page first: the notes on it and the names shortened together depend on it */
    int hy = y + 1, ry = hy + 1, rh = h - 2;
    if (t->sel >= t->nvis)
        t->sel = t->nvis ? t->nvis - 1 : 0;
    if (t->sel < t->top)
        t->top = t->sel;
    if (t->sel >= t->top + (size_t)rh)
        t->top = t->sel - (size_t)rh + 1;
    if (t->top + (size_t)rh > t->nvis)
        t->top = t->nvis > (size_t)rh ? t->nvis - (size_t)rh : 0;
    size_t count = t->nvis - t->top < (size_t)rh ? t->nvis - t->top : (size_t)rh;
    struct vt_layout L;
    if (!vt_layout(t, cw, mark_width(t, t->top, count), &L))
        return;
    for (size_t c = 0; c < rs->ncols; c++)
        t->col_x[c] = -1;
    /* header */
    t->y_head = hy;
    for (size_t i = 0; i < L.n; i++) {
        size_t c = L.cols[i];
        char title[300];
        vt_col_title(t, c, title, sizeof title);
        int x = L.x[i], dw = L.w[i];
        int tw = draw_text_width(title, SIZE_MAX);
        attr_t ha = A_BOLD | A_UNDERLINE | (c == t->sort_col ? A_REVERSE : 0);
        int tx = vt_col_numeric(rs, c) && tw < dw ? x + dw - tw : x;
        draw_fill(w, hy, x, dw, " ", A_UNDERLINE);
        draw_text(w, hy, tx, dw - (tx - x), title, SIZE_MAX, ha);
        t->col_x[c] = x;
    }
    /* columns hidden on a side: an arrow at that edge of the header */
    if (t->more_left)
        draw_text(w, hy, 0, 1, draw_utf8 ? "\xe2\x86\x90" : "<", SIZE_MAX, draw_attr(CP_DIM) | A_BOLD);
    if (t->more_right)
        draw_text(w, hy, cw - 1, 1, draw_utf8 ? "\xe2\x86\x92" : ">", SIZE_MAX, draw_attr(CP_DIM) | A_BOLD);
    /* rows */
    t->y_rows = ry;
    t->page = rh > 1 ? rh : 1;
    if (!t->nvis)
        draw_text(w, ry, 3, cw - 4, t->re_on ? "no row matches the filter (Esc clears it)" : "no rows", SIZE_MAX, draw_attr(CP_DIM));
    char **shortened = calloc(L.n ? L.n : 1, sizeof *shortened);
    size_t cell = 0;
    for (size_t i = 0; i < L.n; i++)
        if ((size_t)L.w[i] * 4 + 16 > cell)
            cell = (size_t)L.w[i] * 4 + 16;   /* a shortened name: at most 4 bytes a character */
    for (size_t i = 0; shortened && i < L.n; i++)
        if (!vt_col_numeric(rs, L.cols[i]))
            shortened[i] = shorten_page(t, L.cols[i], L.w[i], t->top, count, cell);
    for (size_t k = 0; shortened && k < count; k++)
        draw_row(t, w, ry + (int)k, cw, t->top + k, k, &L, shortened, cell);
    for (size_t i = 0; shortened && i < L.n; i++)
        free(shortened[i]);
    free(shortened);
    vt_layout_free(&L);
    if (t->chooser)
        draw_chooser(t, w, y, h, cw);
}
