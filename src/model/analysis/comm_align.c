/* Clock alignment across ranks (comm.h: comm_align_offsets, comm_ends_rowset): the ends of
 * the same collectives on every rank give each rank's offset to the reference rank. */
#include "model/analysis/comm.h"
#include "model/analysis/comm_match.h"

#include "model/index/rank_digest.h"
#include "model/index/rank_filter.h"
#include "util/free_all.h"

#include <stdlib.h>
#include <string.h>


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
