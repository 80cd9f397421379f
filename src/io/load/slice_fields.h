/* One slice's fields read again from its file, off the UI thread: a trace event's "args"
 * (trace_args.h: a pread, or for a gzipped trace a decompression up to the event) or a DB
 * slice's row and its task-info rows (db_fields.h). Reading may take seconds on a large
 * gzip, so the detail pane (and the window export) starts a job and draws "reading…"
 * until it is done:
 *
 *   slice_fields_start(m, s, wake_fd) ──► thread: read, parse ──► done, a byte to wake_fd
 *   slice_fields_done(j) / slice_fields_get(j) on the caller's side, then release.
 *
 * The job copies what it needs from the model (path, offset, length, start), so the model
 * may be freed while it reads. A job released before it is done is freed by its thread. */
#ifndef APTOP_SLICE_FIELDS_H
#define APTOP_SLICE_FIELDS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/index/model.h"

/* One "key: value" of a section ("Args", "TASK", "COMPUTE_TASK_INFO", ...). */
struct slice_field {
    char *section, *key, *value;
    bool is_json;        /* value is JSON text (a number, object, array), not a string */
};

struct slice_fields_job;

/* Starts reading slice s of m (a final index). wake_fd (-1: none) gets one byte when the job
 * is done. Never NULL but when out of memory; a slice with nothing to read gives a job
 * already done, with the reason in its error. */
struct slice_fields_job *slice_fields_start(const struct model *m, uint32_t s, int wake_fd);
bool slice_fields_done(const struct slice_fields_job *j);
/* Once done: the fields (n returned, *v set) and the error (never NULL; "" when none). */
size_t slice_fields_get(const struct slice_fields_job *j, const struct slice_field **v, const char **err);
/* What the fields are, to label them and their error: "Args" (a trace event) or "Fields"
 * (a DB row). */
const char *slice_fields_what(const struct slice_fields_job *j);
/* The same fields read on the caller's thread (tests, exports that run off the UI). */
struct slice_fields_job *slice_fields_read_now(const struct model *m, uint32_t s);
/* Reading the fields of file `file` of m decompresses it from its start (a gzipped trace):
 * seconds per slice on a large file. */
bool slice_fields_slow(const struct model *m, uint32_t file);
/* Gives the job up: freed now when done, else by its thread when it ends. NULL: nothing. */
void slice_fields_release(struct slice_fields_job *j);
/* Jobs started and not yet done, in the whole process (a script waits for them). */
unsigned slice_fields_pending(void);

#endif
