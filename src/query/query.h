/* SQL over the loaded index: the query engine shared by `aptop query`, the explorer's `:`
 * prompt and any later front end.
 *
 * Data flow: query_open(session) makes an in-memory SQLite database whose tables are virtual
 * tables over the session's own columns (model slices, lanes, flows, counters, the kernel
 * table, steps, memory allocations, communication ops): nothing is copied, a cell is read
 * from the index when SQLite asks for it. query_run(sql) steps the statement and fills a
 * rowset (model/rowsets/rowset.h) that the report writers print and the UI table widget
 * shows. The engine borrows the session: close it before any part it saw is freed.
 *
 * Tables (every time integer ns in the capture's own time base; the man page, QUERY TABLES,
 * lists every column):
 *   slice(id, ts, dur, name, category, track_id, depth, parent_id, rank)
 *   track, thread_track, counter_track, flow, counter, kernel, step, comm_op, memory
 * Functions: args(slice_id) the slice's args as a JSON object text, extract_arg(slice_id,
 * key) one of them; both read the slice's event from its file again (slice_fields.h).
 * Constraints pushed down to the index (xBestIndex): id = X on every table, rank on every
 * table, ts ranges on slice (a binary search per lane row); GROUP BY name over the slices of
 * one rank reads them grouped by name without a sort. */
#ifndef APTOP_QUERY_H
#define APTOP_QUERY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/index/session.h"
#include "model/rowsets/rowset.h"

struct query;

/* The engine over s (borrowed). NULL when SQLite or memory failed (err says why). */
struct query *query_open(const struct session *s, char *err, size_t errsz);
void query_close(struct query *q);

/* Runs sql (one statement) and returns its result: a column per result column (key and
 * title the column's name; a column read straight from a time column of a table is titled
 * "<name> (ns)"), at most limit rows (0: every row). Integers are RS_INT, reals RS_DEC (the
 * shortest exact text), text RS_STR; a column mixing kinds is text. The caption says how many
 * rows and whether the limit cut them. A row whose columns name a slice (a column read
 * from slice.id, flow.slice_out or flow.slice_in, or named slice_id) is linked to it
 * (query_link_*). NULL on an error, err saying it. */
struct rowset *query_run(struct query *q, const char *sql, size_t limit, char *err, size_t errsz);

/* A result row's link: QUERY_NO_LINK, or the slice it names as (rank index, slice index). */
#define QUERY_NO_LINK UINT64_MAX
/* A slice id of the slice table as (rank index into s->ranks, slice index of its model);
 * false when no loaded slice has that id. */
bool query_slice_of_id(const struct query *q, int64_t id, size_t *rank_index, uint32_t *slice);

#endif
