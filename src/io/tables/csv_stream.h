/* Streaming CSV: a file (or a buffer) read in 1 MiB chunks and handed out one record at a
 * time, so a multi-GB file costs a chunk of memory, not its size. For readers that keep
 * aggregates, not rows (the memory readers); csv_table.c is the reader that keeps tables.
 *
 * Records are split on ',' (or ';' / TAB when the first line has none of ','); a quoted field
 * may hold separators, "" and line breaks. A UTF-8 BOM, CRLF line ends and blank lines are
 * skipped. A record longer than CSV_STREAM_MAX_RECORD is reported once and skipped. Fields
 * point into the chunk and are valid only during the callback. */
#ifndef APTOP_CSV_STREAM_H
#define APTOP_CSV_STREAM_H
#include <stddef.h>
#include <stdint.h>

#include "model/index/progress.h"

#define CSV_STREAM_MAX_RECORD (16u << 20)
#define CSV_STREAM_MAX_FIELDS 256

struct csv_field {
    const char *s;
    size_t len;
};

/* Called per record with its fields and the line it starts on (1-based). Returns 0 to go on,
 * nonzero to stop. */
typedef int (*csv_record_fn)(void *ctx, const struct csv_field *f, size_t n, uint64_t line);

struct csv_stream_result {
    uint64_t records, lines, bytes;
    uint64_t skipped_long;       /* records over the limit */
    uint64_t first_long_line;
    int error;                   /* errno of a failed open/read, 0 */
    int stopped;                 /* the callback asked to stop */
};

/* Streams path through fn. p (may be NULL) gets bytes_done; a set p->cancel stops it.
 * Returns 0, or -1 when the file cannot be opened or read (r->error). */
int csv_stream_file(const char *path, csv_record_fn fn, void *ctx, struct load_progress *p,
                    struct csv_stream_result *r);
/* The same over a buffer. */
int csv_stream_buffer(const char *buf, size_t len, csv_record_fn fn, void *ctx,
                      struct csv_stream_result *r);

#endif
