/* Lazy args of a trace slice: the event's bytes are read again from its file (pread at the
 * offset kept by the reader) and parsed with cJSON only when someone asks for them. */
#ifndef APTOP_TRACE_ARGS_H
#define APTOP_TRACE_ARGS_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "model/index/model.h"

/* The "args" object of slice (a final index), detached: the caller cJSON_Delete()s it. Its
 * numbers are raw items (cJSON_Raw) holding the file's own digits, exact whatever they say.
 * NULL when the slice has no args or they cannot be read; err (may be NULL) then says why.
 * Thread-safe: reads through its own file descriptor. A gzipped trace is decompressed from
 * its start up to the event (gz_read_range): slower, the longer the file. */
cJSON *trace_args_load(const struct model *m, uint32_t slice, char *err, size_t errsz);
/* The same for the event of len bytes at off (decompressed bytes for a gzipped trace). */
cJSON *trace_args_read(const char *path, uint64_t off, uint32_t len, char *err, size_t errsz);

/* The bytes of many events at once, for a loader that needs a few args of many slices:
 * fn(ctx, i, text, len) gets event slices[i]'s JSON text (borrowed for the call), in file
 * order, each file read once (a gzipped one decompressed once from its start, never once
 * per event). Slices without bytes are skipped. 0, or -1 when a file could not be read to
 * its last event (err says which and where; the events before were handed over). */
typedef void (*trace_event_fn)(void *ctx, size_t i, const char *text, size_t len);
int trace_events_read(const struct model *m, const uint32_t *slices, size_t n, trace_event_fn fn, void *ctx,
                      char *err, size_t errsz);

#endif
