/* Advisor rules across steps and ranks: prefill interference, the slow rank, slow links and
 * communication waits (thresholds and costs: advisor.h). Step figures come from
 * model/analysis/steps.h, rank figures from the rank analysis and communication files (model/analysis/comm.h). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/analysis/advisor_rules.h"
#include "model/analysis/comm.h"
#include "model/analysis/steps.h"
#include "model/analysis/comm_match.h"
#include "model/analysis/comm_wait.h"

/* ms as the communication files write them, to ns (NS_NONE when not a time). */
static ns_t ms_ns(double ms)
{
    return isfinite(ms) ? comm_us_to_ns(ms * 1000.0) : NS_NONE;
}

/* --- prefill interference ----------------------------------------------------------------- */

void adv_rule_prefill_interference(struct adv_ctx *c, const struct adv_rule *rule)
{
    for (size_t i = 0; i < c->s->nranks; i++) {
        const struct steps *st = c->s->ranks[i].steps;
        if (!st || st->phase[PHASE_DECODE].count < 3)
            continue;
        ns_t p50 = st->phase[PHASE_DECODE].p50;
        struct adv_finding f;
        adv_begin(&f, rule, i);
        size_t hits = 0, mixed = 0;
        for (size_t k = 0; k < st->n; k++) {
            const struct step *s = steps_get(st, k);
            if (s->phase != PHASE_MIXED)
                continue;
            mixed++;
            ns_t d = s->end - s->start;
            if ((__int128)d * 10 <= (__int128)p50 * ADV_PREFILL_X10)
                continue;
            hits++;
            f.cost += d - p50;
            struct adv_evidence e = adv_item(EV_STEP, i);
            e.start = s->start;
            e.dur = d;
            e.cost = d - p50;
            e.step = s->index;
            e.step_pos = k;
            snprintf(e.what, sizeof e.what, "mixed step %" PRId64 ": %.3f ms, decode p50 %.3f ms", s->index,
                     (double)d / 1e6, (double)p50 / 1e6);
            adv_keep(&f, &e);
        }
        if (!hits)
            continue;
        snprintf(f.summary, sizeof f.summary, "%zu of %zu mixed (chunked prefill) steps last > %d.%d x the decode "
                 "p50 of %.3f ms", hits, mixed, ADV_PREFILL_X10 / 10, ADV_PREFILL_X10 % 10, (double)p50 / 1e6);
        adv_emit(c, &f);
    }
}

/* --- slow rank -------------------------------------------------------------------------------- */

static int cmp_ns(const void *a, const void *b)
{
    ns_t x = *(const ns_t *)a, y = *(const ns_t *)b;
    return (x > y) - (x < y);
}

/* An evidence item that shows rank index i's whole timeline (when it has one). */
static struct adv_evidence rank_item(const struct session *s, size_t i)
{
    struct adv_evidence e = adv_item(EV_RANK, i);
    const struct model *m = s->ranks[i].model;
    if (m && adv_span(m)) {
        e.start = m->t_min;
        e.dur = adv_span(m);
    }
    return e;
}

/* A rank's wait of ops of kinds `first` and its point-to-point wait (model/analysis/comm_wait.h),
 * within its span when it has a timeline. */
static int rank_waits(const struct session *s, const struct comm_instances *ci, size_t r, unsigned first,
                      struct comm_wait *w, struct comm_wait *p2p)
{
    const struct rank_data *rd = &s->ranks[r];
    const struct model *m = rd->model;
    ns_t from = m && adv_span(m) ? m->t_min : NS_NONE, to = m && adv_span(m) ? m->t_max : NS_NONE;
    /* NCCL kernels' waits are found across ranks (comm_match.h) */
    ns_t *derived = ci ? comm_instances_rank_waits(ci, s, r) : NULL;
    int rc = comm_wait_of(rd->comm, derived, first, from, to, w) < 0
          || comm_wait_of(rd->comm, derived, CW_P2P, from, to, p2p) < 0 ? -1 : 0;
    free(derived);
    return rc;
}

/* The others' collective wait beyond the straggler's own, averaged over them; one item per
 * other rank naming its collective and point-to-point waits. */
static ns_t extra_wait_of_others(struct adv_ctx *c, const struct rank_analysis *an, size_t si,
                                 struct adv_finding *f)
{
    const struct session *s = c->s;
    struct comm_wait slow, slow_p2p, w, p2p;
    struct comm_instances ci;
    if (comm_instances_build(s, &ci) || rank_waits(s, &ci, si, CW_COLLECTIVE, &slow, &slow_p2p) < 0) {
        comm_instances_done(&ci);
        c->oom = true;
        return 0;
    }
    ns_t sum = 0;
    size_t n = 0;
    for (size_t i = 0; i < an->n; i++) {
        if (i == si || !an->r[i].has_comm)
            continue;
        if (rank_waits(s, &ci, i, CW_COLLECTIVE, &w, &p2p) < 0) {
            comm_instances_done(&ci);
            c->oom = true;
            return 0;
        }
        ns_t extra = w.waited - slow.waited;
        struct adv_evidence e = rank_item(s, i);
        /* the cost is carried by the straggler's own item, which comes first */
        char more[96] = "";
        if (p2p.nops)
            snprintf(more, sizeof more, "; point-to-point waits apart: %.3f ms", (double)p2p.waited / 1e6);
        snprintf(e.what, sizeof e.what, "rank %d waits %.3f ms in collectives (rank %d: %.3f ms)%s",
                 an->r[i].rank, (double)w.waited / 1e6, an->r[si].rank, (double)slow.waited / 1e6, more);
        adv_keep(f, &e);
        sum += extra > 0 ? extra : 0;
        n++;
    }
    comm_instances_done(&ci);
    return n ? sum / (ns_t)n : 0;
}

/* How much longer the slow rank's steps are in total than the others' median mean step. */
static ns_t steps_over_median(const struct rank_analysis *an, size_t si)
{
    const struct rank_summary *slow = &an->r[si];
    ns_t cost = 0;
    ns_t *v = slow->step_mean != NS_NONE ? malloc(an->n * sizeof *v) : NULL;
    size_t n = 0;
    for (size_t i = 0; v && i < an->n; i++)
        if (i != si && an->r[i].step_mean != NS_NONE)
            v[n++] = an->r[i].step_mean;
    if (n) {
        qsort(v, n, sizeof *v, cmp_ns);
        ns_t med = v[(n - 1) / 2];
        cost = slow->step_mean > med ? (slow->step_mean - med) * (ns_t)slow->nsteps : 0;
    }
    free(v);
    return cost;
}

void adv_rule_slow_rank(struct adv_ctx *c, const struct adv_rule *rule)
{
    const struct session *s = c->s;
    if (s->nranks < 2)
        return;
    struct rank_analysis an;
    if (rank_analysis_run(s, &an) < 0) {
        c->oom = true;
        rank_analysis_done(&an);
        return;
    }
    /* the rank the others wait for when communication tells, else the longest mean step */
    bool by_comm = an.waited_for >= 0;
    int pick = by_comm ? an.waited_for : an.longest;
    if (pick < 0 || an.n < 2) {
        rank_analysis_done(&an);
        return;
    }
    const struct rank_summary *slow = &an.r[pick];
    size_t si = (size_t)pick;
    struct adv_finding f;
    adv_begin(&f, rule, si);
    ns_t own = NS_NONE;
    if (slow->step_mean != NS_NONE && slow->nsteps)
        own = slow->step_mean * (ns_t)slow->nsteps;
    ns_t cost = by_comm ? extra_wait_of_others(c, &an, si, &f) : steps_over_median(&an, si);
    f.cost = cost;
    /* the straggler itself, and its longest step */
    struct adv_evidence e = rank_item(s, si);
    e.cost = cost;
    if (by_comm)
        snprintf(e.what, sizeof e.what, "rank %d: mean step %.3f ms, %zu collectives where it waited least",
                 slow->rank, slow->step_mean != NS_NONE ? (double)slow->step_mean / 1e6 : 0.0, slow->waited_on);
    else
        snprintf(e.what, sizeof e.what, "rank %d: mean step %.3f ms, the longest", slow->rank,
                 slow->step_mean != NS_NONE ? (double)slow->step_mean / 1e6 : 0.0);
    adv_keep(&f, &e);
    const struct steps *st = s->ranks[si].steps;
    size_t worst = SIZE_MAX;
    for (size_t k = 0; st && k < st->n; k++)
        if (worst == SIZE_MAX || st->v[k].end - st->v[k].start > st->v[worst].end - st->v[worst].start)
            worst = k;
    if (worst != SIZE_MAX) {
        struct adv_evidence se = adv_item(EV_STEP, si);
        se.start = st->v[worst].start;
        se.dur = st->v[worst].end - st->v[worst].start;
        se.step = st->v[worst].index;
        se.step_pos = worst;
        se.cost = 0;
        snprintf(se.what, sizeof se.what, "its longest step");
        adv_keep(&f, &se);
    }
    if (own != NS_NONE && own > 0 && adv_at_least_pct(cost, own, ADV_SLOW_RANK_PCT)) {
        if (by_comm)
            snprintf(f.summary, sizeof f.summary, "rank %d is the straggler (it waited least in %zu shared "
                     "collectives): the others wait %.3f ms more in collectives than it does, %.1f%% of its step time",
                     slow->rank, slow->waited_on, (double)cost / 1e6, 100.0 * (double)cost / (double)own);
        else
            snprintf(f.summary, sizeof f.summary, "rank %d has the longest mean step (%.3f ms): %.3f ms over "
                     "the others' median in total", slow->rank, (double)slow->step_mean / 1e6, (double)cost / 1e6);
        adv_emit(c, &f);
    }
    rank_analysis_done(&an);
}

/* --- slow link --------------------------------------------------------------------------------- */

struct link_ref {
    size_t rank;                  /* session rank whose file holds it */
    const struct comm *cm;
    const struct comm_link *l;
};

static const char *lstr(const struct link_ref *r, uint32_t id) { return id ? strtab_get(r->cm->str, id) : ""; }

/* Same step, group and transport type: peers. */
static bool peers(const struct link_ref *a, const struct link_ref *b)
{
    return a->l->step_no == b->l->step_no && !strcmp(lstr(a, a->l->group), lstr(b, b->l->group))
        && !strcmp(lstr(a, a->l->transport), lstr(b, b->l->transport));
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static bool usable_link(const struct link_ref *r, bool totals_only)
{
    const struct comm_link *l = r->l;
    if ((l->has & (CL_GBPS | CL_TIME | CL_SIZE)) != (CL_GBPS | CL_TIME | CL_SIZE) || !l->transport)
        return false;
    if (!(l->gbps > 0) || !(l->time_ms > 0) || !isfinite(l->gbps) || !isfinite(l->time_ms))
        return false;
    return !totals_only || strstr(lstr(r, l->group), "-total@");
}

void adv_rule_slow_link(struct adv_ctx *c, const struct adv_rule *rule)
{
    const struct session *s = c->s;
    size_t n = 0;
    for (size_t i = 0; i < s->nranks; i++)
        if (s->ranks[i].comm)
            n += s->ranks[i].comm->nlinks;
    if (!n)
        return;
    struct link_ref *v = malloc(n * sizeof *v);
    double *bw = malloc(n * sizeof *bw);
    bool *done = calloc(n, sizeof *done);
    if (!v || !bw || !done) {
        free(v); free(bw); free(done);
        c->oom = true;
        return;
    }
    bool totals = false;
    n = 0;
    for (size_t i = 0; i < s->nranks; i++) {
        const struct comm *cm = s->ranks[i].comm;
        for (size_t k = 0; cm && k < cm->nlinks; k++) {
            v[n] = (struct link_ref){ i, cm, &cm->links[k] };
            totals |= strstr(lstr(&v[n], cm->links[k].group), "-total@") != NULL;
            n++;
        }
    }
    struct adv_finding f;
    adv_begin(&f, rule, SIZE_MAX);
    size_t slow = 0, worst_rank = SIZE_MAX;
    ns_t worst_cost = -1;
    for (size_t i = 0; i < n; i++) {
        if (done[i] || !usable_link(&v[i], totals))
            continue;
        size_t nb = 0;
        for (size_t j = i; j < n; j++)
            if (!done[j] && usable_link(&v[j], totals) && peers(&v[i], &v[j]))
                bw[nb++] = v[j].l->gbps;
        if (nb < 3) {
            done[i] = true;
            continue;
        }
        qsort(bw, nb, sizeof *bw, cmp_dbl);
        double med = nb % 2 ? bw[nb / 2] : (bw[nb / 2 - 1] + bw[nb / 2]) / 2;
        for (size_t j = i; j < n; j++) {
            if (done[j] || !usable_link(&v[j], totals) || !peers(&v[i], &v[j]))
                continue;
            done[j] = true;
            const struct comm_link *l = v[j].l;
            if (!(l->gbps * 100 < med * ADV_SLOW_LINK_PCT))
                continue;
            /* MB / (GB/s) = ms */
            ns_t cost = ms_ns(l->time_ms - l->size_mb / med);
            if (cost == NS_NONE || cost < 0)
                cost = 0;
            slow++;
            f.cost += cost;
            struct adv_evidence e = adv_item(EV_LINK, v[j].rank);
            e.cost = cost;
            e.dur = ms_ns(l->time_ms);
            e.step = l->step_no;
            snprintf(e.what, sizeof e.what, "%.20s %.20s %.3f GB/s (median of %zu peers %.3f GB/s), %.80s",
                     lstr(&v[j], l->link), lstr(&v[j], l->transport), l->gbps, nb, med, lstr(&v[j], l->group));
            adv_keep(&f, &e);
            if (cost > worst_cost) {
                worst_cost = cost;
                worst_rank = v[j].rank;
            }
        }
    }
    if (slow) {
        f.rank = worst_rank;
        snprintf(f.summary, sizeof f.summary, "%zu link(s) below %d%% of the median bandwidth of their transport "
                 "type's links in the same group", slow, ADV_SLOW_LINK_PCT);
        adv_emit(c, &f);
    }
    free(v); free(bw); free(done);
}

/* --- communication wait ------------------------------------------------------------------------- */

void adv_rule_comm_wait(struct adv_ctx *c, const struct adv_rule *rule)
{
    struct comm_instances ci;   /* NCCL kernels' waits are found across ranks */
    if (comm_instances_build(c->s, &ci)) {
        c->oom = true;
        return;
    }
    for (size_t i = 0; i < c->s->nranks; i++) {
        const struct rank_data *rd = &c->s->ranks[i];
        const struct comm *cm = rd->comm;
        if (!cm || !cm->nops)
            continue;
        ns_t *derived = comm_instances_rank_waits(&ci, c->s, i);
        struct adv_finding f;
        adv_begin(&f, rule, i);
        for (size_t k = 0; k < cm->nops; k++) {
            const struct comm_op *op = &cm->ops[k];
            bool dw = derived && derived[k] != NS_NONE;
            if (op->total || !(op->has & CF_ELAPSE) || (!(op->has & CF_WAIT) && !dw))
                continue;
            if ((!dw && !isfinite(op->wait_ms)) || !isfinite(op->elapse_ms))
                continue;
            struct adv_evidence e = adv_item(EV_OP, i);
            ns_t w = dw ? derived[k] : ms_ns(op->wait_ms);
            e.cost = w != NS_NONE ? w : 0;
            e.dur = ms_ns(op->elapse_ms);
            if (op->has & CF_START)
                e.start = comm_us_to_ns(op->start_us);
            e.step = op->step_no;
            snprintf(e.what, sizeof e.what, "%.180s", strtab_get(cm->str, op->name));
            adv_keep(&f, &e);
        }
        struct comm_wait all, p2p;
        free(derived);
        if (rank_waits(c->s, &ci, i, CW_ALL, &all, &p2p) < 0) {
            c->oom = true;
            break;
        }
        /* fires on the ops' own ratio: summed wait against summed elapse */
        if (!all.nops || all.elapsed <= 0 || !adv_at_least_pct(all.summed, all.elapsed, ADV_COMM_WAIT_PCT))
            continue;
        f.cost = all.waited;
        char kinds[96] = "";
        if (p2p.nops)
            snprintf(kinds, sizeof kinds, "; point-to-point ops %.3f ms of it", (double)p2p.waited / 1e6);
        snprintf(f.summary, sizeof f.summary, "communication ops wait %.3f ms (%.3f ms summed over %zu ops, "
                 "%.1f%% of their %.3f ms elapsed; overlapping waits once)%s", (double)all.waited / 1e6,
                 (double)all.summed / 1e6, all.nops, 100.0 * (double)all.summed / (double)all.elapsed,
                 (double)all.elapsed / 1e6, kinds);
        adv_emit(c, &f);
    }
    comm_instances_done(&ci);
}
