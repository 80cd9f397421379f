/* A window export on a thread of its own (see export_job.h). */
#include "io/export/export_job.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/signals.h"
#include "util/temp_files.h"

struct export_job {
    pthread_t th;
    bool joinable;
    const struct model *m;
    int rank;
    ns_t origin;
    struct export_window w;
    char *text, *path;
    FILE *out;
    int wake_fd;
    int temp_slot;          /* the file until it is whole: a signal that ends aptop removes it */
    atomic_bool cancel, done;
    long events;
    char err[512];
};

static atomic_uint pending;

static void job_run(struct export_job *j)
{
    j->events = export_window_write_model(j->m, j->rank, j->origin, &j->w, j->out, j->err, sizeof j->err);
    if (fclose(j->out) != 0 && j->events >= 0) {
        j->events = -1;
        snprintf(j->err, sizeof j->err, "the export could not be written");
    }
    j->out = NULL;
    if (j->events < 0)
        unlink(j->path);   /* no half file left behind */
    temp_files_forget(j->temp_slot);
}

static void job_finish(struct export_job *j)
{
    atomic_store(&j->done, true);
    atomic_fetch_sub(&pending, 1);
    if (j->wake_fd >= 0) {
        ssize_t w = write(j->wake_fd, "e", 1);   /* a full pipe already wakes the reader */
        (void)w;
    }
}

static void *job_thread(void *arg)
{
    struct export_job *j = arg;
    job_run(j);
    job_finish(j);
    return NULL;
}

struct export_job *export_job_start(const struct model *m, int rank, ns_t origin, const struct export_window *w,
                                    FILE *out, const char *path, int wake_fd)
{
    struct export_job *j = calloc(1, sizeof *j);
    char *text = strdup(w->text ? w->text : ""), *p = strdup(path);
    if (!j || !text || !p) {
        free(j), free(text), free(p);
        fclose(out);
        unlink(path);
        return NULL;
    }
    *j = (struct export_job){ .m = m, .rank = rank, .origin = origin, .w = *w, .text = text, .path = p, .out = out,
                              .wake_fd = wake_fd };
    j->w.text = text;
    j->w.cancel = &j->cancel;
    j->temp_slot = temp_files_add(p);
    atomic_init(&j->cancel, false);
    atomic_init(&j->done, false);
    atomic_fetch_add(&pending, 1);
    sigset_t old;   /* signals stay with the UI thread (util/signals.h) */
    signals_block_for_thread(&old);
    j->joinable = pthread_create(&j->th, NULL, job_thread, j) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!j->joinable) {   /* no thread: write here rather than not at all */
        job_run(j);
        job_finish(j);
    }
    return j;
}

bool export_job_done(const struct export_job *j)
{
    return !j || atomic_load(&((struct export_job *)j)->done);
}

long export_job_result(const struct export_job *j, const char **path, const char **err)
{
    *path = j->path;
    *err = j->err;
    return j->events;
}

void export_job_free(struct export_job *j)
{
    if (!j)
        return;
    atomic_store(&j->cancel, true);
    if (j->joinable)
        pthread_join(j->th, NULL);
    free(j->text);
    free(j->path);
    free(j);
}

unsigned export_job_pending(void)
{
    return atomic_load(&pending);
}
