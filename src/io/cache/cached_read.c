/* A reader run through the index cache: see cached_read.h. */
#include "io/cache/cached_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool cached_read_begin(struct cached_read *c, const struct cache_opts *cache, const char *what,
                       const char *const *paths, size_t n, struct diag *d, int *failed,
                       struct cache_parts *out)
{
    memset(c, 0, sizeof *c);
    memset(out, 0, sizeof *out);
    uint64_t bytes = 0;
    char *id = NULL;
    if (!cache || !cache->enabled || !n || cache_identity(paths, n, &c->key, &id, &bytes) < 0
        || bytes < cache->min_input) {
        free(id);
        return false;
    }
    /* the reader's name is part of the identity */
    size_t len = strlen(what) + strlen(id) + 2;
    c->identity = malloc(len);
    if (!c->identity) {
        free(id);
        return false;
    }
    snprintf(c->identity, len, "%s\n%s", what, id);
    free(id);
    c->key = cache_key_of(c->identity, strlen(c->identity));
    int cached_failures = 0;
    if (index_cache_load_parts(cache, c->key, c->identity, out, d, &cached_failures)) {
        *failed += cached_failures;
        free(c->identity);
        c->identity = NULL;
        return true;
    }
    c->cache = cache;
    c->first_msg = diag_count(d);
    c->failed_before = *failed;
    return false;
}

void cached_read_collect(struct cached_read *c, const char *const *paths, size_t n, struct diag *d, int failed)
{
    if (!c->cache)
        return;
    size_t last = diag_count(d);
    c->msgs = calloc(last - c->first_msg + 1, sizeof *c->msgs);
    if (!c->msgs) {
        c->cache = NULL;
        return;
    }
    for (size_t i = c->first_msg; i < last; i++) {
        struct diag_msg msg;
        if (diag_get(d, i, &msg) != 0)
            continue;
        bool ours = false;   /* another rank's reader may write to d at the same time */
        for (size_t k = 0; k < n && !ours; k++)
            ours = strcmp(msg.path, paths[k]) == 0;
        if (ours) {
            c->msgs[c->nmsgs++] = msg;
        } else {
            free(msg.path);
            free(msg.text);
        }
    }
    c->failed = failed - c->failed_before;
}

void cached_read_store(struct cached_read *c, const struct cache_parts *parts, struct load_progress *p,
                       struct diag *d)
{
    if (c->cache && c->msgs && parts && (parts->model || parts->ntables) && !progress_cancelled(p))
        index_cache_store_parts(c->cache, c->key, c->identity, parts, c->msgs, c->nmsgs, c->failed, p, d);
    for (size_t i = 0; i < c->nmsgs; i++) {
        free(c->msgs[i].path);
        free(c->msgs[i].text);
    }
    free(c->msgs);
    free(c->identity);
    memset(c, 0, sizeof *c);
}
