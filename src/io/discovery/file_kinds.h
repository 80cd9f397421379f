/* The kinds of file discovery tells apart, as one table: a new kind is one row here (plus its
 * reader in io/load/readers_files.c). Each user of the table expands the columns it needs:
 *
 *   id       the enum file_kind value (io/discovery/capture.h)
 *   name     its short name in --list and in diagnostics (file_kind_name)
 *   table    the table kind (model/index/table.h) a CSV file of this kind becomes, -1 when none
 *   read     when a rank's load reads it (io/load/readers_files.c): FR_* below
 *   reader   the function of io/load/readers_files.c that reads one such file, NULL when none does (a
 *            trace is read by the timeline stage, a summary by io/tables/summary_json.c)
 *   peak     the peak bytes loading it takes, from its size: FK_PEAK_* below (io/load/memcheck.c)
 *   loadable whether capture_file_loadable counts it (a file of any kind with a problem, or
 *            skipped, is not loadable)
 *   makes_rank whether it makes a folder that holds it directly a rank (io/discovery/capture_layout.c)
 *   half     which half of a rank read in two passes it belongs to: FH_* below (io/load/rank_split.c)
 *   unread   why --list says a file of it without a problem is not read, NULL to say nothing
 *
 * FK_COLUMN_LOOKUP below makes a column a lookup by kind. Rows are in the enum's order.
 * Discovery's rules for telling them apart (by name, header and first bytes) are in
 * io/discovery/capture_classify.c. */
#ifndef APTOP_FILE_KINDS_H
#define APTOP_FILE_KINDS_H

/* When a rank's loader reads a file of a kind. A rank is read from its text export (timeline
 * JSON and CSV tables) or from its SQLite export; the text one unless only the DB exists or
 * the user prefers the DB (--prefer db). */
enum file_read {
    FR_NEVER,       /* listed, never read */
    FR_TEXT,        /* read with the text export */
    FR_TEXT_MAIN,   /* the same, and it makes the text export the rank's choice */
    FR_DB_MAIN,     /* read only with the DB export, which it makes available */
    FR_BOTH,        /* read with either export */
};

/* The halves of a rank read in two passes (io/load/rank_split.h): the small files every view of
 * all ranks needs, read first, and the timeline with what is joined to it or as large. */
enum file_half {
    FH_SMALL,           /* the small half, when the rank is read from its text export */
    FH_SMALL_WITH_DB,   /* the small half, from either export */
    FH_TIMELINE,        /* the timeline half */
    FH_BOTH,            /* both: each half maps its times with it (the clock files) */
};

/* Peak bytes per file byte, measured with the bench files and fixtures (rounded up). */
#define FK_PEAK_INDEX(size)  ((size) / 2)       /* trace JSON: index 0.25-0.54 of it, peak RSS 0.35-0.5 */
#define FK_PEAK_DOM(size)    ((size) * 4)       /* JSON parsed whole as a cJSON DOM */
#define FK_PEAK_SQLITE(size) ((size) / 2 * 5)   /* SQLite: 2.2 (integers are compact on disk) */
#define FK_PEAK_TABLE(size)  (size)             /* CSV tables (0.85) and the rest */

#define FILE_KINDS(X) \
    /* id                   name                 table                read          reader              peak            loadable makes_rank half            unread */ \
    X(FK_UNKNOWN,           "unknown",           -1,                  FR_NEVER,     NULL,               FK_PEAK_TABLE,  false, false, FH_SMALL, \
      "not a timeline, table or database aptop reads") \
    /* trace_view.json, msprof_*.json, device_N timeline JSON */ \
    X(FK_TRACE_JSON,        "trace",             -1,                  FR_TEXT_MAIN, NULL,               FK_PEAK_INDEX,  true,  true,  FH_TIMELINE,      NULL) \
    /* kernel_details.csv */ \
    X(FK_KERNEL_DETAILS,    "kernel_details",    TK_KERNELS,          FR_TEXT_MAIN, read_table_file,    FK_PEAK_TABLE,  true,  true,  FH_TIMELINE,      NULL) \
    /* op_summary_*.csv (Class B), slices merged */ \
    X(FK_OP_SUMMARY,        "op_summary",        TK_KERNELS,          FR_TEXT_MAIN, read_table_file,    FK_PEAK_TABLE,  true,  true,  FH_TIMELINE,      NULL) \
    /* op_statistic.csv / op_statistic_*.csv */ \
    X(FK_OP_STATISTIC,      "op_statistic",      TK_OP_STATISTIC,     FR_TEXT,      read_table_file,    FK_PEAK_TABLE,  true,  true,  FH_SMALL,         NULL) \
    /* operator_details.csv */ \
    X(FK_OPERATOR_DETAILS,  "operator_details",  TK_OPERATOR_DETAILS, FR_TEXT,      read_table_file,    FK_PEAK_TABLE,  true,  true,  FH_TIMELINE,      NULL) \
    /* api_statistic.csv / api_statistic_*.csv */ \
    X(FK_API_STATISTIC,     "api_statistic",     TK_API_STATISTIC,    FR_TEXT,      read_table_file,    FK_PEAK_TABLE,  true,  true,  FH_SMALL,         NULL) \
    /* step_trace_time.csv / step_trace_*.csv */ \
    X(FK_STEP_TRACE_TIME,   "step_trace",        TK_STEP_TRACE,       FR_TEXT,      read_table_file,    FK_PEAK_TABLE,  true,  true,  FH_SMALL,         NULL) \
    /* task_time_*.csv */ \
    X(FK_TASK_TIME,         "task_time",         TK_TASK_TIME,        FR_TEXT,      read_table_file,    FK_PEAK_TABLE,  true,  true,  FH_TIMELINE,      NULL) \
    /* communication_statistic_*.csv */ \
    X(FK_COMM_STATISTIC,    "comm_statistic",    TK_COMM_STATISTIC,   FR_TEXT,      read_table_file,    FK_PEAK_TABLE,  true,  true,  FH_SMALL,         NULL) \
    /* memory_record, operator_memory, npu_module_mem, static_op_mem */ \
    X(FK_MEMORY_CSV,        "memory",            -1,                  FR_TEXT,      read_memory_csv,    FK_PEAK_TABLE,  true,  true,  FH_TIMELINE,      NULL) \
    /* any other csv (l2_cache, ...) listed but not interpreted */ \
    X(FK_OTHER_CSV,         "csv",               -1,                  FR_NEVER,     NULL,               FK_PEAK_TABLE,  false, false, FH_SMALL, \
      "a table aptop lists but does not interpret") \
    /* communication.json */ \
    X(FK_COMMUNICATION,     "communication",     -1,                  FR_BOTH,      read_communication, FK_PEAK_DOM,    true,  true,  FH_SMALL_WITH_DB, NULL) \
    /* communication_matrix.json */ \
    X(FK_COMM_MATRIX,       "comm_matrix",       -1,                  FR_BOTH,      read_comm_matrix,   FK_PEAK_DOM,    true,  true,  FH_SMALL_WITH_DB, NULL) \
    /* profiler_info*.json: read by discovery for the rank id */ \
    X(FK_PROFILER_INFO,     "profiler_info",     -1,                  FR_NEVER,     NULL,               FK_PEAK_TABLE,  false, false, FH_SMALL_WITH_DB, NULL) \
    /* profiler_metadata.json: read for the parallel groups only */ \
    X(FK_PROFILER_METADATA, "profiler_metadata", -1,                  FR_NEVER,     NULL,               FK_PEAK_TABLE,  false, false, FH_SMALL_WITH_DB, \
      "environment and parallel settings, not figures") \
    /* ascend_pytorch_profiler*.db (SQLite by content) */ \
    X(FK_DB_TORCH,          "db_torch",          -1,                  FR_DB_MAIN,   read_db_export,     FK_PEAK_SQLITE, true,  true,  FH_TIMELINE,      NULL) \
    /* msprof_*.db */ \
    X(FK_DB_MSPROF,         "db_msprof",         -1,                  FR_DB_MAIN,   read_db_export,     FK_PEAK_SQLITE, true,  true,  FH_TIMELINE,      NULL) \
    /* analysis.db */ \
    X(FK_DB_ANALYSIS,       "db_analysis",       -1,                  FR_BOTH,      read_analysis_db,   FK_PEAK_SQLITE, true,  true,  FH_SMALL_WITH_DB, NULL) \
    /* any other SQLite file (.dat included) */ \
    X(FK_DB_OTHER,          "db",                -1,                  FR_NEVER,     NULL,               FK_PEAK_SQLITE, true,  true,  FH_SMALL, \
      "an SQLite file without profiler tables (TASK, StepTraceTime, CommAnalyzer*)") \
    X(FK_OTHER_JSON,        "json",              -1,                  FR_NEVER,     NULL,               FK_PEAK_TABLE,  false, false, FH_SMALL, \
      "a JSON file aptop does not interpret") \
    /* info.json.N, start_info(.N), end_info(.N): device and host clocks (io/tables/clock_files.h) */ \
    X(FK_CLOCK,             "clock",             -1,                  FR_NEVER,     NULL,               FK_PEAK_TABLE,  false, true,  FH_BOTH,          NULL) \
    /* a rank's summary: an aptop JSON report (io/tables/summary_json.h) */ \
    X(FK_SUMMARY_JSON,      "summary",           -1,                  FR_TEXT,      NULL,               FK_PEAK_TABLE,  true,  true,  FH_SMALL,         NULL)

/* One column as the initializers of an array indexed by kind (for FK_COLUMN_LOOKUP). */
#define FK_COL_name(id, name, ...) [id] = name,
#define FK_COL_table(id, name, table, ...) [id] = table,
#define FK_COL_read(id, name, table, read, ...) [id] = read,
#define FK_COL_reader(id, name, table, read, reader, ...) [id] = reader,
#define FK_COL_loadable(id, name, table, read, reader, peak, loadable, ...) [id] = loadable,
#define FK_COL_makes_rank(id, name, table, read, reader, peak, loadable, makes_rank, ...) [id] = makes_rank,
#define FK_COL_half(id, name, table, read, reader, peak, loadable, makes_rank, half, ...) [id] = half,
#define FK_COL_unread(id, name, table, read, reader, peak, loadable, makes_rank, half, unread) [id] = unread,

/* Defines `static type fn(enum file_kind k)`: the value of FILE_KINDS' column for kind k,
 * fallback for a number outside the enum. E.g. FK_COLUMN_LOOKUP(kind_name, const char *,
 * name, "unknown"). */
#define FK_COLUMN_LOOKUP(fn, type, column, fallback) \
    static type fn(enum file_kind k) \
    { \
        static type const values[FK_COUNT] = { FILE_KINDS(FK_COL_##column) }; \
        return (unsigned)k < FK_COUNT ? values[k] : (fallback); \
    }

#endif
