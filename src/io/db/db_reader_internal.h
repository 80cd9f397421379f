/* Private to the DB reader's files: db_reader.c (progress, strings, lanes, the load),
 * db_host.c (PyTorch and CANN API tables), db_details.c (COMPUTE_TASK_INFO columns, maybe on
 * a helper thread) and db_device.c (tasks, communication, overlap, markers, steps). Nothing
 * else includes this header. */
#ifndef APTOP_DB_READER_INTERNAL_H
#define APTOP_DB_READER_INTERNAL_H

#include "io/db/db_reader.h"
#include "io/db/db_counters.h"
#include "io/db/db_fields.h"
#include "io/db/db_overlap.h"
#include "io/db/db_pmu.h"
#include "io/db/db_util.h"
#include "model/index/model.h"
#include "model/index/table.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Kernel table columns, in kernel_details.csv order where it has them. */
enum kcol {
    KC_DEVICE, KC_MODEL, KC_TASK, KC_STREAM, KC_NAME, KC_TYPE, KC_CORE, KC_START, KC_DUR,
    KC_WAIT, KC_BLOCK, KC_MIXBLOCK, KC_IN_SHAPES, KC_IN_TYPES, KC_IN_FORMATS, KC_OUT_SHAPES,
    KC_OUT_TYPES, KC_OUT_FORMATS, KC_CONTEXT, KC_COUNT
};
static const struct { const char *header; enum table_col_type type; } kcols[KC_COUNT] = {
    { "Device_id", TC_NUM }, { "Model ID", TC_NUM }, { "Task ID", TC_NUM }, { "Stream ID", TC_NUM },
    { "Name", TC_TEXT }, { "Type", TC_TEXT }, { "Accelerator Core", TC_TEXT },
    { "Start Time(us)", TC_TIME }, { "Duration(us)", TC_TIME }, { "Wait Time(us)", TC_TIME },
    { "Block Dim", TC_NUM }, { "Mix Block Dim", TC_NUM }, { "Input Shapes", TC_TEXT },
    { "Input Data Types", TC_TEXT }, { "Input Formats", TC_TEXT }, { "Output Shapes", TC_TEXT },
    { "Output Data Types", TC_TEXT }, { "Output Formats", TC_TEXT }, { "Context ID", TC_NUM },
};

#define SID_DENSE (1u << 20)
#define DEV_CACHE 16
#define STREAM_CACHE 4096

/* Values of the connection maps: the slice build index, plus flags. */
#define CONN_QUEUE   (1ULL << 32)   /* a PyTorch queue op (Enqueue/Dequeue) */
#define CONN_ENQUEUE (1ULL << 33)

struct ctx {
    const char *path;
    sqlite3 *db;
    struct diag *d;
    struct load_progress *p;
    struct model *m;              /* NULL when the timeline is not wanted */
    uint32_t file;
    uint64_t rows, rows_est, bytes_total;
    bool cancelled;

    /* STRING_IDS: DB id → local id; local id → id in the model's strtab */
    struct strtab *ls;
    struct dbu_map sid;
    uint32_t *sid_dense;                  /* ids below SID_DENSE: local id + 1, 0 = absent */
    uint32_t *to_model;
    size_t nlocal;
    uint64_t unresolved;
    struct dbu_map api_type, mstx_type;   /* ENUM_* id → local id */

    /* joins, freed at the end */
    struct dbu_keyidx cti;                /* COMPUTE_TASK_INFO: gtid → its row (= kernel table row) */
    uint32_t *cti_name;                   /* per CTI row: name lid */
    struct dbu_map ctask;                 /* COMMUNICATION_TASK_INFO gtid → name lid */
    struct dbu_map cann_by_conn;          /* connectionId → (depth+1) << 40 | build */
    struct dbu_map pt_by_conn;            /* connectionId → flags | build */
    struct { int64_t id, conn; } *conns;  /* CONNECTION_IDS sorted by id */
    size_t nconns;
    bool conn_table;                      /* CONNECTION_IDS was read (it may have no rows) */
    struct dbu_idset info_conns;          /* connectionIds of tasks with a task info row */
    struct pend_task *pend;               /* TASK rows without one, added after the TASK pass */
    size_t npend, pend_cap;
    struct db_pmu pmu;                    /* TASK_PMU_INFO columns of the kernel table */
    struct comm_kernel *ckern;            /* COMMUNICATION_OP rows, kernel table rows after the rest */
    size_t nckern, ckern_cap;
    struct ovl_dev *ovl;                  /* per device: spans for a computed Overlap Analysis */
    size_t novl;
    int64_t task_dev;                     /* device of the first TASK row (COMMUNICATION_OP may lack one) */
    struct dbu_map lanes;                 /* per-table lane caches, keyed by table tag */

    uint32_t *dev_lanes;                  /* (device, stream) → lane + 1 for small ids */
    struct table *kt;                     /* the kernel table, once assembled */
    struct details *det;                  /* its COMPUTE_TASK_INFO columns (maybe being read) */
    size_t nk;                            /* kernel rows: CTI rows with a key */
    double *knum[KC_COUNT];               /* its TASK columns, filled by read_task */
    int64_t *ktime[KC_COUNT];
    bool have_profiler_step;
    uint32_t cat_async_npu, cat_h2d, cat_queue, cat_fwdbwd;
};

/* A TASK row without a COMPUTE_TASK_INFO or COMMUNICATION_TASK_INFO row, kept until every
 * task has been read: when another task of its connection has one, it is the record that
 * encloses that task (a MIX kernel's outer record, a collective's op-level record) and is
 * not drawn, as in the text export. */
struct pend_task {
    int64_t s, e, dev, stream, conn, rowid;
    uint32_t type_lid;
    bool has_conn;
};

struct ovl_dev {
    int64_t dev;
    struct dbo_spans comp, comm;
};

/* A collective as a kernel table row (local string ids). */
struct comm_kernel {
    int64_t s, e, wait, dev;
    uint32_t name, type;
};

struct details {
    const char *path;
    struct diag *d;
    struct load_progress *p;
    sqlite3 *db;                  /* the helper's own connection, or the load's when inline */
    bool own_db;
    const uint32_t *sid_dense;    /* the load's STRING_IDS maps (read-only) */
    const struct dbu_map *sid;
    const char **str;             /* local id → text, snapshot (strtab blocks never move) */
    uint32_t *len, *to_table;     /* length; local id → table string id (lazy) */
    size_t nstr;
    struct table *t;              /* out: the details columns, in kernel_details order */
    size_t kc[KC_COUNT];          /* their indices in t, SIZE_MAX for TASK columns */
    uint64_t unresolved;          /* references not in STRING_IDS (the name column excepted) */
    struct ctx *keys;             /* inline only: also do the key pass's work for this load */
    bool failed, done;
    pthread_t thread;
    bool running;
};

enum lane_tag { TAG_PY = 1, TAG_CANN, TAG_DEV, TAG_COMM, TAG_OVL, TAG_MSTX, TAG_STEP };

/* db_reader.c */
void dbr_tick(struct ctx *c);
/* One pass over the rows of a table: `struct dbr_rows rows = dbr_rows_open(...); while
 * (dbr_rows_next(c, &rows)) ...; dbr_rows_end(c, &rows);`. A table that cannot be read (the
 * reason is in c->d) leaves rows.st NULL and has no rows. */
struct dbr_rows {
    sqlite3_stmt *st;
    const char *table;
    uint32_t have;   /* bit i: column i is there */
    int rc;          /* the last step's result */
    uint64_t row;    /* rows read */
};
struct dbr_rows dbr_rows_open(struct ctx *c, const char *table, const char *const *cols, int ncols,
                              uint32_t required);
/* Steps to the next row and counts it (progress); false at the end, on an error or when the
 * load is cancelled. */
bool dbr_rows_next(struct ctx *c, struct dbr_rows *rows);
/* Reports the error that stopped the pass, if any, and finalizes. */
void dbr_rows_end(struct ctx *c, struct dbr_rows *rows);
void dbr_step_end(struct ctx *c, sqlite3_stmt *st, int rc, const char *table, uint64_t row);
uint32_t dbr_sid_value(struct ctx *c, int64_t v);
uint32_t dbr_sid_local(struct ctx *c, sqlite3_stmt *st, int col);
uint32_t dbr_model_id(struct ctx *c, uint32_t lid);
uint32_t dbr_model_cstr(struct ctx *c, const char *s);
const char *dbr_enum_name(struct ctx *c, struct dbu_map *map, sqlite3_stmt *st, int col, char *buf,
                          size_t size);
uint32_t dbr_lane_for(struct ctx *c, enum lane_tag tag, uint64_t key, const char *pid,
                      const char *pname, int64_t psort, const char *tid, const char *tname,
                      int64_t tsort);
uint32_t dbr_thread_lane(struct ctx *c, enum lane_tag tag, int64_t gtid, const char *pname,
                         int64_t psort);
int64_t dbr_span_ns(int64_t start, int64_t end);
uint32_t dbr_add_slice(struct ctx *c, uint32_t lane, int64_t start, int64_t end, uint32_t name,
                       uint32_t cat);
uint32_t dbr_add_row_slice(struct ctx *c, uint32_t lane, int64_t start, int64_t end, uint32_t name,
                           uint32_t cat, enum db_source src, sqlite3_stmt *st, int rowid_col);
struct ovl_dev *dbr_ovl_of(struct ctx *c, int64_t dev);

/* db_host.c */
void dbr_read_connection_ids(struct ctx *c);
void dbr_read_pytorch_api(struct ctx *c);
void dbr_read_cann_api(struct ctx *c);

/* db_details.c */
bool dbr_task_col(enum kcol k);
void dbr_details_free(struct details *x);
bool dbr_key_add(struct ctx *c, sqlite3_stmt *st, int64_t gtid, size_t *cap);
void dbr_details_read(struct details *x);
void dbr_details_start(struct ctx *c, uint64_t est_rows);
void dbr_details_finish(struct ctx *c);

/* db_device.c */
void dbr_read_compute_task_info(struct ctx *c, bool want_table);
void dbr_read_comm_task_info(struct ctx *c);
int64_t dbr_first_task_device(struct ctx *c);
void dbr_read_task(struct ctx *c);
void dbr_read_comm_op(struct ctx *c);
uint64_t dbr_read_overlap(struct ctx *c);
void dbr_compute_overlap(struct ctx *c);
void dbr_read_mstx(struct ctx *c);
void dbr_read_step_time(struct ctx *c);
const char *dbr_counter_string(void *arg, int64_t id);
bool dbr_counter_tick(void *arg);
void dbr_read_rank_device(struct ctx *c, struct rank_data *rd);

#endif
