/* Comparing two captures (a base and a new one): before/after a change, one rank against
 * another, a prefill instance against a decode instance.
 *
 * Data flow: each side is a session (or one capture group of a session, see
 * session_group_view). A diff section takes the rowsets the single-capture report builds
 * for each side (report_kernels, kernels_aggregate by type, report_ops, report_phases with
 * report_steps, comm_ops_rowset, comm_ranks_rowset with comm_rank_steps_rowset), folds the
 * rows of each side by key, and joins the two by key. No figure is derived again: counts
 * and totals are the builders' own, summed only when several rows share one key.
 *
 * Keys: the section's name column ("name", "type", "phase", the rank). Communication op
 * names carry a per-process op id and a group hash ("hcom_allReduce__868_0_1@1752..."):
 * the id after "__" becomes "*" and the "@..." suffix goes, so the same collective of two
 * runs matches. Ranks are part of the key (matched by rank id; a rank only one side has is
 * listed as added or removed) unless both sides hold exactly one rank: then those two ranks
 * are compared whatever their ids (`A:rank0` against `A:rank2`).
 *
 * Status of a row: "added" (no base row), "removed" (no new row), else "slower" when the
 * compared figure grew by more than the noise band, "faster" when it shrank by more,
 * "unchanged" otherwise. The compared figure is the total (kernels, types, ops, comm), the
 * step p50 (phases) or the mean step (ranks). The noise band is the step-to-step variation
 * the captures themselves show (diff_noise): relative band = 3 x max(MAD, 1% of p50) / p50
 * of the step durations of the reference phase, the largest over every rank of both sides
 * (the same 3-MAD rule that marks step outliers). A phase row uses its own phase's
 * 3 x max(MAD base, MAD new, 1% of base p50) in ns. Rows are sorted by the time the change
 * costs: delta_total_us, largest growth first.
 *
 * Every function here returns a new rowset the caller frees, NULL when neither side has
 * what the section needs. Row links: the row's index in the first-built order. */
#ifndef APTOP_DIFF_H
#define APTOP_DIFF_H
#include <stdbool.h>
#include <stddef.h>

#include "model/rowsets/rowset.h"
#include "model/index/session.h"
#include "model/analysis/steps.h"

enum diff_status { DS_UNCHANGED, DS_SLOWER, DS_FASTER, DS_ADDED, DS_REMOVED, DS_COUNT };
const char *diff_status_name(enum diff_status st);   /* "unchanged", "slower", ... */

enum diff_section {
    DIFF_KERNELS, DIFF_KERNEL_TYPES, DIFF_OPS, DIFF_PHASES, DIFF_COMM, DIFF_RANKS, DIFF_SECTIONS
};
const char *diff_section_name(enum diff_section sec);   /* "kernels_diff", ... */
const char *diff_section_help(enum diff_section sec);

/* The noise band of a comparison. */
struct diff_noise {
    double rel;                 /* relative band on totals and means (>= 0.03) */
    enum step_phase phase;      /* the reference phase, PHASE_COUNT when no common steps */
    char basis[192];            /* how it was decided, for captions */
};
void diff_noise(const struct session *base, const struct session *new, struct diff_noise *out);

/* True when rows are matched by rank id (see above). */
bool diff_by_rank(const struct session *base, const struct session *new);

/* One section as a rowset named diff_section_name(sec): [rank,] name, base_count,
 * new_count, base_total_us, new_total_us, delta_total_us, ratio, status, then per section
 * figure base_X, new_X, delta_X. */
struct rowset *diff_section(enum diff_section sec, const struct session *base,
                            const struct session *new, const struct diff_noise *noise);

/* The canonical decode steps of both sides aligned kernel by kernel (diff_align.c): a
 * global alignment of the two kernel-name sequences (longest common subsequence, so an
 * inserted kernel shows as added and a removed one as removed, never as a rename), one row
 * per aligned position: position, base_position, new_position, name, base_median_us,
 * new_median_us, delta_us, status. A matched position is slower/faster when its median
 * moved by more than max(p90 - median of either side, 1% of the base median). NULL when a
 * side has no decode steps. */
struct rowset *diff_align_decode(const struct session *base, const struct session *new);
/* The alignment itself, for tests: fills pair[0..*npair) with (i, j) index pairs, i into
 * a, j into b, SIZE_MAX for a gap; returns 0, or -1 when memory ran out. */
struct diff_pair { size_t a, b; };
int diff_align_names(const char *const *a, size_t na, const char *const *b, size_t nb,
                     struct diff_pair **pair, size_t *npair);

/* The rows behind diff row (key, rank) of section sec from both captures
 * (diff_instances.c): "capture" (base / new), "rank", then the union of the source rows'
 * columns by key: kernel instances, operator_details rows, steps, communication ops,
 * per-rank steps. rank < 0: every rank (rows not matched by rank). Links: the source rows'
 * links (for kernels the joined slice of that side's rank). */
struct rowset *diff_instances(enum diff_section sec, const struct session *base, const struct session *new,
                              const char *key, int rank);

/* The normalised key of a name (see above) into buf (cut at size - 1 bytes). */
const char *diff_key(const char *name, char *buf, size_t size);
/* The same for names of any length: into kb's buffer, grown as needed (reuse kb across
 * calls, free(kb->p) at the end). NULL when memory ran out. */
struct diff_keybuf { char *p; size_t cap; };
const char *diff_key_in(struct diff_keybuf *kb, const char *name);

#endif
