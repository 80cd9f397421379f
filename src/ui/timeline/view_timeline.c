/* The timeline view: a time ruler, lanes grouped by process (foldable), one row per nesting
 * depth, counter sparklines, and a lower pane. Each screen column is a time bucket: a slice
 * wide enough shows its name, narrower activity shows how busy the bucket is. A frame costs
 * O(rows x columns x log n): every cell comes from model_row_range / model_busy. The time
 * axis, ruler and lane rows are lanedraw.c's, shared with the cross-rank view. */
#include "ui/timeline/timeline.h"
#include "util/grow.h"
#include "ui/table/view_settings.h"

#include <stdlib.h>
#include <string.h>

#include "ui/shell/draw.h"
#include "util/search.h"
#include "util/free_all.h"

/* --- geometry ------------------------------------------------------------------------- */

static int label_width(int cols)
{
    int lw = cols / 5;
    if (lw > 30) lw = 30;
    if (lw < 12) lw = cols > 24 ? 12 : cols / 2;
    return lw;
}

static void fit(struct timeline *t)
{
    ns_t lo, hi;
    bool any = model_time_span(t->m, &lo, &hi);
    axis_fit_apply(&t->fit, &t->ax, lo, hi);
    if (any && hi > lo && !time_axis_shows(&t->ax, t->cur_t))
        t->cur_t = t->ax.t0;
}

/* --- rows ----------------------------------------------------------------------------- */

static void push_row(struct timeline *t, struct tl_row r)
{
    t->rows = grow_array_or_exit(t->rows, &t->rows_cap, t->nrows + 1, sizeof *t->rows, "timeline rows");
    t->rows[t->nrows++] = r;
}

bool tl_stack_lane(const struct model *m, uint32_t lane)
{
    enum lane_kind k = m->lanes[lane].kind;
    return k == LANE_PYTHON || k == LANE_CANN;
}

void tl_rebuild_rows(struct timeline *t)
{
    t->nrows = 0;
    const struct model *m = t->m;
    if (!m || !m->finalized)
        return;
    uint32_t *order = malloc((m->nprocs + 1) * sizeof *order);
    uint8_t *seen = calloc(m->nprocs + 1, 1);
    if (!order || !seen) {
        FREE_ALL(order, seen);
        return;
    }
    uint32_t no = 0;
    for (uint32_t i = 0; i < m->nlanes; i++) {
        uint32_t lane = m->lane_order ? m->lane_order[i] : i;
        uint32_t p = m->lanes[lane].proc;
        if (p < m->nprocs && !seen[p]) {
            seen[p] = 1;
            order[no++] = p;
        }
    }
    for (uint32_t i = 0; i < m->ncounters; i++) {
        uint32_t p = m->counters[i].proc;
        if (p < m->nprocs && !seen[p]) {
            seen[p] = 1;
            order[no++] = p;
        }
    }
    /* the device first: NPU streams, communication and overlap lanes open the screen, host
     * lanes follow in their own order */
    uint32_t *dev_first = malloc((no + 1) * sizeof *dev_first);
    if (dev_first) {
        uint32_t nd = 0;
        for (int pass = 0; pass < 2; pass++)
            for (uint32_t k = 0; k < no; k++) {
                enum lane_kind kd = m->procs[order[k]].kind;
                bool dev = kd == LANE_DEVICE || kd == LANE_COMM || kd == LANE_OVERLAP;
                if (dev == (pass == 0))
                    dev_first[nd++] = order[k];
            }
        memcpy(order, dev_first, no * sizeof *order);
        free(dev_first);
    }
    for (uint32_t k = 0; k < no; k++) {
        uint32_t p = order[k];
        push_row(t, (struct tl_row){ .kind = TR_PROC, .proc = p });
        if (p < t->nfolded && t->folded[p])
            continue;
        for (uint32_t i = 0; i < m->nlanes; i++) {
            uint32_t lane = m->lane_order ? m->lane_order[i] : i;
            if (m->lanes[lane].proc != p)
                continue;
            uint32_t nd = m->lanes[lane].ndepth;
            if (nd == 0 || t->flat)
                nd = 1;
            if (tl_stack_lane(m, lane) && nd > t->stack_depth)
                nd = t->stack_depth;
            for (uint32_t d = 0; d < nd; d++)
                push_row(t, (struct tl_row){ .kind = TR_LANE, .proc = p, .lane = lane, .depth = d });
        }
        for (uint32_t c = 0; c < m->ncounters; c++)
            if (m->counters[c].proc == p)
                push_row(t, (struct tl_row){ .kind = TR_COUNTER, .proc = p, .track = c });
    }
    free(order);
    free(seen);
    if (t->row >= t->nrows)
        t->row = t->nrows ? t->nrows - 1 : 0;
}

size_t tl_row_of_slice(const struct timeline *t, uint32_t s)
{
    const struct model *m = t->m;
    if (!m || s >= m->nslices)
        return SIZE_MAX;
    for (size_t i = 0; i < t->nrows; i++) {
        const struct tl_row *r = &t->rows[i];
        if (r->kind == TR_LANE && r->lane == m->lane[s] && (r->depth == m->depth[s] || t->flat))
            return i;
    }
    return SIZE_MAX;
}

static void ensure_visible_row(struct timeline *t)
{
    int h = t->lanes_h > 0 ? t->lanes_h : 10;
    if (t->row < t->top)
        t->top = t->row;
    if (t->row >= t->top + (size_t)h)
        t->top = t->row - (size_t)h + 1;
}

void tl_select(struct view *v, uint32_t s, bool record)
{
    struct timeline *t = tl_of(v);
    const struct model *m = t->m;
    if (!m || s >= m->nslices)
        return;
    if (record)
        tl_hist_push(t);
    bool rebuild = false;
    uint32_t p = m->lanes[m->lane[s]].proc;
    if (tl_stack_lane(m, m->lane[s]) && m->depth[s] >= t->stack_depth && !t->flat) {
        t->stack_depth = (uint32_t)m->depth[s] + 1;
        rebuild = true;
    }
    if (p < t->nfolded && t->folded[p]) {
        t->folded[p] = false;
        rebuild = true;
    }
    if (t->flat && m->depth[s] > 0) {
        t->flat = false;
        rebuild = true;
    }
    if (rebuild)
        tl_rebuild_rows(t);
    t->sel = s;
    t->detail_top = 0;
    size_t r = tl_row_of_slice(t, s);
    if (r != SIZE_MAX)
        t->row = r;
    ensure_visible_row(t);
    ns_t st = m->start[s], en = model_end(m, s);
    ns_t t1 = time_axis_end(&t->ax), span = t1 - t->ax.t0;
    if (st < t->ax.t0 || st >= t1 - t->ax.npc) {
        /* keep the zoom; bring the slice's start into view */
        if (en - st < span / 2)
            time_axis_center(&t->ax, st + (en - st) / 2);
        else
            t->ax.t0 = st - span / 10;
    }
    t->cur_t = st;
    v->dirty = true;
}

/* The slice of a lane row at time `at`, or the first one in [at, at+npc). */
static uint32_t slice_in_row(const struct timeline *t, const struct tl_row *r, ns_t at, ns_t w)
{
    if (r->kind != TR_LANE || !t->m)
        return SLICE_NONE;
    uint32_t f, l;
    model_row_range(t->m, r->lane, r->depth, at, at + (w > 0 ? w : 1), &f, &l);
    return f < l ? f : SLICE_NONE;
}

/* --- drawing -------------------------------------------------------------------------- */

static void draw_lane_row(const struct timeline *t, WINDOW *w, int y, const struct tl_row *r)
{
    struct lane_ref ref = { .m = t->m, .lane = r->lane, .depth = r->depth };
    struct lane_marks mk = { .sel = t->sel, .flow = { t->partner, t->chain_a, t->chain_b },
                             .match = t->match, .nmatch = t->nmatch_ids };
    lanedraw_row(w, y, t->graph_x, &t->ax, &ref, &mk);
}

static void draw_proc_activity(const struct timeline *t, WINDOW *w, int y, uint32_t p)
{
    const struct model *m = t->m;
    const struct proc *pr = &m->procs[p];
    for (int c = 0; c < t->ax.ncols; c++) {
        ns_t ct0 = time_axis_at(&t->ax, c), ct1 = ct0 + t->ax.npc;
        double best = -1;
        int pair = CP_HOST;
        for (uint32_t k = 0; k < pr->nlanes; k++) {
            uint32_t lane = pr->first_lane + k;
            if (lane >= m->nlanes || !m->lanes[lane].ndepth)
                continue;
            uint32_t f, l;
            model_row_range(m, lane, 0, ct0, ct1, &f, &l);
            if (f >= l)
                continue;
            double fr = (double)model_busy(m, lane, ct0, ct1) / (double)t->ax.npc;
            if (fr > best) {
                best = fr;
                pair = lanedraw_lane_pair(m, lane);
            }
        }
        if (best >= 0)
            draw_text(w, y, t->graph_x + c, 1, draw_utf8 ? (best > 0.66 ? "▓" : best > 0.33 ? "▒" : "░")
                      : (best > 0.5 ? "#" : ":"), SIZE_MAX, draw_attr(pair));
    }
}

bool tl_counter_at(const struct counter_track *ct, ns_t at, double *v)
{
    size_t a = 0, b = ct->n;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (ct->ts[mid] <= at) a = mid + 1; else b = mid;
    }
    if (a == 0)
        return false;
    *v = ct->value[a - 1];
    return true;
}

const char *tl_fmt_value(double v, char *buf, size_t size)
{
    if (v == (double)(long long)v && v < 1e15 && v > -1e15)
        snprintf(buf, size, "%lld", (long long)v);
    else
        snprintf(buf, size, "%.4g", v);
    return buf;
}

static void draw_counter_row(const struct timeline *t, WINDOW *w, int y, uint32_t tr)
{
    const struct model *m = t->m;
    const struct counter_track *ct = &m->counters[tr];
    if (!ct->n || !t->cmin)
        return;
    double lo = t->cmin[tr], hi = t->cmax[tr];
    for (int c = 0; c < t->ax.ncols; c++) {
        ns_t ct1 = time_axis_at(&t->ax, c + 1);
        /* last sample before the column's end */
        size_t a = 0, b = ct->n;
        while (a < b) {
            size_t mid = a + (b - a) / 2;
            if (ct->ts[mid] < ct1) a = mid + 1; else b = mid;
        }
        if (a == 0)
            continue;
        double v = ct->value[a - 1];
        double frac = hi > lo ? (v - lo) / (hi - lo) : 0.5;
        if (frac < 0.01) frac = 0.01;
        draw_text(w, y, t->graph_x + c, 1, lanedraw_shade(frac), SIZE_MAX, draw_attr(CP_COUNTER));
    }
    if (t->vmin && t->ax.ncols >= 30) {
        char a[32], b[32], tag[128];
        const char *unit = ct->unit ? model_str(m, ct->unit) : "";
        snprintf(tag, sizeof tag, " %s..%s%s%.40s ", tl_fmt_value(t->vmin[tr], a, sizeof a),
                 tl_fmt_value(t->vmax[tr], b, sizeof b), *unit ? " " : "", unit);
        int tw = (int)strlen(tag);
        if (tw < t->ax.ncols / 3)
            draw_text(w, y, t->graph_x + t->ax.ncols - tw, tw, tag, SIZE_MAX, draw_attr(CP_DIM));
    }
}

/* Row ri's label; short is its name as shortened for this frame (NULL: the name whole). */
static void draw_label(const struct timeline *t, WINDOW *w, int y, size_t ri, int lw, const char *short_name)
{
    const struct model *m = t->m;
    const struct tl_row *r = &t->rows[ri];
    bool cur = ri == t->row;
    attr_t a = cur ? A_BOLD | A_REVERSE : A_NORMAL;
    draw_fill(w, y, 0, lw, " ", a);
    draw_text(w, y, 0, 1, cur ? ">" : " ", 1, a);
    char buf[64];
    if (r->kind == TR_PROC) {
        const struct proc *p = &m->procs[r->proc];
        bool fold = r->proc < t->nfolded && t->folded[r->proc];
        int x = 1 + draw_text(w, y, 1, lw - 1, fold ? (draw_utf8 ? "▸ " : "+ ") : (draw_utf8 ? "▾ " : "- "),
                              SIZE_MAX, a | A_BOLD);
        x += short_name ? draw_text(w, y, x, lw - x, short_name, SIZE_MAX, a | A_BOLD)
                        : draw_text(w, y, x, lw - x, model_str(m, p->name), strtab_len(m->str, p->name), a | A_BOLD);
        if (fold) {
            uint32_t n = p->nlanes;
            for (uint32_t c = 0; c < m->ncounters; c++)
                n += m->counters[c].proc == r->proc;
            snprintf(buf, sizeof buf, " (%u)", n);
            draw_text(w, y, x, lw - x - 1, buf, SIZE_MAX, a);
        }
    } else if (r->kind == TR_LANE) {
        const struct lane *l = &m->lanes[r->lane];
        if (r->depth == 0)
            draw_text(w, y, 3, lw - 4, short_name ? short_name : model_str(m, l->name),
                      short_name ? SIZE_MAX : strtab_len(m->str, l->name), a);
        else {
            uint32_t hidden = tl_stack_lane(m, r->lane) && r->depth + 1 == t->stack_depth && l->ndepth > t->stack_depth
                            ? l->ndepth - t->stack_depth : 0;
            if (hidden)
                snprintf(buf, sizeof buf, "%*s%u +%u", (int)(r->depth < 8 ? r->depth : 8), "", r->depth, hidden);
            else
                snprintf(buf, sizeof buf, "%*s%u", (int)(r->depth < 8 ? r->depth : 8), "", r->depth);
            draw_text(w, y, 4, lw - 5, buf, SIZE_MAX, a | draw_attr(CP_DIM));
        }
    } else {
        const struct counter_track *ct = &m->counters[r->track];
        char val[32] = "";
        double v;
        if (tl_counter_at(ct, t->cur_t, &v))
            tl_fmt_value(v, val, sizeof val);
        int vw = (int)strlen(val);
        int nw = lw - 4 - (vw ? vw + 1 : 0);
        draw_text(w, y, 3, nw > 3 ? nw : 3, short_name ? short_name : model_str(m, ct->name),
                  short_name ? SIZE_MAX : strtab_len(m->str, ct->name), a | draw_attr(CP_COUNTER));
        if (vw && lw - 1 - vw > 3)
            draw_text(w, y, lw - 1 - vw, vw, val, SIZE_MAX, a | A_BOLD);
    }
}

const char *tl_fmt_time(const struct timeline *t, ns_t at, char *buf, size_t size)
{
    if (t->abs_time) {
        /* the file's own base, µs with 3 decimals (exact from ns) */
        ns_t us = at / 1000, frac = at % 1000;
        if (frac < 0) { frac += 1000; us--; }
        snprintf(buf, size, "%lld.%03lld %s", (long long)us, (long long)frac, draw_utf8 ? "µs" : "us");
        return buf;
    }
    return fmt_dur(at - t->origin, buf, size);
}

static void draw_ruler(const struct timeline *t, WINDOW *w, int lw)
{
    struct ruler_opts o = { .base = t->abs_time ? 0 : t->origin, .mode = t->abs_time ? "absolute" : "relative",
                            .cur_t = t->cur_t, .range = t->range != 0,
                            .r0 = t->r0, .r1 = t->range == 2 ? t->r1 : t->cur_t };
    lanedraw_ruler(w, 0, t->graph_x, lw, &t->ax, &o);
}

static void tl_draw(struct view *v, WINDOW *w)
{
    struct timeline *t = tl_of(v);
    tl_export_poll(v);
    werase(w);
    int H = getmaxy(w), cols = getmaxx(w);
    int lw = label_width(cols);
    t->graph_x = lw + 1;
    int W = cols - t->graph_x;
    if (W < 1) W = 1;
    bool keep = axis_fit_held(&t->fit, &t->ax);
    time_axis_resize(&t->ax, W);
    if (keep && t->m)
        fit(t);
    const struct model *m = t->m;
    if (!m) {
        struct rank_data *rd = ui_rank(v->ui);
        const char *why = rd && rd->status[0] ? rd->status : "no timeline loaded yet";
        draw_printf(w, 1, 2, cols - 4, draw_attr(CP_DIM), "Timeline: %s", why);
        if (v->ui->load.loading)
            draw_text(w, 2, 2, cols - 4, "(lanes appear as soon as this rank's trace is read)", SIZE_MAX, draw_attr(CP_DIM));
        return;
    }
    int ph = tl_pane_height(t, H);
    t->lanes_y = 2;
    t->lanes_h = H - 2 - ph;
    if (t->lanes_h < 1) t->lanes_h = 1;
    ensure_visible_row(t);
    draw_ruler(t, w, lw);
    tl_marks_draw(t, w, 1);
    size_t cell = 0;
    char *labels = tl_short_labels(t, t->top, (size_t)t->lanes_h, lw, &cell);
    for (int i = 0; i < t->lanes_h; i++) {
        size_t ri = t->top + (size_t)i;
        if (ri >= t->nrows)
            break;
        int y = t->lanes_y + i;
        draw_label(t, w, y, ri, lw, labels ? labels + (size_t)i * cell : NULL);
        const struct tl_row *r = &t->rows[ri];
        if (r->kind == TR_LANE)
            draw_lane_row(t, w, y, r);
        else if (r->kind == TR_COUNTER)
            draw_counter_row(t, w, y, r->track);
        else if (r->proc < t->nfolded && t->folded[r->proc])
            draw_proc_activity(t, w, y, r->proc);
    }
    free(labels);
    if (!t->nrows)
        draw_text(w, 2, 2, cols - 4, "(this rank's trace has no lanes)", SIZE_MAX, draw_attr(CP_DIM));
    if (ph > 0)
        tl_pane_draw(v, w, H - ph, ph, cols);
}

/* --- data ----------------------------------------------------------------------------- */

static void counters_range(struct timeline *t)
{
    const struct model *m = t->m;
    FREE_ALL(t->cmin, t->cmax, t->vmin, t->vmax);
    t->cmin = t->cmax = t->vmin = t->vmax = NULL;
    if (!m || !m->ncounters)
        return;
    t->vmin = calloc(m->ncounters, sizeof *t->vmin);
    t->vmax = calloc(m->ncounters, sizeof *t->vmax);
    if (!t->vmin || !t->vmax) {
        free(t->vmin);
        free(t->vmax);
        t->vmin = t->vmax = NULL;
    }
    t->cmin = calloc(m->ncounters, sizeof *t->cmin);
    t->cmax = calloc(m->ncounters, sizeof *t->cmax);
    if (!t->cmin || !t->cmax)
        return;
    /* once per installed model, not per frame */
    for (uint32_t i = 0; i < m->ncounters; i++) {
        const struct counter_track *ct = &m->counters[i];
        double lo = 0, hi = 0;
        for (size_t k = 0; k < ct->n; k++) {
            double x = ct->value[k];
            if (k == 0 || x < lo) lo = x;
            if (k == 0 || x > hi) hi = x;
        }
        t->cmin[i] = lo < 0 ? lo : 0;
        t->cmax[i] = hi;
        if (t->vmin) {
            t->vmin[i] = lo;
            t->vmax[i] = hi;
        }
    }
}

static void tl_data_changed(struct view *v)
{
    struct timeline *t = tl_of(v);
    struct ui *ui = v->ui;
    struct rank_data *rd = ui_rank(ui);
    const struct model *m = rd && rd->model && rd->model->finalized ? rd->model : NULL;
    ns_t origin = session_origin(ui->s), lo, hi;
    model_time_span(m, &lo, &hi);
    t->origin = origin == NS_NONE ? lo : origin;
    /* marks of models no longer installed go, also those of other ranks (a rank's timeline
     * may be freed while another is shown, model/index/session.h) */
    tl_marks_keep(t, ui->s);
    if (m == t->m)
        return;
    t->m = m;
    free(t->folded);
    t->nfolded = m ? m->nprocs : 0;
    t->folded = t->nfolded ? calloc(t->nfolded, sizeof *t->folded) : NULL;
    if (!t->folded)
        t->nfolded = 0;
    tl_restore_folds(t);   /* the groups the user folded last time */
    t->sel = t->partner = t->chain_a = t->chain_b = t->flow_anchor = SLICE_NONE;
    t->nhist = t->hist_i = 0;
    t->detail_top = 0;
    t->lines_for = SLICE_NONE;
    slice_fields_release(t->fields);   /* its slice index was the old model's */
    t->fields = NULL;
    t->fields_for = SLICE_NONE;
    counters_range(t);
    if (t->pattern[0]) {
        /* name ids differ between models: match again */
        tl_search_free(t);
    }
    if (!m)
        return;
    if (axis_fit_held(&t->fit, &t->ax))
        fit(t);
    tl_rebuild_rows(t);
    if (t->range == 2)
        tl_range_compute(t);
}

static void tl_init(struct view *v)
{
    struct timeline *t = tl_of(v);
    t->sel = t->partner = t->chain_a = t->chain_b = t->flow_anchor = SLICE_NONE;
    t->lines_for = t->fields_for = SLICE_NONE;
    t->ax.npc = 1000;
    t->fit.keep = true;
    t->stack_depth = TL_STACK_DEPTH;
    tl_data_changed(v);
}

static void tl_done(struct view *v)
{
    struct timeline *t = tl_of(v);
    FREE_ALL(t->rows, t->folded, t->cmin, t->cmax, t->vmin, t->vmax, t->picks);
    tl_search_free(t);
    tl_marks_free(t);
    tl_pane_free(t);
    tl_export_free(t);   /* cancels a running export: its thread reads this rank's timeline */
}

/* --- requests ------------------------------------------------------------------------- */

static void row_moved(struct view *v)
{
    struct timeline *t = tl_of(v);
    ensure_visible_row(t);
    if (t->row < t->nrows) {
        const struct tl_row *r = &t->rows[t->row];
        uint32_t s = slice_in_row(t, r, t->cur_t, 1);
        if (s == SLICE_NONE && r->kind == TR_LANE)
            s = slice_in_row(t, r, t->cur_t - t->ax.npc, 3 * t->ax.npc);
        t->sel = s;
        t->detail_top = 0;
    }
}

static void step_slice(struct view *v, bool next)
{
    struct timeline *t = tl_of(v);
    const struct model *m = t->m;
    if (t->row >= t->nrows)
        return;
    const struct tl_row *r = &t->rows[t->row];
    if (r->kind != TR_LANE)
        return;
    uint32_t s;
    if (t->sel != SLICE_NONE && m->lane[t->sel] == r->lane && m->depth[t->sel] == r->depth) {
        s = next ? model_next_in_row(m, t->sel) : model_prev_in_row(m, t->sel);
    } else {
        /* nearest from the cursor in the row */
        const struct lane *l = &m->lanes[r->lane];
        if (!l->ndepth || r->depth >= l->ndepth)
            return;
        uint32_t a = l->row_first[r->depth], b = l->row_first[r->depth + 1], lo;
        LOWER_BOUND(lo, a, b, k, m->start[k] < t->cur_t);
        s = next ? (lo < b ? lo : SLICE_NONE) : (lo > a ? lo - 1 : SLICE_NONE);
    }
    if (s == SLICE_NONE) {
        ui_message(v->ui, next ? "last slice on this row" : "first slice on this row");
        return;
    }
    tl_select(v, s, false);
}

static void toggle_fold(struct timeline *t)
{
    if (t->row >= t->nrows)
        return;
    uint32_t p = t->rows[t->row].proc;
    if (p >= t->nfolded)
        return;
    t->folded[p] = !t->folded[p];
    tl_remember_folds(t);
    tl_rebuild_rows(t);
    for (size_t i = 0; i < t->nrows; i++)
        if (t->rows[i].kind == TR_PROC && t->rows[i].proc == p) {
            t->row = i;
            break;
        }
}

/* Folds every process but the cursor's; when they all are already, unfolds everything. */
static void fold_others(struct timeline *t)
{
    if (t->row >= t->nrows || !t->nfolded)
        return;
    uint32_t p = t->rows[t->row].proc;
    bool all = true;
    for (uint32_t i = 0; i < t->nfolded; i++)
        if (i != p && !t->folded[i])
            all = false;
    for (uint32_t i = 0; i < t->nfolded; i++)
        t->folded[i] = all ? false : i != p;
    tl_remember_folds(t);
    uint8_t kind = t->rows[t->row].kind;
    uint32_t lane = t->rows[t->row].lane, depth = t->rows[t->row].depth;
    tl_rebuild_rows(t);
    for (size_t i = 0; i < t->nrows; i++) {
        const struct tl_row *r = &t->rows[i];
        if (r->proc == p && r->kind == kind && (kind != TR_LANE || (r->lane == lane && r->depth == depth))) {
            t->row = i;
            break;
        }
    }
}

static void toggle_depth(struct timeline *t)
{
    uint32_t lane = t->row < t->nrows ? t->rows[t->row].lane : LANE_NONE;
    uint8_t kind = t->row < t->nrows ? t->rows[t->row].kind : TR_PROC;
    t->flat = !t->flat;
    tl_rebuild_rows(t);
    if (kind == TR_LANE)
        for (size_t i = 0; i < t->nrows; i++)
            if (t->rows[i].kind == TR_LANE && t->rows[i].lane == lane) {
                t->row = i;
                break;
            }
    if (t->flat && t->sel != SLICE_NONE && t->m->depth[t->sel] > 0)
        t->sel = SLICE_NONE;
}

static void mouse(struct view *v)
{
    struct timeline *t = tl_of(v);
    MEVENT *e = &v->ui->mouse;
    int by = getbegy(v->ui->body);
    int y = e->y - by, col = e->x - t->graph_x;
    ns_t at = time_axis_at(&t->ax, col);
    if (e->bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED)) {
        time_axis_wheel(&t->ax, e->bstate & BUTTON4_PRESSED, col, t->cur_t);
        return;
    }
    if (e->bstate & BUTTON1_PRESSED) {
        t->drag = col >= 0;
        t->drag_t = at;
        t->drag_col = col;
    }
    if (e->bstate & BUTTON1_RELEASED) {
        if (t->drag && col >= 0 && abs(col - t->drag_col) >= 2) {
            t->r0 = t->drag_t < at ? t->drag_t : at;
            t->r1 = t->drag_t < at ? at : t->drag_t;
            t->range = 2;
            tl_range_compute(t);
            t->drag = false;
            return;
        }
        t->drag = false;
        int ri = y - t->lanes_y;
        if (ri < 0 || ri >= t->lanes_h || t->top + (size_t)ri >= t->nrows)
            return;
        t->row = t->top + (size_t)ri;
        if (col < 0) {
            if (t->rows[t->row].kind == TR_PROC)
                toggle_fold(t);
            return;
        }
        t->cur_t = at;
        t->sel = slice_in_row(t, &t->rows[t->row], at, t->ax.npc);
        t->detail_top = 0;
    }
}

/* Home/End: the view starts at the first event, or ends at the last, the cursor there. */
static void show_time_edge(struct timeline *t, bool end)
{
    ns_t lo, hi;
    model_time_span(t->m, &lo, &hi);
    time_axis_edge(&t->ax, lo, hi, end, &t->cur_t);
}

/* One host-stack depth row fewer or more (1 to 1024). */
static void stack_depth_step(struct view *v, int delta)
{
    struct timeline *t = tl_of(v);
    if (delta < 0 && t->stack_depth > 1)
        t->stack_depth--;
    else if (delta > 0 && t->stack_depth < 1024)
        t->stack_depth++;
    tl_rebuild_rows(t);
    ui_message(v->ui, "host stacks: %u depth row%s", t->stack_depth, t->stack_depth == 1 ? "" : "s");
}

static void time_mode_toggle(struct view *v)
{
    struct timeline *t = tl_of(v);
    t->abs_time = !t->abs_time;
    t->lines_for = SLICE_NONE;
    ui_message(v->ui, t->abs_time ? "absolute times (the file's own clock)" : "times relative to the capture start");
}

/* v: the first press marks the range start (the selected slice's, else the cursor's), the
 * second its end, and the range's totals are computed. */
static void range_mark(struct view *v)
{
    struct timeline *t = tl_of(v);
    ns_t at = t->cur_t;
    if (t->range != 1) {
        t->range = 1;
        t->r0 = t->sel != SLICE_NONE ? t->m->start[t->sel] : at;
        ui_message(v->ui, "range start marked; move and press v again");
        return;
    }
    ns_t end = t->sel != SLICE_NONE ? model_end(t->m, t->sel) : at;
    if (end < t->r0) {
        t->r1 = t->r0;
        t->r0 = t->sel != SLICE_NONE ? t->m->start[t->sel] : at;
    } else {
        t->r1 = end;
    }
    t->range = 2;
    tl_range_compute(t);
    ui_message(v->ui, "range: %zu names over the visible lanes, time clipped to the range; E exports it", t->rt.n);
}

/* Enter: a process row folds or unfolds; on a slice, its details open or close. */
static void enter_row(struct timeline *t)
{
    if (t->row < t->nrows && t->rows[t->row].kind == TR_PROC)
        toggle_fold(t);
    else if (t->sel != SLICE_NONE)
        t->detail = !t->detail, t->detail_top = 0;
}

/* Esc closes the innermost of: the details, the range, the flow partner, the selection.
 * False when none was open (the view itself closes). */
static bool close_one(struct timeline *t)
{
    if (t->detail)
        t->detail = false;
    else if (t->range) {
        t->range = 0;
        range_totals_free(&t->rt);
        t->nagg = 0;
    } else if (t->partner != SLICE_NONE || t->chain_a != SLICE_NONE)
        t->partner = t->chain_a = t->chain_b = SLICE_NONE;
    else if (t->sel != SLICE_NONE)
        t->sel = SLICE_NONE;
    else
        return false;
    return true;
}

static enum request tl_request(struct view *v, enum request req, int key)
{
    struct timeline *t = tl_of(v);
    (void)key;
    if (!t->m)
        return req;
    if (time_axis_request(&t->ax, req, &t->cur_t)) {
        v->dirty = true;
        return REQ_NONE;
    }
    int page = t->lanes_h > 1 ? t->lanes_h - 1 : 1;
    switch (req) {
    case REQ_MOVE_UP:
        if (t->row > 0) { t->row--; row_moved(v); }
        break;
    case REQ_MOVE_DOWN:
        if (t->row + 1 < t->nrows) { t->row++; row_moved(v); }
        break;
    case REQ_PAGE_UP:
        t->row = t->row > (size_t)page ? t->row - (size_t)page : 0;
        row_moved(v);
        break;
    case REQ_PAGE_DOWN:
        t->row = t->row + (size_t)page < t->nrows ? t->row + (size_t)page : (t->nrows ? t->nrows - 1 : 0);
        row_moved(v);
        break;
    case REQ_HOME: show_time_edge(t, false); break;
    case REQ_END: show_time_edge(t, true); break;
    case REQ_PREV_SLICE: step_slice(v, false); break;
    case REQ_NEXT_SLICE: step_slice(v, true); break;
    case REQ_FOLD: toggle_fold(t); break;
    case REQ_FOLD_OTHERS: fold_others(t); break;
    case REQ_DEPTH: toggle_depth(t); break;
    case REQ_STACK_LESS: stack_depth_step(v, -1); break;
    case REQ_STACK_MORE: stack_depth_step(v, 1); break;
    case REQ_ZOOM_SLICE:
        if (t->range == 2)
            time_axis_show(&t->ax, t->r0, t->r1);
        else if (t->sel != SLICE_NONE)
            time_axis_show(&t->ax, t->m->start[t->sel], model_end(t->m, t->sel));
        break;
    case REQ_FIT:
        fit(t);
        t->fit.keep = true;
        break;
    case REQ_GOTO_TIME: tl_goto_prompt(v); break;
    case REQ_SEARCH: tl_search_prompt(v); break;
    case REQ_SEARCH_NEXT: tl_search_step(v, true); break;
    case REQ_SEARCH_PREV: tl_search_step(v, false); break;
    case REQ_MARK: tl_mark_toggle(v); break;
    case REQ_MARK_NEXT: tl_mark_step(v, 1); break;
    case REQ_MARK_PREV: tl_mark_step(v, -1); break;
    case REQ_TIME_MODE: time_mode_toggle(v); break;
    case REQ_RANGE: range_mark(v); break;
    case REQ_RANGE_EXPORT: tl_range_export(v); break;
    case REQ_FOLLOW: tl_follow(v, true); break;
    case REQ_FOLLOW_BACK: tl_follow(v, false); break;
    case REQ_FLOW_NEXT: tl_flow_cycle(v, 1); break;
    case REQ_FLOW_PREV: tl_flow_cycle(v, -1); break;
    case REQ_JUMP_BACK: tl_hist_move(v, -1); break;
    case REQ_JUMP_FORWARD: tl_hist_move(v, 1); break;
    case REQ_ENTER: enter_row(t); break;
    case REQ_DETAIL_UP:
        if (t->range == 2) { if (t->agg_top > 0) t->agg_top--; }
        else if (t->detail_top > 0) t->detail_top--;
        break;
    case REQ_DETAIL_DOWN:
        if (t->range == 2) t->agg_top++;
        else t->detail_top++;
        break;
    case REQ_CLOSE:
        if (!close_one(t))
            return REQ_CLOSE;
        break;
    case REQ_MOUSE: mouse(v); break;
    default:
        return req;
    }
    v->dirty = true;
    return REQ_NONE;
}

static const char *tl_hint(struct view *v)
{
    struct timeline *t = tl_of(v);
    if (t->range == 1)
        return "v: mark range end";
    if (t->sel != SLICE_NONE)
        return "Enter:detail f/F:follow /:search";
    return "w/s:zoom a/d:pan /:search";
}

/* --- jumps from other views -------------------------------------------------------- */


/* Columns a slice needs before its name can be read in it. */
#define TL_READABLE_COLS 12

static void goto_slice(struct view *v, uint32_t slice)
{
    struct timeline *t = tl_of(v);
    tl_data_changed(v);
    if (!t->m || slice >= t->m->nslices)
        return;
    if (t->ax.ncols <= 0 && v->ui->body) {
        /* never drawn yet: take the width it will be drawn at, so the zoom below can tell */
        int cols = getmaxx(v->ui->body);
        if (time_axis_resize(&t->ax, cols - label_width(cols) - 1))
            fit(t);
    }
    /* a jump from a table lands where the slice can be read: zoomed in when it would be
     * narrower than TL_READABLE_COLS, the slice a third of the width */
    ns_t st = t->m->start[slice], d = model_end(t->m, slice) - st;
    if (d < 1)
        d = 1;
    bool zoom = t->ax.ncols > 3 * TL_READABLE_COLS && d < t->ax.npc * TL_READABLE_COLS;
    if (zoom) {
        tl_hist_push(t);
        time_axis_show(&t->ax, st - d, st + 2 * d);
    }
    tl_select(v, slice, !zoom);
}

static void goto_range(struct view *v, ns_t t0, ns_t t1)
{
    struct timeline *t = tl_of(v);
    tl_data_changed(v);
    if (!t->m)
        return;
    tl_hist_push(t);
    time_axis_show(&t->ax, t0, t1);
    t->cur_t = t0;
    t->fit.keep = false;
}

/* The focus another view published (a row's slice, a step's range): shown here. */
static void tl_focus_changed(struct view *v)
{
    const struct ui_focus *f = &v->ui->focus;
    if (f->rank_slices || f->kind != FOCUS_TIME)   /* across ranks, a step, a rank: for other views */
        return;
    if (f->t0 == NS_NONE) {
        goto_slice(v, f->slice);
        return;
    }
    goto_range(v, f->t0, f->t1);
    struct timeline *t = tl_of(v);
    if (f->slice != SLICE_NONE && t->m && f->slice < t->m->nslices)
        tl_select(v, f->slice, false);   /* in the range shown, the window kept */
}

const struct view_ops view_timeline = {
    .name = "Timeline", .open = REQ_VIEW_TIMELINE, .help = "Timeline view", .own_scope = SCOPE_TIMELINE,
    .rank_timeline = true,
    .scopes = SCOPE_TIMELINE,
    .private_size = sizeof(struct timeline),
    .init = tl_init,
    .done = tl_done,
    .draw = tl_draw,
    .request = tl_request,
    .data_changed = tl_data_changed,
    .focus_changed = tl_focus_changed,
    .hint = tl_hint,
};
