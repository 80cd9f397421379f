/* The Compare view: two captures of the session side by side (`aptop A B`, `aptop --diff
 * BASE NEW`). The base is the first capture, the new one the capture on screen (the second
 * while the first is shown). `t` steps through the sections of model/analysis/diff.h (kernels by
 * name and by type, host ops, steps per phase, communication ops, ranks) and the canonical
 * decode steps aligned kernel by kernel; each row has base / new / delta / ratio and a
 * status. Enter shows the rows of both captures behind a row (diff_instances); Enter on one
 * of those opens its capture, rank and slice in the timeline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/analysis/diff.h"
#include "ui/shell/draw.h"
#include "ui/table/view_table.h"

enum { CM_ALIGN = DIFF_SECTIONS, CM_COUNT };

static const char *const mode_title[CM_COUNT] = {
    "kernels by name", "kernels by type", "host ops", "steps per phase", "communication ops",
    "ranks", "decode step aligned kernel by kernel",
};

struct cview {
    struct vtable tab[CM_COUNT], inst;
    int mode;
    bool stale[CM_COUNT];
    bool partial[CM_COUNT];     /* built while the loader was still running */
    bool drill;
    char drill_key[512];
    int drill_rank;
};

static struct cview *cv_of(struct view *v) { return v->priv; }

/* Base and new groups, false with fewer than two captures. */
static bool pick_sides(struct ui *ui, size_t *gb, size_t *gn)
{
    if (ui->ngroups < 2)
        return false;
    *gb = 0;
    *gn = ui->group ? ui->group : 1;
    return true;
}

static bool loading(struct ui *ui) { return ui->load.loading; }

static void build(struct view *v, int m)
{
    struct cview *c = cv_of(v);
    struct ui *ui = v->ui;
    struct vtable *t = &c->tab[m];
    size_t gb, gn;
    c->stale[m] = false;
    c->partial[m] = loading(ui);
    if (!pick_sides(ui, &gb, &gn)) {
        vt_set(t, NULL);
        snprintf(t->caption, sizeof t->caption, "Compare");
        vt_empty(t, "one capture open: compare two with  aptop BASE NEW  or  aptop --diff BASE NEW");
        return;
    }
    struct session b = session_group_view(ui->all, gb), n = session_group_view(ui->all, gn);
    struct diff_noise nz;
    diff_noise(&b, &n, &nz);
    struct rowset *rs = m == CM_ALIGN ? diff_align_decode(&b, &n) : diff_section((enum diff_section)m, &b, &n, &nz);
    char cap[400] = "";
    if (rs && rs->caption)
        snprintf(cap, sizeof cap, "%s", rs->caption);
    bool first = !t->rs;
    t->origin = NS_NONE;              /* two captures, two clocks: times as written */
    vt_set(t, rs);
    if (first)
        t->sel = t->top = 0;
    snprintf(t->caption, sizeof t->caption, "Compare %s%s; base %s, new %s; t: next section",
             loading(ui) ? "(partial: still loading) " : "", cap[0] ? cap : mode_title[m], ui->all->groups[gb].root,
             ui->all->groups[gn].root);
    if (!rs)
        vt_empty(t, m == CM_ALIGN ? "a capture has no decode steps to align%s"
                                  : "neither capture has the figures of this section%s",
                 loading(ui) ? " (yet: still loading)" : "");
}

static void compare_refresh(struct view *v)
{
    struct cview *c = cv_of(v);
    /* the loader may finish without installing anything more: drop the "partial" word */
    if (c->stale[c->mode] || (c->partial[c->mode] && !loading(v->ui)))
        build(v, c->mode);
}

static void build_inst(struct view *v)
{
    struct cview *c = cv_of(v);
    struct ui *ui = v->ui;
    size_t gb, gn;
    if (!pick_sides(ui, &gb, &gn))
        return;
    struct session b = session_group_view(ui->all, gb), n = session_group_view(ui->all, gn);
    enum diff_section sec = c->mode == CM_ALIGN ? DIFF_KERNELS : (enum diff_section)c->mode;
    struct rowset *rs = diff_instances(sec, &b, &n, c->drill_key, c->drill_rank);
    bool first = !c->inst.rs;
    c->inst.origin = NS_NONE;         /* two captures, two clocks: times as written */
    vt_set(&c->inst, rs);
    if (first)
        c->inst.sel = c->inst.top = 0;
    char e[600];
    draw_escape(c->drill_key, SIZE_MAX, e, sizeof e);
    snprintf(c->inst.caption, sizeof c->inst.caption, "Both captures: %s   Enter: timeline of that capture  Esc: back",
             rs && rs->caption ? rs->caption : e);
    if (!rs || !rs->nrows)
        vt_empty(&c->inst, "no rows behind %s in either capture", c->drill_key);
}

static void compare_init(struct view *v)
{
    struct cview *c = cv_of(v);
    for (int m = 0; m < CM_COUNT; m++) {
        vt_init(&c->tab[m]);
        c->tab[m].exact = true;       /* base and new in one unit, side by side */
        c->stale[m] = true;
    }
    vt_init(&c->inst);
}

static void compare_done(struct view *v)
{
    struct cview *c = cv_of(v);
    for (int m = 0; m < CM_COUNT; m++)
        vt_free(&c->tab[m]);
    vt_free(&c->inst);
}

static void compare_changed(struct view *v)
{
    struct cview *c = cv_of(v);
    for (int m = 0; m < CM_COUNT; m++)
        c->stale[m] = true;
    if (c->drill)
        build_inst(v);
}

static void compare_draw(struct view *v, WINDOW *w)
{
    struct cview *c = cv_of(v);
    compare_refresh(v);
    werase(w);
    vt_draw(c->drill ? &c->inst : &c->tab[c->mode], w, 0, getmaxy(w));
}

/* Enter on a row behind a diff row: its capture, rank and slice in the timeline. */
static void open_instance(struct view *v, size_t row)
{
    struct cview *c = cv_of(v);
    struct ui *ui = v->ui;
    size_t gb, gn;
    const char *side = vt_text(&c->inst, row, "capture");
    int64_t rank;
    if (!side || !vt_int(&c->inst, row, "rank", &rank) || !pick_sides(ui, &gb, &gn))
        return;
    size_t g = !strcmp(side, "base") ? gb : gn;
    const struct session_group *grp = &ui->all->groups[g];
    size_t idx = SIZE_MAX;
    for (size_t i = 0; i < grp->n && idx == SIZE_MAX; i++)
        if (ui->all->ranks[grp->first + i].rank == rank)
            idx = i;
    uint64_t link = c->inst.rs->link[row];
    if (idx == SIZE_MAX) {
        ui_error(ui, "rank %d is not in that capture", (int)rank);
        return;
    }
    if (ui->group != g)
        ui_set_group(ui, g);
    ui_set_rank(ui, idx);
    int64_t start, dur;
    if (c->mode == CM_ALIGN || c->mode == DIFF_KERNELS || c->mode == DIFF_KERNEL_TYPES)
        vt_goto_slice(ui, link, "this kernel");
    else if (c->mode == DIFF_PHASES && vt_int(&c->inst, row, "start_us", &start) && vt_int(&c->inst, row, "dur_us", &dur))
        ui_goto_range(ui, idx, start, start + dur);       /* the step on that capture's timeline */
    else
        ui_message(ui, "%s capture, rank %d", side, (int)rank);
}

static enum request compare_request(struct view *v, enum request req, int key)
{
    struct cview *c = cv_of(v);
    struct ui *ui = v->ui;
    compare_refresh(v);
    struct vtable *t = c->drill ? &c->inst : &c->tab[c->mode];
    req = vt_request(v, t, req, key);
    if (vt_drill_back(&c->drill, req, key))
        return REQ_NONE;
    switch (req) {
    case REQ_TABLE_MODE:
        if (c->drill)
            return REQ_NONE;
        c->mode = (c->mode + 1) % CM_COUNT;
        compare_refresh(v);
        ui_message(ui, "Compare: %s", mode_title[c->mode]);
        return REQ_NONE;
    case REQ_ENTER: {
        size_t row = vt_selected(t);
        if (row == SIZE_MAX)
            return REQ_NONE;
        if (c->drill) {
            open_instance(v, row);
            return REQ_NONE;
        }
        const char *name = vt_text(t, row, "name");
        int64_t rank = -1;
        if (!name) {
            ui_error(ui, "this row has no name");
            return REQ_NONE;
        }
        if (c->mode == CM_ALIGN || !vt_int(t, row, "rank", &rank))
            rank = -1;
        snprintf(c->drill_key, sizeof c->drill_key, "%s", name);
        c->drill_rank = (int)rank;
        if (c->mode == DIFF_RANKS && rank < 0)
            c->drill_rank = -1;
        c->drill = true;
        vt_set(&c->inst, NULL);    /* a fresh table in the rowset's order */
        build_inst(v);
        return REQ_NONE;
    }
    default:
        return req;
    }
}

static const char *compare_hint(struct view *v)
{
    return cv_of(v)->drill ? VT_DRILL_HINT
                           : "Enter:both captures' rows  t:section  {}:capture  /:search  &:filter  <>:sort";
}

/* Listed only when two captures are open. */
static bool compare_listed(const struct ui *ui)
{
    return ui->ngroups >= 2;
}

const struct view_ops view_compare = {
    .name = "Compare", .open = REQ_VIEW_COMPARE,
    .help = "Comparison of two captures (aptop A B, aptop --diff BASE NEW)",
    .scopes = SCOPE_TABLE, .private_size = sizeof(struct cview),
    .listed = compare_listed,
    .init = compare_init, .done = compare_done, .draw = compare_draw, .request = compare_request,
    .data_changed = compare_changed, .hint = compare_hint,
};
