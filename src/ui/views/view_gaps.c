/* The Launch gaps view: the current rank's device idle gaps with their cause and the host
 * frames running when each began (model/host/host_gaps.h), longest first; `t` turns to the
 * launch latency per step (model/host/launch_steps.h) and per kernel name (flowstats). Enter
 * goes to the device slice after the gap, or to the slowest launch, in the timeline. */
#include <stdio.h>

#include "model/analysis/flowstats.h"
#include "model/host/host_gaps.h"
#include "model/host/launch_steps.h"
#include "ui/table/view_table.h"

enum { GM_GAPS, GM_STEPS, GM_KERNELS, GM_COUNT };
static const char *const gm_name[] = { "device idle gaps", "launch latency per step", "launch latency per kernel" };

_Static_assert(GM_COUNT <= VT_MODES_MAX, "one vtable per table");

static void gaps_build(struct view *v)
{
    struct vt_modes *o = vt_modes_of(v);
    struct rank_data *rd = ui_rank(v->ui);
    struct vtable *t = &o->tab[o->mode];
    t->origin = vt_origin(v->ui);
    struct rowset *rs = NULL;
    /* this rank alone: the links are its slice indices */
    struct session one = { .ranks = rd, .nranks = rd ? 1 : 0 };
    if (rd && rd->model && rd->flowstats) {
        if (o->mode == GM_GAPS)
            rs = host_gaps_session_rowset(&one, -1);
        else if (o->mode == GM_STEPS)
            rs = launch_steps_session_rowset(&one, -1);
        else
            rs = flowstats_kernel_rowset(rd->flowstats, rd->model);
    }
    bool first = !t->rs;
    vt_set(t, rs);
    if (rs && first) {
        if (o->mode == GM_GAPS)
            vt_sort_key(t, "dur_us", true);
        else if (o->mode == GM_KERNELS)
            vt_sort_key(t, "p99_us", true);
        t->sel = t->top = 0;
    }
    char a[32];
    snprintf(t->caption, sizeof t->caption, "Launch gaps: %s (rank %d, %s rows)", gm_name[o->mode],
             rd ? rd->rank : 0, vt_thousands(rs ? rs->nrows : 0, a, sizeof a));
    if (!rs)
        vt_empty(t, "rank %d has %s%s", rd ? rd->rank : 0,
                 !rd || !rd->model ? "no timeline" : !rd->flowstats ? "no flow figures" : "no device gap or launch",
                 v->ui->load.loading ? " (yet: still loading)" : "");
}

static void gaps_enter(struct view *v, struct vtable *t, size_t row)
{
    if (row == SIZE_MAX || !t->rs) {
        ui_error(v->ui, "no row selected");
        return;
    }
    vt_goto_slice(v->ui, t->rs->link[row], vt_modes_of(v)->mode == GM_GAPS ? "the slice after this gap" : "this launch");
}

static void gaps_init(struct view *v)
{
    static const struct vt_modes_spec spec = {
        .nmodes = GM_COUNT, .build = gaps_build, .enter = gaps_enter, .titles = gm_name,
        .hint = "Enter:timeline  t:gaps/latency per step/per kernel  /:search  &:filter",
    };
    vt_modes_init(v, &spec);
}

const struct view_ops view_gaps = {
    .open = REQ_VIEW_GAPS,
    .help = "Launch gaps view (device idle gaps: cause, host frames; launch latency)",
    .name = "Launch gaps", .scopes = SCOPE_TABLE, .private_size = sizeof(struct vt_modes), .rank_timeline = true,
    .init = gaps_init, .done = vt_modes_done, .draw = vt_modes_draw, .request = vt_modes_request,
    .data_changed = vt_modes_changed, .hint = vt_modes_hint,
};
