/* The Ranks view (every rank side by side: files and status, step time split into
 * computing / communication not overlapped / free, wait versus transit, verdicts that name
 * what they measured: longest step, the rank the others wait for) and the Comm view (communication ops of the current rank with their
 * time split and bandwidth per transport, or the rank-pair matrix). Rowsets come from
 * model/analysis/comm.h; Enter jumps into the timeline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/analysis/comm.h"
#include "model/analysis/pgroups.h"
#include "model/analysis/steps.h"
#include "ui/shell/draw.h"
#include "ui/timeline/lanedraw.h"
#include "ui/table/view_table.h"

/* --- Ranks ---------------------------------------------------------------------------- */

/* Every rank of the session with its files and status, joined to the rank analysis. With
 * two passes the status (is its timeline in memory) comes first. */
static struct rowset *ranks_rowset(const struct session *s, bool status_first, const char *note, char *caption,
                                   size_t csize)
{
    struct rowset *an = comm_ranks_rowset(s, -1);
    struct rowset *rs = rowset_new("ranks");
    if (!rs) {
        rowset_free(an);
        return NULL;
    }
    size_t c_rank = rowset_col(rs, "rank", "Rank", RS_INT, 0);
    size_t c_dev = rowset_col(rs, "device", "Device", RS_INT, 0);
    size_t c_status = status_first ? rowset_col(rs, "status", "Status", RS_STR, 0) : SIZE_MAX;
    /* the verdict goes near the front: a marker after the last column of a wide table would
     * cover figures or fall off the screen */
    size_t c_mark = rowset_col(rs, "verdict", "Verdict", RS_STR, 0);
    /* the parallel groups as short labels ("tp0 dp1"): sorting by them lists each group together */
    struct pgroups *pg = pgroups_of_session(s);
    size_t c_grp = pg ? rowset_col(rs, "group", "Groups", RS_STR, 0) : SIZE_MAX;
    size_t *map = an ? calloc(an->ncols + 1, sizeof *map) : NULL;
    for (size_t c = 0; map && c < an->ncols; c++) {
        const struct rs_col *ac = &an->cols[c];
        map[c] = !strcmp(ac->key, "rank") || !strcmp(ac->key, "device") || !strcmp(ac->key, "groups") ? SIZE_MAX
               : rowset_col(rs, ac->key, ac->title, ac->type, ac->prec);
    }
    if (!status_first)
        c_status = rowset_col(rs, "status", "Status", RS_STR, 0);
    size_t c_events = rowset_col(rs, "events", "Events", RS_INT, 0);
    size_t c_slices = rowset_col(rs, "slices", "Slices", RS_INT, 0);
    size_t c_label = rowset_col(rs, "directory", "Directory", RS_STR, 0);
    for (size_t i = 0; i < s->nranks; i++) {
        const struct rank_data *rd = &s->ranks[i];
        size_t r = rowset_rank_row(rs, rowset_rank_link(i, 0), c_rank, rd->rank, c_dev, rd->device);
        if (r == SIZE_MAX)
            break;
        rowset_str(rs, r, c_status, rd->status[0] ? rd->status : "loading");
        if (pg) {
            char label[256];
            rowset_str(rs, r, c_grp, pgroups_rank_label(pg, rd->rank, label, sizeof label));
        }
        if (rd->model) {
            rowset_int(rs, r, c_events, (int64_t)rd->model->events);
            rowset_int(rs, r, c_slices, (int64_t)rd->model->nslices);
        }
        rowset_str(rs, r, c_label, rd->label ? rd->label : "");
        for (size_t ar = 0; map && ar < an->nrows; ar++) {
            if (rowset_link_rank(an->link[ar]) != i)
                continue;
            for (size_t c = 0; c < an->ncols; c++) {
                if (map[c] == SIZE_MAX || rowset_is_null(an, ar, c))
                    continue;
                const union rs_val *v = rowset_cell(an, ar, c);
                switch (an->cols[c].type) {
                case RS_STR: case RS_RAW: case RS_DEC:
                    rowset_str(rs, r, map[c], strtab_get(an->str, v->s));
                    break;
                case RS_INT: case RS_NS:
                    rowset_int(rs, r, map[c], v->i);
                    break;
                default:
                    rowset_num(rs, r, map[c], v->d);
                    break;
                }
            }
            /* the verdicts, each naming what it measured */
            char verdict[96] = "";
            static const struct { const char *key, *what; } marks[] = {
                { "longest_step", "longest step" }, { "shortest_step", "shortest step" },
                { "waited_for", "others wait for it" }, { "waits_most", "waits most" },
            };
            for (size_t k = 0; k < sizeof marks / sizeof marks[0]; k++) {
                size_t mc = rowset_find_col(an, marks[k].key);
                if (mc == SIZE_MAX || rowset_is_null(an, ar, mc) || !rowset_cell(an, ar, mc)->i)
                    continue;
                size_t used = strlen(verdict);
                snprintf(verdict + used, sizeof verdict - used, "%s%s", used ? ", " : "", marks[k].what);
            }
            if (verdict[0]) {
                char cellv[128];
                snprintf(cellv, sizeof cellv, "%s %s", draw_utf8 ? "\xe2\x86\x90" : "<-", verdict);
                rowset_str(rs, r, c_mark, cellv);
            }
            break;
        }
    }
    snprintf(caption, csize, "Ranks (%zu)%s   %s", s->nranks, note, an && an->caption ? an->caption : "no step or communication figures");
    free(map);
    rowset_free(an);
    pgroups_free(pg);
    return rs;
}

/* Tables (struct vt_modes) 0: ranks, 1: steps per rank. */
static void ranks_build(struct view *v)
{
    struct vt_modes *rv = vt_modes_of(v);
    struct ui *ui = v->ui;
    struct vtable *t = &rv->tab[rv->mode];
    t->origin = vt_origin(ui);
    if (!ui->s || !ui->s->nranks) {
        vt_set(t, NULL);
        snprintf(t->caption, sizeof t->caption, "Ranks");
        vt_empty(t, "no rank loaded yet");
        return;
    }
    unsigned keep = ui->load.max_timelines;
    if (rv->mode == 0) {
        char cap[768], note[256] = "";
        if (keep) {   /* the figures of ranks not in memory come from their small files */
            size_t in = 0, n = ui->s->nranks;
            for (size_t i = 0; i < n; i++)
                in += ui->s->ranks[i].model != NULL;
            snprintf(note, sizeof note, "   timelines in memory: %zu of %zu (at most %u); the others' figures come "
                     "from step_trace_time.csv and communication.json (Source)", in, n, keep);
        }
        struct rowset *rs = ranks_rowset(ui->s, keep > 0, note, cap, sizeof cap);
        vt_set(t, rs);
        draw_escape(cap, SIZE_MAX, t->caption, sizeof t->caption);
    } else {
        struct rowset *rs = comm_rank_steps_rowset(ui->s, -1);
        vt_set(t, rs);
        snprintf(t->caption, sizeof t->caption, "Steps of every rank (%zu rows)   t: ranks", rs ? rs->nrows : 0);
        if (!rs)
            vt_empty(t, "no step times on any rank (step_trace_time.csv, detected steps or overlap lanes)");
    }
}

/* Opens rank `idx` in the timeline at step number `step_no` (or position `pos`), else the
 * whole capture. */
static void open_rank(struct ui *ui, size_t idx, int64_t step_no, size_t pos)
{
    if (!ui->s || idx >= ui->s->nranks)
        return;
    const struct rank_data *rd = &ui->s->ranks[idx];
    const struct steps *st = rd->steps;
    size_t hit = SIZE_MAX;
    for (size_t i = 0; st && step_no >= 0 && i < st->n && hit == SIZE_MAX; i++)
        if (st->v[i].index == step_no)
            hit = i;
    if (hit == SIZE_MAX && st && pos < st->n)
        hit = pos;
    if (hit != SIZE_MAX) {
        const struct step *s = steps_get(st, hit);
        ui_goto_range(ui, idx, s->start, s->end > s->start ? s->end : s->start + 1);
        ui_message(ui, "rank %d, step %lld", rd->rank, (long long)s->index);
    } else if (rd->model && rd->model->finalized) {
    {
        ns_t lo, hi;
        model_time_span(rd->model, &lo, &hi);
        ui_goto_range(ui, idx, lo, hi > lo ? hi : lo + 1);
    }
        ui_message(ui, "rank %d (no steps found: the whole capture)", rd->rank);
    } else if (ui_timeline_readable(ui, idx)) {
        ui_set_rank(ui, idx);   /* asks the loader for it, before any other */
        ui_switch_to(ui, &view_timeline);
        ui_message(ui, "rank %d: reading its timeline", rd->rank);
    } else {
        ui_set_rank(ui, idx);
        ui_error(ui, "rank %d has no timeline%s", rd->rank, rd->digest ? " (read from a summary, without its trace)" : "");
    }
}

/* Enter: the rank's timeline at the row's step (steps table) or at the step selected in
 * Phases (ranks table). */
static void ranks_enter(struct view *v, struct vtable *t, size_t row)
{
    struct ui *ui = v->ui;
    if (row == SIZE_MAX)
        return;
    uint64_t link = t->rs->link[row];
    size_t idx = rowset_link_rank(link);
    if (vt_modes_of(v)->mode == 1) {
        int64_t no = -1;
        vt_int(t, row, "step", &no);
        open_rank(ui, idx, no, rowset_link_entry(link));
        return;
    }
    /* the step selected in the Phases view, by its number, on the chosen rank */
    int64_t no = -1;
    size_t pos = ui->step_selected;
    struct rank_data *cur = ui_rank(ui);
    if (cur && cur->steps && pos < cur->steps->n)
        no = cur->steps->v[pos].index;
    open_rank(ui, idx, no, pos == SIZE_MAX ? 0 : pos);
}

static void ranks_init(struct view *v)
{
    static const char *const name_keys[] = { "rank", "rank" };
    static const char *const answer_keys[] = { "step_us_mean step_us_max computing_us comm_not_overlapped_us free_us wait_ms",
                                              "step step_us computing_us comm_not_overlapped_us free_us" };
    static const struct vt_modes_spec spec = {
        .nmodes = 2, .build = ranks_build, .enter = ranks_enter,
        /* which rank is slow: its step times first, then where the time went */
        .name_keys = name_keys,
        .answer_keys = answer_keys,
        .hint = "Enter:open rank's timeline  t:ranks/steps  <>:sort",
    };
    vt_modes_init(v, &spec);
}

/* A rank focus (ui_show_rank): its row of the ranks table selected, this view shown. */
static bool show_rank(struct view *v, size_t rank)
{
    struct ui *ui = v->ui;
    if (!ui->s || rank >= ui->s->nranks)
        return false;
    struct vt_modes *rv = vt_modes_of(v);
    if (rv->mode != 0) {
        rv->mode = 0;
        rv->stale = true;
    }
    vt_modes_refresh(v);
    struct vtable *t = &rv->tab[0];
    if (!t->rs)
        return false;
    ui_set_rank(ui, rank);
    vt_modes_refresh(v);
    for (size_t r = 0; r < t->rs->nrows; r++)
        if (rowset_link_rank(t->rs->link[r]) == rank) {
            vt_select_row(t, r);
            ui_switch_to(ui, &view_ranks);
            return true;
        }
    return false;
}

static void ranks_focus_changed(struct view *v)
{
    struct ui *ui = v->ui;
    if (ui->focus.kind == FOCUS_RANK && show_rank(v, ui->focus.rank))
        ui->focus.shown = true;
}

const struct view_ops view_ranks = {
    .name = "Ranks", .open = REQ_VIEW_RANKS, .help = "Ranks view",
    .scopes = SCOPE_TABLE, .private_size = sizeof(struct vt_modes),
    .init = ranks_init, .done = vt_modes_done, .draw = vt_modes_draw, .request = vt_modes_request,
    .data_changed = vt_modes_changed, .focus_changed = ranks_focus_changed, .hint = vt_modes_hint,
};

/* --- Comm ----------------------------------------------------------------------------- */

/* Tables (struct vt_modes) 0: ops, 1: rank-pair matrix. */
static void comm_build(struct view *v)
{
    struct vt_modes *cv = vt_modes_of(v);
    struct ui *ui = v->ui;
    struct rank_data *rd = ui_rank(ui);
    struct vtable *t = &cv->tab[cv->mode];
    t->origin = vt_origin(ui);
    struct rowset *rs = NULL;
    if (rd)
        rs = cv->mode == 0 ? comm_ops_rowset(ui->s, rd->rank) : comm_matrix_rowset(ui->s, rd->rank);
    bool first = !t->rs;
    vt_set(t, rs);
    if (rs && first)
        t->sel = t->top = 0;
    char cap[400] = "";
    if (rs && rs->caption)
        draw_escape(rs->caption, SIZE_MAX, cap, sizeof cap);
    snprintf(t->caption, sizeof t->caption, "Communication %s (rank %d): %s   t: %s",
             cv->mode == 0 ? "ops" : "matrix", rd ? rd->rank : 0, cap, cv->mode == 0 ? "rank-pair matrix" : "ops");
    if (!rs) {
        bool loading = ui->load.loading;
        vt_empty(t, "rank %d has no %s%s", rd ? rd->rank : 0,
                 cv->mode == 0 ? "communication.json ops (or analysis.db figures)" : "communication_matrix.json links",
                 loading ? " loaded yet" : "");
    }
}

/* The communication slice of an op key ("hcom_allReduce__431_0_1@1046...") near its start. */
static uint32_t find_comm_slice(const struct model *m, const char *key, ns_t near)
{
    char base[512];
    snprintf(base, sizeof base, "%s", key);
    char *at = strchr(base, '@');
    if (at)
        *at = 0;
    uint32_t s = vt_find_slice(m, base, LANE_COMM, near);
    if (s == SLICE_NONE)
        s = vt_find_slice(m, base, LANE_OTHER, near);
    if (s == SLICE_NONE && at)
        s = vt_find_slice(m, key, LANE_OTHER, near);
    return s;
}

/* Enter: the op or link's collective in the timeline of its rank. */
static void comm_enter(struct view *v, struct vtable *t, size_t row)
{
    struct vt_modes *cv = vt_modes_of(v);
    struct ui *ui = v->ui;
    if (row == SIZE_MAX || !ui->s)
        return;
    uint64_t link = t->rs->link[row];
    size_t ri = rowset_link_rank(link), k = rowset_link_entry(link);
    if (ri >= ui->s->nranks || !ui->s->ranks[ri].comm)
        return;
    const struct rank_data *rd = &ui->s->ranks[ri];
    const struct comm *c = rd->comm;
    const char *name = NULL;
    ns_t near = NS_NONE;
    if (cv->mode == 0 && k < c->nops) {
        const struct comm_op *op = &c->ops[k];
        if (op->total) {
            ui_error(ui, "a per-step total: no single op to show");
            return;
        }
        name = strtab_get(c->str, op->name);
        near = op->start_ns;
    } else if (cv->mode == 1 && k < c->nlinks) {
        const struct comm_link *l = &c->links[k];
        name = strtab_get(c->str, l->op_name ? l->op_name : l->group);
    }
    if (!name || !*name)
        return;
    if (!rd->model && ui_timeline_readable(ui, ri)) {
        ui_set_rank(ui, ri);    /* asks the loader for it */
        ui_message(ui, "rank %d: reading its timeline; Enter again once it is read", rd->rank);
        return;
    }
    uint32_t s = find_comm_slice(rd->model, name, near);
    if (s == SLICE_NONE) {
        ui_error(ui, "%s is not in the timeline of rank %d", name, rd->rank);
        return;
    }
    ui_goto_slice(ui, ri, s);
}

static void comm_init(struct view *v)
{
    static const char *const name_keys[] = { "name", "src_rank" };
    static const char *const answer_keys[] = { "elapse_ms wait_ms transit_ms rank step",
                                              "dst_rank transport bandwidth_gbps slow time_ms size_mb" };
    static const struct vt_modes_spec spec = {
        .nmodes = 2, .build = comm_build, .enter = comm_enter,
        /* an op: how long it took and how much of that was waiting; a link: its speed */
        .name_keys = name_keys,
        .answer_keys = answer_keys,
        .hint = "Enter:op in timeline  t:ops/matrix  /:search  &:filter  <>:sort",
    };
    vt_modes_init(v, &spec);
}

const struct view_ops view_comm = {
    .name = "Comm", .open = REQ_VIEW_COMM, .help = "Communication view",
    .scopes = SCOPE_TABLE, .private_size = sizeof(struct vt_modes),
    .init = comm_init, .done = vt_modes_done, .draw = vt_modes_draw, .request = vt_modes_request,
    .data_changed = vt_modes_changed, .hint = vt_modes_hint,
};
