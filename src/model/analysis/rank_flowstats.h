/* A rank's flow figures (flowstats.h) for an analysis that reads them: the ones the load
 * computed, else computed now from the rank's model and steps and owned by the caller. */
#ifndef APTOP_RANK_FLOWSTATS_H
#define APTOP_RANK_FLOWSTATS_H

#include "model/analysis/flowstats.h"
#include "model/index/session.h"

/* rd's flowstats; when the load left none they are computed and *own holds them too (the
 * caller frees *own with flowstats_free, NULL otherwise). NULL when memory ran out. */
const struct flowstats *rank_flowstats(const struct rank_data *rd, struct flowstats **own);

#endif
