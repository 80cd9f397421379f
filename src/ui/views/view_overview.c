/* The Overview view, the first tab: where the time goes on the current rank (span, device
 * busy, computing / communication / free, host-bound idle, top kernels, step times per phase
 * with a sparkline), every rank side by side with the slowest one and the figure that makes
 * it so, and the advisor's findings by cost. Enter on a finding jumps to its worst evidence:
 * the timeline zoomed on it, the step in Phases, or the rank in Ranks. Figures come from
 * model/analysis/overview.h and model/analysis/advisor.h, recomputed when parts are installed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/analysis/advisor.h"
#include "model/analysis/overview.h"
#include "model/analysis/steps.h"
#include "ui/shell/draw.h"
#include "ui/table/view_table.h"

struct ovview {
    struct overview ov;
    struct advice adv;
    bool stale;
    bool partial;               /* computed while the loader was still reading */
    size_t timelines_in;        /* with two passes (many ranks): timelines in memory when computed, */
    bool some_timelines;        /* and whether some ranks' timelines were missing then */
    size_t sel, top;            /* selected finding, first one shown */
    ns_t origin;                /* evidence times are shown from the capture start */
    uint64_t parts;             /* signature of the parts the figures were computed from */
    int list_y, list_h;         /* findings rows of the last frame */
};

static struct ovview *ov_of(struct view *v) { return v->priv; }

/* Which parts are installed: a rank switch changes nothing the figures read, so they are
 * kept; a new part (or the end of the load) computes them again. */
static uint64_t parts_signature(const struct ui *ui)
{
    uint64_t h = 1469598103934665603ull;
    const struct session *s = ui->s;
    uintptr_t v[8];
    size_t n = 0;
    v[n++] = (uintptr_t)s;
    v[n++] = s ? s->nranks : 0;
    v[n++] = ui->load.loading;
    for (size_t k = 0; k < n; k++)
        h = (h ^ v[k]) * 1099511628211ull;
    for (size_t i = 0; s && i < s->nranks; i++) {
        const struct rank_data *rd = &s->ranks[i];
        uintptr_t p[] = { (uintptr_t)rd->model, (uintptr_t)rd->tables[TK_KERNELS], (uintptr_t)rd->comm,
                          (uintptr_t)rd->steps, (uintptr_t)rd->flowstats, (uintptr_t)rd->digest };
        for (size_t k = 0; k < sizeof p / sizeof p[0]; k++)
            h = (h ^ p[k]) * 1099511628211ull;
    }
    return h;
}

static void ov_refresh(struct view *v)
{
    struct ovview *o = ov_of(v);
    if (!o->stale)
        return;
    o->stale = false;
    uint64_t sig = parts_signature(v->ui);
    if (sig == o->parts && (o->ov.n || o->adv.n))
        return;
    o->parts = sig;
    overview_free(&o->ov);
    advice_free(&o->adv);
    struct ui *ui = v->ui;
    if (!ui->s)
        return;
    o->partial = ui->load.loading;
    o->timelines_in = 0;
    for (size_t i = 0; i < ui->s->nranks; i++)
        o->timelines_in += ui->s->ranks[i].model != NULL;
    o->some_timelines = ui->load.max_timelines && o->timelines_in < ui->s->nranks;
    o->origin = vt_origin(ui);
    overview_compute(ui->s, &o->ov);
    advisor_run(ui->s, &o->adv);
    if (o->sel >= o->adv.n)
        o->sel = o->adv.n ? o->adv.n - 1 : 0;
}

static const char *pct(double f, char *buf, size_t size)
{
    snprintf(buf, size, "%.1f%%", 100.0 * f);
    return buf;
}

/* A row of bars for durations d[0..n) scaled between their min and max. */
static void sparkline(WINDOW *w, int y, int x, int width, const ns_t *d, size_t n)
{
    static const char *const bars[] = { "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
                                        "\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88" };
    static const char ascii[] = "_.-=+*#@";
    if (width < 1 || !n)
        return;
    ns_t lo = d[0], hi = d[0];
    for (size_t i = 1; i < n; i++) {
        if (d[i] < lo) lo = d[i];
        if (d[i] > hi) hi = d[i];
    }
    size_t per = (n + (size_t)width - 1) / (size_t)width;
    for (size_t c = 0; c * per < n; c++) {
        ns_t m = d[c * per];
        for (size_t i = c * per; i < (c + 1) * per && i < n; i++)
            if (d[i] > m) m = d[i];
        int lv = hi > lo ? (int)((double)(m - lo) / (double)(hi - lo) * 7.0 + 0.5) : 3;
        char g[2] = { ascii[lv], 0 };
        draw_text(w, y, x + (int)c, 1, draw_utf8 ? bars[lv] : g, SIZE_MAX, draw_attr(CP_COMPUTE));
    }
}

static int draw_rank_block(struct ovview *o, struct ui *ui, WINDOW *w, int y, int h, int cw)
{
    const struct ov_rank *r = ui->rank < o->ov.n ? &o->ov.r[ui->rank] : NULL;
    char a[32], b[32], c[32], d[32], line[512];
    if (!r)
        return y;
    struct rank_data *rd = &ui->s->ranks[ui->rank];
    int x = draw_printf(w, y, 1, cw - 2, A_BOLD, "Rank %d", r->rank);
    if (ui->s->nranks > 1)
        x += draw_printf(w, y, 1 + x, cw - 2 - x, draw_attr(CP_DIM), " (%zu of %zu, r/R)", ui->rank + 1, ui->s->nranks);
    if (r->has_span)
        x += draw_printf(w, y, 1 + x, cw - 2 - x, A_NORMAL, "  span %s", fmt_dur(r->span, a, sizeof a));
    if (r->has_busy && r->has_span && r->span > 0)
        x += draw_printf(w, y, 1 + x, cw - 2 - x, A_BOLD, "  device busy %s", pct(r->busy_share, b, sizeof b));
    else if (!rd->model && !rd->digest && ui->load.max_timelines)
        x += draw_printf(w, y, 1 + x, cw - 2 - x, draw_attr(CP_ERROR),
                         "  timeline not in memory: busy, kernels and host-bound wait for it (r/R, Enter in Ranks)");
    else if (!rd->model && !rd->digest)
        x += draw_printf(w, y, 1 + x, cw - 2 - x, draw_attr(CP_DIM), "  no timeline");
    if (!rd->model && rd->digest)   /* "from summary NAME (no trace)": the figures are its host's */
        x += draw_printf(w, y, 1 + x, cw - 2 - x, draw_attr(CP_DIM), "  %s", rd->status);
    if (o->partial)
        draw_printf(w, y, 1 + x, cw - 2 - x, draw_attr(CP_ERROR), "  (loading: partial)");
    y++;
    if (y >= h)
        return y;
    if (r->has_split) {
        snprintf(line, sizeof line, "step: computing %s, comm not overlapped %s, free %s (steps from %s)",
                 pct(r->computing_share, a, sizeof a), pct(r->comm_share, b, sizeof b),
                 pct(r->free_share, c, sizeof c), r->split_source ? r->split_source : "");
        draw_text(w, y++, 1, cw - 2, line, SIZE_MAX, A_NORMAL);
    } else {
        draw_text(w, y++, 1, cw - 2, "step: no computing / communication split (no steps or overlap lanes)",
                  SIZE_MAX, draw_attr(CP_DIM));
    }
    if (y >= h)
        return y;
    if (r->has_idle && r->has_host_bound) {
        snprintf(line, sizeof line, "device idle %s; host-bound %s (%s): next kernel not yet launched",
                 fmt_dur(r->idle, a, sizeof a), fmt_dur(r->host_bound, d, sizeof d),
                 r->idle > 0 ? pct(r->host_bound_share, b, sizeof b) : "0%");
        draw_text(w, y++, 1, cw - 2, line, SIZE_MAX, A_NORMAL);
    } else if (r->has_idle) {
        snprintf(line, sizeof line, "device idle %s; host-bound unknown: no launch links in this capture",
                 fmt_dur(r->idle, a, sizeof a));
        draw_text(w, y++, 1, cw - 2, line, SIZE_MAX, A_NORMAL);
    }
    if (y < h && r->has_parts) {   /* the span adds up (overview.h); why each part, when it fits */
        int n = snprintf(line, sizeof line, "span = busy %s + idle %s + outside %s", fmt_dur(r->busy, a, sizeof a),
                         fmt_dur(r->idle, b, sizeof b), fmt_dur(r->outside, c, sizeof c));
        if (r->other && n > 0 && (size_t)n < sizeof line)
            n += snprintf(line + n, sizeof line - (size_t)n, " %s other %s", r->other < 0 ? "-" : "+",
                          fmt_dur(r->other < 0 ? -r->other : r->other, d, sizeof d));
        char why[192];
        snprintf(why, sizeof why, " (outside: the host alone, before the first kernel and after the last%s%s)",
                 r->other ? "; other: busy from " : "",
                 r->other ? (r->busy_source && r->busy_source[0] ? r->busy_source : "a kernel table") : "");
        if (n > 0 && (size_t)n + strlen(why) <= (size_t)(cw - 2) && (size_t)n + strlen(why) < sizeof line)
            strcat(line, why);
        draw_text(w, y++, 1, cw - 2, line, SIZE_MAX, draw_attr(CP_DIM));
    }
    if (y >= h)
        return y;
    /* top kernels: 3 lines at 24 rows, up to OV_TOP on taller screens */
    size_t nk = r->ntop < (h >= 30 ? OV_TOP : 3) ? r->ntop : (h >= 30 ? OV_TOP : 3);
    if (nk) {
        draw_text(w, y++, 1, cw - 2, "top kernels (share of device busy time)", SIZE_MAX, draw_attr(CP_LABEL));
        for (size_t k = 0; k < nk && y < h; k++) {
            int kx = draw_printf(w, y, 3, 8, A_BOLD, "%6s", pct(r->top[k].share, a, sizeof a));
            draw_text(w, y, 4 + kx, cw - 6 - kx, r->top[k].name, SIZE_MAX, A_NORMAL);
            y++;
        }
    }
    /* step times per phase (a rank read from a summary has them without its steps) */
    const struct steps *st = rd->steps;
    for (int p = 0; p < PHASE_COUNT && y < h; p++) {
        const struct phase_stat *ps = &r->phase[p];
        if (!ps->count)
            continue;
        ns_t *dv = st ? malloc(st->n * sizeof *dv) : NULL;
        size_t nd = 0;
        for (size_t i = 0; dv && i < st->n; i++)
            if (st->v[i].phase == (enum step_phase)p)
                dv[nd++] = st->v[i].end - st->v[i].start;
        snprintf(line, sizeof line, "%-7s %4u steps  p50 %s  p90 %s  p99 %s", step_phase_name((enum step_phase)p),
                 ps->count, fmt_dur(ps->p50, a, sizeof a), fmt_dur(ps->p90, b, sizeof b), fmt_dur(ps->p99, c, sizeof c));
        int lx = draw_text(w, y, 1, cw - 2, line, SIZE_MAX, A_NORMAL);
        if (dv && cw - lx - 4 >= 4)
            sparkline(w, y, 3 + lx, cw - lx - 4, dv, nd);
        free(dv);
        y++;
    }
    if (st && !st->n && y < h)
        draw_printf(w, y++, 1, cw - 2, draw_attr(CP_DIM), "steps: %s", steps_note(st));
    return y;
}

/* Every rank side by side (several ranks only): at most `rows` of them. */
static int draw_ranks(struct ovview *o, struct ui *ui, WINDOW *w, int y, int rows, int cw)
{
    if (o->ov.n < 2 || rows < 2)
        return y;
    char a[32], b[32], c[32], d[32], e[32], f[32], line[256];
    const struct overview *ov = &o->ov;
    if (ov->straggler >= 0 || ov->slowest >= 0)
        draw_printf(w, y++, 1, cw - 2, draw_attr(CP_LABEL), "%s%s%s%s%s", ov->straggler >= 0 ? "straggler " : "",
                    ov->straggler_why, ov->straggler >= 0 && ov->slowest >= 0 ? "; " : "",
                    ov->slowest >= 0 ? "slowest " : "", ov->slowest_why);
    else
        draw_text(w, y++, 1, cw - 2, "ranks side by side (no straggler or slowest rank: no step or wait figures "
                  "tell)", SIZE_MAX, draw_attr(CP_LABEL));
    char head[256];
    int hn = snprintf(head, sizeof head, "rank    busy  comput.  comm n.o.   free  host-bnd   step mean");
    if (o->some_timelines)   /* the others' busy and host-bound need their timelines */
        snprintf(head + hn, sizeof head - (size_t)hn, "   (busy, host-bnd: the %zu of %zu ranks whose timeline "
                 "is in memory; the others -)", o->timelines_in, o->ov.n);
    draw_text(w, y++, 1, cw - 2, head, SIZE_MAX, draw_attr(CP_DIM) | A_UNDERLINE);
    size_t shown = 0, room = (size_t)(rows - 2);
    size_t first = ui->rank >= room ? ui->rank - room + 1 : 0;
    for (size_t i = first; i < o->ov.n && shown < room; i++, shown++) {
        const struct ov_rank *r = &o->ov.r[i];
        snprintf(line, sizeof line, "%4d  %6s  %7s  %9s  %5s  %8s  %10s%s", r->rank,
                 r->has_busy && r->span > 0 ? pct(r->busy_share, a, sizeof a) : "-",
                 r->has_split ? pct(r->computing_share, b, sizeof b) : "-",
                 r->has_split ? pct(r->comm_share, c, sizeof c) : "-",
                 r->has_split ? pct(r->free_share, d, sizeof d) : "-",
                 r->has_idle && r->has_host_bound && r->idle > 0 ? pct(r->host_bound_share, e, sizeof e) : "-",
                 r->has_split && r->step_mean != NS_NONE ? fmt_dur(r->step_mean, f, sizeof f) : "-",
                 !r->straggler && !r->slowest ? ""
                 : r->straggler && r->slowest ? (draw_utf8 ? "  \xe2\x86\x90 straggler, slowest" : "  <- straggler, slowest")
                 : r->straggler ? (draw_utf8 ? "  \xe2\x86\x90 straggler" : "  <- straggler")
                 : (draw_utf8 ? "  \xe2\x86\x90 slowest" : "  <- slowest"));
        draw_text(w, y++, 1, cw - 2, line, SIZE_MAX, i == ui->rank ? A_BOLD : A_NORMAL);
    }
    if (first + shown < o->ov.n || first > 0)
        draw_printf(w, y - 1, cw - 22, 21, draw_attr(CP_DIM), " +%zu more (5: Ranks)", o->ov.n - shown);
    return y;
}

static void draw_findings(struct ovview *o, struct ui *ui, WINDOW *w, int y, int h, int cw)
{
    char a[32], line[600];
    if (y >= h)
        return;
    if (o->partial)
        draw_printf(w, y++, 1, cw - 2, draw_attr(CP_LABEL), "findings so far (%zu; the capture is still loading)",
                    o->adv.n);
    else if (o->some_timelines)
        draw_printf(w, y++, 1, cw - 2, draw_attr(CP_LABEL), "findings by cost (%zu; device rules over the %zu of %zu "
                    "ranks whose timeline is in memory)   Enter: evidence", o->adv.n, o->timelines_in, ui->s->nranks);
    else
        draw_printf(w, y++, 1, cw - 2, draw_attr(CP_LABEL), "findings by cost (%zu)   Enter: evidence", o->adv.n);
    o->list_y = y;
    o->list_h = h - y;
    if (!o->adv.n) {
        if (y < h)
            draw_text(w, y, 3, cw - 4, "no rule fired (thresholds: man aptop, ADVISOR RULES)", SIZE_MAX,
                      draw_attr(CP_DIM));
        return;
    }
    if (o->sel < o->top)
        o->top = o->sel;
    if (o->list_h > 0 && o->sel >= o->top + (size_t)o->list_h)
        o->top = o->sel - (size_t)o->list_h + 1;
    /* the selected finding's evidence takes the lines the list does not need */
    size_t nlist = o->adv.n - o->top;
    const struct adv_finding *cur = o->sel < o->adv.n ? &o->adv.f[o->sel] : NULL;
    int ev_lines = cur && cur->nev ? (int)cur->nev + 1 : 0;
    int list_end = h;
    if (ev_lines && (int)nlist + ev_lines <= h - y)
        list_end = y + (int)nlist;
    else if (ev_lines && h - y >= 8)
        list_end = h - (ev_lines < (h - y) / 2 ? ev_lines : (h - y) / 2);
    o->list_h = list_end - y;
    if (o->sel >= o->top + (size_t)o->list_h)
        o->top = o->sel - (size_t)o->list_h + 1;
    for (size_t i = o->top; i < o->adv.n && y < list_end; i++, y++) {
        const struct adv_finding *f = &o->adv.f[i];
        char rk[16] = "";
        if (ui->s->nranks > 1 && f->rank < ui->s->nranks)
            snprintf(rk, sizeof rk, "r%d ", ui->s->ranks[f->rank].rank);
        snprintf(line, sizeof line, "%-6s %-20s %10s  %s%s", adv_severity_name(f->severity), f->rule->id,
                 fmt_dur(f->cost, a, sizeof a), rk, f->summary);
        bool sel = i == o->sel;
        attr_t at = sel ? draw_attr(CP_SELECT) | A_BOLD : (f->severity == ADV_HIGH ? A_BOLD : A_NORMAL);
        if (sel)
            draw_fill(w, y, 1, cw - 2, " ", at);
        draw_text(w, y, 1, 1, sel ? ">" : " ", 1, at);
        draw_text(w, y, 2, cw - 3, line, SIZE_MAX, at);
    }
    if (!cur || list_end >= h)
        return;
    y = list_end;
    draw_printf(w, y++, 1, cw - 2, draw_attr(CP_LABEL), "evidence of %s (worst first):", cur->rule->id);
    for (size_t e = 0; e < cur->nev && y < h; e++, y++) {
        const struct adv_evidence *ev = &cur->ev[e];
        char dur[32] = "", st[48] = "";
        if (ev->dur != NS_NONE)
            fmt_dur(ev->dur, dur, sizeof dur);
        if (ev->start != NS_NONE && o->origin != NS_NONE)
            fmt_dur(ev->start - o->origin, st, sizeof st);
        snprintf(line, sizeof line, "%-7s %s%s%s  %s", adv_ev_kind_name(ev->kind), st[0] ? "at " : "", st,
                 dur[0] ? "" : "", dur);
        int x = draw_text(w, y, 3, cw - 4, line, SIZE_MAX, A_NORMAL);
        draw_text(w, y, 5 + x, cw - 6 - x, ev->what, SIZE_MAX, draw_attr(CP_DIM));
    }
}

static void ov_draw(struct view *v, WINDOW *w)
{
    struct ovview *o = ov_of(v);
    struct ui *ui = v->ui;
    ov_refresh(v);
    werase(w);
    int h = getmaxy(w), cw = getmaxx(w);
    if (!ui->s || !ui->s->nranks) {
        draw_text(w, 1, 2, cw - 4, "Overview: no rank loaded yet", SIZE_MAX, draw_attr(CP_DIM));
        return;
    }
    /* the findings keep at least a third of the screen */
    int keep = h / 3 > 4 ? h / 3 : 4;
    int ranks_rows = o->ov.n > 1 ? (int)(o->ov.n + 2 < 6 ? o->ov.n + 2 : 6) : 0;
    int y = draw_rank_block(o, ui, w, 0, h - keep - ranks_rows, cw);
    y = draw_ranks(o, ui, w, y, h - keep - y >= ranks_rows ? ranks_rows : h - keep - y, cw);
    draw_findings(o, ui, w, y, h, cw);
}

/* --- jumps to the evidence ------------------------------------------------------------------ */

static void jump(struct view *v, const struct adv_finding *f)
{
    struct ui *ui = v->ui;
    if (!f->nev) {
        ui_error(ui, "%s: no evidence to show", f->rule->id);
        return;
    }
    const struct adv_evidence *e = &f->ev[0];
    size_t rank = e->rank < ui->s->nranks ? e->rank : ui->rank;
    const struct rank_data *rd = &ui->s->ranks[rank];
    char a[32];
    switch (e->kind) {
    case EV_STEP:
        if (e->step_pos != SIZE_MAX && ui_show_step(ui, rank, e->step_pos)) {
            ui_message(ui, "%s: step %lld of rank %d, the worst instance", f->rule->id, (long long)e->step, rd->rank);
            return;
        }
        break;
    case EV_RANK:
    case EV_LINK:
        if (ui_show_rank(ui, rank)) {
            ui_message(ui, "%s: rank %d (%s)", f->rule->id, rd->rank, e->what);
            return;
        }
        break;
    default:
        break;
    }
    if (e->start == NS_NONE || !rd->model) {
        ui_error(ui, "%s: the evidence (%s) has no time to show", f->rule->id, e->what);
        return;
    }
    /* the worst instance with room around it: a third of the width on each side */
    ns_t d = e->dur != NS_NONE && e->dur > 0 ? e->dur : 1000;
    ns_t t0 = e->start - d / 2, t1 = e->start + d + d / 2;
    if (e->slice != SLICE_NONE && e->slice < rd->model->nslices) {
        ns_t ke = model_end(rd->model, e->slice);
        if (ke > e->start + d)
            t1 = ke + (ke - e->start) / 4;
    }
    ui_show_focus(ui, rank, e->slice, t0, t1 > t0 ? t1 : t0 + 1);
    ui_message(ui, "%s: %s %s at the worst instance (%s)", f->rule->id, adv_ev_kind_name(e->kind),
               fmt_dur(d, a, sizeof a), e->what);
}

static enum request ov_request(struct view *v, enum request req, int key)
{
    struct ovview *o = ov_of(v);
    (void)key;
    ov_refresh(v);
    size_t n = o->adv.n;
    v->list = (struct list_cursor){ &o->sel, n, o->list_h > 1 ? (size_t)o->list_h - 1 : 1 };
    switch (req) {
    case REQ_ENTER:
        if (o->sel < n)
            jump(v, &o->adv.f[o->sel]);
        else
            ui_message(v->ui, "no finding to open");
        return REQ_NONE;
    default:
        return req;
    }
}

static void ov_init(struct view *v) { ov_of(v)->stale = true; }

static void ov_done(struct view *v)
{
    struct ovview *o = ov_of(v);
    overview_free(&o->ov);
    advice_free(&o->adv);
}

static void ov_changed(struct view *v) { ov_of(v)->stale = true; }

static const char *ov_hint(struct view *v)
{
    (void)v;
    return "j/k:finding  Enter:evidence  r/R:rank";
}

const struct view_ops view_overview = {
    .name = "Overview", .open = REQ_VIEW_OVERVIEW,
    .help = "Overview: where the time goes, the slowest rank, the advisor's findings",
    .scopes = 0, .private_size = sizeof(struct ovview),
    .init = ov_init, .done = ov_done, .draw = ov_draw, .request = ov_request,
    .data_changed = ov_changed, .hint = ov_hint,
};
