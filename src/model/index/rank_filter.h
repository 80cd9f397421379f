/* The one rank filter of every rowset over a session and every report section: `only` is
 * the rank asked for (--rank, a view's focus), a negative one asks for every rank. */
#ifndef APTOP_RANK_FILTER_H
#define APTOP_RANK_FILTER_H
#include <stdbool.h>
#include <stdint.h>

static inline bool rank_selected(int64_t rank, int only)
{
    return only < 0 || rank == only;
}

#endif
