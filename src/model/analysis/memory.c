#include "model/analysis/memory.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/free_all.h"
#include "util/grow.h"
#include "util/search.h"

struct memory *memory_new(void)
{
    return STRTAB_OWNER_NEW(struct memory);
}

void memory_free(struct memory *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nseries; i++)
        free(m->series[i].pts);
    strtab_free(m->str);
    FREE_ALL(m->series, m->ops, m->statics, m->by_size, m->by_cost, m);
}

/* Room for n + 1 items (util/grow.h's rule); false, with m->oom set, when memory ran out. */
static bool grow(struct memory *m, void **p, size_t *cap, size_t n, size_t item)
{
    void *q = grow_array(*p, cap, n + 1, item);
    if (!q) {
        m->oom = true;
        return false;
    }
    *p = q;
    return true;
}

/* Appends a copy of the item (item bytes) to the array of *n; false when memory ran out. */
static bool append(struct memory *m, void **p, size_t *cap, size_t *n, const void *it, size_t item)
{
    if (!grow(m, p, cap, *n, item))
        return false;
    memcpy((char *)*p + *n * item, it, item);
    (*n)++;
    return true;
}

size_t memory_series(struct memory *m, const char *component, size_t len, enum mem_family f)
{
    uint32_t id = strtab_intern(m->str, component, len);
    if (id == UINT32_MAX) {
        m->oom = true;
        return SIZE_MAX;
    }
    for (size_t i = 0; i < m->nseries; i++)
        if (m->series[i].component == id && m->series[i].family == f)
            return i;
    if (!grow(m, (void **)&m->series, &m->cap_series, m->nseries, sizeof *m->series))
        return SIZE_MAX;
    struct mem_series *s = &m->series[m->nseries];
    memset(s, 0, sizeof *s);
    s->component = id;
    s->family = f;
    s->stride = 1;
    s->t_first = s->t_last = NS_NONE;
    for (int k = 0; k < MK_COUNT; k++) {
        s->peak[k] = MEM_NONE;
        s->peak_t[k] = NS_NONE;
    }
    return m->nseries++;
}

static void fold(struct mem_point *into, const struct mem_point *p)
{
    for (int k = 0; k < MK_COUNT; k++)
        if (p->v[k] != MEM_NONE && (into->v[k] == MEM_NONE || p->v[k] > into->v[k]))
            into->v[k] = p->v[k];
    if (p->t < into->t)
        into->t = p->t;
}

/* Halves the curve: points 2i and 2i+1 become one, standing for twice the rows. */
static void halve(struct mem_series *s)
{
    size_t o = 0;
    for (size_t i = 0; i < s->npts; i += 2) {
        s->pts[o] = s->pts[i];
        if (i + 1 < s->npts)
            fold(&s->pts[o], &s->pts[i + 1]);
        o++;
    }
    /* the last point may be partial: it holds what its two halves held */
    uint64_t tail = (s->npts % 2) ? s->in_last : s->stride + s->in_last;
    s->npts = o;
    s->stride *= 2;
    s->in_last = tail;
}

void memory_add_point(struct memory *m, size_t series, ns_t t, const int64_t v[MK_COUNT])
{
    if (series >= m->nseries)
        return;
    struct mem_series *s = &m->series[series];
    s->rows++;
    /* the peak's time is the earliest at which it is reached, whatever the row order */
    for (int k = 0; k < MK_COUNT; k++)
        if (v[k] != MEM_NONE && (s->peak[k] == MEM_NONE || v[k] > s->peak[k])) {
            s->peak[k] = v[k];
            s->peak_t[k] = t;
        } else if (v[k] != MEM_NONE && v[k] == s->peak[k] && t != NS_NONE
                   && (s->peak_t[k] == NS_NONE || t < s->peak_t[k])) {
            s->peak_t[k] = t;
        }
    if (t == NS_NONE)
        return;
    ns_range_widen(&s->t_first, &s->t_last, t, t);
    struct mem_point p = { .t = t, .v = { v[0], v[1], v[2] } };
    if (s->npts && s->in_last < s->stride) {
        fold(&s->pts[s->npts - 1], &p);
        s->in_last++;
        return;
    }
    if (s->npts == MEM_CURVE_MAX)
        halve(s);
    if (s->npts && s->in_last < s->stride) {
        fold(&s->pts[s->npts - 1], &p);
        s->in_last++;
        return;
    }
    if (!grow(m, (void **)&s->pts, &s->cap, s->npts, sizeof *s->pts))
        return;
    s->pts[s->npts++] = p;
    s->in_last = 1;
}

bool memory_add_op(struct memory *m, const struct mem_op *op)
{
    return append(m, (void **)&m->ops, &m->cap_ops, &m->nops, op, sizeof *op);
}

bool memory_add_static(struct memory *m, const struct mem_static *st)
{
    return append(m, (void **)&m->statics, &m->cap_statics, &m->nstatics, st, sizeof *st);
}

ns_t mem_op_lifetime(const struct mem_op *op)
{
    if (op->duration != NS_NONE)
        return op->duration;
    if (op->alloc != NS_NONE && op->release != NS_NONE)
        return op->release - op->alloc;
    return NS_NONE;
}

double mem_op_cost(const struct mem_op *op)
{
    ns_t life = mem_op_lifetime(op);
    if (life == NS_NONE || op->size == MEM_NONE)
        return NAN;
    return (double)op->size * (double)life;
}

bool mem_op_alive_at(const struct mem_op *op, ns_t t)
{
    if (op->alloc == NS_NONE && op->release == NS_NONE)
        return false;       /* no time at all: cannot be placed */
    if (op->alloc != NS_NONE && op->alloc > t)
        return false;
    /* a file without release times (only Duration) still says when the memory went back */
    ns_t end = op->release != NS_NONE ? op->release
             : op->alloc != NS_NONE && op->duration != NS_NONE ? op->alloc + op->duration : NS_NONE;
    return end == NS_NONE || end > t;
}

static void shift_time(ns_t *t, ns_t off)
{
    if (*t != NS_NONE)
        *t += off;
}

void memory_shift(struct memory *m, ns_t off)
{
    for (size_t i = 0; i < m->nseries; i++) {
        struct mem_series *s = &m->series[i];
        for (size_t j = 0; j < s->npts; j++)
            shift_time(&s->pts[j].t, off);
        for (int k = 0; k < MK_COUNT; k++)
            shift_time(&s->peak_t[k], off);
        shift_time(&s->t_first, off);
        shift_time(&s->t_last, off);
    }
    for (size_t i = 0; i < m->nops; i++) {
        shift_time(&m->ops[i].alloc, off);
        shift_time(&m->ops[i].release, off);
        shift_time(&m->ops[i].active_release, off);
    }
}

static int cmp_point(const void *a, const void *b)
{
    const struct mem_point *x = a, *y = b;
    return (x->t > y->t) - (x->t < y->t);
}

/* qsort has no context argument: the rankings sort through this pointer, set only inside
 * memory_finish. Thread-local: the two loader workers finish two ranks at the same time. */
static _Thread_local const struct memory *sort_m;

static int cmp_size(const void *a, const void *b)
{
    const struct mem_op *x = &sort_m->ops[*(const uint32_t *)a], *y = &sort_m->ops[*(const uint32_t *)b];
    bool nx = x->size == MEM_NONE, ny = y->size == MEM_NONE;
    if (nx != ny)
        return nx ? 1 : -1;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    return (*(const uint32_t *)a > *(const uint32_t *)b) - (*(const uint32_t *)a < *(const uint32_t *)b);
}

static int cmp_cost(const void *a, const void *b)
{
    double x = mem_op_cost(&sort_m->ops[*(const uint32_t *)a]), y = mem_op_cost(&sort_m->ops[*(const uint32_t *)b]);
    bool nx = isnan(x), ny = isnan(y);
    if (nx != ny)
        return nx ? 1 : -1;
    if (!nx && x != y)
        return x > y ? -1 : 1;
    return (*(const uint32_t *)a > *(const uint32_t *)b) - (*(const uint32_t *)a < *(const uint32_t *)b);
}

void memory_finish(struct memory *m)
{
    for (size_t i = 0; i < m->nseries; i++) {
        struct mem_series *s = &m->series[i];
        bool sorted = true;
        for (size_t j = 1; j < s->npts && sorted; j++)
            sorted = s->pts[j - 1].t <= s->pts[j].t;
        if (!sorted)
            qsort(s->pts, s->npts, sizeof *s->pts, cmp_point);
    }
    if (m->by_size || !m->nops || m->nops > UINT32_MAX)
        return;
    m->by_size = malloc(m->nops * sizeof *m->by_size);
    m->by_cost = malloc(m->nops * sizeof *m->by_cost);
    if (!m->by_size || !m->by_cost) {
        free(m->by_size);
        free(m->by_cost);
        m->by_size = m->by_cost = NULL;
        m->oom = true;
        return;
    }
    for (size_t i = 0; i < m->nops; i++)
        m->by_size[i] = m->by_cost[i] = (uint32_t)i;
    sort_m = m;
    qsort(m->by_size, m->nops, sizeof *m->by_size, cmp_size);
    qsort(m->by_cost, m->nops, sizeof *m->by_cost, cmp_cost);
    sort_m = NULL;
}

int64_t mem_series_peak(const struct mem_series *s, enum mem_kind *kind)
{
    for (int k = 0; k < MK_COUNT; k++)
        if (s->peak[k] != MEM_NONE) {
            if (kind)
                *kind = (enum mem_kind)k;
            return s->peak[k];
        }
    if (kind)
        *kind = MK_ALLOCATED;
    return MEM_NONE;
}

size_t memory_main_series(const struct memory *m)
{
    size_t best = SIZE_MAX;
    for (int k = 0; k < MK_COUNT && best == SIZE_MAX; k++)
        for (size_t i = 0; i < m->nseries; i++) {
            const struct mem_series *s = &m->series[i];
            if (s->family != MF_RECORD || s->peak[k] == MEM_NONE)
                continue;
            if (best == SIZE_MAX || s->peak[k] > m->series[best].peak[k])
                best = i;
        }
    return best;
}

size_t mem_series_at(const struct mem_series *s, ns_t t)
{
    size_t lo;
    LOWER_BOUND(lo, (size_t)0, s->npts, k, s->pts[k].t <= t);
    return lo ? lo - 1 : SIZE_MAX;
}

size_t memory_alive_at(const struct memory *m, ns_t t, uint32_t *idx, size_t cap)
{
    size_t n = 0;
    /* by_size is largest first, so the first cap alive ones are the largest */
    for (size_t i = 0; i < m->nops; i++) {
        uint32_t o = m->by_size ? m->by_size[i] : (uint32_t)i;
        if (!mem_op_alive_at(&m->ops[o], t))
            continue;
        if (n < cap)
            idx[n] = o;
        n++;
    }
    return n;
}

int64_t memory_static_total(const struct memory *m)
{
    int64_t sum = 0;
    for (size_t i = 0; i < m->nstatics; i++)
        if (m->statics[i].size != MEM_NONE)
            sum += m->statics[i].size;
    return sum;
}

bool memory_span(const struct memory *m, ns_t *lo, ns_t *hi)
{
    ns_t a = INT64_MAX, b = INT64_MIN;
    for (size_t i = 0; i < m->nseries; i++) {
        const struct mem_series *s = &m->series[i];
        if (s->t_first == NS_NONE)
            continue;
        if (s->t_first < a) a = s->t_first;
        if (s->t_last > b) b = s->t_last;
    }
    for (size_t i = 0; i < m->nops; i++) {
        const struct mem_op *o = &m->ops[i];
        ns_t ts[2] = { o->alloc, o->release };
        for (int j = 0; j < 2; j++)
            if (ts[j] != NS_NONE) {
                if (ts[j] < a) a = ts[j];
                if (ts[j] > b) b = ts[j];
            }
    }
    *lo = a == INT64_MAX ? 0 : a;
    *hi = b == INT64_MIN ? 0 : b;
    return a != INT64_MAX;
}

size_t memory_bytes(const struct memory *m)
{
    size_t n = sizeof *m + m->cap_series * sizeof *m->series + m->cap_ops * sizeof *m->ops
             + m->cap_statics * sizeof *m->statics + strtab_bytes(m->str);
    for (size_t i = 0; i < m->nseries; i++)
        n += m->series[i].cap * sizeof *m->series[i].pts;
    if (m->by_size)
        n += 2 * m->nops * sizeof *m->by_size;
    return n;
}
