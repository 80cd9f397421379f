#include "model/index/time_gap.h"

#include <stdlib.h>

struct span { ns_t lo, hi; uint32_t lane; };

static int by_lo(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

bool model_time_gap(const struct model *m, ns_t min_gap, struct time_gap *out)
{
    if (!m || !m->finalized || m->nlanes < 2)
        return false;
    struct span *sp = malloc(m->nlanes * sizeof *sp);
    if (!sp)
        return false;
    uint32_t n = 0;
    for (uint32_t l = 0; l < m->nlanes; l++) {
        const struct lane *ln = &m->lanes[l];
        if (!ln->count || !ln->row_first)
            continue;
        struct span s = { INT64_MAX, INT64_MIN, l };
        for (uint32_t d = 0; d < ln->ndepth; d++) {
            uint32_t f = ln->row_first[d], e = ln->row_first[d + 1];
            if (f >= e)
                continue;
            /* rows never overlap, so their first slice starts first and their last ends last */
            if (m->start[f] < s.lo)
                s.lo = m->start[f];
            if (model_end(m, e - 1) > s.hi)
                s.hi = model_end(m, e - 1);
        }
        if (s.lo <= s.hi)
            sp[n++] = s;
    }
    qsort(sp, n, sizeof *sp, by_lo);
    bool found = false;
    ns_t reach = n ? sp[0].hi : 0;
    for (uint32_t i = 1; i < n; i++) {
        if (sp[i].lo > reach && sp[i].lo - reach >= min_gap && (!found || sp[i].lo - reach > out->gap)) {
            found = true;
            out->gap = sp[i].lo - reach;
            out->before = reach;
            out->after = sp[i].lo;
            out->lanes_before = i;
            out->lanes_after = n - i;
            out->example = i <= n - i ? sp[0].lane : sp[i].lane;
        }
        if (sp[i].hi > reach)
            reach = sp[i].hi;
    }
    free(sp);
    return found;
}
