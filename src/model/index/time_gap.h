/* Lanes whose events sit far away in time from the rest of a capture (another clock, or
 * hand-edited timestamps) squeeze everything else into one column when the timeline fits
 * the capture; this finds the largest empty stretch between lanes so the loader can say so. */
#ifndef APTOP_TIME_GAP_H
#define APTOP_TIME_GAP_H
#include <stdbool.h>

#include "model/index/model.h"

struct time_gap {
    ns_t gap;               /* the empty stretch */
    ns_t before, after;     /* its ends: the end of the earlier lanes, the start of the later */
    uint32_t lanes_before, lanes_after;
    uint32_t example;       /* a lane on the side with fewer lanes */
};

/* The largest stretch of at least min_gap that no lane's slices cover, splitting the lanes
 * into an earlier and a later group; false when there is none. O(lanes log lanes). */
bool model_time_gap(const struct model *m, ns_t min_gap, struct time_gap *out);

#endif
