/* Large arrays on huge pages: see huge_pages.h. */
#include "util/huge_pages.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

void *huge_alloc(size_t bytes)
{
    if (bytes < HUGE_MIN)
        return malloc(bytes ? bytes : 1);
    if (bytes > SIZE_MAX - HUGE_PAGE)
        return NULL;
    bytes = (bytes + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
    void *p = NULL;
    if (posix_memalign(&p, HUGE_PAGE, bytes) != 0)
        return NULL;
    huge_advise(p, bytes);
    return p;
}

void huge_advise(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (p && bytes >= HUGE_MIN) {
        uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
        uintptr_t e = ((uintptr_t)p + bytes) & ~(uintptr_t)4095;
        if (e > a)
            madvise((void *)a, e - a, MADV_HUGEPAGE);
    }
#else
    (void)p;
    (void)bytes;
#endif
}
