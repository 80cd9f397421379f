/* Private to the step detector's files: steps.c (classification, markers, the entry point),
 * steps_period.c (period detection), steps_phase.c (per-step figures and phases) and
 * steps_rowset.c (the step tables). Nothing else includes this header. */
#ifndef APTOP_STEPS_INTERNAL_H
#define APTOP_STEPS_INTERNAL_H

#include "model/analysis/steps.h"
#include "model/index/model.h"
#include "model/index/table.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_CANDIDATES 24

enum {
    NF_COMM = 1,        /* communication kernel */
    NF_PREFILL = 2,     /* prefill-only attention */
    NF_DECODE = 4,      /* decode-only attention */
    NF_FIAS = 8,        /* FusedInferAttentionScore: either */
    NF_STEPMARK = 16,   /* ProfilerStep#N */
    NF_EXEC = 32,       /* ...execute_model */
    NF_CORESTEP = 64,   /* EngineCore.step */
    NF_PROFCTL = 128,   /* PROFILING_ENABLE / PROFILING_DISABLE: the profiler's own tasks */
    NF_ANNOT = 256,     /* a serving engine's step annotation (model/analysis/engine_annot.h) */
};

struct kev { ns_t start; uint32_t s; };

/* Merged busy intervals with a prefix sum, for idle-time queries in O(log n). */
struct busy {
    ns_t *a, *b, *pre;   /* pre[i] = covered length of intervals [0, i) */
    size_t n;
};

struct ctx {
    const struct model *m;
    uint16_t *nf;           /* per name id: NF_* */
    uint32_t nnames;
    struct kev *dev;        /* device kernels (LANE_DEVICE lanes) sorted by start */
    size_t ndev;
    int32_t *step_of;       /* per dev index: step number or -1 */
    struct busy dbusy;      /* union of device kernels */
};

struct mark { ns_t start, end; int64_t index; int8_t phase; /* NF_ANNOT: the phase it names */ };

/* steps.c */
int steps_cmp_ns(const void *a, const void *b);
ns_t steps_pct_sorted(const ns_t *v, size_t n, double p);
ns_t steps_busy_in(const struct busy *u, ns_t t0, ns_t t1);
ns_t steps_longest_hole(const struct busy *u, ns_t t0, ns_t t1);
uint16_t steps_nflags(const struct ctx *c, uint32_t name);
bool steps_is_comm_slice(const struct ctx *c, uint32_t s);

/* steps_period.c */
int steps_detect_period(struct ctx *c, struct steps *st, ns_t **win_out);

/* steps_phase.c */
int steps_breakdown(const struct ctx *c, struct steps *ss, struct step *st, const uint32_t *comm_lanes,
                    size_t ncomm_lanes);
void steps_classify_phases(const struct ctx *c, struct steps *ss, const struct table *kt);
void steps_phase_stats(struct steps *ss);

#endif
