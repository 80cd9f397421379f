/* DB helpers: the key → ordinal index used to join COMPUTE_TASK_INFO to TASK, in its dense
 * form (keys increasing with small gaps) and its sparse form (out of order, repeated or far
 * apart keys), checked against a plain linear search. */
#include "../runner.h"

#include <stdlib.h>

#include "io/db/db_util.h"

/* Ordinal of key by linear search (first match), UINT32_MAX when absent. */
static uint32_t linear(const int64_t *keys, size_t n, int64_t key)
{
    for (size_t i = 0; i < n; i++)
        if (keys[i] == key)
            return (uint32_t)i;
    return UINT32_MAX;
}

/* Builds an index over keys and compares every lookup in [lo, hi) with linear(). */
static bool check_index(const int64_t *keys, size_t n, int64_t lo, int64_t hi, bool want_sparse)
{
    struct dbu_keyidx x = { 0 };
    bool ok = true;
    for (size_t i = 0; i < n; i++)
        ok &= dbu_keyidx_add(&x, keys[i]);
    ok &= dbu_keyidx_done(&x);
    CHECK(ok);
    CHECK_INT(x.sparse, want_sparse);
    size_t bad = 0;
    for (int64_t k = lo; k < hi; k++)
        bad += dbu_keyidx_find(&x, k) != linear(keys, n, k);
    for (size_t i = n; i-- > 0;)   /* backwards too: the sparse hint must not mislead */
        bad += dbu_keyidx_find(&x, keys[i]) != linear(keys, n, keys[i]);
    CHECK_INT(bad, 0);
    dbu_keyidx_free(&x);
    return bad == 0;
}

TEST(db_util_keyidx_dense)
{
    int64_t keys[3000];
    int64_t k = -50;
    for (size_t i = 0; i < 3000; i++) {
        k += 1 + (int64_t)(i * 7919 % 13);   /* gaps of 1..13, crossing many 64-bit words */
        keys[i] = k;
    }
    check_index(keys, 3000, -60, k + 10, false);
    int64_t one[1] = { 42 };
    check_index(one, 1, 40, 45, false);
    struct dbu_keyidx empty = { 0 };
    CHECK(dbu_keyidx_done(&empty));
    CHECK_INT(dbu_keyidx_find(&empty, 0), UINT32_MAX);
    dbu_keyidx_free(&empty);
}

TEST(db_util_keyidx_sparse)
{
    /* out of order after a dense start: turns sparse, keeps the keys before */
    int64_t unsorted[] = { 10, 11, 12, 20, 5, 30, 11, 7, 100 };
    check_index(unsorted, sizeof unsorted / sizeof *unsorted, 0, 110, true);
    /* a repeated key finds its first ordinal */
    int64_t repeated[] = { 1, 2, 2, 3 };
    check_index(repeated, 4, 0, 5, true);
    /* keys too far apart for a bitmap */
    int64_t far[] = { 0, 1, (int64_t)1 << 40, ((int64_t)1 << 40) + 1, INT64_MAX };
    check_index(far, 5, -2, 4, true);
    check_index(far, 5, ((int64_t)1 << 40) - 2, ((int64_t)1 << 40) + 3, true);
    int64_t extremes[] = { INT64_MIN, -1, 0, INT64_MAX };
    check_index(extremes, 4, -3, 3, true);
    struct dbu_keyidx x = { 0 };
    for (int64_t i = 0; i < 4; i++)
        dbu_keyidx_add(&x, extremes[i]);
    dbu_keyidx_done(&x);
    CHECK_INT(dbu_keyidx_find(&x, INT64_MIN), 0);
    CHECK_INT(dbu_keyidx_find(&x, INT64_MAX), 3);
    dbu_keyidx_free(&x);
}
