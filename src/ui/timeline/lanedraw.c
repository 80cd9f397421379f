/* Ruler and lane rows (see lanedraw.h). */
#include "ui/timeline/lanedraw.h"

#include <stdio.h>
#include <string.h>

#include "ui/shell/draw.h"
#include "ui/shell/view.h"
#include "util/demangle.h"

/* --- ruler ----------------------------------------------------------------------------- */

/* The smallest 1-2-5 step of at least `want` ns. */
static ns_t ruler_step(ns_t want)
{
    ns_t step = 1;
    while (step < want) {
        if (step * 2 >= want) { step *= 2; break; }
        if (step * 5 >= want) { step *= 5; break; }
        step *= 10;
        if (step > ((ns_t)1 << 60)) break;
    }
    return step;
}

void lanedraw_ruler(WINDOW *w, int y, int x0, int lw, const struct time_axis *ax, const struct ruler_opts *o)
{
    int W = ax->ncols;
    char buf[64], z[32];
    snprintf(buf, sizeof buf, "%s/col", fmt_dur(ax->npc, z, sizeof z));
    draw_text(w, y, 1, lw - 1, buf, SIZE_MAX, draw_attr(CP_DIM));
    draw_text(w, y + 1, 1, lw - 1, o->mode, SIZE_MAX, draw_attr(CP_DIM));
    /* a 1-2-5 step with labels at least 14 columns apart, and wider than the longest label
     * (absolute times run to 20 characters): labels never touch */
    ns_t step = ruler_step(ax->npc * 14);
    for (int k = 0; k < 8; k++) {
        ns_t far = ax->t0 - o->base + ax->npc * W;
        fmt_ruler(far / step * step, step, buf, sizeof buf);
        ns_t need = ax->npc * (ns_t)(draw_text_width(buf, SIZE_MAX) + 2);
        if (step >= need || step > ((ns_t)1 << 58))
            break;
        step = ruler_step(need);
    }
    ns_t rel0 = ax->t0 - o->base, first = rel0 / step * step;
    if (first < rel0) first += step;
    draw_fill(w, y + 1, x0, W, draw_utf8 ? "·" : ".", draw_attr(CP_RULER));
    for (ns_t tk = first; tk < rel0 + ax->npc * W; tk += step) {
        int64_t c = time_axis_col(ax, tk + o->base);
        if (c < 0 || c >= W)
            continue;
        draw_text(w, y + 1, x0 + (int)c, 1, "|", 1, draw_attr(CP_RULER));
        fmt_ruler(tk, step, buf, sizeof buf);
        /* a label cut at the right edge would read as another time ("1" for "12ms") */
        if (draw_text_width(buf, SIZE_MAX) <= W - (int)c)
            draw_text(w, y, x0 + (int)c, W - (int)c, buf, SIZE_MAX, draw_attr(CP_RULER));
    }
    if (o->range) {
        ns_t a = o->r0, b = o->r1;
        if (a > b) { ns_t t = a; a = b; b = t; }
        int64_t ca = time_axis_col(ax, a), cb = time_axis_col_ceil(ax, b);
        if (ca < 0) ca = 0;
        if (cb > W) cb = W;
        if (cb <= ca) cb = ca + 1;
        if (ca < W)
            draw_fill(w, y + 1, x0 + (int)ca, (int)(cb - ca), draw_utf8 ? "━" : "=", draw_attr(CP_RANGE) | A_BOLD);
    }
    int64_t cc = time_axis_col(ax, o->cur_t);
    if (cc >= 0 && cc < W)
        draw_text(w, y + 1, x0 + (int)cc, 1, draw_utf8 ? "▼" : "v", SIZE_MAX, A_BOLD);
}

/* --- lane rows ------------------------------------------------------------------------- */

const char *lanedraw_shade(double frac)
{
    static const char *const u[8] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
    static const char *const a[8] = { ".", ".", ":", ":", "+", "+", "#", "#" };
    int i = (int)(frac * 8.0 + 0.999) - 1;
    if (i < 0) i = 0;
    if (i > 7) i = 7;
    return draw_utf8 ? u[i] : a[i];
}

int lanedraw_lane_pair(const struct model *m, uint32_t lane)
{
    const struct lane *l = &m->lanes[lane];
    const char *name = model_str(m, l->name);
    switch (l->kind) {
    case LANE_DEVICE: return CP_COMPUTE;
    case LANE_COMM: return CP_COMM;
    case LANE_OVERLAP:
        if (!strncmp(name, "Free", 4)) return CP_IDLE;
        if (!strncmp(name, "Comm", 4)) return CP_COMM;
        return CP_COMPUTE;
    case LANE_PYTHON: case LANE_CANN: case LANE_GC: return CP_HOST;
    default: return CP_COUNTER;
    }
}

const char *lanedraw_lane_label(const struct model *m, uint32_t lane, char *buf, size_t size)
{
    if (lane >= m->nlanes) {
        snprintf(buf, size, "?");
        return buf;
    }
    const struct lane *l = &m->lanes[lane];
    snprintf(buf, size, "%s %s %s", model_str(m, m->procs[l->proc].name), draw_utf8 ? "\xe2\x96\xb8" : ">",
             model_str(m, l->name));
    return buf;
}

static bool is_comm_name(const char *n)
{
    return !strncmp(n, "hcom", 4) || !strncmp(n, "Hccl", 4) || !strncmp(n, "HCCL", 4) ||
           strstr(n, "allReduce") || strstr(n, "AllReduce") || strstr(n, "allGather") ||
           strstr(n, "broadcast") || strstr(n, "Notify_Wait");
}

static bool is_flow(const struct lane_marks *mk, uint32_t s)
{
    return mk && (s == mk->flow[0] || s == mk->flow[1] || s == mk->flow[2]);
}

attr_t lanedraw_slice_attr(const struct model *m, uint32_t s, const struct lane_marks *mk)
{
    if (mk && s == mk->sel)
        return draw_attr(CP_SELECT);
    if (is_flow(mk, s))
        return draw_attr(CP_FLOW) | A_UNDERLINE;
    if (mk && mk->match && m->name[s] < mk->nmatch && mk->match[m->name[s]])
        return draw_attr(CP_MATCH);
    if (m->lanes[m->lane[s]].kind == LANE_COMM || is_comm_name(model_str(m, m->name[s])))
        return draw_attr(CP_COMM);
    return draw_attr(draw_name_pair(m->name[s]));
}

/* A Python frame is named "path/file.py(123): function"; in a box too narrow for the whole
 * name the function is what a person looks for, so it is shown alone. */
static const char *short_frame_name(const char *name, size_t len, int room)
{
    if (room <= 0 || (size_t)room >= len)
        return name;
    const char *sep = strstr(name, "): ");
    return sep && sep > name && sep[3] && memchr(name, '(', (size_t)(sep - name)) ? sep + 3 : name;
}

/* Slice s as a box over columns [cs, ce): "[name····]", a bracket only where the slice
 * ends inside the window. */
static void draw_box(WINDOW *w, int y, int x0, const struct time_axis *ax, const struct lane_ref *r,
                     const struct lane_marks *mk, int cs, int ce, uint32_t s)
{
    const struct model *m = r->m;
    attr_t a = lanedraw_slice_attr(m, s, mk);
    bool lb = m->start[s] + r->shift >= ax->t0, rb = model_end(m, s) + r->shift <= time_axis_end(ax);
    int x = x0 + cs, width = ce - cs;
    draw_fill(w, y, x, width, draw_utf8 ? "·" : ".", a);
    if (lb)
        draw_text(w, y, x, 1, "[", 1, a);
    if (rb)
        draw_text(w, y, x + width - 1, 1, "]", 1, a);
    int nx = x + (lb ? 1 : 0), nw = width - (lb ? 1 : 0) - (rb ? 1 : 0);
    const char *raw = model_str(m, m->name[s]);
    const char *name = demangle_shown(raw);
    size_t len = name == raw ? strtab_len(m->str, m->name[s]) : strlen(name);
    const char *shown = short_frame_name(name, len, nw);
    draw_text(w, y, nx, nw, shown, len - (size_t)(shown - name), a | A_BOLD);
}

/* Busy time of slices [f, l) of a row within [t0, t1): model_busy on depth 0; deeper rows
 * add up their few slices (many count as full). */
static ns_t row_busy(const struct lane_ref *r, uint32_t f, uint32_t l, ns_t t0, ns_t t1, ns_t npc)
{
    const struct model *m = r->m;
    if (r->depth == 0)
        return model_busy(m, r->lane, t0, t1);
    if (l - f > 16)
        return npc;
    ns_t busy = 0;
    for (uint32_t i = f; i < l; i++) {
        ns_t a = m->start[i] > t0 ? m->start[i] : t0;
        ns_t b = model_end(m, i) < t1 ? model_end(m, i) : t1;
        if (b > a) busy += b - a;
    }
    return busy;
}

void lanedraw_row(WINDOW *w, int y, int x0, const struct time_axis *ax, const struct lane_ref *r,
                  const struct lane_marks *mk)
{
    const struct model *m = r->m;
    int W = ax->ncols;
    ns_t sh = r->shift;
    uint32_t sel = mk ? mk->sel : SLICE_NONE, sel_here = SLICE_NONE;
    attr_t shade_a = draw_attr(lanedraw_lane_pair(m, r->lane));
    const char *mark = draw_utf8 ? "▌" : "|";
    for (int c = 0; c < W;) {
        ns_t ct0 = time_axis_at(ax, c) - sh, ct1 = ct0 + ax->npc;   /* the model's own time */
        uint32_t f, l;
        model_row_range(m, r->lane, r->depth, ct0, ct1, &f, &l);
        if (f >= l) {
            c++;
            continue;
        }
        int64_t cs = time_axis_col(ax, m->start[f] + sh), ce = time_axis_col_ceil(ax, model_end(m, f) + sh);
        if (cs < c) cs = c;
        if (ce > W) ce = W;
        if (ce - cs >= 4 && cs == c) {
            draw_box(w, y, x0, ax, r, mk, (int)cs, (int)ce, f);
            c = (int)ce;
            continue;
        }
        bool has_sel = sel != SLICE_NONE && sel >= f && sel < l;
        if (has_sel && mk->sel_cells) {
            draw_text(w, y, x0 + c, 1, mark, SIZE_MAX, draw_attr(CP_SELECT));
            c++;
            continue;
        }
        if (has_sel)
            sel_here = sel;
        double frac = (double)row_busy(r, f, l, ct0, ct1, ax->npc) / (double)ax->npc;
        attr_t a = shade_a;
        for (uint32_t i = f; i < l && i < f + 4; i++)
            if (is_flow(mk, i))
                a = draw_attr(CP_FLOW);
        draw_text(w, y, x0 + c, 1, lanedraw_shade(frac), SIZE_MAX, a);
        c++;
    }
    /* a narrow selected slice still shows as a marked cell */
    if (sel_here != SLICE_NONE) {
        int64_t c = time_axis_col(ax, m->start[sel_here] + sh);
        if (c < 0) c = 0;
        if (c < W)
            draw_text(w, y, x0 + (int)c, 1, mark, SIZE_MAX, draw_attr(CP_SELECT));
    }
}
