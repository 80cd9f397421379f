/* A reader run through the index cache (index_cache.h): look the input files up first; on
 * a miss read them as usual, collect the diagnostics that read gave about them, and write
 * what it made for the next time. */
#ifndef APTOP_CACHED_READ_H
#define APTOP_CACHED_READ_H
#include <stdbool.h>
#include <stddef.h>

#include "io/cache/index_cache.h"

struct cached_read {
    const struct cache_opts *cache;   /* NULL: nothing is cached */
    uint64_t key;
    char *identity;
    size_t first_msg;                 /* diagnostics of the cold read start here */
    int failed_before;
    struct diag_msg *msgs;            /* collected after the cold read */
    size_t nmsgs;
    int failed;
};

/* what names the reader and how it was asked ("trace", "table 3", "db"): the same files
 * read another way are another cache file. Returns true on a hit (out filled, the cold
 * read's diagnostics replayed, *failed raised by its failures); else c is ready for the
 * cold read (c->cache NULL when these files are not cached: too small, unreadable, or the
 * cache is off). */
bool cached_read_begin(struct cached_read *c, const struct cache_opts *cache, const char *what,
                       const char *const *paths, size_t n, struct diag *d, int *failed,
                       struct cache_parts *out);
/* After the cold read: keeps its diagnostics about paths and its failures (failed now). */
void cached_read_collect(struct cached_read *c, const char *const *paths, size_t n, struct diag *d, int failed);
/* Writes parts (when collected and not cancelled), then frees c's state. */
void cached_read_store(struct cached_read *c, const struct cache_parts *parts, struct load_progress *p,
                       struct diag *d);

#endif
