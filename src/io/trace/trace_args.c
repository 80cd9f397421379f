#include "io/trace/trace_args.h"
#include "io/files/gz_stream.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void set_err(char *err, size_t errsz, const char *fmt, const char *a, unsigned long long b)
{
    if (err && errsz)
        snprintf(err, errsz, fmt, a, b);
}

cJSON *trace_args_load(const struct model *m, uint32_t slice, char *err, size_t errsz)
{
    if (err && errsz)
        err[0] = 0;
    if (slice >= m->nslices || !m->len || !m->len[slice] || m->file[slice] >= m->nfiles) {
        set_err(err, errsz, "%sno args (slice %llu)", "", slice);
        return NULL;
    }
    return trace_args_read(m->files[m->file[slice]].path, m->off[slice], m->len[slice], err, errsz);
}

cJSON *trace_args_read(const char *path, uint64_t off, uint32_t len, char *err, size_t errsz)
{
    if (err && errsz)
        err[0] = 0;
    char *buf = malloc((size_t)len + 1);
    if (!buf) {
        set_err(err, errsz, "%sout of memory (%llu bytes)", "", len);
        return NULL;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        set_err(err, errsz, "%s: cannot open (errno %llu)", path, (unsigned long long)errno);
        free(buf);
        return NULL;
    }
    size_t got = 0;
    unsigned char magic[2];
    if (pread(fd, magic, 2, 0) == 2 && gz_magic(magic, 2)) {
        /* a gzipped trace: the offsets are in its decompressed bytes */
        close(fd);
        char why[160];
        long k = gz_read_range(path, off, buf, len, why, sizeof why);
        if (k < 0) {
            if (err && errsz)
                snprintf(err, errsz, "%s: %s", path, why);
            free(buf);
            return NULL;
        }
        got = (size_t)k;
        fd = -1;
    }
    while (fd >= 0 && got < len) {
        ssize_t k = pread(fd, buf + got, len - got, (off_t)(off + got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    if (fd >= 0)
        close(fd);
    if (got < len) {
        set_err(err, errsz, "%s: short read at byte %llu (file changed?)", path, (unsigned long long)(off + got));
        free(buf);
        return NULL;
    }
    const char *end = NULL;
    cJSON *ev = cJSON_ParseWithLengthOpts(buf, len, &end, 0);
    if (!ev) {
        unsigned long long at = off + (end && end >= buf && end <= buf + len ? (unsigned long long)(end - buf) : 0);
        set_err(err, errsz, "%s: byte %llu: the event's JSON does not parse", path, at);
        free(buf);
        return NULL;
    }
    free(buf);
    cJSON *args = cJSON_DetachItemFromObjectCaseSensitive(ev, "args");
    cJSON_Delete(ev);
    if (!args)
        set_err(err, errsz, "%sthe event has no args (byte %llu)", "", (unsigned long long)off);
    return args;
}
