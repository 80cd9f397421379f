/* The read-only promise covers the index cache: a cache folder inside the capture (an
 * XDG_CACHE_HOME pointing there) turns the cache off for that load, with a warning, since
 * even a hit writes (a use refreshes the file's time, a damaged file is removed). Every mode
 * that loads a capture (explorer, report, query, export, the MCP server) checks through here. */
#ifndef APTOP_CACHE_OUTSIDE_H
#define APTOP_CACHE_OUTSIDE_H
#include <stddef.h>

#include "io/cache/index_cache.h"
#include "io/discovery/capture.h"
#include "model/index/diag.h"

/* *o (a copy of the caller's options: theirs stay as typed) disabled, and a warning added to
 * d, when o->dir lies inside one of the n paths as typed or a rank folder (or its group) of
 * c. Nothing changes when the cache is off already or lies outside. */
void cache_keep_outside(struct cache_opts *o, const char *const *paths, size_t n, const struct capture *c,
                        struct diag *d);

#endif
