#include "model/index/range_totals.h"
#include "util/grow.h"

#include <stdlib.h>
#include <string.h>

const char *range_group_name(enum range_group g)
{
    switch (g) {
    case RG_HOST: return "host";
    case RG_DEVICE: return "device";
    case RG_OVERLAP: return "overlap analysis";
    default: return "other";
    }
}

enum range_group range_group_of(enum lane_kind k)
{
    switch (k) {
    case LANE_DEVICE: case LANE_COMM: return RG_DEVICE;
    case LANE_OVERLAP: return RG_OVERLAP;
    case LANE_STEP_TRACE: case LANE_COUNTER: return RG_OTHER;
    default: return RG_HOST;
    }
}

struct hit { uint64_t key; ns_t in, dur; };   /* key: group << 32 | name */

static int cmp_hit(const void *a, const void *b)
{
    const struct hit *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

static int cmp_row(const void *a, const void *b)
{
    const struct range_row *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    if (x->in_range != y->in_range)
        return x->in_range > y->in_range ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

int range_totals_compute(const struct model *m, const uint32_t *lanes, size_t nlanes, ns_t t0, ns_t t1,
                         struct range_totals *out)
{
    memset(out, 0, sizeof *out);
    if (!m || t1 <= t0)
        return 0;
    struct hit *h = NULL;
    size_t nh = 0, cap = 0;
    for (size_t li = 0; li < nlanes; li++) {
        uint32_t lane = lanes[li];
        if (lane >= m->nlanes)
            continue;
        const struct lane *l = &m->lanes[lane];
        enum range_group g = range_group_of(l->kind);
        for (uint32_t d = 0; d < l->ndepth; d++) {
            uint32_t f, e;
            model_row_range(m, lane, d, t0, t1, &f, &e);
            for (uint32_t s = f; s < e; s++) {
                ns_t a = m->start[s] > t0 ? m->start[s] : t0;
                ns_t z = model_end(m, s) < t1 ? model_end(m, s) : t1;
                if (z < a)
                    z = a;
                struct hit *p = grow_array(h, &cap, nh + 1, sizeof *p);
                if (!p) {
                    free(h);
                    return -1;
                }
                h = p;
                h[nh++] = (struct hit){ (uint64_t)g << 32 | m->name[s], z - a, m->dur[s] };
                out->group_slices[g]++;
                if (d == 0)
                    out->group_time[g] += z - a;
            }
        }
    }
    if (nh > 1)
        qsort(h, nh, sizeof *h, cmp_hit);
    size_t nrows = 0;
    for (size_t i = 0; i < nh; i++)
        nrows += !i || h[i].key != h[i - 1].key;
    out->rows = calloc(nrows ? nrows : 1, sizeof *out->rows);
    if (!out->rows) {
        free(h);
        memset(out, 0, sizeof *out);
        return -1;
    }
    for (size_t i = 0; i < nh; i++) {
        if (!i || h[i].key != h[i - 1].key)
            out->rows[out->n++] = (struct range_row){ .group = (enum range_group)(h[i].key >> 32),
                                                      .name = (uint32_t)h[i].key, .min = INT64_MAX,
                                                      .max = INT64_MIN };
        struct range_row *r = &out->rows[out->n - 1];
        r->count++;
        r->in_range += h[i].in;
        r->full += h[i].dur;
        if (h[i].dur < r->min) r->min = h[i].dur;
        if (h[i].dur > r->max) r->max = h[i].dur;
    }
    free(h);
    if (out->n > 1)
        qsort(out->rows, out->n, sizeof *out->rows, cmp_row);
    return 0;
}

void range_totals_free(struct range_totals *rt)
{
    free(rt->rows);
    memset(rt, 0, sizeof *rt);
}
