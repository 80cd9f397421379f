/* A rank's flow figures, kept or computed now (see rank_flowstats.h). */
#include "model/analysis/rank_flowstats.h"

const struct flowstats *rank_flowstats(const struct rank_data *rd, struct flowstats **own)
{
    *own = NULL;
    if (rd->flowstats)
        return rd->flowstats;
    return *own = flowstats_compute(rd->model, rd->steps);
}
