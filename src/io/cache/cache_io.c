/* The index cache's byte level: see cache_io.h. */
#include "io/cache/cache_io.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cache_sum_init(struct cache_sum *s)
{
    memset(s, 0, sizeof *s);
}

/* The sums are kept in locals (not through s, which the compiler must assume the bytes could
 * alias) and the bytes 2 KiB ahead are prefetched: over a large block the loop waits on
 * memory, and the hardware's prefetch stops at each 4 KiB page. */
void cache_sum_add(struct cache_sum *s, const void *p, size_t n)
{
    enum { AHEAD = 2048 };
    const unsigned char *c = p;
    size_t i = 0;
    uint64_t a[4], b[4], w[4];
    memcpy(a, s->a, sizeof a);
    memcpy(b, s->b, sizeof b);
    for (; i + 32 <= n; i += 32) {
        if (i % 64 == 0 && i + AHEAD < n)
            __builtin_prefetch(c + i + AHEAD);
        memcpy(w, c + i, 32);
        for (int k = 0; k < 4; k++) {
            a[k] += w[k];
            b[k] += a[k];
        }
    }
    for (; i + 8 <= n; i += 8) {
        memcpy(w, c + i, 8);
        a[0] += w[0];
        b[0] += a[0];
    }
    memcpy(s->a, a, sizeof a);
    memcpy(s->b, b, sizeof b);
}

/* A thread's half of cache_sum_file: [off, off + n) summed from zero sums. */
struct sum_job { int fd; uint64_t off, n; struct cache_sum s; int rc; };

static void *sum_range(void *arg)
{
    enum { CHUNK = 256u << 10 };   /* a multiple of 32, and within the caches */
    struct sum_job *j = arg;
    unsigned char *buf = malloc(CHUNK);
    cache_sum_init(&j->s);
    j->rc = buf ? 0 : -1;
    for (uint64_t done = 0; buf && done < j->n;) {
        size_t want = j->n - done < CHUNK ? (size_t)(j->n - done) : CHUNK;
        ssize_t got = pread(j->fd, buf, want, (off_t)(j->off + done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0 || (size_t)got != want) {   /* short: the file shrank meanwhile */
            j->rc = -1;
            break;
        }
        cache_sum_add(&j->s, buf, want);
        done += want;
    }
    free(buf);
    return NULL;
}

/* Summing the mapped file itself was slower than reading it into a buffer: the first touch of
 * each page of a new mapping costs more than the kernel's copy (a 182 MiB cache: 0.09 s
 * against 0.05 s on one thread). The halves' sums join exactly: the second's position sums
 * (b) grow by the first's word sums (a) once for every word the second adds to a lane. */
int cache_sum_file(int fd, uint64_t off, uint64_t n, struct cache_sum *s)
{
    struct sum_job first = { .fd = fd, .off = off, .n = n }, second = first;
    if (n < (32u << 20)) {   /* small: one thread */
        first.n = n;
        sum_range(&first);
        *s = first.s;
        return first.rc;
    }
    first.n = (n / 2) & ~(uint64_t)31;
    second.off = off + first.n;
    second.n = n - first.n;
    pthread_t th;
    bool threaded = pthread_create(&th, NULL, sum_range, &second) == 0;
    sum_range(&first);
    if (threaded)
        pthread_join(th, NULL);
    else
        sum_range(&second);
    uint64_t blocks = second.n / 32, tail_words = second.n % 32 / 8;
    for (int k = 0; k < 4; k++) {
        uint64_t words = blocks + (k == 0 ? tail_words : 0);
        s->a[k] = first.s.a[k] + second.s.a[k];
        s->b[k] = first.s.b[k] + second.s.b[k] + words * first.s.a[k];
    }
    return first.rc < 0 || second.rc < 0 ? -1 : 0;
}

uint64_t cache_sum_end(const struct cache_sum *s)
{
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (int k = 0; k < 4; k++) {
        h = (h ^ s->a[k]) * 0xff51afd7ed558ccdull;
        h = (h ^ s->b[k]) * 0xc4ceb9fe1a85ec53ull;
        h ^= h >> 33;
    }
    return h;
}

void cw_flush(struct cw *w)
{
    if (w->failed || !w->used)
        return;
    cache_sum_add(&w->sum, w->buf, w->used);
    size_t off = 0;
    while (off < w->used) {
        ssize_t k = write(w->fd, w->buf + off, w->used - off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            w->failed = true;
            return;
        }
        off += (size_t)k;
    }
    w->written += w->used;
    w->used = 0;
    if (progress_cancelled(w->p))
        w->failed = true;
}

void cw_bytes(struct cw *w, const void *data, size_t n)
{
    const unsigned char *d = data;
    for (size_t done = 0; done < n && !w->failed;) {
        if (w->used == w->cap)
            cw_flush(w);
        size_t k = n - done < w->cap - w->used ? n - done : w->cap - w->used;
        memcpy(w->buf + w->used, d + done, k);
        w->used += k;
        done += k;
    }
}

void cw_align(struct cw *w)
{
    static const unsigned char zeros[8];
    size_t at = (size_t)(w->written + w->used) % 8;
    if (at)
        cw_bytes(w, zeros, 8 - at);
}

void cw_put(struct cw *w, const void *data, size_t n)
{
    cw_bytes(w, data, n);
    cw_align(w);
}

void cw_strings(struct cw *w, const struct strtab *t, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t len = (uint32_t)strtab_len(t, i);
        cw_bytes(w, &len, sizeof len);
    }
    cw_align(w);
    for (uint32_t i = 0; i < n; i++)
        cw_bytes(w, strtab_get(t, i), strtab_len(t, i));
    cw_align(w);
}

uint64_t cache_strings_bytes(const struct strtab *t, uint32_t n)
{
    uint64_t b = 0;
    for (uint32_t i = 0; i < n; i++)
        b += strtab_len(t, i);
    return b;
}

void *cr_take(struct cr *r, uint64_t n, const char *what)
{
    if (r->bad)
        return NULL;
    if (n > r->len || pad8((size_t)n) > r->len - r->off) {
        r->bad = true;
        r->why = what;
        return NULL;
    }
    void *p = r->base + r->off;
    r->off += pad8((size_t)n);
    return p;
}

void *cr_take_n(struct cr *r, uint64_t n, size_t sz, const char *what)
{
    if (sz && n > (uint64_t)SIZE_MAX / sz) {
        r->bad = true;
        r->why = what;
        return NULL;
    }
    return cr_take(r, n * sz, what);
}

bool cr_fail(struct cr *r, const char *why)
{
    r->bad = true;
    if (!r->why)
        r->why = why;
    return false;
}

bool cr_strings(struct cr *r, struct strtab *t, uint64_t nstr, uint64_t str_bytes)
{
    if (nstr == 0 || nstr > UINT32_MAX || nstr > r->len)
        return cr_fail(r, "impossible string counts");
    const uint32_t *lens = cr_take_n(r, nstr, sizeof(uint32_t), "string lengths");
    const char *bytes = cr_take(r, str_bytes, "strings");
    if (!lens || !bytes)
        return false;
    if (lens[0] != 0)
        return cr_fail(r, "string 0 is not the empty string");
    uint64_t off = 0;
    for (uint64_t i = 0; i < nstr; i++) {
        if (lens[i] > str_bytes - off)
            return cr_fail(r, "a string past the string block");
        if (i > 0 && strtab_intern(t, bytes + off, lens[i]) != i)
            return cr_fail(r, "strings repeated or out of memory");
        off += lens[i];
    }
    if (off != str_bytes)
        return cr_fail(r, "string bytes left over");
    return true;
}

uint32_t cache_max_u32(const uint32_t *a, size_t n)
{
    uint32_t mx = 0;
    for (size_t i = 0; i < n; i++)
        mx = a[i] > mx ? a[i] : mx;
    return mx;
}
