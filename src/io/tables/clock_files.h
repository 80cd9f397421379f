/* The clock files msprof writes beside a device's data (start_info[.N], end_info[.N]): the
 * collection window on the host's wall clock (collectionTimeBegin/End, µs) and on its raw
 * monotonic clock (clockMonotonicRaw, ns). Older exports left device timestamps on the
 * monotonic clock; where a rank's times lie in the monotonic window and not in the wall
 * one, they are mapped to wall time by the window's offset, so ranks and files compare. */
#ifndef APTOP_CLOCK_FILES_H
#define APTOP_CLOCK_FILES_H
#include <stdbool.h>

#include "io/discovery/capture.h"
#include "model/index/model.h"
#include "model/index/table.h"

struct clock_map {
    bool have;                  /* both windows known */
    ns_t wall0, wall1;          /* collection window, wall clock, ns */
    ns_t mono0, mono1;          /* the same window, monotonic raw clock, ns */
    char source[256];           /* the start_info file it came from (for messages) */
};

/* Reads the rank's clock files (FK_CLOCK); problems go to d. */
void clock_map_read(const struct capture_rank *cr, struct clock_map *cm, struct diag *d);
/* The offset to add to times spanning [t0, t1] (ns) to put them on the wall clock: non-zero
 * only when the span lies in the monotonic window (with a margin of one window length) and
 * outside the wall one. */
ns_t clock_map_offset(const struct clock_map *cm, ns_t t0, ns_t t1);
/* Adds off to every timestamp column of t (starts, ends, stops: never durations), in the
 * rows from `from` on (a part appended to the table). */
void clock_shift_table(struct table *t, size_t from, ns_t off);
/* The span [*t0, *t1] of t's timestamp columns; false when it has none. */
bool clock_table_span(const struct table *t, ns_t *t0, ns_t *t1);

#endif
