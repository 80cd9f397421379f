/* The DB memory tables (see memory_read.h): sizes are bytes and times ns, names are ids into
 * STRING_IDS (ENUM_MODULE for module ids). Each table is optional; an unreadable one is named
 * in a warning and the others are still read. */
#include "io/tables/memory_read.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "io/db/db_util.h"

static int64_t val(sqlite3_stmt *st, int c)
{
    int64_t v;
    return dbu_i64(st, c, &v) ? v : MEM_NONE;
}

static ns_t tval(sqlite3_stmt *st, int c)
{
    int64_t v;
    return dbu_i64(st, c, &v) ? v : NS_NONE;
}

static uint32_t sval(struct memory *m, sqlite3_stmt *st, int c)
{
    size_t len = 0;
    const char *s = dbu_text(st, c, &len);
    if (!s)
        return 0;
    uint32_t id = strtab_intern(m->str, s, len);
    if (id == UINT32_MAX) {
        m->oom = true;
        return 0;
    }
    return id;
}

/* Text of a name column: the STRING_IDS value when that table exists, else the cell itself. */
static void name_sql(char *out, size_t size, bool ids, const char *col, const char *alias)
{
    if (ids)
        snprintf(out, size, "(SELECT value FROM STRING_IDS WHERE id = %s.%s)", alias, col);
    else
        snprintf(out, size, "CAST(%s.%s AS TEXT)", alias, col);
}

/* Runs sql (the rows of table) and hands each row to add_row, until it returns false; false
 * when the statement cannot be prepared. Either failure, or an error that stops the rows, is
 * a warning naming the table. */
static bool read_rows(sqlite3 *db, const char *path, struct diag *d, const char *table, const char *sql,
                      struct memory *m, bool (*add_row)(struct memory *m, sqlite3_stmt *st, void *state),
                      void *state)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        diag_add(d, DIAG_WARN, path, "table %s: %s; its memory figures are left out", table, sqlite3_errmsg(db));
        sqlite3_finalize(st);
        return false;
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && add_row(m, st, state))
        ;
    if (rc != SQLITE_DONE)
        diag_add(d, DIAG_WARN, path, "table %s: %s; rows after that are left out", table, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return true;
}

/* The series of the last MEMORY_RECORD row: consecutive rows mostly share a component. */
struct record_series {
    size_t series;
    uint32_t name;
};

static bool add_record(struct memory *m, sqlite3_stmt *st, void *state)
{
    struct record_series *last = state;
    uint32_t c = sval(m, st, 0);
    if (c != last->name) {
        const char *s = memory_str(m, c);
        last->series = memory_series(m, s, strlen(s), MF_RECORD);
        last->name = c;
    }
    int64_t v[MK_COUNT] = { val(st, 2), val(st, 3), val(st, 4) };
    /* rows without a stream (GE) have no active figure: the DB writes 0 where the text
     * export leaves the cell empty */
    if (v[MK_ACTIVE] == 0 && sqlite3_column_type(st, 5) == SQLITE_NULL)
        v[MK_ACTIVE] = MEM_NONE;
    memory_add_point(m, last->series, tval(st, 1), v);
    return true;
}

static bool read_record(sqlite3 *db, const char *path, struct memory *m, struct diag *d, bool ids)
{
    char comp[160], sql[512];
    name_sql(comp, sizeof comp, ids, "component", "r");
    snprintf(sql, sizeof sql, "SELECT %s, timestamp, totalAllocated, totalReserved, totalActive, streamPtr "
             "FROM MEMORY_RECORD r ORDER BY rowid", comp);
    struct record_series last = { SIZE_MAX, UINT32_MAX };
    return read_rows(db, path, d, "MEMORY_RECORD", sql, m, add_record, &last);
}

static bool add_op_memory(struct memory *m, sqlite3_stmt *st, void *state)
{
    (void)state;
    struct mem_op op = {
        .name = sval(m, st, 0), .size = val(st, 1), .alloc = tval(st, 2), .release = tval(st, 3),
        .active_release = tval(st, 4), .duration = tval(st, 5), .active_duration = tval(st, 6),
        .at_alloc = { val(st, 7), val(st, 8), val(st, 9) },
        .at_release = { val(st, 10), val(st, 11), val(st, 12) },
    };
    memory_add_op(m, &op);
    return true;
}

static bool read_op_memory(sqlite3 *db, const char *path, struct memory *m, struct diag *d, bool ids)
{
    char name[160], sql[768];
    name_sql(name, sizeof name, ids, "name", "o");
    snprintf(sql, sizeof sql, "SELECT %s, size, allocationTime, releaseTime, activeReleaseTime, duration, "
             "activeDuration, allocationTotalAllocated, allocationTotalReserved, allocationTotalActive, "
             "releaseTotalAllocated, releaseTotalReserved, releaseTotalActive FROM OP_MEMORY o ORDER BY rowid", name);
    return read_rows(db, path, d, "OP_MEMORY", sql, m, add_op_memory, NULL);
}

/* The NPU_OP_MEM events read so far: the allocations still held, and how many events had a
 * type that names neither allocate nor release. */
struct op_events {
    struct dbu_map open;   /* addr -> op index + 1 of the allocation still held */
    uint64_t guessed;
};

static bool add_op_event(struct memory *m, sqlite3_stmt *st, void *state)
{
    struct op_events *ev = state;
    int64_t addr = val(st, 1);
    size_t tl = 0;
    const char *ts = dbu_text(st, 2, &tl);
    int kind = 0;   /* 1 allocate, 2 release, 0 unknown */
    if (ts && tl == 8 && !strncasecmp(ts, "allocate", 8))
        kind = 1;
    else if (ts && tl == 7 && !strncasecmp(ts, "release", 7))
        kind = 2;
    uint64_t *held = dbu_map_get(&ev->open, (uint64_t)addr);
    if (!kind) {
        ev->guessed++;
        kind = held && *held ? 2 : 1;
    }
    ns_t t = tval(st, 4);
    if (kind == 2 && held && *held) {
        struct mem_op *op = &m->ops[*held - 1];
        op->release = t;
        op->at_release[MK_ALLOCATED] = val(st, 5);
        op->at_release[MK_RESERVED] = val(st, 6);
        *held = 0;
        return true;
    }
    struct mem_op op = {
        .name = sval(m, st, 0), .component = sval(m, st, 7), .size = val(st, 3),
        .alloc = kind == 1 ? t : NS_NONE, .release = kind == 2 ? t : NS_NONE,
        .active_release = NS_NONE, .duration = NS_NONE, .active_duration = NS_NONE,
        .at_alloc = { kind == 1 ? val(st, 5) : MEM_NONE, kind == 1 ? val(st, 6) : MEM_NONE, MEM_NONE },
        .at_release = { kind == 2 ? val(st, 5) : MEM_NONE, kind == 2 ? val(st, 6) : MEM_NONE, MEM_NONE },
    };
    if (!memory_add_op(m, &op))
        return false;
    if (kind == 1 && !dbu_map_put(&ev->open, (uint64_t)addr, m->nops, NULL))
        m->oom = true;
    return true;
}

/* NPU_OP_MEM holds events, one per allocate and per release: pairs on the same address make
 * one allocation. The type names say which is which; when they do not ("allocate" /
 * "release" absent), events on an address alternate, the first being the allocation. */
static bool read_npu_op_mem(sqlite3 *db, const char *path, struct memory *m, struct diag *d, bool ids)
{
    char name[160], type[160], comp[160], sql[768];
    name_sql(name, sizeof name, ids, "operatorName", "e");
    /* the event type is an ENUM_MEMORY id in msprof DBs ("allocate" / "release"), a
     * STRING_IDS id in torch_npu DBs (which have no ENUM_MEMORY) */
    if (dbu_has_table(db, "ENUM_MEMORY"))
        snprintf(type, sizeof type, "(SELECT name FROM ENUM_MEMORY WHERE id = e.type)");
    else
        name_sql(type, sizeof type, ids, "type", "e");
    name_sql(comp, sizeof comp, ids, "component", "e");
    snprintf(sql, sizeof sql, "SELECT %s, addr, %s, size, timestampNs, totalAllocate, totalReserve, %s "
             "FROM NPU_OP_MEM e ORDER BY timestampNs, rowid", name, type, comp);
    struct op_events ev = { { 0 }, 0 };
    if (!read_rows(db, path, d, "NPU_OP_MEM", sql, m, add_op_event, &ev))
        return false;
    dbu_map_free(&ev.open);
    if (ev.guessed)
        diag_add(d, DIAG_INFO, path, "table NPU_OP_MEM: %llu events whose type names neither allocate nor "
                 "release; paired by address in time order (first = allocation)", (unsigned long long)ev.guessed);
    return true;
}

static bool add_npu_mem(struct memory *m, sqlite3_stmt *st, void *state)
{
    (void)state;
    const char *ty = memory_str(m, sval(m, st, 0));
    int64_t ddr = val(st, 1), hbm = val(st, 2);
    ns_t t = tval(st, 3);
    int64_t v[MK_COUNT] = { MEM_NONE, MEM_NONE, MEM_NONE };
    if (ddr != MEM_NONE || hbm != MEM_NONE)
        v[MK_RESERVED] = (ddr == MEM_NONE ? 0 : ddr) + (hbm == MEM_NONE ? 0 : hbm);
    memory_add_point(m, memory_series(m, ty, strlen(ty), MF_NPU_MEM), t, v);
    /* the text export writes the process's HBM as memory_record's APP component */
    if (!strcasecmp(ty, "app")) {
        int64_t a[MK_COUNT] = { MEM_NONE, hbm, MEM_NONE };
        memory_add_point(m, memory_series(m, "APP", 3, MF_RECORD), t, a);
    }
    return true;
}

static bool read_npu_mem(sqlite3 *db, const char *path, struct memory *m, struct diag *d, bool ids)
{
    char type[160], sql[512];
    name_sql(type, sizeof type, ids, "type", "n");
    snprintf(sql, sizeof sql, "SELECT %s, ddr, hbm, timestampNs FROM NPU_MEM n ORDER BY timestampNs, rowid", type);
    return read_rows(db, path, d, "NPU_MEM", sql, m, add_npu_mem, NULL);
}

static bool add_module_mem(struct memory *m, sqlite3_stmt *st, void *state)
{
    (void)state;
    const char *c = memory_str(m, sval(m, st, 0));
    int64_t v[MK_COUNT] = { MEM_NONE, val(st, 2), MEM_NONE };
    memory_add_point(m, memory_series(m, c, strlen(c), MF_MODULE), tval(st, 1), v);
    return true;
}

static bool read_module_mem(sqlite3 *db, const char *path, struct memory *m, struct diag *d)
{
    const char *sql = dbu_has_table(db, "ENUM_MODULE")
        ? "SELECT COALESCE((SELECT name FROM ENUM_MODULE WHERE id = x.moduleId), CAST(x.moduleId AS TEXT)), "
          "timestampNs, totalReserved FROM NPU_MODULE_MEM x ORDER BY rowid"
        : "SELECT CAST(moduleId AS TEXT), timestampNs, totalReserved FROM NPU_MODULE_MEM ORDER BY rowid";
    return read_rows(db, path, d, "NPU_MODULE_MEM", sql, m, add_module_mem, NULL);
}

int memory_read_db(const char *path, struct memory *m, struct diag *d)
{
    sqlite3 *db = dbu_open(path, d);
    if (!db)
        return 0;
    bool ids = dbu_has_table(db, "STRING_IDS");
    int n = 0;
    m->from_db = true;
    if (dbu_has_table(db, "MEMORY_RECORD"))
        n += read_record(db, path, m, d, ids);
    if (dbu_has_table(db, "NPU_MEM"))
        n += read_npu_mem(db, path, m, d, ids);
    if (dbu_has_table(db, "NPU_MODULE_MEM"))
        n += read_module_mem(db, path, m, d);
    if (dbu_has_table(db, "OP_MEMORY"))
        n += read_op_memory(db, path, m, d, ids);
    if (dbu_has_table(db, "NPU_OP_MEM"))
        n += read_npu_op_mem(db, path, m, d, ids);
    sqlite3_close(db);
    m->nfiles += n > 0;
    if (m->oom)
        diag_out_of_memory(d, path, "out of memory: some memory rows are missing");
    return n;
}
