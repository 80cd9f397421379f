/* The input shapes of a model's host operator calls (model/host/host_shapes.h), read again
 * from the trace: every host operator slice's event (host_ops.h says which slices those are)
 * is read at the offset the reader kept, in file order, and parsed for its args' "Input Dims"
 * (else "Input Shapes"). A plain file is read with pread; a gzipped one is decompressed once
 * from its start, the events taken as the stream passes them.
 *
 * It reads only the model (immutable once final) and the files, on any thread; stop (may be
 * NULL) ends it early. The cost is one pass over the trace's host operator events (a whole
 * decompression for a gzipped trace): the report waits for it, the views run it on a thread
 * (io/load/shapes_job.h). Slices read from a SQLite export get no shapes. */
#ifndef APTOP_TRACE_SHAPES_H
#define APTOP_TRACE_SHAPES_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "model/host/host_shapes.h"
#include "model/index/model.h"

/* The shapes of m's host operator calls; NULL when memory ran out or stop was set. A file
 * that cannot be read (gone, changed, corrupt) leaves its calls without shapes: err (may be
 * NULL) then names the first such file and what is wrong, "" when none. */
struct host_shapes *trace_shapes_read(const struct model *m, const _Atomic bool *stop, char *err, size_t errsz);

#endif
