/* The one lower-bound search: over any sorted range, without a callback. */
#ifndef APTOP_UTIL_SEARCH_H
#define APTOP_UTIL_SEARCH_H
#include <stddef.h>
#include <stdint.h>

/* Sets out to the first index i in [lo, hi) for which BELOW is false, hi when there is none.
 * BELOW is an expression of the index variable named i ("element i sorts before the key");
 * it must be true on a prefix of the range and false after it. i is of out's type. Example:
 * LOWER_BOUND(k, 0, n, i, v[i] < t) sets k to the first index with v[k] >= t. */
#define LOWER_BOUND(out, lo, hi, i, BELOW) do { \
        __typeof__(out) lo_ = (lo), hi_ = (hi); \
        while (lo_ < hi_) { \
            __typeof__(out) i = lo_ + (hi_ - lo_) / 2; \
            if (BELOW) \
                lo_ = i + 1; \
            else \
                hi_ = i; \
        } \
        (out) = lo_; \
    } while (0)

/* The first index in [lo, hi) whose value is >= key in v, sorted ascending (hi when none). */
static inline size_t lower_bound_i64(const int64_t *v, size_t lo, size_t hi, int64_t key)
{
    size_t k;
    LOWER_BOUND(k, lo, hi, i, v[i] < key);
    return k;
}

#endif
