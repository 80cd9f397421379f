/* Rowsets of the communication figures and the rank analysis (the report's comm, ranks,
 * rank_steps and comm_ends sections and the communication views print them). */
#include "model/analysis/comm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/analysis/pgroups.h"
#include "model/index/rank_filter.h"
#include "model/index/session.h"

#define GROUPS_JSON_MAX 65536

/* A file's figure with its own digits (NULL text: absent). */
static void dec_if(struct rowset *rs, size_t row, size_t col, const char *text)
{
    if (text)
        rowset_dec(rs, row, col, text);
}

static void ns_if(struct rowset *rs, size_t row, size_t col, ns_t v)
{
    if (v != NS_NONE)
        rowset_ns(rs, row, col, v);
}

/* The files and tables the ops (or, with matrix, the links) of the ranks shown come from. */
static const char *source_text(const struct session *s, int rank, bool matrix, char *buf, size_t size)
{
    unsigned src = 0;
    for (size_t i = 0; i < s->nranks; i++)
        if (s->ranks[i].comm && rank_selected(s->ranks[i].rank, rank))
            src |= s->ranks[i].comm->sources;
    const char *file = matrix ? ((src & CS_MATRIX) ? "communication_matrix.json" : NULL)
                              : ((src & CS_JSON) ? "communication.json" : NULL);
    const char *db = !(src & CS_DB) ? NULL
                   : matrix ? "analysis.db table CommAnalyzerMatrix"
                            : "analysis.db tables CommAnalyzerTime and CommAnalyzerBandwidth";
    snprintf(buf, size, "%s%s%s", file ? file : "", file && db ? " and " : "", db ? db : "");
    if (!file && !db && !matrix && (src & CS_KERNELS))
        snprintf(buf, size, "%s", "the NCCL/RCCL kernels of the trace");
    else if (!file && !db && !matrix && (src & CS_HCCL))
        snprintf(buf, size, "%s", "the HCCL lanes of the trace");
    else if (!file && !db)
        snprintf(buf, size, "%s", matrix ? "communication_matrix.json" : "communication.json");
    return buf;
}

/* The ops (links: the links) of the selected ranks, counted: none, nothing to show. */
static size_t selected_count(const struct session *s, int rank, bool links)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nranks; i++)
        if (s->ranks[i].comm && rank_selected(s->ranks[i].rank, rank))
            n += links ? s->ranks[i].comm->nlinks : s->ranks[i].comm->nops;
    return n;
}

/* The rowsets of ops and of links start alike: a row per entry k of rank index i, linked
 * to it, its first three columns the rank, step and kind. */
enum { C_RANK, C_STEP, C_KIND };

static struct rowset *entries_rowset(const struct session *s, int rank, bool links, const char *name)
{
    static const struct rs_coldef lead[] = {
        [C_RANK] = { "rank", "Rank", RS_INT, 0 },
        [C_STEP] = { "step", "Step", RS_STR, 0 },
        [C_KIND] = { "kind", "Kind", RS_STR, 0 },
    };
    return selected_count(s, rank, links) ? ROWSET_NEW(name, lead) : NULL;
}

static size_t entry_row(struct rowset *rs, size_t i, size_t k, const struct rank_data *rd, uint32_t step,
                        enum comm_kind kind)
{
    size_t r = rowset_linked_row(rs, rowset_rank_link(i, k));
    if (r != SIZE_MAX) {
        rowset_int(rs, r, C_RANK, rd->rank);
        rowset_str(rs, r, C_STEP, strtab_get(rd->comm->str, step));
        rowset_str(rs, r, C_KIND, comm_kind_name(kind));
    }
    return r;
}

struct rowset *comm_ops_rowset(const struct session *s, int rank)
{
    struct rowset *rs = entries_rowset(s, rank, false, "comm");
    if (!rs)
        return NULL;
    size_t c_name = rowset_col(rs, "name", "Name", RS_STR, 0);
    size_t c_start = rowset_col(rs, "start_us", "Start µs", RS_NS, 0);
    size_t c_el = rowset_col(rs, "elapse_ms", "Elapse ms", RS_DEC, 0);
    size_t c_tr = rowset_col(rs, "transit_ms", "Transit ms", RS_DEC, 0);
    size_t c_wa = rowset_col(rs, "wait_ms", "Wait ms", RS_DEC, 0);
    size_t c_sy = rowset_col(rs, "sync_ms", "Sync ms", RS_DEC, 0);
    size_t c_id = rowset_col(rs, "idle_ms", "Idle ms", RS_DEC, 0);
    size_t c_wr = rowset_col(rs, "wait_ratio", "Wait ratio", RS_DEC, 0);
    size_t c_sr = rowset_col(rs, "sync_ratio", "Sync ratio", RS_DEC, 0);
    static const char *const bw_key[CT_COUNT] = { "hccs_gbps", "rdma_gbps", "sdma_gbps", "pcie_gbps", "sio_gbps" };
    static const char *const bw_title[CT_COUNT] = { "HCCS GB/s", "RDMA GB/s", "SDMA GB/s", "PCIE GB/s", "SIO GB/s" };
    size_t c_bw[CT_COUNT];
    for (int t = 0; t < CT_COUNT; t++)
        c_bw[t] = rowset_col(rs, bw_key[t], bw_title[t], RS_DEC, 0);
    size_t c_mb = rowset_col(rs, "transit_mb", "Transit MB", RS_DEC, 0);

    size_t ranks_shown = 0;
    for (size_t i = 0; i < s->nranks; i++) {
        const struct rank_data *rd = &s->ranks[i];
        const struct comm *c = rd->comm;
        if (!c || !rank_selected(rd->rank, rank))
            continue;
        ranks_shown++;
        for (size_t k = 0; k < c->nops; k++) {
            const struct comm_op *op = &c->ops[k];
            size_t r = entry_row(rs, i, k, rd, op->step, op->kind);
            if (r == SIZE_MAX)
                break;
            rowset_str(rs, r, c_name, strtab_get(c->str, op->name));
            ns_if(rs, r, c_start, op->start_ns);
            dec_if(rs, r, c_el, comm_op_text(c, op, CF_ELAPSE));
            dec_if(rs, r, c_tr, comm_op_text(c, op, CF_TRANSIT));
            dec_if(rs, r, c_wa, comm_op_text(c, op, CF_WAIT));
            dec_if(rs, r, c_sy, comm_op_text(c, op, CF_SYNC));
            dec_if(rs, r, c_id, comm_op_text(c, op, CF_IDLE));
            dec_if(rs, r, c_wr, comm_op_text(c, op, CF_WAIT_RATIO));
            dec_if(rs, r, c_sr, comm_op_text(c, op, CF_SYNC_RATIO));
            /* SDMA totals repeat HCCS+PCIE+SIO, so the size moved is the sum of RDMA and SDMA
             * (exact: the sum of the two texts) */
            struct decimal_sum mb = { 0 };
            for (int t = 0; t < CT_COUNT; t++) {
                dec_if(rs, r, c_bw[t], comm_bw_text(c, &op->bw[t], CB_GBPS));
                if (t == CT_RDMA || t == CT_SDMA)
                    if (comm_bw_text(c, &op->bw[t], CB_SIZE))
                        decimal_sum_add(&mb, comm_bw_text(c, &op->bw[t], CB_SIZE));
            }
            char mbt[128];
            if (mb.any)
                dec_if(rs, r, c_mb, decimal_sum_text(&mb, mbt, sizeof mbt));
        }
    }
    char src[160];
    rowset_caption(rs, "%zu communication ops of %zu rank%s (times as written in %s)",
                   rs->nrows, ranks_shown, ranks_shown == 1 ? "" : "s", source_text(s, rank, false, src, sizeof src));
    return rs;
}

struct rowset *comm_matrix_rowset(const struct session *s, int rank)
{
    struct rowset *rs = entries_rowset(s, rank, true, "comm_matrix");
    if (!rs)
        return NULL;
    size_t c_group = rowset_col(rs, "group", "Group", RS_STR, 0);
    size_t c_link = rowset_col(rs, "link", "Link", RS_STR, 0);
    size_t c_src = rowset_col(rs, "src", "Src", RS_INT, 0);
    size_t c_dst = rowset_col(rs, "dst", "Dst", RS_INT, 0);
    size_t c_tt = rowset_col(rs, "transport", "Transport", RS_STR, 0);
    size_t c_mb = rowset_col(rs, "transit_mb", "Transit MB", RS_DEC, 0);
    size_t c_ms = rowset_col(rs, "transit_ms", "Transit ms", RS_DEC, 0);
    size_t c_bw = rowset_col(rs, "gbps", "GB/s", RS_DEC, 0);
    size_t c_op = rowset_col(rs, "op_name", "Op name", RS_STR, 0);
    for (size_t i = 0; i < s->nranks; i++) {
        const struct rank_data *rd = &s->ranks[i];
        const struct comm *c = rd->comm;
        if (!c || !rank_selected(rd->rank, rank))
            continue;
        for (size_t k = 0; k < c->nlinks; k++) {
            const struct comm_link *l = &c->links[k];
            size_t r = entry_row(rs, i, k, rd, l->step, l->kind);
            if (r == SIZE_MAX)
                break;
            rowset_str(rs, r, c_group, strtab_get(c->str, l->group));
            rowset_str(rs, r, c_link, strtab_get(c->str, l->link));
            if (l->has & CL_RANKS) {
                rowset_int(rs, r, c_src, l->src);
                rowset_int(rs, r, c_dst, l->dst);
            }
            if (l->transport)
                rowset_str(rs, r, c_tt, strtab_get(c->str, l->transport));
            dec_if(rs, r, c_mb, comm_link_text(c, l, CL_SIZE));
            dec_if(rs, r, c_ms, comm_link_text(c, l, CL_TIME));
            dec_if(rs, r, c_bw, comm_link_text(c, l, CL_GBPS));
            if (l->op_name)
                rowset_str(rs, r, c_op, strtab_get(c->str, l->op_name));
        }
    }
    char src[160];
    rowset_caption(rs, "%zu links (%s)", rs->nrows, source_text(s, rank, true, src, sizeof src));
    return rs;
}

static const char *align_name(int method)
{
    return method == ALIGN_TIMELINE ? "ends of the same communication slices"
         : method == ALIGN_COMM_JSON ? "ends of the same collectives (communication.json ops or NCCL kernels)" : "none";
}

struct rowset *comm_ranks_rowset(const struct session *s, int rank)
{
    struct rank_analysis a;
    if (rank_analysis_run(s, &a) && !a.r)
        return NULL;
    size_t shown = 0;
    for (size_t i = 0; i < a.n; i++)
        if (rank_selected(s->ranks[i].rank, rank) && (a.r[i].nsteps || a.r[i].has_comm))
            shown++;
    struct rowset *rs = shown ? rowset_new("ranks") : NULL;
    if (!rs) {
        rank_analysis_done(&a);
        return NULL;
    }
    size_t c_rank = rowset_col(rs, "rank", "Rank", RS_INT, 0);
    size_t c_dev = rowset_col(rs, "device", "Device", RS_INT, 0);
    size_t c_steps = rowset_col(rs, "steps", "Steps", RS_INT, 0);
    size_t c_mean = rowset_col(rs, "step_us_mean", "Step µs mean", RS_NS, 0);
    size_t c_max = rowset_col(rs, "step_us_max", "Step µs max", RS_NS, 0);
    size_t c_comp = rowset_col(rs, "computing_us", "Computing µs/step", RS_NS, 0);
    size_t c_cnov = rowset_col(rs, "comm_not_overlapped_us", "Comm not overlapped µs/step", RS_NS, 0);
    size_t c_free = rowset_col(rs, "free_us", "Free µs/step", RS_NS, 0);
    size_t c_stage = rowset_col(rs, "file_stage_us_mean", "File stage µs mean", RS_NS, 0);
    size_t c_wait = rowset_col(rs, "wait_ms", "Wait ms", RS_DEC, 0);
    size_t c_tr = rowset_col(rs, "transit_ms", "Transit ms", RS_DEC, 0);
    size_t c_ops = rowset_col(rs, "comm_ops", "Comm ops", RS_INT, 0);
    size_t c_won = rowset_col(rs, "waited_on", "Waited on", RS_INT, 0);
    size_t c_long = rowset_col(rs, "longest_step", "Longest step", RS_INT, 0);
    size_t c_short = rowset_col(rs, "shortest_step", "Shortest step", RS_INT, 0);
    size_t c_wfor = rowset_col(rs, "waited_for", "Others wait for it", RS_INT, 0);
    size_t c_wmost = rowset_col(rs, "waits_most", "Waits most", RS_INT, 0);
    size_t c_off = rowset_col(rs, "offset_us", "Offset µs", RS_NS, 0);
    size_t c_aln = rowset_col(rs, "align_ops", "Align ops", RS_INT, 0);
    size_t c_src = rowset_col(rs, "source", "Source", RS_STR, 0);
    /* the parallel groups of each rank, when the job's files name them (model/analysis/pgroups.h) */
    struct pgroups *pg = pgroups_of_session(s);
    size_t c_grp = pg ? rowset_col(rs, "groups", "Groups", RS_RAW, 0) : SIZE_MAX;
    char *gbuf = pg ? malloc(GROUPS_JSON_MAX) : NULL;
    for (size_t i = 0; i < a.n; i++) {
        const struct rank_summary *r = &a.r[i];
        if (!rank_selected(s->ranks[i].rank, rank) || (!r->nsteps && !r->has_comm))
            continue;
        size_t row = rowset_linked_row(rs, rowset_rank_link(i, 0));
        if (row == SIZE_MAX)
            break;
        rowset_int(rs, row, c_rank, r->rank);
        if (r->device >= 0)
            rowset_int(rs, row, c_dev, r->device);
        rowset_int(rs, row, c_steps, (int64_t)r->nsteps);
        ns_if(rs, row, c_mean, r->step_mean);
        ns_if(rs, row, c_max, r->step_max);
        ns_if(rs, row, c_comp, r->computing);
        ns_if(rs, row, c_cnov, r->comm_not_overlapped);
        ns_if(rs, row, c_free, r->free);
        ns_if(rs, row, c_stage, r->stage_mean);
        if (r->has_comm) {
            /* exact sums of the files' figures; the shortest double only if they overflow */
            char buf[128];
            const char *w = decimal_sum_text(&r->wait_sum, buf, sizeof buf);
            rowset_dec(rs, row, c_wait, w ? w : rowset_shortest(r->wait_ms, buf, sizeof buf));
            w = decimal_sum_text(&r->transit_sum, buf, sizeof buf);
            rowset_dec(rs, row, c_tr, w ? w : rowset_shortest(r->transit_ms, buf, sizeof buf));
            rowset_int(rs, row, c_ops, (int64_t)r->nops);
            rowset_int(rs, row, c_won, (int64_t)r->waited_on);
        }
        rowset_int(rs, row, c_long, r->longest_step);
        rowset_int(rs, row, c_short, r->shortest_step);
        rowset_int(rs, row, c_wfor, r->waited_for);
        rowset_int(rs, row, c_wmost, r->waits_most);
        if (a.align != ALIGN_NONE && r->align_matches) {
            rowset_ns(rs, row, c_off, r->offset);
            rowset_int(rs, row, c_aln, (int64_t)r->align_matches);
        }
        rowset_str(rs, row, c_src, r->src_detail ? r->src_detail : rank_src_name(r->src));
        if (gbuf)
            rowset_raw(rs, row, c_grp, pgroups_rank_json(pg, r->rank, gbuf, GROUPS_JSON_MAX));
    }
    free(gbuf);
    pgroups_free(pg);
    char spread[48] = "n/a";
    if (a.spread != NS_NONE)
        snprintf(spread, sizeof spread, "%lld.%03lld µs", (long long)(a.spread / 1000),
                 (long long)(a.spread % 1000));
    char lng[64] = "undecided", wfor[96] = "undecided";
    if (a.longest >= 0)
        snprintf(lng, sizeof lng, "rank %d", a.r[a.longest].rank);
    else if (a.n < 2)
        snprintf(lng, sizeof lng, "n/a (one rank)");
    if (a.waited_for >= 0)
        snprintf(wfor, sizeof wfor, "rank %d (least wait in %zu shared collectives)",
                 a.r[a.waited_for].rank, a.r[a.waited_for].waited_on);
    char refs[32] = "";
    if (a.align_ref >= 0)
        snprintf(refs, sizeof refs, ", reference rank %d", a.r[a.align_ref].rank);
    rowset_caption(rs, "longest mean step: %s; spread of mean step %s; others wait for: %s; offsets from %s%s",
                   lng, spread, wfor, align_name(a.align), refs);
    rank_analysis_done(&a);
    return rs;
}

struct rowset *comm_rank_steps_rowset(const struct session *s, int rank)
{
    struct rank_analysis a;
    if (rank_analysis_run(s, &a) && !a.r)
        return NULL;
    struct rowset *rs = rowset_new("rank_steps");
    if (!rs) {
        rank_analysis_done(&a);
        return NULL;
    }
    size_t c_rank = rowset_col(rs, "rank", "Rank", RS_INT, 0);
    size_t c_step = rowset_col(rs, "step", "Step", RS_INT, 0);
    size_t c_t = rowset_col(rs, "step_us", "Step µs", RS_NS, 0);
    size_t c_comp = rowset_col(rs, "computing_us", "Computing µs", RS_NS, 0);
    size_t c_cnov = rowset_col(rs, "comm_not_overlapped_us", "Comm not overlapped µs", RS_NS, 0);
    size_t c_free = rowset_col(rs, "free_us", "Free µs", RS_NS, 0);
    size_t c_stage = rowset_col(rs, "file_stage_us", "File stage µs", RS_NS, 0);
    size_t c_src = rowset_col(rs, "source", "Source", RS_STR, 0);
    for (size_t i = 0; i < a.n; i++) {
        const struct rank_summary *r = &a.r[i];
        if (!rank_selected(s->ranks[i].rank, rank))
            continue;
        for (size_t k = 0; k < r->nsteps; k++) {
            const struct rank_step *st = &r->steps[k];
            size_t row = rowset_linked_row(rs, rowset_rank_link(i, k));
            if (row == SIZE_MAX)
                break;
            rowset_int(rs, row, c_rank, r->rank);
            if (st->step_no >= 0)
                rowset_int(rs, row, c_step, st->step_no);
            ns_if(rs, row, c_t, st->step);
            ns_if(rs, row, c_comp, st->computing);
            ns_if(rs, row, c_cnov, st->comm_not_overlapped);
            ns_if(rs, row, c_free, st->free);
            ns_if(rs, row, c_stage, st->stage);
            rowset_str(rs, row, c_src, r->src_detail ? r->src_detail : rank_src_name(r->src));
        }
    }
    rank_analysis_done(&a);
    if (!rs->nrows) {
        rowset_free(rs);
        return NULL;
    }
    return rs;
}
