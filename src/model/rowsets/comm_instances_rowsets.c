/* The rowsets of the instances across ranks (comm_match.h): one row per op per rank (the
 * report's comm_ranks), one per instance (the Collectives view), and the text that says
 * where a rank's sequence left the others'. */
#include "model/analysis/comm_match.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/analysis/comm.h"
#include "model/index/rank_filter.h"
#include "model/index/session.h"

void comm_divergence_text(const struct session *s, const struct comm_divergence *v, char *buf, size_t n)
{
    const struct comm *c = s->ranks[v->rank].comm, *lc = s->ranks[v->like_rank].comm;
    const struct comm_op *op = &c->ops[v->op], *like = &lc->ops[v->like_op];
    char a[32] = "", b[32] = "";
    if (op->nelems >= 0)
        snprintf(a, sizeof a, " of %lld", (long long)op->nelems);
    if (like->nelems >= 0)
        snprintf(b, sizeof b, " of %lld", (long long)like->nelems);
    snprintf(buf, n, "rank %d leaves the sequence of communicator %.*s at its call %u: %s%s where rank %d calls %s%s",
             s->ranks[v->rank].rank, (int)(v->glen > 60 ? 60 : v->glen), v->group, v->ord + 1,
             strtab_get(c->str, op->coll), a, s->ranks[v->like_rank].rank, strtab_get(lc->str, like->coll), b);
}

/* --- rowsets ---------------------------------------------------------------------------- */

static void dec_if(struct rowset *rs, size_t row, size_t col, const char *text)
{
    if (text)
        rowset_dec(rs, row, col, text);
}

struct rowset *comm_ranks_ops_rowset(const struct session *s, int rank)
{
    struct comm_instances ci;
    struct rowset *rs = NULL;
    if (comm_instances_build(s, &ci) || !ci.nmem || !(rs = rowset_new("comm_ranks"))) {
        comm_instances_done(&ci);
        return NULL;
    }
    size_t c_name = rowset_col(rs, "name", "Name", RS_STR, 0);
    size_t c_rank = rowset_col(rs, "rank", "Rank", RS_INT, 0);
    size_t c_step = rowset_col(rs, "step", "Step", RS_STR, 0);
    size_t c_kind = rowset_col(rs, "kind", "Kind", RS_STR, 0);
    size_t c_inst = rowset_col(rs, "instance", "Instance", RS_INT, 0);
    size_t c_nr = rowset_col(rs, "instance_ranks", "Ranks in instance", RS_INT, 0);
    size_t c_start = rowset_col(rs, "start_us", "Start µs", RS_NS, 0);
    size_t c_wait = rowset_col(rs, "wait_ms", "Wait ms", RS_DEC, 0);
    size_t c_tr = rowset_col(rs, "transit_ms", "Transit ms", RS_DEC, 0);
    size_t c_el = rowset_col(rs, "elapse_ms", "Elapse ms", RS_DEC, 0);
    size_t c_last = rowset_col(rs, "last_arriver", "Last arriver", RS_RAW, 0);
    size_t c_caused = rowset_col(rs, "caused_wait_ms", "Caused wait ms", RS_DEC, 0);
    size_t c_note = rowset_col(rs, "note", "Note", RS_STR, 0);
    size_t shown = 0, decided = 0, unlined = 0;
    for (size_t r = 0; r < s->nranks; r++) {
        const struct rank_data *rd = &s->ranks[r];
        const struct comm *c = rd->comm;
        if (!c || !rank_selected(rd->rank, rank))
            continue;
        shown++;
        for (size_t q = 0; q < c->nops; q++) {
            uint32_t t = ci.of[r][q];
            const struct comm_divergence *dv = t == COMM_NO_INSTANCE ? comm_op_divergence(&ci, s, (uint32_t)r, (uint32_t)q) : NULL;
            if (t == COMM_NO_INSTANCE && !dv)
                continue;
            const struct comm_op *op = &c->ops[q];
            size_t row = rowset_linked_row(rs, rowset_rank_link(r, q));
            if (row == SIZE_MAX)
                break;
            if (dv) {
                /* an op past the place its rank left the others' sequence: said, not matched */
                unlined++;
                rowset_str(rs, row, c_name, strtab_get(c->str, op->name));
                rowset_int(rs, row, c_rank, rd->rank);
                rowset_str(rs, row, c_step, op->step ? strtab_get(c->str, op->step) : "");
                rowset_str(rs, row, c_kind, comm_kind_name(op->kind));
                if (op->start_ns != NS_NONE)
                    rowset_ns(rs, row, c_start, op->start_ns);
                dec_if(rs, row, c_el, comm_op_text(c, op, CF_ELAPSE));
                rowset_raw(rs, row, c_last, "false");
                char note[256];
                comm_divergence_text(s, dv, note, sizeof note);
                rowset_str(rs, row, c_note, note);
                continue;
            }
            const struct comm_instance *in = &ci.inst[t];
            uint32_t m = in->first;
            while (m < in->first + in->n - 1 && !(ci.mem[m].rank == r && ci.mem[m].op == q))
                m++;
            rowset_str(rs, row, c_name, strtab_get(c->str, op->name));
            rowset_int(rs, row, c_rank, rd->rank);
            rowset_str(rs, row, c_step, op->step ? strtab_get(c->str, op->step) : "");
            rowset_str(rs, row, c_kind, comm_kind_name(op->kind));
            rowset_int(rs, row, c_inst, t);
            rowset_int(rs, row, c_nr, in->n);
            if (op->start_ns != NS_NONE)
                rowset_ns(rs, row, c_start, op->start_ns);
            char wb[48], tb[48];
            dec_if(rs, row, c_wait, comm_member_wait(s, &ci, m, wb, sizeof wb));
            dec_if(rs, row, c_tr, comm_member_transit(s, &ci, m, tb, sizeof tb));
            dec_if(rs, row, c_el, comm_op_text(c, op, CF_ELAPSE));
            bool last = in->last != COMM_NO_INSTANCE && ci.mem[in->last].rank == r;
            rowset_raw(rs, row, c_last, last ? "true" : "false");
            if (last) {
                char buf[128];
                decided++;
                dec_if(rs, row, c_caused, decimal_sum_text(&in->caused, buf, sizeof buf));
            }
        }
    }
    char more[400] = "";
    if (unlined) {
        char note[256];
        comm_divergence_text(s, &ci.div[0], note, sizeof note);
        snprintf(more, sizeof more, "; %zu op%s not lined up with the other ranks' (%zu divergence%s): %s%s", unlined,
                 unlined == 1 ? "" : "s", ci.ndiv, ci.ndiv == 1 ? "" : "s", note, ci.ndiv > 1 ? "; ..." : "");
    }
    rowset_caption(rs, "%zu ops of %zu rank%s in %zu instances matched by %s; "
                   "%zu with a last arriver (least wait; caused wait: the others' wait)%s",
                   rs->nrows - unlined, shown, shown == 1 ? "" : "s", ci.n,
                   ci.wait ? "communicator and order (NCCL kernels; waits from the arrivals)" : "step, kind, group, type and order",
                   decided, more);
    comm_instances_done(&ci);
    if (!rs->nrows) {
        rowset_free(rs);
        return NULL;
    }
    return rs;
}

struct rowset *comm_instances_rowset(const struct session *s, const struct comm_instances *ci)
{
    if (!ci->n)
        return NULL;
    struct rowset *rs = rowset_new("collectives");
    if (!rs)
        return NULL;
    size_t c_name = rowset_col(rs, "name", "Name (first rank's)", RS_STR, 0);
    size_t c_caused = rowset_col(rs, "caused_wait_ms", "Caused wait ms", RS_DEC, 0);
    size_t c_last = rowset_col(rs, "last_arriver", "Last", RS_INT, 0);
    size_t c_nr = rowset_col(rs, "ranks", "Ranks", RS_INT, 0);
    /* per rank with ops: the last arriver's mark, arrival, wait, transit, elapse */
    size_t *base = calloc(s->nranks ? s->nranks : 1, sizeof *base);
    if (!base) {
        rowset_free(rs);
        return NULL;
    }
    for (size_t r = 0; r < s->nranks; r++) {
        base[r] = SIZE_MAX;
        if (!s->ranks[r].comm || !s->ranks[r].comm->nops)
            continue;
        /* key and title suffixes after "r<rank>_" and "R<rank>"; the filling below follows this order */
        static const struct rs_coldef per_rank[] = {
            { "last", "", RS_STR, 0 }, { "arrival_us", " arrival +µs", RS_NS, 0 },
            { "wait_ms", " wait ms", RS_DEC, 0 }, { "transit_ms", " transit ms", RS_DEC, 0 },
            { "elapse_ms", " elapse ms", RS_DEC, 0 },
        };
        for (size_t k = 0; k < sizeof per_rank / sizeof *per_rank; k++) {
            char key[64], title[64];
            snprintf(key, sizeof key, "r%d_%s", s->ranks[r].rank, per_rank[k].key);
            snprintf(title, sizeof title, "R%d%s", s->ranks[r].rank, per_rank[k].title);
            size_t c = rowset_col(rs, key, title, per_rank[k].type, per_rank[k].prec);
            if (k == 0)
                base[r] = c;
        }
    }
    size_t c_step = rowset_col(rs, "step", "Step", RS_STR, 0);
    size_t c_kind = rowset_col(rs, "kind", "Kind", RS_STR, 0);
    size_t c_group = rowset_col(rs, "group", "Group", RS_STR, 0);
    size_t c_inst = rowset_col(rs, "instance", "Instance", RS_INT, 0);
    for (size_t t = 0; t < ci->n; t++) {
        const struct comm_instance *in = &ci->inst[t];
        size_t row = rowset_linked_row(rs, t);
        if (row == SIZE_MAX)
            break;
        const struct comm_member *m0 = &ci->mem[in->first];
        const struct comm *c0 = s->ranks[m0->rank].comm;
        const struct comm_op *op0 = &c0->ops[m0->op];
        const char *name = strtab_get(c0->str, op0->name), *g;
        size_t gl;
        comm_op_group(name, &g, &gl);
        if (op0->communicator)   /* a kernel's op: its communicator is its group */
            g = strtab_get(c0->str, op0->communicator);
        rowset_int(rs, row, c_inst, (int64_t)t);
        rowset_int(rs, row, c_nr, in->n);
        rowset_str(rs, row, c_step, op0->step ? strtab_get(c0->str, op0->step) : "");
        rowset_str(rs, row, c_kind, comm_kind_name(op0->kind));
        /* the name without its "@group" */
        if (op0->communicator)
            rowset_str(rs, row, c_name, name);
        else
            rowset_strn(rs, row, c_name, name, (size_t)(g - name) - (g > name && g[-1] == '@'));
        rowset_str(rs, row, c_group, g);
        if (in->last != COMM_NO_INSTANCE) {
            char buf[128];
            rowset_int(rs, row, c_last, s->ranks[ci->mem[in->last].rank].rank);
            dec_if(rs, row, c_caused, decimal_sum_text(&in->caused, buf, sizeof buf));
        }
        for (uint32_t m = in->first; m < in->first + in->n; m++) {
            const struct comm_member *mb = &ci->mem[m];
            const struct comm *c = s->ranks[mb->rank].comm;
            const struct comm_op *op = &c->ops[mb->op];
            size_t b = base[mb->rank];
            if (b == SIZE_MAX)
                continue;
            if (m == in->last)
                rowset_str(rs, row, b, "last");
            if (op->start_ns != NS_NONE && in->first_start != NS_NONE)
                rowset_ns(rs, row, b + 1, op->start_ns - in->first_start);
            char wb[48], tb[48];
            dec_if(rs, row, b + 2, comm_member_wait(s, ci, m, wb, sizeof wb));
            dec_if(rs, row, b + 3, comm_member_transit(s, ci, m, tb, sizeof tb));
            dec_if(rs, row, b + 4, comm_op_text(c, op, CF_ELAPSE));
        }
    }
    free(base);
    return rs;
}
