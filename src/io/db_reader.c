#include "io/db_reader.h"

#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/db_counters.h"
#include "io/db_fields.h"
#include "io/db_overlap.h"
#include "io/db_pmu.h"
#include "io/db_util.h"
#include "model/model.h"
#include "model/table.h"

bool db_is_sqlite(const char *path)
{
    static const char magic[16] = "SQLite format 3";   /* 15 chars + the NUL */
    char buf[16];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    return n == (ssize_t)sizeof buf && !memcmp(buf, magic, sizeof buf);
}

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

/* --- progress ------------------------------------------------------------------------ */

static void tick(struct ctx *c)
{
    c->rows++;
    if (c->rows & 4095)
        return;
    if (c->p) {
        atomic_store_explicit(&c->p->events, c->rows, memory_order_relaxed);
        if (c->rows_est) {
            uint64_t done = c->rows >= c->rows_est ? c->bytes_total
                          : (uint64_t)((double)c->bytes_total * (double)c->rows / (double)c->rows_est);
            atomic_store_explicit(&c->p->bytes_done, done, memory_order_relaxed);
        }
    }
    if (progress_cancelled(c->p))
        c->cancelled = true;
}

static void estimate_rows(struct ctx *c, const char *const *tables)
{
    for (; *tables; tables++) {
        if (!dbu_has_table(c->db, *tables))
            continue;
        char q[96];
        snprintf(q, sizeof q, "SELECT max(rowid) FROM \"%s\"", *tables);
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(c->db, q, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
            c->rows_est += (uint64_t)(sqlite3_column_int64(st, 0) > 0 ? sqlite3_column_int64(st, 0) : 0);
        sqlite3_finalize(st);
    }
}

/* Ends a statement loop: reports an error that stopped it, finalizes. */
static void step_end(struct ctx *c, sqlite3_stmt *st, int rc, const char *table, uint64_t row)
{
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        diag_add(c->d, DIAG_ERROR, c->path, "table %s, row %llu: %s; rows before it are kept",
                 table, (unsigned long long)row + 1, sqlite3_errmsg(c->db));
    sqlite3_finalize(st);
}

/* --- strings ------------------------------------------------------------------------- */

static uint32_t local_intern(struct ctx *c, const char *s, size_t len)
{
    uint32_t id = strtab_intern(c->ls, s ? s : "", s ? len : 0);
    if (id == UINT32_MAX)
        return 0;
    if (id >= c->nlocal) {
        size_t n = c->nlocal ? c->nlocal * 2 : 1024;
        while (n <= id)
            n *= 2;
        uint32_t *a = realloc(c->to_model, n * sizeof *a);
        if (!a)
            return 0;
        c->to_model = a;
        memset(a + c->nlocal, 0xff, (n - c->nlocal) * sizeof *a);
        c->nlocal = n;
    }
    return id;
}

/* Local id of STRING_IDS id v; an unknown reference reads as its number. */
static uint32_t sid_value(struct ctx *c, int64_t v)
{
    if (v >= 0 && v < SID_DENSE && c->sid_dense) {
        if (c->sid_dense[v])
            return c->sid_dense[v] - 1;
    } else {
        uint64_t *p = dbu_map_get(&c->sid, (uint64_t)v);
        if (p)
            return (uint32_t)*p;
    }
    c->unresolved++;
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%lld", (long long)v);
    return local_intern(c, buf, (size_t)n);
}

/* Local id of a STRING_IDS reference cell (some tables store the text itself). */
static uint32_t sid_local(struct ctx *c, sqlite3_stmt *st, int col)
{
    int64_t v;
    if (dbu_i64(st, col, &v))
        return sid_value(c, v);
    size_t len;
    const char *s = dbu_text(st, col, &len);
    return s ? local_intern(c, s, len) : 0;
}

static uint32_t model_id(struct ctx *c, uint32_t lid)
{
    if (c->to_model[lid] == UINT32_MAX) {
        uint32_t id = strtab_intern(c->m->str, strtab_get(c->ls, lid), strtab_len(c->ls, lid));
        c->to_model[lid] = id == UINT32_MAX ? 0 : id;
    }
    return c->to_model[lid];
}

static uint32_t model_cstr(struct ctx *c, const char *s)
{
    uint32_t id = strtab_intern_cstr(c->m->str, s);
    return id == UINT32_MAX ? 0 : id;
}

static void read_strings(struct ctx *c)
{
    static const char *const cols[] = { "id", "value" };
    uint32_t have;
    sqlite3_stmt *st = dbu_select(c->db, c->path, c->d, "STRING_IDS", cols, 2, 3, &have);
    if (!st)
        return;
    c->sid_dense = calloc(SID_DENSE, sizeof *c->sid_dense);   /* pages touched only where used */
    int rc;
    uint64_t row = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && !c->cancelled) {
        int64_t id;
        size_t len;
        const char *s = dbu_text(st, 1, &len);
        if (!dbu_i64(st, 0, &id))
            continue;
        uint32_t lid = local_intern(c, s, len);
        if (id >= 0 && id < SID_DENSE && c->sid_dense)
            c->sid_dense[id] = lid + 1;
        else if (!dbu_map_put(&c->sid, (uint64_t)id, lid, NULL))
            break;
        row++;
        tick(c);
    }
    step_end(c, st, rc, "STRING_IDS", row);
}

static void read_enum(struct ctx *c, const char *table, struct dbu_map *out)
{
    static const char *const cols[] = { "id", "name" };
    uint32_t have;
    sqlite3_stmt *st = dbu_select(c->db, c->path, c->d, table, cols, 2, 3, &have);
    if (!st)
        return;
    int rc;
    uint64_t row = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id;
        size_t len;
        const char *s = dbu_text(st, 1, &len);
        if (dbu_i64(st, 0, &id))
            dbu_map_put(out, (uint64_t)id, local_intern(c, s, len), NULL);
        row++;
    }
    step_end(c, st, rc, table, row);
}

static const char *enum_name(struct ctx *c, struct dbu_map *map, sqlite3_stmt *st, int col, char *buf, size_t size)
{
    int64_t v;
    if (!dbu_i64(st, col, &v))
        return "";
    uint64_t *p = dbu_map_get(map, (uint64_t)v);
    if (p)
        return strtab_get(c->ls, (uint32_t)*p);
    snprintf(buf, size, "%lld", (long long)v);
    return buf;
}

static void read_meta(struct ctx *c)
{
    static const char *const cols[] = { "name", "value" };
    uint32_t have;
    if (!dbu_has_table(c->db, "META_DATA")) {
        diag_add(c->d, DIAG_INFO, c->path, "no META_DATA table (schema version unknown): columns are read by name");
        return;
    }
    sqlite3_stmt *st = dbu_select(c->db, c->path, c->d, "META_DATA", cols, 2, 3, &have);
    if (!st)
        return;
    int rc;
    uint64_t row = 0;
    bool seen = false;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        size_t nl, vl;
        const char *n = dbu_text(st, 0, &nl), *v = dbu_text(st, 1, &vl);
        row++;
        if (!n || !v || strcmp(n, "SCHEMA_VERSION"))
            continue;
        seen = true;
        if (atoi(v) != 1)
            diag_add(c->d, DIAG_WARN, c->path, "META_DATA: schema version %.20s is newer than the known 1.x: "
                     "columns are read by name, absent ones are reported", v);
    }
    step_end(c, st, rc, "META_DATA", row);
    if (!seen)
        diag_add(c->d, DIAG_INFO, c->path, "META_DATA has no SCHEMA_VERSION: columns are read by name");
}

/* --- lanes --------------------------------------------------------------------------- */

enum lane_tag { TAG_PY = 1, TAG_CANN, TAG_DEV, TAG_COMM, TAG_OVL, TAG_MSTX, TAG_STEP };

static uint32_t lane_for(struct ctx *c, enum lane_tag tag, uint64_t key, const char *pid, const char *pname,
                         int64_t psort, const char *tid, const char *tname, int64_t tsort)
{
    uint64_t k = key * 8 + (uint64_t)tag;   /* keys of different tags never meet */
    uint64_t *v = dbu_map_get(&c->lanes, k);
    if (v)
        return (uint32_t)*v;
    uint32_t lane = model_lane(c->m, pid, strlen(pid), tid, strlen(tid));
    if (lane == LANE_NONE)
        return LANE_NONE;
    uint32_t proc = c->m->lanes[lane].proc;
    model_set_process_name(c->m, proc, pname, strlen(pname));
    model_set_process_sort(c->m, proc, psort);
    model_set_process_labels(c->m, proc, tag == TAG_DEV || tag == TAG_COMM || tag == TAG_OVL ? "NPU" : "CPU", 3);
    model_set_thread_name(c->m, lane, tname, strlen(tname));
    model_set_thread_sort(c->m, lane, tsort);
    dbu_map_put(&c->lanes, k, lane, NULL);
    return lane;
}

static uint32_t thread_lane(struct ctx *c, enum lane_tag tag, int64_t gtid, const char *pname, int64_t psort)
{
    uint64_t g = (uint64_t)gtid;
    char pid[24], tid[24], tname[40];
    uint32_t t = (uint32_t)(g & 0xffffffffu);
    snprintf(tid, sizeof tid, "%u", t);
    snprintf(tname, sizeof tname, "Thread %u", t);
    if (tag == TAG_PY)
        snprintf(pid, sizeof pid, "%llu", (unsigned long long)(g >> 32));
    else
        snprintf(pid, sizeof pid, "%s", pname);
    return lane_for(c, tag, g, pid, pname, psort, tid, tname, t);
}

/* end - start, 0 when negative, saturated: any int64 may stand in a hostile file. */
static int64_t span_ns(int64_t start, int64_t end)
{
    if (end <= start)
        return 0;
    uint64_t d = (uint64_t)end - (uint64_t)start;
    return d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d;
}

static uint32_t add_slice(struct ctx *c, uint32_t lane, int64_t start, int64_t end, uint32_t name, uint32_t cat)
{
    if (lane == LANE_NONE)
        return SLICE_NONE;
    model_count_event(c->m, 'X');
    return model_add_slice_ids(c->m, lane, start, span_ns(start, end), name, cat, c->file, UINT64_MAX, 0);
}

/* A slice made from row `rowid` of table `src`: the detail pane reads the row again. */
static uint32_t add_row_slice(struct ctx *c, uint32_t lane, int64_t start, int64_t end, uint32_t name, uint32_t cat,
                              enum db_source src, sqlite3_stmt *st, int rowid_col)
{
    if (lane == LANE_NONE)
        return SLICE_NONE;
    int64_t rowid;
    if (!st || !dbu_i64(st, rowid_col, &rowid) || rowid < 0)
        return add_slice(c, lane, start, end, name, cat);
    model_count_event(c->m, 'X');
    return model_add_slice_ids(c->m, lane, start, span_ns(start, end), name, cat, c->file, (uint64_t)rowid, src);
}

static bool ckern_push(struct ctx *c, const struct comm_kernel *k)
{
    if (c->nckern == c->ckern_cap) {
        size_t n = c->ckern_cap ? c->ckern_cap * 2 : 64;
        struct comm_kernel *p = realloc(c->ckern, n * sizeof *p);
        if (!p)
            return false;
        c->ckern = p;
        c->ckern_cap = n;
    }
    c->ckern[c->nckern++] = *k;
    return true;
}

/* The collectives as rows of the kernel table: Accelerator Core "HCCL", as kernel_details.csv. */
static void add_comm_kernels(struct ctx *c)
{
    struct table *t = c->kt;
    size_t cn = table_col(t, kcols[KC_NAME].header), ct = table_col(t, kcols[KC_TYPE].header),
           cc = table_col(t, kcols[KC_CORE].header), cs = table_col(t, kcols[KC_START].header),
           cd = table_col(t, kcols[KC_DUR].header), cw = table_col(t, kcols[KC_WAIT].header),
           cb = table_col(t, kcols[KC_BLOCK].header), cv = table_col(t, kcols[KC_DEVICE].header);
    for (size_t i = 0; i < c->nckern; i++) {
        const struct comm_kernel *k = &c->ckern[i];
        size_t r = table_add_row(t);
        if (r == SIZE_MAX) {
            diag_add(c->d, DIAG_ERROR, c->path, "out of memory adding the collectives to the kernel table");
            break;
        }
        table_set_text(t, r, cn, strtab_get(c->ls, k->name), strtab_len(c->ls, k->name));
        if (k->type)
            table_set_text(t, r, ct, strtab_get(c->ls, k->type), strtab_len(c->ls, k->type));
        table_set_text(t, r, cc, "HCCL", 4);
        table_set_time(t, r, cs, k->s);
        table_set_time(t, r, cd, span_ns(k->s, k->e));
        if (k->wait != NS_NONE)
            table_set_time(t, r, cw, k->wait);
        table_set_num(t, r, cb, 0);
        table_set_num(t, r, cv, (double)k->dev);
    }
}

/* The Overlap Analysis spans of device dev (created when new), NULL when memory ran out. */
static struct ovl_dev *ovl_of(struct ctx *c, int64_t dev)
{
    for (size_t i = 0; i < c->novl; i++)
        if (c->ovl[i].dev == dev)
            return &c->ovl[i];
    struct ovl_dev *v = realloc(c->ovl, (c->novl + 1) * sizeof *v);
    if (!v)
        return NULL;
    c->ovl = v;
    memset(&v[c->novl], 0, sizeof *v);
    v[c->novl].dev = dev;
    return &v[c->novl++];
}

/* --- host tables --------------------------------------------------------------------- */

static int conn_cmp(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

static void read_connection_ids(struct ctx *c)
{
    static const char *const cols[] = { "id", "connectionId" };
    uint32_t have;
    sqlite3_stmt *st = dbu_select(c->db, c->path, c->d, "CONNECTION_IDS", cols, 2, 3, &have);
    if (!st)
        return;
    size_t cap = 0;
    int rc;
    uint64_t row = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && !c->cancelled) {
        int64_t id, conn;
        row++;
        tick(c);
        if (!dbu_i64(st, 0, &id) || !dbu_i64(st, 1, &conn))
            continue;
        if (c->nconns == cap) {
            size_t n = cap ? cap * 2 : 256;
            void *p = realloc(c->conns, n * sizeof *c->conns);
            if (!p)
                break;
            c->conns = p;
            cap = n;
        }
        c->conns[c->nconns].id = id;
        c->conns[c->nconns++].conn = conn;
    }
    step_end(c, st, rc, "CONNECTION_IDS", row);
    c->conn_table = true;
    if (c->nconns)   /* an empty table leaves the array NULL */
        qsort(c->conns, c->nconns, sizeof *c->conns, conn_cmp);
}

/* Records that PyTorch slice `build` owns connection `conn`; links queue pairs. */
static void pt_conn(struct ctx *c, int64_t conn, uint32_t build, uint64_t flags)
{
    uint64_t *old = dbu_map_get(&c->pt_by_conn, (uint64_t)conn);
    if (old && (flags & CONN_QUEUE) && (*old & CONN_QUEUE)) {
        uint32_t a = (uint32_t)*old;
        if (flags & CONN_ENQUEUE)
            model_add_flow_direct(c->m, c->cat_queue, build, a);
        else
            model_add_flow_direct(c->m, c->cat_queue, a, build);
        return;
    }
    if (old && !(flags & CONN_QUEUE) && !(*old & CONN_QUEUE)) {
        /* two ops of one connection: a forward op and the backward op it leads to */
        uint32_t a = (uint32_t)*old;
        if (c->m->start[a] <= c->m->start[build])
            model_add_flow_direct(c->m, c->cat_fwdbwd, a, build);
        else
            model_add_flow_direct(c->m, c->cat_fwdbwd, build, a);
        return;
    }
    if (!old)
        dbu_map_put(&c->pt_by_conn, (uint64_t)conn, flags | build, NULL);
}

static void read_pytorch_api(struct ctx *c)
{
    static const char *const cols[] = { "startNs", "endNs", "globalTid", "connectionId", "name", "type", "rowid" };
    uint32_t have;
    sqlite3_stmt *st = dbu_select(c->db, c->path, c->d, "PYTORCH_API", cols, 7, 0x17, &have);
    if (!st)
        return;
    uint32_t cat_op = model_cstr(c, "cpu_op"), cat_enq = model_cstr(c, "enqueue"), cat_deq = model_cstr(c, "dequeue"),
             cat_py = model_cstr(c, "python_function");
    int rc;
    uint64_t row = 0, bad = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && !c->cancelled) {
        int64_t s, e, g = 0, conn;
        row++;
        tick(c);
        if (!dbu_i64(st, 0, &s) || !dbu_i64(st, 1, &e)) {
            bad++;
            continue;
        }
        dbu_i64(st, 2, &g);
        uint32_t lid = sid_local(c, st, 4);
        const char *name = strtab_get(c->ls, lid);
        char buf[24];
        const char *type = enum_name(c, &c->api_type, st, 5, buf, sizeof buf);
        bool enq = !strncmp(name, "Enqueue", 7), deq = !strncmp(name, "Dequeue", 7);
        bool queue = enq || deq || !strcmp(type, "queue");
        uint32_t cat = enq ? cat_enq : deq ? cat_deq : !strcmp(type, "trace") ? cat_py
                     : !strcmp(type, "op") || !type[0] ? cat_op : model_cstr(c, type);
        if (!strncmp(name, "ProfilerStep#", 13))
            c->have_profiler_step = true;
        uint32_t lane = thread_lane(c, TAG_PY, g, "Python", 0);
        uint32_t b = add_row_slice(c, lane, s, e, model_id(c, lid), cat, DBS_PYTORCH_API, st, 6);
        if (b == SLICE_NONE || !dbu_i64(st, 3, &conn))
            continue;
        uint64_t flags = queue ? CONN_QUEUE | (enq ? CONN_ENQUEUE : 0) : 0;
        if (!c->conn_table) {   /* no CONNECTION_IDS: the column holds the connection itself */
            pt_conn(c, conn, b, flags);
            continue;
        }
        size_t lo = 0, hi = c->nconns;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (c->conns[mid].id < conn)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (; lo < c->nconns && c->conns[lo].id == conn; lo++)
            pt_conn(c, c->conns[lo].conn, b, flags);
    }
    step_end(c, st, rc, "PYTORCH_API", row);
    if (bad)
        diag_add(c->d, DIAG_WARN, c->path, "table PYTORCH_API: %llu row(s) without a readable startNs/endNs skipped",
                 (unsigned long long)bad);
}

static void read_cann_api(struct ctx *c)
{
    static const char *const cols[] = { "startNs", "endNs", "type", "globalTid", "connectionId", "name", "depth",
                                        "rowid" };
    uint32_t have;
    sqlite3_stmt *st = dbu_select(c->db, c->path, c->d, "CANN_API", cols, 8, 0x23, &have);
    if (!st)
        return;
    int rc;
    uint64_t row = 0, bad = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && !c->cancelled) {
        int64_t s, e, g = 0, conn, depth = 0;
        row++;
        tick(c);
        if (!dbu_i64(st, 0, &s) || !dbu_i64(st, 1, &e)) {
            bad++;
            continue;
        }
        dbu_i64(st, 3, &g);
        dbu_i64(st, 6, &depth);
        char buf[24];
        uint32_t cat = model_cstr(c, enum_name(c, &c->api_type, st, 2, buf, sizeof buf));
        uint32_t lane = thread_lane(c, TAG_CANN, g, "CANN", 7);
        uint32_t b = add_row_slice(c, lane, s, e, model_id(c, sid_local(c, st, 5)), cat, DBS_CANN_API, st, 7);
        if (b == SLICE_NONE || !dbu_i64(st, 4, &conn))
            continue;
        /* Several APIs may share a connection: the deepest one launched the task. */
        uint64_t v = ((uint64_t)(depth < 0 ? 0 : depth > 1000000 ? 1000000 : depth) + 1) << 40 | b;
        uint64_t *old = dbu_map_get(&c->cann_by_conn, (uint64_t)conn);
        if (!old || (*old >> 40) < (v >> 40))
            dbu_map_put(&c->cann_by_conn, (uint64_t)conn, v, NULL);
    }
    step_end(c, st, rc, "CANN_API", row);
    if (bad)
        diag_add(c->d, DIAG_WARN, c->path, "table CANN_API: %llu row(s) without a readable startNs/endNs skipped",
                 (unsigned long long)bad);
}

/* --- device tables ------------------------------------------------------------------- */

/* The kernel table is assembled from two parts: the COMPUTE_TASK_INFO columns (details,
 * read on their own connection: by a helper thread while this thread reads TASK when there
 * are two cores and many rows, else inline) and the TASK columns, which read_task fills by
 * kernel row into arrays of this thread. The helper shares only what stays read-only while
 * it runs: the STRING_IDS maps and a snapshot of the strings they point to. */

static uint64_t parallel_rows = 200000;

void db_set_parallel(uint64_t min_rows)
{
    parallel_rows = min_rows;
}

static bool task_col(enum kcol k)
{
    return k == KC_DEVICE || k == KC_MODEL || k == KC_TASK || k == KC_STREAM || k == KC_START || k == KC_DUR
           || k == KC_CONTEXT;
}

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

static void details_free(struct details *x)
{
    if (!x)
        return;
    if (x->running)
        pthread_join(x->thread, NULL);
    if (x->own_db)
        sqlite3_close(x->db);
    table_free(x->t);
    free(x->str);
    free(x->len);
    free(x->to_table);
    free(x);
}

/* Table string id of local id lid. */
static uint32_t det_lid(struct details *x, uint32_t lid)
{
    if (lid >= x->nstr)
        return 0;
    if (x->to_table[lid] == UINT32_MAX) {
        uint32_t id = strtab_intern(x->t->str, x->str[lid], x->len[lid]);
        x->to_table[lid] = id == UINT32_MAX ? 0 : id;
    }
    return x->to_table[lid];
}

/* Table string id of a STRING_IDS reference v (an unknown one reads as its number). */
static uint32_t det_ref(struct details *x, int64_t v, bool count)
{
    if (v >= 0 && v < SID_DENSE && x->sid_dense) {
        if (x->sid_dense[v])
            return det_lid(x, x->sid_dense[v] - 1);
    } else {
        uint64_t *p = dbu_map_get(x->sid, (uint64_t)v);
        if (p)
            return det_lid(x, (uint32_t)*p);
    }
    x->unresolved += count;
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%lld", (long long)v);
    uint32_t id = strtab_intern(x->t->str, buf, (size_t)n);
    return id == UINT32_MAX ? 0 : id;
}

/* The last reference of one column and its table id: neighbouring rows mostly repeat
 * formats, types and shapes. */
struct ref_cache { int64_t ref; uint32_t id; bool valid; };

static uint32_t det_cell(struct details *x, sqlite3_stmt *st, int col, struct ref_cache *rc, bool count)
{
    int64_t v;
    if (!dbu_i64(st, col, &v)) {
        size_t len;
        const char *s = dbu_text(st, col, &len);   /* some tables store the text itself */
        uint32_t id = s ? strtab_intern(x->t->str, s, len) : 0;
        return id == UINT32_MAX ? 0 : id;
    }
    if (rc->valid && rc->ref == v)
        return rc->id;
    uint64_t before = x->unresolved;
    rc->id = det_ref(x, v, count);
    rc->ref = v;
    rc->valid = x->unresolved == before;   /* unknown ones are counted on every use */
    return rc->id;
}

/* The key pass's work for one row with a key: its name and globalTaskId for the join. */
static bool key_add(struct ctx *c, sqlite3_stmt *st, int64_t gtid, size_t *cap)
{
    size_t n = c->cti.n;
    if (n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 1024;
        uint32_t *a = realloc(c->cti_name, ncap * sizeof *a);
        if (!a)
            return false;
        c->cti_name = a;
        *cap = ncap;
    }
    c->cti_name[n] = sid_local(c, st, 0);
    return dbu_keyidx_add(&c->cti, gtid);
}

static void details_read(struct details *x)
{
    static const char *const cols[] = {
        "name", "globalTaskId", "blockDim|block_dim", "mixBlockDim|mix_block_dim", "taskType", "opType",
        "inputFormats", "inputDataTypes", "inputShapes", "outputFormats", "outputDataTypes", "outputShapes", "waitNs" };
    /* text cells by select column; KC_COUNT: not a text column */
    static const enum kcol text_cols[] = { KC_NAME, KC_COUNT, KC_COUNT, KC_COUNT, KC_CORE, KC_TYPE, KC_IN_FORMATS,
                                           KC_IN_TYPES, KC_IN_SHAPES, KC_OUT_FORMATS, KC_OUT_TYPES, KC_OUT_SHAPES };
    x->failed = true;
    x->t = table_new(TK_KERNELS, x->path);
    if (!x->t)
        return;
    x->t->no_lines = true;
    for (int k = 0; k < KC_COUNT; k++) {
        x->kc[k] = SIZE_MAX;
        if (!task_col((enum kcol)k) && (x->kc[k] = table_add_col(x->t, kcols[k].header, kcols[k].type)) == SIZE_MAX)
            return;
    }
    /* max(rowid) is cheap and usually the row count (globalTaskId is the key); rows past
     * it still grow the table, and a reserve that is never filled is never touched */
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(x->db, "SELECT max(rowid) FROM COMPUTE_TASK_INFO", -1, &st, NULL) == SQLITE_OK
        && sqlite3_step(st) == SQLITE_ROW) {
        int64_t n = sqlite3_column_int64(st, 0);
        if (n > 0 && n < (1 << 27))
            table_reserve(x->t, (size_t)n + 1);
    }
    sqlite3_finalize(st);
    uint32_t have;
    st = dbu_select(x->db, x->path, x->d, "COMPUTE_TASK_INFO", cols, 13, 0x3, &have);
    if (!st)
        return;
    struct ref_cache cache[12] = { { 0 } };
    struct table *t = x->t;
    uint32_t *text[12] = { 0 };
    int rc = SQLITE_DONE;
    uint64_t row = 0;
    size_t kcap = 0;
    bool stop = false;
    while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t gtid, w;
        row++;
        if (x->keys) {
            tick(x->keys);
            stop = x->keys->cancelled;
        } else if ((row & 4095) == 0 && progress_cancelled(x->p)) {
            stop = true;
        }
        if (!dbu_i64(st, 1, &gtid))
            continue;   /* the same rows as the key pass skips */
        if (x->keys && !key_add(x->keys, st, gtid, &kcap))
            break;
        size_t n = t->nrows, cap = t->cap;
        if (table_add_row(t) != n)
            break;
        if (n == 0 || t->cap != cap)   /* the first row, or one that moved the arrays */
            for (int i = 0; i < 12; i++)
                if (text_cols[i] != KC_COUNT)
                    text[i] = t->cols[x->kc[text_cols[i]]].text;
        for (int i = 0; i < 12; i++)
            if (text_cols[i] != KC_COUNT)
                text[i][n] = (have & (1u << i)) ? det_cell(x, st, i, &cache[i], i != 0) : 0;
        t->cols[x->kc[KC_BLOCK]].num[n] = dbu_f64(st, 2);
        t->cols[x->kc[KC_MIXBLOCK]].num[n] = dbu_f64(st, 3);
        if (dbu_i64(st, 12, &w))
            t->cols[x->kc[KC_WAIT]].time[n] = w;
    }
    if (x->keys)   /* else the key pass reports an SQLite error: it meets it at the same row */
        step_end(x->keys, st, rc, "COMPUTE_TASK_INFO", row);
    else
        sqlite3_finalize(st);
    x->failed = stop;
}

static void *details_main(void *arg)
{
    details_read(arg);
    return NULL;
}

/* Starts reading the details: on a helper thread with its own connection when worth it,
 * else later, inline (details_finish). */
static void details_start(struct ctx *c, uint64_t est_rows)
{
    struct details *x = calloc(1, sizeof *x);
    if (!x)
        return;
    c->det = x;
    x->path = c->path;
    x->d = c->d;
    x->p = c->p;
    x->db = c->db;
    x->sid_dense = c->sid_dense;
    x->sid = &c->sid;
    x->nstr = strtab_count(c->ls);
    x->str = malloc((x->nstr + 1) * sizeof *x->str);
    x->len = malloc((x->nstr + 1) * sizeof *x->len);
    x->to_table = malloc((x->nstr + 1) * sizeof *x->to_table);
    if (!x->str || !x->len || !x->to_table) {
        free(x->str);
        x->str = NULL;   /* details_finish reports it */
        return;
    }
    for (size_t i = 0; i < x->nstr; i++) {
        x->str[i] = strtab_get(c->ls, (uint32_t)i);
        x->len[i] = (uint32_t)strtab_len(c->ls, (uint32_t)i);
        x->to_table[i] = UINT32_MAX;
    }
    if (est_rows < parallel_rows || sysconf(_SC_NPROCESSORS_ONLN) < 2 || !sqlite3_threadsafe())
        return;
    struct diag *quiet = diag_new();   /* a second open that fails is not the user's concern */
    sqlite3 *db = quiet ? dbu_open(c->path, quiet) : NULL;
    diag_free(quiet);
    if (!db)
        return;
    x->db = db;
    x->own_db = true;
    x->running = pthread_create(&x->thread, NULL, details_main, x) == 0;
    if (!x->running) {
        sqlite3_close(db);
        x->db = c->db;
        x->own_db = false;
    }
}

/* Waits for the details (or reads them now) and puts the kernel table together. */
static void details_finish(struct ctx *c)
{
    struct details *x = c->det;
    if (!x)
        return;
    if (x->running) {
        pthread_join(x->thread, NULL);
        x->running = false;
    } else if (x->str && !x->done) {
        details_read(x);
    }
    c->unresolved += x->unresolved;
    if (c->cancelled)
        return;
    bool ok = !x->failed && x->t && x->t->nrows == c->nk;
    for (int k = 0; k < KC_COUNT && ok; k++)
        if (task_col((enum kcol)k) && !c->knum[k] && !c->ktime[k])
            ok = false;
    if (!ok) {
        diag_add(c->d, DIAG_ERROR, c->path, "COMPUTE_TASK_INFO: out of memory or unreadable while building "
                 "the kernel table: no kernel table");
        return;
    }
    size_t pos[KC_COUNT], order[KC_COUNT];
    for (int k = 0; k < KC_COUNT; k++) {
        pos[k] = x->kc[k];
        if (!task_col((enum kcol)k))
            continue;
        void *v = kcols[k].type == TC_TIME ? (void *)c->ktime[k] : (void *)c->knum[k];
        c->ktime[k] = NULL;
        c->knum[k] = NULL;
        if ((pos[k] = table_adopt_col(x->t, kcols[k].header, kcols[k].type, v)) == SIZE_MAX) {
            diag_add(c->d, DIAG_ERROR, c->path, "out of memory building the kernel table");
            return;
        }
    }
    for (int k = 0; k < KC_COUNT; k++)
        order[k] = pos[k];
    if (!table_order_cols(x->t, order))
        diag_add(c->d, DIAG_WARN, c->path, "out of memory ordering the kernel table columns");
    c->kt = x->t;
    x->t = NULL;
}

/* The key pass: COMPUTE_TASK_INFO name and globalTaskId of every row, for the join. */
static void read_compute_task_info(struct ctx *c, bool want_table)
{
    static const char *const cols[] = { "name", "globalTaskId" };
    uint32_t have;
    sqlite3_stmt *st = dbu_select(c->db, c->path, c->d, "COMPUTE_TASK_INFO", cols, 2, 0x3, &have);
    if (!st)
        return;
    if (want_table) {
        uint64_t est = 0;
        sqlite3_stmt *q = NULL;
        if (sqlite3_prepare_v2(c->db, "SELECT max(rowid) FROM COMPUTE_TASK_INFO", -1, &q, NULL) == SQLITE_OK
            && sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int64(q, 0) > 0)
            est = (uint64_t)sqlite3_column_int64(q, 0);
        sqlite3_finalize(q);
        details_start(c, est);
    }
    if (c->det && !c->det->running && c->det->str) {
        /* one thread: one pass over the table gives the keys and the details */
        sqlite3_finalize(st);
        c->det->keys = c;
        details_read(c->det);
        c->det->done = true;
    } else {
        size_t cap = 0;
        int rc;
        uint64_t row = 0;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW && !c->cancelled) {
            int64_t gtid;
            row++;
            tick(c);
            if (dbu_i64(st, 1, &gtid) && !key_add(c, st, gtid, &cap))
                break;
        }
        step_end(c, st, rc, "COMPUTE_TASK_INFO", row);
    }
    if (!dbu_keyidx_done(&c->cti))
        diag_add(c->d, DIAG_ERROR, c->path, "out of memory joining COMPUTE_TASK_INFO to TASK");
    c->nk = c->cti.n;
    if (!c->det)
        return;
    /* the TASK columns of the kernel table, every cell missing until read_task */
    for (int k = 0; k < KC_COUNT; k++) {
        if (!task_col((enum kcol)k))
            continue;
        size_t n = c->nk ? c->nk : 1;
        if (kcols[k].type == TC_TIME) {
            if ((c->ktime[k] = malloc(n * sizeof **c->ktime)))
                for (size_t i = 0; i < c->nk; i++)
                    c->ktime[k][i] = NS_NONE;
        } else if ((c->knum[k] = malloc(n * sizeof **c->knum))) {
            for (size_t i = 0; i < c->nk; i++)
                c->knum[k][i] = NAN;
        }
    }
}

/* Model name id of a kernel (CTI row r). */
static uint32_t cti_model_name(struct ctx *c, uint32_t r)
{
    return r < c->nk && c->cti_name ? model_id(c, c->cti_name[r]) : 0;
}

static void read_comm_task_info(struct ctx *c)
{
    static const char *const cols[] = { "name", "globalTaskId" };
    uint32_t have;
    sqlite3_stmt *st = dbu_select(c->db, c->path, c->d, "COMMUNICATION_TASK_INFO", cols, 2, 3, &have);
    if (!st)
        return;
    int rc;
    uint64_t row = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && !c->cancelled) {
        int64_t g;
        row++;
        tick(c);
        if (dbu_i64(st, 1, &g))
            dbu_map_put(&c->ctask, (uint64_t)g, sid_local(c, st, 0), NULL);
    }
    step_end(c, st, rc, "COMMUNICATION_TASK_INFO", row);
}

static uint32_t device_lane_slow(struct ctx *c, int64_t dev, int64_t stream);

/* deviceId of the first TASK row, 0 when there is none. */
static int64_t first_task_device(struct ctx *c)
{
    static const char *const cols[] = { "deviceId" };
    uint32_t have;
    struct diag *quiet = diag_new();   /* read_task reports what is wrong with TASK */
    sqlite3_stmt *st = quiet ? dbu_select(c->db, c->path, quiet, "TASK", cols, 1, 1, &have) : NULL;
    diag_free(quiet);
    int64_t dev = 0;
    if (st && sqlite3_step(st) == SQLITE_ROW && !dbu_i64(st, 0, &dev))
        dev = 0;
    sqlite3_finalize(st);
    return dev;
}

static uint32_t device_lane(struct ctx *c, int64_t dev, int64_t stream)
{
    bool small = dev >= 0 && dev < DEV_CACHE && stream >= 0 && stream < STREAM_CACHE;
    if (small && !c->dev_lanes)
        c->dev_lanes = calloc(DEV_CACHE * STREAM_CACHE, sizeof *c->dev_lanes);
    uint32_t *slot = small && c->dev_lanes ? &c->dev_lanes[dev * STREAM_CACHE + stream] : NULL;
    if (slot && *slot)
        return *slot - 1;
    uint32_t l = device_lane_slow(c, dev, stream);
    if (slot && l != LANE_NONE)
        *slot = l + 1;
    return l;
}

static uint32_t device_lane_slow(struct ctx *c, int64_t dev, int64_t stream)
{
    uint64_t key = (uint64_t)dev << 32 ^ (uint32_t)stream;
    uint64_t *v = dbu_map_get(&c->lanes, key * 8 + TAG_DEV);
    if (v)
        return (uint32_t)*v;
    char pid[32], tid[24], tname[32];
    snprintf(pid, sizeof pid, "npu%lld", (long long)dev);
    snprintf(tid, sizeof tid, "%lld", (long long)stream);
    snprintf(tname, sizeof tname, "Stream %lld", (long long)stream);
    return lane_for(c, TAG_DEV, key, pid, "Ascend Hardware", 13, tid, tname, stream);
}

/* The flows into a task slice b: CANN API → task, PyTorch op → task, by connection. */
static void task_links(struct ctx *c, uint32_t b, int64_t conn)
{
    uint64_t *h = c->cann_by_conn.n ? dbu_map_get(&c->cann_by_conn, (uint64_t)conn) : NULL;
    if (h)
        model_add_flow_direct(c->m, c->cat_h2d, (uint32_t)*h, b);
    uint64_t *pt = c->pt_by_conn.n ? dbu_map_get(&c->pt_by_conn, (uint64_t)conn) : NULL;
    if (pt && !(*pt & CONN_QUEUE))
        model_add_flow_direct(c->m, c->cat_async_npu, (uint32_t)*pt, b);
}

static bool pend_push(struct ctx *c, const struct pend_task *t)
{
    if (c->npend == c->pend_cap) {
        size_t n = c->pend_cap ? c->pend_cap * 2 : 256;
        struct pend_task *p = realloc(c->pend, n * sizeof *p);
        if (!p)
            return false;
        c->pend = p;
        c->pend_cap = n;
    }
    c->pend[c->npend++] = *t;
    return true;
}

/* The tasks without a task info row, once every task is known: an enclosing record is
 * left out (and counted), any other is drawn under its task type. */
static void add_pending_tasks(struct ctx *c, bool links)
{
    size_t skipped = 0;
    for (size_t i = 0; i < c->npend; i++) {
        const struct pend_task *t = &c->pend[i];
        if (t->has_conn && dbu_idset_has(&c->info_conns, t->conn)) {
            skipped++;
            continue;
        }
        uint32_t type = model_id(c, t->type_lid), b = SLICE_NONE;
        uint32_t lane = device_lane(c, t->dev, t->stream);
        if (lane != LANE_NONE) {
            model_count_event(c->m, 'X');
            b = model_add_slice_ids(c->m, lane, t->s, span_ns(t->s, t->e), type, type, c->file,
                                    t->rowid >= 0 ? (uint64_t)t->rowid : UINT64_MAX, t->rowid >= 0 ? DBS_TASK : 0);
        }
        if (b != SLICE_NONE && links && t->has_conn)
            task_links(c, b, t->conn);
    }
    free(c->pend);
    c->pend = NULL;
    c->npend = c->pend_cap = 0;
    if (skipped)
        diag_add(c->d, DIAG_INFO, c->path, "TASK: %zu row(s) without a task info row enclose tasks of their "
                 "connection that have one (a MIX kernel's outer record, a collective's op-level record): "
                 "not drawn, so the enclosed work is counted once, as in the text export", skipped);
}

static void read_task(struct ctx *c)
{
    static const char *const cols[] = { "startNs", "endNs", "deviceId", "contextId", "globalTaskId", "taskType",
                                        "streamId", "taskId", "modelId", "connectionId", "rowid" };
    /* flows only link to host tables: none when there are none */
    bool links = c->m && (c->cann_by_conn.n || c->pt_by_conn.n);
    uint32_t have;
    sqlite3_stmt *st = dbu_select(c->db, c->path, c->d, "TASK", cols, 11, 0x3, &have);
    if (!st)
        return;
    int rc;
    uint64_t row = 0, bad = 0;
    int64_t last_type = INT64_MIN;
    uint32_t last_type_lid = 0;
    bool oom = false;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && !c->cancelled) {
        int64_t s, e, dev = 0, stream = 0, gtid, conn, tt;
        row++;
        tick(c);
        if (!dbu_i64(st, 0, &s) || !dbu_i64(st, 1, &e)) {
            bad++;
            continue;
        }
        dbu_i64(st, 2, &dev);
        dbu_i64(st, 6, &stream);
        bool has_gtid = dbu_i64(st, 4, &gtid), has_conn = dbu_i64(st, 9, &conn);
        uint32_t r = has_gtid ? dbu_keyidx_find(&c->cti, gtid) : UINT32_MAX;
        uint32_t type_lid = 0;
        if (dbu_i64(st, 5, &tt)) {   /* consecutive rows often share a type: skip the lookup */
            if (tt != last_type) {
                last_type = tt;
                last_type_lid = sid_value(c, tt);
            }
            type_lid = last_type_lid;
        }
        if (c->m) {
            uint64_t *comm = NULL;
            if (r == UINT32_MAX && has_gtid && c->ctask.n)
                comm = dbu_map_get(&c->ctask, (uint64_t)gtid);
            if (r != UINT32_MAX || comm) {
                if (has_conn && !dbu_idset_add(&c->info_conns, conn))
                    oom = true;
                if (r != UINT32_MAX) {   /* a compute task: part of Computing */
                    struct ovl_dev *o = ovl_of(c, dev);
                    if (!o || !dbo_add(&o->comp, s, e))
                        oom = true;
                }
                uint32_t name = r != UINT32_MAX ? cti_model_name(c, r) : model_id(c, (uint32_t)*comm);
                uint32_t b = add_row_slice(c, device_lane(c, dev, stream), s, e, name, model_id(c, type_lid),
                                           DBS_TASK, st, 10);
                if (b != SLICE_NONE && links && has_conn)
                    task_links(c, b, conn);
            } else {
                int64_t rowid;
                struct pend_task t = { s, e, dev, stream, has_conn ? conn : 0, dbu_i64(st, 10, &rowid) ? rowid : -1,
                                       type_lid, has_conn };
                if (!pend_push(c, &t))
                    oom = true;
            }
        }
        if (c->det && r < c->nk) {
            int64_t v;
            if (c->ktime[KC_START])
                c->ktime[KC_START][r] = s;
            if (c->ktime[KC_DUR])
                c->ktime[KC_DUR][r] = span_ns(s, e);
            if (c->knum[KC_DEVICE])
                c->knum[KC_DEVICE][r] = (double)dev;
            if (c->knum[KC_STREAM])
                c->knum[KC_STREAM][r] = (double)stream;
            if (c->knum[KC_TASK] && dbu_i64(st, 7, &v))
                c->knum[KC_TASK][r] = (double)v;
            if (c->knum[KC_MODEL] && dbu_i64(st, 8, &v))
                c->knum[KC_MODEL][r] = (double)v;
            if (c->knum[KC_CONTEXT] && dbu_i64(st, 3, &v))
                c->knum[KC_CONTEXT][r] = (double)v;
        }
    }
    step_end(c, st, rc, "TASK", row);
    if (bad)
        diag_add(c->d, DIAG_WARN, c->path, "table TASK: %llu row(s) without a readable startNs/endNs skipped",
                 (unsigned long long)bad);
    if (oom)
        diag_add(c->d, DIAG_ERROR, c->path, "TASK: out of memory while sorting tasks: some tasks and the "
                 "computed Overlap Analysis may be missing");
    if (c->m)
        add_pending_tasks(c, links);
}

static void read_comm_op(struct ctx *c)
{
    static const char *const cols[] = { "opName", "startNs", "endNs", "groupName", "opType", "connectionId",
                                        "deviceId", "rowid", "waitNs" };
    uint32_t have;
    sqlite3_stmt *st = dbu_select(c->db, c->path, c->d, "COMMUNICATION_OP", cols, 9, 0x7, &have);
    if (!st)
        return;
    bool oom = false;
    int rc;
    uint64_t row = 0;
    uint32_t cat_default = c->m ? model_cstr(c, "communication") : 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && !c->cancelled) {
        int64_t s, e, conn, dev = c->task_dev, wait;
        row++;
        tick(c);
        if (!dbu_i64(st, 1, &s) || !dbu_i64(st, 2, &e))
            continue;
        dbu_i64(st, 6, &dev);
        if (c->det) {   /* a row of the kernel table too, as kernel_details.csv has one per collective */
            struct comm_kernel k = { s, e, dbu_i64(st, 8, &wait) ? wait : NS_NONE, dev, sid_local(c, st, 0),
                                     (have & 16) ? sid_local(c, st, 4) : 0 };
            if (!ckern_push(c, &k))
                oom = true;
        }
        if (!c->m)
            continue;
        struct ovl_dev *o = ovl_of(c, dev);
        if (!o || !dbo_add(&o->comm, s, e))
            oom = true;
        bool has_conn = dbu_i64(st, 5, &conn);
        if (has_conn && !dbu_idset_add(&c->info_conns, conn))   /* its op-level TASK row encloses the op's tasks */
            oom = true;
        uint32_t group = (have & 8) ? sid_local(c, st, 3) : 0;
        const char *gname = strtab_get(c->ls, group);
        char tid[16];
        snprintf(tid, sizeof tid, "%u", group);
        uint32_t lane = lane_for(c, TAG_COMM, group, "Communication", "Communication", 15, tid,
                                 gname[0] ? gname : "Group", group);
        uint32_t cat = (have & 16) ? model_id(c, sid_local(c, st, 4)) : cat_default;
        uint32_t b = add_row_slice(c, lane, s, e, model_id(c, sid_local(c, st, 0)), cat, DBS_COMMUNICATION_OP, st, 7);
        uint64_t *h;
        if (b != SLICE_NONE && has_conn && (h = dbu_map_get(&c->cann_by_conn, (uint64_t)conn)))
            model_add_flow_direct(c->m, c->cat_h2d, (uint32_t)*h, b);
    }
    step_end(c, st, rc, "COMMUNICATION_OP", row);
    if (oom)
        diag_add(c->d, DIAG_ERROR, c->path, "COMMUNICATION_OP: out of memory: the computed Overlap Analysis "
                 "may be missing communication");
}

static const char *const overlap_names[] = { "Computing", "Communication", "Communication(Not Overlapped)", "Free" };

/* A slice of Overlap Analysis lane `type` of device dev (types 0-3 are overlap_names). */
static void overlap_slice(struct ctx *c, int64_t dev, int64_t type, int64_t s, int64_t e)
{
    char pid[32], tid[24], tname[32];
    snprintf(pid, sizeof pid, "overlap%lld", (long long)dev);
    snprintf(tid, sizeof tid, "%lld", (long long)type);
    snprintf(tname, sizeof tname, "Type %lld", (long long)type);
    const char *tn = type >= 0 && type < 4 ? overlap_names[type] : tname;
    uint32_t lane = lane_for(c, TAG_OVL, (uint64_t)dev << 8 ^ (uint64_t)type, pid, "Overlap Analysis", 23,
                             tid, tn, type);
    add_slice(c, lane, s, e, model_cstr(c, tn), 0);
}

/* OVERLAP_ANALYSIS as written; returns the rows that became slices. */
static uint64_t read_overlap(struct ctx *c)
{
    static const char *const cols[] = { "deviceId", "startNs", "endNs", "type" };
    uint32_t have;
    sqlite3_stmt *st = dbu_select(c->db, c->path, c->d, "OVERLAP_ANALYSIS", cols, 4, 0xe, &have);
    if (!st)
        return 0;
    int rc;
    uint64_t row = 0, used = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && !c->cancelled) {
        int64_t dev = 0, s, e, type;
        row++;
        tick(c);
        if (!dbu_i64(st, 1, &s) || !dbu_i64(st, 2, &e) || !dbu_i64(st, 3, &type))
            continue;
        dbu_i64(st, 0, &dev);
        overlap_slice(c, dev, type, s, e);
        used++;
    }
    step_end(c, st, rc, "OVERLAP_ANALYSIS", row);
    return used;
}

/* Without OVERLAP_ANALYSIS rows: the same lanes computed from the tasks (db_overlap.h). */
static void compute_overlap(struct ctx *c)
{
    bool any = false, oom = false;
    for (size_t i = 0; i < c->novl; i++)
        any |= c->ovl[i].comp.n > 0;
    if (!any)
        return;   /* no compute task: nothing the text export would show either */
    for (size_t i = 0; i < c->novl && !oom; i++) {
        struct ovl_dev *o = &c->ovl[i];
        struct dbo_spans only = { 0 }, freev = { 0 };
        dbo_finish(&o->comp);
        dbo_finish(&o->comm);
        oom = !dbo_minus(&o->comm, &o->comp, &only) || !dbo_gaps(&o->comp, &o->comm, &freev);
        const struct dbo_spans *lanes[4] = { &o->comp, &o->comm, &only, &freev };
        for (int type = 0; type < 4 && !oom; type++)
            for (size_t k = 0; k < lanes[type]->n; k++)
                overlap_slice(c, o->dev, type, lanes[type]->v[k].s, lanes[type]->v[k].e);
        dbo_free(&only);
        dbo_free(&freev);
    }
    if (oom)
        diag_add(c->d, DIAG_ERROR, c->path, "out of memory computing the Overlap Analysis: it is incomplete");
    else
        diag_add(c->d, DIAG_INFO, c->path, "no OVERLAP_ANALYSIS rows: Computing (tasks with a COMPUTE_TASK_INFO "
                 "row), Communication (COMMUNICATION_OP spans), Communication(Not Overlapped) and Free computed "
                 "from the tasks, as the text export does");
}

static void read_mstx(struct ctx *c)
{
    static const char *const cols[] = { "startNs", "endNs", "eventType", "message", "globalTid", "rowid" };
    uint32_t have;
    sqlite3_stmt *st = dbu_select(c->db, c->path, c->d, "MSTX_EVENTS", cols, 6, 0x1, &have);
    if (!st)
        return;
    int rc;
    uint64_t row = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && !c->cancelled) {
        int64_t s, e, g = 0;
        row++;
        tick(c);
        if (!dbu_i64(st, 0, &s))
            continue;
        if (!dbu_i64(st, 1, &e) || e < s)
            e = s;   /* markers are instants */
        dbu_i64(st, 4, &g);
        char buf[24];
        uint32_t cat = model_cstr(c, enum_name(c, &c->mstx_type, st, 2, buf, sizeof buf));
        uint32_t lane = thread_lane(c, TAG_MSTX, g, "MSTX", 30);
        add_row_slice(c, lane, s, e, model_id(c, sid_local(c, st, 3)), cat, DBS_MSTX_EVENTS, st, 5);
    }
    step_end(c, st, rc, "MSTX_EVENTS", row);
}

static void read_step_time(struct ctx *c)
{
    static const char *const cols[] = { "id", "startNs", "endNs" };
    uint32_t have;
    if (c->have_profiler_step)
        return;   /* PYTORCH_API already has the ProfilerStep# ops */
    sqlite3_stmt *st = dbu_select(c->db, c->path, c->d, "STEP_TIME", cols, 3, 0x7, &have);
    if (!st)
        return;
    int rc;
    uint64_t row = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && !c->cancelled) {
        int64_t id, s, e;
        row++;
        tick(c);
        if (!dbu_i64(st, 0, &id) || !dbu_i64(st, 1, &s) || !dbu_i64(st, 2, &e))
            continue;
        char name[40];
        int n = snprintf(name, sizeof name, "ProfilerStep#%lld", (long long)id);
        uint32_t lane = lane_for(c, TAG_STEP, 0, "steps", "Python", 0, "steps", "Steps", -1);
        uint32_t nid = strtab_intern(c->m->str, name, (size_t)n);
        add_slice(c, lane, s, e, nid == UINT32_MAX ? 0 : nid, model_cstr(c, "cpu_op"));
    }
    step_end(c, st, rc, "STEP_TIME", row);
}

static const char *counter_string(void *arg, int64_t id)
{
    struct ctx *c = arg;
    return strtab_get(c->ls, sid_value(c, id));
}

static bool counter_tick(void *arg)
{
    struct ctx *c = arg;
    tick(c);
    return !c->cancelled;
}

static void read_rank_device(struct ctx *c, struct rank_data *rd)
{
    static const char *const cols[] = { "rankId", "deviceId" };
    uint32_t have;
    if (rd->device >= 0)
        return;
    sqlite3_stmt *st = dbu_select(c->db, c->path, c->d, "RANK_DEVICE_MAP", cols, 2, 2, &have);
    if (!st)
        return;
    int64_t dev;
    if (sqlite3_step(st) == SQLITE_ROW && dbu_i64(st, 1, &dev) && dev >= 0 && dev < 1 << 20)
        rd->device = (int)dev;
    sqlite3_finalize(st);
}

/* --- the load ------------------------------------------------------------------------ */

static void ctx_done(struct ctx *c)
{
    strtab_free(c->ls);
    dbu_map_free(&c->sid);
    dbu_map_free(&c->api_type);
    dbu_map_free(&c->mstx_type);
    dbu_map_free(&c->ctask);
    dbu_map_free(&c->cann_by_conn);
    dbu_map_free(&c->pt_by_conn);
    dbu_map_free(&c->lanes);
    free(c->to_model);
    free(c->sid_dense);
    free(c->dev_lanes);
    details_free(c->det);   /* joins a helper still running */
    c->det = NULL;
    for (int k = 0; k < KC_COUNT; k++) {
        free(c->knum[k]);
        free(c->ktime[k]);
    }
    dbu_keyidx_free(&c->cti);
    free(c->cti_name);
    free(c->conns);
    dbu_idset_free(&c->info_conns);
    free(c->ckern);
    db_pmu_free(&c->pmu);
    free(c->pend);
    for (size_t i = 0; i < c->novl; i++) {
        dbo_free(&c->ovl[i].comp);
        dbo_free(&c->ovl[i].comm);
    }
    free(c->ovl);
    if (c->db)
        sqlite3_close(c->db);
}

static const char *const timeline_tables[] = {
    "TASK", "PYTORCH_API", "CANN_API", "COMMUNICATION_OP", "OVERLAP_ANALYSIS", "MSTX_EVENTS", NULL };

int db_load(const char *path, struct rank_data *rd, struct diag *d, struct load_progress *p)
{
    struct stat sb;
    if (stat(path, &sb) < 0) {
        diag_add(d, DIAG_ERROR, path, "cannot read: no such file or not accessible");
        return -1;
    }
    if (!db_is_sqlite(path)) {
        diag_add(d, DIAG_ERROR, path, "byte 0: not an SQLite database (no \"SQLite format 3\" header)");
        return -1;
    }
    if (progress_cancelled(p))
        return -1;
    struct ctx c = { .path = path, .d = d, .p = p, .bytes_total = (uint64_t)sb.st_size };
    if (p)
        atomic_store_explicit(&p->bytes_total, (uint64_t)sb.st_size, memory_order_relaxed);
    c.db = dbu_open(path, d);
    if (!c.db)
        return -1;
    int ntables = dbu_table_count(c.db, path, d);
    if (ntables < 0) {
        ctx_done(&c);
        return -1;
    }
    bool timeline = false;
    for (const char *const *t = timeline_tables; *t; t++)
        timeline |= dbu_has_table(c.db, *t);
    bool kernels = dbu_has_table(c.db, "COMPUTE_TASK_INFO");
    if (!timeline && !kernels) {
        diag_add(d, DIAG_ERROR, path, "SQLite file with no profiler tables (%d table%s; expected TASK, PYTORCH_API, "
                 "COMPUTE_TASK_INFO, ...): nothing to load", ntables, ntables == 1 ? "" : "s");
        ctx_done(&c);
        return -1;
    }
    c.ls = strtab_new();
    if (!c.ls || local_intern(&c, "", 0) != 0) {
        diag_add(d, DIAG_ERROR, path, "out of memory");
        ctx_done(&c);
        return -1;
    }
    static const char *const all[] = { "STRING_IDS", "TASK", "COMPUTE_TASK_INFO", "PYTORCH_API", "CANN_API",
                                       "CONNECTION_IDS", "COMMUNICATION_TASK_INFO", "COMMUNICATION_OP",
                                       "OVERLAP_ANALYSIS", "MSTX_EVENTS", "AICORE_FREQ", "NPU_MEM", "NPU_MODULE_MEM",
                                       "HBM", "DDR", "LLC", "ACC_PMU", "SOC_BANDWIDTH_LEVEL", NULL };
    /* TASK_PMU_INFO is read without progress ticks: its rows are not in the estimate */
    estimate_rows(&c, all);
    read_meta(&c);
    read_strings(&c);
    read_enum(&c, "ENUM_API_TYPE", &c.api_type);
    read_enum(&c, "ENUM_MSTX_EVENT_TYPE", &c.mstx_type);
    read_rank_device(&c, rd);

    if (timeline && !rd->model) {
        c.m = model_new(TIME_UNIX_NS);
        if (!c.m) {
            diag_add(d, DIAG_ERROR, path, "out of memory");
            ctx_done(&c);
            return -1;
        }
        c.file = model_add_file(c.m, path, (uint64_t)sb.st_size);
        c.cat_async_npu = model_cstr(&c, "async_npu");
        c.cat_h2d = model_cstr(&c, "HostToDevice");
        c.cat_queue = model_cstr(&c, "async_task_queue");
        c.cat_fwdbwd = model_cstr(&c, "fwdbwd");
        bool flows = dbu_has_table(c.db, "TASK");
        if (flows)
            read_connection_ids(&c);
        read_pytorch_api(&c);
        read_cann_api(&c);
        if (!flows) {
            dbu_map_free(&c.pt_by_conn);
        }
    }
    read_compute_task_info(&c, kernels && !rd->tables[TK_KERNELS]);
    if (c.m)
        read_comm_task_info(&c);
    if (c.m || c.det) {
        c.task_dev = first_task_device(&c);
        read_comm_op(&c);   /* before TASK: its connections mark the op-level task records */
    }
    if (c.m || c.det)
        read_task(&c);
    if (c.det && !c.cancelled)
        db_pmu_read(&c.pmu, c.db, path, d, &c.cti, c.nk, counter_string, &c);
    dbu_keyidx_free(&c.cti);   /* the join is done: give its memory back before finalize */
    free(c.cti_name);
    c.cti_name = NULL;
    details_finish(&c);
    if (c.kt) {
        db_pmu_adopt(&c.pmu, c.kt, d, path);
        add_comm_kernels(&c);
    }
    details_free(c.det);
    c.det = NULL;
    if (c.m) {
        if (!read_overlap(&c))
            compute_overlap(&c);
        read_mstx(&c);
        read_step_time(&c);
        struct dbc_ctx cx = { c.db, path, d, c.m, counter_string, counter_tick, &c };
        db_read_counters(&cx);
    }
    if (c.unresolved)
        diag_add(d, DIAG_WARN, path, "%llu reference(s) to STRING_IDS not found there: shown as numbers",
                 (unsigned long long)c.unresolved);
    size_t kstart = c.kt ? table_col(c.kt, kcols[KC_START].header) : SIZE_MAX;
    if (kstart != SIZE_MAX) {
        size_t missing = 0;   /* TASK rows set the start of their kernel row (the first nk rows) */
        const int64_t *start = c.kt->cols[kstart].time;
        for (size_t i = 0; i < c.nk && i < c.kt->nrows; i++)
            missing += start[i] == NS_NONE;
        if (missing)
            diag_add(d, DIAG_WARN, path, "COMPUTE_TASK_INFO: %zu of %zu kernel(s) have no TASK row (no start or duration)",
                     missing, c.nk);
    }
    if (p) {
        atomic_store_explicit(&p->events, c.rows, memory_order_relaxed);
        atomic_store_explicit(&p->bytes_done, c.bytes_total, memory_order_relaxed);
    }
    int loaded = 0;
    if (c.cancelled) {
        diag_add(d, DIAG_INFO, path, "loading cancelled after %llu rows", (unsigned long long)c.rows);
        model_free(c.m);
        table_free(c.kt);
        ctx_done(&c);
        return -1;
    }
    if (c.m) {
        if (c.m->nslices == 0 && c.m->ncounters == 0) {
            model_free(c.m);
        } else if (model_finalize(c.m) < 0) {
            diag_add(d, DIAG_ERROR, path, "out of memory while indexing %u slices", c.m->nslices);
            model_free(c.m);
        } else {
            rd->model = c.m;
            loaded++;
        }
        c.m = NULL;
    }
    if (c.kt) {
        if (c.kt->nrows) {
            table_finish(c.kt);
            rd->tables[TK_KERNELS] = c.kt;
            loaded++;
        } else {
            table_free(c.kt);
        }
        c.kt = NULL;
    }
    if (loaded)
        snprintf(rd->status, sizeof rd->status, "loaded from %s", strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
    else
        diag_add(d, DIAG_ERROR, path, "no timeline rows and no kernels found in the profiler tables");
    ctx_done(&c);
    return loaded ? 0 : -1;
}
