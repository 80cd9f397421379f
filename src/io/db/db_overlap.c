#include "io/db/db_overlap.h"
#include "util/grow.h"

#include <stdlib.h>

static bool push(struct dbo_spans *u, int64_t s, int64_t e)
{
    struct dbo_iv *v = grow_array(u->v, &u->cap, u->n + 1, sizeof *v);
    if (!v)
        return false;
    u->v = v;
    u->v[u->n].s = s;
    u->v[u->n++].e = e;
    return true;
}

bool dbo_add(struct dbo_spans *u, int64_t s, int64_t e)
{
    if (e <= s)
        return true;
    if (u->n && !u->unsorted) {
        struct dbo_iv *last = &u->v[u->n - 1];
        if (s >= last->s && s <= last->e) {   /* in order and touching the last: merge */
            if (e > last->e)
                last->e = e;
            return true;
        }
        if (s < last->s)
            u->unsorted = true;
    }
    return push(u, s, e);
}

static int by_start(const void *a, const void *b)
{
    const struct dbo_iv *x = a, *y = b;
    return x->s < y->s ? -1 : x->s > y->s;
}

void dbo_finish(struct dbo_spans *u)
{
    if (!u->unsorted || !u->n)
        return;
    qsort(u->v, u->n, sizeof *u->v, by_start);
    size_t w = 0;
    for (size_t i = 1; i < u->n; i++) {
        if (u->v[i].s <= u->v[w].e) {
            if (u->v[i].e > u->v[w].e)
                u->v[w].e = u->v[i].e;
        } else {
            u->v[++w] = u->v[i];
        }
    }
    u->n = w + 1;
    u->unsorted = false;
}

bool dbo_minus(const struct dbo_spans *a, const struct dbo_spans *b, struct dbo_spans *out)
{
    size_t j = 0;
    for (size_t i = 0; i < a->n; i++) {
        int64_t cur = a->v[i].s, end = a->v[i].e;
        while (j < b->n && b->v[j].e <= cur)
            j++;
        for (size_t k = j; k < b->n && b->v[k].s < end; k++) {
            if (b->v[k].s > cur && !push(out, cur, b->v[k].s))
                return false;
            if (b->v[k].e > cur)
                cur = b->v[k].e;
            if (cur >= end)
                break;
        }
        if (cur < end && !push(out, cur, end))
            return false;
    }
    return true;
}

bool dbo_gaps(const struct dbo_spans *a, const struct dbo_spans *b, struct dbo_spans *out)
{
    size_t i = 0, j = 0;
    bool any = false;
    int64_t reach = 0;   /* end of the union so far */
    while (i < a->n || j < b->n) {
        const struct dbo_iv *x = j >= b->n || (i < a->n && a->v[i].s <= b->v[j].s) ? &a->v[i++] : &b->v[j++];
        if (any && x->s > reach && !push(out, reach, x->s))
            return false;
        if (!any || x->e > reach)
            reach = x->e;
        any = true;
    }
    return true;
}

int64_t dbo_total(const struct dbo_spans *u)
{
    uint64_t t = 0;
    for (size_t i = 0; i < u->n; i++) {
        t += (uint64_t)u->v[i].e - (uint64_t)u->v[i].s;
        if (t > (uint64_t)INT64_MAX)
            return INT64_MAX;
    }
    return (int64_t)t;
}

void dbo_free(struct dbo_spans *u)
{
    free(u->v);
    u->v = NULL;
    u->n = u->cap = 0;
    u->unsorted = false;
}
