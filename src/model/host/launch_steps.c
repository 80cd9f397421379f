/* Launch latency percentiles per step (see launch_steps.h). */
#include "model/host/launch_steps.h"

#include <stdlib.h>

#include "model/analysis/rank_flowstats.h"
#include "model/index/model_ranks.h"
#include "util/free_all.h"
#include "util/order.h"

/* A launch: its step window (SIZE_MAX: none), latency and kernel. */
struct launch_lat { size_t window; ns_t lat; uint32_t kernel; };

static int cmp_launch(const void *a, const void *b)
{
    const struct launch_lat *x = a, *y = b;
    int c = ORDER(x->window, y->window);
    if (!c)
        c = ORDER(x->lat, y->lat);
    return c ? c : ORDER(x->kernel, y->kernel);
}

static size_t window_of(const struct flowstats *fs, ns_t t)
{
    for (size_t i = 0; i < fs->nsteps; i++)
        if (fs->steps[i].t0 <= t && t < fs->steps[i].t1)
            return i;
    return SIZE_MAX;
}

static const struct rs_coldef cols[] = {
    RS_COL_INT("step", "Step"),
    RS_COL_INT("kernels", "Launches"),
    RS_COL_NS("p50_us", "p50 µs"),
    RS_COL_NS("p90_us", "p90 µs"),
    RS_COL_NS("p99_us", "p99 µs"),
    RS_COL_NS("max_us", "Max µs"),
    RS_COL_STR("worst", "Slowest launch"),
};
enum { LC_STEP, LC_KERNELS, LC_P50, LC_P90, LC_P99, LC_MAX, LC_WORST };

/* Adds the rows of one rank; false when memory ran out. */
static bool rank_rows(struct rowset *rs, size_t base, size_t crank, const struct rank_data *rd, size_t ri,
                      const struct flowstats *fs)
{
    const struct model *m = rd->model;
    struct launch_lat *v = malloc((fs->nlaunches ? fs->nlaunches : 1) * sizeof *v);
    ns_t *lat = malloc((fs->nlaunches ? fs->nlaunches : 1) * sizeof *lat);
    if (!v || !lat) {
        FREE_ALL(v, lat);
        return false;
    }
    size_t n = 0;
    for (size_t i = 0; i < fs->nlaunches; i++) {
        const struct flow_launch *fl = &fs->launches[i];
        if (fl->how != LAUNCH_FLOW)
            continue;
        ns_t t = m->start[fl->kernel];
        v[n++] = (struct launch_lat){ window_of(fs, t), t - m->start[fl->launcher], fl->kernel };
    }
    qsort(v, n, sizeof *v, cmp_launch);
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && v[j].window == v[i].window; j++)
            lat[j - i] = v[j].lat;
        struct flow_lat l;
        flow_lat_of(&l, lat, j - i);
        uint32_t worst = v[j - 1].kernel;
        size_t row = rowset_linked_row(rs, rowset_rank_link(ri, worst));
        if (row == SIZE_MAX)
            break;
        if (crank != SIZE_MAX)
            rowset_int(rs, row, crank, rd->rank);
        if (v[i].window != SIZE_MAX)
            rowset_int(rs, row, base + LC_STEP, fs->steps[v[i].window].index);
        rowset_int(rs, row, base + LC_KERNELS, (int64_t)l.n);
        rowset_ns(rs, row, base + LC_P50, l.p50);
        rowset_ns(rs, row, base + LC_P90, l.p90);
        rowset_ns(rs, row, base + LC_P99, l.p99);
        rowset_ns(rs, row, base + LC_MAX, l.max);
        rowset_str(rs, row, base + LC_WORST, model_str(m, m->name[worst]));
    }
    FREE_ALL(v, lat);
    return true;
}

struct rowset *launch_steps_session_rowset(const struct session *s, int rank)
{
    if (!s)
        return NULL;
    size_t crank, base;
    struct rowset *rs = ROWSET_NEW_RANKED("launch_steps", s->nranks > 1, cols, &crank, &base);
    if (!rs)
        return NULL;
    const struct rank_data *rd;
    for (size_t i = 0; (rd = model_rank_next(s, &i, rank)); i++) {
        struct flowstats *own;
        const struct flowstats *fs = rank_flowstats(rd, &own);
        if (fs)
            rank_rows(rs, base, crank, rd, i, fs);
        flowstats_free(own);
    }
    if (!rs->nrows) {
        rowset_free(rs);
        return NULL;
    }
    rowset_caption(rs, "launch latency (device slice start - launcher start) per step window, nearest-rank percentiles;"
                   " the slowest launch of each");
    return rs;
}
