/* The timeline's lower pane: a two-line summary of the selected slice, the detail pane (all
 * fields, flows with launch latency, and the event's args or DB row read off the UI thread
 * (slice_fields.h: "reading…" until they come), or per-name aggregates over a selected time
 * range. */
#include "ui/timeline/timeline.h"
#include "util/grow.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "model/analysis/kernels.h"
#include "model/index/table.h"
#include "ui/shell/draw.h"
#include "util/demangle.h"

int tl_pane_height(const struct timeline *t, int body_h)
{
    if (body_h < 8)
        return 0;
    int big = body_h * 2 / 5;
    if (big > 18) big = 18;
    if (big < 5) big = 5;
    if ((t->detail && t->sel != SLICE_NONE) || t->range == 2)
        return big;
    if (t->sel != SLICE_NONE || t->range == 1)
        return 3;
    return 0;
}

void tl_pane_free(struct timeline *t)
{
    draw_strings_free(t->lines, t->nlines);
    t->lines = NULL;
    t->nlines = 0;
    t->lines_for = SLICE_NONE;
    slice_fields_release(t->fields);
    t->fields = NULL;
    t->fields_for = SLICE_NONE;
    range_totals_free(&t->rt);
    t->nagg = 0;
}

static void add_line(struct timeline *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_line(struct timeline *t, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **n = grow_exact(t->lines, (size_t)t->nlines + 1, sizeof *n);
    if (!n)
        return;
    t->lines = n;
    t->lines[t->nlines] = strdup(buf);
    if (t->lines[t->nlines])
        t->nlines++;
}

/* Adds "  key: value" lines; long multi-part values get one line per part. */
static void add_value_lines(struct timeline *t, const char *key, const char *val)
{
    bool stack = !strcmp(key, "Call stack") || strchr(val, '\n');
    if (!stack) {
        add_line(t, "  %s: %s", key, val);
        return;
    }
    add_line(t, "  %s:", key);
    /* parts end at ';' (torch_npu writes ";\r\n"), or at a line break */
    const char *p = val;
    while (*p) {
        size_t n = strcspn(p, ";\r\n");
        bool semi = p[n] == ';';
        if (n)
            add_line(t, "      %.*s", (int)n, p);
        else if (semi)
            add_line(t, "      -");   /* an input without dims (a scalar, None) */
        p += n;
        if (*p == ';')
            p++;
        while (*p == '\r' || *p == '\n')
            p++;
    }
}

static void flow_lines(struct timeline *t, uint32_t s)
{
    const struct model *m = t->m;
    const uint32_t *idx;
    for (int dir = 0; dir < 2; dir++) {
        size_t n = dir == 0 ? model_flows_to(m, s, &idx) : model_flows_from(m, s, &idx);
        for (size_t i = 0; i < n && i < 32; i++) {
            const struct flow *f = &m->flows[idx[i]];
            uint32_t o = dir == 0 ? f->src : f->dst;
            char lane[256], at[48], lat[48];
            if (o == SLICE_NONE) {
                add_line(t, "  %s %s: other end missing", dir == 0 ? "<-" : "->", model_str(m, f->cat));
                continue;
            }
            ns_t d = dir == 0 ? m->start[s] - m->start[o] : m->start[o] - m->start[s];
            add_line(t, "  %s %s  %s  (%s) at %s  %s %s", dir == 0 ? "<-" : "->", model_str(m, f->cat),
                     model_str(m, m->name[o]), lanedraw_lane_label(m, m->lane[o], lane, sizeof lane),
                     tl_fmt_time(t, m->start[o], at, sizeof at),
                     dir == 0 ? "launch latency" : "latency", fmt_dur(d, lat, sizeof lat));
        }
        if (n > 32)
            add_line(t, "  ... %zu more", n - 32);
    }
}

/* The fields read from the slice's file: the event's args, or the DB row and its task-info
 * rows grouped by table; "reading…" while the job runs (the pane is built again when done). */
static void field_lines(struct timeline *t, uint32_t s, int wake_fd)
{
    if (t->fields_for != s) {
        slice_fields_release(t->fields);
        t->fields = slice_fields_start(t->m, s, wake_fd);
        t->fields_for = s;
    }
    t->fields_waiting = !slice_fields_done(t->fields);
    if (t->fields_waiting) {
        add_line(t, "Args      %s", draw_utf8 ? "reading\xe2\x80\xa6" : "reading...");
        return;
    }
    const struct slice_field *f;
    const char *err;
    size_t n = slice_fields_get(t->fields, &f, &err);
    const char *sec = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!sec || strcmp(sec, f[i].section)) {
            sec = f[i].section;
            add_line(t, strcmp(sec, "Args") ? "%s row" : "%s", sec);
        }
        add_value_lines(t, f[i].key, f[i].value);
    }
    if (err[0])
        add_line(t, "%-9s (%s)", slice_fields_what(t->fields), err);
}

/* Every column of the kernel table row joined to slice s (kernel_details.csv, op_summary or
 * the DB's task tables), headers as written (they carry the units). */
static void kernel_row_lines(struct timeline *t, const struct table *kt, uint32_t s)
{
    size_t r = kernels_row_for_slice(kt, s);
    if (r == SIZE_MAX)
        return;
    const char *base = strrchr(kt->path, '/');
    add_line(t, "Kernel row %zu of %s", r + 1, base ? base + 1 : kt->path);
    for (size_t c = 0; c < kt->ncols; c++) {
        const struct table_col *col = &kt->cols[c];
        char v[64];
        const char *val = v;
        if (table_is_missing(kt, r, c)) {
            val = "-";
        } else if (col->type == TC_TEXT) {
            val = table_text(kt, r, c);
        } else if (col->type == TC_TIME) {   /* exact ns as µs */
            int64_t ns = table_time(kt, r, c);
            uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
            snprintf(v, sizeof v, "%s%llu.%03llu", ns < 0 ? "-" : "", (unsigned long long)(a / 1000),
                     (unsigned long long)(a % 1000));
        } else {
            snprintf(v, sizeof v, "%.*f", col->prec > 0 ? col->prec : 0, table_num(kt, r, c));
            if (col->prec <= 0 && table_num(kt, r, c) != (double)(long long)table_num(kt, r, c))
                snprintf(v, sizeof v, "%.17g", table_num(kt, r, c));
        }
        add_value_lines(t, col->header, val);
    }
}

/* text whole over lines of at most width characters: the first starts with head, the
 * others are indented as far (a name is never cut: the pane shows all of it). */
static void add_wrapped(struct timeline *t, const char *head, const char *text, int width)
{
    int indent = (int)strlen(head);
    int room = width - indent > 16 ? width - indent : 16;
    const char *p = text;
    do {
        const char *e = p;
        for (int n = 0; *e && n < room; n++)
            for (e++; ((unsigned char)*e & 0xc0) == 0x80; e++)
                ;
        add_line(t, "%*s%.*s", indent, p == text ? head : "", (int)(e - p), p);
        p = e;
    } while (*p);
}

static void build_lines(struct timeline *t, const struct table *kt, int wake_fd, int cols)
{
    const struct model *m = t->m;
    uint32_t s = t->sel;
    for (size_t i = 0; i < t->nlines; i++)
        free(t->lines[i]);
    t->nlines = 0;
    t->lines_for = s;
    t->lines_cols = cols;
    char lane[256], a[48], b[48], c[48];
    /* a C++ symbol: the demangled name first, then the name as the capture wrote it */
    const char *raw = model_str(m, m->name[s]);
    const char *shown = demangle_shown(raw);
    add_wrapped(t, "", shown, cols - 2);
    t->name_lines = t->nlines;
    if (shown != raw)
        add_wrapped(t, "Mangled   ", raw, cols - 2);
    add_line(t, "Lane      %s", lanedraw_lane_label(m, m->lane[s], lane, sizeof lane));
    bool abs = t->abs_time;
    struct timeline tmp = *t;
    tmp.abs_time = false;
    tl_fmt_time(&tmp, m->start[s], a, sizeof a);
    tmp.abs_time = true;
    tl_fmt_time(&tmp, m->start[s], b, sizeof b);
    (void)abs;
    add_line(t, "Start     %s   (absolute %s)", a, b);
    add_line(t, "Duration  %s   self %s   depth %u", fmt_dur(m->dur[s], a, sizeof a),
             fmt_dur(model_self(m, s), c, sizeof c), (unsigned)m->depth[s]);
    if (m->cat && m->cat[s])
        add_line(t, "Category  %s", model_str(m, m->cat[s]));
    const uint32_t *idx;
    if (model_flows_to(m, s, &idx) || model_flows_from(m, s, &idx)) {
        add_line(t, "Flows");
        flow_lines(t, s);
    }
    field_lines(t, s, wake_fd);
    kernel_row_lines(t, kt, s);
}

static void rule(WINDOW *w, int y, int cols, const char *title, const char *right)
{
    draw_fill(w, y, 0, cols, draw_utf8 ? "─" : "-", draw_attr(CP_DIM));
    int x = 1;
    if (title) {
        x += draw_text(w, y, x, cols - 2, " ", 1, A_NORMAL);
        x += draw_text(w, y, x, cols - x - 1, title, SIZE_MAX, A_BOLD);
        draw_text(w, y, x, 1, " ", 1, A_NORMAL);
    }
    if (right) {
        int rw = draw_text_width(right, SIZE_MAX);
        if (cols - rw - 2 > x + 2)
            draw_text(w, y, cols - rw - 2, rw + 1, right, SIZE_MAX, draw_attr(CP_DIM));
    }
}

static void draw_summary(struct view *v, WINDOW *w, int y, int cols)
{
    struct timeline *t = tl_of(v);
    const struct model *m = t->m;
    uint32_t s = t->sel;
    char lane[256], a[48], b[48], c[48], line[1024];
    rule(w, y, cols, NULL, "Enter:detail  f:follow  F:back  v:range");
    int x = 1;
    x += draw_text(w, y + 1, x, cols - x - 1, demangle_shown(model_str(m, m->name[s])), SIZE_MAX, A_BOLD);
    snprintf(line, sizeof line, "  %s   start %s  dur %s  self %s",
             lanedraw_lane_label(m, m->lane[s], lane, sizeof lane), tl_fmt_time(t, m->start[s], a, sizeof a),
             fmt_dur(m->dur[s], b, sizeof b), fmt_dur(model_self(m, s), c, sizeof c));
    draw_text(w, y + 1, x, cols - x - 1, line, SIZE_MAX, A_NORMAL);
    /* the first flow in, else the first flow out */
    const uint32_t *idx;
    size_t nin = model_flows_to(m, s, &idx);
    const struct flow *f = NULL;
    bool in = true;
    if (nin) {
        f = &m->flows[idx[0]];
    } else if (model_flows_from(m, s, &idx)) {
        f = &m->flows[idx[0]];
        in = false;
    }
    size_t nout = model_flows_from(m, s, &idx);
    uint32_t o = f ? (in ? f->src : f->dst) : SLICE_NONE;
    if (o != SLICE_NONE) {
        ns_t d = in ? m->start[s] - m->start[o] : m->start[o] - m->start[s];
        snprintf(line, sizeof line, "%s %s (%s) at %s %s %s %s   [%zu in, %zu out]",
                 in ? "launched by" : "launches", model_str(m, m->name[o]),
                 lanedraw_lane_label(m, m->lane[o], lane, sizeof lane), tl_fmt_time(t, m->start[o], a, sizeof a),
                 draw_utf8 ? "·" : "-", in ? "launch latency" : "latency", fmt_dur(d, b, sizeof b), nin, nout);
        draw_text(w, y + 2, 1, cols - 2, line, SIZE_MAX, A_NORMAL);
    } else {
        snprintf(line, sizeof line, "depth %u   %s", (unsigned)m->depth[s],
                 m->cat && m->cat[s] ? model_str(m, m->cat[s]) : "");
        draw_text(w, y + 2, 1, cols - 2, line, SIZE_MAX, draw_attr(CP_DIM));
    }
}

static void draw_detail(struct view *v, WINDOW *w, int y, int h, int cols)
{
    struct timeline *t = tl_of(v);
    if (t->lines_for != t->sel || t->lines_cols != cols || (t->fields_waiting && slice_fields_done(t->fields))) {
        const struct rank_data *rd = ui_rank(v->ui);
        build_lines(t, rd ? rd->tables[TK_KERNELS] : NULL, v->ui->wake_fd, cols);
    }
    rule(w, y, cols, "Detail", "J/K:scroll  Esc:close");
    int rows = h - 1;
    if (t->detail_top > (int)t->nlines - rows) t->detail_top = (int)t->nlines - rows;
    if (t->detail_top < 0) t->detail_top = 0;
    for (int i = 0; i < rows; i++) {
        size_t li = (size_t)t->detail_top + (size_t)i;
        if (li >= t->nlines)
            break;
        attr_t a = li < t->name_lines ? A_BOLD : (t->lines[li][0] != ' ' ? draw_attr(CP_HOST) : A_NORMAL);
        draw_text(w, y + 1 + i, 1, cols - 2, t->lines[li], SIZE_MAX, a);
    }
}

void tl_range_compute(struct timeline *t)
{
    range_totals_free(&t->rt);
    t->nagg = 0;
    t->agg_top = 0;
    const struct model *m = t->m;
    if (!m || t->range != 2)
        return;
    uint32_t *lanes = malloc((m->nlanes + 1) * sizeof *lanes);
    if (!lanes)
        return;
    size_t n = 0;
    for (size_t i = 0; i < t->nrows; i++) {
        const struct tl_row *r = &t->rows[i];
        if (r->kind == TR_LANE && r->depth == 0)
            lanes[n++] = r->lane;
    }
    if (n && range_totals_compute(m, lanes, n, t->r0, t->r1, &t->rt) == 0) {
        t->nagg = t->rt.n;
        for (int g = 0; g < RG_COUNT; g++)
            t->nagg += t->rt.group_slices[g] > 0;   /* a heading per group */
    }
    free(lanes);
}

/* Line k of the range pane: a group heading (*row = SIZE_MAX, *group set) or a row. */
static void range_line(const struct range_totals *rt, size_t k, size_t *row, int *group)
{
    size_t r = 0;
    for (int g = 0; g < RG_COUNT; g++) {
        if (!rt->group_slices[g])
            continue;
        if (k == 0) {
            *row = SIZE_MAX;
            *group = g;
            return;
        }
        k--;
        size_t n = 0;
        while (r + n < rt->n && (int)rt->rows[r + n].group == g)
            n++;
        if (k < n) {
            *row = r + k;
            *group = g;
            return;
        }
        k -= n;
        r += n;
    }
    *row = SIZE_MAX;
    *group = -1;
}

static void draw_range(struct view *v, WINDOW *w, int y, int h, int cols)
{
    struct timeline *t = tl_of(v);
    const struct model *m = t->m;
    const struct range_totals *rt = &t->rt;
    char a[48], b[48], c[48], title[256];
    snprintf(title, sizeof title, "Range %s .. %s (%s), visible lanes, time clipped to the range",
             tl_fmt_time(t, t->r0, a, sizeof a), tl_fmt_time(t, t->r1, b, sizeof b), fmt_dur(t->r1 - t->r0, c, sizeof c));
    rule(w, y, cols, title, "z:zoom  E:export  J/K:scroll  Esc:clear");
    const char *us = draw_utf8 ? "\xc2\xb5s" : "us";
    int nw = cols - 2 - 9 - 13 - 3 * 12 - 7;
    if (nw < 12) nw = 12;
    char line[1024];
    /* the µ sign is two bytes: pad by display width */
    snprintf(line, sizeof line, "%-*s %8s %12s %9s%s %9s%s %9s%s %6s", nw, "Name", "Count", "In range ms",
             "Mean ", us, "Min ", us, "Max ", us, "Share");
    draw_text(w, y + 1, 1, cols - 2, line, SIZE_MAX, A_BOLD | A_UNDERLINE);
    int rows = h - 3;
    if (t->agg_top > (int)t->nagg - rows) t->agg_top = (int)t->nagg - rows;
    if (t->agg_top < 0) t->agg_top = 0;
    for (int i = 0; i < rows; i++) {
        size_t k = (size_t)t->agg_top + (size_t)i, ri;
        int g;
        if (k >= t->nagg)
            break;
        range_line(rt, k, &ri, &g);
        if (g < 0)
            break;
        if (ri == SIZE_MAX) {
            snprintf(line, sizeof line, "%s lanes: %llu slices, %.3f ms in range (top-level slices, summed over lanes)",
                     range_group_name((enum range_group)g), (unsigned long long)rt->group_slices[g],
                     (double)rt->group_time[g] / 1e6);
            draw_text(w, y + 2 + i, 1, cols - 2, line, SIZE_MAX, A_BOLD);
            continue;
        }
        const struct range_row *r = &rt->rows[ri];
        draw_text(w, y + 2 + i, 1, nw, model_str(m, r->name), strtab_len(m->str, r->name), A_NORMAL);
        ns_t gt = rt->group_time[g];
        snprintf(line, sizeof line, " %8llu %12.3f %11.3f %11.3f %11.3f %5.1f%%",
                 (unsigned long long)r->count, (double)r->in_range / 1e6,
                 r->count ? (double)r->full / (double)r->count / 1e3 : 0.0,
                 (double)r->min / 1e3, (double)r->max / 1e3,
                 gt > 0 ? 100.0 * (double)r->in_range / (double)gt : 0.0);
        draw_text(w, y + 2 + i, 1 + nw, cols - nw - 2, line, SIZE_MAX, A_NORMAL);
    }
    snprintf(line, sizeof line, "%zu names; share = of the group's in-range time", rt->n);
    draw_text(w, y + h - 1, 1, cols - 2, line, SIZE_MAX, draw_attr(CP_DIM));
}

void tl_pane_draw(struct view *v, WINDOW *w, int y, int h, int cols)
{
    struct timeline *t = tl_of(v);
    if (t->detail && t->sel != SLICE_NONE) {
        draw_detail(v, w, y, h, cols);
    } else if (t->range == 2) {
        draw_range(v, w, y, h, cols);
    } else if (t->range == 1) {
        char a[48], line[128];
        rule(w, y, cols, NULL, NULL);
        snprintf(line, sizeof line, "range from %s: move, then v to mark the end (Esc: cancel)",
                 tl_fmt_time(t, t->r0, a, sizeof a));
        draw_text(w, y + 1, 1, cols - 2, line, SIZE_MAX, A_NORMAL);
    } else if (t->sel != SLICE_NONE) {
        draw_summary(v, w, y, cols);
    }
}
