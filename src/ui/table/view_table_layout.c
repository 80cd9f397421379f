/* The one layout rule of the table views: which columns a frame shows and where.
 *
 *   1. the name column (name_key, or the leading columns up to the first text column),
 *   2. the sort column,
 *   3. the columns that answer the view's question (answer_keys, in that order),
 *   4. the other columns, scrolled sideways by Left/Right (hscroll of them skipped).
 *
 * The first three stay on screen: when they do not fit, the text among them is narrowed
 * (shortened in the middle when drawn) down to NARROWEST, and only then do answering
 * columns give way, last first. A number column is shown whole or not at all, the last
 * screen column is kept for the indicator of columns hidden on the right, and the row notes
 * (vt_mark_fn) get a column of their own after the others. */
#include "ui/table/view_table.h"
#include "ui/table/view_table_internal.h"

#include <stdlib.h>
#include <string.h>

#define NARROWEST 16   /* a text column is not narrowed below this (or its title) */

/* The next word of a space-separated list of keys into key (false at the end). */
static bool next_key(const char **p, char *key, size_t size)
{
    while (*p && **p) {
        while (**p == ' ')
            (*p)++;
        size_t wl = strcspn(*p, " ");
        const char *w = *p;
        *p += wl;
        if (wl && wl < size) {
            memcpy(key, w, wl);
            key[wl] = 0;
            return true;
        }
    }
    return false;
}

/* The first of the name_key words that is a column of the table. */
static size_t name_col(const struct vtable *t)
{
    char key[128];
    for (const char *p = t->name_key; next_key(&p, key, sizeof key);) {
        size_t c = rowset_find_col(t->rs, key);
        if (c != SIZE_MAX)
            return c;
    }
    return SIZE_MAX;
}

static void add_col(const struct vtable *t, size_t *out, size_t *n, size_t c)
{
    if (c >= t->rs->ncols || t->hidden[c])
        return;
    for (size_t i = 0; i < *n; i++)
        if (out[i] == c)
            return;
    out[(*n)++] = c;
}

/* The pinned columns in display order into out; returns how many. *keep: how many of them
 * are name and sort columns (the rest answer the question). */
static size_t pinned_cols_keep(const struct vtable *t, size_t *out, size_t *keep)
{
    size_t n = 0, nc = name_col(t);
    if (nc != SIZE_MAX) {
        add_col(t, out, &n, nc);
    } else {
        for (size_t c = 0; c < t->frozen; c++)
            add_col(t, out, &n, c);
    }
    add_col(t, out, &n, t->sort_col);
    *keep = n;
    char key[128];
    for (const char *p = t->answer_keys; next_key(&p, key, sizeof key);)
        add_col(t, out, &n, rowset_find_col(t->rs, key));
    return n;
}

static size_t pinned_cols(const struct vtable *t, size_t *out)
{
    size_t keep;
    return pinned_cols_keep(t, out, &keep);
}

/* The columns that stay on screen: the first pin_fit of the pinned ones (those that fit the
 * last frame's width). */
static size_t fitting_pinned(const struct vtable *t, size_t *out)
{
    size_t n = pinned_cols(t, out);
    return n < t->pin_fit ? n : t->pin_fit;
}

bool vt_pinned(const struct vtable *t, size_t c)
{
    size_t buf[64], *p = t->rs->ncols <= 64 ? buf : malloc(t->rs->ncols * sizeof *p);
    if (!p)
        return false;
    size_t n = fitting_pinned(t, p);
    bool hit = false;
    for (size_t i = 0; i < n && !hit; i++)
        hit = p[i] == c;
    if (p != buf)
        free(p);
    return hit;
}

/* The columns that scroll, in their order: answering columns that did not fit, then the
 * others as the table has them. Returns how many. */
static size_t scroll_cols(const struct vtable *t, size_t *out)
{
    size_t *pin = malloc(t->rs->ncols * sizeof *pin);
    bool *is_pin = calloc(t->rs->ncols, sizeof *is_pin);
    size_t n = 0;
    if (pin && is_pin) {
        size_t np = pinned_cols(t, pin), fit = np < t->pin_fit ? np : t->pin_fit;
        for (size_t i = 0; i < np; i++)
            is_pin[pin[i]] = true;
        for (size_t i = fit; i < np; i++)
            out[n++] = pin[i];
        for (size_t c = 0; c < t->rs->ncols; c++)
            if (!t->hidden[c] && !is_pin[c])
                out[n++] = c;
    }
    free(pin);
    free(is_pin);
    return n;
}

size_t vt_scrollable_count(const struct vtable *t)
{
    size_t *tmp = malloc(t->rs->ncols * sizeof *tmp);
    size_t n = tmp ? scroll_cols(t, tmp) : 0;
    free(tmp);
    return n;
}

static int narrowest(const struct vtable *t, size_t c)
{
    char title[300];
    vt_col_title(t, c, title, sizeof title);
    int tw = draw_text_width(title, SIZE_MAX);
    int n = tw > NARROWEST ? tw : NARROWEST;
    return n < t->width[c] ? n : t->width[c];
}

/* The least width a scrolling column needs: a number whole, text from half of NARROWEST. */
static int scroll_width(const struct vtable *t, size_t c)
{
    int w = t->width[c];
    return !vt_col_numeric(t->rs, c) && w > NARROWEST / 2 ? NARROWEST / 2 : w;
}

static int total_width(const int *w, size_t n)
{
    int s = 0;
    for (size_t i = 0; i < n; i++)
        s += w[i] + (i ? GAP : 0);
    return s;
}

/* Narrows the text columns among the first n (widest first) until they take at most room;
 * returns whether they fit. */
static bool narrow_text(const struct vtable *t, const size_t *cols, int *w, size_t n, int room)
{
    int over = total_width(w, n) - room;
    while (over > 0) {
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < n; i++)
            if (!vt_col_numeric(t->rs, cols[i]) && w[i] > narrowest(t, cols[i]) && (best == SIZE_MAX || w[i] > w[best]))
                best = i;
        if (best == SIZE_MAX)
            return false;
        int give = w[best] - narrowest(t, cols[best]);
        if (give > over)
            give = over;
        w[best] -= give;
        over -= give;
    }
    return true;
}

bool vt_layout(struct vtable *t, int cw, int mark_w, struct vt_layout *L)
{
    const struct rowset *rs = t->rs;
    memset(L, 0, sizeof *L);
    L->cols = malloc(rs->ncols * sizeof *L->cols);
    L->x = malloc(rs->ncols * sizeof *L->x);
    L->w = malloc(rs->ncols * sizeof *L->w);
    if (!L->cols || !L->x || !L->w) {
        vt_layout_free(L);
        return false;
    }
    int x0 = GUTTER + 1;
    int end = cw - 1 - (mark_w ? mark_w + GAP : 0);   /* the last screen column: the indicator */
    size_t keep, np = pinned_cols_keep(t, L->cols, &keep);
    int room = end - x0;
    /* the pinned columns leave room for the widest scrolling one, so that every column can
     * be scrolled into view: answering columns give way for it, last first (the name and
     * sort columns stay), and lead the scrolling ones */
    int widest_rest = 0;
    for (size_t c = 0; c < rs->ncols; c++) {
        bool pinned = false;
        for (size_t i = 0; i < np && !pinned; i++)
            pinned = L->cols[i] == c;
        if (!t->hidden[c] && !pinned && scroll_width(t, c) > widest_rest)
            widest_rest = scroll_width(t, c);
    }
    for (;;) {
        for (size_t i = 0; i < np; i++)
            L->w[i] = t->width[L->cols[i]];
        int reserve = widest_rest ? widest_rest + GAP : 0;
        if (narrow_text(t, L->cols, L->w, np, room - reserve))
            break;
        if (np <= keep) {
            for (size_t i = 0; i < np; i++)
                L->w[i] = t->width[L->cols[i]];
            narrow_text(t, L->cols, L->w, np, room);
            break;
        }
        np--;
        if (scroll_width(t, L->cols[np]) > widest_rest)
            widest_rest = scroll_width(t, L->cols[np]);
    }
    t->pin_fit = np;
    /* then the scrollable columns from hscroll, each whole; text may take what is left */
    size_t *sc = malloc(rs->ncols * sizeof *sc);
    if (!sc) {
        vt_layout_free(L);
        return false;
    }
    size_t nscroll = scroll_cols(t, sc);
    if (t->hscroll >= nscroll)
        t->hscroll = nscroll ? nscroll - 1 : 0;
    size_t n = np;
    t->more_right = false;
    for (size_t k = t->hscroll; k < nscroll; k++) {
        size_t c = sc[k];
        int used = total_width(L->w, n) + (n ? GAP : 0);
        int left = room - used, want = t->width[c];
        if (want > left && !vt_col_numeric(rs, c) && left >= NARROWEST / 2)
            want = left;
        if (want > left) {
            t->more_right = true;
            break;
        }
        L->cols[n] = c;
        L->w[n++] = want;
    }
    free(sc);
    /* place them; a pinned number column that still does not fit is left out */
    int x = x0;
    size_t shown = 0;
    for (size_t i = 0; i < n; i++) {
        int w = L->w[i];
        if (x + w > end) {
            if (vt_col_numeric(rs, L->cols[i]))
                continue;
            w = end - x;
            if (w < 1)
                continue;
        }
        L->cols[shown] = L->cols[i];
        L->w[shown] = w;
        L->x[shown++] = x;
        x += w + GAP;
    }
    L->n = shown;
    t->more_left = t->hscroll > 0;
    L->mark_x = x;
    L->mark_w = mark_w;
    return true;
}

void vt_layout_free(struct vt_layout *L)
{
    free(L->cols);
    free(L->x);
    free(L->w);
    memset(L, 0, sizeof *L);
}
