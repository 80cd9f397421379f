/* Totals of a time range (the timeline's v ... v): every slice of the given lanes that
 * overlaps [t0, t1), counted with the part of its time inside the range, and grouped by the
 * kind of its lane, so that host time, device time and the Overlap Analysis lanes never add
 * up into one figure.
 *
 * Groups: host (Python, CANN, GC, msproftx and other host lanes), device (Ascend Hardware
 * streams and communication lanes), overlap (Overlap Analysis), other (step trace). A
 * group's total is the in-range time of the top-level slices of its lanes summed over the
 * lanes (nested slices would count the same time twice); rows are per name at every depth.
 * Cost: O(lanes x depths x log n + slices in the range x log(slices in the range)). */
#ifndef APTOP_RANGE_TOTALS_H
#define APTOP_RANGE_TOTALS_H
#include <stddef.h>
#include <stdint.h>

#include "model/index/model.h"

enum range_group { RG_HOST, RG_DEVICE, RG_OVERLAP, RG_OTHER, RG_COUNT };
const char *range_group_name(enum range_group g);      /* "host", "device", ... */
enum range_group range_group_of(enum lane_kind k);

struct range_row {
    enum range_group group;
    uint32_t name;          /* interned in the model */
    uint64_t count;         /* slices of this name overlapping the range */
    ns_t in_range;          /* their time inside the range */
    ns_t full;              /* their whole durations (for the mean) */
    ns_t min, max;          /* whole durations */
};

struct range_totals {
    struct range_row *rows; /* by group, then in_range descending, then name id */
    size_t n;
    ns_t group_time[RG_COUNT];       /* in-range time of top-level slices, summed over lanes */
    uint64_t group_slices[RG_COUNT]; /* slices of the group overlapping the range */
};

/* 0, or -1 when memory ran out (*out is then empty). Free with range_totals_free. */
int range_totals_compute(const struct model *m, const uint32_t *lanes, size_t nlanes, ns_t t0, ns_t t1,
                         struct range_totals *out);
void range_totals_free(struct range_totals *rt);

#endif
