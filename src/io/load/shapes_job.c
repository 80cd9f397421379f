/* Input shapes read on a thread (see shapes_job.h). */
#include "io/load/shapes_job.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "io/trace/trace_shapes.h"

struct shapes_job {
    pthread_t th;
    _Atomic bool stop, done;
    const struct model *m;
    int wake_fd;
    struct host_shapes *shapes;
    char err[400];
};

static atomic_uint pending;   /* jobs started and not done, in the process */

static void *shapes_run(void *arg)
{
    struct shapes_job *j = arg;
    j->shapes = trace_shapes_read(j->m, &j->stop, j->err, sizeof j->err);
    atomic_store(&j->done, true);
    atomic_fetch_sub(&pending, 1);
    if (j->wake_fd >= 0) {
        char b = 1;
        ssize_t w = write(j->wake_fd, &b, 1);
        (void)w;   /* a full pipe already wakes the shell */
    }
    return NULL;
}

struct shapes_job *shapes_job_start(const struct model *m, int wake_fd)
{
    struct shapes_job *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->m = m;
    j->wake_fd = wake_fd;
    /* signals stay with the UI thread */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    atomic_fetch_add(&pending, 1);
    int rc = pthread_create(&j->th, NULL, shapes_run, j);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        atomic_fetch_sub(&pending, 1);
        free(j);
        return NULL;
    }
    return j;
}

bool shapes_job_done(const struct shapes_job *j)
{
    return j && atomic_load(&j->done);
}

struct host_shapes *shapes_job_take(struct shapes_job *j, char *err, size_t errsz)
{
    if (err && errsz)
        snprintf(err, errsz, "%s", j ? j->err : "");
    if (!j || !shapes_job_done(j))
        return NULL;
    struct host_shapes *h = j->shapes;
    j->shapes = NULL;
    return h;
}

void shapes_job_stop(struct shapes_job *j)
{
    if (!j)
        return;
    atomic_store(&j->stop, true);
    pthread_join(j->th, NULL);
    host_shapes_free(j->shapes);
    free(j);
}

unsigned shapes_job_pending(void)
{
    return atomic_load(&pending);
}
