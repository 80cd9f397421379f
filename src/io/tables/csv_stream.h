/* Streaming CSV: the one CSV path. A file (or a buffer) is read in large chunks and tokenized
 * by libcsv; whole records are handed out one at a time, so a multi-GB file costs a chunk and
 * a record of memory, not its size. The memory readers keep aggregates from the records,
 * csv_table.c keeps them as a typed table.
 *
 * The separator is guessed once from the first line (csv_guess_delim). A quoted field may
 * hold separators, "" and line breaks; a UTF-8 BOM, CRLF or CR line ends and blank lines are
 * skipped; spaces around an unquoted field are trimmed. A record longer than
 * CSV_STREAM_MAX_RECORD is counted and skipped, never held. A NUL byte in the first 8 KiB
 * means a binary file: nothing is read. Fields are NUL-terminated and valid only during the
 * callback. csv_stream_diags turns what the result records into messages naming the file. */
#ifndef APTOP_CSV_STREAM_H
#define APTOP_CSV_STREAM_H
#include <stddef.h>
#include <stdint.h>

#include "model/index/diag.h"
#include "model/index/progress.h"

#define CSV_STREAM_MAX_RECORD (16u << 20)

struct csv_field {
    const char *s;      /* NUL-terminated */
    size_t len;
};

/* Called per record with its fields and the line it starts on (1-based). Returns 0 to go on,
 * nonzero to stop. */
typedef int (*csv_record_fn)(void *ctx, const struct csv_field *f, size_t n, uint64_t line);

struct csv_stream_result {
    uint64_t records, lines, bytes;
    uint64_t skipped_long;       /* records over the limit */
    uint64_t first_long_line;
    char delim;                  /* the separator read: ',', ';' or '\t' */
    uint64_t binary_at;          /* 1 + the offset of a NUL byte that stopped the read, or 0 */
    uint64_t unclosed_line;      /* line of a quoted field still open at the end, or 0 */
    int error;                   /* errno of a failed open/read (EISDIR: not a regular file), 0 */
    int open_failed;             /* error came from opening the file */
    int stopped;                 /* the callback asked to stop */
    int cancelled;               /* p->cancel stopped the read */
};

/* The separator of a header line (line[0..len), or up to its first line break): ',' unless
 * the line has none outside quotes and has ';' or TAB, then the more frequent of those. */
char csv_guess_delim(const char *line, size_t len);

/* Streams path through fn. p (may be NULL) gets bytes_total and bytes_done; a set p->cancel
 * stops it. Returns 0, or -1 when the file cannot be opened or read, is binary, or memory
 * ran out (r says which). */
int csv_stream_file(const char *path, csv_record_fn fn, void *ctx, struct load_progress *p,
                    struct csv_stream_result *r);
/* The same over a buffer. */
int csv_stream_buffer(const char *buf, size_t len, csv_record_fn fn, void *ctx,
                      struct csv_stream_result *r);

/* The messages r calls for, on path: errors for an unreadable or binary file, warnings for
 * another separator than ',', skipped long records and a quote never closed. */
void csv_stream_diags(const struct csv_stream_result *r, const char *path, struct diag *d);

#endif
