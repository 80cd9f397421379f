/* The index cache's table section (see index_cache.h): a finished table written column by
 * column and read back as a private copy (tables may still be joined or appended to). */
#ifndef APTOP_CACHE_TABLE_H
#define APTOP_CACHE_TABLE_H
#include "io/cache/cache_io.h"
#include "model/index/table.h"

/* Writes a finished table (its join to a timeline is not kept: it is made again). */
void cache_write_table(struct cw *w, const struct table *t);
/* The table, or NULL (r->bad and r->why set) when its bytes are inconsistent. */
struct table *cache_read_table(struct cr *r);

#endif
