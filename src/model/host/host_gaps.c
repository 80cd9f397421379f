/* Device idle gaps with cause and host frames (see host_gaps.h). */
#include "model/host/host_gaps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/host/host_launch.h"
#include "model/analysis/rank_flowstats.h"
#include "model/index/model_ranks.h"
#include "model/rowsets/jsonbuf.h"
#include "util/search.h"

const char *host_gap_cause_name(enum host_gap_cause c)
{
    return c == GAP_HOST_BOUND ? "host_bound" : c == GAP_SYNC ? "sync" : "other";
}

/* The thread that launched device slice k: a Python thread among its flows' sources, else
 * the launcher's; LANE_NONE when it has none. */
static uint32_t launch_lane(const struct model *m, const struct flowstats *fs, uint32_t k)
{
    const uint32_t *f;
    size_t nf = model_flows_to(m, k, &f);
    for (size_t i = 0; i < nf; i++) {
        uint32_t src = m->flows[f[i]].src;
        if (m->flows[f[i]].dst == k && src != SLICE_NONE && m->lanes[m->lane[src]].kind == LANE_PYTHON)
            return m->lane[src];
    }
    const struct flow_launch *fl = flowstats_launch(fs, k);
    return fl && fl->launcher != SLICE_NONE ? m->lane[fl->launcher] : LANE_NONE;
}

/* The stack of lane at time t, outermost first: per depth row the slice holding t (a slice
 * that ends at t has ended). */
static size_t stack_at(const struct model *m, uint32_t lane, ns_t t, uint32_t *out, size_t cap)
{
    size_t n = 0;
    for (uint32_t d = 0; d < m->lanes[lane].ndepth && n < cap; d++) {
        uint32_t a, b;
        model_row_range(m, lane, d, t, t + 1, &a, &b);
        for (uint32_t y = a; y < b && n < cap; y++)
            if (m->start[y] <= t && t < model_end(m, y))
                out[n++] = y;
    }
    /* rows are by depth, not by start: order by the innermost rule (host_self.h) */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0; j--) {
            uint32_t x = out[j - 1], y = out[j];
            bool later = m->start[y] != m->start[x] ? m->start[y] < m->start[x]
                       : model_end(m, y) != model_end(m, x) ? model_end(m, y) > model_end(m, x)
                       : m->depth[y] < m->depth[x];
            if (!later)
                break;
            out[j - 1] = y;
            out[j] = x;
        }
    return n;
}

struct walk {
    const struct model *m;
    const struct flowstats *fs;
    host_gap_fn fn;
    void *ctx;
};

void host_gap_of(const struct model *m, const struct flowstats *fs, const struct flow_gap *g, struct host_gap *out)
{
    struct host_gap h = { .t0 = g->t0, .t1 = g->t1, .before = g->before, .after = g->after };
    const struct flow_launch *fl = flowstats_launch(fs, g->after);
    if (g->host_bound)
        h.cause = GAP_HOST_BOUND;
    else if (fl && fl->launcher != SLICE_NONE && m->start[fl->launcher] <= g->t0)
        h.cause = GAP_SYNC;
    else
        h.cause = GAP_OTHER;
    size_t st;   /* windows are sorted and disjoint: the first with t1 > t0 is the only candidate */
    LOWER_BOUND(st, (size_t)0, fs->nsteps, k, fs->steps[k].t1 <= g->t0);
    if (st < fs->nsteps && fs->steps[st].t0 <= g->t0) {
        h.has_step = true;
        h.step = fs->steps[st].index;
    }
    h.lane = launch_lane(m, fs, g->after);
    if (h.lane == LANE_NONE)
        h.lane = launch_lane(m, fs, g->before);
    if (h.lane != LANE_NONE)
        h.nframes = stack_at(m, h.lane, g->t0, h.frames, HOST_GAP_FRAMES_MAX);
    *out = h;
}

static void one_gap(const struct flow_gap *g, void *ctx)
{
    struct walk *w = ctx;
    struct host_gap h;
    host_gap_of(w->m, w->fs, g, &h);
    w->fn(&h, w->ctx);
}

void host_idle_owners_add(struct host_idle_owners *o, const struct model *m, const struct host_gap *g)
{
    ns_t d = g->t1 - g->t0;
    if (!g->nframes) {
        o->unnamed += d;
        return;
    }
    uint32_t name = m->name[g->frames[g->nframes - 1]];
    for (size_t i = 0; i < o->n; i++)
        if (o->name[i] == name) {
            o->idle[i] += d;
            return;
        }
    if (o->n == HOST_IDLE_OWNERS_MAX) {
        o->unnamed += d;
        return;
    }
    o->name[o->n] = name;
    o->idle[o->n++] = d;
}

void host_idle_owners_text(const struct host_idle_owners *o, const struct model *m, size_t k, char *buf, size_t size)
{
    bool used[HOST_IDLE_OWNERS_MAX] = { false };
    size_t at = 0;
    buf[0] = 0;
    for (size_t r = 0; r < k && r < o->n; r++) {
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < o->n; i++)
            if (!used[i] && (best == SIZE_MAX || o->idle[i] > o->idle[best] ||
                             (o->idle[i] == o->idle[best] && strcmp(model_str(m, o->name[i]), model_str(m, o->name[best])) < 0)))
                best = i;
        used[best] = true;
        int w = snprintf(buf + at, size - at, "%s%.80s (%lld.%03lld ms)", r ? ", " : "", model_str(m, o->name[best]),
                         (long long)(o->idle[best] / 1000000), (long long)(o->idle[best] % 1000000 / 1000));
        if (w < 0 || (size_t)w >= size - at)
            break;
        at += (size_t)w;
    }
}

int host_gaps_each(const struct model *m, const struct flowstats *fs, host_gap_fn fn, void *ctx)
{
    struct walk w = { m, fs, fn, ctx };
    return flowstats_gaps(m, fs, one_gap, &w);
}

void host_gaps_each_host_bound(const struct model *m, const struct flowstats *fs, host_gap_fn fn, void *ctx)
{
    struct walk w = { m, fs, fn, ctx };
    for (size_t i = 0; i < fs->host_bound_gaps; i++)
        one_gap(&fs->host_bound_list[i], &w);
}

/* --- the report's rows --------------------------------------------------------------------- */

enum { GC_STEP, GC_START, GC_DUR, GC_CAUSE, GC_INNERMOST, GC_FRAMES, GC_THREAD };
static const struct rs_coldef gap_cols[] = {
    RS_COL_INT("step", "Step"),
    RS_COL_NS("start_us", "Start µs"),
    RS_COL_NS("dur_us", "Idle µs"),
    RS_COL_STR("cause", "Cause"),
    RS_COL_STR("innermost", "Innermost host frame"),
    RS_COL_RAW("frames", "Host frames when it began (outermost first)"),
    RS_COL_STR("thread", "Thread"),
};

struct gap_rows {
    struct rowset *rs;
    size_t crank, base, rank_index;
    int rank;
};

static void gap_row(const struct host_gap *g, void *ctx)
{
    struct gap_rows *r = ctx;
    size_t row = rowset_linked_row(r->rs, rowset_rank_link(r->rank_index, g->after));
    if (row == SIZE_MAX)
        return;
    if (r->crank != SIZE_MAX)
        rowset_int(r->rs, row, r->crank, r->rank);
    if (g->has_step)
        rowset_int(r->rs, row, r->base + GC_STEP, g->step);
    rowset_ns(r->rs, row, r->base + GC_START, g->t0);
    rowset_ns(r->rs, row, r->base + GC_DUR, g->t1 - g->t0);
    rowset_str(r->rs, row, r->base + GC_CAUSE, host_gap_cause_name(g->cause));
}

struct gap_ctx {
    struct gap_rows rows;
    const struct model *m;
};

static void gap_row_model(const struct host_gap *g, void *ctx)
{
    struct gap_ctx *c = ctx;
    gap_row(g, &c->rows);
    struct rowset *rs = c->rows.rs;
    if (!rs->nrows)
        return;
    size_t row = rs->nrows - 1;
    struct jbuf b = { 0 };
    jputs(&b, "[");
    for (size_t i = 0; i < g->nframes; i++) {
        if (i)
            jputs(&b, ",");
        jstr(&b, model_str(c->m, c->m->name[g->frames[i]]));
    }
    jputs(&b, "]");
    if (!b.oom)
        rowset_raw(rs, row, c->rows.base + GC_FRAMES, b.p);
    free(b.p);
    if (g->nframes)
        rowset_str(rs, row, c->rows.base + GC_INNERMOST, model_str(c->m, c->m->name[g->frames[g->nframes - 1]]));
    if (g->lane != LANE_NONE) {
        char lab[256];
        rowset_str(rs, row, c->rows.base + GC_THREAD, model_lane_label(c->m, g->lane, lab, sizeof lab));
    }
}

struct rowset *host_gaps_session_rowset(const struct session *s, int rank)
{
    if (!s)
        return NULL;
    struct gap_ctx c = { .rows = { .crank = SIZE_MAX } };
    size_t ranks = 0;
    const struct rank_data *rd;
    for (size_t i = 0; (rd = model_rank_next(s, &i, rank)); i++) {
        if (!c.rows.rs) {
            c.rows.rs = ROWSET_NEW_RANKED("gaps", s->nranks > 1, gap_cols, &c.rows.crank, &c.rows.base);
            if (!c.rows.rs)
                return NULL;
        }
        struct flowstats *own;
        const struct flowstats *fs = rank_flowstats(rd, &own);
        if (!fs)
            continue;
        c.m = rd->model;
        c.rows.rank = rd->rank;
        c.rows.rank_index = i;
        size_t before = c.rows.rs->nrows;
        host_gaps_each(rd->model, fs, gap_row_model, &c);
        ranks += c.rows.rs->nrows > before;
        flowstats_free(own);
    }
    if (c.rows.rs && !c.rows.rs->nrows) {
        rowset_free(c.rows.rs);
        return NULL;
    }
    if (c.rows.rs)
        rowset_caption(c.rows.rs, "%zu device idle gaps of %zu rank%s, in time order per device; cause: host_bound"
                       " (launched after the device went idle), sync (launched, waiting), other (no launcher)",
                       c.rows.rs->nrows, ranks, ranks == 1 ? "" : "s");
    return c.rows.rs;
}
