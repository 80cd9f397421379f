/* A window export (export_window.h) run on a thread of its own, so the explorer never waits
 * for it: every slice's args are read again from the files (slice_fields.h), seconds on a
 * large window.
 *
 *   export_job_start(m, ...) ──► thread: export_window_write_model into the file ──► done,
 *                                 a byte to wake_fd
 *   export_job_done(j) / export_job_result(j) on the caller's side, then export_job_free.
 *
 * The thread reads the model m until it is done: the caller keeps m installed meanwhile
 * (the explorer frees no timeline while export_job_pending(), io/load/loader.h). The file is
 * the job's: a failed or cancelled export removes it, and so does a signal that ends aptop
 * while it is written (util/temp_files.h). */
#ifndef APTOP_IO_EXPORT_JOB_H
#define APTOP_IO_EXPORT_JOB_H
#include <stdbool.h>
#include <stdio.h>

#include "io/export/export_window.h"

struct export_job;

/* Starts writing window w (its text copied; w->cancel ignored: the job has its own) of model
 * m, rank number `rank`, times relative to origin, into out (opened by the caller, closed by
 * the job) at path (removed when the export fails). wake_fd (-1: none) gets one byte when
 * done. NULL when memory ran out (out is then closed and path removed). */
struct export_job *export_job_start(const struct model *m, int rank, ns_t origin, const struct export_window *w,
                                    FILE *out, const char *path, int wake_fd);
bool export_job_done(const struct export_job *j);
/* Once done: the events written, or -1 with *err saying why; *path the file. */
long export_job_result(const struct export_job *j, const char **path, const char **err);
/* Cancels the job if it still runs, waits for its thread, frees it. NULL: nothing. */
void export_job_free(struct export_job *j);
/* Export jobs started and not yet done, in the whole process. */
unsigned export_job_pending(void);

#endif
