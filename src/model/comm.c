#include "model/comm.h"

#include <ctype.h>
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
    struct comm *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->str = strtab_new();
    if (!c->str) {
        free(c);
        return NULL;
    }
    return c;
}

void comm_free(struct comm *c)
{
    if (!c)
        return;
    strtab_free(c->str);
    free(c->ops);
    free(c->links);
    free(c);
}

/* Grows *arr (elements of size sz) so that one more fits; 0 or -1. */
static int grow(void **arr, size_t *cap, size_t n, size_t sz)
{
    if (n < *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : 16;
    void *p = realloc(*arr, nc * sz);
    if (!p)
        return -1;
    *arr = p;
    *cap = nc;
    return 0;
}

size_t comm_add_op(struct comm *c, const struct comm_op *op)
{
    if (grow((void **)&c->ops, &c->ops_cap, c->nops, sizeof *c->ops)) {
        c->oom = true;
        return SIZE_MAX;
    }
    c->ops[c->nops] = *op;
    return c->nops++;
}

size_t comm_add_link(struct comm *c, const struct comm_link *l)
{
    if (grow((void **)&c->links, &c->links_cap, c->nlinks, sizeof *c->links)) {
        c->oom = true;
        return SIZE_MAX;
    }
    c->links[c->nlinks] = *l;
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
