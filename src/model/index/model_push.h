/* Growth of the arrays a model collects while it is built (flow records, correlation ids):
 * where growth fails the model is marked out of memory, and what it read so far stays. */
#ifndef APTOP_MODEL_PUSH_H
#define APTOP_MODEL_PUSH_H
#include <stddef.h>

#include "model/index/model.h"

/* p grown (model_grow) to hold need elements of size elem; NULL (p unchanged) when the model
 * ran out of memory before (it collects nothing more) or does now (m->oom set). */
void *model_push(struct model *m, void *p, size_t *cap, size_t need, size_t elem);

#endif
