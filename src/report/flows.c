/* The report's "flows" section: one table whose rows say what they hold in `kind`, keyed by
 * `category`:
 *   kind "flow"      category = the flow category (async_npu, HostToDevice, ...): matched
 *                    (ids with a record joining two points), unmatched (records without a partner: no
 *                    start or no end point = missing_start + missing_end), count (records),
 *                    missing_start, missing_end, unbound (records with both points whose
 *                    point landed on no slice: a partner, but nothing to bind to), bound
 *                    (chains); unmatched + unbound + bound = count;
 *   kind "latency"   category "launch_latency" or "queue_delay": count, p50/p90/p99/max/total;
 *   kind "launcher"  category "flow", "graph_launch", "none": device slices by how their
 *                    launcher was found (count); "correlation": of "flow", those joined by a
 *                    correlation id alone; "none_flowless_stream": of "none", those on
 *                    streams that no launch flow reaches; "multi": slices with flows from
 *                    several slices of one category;
 *   kind "idle"      category "host_bound_idle" (whole capture) or "step:N": count (gaps),
 *                    idle_us, host_bound_us, share (host-bound / idle; both null when no
 *                    kernel has a flow launcher: unknown);
 *   kind "kernel"    category "kernel:<name>": the kernels with the highest p99 launch
 *                    latency (--top of them, else 10), link = the slowest instance.
 * Definitions are in model/analysis/flowstats.h. A "rank" column comes first when several ranks. */
#include "report/report.h"

#include "model/analysis/rank_flowstats.h"
#include "model/index/model_ranks.h"
#include "model/analysis/steps.h"

#include <stdio.h>
#include <stdlib.h>

struct cols {
    size_t rank, kind, category, matched, unmatched, count, missing_start, missing_end, unbound,
           bound, p50, p90, p99, max, total, idle, host, share;
};

static size_t new_row(struct rowset *rs, const struct cols *c, bool ranks, int rank,
                      const char *kind, const char *category)
{
    size_t r = rowset_row(rs);
    if (r == SIZE_MAX)
        return r;
    if (ranks)
        rowset_int(rs, r, c->rank, rank);
    rowset_str(rs, r, c->kind, kind);
    rowset_str(rs, r, c->category, category);
    return r;
}

static void lat_cells(struct rowset *rs, const struct cols *c, size_t r, const struct flow_lat *l)
{
    rowset_int(rs, r, c->count, (int64_t)l->n);
    if (!l->n)
        return;
    rowset_ns(rs, r, c->p50, l->p50);
    rowset_ns(rs, r, c->p90, l->p90);
    rowset_ns(rs, r, c->p99, l->p99);
    rowset_ns(rs, r, c->max, l->max);
    rowset_ns(rs, r, c->total, l->total);
}

/* host_known false: no launch links, host-bound idle is unknown (null, never 0) */
static void idle_cells(struct rowset *rs, const struct cols *c, size_t r, size_t gaps, ns_t idle,
                       ns_t host, bool host_known)
{
    if (gaps != SIZE_MAX)
        rowset_int(rs, r, c->count, (int64_t)gaps);
    rowset_ns(rs, r, c->idle, idle);
    if (!host_known)
        return;
    rowset_ns(rs, r, c->host, host);
    if (idle > 0)
        rowset_num(rs, r, c->share, (double)host / (double)idle);
}

static void rank_rows(struct rowset *rs, const struct cols *c, bool ranks, int rank,
                      const struct model *m, const struct flowstats *fs, size_t top)
{
    char buf[600];
    size_t r;
    for (size_t i = 0; i < fs->ncats; i++) {
        const struct flow_cat_stats *k = &fs->cats[i];
        if ((r = new_row(rs, c, ranks, rank, "flow", model_str(m, k->cat))) == SIZE_MAX)
            return;
        rowset_int(rs, r, c->matched, (int64_t)k->matched);
        rowset_int(rs, r, c->unmatched, (int64_t)(k->missing_start + k->missing_end));
        rowset_int(rs, r, c->count, (int64_t)k->flows);
        rowset_int(rs, r, c->missing_start, (int64_t)k->missing_start);
        rowset_int(rs, r, c->missing_end, (int64_t)k->missing_end);
        rowset_int(rs, r, c->unbound, (int64_t)k->unbound);
        rowset_int(rs, r, c->bound, (int64_t)k->bound);
    }
    if ((r = new_row(rs, c, ranks, rank, "latency", "launch_latency")) == SIZE_MAX)
        return;
    lat_cells(rs, c, r, &fs->launch);
    if ((r = new_row(rs, c, ranks, rank, "latency", "queue_delay")) == SIZE_MAX)
        return;
    lat_cells(rs, c, r, &fs->queue);
    static const char *how[] = { "flow", "correlation", "graph_launch", "none", "none_flowless_stream", "multi" };
    size_t cnt[] = { fs->with_launcher, fs->by_correlation, fs->graph_launched, fs->no_launcher,
                     fs->no_launcher_flowless, fs->multi_launcher };
    for (size_t i = 0; i < 6; i++) {
        if ((r = new_row(rs, c, ranks, rank, "launcher", how[i])) == SIZE_MAX)
            return;
        rowset_int(rs, r, c->count, (int64_t)cnt[i]);
    }
    if ((r = new_row(rs, c, ranks, rank, "idle", "host_bound_idle")) == SIZE_MAX)
        return;
    idle_cells(rs, c, r, fs->gaps, fs->idle, fs->host_bound_idle, fs->host_bound_known);
    for (size_t i = 0; i < fs->nsteps; i++) {
        snprintf(buf, sizeof buf, "step:%lld", (long long)fs->steps[i].index);
        if ((r = new_row(rs, c, ranks, rank, "idle", buf)) == SIZE_MAX)
            return;
        idle_cells(rs, c, r, SIZE_MAX, fs->steps[i].idle, fs->steps[i].host_bound, fs->host_bound_known);
    }
    for (size_t i = 0; i < fs->nkernels && i < top; i++) {
        const struct flow_kernel_lat *k = &fs->kernels[i];
        snprintf(buf, sizeof buf, "kernel:%.580s", model_str(m, k->name));
        if ((r = new_row(rs, c, ranks, rank, "kernel", buf)) == SIZE_MAX)
            return;
        lat_cells(rs, c, r, &k->lat);
        rs->link[r] = k->worst;
    }
}

struct rowset *report_flows(const struct session *s, const struct report_opts *o)
{
    size_t nmodels = 0;
    for (size_t i = 0; i < s->nranks; i++)
        nmodels += s->ranks[i].model && rank_selected(s->ranks[i].rank, o->rank);
    if (!nmodels)
        return NULL;
    bool ranks = nmodels > 1;
    struct rowset *rs = rowset_new("flows");
    if (!rs)
        return NULL;
    rowset_caption(rs, "Flows by category; launch latency = kernel start - launcher start; "
                       "host-bound idle = device gaps whose next kernel was launched after "
                       "the device went idle");
    struct cols c = { 0 };
    if (ranks)
        c.rank = rowset_col(rs, "rank", "Rank", RS_INT, 0);
    c.kind = rowset_col(rs, "kind", "Kind", RS_STR, 0);
    c.category = rowset_col(rs, "category", "Category", RS_STR, 0);
    c.matched = rowset_col(rs, "matched", "Matched", RS_INT, 0);
    c.unmatched = rowset_col(rs, "unmatched", "Unmatched", RS_INT, 0);
    c.count = rowset_col(rs, "count", "Count", RS_INT, 0);
    c.missing_start = rowset_col(rs, "missing_start", "No start", RS_INT, 0);
    c.missing_end = rowset_col(rs, "missing_end", "No end", RS_INT, 0);
    c.unbound = rowset_col(rs, "unbound", "Unbound", RS_INT, 0);
    c.bound = rowset_col(rs, "bound", "Chains", RS_INT, 0);
    c.p50 = rowset_col(rs, "p50_us", "p50 µs", RS_NS, 0);
    c.p90 = rowset_col(rs, "p90_us", "p90 µs", RS_NS, 0);
    c.p99 = rowset_col(rs, "p99_us", "p99 µs", RS_NS, 0);
    c.max = rowset_col(rs, "max_us", "Max µs", RS_NS, 0);
    c.total = rowset_col(rs, "total_us", "Total µs", RS_NS, 0);
    c.idle = rowset_col(rs, "idle_us", "Idle µs", RS_NS, 0);
    c.host = rowset_col(rs, "host_bound_us", "Host-bound µs", RS_NS, 0);
    c.share = rowset_col(rs, "share", "Host share", RS_PCT, 1);
    size_t top = o->top > 0 ? (size_t)o->top : 10;
    const struct rank_data *rd;
    for (size_t i = 0; (rd = model_rank_next(s, &i, o->rank)); i++) {
        struct flowstats *own;
        const struct flowstats *fs = rank_flowstats(rd, &own);
        if (fs)
            rank_rows(rs, &c, ranks, rd->rank, rd->model, fs, top);
        flowstats_free(own);
    }
    return rs;
}
