/* Rowsets of the memory figures (model/analysis/memory.h), shared by the report sections and the
 * Memory view. Each builder appends to `into` when given (same columns), else makes a new
 * rowset; rows link to the series / operator / static entry index. NULL when memory ran out. */
#ifndef APTOP_MEMORY_ROWSETS_H
#define APTOP_MEMORY_ROWSETS_H
#include <stddef.h>

#include "model/analysis/memory.h"
#include "model/rowsets/rowset.h"

enum mem_order { MO_FILE, MO_SIZE, MO_COST };

/* One row per curve: rank, source, component, peak_allocated_mb, peak_reserved_mb,
 * peak_active_mb, peak_at_us, peak_reserved_at_us, first_us, last_us, rows, curve_points. */
struct rowset *memory_series_rowset(const struct memory *m, int rank, struct rowset *into);
/* One row per operator allocation: rank, name, component, size_kb, alloc_us, release_us,
 * lifetime_us, active_release_us, active_lifetime_us, size_x_lifetime_kb_ms, the totals at
 * allocation and release (MB), line. */
struct rowset *memory_ops_rowset(const struct memory *m, int rank, enum mem_order order, struct rowset *into);
/* The first max rows of that order (the Memory view's rankings: a table of millions of rows
 * would cost more than the screen needs); the caption says how many there are. */
struct rowset *memory_ops_top_rowset(const struct memory *m, int rank, enum mem_order order, size_t max);
/* The operators alive at t, largest first (at most max rows); the caption counts them all. */
struct rowset *memory_alive_rowset(const struct memory *m, int rank, ns_t t, size_t max);
/* One row per static graph allocation (static_op_mem.csv). */
struct rowset *memory_static_rowset(const struct memory *m, int rank, struct rowset *into);

struct session;
/* Every rank side by side (only_rank < 0: all of them): rank, component and peaks of its main
 * memory_record curve (memory_main_series), peak_at_us, above_lowest_allocated_mb (its
 * allocated peak minus the lowest rank's), op_allocations, largest_allocation_kb and its name,
 * static_kb; the caption names the rank with the highest allocated peak. NULL when no rank has
 * memory data. */
struct rowset *memory_ranks_rowset(const struct session *s, int only_rank);

#endif
