/* The input shapes of a model's host operator calls (io/trace/trace_shapes.h) read on a
 * thread of their own, for a view that must not wait: one pass over the trace's host
 * operator events may take seconds on a large or gzipped trace.
 *
 *   shapes_job_start(m, wake_fd) ──► thread: trace_shapes_read ──► done, a byte to wake_fd
 *   shapes_job_done(j), then shapes_job_take(j) on the caller's side; shapes_job_stop(j).
 *
 * The thread reads the model: the caller keeps it alive until shapes_job_stop returned
 * (which stops the reading early and waits for the thread). */
#ifndef APTOP_SHAPES_JOB_H
#define APTOP_SHAPES_JOB_H
#include <stdbool.h>
#include <stddef.h>

#include "model/host/host_shapes.h"
#include "model/index/model.h"

struct shapes_job;

/* Starts reading m's shapes; wake_fd (-1: none) gets one byte when done. NULL when out of
 * memory or no thread could be started (the caller then goes without shapes). */
struct shapes_job *shapes_job_start(const struct model *m, int wake_fd);
bool shapes_job_done(const struct shapes_job *j);
/* Once done: the shapes (the caller frees them with host_shapes_free; NULL when memory ran
 * out) and why some calls lack them (err, "" when none). Taken once. */
struct host_shapes *shapes_job_take(struct shapes_job *j, char *err, size_t errsz);
/* Stops the job, waits for its thread and frees it with what it did not hand over. NULL is
 * fine. */
void shapes_job_stop(struct shapes_job *j);
/* Jobs started and not yet done, in the whole process (a script waits for them). */
unsigned shapes_job_pending(void);

#endif
