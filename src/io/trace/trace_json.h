/* Streaming reader for Chrome-trace JSON timelines: torch_npu trace_view.json (a bare array,
 * possibly without its closing ']' when an export was interrupted), msprof msprof_*.json,
 * device_<id>/timeline/ JSON files, and the {"traceEvents": [...]} object form.
 *
 * The file is mapped and scanned in place (small files are read in chunks); a hand-written
 * scanner finds each top-level event object and extracts only the fields the model needs
 * (ph, name, cat, pid, tid, ts, dur, id, bp, processName, and args of M and C events). The
 * args of slices are not parsed: each slice keeps its event's byte offset and length, and
 * trace_args_load() reads them on demand.
 *
 * Files of 32 MiB and more are read by two threads, each from one half, and a thread done
 * first takes over half of what the other has left (see trace_json_set_split); the model and
 * messages are those of one reader.
 *
 * Everything complete before a problem is kept; the problem is reported to the diag list
 * with the file and byte offset. The readers call model_add_*() and model_count_event() but
 * never model_finalize(): the caller finalizes once all files of the model are read.
 */
#ifndef APTOP_TRACE_JSON_H
#define APTOP_TRACE_JSON_H
#include <stddef.h>
#include <stdint.h>

#include "model/index/diag.h"
#include "model/index/model.h"
#include "model/index/progress.h"

/* Reads one trace file into m. Returns 0 when something was loaded (or the file is a valid
 * empty trace), -1 when nothing could be (unreadable, or broken before the first event).
 * p may be NULL; it is updated every chunk and its cancel flag polled every chunk. */
int trace_json_load(struct model *m, const char *path, struct diag *d, struct load_progress *p);

/* Same from memory (fuzzing, tests); name is used in messages and as the file's path. */
int trace_json_load_buffer(struct model *m, const char *name, const char *buf, size_t len, struct diag *d);

/* Read size in bytes (default 4 MiB, at least 64): tests shrink it to split events across
 * chunk boundaries. Not thread-safe; set it before loading. */
void trace_json_set_chunk_size(size_t bytes);

/* Large files are read by two threads: a second reader starts at an event boundary found
 * from byte `from` on (UINT64_MAX: from the middle) into a model of its own, which is
 * appended once the first reader has ended an event exactly at that boundary; when it does
 * not (the guess was inside a string or args), the first reader reads on alone. The result is
 * the same model and messages as one reader gives. threshold: the smallest input split (default
 * 32 MiB; 0 splits every input, UINT64_MAX none). Not thread-safe; tests set it before loading. */
void trace_json_set_split(uint64_t threshold, uint64_t from);
/* Files of min_size bytes and more (default 1 MiB; UINT64_MAX: none) are read in place
 * through a read-only mapping instead of being copied chunk by chunk; the model and messages
 * are the same either way. Not thread-safe; tests and benchmarks set it before loading. */
void trace_json_set_mapping(uint64_t min_size);
/* A reader done first takes over the second half of what the other reader has left, cut at
 * another guessed boundary (checked like the first), when at least min_bytes are left (default
 * 8 MiB; UINT64_MAX: never). Not thread-safe; tests set it before loading. */
void trace_json_set_sharing(uint64_t min_bytes);
/* How the last load on this thread went: 0 not split, 1 split (*at: where the first part
 * ended), 2 split abandoned at a wrong guess (read on by one reader from there). */
int trace_json_last_split(uint64_t *at);
/* The parts the last load on this thread merged (1 when not split). */
int trace_json_last_parts(void);

/* Parses a decimal number of microseconds ("1736405443863674.400", "145.57", "-3", "1.5e3")
 * exactly into integer nanoseconds, rounding half away from zero beyond the ns digit.
 * Returns 0, or -1 when the text is not a number or does not fit. */
int trace_json_parse_us(const char *s, size_t len, int64_t *ns);

#endif
