/* The index cache's model section (see index_cache.h). */
#ifndef APTOP_CACHE_MODEL_H
#define APTOP_CACHE_MODEL_H
#include "io/cache/cache_io.h"
#include "model/index/model.h"

/* Writes a finalized model. */
void cache_write_model(struct cw *w, const struct model *m);
/* A finalized model over the mapping r->base[0..r->len), which it takes over: the model
 * unmaps it when freed, and on failure (NULL, r->bad and r->why set) it is unmapped already.
 * Every index the queries follow is checked. */
struct model *cache_read_model(struct cr *r);

#endif
