#include "io/trace/trace_args.h"
#include "io/files/gz_stream.h"
#include "util/read_full.h"

#include <errno.h>
#include <stdbool.h>
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

/* Scanning the event's own bytes (valid JSON: cJSON parsed them) to keep the file's digits. */
static const char *skip_ws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* The end of the JSON value at p. */
static const char *value_end(const char *p, const char *e)
{
    int depth = 0;
    for (const char *q = p; q < e; q++) {
        if (*q == '"') {
            for (q++; q < e && *q != '"'; q++)
                if (*q == '\\')
                    q++;
            if (!depth)
                return q < e ? q + 1 : e;
        } else if (*q == '{' || *q == '[') {
            depth++;
        } else if (*q == '}' || *q == ']') {
            if (--depth <= 0)
                return depth == 0 ? q + 1 : q;
        } else if (!depth && (*q == ',' || *q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')) {
            return q;
        }
    }
    return e;
}

/* Each number among args' members becomes a raw item of the file's own text: printed again
 * through a double, 0.6002072538860104 would come back as 0.60020725388601037 and an id above
 * 2^53 as another number. args' members and the text's come in the same order (cJSON keeps
 * it), so they are walked side by side. */
static void keep_number_digits(cJSON *args, const char *buf, size_t len)
{
    const char *e = buf + len, *p = skip_ws(buf, e);
    if (p >= e || *p != '{')
        return;
    for (p = skip_ws(p + 1, e); p < e && *p == '"';) {   /* the event's members: find "args" */
        const char *ke = value_end(p, e);
        bool is_args = ke - p == 6 && !memcmp(p, "\"args\"", 6);
        p = skip_ws(ke, e);
        if (p >= e || *p != ':')
            return;
        const char *v = skip_ws(p + 1, e), *ve = value_end(v, e);
        if (is_args && v < e && *v == '{') {
            cJSON *it = args->child;
            for (const char *q = skip_ws(v + 1, e); q < ve && *q == '"' && it; it = it->next) {
                q = skip_ws(value_end(q, e), e);
                if (q >= e || *q != ':')
                    return;
                const char *a = skip_ws(q + 1, e), *ae = value_end(a, e);
                if (cJSON_IsNumber(it)) {
                    char *raw = strndup(a, (size_t)(ae - a));
                    if (raw) {   /* out of memory: the parsed number stays */
                        cJSON_free(it->valuestring);
                        it->valuestring = raw;
                        it->type = cJSON_Raw;
                    }
                }
                q = skip_ws(ae, e);
                if (q < e && *q == ',')
                    q = skip_ws(q + 1, e);
            }
            return;
        }
        p = skip_ws(ve, e);
        if (p < e && *p == ',')
            p = skip_ws(p + 1, e);
    }
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
    if (fd >= 0) {
        got = pread_full(fd, buf, len, (long long)off);
        close(fd);
    }
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
    cJSON *args = cJSON_DetachItemFromObjectCaseSensitive(ev, "args");
    cJSON_Delete(ev);
    if (cJSON_IsObject(args))
        keep_number_digits(args, buf, len);
    free(buf);
    if (!args)
        set_err(err, errsz, "%sthe event has no args (byte %llu)", "", (unsigned long long)off);
    return args;
}

/* --- many events in one pass ------------------------------------------------------------- */

struct ev_ref { uint32_t slice, idx; uint8_t file; uint64_t off; uint32_t len; };

static int cmp_ref(const void *x, const void *y)
{
    const struct ev_ref *a = x, *b = y;
    if (a->file != b->file)
        return a->file < b->file ? -1 : 1;
    return (a->off > b->off) - (a->off < b->off);
}

/* Skips the decompressed stream forward to byte `to` (from *at). */
static bool gz_skip_to(struct gz_stream *g, uint64_t *at, uint64_t to, char *scratch, size_t scratch_n)
{
    while (*at < to) {
        size_t want = to - *at < scratch_n ? (size_t)(to - *at) : scratch_n;
        size_t k = gz_stream_read(g, scratch, want);
        if (!k)
            return false;
        *at += k;
    }
    return true;
}

/* The events of refs[0..n) (one file, sorted by offset) handed to fn; false when the file
 * ended or could not be read before the last one (err says where). */
static bool read_file_events(const char *path, struct ev_ref *refs, size_t n, trace_event_fn fn, void *ctx,
                             char *buf, size_t bufn, char *err, size_t errsz)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        set_err(err, errsz, "%s: cannot open (errno %llu)", path, (unsigned long long)errno);
        return false;
    }
    unsigned char magic[2];
    bool gz = pread(fd, magic, 2, 0) == 2 && gz_magic(magic, 2);
    struct gz_stream *g = gz ? gz_stream_open_fd(fd) : NULL;
    uint64_t at = 0;
    char scratch[16384];
    bool ok = !gz || g;
    for (size_t i = 0; ok && i < n; i++) {
        const struct ev_ref *r = &refs[i];
        if (r->len > bufn)
            continue;   /* larger than any event worth reading for its args */
        size_t got = 0;
        if (gz) {
            /* events never overlap, so the stream only moves forward */
            ok = r->off >= at && gz_skip_to(g, &at, r->off, scratch, sizeof scratch);
            while (ok && got < r->len) {
                size_t k = gz_stream_read(g, buf + got, r->len - got);
                if (!k)
                    break;
                got += k;
                at += k;
            }
        } else {
            got = pread_full(fd, buf, r->len, (long long)r->off);
        }
        if (ok && got < r->len) {
            set_err(err, errsz, "%s: short read at byte %llu (file changed?)", path, (unsigned long long)(r->off + got));
            ok = false;
        }
        if (ok)
            fn(ctx, r->idx, buf, r->len);
    }
    gz_stream_close(g);
    close(fd);
    return ok;
}

int trace_events_read(const struct model *m, const uint32_t *slices, size_t n, trace_event_fn fn, void *ctx,
                      char *err, size_t errsz)
{
    if (err && errsz)
        err[0] = 0;
    struct ev_ref *refs = malloc((n ? n : 1) * sizeof *refs);
    size_t nr = 0, bufn = 1 << 20;
    char *buf = malloc(bufn);
    if (!refs || !buf) {
        free(refs);
        free(buf);
        set_err(err, errsz, "%sout of memory reading %llu events", "", (unsigned long long)n);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t s = slices[i];
        if (s < m->nslices && m->len && m->len[s] && m->file[s] < m->nfiles)
            refs[nr++] = (struct ev_ref){ s, (uint32_t)i, m->file[s], m->off[s], m->len[s] };
    }
    qsort(refs, nr, sizeof *refs, cmp_ref);
    int rc = 0;
    for (size_t a = 0; a < nr;) {
        size_t b = a;
        while (b < nr && refs[b].file == refs[a].file)
            b++;
        if (!read_file_events(m->files[refs[a].file].path, refs + a, b - a, fn, ctx, buf, bufn, err, errsz))
            rc = -1;
        a = b;
    }
    free(refs);
    free(buf);
    return rc;
}
