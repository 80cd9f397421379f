#include "util/read_full.h"

#include <errno.h>
#include <unistd.h>

/* The one loop of both: read (off < 0) or pread at off, until n bytes, an error or the end. */
static size_t io_full(int fd, void *buf, size_t n, long long off)
{
    size_t got = 0;
    while (got < n) {
        ssize_t k = off < 0 ? read(fd, (char *)buf + got, n - got)
                            : pread(fd, (char *)buf + got, n - got, (off_t)(off + (long long)got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    return got;
}

size_t read_full(int fd, void *buf, size_t n)
{
    return io_full(fd, buf, n, -1);
}

size_t pread_full(int fd, void *buf, size_t n, long long off)
{
    return off < 0 ? 0 : io_full(fd, buf, n, off);   /* pread refuses a negative offset */
}
