#include "io/db/db_fields.h"
#include "util/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/db/db_reader.h"
#include "io/db/db_util.h"
#include "util/free_all.h"

static const char *const tables[DBS_COUNT] = {
    [DBS_TASK] = "TASK", [DBS_PYTORCH_API] = "PYTORCH_API", [DBS_CANN_API] = "CANN_API",
    [DBS_COMMUNICATION_OP] = "COMMUNICATION_OP", [DBS_MSTX_EVENTS] = "MSTX_EVENTS",
};

const char *db_source_table(unsigned code)
{
    return code > DBS_NONE && code < DBS_COUNT ? tables[code] : NULL;
}

/* Columns that hold a STRING_IDS reference (enum_table NULL) or an ENUM_* code. */
static const struct ref {
    const char *table, *col, *enum_table;
} refs[] = {
    { "TASK", "taskType", NULL },
    { "PYTORCH_API", "name", NULL }, { "PYTORCH_API", "inputDtypes", NULL },
    { "PYTORCH_API", "inputShapes", NULL }, { "PYTORCH_API", "type", "ENUM_API_TYPE" },
    { "CANN_API", "name", NULL }, { "CANN_API", "type", "ENUM_API_TYPE" },
    { "COMMUNICATION_OP", "opName", NULL }, { "COMMUNICATION_OP", "groupName", NULL },
    { "COMMUNICATION_OP", "algType", NULL }, { "COMMUNICATION_OP", "opType", NULL },
    { "COMMUNICATION_OP", "dataType", "ENUM_HCCL_DATA_TYPE" },
    { "MSTX_EVENTS", "message", NULL }, { "MSTX_EVENTS", "eventType", "ENUM_MSTX_EVENT_TYPE" },
    { "COMPUTE_TASK_INFO", "name", NULL }, { "COMPUTE_TASK_INFO", "taskType", NULL },
    { "COMPUTE_TASK_INFO", "opType", NULL }, { "COMPUTE_TASK_INFO", "inputFormats", NULL },
    { "COMPUTE_TASK_INFO", "inputDataTypes", NULL }, { "COMPUTE_TASK_INFO", "inputShapes", NULL },
    { "COMPUTE_TASK_INFO", "outputFormats", NULL }, { "COMPUTE_TASK_INFO", "outputDataTypes", NULL },
    { "COMPUTE_TASK_INFO", "outputShapes", NULL }, { "COMPUTE_TASK_INFO", "attrInfo", NULL },
    { "COMPUTE_TASK_INFO", "opState", NULL }, { "COMPUTE_TASK_INFO", "hf32Eligible", NULL },
    { "COMMUNICATION_TASK_INFO", "name", NULL }, { "COMMUNICATION_TASK_INFO", "taskType", NULL },
    { "COMMUNICATION_TASK_INFO", "groupName", NULL },
    { "COMMUNICATION_TASK_INFO", "rdmaType", "ENUM_HCCL_RDMA_TYPE" },
    { "COMMUNICATION_TASK_INFO", "transportType", "ENUM_HCCL_TRANSPORT_TYPE" },
    { "COMMUNICATION_TASK_INFO", "dataType", "ENUM_HCCL_DATA_TYPE" },
    { "COMMUNICATION_TASK_INFO", "linkType", "ENUM_HCCL_LINK_TYPE" },
};

static const struct ref *ref_of(const char *table, const char *col)
{
    for (size_t i = 0; i < sizeof refs / sizeof *refs; i++)
        if (!strcmp(refs[i].table, table) && !strcmp(refs[i].col, col))
            return &refs[i];
    return NULL;
}

void db_fields_free(struct db_fields *f)
{
    for (size_t i = 0; i < f->n; i++)
        FREE_ALL(f->v[i].section, f->v[i].key, f->v[i].value);
    free(f->v);
    memset(f, 0, sizeof *f);
}

static void add(struct db_fields *f, const char *section, const char *key, const char *value)
{
    f->v = grow_array_or_exit(f->v, &f->cap, f->n + 1, sizeof *f->v, "DB detail fields");
    struct db_field *x = &f->v[f->n];
    x->section = strdup(section);
    x->key = strdup(key);
    x->value = strdup(value);
    if (x->section && x->key && x->value)
        f->n++;
    else
        FREE_ALL(x->section, x->key, x->value);
}

/* The text of id in STRING_IDS (value column) or an ENUM_* table (name column), into buf;
 * false when it is not there. */
static bool lookup(sqlite3 *db, const char *enum_table, int64_t id, char *buf, size_t size)
{
    char q[160];
    if (enum_table)
        snprintf(q, sizeof q, "SELECT name FROM \"%s\" WHERE id = ?", enum_table);
    else
        snprintf(q, sizeof q, "SELECT value FROM STRING_IDS WHERE id = ?");
    sqlite3_stmt *st = NULL;
    bool ok = false;
    if (sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, id);
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
            snprintf(buf, size, "%s", (const char *)sqlite3_column_text(st, 0));
            ok = true;
        }
    }
    sqlite3_finalize(st);
    return ok;
}

/* Every column of the rows of `sql` (one bound int64), as fields of section `table`. Returns
 * the rows read; *gtid gets the row's globalTaskId when it has one. */
static int add_rows(sqlite3 *db, struct db_fields *f, const char *table, const char *sql, int64_t key, int64_t *gtid,
                    int64_t *start)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, key);
    int rows = 0;
    while (sqlite3_step(st) == SQLITE_ROW && rows < 4) {
        rows++;
        for (int i = 0; i < sqlite3_column_count(st); i++) {
            const char *col = sqlite3_column_name(st, i);
            char buf[1024];
            int type = sqlite3_column_type(st, i);
            const struct ref *r = ref_of(table, col);
            if (type == SQLITE_NULL) {
                snprintf(buf, sizeof buf, "(none)");
            } else if (r && type == SQLITE_INTEGER) {
                int64_t id = sqlite3_column_int64(st, i);
                if (!lookup(db, r->enum_table, id, buf, sizeof buf))
                    snprintf(buf, sizeof buf, "%lld (not in %s)", (long long)id,
                             r->enum_table ? r->enum_table : "STRING_IDS");
            } else {
                const unsigned char *t = sqlite3_column_text(st, i);
                snprintf(buf, sizeof buf, "%s", t ? (const char *)t : "");
            }
            if (gtid && !strcmp(col, "globalTaskId") && type == SQLITE_INTEGER)
                *gtid = sqlite3_column_int64(st, i);
            if (start && !strcmp(col, "startNs"))
                dbu_i64(st, i, start);
            add(f, table, col, buf);
        }
    }
    sqlite3_finalize(st);
    return rows;
}

bool db_slice_has_fields(const struct model *m, uint32_t s)
{
    return s < m->nslices && m->len && m->file[s] < m->nfiles && db_source_table(m->len[s]) &&
           m->off[s] != UINT64_MAX && db_is_sqlite(m->files[m->file[s]].path);
}

bool db_slice_fields(const struct model *m, uint32_t s, struct db_fields *out, char *err, size_t errsz)
{
    db_fields_free(out);
    if (err && errsz)
        err[0] = 0;
    if (!db_slice_has_fields(m, s)) {
        if (err)
            snprintf(err, errsz, "not a DB row");
        return false;
    }
    return db_row_fields(m->files[m->file[s]].path, m->len[s], m->off[s], m->start[s], out, err, errsz);
}

bool db_row_fields(const char *path, unsigned code, uint64_t rowid, int64_t slice_start, struct db_fields *out,
                   char *err, size_t errsz)
{
    db_fields_free(out);
    if (err && errsz)
        err[0] = 0;
    const char *table = db_source_table(code);
    if (!table) {
        if (err)
            snprintf(err, errsz, "not a DB row");
        return false;
    }
    struct diag *quiet = diag_new();
    sqlite3 *db = quiet ? dbu_open(path, quiet) : NULL;
    if (!db && err) {
        char why[512] = "cannot be opened";
        if (quiet && diag_count(quiet))
            diag_format(quiet, 0, why, sizeof why);
        snprintf(err, errsz, "%s", why);
    }
    diag_free(quiet);
    if (!db)
        return false;
    char q[160];
    snprintf(q, sizeof q, "SELECT * FROM \"%s\" WHERE rowid = ?", table);
    int64_t gtid = INT64_MIN, start = INT64_MIN;
    int rows = add_rows(db, out, table, q, (int64_t)rowid, &gtid, &start);
    if (rows > 0 && start != slice_start) {   /* another row under that rowid: not this slice's */
        db_fields_free(out);
        rows = 0;
    }
    if (rows <= 0 && err)
        snprintf(err, errsz, "%s: table %s has no row %llu starting at %lld ns any more (file changed?)", path,
                 table, (unsigned long long)rowid, (long long)slice_start);
    if (rows > 0 && gtid != INT64_MIN && !strcmp(table, "TASK")) {
        static const char *const info[] = { "COMPUTE_TASK_INFO", "COMMUNICATION_TASK_INFO" };
        for (int i = 0; i < 2; i++) {
            if (!dbu_has_table(db, info[i]))
                continue;
            snprintf(q, sizeof q, "SELECT * FROM \"%s\" WHERE globalTaskId = ? LIMIT 4", info[i]);
            add_rows(db, out, info[i], q, gtid, NULL, NULL);
        }
    }
    sqlite3_close(db);
    return rows > 0;
}
