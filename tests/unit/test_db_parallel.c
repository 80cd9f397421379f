/* DB reader, two ways: the kernel table read with its COMPUTE_TASK_INFO columns on a second
 * thread equals the one read by one thread, cell by cell, for the real DB captures and for
 * a file made here with the awkward cases (keys out of order, unknown and text references,
 * rows without a key or without a TASK row). Also the table helpers this uses. */
#include "../runner.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/db/db_reader.h"
#include "model/index/diag.h"
#include "model/index/model.h"
#include "model/index/table.h"

/* Every column (header, type, order) and every cell of a and b are the same. */
static size_t table_diff(const struct table *a, const struct table *b)
{
    if (!a || !b || a->ncols != b->ncols || a->nrows != b->nrows)
        return SIZE_MAX;
    size_t bad = 0;
    for (size_t c = 0; c < a->ncols; c++) {
        const struct table_col *x = &a->cols[c], *y = &b->cols[c];
        if (strcmp(x->header, y->header) || x->type != y->type)
            return SIZE_MAX;
        for (size_t r = 0; r < a->nrows; r++) {
            if (x->type == TC_NUM)
                bad += !(x->num[r] == y->num[r] || (isnan(x->num[r]) && isnan(y->num[r])));
            else if (x->type == TC_TIME)
                bad += x->time[r] != y->time[r];
            else
                bad += strcmp(table_text(a, r, c), table_text(b, r, c)) != 0;
        }
    }
    return bad;
}

static size_t diag_errors(struct diag *d)
{
    size_t n = 0;
    for (size_t i = 0; i < diag_count(d); i++) {
        char buf[1200];
        diag_format(d, i, buf, sizeof buf);
        n += strstr(buf, "reference") != NULL || strstr(buf, "no TASK row") != NULL;
    }
    return n;
}

/* Entries in the folder of path plus the file's size and mtime: a second connection must
 * leave no side file and change nothing either. */
static long long folder_state(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    long long n = 0;
    DIR *dp = opendir(slash ? dir : ".");
    while (dp && readdir(dp))
        n++;
    if (dp)
        closedir(dp);
    struct stat st;
    if (stat(path, &st) == 0)
        n += (long long)st.st_size * 7 + (long long)st.st_mtime * 13;
    return n;
}

/* Loads path twice (one thread, two threads) and compares; returns the table rows. */
static size_t check_both_ways(const char *path)
{
    long long before = folder_state(path);
    struct rank_data one = { .device = -1 }, two = { .device = -1 };
    struct diag *d1 = diag_new(), *d2 = diag_new();
    db_set_parallel(UINT64_MAX);
    int rc1 = db_load(path, &one, d1, NULL);
    db_set_parallel(0);
    int rc2 = db_load(path, &two, d2, NULL);
    db_set_parallel(200000);
    CHECK_INT(rc1, rc2);
    const struct table *a = one.tables[TK_KERNELS], *b = two.tables[TK_KERNELS];
    CHECK((a == NULL) == (b == NULL));
    size_t rows = a ? a->nrows : 0;
    if (a && b) {
        CHECK_INT(table_diff(a, b), 0);
        static const char *const order[] = { "Device_id", "Model ID", "Task ID", "Stream ID", "Name", "Type",
                                             "Accelerator Core", "Start Time(us)", "Duration(us)", "Wait Time(us)" };
        for (size_t c = 0; c < sizeof order / sizeof *order && c < b->ncols; c++)
            CHECK_STR(b->cols[c].header, order[c]);
    }
    CHECK_INT(diag_count(d1), diag_count(d2));
    CHECK_INT(diag_errors(d1), diag_errors(d2));
    CHECK((one.model == NULL) == (two.model == NULL));
    if (one.model && two.model)
        CHECK_INT(one.model->nslices, two.model->nslices);
    for (int i = 0; i < TK_COUNT; i++) {
        table_free(one.tables[i]);
        table_free(two.tables[i]);
    }
    model_free(one.model);
    model_free(two.model);
    diag_free(d1);
    diag_free(d2);
    CHECK(folder_state(path) == before);
    return rows;
}

TEST(db_parallel_real_same_table)
{
    static const char *const dbs[] = {
        "Ascend-msinsight/test/data/pytorch/db/level0/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db",
        "Ascend-msinsight/test/data/pytorch/db/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db",
        "Ascend-msinsight/test/data/pytorch/db/level2/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_1.db",
    };
    size_t found = 0;
    for (size_t i = 0; i < sizeof dbs / sizeof *dbs; i++) {
        const char *p = test_real(dbs[i]);
        if (!p)
            continue;
        found++;
        CHECK(check_both_ways(p) > 0);
    }
    if (!found)
        SKIP("../shared/real not found");
}

TEST(db_parallel_generated_same_table)
{
    /* a folder of its own: check_both_ways counts the folder's entries, and other programs
     * create files in /tmp at any time */
    char dir[] = "/tmp/aptop_test_dbpar_XXXXXX", path[128];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/k.db", dir);
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    /* keys out of order and repeated, a NULL key, an unknown reference (77), a text cell,
     * a kernel without a TASK row (key 9), a TASK row without a kernel (key 50) */
    const char *sql =
        "CREATE TABLE STRING_IDS(id INTEGER PRIMARY KEY, value TEXT);"
        "INSERT INTO STRING_IDS VALUES(1,'MatMul'),(2,'Add'),(3,'KERNEL_AICORE'),(4,'AI_CORE'),(5,'ND'),(6,'[1,2]');"
        "CREATE TABLE TASK(startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER,"
        " globalTaskId INTEGER, globalPid INTEGER, taskType INTEGER, contextId INTEGER, streamId INTEGER,"
        " taskId INTEGER, modelId INTEGER);"
        "INSERT INTO TASK VALUES(1000,1500,0,7,10,1,3,0,2,1,0),(2000,2100,0,8,11,1,3,NULL,2,2,0),"
        " (3000,3300,0,9,12,1,3,0,5,3,NULL),(4000,4100,1,9,50,1,3,0,5,4,0),(5000,5200,0,9,3,1,3,0,5,5,0);"
        "CREATE TABLE COMPUTE_TASK_INFO(name INTEGER, globalTaskId INTEGER, blockDim INTEGER, mixBlockDim INTEGER,"
        " taskType INTEGER, opType INTEGER, inputFormats INTEGER, inputShapes TEXT, waitNs INTEGER);"
        "INSERT INTO COMPUTE_TASK_INFO VALUES(1,12,8,0,4,1,5,6,40),(2,11,4,NULL,4,2,5,'[3,4]',10),"
        " (1,10,8,0,4,77,77,6,0),(2,NULL,1,1,4,2,5,6,0),(1,9,2,0,4,1,5,6,0),(2,3,2,0,4,1,5,6,0),(1,11,2,0,4,1,5,6,0);";
    char *err = NULL;
    CHECK(sqlite3_exec(db, sql, NULL, NULL, &err) == SQLITE_OK);
    if (err)
        test_fail(__FILE__, __LINE__, "%s", err);
    sqlite3_free(err);
    sqlite3_close(db);
    CHECK_INT(check_both_ways(path), 6);   /* the row without a key is skipped */
    remove(path);
    rmdir(dir);
}

TEST(table_adopt_and_order_cols)
{
    struct table *t = table_new(TK_KERNELS, "x");
    size_t a = table_add_col(t, "Name", TC_TEXT);
    for (int i = 0; i < 300; i++)   /* past the first capacity */
        table_add_row(t);
    table_set_text(t, 299, a, "last", 4);
    int64_t *v = malloc(300 * sizeof *v);
    for (int i = 0; i < 300; i++)
        v[i] = i * 10;
    size_t b = table_adopt_col(t, "Start Time(us)", TC_TIME, v);
    CHECK_INT(b, 1);
    CHECK_INT(table_time(t, 299, b), 2990);
    CHECK(table_adopt_col(t, "Auto", TC_AUTO, malloc(8)) == SIZE_MAX);   /* freed, not added */
    CHECK_INT(t->ncols, 2);
    size_t bad[] = { 1, 1 }, swap[] = { 1, 0 };
    CHECK(!table_order_cols(t, bad));
    CHECK_STR(t->cols[0].header, "Name");
    CHECK(table_order_cols(t, swap));
    CHECK_STR(t->cols[0].header, "Start Time(us)");
    CHECK_INT(table_col(t, "start_time(us)"), 0);
    CHECK_STR(table_text(t, 299, 1), "last");
    CHECK_INT(table_add_row(t), 300);   /* adopted arrays grow like the others */
    CHECK_INT(table_time(t, 300, 0), NS_NONE);
    table_free(t);
}
