/* Communication ops and links as read from any source: the store, its exact texts, step
 * keys (comm.h). The rank analysis is in rank_analysis.c, clock alignment in comm_align.c. */
#include "model/analysis/comm.h"

#include "model/index/timeparse.h"
#include "util/grow.h"
#include "util/free_all.h"

#include <stdlib.h>
#include <ctype.h>
#include <math.h>
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
