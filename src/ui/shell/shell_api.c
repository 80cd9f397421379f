/* The shell's API for views (view.h): the current view and tab, the rank and capture group
 * on screen, status messages, and the jumps to the timeline. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ui/shell/draw.h"
#include "ui/shell/shell_internal.h"

struct view *ui_current(struct ui *ui)
{
    return ui->nviews ? &ui->views[ui->cur] : NULL;
}

struct view *ui_view_of(struct ui *ui, const struct view_ops *ops)
{
    for (size_t i = 0; i < ui->nviews; i++)
        if (ui->views[i].ops == ops && ui->views[i].priv)
            return &ui->views[i];
    return NULL;
}

void ui_dirty(struct ui *ui)
{
    struct view *v = ui_current(ui);
    if (v)
        v->dirty = true;
}

void ui_switch_to(struct ui *ui, const struct view_ops *ops)
{
    for (size_t i = 0; i < ui->nviews; i++) {
        if (ui->views[i].ops == ops) {
            if (ui->cur != i)
                clear_view_message(ui);
            ui->cur = i;
            ui->views[i].dirty = true;
            ui->full = true;
            return;
        }
    }
}

struct rank_data *ui_rank(struct ui *ui)
{
    if (!ui->s || !ui->s->nranks)
        return NULL;
    if (ui->rank >= ui->s->nranks)
        ui->rank = 0;
    return &ui->s->ranks[ui->rank];
}

void notify_changed(struct ui *ui)
{
    for (size_t i = 0; i < ui->nviews; i++) {
        struct view *v = &ui->views[i];
        if (v->ops->data_changed)
            v->ops->data_changed(v);
        v->dirty = true;
    }
    ui->full = true;
}

size_t session_rank(const struct ui *ui, size_t rank)
{
    return ui->all && ui->s ? (size_t)(&ui->s->ranks[rank] - ui->all->ranks) : rank;
}

void ui_set_rank(struct ui *ui, size_t rank)
{
    if (!ui->s || rank >= ui->s->nranks)
        return;
    if (ui->l)   /* opening a rank reads its timeline when it is not in memory */
        loader_want(ui->l, session_rank(ui, rank));
    if (rank == ui->rank)
        return;
    ui->rank = rank;
    notify_changed(ui);
}

void ui_set_group(struct ui *ui, size_t g)
{
    if (!ui->ngroups || g >= ui->ngroups)
        return;
    ui->groupv[g] = session_group_view(ui->all, g);   /* load_ms may have changed */
    ui->group = g;
    ui->s = &ui->groupv[g];
    ui->title = ui->all->groups[g].root;
    ui->rank = 0;
    notify_changed(ui);
}

static void vmessage(struct ui *ui, bool error, const char *fmt, va_list ap)
{
    char raw[512];
    vsnprintf(raw, sizeof raw, fmt, ap);
    draw_escape(raw, SIZE_MAX, ui->msg, sizeof ui->msg);
    ui->msg_error = error;
    ui->full = true;
    if (ui->shell)
        ((struct shell *)ui->shell)->msg_session = false;
}

void clear_view_message(struct ui *ui)
{
    if (ui->shell && ((struct shell *)ui->shell)->msg_session)
        return;
    ui->msg[0] = 0;
}

void ui_message(struct ui *ui, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(ui, false, fmt, ap);
    va_end(ap);
}

void ui_error(struct ui *ui, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(ui, true, fmt, ap);
    va_end(ap);
}

static struct view *timeline_view(struct ui *ui)
{
    for (size_t i = 0; i < ui->nviews; i++)
        if (ui->views[i].ops == &view_timeline)
            return &ui->views[i];
    return NULL;
}

/* Switches to the timeline of session rank `rank`; NULL when there is no timeline view. */
static struct view *show_timeline(struct ui *ui, size_t rank)
{
    struct view *v = timeline_view(ui);
    if (!v)
        return NULL;
    ui_set_rank(ui, rank);
    ui->cur = (size_t)(v - ui->views);
    ui->full = true;
    v->dirty = true;
    return v;
}

/* Every view reads the focus just published. */
static void publish_focus(struct ui *ui, struct ui_focus f)
{
    f.seq = ui->focus.seq + 1;
    ui->focus = f;
    for (size_t i = 0; i < ui->nviews; i++)
        if (ui->views[i].ops->focus_changed)
            ui->views[i].ops->focus_changed(&ui->views[i]);
}

void ui_show_focus(struct ui *ui, size_t rank, uint32_t slice, ns_t t0, ns_t t1)
{
    if (!show_timeline(ui, rank))
        return;
    publish_focus(ui, (struct ui_focus){ .rank = ui->rank, .slice = slice, .t0 = t0, .t1 = t1 });
}

bool ui_show_across_ranks(struct ui *ui, const uint32_t *slices, size_t n, size_t focus)
{
    if (focus >= n)
        return false;
    publish_focus(ui, (struct ui_focus){ .rank = focus, .slice = slices[focus], .t0 = NS_NONE, .t1 = NS_NONE,
                                         .rank_slices = slices, .nrank_slices = n });
    ui->focus.rank_slices = NULL;   /* the caller's array: not kept */
    ui->focus.nrank_slices = 0;
    return ui->focus.shown;
}

bool ui_show_step(struct ui *ui, size_t rank, size_t step)
{
    if (!ui->s || rank >= ui->s->nranks)
        return false;
    publish_focus(ui, (struct ui_focus){ .kind = FOCUS_STEP, .rank = rank, .step = step,
                                         .slice = SLICE_NONE, .t0 = NS_NONE, .t1 = NS_NONE });
    return ui->focus.shown;
}

bool ui_show_rank(struct ui *ui, size_t rank)
{
    if (!ui->s || rank >= ui->s->nranks)
        return false;
    publish_focus(ui, (struct ui_focus){ .kind = FOCUS_RANK, .rank = rank, .step = SIZE_MAX,
                                         .slice = SLICE_NONE, .t0 = NS_NONE, .t1 = NS_NONE });
    return ui->focus.shown;
}

void ui_goto_slice(struct ui *ui, size_t rank, uint32_t slice)
{
    ui_show_focus(ui, rank, slice, NS_NONE, NS_NONE);
}

void ui_goto_range(struct ui *ui, size_t rank, ns_t t0, ns_t t1)
{
    ui_show_focus(ui, rank, SLICE_NONE, t0, t1);
}
