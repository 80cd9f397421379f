/* Streaming gzip decompression for the readers: a thread inflates the compressed input
 * (a file descriptor or memory) into a small ring of blocks while the caller's thread copies
 * them out with gz_stream_read, so decompression and parsing run at once and the whole
 * decompressed data is never held. Concatenated gzip members are read as one stream.
 *
 * How the stream ended (complete, truncated, corrupt, trailing bytes, a read error) is kept
 * in struct gz_status with the compressed and decompressed byte counts at that point, so a
 * reader can keep what it parsed and say exactly where the data stopped. */
#ifndef APTOP_GZ_STREAM_H
#define APTOP_GZ_STREAM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True when buf starts with the gzip magic (1f 8b). */
bool gz_magic(const void *buf, size_t n);

enum gz_end {
    GZ_RUNNING,      /* not at the end yet */
    GZ_COMPLETE,     /* every member ended with its trailer */
    GZ_TRUNCATED,    /* the input ended inside a member */
    GZ_CORRUPT,      /* zlib rejected the data (msg says why) */
    GZ_TRAILING,     /* complete, then bytes that are not another gzip member (ignored) */
    GZ_IOERR,        /* reading the file failed (msg says why) */
    GZ_NOMEM,
    GZ_CANCELLED,
};

struct gz_status {
    enum gz_end end;
    uint64_t in_bytes;       /* compressed bytes consumed when it ended */
    uint64_t out_bytes;      /* decompressed bytes produced */
    char msg[128];
};

struct gz_stream;
/* Starts decompressing fd (read with pread from offset 0; the caller keeps it open until
 * gz_stream_close) or buf[0..len) (kept by the caller). NULL when memory ran out. */
struct gz_stream *gz_stream_open_fd(int fd);
struct gz_stream *gz_stream_open_mem(const void *buf, size_t len);
/* Copies up to n decompressed bytes into dst, waiting for the inflating thread. Returns the
 * count; 0 only at the end of the stream (then gz_stream_status says how it ended). */
size_t gz_stream_read(struct gz_stream *g, char *dst, size_t n);
/* Compressed bytes consumed so far (for progress; any thread). */
uint64_t gz_stream_in_done(const struct gz_stream *g);
/* How it ended; end is GZ_RUNNING before the last gz_stream_read returned 0. */
void gz_stream_status(const struct gz_stream *g, struct gz_status *st);
/* Stops the thread (if still running) and frees everything. NULL is fine. */
void gz_stream_close(struct gz_stream *g);

/* The decompressed size the gzip trailer announces (ISIZE, modulo 4 GiB, last member only):
 * a hint for reserving room, 0 when unknown. */
uint64_t gz_size_hint(int fd, uint64_t file_size);

/* Decompressed bytes [off, off + n) of the gzip file at path into dst, by inflating from
 * the start (no thread). Returns the count copied (less at the end of the data), or -1 when
 * the file cannot be read (err says why). For the first bytes of a file (discovery) and
 * one event's bytes on demand. */
long gz_read_range(const char *path, uint64_t off, char *dst, size_t n, char *err, size_t errsz);

#endif
