/* The input shapes of host operator calls, as the trace records them (the torch profiler's
 * record_shapes: each call's args "Input Dims", or "Input Shapes" where that is the key).
 * The model keeps no args, so the io layer reads them again from the trace
 * (io/trace/trace_shapes.h) and fills this per slice; host_ops.h then groups calls per name
 * and shapes.
 *
 * A call's shapes text: a JSON array written compactly ("[[1,3],[]]", Kineto), a text value
 * without its line breaks ("1,3;;", torch_npu writes "1,3;\r\n;\r\n"). A call whose args
 * hold neither key has no shapes (null in the report). */
#ifndef APTOP_HOST_SHAPES_H
#define APTOP_HOST_SHAPES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/index/strtab.h"

struct host_shapes {
    uint32_t *of;          /* per slice of the model: its text's id in str plus 1; 0: none */
    uint32_t n;            /* slices (the model's nslices) */
    struct strtab *str;    /* the texts */
    uint64_t recorded;     /* slices with shapes */
    uint64_t read_errors;  /* host operator events whose args could not be read */
};

/* Shapes of n slices, none recorded yet; NULL when memory ran out. */
struct host_shapes *host_shapes_new(uint32_t n);
void host_shapes_free(struct host_shapes *h);
/* Records text[0..len) as slice s's shapes; false when memory ran out. */
bool host_shapes_set(struct host_shapes *h, uint32_t s, const char *text, size_t len);
/* Slice s's shapes text, NULL when not recorded (h NULL: none). */
const char *host_shapes_text(const struct host_shapes *h, uint32_t s);

#endif
