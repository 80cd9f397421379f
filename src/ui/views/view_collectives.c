/* The Collectives view: every collective (and p2p op) matched across ranks, one row per
 * instance with one column group per rank (arrival after the instance's first arrival,
 * wait, transit, elapse; "last" on the last arriver), sorted by the wait the last arriver
 * caused on the others (model/analysis/comm_match.h defines both). Enter opens X-Rank aligned on
 * that collective. `t` switches to the link matrix: a source x destination grid of
 * bandwidth and size for one transport (`T` picks the next), slow links marked
 * (model/analysis/comm_links.h). Rowsets and figures come from the model; this file only draws. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/analysis/comm.h"
#include "model/analysis/comm_links.h"
#include "model/analysis/comm_match.h"
#include "ui/shell/draw.h"
#include "ui/table/view_table.h"
#include "util/free_all.h"

#define MAX_TRANSPORTS 16

struct collview {
    struct vtable tab;
    struct comm_instances ci;
    bool have_ci;
    int mode;                   /* 0: collectives, 1: link matrix */
    bool stale;
    uint64_t sig;               /* which comm parts the figures came from */
    size_t *rank_col;           /* per session rank: its rN_last column, SIZE_MAX: none */
    size_t ncols_ranks;         /* ranks with a column group */

    struct comm_linkmat lm;
    const char *transports[MAX_TRANSPORTS];
    size_t ntransports, ti;     /* the transport shown */
    int64_t *srcs, *dsts;       /* distinct ranks of the transport's links, ascending */
    size_t nsrc, ndst, cs, cd;  /* cursor: source and destination index */
    size_t dst_left;            /* first destination column shown */
};

static struct collview *cv_of(struct view *v) { return v->priv; }

static uint64_t comm_sig(const struct session *s)
{
    uint64_t h = 1469598103934665603ull ^ (s ? s->nranks : 0);
    for (size_t i = 0; s && i < s->nranks; i++)
        h = (h ^ (uint64_t)(uintptr_t)s->ranks[i].comm) * 1099511628211ull;
    return h;
}

/* --- link matrix ------------------------------------------------------------------------ */

static int cmp_i64(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

/* Distinct sorted values into *out (malloc'd); returns their count. */
static size_t distinct(int64_t *vals, size_t n, int64_t **out)
{
    qsort(vals, n, sizeof *vals, cmp_i64);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!k || vals[k - 1] != vals[i])
            vals[k++] = vals[i];
    *out = vals;
    return k;
}

/* The grid's axes for the transport shown. */
static void matrix_axes(struct collview *cv)
{
    free(cv->srcs);
    free(cv->dsts);
    cv->srcs = cv->dsts = NULL;
    cv->nsrc = cv->ndst = 0;
    if (cv->ti >= cv->ntransports)
        return;
    const char *tt = cv->transports[cv->ti];
    int64_t *a = malloc((cv->lm.n ? cv->lm.n : 1) * sizeof *a), *b = malloc((cv->lm.n ? cv->lm.n : 1) * sizeof *b);
    if (!a || !b) {
        FREE_ALL(a, b);
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < cv->lm.n; i++)
        if (!strcmp(cv->lm.l[i].transport, tt)) {
            a[n] = cv->lm.l[i].src;
            b[n++] = cv->lm.l[i].dst;
        }
    cv->nsrc = distinct(a, n, &cv->srcs);
    cv->ndst = distinct(b, n, &cv->dsts);
    if (cv->cs >= cv->nsrc) cv->cs = 0;
    if (cv->cd >= cv->ndst) cv->cd = 0;
}

static const struct comm_linkagg *cell(const struct collview *cv, size_t si, size_t di)
{
    if (cv->ti >= cv->ntransports || si >= cv->nsrc || di >= cv->ndst)
        return NULL;
    for (size_t i = 0; i < cv->lm.n; i++) {
        const struct comm_linkagg *a = &cv->lm.l[i];
        if (a->src == cv->srcs[si] && a->dst == cv->dsts[di] && !strcmp(a->transport, cv->transports[cv->ti]))
            return a;
    }
    return NULL;
}

static void build_matrix(struct view *v)
{
    struct collview *cv = cv_of(v);
    const char *keep = cv->ti < cv->ntransports ? cv->transports[cv->ti] : NULL;
    char kept[64] = "";
    if (keep)
        snprintf(kept, sizeof kept, "%s", keep);
    comm_links_done(&cv->lm);
    cv->ntransports = 0;
    if (v->ui->s && comm_links_build(v->ui->s, &cv->lm))
        ui_error(v->ui, "out of memory: no link matrix");
    /* links come grouped by transport */
    for (size_t i = 0; i < cv->lm.n && cv->ntransports < MAX_TRANSPORTS; i++)
        if (!cv->ntransports || strcmp(cv->transports[cv->ntransports - 1], cv->lm.l[i].transport))
            cv->transports[cv->ntransports++] = cv->lm.l[i].transport;
    cv->ti = 0;
    for (size_t i = 0; i < cv->ntransports; i++)
        if (!strcmp(cv->transports[i], kept))
            cv->ti = i;
    matrix_axes(cv);
}

/* --- collectives table ------------------------------------------------------------------ */

static void build_table(struct view *v)
{
    struct collview *cv = cv_of(v);
    struct ui *ui = v->ui;
    if (cv->have_ci)
        comm_instances_done(&cv->ci);
    cv->have_ci = ui->s && !comm_instances_build(ui->s, &cv->ci);
    struct rowset *rs = cv->have_ci ? comm_instances_rowset(ui->s, &cv->ci) : NULL;
    bool first = !cv->tab.rs;
    vt_set(&cv->tab, rs);
    if (rs && first) {
        vt_sort_key(&cv->tab, "caused_wait_ms", true);
        cv->tab.sel = cv->tab.top = 0;
    }
    /* name, caused wait, last arriver and rank count stay while the rank groups scroll */
    if (rs)
        cv->tab.frozen = 4;
    free(cv->rank_col);
    size_t n = ui->s ? ui->s->nranks : 0;
    cv->rank_col = calloc(n ? n : 1, sizeof *cv->rank_col);
    cv->ncols_ranks = 0;
    for (size_t i = 0; cv->rank_col && i < n; i++) {
        char key[48];
        snprintf(key, sizeof key, "r%d_last", ui->s->ranks[i].rank);
        cv->rank_col[i] = rs ? rowset_find_col(rs, key) : SIZE_MAX;
        cv->ncols_ranks += cv->rank_col[i] != SIZE_MAX;
    }
    /* a rank whose kernels' sequence leaves the others' comes first: its later ops match nothing */
    char div[300] = "";
    if (cv->have_ci && cv->ci.ndiv) {
        char note[256];
        comm_divergence_text(ui->s, &cv->ci.div[0], note, sizeof note);
        snprintf(div, sizeof div, "not lined up: %s (later ops unmatched%s); ", note,
                 cv->ci.ndiv > 1 ? ", more in report comm_ranks" : "");
    }
    snprintf(cv->tab.caption, sizeof cv->tab.caption, "%s%zu instance%s; arrival: start after the instance's first "
             "start (each rank's clock); %slast: the rank that waited least; caused wait: the others' wait", div,
             rs ? rs->nrows : 0, rs && rs->nrows == 1 ? "" : "s",
             cv->have_ci && cv->ci.wait ? "wait of NCCL kernels: last arrival - own, clocks aligned; " : "");
    if (!rs) {
        bool loading = ui->load.loading;
        vt_empty(&cv->tab, "no communication ops%s (communication.json, analysis.db or NCCL kernels of each rank)",
                 loading ? " loaded yet" : "");
    }
}

static void coll_refresh(struct view *v)
{
    struct collview *cv = cv_of(v);
    uint64_t sig = comm_sig(v->ui->s);
    if (!cv->stale && sig == cv->sig)
        return;
    cv->stale = false;
    cv->sig = sig;
    build_table(v);
    build_matrix(v);
}

/* Which rank groups the last frame showed: the first and last shown, and their count. */
static size_t ranks_shown(const struct collview *cv, const struct session *s, int *lo, int *hi)
{
    size_t n = 0;
    for (size_t i = 0; cv->rank_col && i < s->nranks; i++) {
        size_t c = cv->rank_col[i];
        if (c == SIZE_MAX || !cv->tab.col_x || (cv->tab.col_x[c] < 0 && cv->tab.col_x[c + 1] < 0))
            continue;
        if (!n)
            *lo = s->ranks[i].rank;
        *hi = s->ranks[i].rank;
        n++;
    }
    return n;
}

/* The selected instance in words, on the last line. */
static void draw_instance_detail(struct collview *cv, const struct session *s, WINDOW *w, int y, int cols)
{
    size_t row = vt_selected(&cv->tab);
    if (row == SIZE_MAX || !cv->have_ci)
        return;
    size_t t = (size_t)cv->tab.rs->link[row];
    if (t >= cv->ci.n)
        return;
    const struct comm_instance *in = &cv->ci.inst[t];
    char line[600], buf[128];
    if (in->last == COMM_NO_INSTANCE) {
        snprintf(line, sizeof line, "on %u rank%s; no last arriver (%s)   Enter: X-Rank on it", in->n,
                 in->n == 1 ? "" : "s", in->n < 2 ? "one rank only" : "no wait figures on two ranks, or every rank waited the same");
    } else {
        const struct comm_member *m = &cv->ci.mem[in->last];
        const struct comm_op *op = &s->ranks[m->rank].comm->ops[m->op];
        const char *caused = decimal_sum_text(&in->caused, buf, sizeof buf);
        char after[48] = "";
        if (op->start_ns != NS_NONE && in->first_start != NS_NONE)
            snprintf(after, sizeof after, ", %s after the first", fmt_dur(op->start_ns - in->first_start, line, sizeof line));
        snprintf(line, sizeof line, "rank %d arrived last (least wait%s); the %u other%s waited %s ms in it   "
                 "Enter: X-Rank aligned on it", s->ranks[m->rank].rank, after, in->n - 1, in->n == 2 ? "" : "s",
                 caused ? caused : "?");
    }
    draw_text(w, y, 1, cols - 2, line, SIZE_MAX, A_NORMAL);
}

static void draw_table(struct view *v, WINDOW *w)
{
    struct collview *cv = cv_of(v);
    int H = getmaxy(w), cols = getmaxx(w);
    vt_draw(&cv->tab, w, 1, H - 2);
    const struct session *s = v->ui->s;
    char line[300];
    int lo = 0, hi = 0;
    size_t shown = s ? ranks_shown(cv, s, &lo, &hi) : 0;
    if (cv->ncols_ranks && shown < cv->ncols_ranks)
        snprintf(line, sizeof line, "Collectives x rank: ranks %d-%d shown, %zu of %zu (Left/Right: the others)   t: link matrix",
                 lo, hi, shown, cv->ncols_ranks);
    else
        snprintf(line, sizeof line, "Collectives x rank: %zu rank%s   t: link matrix", cv->ncols_ranks,
                 cv->ncols_ranks == 1 ? "" : "s");
    draw_text(w, 0, 1, cols - 2, line, SIZE_MAX, A_BOLD | (shown < cv->ncols_ranks ? draw_attr(CP_LABEL) : 0));
    if (s && H >= 6)
        draw_instance_detail(cv, s, w, H - 1, cols);
}

/* --- link matrix drawing ---------------------------------------------------------------- */

#define CELL_W 12
#define LABEL_W 9

static void draw_matrix(struct view *v, WINDOW *w)
{
    struct collview *cv = cv_of(v);
    int H = getmaxy(w), cols = getmaxx(w);
    if (!cv->ntransports) {
        draw_text(w, 0, 1, cols - 2, "Link matrix   t: collectives", SIZE_MAX, A_BOLD);
        draw_text(w, 2, 3, cols - 4, "no links (communication_matrix.json or analysis.db CommAnalyzerMatrix of each rank)",
                  SIZE_MAX, draw_attr(CP_DIM));
        return;
    }
    size_t fit = cols > LABEL_W + CELL_W ? (size_t)((cols - LABEL_W - 1) / CELL_W) : 1;
    if (cv->cd < cv->dst_left)
        cv->dst_left = cv->cd;
    if (cv->cd >= cv->dst_left + fit)
        cv->dst_left = cv->cd - fit + 1;
    size_t last = cv->dst_left + fit < cv->ndst ? cv->dst_left + fit : cv->ndst;
    size_t nslow = 0;
    for (size_t i = 0; i < cv->lm.n; i++)
        nslow += cv->lm.l[i].slow && !strcmp(cv->lm.l[i].transport, cv->transports[cv->ti]);
    char line[400];
    int n = snprintf(line, sizeof line, "Link matrix %s (%zu of %zu transports, T: next): %zu src x %zu dst, %zu slow",
                     cv->transports[cv->ti][0] ? cv->transports[cv->ti] : "(no transport)", cv->ti + 1,
                     cv->ntransports, cv->nsrc, cv->ndst, nslow);
    if (last - cv->dst_left < cv->ndst && n > 0 && (size_t)n < sizeof line)
        snprintf(line + n, sizeof line - (size_t)n, "; dst %lld-%lld shown of %zu",
                 (long long)cv->dsts[cv->dst_left], (long long)cv->dsts[last - 1], cv->ndst);
    draw_text(w, 0, 1, cols - 2, line, SIZE_MAX, A_BOLD);
    draw_text(w, 1, 1, cols - 2, "cells: GB/s (size / time), MB below; ! slow: below half the median of this "
              "transport's links   t: collectives", SIZE_MAX, draw_attr(CP_DIM));
    /* header: destination ranks */
    draw_text(w, 2, 1, LABEL_W - 1, "src\\dst", SIZE_MAX, A_BOLD | A_UNDERLINE);
    for (size_t d = cv->dst_left; d < last; d++) {
        char h[24];
        snprintf(h, sizeof h, "%*lld", CELL_W - 1, (long long)cv->dsts[d]);
        draw_text(w, 2, LABEL_W + (int)(d - cv->dst_left) * CELL_W, CELL_W, h, SIZE_MAX, A_BOLD | A_UNDERLINE);
    }
    int rows_h = H - 4, y = 3;
    size_t per = rows_h / 2 > 0 ? (size_t)(rows_h / 2) : 1;
    size_t top = cv->cs >= per ? cv->cs - per + 1 : 0;
    for (size_t si = top; si < cv->nsrc && y + 1 < H - 1; si++, y += 2) {
        char lab[24];
        snprintf(lab, sizeof lab, "%lld", (long long)cv->srcs[si]);
        draw_text(w, y, 1, LABEL_W - 1, lab, SIZE_MAX, A_BOLD);
        for (size_t d = cv->dst_left; d < last; d++) {
            const struct comm_linkagg *a = cell(cv, si, d);
            int x = LABEL_W + (int)(d - cv->dst_left) * CELL_W;
            bool sel = si == cv->cs && d == cv->cd;
            attr_t at = sel ? draw_attr(CP_SELECT) : a && a->slow ? draw_attr(CP_ERROR) : A_NORMAL;
            char b1[64], b2[128], c1[32], c2[32];
            if (!a) {
                snprintf(c1, sizeof c1, "%*s", CELL_W - 1, sel ? "-" : "");
                c2[0] = 0;
            } else {
                snprintf(c1, sizeof c1, "%*s%s", CELL_W - 2, a->gbps_e4 >= 0 ? comm_scaled_text(a->gbps_e4, 4, b1, sizeof b1) : "n/a",
                         a->slow ? "!" : " ");
                const char *mb = decimal_sum_text(&a->size_mb, b2, sizeof b2);
                snprintf(c2, sizeof c2, "%*.*s ", CELL_W - 2, CELL_W - 2, mb ? mb : "?");
            }
            draw_text(w, y, x, CELL_W, c1, SIZE_MAX, at | A_BOLD);
            draw_text(w, y + 1, x, CELL_W, c2, SIZE_MAX, sel ? at : draw_attr(CP_DIM));
        }
    }
    /* the cell under the cursor, whole */
    const struct comm_linkagg *a = cell(cv, cv->cs, cv->cd);
    if (a) {
        char s1[128], s2[128], bw[48], med[48];
        const char *mb = decimal_sum_text(&a->size_mb, s1, sizeof s1), *ms = decimal_sum_text(&a->time_ms, s2, sizeof s2);
        snprintf(line, sizeof line, "%lld -> %lld %s: %s MB in %s ms = %s GB/s (%zu entr%s); median of the %s links %s GB/s%s",
                 (long long)a->src, (long long)a->dst, a->transport, mb ? mb : "?", ms ? ms : "?",
                 a->gbps_e4 >= 0 ? comm_scaled_text(a->gbps_e4, 4, bw, sizeof bw) : "n/a", a->entries,
                 a->entries == 1 ? "y" : "ies", a->transport,
                 a->median_e5 >= 0 ? comm_scaled_text(a->median_e5, 5, med, sizeof med) : "undecided (one link)",
                 a->slow ? ": SLOW, below half of it" : "");
        draw_text(w, H - 1, 1, cols - 2, line, SIZE_MAX, a->slow ? A_BOLD : A_NORMAL);
    } else if (cv->nsrc && cv->ndst) {
        snprintf(line, sizeof line, "%lld -> %lld: no %s link", (long long)cv->srcs[cv->cs], (long long)cv->dsts[cv->cd],
                 cv->transports[cv->ti]);
        draw_text(w, H - 1, 1, cols - 2, line, SIZE_MAX, draw_attr(CP_DIM));
    }
}

static void coll_draw(struct view *v, WINDOW *w)
{
    struct collview *cv = cv_of(v);
    coll_refresh(v);
    werase(w);
    if (cv->mode == 0)
        draw_table(v, w);
    else
        draw_matrix(v, w);
}

/* --- requests --------------------------------------------------------------------------- */

/* The instance's slice on each rank's timeline (by that rank's own op name near its
 * start), then X-Rank aligned on it. */
static void open_in_xrank(struct view *v)
{
    struct collview *cv = cv_of(v);
    struct ui *ui = v->ui;
    size_t row = vt_selected(&cv->tab);
    if (row == SIZE_MAX || !cv->have_ci || !ui->s)
        return;
    size_t t = (size_t)cv->tab.rs->link[row];
    if (t >= cv->ci.n)
        return;
    const struct comm_instance *in = &cv->ci.inst[t];
    size_t n = ui->s->nranks, found = 0, focus = SIZE_MAX;
    uint32_t *slices = malloc((n ? n : 1) * sizeof *slices);
    if (!slices)
        return;
    for (size_t i = 0; i < n; i++)
        slices[i] = SLICE_NONE;
    for (uint32_t k = in->first; k < in->first + in->n; k++) {
        const struct comm_member *m = &cv->ci.mem[k];
        const struct rank_data *rd = &ui->s->ranks[m->rank];
        const struct model *md = rd->model;
        if (!md || !md->finalized)
            continue;
        const struct comm_op *op = &rd->comm->ops[m->op];
        if (op->communicator && op->slice < md->nslices) {   /* a kernel's op: its own slice */
            slices[m->rank] = op->slice;
            found++;
            if (focus == SIZE_MAX || k == in->last)
                focus = m->rank;
            continue;
        }
        char base[512];
        snprintf(base, sizeof base, "%s", strtab_get(rd->comm->str, op->name));
        char *at = strrchr(base, '@');
        if (at)
            *at = 0;
        uint32_t s = vt_find_slice(md, base, LANE_COMM, op->start_ns);
        if (s == SLICE_NONE)
            s = vt_find_slice(md, base, LANE_OTHER, op->start_ns);
        if (s == SLICE_NONE)
            continue;
        slices[m->rank] = s;
        found++;
        if (focus == SIZE_MAX || k == in->last)
            focus = m->rank;
    }
    if (!found)
        ui_error(ui, "this collective is on no rank's timeline (no trace loaded, or no slice of its name)");
    else if (!ui_show_across_ranks(ui, slices, n, focus))
        ui_error(ui, "X-Rank could not show it");
    else
        ui_message(ui, "X-Rank: the collective on %zu of %u rank%s, aligned on collective ends", found, in->n,
                   in->n == 1 ? "" : "s");
    free(slices);
}

static void matrix_move(struct collview *cv, enum request req)
{
    switch (req) {
    case REQ_MOVE_UP: if (cv->cs > 0) cv->cs--; break;
    case REQ_MOVE_DOWN: if (cv->cs + 1 < cv->nsrc) cv->cs++; break;
    case REQ_MOVE_LEFT: if (cv->cd > 0) cv->cd--; break;
    case REQ_MOVE_RIGHT: if (cv->cd + 1 < cv->ndst) cv->cd++; break;
    case REQ_HOME: cv->cs = cv->cd = 0; break;
    case REQ_END:
        cv->cs = cv->nsrc ? cv->nsrc - 1 : 0;
        cv->cd = cv->ndst ? cv->ndst - 1 : 0;
        break;
    case REQ_PAGE_UP: cv->cs = cv->cs > 10 ? cv->cs - 10 : 0; break;
    case REQ_PAGE_DOWN: cv->cs = cv->cs + 10 < cv->nsrc ? cv->cs + 10 : (cv->nsrc ? cv->nsrc - 1 : 0); break;
    default: break;
    }
}

static enum request coll_request(struct view *v, enum request req, int key)
{
    struct collview *cv = cv_of(v);
    coll_refresh(v);
    if (req == REQ_TABLE_MODE) {
        cv->mode = !cv->mode;
        ui_message(v->ui, cv->mode ? "link matrix: source x destination per transport (T: next transport)"
                                   : "collectives x rank, by the wait the last arriver caused");
        v->dirty = true;
        return REQ_NONE;
    }
    if (req == REQ_TRANSPORT) {
        if (cv->ntransports) {
            cv->mode = 1;
            cv->ti = (cv->ti + 1) % cv->ntransports;
            matrix_axes(cv);
            ui_message(v->ui, "transport %s", cv->transports[cv->ti]);
        } else {
            ui_message(v->ui, "no links to choose a transport from");
        }
        v->dirty = true;
        return REQ_NONE;
    }
    if (cv->mode == 1) {
        switch (req) {
        case REQ_MOVE_UP: case REQ_MOVE_DOWN: case REQ_MOVE_LEFT: case REQ_MOVE_RIGHT:
        case REQ_HOME: case REQ_END: case REQ_PAGE_UP: case REQ_PAGE_DOWN:
            matrix_move(cv, req);
            v->dirty = true;
            return REQ_NONE;
        default:
            return req == REQ_ENTER ? REQ_NONE : req;
        }
    }
    req = vt_request(v, &cv->tab, req, key);
    if (req == REQ_ENTER) {
        open_in_xrank(v);
        return REQ_NONE;
    }
    return req;
}

static void coll_init(struct view *v)
{
    struct collview *cv = cv_of(v);
    vt_init(&cv->tab);
    cv->stale = true;
}

static void coll_done(struct view *v)
{
    struct collview *cv = cv_of(v);
    vt_free(&cv->tab);
    if (cv->have_ci)
        comm_instances_done(&cv->ci);
    comm_links_done(&cv->lm);
    FREE_ALL(cv->rank_col, cv->srcs, cv->dsts);
}

static void coll_changed(struct view *v)
{
    /* built again on the next frame: a part freed and read again may come back at the
     * same address (model/index/session.h), which comparing the comm parts would not see */
    cv_of(v)->stale = true;
}

static const char *coll_hint(struct view *v)
{
    return cv_of(v)->mode ? "arrows:cell  T:transport  t:collectives"
                          : "Enter:X-Rank aligned  t:link matrix  <>:sort  Left/Right:ranks";
}

const struct view_ops view_collectives = {
    .name = "Collectives", .open = REQ_VIEW_COLLECTIVES,
    .help = "Collectives view: every collective across ranks (who arrived last, the wait it caused), t: link matrix", .own_scope = SCOPE_COLL,
    .scopes = SCOPE_TABLE | SCOPE_COLL,
    .private_size = sizeof(struct collview),
    .init = coll_init, .done = coll_done, .draw = coll_draw, .request = coll_request,
    .data_changed = coll_changed, .hint = coll_hint,
};
