/* A trace file read through a read-only mapping instead of read() into a buffer: the scanner
 * reads the page cache where it lies (no copy into user memory). A file that shrinks while it
 * is mapped would raise SIGBUS on its lost pages; a handler puts zero pages there instead and
 * marks the mapping, so the reader meets zeros (an error at that byte, or the file ending
 * inside an event) and the load says that the file shrank. */
#ifndef APTOP_TRACE_JSON_MAP_H
#define APTOP_TRACE_JSON_MAP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trace_map {
    const char *p;   /* the file's bytes [0, len) */
    size_t len;
    int slot;        /* the guard's record of it */
};

/* Maps the first len bytes of fd (a regular file at least that long). Returns false, with m
 * unchanged, when it cannot be mapped or guarded (the caller reads it with read()). */
bool trace_map_open(struct trace_map *m, int fd, size_t len);
/* Whether pages of m were lost since it was mapped (the file shrank): they read as zeros. */
bool trace_map_shrank(const struct trace_map *m);
void trace_map_close(struct trace_map *m);

#endif
