/* The index cache's byte level, shared by its model and table writers and readers: a
 * buffered writer that pads every block to 8 bytes and sums what it writes, and a reader
 * over the mapped file that hands out blocks only when they lie wholly inside it. */
#ifndef APTOP_CACHE_IO_H
#define APTOP_CACHE_IO_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/index/progress.h"
#include "model/index/strtab.h"

/* Every time a cache file holds (a slice's start and duration, the span, the clock shift)
 * lies strictly within this many ns of zero (146 years): two of them add or subtract without
 * overflow. A file with a time beyond it is refused. */
#define CACHE_NS_LIMIT ((int64_t)1 << 62)

static inline size_t pad8(size_t n) { return (n + 7) & ~(size_t)7; }

/* Fletcher-style sums of 8-byte words in four lanes (a word's value and its position both
 * count), cheap enough to run at memory speed; it finds damage, not forgery. */
struct cache_sum { uint64_t a[4], b[4]; };
void cache_sum_init(struct cache_sum *s);
/* n is a multiple of 8; chunks that are multiples of 32 sum as one pass over them all. */
void cache_sum_add(struct cache_sum *s, const void *p, size_t n);
uint64_t cache_sum_end(const struct cache_sum *s);
/* cache_sum_add over n bytes of fd from offset off (n a multiple of 8), read through a small
 * buffer, in two halves on two threads when large. -1 when the file is shorter. */
int cache_sum_file(int fd, uint64_t off, uint64_t n, struct cache_sum *s);

struct cw {
    int fd;
    unsigned char *buf;
    size_t used, cap;
    uint64_t written;         /* bytes written after the header */
    struct cache_sum sum;
    struct load_progress *p;  /* cancelled: the writer fails at its next flush */
    bool failed;
};
void cw_flush(struct cw *w);
/* Appends n bytes as they are. */
void cw_bytes(struct cw *w, const void *data, size_t n);
/* Zeros up to the next 8-byte boundary of the output. */
void cw_align(struct cw *w);
/* One block: its bytes, then padding, so the next block starts aligned. */
void cw_put(struct cw *w, const void *data, size_t n);
/* A string table: its n lengths (u32), then its bytes, each part padded. */
void cw_strings(struct cw *w, const struct strtab *t, uint32_t n);
uint64_t cache_strings_bytes(const struct strtab *t, uint32_t n);

struct cr {
    unsigned char *base;
    size_t len, off;
    bool bad;
    const char *why;          /* the first thing found wrong */
};
/* The next n bytes (padded to 8), or NULL (and bad) when they are not all in the file. */
void *cr_take(struct cr *r, uint64_t n, const char *what);
/* n elements of size sz, the multiplication checked. */
void *cr_take_n(struct cr *r, uint64_t n, size_t sz, const char *what);
/* Marks the file bad; returns false. */
bool cr_fail(struct cr *r, const char *why);
/* Interns nstr strings (written by cw_strings, str_bytes in all) into t, which holds only
 * the empty string, so that each gets its old id. */
bool cr_strings(struct cr *r, struct strtab *t, uint64_t nstr, uint64_t str_bytes);
/* The largest value of a[0..n), 0 when n is 0. */
uint32_t cache_max_u32(const uint32_t *a, size_t n);

#endif
