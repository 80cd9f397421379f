/* Marks: bookmarks of a slice (or, with nothing selected, of the cursor time) on the
 * timeline. `b` sets one or, on a marked place, removes it; `'` and `"` visit them in time
 * order, wrapping around. Marks belong to the rank whose model they were set on (slice ids
 * are per model), so each rank keeps its own; they are drawn on the ruler's tick row. */
#include "ui/timeline/timeline.h"
#include "util/grow.h"

#include <stdlib.h>

#include "model/index/session.h"

#include "ui/shell/draw.h"

struct tl_mark {
    const struct model *m;
    uint32_t slice;         /* SLICE_NONE for a mark of a time */
    ns_t t;                 /* the slice's start, or the marked time */
};

void tl_marks_free(struct timeline *t)
{
    free(t->marks);
    t->marks = NULL;
    t->nmarks = t->marks_cap = 0;
}

void tl_marks_keep(struct timeline *t, const struct session *s)
{
    size_t n = 0;
    for (size_t k = 0; k < t->nmarks; k++) {
        bool live = false;
        for (size_t i = 0; s && i < s->nranks && !live; i++)
            live = s->ranks[i].model == t->marks[k].m;
        /* a slice id beyond its model would be a stale mark: never trust it */
        if (live && (t->marks[k].slice == SLICE_NONE || t->marks[k].slice < t->marks[k].m->nslices))
            t->marks[n++] = t->marks[k];
    }
    t->nmarks = n;
}

/* Position of mark i among the current model's marks (1-based) and their count. */
static size_t mark_rank(const struct timeline *t, size_t i, size_t *of)
{
    size_t pos = 0, n = 0;
    for (size_t k = 0; k < t->nmarks; k++) {
        if (t->marks[k].m != t->m)
            continue;
        n++;
        if (k <= i)
            pos++;
    }
    *of = n;
    return pos;
}

static void say_mark(struct view *v, const char *what, size_t i)
{
    struct timeline *t = tl_of(v);
    const struct tl_mark *mk = &t->marks[i];
    size_t of, pos = mark_rank(t, i, &of);
    char at[48];
    tl_fmt_time(t, mk->t, at, sizeof at);
    if (mk->slice != SLICE_NONE)
        ui_message(v->ui, "%s %zu/%zu at %s: %s", what, pos, of, at, model_str(t->m, t->m->name[mk->slice]));
    else
        ui_message(v->ui, "%s %zu/%zu at %s", what, pos, of, at);
}

void tl_mark_toggle(struct view *v)
{
    struct timeline *t = tl_of(v);
    struct tl_mark mk = { t->m, t->sel, t->sel != SLICE_NONE ? t->m->start[t->sel] : t->cur_t };
    for (size_t k = 0; k < t->nmarks; k++) {
        const struct tl_mark *o = &t->marks[k];
        if (o->m == mk.m && o->slice == mk.slice && (mk.slice != SLICE_NONE || o->t == mk.t)) {
            t->marks[k] = t->marks[--t->nmarks];
            /* keep time order: the moved mark goes back to its place */
            for (size_t j = k; j + 1 < t->nmarks && t->marks[j].t > t->marks[j + 1].t; j++) {
                struct tl_mark x = t->marks[j];
                t->marks[j] = t->marks[j + 1];
                t->marks[j + 1] = x;
            }
            size_t of;
            mark_rank(t, 0, &of);
            ui_message(v->ui, "mark removed (%zu left on this rank)", of);
            return;
        }
    }
    struct tl_mark *p = grow_array(t->marks, &t->marks_cap, t->nmarks + 1, sizeof *p);
    if (!p) {
        ui_error(v->ui, "mark: out of memory");
        return;
    }
    t->marks = p;
    size_t i = t->nmarks++;
    while (i > 0 && t->marks[i - 1].t > mk.t) {
        t->marks[i] = t->marks[i - 1];
        i--;
    }
    t->marks[i] = mk;
    say_mark(v, "mark", i);
}

void tl_mark_step(struct view *v, int dir)
{
    struct timeline *t = tl_of(v);
    ns_t here = t->sel != SLICE_NONE ? t->m->start[t->sel] : t->cur_t;
    size_t first = SIZE_MAX, last = SIZE_MAX, hit = SIZE_MAX;
    for (size_t k = 0; k < t->nmarks; k++) {
        const struct tl_mark *mk = &t->marks[k];
        if (mk->m != t->m)
            continue;
        if (first == SIZE_MAX)
            first = k;
        last = k;
        bool same = mk->slice != SLICE_NONE ? mk->slice == t->sel : mk->t == here && t->sel == SLICE_NONE;
        if (dir > 0 && hit == SIZE_MAX && !same && mk->t >= here)
            hit = k;
        if (dir < 0 && !same && mk->t <= here)
            hit = k;
    }
    if (first == SIZE_MAX) {
        ui_message(v->ui, "no marks on this rank: b marks the selected slice or the cursor time");
        return;
    }
    /* a mark at the same time as the current place but after it in the list comes next */
    if (hit == SIZE_MAX)
        hit = dir > 0 ? first : last;     /* wrap around */
    const struct tl_mark *mk = &t->marks[hit];
    if (mk->slice != SLICE_NONE) {
        tl_select(v, mk->slice, true);
    } else {
        tl_hist_push(t);
        t->sel = SLICE_NONE;
        t->cur_t = mk->t;
        time_axis_center(&t->ax, mk->t);
    }
    say_mark(v, "mark", hit);
}

void tl_marks_draw(const struct timeline *t, WINDOW *w, int y)
{
    int64_t cur = time_axis_col(&t->ax, t->cur_t);
    for (size_t k = 0; k < t->nmarks; k++) {
        if (t->marks[k].m != t->m)
            continue;
        int64_t c = time_axis_col(&t->ax, t->marks[k].t);
        if (c < 0 || c >= t->ax.ncols || c == cur)
            continue;
        draw_text(w, y, t->graph_x + (int)c, 1, draw_utf8 ? "◆" : "*", SIZE_MAX, draw_attr(CP_RANGE) | A_BOLD);
    }
}
