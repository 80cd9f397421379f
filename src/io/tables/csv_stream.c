#include "io/tables/csv_stream.h"
#include "util/grow.h"
#include "util/free_all.h"

#include <csv.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Large reads: libcsv's cost is per byte, the call overhead per chunk is nothing at 4 MiB. */
#define CHUNK (4u << 20)
#define BINARY_PROBE 8192
/* libcsv grows a field's buffer by this much at a time */
#define FIELD_BLOCK (64u << 10)
/* libcsv's parser state inside a field (its states are not in csv.h) */
#define LIBCSV_FIELD_BEGUN 2

char csv_guess_delim(const char *line, size_t len)
{
    size_t comma = 0, semi = 0, tab = 0;
    bool quoted = false;
    for (size_t i = 0; i < len && line[i] != '\n'; i++) {
        char c = line[i];
        if (c == '"')
            quoted = !quoted;
        else if (!quoted)
            comma += c == ',', semi += c == ';', tab += c == '\t';
    }
    if (comma || (!semi && !tab))
        return ',';
    return semi >= tab ? ';' : '\t';
}

/* Where the bytes come from: a file descriptor or a buffer. */
struct source {
    int fd;                 /* -1: read from buf */
    const char *buf;
    size_t len, off;
};

/* Up to cap bytes: into dst from a file, or in place from a buffer (*out says where). */
static long source_read(struct source *s, char *dst, size_t cap, const char **out)
{
    if (s->fd < 0) {
        size_t k = s->len - s->off < cap ? s->len - s->off : cap;
        *out = s->buf + s->off;
        s->off += k;
        return (long)k;
    }
    *out = dst;
    for (;;) {
        ssize_t got = read(s->fd, dst, cap);
        if (got >= 0 || errno != EINTR)
            return (long)got;
    }
}

/* The record being gathered from libcsv's fields, and where the text stands. */
struct run {
    csv_record_fn fn;
    void *ctx;
    struct csv_stream_result *r;
    char *text;                 /* the record's fields, each NUL-terminated */
    size_t len, cap;
    size_t *ends;               /* field i ends at text + ends[i] */
    size_t n, ncap;
    struct csv_field *f;
    size_t fcap;
    bool too_long, stop, oom;
    bool quotes;                /* the chunk being parsed may hold quoted line breaks */
    uint64_t lf, cr;            /* line breaks so far: CRLF, LF and CR files all count lines */
    uint64_t rec_line;          /* the line the record starts on */
};

static uint64_t line_now(const struct run *u)
{
    return 1 + (u->lf > u->cr ? u->lf : u->cr);
}

/* Line breaks inside quoted fields, so that records name their physical line. Only a chunk
 * with a quote (or one that starts inside a quoted field) can have them. */
static void count_breaks(struct run *u, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c <= '\r') {
            u->lf += c == '\n';
            u->cr += c == '\r';
        }
    }
}

static void on_field(void *data, size_t len, void *ud)
{
    struct run *u = ud;
    const char *s = data ? data : "";
    if (u->quotes)
        count_breaks(u, s, len);
    if (u->stop || u->too_long)
        return;
    if (u->len + len + 1 > CSV_STREAM_MAX_RECORD) {
        u->too_long = true;
        return;
    }
    if (u->len + len + 1 > u->cap || u->n == u->ncap) {    /* rarely: the buffers are kept */
        char *nt = grow_array(u->text, &u->cap, u->len + len + 1, 1);
        size_t *ne = nt ? grow_array(u->ends, &u->ncap, u->n + 1, sizeof *ne) : NULL;
        if (nt)
            u->text = nt;
        if (!ne) {
            u->oom = u->stop = true;
            return;
        }
        u->ends = ne;
    }
    memcpy(u->text + u->len, s, len);
    u->len += len;
    u->text[u->len] = 0;
    u->ends[u->n++] = u->len++;
}

/* A record ends (c: its terminator, -1 at the end of the input). */
static void on_row(int c, void *ud)
{
    struct run *u = ud;
    u->lf += c == '\n';
    u->cr += c == '\r';
    if ((u->n || u->too_long) && !u->stop) {
        if (u->too_long) {
            if (!u->r->skipped_long++)
                u->r->first_long_line = u->rec_line;
        } else if (u->n > u->fcap) {
            struct csv_field *nf = grow_array(u->f, &u->fcap, u->n, sizeof *nf);
            if (!nf)
                u->oom = u->stop = true;
            else
                u->f = nf;
        }
        if (!u->too_long && !u->stop) {
            size_t start = 0;
            for (size_t i = 0; i < u->n; i++) {
                u->f[i] = (struct csv_field){ u->text + start, u->ends[i] - start };
                start = u->ends[i] + 1;
            }
            u->r->records++;
            if (u->fn(u->ctx, u->f, u->n, u->rec_line))
                u->r->stopped = 1, u->stop = true;
        }
    }
    u->n = u->len = 0;
    u->too_long = false;
    u->rec_line = line_now(u);
}

/* libcsv's buffer for one field never grows past a record's limit: such a field fails the
 * parse (CSV_ETOOBIG) and the record is skipped instead. */
static void *grow_field(void *p, size_t n)
{
    return n > CSV_STREAM_MAX_RECORD + FIELD_BLOCK ? NULL : grow_exact(p, n, 1);
}

/* The parser stopped inside a field that began with a quote. */
static bool in_quoted_field(const struct csv_parser *cp)
{
    return cp->pstate == LIBCSV_FIELD_BEGUN && cp->quoted;
}

static int parser_init(struct csv_parser *cp, char delim)
{
    if (csv_init(cp, CSV_REPALL_NL) != 0)
        return -1;
    csv_set_delim(cp, (unsigned char)delim);
    csv_set_realloc_func(cp, grow_field);
    csv_set_blk_size(cp, FIELD_BLOCK);
    return 0;
}

/* The first bytes: a BOM is skipped, a NUL means binary, the first line names the separator.
 * Returns the bytes to skip, or -1 for a binary file. */
static long first_chunk(const char *data, size_t n, struct csv_stream_result *r)
{
    size_t skip = n >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3) ? 3 : 0;
    const char *nul = memchr(data, 0, n < BINARY_PROBE ? n : BINARY_PROBE);
    if (nul) {
        r->binary_at = (uint64_t)(nul - data) + 1;
        return -1;
    }
    r->delim = csv_guess_delim(data + skip, n - skip);
    return (long)skip;
}

/* A field over the limit stopped libcsv at data[used]: the rest of its line is skipped and the
 * parser starts afresh. Returns the bytes of data consumed. */
static size_t skip_line(const char *data, size_t n, bool *skipping, struct run *u)
{
    const char *nl = memchr(data, '\n', n);
    if (!nl)
        return n;
    *skipping = false;
    u->lf++;
    u->n = u->len = 0;
    u->too_long = false;
    u->rec_line = line_now(u);
    return (size_t)(nl - data) + 1;
}

static int run(struct source *src, csv_record_fn fn, void *ctx, struct load_progress *p,
               struct csv_stream_result *r)
{
    struct run u = { .fn = fn, .ctx = ctx, .r = r, .rec_line = 1 };
    struct csv_parser cp;
    char *chunk = src->fd >= 0 ? malloc(CHUNK) : NULL;
    r->delim = ',';
    if ((src->fd >= 0 && !chunk) || parser_init(&cp, ',') != 0) {
        free(chunk);
        r->error = ENOMEM;
        return -1;
    }
    bool first = true, skipping = false;
    int rc = 0;
    while (!u.stop) {
        if (progress_cancelled(p)) {
            r->cancelled = 1;
            break;
        }
        const char *data;
        long got = source_read(src, chunk, CHUNK, &data);
        if (got < 0) {
            r->error = errno ? errno : EIO;
            rc = -1;
            break;
        }
        if (got == 0)
            break;
        size_t n = (size_t)got;
        r->bytes += n;
        if (first) {
            first = false;
            long skip = first_chunk(data, n, r);
            if (skip < 0) {
                rc = -1;
                break;
            }
            csv_set_delim(&cp, (unsigned char)r->delim);
            data += skip;
            n -= (size_t)skip;
        }
        while (n && !u.stop) {
            bool parsing = !skipping;
            u.quotes = in_quoted_field(&cp) || memchr(data, '"', n);
            size_t used = parsing ? csv_parse(&cp, data, n, on_field, on_row, &u)
                                  : skip_line(data, n, &skipping, &u);
            data += used;
            n -= used;
            if (parsing && n && !u.stop) {
                /* libcsv refused to grow a field: over the limit, or out of memory */
                if (csv_get_buffer_size(&cp) + FIELD_BLOCK <= CSV_STREAM_MAX_RECORD) {
                    u.oom = u.stop = true;
                    break;
                }
                if (!r->skipped_long++)
                    r->first_long_line = u.rec_line;
                csv_fini(&cp, NULL, NULL, NULL);    /* drops the field and starts afresh */
                skipping = true;
            }
        }
        if (p)
            atomic_store_explicit(&p->bytes_done, r->bytes, memory_order_relaxed);
    }
    if (!u.stop && rc == 0 && !r->cancelled && !skipping) {
        if (in_quoted_field(&cp))
            r->unclosed_line = u.rec_line;
        csv_fini(&cp, on_field, on_row, &u);
    }
    if (u.oom) {
        r->error = ENOMEM;
        rc = -1;
    }
    r->lines = line_now(&u);
    csv_free(&cp);
    FREE_ALL(chunk, u.text, u.ends, u.f);
    return rc;
}

int csv_stream_file(const char *path, csv_record_fn fn, void *ctx, struct load_progress *p,
                    struct csv_stream_result *r)
{
    memset(r, 0, sizeof *r);
    r->delim = ',';
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd >= 0 && fstat(fd, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        close(fd);
        fd = -1;
        errno = EISDIR;
    }
    if (fd < 0) {
        r->error = errno;
        r->open_failed = 1;
        return -1;
    }
    if (p) {
        atomic_store_explicit(&p->bytes_total, (uint64_t)sb.st_size, memory_order_relaxed);
        atomic_store_explicit(&p->bytes_done, 0, memory_order_relaxed);
    }
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    struct source s = { .fd = fd };
    int rc = run(&s, fn, ctx, p, r);
    close(fd);
    return rc;
}

int csv_stream_buffer(const char *buf, size_t len, csv_record_fn fn, void *ctx,
                      struct csv_stream_result *r)
{
    memset(r, 0, sizeof *r);
    struct source s = { .fd = -1, .buf = buf, .len = len };
    return run(&s, fn, ctx, NULL, r);
}

void csv_stream_diags(const struct csv_stream_result *r, const char *path, struct diag *d)
{
    if (r->open_failed)
        diag_add(d, DIAG_ERROR, path, r->error == EISDIR ? "not a regular file" : "cannot open: %s",
                 strerror(r->error));
    else if (r->error == ENOMEM)
        diag_out_of_memory(d, path, "byte %llu: out of memory; the rest of the file is not read",
                           (unsigned long long)r->bytes);
    else if (r->error)
        diag_add(d, DIAG_ERROR, path, "byte %llu: read error: %s", (unsigned long long)r->bytes,
                 strerror(r->error));
    if (r->binary_at)
        diag_add(d, DIAG_ERROR, path, "byte %llu: binary data (a NUL byte), not a CSV file",
                 (unsigned long long)(r->binary_at - 1));
    if (r->delim != ',')
        diag_add(d, DIAG_WARN, path, "line 1: columns are separated by %s, not commas; read that way",
                 r->delim == ';' ? "';'" : "TABs");
    if (r->skipped_long)
        diag_add(d, DIAG_WARN, path, "line %llu: %llu record(s) longer than %u MiB skipped",
                 (unsigned long long)r->first_long_line, (unsigned long long)r->skipped_long,
                 CSV_STREAM_MAX_RECORD >> 20);
    if (r->unclosed_line)
        diag_add(d, DIAG_WARN, path,
                 "line %llu: a quoted cell opened in this record is never closed; the rest of the file was read into it",
                 (unsigned long long)r->unclosed_line);
}
