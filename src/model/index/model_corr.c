/* Launches joined by correlation id: a runtime call and the kernels, memcpys and memsets it
 * launched carry the same id (Kineto's args.correlation). Where the file's flow records are
 * absent (sampled traces) or half present (an f without its s, common for graph replays),
 * the id still says which call launched a slice: finalize adds that link as a flow marked
 * by_correlation, so launchers, launch latency, host-bound idle and flow-follow treat it as
 * they treat a flow, while the counts of the file's flow records leave it out. */
#include "model/index/model.h"
#include "model/index/model_internal.h"
#include "model/index/model_push.h"

#include <stdlib.h>
#include <string.h>

void model_add_correlation(struct model *m, uint32_t slice, uint64_t id, bool launch)
{
    struct build *b = B(m);
    if (!b || slice == SLICE_NONE)
        return;
    struct corr_entry *n = model_push(m, b->corr, &b->corr_cap, b->ncorr + 1, sizeof *n);
    if (n) {
        b->corr = n;
        n[b->ncorr++] = (struct corr_entry){ id, slice, launch };
    }
}

int model_append_correlations(struct build *dst, const struct build *src, uint32_t first, uint32_t nslices)
{
    if (!src->ncorr)
        return 0;
    struct corr_entry *n = model_grow(dst->corr, &dst->corr_cap, dst->ncorr + src->ncorr, sizeof *n);
    if (!n)
        return -1;
    dst->corr = n;
    for (size_t i = 0; i < src->ncorr; i++) {
        struct corr_entry e = src->corr[i];
        if (e.slice >= nslices)
            continue;
        e.slice += first;
        n[dst->ncorr++] = e;
    }
    return 0;
}

/* By id, the launch first, then in file order (build index). */
static int cmp_corr(const void *x, const void *y)
{
    const struct corr_entry *a = x, *b = y;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    if (a->launch != b->launch)
        return a->launch ? -1 : 1;
    return a->slice < b->slice ? -1 : a->slice > b->slice;
}

int model_correlation_flows(struct model *m)
{
    struct build *b = B(m);
    if (!b || !b->ncorr || !m->build_to_final)
        return 0;
    /* slices a flow of the file already binds to a source keep that flow alone */
    uint8_t *sourced = calloc((size_t)m->nslices / 8 + 1, 1);
    if (!sourced)
        return -1;
    for (size_t i = 0; i < m->nflows; i++)
        if (m->flows[i].src != SLICE_NONE && m->flows[i].dst < m->nslices)
            sourced[m->flows[i].dst / 8] |= (uint8_t)(1u << (m->flows[i].dst % 8));
    qsort(b->corr, b->ncorr, sizeof *b->corr, cmp_corr);
    uint32_t cat = UINT32_MAX;
    for (size_t g = 0; g < b->ncorr;) {
        size_t e = g + 1;
        while (e < b->ncorr && b->corr[e].id == b->corr[g].id)
            e++;
        const struct corr_entry *launch = b->corr[g].launch ? &b->corr[g] : NULL;
        uint32_t src = launch && launch->slice < m->nslices ? m->build_to_final[launch->slice] : SLICE_NONE;
        for (size_t i = g; i < e && src != SLICE_NONE; i++) {
            const struct corr_entry *c = &b->corr[i];
            if (c->launch || c->slice >= m->nslices)
                continue;
            uint32_t dst = m->build_to_final[c->slice];
            if (dst >= m->nslices || dst == src || (sourced[dst / 8] >> (dst % 8) & 1))
                continue;
            if (cat == UINT32_MAX && ((cat = model_intern(m, "correlation", 11)), m->oom)) {
                free(sourced);
                return -1;
            }
            if (m->nflows >= m->flows_cap) {
                free(sourced);
                return -1;   /* model_flows_room counted every entry: never */
            }
            m->flows[m->nflows++] = (struct flow){ .cat = cat, .name = cat, .id = c->id, .by_correlation = true,
                .src = src, .dst = dst, .src_lane = m->lane[src], .dst_lane = m->lane[dst],
                .src_ts = m->start[src], .dst_ts = m->start[dst] };
        }
        g = e;
    }
    free(sourced);
    return 0;
}
