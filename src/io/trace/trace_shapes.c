/* Input shapes read again from the trace's host operator events (see trace_shapes.h). */
#include "io/trace/trace_shapes.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/db/db_reader.h"
#include "io/files/gz_stream.h"
#include "model/host/host_ops.h"
#include "util/free_all.h"
#include "util/grow.h"
#include "util/read_full.h"

static _Thread_local const struct model *order_model;

/* File, then offset: the order the events lie in. */
static int cmp_file_off(const void *a, const void *b)
{
    const struct model *m = order_model;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (m->file[x] != m->file[y])
        return m->file[x] < m->file[y] ? -1 : 1;
    return (m->off[x] > m->off[y]) - (m->off[x] < m->off[y]);
}

/* The shapes text of one event's bytes into h (nothing when its args hold no shapes);
 * false when memory ran out. An event that does not parse, or names another slice (the file
 * changed since the index was made), counts as a read error. */
static bool take_event(struct host_shapes *h, const struct model *m, uint32_t s, const char *buf, size_t len)
{
    cJSON *ev = cJSON_ParseWithLengthOpts(buf, len, NULL, 0);
    const cJSON *name = ev ? cJSON_GetObjectItemCaseSensitive(ev, "name") : NULL;
    if (!cJSON_IsString(name) || strcmp(name->valuestring, model_str(m, m->name[s]))) {
        h->read_errors++;
        cJSON_Delete(ev);
        return true;
    }
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(ev, "args");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, "Input Dims");
    if (!v)
        v = cJSON_GetObjectItemCaseSensitive(args, "Input Shapes");
    bool ok = true;
    if (cJSON_IsString(v)) {
        /* torch_npu separates the inputs with ";\r\n": the text without its line breaks */
        size_t n = strlen(v->valuestring), k = 0;
        char *t = malloc(n + 1);
        ok = t != NULL;
        for (size_t i = 0; ok && i < n; i++)
            if (v->valuestring[i] != '\r' && v->valuestring[i] != '\n')
                t[k++] = v->valuestring[i];
        ok = ok && host_shapes_set(h, s, t, k);
        free(t);
    } else if (v && !cJSON_IsNull(v)) {
        char *t = cJSON_PrintUnformatted(v);
        ok = t && host_shapes_set(h, s, t, strlen(t));
        free(t);
    }
    cJSON_Delete(ev);
    return ok;
}

static void note(char *err, size_t errsz, const char *path, const char *what)
{
    if (err && errsz && !err[0])
        snprintf(err, errsz, "%s: %s", path, what);
}

/* Reads the events ord[0..n) of one file (sorted by offset) into h; false when memory ran out. */
static bool read_file(struct host_shapes *h, const struct model *m, const uint32_t *ord, size_t n, const char *path,
                      const _Atomic bool *stop, char *err, size_t errsz)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        note(err, errsz, path, strerror(errno));
        h->read_errors += n;
        return true;
    }
    unsigned char magic[2];
    struct gz_stream *gz = pread(fd, magic, 2, 0) == 2 && gz_magic(magic, 2) ? gz_stream_open_fd(fd) : NULL;
    bool is_gz = gz != NULL, ok = true;
    char *buf = NULL, skip[65536];
    size_t cap = 0;
    uint64_t at = 0;   /* a gzipped file: the decompressed bytes passed */
    for (size_t i = 0; i < n && ok; i++) {
        if (stop && atomic_load(stop))
            break;
        uint32_t s = ord[i], len = m->len[s];
        uint64_t off = m->off[s];
        char *nb = grow_array(buf, &cap, (size_t)len + 1, 1);
        if (!nb) {
            ok = false;
            break;
        }
        buf = nb;
        size_t got = 0;
        if (is_gz) {
            while (at < off) {   /* skip to the event */
                size_t want = off - at < sizeof skip ? (size_t)(off - at) : sizeof skip;
                size_t k = gz_stream_read(gz, skip, want);
                if (!k)
                    break;
                at += k;
            }
            if (at > off) {   /* an event read already (two slices of one event): once is enough */
                h->read_errors++;
                continue;
            }
            while (at == off && got < len) {
                size_t k = gz_stream_read(gz, buf + got, len - got);
                if (!k)
                    break;
                got += k;
            }
            at += got;
        } else {
            got = pread_full(fd, buf, len, (long long)off);
        }
        if (got < len) {
            note(err, errsz, path, "the file ended before an event the index holds (changed since it was read?)");
            h->read_errors += n - i;
            break;
        }
        ok = take_event(h, m, s, buf, len);
    }
    if (is_gz) {
        struct gz_status st;
        gz_stream_status(gz, &st);
        if (st.end == GZ_CORRUPT || st.end == GZ_IOERR)
            note(err, errsz, path, st.msg);
    }
    gz_stream_close(gz);
    close(fd);
    free(buf);
    return ok;
}

struct host_shapes *trace_shapes_read(const struct model *m, const _Atomic bool *stop, char *err, size_t errsz)
{
    if (err && errsz)
        err[0] = 0;
    struct host_shapes *h = host_shapes_new(m->nslices);
    uint32_t *ord = NULL;
    size_t n = 0, cap = 0;
    if (!h)
        return NULL;
    bool all_host = host_ops_all_host(m);
    for (uint32_t s = 0; s < m->nslices; s++) {
        if (!m->len || !m->off || !m->len[s] || m->off[s] == UINT64_MAX || m->file[s] >= m->nfiles ||
            !host_op_slice(m, s, all_host))
            continue;
        uint32_t *no = grow_array(ord, &cap, n + 1, sizeof *no);
        if (!no)
            goto fail;
        ord = no;
        ord[n++] = s;
    }
    order_model = m;
    if (n > 1)
        qsort(ord, n, sizeof *ord, cmp_file_off);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && m->file[ord[j]] == m->file[ord[i]])
            j++;
        const char *path = m->files[m->file[ord[i]]].path;
        /* a SQLite export keeps row ids, not event bytes, in the offsets: no shapes from it */
        if (!db_is_sqlite(path) && !read_file(h, m, ord + i, j - i, path, stop, err, errsz))
            goto fail;
        i = j;
    }
    if (stop && atomic_load(stop))
        goto fail;
    if (h->read_errors && err && errsz && !err[0])
        snprintf(err, errsz, "%s: %llu host operator events no longer parse or name their slice (changed since it was "
                 "read?)", m->nfiles ? m->files[0].path : "the trace", (unsigned long long)h->read_errors);
    free(ord);
    return h;
fail:
    free(ord);
    host_shapes_free(h);
    return NULL;
}
