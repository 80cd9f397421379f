/* Input shapes per host operator call (see host_shapes.h). */
#include "model/host/host_shapes.h"

#include <stdbool.h>
#include <stdlib.h>

struct host_shapes *host_shapes_new(uint32_t n)
{
    struct host_shapes *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->of = calloc(n ? n : 1, sizeof *h->of);
    h->str = strtab_new();
    h->n = n;
    if (!h->of || !h->str) {
        host_shapes_free(h);
        return NULL;
    }
    return h;
}

void host_shapes_free(struct host_shapes *h)
{
    if (!h)
        return;
    free(h->of);
    strtab_free(h->str);
    free(h);
}

bool host_shapes_set(struct host_shapes *h, uint32_t s, const char *text, size_t len)
{
    if (s >= h->n)
        return true;
    uint32_t id = strtab_intern(h->str, text, len);
    if (id == UINT32_MAX)
        return false;
    h->recorded += h->of[s] == 0;
    h->of[s] = id + 1;
    return true;
}

const char *host_shapes_text(const struct host_shapes *h, uint32_t s)
{
    return h && s < h->n && h->of[s] ? strtab_get(h->str, h->of[s] - 1) : NULL;
}
