/* The index cache's byte level: see cache_io.h. */
#include "io/cache_io.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

void cache_sum_init(struct cache_sum *s)
{
    memset(s, 0, sizeof *s);
}

void cache_sum_add(struct cache_sum *s, const void *p, size_t n)
{
    const unsigned char *c = p;
    size_t i = 0;
    uint64_t w[4];
    for (; i + 32 <= n; i += 32) {
        memcpy(w, c + i, 32);
        for (int k = 0; k < 4; k++) {
            s->a[k] += w[k];
            s->b[k] += s->a[k];
        }
    }
    for (; i + 8 <= n; i += 8) {
        memcpy(w, c + i, 8);
        s->a[0] += w[0];
        s->b[0] += s->a[0];
    }
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
