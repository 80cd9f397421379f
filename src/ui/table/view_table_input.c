/* The table widget's input: the filter and search prompts, cursor and column movement,
 * sorting keys, the column chooser's keys and the mouse. */
#include "ui/table/view_table.h"
#include "ui/table/view_table_internal.h"

#include "ui/table/table_export.h"
#include "ui/table/view_settings.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/index/session.h"
#include "util/demangle.h"

/* --- filter prompt ------------------------------------------------------------------- */

static void filter_clear(struct vtable *t)
{
    if (t->re_on)
        regfree(&t->re);
    t->re_on = false;
    t->pattern[0] = 0;
    vt_refilter(t);
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
    vt_refilter(t);
    return true;
}

static void filter_change(struct view *v, void *user, const char *text, bool accepted)
{
    struct vtable *t = user;
    (void)accepted;
    /* live filtering while typing, except on huge tables (then at Enter) */
    if (t->rs && t->rs->nrows <= 200000)
        filter_set(v->ui, t, text);
    v->dirty = true;
}

static void filter_done(struct view *v, void *user, const char *text, bool accepted)
{
    struct vtable *t = user;
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
        if (demangle_regmatch(&t->srch, s))
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

static void search_done(struct view *v, void *user, const char *text, bool accepted)
{
    struct vtable *t = user;
    if (accepted && search_set(v->ui, t, text))
        search_step(v->ui, t, 1, true);
    v->dirty = true;
}

/* After a sort: the cursor on the first row, and the order said as the header marks it. */
static void sorted_to_top(struct ui *ui, struct vtable *t)
{
    t->sel = t->top = 0;
    char title[300];
    vt_col_title(t, t->sort_col, title, sizeof title);
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
    return vt_col_numeric(rs, c);
}

/* Shows column c: scrolls so it is on screen. */
static void scroll_to_col(struct vtable *t, size_t c)
{
    if (t->hidden[c] || vt_pinned(t, c))
        return;
    size_t idx = 0;
    for (size_t k = 0; k < c; k++)
        if (!t->hidden[k] && !vt_pinned(t, k))
            idx++;
    if (idx < t->hscroll || (t->col_x && t->col_x[c] < 0))
        t->hscroll = idx;
}

static enum request chooser_request(struct vtable *t, enum request req, int key)
{
    size_t n = t->rs->ncols;
    if (list_cursor_move(&(struct list_cursor){ &t->chooser_sel, n, 10 }, req))
        return REQ_NONE;
    (void)key;
    if (req == REQ_ENTER || req == REQ_COLUMN_TOGGLE) {
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
            size_t sc = vt_scrollable_count(t);
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
    /* the shell moves the rows (Up, Down, pages, Home, End) */
    v->list = (struct list_cursor){ &t->sel, t->nvis, t->page > 1 ? (size_t)t->page - 1 : 1 };
    switch (req) {
    case REQ_MOVE_LEFT:
        if (t->hscroll)
            t->hscroll--;
        else if (t->rs)
            ui_message(ui, "no columns hidden on the left");
        return REQ_NONE;
    case REQ_MOVE_RIGHT:
        if (t->rs && t->more_right)
            t->hscroll++;
        else if (t->rs)
            ui_message(ui, "no columns hidden on the right");
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
        ui_prompt(ui, v, "search (regex) /", t->srch_on ? t->srch_pat : NULL, NULL, search_done, t);
        return REQ_NONE;
    case REQ_TABLE_SEARCH_NEXT:
    case REQ_TABLE_SEARCH_PREV:
        if (!t->srch_on)
            ui_message(ui, "no search yet: / searches the rows' text");
        else
            search_step(ui, t, req == REQ_TABLE_SEARCH_NEXT ? 1 : -1, false);
        return REQ_NONE;
    case REQ_FILTER:
        ui_prompt(ui, v, "filter (regex) /", t->re_on ? t->pattern : NULL, filter_change, filter_done, t);
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
        vt_measure(t);
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

bool vt_drill_back(bool *open, enum request req, int key)
{
    /* a raw Backspace (127, Ctrl-H) is no request of its own */
    bool back = req == REQ_CLOSE || req == REQ_BACK || (req == REQ_NONE && (key == 127 || key == 8));
    if (!*open || !back)
        return false;
    *open = false;
    return true;
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
