/* The DB's host tables: CONNECTION_IDS, PYTORCH_API (with queue flows) and CANN_API. */
#include "io/db/db_reader.h"
#include "util/grow.h"
#include "io/db/db_reader_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/search.h"

/* --- host tables --------------------------------------------------------------------- */

static int conn_cmp(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

void dbr_read_connection_ids(struct ctx *c)
{
    static const char *const cols[] = { "id", "connectionId" };
    struct dbr_rows rows = dbr_rows_open(c, "CONNECTION_IDS", cols, 2, 3);
    if (!rows.st)
        return;
    size_t cap = 0;
    while (dbr_rows_next(c, &rows)) {
        int64_t id, conn;
        if (!dbu_i64(rows.st, 0, &id) || !dbu_i64(rows.st, 1, &conn))
            continue;
        c->conns = grow_array_or_exit(c->conns, &cap, c->nconns + 1, sizeof *c->conns, "CONNECTION_IDS rows");
        c->conns[c->nconns].id = id;
        c->conns[c->nconns++].conn = conn;
    }
    dbr_rows_end(c, &rows);
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

void dbr_read_pytorch_api(struct ctx *c)
{
    static const char *const cols[] = { "startNs", "endNs", "globalTid", "connectionId", "name", "type", "rowid" };
    struct dbr_rows rows = dbr_rows_open(c, "PYTORCH_API", cols, 7, 0x17);
    if (!rows.st)
        return;
    uint32_t cat_op = dbr_model_cstr(c, "cpu_op"), cat_enq = dbr_model_cstr(c, "enqueue"), cat_deq = dbr_model_cstr(c, "dequeue"),
             cat_py = dbr_model_cstr(c, "python_function");
    uint64_t bad = 0;
    while (dbr_rows_next(c, &rows)) {
        int64_t s, e, g = 0, conn;
        if (!dbu_i64(rows.st, 0, &s) || !dbu_i64(rows.st, 1, &e)) {
            bad++;
            continue;
        }
        dbu_i64(rows.st, 2, &g);
        uint32_t lid = dbr_sid_local(c, rows.st, 4);
        const char *name = strtab_get(c->ls, lid);
        char buf[24];
        const char *type = dbr_enum_name(c, &c->api_type, rows.st, 5, buf, sizeof buf);
        bool enq = !strncmp(name, "Enqueue", 7), deq = !strncmp(name, "Dequeue", 7);
        bool queue = enq || deq || !strcmp(type, "queue");
        uint32_t cat = enq ? cat_enq : deq ? cat_deq : !strcmp(type, "trace") ? cat_py
                     : !strcmp(type, "op") || !type[0] ? cat_op : dbr_model_cstr(c, type);
        if (!strncmp(name, "ProfilerStep#", 13))
            c->have_profiler_step = true;
        uint32_t lane = dbr_thread_lane(c, TAG_PY, g, "Python", 0);
        uint32_t b = dbr_add_row_slice(c, lane, s, e, dbr_model_id(c, lid), cat, DBS_PYTORCH_API, rows.st, 6);
        if (b == SLICE_NONE || !dbu_i64(rows.st, 3, &conn))
            continue;
        uint64_t flags = queue ? CONN_QUEUE | (enq ? CONN_ENQUEUE : 0) : 0;
        if (!c->conn_table) {   /* no CONNECTION_IDS: the column holds the connection itself */
            pt_conn(c, conn, b, flags);
            continue;
        }
        size_t lo;
        LOWER_BOUND(lo, (size_t)0, c->nconns, k, c->conns[k].id < conn);
        for (; lo < c->nconns && c->conns[lo].id == conn; lo++)
            pt_conn(c, c->conns[lo].conn, b, flags);
    }
    dbr_rows_end(c, &rows);
    if (bad)
        diag_add(c->d, DIAG_WARN, c->path, "table PYTORCH_API: %llu row(s) without a readable startNs/endNs skipped",
                 (unsigned long long)bad);
}

void dbr_read_cann_api(struct ctx *c)
{
    static const char *const cols[] = { "startNs", "endNs", "type", "globalTid", "connectionId", "name", "depth",
                                        "rowid" };
    struct dbr_rows rows = dbr_rows_open(c, "CANN_API", cols, 8, 0x23);
    uint64_t bad = 0;
    while (dbr_rows_next(c, &rows)) {
        int64_t s, e, g = 0, conn, depth = 0;
        if (!dbu_i64(rows.st, 0, &s) || !dbu_i64(rows.st, 1, &e)) {
            bad++;
            continue;
        }
        dbu_i64(rows.st, 3, &g);
        dbu_i64(rows.st, 6, &depth);
        char buf[24];
        uint32_t cat = dbr_model_cstr(c, dbr_enum_name(c, &c->api_type, rows.st, 2, buf, sizeof buf));
        uint32_t lane = dbr_thread_lane(c, TAG_CANN, g, "CANN", 7);
        uint32_t b = dbr_add_row_slice(c, lane, s, e, dbr_model_id(c, dbr_sid_local(c, rows.st, 5)), cat, DBS_CANN_API,
                                       rows.st, 7);
        if (b == SLICE_NONE || !dbu_i64(rows.st, 4, &conn))
            continue;
        /* Several APIs may share a connection: the deepest one launched the task. */
        uint64_t v = ((uint64_t)(depth < 0 ? 0 : depth > 1000000 ? 1000000 : depth) + 1) << 40 | b;
        uint64_t *old = dbu_map_get(&c->cann_by_conn, (uint64_t)conn);
        if (!old || (*old >> 40) < (v >> 40))
            dbu_map_put(&c->cann_by_conn, (uint64_t)conn, v, NULL);
    }
    dbr_rows_end(c, &rows);
    if (bad)
        diag_add(c->d, DIAG_WARN, c->path, "table CANN_API: %llu row(s) without a readable startNs/endNs skipped",
                 (unsigned long long)bad);
}
