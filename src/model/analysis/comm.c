#include "model/analysis/comm.h"
#include "model/analysis/comm_match.h"
#include "model/analysis/comm_wait.h"

#include "model/index/rank_digest.h"
#include "model/index/rank_filter.h"
#include "model/analysis/steps.h"
#include "model/index/table.h"
#include "model/index/timeparse.h"
#include "util/grow.h"
#include "util/free_all.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char *const transport_names[CT_COUNT] = { "HCCS", "RDMA", "SDMA", "PCIE", "SIO" };

const char *comm_kind_name(enum comm_kind k)
{
    return k == COMM_P2P ? "p2p" : "collective";
}

const char *comm_transport_name(enum comm_transport t)
{
    return t < CT_COUNT ? transport_names[t] : "";
}

enum comm_transport comm_transport_from_name(const char *name)
{
    for (int t = 0; t < CT_COUNT; t++)
        if (!strcmp(name, transport_names[t]))
            return (enum comm_transport)t;
    return CT_COUNT;
}

struct comm *comm_new(void)
{
    return STRTAB_OWNER_NEW(struct comm);
}

void comm_free(struct comm *c)
{
    if (!c)
        return;
    strtab_free(c->str);
    FREE_ALL(c->ops, c->links, c);
}

/* Grows *arr (elements of size sz) so that one more fits (util/grow.h's rule); 0 or -1. */
static int grow(void **arr, size_t *cap, size_t n, size_t sz)
{
    void *p = grow_array(*arr, cap, n + 1, sz);
    if (!p)
        return -1;
    *arr = p;
    return 0;
}

static const char *text_of(const struct comm *c, uint32_t id)
{
    return id ? strtab_get(c->str, id) : NULL;
}

const char *comm_op_text(const struct comm *c, const struct comm_op *op, unsigned bit)
{
    return (op->has & bit) ? text_of(c, op->text[comm_bit_index(bit)]) : NULL;
}

const char *comm_bw_text(const struct comm *c, const struct comm_bw *bw, unsigned bit)
{
    return (bw->has & bit) ? text_of(c, bw->text[comm_bit_index(bit)]) : NULL;
}

const char *comm_link_text(const struct comm *c, const struct comm_link *l, unsigned bit)
{
    return (l->has & bit) ? text_of(c, l->text[comm_bit_index(bit)]) : NULL;
}

/* A field given as a double only (by a caller without the file's text): its shortest
 * exact text, so every field with a value has one. */
static void fill_text(struct comm *c, unsigned has, unsigned bits, const double *vals, uint32_t *texts)
{
    for (unsigned b = 0; b < 8; b++) {
        if (!(bits & (1u << b)) || !(has & (1u << b)) || texts[b])
            continue;
        char buf[40];
        uint32_t id = strtab_intern_cstr(c->str, rowset_shortest(vals[b], buf, sizeof buf));
        if (id == UINT32_MAX)
            c->oom = true;
        else
            texts[b] = id;
    }
}

static void fill_op_texts(struct comm *c, struct comm_op *op)
{
    const double v[8] = { op->start_us, op->elapse_ms, op->transit_ms, op->wait_ms, op->sync_ms,
                          op->idle_ms, op->wait_ratio, op->sync_ratio };
    fill_text(c, op->has, 0xff, v, op->text);
    for (int t = 0; t < CT_COUNT; t++) {
        struct comm_bw *bw = &op->bw[t];
        const double b[5] = { 0, bw->size_mb, bw->time_ms, bw->gbps, bw->large_ratio };
        fill_text(c, bw->has, CB_SIZE | CB_TIME | CB_GBPS | CB_LARGE, b, bw->text);
    }
}

static void exact_times(const struct comm *c, struct comm_op *op)
{
    const char *st = comm_op_text(c, op, CF_START), *el = comm_op_text(c, op, CF_ELAPSE);
    int64_t v;
    op->start_ns = st ? (!decimal_us_to_ns(st, strlen(st), &v) ? v : NS_NONE)
                 : (op->has & CF_START) ? comm_us_to_ns(op->start_us) : NS_NONE;
    op->elapse_ns = el ? (!decimal_ms_to_ns(el, strlen(el), &v) ? v : NS_NONE)
                  : (op->has & CF_ELAPSE) && isfinite(op->elapse_ms) ? comm_us_to_ns(op->elapse_ms * 1000.0) : NS_NONE;
}

size_t comm_add_op(struct comm *c, const struct comm_op *op)
{
    if (grow((void **)&c->ops, &c->ops_cap, c->nops, sizeof *c->ops)) {
        c->oom = true;
        return SIZE_MAX;
    }
    c->ops[c->nops] = *op;
    exact_times(c, &c->ops[c->nops]);
    fill_op_texts(c, &c->ops[c->nops]);
    return c->nops++;
}

size_t comm_add_link(struct comm *c, const struct comm_link *l)
{
    if (grow((void **)&c->links, &c->links_cap, c->nlinks, sizeof *c->links)) {
        c->oom = true;
        return SIZE_MAX;
    }
    c->links[c->nlinks] = *l;
    struct comm_link *nl = &c->links[c->nlinks];
    const double v[4] = { nl->size_mb, nl->time_ms, nl->gbps, nl->large_ratio };
    fill_text(c, nl->has, CL_SIZE | CL_TIME | CL_GBPS | CL_LARGE, v, nl->text);
    return c->nlinks++;
}

int64_t comm_step_number(const char *key)
{
    const char *p = key;
    if (!strncmp(p, "step", 4) || !strncmp(p, "Step", 4))
        p += 4;
    if (!isdigit((unsigned char)*p))
        return -1;
    int64_t v = 0;
    for (; isdigit((unsigned char)*p); p++) {
        if (v > (INT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (*p - '0');
    }
    return *p ? -1 : v;
}

bool comm_is_total_key(const char *key)
{
    return !strcmp(key, "Total Op Info") || !strcmp(key, "Total HCCL Operators");
}

/* --- rank analysis ------------------------------------------------------------------------ */

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

/* --- cross-rank alignment ------------------------------------------------------------------ */

struct end_key {
    const char *step, *name;   /* borrowed from the rank's string table */
    int64_t ord;               /* ordinal among slices of the same name (timeline) */
    ns_t end;
};

static int cmp_key(const void *pa, const void *pb)
{
    const struct end_key *a = pa, *b = pb;
    int c = strcmp(a->step, b->step);
    if (!c)
        c = strcmp(a->name, b->name);
    if (!c)
        c = (a->ord > b->ord) - (a->ord < b->ord);
    if (!c)
        c = (a->end > b->end) - (a->end < b->end);
    return c;
}

static int cmp_start_name(const void *pa, const void *pb)
{
    const struct end_key *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    if (!c)
        c = (a->ord > b->ord) - (a->ord < b->ord);   /* ord holds the start while sorting */
    return c;
}

/* Large communication ops of a timeline: depth-0 slices of communication lanes other than
 * the "Plane N" lanes of small tasks, keyed by name and ordinal. */
static struct end_key *timeline_keys(const struct model *m, size_t *n)
{
    *n = 0;
    if (!m || !m->finalized)
        return NULL;
    size_t cnt = 0;
    for (uint32_t l = 0; l < m->nlanes; l++) {
        const struct lane *ln = &m->lanes[l];
        if (ln->kind == LANE_COMM && strncmp(model_str(m, ln->name), "Plane", 5) && ln->ndepth)
            cnt += ln->row_first[1] - ln->row_first[0];
    }
    if (!cnt)
        return NULL;
    struct end_key *k = malloc(cnt * sizeof *k);
    if (!k)
        return NULL;
    for (uint32_t l = 0; l < m->nlanes; l++) {
        const struct lane *ln = &m->lanes[l];
        if (ln->kind != LANE_COMM || !strncmp(model_str(m, ln->name), "Plane", 5) || !ln->ndepth)
            continue;
        for (uint32_t sl = ln->row_first[0]; sl < ln->row_first[1]; sl++)
            k[(*n)++] = (struct end_key){ "", model_str(m, m->name[sl]), m->start[sl], model_end(m, sl) };
    }
    qsort(k, *n, sizeof *k, cmp_start_name);
    for (size_t i = 0; i < *n; i++)
        k[i].ord = i && !strcmp(k[i].name, k[i - 1].name) ? k[i - 1].ord + 1 : 0;
    qsort(k, *n, sizeof *k, cmp_key);
    return k;
}

/* The same keys of a rank read from a summary file (its comm_ends rows). */
static struct end_key *digest_keys(const struct rank_digest *g, size_t *n)
{
    *n = 0;
    if (!g || !g->nends)
        return NULL;
    struct end_key *k = malloc(g->nends * sizeof *k);
    if (!k)
        return NULL;
    for (size_t i = 0; i < g->nends; i++)
        k[(*n)++] = (struct end_key){ "", strtab_get(g->str, g->ends[i].name), g->ends[i].ord, g->ends[i].end };
    qsort(k, *n, sizeof *k, cmp_key);
    return k;
}

struct rowset *comm_ends_rowset(const struct session *s, int rank)
{
    struct rowset *rs = rowset_new("comm_ends");
    if (!rs)
        return NULL;
    size_t c_rank = rowset_col(rs, "rank", "Rank", RS_INT, 0);
    size_t c_name = rowset_col(rs, "name", "Name", RS_STR, 0);
    size_t c_ord = rowset_col(rs, "ordinal", "Ordinal", RS_INT, 0);
    size_t c_end = rowset_col(rs, "end_us", "End µs", RS_NS, 0);
    for (size_t i = 0; i < s->nranks; i++) {
        const struct rank_data *rd = &s->ranks[i];
        if (!rank_selected(rd->rank, rank))
            continue;
        size_t n = 0;
        struct end_key *k = rd->model ? timeline_keys(rd->model, &n) : digest_keys(rd->digest, &n);
        for (size_t j = 0; j < n; j++) {
            size_t r = rowset_linked_row(rs, rowset_rank_link(i, j));
            if (r == SIZE_MAX)
                break;
            rowset_int(rs, r, c_rank, rd->rank);
            rowset_str(rs, r, c_name, k[j].name);
            rowset_int(rs, r, c_ord, k[j].ord);
            rowset_ns(rs, r, c_end, k[j].end);
        }
        free(k);
    }
    if (!rs->nrows) {
        rowset_free(rs);
        return NULL;
    }
    rowset_caption(rs, "%zu communication slice ends (the keys that align the ranks' clocks)", rs->nrows);
    return rs;
}

/* Collectives of communication.json with a start and an elapse time, keyed by their
 * instance across ranks (comm_match.h): the same key on every rank. */
static struct end_key *json_keys(const struct comm *c, const uint32_t *inst, size_t *n)
{
    *n = 0;
    if (!c || !c->nops || !inst)
        return NULL;
    struct end_key *k = malloc(c->nops * sizeof *k);
    if (!k)
        return NULL;
    for (size_t i = 0; i < c->nops; i++) {
        const struct comm_op *op = &c->ops[i];
        if (op->total || op->kind != COMM_COLLECTIVE || (op->has & (CF_START | CF_ELAPSE)) != (CF_START | CF_ELAPSE)
            || inst[i] == COMM_NO_INSTANCE)
            continue;
        ns_t st = op->start_ns, el = op->elapse_ns;
        if (st == NS_NONE || el == NS_NONE)
            continue;
        k[(*n)++] = (struct end_key){ "", "", inst[i], st + el };
    }
    qsort(k, *n, sizeof *k, cmp_key);
    return k;
}

static int cmp_ns(const void *pa, const void *pb)
{
    ns_t a = *(const ns_t *)pa, b = *(const ns_t *)pb;
    return (a > b) - (a < b);
}

/* Median of ref.end - k.end over keys present in both sorted arrays; *matched gets the count. */
static ns_t median_offset(const struct end_key *ref, size_t nref, const struct end_key *k, size_t nk,
                          size_t *matched)
{
    *matched = 0;
    ns_t *d = malloc((nk ? nk : 1) * sizeof *d);
    if (!d)
        return 0;
    size_t i = 0, j = 0, n = 0;
    while (i < nref && j < nk) {
        struct end_key a = ref[i], b = k[j];
        a.end = b.end = 0;
        int c = cmp_key(&a, &b);
        if (c < 0) {
            i++;
        } else if (c > 0) {
            j++;
        } else {
            d[n++] = ref[i].end - k[j].end;
            i++;
            j++;
        }
    }
    ns_t med = 0;
    if (n) {
        qsort(d, n, sizeof *d, cmp_ns);
        med = n % 2 ? d[n / 2] : d[n / 2 - 1] + (d[n / 2] - d[n / 2 - 1]) / 2;
    }
    free(d);
    *matched = n;
    return med;
}

/* Offsets from one kind of keys; returns the number of ranks other than the reference that
 * matched at least one key. */
static size_t align_with(const struct session *s, bool timeline, ns_t *off, size_t *matches, int *ref)
{
    size_t nr = s->nranks, good = 0;
    struct end_key **keys = calloc(nr, sizeof *keys);
    size_t *nk = calloc(nr, sizeof *nk);
    struct comm_instances ci = { 0 };
    bool have_ci = !timeline && !comm_instances_match(s, &ci);
    *ref = -1;
    if (keys && nk && (timeline || have_ci)) {
        for (size_t i = 0; i < nr; i++) {
            const struct rank_data *rd = &s->ranks[i];
            keys[i] = !timeline ? json_keys(rd->comm, ci.of[i], &nk[i])
                    : rd->model ? timeline_keys(rd->model, &nk[i]) : digest_keys(rd->digest, &nk[i]);
            if (*ref < 0 && nk[i])
                *ref = (int)i;
        }
        for (size_t i = 0; *ref >= 0 && i < nr; i++) {
            off[i] = 0;
            matches[i] = 0;
            if ((int)i == *ref || !nk[i])
                continue;
            off[i] = median_offset(keys[*ref], nk[*ref], keys[i], nk[i], &matches[i]);
            good += matches[i] > 0;
        }
        if (*ref >= 0)
            matches[*ref] = nk[*ref];
        for (size_t i = 0; i < nr; i++)
            free(keys[i]);
    }
    if (have_ci)
        comm_instances_done(&ci);
    FREE_ALL(keys, nk);
    return good;
}

int comm_align_offsets(const struct session *s, ns_t *offsets, size_t *matches, int *ref)
{
    size_t nr = s->nranks;
    size_t *m = matches ? matches : calloc(nr ? nr : 1, sizeof *m);
    int r = -1;
    int method = ALIGN_NONE;
    for (size_t i = 0; i < nr; i++) {
        offsets[i] = 0;
        if (m)
            m[i] = 0;
    }
    if (m && nr >= 2) {
        if (align_with(s, true, offsets, m, &r))
            method = ALIGN_TIMELINE;
        else if (align_with(s, false, offsets, m, &r))
            method = ALIGN_COMM_JSON;
        if (method == ALIGN_NONE) {
            r = -1;
            for (size_t i = 0; i < nr; i++)
                offsets[i] = m[i] = 0;
        }
    }
    if (!matches)
        free(m);
    if (ref)
        *ref = r;
    return method;
}
