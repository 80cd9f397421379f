/* Resident memory handed on instead of freed: the columns and flow points of a part merged
 * away (model_append) become finalize's scratch arrays. A fresh page costs a fault and the
 * kernel's zeroing (about 2.5 µs per 4 KiB page here, a tenth of a large load's CPU time);
 * these pages were already paid for. */
#include "model/model.h"
#include "model/model_internal.h"

#include <stdlib.h>

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
    void *p = NULL;
    if (best >= 0) {
        p = b->recycled[best].p;
        b->recycled[best] = b->recycled[--b->nrecycled];
    }
    unlock(b);
    return p ? p : malloc(bytes ? bytes : 1);
}

void model_recycle_clear(struct build *b)
{
    lock(b);
    for (int k = 0; k < b->nrecycled; k++)
        free(b->recycled[k].p);
    b->nrecycled = 0;
    unlock(b);
}
