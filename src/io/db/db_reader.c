#include "io/db/db_reader.h"
#include "io/db/db_reader_internal.h"
#include "util/grow.h"

#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/db/db_counters.h"
#include "io/db/db_fields.h"
#include "io/db/db_overlap.h"
#include "io/db/db_pmu.h"
#include "io/db/db_util.h"
#include "model/index/model.h"
#include "model/index/table.h"
#include "util/free_all.h"

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

/* --- progress ------------------------------------------------------------------------ */

void dbr_tick(struct ctx *c)
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

struct dbr_rows dbr_rows_open(struct ctx *c, const char *table, const char *const *cols, int ncols,
                              uint32_t required)
{
    struct dbr_rows rows = { .table = table, .rc = SQLITE_DONE };
    rows.st = dbu_select(c->db, c->path, c->d, table, cols, ncols, required, &rows.have);
    return rows;
}

bool dbr_rows_next(struct ctx *c, struct dbr_rows *rows)
{
    if (!rows->st || (rows->rc = sqlite3_step(rows->st)) != SQLITE_ROW || c->cancelled)
        return false;
    rows->row++;
    dbr_tick(c);
    return true;
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
void dbr_step_end(struct ctx *c, sqlite3_stmt *st, int rc, const char *table, uint64_t row)
{
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        diag_add(c->d, DIAG_ERROR, c->path, "table %s, row %llu: %s; rows before it are kept",
                 table, (unsigned long long)row + 1, sqlite3_errmsg(c->db));
    sqlite3_finalize(st);
}

void dbr_rows_end(struct ctx *c, struct dbr_rows *rows)
{
    if (rows->st)
        dbr_step_end(c, rows->st, rows->rc, rows->table, rows->row);
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
        uint32_t *a = grow_exact(c->to_model, n, sizeof *a);
        if (!a)
            return 0;
        c->to_model = a;
        memset(a + c->nlocal, 0xff, (n - c->nlocal) * sizeof *a);
        c->nlocal = n;
    }
    return id;
}

/* Local id of STRING_IDS id v; an unknown reference reads as its number. */
uint32_t dbr_sid_value(struct ctx *c, int64_t v)
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
uint32_t dbr_sid_local(struct ctx *c, sqlite3_stmt *st, int col)
{
    int64_t v;
    if (dbu_i64(st, col, &v))
        return dbr_sid_value(c, v);
    size_t len;
    const char *s = dbu_text(st, col, &len);
    return s ? local_intern(c, s, len) : 0;
}

uint32_t dbr_model_id(struct ctx *c, uint32_t lid)
{
    if (c->to_model[lid] == UINT32_MAX) {
        uint32_t id = strtab_intern(c->m->str, strtab_get(c->ls, lid), strtab_len(c->ls, lid));
        c->to_model[lid] = id == UINT32_MAX ? 0 : id;
    }
    return c->to_model[lid];
}

uint32_t dbr_model_cstr(struct ctx *c, const char *s)
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
        dbr_tick(c);
    }
    dbr_step_end(c, st, rc, "STRING_IDS", row);
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
    dbr_step_end(c, st, rc, table, row);
}

const char *dbr_enum_name(struct ctx *c, struct dbu_map *map, sqlite3_stmt *st, int col, char *buf, size_t size)
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
    dbr_step_end(c, st, rc, "META_DATA", row);
    if (!seen)
        diag_add(c->d, DIAG_INFO, c->path, "META_DATA has no SCHEMA_VERSION: columns are read by name");
}

/* --- lanes --------------------------------------------------------------------------- */


uint32_t dbr_lane_for(struct ctx *c, enum lane_tag tag, uint64_t key, const char *pid, const char *pname,
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

uint32_t dbr_thread_lane(struct ctx *c, enum lane_tag tag, int64_t gtid, const char *pname, int64_t psort)
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
    return dbr_lane_for(c, tag, g, pid, pname, psort, tid, tname, t);
}

/* end - start, 0 when negative, saturated: any int64 may stand in a hostile file. */
int64_t dbr_span_ns(int64_t start, int64_t end)
{
    if (end <= start)
        return 0;
    uint64_t d = (uint64_t)end - (uint64_t)start;
    return d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d;
}

uint32_t dbr_add_slice(struct ctx *c, uint32_t lane, int64_t start, int64_t end, uint32_t name, uint32_t cat)
{
    if (lane == LANE_NONE)
        return SLICE_NONE;
    model_count_event(c->m, 'X');
    return model_add_slice_ids(c->m, lane, start, dbr_span_ns(start, end), name, cat, c->file, UINT64_MAX, 0);
}

/* A slice made from row `rowid` of table `src`: the detail pane reads the row again. */
uint32_t dbr_add_row_slice(struct ctx *c, uint32_t lane, int64_t start, int64_t end, uint32_t name, uint32_t cat,
                           enum db_source src, sqlite3_stmt *st, int rowid_col)
{
    if (lane == LANE_NONE)
        return SLICE_NONE;
    int64_t rowid;
    if (!st || !dbu_i64(st, rowid_col, &rowid) || rowid < 0)
        return dbr_add_slice(c, lane, start, end, name, cat);
    model_count_event(c->m, 'X');
    return model_add_slice_ids(c->m, lane, start, dbr_span_ns(start, end), name, cat, c->file, (uint64_t)rowid, src);
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
            diag_out_of_memory(c->d, c->path, "out of memory adding the collectives to the kernel table");
            break;
        }
        table_set_text(t, r, cn, strtab_get(c->ls, k->name), strtab_len(c->ls, k->name));
        if (k->type)
            table_set_text(t, r, ct, strtab_get(c->ls, k->type), strtab_len(c->ls, k->type));
        table_set_text(t, r, cc, "HCCL", 4);
        table_set_time(t, r, cs, k->s);
        table_set_time(t, r, cd, dbr_span_ns(k->s, k->e));
        if (k->wait != NS_NONE)
            table_set_time(t, r, cw, k->wait);
        table_set_num(t, r, cb, 0);
        table_set_num(t, r, cv, (double)k->dev);
    }
}

/* The Overlap Analysis spans of device dev (created when new), NULL when memory ran out. */
struct ovl_dev *dbr_ovl_of(struct ctx *c, int64_t dev)
{
    for (size_t i = 0; i < c->novl; i++)
        if (c->ovl[i].dev == dev)
            return &c->ovl[i];
    struct ovl_dev *v = grow_exact(c->ovl, c->novl + 1, sizeof *v);
    if (!v)
        return NULL;
    c->ovl = v;
    memset(&v[c->novl], 0, sizeof *v);
    v[c->novl].dev = dev;
    return &v[c->novl++];
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
    FREE_ALL(c->to_model, c->sid_dense, c->dev_lanes);
    dbr_details_free(c->det);   /* joins a helper still running */
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

/* The timeline's model and the host tables (CONNECTION_IDS, PYTORCH_API, CANN_API) into it;
 * -1 when memory ran out. */
static int read_host(struct ctx *c, uint64_t size)
{
    c->m = model_new(TIME_UNIX_NS);
    if (!c->m)
        return -1;
    c->file = model_add_file(c->m, c->path, size);
    c->cat_async_npu = dbr_model_cstr(c, "async_npu");
    c->cat_h2d = dbr_model_cstr(c, "HostToDevice");
    c->cat_queue = dbr_model_cstr(c, "async_task_queue");
    c->cat_fwdbwd = dbr_model_cstr(c, "fwdbwd");
    bool flows = dbu_has_table(c->db, "TASK");
    if (flows)
        dbr_read_connection_ids(c);
    dbr_read_pytorch_api(c);
    dbr_read_cann_api(c);
    if (!flows)
        dbu_map_free(&c->pt_by_conn);
    return 0;
}

/* The device tasks: the kernel table's COMPUTE_TASK_INFO columns (when wanted) joined with
 * TASK, communication ops and tasks, PMU columns. */
static void read_tasks(struct ctx *c, bool want_kernels)
{
    dbr_read_compute_task_info(c, want_kernels);
    if (c->m)
        dbr_read_comm_task_info(c);
    if (c->m || c->det) {
        c->task_dev = dbr_first_task_device(c);
        dbr_read_comm_op(c);   /* before TASK: its connections mark the op-level task records */
    }
    if (c->m || c->det)
        dbr_read_task(c);
    if (c->det && !c->cancelled)
        db_pmu_read(&c->pmu, c->db, c->path, c->d, &c->cti, c->nk, dbr_counter_string, c);
    dbu_keyidx_free(&c->cti);   /* the join is done: give its memory back before finalize */
    free(c->cti_name);
    c->cti_name = NULL;
    dbr_details_finish(c);
    if (c->kt) {
        db_pmu_adopt(&c->pmu, c->kt, c->d, c->path);
        add_comm_kernels(c);
    }
    dbr_details_free(c->det);
    c->det = NULL;
}

/* What the load could not resolve: string ids missing from STRING_IDS, kernels without a
 * TASK row. */
static void say_incomplete(const struct ctx *c)
{
    if (c->unresolved)
        diag_add(c->d, DIAG_WARN, c->path, "%llu reference(s) to STRING_IDS not found there: shown as numbers",
                 (unsigned long long)c->unresolved);
    size_t kstart = c->kt ? table_col(c->kt, kcols[KC_START].header) : SIZE_MAX;
    if (kstart != SIZE_MAX) {
        size_t missing = 0;   /* TASK rows set the start of their kernel row (the first nk rows) */
        const int64_t *start = c->kt->cols[kstart].time;
        for (size_t i = 0; i < c->nk && i < c->kt->nrows; i++)
            missing += start[i] == NS_NONE;
        if (missing)
            diag_add(c->d, DIAG_WARN, c->path,
                     "COMPUTE_TASK_INFO: %zu of %zu kernel(s) have no TASK row (no start or duration)", missing, c->nk);
    }
}

/* The finalized model and the kernel table given to the rank; how many of the two it got. */
static int hand_over(struct ctx *c, struct rank_data *rd)
{
    int loaded = 0;
    if (c->m) {
        if (c->m->nslices == 0 && c->m->ncounters == 0) {
            model_free(c->m);
        } else if (model_finalize(c->m) < 0) {
            diag_out_of_memory(c->d, c->path, "out of memory while indexing %u slices", c->m->nslices);
            model_free(c->m);
        } else {
            rd->model = c->m;
            loaded++;
        }
        c->m = NULL;
    }
    if (c->kt) {
        if (c->kt->nrows) {
            table_finish(c->kt);
            rd->tables[TK_KERNELS] = c->kt;
            loaded++;
        } else {
            table_free(c->kt);
        }
        c->kt = NULL;
    }
    return loaded;
}

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
        diag_out_of_memory(d, path, "out of memory");
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
    dbr_read_rank_device(&c, rd);

    if (timeline && !rd->model && read_host(&c, (uint64_t)sb.st_size) < 0) {
        diag_out_of_memory(d, path, "out of memory");
        ctx_done(&c);
        return -1;
    }
    read_tasks(&c, kernels && !rd->tables[TK_KERNELS]);
    if (c.m) {
        if (!dbr_read_overlap(&c))
            dbr_compute_overlap(&c);
        dbr_read_mstx(&c);
        dbr_read_step_time(&c);
        struct dbc_ctx cx = { c.db, path, d, c.m, dbr_counter_string, dbr_counter_tick, &c };
        db_read_counters(&cx);
    }
    say_incomplete(&c);
    if (p) {
        atomic_store_explicit(&p->events, c.rows, memory_order_relaxed);
        atomic_store_explicit(&p->bytes_done, c.bytes_total, memory_order_relaxed);
    }
    if (c.cancelled) {
        diag_add(d, DIAG_INFO, path, "loading cancelled after %llu rows", (unsigned long long)c.rows);
        model_free(c.m);
        table_free(c.kt);
        ctx_done(&c);
        return -1;
    }
    int loaded = hand_over(&c, rd);
    if (loaded)
        snprintf(rd->status, sizeof rd->status, "loaded from %s", strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
    else
        diag_add(d, DIAG_ERROR, path, "no timeline rows and no kernels found in the profiler tables");
    ctx_done(&c);
    return loaded ? 0 : -1;
}
