/* Resident memory handed on instead of freed: the columns and flow points of a part merged
 * away (model_append) become finalize's scratch arrays. A fresh page costs a fault and the
 * kernel's zeroing (about 2.5 µs per 4 KiB page here, a tenth of a large load's CPU time);
 * these pages were already paid for. */
#include "model/index/model.h"
#include "model/index/model_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

static void lock(struct build *b)
{
    while (atomic_flag_test_and_set_explicit(&b->recycle_lock, memory_order_acquire))
        ;
}

static void unlock(struct build *b)
{
    atomic_flag_clear_explicit(&b->recycle_lock, memory_order_release);
}

void model_recycle(struct build *b, void *p, size_t resident, size_t cap)
{
    if (!p)
        return;
    lock(b);
    bool kept = b->nrecycled < RECYCLE_MAX && resident >= RECYCLE_MIN;
    if (kept)
        b->recycled[b->nrecycled++] = (struct recycled){ p, resident, cap };
    unlock(b);
    if (!kept)
        free(p);
}

void *model_scratch(struct build *b, size_t bytes)
{
    lock(b);
    int best = -1;
    size_t best_gain = 0;
    for (int k = 0; k < b->nrecycled; k++) {
        const struct recycled *r = &b->recycled[k];
        size_t gain = r->resident < bytes ? r->resident : bytes;
        if (r->cap >= bytes && gain > best_gain) {
            best = k;
            best_gain = gain;
        }
    }
    struct recycled got = { 0 };
    if (best >= 0) {
        got = b->recycled[best];
        b->recycled[best] = b->recycled[--b->nrecycled];
    }
    unlock(b);
    if (!got.p)
        return model_realloc_big(NULL, bytes);
    /* resident pages past what is asked for would only add to the peak: let go */
    uintptr_t from = ((uintptr_t)got.p + bytes + 4095) & ~(uintptr_t)4095;
    uintptr_t to = ((uintptr_t)got.p + got.resident) & ~(uintptr_t)4095;
    if (to > from)
        madvise((void *)from, to - from, MADV_DONTNEED);
    return got.p;
}

void model_recycle_clear(struct build *b)
{
    lock(b);
    for (int k = 0; k < b->nrecycled; k++)
        free(b->recycled[k].p);
    b->nrecycled = 0;
    unlock(b);
}
