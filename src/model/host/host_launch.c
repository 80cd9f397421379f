/* Host slices a device slice's launch passed through (see host_launch.h). */
#include "model/host/host_launch.h"

#include <stdlib.h>

bool host_lane_kind(enum lane_kind k)
{
    return k == LANE_PYTHON || k == LANE_CANN || k == LANE_OTHER || k == LANE_MSTX;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

size_t host_enclosing(const struct model *m, uint32_t x, uint32_t *out, size_t cap)
{
    uint32_t lane = m->lane[x];
    ns_t st = m->start[x], en = model_end(m, x);
    size_t n = 0;
    for (uint32_t d = 0; d < m->depth[x] && n < cap; d++) {
        uint32_t a, b;
        model_row_range(m, lane, d, st, st + 1, &a, &b);
        for (uint32_t y = a; y < b && n < cap; y++)
            if (m->start[y] <= st && model_end(m, y) >= en)
                out[n++] = y;
    }
    return n;
}

size_t host_launch_slices(const struct model *m, uint32_t k, uint32_t *out, size_t cap)
{
    if (k >= m->nslices || m->lanes[m->lane[k]].kind != LANE_DEVICE)
        return 0;
    const uint32_t *f;
    size_t nf = model_flows_to(m, k, &f), n = 0;
    for (size_t i = 0; i < nf; i++) {
        uint32_t src = m->flows[f[i]].src;
        if (m->flows[f[i]].dst != k || src == SLICE_NONE || !host_lane_kind(m->lanes[m->lane[src]].kind))
            continue;
        if (n < cap)
            out[n++] = src;
        n += host_enclosing(m, src, out + n, cap - n);
    }
    if (n > 1) {
        qsort(out, n, sizeof *out, cmp_u32);
        size_t w = 1;
        for (size_t i = 1; i < n; i++)
            if (out[i] != out[w - 1])
                out[w++] = out[i];
        n = w;
    }
    return n;
}
