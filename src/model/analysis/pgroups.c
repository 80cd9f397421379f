#include "model/analysis/pgroups.h"
#include "util/grow.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/index/session.h"
#include "util/free_all.h"

struct pgroups *pgroups_new(void)
{
    return calloc(1, sizeof(struct pgroups));
}

void pgroups_free(struct pgroups *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->n; i++)
        free(g->v[i].ranks);
    FREE_ALL(g->v, g);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int pgroups_add(struct pgroups *g, const char *kind, const int *ranks, size_t n)
{
    char k[sizeof g->v[0].kind];
    size_t len = 0;
    for (; kind && kind[len] && len + 1 < sizeof k; len++)
        k[len] = (char)tolower((unsigned char)kind[len]);
    k[len] = 0;
    if (!n || !strcmp(k, "default_group"))
        return 0;
    int *r = malloc(n * sizeof *r);
    if (!r)
        return -1;
    memcpy(r, ranks, n * sizeof *r);
    qsort(r, n, sizeof *r, cmp_int);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!m || r[i] != r[m - 1])
            r[m++] = r[i];
    for (size_t i = 0; i < g->n; i++)
        if (!strcmp(g->v[i].kind, k) && g->v[i].n == m && !memcmp(g->v[i].ranks, r, m * sizeof *r)) {
            free(r);
            return 0;
        }
    struct pgroup *v = grow_exact(g->v, g->n + 1, sizeof *v);
    if (!v) {
        free(r);
        return -1;
    }
    g->v = v;
    struct pgroup *p = &g->v[g->n++];
    memset(p, 0, sizeof *p);
    memcpy(p->kind, k, len + 1);
    p->ranks = r;
    p->n = m;
    return 0;
}

/* Known kinds first, in the order people name them, then the others by name. */
static int kind_rank(const char *k)
{
    static const char *const order[] = { "tp", "dp", "pp", "ep", "cp" };
    for (int i = 0; i < 5; i++)
        if (!strcmp(k, order[i]))
            return i;
    return 5;
}

static int cmp_group(const void *pa, const void *pb)
{
    const struct pgroup *a = pa, *b = pb;
    int ka = kind_rank(a->kind), kb = kind_rank(b->kind);
    if (ka != kb)
        return ka - kb;
    int c = strcmp(a->kind, b->kind);
    if (c)
        return c;
    return cmp_int(&a->ranks[0], &b->ranks[0]);
}

static int add_all(struct pgroups *to, const struct pgroups *from)
{
    for (size_t i = 0; from && i < from->n; i++)
        if (pgroups_add(to, from->v[i].kind, from->v[i].ranks, from->v[i].n))
            return -1;
    return 0;
}

struct pgroups *pgroups_of_session(const struct session *s)
{
    bool any = s->cluster_groups && s->cluster_groups->n;
    for (size_t i = 0; i < s->nranks && !any; i++)
        any = s->ranks[i].groups && s->ranks[i].groups->n;
    if (!any)
        return NULL;
    struct pgroups *g = pgroups_new();
    if (!g)
        return NULL;
    int rc = add_all(g, s->cluster_groups);
    for (size_t i = 0; i < s->nranks && !rc; i++)
        rc = add_all(g, s->ranks[i].groups);
    if (rc) {
        pgroups_free(g);
        return NULL;
    }
    if (g->n > 1)
        qsort(g->v, g->n, sizeof *g->v, cmp_group);
    return g;
}

static bool holds(const struct pgroup *p, int rank)
{
    return bsearch(&rank, p->ranks, p->n, sizeof *p->ranks, cmp_int) != NULL;
}

const char *pgroups_rank_json(const struct pgroups *all, int rank, char *buf, size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "{");
    const char *last_kind = "";
    for (size_t i = 0; all && i < all->n && n < size; i++) {
        const struct pgroup *p = &all->v[i];
        if (!strcmp(p->kind, last_kind) || !holds(p, rank))
            continue;
        last_kind = p->kind;
        n += (size_t)snprintf(buf + n, size - n, "%s\"%s\": [", n > 1 ? ", " : "", p->kind);
        for (size_t k = 0; k < p->n && n < size; k++)
            n += (size_t)snprintf(buf + n, size - n, "%s%d", k ? ", " : "", p->ranks[k]);
        if (n < size)
            n += (size_t)snprintf(buf + n, size - n, "]");
    }
    if (n < size)
        snprintf(buf + n, size - n, "}");
    if (n + 1 >= size && size > 2)
        snprintf(buf, size, "{}");   /* too many ranks to list: better none than a cut list */
    return buf;
}

const char *pgroups_rank_label(const struct pgroups *all, int rank, char *buf, size_t size)
{
    size_t n = 0, index = 0;
    if (size)
        buf[0] = 0;
    const char *last_kind = "";
    bool shown = false;
    for (size_t i = 0; all && i < all->n && n < size; i++) {
        const struct pgroup *p = &all->v[i];
        if (strcmp(p->kind, last_kind)) {   /* a new kind: its groups are numbered from 0 */
            last_kind = p->kind;
            index = 0;
            shown = false;
        } else {
            index++;
        }
        if (shown || !holds(p, rank))
            continue;
        shown = true;
        n += (size_t)snprintf(buf + n, size - n, "%s%s%zu", n ? " " : "", p->kind, index);
    }
    return buf;
}
