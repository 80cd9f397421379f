/* A rank read from a summary file instead of its capture.
 *
 * A summary file is what `aptop report --format json` printed on the host that holds the
 * rank's capture (the sections summary, steps, ranks, comm, rank_steps, comm_ends). Raw traces
 * stay on that host; the summary carries the figures the cluster-wide sections are made of:
 *   - the rank's rows of the steps and phases sections, as printed (rebuilt with the
 *     sections' columns);
 *   - its per-step figures (rank_steps), which the rank analysis averages (model/analysis/comm.h);
 *   - its communication ops, rebuilt into a struct comm (rank_data.comm, not kept here);
 *   - the ends of its timeline's communication slices (comm_ends), which align the ranks;
 *   - its overview row: span, device busy, idle, top kernels, step times per phase;
 *   - the file's summary section, on the first rank read from that file only (so counts
 *     summed over the ranks of a session count each file once).
 * Everything across ranks (the longest step, the rank the others wait for, clock offsets) is
 * computed again from these, over all ranks, exactly as a direct load computes it.
 * A digest has no timeline: views that need one say the rank came from a summary.
 * io/tables/summary_json.c builds digests; the session owns them (rank_data.digest). */
#ifndef APTOP_RANK_DIGEST_H
#define APTOP_RANK_DIGEST_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/analysis/comm.h"
#include "model/analysis/overview.h"
#include "model/rowsets/rowset.h"
#include "model/index/strtab.h"

/* One communication slice end of the rank's timeline (comm_ends section). */
struct digest_end {
    uint32_t name;              /* interned in the digest's str */
    int64_t ord;                /* ordinal among the rank's slices of that name, by start */
    ns_t end;
};

/* The summary section of one file: counts summed over the ranks it covers. */
struct digest_summary {
    int64_t ranks, files, events, unknown_ph, slices, flows_matched, flows_unmatched, flows_unbound,
            lanes, counter_tracks;
    int64_t by_ph[128];
    bool has_span;
    ns_t start, end;            /* start_us and start_us + span_us */
};

/* The rank's overview row (overview section), the figures of its trace. */
struct digest_overview {
    bool has_span, has_busy, has_idle, has_host_bound, has_parts;
    ns_t span, busy, idle, host_bound, outside, other;   /* outside, other: overview.h */
    struct { char *name; double share; ns_t total; } top[OV_TOP];
    size_t ntop;
    size_t nsteps;
    struct phase_stat phase[PHASE_COUNT];
};

struct rank_digest {
    const char *path;           /* the summary file (in str) */
    struct strtab *str;
    struct rowset *steps;       /* the rank's steps rows without a rank column; NULL: none */
    struct rowset *phases;      /* its phases rows, the same way */
    char steps_note[192];       /* how its steps were found (the steps section's caption) */
    bool has_rank_steps;        /* the file had a rank_steps section */
    struct rank_step *rsteps;   /* rank_steps rows of this rank */
    size_t nrsteps;
    char *rsteps_source;        /* their source column ("markers", "step_trace_time", ...) */
    struct digest_end *ends;
    size_t nends;
    struct digest_summary *summary;   /* NULL except on the file's first rank */
    struct digest_overview *ov;       /* NULL when the file has no overview section */
};

struct rank_digest *rank_digest_new(const char *path);
void rank_digest_free(struct rank_digest *g);

/* Fills the steps of r (its steps, src, src_detail) from the digest, as the analysis of a
 * loaded rank would have found them. 0, or -1 when memory ran out. */
int rank_digest_fill_steps(const struct rank_digest *g, struct rank_summary *r);

#endif
