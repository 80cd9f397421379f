/* Reading the head (or the whole) of an open file without losing bytes to signals. */
#ifndef APTOP_FD_READ_H
#define APTOP_FD_READ_H
#include <stddef.h>

/* Up to n bytes of fd from its start into buf, resuming reads a signal cut short; returns how
 * many were read (fewer at the end of the file). A read error ends it early: *err (may be
 * NULL) gets its errno, else 0. */
size_t fd_read_head(int fd, char *buf, size_t n, int *err);

#endif
