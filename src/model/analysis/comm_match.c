/* Instances across ranks (see comm_match.h for the matching rule and the definitions of
 * the last arriver and the caused wait); the rowsets built on them are in
 * model/rowsets/comm_instances_rowsets.c. */
#include "model/analysis/comm_match.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/analysis/comm.h"
#include "model/index/session.h"
#include "util/free_all.h"
#include "util/grow.h"

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
        if (op->communicator) {
            /* a kernel's op: one sequence per communicator, whatever its step or type */
            e->step = "";
            e->kind = 0;
            e->group = strtab_get(c->str, op->communicator);
            e->glen = strlen(e->group);
            e->type = "";
            e->tlen = 0;
        } else {
            e->step = op->step ? strtab_get(c->str, op->step) : "";
            e->kind = op->kind;
            comm_op_group(name, &e->group, &e->glen);
            comm_op_type(name, &e->type, &e->tlen);
        }
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

/* ns as ms text, exact ("12.000345") */
static const char *ms_text(ns_t ns, char *buf, size_t n)
{
    snprintf(buf, n, "%s%lld.%06lld", ns < 0 ? "-" : "", (long long)(ns < 0 ? -ns : ns) / 1000000,
             (long long)(ns < 0 ? -ns : ns) % 1000000);
    return buf;
}

const char *comm_member_wait(const struct session *s, const struct comm_instances *ci, uint32_t m, char *buf,
                             size_t n)
{
    if (ci->wait && ci->wait[m] != NS_NONE)
        return ms_text(ci->wait[m], buf, n);
    const struct comm_member *mb = &ci->mem[m];
    const struct comm *c = s->ranks[mb->rank].comm;
    return comm_op_text(c, &c->ops[mb->op], CF_WAIT);
}

const char *comm_member_transit(const struct session *s, const struct comm_instances *ci, uint32_t m, char *buf,
                                size_t n)
{
    if (ci->transit && ci->transit[m] != NS_NONE)
        return ms_text(ci->transit[m], buf, n);
    const struct comm_member *mb = &ci->mem[m];
    const struct comm *c = s->ranks[mb->rank].comm;
    return comm_op_text(c, &c->ops[mb->op], CF_TRANSIT);
}

/* a < b by the numbers as written (exactly) */
static int cmp_wait_text(const char *a, const char *b)
{
    int c;
    if (decimal_cmp(a, b, &c))
        return c;
    double x = strtod(a, NULL), y = strtod(b, NULL);
    return (x > y) - (x < y);
}

static void decide(const struct session *s, struct comm_instances *ci, struct comm_instance *in)
{
    in->last = COMM_NO_INSTANCE;
    in->first_start = NS_NONE;
    size_t with_wait = 0;
    uint32_t best = COMM_NO_INSTANCE;
    char bbuf[48], wbuf[48];
    const char *bw = NULL;
    for (uint32_t m = in->first; m < in->first + in->n; m++) {
        const struct comm_member *mb = &ci->mem[m];
        const struct comm *c = s->ranks[mb->rank].comm;
        const struct comm_op *op = &c->ops[mb->op];
        if (op->start_ns != NS_NONE && (in->first_start == NS_NONE || op->start_ns < in->first_start))
            in->first_start = op->start_ns;
        const char *w = comm_member_wait(s, ci, m, wbuf, sizeof wbuf);
        if (!w)
            continue;
        with_wait++;
        int cmp = bw ? cmp_wait_text(w, bw) : -1;
        const struct comm_op *bo = best != COMM_NO_INSTANCE
            ? &s->ranks[ci->mem[best].rank].comm->ops[ci->mem[best].op] : NULL;
        /* less wait wins; equal wait: the later start (a start beats none) */
        if (cmp < 0 || (cmp == 0 && op->start_ns != NS_NONE && (bo->start_ns == NS_NONE || op->start_ns > bo->start_ns))) {
            best = m;
            bw = strcpy(bbuf, w);
        }
    }
    if (with_wait < 2)
        return;
    /* every wait equal to the least: nobody waited for anyone */
    bool differ = false;
    for (uint32_t m = in->first; m < in->first + in->n && !differ; m++) {
        const char *w = comm_member_wait(s, ci, m, wbuf, sizeof wbuf);
        differ = w && cmp_wait_text(w, bw) != 0;
    }
    if (!differ)
        return;
    in->last = best;
    in->caused = (struct decimal_sum){ 0 };
    for (uint32_t m = in->first; m < in->first + in->n; m++) {
        const char *w = m != best ? comm_member_wait(s, ci, m, wbuf, sizeof wbuf) : NULL;
        if (w)
            decimal_sum_add(&in->caused, w);
    }
    in->caused.any = true;
}

void comm_instances_done(struct comm_instances *ci)
{
    for (size_t i = 0; ci->of && i < ci->nranks; i++)
        free(ci->of[i]);
    FREE_ALL(ci->of, ci->inst, ci->mem, ci->wait, ci->transit, ci->div);
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
}

/* --- kernels' sequences: lined up, or said not to be ------------------------------------- */

static const struct comm_op *key_op(const struct session *s, const struct op_key *k)
{
    return &s->ranks[k->rank].comm->ops[k->op];
}

/* The same call in two ranks' sequences: the same collective, and the same message size
 * when both record one. */
static bool same_call(const struct session *s, const struct op_key *a, const struct op_key *b)
{
    const struct comm *ca = s->ranks[a->rank].comm, *cb = s->ranks[b->rank].comm;
    const struct comm_op *x = key_op(s, a), *y = key_op(s, b);
    if (strcmp(strtab_get(ca->str, x->coll), strtab_get(cb->str, y->coll)))
        return false;
    return x->nelems < 0 || y->nelems < 0 || x->nelems == y->nelems;
}

/* Rank k->rank's sequence on its communicator leaves the others' at k (where `like` is what
 * most ranks call): kept when it is the earliest such place of that rank and communicator. */
static void note_divergence(struct comm_instances *ci, const struct op_key *k, const struct op_key *like)
{
    for (size_t d = 0; d < ci->ndiv; d++) {
        struct comm_divergence *v = &ci->div[d];
        if (v->rank == k->rank && !cmp_bytes(v->group, v->glen, k->group, k->glen)) {
            if (k->ord < v->ord)
                *v = (struct comm_divergence){ k->rank, k->op, k->ord, like->rank, like->op, k->group, k->glen, k->start };
            return;
        }
    }
    struct comm_divergence *p = grow_array(ci->div, &ci->div_cap, ci->ndiv + 1, sizeof *p);
    if (!p)
        return;   /* out of memory: that rank's sequence is matched as it is */
    ci->div = p;
    ci->div[ci->ndiv++] = (struct comm_divergence){ k->rank, k->op, k->ord, like->rank, like->op, k->group, k->glen,
                                                     k->start };
}

/* In each place of a communicator's sequence (keys sorted by cmp_across), the call most
 * ranks make (ties: the earliest rank's); a rank making another has left the sequence there,
 * and its ops from there on are matched to nothing. Returns the keys kept, in order. */
static size_t drop_unlined(const struct session *s, struct comm_instances *ci, struct op_key *k, size_t n)
{
    for (size_t a = 0; a < n;) {
        size_t b = a + 1;
        while (b < n && !cmp_class(&k[a], &k[b]) && k[a].ord == k[b].ord)
            b++;
        if (b - a >= 2 && key_op(s, &k[a])->communicator) {
            size_t best = a, best_n = 0;
            for (size_t i = a; i < b && best_n * 2 <= b - a; i++) {
                size_t cnt = 0;
                for (size_t j = a; j < b; j++)
                    cnt += same_call(s, &k[i], &k[j]);
                if (cnt > best_n)
                    best = i, best_n = cnt;
            }
            for (size_t i = a; i < b; i++)
                if (!same_call(s, &k[i], &k[best]))
                    note_divergence(ci, &k[i], &k[best]);
        }
        a = b;
    }
    if (!ci->ndiv)
        return n;
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        bool drop = false;
        for (size_t d = 0; d < ci->ndiv && !drop; d++) {
            const struct comm_divergence *v = &ci->div[d];
            drop = v->rank == k[i].rank && k[i].ord >= v->ord && !cmp_bytes(v->group, v->glen, k[i].group, k[i].glen);
        }
        if (!drop)
            k[w++] = k[i];
    }
    return w;
}

ns_t *comm_instances_rank_waits(const struct comm_instances *ci, const struct session *s, size_t rank)
{
    const struct comm *c = rank < s->nranks ? s->ranks[rank].comm : NULL;
    if (!ci->wait || !c)
        return NULL;
    ns_t *w = malloc((c->nops ? c->nops : 1) * sizeof *w);
    if (!w)
        return NULL;
    for (size_t i = 0; i < c->nops; i++)
        w[i] = NS_NONE;
    for (size_t m = 0; m < ci->nmem; m++)
        if (ci->mem[m].rank == rank && ci->mem[m].op < c->nops)
            w[ci->mem[m].op] = ci->wait[m];
    return w;
}

const struct comm_divergence *comm_op_divergence(const struct comm_instances *ci, const struct session *s,
                                                 uint32_t rank, uint32_t op)
{
    const struct comm *c = s->ranks[rank].comm;
    const struct comm_op *o = &c->ops[op];
    if (!o->communicator)
        return NULL;
    const char *g = strtab_get(c->str, o->communicator);
    for (size_t d = 0; d < ci->ndiv; d++) {
        const struct comm_divergence *v = &ci->div[d];
        if (v->rank == rank && !cmp_bytes(v->group, v->glen, g, strlen(g))
            && (o->start_ns == NS_NONE || v->from == NS_NONE || o->start_ns >= v->from))
            return v;
    }
    return NULL;
}

/* --- matching ----------------------------------------------------------------------------- */

static int match(const struct session *s, struct comm_instances *ci)
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
        n = drop_unlined(s, ci, k, n);
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

int comm_instances_match(const struct session *s, struct comm_instances *ci)
{
    if (match(s, ci))
        return -1;
    for (size_t t = 0; t < ci->n; t++)
        decide(s, ci, &ci->inst[t]);
    return 0;
}

/* An instance of kernel ops only, each with a start and an elapse time, on two ranks or more:
 * its waits come from the arrivals. */
static bool derivable(const struct session *s, const struct comm_instances *ci, const struct comm_instance *in)
{
    if (in->n < 2)
        return false;
    for (uint32_t m = in->first; m < in->first + in->n; m++) {
        const struct comm *c = s->ranks[ci->mem[m].rank].comm;
        const struct comm_op *op = &c->ops[ci->mem[m].op];
        if (!op->communicator || op->start_ns == NS_NONE || op->elapse_ns == NS_NONE)
            return false;
    }
    return true;
}

/* Each member's wait: the last arrival (start + its rank's clock offset) minus its own,
 * at most its elapse; transit the rest of its elapse. */
static void derive_waits(const struct session *s, struct comm_instances *ci, const ns_t *off)
{
    for (size_t t = 0; t < ci->n; t++) {
        const struct comm_instance *in = &ci->inst[t];
        if (!derivable(s, ci, in))
            continue;
        ns_t last = NS_NONE;
        for (uint32_t m = in->first; m < in->first + in->n; m++) {
            const struct comm_member *mb = &ci->mem[m];
            ns_t a = s->ranks[mb->rank].comm->ops[mb->op].start_ns + off[mb->rank];
            last = last == NS_NONE || a > last ? a : last;
        }
        for (uint32_t m = in->first; m < in->first + in->n; m++) {
            const struct comm_member *mb = &ci->mem[m];
            const struct comm_op *op = &s->ranks[mb->rank].comm->ops[mb->op];
            ns_t w = last - (op->start_ns + off[mb->rank]);
            w = w > op->elapse_ns ? op->elapse_ns : w;
            ci->wait[m] = w;
            ci->transit[m] = op->elapse_ns - w;
        }
    }
}

int comm_instances_build(const struct session *s, struct comm_instances *ci)
{
    if (match(s, ci))
        return -1;
    bool any = false;
    for (size_t t = 0; t < ci->n && !any; t++)
        any = derivable(s, ci, &ci->inst[t]);
    if (any) {
        ns_t *off = calloc(s->nranks ? s->nranks : 1, sizeof *off);
        ci->wait = malloc((ci->nmem ? ci->nmem : 1) * sizeof *ci->wait);
        ci->transit = malloc((ci->nmem ? ci->nmem : 1) * sizeof *ci->transit);
        if (!off || !ci->wait || !ci->transit) {
            free(off);
            comm_instances_done(ci);
            return -1;
        }
        for (size_t m = 0; m < ci->nmem; m++)
            ci->wait[m] = ci->transit[m] = NS_NONE;
        ci->align = comm_align_offsets(s, off, NULL, NULL);
        derive_waits(s, ci, off);
        free(off);
    }
    for (size_t t = 0; t < ci->n; t++)
        decide(s, ci, &ci->inst[t]);
    return 0;
}
