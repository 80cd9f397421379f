/* Self time of a host slice by the innermost slice running (see host_self.h). */
#include "model/host/host_self.h"

#include <stdlib.h>

#include "util/grow.h"

bool host_inner_to(const struct model *m, uint32_t x, uint32_t y)
{
    if (m->start[y] != m->start[x])
        return m->start[y] > m->start[x];
    if (model_end(m, y) != model_end(m, x))
        return model_end(m, y) < model_end(m, x);
    return m->depth[y] > m->depth[x];
}

static int cmp_pair(const void *a, const void *b)
{
    const ns_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

ns_t host_self_time(const struct model *m, uint32_t x, ns_t **scratch, size_t *cap)
{
    const struct lane *l = &m->lanes[m->lane[x]];
    ns_t st = m->start[x], en = model_end(m, x);
    ns_t *iv = scratch ? *scratch : NULL;
    size_t n = 0, room = scratch ? *cap : 0;
    /* the spans, clipped to x, of the slices inner to x: they start inside x */
    for (uint32_t d = 0; d < l->ndepth; d++) {
        uint32_t a, b;
        model_row_range(m, m->lane[x], d, st, en, &a, &b);
        for (uint32_t y = a; y < b; y++) {
            if (y == x || m->start[y] < st || !host_inner_to(m, x, y))
                continue;
            ns_t ye = model_end(m, y) < en ? model_end(m, y) : en;
            if (ye <= m->start[y])
                continue;
            if ((n + 1) * 2 > room) {
                iv = grow_array_or_exit(iv, &room, (n + 1) * 2, sizeof *iv, "self time spans");
            }
            iv[2 * n] = m->start[y];
            iv[2 * n + 1] = ye;
            n++;
        }
    }
    if (n > 1)
        qsort(iv, n, 2 * sizeof *iv, cmp_pair);
    ns_t covered = 0, lo = 0, hi = NS_NONE;
    for (size_t i = 0; i < n; i++) {
        if (hi == NS_NONE || iv[2 * i] > hi) {
            if (hi != NS_NONE)
                covered += hi - lo;
            lo = iv[2 * i];
            hi = iv[2 * i + 1];
        } else if (iv[2 * i + 1] > hi) {
            hi = iv[2 * i + 1];
        }
    }
    if (hi != NS_NONE)
        covered += hi - lo;
    if (scratch) {
        *scratch = iv;
        *cap = room;
    } else {
        free(iv);
    }
    ns_t self = (m->dur[x] > 0 ? m->dur[x] : 0) - covered;
    return self > 0 ? self : 0;
}
