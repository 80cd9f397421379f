/* Frees every pointer of a list in one call: a struct's owned arrays, and the struct last
 * (`FREE_ALL(s->a, s->b, s)`), instead of a free() a line. NULL entries are fine, as with
 * free(). Destructors use it so that what a struct owns reads as one list. */
#ifndef APTOP_FREE_ALL_H
#define APTOP_FREE_ALL_H
#include <stddef.h>
#include <stdlib.h>

static inline void free_all(void *const ptrs[], size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(ptrs[i]);
}

#define FREE_ALL(...) \
    free_all((void *const[]){ __VA_ARGS__ }, sizeof((void *const[]){ __VA_ARGS__ }) / sizeof(void *))

#endif
