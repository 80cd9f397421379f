/* Streaming Chrome-trace reader: a scalar scanner over a chunk buffer, run by one thread or,
 * for large files, by two over parts of the file (trace_json_split.c). See trace_json.h. */
#include "io/trace/trace_json.h"
#include "util/grow.h"
#include "io/trace/trace_json_internal.h"
#include "io/files/gz_stream.h"
#include "io/trace/kineto.h"
#include "io/files/mapped_file.h"
#include "model/index/timeparse.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

size_t tj_chunk_size = 256u << 10;   /* stays in L2: the copy and the scan hit cache */
uint64_t tj_split_threshold = 32u << 20;
uint64_t tj_split_from = NO_SPLIT;
/* smaller files are read: a mapping costs more than the copy it saves */
static uint64_t tj_map_min_size = 1u << 20;
_Thread_local int tj_last_split;
_Thread_local uint64_t tj_last_split_at;

void trace_json_set_chunk_size(size_t bytes)
{
    tj_chunk_size = bytes < 64 ? 64 : bytes;
}

void trace_json_set_split(uint64_t threshold, uint64_t from)
{
    tj_split_threshold = threshold;
    tj_split_from = from;
}

void trace_json_set_mapping(uint64_t min_size)
{
    tj_map_min_size = min_size;
}

void trace_json_set_sharing(uint64_t min_bytes)
{
    tj_share_min = min_bytes;
}

int trace_json_last_parts(void)
{
    return tj_last_parts;
}

int trace_json_last_split(uint64_t *at)
{
    if (at)
        *at = tj_last_split_at;
    return tj_last_split;
}

/* --- the reader ------------------------------------------------------------------------- */

void tj_note_add(struct rd *r, struct note n, const char *text)
{
    r->notes = grow_array_or_exit(r->notes, &r->notes_cap, r->nnotes + 1, sizeof *r->notes,
                                  "the second part's messages");
    n.text = text ? strdup(text) : NULL;
    r->notes[r->nnotes++] = n;
}

/* A message about the file: to the diag list (an out-of-memory one as diag_out_of_memory
 * says it), or kept in order by a second part. */
__attribute__((format(printf, 4, 0)))
static void say(struct rd *r, bool oom, enum diag_level level, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (r->second)
        tj_note_add(r, (struct note){ .kind = oom ? N_OOM : N_MSG, .level = (uint8_t)level }, msg);
    else if (oom)
        diag_out_of_memory(r->d, r->path, "%s", msg);
    else
        diag_add(r->d, level, r->path, "%s", msg);
}

__attribute__((format(printf, 3, 4)))
void tj_say(struct rd *r, enum diag_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(r, false, level, fmt, ap);
    va_end(ap);
}

void tj_out_of_memory(struct rd *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(r, true, DIAG_ERROR, fmt, ap);
    va_end(ap);
}

void tj_emit_count(struct rd *r, enum diag_level level, uint64_t at, const char *body, enum cnt c, uint64_t n)
{
    unsigned long long a = at, k = n;
    if (c == CNT_KEPT)
        diag_add(r->d, level, r->path, "byte %llu: %s (%llu events before it kept)", a, body, k);
    else if (c == CNT_COMPLETE)
        diag_add(r->d, level, r->path, "byte %llu: %s%llu complete events before it kept", a, body, k);
    else
        diag_add(r->d, level, r->path, "byte %llu: %s%llu events read", a, body, k);
}

/* A message ending with the number of events read before it (of the whole file). */
void tj_say_count(struct rd *r, enum diag_level level, uint64_t at, const char *body, enum cnt c)
{
    if (r->second)
        tj_note_add(r, (struct note){ .kind = N_COUNT, .level = (uint8_t)level, .cnt = (uint8_t)c, .at = at,
                                   .count = r->nevents }, body);
    else
        tj_emit_count(r, level, at, body, c, r->nevents);
}

/* A per-event warning: the first MAX_WARN of the file are shown, the rest counted. */
void tj_warn_text(struct rd *r, const char *text)
{
    if (r->second) {
        /* past MAX_WARN of its own, none of this part's warnings can be shown */
        if (r->note_warns >= MAX_WARN) {
            r->warns_dropped++;
            return;
        }
        r->note_warns++;
        tj_note_add(r, (struct note){ .kind = N_WARN, .level = DIAG_WARN }, text);
        return;
    }
    if (r->warns >= MAX_WARN) {
        r->warns_dropped++;
        return;
    }
    r->warns++;
    diag_add(r->d, DIAG_WARN, r->path, "%s", text);
}

void tj_warn_event(struct rd *r, uint64_t at, const char *fmt, const char *what)
{
    if (!r->second && r->warns >= MAX_WARN) {
        r->warns_dropped++;
        return;
    }
    char msg[200], text[240];
    snprintf(msg, sizeof msg, fmt, what);
    snprintf(text, sizeof text, "byte %llu: %s", (unsigned long long)at, msg);
    tj_warn_text(r, text);
}

/* --- reading ------------------------------------------------------------------------------ */

/* Parts read at once (trace_json_split.c): the progress shown is the sum of every part's
 * bytes and events, never going back. */

static void progress_max(_Atomic uint64_t *v, uint64_t x)
{
    uint64_t cur = atomic_load_explicit(v, memory_order_relaxed);
    while (cur < x && !atomic_compare_exchange_weak_explicit(v, &cur, x, memory_order_relaxed, memory_order_relaxed))
        ;
}

void tj_report(struct rd *r)
{
    if (!r->p)
        return;
    uint64_t done = r->gz ? gz_stream_in_done(r->gz) : r->base + r->len, ev = r->nevents;
    struct split *sp = r->sp;
    if (!sp) {
        atomic_store_explicit(&r->p->bytes_done, done, memory_order_relaxed);
        atomic_store_explicit(&r->p->events, ev, memory_order_relaxed);
        return;
    }
    atomic_store_explicit(&sp->done[r->part], done - r->start_off, memory_order_relaxed);
    atomic_store_explicit(&sp->events[r->part], ev, memory_order_relaxed);
    done = ev = 0;
    for (int k = 0; k < MAX_PARTS; k++) {
        done += atomic_load_explicit(&sp->done[k], memory_order_relaxed);
        ev += atomic_load_explicit(&sp->events[k], memory_order_relaxed);
    }
    progress_max(&r->p->bytes_done, done);
    progress_max(&r->p->events, ev);
}

/* The buffer keeps each file byte at the same offset within a page as in the file: the
 * kernel's copy of a read into a buffer whose offset differs from the file's by 1 to 31 bytes
 * ran up to five times slower (measured), and the unread tail of every chunk moved the
 * offset. The buffer is page-aligned, the tail moves to where its first byte's offset says,
 * and base stays a multiple of the page (the bytes before pos are never looked at). */
#define BUF_ALIGN 4096u

/* A view is widened VIEW_CHUNKS read chunks at a time (tests shrinking the chunk shrink it
 * too), and its scanned pages let go every VIEW_RELEASE bytes (resident file pages count
 * in a process's memory as its users see it). */
#define VIEW_CHUNKS 32u
#define VIEW_RELEASE (8u << 20)

/* The buffer grown to cap + 1 bytes, page-aligned, its first len bytes kept; NULL when out of
 * memory (the old buffer is then still there). */
static char *grow_aligned(char *old, size_t len, size_t cap)
{
    void *nb = NULL;
    if (posix_memalign(&nb, BUF_ALIGN, cap + 1) != 0)
        return NULL;
    if (len)
        memcpy(nb, old, len);
    free(old);
    return nb;
}

/* After each fill: progress told, and a cancel (or a later part's abort) noticed. */
static int filled(struct rd *r)
{
    tj_report(r);
    if (progress_cancelled(r->p) ||
        (r->second && (atomic_load_explicit(&r->sp->abort, memory_order_relaxed) ||
                       atomic_load_explicit(&r->sp->part[r->part].abort, memory_order_relaxed))))
        r->cancelled = true;
    return 0;
}

/* How much the next fill takes after the bytes up to have, at most want: a part of a split
 * trace reads no further than its stop (tj_part_take). */
static uint64_t fill_limit(struct rd *r, uint64_t have, uint64_t want)
{
    return r->sp ? tj_part_take(r, have, want) : want;
}

void tj_release_read(struct rd *r, uint64_t at_least)
{
    if (r->map && r->base - r->view_released >= at_least) {
        mapped_file_release(r->map, r->view_released, r->base);
        r->view_released = r->base;
    }
}

/* tj_fill over a view: the window is widened (its scanned part dropped) instead of read, by
 * the same rules as a read (fill_limit, one item at most MAX_EVENT). */
static int widen_view(struct rd *r)
{
    uint64_t have = r->base + r->len;
    size_t keep = r->len - r->pos;
    uint64_t want = fill_limit(r, have, (uint64_t)tj_chunk_size * VIEW_CHUNKS);
    if (keep > MAX_EVENT)
        return -2;
    if (r->size - have < want)
        want = r->size - have;
    r->base += r->pos;
    r->buf = (char *)r->view + r->base;
    r->pos = 0;
    r->len = keep + (size_t)want;
    if (have + want >= r->size)
        r->eof = true;
    if (r->map && want)
        mapped_file_populate(r->map, have, have + want);
    tj_release_read(r, VIEW_RELEASE);   /* now and then */
    return filled(r);
}

/* Moves the unread tail to its place at the front and reads the next chunk. Returns -1 when
 * reading failed (reported), -2 when one item would outgrow MAX_EVENT. */
int tj_fill(struct rd *r)
{
    if (r->view)
        return widen_view(r);
    size_t keep = r->len - r->pos, head = (size_t)((r->base + r->pos) % BUF_ALIGN);
    uint64_t have = r->base + r->len;
    /* small inputs get a small buffer (the fuzzer loads thousands per second) */
    size_t want = (size_t)fill_limit(r, have, tj_chunk_size);
    if (!r->gz && r->stop_at == NO_SPLIT) {   /* gzip: the decompressed size is not known */
        uint64_t left = r->size > have ? r->size - have : 0;
        if (left + 64 < want)
            want = (size_t)left + 64;
    }
    if (r->cap < head + keep + want) {
        if (keep > MAX_EVENT)
            return -2;
        size_t cap = r->cap ? r->cap : want + BUF_ALIGN;
        while (cap < head + keep + want)
            cap *= 2;
        char *nb = grow_aligned(r->buf, r->len, cap);
        if (!nb) {
            tj_out_of_memory(r, "byte %llu: out of memory; the rest of the file is not read",
                             (unsigned long long)(r->base + r->pos));
            return -1;
        }
        r->buf = nb;
        r->cap = cap;
    }
    if (head != r->pos && keep)
        memmove(r->buf + head, r->buf + r->pos, keep);
    r->base += r->pos - head;
    r->len = head + keep;
    r->pos = head;
    if (r->gz) {
        size_t k = gz_stream_read(r->gz, r->buf + r->len, want);
        if (k == 0)
            r->eof = true;
        r->len += k;
    } else {
        ssize_t k;
        do
            k = pread(r->fd, r->buf + r->len, want, (off_t)have);
        while (k < 0 && errno == EINTR);
        if (k < 0) {
            tj_say(r, DIAG_ERROR, "byte %llu: read failed: %s", (unsigned long long)have, strerror(errno));
            r->eof = true;
            return -1;
        }
        if (k == 0)
            r->eof = true;
        r->len += (size_t)k;
    }
    return filled(r);
}

enum item { IT_EVENT, IT_VALUE, IT_KEY };

/* Scans the item at pos, reading more until it is complete. Returns its length, 0 when the
 * file ends inside it, -1 on a syntax error (ev->err set), -2 when it is too large,
 * -3 when cancelled or reading failed. */
static long take(struct rd *r, enum item what, struct ev *ev)
{
    for (;;) {
        const char *p = r->buf + r->pos;
        size_t n = r->len - r->pos;
        long res;
        if (what == IT_EVENT) {
            /* the next few events' first bytes on their way from memory (a hint: never a
             * fault, even past the buffer's end) */
            __builtin_prefetch(p + PREFETCH_EVENTS);
            __builtin_prefetch(p + PREFETCH_EVENTS + 64);
            res = tj_scan_event(p, n, ev);
        } else if (what == IT_VALUE) {
            res = tj_scan_value(p, n);
            if (res < 0) {
                ev->err_at = 0;
                ev->err = "unexpected byte";
            }
        } else {
            res = (long)tj_scan_string(p, 0, n, NULL);
        }
        if (res != 0)
            return res;
        if (r->eof)
            return 0;
        int f = tj_fill(r);
        if (f == -2)
            return -2;
        if (f < 0 || r->cancelled)
            return -3;
    }
}

static void describe(char *out, size_t size, unsigned char c)
{
    if (c >= 0x20 && c < 0x7f)
        snprintf(out, size, "'%c'", c);
    else
        snprintf(out, size, "byte 0x%02x", c);
}

/* Reads items until the file ends, reading stops, or (first part) the event ending at stop_at
 * has been read (r->reached). The state stays in r: a first part can be run again to read on.
 * Kept whole although long: it is the reader's state machine (enum state), one case per place
 * in the JSON grammar, which reads best in one switch. */
void tj_run(struct rd *r)
{
    struct ev ev = { 0 };   /* zeroed: no key guesses yet */
    char what[32];
    if (!r->started) {
        r->started = true;
        if (tj_fill(r) < 0) {
            r->broke = true;
            return;
        }
    }
    for (;;) {
        if (r->cancelled) {
            tj_say(r, DIAG_INFO, "byte %llu: reading cancelled", (unsigned long long)(r->base + r->pos));
            r->broke = true;
            break;
        }
        r->pos = skip_ws(r->buf, r->pos, r->len);
        if (r->pos >= r->len) {
            if (r->eof)
                break;
            if (tj_fill(r) < 0)
                break;
            continue;
        }
        unsigned char c = (unsigned char)r->buf[r->pos];
        uint64_t at = r->base + r->pos;
        if (at > r->stop_at)
            tj_part_fail(r);   /* its guessed boundary was wrong: it reads on alone */
        if (r->st == S_START) {
            if (at == 0 && c == 0xEF && r->len - r->pos >= 3 && !memcmp(r->buf + r->pos, "\xEF\xBB\xBF", 3)) {
                r->pos += 3;
                continue;
            }
            if (c == '[') {
                r->st = S_ITEM;
            } else if (c == '{') {
                r->st = S_OBJ_KEY;
            } else {
                describe(what, sizeof what, c);
                tj_say(r, DIAG_ERROR, "byte %llu: expected '[' or '{' at the start of a trace, found %s",
                    (unsigned long long)at, what);
                r->broke = true;
                break;
            }
            r->pos++;
            continue;
        }
        if (r->st == S_DONE) {
            describe(what, sizeof what, c);
            tj_say(r, DIAG_WARN, "byte %llu: %s after the end of the trace ignored", (unsigned long long)at, what);
            break;
        }
        if (r->st == S_OBJ_KEY || r->st == S_OBJ_NEXT) {
            if (c == '}') {
                r->st = S_DONE;
                r->pos++;
                if (!r->saw_events)
                    tj_say(r, DIAG_WARN, "byte %llu: the object has no \"traceEvents\" array", (unsigned long long)at);
                continue;
            }
            if (r->st == S_OBJ_NEXT) {
                if (c != ',')
                    goto syntax;
                r->st = S_OBJ_KEY;
                r->pos++;
                continue;
            }
            if (c != '"')
                goto syntax;
            long k = take(r, IT_KEY, &ev);
            if (k <= 0)
                goto incomplete;
            r->events_key = k == 13 && !memcmp(r->buf + r->pos, "\"traceEvents\"", 13);
            r->top_key = kineto_top_key(r->buf + r->pos, (size_t)k);
            r->pos += (size_t)k;
            r->st = S_OBJ_COLON;
            continue;
        }
        if (r->st == S_OBJ_COLON) {
            if (c != ':')
                goto syntax;
            r->pos++;
            r->st = S_OBJ_VALUE;
            continue;
        }
        if (r->st == S_OBJ_VALUE) {
            if (r->events_key && c == '[') {
                r->saw_events = true;
                r->pos++;
                r->st = S_ITEM;
                r->first_item = true;
                continue;
            }
            goto skip_value;
        }
        if (r->st == S_NEXT) {
            if (c == ',') {
                r->st = S_ITEM;
                r->first_item = false;
                r->pos++;
                continue;
            }
            if (c != ']')
                goto syntax;
        }
        /* S_ITEM or the ']' of S_NEXT */
        if (c == ']') {
            if (r->st == S_ITEM && !r->first_item)
                tj_say(r, DIAG_INFO, "byte %llu: trailing comma before ']'", (unsigned long long)at);
            r->pos++;
            r->closed = true;
            r->st = r->saw_events ? S_OBJ_NEXT : S_DONE;
            continue;
        }
        if (c == '{') {
            long k = take(r, IT_EVENT, &ev);
            if (k == -1) {
                char body[160];
                snprintf(body, sizeof body, "%s; stopped reading", ev.err);
                tj_say_count(r, DIAG_ERROR, r->base + r->pos + ev.err_at, body, CNT_KEPT);
                r->broke = true;
                break;
            }
            if (k <= 0)
                goto incomplete;
            tj_handle_event(r, r->buf + r->pos, (uint32_t)k, r->base + r->pos, &ev);
            r->pos += (size_t)k;
            r->st = S_NEXT;
            if (r->base + r->pos == r->stop_at) {
                r->reached = true;
                return;
            }
            continue;
        }
skip_value:
        /* a value read past: a top-level key's (kept where kineto names it), or an array item
         * that is not an object */
        {
            long k = take(r, IT_VALUE, &ev);
            if (k == -1)
                goto syntax;
            if (k <= 0)
                goto incomplete;
            if (r->st == S_OBJ_VALUE) {
                kineto_top_value(&r->kt, r->top_key, r->buf + r->pos, (size_t)k);
                r->st = S_OBJ_NEXT;
            } else {
                tj_warn_event(r, at, "array item is not an event object: skipped%s", "");
                r->st = S_NEXT;
            }
            r->pos += (size_t)k;
            continue;
        }
syntax:
        {
            char body[64];
            describe(what, sizeof what, (unsigned char)r->buf[r->pos]);
            snprintf(body, sizeof body, "unexpected %s; stopped reading", what);
            tj_say_count(r, DIAG_ERROR, r->base + r->pos, body, CNT_KEPT);
            r->broke = true;
            break;
        }
incomplete:
        if (r->cancelled) {
            tj_say(r, DIAG_INFO, "byte %llu: reading cancelled", (unsigned long long)(r->base + r->pos));
        } else if (r->len - r->pos > MAX_EVENT) {
            char body[64];
            snprintf(body, sizeof body, "an item larger than %u MiB; stopped reading", MAX_EVENT >> 20);
            tj_say_count(r, DIAG_ERROR, r->base + r->pos, body, CNT_KEPT);
        } else if (r->eof) {
            tj_say_count(r, DIAG_ERROR, r->base + r->pos, "the file ends inside an event (truncated?); ", CNT_COMPLETE);
            r->closed = true;   /* reported here already */
        }
        r->broke = true;
        break;
    }
}

/* The messages about how reading ended; the result of the load. */
static int finish(struct rd *r, uint64_t end)
{
    if (!r->broke && !r->closed && r->st != S_START && r->st != S_DONE)
        tj_say_count(r, DIAG_WARN, end, "the file ends before the closing ']' (an interrupted export?); ", CNT_READ);
    if (!r->broke && r->st == S_START)
        tj_say(r, DIAG_ERROR, "byte 0: the file is empty");
    if (r->warns_dropped)
        tj_say(r, DIAG_WARN, "%llu more event warnings not shown", (unsigned long long)r->warns_dropped);
    return (r->nevents || (!r->broke && r->st != S_START)) ? 0 : -1;
}

/* Unclosed B events end at the last time seen in the file. */
static void close_open_b(struct rd *r)
{
    uint64_t nopen = 0;
    for (uint32_t l = 0; l < r->nbe; l++) {
        struct be_stack *st = &r->be[l];
        while (st->n) {
            struct be_entry b = st->e[--st->n];
            model_add_slice_ids(r->m, l, b.ts, tj_span_ns(b.ts, r->last_ts), b.name, b.cat, r->file, b.off, b.len);
            nopen++;
        }
    }
    if (nopen)
        diag_add(r->d, DIAG_WARN, r->path, "%llu B events without an E: closed at the last timestamp of the file",
                 (unsigned long long)nopen);
}

void tj_free_rd(struct rd *r)
{
    for (uint32_t l = 0; l < r->nbe; l++)
        free(r->be[l].e);
    free(r->be);
    if (!r->view)
        free(r->buf);
    for (int k = 0; k < NF; k++)
        free(r->scratch[k]);
    for (size_t i = 0; i < r->nnotes; i++)
        free(r->notes[i].text);
    free(r->notes);
}

static void gz_report(struct rd *r)
{
    struct gz_status st;
    gz_stream_status(r->gz, &st);
    unsigned long long in = st.in_bytes, total = r->size, out = st.out_bytes;
    switch (st.end) {
    case GZ_TRUNCATED:
        tj_say(r, DIAG_ERROR, "the gzip data ends early (truncated .gz?) at compressed byte %llu of %llu, "
            "after %llu decompressed bytes; the %llu events before are shown", in, total, out,
            (unsigned long long)r->nevents);
        break;
    case GZ_CORRUPT: case GZ_IOERR: case GZ_NOMEM:
        tj_say(r, DIAG_ERROR, "gzip: %s (compressed byte %llu of %llu, after %llu decompressed bytes); "
            "the %llu events before are shown", st.msg, in, total, out, (unsigned long long)r->nevents);
        break;
    case GZ_TRAILING:
        tj_say(r, DIAG_WARN, "gzip: %s", st.msg);
        break;
    default:
        break;
    }
}

static int load(struct rd *r)
{
    r->last_ts = INT64_MIN;
    r->stop_at = NO_SPLIT;
    r->st = S_START;
    r->first_item = true;
    r->file = model_add_file(r->m, r->path, r->size);
    if (r->p)
        atomic_store_explicit(&r->p->bytes_total, r->size, memory_order_relaxed);
    tj_last_split = 0;
    tj_last_split_at = 0;
    tj_last_parts = 1;
    tj_reserve_for(r->m, r->gz ? r->gz_hint : r->size);
    struct split *sp = tj_split_begin(r);
    tj_run(r);
    uint64_t end = 0;
    if (sp) {
        if (r->reached)
            end = tj_split_finish(r, sp);
        r->sp = NULL;
        if (tj_split_end(sp))
            tj_last_split = 2;
#ifdef __GLIBC__
        /* what the other reader freed stays in its thread's arena, where the main thread's
         * allocations (finalize) cannot reuse it: give it back */
        malloc_trim(0);
#endif
    }
    if (!end)
        end = r->base + r->len;
    if (r->gz)
        gz_report(r);
    int rc = finish(r, end);
    close_open_b(r);
    kineto_finish(&r->kt, r->m, r->d, r->path);
    if (r->p) {
        atomic_store_explicit(&r->p->bytes_done, r->gz ? r->size : end, memory_order_relaxed);
        atomic_store_explicit(&r->p->events, r->nevents, memory_order_relaxed);
    }
    tj_free_rd(r);
    return rc;
}

/* Another program shrank the file while it was read (reading then ended early, at zeros or
 * the new end): an error says so. Whether it was said. */
static bool said_shrunk(struct rd *r, const struct mapped_file *map)
{
    uint64_t cut_at = UINT64_MAX, zeros_at;
    struct stat now;
    if ((r->broke || !r->closed) && fstat(r->fd, &now) == 0 && S_ISREG(now.st_mode) &&
        (uint64_t)now.st_size < r->size)
        cut_at = (uint64_t)now.st_size;
    if (mapped_file_was_cut(map, &zeros_at) && zeros_at < cut_at)
        cut_at = zeros_at;
    if (cut_at == UINT64_MAX)
        return false;
    diag_add(r->d, DIAG_ERROR, r->path, "the file shrank from %llu bytes while it was read: nothing past byte %llu "
             "was read", (unsigned long long)r->size, (unsigned long long)cut_at);
    return true;
}

int trace_json_load(struct model *m, const char *path, struct diag *d, struct load_progress *p)
{
    struct rd *r = calloc(1, sizeof *r);
    if (!r) {
        diag_out_of_memory(d, path, "out of memory");
        return -1;
    }
    r->m = m;
    r->d = d;
    r->path = path;
    r->p = p;
    r->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (r->fd < 0) {
        diag_add(d, DIAG_ERROR, path, "cannot open: %s", strerror(errno));
        free(r);
        return -1;
    }
    struct stat sb = { 0 };
    if (fstat(r->fd, &sb) == 0)
        r->size = (uint64_t)sb.st_size;
#ifdef POSIX_FADV_SEQUENTIAL
    posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    unsigned char magic[2];
    if (pread(r->fd, magic, 2, 0) == 2 && gz_magic(magic, 2)) {
        r->gz_hint = gz_size_hint(r->fd, r->size);
        if (!(r->gz = gz_stream_open_fd(r->fd))) {
            diag_out_of_memory(d, path, "out of memory");
            close(r->fd);
            free(r);
            return -1;
        }
    }
    /* read in place where the file can be mapped; small files are not worth a mapping */
    struct mapped_file map = { NULL, 0, -1 };
    if (!r->gz && S_ISREG(sb.st_mode) && r->size >= tj_map_min_size && mapped_file_open(&map, r->fd, r->size)) {
        r->view = map.data;
        r->map = &map;
    }
    int rc = load(r);
    if (said_shrunk(r, &map) && !r->nevents)
        rc = -1;
    mapped_file_close(&map);
    gz_stream_close(r->gz);
    close(r->fd);
    free(r);
    return rc;
}

int trace_json_load_buffer(struct model *m, const char *name, const char *buf, size_t len, struct diag *d)
{
    struct rd *r = calloc(1, sizeof *r);
    if (!r)
        return -1;
    r->m = m;
    r->d = d;
    r->path = name ? name : "";
    r->fd = -1;
    r->view = buf;
    r->size = len;
    if (!len)
        r->eof = true;
    if (gz_magic(buf, len)) {
        r->view = NULL;   /* read through the decompressor */
        if (!(r->gz = gz_stream_open_mem(buf, len))) {
            free(r);
            return -1;
        }
    }
    int rc = load(r);
    gz_stream_close(r->gz);
    free(r);
    return rc;
}
