/* Kernel figures: aggregations of a kernels table (kernel_details.csv, op_summary_*.csv or
 * the DB's task tables, see model/index/table.h for the keys it reads) or, when a rank has none,
 * of the trace model's device lanes; the join of table rows to trace slices; and rowsets of
 * the other CSV tables (operator_details, api_statistic, step_trace_time).
 *
 * Times are summed exactly in int64 ns. Every function returns a new rowset the caller
 * frees (NULL when the input lacks what it needs or memory ran out); none changes its
 * input except kernels_join. Rowset links: for kernel instances the joined slice index
 * (UINT64_MAX when not joined). */
#ifndef APTOP_KERNELS_H
#define APTOP_KERNELS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/index/diag.h"
#include "model/index/model.h"
#include "model/rowsets/rowset.h"
#include "model/index/table.h"

enum kernels_group { KG_NAME, KG_TYPE, KG_CORE };

/* Per name (or type, or accelerator core): count, total_us, mean_us, min_us, max_us,
 * share (of the table's summed duration), type/core when the table has them (KG_NAME), and
 * the mean of the PMU columns present (aicore_time_us, aic_mac_ratio, aiv_vec_ratio,
 * memory_bound, ...). Sorted by total descending. Rows without a duration are left out. */
struct rowset *kernels_aggregate(const struct table *kernels, enum kernels_group g);
/* Per name over the slices of the model's device lanes ("Ascend Hardware"). */
struct rowset *kernels_aggregate_model(const struct model *m);
/* A rank's kernels by name as `report --section kernels` gives them: from the kernels table
 * when it has rows, else from the trace's device lanes (rows as kernels_aggregate). */
struct rowset *kernels_rank(const struct table *kernels, const struct model *m);
/* The device busy time of a rank, the denominator of every kernel share: the union of all
 * kernel intervals from the same source as kernels_rank. False (busy 0) when that source
 * has no start times. *source (may be NULL) names the source. */
bool kernels_busy(const struct table *kernels, const struct model *m, ns_t *busy, const char **source);
/* One row per kernel (every column of the table), linked to its joined slice. */
struct rowset *kernels_instances(const struct table *kernels);
/* The instances behind one kernels_aggregate row: the rows whose name (KG_NAME), type or
 * accelerator core is `key`, every column, linked like kernels_instances. O(rows).
 * NULL when the table has no such text column. */
struct rowset *kernels_instances_of(const struct table *kernels, enum kernels_group g, const char *key);
/* The slices named `name` on the model's device lanes: name, lane, start_us, duration_us,
 * each row linked to its slice. */
struct rowset *kernels_instances_model(const struct model *m, const char *name);

/* operator_details.csv per name: count and summed host/device self/total times. */
struct rowset *kernels_operator_details(const struct table *t);
/* api_statistic rows: level, name, count, total_us, avg/min/max_us, variance; by total. */
struct rowset *kernels_api_statistic(const struct table *t);
/* step_trace_time rows as written (times in µs → ns). */
struct rowset *kernels_step_trace(const struct table *t);

/* The same over every rank of a session, or only rank `rank` (rank < 0: all); rows carry
 * "rank" first when the session has several ranks. Kernels by name from each rank's kernels
 * table, else its trace's device lanes, by total; ops from operator_details, else the
 * op_statistic rows by type. */
struct session;
struct rowset *kernels_session_rowset(const struct session *s, int rank);
/* Where a rank's kernels table counts other than its steps: the table lists `table_calls`
 * kernels while the steps count the device tasks of the timeline (steps.h); writes a caption
 * note saying both into buf ("" when they agree, or without a table or steps). */
struct rank_data;
void kernels_count_note(const struct rank_data *rd, uint64_t table_calls, char *buf, size_t size);
struct rowset *kernels_ops_session_rowset(const struct session *s, int rank);
struct rowset *kernels_apis_session_rowset(const struct session *s, int rank);
struct rowset *kernels_step_trace_session_rowset(const struct session *s, int rank);

/* Matches each table row to the device-lane (for collectives, communication-lane) slice of
 * the same name starting within 1 µs (nearest first, each slice used once) and stores it in
 * kernels->slice. Says in d how many rows joined. Returns the count. Run it before the table is shared with other threads. */
int kernels_join(struct table *kernels, const struct model *m, struct diag *d);
/* The table row joined to slice s, or SIZE_MAX. O(log n). */
size_t kernels_row_for_slice(const struct table *kernels, uint32_t slice);

#endif
