/* Slices under their names, each with one time of its own (its start, its launch latency):
 * sorted by named_slice_cmp, the slices of one name lie together, in order of that time
 * (ties by slice), ready for a run over each name or a binary search by name and time. */
#ifndef APTOP_MODEL_NAMED_SLICE_H
#define APTOP_MODEL_NAMED_SLICE_H
#include <stdint.h>

#include "model/index/model.h"

struct named_slice { uint32_t name, slice; ns_t t; };

/* qsort order of struct named_slice: name, then t, then slice. */
int named_slice_cmp(const void *a, const void *b);

#endif
