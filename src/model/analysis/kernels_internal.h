/* Private to kernels.c (aggregation and the kernel/slice join) and kernels_rowsets.c (the
 * session-wide rowsets built on it). Nothing else includes this header. */
#ifndef APTOP_KERNELS_INTERNAL_H
#define APTOP_KERNELS_INTERNAL_H

#include "model/analysis/kernels.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* PMU columns averaged per kernel when the table has them. */
static const struct pmu {
    const char *key, *rs_key, *title;
    int prec;
} pmus[] = {
    { "aicore_time(us)", "aicore_time_us", "AI Core µs", 3 },
    { "aiv_time(us)", "aiv_time_us", "AIV µs", 3 },
    { "aic_mac_ratio", "aic_mac_ratio", "AIC MAC", 4 },
    { "aic_mte2_ratio", "aic_mte2_ratio", "AIC MTE2", 4 },
    { "aiv_vec_ratio", "aiv_vec_ratio", "AIV Vec", 4 },
    { "aiv_mte2_ratio", "aiv_mte2_ratio", "AIV MTE2", 4 },
    { "memory_bound", "memory_bound", "Mem bound", 3 },
    { "cube_utilization(%)", "cube_utilization_pct", "Cube util %", 2 },
};
#define NPMU (sizeof pmus / sizeof pmus[0])

struct span_union { ns_t lo, hi, busy; bool open; };

struct kagg {
    uint32_t key, type, core;       /* ids in the source's strtab */
    uint64_t count;
    ns_t total, min, max;
    struct span_union u;            /* the time this kernel ran, overlaps counted once */
    double pmu_sum[NPMU];
    uint32_t pmu_n[NPMU];
};

/* One source's aggregation (a table or a model). */
struct kres {
    const struct strtab *str;
    struct kagg *rows;
    size_t n;
    ns_t total;
    struct span_union busy;         /* device busy time: the union of all kernels' intervals */
    bool has_busy;                  /* start times were known, so shares are of busy time */
    size_t skipped;                 /* rows without a duration */
    bool has_type, has_core;
    size_t pmu_col[NPMU];           /* table column of each PMU, SIZE_MAX when absent */
    const char *source;             /* for the caption */
};

struct kcols {
    size_t rank, key, type, core, count, total, mean, min, max, share, pmu[NPMU];
};

/* kernels.c */
void kres_done(struct kres *r);
ns_t kres_sat_add(ns_t a, ns_t b);
void kres_make_cols(struct rowset *rs, struct kcols *c, bool with_rank, enum kernels_group g,
                    bool type, bool core, const bool *pmu);
void kres_emit_row(struct rowset *rs, const struct kcols *c, const struct kres *r,
                   const struct kagg *k, int rank);
int kres_aggregate_rank(const struct table *t, const struct model *m, struct kres *r);

#endif
