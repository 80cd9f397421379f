/* The one order of named slices (see named_slice.h). */
#include "model/index/named_slice.h"

int named_slice_cmp(const void *a, const void *b)
{
    const struct named_slice *x = a, *y = b;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->slice < y->slice ? -1 : x->slice > y->slice;
}
