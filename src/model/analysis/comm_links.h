/* The link matrix: every rank's communication_matrix.json entries (or the analysis.db
 * CommAnalyzerMatrix rows) summed per source rank, destination rank and transport.
 *
 * Entries summed: those with both ranks in their link key and both a Transit Size(MB) and
 * a Transit Time(ms); the per-step totals ("Total Op Info") and the sample groups of the
 * summarised files ("allreduce-top1@...", "-middle", "-bottom2": ops already counted in
 * that type's "-total" group) are left out. An entry present in two ranks' files (same
 * step, kind, group, link and transport) counts once.
 *   size_mb, time_ms  exact sums of the entries' figures as written
 *   bandwidth_gbps    size_mb / time_ms (MB per ms is GB/s, as the files compute it),
 *                     rounded to 4 decimals, half to even; absent when time_ms is 0
 *   slow              bandwidth below half the median bandwidth of the links of the same
 *                     transport (median of the rounded figures; of an even count, the mean
 *                     of the two middle ones); needs two links of that transport or more
 * Reads the session, changes nothing, no curses. */
#ifndef APTOP_COMM_LINKS_H
#define APTOP_COMM_LINKS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/index/decimal_sum.h"
#include "model/rowsets/rowset.h"
#include "model/index/session.h"

struct comm_linkagg {
    int64_t src, dst;
    const char *transport;      /* borrowed from a rank's strings; "" when the files gave none */
    struct decimal_sum size_mb, time_ms;
    int64_t gbps_e4;            /* bandwidth in 1e-4 GB/s, -1 when absent */
    int64_t median_e5;          /* median of its transport in 1e-5 GB/s, -1 when undecided */
    bool slow;
    size_t entries;             /* file entries summed */
};

struct comm_linkmat {
    struct comm_linkagg *l; size_t n;   /* by transport, then src, then dst */
    size_t skipped;             /* entries without ranks, size or time */
    size_t duplicates;          /* entries found in an earlier rank's file */
};

/* True for the sample groups left out ("X-top1@g", "X-middle@g", "X-bottom2@g"). */
bool comm_link_group_is_sample(const char *group);
/* Builds the matrix over every rank; 0, or -1 when memory ran out. */
int comm_links_build(const struct session *s, struct comm_linkmat *out);
void comm_links_done(struct comm_linkmat *m);
/* A figure in 1e-digits units as decimal text, trailing zeros dropped ("15.76", "17.0"). */
const char *comm_scaled_text(int64_t v, int digits, char *buf, size_t size);

/* The report section comm_matrix: one row per link (src_rank, dst_rank, transport, size_mb,
 * time_ms, bandwidth_gbps, slow, transport_median_gbps, entries); rank >= 0 keeps the
 * links whose source is that rank (the medians stay those of every link). NULL when
 * there is none. */
struct rowset *comm_links_rowset(const struct session *s, int rank);

#endif
