/* The overview figures per rank (see overview.h for where each comes from). */
#include "model/analysis/overview.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/analysis/comm.h"
#include "model/analysis/flowstats.h"
#include "model/rowsets/jsonbuf.h"
#include "model/analysis/kernels.h"
#include "model/index/rank_digest.h"
#include "model/index/rank_filter.h"

static void top_kernels(struct ov_rank *o, const struct rank_data *rd)
{
    struct rowset *rs = kernels_rank(rd->tables[TK_KERNELS], rd->model);
    if (!rs)
        return;
    size_t cn = rowset_find_col(rs, "name"), cs = rowset_find_col(rs, "share"), ct = rowset_find_col(rs, "total_us");
    if (cn == SIZE_MAX || cs == SIZE_MAX || ct == SIZE_MAX || !rs->nrows) {
        rowset_free(rs);
        return;
    }
    uint32_t *order = malloc(rs->nrows * sizeof *order);
    if (order) {
        rowset_sort_order(rs, cs, true, order);
        for (size_t i = 0; i < rs->nrows && o->ntop < OV_TOP; i++) {
            size_t r = order[i];
            if (rowset_is_null(rs, r, cs))
                continue;
            char *name = strdup(strtab_get(rs->str, rowset_cell(rs, r, cn)->s));
            if (!name)
                break;
            struct ov_kernel *k = &o->top[o->ntop++];
            k->name = name;
            k->share = rowset_cell(rs, r, cs)->d;
            k->total = rowset_cell(rs, r, ct)->i;
        }
        free(order);
    }
    rowset_free(rs);
}

/* The split's shares are of the steps' summed figures (the steps section's rows added up),
 * not of the rounded means, so both views give the same fraction. */
static void split_from(struct ov_rank *o, const struct rank_summary *r)
{
    if (r->computing == NS_NONE || r->comm_not_overlapped == NS_NONE || r->free == NS_NONE)
        return;
    ns_t comp = 0, comm = 0, free_ns = 0;
    for (size_t i = 0; i < r->nsteps; i++) {
        const struct rank_step *st = &r->steps[i];
        comp += st->computing != NS_NONE ? st->computing : 0;
        comm += st->comm_not_overlapped != NS_NONE ? st->comm_not_overlapped : 0;
        free_ns += st->free != NS_NONE ? st->free : 0;
    }
    ns_t sum = comp + comm + free_ns;
    if (sum <= 0)
        return;
    o->has_split = true;
    o->step_mean = r->step_mean;
    o->computing = r->computing;
    o->comm_not_overlapped = r->comm_not_overlapped;
    o->free = r->free;
    o->computing_share = (double)comp / (double)sum;
    o->comm_share = (double)comm / (double)sum;
    o->free_share = (double)free_ns / (double)sum;
    o->split_source = r->src_detail ? r->src_detail : rank_src_name(r->src);   /* as the ranks section says */
}

/* The figures a rank's own host printed in its overview row (a summary file). */
static int from_digest(struct ov_rank *r, const struct digest_overview *g)
{
    r->has_span = g->has_span;
    r->span = g->span;
    r->has_busy = g->has_busy;
    r->busy = g->busy;
    r->busy_source = "its summary file";
    if (r->has_busy && r->has_span && r->span > 0)
        r->busy_share = (double)r->busy / (double)r->span;
    r->has_idle = g->has_idle;
    r->idle = g->idle;
    r->has_host_bound = g->has_host_bound;
    r->host_bound = g->host_bound;
    r->host_bound_share = r->idle > 0 ? (double)r->host_bound / (double)r->idle : 0;
    r->has_parts = g->has_parts;
    r->outside = g->outside;
    r->other = g->other;
    for (size_t k = 0; k < g->ntop && k < OV_TOP; k++) {
        if (!(r->top[k].name = strdup(g->top[k].name)))
            return -1;
        r->top[k].share = g->top[k].share;
        r->top[k].total = g->top[k].total;
        r->ntop = k + 1;
    }
    r->nsteps = g->nsteps;
    memcpy(r->phase, g->phase, sizeof r->phase);
    return 0;
}

int overview_compute(const struct session *s, struct overview *o)
{
    memset(o, 0, sizeof *o);
    o->straggler = o->slowest = -1;
    if (!s || !s->nranks)
        return 0;
    o->r = calloc(s->nranks, sizeof *o->r);
    if (!o->r)
        return -1;
    o->n = s->nranks;
    struct rank_analysis an;
    int rc = rank_analysis_run(s, &an);
    for (size_t i = 0; i < s->nranks; i++) {
        const struct rank_data *rd = &s->ranks[i];
        struct ov_rank *r = &o->r[i];
        r->index = i;
        r->rank = rd->rank;
        const struct model *m = rd->model;
        if (m && m->finalized && m->t_min != NS_NONE && m->t_max != NS_NONE && m->t_max >= m->t_min) {
            r->has_span = true;
            r->t0 = m->t_min;
            r->span = m->t_max - m->t_min;
        }
        /* a rank with only its kernel table (no timeline) has its busy time from the table */
        bool kernels_only = !m && !rd->digest && rd->tables[TK_KERNELS];
        if ((m && m->finalized) || kernels_only) {
            r->has_busy = kernels_busy(rd->tables[TK_KERNELS], m, &r->busy, &r->busy_source);
            if (r->has_busy && r->has_span && r->span > 0)
                r->busy_share = (double)r->busy / (double)r->span;
        }
        if (rd->flowstats) {
            r->has_idle = true;
            r->idle = rd->flowstats->idle;
            r->has_host_bound = rd->flowstats->host_bound_known;
            r->host_bound = rd->flowstats->host_bound_idle;
            r->host_bound_share = r->idle > 0 ? (double)r->host_bound / (double)r->idle : 0;
            ns_t w = rd->flowstats->window;
            if (r->has_span && r->has_busy && w <= r->span && w > 0) {
                r->has_parts = true;
                r->outside = r->span - w;
                r->other = w - r->idle - r->busy;   /* signed: a table's busy may exceed the timeline's */
            }
        }
        if ((m && m->finalized) || kernels_only)
            top_kernels(r, rd);
        r->nsteps = steps_count(rd->steps);
        for (int p = 0; rd->steps && p < PHASE_COUNT; p++)
            r->phase[p] = rd->steps->phase[p];
        if (!m && rd->digest && rd->digest->ov && from_digest(r, rd->digest->ov))
            rc = -1;
        if (rc == 0 && i < an.n) {
            split_from(r, &an.r[i]);
            r->nsteps = an.r[i].nsteps;   /* the ranks section's count, one definition */
        }
    }
    /* the straggler (the others wait for it) and the slowest (longest mean step): two
     * verdicts, each saying the figure that decided it */
    if (rc == 0 && an.waited_for >= 0) {
        const struct rank_summary *sr = &an.r[an.waited_for];
        o->straggler = an.waited_for;
        o->r[o->straggler].straggler = true;
        snprintf(o->straggler_why, sizeof o->straggler_why, "rank %d: the others wait for it (it waited least "
                 "in %zu shared collectives)", sr->rank, sr->waited_on);
    }
    if (rc == 0 && an.longest >= 0) {
        const struct rank_summary *sr = &an.r[an.longest];
        o->slowest = an.longest;
        o->r[o->slowest].slowest = true;
        snprintf(o->slowest_why, sizeof o->slowest_why, "rank %d: longest mean step %.3f ms (spread %.3f ms)",
                 sr->rank, (double)sr->step_mean / 1e6, an.spread != NS_NONE ? (double)an.spread / 1e6 : 0.0);
    }
    rank_analysis_done(&an);
    return rc < 0 ? -1 : 0;
}

void overview_free(struct overview *o)
{
    if (!o)
        return;
    for (size_t i = 0; i < o->n && o->r; i++)
        for (size_t k = 0; k < o->r[i].ntop; k++)
            free(o->r[i].top[k].name);
    free(o->r);
    memset(o, 0, sizeof *o);
}

struct rowset *overview_rowset(const struct overview *o, const struct session *s, int rank)
{
    bool phase_seen[PHASE_COUNT] = { false };   /* a phase has columns when some rank has its steps */
    for (size_t i = 0; i < o->n; i++)
        for (int p = 0; p < PHASE_COUNT; p++)
            phase_seen[p] |= o->r[i].phase[p].count > 0;
    struct rowset *rs = rowset_new("overview");
    if (!rs)
        return NULL;
    size_t c_rank = rowset_col(rs, "rank", "Rank", RS_INT, 0);
    size_t c_span = rowset_col(rs, "span_us", "Span µs", RS_NS, 0);
    size_t c_busy = rowset_col(rs, "device_busy_us", "Busy µs", RS_NS, 0);
    size_t c_bsh = rowset_col(rs, "device_busy_share", "Busy", RS_PCT, 1);
    size_t c_cmp = rowset_col(rs, "computing_share", "Computing", RS_PCT, 1);
    size_t c_com = rowset_col(rs, "comm_not_overlapped_share", "Comm not ovl", RS_PCT, 1);
    size_t c_free = rowset_col(rs, "free_share", "Free", RS_PCT, 1);
    size_t c_step = rowset_col(rs, "step_us_mean", "Step µs mean", RS_NS, 0);
    size_t c_src = rowset_col(rs, "split_source", "Steps from", RS_STR, 0);
    size_t c_idle = rowset_col(rs, "idle_us", "Idle µs", RS_NS, 0);
    size_t c_hb = rowset_col(rs, "host_bound_idle_us", "Host-bound µs", RS_NS, 0);
    size_t c_hbs = rowset_col(rs, "host_bound_share", "Host-bound of idle", RS_PCT, 1);
    size_t c_out = rowset_col(rs, "outside_us", "Outside µs", RS_NS, 0);
    size_t c_other = rowset_col(rs, "other_us", "Other µs", RS_NS, 0);
    size_t c_top = rowset_col(rs, "top_kernels", "Top kernels", RS_RAW, 0);
    size_t c_steps = rowset_col(rs, "steps", "Steps", RS_INT, 0);
    size_t c_ph[PHASE_COUNT][4];
    for (int p = 0; p < PHASE_COUNT; p++) {
        static const char *const sfx[4] = { "steps", "p50_us", "p90_us", "p99_us" };
        static const char *const ttl[4] = { "steps", "p50 µs", "p90 µs", "p99 µs" };
        for (int k = 0; k < 4; k++) {
            char key[48], title[48];
            snprintf(key, sizeof key, "%s_%s", step_phase_name((enum step_phase)p), sfx[k]);
            snprintf(title, sizeof title, "%s %s", step_phase_name((enum step_phase)p), ttl[k]);
            c_ph[p][k] = phase_seen[p] ? rowset_col(rs, key, title, k ? RS_NS : RS_INT, 0) : SIZE_MAX;
        }
    }
    size_t c_strag = rowset_col(rs, "straggler", "Straggler", RS_INT, 0);
    size_t c_slow = rowset_col(rs, "slowest", "Slowest", RS_INT, 0);
    if (o->straggler >= 0 || o->slowest >= 0)
        rowset_caption(rs, "%s%s%s%s%s", o->straggler >= 0 ? "straggler " : "", o->straggler_why,
                       o->straggler >= 0 && o->slowest >= 0 ? "; " : "", o->slowest >= 0 ? "slowest " : "",
                       o->slowest_why);
    for (size_t i = 0; i < o->n; i++) {
        const struct ov_rank *r = &o->r[i];
        if (!rank_selected(r->rank, rank))
            continue;
        size_t row = rowset_linked_row(rs, r->index);
        if (row == SIZE_MAX)
            break;
        rowset_int(rs, row, c_rank, r->rank);
        if (r->has_span)
            rowset_ns(rs, row, c_span, r->span);
        if (r->has_busy) {
            rowset_ns(rs, row, c_busy, r->busy);
            if (r->has_span && r->span > 0)
                rowset_num(rs, row, c_bsh, r->busy_share);
        }
        if (r->has_split) {
            rowset_num(rs, row, c_cmp, r->computing_share);
            rowset_num(rs, row, c_com, r->comm_share);
            rowset_num(rs, row, c_free, r->free_share);
            if (r->step_mean != NS_NONE)
                rowset_ns(rs, row, c_step, r->step_mean);
            rowset_str(rs, row, c_src, r->split_source);
        }
        if (r->has_idle) {
            rowset_ns(rs, row, c_idle, r->idle);
            if (r->has_host_bound) {
                rowset_ns(rs, row, c_hb, r->host_bound);
                if (r->idle > 0)
                    rowset_num(rs, row, c_hbs, r->host_bound_share);
            }
        }
        if (r->has_parts) {
            rowset_ns(rs, row, c_out, r->outside);
            rowset_ns(rs, row, c_other, r->other);
        }
        if (r->ntop) {
            struct jbuf b = { 0 };
            jputs(&b, "[");
            for (size_t k = 0; k < r->ntop; k++) {
                char t[64];
                jputs(&b, k ? ", {\"name\": " : "{\"name\": ");
                jstr(&b, r->top[k].name);
                snprintf(t, sizeof t, ", \"share\": %.17g, \"total_us\": ", r->top[k].share);
                jputs(&b, t);
                jus(&b, r->top[k].total);
                jputs(&b, "}");
            }
            jputs(&b, "]");
            if (!b.oom)
                rowset_raw(rs, row, c_top, b.p);
            free(b.p);
        }
        rowset_int(rs, row, c_steps, (int64_t)r->nsteps);
        bool has_steps = s->ranks[r->index].steps || (s->ranks[r->index].digest && s->ranks[r->index].digest->ov);
        for (int p = 0; has_steps && p < PHASE_COUNT; p++) {
            if (c_ph[p][0] == SIZE_MAX)
                continue;
            const struct phase_stat *ps = &r->phase[p];
            rowset_int(rs, row, c_ph[p][0], ps->count);
            if (!ps->count)
                continue;
            rowset_ns(rs, row, c_ph[p][1], ps->p50);
            rowset_ns(rs, row, c_ph[p][2], ps->p90);
            rowset_ns(rs, row, c_ph[p][3], ps->p99);
        }
        rowset_int(rs, row, c_strag, r->straggler);
        rowset_int(rs, row, c_slow, r->slowest);
    }
    return rs;
}
