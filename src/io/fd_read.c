#include "io/fd_read.h"

#include <errno.h>
#include <unistd.h>

size_t fd_read_head(int fd, char *buf, size_t n, int *err)
{
    size_t got = 0;
    if (err)
        *err = 0;
    while (got < n) {
        ssize_t r = pread(fd, buf + got, n - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && err)
            *err = errno;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    return got;
}
