/* Instances across ranks (see comm_match.h for the matching rule and the definitions of
 * the last arriver and the caused wait), and the rowsets built on them. */
#include "model/analysis/comm_match.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/analysis/comm.h"
#include "model/index/rank_filter.h"
#include "model/index/session.h"
#include "util/free_all.h"

void comm_op_group(const char *name, const char **group, size_t *len)
{
    const char *at = strrchr(name, '@');
    *group = at ? at + 1 : name + strlen(name);
    *len = strlen(*group);
}

void comm_op_type(const char *name, const char **type, size_t *len)
{
    const char *us = strstr(name, "__"), *at = strrchr(name, '@');
    const char *end = us && (!at || us < at) ? us : at ? at : name + strlen(name);
    *type = name;
    *len = (size_t)(end - name);
}

/* The matching key of one op, its strings borrowed from the rank's string table. */
struct op_key {
    const char *step, *group, *type;
    size_t glen, tlen;
    int kind;
    ns_t start;                 /* NS_NONE sorts last */
    uint32_t rank, op, ord;
};

static int cmp_bytes(const char *a, size_t al, const char *b, size_t bl)
{
    int c = memcmp(a, b, al < bl ? al : bl);
    return c ? c : (al > bl) - (al < bl);
}

/* step, kind, group, type: the part of the key shared by one instance's ops */
static int cmp_class(const struct op_key *a, const struct op_key *b)
{
    int c = strcmp(a->step, b->step);
    if (!c) c = (a->kind > b->kind) - (a->kind < b->kind);
    if (!c) c = cmp_bytes(a->group, a->glen, b->group, b->glen);
    if (!c) c = cmp_bytes(a->type, a->tlen, b->type, b->tlen);
    return c;
}

/* one rank's ops in their order within their class: by start, then file order */
static int cmp_within_rank(const void *pa, const void *pb)
{
    const struct op_key *a = pa, *b = pb;
    int c = cmp_class(a, b);
    if (c)
        return c;
    bool an = a->start == NS_NONE, bn = b->start == NS_NONE;
    if (an != bn)
        return an ? 1 : -1;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return (a->op > b->op) - (a->op < b->op);
}

/* every rank's ops: those of one instance adjacent, in rank order */
static int cmp_across(const void *pa, const void *pb)
{
    const struct op_key *a = pa, *b = pb;
    int c = cmp_class(a, b);
    if (!c) c = (a->ord > b->ord) - (a->ord < b->ord);
    if (!c) c = (a->rank > b->rank) - (a->rank < b->rank);
    return c;
}

/* The keys of c's ops (aggregates left out) into k; returns their number. */
static size_t keys_of(const struct comm *c, uint32_t rank, struct op_key *k)
{
    size_t n = 0;
    for (size_t i = 0; i < c->nops; i++) {
        const struct comm_op *op = &c->ops[i];
        if (op->total)
            continue;
        const char *name = strtab_get(c->str, op->name);
        struct op_key *e = &k[n++];
        e->step = op->step ? strtab_get(c->str, op->step) : "";
        e->kind = op->kind;
        comm_op_group(name, &e->group, &e->glen);
        comm_op_type(name, &e->type, &e->tlen);
        e->start = op->start_ns;
        e->rank = rank;
        e->op = (uint32_t)i;
    }
    return n;
}

/* Sorts one rank's keys and numbers them within their class. */
static void number_keys(struct op_key *k, size_t n)
{
    qsort(k, n, sizeof *k, cmp_within_rank);
    for (size_t i = 0; i < n; i++)
        k[i].ord = i && !cmp_class(&k[i], &k[i - 1]) ? k[i - 1].ord + 1 : 0;
}

int comm_op_ordinals(const struct comm *c, uint32_t *ord)
{
    for (size_t i = 0; i < c->nops; i++)
        ord[i] = COMM_NO_INSTANCE;
    struct op_key *k = malloc((c->nops ? c->nops : 1) * sizeof *k);
    if (!k)
        return -1;
    size_t n = keys_of(c, 0, k);
    number_keys(k, n);
    for (size_t i = 0; i < n; i++)
        ord[k[i].op] = k[i].ord;
    free(k);
    return 0;
}

/* a < b by the numbers as written (exactly; by the doubles when the text cannot say) */
static int cmp_wait(const struct comm *ca, const struct comm_op *a, const struct comm *cb, const struct comm_op *b)
{
    int c;
    if (decimal_cmp(comm_op_text(ca, a, CF_WAIT), comm_op_text(cb, b, CF_WAIT), &c))
        return c;
    return (a->wait_ms > b->wait_ms) - (a->wait_ms < b->wait_ms);
}

static void decide(const struct session *s, struct comm_instances *ci, struct comm_instance *in)
{
    in->last = COMM_NO_INSTANCE;
    in->first_start = NS_NONE;
    size_t with_wait = 0;
    const struct comm_member *best = NULL;
    for (uint32_t m = in->first; m < in->first + in->n; m++) {
        const struct comm_member *mb = &ci->mem[m];
        const struct comm *c = s->ranks[mb->rank].comm;
        const struct comm_op *op = &c->ops[mb->op];
        if (op->start_ns != NS_NONE && (in->first_start == NS_NONE || op->start_ns < in->first_start))
            in->first_start = op->start_ns;
        if (!(op->has & CF_WAIT))
            continue;
        with_wait++;
        if (!best) {
            best = mb;
            continue;
        }
        const struct comm *bc = s->ranks[best->rank].comm;
        const struct comm_op *bo = &bc->ops[best->op];
        int w = cmp_wait(c, op, bc, bo);
        /* less wait wins; equal wait: the later start (a start beats none) */
        if (w < 0 || (w == 0 && op->start_ns != NS_NONE && (bo->start_ns == NS_NONE || op->start_ns > bo->start_ns)))
            best = mb;
    }
    if (with_wait < 2)
        return;
    /* every wait equal to the least: nobody waited for anyone */
    bool differ = false;
    const struct comm *bc = s->ranks[best->rank].comm;
    for (uint32_t m = in->first; m < in->first + in->n && !differ; m++) {
        const struct comm *c = s->ranks[ci->mem[m].rank].comm;
        const struct comm_op *op = &c->ops[ci->mem[m].op];
        differ = (op->has & CF_WAIT) && cmp_wait(c, op, bc, &bc->ops[best->op]) != 0;
    }
    if (!differ)
        return;
    in->last = (uint32_t)(best - ci->mem);
    in->caused = (struct decimal_sum){ 0 };
    for (uint32_t m = in->first; m < in->first + in->n; m++) {
        const struct comm_member *mb = &ci->mem[m];
        const struct comm *c = s->ranks[mb->rank].comm;
        const struct comm_op *op = &c->ops[mb->op];
        if (mb != best && (op->has & CF_WAIT))
            decimal_sum_add(&in->caused, comm_op_text(c, op, CF_WAIT));
    }
    in->caused.any = true;
}

void comm_instances_done(struct comm_instances *ci)
{
    for (size_t i = 0; ci->of && i < ci->nranks; i++)
        free(ci->of[i]);
    FREE_ALL(ci->of, ci->inst, ci->mem);
    memset(ci, 0, sizeof *ci);
}

/* Every rank's op keys, numbered within their class; each rank's instance map starts with
 * no instance. The number of keys, or SIZE_MAX when memory ran out. */
static size_t collect_keys(const struct session *s, struct comm_instances *ci, struct op_key *k)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nranks; i++) {
        const struct comm *c = s->ranks[i].comm;
        if (!c)
            continue;
        ci->of[i] = malloc((c->nops ? c->nops : 1) * sizeof **ci->of);
        if (!ci->of[i])
            return SIZE_MAX;
        for (size_t q = 0; q < c->nops; q++)
            ci->of[i][q] = COMM_NO_INSTANCE;
        size_t got = keys_of(c, (uint32_t)i, k + n);
        number_keys(k + n, got);
        n += got;
    }
    return n;
}

/* Temporary instance ids in key order (sorted keys of one class and ordinal share one),
 * stored in ci->of and tmp_id. Returns how many instances. */
static uint32_t number_in_key_order(struct comm_instances *ci, const struct op_key *k, size_t n, uint32_t *tmp_id)
{
    uint32_t ntmp = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && (cmp_class(&k[i], &k[i - 1]) || k[i].ord != k[i - 1].ord))
            ntmp++;
        ci->of[k[i].rank][k[i].op] = ntmp;
        tmp_id[i] = ntmp;
    }
    return n ? ntmp + 1 : 0;
}

/* A walk over the ops that belong to an instance, in session rank order, then file order:
 * the order instances are numbered and their members laid out in. */
struct member_walk { size_t r, q, next; uint32_t t; };   /* op q of rank r, of instance t */

static bool next_member(const struct session *s, const struct comm_instances *ci, struct member_walk *w)
{
    for (; w->r < s->nranks; w->r++, w->next = 0) {
        const struct comm *c = s->ranks[w->r].comm;
        while (c && w->next < c->nops) {
            w->q = w->next++;
            if ((w->t = ci->of[w->r][w->q]) != COMM_NO_INSTANCE)
                return true;
        }
    }
    return false;
}

/* Renumbers the ntmp instances by first appearance (session rank order, then file order)
 * and counts each one's members in count. 0, or -1 when memory ran out. */
static int renumber_by_appearance(const struct session *s, struct comm_instances *ci, const struct op_key *k,
                                  const uint32_t *tmp_id, size_t n, uint32_t ntmp, uint32_t *count)
{
    uint32_t *final = malloc((ntmp ? ntmp : 1) * sizeof *final);
    struct comm_instance *ordered = calloc(ntmp ? ntmp : 1, sizeof *ordered);
    if (!final || !ordered) {
        FREE_ALL(final, ordered);
        return -1;
    }
    for (uint32_t t = 0; t < ntmp; t++)
        final[t] = COMM_NO_INSTANCE;
    for (size_t i = 0; i < n; i++)
        ci->inst[tmp_id[i]].ordinal = k[i].ord;   /* by temporary id for now */
    uint32_t next = 0;
    for (struct member_walk w = { 0 }; next_member(s, ci, &w);) {
        if (final[w.t] == COMM_NO_INSTANCE) {
            ordered[next] = ci->inst[w.t];
            final[w.t] = next++;
        }
        ci->of[w.r][w.q] = final[w.t];
        count[final[w.t]]++;
    }
    free(final);
    free(ci->inst);
    ci->inst = ordered;
    ci->n = ntmp;
    return 0;
}

/* Lays out every instance's members (count[t] of them) in ci->mem, in session rank order,
 * and decides its last arriver. */
static void place_members(const struct session *s, struct comm_instances *ci, uint32_t *count)
{
    uint32_t at = 0;
    for (uint32_t t = 0; t < ci->n; t++) {
        ci->inst[t].first = at;
        at += count[t];
        count[t] = 0;
    }
    for (struct member_walk w = { 0 }; next_member(s, ci, &w);) {
        struct comm_instance *in = &ci->inst[w.t];
        ci->mem[in->first + count[w.t]++] = (struct comm_member){ (uint32_t)w.r, (uint32_t)w.q };
        in->n = count[w.t];
    }
    for (size_t t = 0; t < ci->n; t++)
        decide(s, ci, &ci->inst[t]);
}

int comm_instances_build(const struct session *s, struct comm_instances *ci)
{
    memset(ci, 0, sizeof *ci);
    size_t total = 0;
    for (size_t i = 0; i < s->nranks; i++)
        total += s->ranks[i].comm ? s->ranks[i].comm->nops : 0;
    ci->nranks = s->nranks;
    ci->of = calloc(s->nranks ? s->nranks : 1, sizeof *ci->of);
    struct op_key *k = malloc((total ? total : 1) * sizeof *k);
    uint32_t *tmp_id = malloc((total ? total : 1) * sizeof *tmp_id);
    uint32_t *count = NULL;
    size_t n = ci->of && k && tmp_id ? collect_keys(s, ci, k) : SIZE_MAX;
    bool ok = n != SIZE_MAX;
    if (ok) {
        /* instances in key order first, then renumbered by first appearance */
        qsort(k, n, sizeof *k, cmp_across);
        uint32_t ntmp = number_in_key_order(ci, k, n, tmp_id);
        ci->inst = calloc(ntmp ? ntmp : 1, sizeof *ci->inst);
        ci->mem = malloc((n ? n : 1) * sizeof *ci->mem);
        count = calloc(ntmp ? ntmp : 1, sizeof *count);
        ok = ci->inst && ci->mem && count && renumber_by_appearance(s, ci, k, tmp_id, n, ntmp, count) == 0;
    }
    if (ok) {
        ci->nmem = n;
        place_members(s, ci, count);
    }
    FREE_ALL(k, tmp_id, count);
    if (!ok) {
        comm_instances_done(ci);
        return -1;
    }
    return 0;
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
    size_t shown = 0, decided = 0;
    for (size_t r = 0; r < s->nranks; r++) {
        const struct rank_data *rd = &s->ranks[r];
        const struct comm *c = rd->comm;
        if (!c || !rank_selected(rd->rank, rank))
            continue;
        shown++;
        for (size_t q = 0; q < c->nops; q++) {
            uint32_t t = ci.of[r][q];
            if (t == COMM_NO_INSTANCE)
                continue;
            const struct comm_op *op = &c->ops[q];
            const struct comm_instance *in = &ci.inst[t];
            size_t row = rowset_linked_row(rs, rowset_rank_link(r, q));
            if (row == SIZE_MAX)
                break;
            rowset_str(rs, row, c_name, strtab_get(c->str, op->name));
            rowset_int(rs, row, c_rank, rd->rank);
            rowset_str(rs, row, c_step, op->step ? strtab_get(c->str, op->step) : "");
            rowset_str(rs, row, c_kind, comm_kind_name(op->kind));
            rowset_int(rs, row, c_inst, t);
            rowset_int(rs, row, c_nr, in->n);
            if (op->start_ns != NS_NONE)
                rowset_ns(rs, row, c_start, op->start_ns);
            dec_if(rs, row, c_wait, comm_op_text(c, op, CF_WAIT));
            dec_if(rs, row, c_tr, comm_op_text(c, op, CF_TRANSIT));
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
    rowset_caption(rs, "%zu ops of %zu rank%s in %zu instances matched by step, kind, group, type and order; "
                   "%zu with a last arriver (least wait; caused wait: the others' wait)",
                   rs->nrows, shown, shown == 1 ? "" : "s", ci.n, decided);
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
        rowset_int(rs, row, c_inst, (int64_t)t);
        rowset_int(rs, row, c_nr, in->n);
        rowset_str(rs, row, c_step, op0->step ? strtab_get(c0->str, op0->step) : "");
        rowset_str(rs, row, c_kind, comm_kind_name(op0->kind));
        /* the name without its "@group" */
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
            dec_if(rs, row, b + 2, comm_op_text(c, op, CF_WAIT));
            dec_if(rs, row, b + 3, comm_op_text(c, op, CF_TRANSIT));
            dec_if(rs, row, b + 4, comm_op_text(c, op, CF_ELAPSE));
        }
    }
    free(base);
    return rs;
}
