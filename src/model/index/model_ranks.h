/* The ranks an analysis over trace models reads: those of a session that have a model and
 * that the rank filter (rank_filter.h) selects, walked as
 *     const struct rank_data *rd;
 *     for (size_t i = 0; (rd = model_rank_next(s, &i, only)); i++)
 * (i is the rank's index in s->ranks, as rowset links name it). */
#ifndef APTOP_MODEL_RANKS_H
#define APTOP_MODEL_RANKS_H
#include <stddef.h>

#include "model/index/rank_filter.h"
#include "model/index/session.h"

/* The first such rank at index *i or after (*i moved to it), NULL when none is left. */
static inline const struct rank_data *model_rank_next(const struct session *s, size_t *i, int only)
{
    for (; *i < s->nranks; ++*i)
        if (s->ranks[*i].model && rank_selected(s->ranks[*i].rank, only))
            return &s->ranks[*i];
    return NULL;
}

#endif
