/* Communication ops of a GPU trace: its NCCL / RCCL kernels. See comm.h. */
#include "model/analysis/comm.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/analysis/steps.h"

bool comm_kernel_name(const char *s)
{
    return !strncmp(s, "nccl", 4) || !strncmp(s, "rccl", 4) || strstr(s, "ncclKernel") || strstr(s, "ncclDevKernel");
}

/* Send / receive kernels are point-to-point, the rest collectives. */
static enum comm_kind kind_of(const char *s)
{
    return strstr(s, "SendRecv") || strstr(s, "_Send") || strstr(s, "_Recv") ? COMM_P2P : COMM_COLLECTIVE;
}

/* ns as decimal text in units of 10^digits ns (3: µs, 6: ms), interned in c: the op's times
 * are then read back exactly, never through a double (a µs timestamp of 16 digits is not
 * exact as a double of µs). */
static uint32_t exact_text(struct comm *c, int64_t ns, int digits)
{
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns, unit = digits == 3 ? 1000 : 1000000;
    char buf[48];
    snprintf(buf, sizeof buf, "%s%" PRIu64 ".%0*" PRIu64, ns < 0 ? "-" : "", a / unit, digits, a % unit);
    uint32_t id = strtab_intern_cstr(c->str, buf);
    if (id == UINT32_MAX)
        c->oom = true;
    return id == UINT32_MAX ? 0 : id;
}

/* The kernel name's collective: "ncclDevKernel_AllReduce_Sum_f32_RING_LL" -> "AllReduce"
 * (name: without "void " and its argument list, nl bytes). */
static void kernel_coll(const char *name, size_t nl, const char **c, size_t *cl)
{
    static const char *const prefixes[] = { "ncclDevKernel_", "ncclKernel_", "rcclKernel_" };
    *c = name;
    *cl = nl;
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++) {
        size_t pl = strlen(prefixes[i]);
        const char *p = nl > pl ? strstr(name, prefixes[i]) : NULL;
        if (!p || (size_t)(p - name) + pl >= nl)
            continue;
        p += pl;
        const char *e = memchr(p, '_', nl - (size_t)(p - name));
        *c = p;
        *cl = e ? (size_t)(e - p) : nl - (size_t)(p - name);
        return;
    }
}

static const struct comm_kernel_args *args_of(const struct comm_kernel_args *a, size_t n, uint32_t slice)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid].slice < slice)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && a[lo].slice == slice ? &a[lo] : NULL;
}

struct kernel_src {
    const struct model *m;
    const struct steps *st;
    const struct comm_kernel_args *args; size_t nargs;
};

static uint32_t intern(struct comm *c, const char *s, size_t n)
{
    uint32_t id = strtab_intern(c->str, s, n);
    if (id == UINT32_MAX) {
        c->oom = true;
        return 0;
    }
    return id;
}

/* The op of communication kernel s (on a lane that is the stream_no-th such stream). */
static void add_kernel_op(struct comm *c, const struct kernel_src *k, uint32_t s, int stream_no)
{
    const struct model *m = k->m;
    const char *name = model_str(m, m->name[s]);
    /* the kernel's name without its argument list, as the op's key */
    const char *paren = strchr(name, '(');
    size_t nl = paren ? (size_t)(paren - name) : strlen(name);
    if (!strncmp(name, "void ", 5) && nl > 5)
        name += 5, nl -= 5;
    struct comm_op op = { .kind = kind_of(name), .step_no = -1, .nelems = -1, .slice = s };
    size_t si = steps_at(k->st, m->start[s]);
    if (si != SIZE_MAX) {
        char key[32];
        op.step_no = steps_get(k->st, si)->index;
        snprintf(key, sizeof key, "step%lld", (long long)op.step_no);
        op.step = intern(c, key, strlen(key));
    }
    op.name = intern(c, name, nl);
    const struct comm_kernel_args *a = args_of(k->args, k->nargs, s);
    if (a && a->group[0]) {
        op.communicator = intern(c, a->group, strlen(a->group));
    } else {
        char key[32];
        snprintf(key, sizeof key, "stream #%d", stream_no);
        op.communicator = intern(c, key, strlen(key));
    }
    const char *cn;
    size_t cl;
    if (a && a->coll[0])
        cn = a->coll, cl = strlen(a->coll);
    else
        kernel_coll(name, nl, &cn, &cl);
    op.coll = intern(c, cn, cl);
    op.nelems = a ? a->nelems : -1;
    op.has = CF_START | CF_ELAPSE;
    op.start_us = (double)m->start[s] / 1000.0;
    op.elapse_ms = (double)(m->dur[s] > 0 ? m->dur[s] : 0) / 1e6;
    op.text[comm_bit_index(CF_START)] = exact_text(c, m->start[s], 3);
    op.text[comm_bit_index(CF_ELAPSE)] = exact_text(c, m->dur[s] > 0 ? m->dur[s] : 0, 6);
    comm_add_op(c, &op);
}

/* A device lane with communication kernels: its first one's start. */
struct comm_lane { uint32_t lane; ns_t first; };

static int cmp_lane(const void *x, const void *y)
{
    const struct comm_lane *a = x, *b = y;
    if (a->first != b->first)
        return a->first < b->first ? -1 : 1;
    return (a->lane > b->lane) - (a->lane < b->lane);
}

/* The device lanes holding communication kernels, by their first one (*n of them). */
static struct comm_lane *comm_lanes(const struct model *m, size_t *n)
{
    *n = 0;
    struct comm_lane *v = malloc((m->nlanes ? m->nlanes : 1) * sizeof *v);
    if (!v)
        return NULL;
    for (uint32_t l = 0; l < m->nlanes; l++) {
        const struct lane *ln = &m->lanes[l];
        if (ln->kind != LANE_DEVICE)
            continue;
        ns_t first = NS_NONE;
        for (uint32_t s = ln->first; s < ln->first + ln->count; s++)
            if (comm_kernel_name(model_str(m, m->name[s])) && (first == NS_NONE || m->start[s] < first))
                first = m->start[s];
        if (first != NS_NONE)
            v[(*n)++] = (struct comm_lane){ l, first };
    }
    qsort(v, *n, sizeof *v, cmp_lane);
    return v;
}

uint32_t *comm_kernel_slices(const struct model *m, size_t *n)
{
    *n = 0;
    if (!m || !m->finalized)
        return NULL;
    size_t cnt = 0;
    for (int pass = 0; pass < 2; pass++) {
        uint32_t *v = pass ? malloc((cnt ? cnt : 1) * sizeof *v) : NULL;
        if (pass && !v)
            return NULL;
        for (uint32_t l = 0; l < m->nlanes; l++) {
            const struct lane *ln = &m->lanes[l];
            for (uint32_t s = ln->first; ln->kind == LANE_DEVICE && s < ln->first + ln->count; s++)
                if (comm_kernel_name(model_str(m, m->name[s]))) {
                    if (pass)
                        v[(*n)++] = s;
                    else
                        cnt++;
                }
        }
        if (pass) {
            if (!*n) {
                free(v);
                return NULL;
            }
            return v;
        }
    }
    return NULL;
}

struct comm *comm_from_kernels(const struct model *m, const struct steps *st, const struct comm_kernel_args *args,
                               size_t nargs)
{
    if (!m || !m->finalized)
        return NULL;
    size_t nl;
    struct comm_lane *lanes = comm_lanes(m, &nl);
    struct comm *c = lanes && nl ? comm_new() : NULL;
    struct kernel_src k = { m, st, args, nargs };
    for (size_t i = 0; c && i < nl; i++) {
        const struct lane *ln = &m->lanes[lanes[i].lane];
        for (uint32_t s = ln->first; s < ln->first + ln->count; s++)
            if (comm_kernel_name(model_str(m, m->name[s])))
                add_kernel_op(c, &k, s, (int)i + 1);
    }
    free(lanes);
    if (c)
        c->sources |= CS_KERNELS;
    return c;
}
