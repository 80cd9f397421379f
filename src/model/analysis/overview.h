/* The overview: per rank, the few figures that say where the time goes, each taken from the
 * module that defines it (no figure is computed a second way here):
 *   span             the model's t_max - t_min (the summary's span_us)
 *   device busy      kernels_busy(): the union of kernel intervals, the kernel shares' own
 *                    denominator; busy share = busy / span
 *   split            computing / communication not overlapped / free per step, from the rank
 *                    analysis (comm.h: step_trace_time.csv, else detected steps or the Overlap
 *                    Analysis lanes), as shares of their sum
 *   host-bound idle  flowstats: device idle time and the part of it that waited for a launch;
 *                    host-bound share = host-bound idle / idle (the flows section's share)
 *   outside, other   the rest of the span: span = busy + idle + outside + other (ov_rank)
 *   top kernels      kernels_rank() rows with the largest share of device busy time
 *   step times       steps.h per-phase p50 / p90 / p99 and the step durations (sparklines)
 *   straggler        the rank the others wait for (rank analysis: waited_for): in most
 *                    shared collectives it arrived last, so it waited least
 *   slowest          only the rank with the longest mean step (rank analysis: longest)
 *   steps            the rank's steps as the ranks section counts them (its detected steps,
 *                    else its step_trace_time rows), and the source it names for them
 * A rank read from a summary file (model/index/rank_digest.h) takes span, busy, idle, top kernels
 * and step times per phase from the overview row its own host printed.
 * Data flow: overview_compute(session) reads the installed parts; the Overview view and the
 * report's "overview" section print the result. Nothing here knows curses. */
#ifndef APTOP_OVERVIEW_H
#define APTOP_OVERVIEW_H
#include <stdbool.h>
#include <stddef.h>

#include "model/index/model.h"
#include "model/rowsets/rowset.h"
#include "model/index/session.h"
#include "model/analysis/steps.h"

#define OV_TOP 5

struct ov_kernel {
    char *name;               /* whole, as in the kernels section (owned) */
    double share;             /* of device busy time */
    ns_t total;
};

struct ov_rank {
    size_t index;             /* into session->ranks */
    int rank;
    bool has_span;
    ns_t t0, span;
    bool has_busy;
    ns_t busy;
    double busy_share;        /* busy / span */
    const char *busy_source;  /* static text: where the kernels came from */
    bool has_split;
    ns_t step_mean, computing, comm_not_overlapped, free;   /* per step means */
    double computing_share, comm_share, free_share;
    const char *split_source; /* rank_src_name */
    bool has_idle;
    bool has_host_bound;      /* some kernel was launched by a flow or correlation id: else
                               * host-bound idle is unknown (never shown as 0) */
    ns_t idle, host_bound;
    double host_bound_share;  /* host_bound / idle */
    /* The span adds up: span = busy + idle + outside + other, where outside is the span before
     * the device's first kernel and after its last (the host alone) and other is what is left
     * of the device's window when busy comes from a kernel table that differs from the
     * timeline's kernels (0 when busy is the timeline's); has_parts when all are known. */
    bool has_parts;
    ns_t outside, other;
    struct ov_kernel top[OV_TOP];
    size_t ntop;
    size_t nsteps;
    struct phase_stat phase[PHASE_COUNT];   /* step times per phase (steps.h), count 0: none */
    bool straggler, slowest;  /* the overview's straggler / slowest rank (see struct overview) */
};

struct overview {
    struct ov_rank *r;
    size_t n;
    int straggler, slowest;   /* indices into r, -1 when undecided */
    char straggler_why[256];  /* the figure that makes it the straggler */
    char slowest_why[256];    /* the figure that makes it the slowest */
};

/* 0, or -1 when memory ran out. Free with overview_free. */
int overview_compute(const struct session *s, struct overview *o);
void overview_free(struct overview *o);
/* One row per rank (keys: rank, span_us, device_busy_us, device_busy_share, computing_share,
 * comm_not_overlapped_share, free_share, step_us_mean, idle_us, host_bound_idle_us,
 * host_bound_share, outside_us, other_us, top_kernels (JSON array of name, share, total_us), steps, and per phase
 * present <phase>_steps, <phase>_p50_us, <phase>_p90_us, <phase>_p99_us, straggler, slowest). Ranks other
 * than `rank` (when >= 0) are left out. link: the rank index. */
struct rowset *overview_rowset(const struct overview *o, const struct session *s, int rank);

#endif
