/* Overlap Analysis of a DB export that has no OVERLAP_ANALYSIS table, computed from its
 * tasks the way the text export's "Overlap Analysis" process is:
 *
 *   Computing                       union of the TASK spans that have a COMPUTE_TASK_INFO row
 *                                   (so EVENT_WAIT, EVENT_RECORD, memcpy and communication
 *                                   tasks are not computing)
 *   Communication                   union of the COMMUNICATION_OP spans
 *   Communication(Not Overlapped)   Communication minus Computing
 *   Free                            the gaps between consecutive spans of Computing ∪
 *                                   Communication
 *
 * per device. Spans are integer ns; db_reader.c adds them while it reads the tables and
 * turns the result into the same lanes an OVERLAP_ANALYSIS table gives. */
#ifndef APTOP_DB_OVERLAP_H
#define APTOP_DB_OVERLAP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A set of [s, e) spans. Spans added in start order merge as they come (memory is one
 * entry per disjoint span); others are sorted and merged by dbo_finish. */
struct dbo_spans {
    struct dbo_iv { int64_t s, e; } *v;
    size_t n, cap;
    bool unsorted;
};

/* Adds [s, e); an empty or inverted span is ignored. False when memory ran out. */
bool dbo_add(struct dbo_spans *u, int64_t s, int64_t e);
/* Makes the set sorted and disjoint (touching spans merge). */
void dbo_finish(struct dbo_spans *u);
/* out = a minus b (both finished); out is finished. False when memory ran out. */
bool dbo_minus(const struct dbo_spans *a, const struct dbo_spans *b, struct dbo_spans *out);
/* out = the gaps between consecutive spans of a ∪ b (both finished). */
bool dbo_gaps(const struct dbo_spans *a, const struct dbo_spans *b, struct dbo_spans *out);
/* Sum of the lengths of a finished set (saturated). */
int64_t dbo_total(const struct dbo_spans *u);
void dbo_free(struct dbo_spans *u);

#endif
