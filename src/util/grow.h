/* The one growth rule of every growable array: room for at least `need` elements, the
 * capacity growing by half plus 16 elements at a time (amortised O(1) appends, at most half
 * of the memory unused). Typed use: `T *np = grow_array(arr, &cap, n + 1, sizeof *arr);`.
 * Failure (memory ran out, or the size would overflow size_t) leaves the array and its
 * capacity as they were; grow_array_or_exit applies the out-of-memory policy (util/oom.h)
 * instead of returning. */
#ifndef APTOP_UTIL_GROW_H
#define APTOP_UTIL_GROW_H
#include <stddef.h>

/* The capacity grow_array would choose for need elements from cap, 0 on overflow. */
size_t grow_capacity(size_t cap, size_t need, size_t elem);
/* p (cap elements of elem bytes) with room for need: p itself when it has it, else moved;
 * NULL when memory ran out (p is still valid then, *cap unchanged). */
void *grow_array(void *p, size_t *cap, size_t need, size_t elem);
/* The same; when memory runs out, the program ends naming what (oom_exit). */
void *grow_array_or_exit(void *p, size_t *cap, size_t need, size_t elem, const char *what);
/* p resized to exactly n elements of elem bytes (room for one when n is 0): for arrays whose
 * owner keeps its own capacity rule, and for giving back an unused end. NULL when memory ran
 * out or n * elem overflows size_t (p is still valid then). The one place besides grow_array
 * where memory is resized: every growth in the program goes through this file. */
void *grow_exact(void *p, size_t n, size_t elem);
/* The same; when memory runs out, the program ends naming what (oom_exit). */
void *grow_exact_or_exit(void *p, size_t n, size_t elem, const char *what);
/* Appends one item to *arr (*n items of elem bytes, room for *cap): grows it by the rule
 * above, counts the item and returns it zeroed; NULL when memory ran out (nothing changed). */
void *grow_push(void **arr, size_t *n, size_t *cap, size_t elem);

#endif
