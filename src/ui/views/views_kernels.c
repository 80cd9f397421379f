/* The Kernels view (device kernels aggregated by name, type or accelerator core, with a
 * drill-down to the instances of one aggregate and a jump to the timeline) and the Ops
 * view (host operators, CANN APIs, step trace rows). Both are vtable widgets over rowsets
 * of model/analysis/kernels.h, rebuilt for the current rank when parts are installed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/analysis/kernels.h"
#include "model/host/host_ops.h"
#include "model/index/table.h"
#include "ui/shell/draw.h"
#include "ui/table/view_table.h"
#include "util/demangle.h"

/* --- Kernels ------------------------------------------------------------------------- */

struct kview {
    struct vtable agg, inst;
    int mode;                   /* enum kernels_group */
    bool drill;                 /* the instances are shown */
    char drill_text[512];       /* the aggregate's key text */
    int drill_mode;
    bool stale;
    bool from_model;            /* aggregates come from the trace's device lanes */
};

static struct kview *kv_of(struct view *v) { return v->priv; }

static const char *const group_key[] = { "name", "type", "core" };
static const char *const group_word[] = { "names", "types", "core kinds" };

static const struct table *kernel_table(struct rank_data *rd)
{
    const struct table *t = rd ? rd->tables[TK_KERNELS] : NULL;
    return t && t->nrows ? t : NULL;
}

static bool has_device_lanes(const struct model *m)
{
    if (!m || !m->finalized)
        return false;
    for (uint32_t l = 0; l < m->nlanes; l++)
        if (m->lanes[l].kind == LANE_DEVICE && m->lanes[l].count)
            return true;
    return false;
}

static void agg_caption(struct ui *ui, struct kview *k, struct rank_data *rd)
{
    const struct rowset *rs = k->agg.rs;
    uint64_t calls = 0;
    ns_t total = 0;
    size_t cc = rs ? rowset_find_col(rs, "count") : SIZE_MAX, ct = rs ? rowset_find_col(rs, "total_us") : SIZE_MAX;
    for (size_t r = 0; rs && r < rs->nrows; r++) {
        if (cc != SIZE_MAX && !rowset_is_null(rs, r, cc))
            calls += (uint64_t)rowset_cell(rs, r, cc)->i;
        if (ct != SIZE_MAX && !rowset_is_null(rs, r, ct))
            total += rowset_cell(rs, r, ct)->i;
    }
    char a[32], b[32], d[32], note[256] = "";
    if (!k->from_model)
        kernels_count_note(rd, calls, note, sizeof note);
    snprintf(k->agg.caption, sizeof k->agg.caption, "Kernels (rank %d, %s %s, %s calls, kernel time %s)  from %s%s",
             rd->rank, vt_thousands(rs ? rs->nrows : 0, a, sizeof a), group_word[k->mode],
             vt_thousands(calls, b, sizeof b), fmt_dur(total, d, sizeof d),
             k->from_model ? "the trace" : "the kernel table", note);
    (void)ui;
}

static void build_agg(struct view *v)
{
    struct kview *k = kv_of(v);
    struct ui *ui = v->ui;
    struct rank_data *rd = ui_rank(ui);
    k->agg.origin = k->inst.origin = vt_origin(ui);
    if (!rd) {
        vt_set(&k->agg, NULL);
        snprintf(k->agg.caption, sizeof k->agg.caption, "Kernels");
        vt_empty(&k->agg, "no rank loaded yet");
        return;
    }
    const struct table *t = kernel_table(rd);
    struct rowset *rs = NULL;
    k->from_model = false;
    if (t) {
        rs = kernels_aggregate(t, (enum kernels_group)k->mode);
        if (!rs && k->mode != KG_NAME)
            vt_empty(&k->agg, "the kernel table of rank %d has no %s column", rd->rank, k->mode == KG_TYPE ? "Type" : "Accelerator Core");
    } else if (has_device_lanes(rd->model)) {
        k->from_model = true;
        if (k->mode == KG_NAME)
            rs = kernels_aggregate_model(rd->model);
        else
            vt_empty(&k->agg, "rank %d has no kernel table (kernel_details.csv, op_summary, DB): kernels by %s need one; t switches back to names",
                     rd->rank, k->mode == KG_TYPE ? "type" : "core");
    } else if (rd->digest) {
        vt_empty(&k->agg, "rank %d was read from a summary (%s): its kernels stay on its host; Overview (1) has its "
                 "top kernels", rd->rank, rd->status);
    } else {
        bool loading = ui->load.loading;
        vt_empty(&k->agg, loading ? "rank %d: kernels not loaded yet" : "rank %d has no kernel table and no device lanes in its timeline",
                 rd->rank);
    }
    bool first = !k->agg.rs;
    k->agg.name_key = group_key[k->mode];
    vt_set(&k->agg, rs);
    if (rs && first && k->agg.sort_col == SIZE_MAX) {
        vt_sort_key(&k->agg, "total_us", true);
        k->agg.sel = k->agg.top = 0;      /* a fresh table starts at its top */
    }
    agg_caption(ui, k, rd);
    if (!rs)
        snprintf(k->agg.caption, sizeof k->agg.caption, "Kernels (rank %d, by %s)", rd->rank, group_key[k->mode]);
}

static void build_inst(struct view *v)
{
    struct kview *k = kv_of(v);
    struct rank_data *rd = ui_rank(v->ui);
    struct rowset *rs = NULL;
    const struct table *t = kernel_table(rd);
    if (t)
        rs = kernels_instances_of(t, k->drill_mode, k->drill_text);
    else if (rd && has_device_lanes(rd->model) && k->drill_mode == KG_NAME)
        rs = kernels_instances_model(rd->model, k->drill_text);
    bool first = !k->inst.rs;
    vt_set(&k->inst, rs);
    if (rs && first) {
        size_t c = rowset_find_col(rs, "start_time_us");
        if (c == SIZE_MAX)
            c = rowset_find_col(rs, "start_us");
        vt_sort(&k->inst, c, false);
        k->inst.sel = k->inst.top = 0;
    }
    size_t joined = 0;
    for (size_t r = 0; rs && r < rs->nrows; r++)
        joined += rs->link[r] != UINT64_MAX;
    char a[32], e[600];
    draw_escape(demangle_shown(k->drill_text), SIZE_MAX, e, sizeof e);
    snprintf(k->inst.caption, sizeof k->inst.caption, "Instances of %s %s (rank %d, %s calls, %zu in the timeline)   Enter: timeline  Esc: back",
             k->drill_mode == KG_NAME ? "kernel" : k->drill_mode == KG_TYPE ? "type" : "core", e,
             rd ? rd->rank : 0, vt_thousands(rs ? rs->nrows : 0, a, sizeof a), joined);
    if (!rs)
        vt_empty(&k->inst, "no instances to show");
}

static void kernels_refresh(struct view *v)
{
    struct kview *k = kv_of(v);
    if (!k->stale)
        return;
    k->stale = false;
    build_agg(v);
    if (k->drill)
        build_inst(v);
}

static void kernels_init(struct view *v)
{
    struct kview *k = kv_of(v);
    vt_init(&k->agg);
    vt_init(&k->inst);
    /* which kernels take the time: their total (the sort), calls, mean and share; an
     * instance: when and how long */
    k->agg.answer_keys = "count mean_us share";
    k->inst.name_key = "name op_name";
    k->inst.answer_keys = "duration_us task_duration_us dur_us start_time_us start_us";
    k->mode = KG_NAME;
    k->stale = true;
}

static void kernels_done(struct view *v)
{
    struct kview *k = kv_of(v);
    vt_free(&k->agg);
    vt_free(&k->inst);
}

static void kernels_changed(struct view *v)
{
    kv_of(v)->stale = true;
}

static void kernels_draw(struct view *v, WINDOW *w)
{
    struct kview *k = kv_of(v);
    kernels_refresh(v);
    werase(w);
    vt_draw(k->drill ? &k->inst : &k->agg, w, 0, getmaxy(w));
}

static enum request kernels_request(struct view *v, enum request req, int key)
{
    struct kview *k = kv_of(v);
    struct ui *ui = v->ui;
    kernels_refresh(v);
    struct vtable *t = k->drill ? &k->inst : &k->agg;
    req = vt_request(v, t, req, key);
    if (vt_drill_back(&k->drill, req, key))
        return REQ_NONE;
    switch (req) {
    case REQ_ENTER: {
        size_t row = vt_selected(t);
        if (row == SIZE_MAX)
            return REQ_NONE;
        if (k->drill) {
            uint64_t link = t->rs->link[row];
            struct rank_data *rd = ui_rank(ui);
            const struct model *m = rd ? rd->model : NULL;
            if (link == UINT64_MAX && m && m->finalized) {
                /* not joined to a device slice (a collective runs on the communication
                 * lanes): the slice of the same name nearest to the row's start */
                const char *name = vt_text(t, row, "name");
                int64_t start = NS_NONE;
                if (!vt_int(t, row, "start_time_us", &start))
                    vt_int(t, row, "start_us", &start);
                uint32_t s = vt_find_slice(m, name, LANE_OTHER, start);
                if (s != SLICE_NONE) {
                    ui_goto_slice(ui, ui->rank, s);
                    ui_message(ui, "matched by name and start time (not a device-lane kernel)");
                    return REQ_NONE;
                }
            }
            vt_goto_slice(ui, link, "this kernel");
            return REQ_NONE;
        }
        const char *text = vt_text(t, row, group_key[k->mode]);
        if (!text) {
            ui_error(ui, "this row has no %s", group_key[k->mode]);
            return REQ_NONE;
        }
        snprintf(k->drill_text, sizeof k->drill_text, "%s", text);
        k->drill_mode = k->mode;
        k->drill = true;
        vt_set(&k->inst, NULL);    /* a fresh table: sort by start, no filter */
        if (k->inst.re_on) {
            regfree(&k->inst.re);
            k->inst.re_on = false;
        }
        build_inst(v);
        return REQ_NONE;
    }
    case REQ_TABLE_MODE:
        if (k->drill)
            return REQ_NONE;
        k->mode = (k->mode + 1) % 3;
        vt_set(&k->agg, NULL);     /* a fresh table: sorted as build_agg sorts one */
        k->stale = true;
        kernels_refresh(v);
        ui_message(ui, "kernels by %s", group_key[k->mode]);
        return REQ_NONE;
    default:
        return req;
    }
}

static const char *kernels_hint(struct view *v)
{
    return kv_of(v)->drill ? VT_DRILL_HINT
                           : "Enter:instances  t:name/type/core  /:search  &:filter  <>:sort  e:export";
}

const struct view_ops view_kernels = {
    .name = "Kernels", .open = REQ_VIEW_KERNELS, .help = "Kernels view",
    .scopes = SCOPE_TABLE, .private_size = sizeof(struct kview), .rank_timeline = true,
    .init = kernels_init, .done = kernels_done, .draw = kernels_draw, .request = kernels_request,
    .data_changed = kernels_changed, .hint = kernels_hint,
};

/* --- Ops ------------------------------------------------------------------------------ */

enum { OM_TRACE_OPS, OM_OPS, OM_APIS, OM_STEP_TRACE, OM_COUNT };
static const char *const om_name[] = { "host operators (trace)", "operator_details", "CANN APIs", "step trace" };

_Static_assert(OM_COUNT <= VT_MODES_MAX, "one vtable per Ops table");

/* The Ops view: its tables, and the input shapes of the rank's host operators, read on a
 * thread (io/load/shapes_job.h) while the table shows the rows per name. */
struct ops_view {
    struct vt_modes modes;           /* first: vt_modes_of(v) is the view's priv */
    struct shapes_job *job;          /* reading; NULL: none */
    const struct model *shapes_of;   /* the model shapes (or job) are of */
    struct host_shapes *shapes;      /* NULL: not read (yet, or memory ran out) */
    char shapes_err[400];
};

/* Starts reading the shapes of m when they are not read or being read. */
static void ops_shapes_want(struct view *v, struct ops_view *ov, const struct model *m)
{
    if (ov->shapes_of == m)
        return;
    shapes_job_stop(ov->job);
    host_shapes_free(ov->shapes);
    ov->job = NULL;
    ov->shapes = NULL;
    ov->shapes_err[0] = 0;
    ov->shapes_of = m;
    if (m)
        ov->job = shapes_job_start(m, v->ui->wake_fd);
}

static void ops_build(struct view *v)
{
    struct vt_modes *o = vt_modes_of(v);
    struct rank_data *rd = ui_rank(v->ui);
    struct vtable *t = &o->tab[o->mode];
    t->origin = vt_origin(v->ui);
    struct rowset *rs = NULL;
    const char *what = "";
    if (rd) {
        switch (o->mode) {
        case OM_TRACE_OPS: {
            struct ops_view *ov = (struct ops_view *)o;
            if (rd->model && !v->ui->load.loading)
                ops_shapes_want(v, ov, rd->model);
            struct host_shapes *sh = ov->shapes_of == rd->model ? ov->shapes : NULL;
            rs = rd->model ? host_ops_session_rowset(&(struct session){ .ranks = rd, .nranks = 1 }, -1, &sh) : NULL;
            what = "the trace";
            break;
        }
        case OM_OPS:
            rs = kernels_operator_details(rd->tables[TK_OPERATOR_DETAILS]);
            what = "operator_details";
            if (!rs && rd->tables[TK_OP_STATISTIC]) {
                rs = table_to_rowset(rd->tables[TK_OP_STATISTIC], "op_statistic");
                what = "op_statistic (no operator_details)";
            }
            break;
        case OM_APIS:
            rs = kernels_api_statistic(rd->tables[TK_API_STATISTIC]);
            what = "api_statistic";
            break;
        default:
            rs = kernels_step_trace(rd->tables[TK_STEP_TRACE]);
            what = "step_trace_time";
            break;
        }
    }
    bool first = !t->rs;
    vt_set(t, rs);
    if (rs && first && o->mode != OM_STEP_TRACE) {
        if (rowset_find_col(rs, "host_total_us") != SIZE_MAX)
            vt_sort_key(t, "host_total_us", true);
        else
            vt_sort_key(t, "total_us", true);
        t->sel = t->top = 0;
    }
    char a[32];
    char agree[160] = "";
    if (o->mode == OM_TRACE_OPS && rs)
        host_ops_vs_details(rd, agree, sizeof agree);
    struct ops_view *ov = (struct ops_view *)o;
    /* the rows are per name until the shapes are read, then per name and shapes */
    const char *shapes = o->mode != OM_TRACE_OPS || !rs ? ""
                       : ov->job ? " (input shapes: reading…)"
                       : ov->shapes && ov->shapes->recorded ? " per name and input shapes"
                       : ov->shapes ? " (no input shapes recorded)" : "";
    if (agree[0] && ov->job)   /* the rows change when the shapes are in: that first */
        snprintf(t->caption, sizeof t->caption, "Ops: %s from the trace%s, %s", vt_thousands(rs->nrows, a, sizeof a),
                 shapes, agree);
    else if (agree[0])   /* what the trace says against the table, first: it is what a reader asks */
        snprintf(t->caption, sizeof t->caption, "Ops: %s from the trace, %s;%s", vt_thousands(rs->nrows, a, sizeof a),
                 agree, shapes);
    else
        snprintf(t->caption, sizeof t->caption, "Ops: %s (rank %d, %s rows from %s%s)   t: trace ops / operator_details / APIs / step trace",
                 om_name[o->mode], rd ? rd->rank : 0, vt_thousands(rs ? rs->nrows : 0, a, sizeof a), what, shapes);
    if (!rs && rd && rd->digest)
        vt_empty(t, "rank %d was read from a summary (%s): its %s table stays on its host", rd->rank, rd->status, what);
    else if (!rs && o->mode == OM_TRACE_OPS)
        vt_empty(t, "rank %d has no host operator in its trace%s", rd ? rd->rank : 0,
                 v->ui->load.loading ? " (yet: still loading)" : "");
    else if (!rs)
        vt_empty(t, "rank %d has no %s table%s", rd ? rd->rank : 0, what,
                 v->ui->load.loading ? " (yet: still loading)" : "");
}

/* Enter: the longest call of the row's name anywhere in the timeline. */
static void ops_enter(struct view *v, struct vtable *t, size_t row)
{
    const char *name = row != SIZE_MAX ? vt_text(t, row, "name") : NULL;
    struct rank_data *rd = ui_rank(v->ui);
    if (!name) {
        ui_error(v->ui, "this row names nothing to find in the timeline");
        return;
    }
    uint32_t s = rd ? vt_find_slice(rd->model, name, LANE_OTHER, NS_NONE) : SLICE_NONE;
    if (s == SLICE_NONE)
        ui_error(v->ui, "%s is not in the timeline", name);
    else
        ui_goto_slice(v->ui, v->ui->rank, s);
}

static void ops_init(struct view *v)
{
    static const char *const name_keys[] = { "name", "name", "name", "step" };
    static const char *const answer_keys[] = { "calls host_total_us device_us kernels",
                                               "count host_total_us device_total_us", "count total_us avg_us max_us",
                                               "computing_us communication_not_overlapped_us free_us" };
    _Static_assert(sizeof name_keys / sizeof *name_keys == OM_COUNT, "a name column per Ops table");
    static const struct vt_modes_spec spec = {
        .nmodes = OM_COUNT, .build = ops_build, .enter = ops_enter, .titles = om_name,
        .name_keys = name_keys,
        .answer_keys = answer_keys,
        .hint = "Enter:longest call in timeline  t:trace ops/operator_details/APIs/step trace  /:search  &:filter",
    };
    vt_modes_init(v, &spec);
}

/* The shapes read: the trace table again, now per name and shapes. */
static void ops_draw(struct view *v, WINDOW *w)
{
    struct ops_view *ov = v->priv;
    if (ov->job && shapes_job_done(ov->job)) {
        ov->shapes = shapes_job_take(ov->job, ov->shapes_err, sizeof ov->shapes_err);
        shapes_job_stop(ov->job);
        ov->job = NULL;
        if (ov->shapes_err[0])
            ui_error(v->ui, "input shapes not read: %s", ov->shapes_err);
        if (ov->modes.mode == OM_TRACE_OPS)
            ov->modes.stale = true;
    }
    vt_modes_draw(v, w);
}

/* Another rank or new parts: the reading stops before the model it reads can go. */
static void ops_changed(struct view *v)
{
    struct ops_view *ov = v->priv;
    struct rank_data *rd = ui_rank(v->ui);
    if (ov->shapes_of && (!rd || rd->model != ov->shapes_of))
        ops_shapes_want(v, ov, NULL);
    vt_modes_changed(v);
}

static void ops_done(struct view *v)
{
    ops_shapes_want(v, v->priv, NULL);
    vt_modes_done(v);
}

const struct view_ops view_operators = {
    .name = "Ops", .open = REQ_VIEW_OPS, .help = "Ops view (host operators)",
    .scopes = SCOPE_TABLE, .private_size = sizeof(struct ops_view), .rank_timeline = true,
    .init = ops_init, .done = ops_done, .draw = ops_draw, .request = vt_modes_request,
    .data_changed = ops_changed, .hint = vt_modes_hint,
};
