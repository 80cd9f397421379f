/* The Phases view: one row per detected step of the current rank (model/analysis/steps.h), a
 * sparkline of step durations with outliers marked, the per-phase summary, a jump that
 * zooms the timeline to a step, and the canonical decode step (per-position median and p90,
 * and what grew in the selected step). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/analysis/flowstats.h"
#include "model/analysis/steps.h"
#include "ui/shell/draw.h"
#include "ui/table/view_table.h"

struct pview {
    struct vtable steps, phase, canon;
    bool canon_on;
    size_t canon_step;          /* the step compared in the canonical table (index) */
    bool stale;
    const struct steps *built_for;
};

static struct pview *pv_of(struct view *v) { return v->priv; }

static const char *outlier_mark(const struct rowset *rs, size_t row, void *ctx)
{
    (void)ctx;
    size_t c = rowset_find_col(rs, "outlier");
    if (c == SIZE_MAX || rowset_is_null(rs, row, c))
        return NULL;
    const char *s = strtab_get(rs->str, rowset_cell(rs, row, c)->s);
    return s && !strcmp(s, "yes") ? (draw_utf8 ? "\xe2\x86\x90 slow" : "<- slow") : NULL;
}

/* Host-bound device idle per step from the flow figures: inside the step (part of its free
 * time, so never more than Free µs) and in the gap before it (part of Gap before µs). */
static void add_host_bound(struct rowset *rs, const struct steps *st, const struct flowstats *fs)
{
    if (!fs || !fs->nsteps || !fs->host_bound_known)
        return;   /* unknown without launch links: no column rather than zeros */
    size_t c = rowset_col(rs, "host_bound_us", "Host-bound µs", RS_NS, 0);
    size_t cb = rowset_col(rs, "host_bound_before_us", "Host-bound before µs", RS_NS, 0);
    if (c == SIZE_MAX || cb == SIZE_MAX)
        return;
    for (size_t r = 0; r < rs->nrows; r++) {
        uint64_t i = rs->link[r];
        if (i >= st->n)
            continue;
        int64_t idx = st->v[i].index;
        const struct flow_step_idle *hit = NULL;
        if (i < fs->nsteps && fs->steps[i].index == idx)
            hit = &fs->steps[i];
        for (size_t k = 0; !hit && k < fs->nsteps; k++)
            if (fs->steps[k].index == idx)
                hit = &fs->steps[k];
        if (hit) {
            rowset_ns(rs, r, c, hit->host_bound_inside);
            rowset_ns(rs, r, cb, hit->host_bound - hit->host_bound_inside);
        }
    }
}

/* The canonical table's caption names the rank and the compared step. */
static void canon_caption(struct pview *p, const struct rank_data *rd, const struct steps *st)
{
    const struct rowset *rs = p->canon.rs;
    char sel_txt[96] = "";
    if (p->canon_step != SIZE_MAX && p->canon_step < st->n)
        snprintf(sel_txt, sizeof sel_txt, "; step %lld against it, largest growth first",
                 (long long)st->v[p->canon_step].index);
    snprintf(p->canon.caption, sizeof p->canon.caption, "Canonical decode step of rank %d (%s%s)   Enter: timeline  Esc: back",
             rd->rank, rs && rs->caption ? rs->caption : "", sel_txt);
}

static void phases_build(struct view *v)
{
    struct pview *p = pv_of(v);
    struct ui *ui = v->ui;
    struct rank_data *rd = ui_rank(ui);
    const struct steps *st = rd ? rd->steps : NULL;
    p->steps.origin = p->canon.origin = vt_origin(ui);
    p->built_for = st;
    struct rowset *rs = NULL, *ph = NULL;
    if (st && st->n) {
        rs = steps_rowset_of_rank(rd, st);
        if (rs)
            add_host_bound(rs, st, rd->flowstats);
        ph = steps_phase_rowset(st);
    }
    vt_set(&p->steps, rs);
    vt_set(&p->phase, ph);
    p->phase.passive = true;
    p->steps.mark = outlier_mark;
    snprintf(p->phase.caption, sizeof p->phase.caption, "Per phase");
    snprintf(p->steps.caption, sizeof p->steps.caption, "Steps of rank %d   Enter: zoom the timeline to the step   c: canonical decode step",
             rd ? rd->rank : 0);
    if (!rd) {
        vt_empty(&p->steps, "no rank loaded yet");
    } else if (!st) {
        bool loading = ui->load.loading;
        if (loading)
            vt_empty(&p->steps, "rank %d: steps are found once its timeline is loaded", rd->rank);
        else if (!rd->model && rd->digest)
            vt_empty(&p->steps, "rank %d was read from a summary (%s), without its trace: its steps are in Ranks (6) "
                     "and `aptop report --section steps`", rd->rank, rd->status);
        else if (!rd->model)
            vt_empty(&p->steps, "rank %d has no timeline (trace_view.json or DB): steps are found on the device timeline", rd->rank);
        else
            vt_empty(&p->steps, "rank %d: steps were not computed", rd->rank);
    } else if (!st->n) {
        const char *note = steps_note(st);
        if (!strncmp(note, "no periodic steps found", 23))
            vt_empty(&p->steps, "%s", note);
        else
            vt_empty(&p->steps, "no periodic steps found%s%s", *note ? ": " : "", note);
    }
    if (p->canon_on) {
        /* another rank (or a reload): the same step position, if it has one */
        if (st && p->canon_step >= st->n)
            p->canon_step = SIZE_MAX;
        vt_set(&p->canon, st ? steps_canonical_rowset(st, p->canon_step) : NULL);
        if (!p->canon.rs)
            p->canon_on = false;
        else
            canon_caption(p, rd, st);
    }
}

static void phases_refresh(struct view *v)
{
    struct pview *p = pv_of(v);
    struct rank_data *rd = ui_rank(v->ui);
    if (p->stale || (rd && rd->steps != p->built_for)) {
        p->stale = false;
        phases_build(v);
    }
}

/* "source: host markers, 5 steps: 1 prefill, 4 decode   decode p50 0.629 ms p99 4.289 ms" */
static void summary_line(const struct steps *st, char *out, size_t size)
{
    size_t cnt[PHASE_COUNT] = { 0 };
    for (size_t i = 0; i < st->n; i++)
        cnt[st->v[i].phase]++;
    size_t o = (size_t)snprintf(out, size, "Steps (source: %s, %zu step%s:", step_source_name(st->source), st->n,
                                st->n == 1 ? "" : "s");
    bool first = true;
    for (int ph = 0; ph < PHASE_COUNT && o < size; ph++)
        if (cnt[ph]) {
            o += (size_t)snprintf(out + o, size - o, "%s %zu %s", first ? "" : ",", cnt[ph], step_phase_name((enum step_phase)ph));
            first = false;
        }
    if (o < size)
        o += (size_t)snprintf(out + o, size - o, ")");
    for (int ph = 0; ph < PHASE_COUNT && o < size; ph++) {
        const struct phase_stat *ps = &st->phase[ph];
        if (!ps->count)
            continue;
        char a[32], b[32];
        o += (size_t)snprintf(out + o, size - o, "   %s p50 %s  p99 %s", step_phase_name((enum step_phase)ph),
                              fmt_dur(ps->p50, a, sizeof a), fmt_dur(ps->p99, b, sizeof b));
    }
}

static void draw_sparkline(struct pview *p, const struct steps *st, WINDOW *w, int y, int cw)
{
    static const char *const bars[] = { "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
                                        "\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88" };
    static const char ascii[] = "_.-=+*#@";
    int x0 = draw_text(w, y, 1, cw - 2, "step time ", SIZE_MAX, draw_attr(CP_LABEL)) + 1;
    int width = cw - x0 - 1;
    if (width < 4 || !st->n)
        return;
    ns_t max = 0;
    for (size_t i = 0; i < st->n; i++)
        if (st->v[i].end - st->v[i].start > max)
            max = st->v[i].end - st->v[i].start;
    if (max <= 0)
        return;
    size_t per = (st->n + (size_t)width - 1) / (size_t)width;     /* steps per column */
    size_t cols = (st->n + per - 1) / per;
    size_t sel = vt_selected(&p->steps);
    uint64_t sel_step = sel != SIZE_MAX ? p->steps.rs->link[sel] : UINT64_MAX;
    for (size_t c = 0; c < cols; c++) {
        ns_t d = 0;
        bool out = false, here = false;
        for (size_t i = c * per; i < (c + 1) * per && i < st->n; i++) {
            ns_t di = st->v[i].end - st->v[i].start;
            if (di > d) d = di;
            out |= st->v[i].outlier;
            here |= i == sel_step;
        }
        int lv = (int)((double)d / (double)max * 7.0 + 0.5);
        if (lv < 0) lv = 0;
        if (lv > 7) lv = 7;
        attr_t a = out ? (draw_attr(CP_ERROR) | A_BOLD | A_REVERSE) : draw_attr(CP_COMPUTE);
        if (here)
            a |= A_UNDERLINE | A_BOLD;
        char g[2] = { ascii[lv], 0 };
        draw_text(w, y, x0 + (int)c, 1, draw_utf8 ? bars[lv] : g, SIZE_MAX, a);
    }
    char m[48], d[32];
    snprintf(m, sizeof m, " max %s", fmt_dur(max, d, sizeof d));
    draw_text(w, y, x0 + (int)cols + 1, cw - x0 - (int)cols - 2, m, SIZE_MAX, draw_attr(CP_DIM));
}

/* The step under the cursor, shared with the other views (ui->step_selected). */
static void publish_selected_step(struct view *v)
{
    struct pview *p = pv_of(v);
    size_t row = p->steps.rs ? vt_selected(&p->steps) : SIZE_MAX;
    v->ui->step_selected = row != SIZE_MAX ? (size_t)p->steps.rs->link[row] : SIZE_MAX;
}

static void phases_draw(struct view *v, WINDOW *w)
{
    struct pview *p = pv_of(v);
    phases_refresh(v);
    publish_selected_step(v);
    werase(w);
    int h = getmaxy(w), cw = getmaxx(w);
    struct rank_data *rd = ui_rank(v->ui);
    const struct steps *st = rd ? rd->steps : NULL;
    if (p->canon_on && p->canon.rs) {
        vt_draw(&p->canon, w, 0, h);
        return;
    }
    int y = 0;
    if (st && st->n) {
        char line[600];
        summary_line(st, line, sizeof line);
        draw_text(w, y++, 1, cw - 2, line, SIZE_MAX, A_BOLD);
        draw_sparkline(p, st, w, y++, cw);
        if (p->phase.rs && h > 12) {
            int ph = 2 + (int)p->phase.rs->nrows;
            vt_draw(&p->phase, w, y, ph);
            y += ph + 1;
        }
    }
    vt_draw(&p->steps, w, y, h - y);
}

static void open_canonical(struct view *v)
{
    struct pview *p = pv_of(v);
    struct rank_data *rd = ui_rank(v->ui);
    const struct steps *st = rd ? rd->steps : NULL;
    if (!st || !st->n) {
        ui_error(v->ui, "no steps: nothing to compare");
        return;
    }
    size_t sel = vt_selected(&p->steps);
    p->canon_step = sel != SIZE_MAX && p->steps.rs->link[sel] < st->n ? (size_t)p->steps.rs->link[sel] : SIZE_MAX;
    vt_set(&p->canon, NULL);
    struct rowset *rs = steps_canonical_rowset(st, p->canon_step);
    if (!rs) {
        ui_error(v->ui, "no decode steps: the canonical decode step needs some");
        return;
    }
    vt_set(&p->canon, rs);
    if (rowset_find_col(rs, "grew_us") != SIZE_MAX)
        vt_sort_key(&p->canon, "grew_us", true);
    p->canon.sel = p->canon.top = 0;
    p->canon_on = true;
    canon_caption(p, rd, st);
}

static enum request phases_request(struct view *v, enum request req, int key)
{
    struct pview *p = pv_of(v);
    struct ui *ui = v->ui;
    phases_refresh(v);
    if (p->canon_on) {
        req = vt_request(v, &p->canon, req, key);
        if (req == REQ_CANONICAL || vt_drill_back(&p->canon_on, req, key)) {
            p->canon_on = false;   /* c closes it as it opened it */
            return REQ_NONE;
        }
        if (req == REQ_ENTER) {
            size_t row = vt_selected(&p->canon);
            if (row != SIZE_MAX)
                vt_goto_slice(ui, p->canon.rs->link[row], "this kernel");
            return REQ_NONE;
        }
        return req;
    }
    req = vt_request(v, &p->steps, req, key);
    struct rank_data *rd = ui_rank(ui);
    const struct steps *st = rd ? rd->steps : NULL;
    switch (req) {
    case REQ_ENTER: {
        size_t row = vt_selected(&p->steps);
        if (row == SIZE_MAX || !st)
            return REQ_NONE;
        uint64_t i = p->steps.rs->link[row];
        if (i >= st->n)
            return REQ_NONE;
        const struct step *s = steps_get(st, (size_t)i);
        ui_goto_range(ui, ui->rank, s->start, s->end > s->start ? s->end : s->start + 1);
        ns_t d = s->end - s->start;
        ui_message(ui, "step %lld (%s): %lld.%03lld µs from %s", (long long)s->index, step_phase_name(s->phase),
                   (long long)(d / 1000), (long long)(d % 1000), step_source_name(st->source));
        return REQ_NONE;
    }
    case REQ_CANONICAL:
        open_canonical(v);
        return REQ_NONE;
    default:
        return req;
    }
}

static void phases_init(struct view *v)
{
    struct pview *p = pv_of(v);
    vt_init(&p->steps);
    /* a step: how long, how much of it the host held the device idle, and the split */
    p->steps.name_key = "index step";
    p->steps.answer_keys = "dur_us host_bound_us computing_us comm_not_overlapped_us free_us";
    vt_init(&p->phase);
    vt_init(&p->canon);
    p->stale = true;
}

static void phases_done(struct view *v)
{
    struct pview *p = pv_of(v);
    vt_free(&p->steps);
    vt_free(&p->phase);
    vt_free(&p->canon);
}

static void phases_changed(struct view *v)
{
    pv_of(v)->stale = true;
}

static const char *phases_hint(struct view *v)
{
    return pv_of(v)->canon_on ? "Enter:timeline  Esc:back  <>:sort" : "Enter:zoom to step  c:canonical decode  <>:sort";
}

static bool show_step(struct view *v, size_t rank, size_t step)
{
    struct ui *ui = v->ui;
    if (!ui->s || rank >= ui->s->nranks)
        return false;
    ui_set_rank(ui, rank);
    struct pview *p = pv_of(v);
    p->canon_on = false;
    phases_refresh(v);
    if (!p->steps.rs)
        return false;
    for (size_t r = 0; r < p->steps.rs->nrows; r++)
        if (p->steps.rs->link[r] == step) {
            vt_filter_eq(&p->steps, NULL, NULL);
            vt_select_row(&p->steps, r);
            publish_selected_step(v);
            ui_switch_to(ui, &view_phases);
            return true;
        }
    return false;
}

/* A step focus (ui_show_step): its row selected, this view shown. */
static void phases_focus_changed(struct view *v)
{
    struct ui *ui = v->ui;
    if (ui->focus.kind == FOCUS_STEP && show_step(v, ui->focus.rank, ui->focus.step))
        ui->focus.shown = true;
}

const struct view_ops view_phases = {
    .name = "Phases", .open = REQ_VIEW_PHASES,
    .help = "Phases view (steps, prefill/decode)", .own_scope = SCOPE_PHASES,
    .scopes = SCOPE_TABLE | SCOPE_PHASES, .private_size = sizeof(struct pview),
    .rank_timeline = true,
    .init = phases_init, .done = phases_done, .draw = phases_draw, .request = phases_request,
    .data_changed = phases_changed, .focus_changed = phases_focus_changed, .hint = phases_hint,
};
