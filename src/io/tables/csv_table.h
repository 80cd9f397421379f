/* Tables: the files of a rank that are not its timeline. Data flow: the loader's reader
 * functions (io/load/readers_files.c) hand each file here by kind; every CSV file goes through
 * csv_stream.h (libcsv records, one separator guess, one set of stream diagnostics) into a
 * typed table (this file) or into the memory model's aggregates (memory_read.h); the JSON
 * files become communication ops (comm_json.h), process groups (pgroups_json.h), clock
 * offsets (clock_files.h) and other hosts' summaries (summary_json.h). Each result is built
 * privately and handed to the loader, which installs it in the session.
 *
 * CSV reader: one CSV file (or several parts of one) into a typed table (model/index/table.h).
 *
 * Headers are matched by name through the table's alias table, never by position. Each
 * known column gets its type from its name (times in µs such as "Duration(us)" → exact ns,
 * counts and ratios → numbers, names and shapes → text); unknown columns are numbers when
 * every non-empty cell is one, else text. Real-file quirks handled: UTF-8 BOM, CRLF or LF,
 * a TAB after timestamp cells, quoted cells over several lines, N/A / host / empty cells,
 * E-notation numbers (times from them are flagged approximate), ragged rows (kept, missing
 * cells empty), GBK text (converted to UTF-8), a file using ';' or TAB as separator.
 *
 * Problems go to d naming the file, line and column; every readable row is kept. */
#ifndef APTOP_CSV_TABLE_H
#define APTOP_CSV_TABLE_H
#include <stddef.h>

#include "model/index/diag.h"
#include "model/index/progress.h"
#include "model/index/session.h"
#include "model/index/table.h"

/* Reads path into a new table of the given kind. Returns 0 and sets *out (free with
 * table_free), or -1 with *out = NULL when nothing usable was read: file unreadable, empty,
 * binary, without a header, or without a column the kind requires (e.g. Name and
 * Duration(us) for TK_KERNELS). p may be NULL; when p->cancel is set it returns -1. */
int csv_table_load(const char *path, enum table_kind kind, struct table **out,
                   struct diag *d, struct load_progress *p);
/* Same from memory; name is used in diagnostics and as the table's path. */
int csv_table_load_buffer(const char *buf, size_t len, const char *name, enum table_kind kind,
                          struct table **out, struct diag *d);
/* Appends the rows of another part of the same table (Class B *_slice_N_* files): columns
 * are matched by canonical key, new ones are added. Returns 0, or -1 (t unchanged except
 * for rows already read when the failure came mid-file). */
int csv_table_append(const char *path, struct table *t, struct diag *d, struct load_progress *p);

#endif
