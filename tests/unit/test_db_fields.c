/* The detail fields of DB slices (io/db/db_fields.h): the source row read again by rowid with
 * its references resolved, the task info rows joined by globalTaskId, an unknown reference
 * shown as its number, and a row that is gone reported, not invented. */
#include "../runner.h"
#include "helpers.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/db/db_fields.h"
#include "io/db/db_reader.h"
#include "model/analysis/comm.h"
#include "model/index/model.h"
#include "model/index/table.h"

static void rd_free(struct rank_data *rd)
{
    comm_free(rd->comm);
    model_free(rd->model);
    for (int i = 0; i < TK_COUNT; i++)
        table_free(rd->tables[i]);
    memset(rd, 0, sizeof *rd);
}

static const char *field(const struct db_fields *f, const char *section, const char *key)
{
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(f->v[i].section, section) && !strcmp(f->v[i].key, key))
            return f->v[i].value;
    return NULL;
}

static uint32_t slice_named(const struct model *m, const char *name)
{
    for (uint32_t s = 0; s < m->nslices; s++)
        if (!strcmp(model_str(m, m->name[s]), name))
            return s;
    return SLICE_NONE;
}

TEST(db_fields_generated)
{
    char dir[] = "/tmp/aptop_test_fields_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char p[128];
    snprintf(p, sizeof p, "%s/f.db", dir);
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(p, &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db,
        "CREATE TABLE STRING_IDS(id INTEGER PRIMARY KEY, value TEXT);"
        "INSERT INTO STRING_IDS VALUES(1,'MatMul'),(2,'KERNEL_AICORE'),(3,'\"4,8;8,16\"'),(4,'hcom_x_1'),(5,'SDMA'),"
        " (6,'aten::mm');"
        "CREATE TABLE ENUM_HCCL_LINK_TYPE(id INTEGER, name TEXT); INSERT INTO ENUM_HCCL_LINK_TYPE VALUES(1,'HCCS');"
        "CREATE TABLE ENUM_API_TYPE(id INTEGER, name TEXT); INSERT INTO ENUM_API_TYPE VALUES(50001,'op');"
        "CREATE TABLE TASK(startNs INTEGER, endNs INTEGER, deviceId INTEGER, globalTaskId INTEGER, taskType INTEGER,"
        " streamId INTEGER, connectionId INTEGER);"
        "INSERT INTO TASK VALUES(100,200,0,1,2,7,11),(300,400,0,2,5,9,12);"
        "CREATE TABLE COMPUTE_TASK_INFO(name INTEGER, globalTaskId INTEGER, inputShapes INTEGER, opType INTEGER);"
        "INSERT INTO COMPUTE_TASK_INFO VALUES(1,1,3,99);"
        "CREATE TABLE COMMUNICATION_TASK_INFO(name INTEGER, globalTaskId INTEGER, linkType INTEGER);"
        "INSERT INTO COMMUNICATION_TASK_INFO VALUES(4,2,1);"
        "CREATE TABLE PYTORCH_API(startNs INTEGER, endNs INTEGER, globalTid INTEGER, connectionId INTEGER, name INTEGER,"
        " type INTEGER); INSERT INTO PYTORCH_API VALUES(50,90,4294967297,NULL,6,50001);",
        NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    struct diag *d = diag_new();
    struct rank_data rd = { .device = -1 };
    CHECK_INT(db_load(p, &rd, d, NULL), 0);
    const struct model *m = rd.model;
    struct db_fields f = { 0 };
    char err[256];
    uint32_t k = m ? slice_named(m, "MatMul") : SLICE_NONE, c = m ? slice_named(m, "hcom_x_1") : SLICE_NONE,
             op = m ? slice_named(m, "aten::mm") : SLICE_NONE;
    CHECK(k != SLICE_NONE && c != SLICE_NONE && op != SLICE_NONE);
    if (k != SLICE_NONE && db_slice_fields(m, k, &f, err, sizeof err)) {
        CHECK_STR(field(&f, "TASK", "taskType"), "KERNEL_AICORE");
        CHECK_STR(field(&f, "TASK", "streamId"), "7");
        CHECK_STR(field(&f, "TASK", "startNs"), "100");
        CHECK_STR(field(&f, "COMPUTE_TASK_INFO", "inputShapes"), "\"4,8;8,16\"");
        CHECK_STR(field(&f, "COMPUTE_TASK_INFO", "opType"), "99 (not in STRING_IDS)");
        CHECK(field(&f, "COMMUNICATION_TASK_INFO", "name") == NULL);
    } else {
        CHECK(false);
    }
    if (c != SLICE_NONE && db_slice_fields(m, c, &f, err, sizeof err)) {
        CHECK_STR(field(&f, "TASK", "taskType"), "SDMA");
        CHECK_STR(field(&f, "COMMUNICATION_TASK_INFO", "linkType"), "HCCS");
        CHECK_STR(field(&f, "COMMUNICATION_TASK_INFO", "name"), "hcom_x_1");
    } else {
        CHECK(false);
    }
    if (op != SLICE_NONE && db_slice_fields(m, op, &f, err, sizeof err)) {
        CHECK_STR(field(&f, "PYTORCH_API", "type"), "op");
        CHECK_STR(field(&f, "PYTORCH_API", "connectionId"), "(none)");
    } else {
        CHECK(false);
    }
    /* an Overlap Analysis slice was computed, not read from a row */
    uint32_t ov = m ? slice_named(m, "Computing") : SLICE_NONE;
    CHECK(ov != SLICE_NONE && !db_slice_has_fields(m, ov));
    /* the file replaced by one without that row: said, nothing made up */
    db = NULL;
    CHECK(sqlite3_open(p, &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, "DELETE FROM TASK WHERE globalTaskId = 1; VACUUM;", NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    if (k != SLICE_NONE) {
        CHECK(!db_slice_fields(m, k, &f, err, sizeof err));
        CHECK(strstr(err, "has no row") != NULL);
        CHECK_INT(f.n, 0);
    }
    db_fields_free(&f);
    rd_free(&rd);
    diag_free(d);
    unlink(p);
    rmdir(dir);
}
