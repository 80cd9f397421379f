/* Large arrays on transparent huge pages: filling one then takes a fault per 2 MiB instead of
 * per 4 KiB (on the development machine a first touch of a 4 KiB page costs about 10 µs),
 * and random reads miss the TLB less. Where the kernel has no huge pages this is plain
 * malloc. Memory from huge_alloc is freed and realloc'd as any other. */
#ifndef APTOP_UTIL_HUGE_PAGES_H
#define APTOP_UTIL_HUGE_PAGES_H
#include <stddef.h>

/* Arrays of HUGE_MIN bytes or more are given huge pages (HUGE_PAGE bytes each). */
enum { HUGE_PAGE = 2u << 20, HUGE_MIN = 2u << 20 };

/* malloc; a large array starts on a huge page boundary and spans whole huge pages (malloc's
 * own mappings start anywhere, and the kernel maps the part before the first boundary and
 * after the last one with small pages, a fault each). */
void *huge_alloc(size_t bytes);
/* Asks for huge pages over the bytes of an array already allocated (when large). */
void huge_advise(void *p, size_t bytes);

#endif
