/* Self time of a host slice, by the innermost slice running.
 *
 * At any moment a thread (lane) runs several nested slices; the innermost is the one that
 * started last (ties: the shorter, then the deeper row). A slice's self time is the time of
 * its span during which it is the innermost. For well-nested slices that is its duration
 * minus its direct children's; where frames overlap without nesting (a profiler's enter and
 * exit frames straddling an operator's edges), the part of the later slice inside it is not
 * the earlier one's own time either. The call tree charges device idle by the same rule. */
#ifndef APTOP_HOST_SELF_H
#define APTOP_HOST_SELF_H
#include <stdbool.h>

#include "model/index/model.h"

/* True when slice y of the same lane is inner to x in the sense above (y started later, or
 * at the same time and is shorter, or the same span in a deeper row). */
bool host_inner_to(const struct model *m, uint32_t x, uint32_t y);

/* Self time of slice x. O(slices starting inside x · log). scratch: NULL, or room the
 * function may grow (*scratch, *cap) to reuse across calls (caller frees *scratch). */
ns_t host_self_time(const struct model *m, uint32_t x, ns_t **scratch, size_t *cap);

#endif
