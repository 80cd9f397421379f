/* The rank analysis (comm.h: rank_analysis_run): each rank's steps and their computing /
 * communication / free split, its waits, the straggler and the slowest rank. */
#include "model/analysis/comm.h"
#include "model/analysis/comm_match.h"
#include "model/analysis/comm_wait.h"

#include "model/index/rank_digest.h"
#include "model/index/table.h"
#include "util/grow.h"
#include "util/free_all.h"

#include <stdlib.h>
#include <math.h>
#include <string.h>


const char *rank_src_name(enum rank_src s)
{
    switch (s) {
    case RSRC_STEP_TRACE: return "step_trace_time";
    case RSRC_OVERLAP: return "overlap lanes";
    case RSRC_STEPS: return "detected steps";   /* shown as the steps' own source */
    default: return "";
    }
}

ns_t comm_us_to_ns(double us)
{
    if (!isfinite(us) || fabs(us) >= 9e15)
        return NS_NONE;
    /* us * 1000 would round to 256 ns near 1.7e15 µs: scale the whole and the fraction apart */
    double whole = trunc(us);
    return (ns_t)whole * 1000 + (ns_t)llround((us - whole) * 1000.0);
}

/* A step_trace table cell in ns: TC_TIME as is, TC_NUM as µs. */
static ns_t table_ns(const struct table *t, size_t row, size_t col)
{
    if (col == SIZE_MAX || table_is_missing(t, row, col))
        return NS_NONE;
    if (t->cols[col].type == TC_TIME)
        return table_time(t, row, col);
    if (t->cols[col].type == TC_NUM)
        return comm_us_to_ns(table_num(t, row, col));
    return NS_NONE;
}

static int64_t table_step_no(const struct table *t, size_t row, size_t col)
{
    if (col == SIZE_MAX || table_is_missing(t, row, col))
        return -1;
    if (t->cols[col].type == TC_NUM) {
        double v = table_num(t, row, col);
        return v >= 0 && v < 9e15 ? (int64_t)v : -1;
    }
    if (t->cols[col].type == TC_TEXT)
        return comm_step_number(table_text(t, row, col));
    return -1;
}

/* NS_NONE when a part is unknown or the sum does not fit (hostile figures). */
static ns_t sum3(ns_t a, ns_t b, ns_t c)
{
    ns_t ab, abc;
    if (a == NS_NONE || b == NS_NONE || c == NS_NONE || __builtin_add_overflow(a, b, &ab) ||
        __builtin_add_overflow(ab, c, &abc) || abc == NS_NONE)
        return NS_NONE;
    return abc;
}

static int push_step(struct rank_summary *r, size_t *cap, const struct rank_step *st)
{
    struct rank_step *p = grow_array(r->steps, cap, r->nsteps + 1, sizeof *p);
    if (!p)
        return -1;
    r->steps = p;
    r->steps[r->nsteps++] = *st;
    return 0;
}

ns_t rank_file_stage(const struct rank_data *rd, int64_t step_no)
{
    const struct table *t = rd ? rd->tables[TK_STEP_TRACE] : NULL;
    if (!t || step_no < 0)
        return NS_NONE;
    size_t c_step = table_col(t, "Step");
    if (c_step == SIZE_MAX)
        c_step = table_col(t, "Iteration ID");
    size_t c_stage = table_col(t, "Stage"), c_dev = table_col(t, "Device_id");
    bool any_dev = false;
    if (c_dev != SIZE_MAX && rd->device >= 0 && t->cols[c_dev].type == TC_NUM)
        for (size_t i = 0; i < t->nrows && !any_dev; i++)
            any_dev = !table_is_missing(t, i, c_dev) && table_num(t, i, c_dev) == rd->device;
    for (size_t i = 0; i < t->nrows; i++) {
        if (any_dev && (table_is_missing(t, i, c_dev) || table_num(t, i, c_dev) != rd->device))
            continue;
        if (table_step_no(t, i, c_step) == step_no)
            return table_ns(t, i, c_stage);
    }
    return NS_NONE;
}

/* Steps from step_trace_time rows. The step time is computing + communication not
 * overlapped + free (what the stage column approximates). Rows of other devices are left out
 * when the table has several and one is this rank's. */
static int steps_from_table(const struct rank_data *rd, struct rank_summary *r)
{
    const struct table *t = rd->tables[TK_STEP_TRACE];
    if (!t || !t->nrows)
        return 0;
    size_t c_step = table_col(t, "step");
    if (c_step == SIZE_MAX)
        c_step = table_col(t, "Iteration ID");
    size_t c_comp = table_col(t, "Computing");
    size_t c_cnov = table_col(t, "Communication(Not Overlapped)");
    size_t c_free = table_col(t, "Free");
    size_t c_dev = table_col(t, "Device_id");
    size_t c_stage = table_col(t, "Stage");
    if (c_comp == SIZE_MAX || c_cnov == SIZE_MAX || c_free == SIZE_MAX)
        return 0;
    bool filter = false;
    if (c_dev != SIZE_MAX && rd->device >= 0 && t->cols[c_dev].type == TC_NUM)
        for (size_t i = 0; i < t->nrows; i++)
            if (!table_is_missing(t, i, c_dev) && table_num(t, i, c_dev) == rd->device)
                filter = true;
    size_t cap = 0;
    for (size_t i = 0; i < t->nrows; i++) {
        if (filter && (table_is_missing(t, i, c_dev) || table_num(t, i, c_dev) != rd->device))
            continue;
        struct rank_step st = { .step_no = table_step_no(t, i, c_step) };
        st.computing = table_ns(t, i, c_comp);
        st.comm_not_overlapped = table_ns(t, i, c_cnov);
        st.free = table_ns(t, i, c_free);
        st.stage = table_ns(t, i, c_stage);
        st.step = sum3(st.computing, st.comm_not_overlapped, st.free);
        if (st.step == NS_NONE)
            continue;
        if (push_step(r, &cap, &st))
            return -1;
    }
    if (r->nsteps)
        r->src = RSRC_STEP_TRACE;
    return 0;
}

/* Busy time of the Overlap Analysis lanes named like name (any process of that kind). */
static ns_t overlap_busy(const struct model *m, const char *name, ns_t t0, ns_t t1, bool *found)
{
    ns_t sum = 0;
    for (uint32_t l = 0; l < m->nlanes; l++) {
        if (m->lanes[l].kind != LANE_OVERLAP || strcmp(model_str(m, m->lanes[l].name), name))
            continue;
        *found = true;
        sum += model_busy(m, l, t0, t1);
    }
    return sum;
}

/* Steps detected in the timeline, with their computing / comm / free split (taken from the
 * Overlap Analysis lanes within each step when the timeline has them). */
static int steps_from_detected(const struct rank_data *rd, struct rank_summary *r)
{
    const struct steps *sp = rd->steps;
    if (!sp || !steps_count(sp))
        return 0;
    size_t cap = 0;
    for (size_t i = 0; i < steps_count(sp); i++) {
        const struct step *st = steps_get(sp, i);
        if (st->start == NS_NONE || st->end == NS_NONE || st->end < st->start)
            continue;
        struct rank_step rs = { .step_no = st->index, .step = st->end - st->start,
                                .computing = st->computing, .comm_not_overlapped = st->comm_not_overlapped,
                                .free = st->free_time,
                                .stage = rank_file_stage(rd, sp->source == STEP_SRC_MARKERS ? st->index : -1) };
        if (push_step(r, &cap, &rs))
            return -1;
    }
    if (r->nsteps) {
        r->src = RSRC_STEPS;
        r->src_detail = step_source_name(sp->source);
    }
    return 0;
}

/* One step over the whole timeline from its Overlap Analysis lanes. */
static int steps_from_overlap(const struct rank_data *rd, struct rank_summary *r)
{
    const struct model *m = rd->model;
    if (!m || !m->finalized || !m->nslices)
        return 0;
    ns_t t0 = m->t_min, t1 = m->t_max < INT64_MAX ? m->t_max + 1 : INT64_MAX;
    bool fc = false, fn = false, ff = false;
    struct rank_step st = { .step_no = -1 };
    st.computing = overlap_busy(m, "Computing", t0, t1, &fc);
    st.comm_not_overlapped = overlap_busy(m, "Communication(Not Overlapped)", t0, t1, &fn);
    st.free = overlap_busy(m, "Free", t0, t1, &ff);
    if (!fc && !fn && !ff)
        return 0;
    st.step = sum3(st.computing, st.comm_not_overlapped, st.free);
    if (st.step == NS_NONE)
        return 0;
    size_t cap = 0;
    if (push_step(r, &cap, &st))
        return -1;
    r->src = RSRC_OVERLAP;
    return 0;
}

/* Rounded mean of the known values of one rank_step field (at byte offset off), NS_NONE
 * when none is known. Quotients and remainders are summed apart, so the sum of many large
 * figures cannot overflow. */
static ns_t field_mean(const struct rank_summary *r, size_t off)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nsteps; i++)
        n += *(const ns_t *)((const char *)&r->steps[i] + off) != NS_NONE;
    if (!n)
        return NS_NONE;
    ns_t q = 0, rem = 0, nn = (ns_t)n;
    for (size_t i = 0; i < r->nsteps; i++) {
        ns_t x = *(const ns_t *)((const char *)&r->steps[i] + off);
        if (x != NS_NONE) {
            q += x / nn;
            rem += x % nn;
        }
    }
    return q + (rem + nn / 2) / nn;
}

static void summarize_steps(struct rank_summary *r)
{
    r->step_max = NS_NONE;
    for (size_t i = 0; i < r->nsteps; i++)
        if (r->steps[i].step != NS_NONE && (r->step_max == NS_NONE || r->steps[i].step > r->step_max))
            r->step_max = r->steps[i].step;
    r->step_mean = field_mean(r, offsetof(struct rank_step, step));
    r->computing = field_mean(r, offsetof(struct rank_step, computing));
    r->comm_not_overlapped = field_mean(r, offsetof(struct rank_step, comm_not_overlapped));
    r->free = field_mean(r, offsetof(struct rank_step, free));
    r->stage_mean = field_mean(r, offsetof(struct rank_step, stage));
}

static void summarize_comm(const struct rank_data *rd, struct rank_summary *r)
{
    const struct comm *c = rd->comm;
    if (!c)
        return;
    for (size_t i = 0; i < c->nops; i++) {
        const struct comm_op *op = &c->ops[i];
        if (op->total)
            continue;
        r->has_comm = true;
        r->nops++;
        if (op->has & CF_WAIT) {
            r->wait_ms += op->wait_ms;
            decimal_sum_add(&r->wait_sum, comm_op_text(c, op, CF_WAIT));
        }
        if (op->has & CF_TRANSIT) {
            r->transit_ms += op->transit_ms;
            decimal_sum_add(&r->transit_sum, comm_op_text(c, op, CF_TRANSIT));
        }
    }
}

/* For each collective instance with a last arriver (comm_match.h), that rank is the one the
 * others waited for: it gets a vote. */
static void vote_waited_on(const struct session *s, struct rank_analysis *a)
{
    struct comm_instances ci;
    if (comm_instances_build(s, &ci))
        return;
    /* waits derived across ranks (kernel ops) count in each rank's sums as the files' do */
    for (size_t m = 0; ci.wait && m < ci.nmem; m++) {
        if (ci.wait[m] == NS_NONE)
            continue;
        struct rank_summary *r = &a->r[ci.mem[m].rank];
        char buf[48];
        r->wait_ms += (double)ci.wait[m] / 1e6;
        decimal_sum_add(&r->wait_sum, comm_member_wait(s, &ci, (uint32_t)m, buf, sizeof buf));
        r->transit_ms += (double)ci.transit[m] / 1e6;
        decimal_sum_add(&r->transit_sum, comm_member_transit(s, &ci, (uint32_t)m, buf, sizeof buf));
    }
    for (size_t t = 0; t < ci.n; t++) {
        const struct comm_instance *in = &ci.inst[t];
        if (in->last == COMM_NO_INSTANCE)
            continue;
        const struct comm_member *m = &ci.mem[in->last];
        if (!comm_op_is_p2p(s->ranks[m->rank].comm, &s->ranks[m->rank].comm->ops[m->op]))
            a->r[m->rank].waited_on++;
    }
    comm_instances_done(&ci);
}

/* The device its step table names, for a rank without a device id of its own: the one
 * Device_id every row gives, -1 when there is none or several. */
static int step_trace_device(const struct rank_data *rd)
{
    const struct table *t = rd->tables[TK_STEP_TRACE];
    size_t c = t ? table_col(t, "Device_id") : SIZE_MAX;
    if (c == SIZE_MAX || t->cols[c].type != TC_NUM)
        return -1;
    int dev = -1;
    for (size_t i = 0; i < t->nrows; i++) {
        if (table_is_missing(t, i, c))
            continue;
        double v = table_num(t, i, c);
        if (!(v >= 0 && v < 1e6) || v != (double)(int)v || (dev >= 0 && dev != (int)v))
            return -1;
        dev = (int)v;
    }
    return dev;
}

/* One rank's steps and communication; -1 when memory ran out reading its steps. */
static int summarize_rank(const struct rank_data *rd, struct rank_summary *r)
{
    int rc = 0;
    r->rank = rd->rank;
    r->device = rd->device >= 0 ? rd->device : step_trace_device(rd);
    /* the detected steps (the durations every view shows), else step_trace_time rows
     * (no timeline), else the overlap lanes over the whole timeline as one step */
    if (rd->digest) {
        if (rank_digest_fill_steps(rd->digest, r))   /* the steps its own host found */
            rc = -1;
    } else if (steps_from_detected(rd, r) || (!r->nsteps && steps_from_table(rd, r))
        || (!r->nsteps && steps_from_overlap(rd, r)))
        rc = -1;
    summarize_steps(r);
    summarize_comm(rd, r);
    return rc;
}

/* By waiting: the rank the others wait for (most votes, then least wait) and the one that
 * waits most (fewest votes, then most wait). */
static void pick_by_waiting(struct rank_analysis *a)
{
    for (size_t i = 0; i < a->n; i++) {
        const struct rank_summary *r = &a->r[i];
        if (!r->has_comm)
            continue;
        if (a->waited_for < 0 || r->waited_on > a->r[a->waited_for].waited_on
            || (r->waited_on == a->r[a->waited_for].waited_on && r->wait_ms < a->r[a->waited_for].wait_ms))
            a->waited_for = (int)i;
    }
    for (size_t i = 0; i < a->n; i++) {
        const struct rank_summary *r = &a->r[i];
        if (!r->has_comm || (int)i == a->waited_for)
            continue;
        if (a->waits_most < 0 || r->waited_on < a->r[a->waits_most].waited_on
            || (r->waited_on == a->r[a->waits_most].waited_on && r->wait_ms > a->r[a->waits_most].wait_ms))
            a->waits_most = (int)i;
    }
    if (a->waited_for >= 0 && !a->r[a->waited_for].waited_on)
        a->waited_for = a->waits_most = -1;   /* no shared collective: nothing to tell */
}

/* By step time: the longest and the shortest mean step (ties: undecided), and the spread
 * between them. */
static void pick_by_step_time(struct rank_analysis *a)
{
    ns_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < a->n; i++) {
        const struct rank_summary *r = &a->r[i];
        if (r->step_mean == NS_NONE)
            continue;
        if (a->longest < 0 || r->step_mean > a->r[a->longest].step_mean)
            a->longest = (int)i;
        if (a->shortest < 0 || r->step_mean < a->r[a->shortest].step_mean)
            a->shortest = (int)i;
        lo = r->step_mean < lo ? r->step_mean : lo;
        hi = r->step_mean > hi ? r->step_mean : hi;
    }
    if (a->r[a->longest].step_mean == a->r[a->shortest].step_mean)
        a->longest = a->shortest = -1;
    a->spread = hi - lo;
}

/* The picked ranks marked on their own summaries. */
static void mark_picked(struct rank_analysis *a)
{
    if (a->waited_for == a->waits_most)
        a->waited_for = a->waits_most = -1;
    if (a->longest >= 0)
        a->r[a->longest].longest_step = true;
    if (a->shortest >= 0)
        a->r[a->shortest].shortest_step = true;
    if (a->waited_for >= 0)
        a->r[a->waited_for].waited_for = true;
    if (a->waits_most >= 0)
        a->r[a->waits_most].waits_most = true;
}

/* Each rank's clock offset against the reference rank, from matched collectives. */
static int align_ranks(const struct session *s, struct rank_analysis *a)
{
    ns_t *off = calloc(a->n, sizeof *off);
    size_t *matches = calloc(a->n, sizeof *matches);
    if (!off || !matches) {
        FREE_ALL(off, matches);
        return -1;
    }
    a->align = comm_align_offsets(s, off, matches, &a->align_ref);
    for (size_t i = 0; i < a->n; i++) {
        a->r[i].offset = off[i];
        a->r[i].align_matches = matches[i];
    }
    FREE_ALL(off, matches);
    return 0;
}

int rank_analysis_run(const struct session *s, struct rank_analysis *a)
{
    memset(a, 0, sizeof *a);
    a->longest = a->shortest = a->waited_for = a->waits_most = a->align_ref = -1;
    a->spread = NS_NONE;
    if (!s->nranks)
        return 0;
    a->r = calloc(s->nranks, sizeof *a->r);
    if (!a->r)
        return -1;
    a->n = s->nranks;
    int rc = 0;
    for (size_t i = 0; i < s->nranks; i++)
        if (summarize_rank(&s->ranks[i], &a->r[i]))
            rc = -1;
    vote_waited_on(s, a);
    size_t with_comm = 0, with_steps = 0;
    for (size_t i = 0; i < a->n; i++) {
        with_comm += a->r[i].has_comm;
        with_steps += a->r[i].step_mean != NS_NONE;
    }
    if (with_comm >= 2)
        pick_by_waiting(a);
    if (with_steps >= 2)
        pick_by_step_time(a);
    mark_picked(a);
    if (align_ranks(s, a))
        rc = -1;
    return rc;
}

void rank_analysis_done(struct rank_analysis *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->r[i].steps);
    free(a->r);
    memset(a, 0, sizeof *a);
}
