/* DB captures: ascend_pytorch_profiler_*.db, msprof_*.db and analysis.db (SQLite files, also
 * with a .dat extension) read into the same model and tables as the JSON/CSV readers.
 *
 * Data flow: db_load opens the file strictly read-only and immutable (a URI with
 * mode=ro&immutable=1, so nothing is ever created or changed next to the capture, even for
 * WAL-mode files), reads META_DATA for the schema version, resolves STRING_IDS and ENUM_*
 * tables, then streams each timeline table it finds with one statement loop per table,
 * querying columns by name (PRAGMA table_info first; an absent column degrades and is
 * reported). Rows become model calls on a model created with TIME_UNIX_NS:
 *
 *   PYTORCH_API            process "Python" (pid = globalTid >> 32), lane per thread id
 *   CANN_API               process "CANN", lane per thread id; cat = ENUM_API_TYPE name
 *   TASK                   process "Ascend Hardware" per device, lane "Stream N"; named from
 *                          COMPUTE_TASK_INFO.name (joined by globalTaskId), else
 *                          COMMUNICATION_TASK_INFO.name, else the task type string. A row
 *                          with neither info row whose connectionId is shared by tasks that
 *                          have one, or by a COMMUNICATION_OP, encloses that work (a MIX
 *                          kernel's outer record, a collective's op-level record) and is not
 *                          drawn, as in the text export (counted in one diagnostic)
 *   COMMUNICATION_OP       process "Communication", lane per group name
 *   OVERLAP_ANALYSIS       process "Overlap Analysis" per device, lanes Computing /
 *                          Communication / Communication(Not Overlapped) / Free; without
 *                          rows there, the same lanes computed from the tasks (db_overlap.h)
 *   MSTX_EVENTS            process "MSTX", lane per thread id (markers as 0-length slices)
 *   STEP_TIME              slices "ProfilerStep#N" on lane "Steps" of process "Python",
 *                          only when PYTORCH_API has no ProfilerStep# op of its own
 *   AICORE_FREQ, NPU_MEM,  counter tracks, one process per family, unit in every series name
 *   HBM, LLC, DDR, ...     (io/db/db_counters.h)
 *
 * Flows are added end to end with model_add_flow_direct (the DB already says which slice
 * links to which): "async_npu" PyTorch op → task (PYTORCH_API.connectionId → CONNECTION_IDS
 * → TASK.connectionId), "HostToDevice" CANN API → task (CANN_API.connectionId =
 * TASK.connectionId, the deepest API when several share an id), "async_task_queue"
 * Enqueue → Dequeue (two PYTORCH_API rows sharing a connection id), "fwdbwd" forward op →
 * backward op (two other PYTORCH_API rows sharing one, the earlier first).
 *
 * Slices made from a table row keep its rowid and table (io/db/db_fields.h) for the detail pane.
 *
 * The kernel table (TK_KERNELS) has one row per COMPUTE_TASK_INFO row, with the columns of
 * kernel_details.csv (Name, Type, Accelerator Core, Start Time(us), Duration(us),
 * Wait Time(us), Block Dim, Mix Block Dim, Input/Output Shapes, Data Types, Formats, Stream
 * ID, Task ID, Model ID, Context ID, Device_id), times filled from the joined TASK row (Unix
 * ns). Rows without a TASK keep missing times and are counted in one diagnostic. After them,
 * one row per COMMUNICATION_OP (Accelerator Core "HCCL"), as kernel_details.csv has; then a
 * column per TASK_PMU_INFO name (io/db/db_pmu.h).
 *
 * Progress: p->events grows with every row read; p->bytes_done estimates the share of rows
 * read. p->cancel is polled every few thousand rows. Nothing is written anywhere. */
#ifndef APTOP_DB_READER_H
#define APTOP_DB_READER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/index/diag.h"
#include "model/index/progress.h"
#include "model/index/session.h"

/* True when the file starts with the SQLite header "SQLite format 3\0" (any extension). */
bool db_is_sqlite(const char *path);

/* Reads a profiler DB into rd: rd->model (finalized, when the DB has timeline tables; an
 * existing rd->model is left alone and the timeline is skipped) and rd->tables[TK_KERNELS]
 * (when COMPUTE_TASK_INFO has rows and no kernel table is there yet). p may be NULL.
 * Returns 0 when something was loaded, -1 otherwise (reasons in d). */
int db_load(const char *path, struct rank_data *rd, struct diag *d, struct load_progress *p);
/* With two or more cores, the COMPUTE_TASK_INFO columns of the kernel table are read by a
 * second thread on its own read-only connection while TASK is read, when the table has at
 * least min_rows rows (default 200000; 0 always, UINT64_MAX never). The result is the same
 * either way. Not thread-safe: tests and benches set it before loading. */
void db_set_parallel(uint64_t min_rows);

/* --- analysis.db (torch_npu) ----------------------------------------------------------- */

/* StepTraceTime: one row per step (and device in cluster files). Figures are µs as stored
 * (the stage equals computing + communication_not_overlapped + free). NaN when absent. */
struct db_step_trace {
    char *step;                 /* TEXT as written ("50"), "" when NULL */
    int64_t device;             /* deviceId column, -1 when absent */
    double computing, communication_not_overlapped, overlapped, communication, free_,
           stage, bubble, communication_not_overlapped_and_exclude_receive, preparing;
};

/* CommAnalyzerTime: one row per communication op. start_us is Unix µs; the rest are ms. */
struct db_comm_time {
    char *op_name, *group, *step, *type;          /* hccl_op_name, group_name, step, type */
    double start_us, elapse_ms, transit_ms, wait_ms, sync_ms, idle_ms;
};

/* CommAnalyzerBandwidth: per op and transport type (and package size bucket).
 * Sizes MB, times ms, bandwidth GB/s. */
struct db_comm_bw {
    char *op_name, *group, *transport, *step, *type;
    double transit_size_mb, transit_time_ms, bandwidth_gbps, large_packet_ratio,
           package_size_mb, count, total_duration_ms;
};

/* CommAnalyzerMatrix: per op group and link; ranks are TEXT in the file. */
struct db_comm_matrix {
    char *op_name, *group, *src_rank, *dst_rank, *transport, *step, *type, *full_op_name;
    double transit_size_mb, transit_time_ms, bandwidth_gbps;
};

struct db_analysis {
    char *path;
    struct db_step_trace *steps;  size_t nsteps;
    struct db_comm_time *times;   size_t ntimes;
    struct db_comm_bw *bws;       size_t nbws;
    struct db_comm_matrix *mats;  size_t nmats;
};

/* Reads every analysis table present; NULL when the file cannot be opened or has none of
 * them (reason in d). Free with db_analysis_free. */
struct db_analysis *db_analysis_read(const char *path, struct diag *d);
void db_analysis_free(struct db_analysis *a);

/* The CommAnalyzerTime / CommAnalyzerBandwidth / CommAnalyzerMatrix rows of a
 * db_analysis_read result appended to *io_comm as comm_load does (io/tables/comm_json.h). Op keys
 * are "hccl_op_name@group_name" as in communication.json; the bandwidth rows of one op and
 * transport (one per package size) become its Size Distribution. Ratios the tables do not
 * hold stay absent. */
int comm_add_db_analysis(const struct db_analysis *a, struct comm **io_comm, struct diag *d);
/* Reads analysis.db with db_analysis_read and appends its figures; 0, or -1. */
int comm_load_db(const char *path, struct comm **io_comm, struct diag *d);

/* Reads analysis.db into rd: StepTraceTime becomes rd->tables[TK_STEP_TRACE] (columns named
 * as in step_trace_time.csv, µs) when no such table is there yet; CommAnalyzerTime,
 * -Bandwidth and -Matrix are appended to rd->comm (created when NULL) with
 * comm_add_db_analysis. Returns 0 when something loaded, -1 otherwise. */
int db_load_analysis(const char *path, struct rank_data *rd, struct diag *d);

#endif
