/* The parts of a rank that came with its timeline in the second pass (io/load/loader.h): the
 * model, the tables read with it (kernels joined to its slices, operator details, task
 * time), its steps and flow figures (both borrow the model), communication made from its
 * kernels, its memory. Freeing them leaves the rank as the first pass made it. UI thread. */
#ifndef APTOP_TIMELINE_PARTS_H
#define APTOP_TIMELINE_PARTS_H
#include <stdbool.h>

#include "model/index/session.h"

struct timeline_parts {
    bool model, comm, steps, flowstats, memory;
    bool table[TK_COUNT];
    unsigned files;             /* files read with them (counted in the rank's files_read) */
};

/* Frees the parts tp names from rd (NULL in rd after), subtracts their files; tp cleared. */
void timeline_parts_free(struct timeline_parts *tp, struct rank_data *rd);

#endif
