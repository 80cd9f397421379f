#include "io/tables/csv_stream.h"
#include "util/grow.h"
#include "util/free_all.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (1u << 20)

/* Where the bytes come from: a file descriptor or a buffer. */
struct source {
    int fd;
    const char *buf;
    size_t len, off;
};

static long source_read(struct source *s, char *dst, size_t n)
{
    if (s->fd >= 0) {
        for (;;) {
            ssize_t got = read(s->fd, dst, n);
            if (got >= 0 || errno != EINTR)
                return (long)got;
        }
    }
    size_t k = s->len - s->off < n ? s->len - s->off : n;
    memcpy(dst, s->buf + s->off, k);
    s->off += k;
    return (long)k;
}

/* Splits s[0..len) (one line without quotes) on sep. */
static size_t split_plain(char *s, size_t len, char sep, struct csv_field *f)
{
    size_t n = 0;
    char *p = s, *end = s + len;
    for (;;) {
        char *q = memchr(p, sep, (size_t)(end - p));
        if (n < CSV_STREAM_MAX_FIELDS)
            f[n++] = (struct csv_field){ p, (size_t)((q ? q : end) - p) };
        if (!q)
            break;
        p = q + 1;
    }
    return n;
}

/* One record at s[0..len). Returns 1 with the fields, the bytes used and the line breaks
 * crossed; 0 when the record may go on past len (and !eof). Quoted fields are unescaped in
 * place. */
static int next_record(char *s, size_t len, bool eof, char sep, struct csv_field *f, size_t *nf,
                       size_t *used, uint64_t *breaks)
{
    char *nl = memchr(s, '\n', len);
    if (!nl && !eof)
        return 0;
    size_t line_len = nl ? (size_t)(nl - s) : len;
    if (!memchr(s, '"', line_len)) {
        *used = line_len + (nl != NULL);
        *breaks = nl != NULL;
        if (line_len && s[line_len - 1] == '\r')
            line_len--;
        *nf = line_len ? split_plain(s, line_len, sep, f) : 0;
        return 1;
    }
    /* quotes: find the end first (a quote toggles; "" toggles twice), without writing, so
     * an incomplete record is parsed again unchanged when more bytes come */
    size_t end = 0;
    bool inq = false, done = false;
    for (; end < len; end++) {
        if (s[end] == '"')
            inq = !inq;
        else if (s[end] == '\n' && !inq) {
            done = true;
            break;
        }
    }
    if (!done && !eof)
        return 0;
    size_t n = 0;
    uint64_t br = done;
    char *w = s, *start = s;
    inq = false;
    for (size_t i = 0; i < end; i++) {
        char c = s[i];
        if (inq) {
            if (c == '"') {
                if (i + 1 < end && s[i + 1] == '"') {
                    *w++ = '"';
                    i++;
                } else {
                    inq = false;
                }
            } else {
                br += c == '\n';
                *w++ = c;
            }
        } else if (c == '"') {
            inq = true;
        } else if (c == sep) {
            if (n < CSV_STREAM_MAX_FIELDS)
                f[n++] = (struct csv_field){ start, (size_t)(w - start) };
            start = w;
        } else {
            *w++ = c;
        }
    }
    size_t i = end + done;
    size_t flen = (size_t)(w - start);
    if (flen && start[flen - 1] == '\r')
        flen--;
    if (n < CSV_STREAM_MAX_FIELDS)
        f[n++] = (struct csv_field){ start, flen };
    *nf = n == 1 && !flen ? 0 : n;
    *used = i;
    *breaks = br;
    return 1;
}

static char detect_sep(const char *s, size_t len)
{
    const char *nl = memchr(s, '\n', len);
    size_t l = nl ? (size_t)(nl - s) : len;
    if (memchr(s, ',', l))
        return ',';
    if (memchr(s, ';', l))
        return ';';
    if (memchr(s, '\t', l))
        return '\t';
    return ',';
}

static int run(struct source *src, csv_record_fn fn, void *ctx, struct load_progress *p,
               struct csv_stream_result *r)
{
    memset(r, 0, sizeof *r);
    size_t cap = CHUNK;
    char *b = malloc(cap);
    struct csv_field *f = malloc(CSV_STREAM_MAX_FIELDS * sizeof *f);
    if (!b || !f) {
        free(b);
        free(f);
        r->error = ENOMEM;
        return -1;
    }
    size_t have = 0, pos = 0;
    bool eof = false, first = true, skipping = false;
    char sep = ',';
    uint64_t line = 1;
    int rc = 0;
    for (;;) {
        if (skipping) {
            char *nl = memchr(b + pos, '\n', have - pos);
            if (nl) {
                pos = (size_t)(nl - b) + 1;
                line++;
                skipping = false;
                continue;
            }
            pos = have;
        }
        size_t nf = 0, used = 0;
        uint64_t breaks = 0;
        if (!skipping && pos < have
            && next_record(b + pos, have - pos, eof, sep, f, &nf, &used, &breaks)) {
            if (nf) {
                r->records++;
                if (fn(ctx, f, nf, line)) {
                    r->stopped = 1;
                    break;
                }
            }
            pos += used;
            line += breaks;
            continue;
        }
        if (eof)
            break;
        /* need more bytes: keep the partial record at the front */
        memmove(b, b + pos, have - pos);
        have -= pos;
        pos = 0;
        if (have == cap) {
            if (cap >= CSV_STREAM_MAX_RECORD) {
                if (!r->skipped_long++)
                    r->first_long_line = line;
                skipping = true;
                have = 0;
                continue;
            }
            char *nb = grow_exact(b, cap, 2);
            if (!nb) {
                r->error = ENOMEM;
                rc = -1;
                break;
            }
            b = nb;
            cap *= 2;
        }
        if (progress_cancelled(p))
            break;
        long got = source_read(src, b + have, cap - have);
        if (got < 0) {
            r->error = errno ? errno : EIO;
            rc = -1;
            break;
        }
        if (got == 0) {
            eof = true;
        } else {
            if (first) {
                size_t skip = 0;
                if (got >= 3 && (unsigned char)b[0] == 0xEF && (unsigned char)b[1] == 0xBB
                    && (unsigned char)b[2] == 0xBF)
                    skip = 3;
                sep = detect_sep(b + skip, (size_t)got - skip);
                pos = skip;
                first = false;
            }
            have += (size_t)got;
            r->bytes += (uint64_t)got;
            if (p)
                atomic_store(&p->bytes_done, r->bytes);
        }
        if (skipping)
            continue;
    }
    r->lines = line;
    FREE_ALL(b, f);
    return rc;
}

int csv_stream_file(const char *path, csv_record_fn fn, void *ctx, struct load_progress *p,
                    struct csv_stream_result *r)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        memset(r, 0, sizeof *r);
        r->error = errno;
        return -1;
    }
    struct source s = { .fd = fd };
    int rc = run(&s, fn, ctx, p, r);
    close(fd);
    return rc;
}

int csv_stream_buffer(const char *buf, size_t len, csv_record_fn fn, void *ctx,
                      struct csv_stream_result *r)
{
    struct source s = { .fd = -1, .buf = buf, .len = len };
    return run(&s, fn, ctx, NULL, r);
}
