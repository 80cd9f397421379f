/* The one read-until-done loop: a short read or an interrupted one (EINTR) is followed by
 * another until the bytes asked for, the end of the file or an error. */
#ifndef APTOP_UTIL_READ_FULL_H
#define APTOP_UTIL_READ_FULL_H
#include <stddef.h>

/* Reads up to n bytes of fd into buf from its current offset; the count read (less than n
 * at the end of the file or on an error). */
size_t read_full(int fd, void *buf, size_t n);
/* The same from offset off (pread: the file offset is not moved). */
size_t pread_full(int fd, void *buf, size_t n, long long off);

#endif
