/* The DB's device tables: TASK with its compute and communication info, communication ops,
 * overlap analysis, MSTX markers, step times and the rank's device counters. */
#include "io/db/db_reader.h"
#include "io/db/db_reader_internal.h"

#include "io/db/db_counters.h"
#include "io/db/db_fields.h"
#include "io/db/db_pmu.h"
#include "util/grow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dbr_read_compute_task_info(struct ctx *c, bool want_table)
{
    static const char *const cols[] = { "name", "globalTaskId" };
    struct dbr_rows rows = dbr_rows_open(c, "COMPUTE_TASK_INFO", cols, 2, 0x3);
    if (!rows.st)
        return;
    if (want_table) {
        uint64_t est = 0;
        sqlite3_stmt *q = NULL;
        if (sqlite3_prepare_v2(c->db, "SELECT max(rowid) FROM COMPUTE_TASK_INFO", -1, &q, NULL) == SQLITE_OK
            && sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int64(q, 0) > 0)
            est = (uint64_t)sqlite3_column_int64(q, 0);
        sqlite3_finalize(q);
        dbr_details_start(c, est);
    }
    if (c->det && !c->det->running && c->det->str) {
        /* one thread: one pass over the table gives the keys and the details */
        sqlite3_finalize(rows.st);
        c->det->keys = c;
        dbr_details_read(c->det);
        c->det->done = true;
    } else {
        size_t cap = 0;
        while (dbr_rows_next(c, &rows)) {
            int64_t gtid;
            if (dbu_i64(rows.st, 1, &gtid) && !dbr_key_add(c, rows.st, gtid, &cap))
                break;
        }
        dbr_rows_end(c, &rows);
    }
    if (!dbu_keyidx_done(&c->cti))
        diag_out_of_memory(c->d, c->path, "out of memory joining COMPUTE_TASK_INFO to TASK");
    c->nk = c->cti.n;
    if (!c->det)
        return;
    /* the TASK columns of the kernel table, every cell missing until read_task */
    for (int k = 0; k < KC_COUNT; k++) {
        if (!dbr_task_col((enum kcol)k))
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
    return r < c->nk && c->cti_name ? dbr_model_id(c, c->cti_name[r]) : 0;
}

void dbr_read_comm_task_info(struct ctx *c)
{
    static const char *const cols[] = { "name", "globalTaskId" };
    struct dbr_rows rows = dbr_rows_open(c, "COMMUNICATION_TASK_INFO", cols, 2, 3);
    while (dbr_rows_next(c, &rows)) {
        int64_t g;
        if (dbu_i64(rows.st, 1, &g))
            dbu_map_put(&c->ctask, (uint64_t)g, dbr_sid_local(c, rows.st, 0), NULL);
    }
    dbr_rows_end(c, &rows);
}

static uint32_t device_lane_slow(struct ctx *c, int64_t dev, int64_t stream);

/* deviceId of the first TASK row, 0 when there is none. */
int64_t dbr_first_task_device(struct ctx *c)
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
    return dbr_lane_for(c, TAG_DEV, key, pid, "Ascend Hardware", 13, tid, tname, stream);
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
        uint32_t type = dbr_model_id(c, t->type_lid), b = SLICE_NONE;
        uint32_t lane = device_lane(c, t->dev, t->stream);
        if (lane != LANE_NONE) {
            model_count_event(c->m, 'X');
            b = model_add_slice_ids(c->m, lane, t->s, dbr_span_ns(t->s, t->e), type, type, c->file,
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

void dbr_read_task(struct ctx *c)
{
    static const char *const cols[] = { "startNs", "endNs", "deviceId", "contextId", "globalTaskId", "taskType",
                                        "streamId", "taskId", "modelId", "connectionId", "rowid" };
    /* flows only link to host tables: none when there are none */
    bool links = c->m && (c->cann_by_conn.n || c->pt_by_conn.n);
    struct dbr_rows rows = dbr_rows_open(c, "TASK", cols, 11, 0x3);
    if (!rows.st)
        return;
    uint64_t bad = 0;
    int64_t last_type = INT64_MIN;
    uint32_t last_type_lid = 0;
    bool oom = false;
    while (dbr_rows_next(c, &rows)) {
        int64_t s, e, dev = 0, stream = 0, gtid, conn, tt;
        if (!dbu_i64(rows.st, 0, &s) || !dbu_i64(rows.st, 1, &e)) {
            bad++;
            continue;
        }
        dbu_i64(rows.st, 2, &dev);
        dbu_i64(rows.st, 6, &stream);
        bool has_gtid = dbu_i64(rows.st, 4, &gtid), has_conn = dbu_i64(rows.st, 9, &conn);
        uint32_t r = has_gtid ? dbu_keyidx_find(&c->cti, gtid) : UINT32_MAX;
        uint32_t type_lid = 0;
        if (dbu_i64(rows.st, 5, &tt)) {   /* consecutive rows often share a type: skip the lookup */
            if (tt != last_type) {
                last_type = tt;
                last_type_lid = dbr_sid_value(c, tt);
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
                    struct ovl_dev *o = dbr_ovl_of(c, dev);
                    if (!o || !dbo_add(&o->comp, s, e))
                        oom = true;
                }
                uint32_t name = r != UINT32_MAX ? cti_model_name(c, r) : dbr_model_id(c, (uint32_t)*comm);
                uint32_t b = dbr_add_row_slice(c, device_lane(c, dev, stream), s, e, name, dbr_model_id(c, type_lid),
                                           DBS_TASK, rows.st, 10);
                if (b != SLICE_NONE && links && has_conn)
                    task_links(c, b, conn);
            } else {
                int64_t rowid;
                struct pend_task *t = grow_push((void **)&c->pend, &c->npend, &c->pend_cap, sizeof *t);
                if (t)
                    *t = (struct pend_task){ s, e, dev, stream, has_conn ? conn : 0,
                                             dbu_i64(rows.st, 10, &rowid) ? rowid : -1, type_lid, has_conn };
                else
                    oom = true;
            }
        }
        if (c->det && r < c->nk) {
            int64_t v;
            if (c->ktime[KC_START])
                c->ktime[KC_START][r] = s;
            if (c->ktime[KC_DUR])
                c->ktime[KC_DUR][r] = dbr_span_ns(s, e);
            if (c->knum[KC_DEVICE])
                c->knum[KC_DEVICE][r] = (double)dev;
            if (c->knum[KC_STREAM])
                c->knum[KC_STREAM][r] = (double)stream;
            if (c->knum[KC_TASK] && dbu_i64(rows.st, 7, &v))
                c->knum[KC_TASK][r] = (double)v;
            if (c->knum[KC_MODEL] && dbu_i64(rows.st, 8, &v))
                c->knum[KC_MODEL][r] = (double)v;
            if (c->knum[KC_CONTEXT] && dbu_i64(rows.st, 3, &v))
                c->knum[KC_CONTEXT][r] = (double)v;
        }
    }
    dbr_rows_end(c, &rows);
    if (bad)
        diag_add(c->d, DIAG_WARN, c->path, "table TASK: %llu row(s) without a readable startNs/endNs skipped",
                 (unsigned long long)bad);
    if (oom)
        diag_out_of_memory(c->d, c->path, "TASK: out of memory while sorting tasks: some tasks and the "
                 "computed Overlap Analysis may be missing");
    if (c->m)
        add_pending_tasks(c, links);
}

void dbr_read_comm_op(struct ctx *c)
{
    static const char *const cols[] = { "opName", "startNs", "endNs", "groupName", "opType", "connectionId",
                                        "deviceId", "rowid", "waitNs" };
    struct dbr_rows rows = dbr_rows_open(c, "COMMUNICATION_OP", cols, 9, 0x7);
    if (!rows.st)
        return;
    bool oom = false;
    uint32_t cat_default = c->m ? dbr_model_cstr(c, "communication") : 0;
    while (dbr_rows_next(c, &rows)) {
        int64_t s, e, conn, dev = c->task_dev, wait;
        if (!dbu_i64(rows.st, 1, &s) || !dbu_i64(rows.st, 2, &e))
            continue;
        dbu_i64(rows.st, 6, &dev);
        if (c->det) {   /* a row of the kernel table too, as kernel_details.csv has one per collective */
            struct comm_kernel *k = grow_push((void **)&c->ckern, &c->nckern, &c->ckern_cap, sizeof *k);
            if (k)
                *k = (struct comm_kernel){ s, e, dbu_i64(rows.st, 8, &wait) ? wait : NS_NONE, dev,
                                           dbr_sid_local(c, rows.st, 0),
                                           (rows.have & 16) ? dbr_sid_local(c, rows.st, 4) : 0 };
            else
                oom = true;
        }
        if (!c->m)
            continue;
        struct ovl_dev *o = dbr_ovl_of(c, dev);
        if (!o || !dbo_add(&o->comm, s, e))
            oom = true;
        bool has_conn = dbu_i64(rows.st, 5, &conn);
        if (has_conn && !dbu_idset_add(&c->info_conns, conn))   /* its op-level TASK row encloses the op's tasks */
            oom = true;
        uint32_t group = (rows.have & 8) ? dbr_sid_local(c, rows.st, 3) : 0;
        const char *gname = strtab_get(c->ls, group);
        char tid[16];
        snprintf(tid, sizeof tid, "%u", group);
        uint32_t lane = dbr_lane_for(c, TAG_COMM, group, "Communication", "Communication", 15, tid,
                                 gname[0] ? gname : "Group", group);
        uint32_t cat = (rows.have & 16) ? dbr_model_id(c, dbr_sid_local(c, rows.st, 4)) : cat_default;
        uint32_t b = dbr_add_row_slice(c, lane, s, e, dbr_model_id(c, dbr_sid_local(c, rows.st, 0)), cat,
                                       DBS_COMMUNICATION_OP, rows.st, 7);
        uint64_t *h;
        if (b != SLICE_NONE && has_conn && (h = dbu_map_get(&c->cann_by_conn, (uint64_t)conn)))
            model_add_flow_direct(c->m, c->cat_h2d, (uint32_t)*h, b);
    }
    dbr_rows_end(c, &rows);
    if (oom)
        diag_out_of_memory(c->d, c->path, "COMMUNICATION_OP: out of memory: the computed Overlap Analysis "
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
    uint32_t lane = dbr_lane_for(c, TAG_OVL, (uint64_t)dev << 8 ^ (uint64_t)type, pid, "Overlap Analysis", 23,
                             tid, tn, type);
    dbr_add_slice(c, lane, s, e, dbr_model_cstr(c, tn), 0);
}

/* OVERLAP_ANALYSIS as written; returns the rows that became slices. */
uint64_t dbr_read_overlap(struct ctx *c)
{
    static const char *const cols[] = { "deviceId", "startNs", "endNs", "type" };
    struct dbr_rows rows = dbr_rows_open(c, "OVERLAP_ANALYSIS", cols, 4, 0xe);
    uint64_t used = 0;
    while (dbr_rows_next(c, &rows)) {
        int64_t dev = 0, s, e, type;
        if (!dbu_i64(rows.st, 1, &s) || !dbu_i64(rows.st, 2, &e) || !dbu_i64(rows.st, 3, &type))
            continue;
        dbu_i64(rows.st, 0, &dev);
        overlap_slice(c, dev, type, s, e);
        used++;
    }
    dbr_rows_end(c, &rows);
    return used;
}

/* Without OVERLAP_ANALYSIS rows: the same lanes computed from the tasks (db_overlap.h). */
void dbr_compute_overlap(struct ctx *c)
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
        diag_out_of_memory(c->d, c->path, "out of memory computing the Overlap Analysis: it is incomplete");
    else
        diag_add(c->d, DIAG_INFO, c->path, "no OVERLAP_ANALYSIS rows: Computing (tasks with a COMPUTE_TASK_INFO "
                 "row), Communication (COMMUNICATION_OP spans), Communication(Not Overlapped) and Free computed "
                 "from the tasks, as the text export does");
}

void dbr_read_mstx(struct ctx *c)
{
    static const char *const cols[] = { "startNs", "endNs", "eventType", "message", "globalTid", "rowid" };
    struct dbr_rows rows = dbr_rows_open(c, "MSTX_EVENTS", cols, 6, 0x1);
    while (dbr_rows_next(c, &rows)) {
        int64_t s, e, g = 0;
        if (!dbu_i64(rows.st, 0, &s))
            continue;
        if (!dbu_i64(rows.st, 1, &e) || e < s)
            e = s;   /* markers are instants */
        dbu_i64(rows.st, 4, &g);
        char buf[24];
        uint32_t cat = dbr_model_cstr(c, dbr_enum_name(c, &c->mstx_type, rows.st, 2, buf, sizeof buf));
        uint32_t lane = dbr_thread_lane(c, TAG_MSTX, g, "MSTX", 30);
        dbr_add_row_slice(c, lane, s, e, dbr_model_id(c, dbr_sid_local(c, rows.st, 3)), cat, DBS_MSTX_EVENTS,
                          rows.st, 5);
    }
    dbr_rows_end(c, &rows);
}

void dbr_read_step_time(struct ctx *c)
{
    static const char *const cols[] = { "id", "startNs", "endNs" };
    if (c->have_profiler_step)
        return;   /* PYTORCH_API already has the ProfilerStep# ops */
    struct dbr_rows rows = dbr_rows_open(c, "STEP_TIME", cols, 3, 0x7);
    while (dbr_rows_next(c, &rows)) {
        int64_t id, s, e;
        if (!dbu_i64(rows.st, 0, &id) || !dbu_i64(rows.st, 1, &s) || !dbu_i64(rows.st, 2, &e))
            continue;
        char name[40];
        int n = snprintf(name, sizeof name, "ProfilerStep#%lld", (long long)id);
        uint32_t lane = dbr_lane_for(c, TAG_STEP, 0, "steps", "Python", 0, "steps", "Steps", -1);
        uint32_t nid = strtab_intern(c->m->str, name, (size_t)n);
        dbr_add_slice(c, lane, s, e, nid == UINT32_MAX ? 0 : nid, dbr_model_cstr(c, "cpu_op"));
    }
    dbr_rows_end(c, &rows);
}

const char *dbr_counter_string(void *arg, int64_t id)
{
    struct ctx *c = arg;
    return strtab_get(c->ls, dbr_sid_value(c, id));
}

bool dbr_counter_tick(void *arg)
{
    struct ctx *c = arg;
    dbr_tick(c);
    return !c->cancelled;
}

void dbr_read_rank_device(struct ctx *c, struct rank_data *rd)
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
