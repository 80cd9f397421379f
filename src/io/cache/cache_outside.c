/* The index cache kept outside the capture (see cache_outside.h). */
#include "io/cache/cache_outside.h"

#include "util/path_inside.h"

void cache_keep_outside(struct cache_opts *o, const char *const *paths, size_t n, const struct capture *c,
                        struct diag *d)
{
    const char *inside = NULL;
    for (size_t i = 0; o->enabled && !inside && i < n; i++)
        if (path_inside(o->dir, paths[i]))
            inside = paths[i];
    for (size_t i = 0; o->enabled && !inside && i < c->nranks; i++)
        if (path_inside(o->dir, c->ranks[i].dir) || (c->ranks[i].group && path_inside(o->dir, c->ranks[i].group)))
            inside = c->ranks[i].group ? c->ranks[i].group : c->ranks[i].dir;
    if (!inside)
        return;
    o->enabled = false;
    diag_add(d, DIAG_WARN, o->dir, "the index cache folder lies inside the capture %s: running without the cache "
             "(aptop never writes into a capture; set XDG_CACHE_HOME elsewhere)", inside);
}
