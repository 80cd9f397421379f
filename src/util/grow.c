#include "util/grow.h"
#include "util/oom.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t grow_capacity(size_t cap, size_t need, size_t elem)
{
    if (!elem || need > SIZE_MAX / elem)
        return 0;
    size_t c = cap ? cap : 16;
    while (c < need) {
        size_t step = c / 2 + 16;
        c = c > SIZE_MAX / elem - step ? need : c + step;
    }
    return c;
}

void *grow_exact(void *p, size_t n, size_t elem)
{
    if (!n)
        n = 1;
    if (!elem || n > SIZE_MAX / elem)
        return NULL;
    return realloc(p, n * elem);
}

void *grow_exact_or_exit(void *p, size_t n, size_t elem, const char *what)
{
    void *np = grow_exact(p, n, elem);
    if (!np)
        oom_exit(what, n && elem && n <= SIZE_MAX / elem ? n * elem : SIZE_MAX);
    return np;
}

void *grow_array(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap && p)
        return p;
    size_t c = grow_capacity(*cap, need, elem);
    if (!c)
        return NULL;
    void *np = grow_exact(p, c, elem);
    if (!np)
        return NULL;
    *cap = c;
    return np;
}

void *grow_push(void **arr, size_t *n, size_t *cap, size_t elem)
{
    void *p = grow_array(*arr, cap, *n + 1, elem);
    if (!p)
        return NULL;
    *arr = p;
    void *it = (char *)p + (*n)++ * elem;
    memset(it, 0, elem);
    return it;
}

void *grow_array_or_exit(void *p, size_t *cap, size_t need, size_t elem, const char *what)
{
    void *np = grow_array(p, cap, need, elem);
    if (!np)
        oom_exit(what, grow_capacity(*cap, need, elem) * elem);
    return np;
}
