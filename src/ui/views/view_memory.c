/* The Memory view: who holds the device memory of the current rank, when, and what peaks it.
 *
 *   caption   the peak (component, MB, when), the reserved peak, static memory, counts
 *   ruler     the timeline's own time axis: zoom, pan and the cursor are shared with the
 *             Timeline view, so moving either moves the other
 *   curves    one row per component and kind (allocated / reserved / active), memory_record
 *             first, then npu_mem, then the npu_module_mem modules that hold memory; each
 *             column the largest value in its time (the last value carried over), scaled to
 *             the row's peak
 *   cursor    the values of every curve at the cursor
 *   table     `t` cycles: operators alive at the peak, alive at the cursor, by size, by
 *             size x lifetime, static vs dynamic, static allocations, every rank compared
 *
 * Figures come from model/analysis/memory.h and model/rowsets/memory_rowsets.h (the report's definitions).
 * A frame costs O(curve rows x (columns + log points)). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/analysis/memory.h"
#include "model/rowsets/memory_rowsets.h"
#include "ui/shell/draw.h"
#include "ui/timeline/lanedraw.h"
#include "ui/timeline/timeline.h"
#include "ui/table/view_table.h"

enum mv_mode { MV_PEAK, MV_CURSOR, MV_SIZE, MV_COST, MV_SPLIT, MV_STATIC, MV_RANKS, MV_NMODES };

static const char *const mode_names[MV_NMODES] = {
    "operators alive at the peak", "operators alive at the cursor", "operators by size",
    "operators by size x lifetime", "static vs dynamic memory", "static allocations (static_op_mem)",
    "every rank compared",
};

struct mv_row { uint32_t series; uint8_t kind; };

/* Rows of the rankings on screen: enough to scroll, bounded for captures of millions */
#define MV_TOP 100000

struct mview {
    struct vtable tab;
    enum mv_mode mode;
    const struct memory *built_for;
    enum mv_mode built_mode;
    ns_t built_t;               /* cursor time the alive table was built for */
    struct mv_row *rows;
    size_t nrows;
    struct time_axis own;       /* the axis when there is no timeline to share */
    ns_t own_cur;
    bool own_fitted;
};

static struct mview *mv_of(struct view *v) { return v->priv; }

static const char *const kind_names[MK_COUNT] = { "alloc", "resv", "active" };

/* The timeline's state: its axis and cursor are the ones this view shows and moves. */
static struct timeline *timeline_state(struct ui *ui)
{
    struct view *tv = ui_view_of(ui, &view_timeline);
    return tv && tv->priv ? tl_of(tv) : NULL;
}

static const struct memory *cur_memory(struct ui *ui)
{
    struct rank_data *rd = ui_rank(ui);
    return rd ? rd->memory : NULL;
}

/* Axis and cursor in use: the timeline's when it has a model, else the view's own. */
static void axis_of(struct view *v, struct time_axis **ax, ns_t **cur, ns_t *origin)
{
    struct mview *p = mv_of(v);
    struct timeline *t = timeline_state(v->ui);
    if (t && t->m) {
        *ax = &t->ax;
        *cur = &t->cur_t;
        *origin = t->origin;
        return;
    }
    const struct memory *m = cur_memory(v->ui);
    ns_t lo = 0, hi = 0;
    if (m && memory_span(m, &lo, &hi) && !p->own_fitted) {
        time_axis_fit(&p->own, lo, hi);
        p->own_cur = lo;
        p->own_fitted = true;
    }
    *ax = &p->own;
    *cur = &p->own_cur;
    *origin = lo;
}

static bool row_wanted(const struct mem_series *s, int k)
{
    if (s->peak[k] == MEM_NONE)
        return false;
    /* modules that never hold memory would fill the screen with empty rows */
    return s->family != MF_MODULE || s->peak[k] > 0;
}

static void rebuild_rows(struct mview *p, const struct memory *m)
{
    free(p->rows);
    p->rows = NULL;
    p->nrows = 0;
    if (!m || !m->nseries)
        return;
    p->rows = calloc(m->nseries * MK_COUNT, sizeof *p->rows);
    if (!p->rows)
        return;
    for (int f = 0; f < MF_COUNT; f++)
        for (size_t i = 0; i < m->nseries; i++)
            for (int k = 0; k < MK_COUNT; k++)
                if ((int)m->series[i].family == f && row_wanted(&m->series[i], k))
                    p->rows[p->nrows++] = (struct mv_row){ (uint32_t)i, (uint8_t)k };
}

static ns_t peak_time(const struct memory *m)
{
    size_t s = memory_main_series(m);
    if (s == SIZE_MAX)
        return NS_NONE;
    enum mem_kind k;
    mem_series_peak(&m->series[s], &k);
    return m->series[s].peak_t[k];
}

/* Operators alive at t against the component's curve: allocated (or reserved) at t. */
static struct rowset *static_dynamic_rowset(const struct memory *m)
{
    struct rowset *rs = rowset_new("memory_split");
    if (!rs)
        return NULL;
    size_t c_kind = rowset_col(rs, "kind", "Kind", RS_STR, 0);
    size_t c_n = rowset_col(rs, "count", "Count", RS_INT, 0);
    size_t c_mb = rowset_col(rs, "mb", "MB", RS_NUM, 3);
    size_t c_what = rowset_col(rs, "what", "Measured as", RS_STR, 0);
    int64_t stat = memory_static_total(m);
    size_t r = rowset_row(rs);
    rowset_str(rs, r, c_kind, "static");
    rowset_int(rs, r, c_n, (int64_t)m->nstatics);
    rowset_num(rs, r, c_mb, (double)stat / 1048576.0);
    rowset_str(rs, r, c_what, "sum of static_op_mem sizes (reserved by static graphs for their whole run)");
    ns_t pt = peak_time(m);
    size_t alive = pt == NS_NONE ? 0 : memory_alive_at(m, pt, NULL, 0);
    uint32_t *idx = alive ? malloc(alive * sizeof *idx) : NULL;
    int64_t dyn = 0;
    if (idx) {
        memory_alive_at(m, pt, idx, alive);
        for (size_t i = 0; i < alive; i++)
            if (m->ops[idx[i]].size != MEM_NONE)
                dyn += m->ops[idx[i]].size;
        free(idx);
    }
    r = rowset_row(rs);
    rowset_str(rs, r, c_kind, "dynamic at the peak");
    rowset_int(rs, r, c_n, (int64_t)alive);
    rowset_num(rs, r, c_mb, (double)dyn / 1048576.0);
    rowset_str(rs, r, c_what, "sum of the operator allocations alive when the peak was reached");
    size_t s = memory_main_series(m);
    if (s != SIZE_MAX) {
        enum mem_kind k;
        int64_t pk = mem_series_peak(&m->series[s], &k);
        r = rowset_row(rs);
        char what[128];
        snprintf(what, sizeof what, "peak %s of %s (memory_record)", kind_names[k], memory_str(m, m->series[s].component));
        rowset_str(rs, r, c_kind, "peak");
        rowset_num(rs, r, c_mb, (double)pk / 1048576.0);
        rowset_str(rs, r, c_what, what);
    }
    return rs;
}

static void mv_refresh(struct view *v, ns_t cursor)
{
    struct mview *p = mv_of(v);
    struct ui *ui = v->ui;
    struct rank_data *rd = ui_rank(ui);
    const struct memory *m = cur_memory(ui);
    if (m != p->built_for) {
        rebuild_rows(p, m);
        p->own_fitted = false;
    }
    bool alive_mode = p->mode == MV_CURSOR;
    if (m == p->built_for && p->mode == p->built_mode && (!alive_mode || cursor == p->built_t) && p->tab.rs)
        return;
    p->built_for = m;
    p->built_mode = p->mode;
    p->built_t = cursor;
    p->tab.origin = vt_origin(ui);
    if (!m) {
        vt_set(&p->tab, NULL);
        if (!rd)
            vt_empty(&p->tab, "no rank loaded yet");
        else
            vt_empty(&p->tab, "rank %d has no memory data: memory_record.csv, operator_memory.csv and the DB "
                     "memory tables are written with profile_memory=True", rd->rank);
        return;
    }
    struct rowset *rs = NULL;
    switch (p->mode) {
    case MV_PEAK: {
        ns_t pt = peak_time(m);
        rs = pt == NS_NONE ? NULL : memory_alive_rowset(m, rd->rank, pt, 1000);
        break;
    }
    case MV_CURSOR: rs = memory_alive_rowset(m, rd->rank, cursor, 1000); break;
    case MV_SIZE: rs = memory_ops_top_rowset(m, rd->rank, MO_SIZE, MV_TOP); break;
    case MV_COST: rs = memory_ops_top_rowset(m, rd->rank, MO_COST, MV_TOP); break;
    case MV_SPLIT: rs = static_dynamic_rowset(m); break;
    case MV_STATIC: rs = memory_static_rowset(m, rd->rank, NULL); break;
    case MV_RANKS: rs = memory_ranks_rowset(ui->s, -1); break;
    default: break;
    }
    vt_set(&p->tab, rs);
    if (p->mode == MV_SIZE || p->mode == MV_COST || p->mode == MV_PEAK || p->mode == MV_CURSOR)
        vt_sort(&p->tab, SIZE_MAX, false);   /* keep the ranking's own order */
    if (!rs || !rs->nrows)
        vt_empty(&p->tab, "rank %d: no %s", rd->rank, mode_names[p->mode]);
}

/* Largest value of the curve within [a, b), else the last value before a (memory stays
 * at the last reported figure); MEM_NONE before the first point or after the last. */
static int64_t value_in(const struct mem_series *s, int k, ns_t a, ns_t b)
{
    if (!s->npts || a > s->t_last || b <= s->pts[0].t)
        return MEM_NONE;
    size_t i = mem_series_at(s, a);
    int64_t best = i != SIZE_MAX ? s->pts[i].v[k] : MEM_NONE;
    for (size_t j = i == SIZE_MAX ? 0 : i + 1; j < s->npts && s->pts[j].t < b; j++)
        if (s->pts[j].v[k] != MEM_NONE && (best == MEM_NONE || s->pts[j].v[k] > best))
            best = s->pts[j].v[k];
    return best;
}

static void fmt_mb(int64_t bytes, char *buf, size_t size)
{
    if (bytes == MEM_NONE)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.3f MB", (double)bytes / 1048576.0);
}

static void draw_caption(WINDOW *w, int cols, const struct memory *m, const struct rank_data *rd, ns_t origin)
{
    char line[512], a[64], t[64];
    size_t s = memory_main_series(m);
    int n = snprintf(line, sizeof line, "Memory (rank %d", rd->rank);
    if (s != SIZE_MAX) {
        enum mem_kind k;
        const struct mem_series *ps = &m->series[s];
        fmt_mb(mem_series_peak(ps, &k), a, sizeof a);
        n += snprintf(line + n, sizeof line - (size_t)n, ")  peak %s %s %s at %s", kind_names[k], memory_str(m, ps->component), a,
                      ps->peak_t[k] == NS_NONE ? "?" : fmt_dur(ps->peak_t[k] - origin, t, sizeof t));
        if (k == MK_ALLOCATED && ps->peak[MK_RESERVED] != MEM_NONE) {
            fmt_mb(ps->peak[MK_RESERVED], a, sizeof a);
            n += snprintf(line + n, sizeof line - (size_t)n, "  reserved peak %s", a);
        }
    } else {
        n += snprintf(line + n, sizeof line - (size_t)n, ")  no memory_record curve");
    }
    if (m->nstatics) {
        fmt_mb(memory_static_total(m), a, sizeof a);
        n += snprintf(line + n, sizeof line - (size_t)n, "  static %s", a);
    }
    n += snprintf(line + n, sizeof line - (size_t)n, "  %zu op allocations", m->nops);
    if (m->approx_cells)
        n += snprintf(line + n, sizeof line - (size_t)n, "  (E-notation times: approximate)");
    if (m->oom)
        snprintf(line + n, sizeof line - (size_t)n, "  (partial: out of memory)");
    draw_text(w, 0, 0, cols, line, SIZE_MAX, A_BOLD);
}

static void draw_curve(WINDOW *w, int y, int x0, const struct time_axis *ax, const struct mem_series *s, int k,
                       int64_t cur_col)
{
    double top = s->peak[k] > 0 ? (double)s->peak[k] : 1.0;
    attr_t a = draw_attr(s->family == MF_RECORD ? CP_COMPUTE : s->family == MF_NPU_MEM ? CP_COMM : CP_COUNTER);
    for (int c = 0; c < ax->ncols; c++) {
        ns_t t0 = time_axis_at(ax, c);
        int64_t v = value_in(s, k, t0, t0 + ax->npc);
        attr_t ca = c == cur_col ? a | A_REVERSE : a;
        if (v == MEM_NONE) {
            if (c == cur_col)
                draw_text(w, y, x0 + c, 1, draw_utf8 ? "\xe2\x94\x82" : "|", SIZE_MAX, draw_attr(CP_DIM));
            continue;
        }
        double f = v <= 0 ? 0.0 : (double)v / top;
        draw_text(w, y, x0 + c, 1, v <= 0 ? (draw_utf8 ? "\xe2\x96\x81" : "_") : lanedraw_shade(f), SIZE_MAX, ca);
    }
}

static int label_width(int cols)
{
    /* the timeline's rule, so the graph columns line up with it */
    int lw = cols / 5;
    if (lw > 30) lw = 30;
    if (lw < 12) lw = cols > 24 ? 12 : cols / 2;
    return lw;
}

static void mv_draw(struct view *v, WINDOW *w)
{
    struct mview *p = mv_of(v);
    struct ui *ui = v->ui;
    werase(w);
    int H = getmaxy(w), cols = getmaxx(w);
    struct rank_data *rd = ui_rank(ui);
    const struct memory *m = cur_memory(ui);
    struct time_axis *ax;
    ns_t *cur, origin;
    axis_of(v, &ax, &cur, &origin);
    mv_refresh(v, *cur);
    if (!m || !rd) {
        vt_draw(&p->tab, w, 0, H);
        return;
    }
    struct timeline *t = timeline_state(ui);
    int x0 = t && t->m && t->graph_x > 0 ? t->graph_x : label_width(cols) + 1;
    int W = cols - x0;
    if (W < 1)
        W = 1;
    time_axis_resize(ax, W);
    draw_caption(w, cols, m, rd, origin);
    struct ruler_opts ro = { .base = origin, .mode = t && t->m ? "timeline" : "memory", .cur_t = *cur };
    lanedraw_ruler(w, 1, x0, x0, ax, &ro);
    /* curves get at most half the body; the table the rest */
    int avail = H - 4 - 1;
    int ncurve = (int)p->nrows;
    int maxc = avail / 2 > 3 ? avail / 2 : 3;
    if (ncurve > maxc)
        ncurve = maxc;
    int64_t cc = time_axis_col(ax, *cur);
    for (int r = 0; r < ncurve; r++) {
        const struct mem_series *s = &m->series[p->rows[r].series];
        int k = p->rows[r].kind;
        char lab[96], pk[32];
        snprintf(pk, sizeof pk, "%.0f", (double)s->peak[k] / 1048576.0);
        snprintf(lab, sizeof lab, "%s%s %s", s->family == MF_MODULE ? "module " : s->family == MF_NPU_MEM ? "npu_mem " : "",
                 memory_str(m, s->component), kind_names[k]);
        int lw = x0 - 1 - (int)strlen(pk) - 1;
        draw_text(w, 3 + r, 0, lw > 1 ? lw : 1, lab, SIZE_MAX, draw_attr(CP_LABEL));
        if (lw > 1)
            draw_printf(w, 3 + r, lw + 1, (int)strlen(pk), draw_attr(CP_DIM), "%s", pk);
        draw_curve(w, 3 + r, x0, ax, s, k, cc);
    }
    int y = 3 + ncurve;
    if ((size_t)ncurve < p->nrows)
        draw_printf(w, y++, 0, cols, draw_attr(CP_DIM), "  ... %zu more curves (the report lists them all: aptop report --section memory)",
                    p->nrows - (size_t)ncurve);
    /* the values at the cursor */
    char line[1024], tb[64];
    int n = snprintf(line, sizeof line, "cursor %s:", fmt_dur(*cur - origin, tb, sizeof tb));
    for (size_t r = 0; r < p->nrows && n < (int)sizeof line - 64; r++) {
        const struct mem_series *s = &m->series[p->rows[r].series];
        int k = p->rows[r].kind;
        if (s->family != MF_RECORD)
            continue;
        size_t i = mem_series_at(s, *cur);
        if (i == SIZE_MAX || *cur > s->t_last || s->pts[i].v[k] == MEM_NONE)
            continue;
        n += snprintf(line + n, sizeof line - (size_t)n, "  %s %s %.3f MB", memory_str(m, s->component), kind_names[k],
                      (double)s->pts[i].v[k] / 1048576.0);
    }
    draw_text(w, y++, 0, cols, line, SIZE_MAX, A_NORMAL);
    /* the table's own caption says what it counts, how many it leaves out, which rank leads */
    const char *said = p->tab.rs && p->tab.rs->caption ? p->tab.rs->caption : NULL;
    snprintf(p->tab.caption, sizeof p->tab.caption, "[t] %s%s%s", mode_names[p->mode], said ? ": " : "",
             said ? said : "");
    if (y < H)
        vt_draw(&p->tab, w, y, H - y);
}

static void goto_peak(struct view *v)
{
    struct mview *p = mv_of(v);
    const struct memory *m = cur_memory(v->ui);
    ns_t pt = m ? peak_time(m) : NS_NONE;
    if (pt == NS_NONE) {
        ui_message(v->ui, "no memory peak on this rank");
        return;
    }
    struct time_axis *ax;
    ns_t *cur, origin;
    axis_of(v, &ax, &cur, &origin);
    *cur = pt;
    if (!time_axis_shows(ax, pt))
        time_axis_center(ax, pt);
    p->mode = MV_PEAK;
    char tb[64];
    ui_message(v->ui, "cursor on the memory peak at %s (the Timeline shows the same time)", fmt_dur(pt - origin, tb, sizeof tb));
}

static void open_row(struct view *v)
{
    struct mview *p = mv_of(v);
    struct ui *ui = v->ui;
    const struct memory *m = cur_memory(ui);
    size_t row = vt_selected(&p->tab);
    if (!m || row == SIZE_MAX || !p->tab.rs)
        return;
    uint64_t link = p->tab.rs->link[row];
    if (p->mode == MV_PEAK || p->mode == MV_CURSOR || p->mode == MV_SIZE || p->mode == MV_COST) {
        if (link >= m->nops)
            return;
        const struct mem_op *op = &m->ops[link];
        ns_t a = op->alloc, b = op->release;
        if (a == NS_NONE && b == NS_NONE) {
            ui_message(ui, "this allocation has no time");
            return;
        }
        if (a == NS_NONE) a = b;
        if (b == NS_NONE) b = a;
        struct timeline *t = timeline_state(ui);
        if (!t || !t->m) {
            ui_message(ui, "rank has no timeline to show this allocation on");
            return;
        }
        ui_goto_range(ui, ui->rank, a, b > a ? b : a + 1);
        ui_message(ui, "timeline at %s: allocated %s, released %s", memory_str(m, op->name),
                   op->alloc == NS_NONE ? "before the window" : "here", op->release == NS_NONE ? "after the window" : "here");
    }
}

static enum request mv_request(struct view *v, enum request req, int key)
{
    struct mview *p = mv_of(v);
    struct time_axis *ax;
    ns_t *cur, origin;
    axis_of(v, &ax, &cur, &origin);
    if (time_axis_request(ax, req, cur))
        return REQ_NONE;
    switch (req) {
    case REQ_PREV_SLICE: case REQ_NEXT_SLICE: {
        *cur += (req == REQ_NEXT_SLICE ? 1 : -1) * ax->npc;
        if (!time_axis_shows(ax, *cur))
            time_axis_pan(ax, req == REQ_NEXT_SLICE ? 1 : -1, &(ns_t){ 0 });
        return REQ_NONE;
    }
    case REQ_FIT: {
        const struct memory *m = cur_memory(v->ui);
        ns_t lo, hi;
        if (m && memory_span(m, &lo, &hi)) {
            time_axis_show(ax, lo, hi);
            if (!time_axis_shows(ax, *cur))
                *cur = lo;
        }
        return REQ_NONE;
    }
    case REQ_MEM_PEAK: goto_peak(v); return REQ_NONE;
    case REQ_TABLE_MODE:
        p->mode = (enum mv_mode)((p->mode + 1) % MV_NMODES);
        return REQ_NONE;
    case REQ_SEARCH: req = REQ_FILTER; break;
    case REQ_ENTER: open_row(v); return REQ_NONE;
    default: break;
    }
    return vt_request(v, &p->tab, req, key);
}

static void mv_init(struct view *v)
{
    vt_init(&mv_of(v)->tab);    /* without a table the first refresh builds one */
}

static void mv_done(struct view *v)
{
    struct mview *p = mv_of(v);
    vt_free(&p->tab);
    free(p->rows);
}

static void mv_changed(struct view *v)
{
    struct mview *p = mv_of(v);
    p->built_for = NULL;
    p->built_mode = MV_NMODES;
    p->own_fitted = false;
    rebuild_rows(p, cur_memory(v->ui));
}

static const char *mv_hint(struct view *v)
{
    (void)v;
    return "p:peak t:table h/l:cursor w/s a/d:zoom/pan Enter:timeline";
}

const struct view_ops view_memory = {
    .name = "Memory", .open = REQ_VIEW_MEMORY,
    .help = "Memory view (curves on the timeline's axis, peak, operators)", .own_scope = SCOPE_MEMORY,
    .scopes = SCOPE_TIMELINE | SCOPE_TABLE | SCOPE_MEMORY,
    .private_size = sizeof(struct mview), .rank_timeline = true,
    .init = mv_init, .done = mv_done, .draw = mv_draw, .request = mv_request,
    .data_changed = mv_changed, .hint = mv_hint,
};
