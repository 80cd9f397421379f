/* Frees every pointer of a list: a struct's owned arrays, and the struct last, in one call
 * (`void *owned[] = { s->a, s->b, s }; free_all(owned, sizeof owned / sizeof *owned);`)
 * instead of a free() a line. NULL entries are fine, as with free(). */
#ifndef APTOP_FREE_ALL_H
#define APTOP_FREE_ALL_H
#include <stddef.h>
#include <stdlib.h>

static inline void free_all(void *const ptrs[], size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(ptrs[i]);
}

#endif
