/* The cross-rank timeline: one lane of every rank stacked on one time axis, so the ranks'
 * compute and communication can be compared side by side.
 *
 * Rows: one per rank of the session, showing the lane chosen by `L` (the busiest Ascend
 * Hardware stream, the communication lane, the Overlap Analysis "Computing" lane, or a lane
 * picked by name on the current rank and found by the same name on every rank).
 * Time: raw (each rank's own clock) or aligned (`A`): each rank's times shifted by the
 * offset that lines up the end of the same collective on every rank (comm_align_offsets);
 * the header shows the offsets used. View time = rank time + shift of that rank.
 * A frame costs O(rows x columns x log n), like the timeline: the rows are drawn by the
 * timeline's lane drawer (lanedraw.c) on depth 0 of the row's lane, shifted to view time. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/analysis/comm.h"
#include "ui/shell/draw.h"
#include "ui/timeline/lanedraw.h"
#include "ui/shell/view.h"
#include "util/grow.h"
#include "util/search.h"
#include "util/free_all.h"

#define NAME_MAX_LEN 256

enum xl_choice { XL_MAIN, XL_COMM, XL_COMPUTING, XL_NAMED, XL_COUNT };

struct xr_row {
    size_t rank;                /* index into s->ranks */
    const struct model *m;      /* borrowed; NULL while the rank has no timeline */
    uint32_t lane;              /* LANE_NONE when the rank has no such lane */
};

struct xrank {
    struct xr_row *rows;
    size_t nrows, cap, row, top;
    size_t no_model;            /* ranks left out: no timeline (yet) */
    size_t last_rank;           /* ui->rank at the last data change */
    uint64_t sig;               /* which models and comms the rows and offsets came from */

    int choice;                 /* enum xl_choice */
    char want_proc[NAME_MAX_LEN], want_thread[NAME_MAX_LEN];   /* XL_NAMED */
    bool want_device;           /* XL_NAMED on a device lane: another rank's device of that lane name */
    uint32_t *pick_lanes;       /* lanes offered by the name pick list */
    const struct model *pick_m;

    bool aligned;
    bool have_offsets;          /* offsets below match sig */
    int method, ref;            /* comm_align_offsets result */
    ns_t *off;                  /* per session rank */
    size_t *matches;
    size_t noff;

    struct time_axis ax;        /* viewport in view time */
    ns_t cur_t, origin;
    int graph_x, rows_y, rows_h;
    bool fitted;
};

static struct xrank *xr_of(struct view *v) { return v->priv; }
static void geometry(struct xrank *x, int cols);

static const char *arrow(void) { return draw_utf8 ? "\xe2\x96\xb8" : ">"; }

/* --- time shifts and geometry --------------------------------------------------------- */

static ns_t shift_of(const struct xrank *x, size_t rank)
{
    return x->aligned && x->have_offsets && rank < x->noff ? x->off[rank] : 0;
}

/* Span of the rows' models in view time; false when no row has data. */
static bool span_of(const struct xrank *x, ns_t *lo, ns_t *hi)
{
    bool any = false;
    for (size_t i = 0; i < x->nrows; i++) {
        const struct model *m = x->rows[i].m;
        ns_t a, b;
        if (!model_time_span(m, &a, &b))
            continue;
        ns_t sh = shift_of(x, x->rows[i].rank);
        a += sh;
        b += sh;
        if (!any || a < *lo) *lo = a;
        if (!any || b > *hi) *hi = b;
        any = true;
    }
    return any;
}

static void fit(struct xrank *x)
{
    ns_t lo = 0, hi = 0;
    bool any = span_of(x, &lo, &hi);
    time_axis_fit(&x->ax, lo, hi);
    if (!any || hi <= lo || !time_axis_shows(&x->ax, x->cur_t))
        x->cur_t = x->ax.t0;
}

/* --- lane choice ------------------------------------------------------------------------ */

static const char *choice_name(int c)
{
    switch (c) {
    case XL_MAIN: return "main compute stream (most compute kernel time)";
    case XL_COMM: return "communication lane";
    case XL_COMPUTING: return "Overlap Analysis Computing";
    default: return "by name";
    }
}

/* Device tasks that compute nothing: collectives and the waits, signals and copies of the
 * communication streams (HCCL's Notify Wait, Write Value, SDMA/RDMA tasks), events, and the
 * profiler's own start and stop. A stream of these is busy without being the main stream. */
static bool no_compute(const char *n)
{
    static const char *const pre[] = { "hcom_", "Notify", "Write Value", "SDMA", "RDMA", "EVENT_",
                                       "PROFILING_", "Reduce Inline", "Memcpy", "Wait", "Record" };
    if (!strncasecmp(n, "hccl", 4))
        return true;
    for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
        if (!strncmp(n, pre[i], strlen(pre[i])))
            return true;
    return false;
}

/* The main compute stream: the device lane with the most time in compute kernels (by
 * count of slices it would be the HCCL stream, full of short waits); the busiest lane by
 * slices when no lane has any compute kernel. */
static uint32_t busiest_device_lane(const struct model *m)
{
    uint32_t nstr = strtab_count(m->str);
    uint8_t *kind = calloc(nstr ? nstr : 1, 1);   /* per name: 0 unknown, 1 compute, 2 not */
    uint32_t best = LANE_NONE, most = LANE_NONE;
    ns_t best_t = 0;
    for (uint32_t i = 0; i < m->nlanes; i++) {
        const struct lane *l = &m->lanes[i];
        if (l->kind != LANE_DEVICE || !l->count)
            continue;
        if (most == LANE_NONE || l->count > m->lanes[most].count)
            most = i;
        ns_t t = 0;
        for (uint32_t k = l->first; kind && k < l->first + l->count; k++) {
            uint32_t nm = m->name[k];
            if (nm < nstr && !kind[nm])
                kind[nm] = no_compute(model_str(m, nm)) ? 2 : 1;
            if (nm < nstr && kind[nm] == 1)
                t += m->dur[k];
        }
        if (t > best_t) {
            best_t = t;
            best = i;
        }
    }
    free(kind);
    return best != LANE_NONE ? best : most;
}

/* The first communication lane in display order with slices, "Plane" lanes (small tasks)
 * only when nothing else has any. */
static uint32_t comm_lane(const struct model *m)
{
    uint32_t plane = LANE_NONE;
    for (uint32_t k = 0; k < m->nlanes; k++) {
        uint32_t i = m->lane_order ? m->lane_order[k] : k;
        const struct lane *l = &m->lanes[i];
        if (l->kind != LANE_COMM || !l->count)
            continue;
        if (strncmp(model_str(m, l->name), "Plane", 5))
            return i;
        if (plane == LANE_NONE)
            plane = i;
    }
    return plane;
}

static uint32_t computing_lane(const struct model *m)
{
    for (uint32_t k = 0; k < m->nlanes; k++) {
        uint32_t i = m->lane_order ? m->lane_order[k] : k;
        const struct lane *l = &m->lanes[i];
        if (l->kind == LANE_OVERLAP && !strncmp(model_str(m, l->name), "Computing", 9))
            return i;
    }
    return LANE_NONE;
}

/* A device lane named `thread` on any device process: GPU ranks name their device after its
 * number ("GPU 3 (...)"), so the same stream is found by its own name on each rank. */
static uint32_t device_lane_named(const struct model *m, const char *thread)
{
    for (uint32_t l = 0; l < m->nlanes; l++)
        if (m->lanes[l].kind == LANE_DEVICE && !strcmp(model_str(m, m->lanes[l].name), thread))
            return l;
    return LANE_NONE;
}

static uint32_t lane_for(const struct xrank *x, const struct model *m)
{
    if (x->choice == XL_NAMED) {
        uint32_t l = model_find_lane(m, x->want_proc, x->want_thread);
        return l == LANE_NONE && x->want_device ? device_lane_named(m, x->want_thread) : l;
    }
    switch (x->choice) {
    case XL_MAIN: return busiest_device_lane(m);
    case XL_COMM: return comm_lane(m);
    case XL_COMPUTING: return computing_lane(m);
    default: return model_find_lane(m, x->want_proc, x->want_thread);
    }
}

/* --- data --------------------------------------------------------------------------------- */

static uint64_t parts_sig(const struct session *s)
{
    uint64_t h = 1469598103934665603ull ^ (s ? s->nranks : 0);
    for (size_t i = 0; s && i < s->nranks; i++) {
        const struct model *m = s->ranks[i].model;
        h = (h ^ (uint64_t)(uintptr_t)(m && m->finalized ? m : NULL)) * 1099511628211ull;
        h = (h ^ (uint64_t)(uintptr_t)s->ranks[i].comm) * 1099511628211ull;
    }
    return h;
}

/* One row per rank with a timeline; the cursor stays on its rank when rows come and go. */
static void rebuild_rows(struct xrank *x, const struct session *s)
{
    size_t n = s ? s->nranks : 0;
    size_t cur_rank = x->row < x->nrows ? x->rows[x->row].rank : SIZE_MAX;
    if (n > x->cap || !x->rows) {
        struct xr_row *r = grow_exact(x->rows, n, sizeof *r);
        if (!r)
            return;
        x->rows = r;
        x->cap = n;
    }
    x->nrows = 0;
    x->no_model = 0;
    for (size_t i = 0; i < n; i++) {
        const struct model *m = s->ranks[i].model;
        if (!m || !m->finalized) {
            x->no_model++;
            continue;
        }
        if (i == cur_rank)
            x->row = x->nrows;
        x->rows[x->nrows++] = (struct xr_row){ .rank = i, .m = m, .lane = lane_for(x, m) };
    }
    if (x->row >= x->nrows)
        x->row = x->nrows ? x->nrows - 1 : 0;
}

/* Puts the cursor on the row of session rank `rank`, when it has one. */
static void row_to_rank(struct xrank *x, size_t rank)
{
    for (size_t i = 0; i < x->nrows; i++)
        if (x->rows[i].rank == rank)
            x->row = i;
}

static void compute_offsets(struct xrank *x, const struct session *s)
{
    size_t n = s ? s->nranks : 0;
    x->have_offsets = false;
    x->method = ALIGN_NONE;
    x->ref = -1;
    if (n > x->noff) {
        ns_t *o = grow_exact(x->off, n, sizeof *o);
        if (o) x->off = o;
        size_t *mt = grow_exact(x->matches, n, sizeof *mt);
        if (mt) x->matches = mt;
        if (!o || !mt)
            return;
        x->noff = n;
    }
    if (!n)
        return;
    x->method = comm_align_offsets(s, x->off, x->matches, &x->ref);
    x->have_offsets = x->method != ALIGN_NONE;
}

/* The view's time origin: the earliest start over the rows, in view time. */
static void set_origin(struct xrank *x)
{
    ns_t lo = 0, hi = 0;
    if (span_of(x, &lo, &hi))
        x->origin = lo;
}

static void xr_data_changed(struct view *v)
{
    struct xrank *x = xr_of(v);
    struct ui *ui = v->ui;
    uint64_t sig = parts_sig(ui->s);
    if (sig != x->sig) {
        x->sig = sig;
        rebuild_rows(x, ui->s);
        if (x->aligned)
            compute_offsets(x, ui->s);
        else
            x->have_offsets = false;
        set_origin(x);
        if (x->ax.ncols > 0)
            geometry(x, x->graph_x + x->ax.ncols);
    }
    if (ui->rank != x->last_rank) {
        /* the cursor follows the rank chosen elsewhere (r / R, other views) */
        x->last_rank = ui->rank;
        row_to_rank(x, ui->rank);
    }
}

static void xr_init(struct view *v)
{
    struct xrank *x = xr_of(v);
    x->ax.npc = 1000;
    x->ref = -1;
    x->last_rank = v->ui->rank;
    x->sig = 0;
    xr_data_changed(v);
    row_to_rank(x, v->ui->rank);
}

static void xr_done(struct view *v)
{
    struct xrank *x = xr_of(v);
    FREE_ALL(x->rows, x->off, x->matches, x->pick_lanes);
}

/* --- drawing ---------------------------------------------------------------------------- */

/* The depth-0 slice of a row under view time `at`, or SLICE_NONE. */
static uint32_t slice_at(const struct xrank *x, const struct xr_row *r, ns_t at)
{
    if (!r->m || r->lane == LANE_NONE)
        return SLICE_NONE;
    ns_t own = at - shift_of(x, r->rank);
    uint32_t f, l;
    model_row_range(r->m, r->lane, 0, own, own + 1, &f, &l);
    return f < l ? f : SLICE_NONE;
}

static void draw_row(const struct xrank *x, WINDOW *w, int y, const struct xr_row *r, uint32_t sel)
{
    struct lane_ref ref = { .m = r->m, .lane = r->lane, .depth = 0, .shift = shift_of(x, r->rank) };
    struct lane_marks mk = { .sel = sel, .sel_cells = true, .flow = { SLICE_NONE, SLICE_NONE, SLICE_NONE } };
    lanedraw_row(w, y, x->graph_x, &x->ax, &ref, &mk);
}

static void draw_label(const struct xrank *x, const struct session *s, WINDOW *w, int y, size_t ri, int lw)
{
    const struct xr_row *r = &x->rows[ri];
    bool cur = ri == x->row;
    attr_t a = cur ? A_BOLD | A_REVERSE : A_NORMAL;
    draw_fill(w, y, 0, lw, " ", a);
    draw_text(w, y, 0, 1, cur ? ">" : " ", 1, a);
    const struct rank_data *rd = &s->ranks[r->rank];
    char head[48], buf[600];
    snprintf(head, sizeof head, "rank %d %s ", rd->rank, arrow());
    int px = 1 + draw_text(w, y, 1, lw - 2, head, SIZE_MAX, a | A_BOLD);
    if (r->m && r->lane != LANE_NONE) {
        lanedraw_lane_label(r->m, r->lane, buf, sizeof buf);
        const struct lane *l = &r->m->lanes[r->lane];
        if (draw_text_width(buf, SIZE_MAX) > lw - px - 1)   /* narrow: the lane's own name only */
            draw_text(w, y, px, lw - px - 1, model_str(r->m, l->name), strtab_len(r->m->str, l->name), a);
        else
            draw_text(w, y, px, lw - px - 1, buf, SIZE_MAX, a);
    } else {
        static const char *const none[XL_COUNT] = { "no Ascend Hardware stream", "no communication lane",
                                                    "no Computing lane", "no lane of that name" };
        snprintf(buf, sizeof buf, "(%s)", none[x->choice]);
        draw_text(w, y, px, lw - px - 1, buf, SIZE_MAX, a | draw_attr(CP_DIM));
    }
}

/* "+343.681 µs": an offset in µs, exact from ns. */
static const char *fmt_offset(ns_t ns, char *buf, size_t size)
{
    char sign = ns < 0 ? '-' : '+';
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    snprintf(buf, size, "%c%llu.%03llu %s", sign, (unsigned long long)(a / 1000),
             (unsigned long long)(a % 1000), draw_utf8 ? "µs" : "us");
    return buf;
}

static void draw_mode_line(const struct xrank *x, const struct session *s, WINDOW *w, int y, int cols)
{
    char line[2048];
    size_t o = 0;
    if (!x->aligned) {
        draw_printf(w, y, 1, cols - 2, A_NORMAL, "Time: raw timestamps, each rank's own clock   (A: align on collective ends)");
        return;
    }
    if (!x->have_offsets) {
        const char *why = !s || s->nranks < 2 ? "alignment needs two ranks"
                        : "alignment unavailable: no collective found on two ranks (no communication lanes or communication.json ops)";
        draw_printf(w, y, 1, cols - 2, draw_attr(CP_DIM), "Time: raw timestamps; %s", why);
        return;
    }
    size_t most = 0;
    for (size_t i = 0; i < x->noff && i < s->nranks; i++)
        if ((int)i != x->ref && x->matches[i] > most)
            most = x->matches[i];
    o += (size_t)snprintf(line + o, sizeof line - o, "Time: aligned on %zu collective ends (%s, reference rank %d):",
                          most, x->method == ALIGN_TIMELINE ? "communication slices" : "matched collectives",
                          x->ref >= 0 ? s->ranks[x->ref].rank : -1);
    for (size_t i = 0; i < x->noff && i < s->nranks && o < sizeof line - 64; i++) {
        char b[48];
        if ((int)i != x->ref && !x->matches[i])
            o += (size_t)snprintf(line + o, sizeof line - o, "  r%d unmatched", s->ranks[i].rank);
        else
            o += (size_t)snprintf(line + o, sizeof line - o, "  r%d %s", s->ranks[i].rank,
                                  fmt_offset(x->off[i], b, sizeof b));
    }
    draw_text(w, y, 1, cols - 2, line, SIZE_MAX, A_BOLD);
}

static void draw_ruler(const struct xrank *x, WINDOW *w, int y, int lw)
{
    struct ruler_opts o = { .base = x->origin, .mode = x->aligned && x->have_offsets ? "aligned" : "raw",
                            .cur_t = x->cur_t };
    lanedraw_ruler(w, y, x->graph_x, lw, &x->ax, &o);
}

/* The slice under the cursor on the current row: name, start (view time), duration. */
static void draw_detail(const struct xrank *x, const struct session *s, WINDOW *w, int y, int cols)
{
    if (x->row >= x->nrows)
        return;
    const struct xr_row *r = &x->rows[x->row];
    uint32_t sl = slice_at(x, r, x->cur_t);
    char b1[32], b2[32], b3[32];
    int px = 1 + draw_printf(w, y, 1, cols - 2, A_BOLD, "rank %d ", s->ranks[r->rank].rank);
    if (sl == SLICE_NONE) {
        draw_printf(w, y, px, cols - px - 1, draw_attr(CP_DIM), "no slice under the cursor at %s   "
                    "Enter: open this rank's timeline here", fmt_dur(x->cur_t - x->origin, b1, sizeof b1));
        return;
    }
    const struct model *m = r->m;
    ns_t sh = shift_of(x, r->rank);
    px += draw_text(w, y, px, cols - px - 1, model_str(m, m->name[sl]), strtab_len(m->str, m->name[sl]),
                    lanedraw_slice_attr(m, sl, NULL) | A_BOLD);
    char tail[160];
    int n = snprintf(tail, sizeof tail, "   start %s  dur %s", fmt_dur(m->start[sl] + sh - x->origin, b1, sizeof b1),
                     fmt_dur(m->dur[sl], b2, sizeof b2));
    if (sh && n > 0 && (size_t)n < sizeof tail)
        snprintf(tail + n, sizeof tail - (size_t)n, "  (own clock %s)", fmt_dur(m->start[sl] - x->origin, b3, sizeof b3));
    draw_text(w, y, px, cols - px - 1, tail, SIZE_MAX, A_NORMAL);
}

static int label_width(int cols)
{
    int lw = cols * 3 / 10;
    if (lw > 48) lw = 48;
    if (lw < 16) lw = cols > 32 ? 16 : cols / 2;
    return lw;
}

/* Columns from the body's width, and the first fit once there is data: done before keys
 * too, so keys typed before the first frame act on the fitted view. */
static void geometry(struct xrank *x, int cols)
{
    int lw = label_width(cols);
    x->graph_x = lw + 1;
    int W = cols - x->graph_x;
    if (W < 1) W = 1;
    time_axis_resize(&x->ax, W);
    ns_t lo, hi;
    if (!x->fitted && span_of(x, &lo, &hi)) {
        fit(x);
        x->fitted = true;
    }
}

static void xr_draw(struct view *v, WINDOW *w)
{
    struct xrank *x = xr_of(v);
    const struct session *s = v->ui->s;
    werase(w);
    int H = getmaxy(w), cols = getmaxx(w);
    int lw = label_width(cols);
    geometry(x, cols);
    /* the lane choice; a picked name is untrusted text, drawn escaped */
    char pre[160], nm[2 * NAME_MAX_LEN + 8];
    char left[96] = "";
    bool on_demand = v->ui->load.max_timelines > 0;   /* many ranks: timelines read when opened */
    if (x->no_model)
        snprintf(left, sizeof left, on_demand ? " (%zu whose timeline is not in memory)" : " (%zu without a timeline)",
                 x->no_model);
    snprintf(pre, sizeof pre, "X-Rank  %zu rank%s%s  lanes: %s ", x->nrows, x->nrows == 1 ? "" : "s", left,
             choice_name(x->choice));
    int px = 1 + draw_text(w, 0, 1, cols - 2, pre, SIZE_MAX, A_BOLD);
    if (x->choice == XL_NAMED) {
        snprintf(nm, sizeof nm, "%s %s %s", x->want_proc, arrow(), x->want_thread);
        px += draw_text(w, 0, px, cols - px - 1, nm, SIZE_MAX, A_BOLD);
    }
    draw_text(w, 0, px, cols - px - 1, "  (L: change)", SIZE_MAX, A_NORMAL);
    draw_mode_line(x, s, w, 1, cols);
    if (!x->nrows) {
        const char *why = on_demand ? "(no rank's timeline is in memory yet: r/R or Enter in Ranks reads one)"
                          : v->ui->load.loading ? "(rows appear as the ranks' timelines are read)"
                                                               : "(no rank has a timeline)";
        draw_text(w, 3, 2, cols - 4, why, SIZE_MAX, draw_attr(CP_DIM));
        return;
    }
    draw_ruler(x, w, 2, lw);
    x->rows_y = 4;
    x->rows_h = H - x->rows_y - 2;
    if (x->rows_h < 1) x->rows_h = 1;
    if (x->row < x->top) x->top = x->row;
    if (x->row >= x->top + (size_t)x->rows_h) x->top = x->row - (size_t)x->rows_h + 1;
    for (int i = 0; i < x->rows_h; i++) {
        size_t ri = x->top + (size_t)i;
        if (ri >= x->nrows)
            break;
        int y = x->rows_y + i;
        draw_label(x, s, w, y, ri, lw);
        const struct xr_row *r = &x->rows[ri];
        if (r->m && r->lane != LANE_NONE)
            draw_row(x, w, y, r, ri == x->row ? slice_at(x, r, x->cur_t) : SLICE_NONE);
    }
    if (H >= 6)
        draw_detail(x, s, w, H - 1, cols);
}

/* --- requests ------------------------------------------------------------------------- */

static void apply_choice(struct view *v)
{
    struct xrank *x = xr_of(v);
    rebuild_rows(x, v->ui->s);
    size_t found = 0;
    for (size_t i = 0; i < x->nrows; i++)
        found += x->rows[i].lane != LANE_NONE;
    ui_message(v->ui, "lanes: %s (%zu of %zu ranks have one)", choice_name(x->choice), found, x->nrows);
}

static void name_picked(struct view *v, void *user, size_t idx)
{
    struct xrank *x = user;
    const struct model *m = x->pick_m;
    struct rank_data *rd = ui_rank(v->ui);
    if (idx == SIZE_MAX || !x->pick_lanes || !rd || rd->model != m || !m)
        return;
    uint32_t lane = x->pick_lanes[idx];
    if (lane >= m->nlanes)
        return;
    const struct lane *l = &m->lanes[lane];
    snprintf(x->want_proc, sizeof x->want_proc, "%s", model_str(m, m->procs[l->proc].name));
    snprintf(x->want_thread, sizeof x->want_thread, "%s", model_str(m, l->name));
    x->want_device = l->kind == LANE_DEVICE;
    x->choice = XL_NAMED;
    apply_choice(v);
    v->dirty = true;
}

/* A pick list of the current rank's lanes with slices, in display order. */
static void pick_by_name(struct view *v)
{
    struct xrank *x = xr_of(v);
    struct rank_data *rd = ui_rank(v->ui);
    const struct model *m = rd && rd->model && rd->model->finalized ? rd->model : NULL;
    if (!m || !m->nlanes) {
        ui_message(v->ui, "this rank has no timeline lanes to pick from");
        return;
    }
    free(x->pick_lanes);
    x->pick_lanes = malloc(m->nlanes * sizeof *x->pick_lanes);
    char **items = calloc(m->nlanes, sizeof *items);
    size_t n = 0;
    if (x->pick_lanes && items) {
        for (uint32_t k = 0; k < m->nlanes; k++) {
            uint32_t i = m->lane_order ? m->lane_order[k] : k;
            if (!m->lanes[i].count)
                continue;
            char buf[600];
            lanedraw_lane_label(m, i, buf, sizeof buf);
            items[n] = strdup(buf);
            if (!items[n])
                break;
            x->pick_lanes[n++] = i;
        }
    }
    x->pick_m = m;
    if (n)
        ui_pick(v->ui, v, "Compare the lane of this name on every rank", (const char *const *)items, n, name_picked, x);
    else
        ui_message(v->ui, "this rank has no lanes with slices");
    draw_strings_free(items, n);
}

static void cycle_choice(struct view *v)
{
    struct xrank *x = xr_of(v);
    int next = (x->choice + 1) % XL_COUNT;
    if (next == XL_NAMED) {
        pick_by_name(v);    /* the choice changes when a name is picked */
        return;
    }
    x->choice = next;
    apply_choice(v);
}

static void toggle_align(struct view *v)
{
    struct xrank *x = xr_of(v);
    x->aligned = !x->aligned;
    if (x->aligned) {
        compute_offsets(x, v->ui->s);
        if (!x->have_offsets)
            ui_message(v->ui, "%s: times stay raw", v->ui->s && v->ui->s->nranks >= 2
                       ? "no collective found on two ranks" : "alignment needs two ranks");
        else
            ui_message(v->ui, "aligned on the ends of the same collectives");
    } else {
        ui_message(v->ui, "raw timestamps");
    }
    set_origin(x);
}

/* Opens the current row's rank in the timeline at the window shown, in its own time. */
static void open_rank(struct view *v)
{
    struct xrank *x = xr_of(v);
    if (x->row >= x->nrows)
        return;
    const struct xr_row *r = &x->rows[x->row];
    if (!r->m) {
        ui_message(v->ui, "this rank has no timeline");
        return;
    }
    ns_t sh = shift_of(x, r->rank);
    ui_goto_range(v->ui, r->rank, x->ax.t0 - sh, time_axis_end(&x->ax) - sh);
}

/* A focus across ranks (a collective on every rank): the lane of the focus rank's slice on
 * every rank, aligned on collective ends, zoomed to the slices. */
static void xr_focus_changed(struct view *v)
{
    struct ui *ui = v->ui;
    const uint32_t *slices = ui->focus.rank_slices;
    size_t n = ui->focus.nrank_slices, focus = ui->focus.rank;
    const struct session *s = ui->s;
    if (!slices || !s || focus >= n || focus >= s->nranks || slices[focus] == SLICE_NONE)
        return;
    struct xrank *x = xr_of(v);
    const struct model *fm = s->ranks[focus].model;
    if (!fm || !fm->finalized || slices[focus] >= fm->nslices)
        return;
    ui_switch_to(ui, &view_xrank);
    /* the lane of the focused rank's slice, found by name on every rank, aligned */
    const struct lane *l = &fm->lanes[fm->lane[slices[focus]]];
    snprintf(x->want_proc, sizeof x->want_proc, "%s", model_str(fm, fm->procs[l->proc].name));
    snprintf(x->want_thread, sizeof x->want_thread, "%s", model_str(fm, l->name));
    x->want_device = l->kind == LANE_DEVICE;
    x->choice = XL_NAMED;
    x->sig = parts_sig(s);
    rebuild_rows(x, s);
    x->aligned = true;
    compute_offsets(x, s);
    set_origin(x);
    ns_t lo = 0, hi = 0;
    bool any = false;
    for (size_t r = 0; r < n && r < s->nranks; r++) {
        const struct model *m = s->ranks[r].model;
        if (slices[r] == SLICE_NONE || !m || !m->finalized || slices[r] >= m->nslices)
            continue;
        ns_t sh = shift_of(x, r), a = m->start[slices[r]] + sh, b = model_end(m, slices[r]) + sh;
        if (!any || a < lo) lo = a;
        if (!any || b > hi) hi = b;
        any = true;
    }
    time_axis_show(&x->ax, lo, hi);
    x->fitted = true;
    x->cur_t = lo;
    row_to_rank(x, focus);
    v->dirty = true;
    ui->focus.shown = true;
}

static void step_slice(struct view *v, bool next)
{
    struct xrank *x = xr_of(v);
    if (x->row >= x->nrows)
        return;
    const struct xr_row *r = &x->rows[x->row];
    if (!r->m || r->lane == LANE_NONE)
        return;
    const struct model *m = r->m;
    const struct lane *l = &m->lanes[r->lane];
    if (!l->ndepth)
        return;
    ns_t sh = shift_of(x, r->rank), own = x->cur_t - sh;
    uint32_t a = l->row_first[0], b = l->row_first[1], lo;
    /* first slice starting after the cursor (next), or the last starting before it (prev) */
    LOWER_BOUND(lo, a, b, k, next ? m->start[k] <= own : m->start[k] < own);
    uint32_t s = next ? (lo < b ? lo : SLICE_NONE) : (lo > a ? lo - 1 : SLICE_NONE);
    if (s == SLICE_NONE) {
        ui_message(v->ui, next ? "last slice on this lane" : "first slice on this lane");
        return;
    }
    x->cur_t = m->start[s] + sh;
    if (!time_axis_shows(&x->ax, x->cur_t))
        time_axis_center(&x->ax, x->cur_t);
}

static void goto_done(struct view *v, void *user, const char *text, bool accepted)
{
    struct xrank *x = user;
    ns_t t;
    if (!accepted)
        return;
    if (parse_time(text, &t) != 0) {
        ui_error(v->ui, "not a time: %s (e.g. 12.5ms, 300us)", text);
        return;
    }
    x->cur_t = x->origin + t;
    time_axis_center(&x->ax, x->cur_t);
    v->dirty = true;
}

static void mouse(struct view *v)
{
    struct xrank *x = xr_of(v);
    MEVENT *e = &v->ui->mouse;
    int y = e->y - getbegy(v->ui->body), col = e->x - x->graph_x;
    ns_t at = time_axis_at(&x->ax, col);
    if (e->bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED)) {
        time_axis_wheel(&x->ax, e->bstate & BUTTON4_PRESSED, col, x->cur_t);
        return;
    }
    if (e->bstate & BUTTON1_RELEASED) {
        int ri = y - x->rows_y;
        if (ri >= 0 && ri < x->rows_h && x->top + (size_t)ri < x->nrows)
            x->row = x->top + (size_t)ri;
        if (col >= 0)
            x->cur_t = at;
    }
}

static enum request xr_request(struct view *v, enum request req, int key)
{
    struct xrank *x = xr_of(v);
    (void)key;
    if (v->ui->body)
        geometry(x, getmaxx(v->ui->body));
    if (time_axis_request(&x->ax, req, &x->cur_t)) {
        v->dirty = true;
        return REQ_NONE;
    }
    v->list = (struct list_cursor){ &x->row, x->nrows, x->rows_h > 1 ? (size_t)x->rows_h - 1 : 1 };
    switch (req) {
    case REQ_HOME: case REQ_END: {
        ns_t lo, hi;
        if (span_of(x, &lo, &hi))
            time_axis_edge(&x->ax, lo, hi, req == REQ_END, &x->cur_t);
        break;
    }
    case REQ_FIT: fit(x); break;
    case REQ_PREV_SLICE: step_slice(v, false); break;
    case REQ_NEXT_SLICE: step_slice(v, true); break;
    case REQ_ZOOM_SLICE:
        if (x->row < x->nrows) {
            const struct xr_row *r = &x->rows[x->row];
            uint32_t s = slice_at(x, r, x->cur_t);
            if (s != SLICE_NONE) {
                ns_t sh = shift_of(x, r->rank);
                time_axis_show(&x->ax, r->m->start[s] + sh, model_end(r->m, s) + sh);
            }
        }
        break;
    case REQ_GOTO_TIME: ui_prompt(v->ui, v, "go to: ", NULL, NULL, goto_done, xr_of(v)); break;
    case REQ_ALIGN: toggle_align(v); break;
    case REQ_LANE_CHOICE: cycle_choice(v); break;
    case REQ_ENTER: open_rank(v); return REQ_NONE;
    case REQ_MOUSE: mouse(v); break;
    default:
        return req;
    }
    v->dirty = true;
    return REQ_NONE;
}

static const char *xr_hint(struct view *v)
{
    (void)v;
    return "A:align L:lanes w/s:zoom Enter:open rank";
}

const struct view_ops view_xrank = {
    .name = "X-Rank", .open = REQ_VIEW_XRANK,
    .help = "Cross-rank timeline (the same lane of every rank)", .own_scope = SCOPE_XRANK,
    .scopes = SCOPE_TIMELINE | SCOPE_XRANK,
    .private_size = sizeof(struct xrank),
    .init = xr_init,
    .done = xr_done,
    .draw = xr_draw,
    .request = xr_request,
    .data_changed = xr_data_changed,
    .focus_changed = xr_focus_changed,
    .hint = xr_hint,
};
