/* One slice's fields read off the UI thread (see slice_fields.h). */
#include "io/load/slice_fields.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/db/db_fields.h"
#include "io/files/gz_stream.h"
#include "io/db/db_reader.h"
#include "io/trace/trace_args.h"
#include "util/grow.h"

enum source { SRC_NONE, SRC_TRACE, SRC_DB };

struct slice_fields_job {
    /* what to read, copied from the model */
    enum source src;
    char *path;
    uint64_t off;
    uint32_t len;        /* trace: the event's bytes; DB: the table's code */
    int64_t start;
    int wake_fd;
    /* the result, written by the reading thread before `done` is set */
    struct slice_field *v;
    size_t n, cap;
    char err[512];
    atomic_bool done;
    atomic_int refs;     /* the caller's and the thread's */
};

static atomic_uint pending;

static void add_field(struct slice_fields_job *j, const char *section, const char *key, const char *value,
                      bool is_json)
{
    struct slice_field *nv = grow_array(j->v, &j->cap, j->n + 1, sizeof *j->v);
    if (!nv)
        return;
    j->v = nv;
    struct slice_field f = { strdup(section), strdup(key ? key : ""), strdup(value ? value : ""), is_json };
    if (!f.section || !f.key || !f.value) {
        free(f.section), free(f.key), free(f.value);
        return;
    }
    j->v[j->n++] = f;
}

static void read_trace(struct slice_fields_job *j)
{
    cJSON *args = trace_args_read(j->path, j->off, j->len, j->err, sizeof j->err);
    const cJSON *it;
    cJSON_ArrayForEach(it, args) {
        if (cJSON_IsString(it) && it->valuestring) {
            add_field(j, "Args", it->string, it->valuestring, false);
        } else {
            char *txt = cJSON_PrintUnformatted(it);
            add_field(j, "Args", it->string, txt ? txt : "null", txt != NULL);
            free(txt);
        }
    }
    cJSON_Delete(args);
}

static void read_db(struct slice_fields_job *j)
{
    struct db_fields f = { 0 };
    db_row_fields(j->path, j->len, j->off, j->start, &f, j->err, sizeof j->err);
    for (size_t i = 0; i < f.n; i++)
        add_field(j, f.v[i].section, f.v[i].key, f.v[i].value, false);
    db_fields_free(&f);
}

static void job_free(struct slice_fields_job *j)
{
    for (size_t i = 0; i < j->n; i++)
        free(j->v[i].section), free(j->v[i].key), free(j->v[i].value);
    free(j->v);
    free(j->path);
    free(j);
}

static void job_unref(struct slice_fields_job *j)
{
    if (atomic_fetch_sub(&j->refs, 1) == 1)
        job_free(j);
}

static void job_read(struct slice_fields_job *j)
{
    if (j->src == SRC_TRACE)
        read_trace(j);
    else if (j->src == SRC_DB)
        read_db(j);
}

static void job_finish(struct slice_fields_job *j)
{
    atomic_store(&j->done, true);
    atomic_fetch_sub(&pending, 1);
    if (j->wake_fd >= 0) {
        ssize_t w = write(j->wake_fd, "f", 1);   /* a full pipe already wakes the reader */
        (void)w;
    }
}

static void *job_thread(void *arg)
{
    struct slice_fields_job *j = arg;
    job_read(j);
    job_finish(j);
    job_unref(j);
    return NULL;
}

/* The job for slice s, what to read copied; done at once when there is nothing to read. */
static struct slice_fields_job *job_new(const struct model *m, uint32_t s, int wake_fd)
{
    struct slice_fields_job *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->wake_fd = wake_fd;
    atomic_init(&j->refs, 1);
    atomic_init(&j->done, false);
    if (s >= m->nslices || m->file[s] >= m->nfiles) {
        snprintf(j->err, sizeof j->err, "no args (slice %u)", s);
    } else if (db_is_sqlite(m->files[m->file[s]].path)) {   /* offsets are rowids there */
        if (db_slice_has_fields(m, s))
            j->src = SRC_DB;
    } else if (m->len && m->len[s]) {
        j->src = SRC_TRACE;
    } else {
        snprintf(j->err, sizeof j->err, "no args (slice %u)", s);
    }
    if (j->src != SRC_NONE) {
        j->path = strdup(m->files[m->file[s]].path);
        j->off = m->off[s];
        j->len = m->len[s];
        j->start = m->start[s];
        if (!j->path) {
            snprintf(j->err, sizeof j->err, "out of memory");
            j->src = SRC_NONE;
        }
    }
    if (j->src == SRC_NONE)
        atomic_store(&j->done, true);
    return j;
}

struct slice_fields_job *slice_fields_start(const struct model *m, uint32_t s, int wake_fd)
{
    struct slice_fields_job *j = job_new(m, s, wake_fd);
    if (!j || atomic_load(&j->done))
        return j;
    atomic_fetch_add(&pending, 1);
    atomic_store(&j->refs, 2);
    pthread_t th;
    pthread_attr_t at;
    bool started = pthread_attr_init(&at) == 0;
    if (started) {
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        started = pthread_create(&th, &at, job_thread, j) == 0;
        pthread_attr_destroy(&at);
    }
    if (!started) {   /* no thread: read here rather than show nothing */
        atomic_store(&j->refs, 1);
        job_read(j);
        job_finish(j);
    }
    return j;
}

struct slice_fields_job *slice_fields_read_now(const struct model *m, uint32_t s)
{
    struct slice_fields_job *j = job_new(m, s, -1);
    if (j && !atomic_load(&j->done)) {
        job_read(j);
        atomic_store(&j->done, true);
    }
    return j;
}

bool slice_fields_done(const struct slice_fields_job *j)
{
    return !j || atomic_load(&((struct slice_fields_job *)j)->done);
}

size_t slice_fields_get(const struct slice_fields_job *j, const struct slice_field **v, const char **err)
{
    *v = NULL;
    *err = j ? "" : "out of memory";
    if (!slice_fields_done(j) || !j)
        return 0;
    *v = j->v;
    *err = j->err;
    return j->n;
}

void slice_fields_release(struct slice_fields_job *j)
{
    if (j)
        job_unref(j);
}

bool slice_fields_slow(const struct model *m, uint32_t file)
{
    if (file >= m->nfiles)
        return false;
    unsigned char magic[2];
    int fd = open(m->files[file].path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    bool gz = fd >= 0 && pread(fd, magic, 2, 0) == 2 && gz_magic(magic, 2);
    if (fd >= 0)
        close(fd);
    return gz;
}

const char *slice_fields_what(const struct slice_fields_job *j)
{
    return j && j->src == SRC_DB ? "Fields" : "Args";
}

unsigned slice_fields_pending(void)
{
    return atomic_load(&pending);
}
