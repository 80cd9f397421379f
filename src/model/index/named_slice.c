/* The one order of named slices (see named_slice.h). */
#include "model/index/named_slice.h"

#include "util/order.h"

int named_slice_cmp(const void *a, const void *b)
{
    const struct named_slice *x = a, *y = b;
    int c = ORDER(x->name, y->name);
    if (!c)
        c = ORDER(x->t, y->t);
    return c ? c : ORDER(x->slice, y->slice);
}
