/* DB reader: the real DB captures under ../shared/real checked against SQL run here through
 * the sqlite3 C API (not the reader's code), the capture left byte-for-byte unchanged, and
 * bad files made here in /tmp (corrupt, missing tables, odd names, a read-only folder). */
#include "../runner.h"
#include "../scratch.h"
#include "helpers.h"

#include <dirent.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/db/db_reader.h"
#include "model/analysis/comm.h"
#include "model/index/diag.h"
#include "model/index/model.h"
#include "model/index/table.h"

#define PT_DB "Ascend-msinsight/test/data/pytorch/db"

static bool exists(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0;
}

static void rd_free(struct rank_data *rd)
{
    comm_free(rd->comm);
    model_free(rd->model);
    for (int i = 0; i < TK_COUNT; i++)
        table_free(rd->tables[i]);
    memset(rd, 0, sizeof *rd);
}

/* The test's own read-only immutable open (plain URI, no escaping needed for these paths). */
static sqlite3 *open_ro(const char *path)
{
    char uri[4200];
    snprintf(uri, sizeof uri, "file:%s?mode=ro&immutable=1", path);
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        return NULL;
    }
    return db;
}

static int64_t sql_int(sqlite3 *db, const char *q)
{
    sqlite3_stmt *st = NULL;
    int64_t v = -1;
    if (sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* --- hashing a directory tree (names, sizes, contents) ---------------------------------- */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

static uint64_t hash_tree(const char *dir, uint64_t h, int *files)
{
    struct dirent **ents = NULL;
    int n = scandir(dir, &ents, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        const char *nm = ents[i]->d_name;
        if (strcmp(nm, ".") && strcmp(nm, "..")) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dir, nm);
            h = fnv(h, nm, strlen(nm) + 1);
            struct stat st;
            if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
                h = hash_tree(path, h, files);
            } else if (lstat(path, &st) == 0) {
                h = fnv(h, &st.st_size, sizeof st.st_size);
                h = fnv(h, &st.st_mtime, sizeof st.st_mtime);
                FILE *f = fopen(path, "rb");
                char buf[65536];
                size_t r;
                while (f && (r = fread(buf, 1, sizeof buf, f)) > 0)
                    h = fnv(h, buf, r);
                if (f)
                    fclose(f);
                (*files)++;
            }
        }
        free(ents[i]);
    }
    free(ents);
    return h;
}

/* --- real captures -------------------------------------------------------------------- */

struct name_agg { char *name; int64_t count, total; };

/* Per-name count and total duration of the kernel table. */
static size_t table_aggs(const struct table *t, struct name_agg **out)
{
    size_t cn = table_col(t, "Name"), cd = table_col(t, "Duration(us)"), n = 0;
    struct name_agg *a = calloc(t->nrows + 1, sizeof *a);
    for (size_t r = 0; r < t->nrows; r++) {
        const char *nm = table_text(t, r, cn);
        size_t i = 0;
        while (i < n && strcmp(a[i].name, nm))
            i++;
        if (i == n)
            a[n++].name = strdup(nm);
        a[i].count++;
        if (!table_is_missing(t, r, cd))
            a[i].total += table_time(t, r, cd);
    }
    *out = a;
    return n;
}

static void check_kernels_against_sql(const char *db_path, const struct table *t)
{
    sqlite3 *db = open_ro(db_path);
    CHECK(db != NULL);
    if (!db)
        return;
    struct name_agg *a;
    size_t n = table_aggs(t, &a);
    sqlite3_stmt *st = NULL;
    /* the kernels, and one row per collective (as kernel_details.csv has) */
    const char *q = "select v, count(*), sum(d) from (select s.value v, t.endNs - t.startNs d from TASK t "
                    "join COMPUTE_TASK_INFO c on t.globalTaskId = c.globalTaskId join STRING_IDS s on s.id = c.name "
                    "union all select s.value, o.endNs - o.startNs from COMMUNICATION_OP o join STRING_IDS s "
                    "on s.id = o.opName) group by v";
    CHECK(sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK);
    size_t groups = 0;
    int64_t sql_rows = 0;
    while (st && sqlite3_step(st) == SQLITE_ROW) {
        const char *nm = (const char *)sqlite3_column_text(st, 0);
        int64_t cnt = sqlite3_column_int64(st, 1), tot = sqlite3_column_int64(st, 2);
        groups++;
        sql_rows += cnt;
        size_t i = 0;
        while (i < n && strcmp(a[i].name, nm))
            i++;
        CHECK(i < n);
        if (i < n) {
            CHECK_INT(a[i].count, cnt);
            CHECK_INT(a[i].total, tot);
        }
    }
    sqlite3_finalize(st);
    CHECK_INT(n, groups);
    CHECK_INT(t->nrows, sql_rows);
    CHECK_INT(t->nrows, sql_int(db, "select (select count(*) from COMPUTE_TASK_INFO) + (select count(*) from COMMUNICATION_OP)"));
    size_t core = table_col(t, "Accelerator Core"), hccl = 0;
    for (size_t r = 0; r < t->nrows; r++)
        hccl += !strcmp(table_text(t, r, core), "HCCL");
    CHECK_INT(hccl, sql_int(db, "select count(*) from COMMUNICATION_OP"));
    for (size_t i = 0; i < n; i++)
        free(a[i].name);
    free(a);
    sqlite3_close(db);
}

/* TASK rows that are drawn: not the records that enclose the tasks of their connection that
 * have a task info row (or the COMMUNICATION_OP of their connection). */
#define DRAWN_TASKS \
    "(select * from TASK where globalTaskId in (select globalTaskId from COMPUTE_TASK_INFO) " \
    " or globalTaskId in (select globalTaskId from COMMUNICATION_TASK_INFO) " \
    " or connectionId is null or connectionId not in (" \
    "  select connectionId from TASK where globalTaskId in (select globalTaskId from COMPUTE_TASK_INFO) " \
    "   or globalTaskId in (select globalTaskId from COMMUNICATION_TASK_INFO) " \
    "  union select connectionId from COMMUNICATION_OP))"

static size_t count_flows(const struct model *m, const char *cat)
{
    size_t n = 0;
    for (size_t i = 0; i < m->nflows; i++)
        n += !strcmp(model_str(m, m->flows[i].cat), cat) && m->flows[i].src != SLICE_NONE && m->flows[i].dst != SLICE_NONE;
    return n;
}

static size_t count_kind(const struct model *m, enum lane_kind k)
{
    size_t n = 0;
    for (uint32_t l = 0; l < m->nlanes; l++)
        if (m->lanes[l].kind == k)
            n += m->lanes[l].count;
    return n;
}

TEST(db_real_kernels_match_sql)
{
    int seen = 0;
    for (int level = 0; level <= 2; level++)
        for (int rank = 0; rank <= 1; rank++) {
            char rel[256];
            snprintf(rel, sizeof rel, PT_DB "/level%d/rank%d_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_%d.db",
                     level, rank, rank);
            const char *path = test_real(rel);
            if (!exists(path))
                continue;
            seen++;
            struct diag *d = diag_new();
            struct rank_data rd = { .device = -1 };
            CHECK_INT(db_load(path, &rd, d, NULL), 0);
            CHECK(rd.tables[TK_KERNELS] != NULL);
            CHECK(rd.model != NULL);
            if (rd.tables[TK_KERNELS])
                check_kernels_against_sql(path, rd.tables[TK_KERNELS]);
            sqlite3 *db = open_ro(path);
            if (rd.model && db) {
                const struct model *m = rd.model;
                CHECK(m->time_base == TIME_UNIX_NS);
                CHECK_INT(count_kind(m, LANE_DEVICE), sql_int(db, "select count(*) from " DRAWN_TASKS));
                /* the enclosing records are AI_CORE / KERNEL_AICORE rows here: the text twin has none */
                CHECK_INT(sql_int(db, "select count(*) from TASK") - sql_int(db, "select count(*) from " DRAWN_TASKS), 17);
                CHECK_INT(count_kind(m, LANE_PYTHON), sql_int(db, "select count(*) from PYTORCH_API"));
                CHECK_INT(count_kind(m, LANE_CANN), sql_int(db, "select count(*) from CANN_API"));
                CHECK_INT(count_kind(m, LANE_COMM), sql_int(db, "select count(*) from COMMUNICATION_OP"));
                CHECK_INT(count_flows(m, "HostToDevice"),
                          sql_int(db, "select count(*) from " DRAWN_TASKS " t join CANN_API c on c.connectionId = t.connectionId")
                          + sql_int(db, "select count(*) from COMMUNICATION_OP o join CANN_API c on c.connectionId = o.connectionId"));
                CHECK_INT(count_flows(m, "async_npu"),
                          sql_int(db, "select count(*) from PYTORCH_API p join CONNECTION_IDS i on i.id = p.connectionId "
                                      "join " DRAWN_TASKS " t on t.connectionId = i.connectionId"));
                /* forward op -> backward op: two non-queue ops of one connection */
                CHECK_INT(count_flows(m, "fwdbwd"),
                          sql_int(db, "select count(*) from (select i.connectionId from PYTORCH_API p join CONNECTION_IDS i "
                                      "on i.id = p.connectionId join ENUM_API_TYPE e on e.id = p.type where e.name = 'op' "
                                      "group by i.connectionId having count(*) = 2)"));
                CHECK_INT(count_flows(m, "fwdbwd"), 27);
                CHECK(count_flows(m, "async_task_queue") > 0);
                CHECK(model_find_lane(m, "Ascend Hardware", "Stream 2") != LANE_NONE);
                if (sql_int(db, "select count(*) from sqlite_master where name = 'OVERLAP_ANALYSIS'") > 0)
                    CHECK_INT(count_kind(m, LANE_OVERLAP), sql_int(db, "select count(*) from OVERLAP_ANALYSIS"));
                /* a PyTorch start stored as TEXT is read exactly */
                int64_t first = sql_int(db, "select cast(min(cast(startNs as integer)) as integer) from PYTORCH_API");
                int64_t lo = INT64_MAX;
                for (uint32_t l = 0; l < m->nlanes; l++)
                    if (m->lanes[l].kind == LANE_PYTHON && m->lanes[l].count)
                        lo = m->start[m->lanes[l].first] < lo ? m->start[m->lanes[l].first] : lo;
                CHECK_INT(lo, first);
                CHECK_INT(rd.device, sql_int(db, "select deviceId from RANK_DEVICE_MAP"));
            }
            sqlite3_close(db);
            rd_free(&rd);
            diag_free(d);
        }
    if (!seen)
        SKIP("no real DB captures");
}

TEST(db_real_capture_unchanged)
{
    const char *dir = test_real(PT_DB "/level1/rank0_ascend_pt");
    if (!exists(dir))
        SKIP("real DB capture absent");
    int n0 = 0, n1 = 0;
    uint64_t h0 = hash_tree(dir, 14695981039346656037ULL, &n0);
    char db[4200], an[4200];
    snprintf(db, sizeof db, "%s/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db", dir);
    snprintf(an, sizeof an, "%s/ASCEND_PROFILER_OUTPUT/analysis.db", dir);
    struct diag *d = diag_new();
    struct rank_data rd = { .device = -1 };
    CHECK_INT(db_load(db, &rd, d, NULL), 0);
    CHECK_INT(db_load_analysis(an, &rd, d), 0);
    rd_free(&rd);
    diag_free(d);
    uint64_t h1 = hash_tree(dir, 14695981039346656037ULL, &n1);
    CHECK(n0 > 2);
    CHECK_INT(n1, n0);
    CHECK(h1 == h0);
    /* the WAL-mode msprof DB too */
    const char *ms = test_real("Ascend-msinsight/server/src/test/test_data/full_db");
    if (exists(ms)) {
        n0 = n1 = 0;
        h0 = hash_tree(ms, 1, &n0);
        snprintf(db, sizeof db, "%s/msprof_0.db", ms);
        d = diag_new();
        struct rank_data r2 = { .device = -1 };
        db_load(db, &r2, d, NULL);
        rd_free(&r2);
        diag_free(d);
        h1 = hash_tree(ms, 1, &n1);
        CHECK_INT(n1, n0);
        CHECK(h1 == h0);
    }
}

TEST(db_real_msprof)
{
    const char *path = test_real("Ascend-msinsight/server/src/test/test_data/full_db/msprof_0.db");
    if (!exists(path))
        SKIP("msprof_0.db absent");
    struct diag *d = diag_new();
    struct rank_data rd = { .device = -1 };
    struct load_progress p = { 0 };
    CHECK_INT(db_load(path, &rd, d, &p), 0);
    CHECK(rd.model != NULL);
    CHECK(rd.tables[TK_KERNELS] != NULL);
    sqlite3 *db = open_ro(path);
    if (rd.model && db) {
        CHECK_INT(count_kind(rd.model, LANE_DEVICE), sql_int(db, "select count(*) from " DRAWN_TASKS));
        CHECK_INT(count_kind(rd.model, LANE_MSTX), sql_int(db, "select count(*) from MSTX_EVENTS"));
        CHECK_INT(count_kind(rd.model, LANE_OVERLAP), sql_int(db, "select count(*) from OVERLAP_ANALYSIS"));
        CHECK(model_find_lane(rd.model, "Ascend Hardware", "Stream 16") != LANE_NONE);
    }
    if (rd.tables[TK_KERNELS])
        check_kernels_against_sql(path, rd.tables[TK_KERNELS]);
    CHECK(atomic_load(&p.events) >= 24);
    CHECK(atomic_load(&p.bytes_done) == atomic_load(&p.bytes_total));
    CHECK(test_diag_has(d, "META_DATA", NULL));   /* msprof DBs carry no schema version */
    sqlite3_close(db);
    rd_free(&rd);
    diag_free(d);
}

TEST(db_real_analysis)
{
    const char *path = test_real(PT_DB "/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db");
    if (!exists(path))
        SKIP("analysis.db absent");
    struct diag *d = diag_new();
    struct db_analysis *a = db_analysis_read(path, d);
    sqlite3 *db = open_ro(path);
    CHECK(a != NULL && db != NULL);
    if (a && db) {
        CHECK_INT(a->nsteps, sql_int(db, "select count(*) from StepTraceTime"));
        CHECK_INT(a->ntimes, sql_int(db, "select count(*) from CommAnalyzerTime"));
        CHECK_INT(a->nbws, sql_int(db, "select count(*) from CommAnalyzerBandwidth"));
        CHECK_INT(a->nmats, sql_int(db, "select count(*) from CommAnalyzerMatrix"));
        CHECK_INT(llround(a->steps[0].computing * 1000), sql_int(db, "select cast(round(computing * 1000) as integer) from StepTraceTime"));
        CHECK_STR(a->steps[0].step, "50");
        double el = 0;
        for (size_t i = 0; i < a->ntimes; i++)
            el += a->times[i].elapse_ms;
        CHECK_INT(llround(el * 1e6), sql_int(db, "select cast(round(sum(elapse_time) * 1e6) as integer) from CommAnalyzerTime"));
    }
    struct rank_data rd = { .device = -1 };
    CHECK_INT(db_load_analysis(path, &rd, d), 0);
    struct table *t = rd.tables[TK_STEP_TRACE];
    CHECK(t != NULL);
    CHECK(rd.comm != NULL);
    if (rd.comm && a)
        CHECK_INT(rd.comm->nops, a->ntimes);
    if (t && a) {
        CHECK_INT(t->nrows, 1);
        size_t c = table_col(t, "Computing");
        CHECK(c != SIZE_MAX);
        if (c != SIZE_MAX)
            CHECK_NEAR(table_num(t, 0, c), a->steps[0].computing, 1e-9);
    }
    sqlite3_close(db);
    db_analysis_free(a);
    rd_free(&rd);
    diag_free(d);
}

TEST(db_real_empty_dat)
{
    const char *path = test_real("Ascend-msinsight/server/src/test/test_data/multiDevice/msprof_db/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler.dat");
    if (!exists(path))
        SKIP(".dat capture absent");
    CHECK(db_is_sqlite(path));
    struct diag *d = diag_new();
    struct rank_data rd = { .device = -1 };
    CHECK_INT(db_load(path, &rd, d, NULL), -1);
    CHECK(rd.model == NULL && rd.tables[TK_KERNELS] == NULL);
    CHECK(test_diag_has(d, "ascend_pytorch_profiler.dat", "no profiler tables"));
    diag_free(d);
    /* its analysis.dat sibling has StepTraceTime with a deviceId column */
    const char *an = test_real("Ascend-msinsight/server/src/test/test_data/multiDevice/msprof_db/ASCEND_PROFILER_OUTPUT/analysis.dat");
    d = diag_new();
    CHECK_INT(db_load_analysis(an, &rd, d), 0);
    CHECK(rd.tables[TK_STEP_TRACE] && rd.tables[TK_STEP_TRACE]->nrows == 4);
    rd_free(&rd);
    diag_free(d);
}

/* --- made-up files -------------------------------------------------------------------- */

static char tmpdir[256];

static const char *tmp_path(const char *name)
{
    static char path[8][600];
    static int slot;
    if (!tmpdir[0]) {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/aptop_test_db_XXXXXX");
        if (!mkdtemp(tmpdir))
            return "/nonexistent";
        scratch_remove_at_exit(tmpdir);
    }
    slot = (slot + 1) % 8;
    snprintf(path[slot], sizeof path[slot], "%s/%s", tmpdir, name);
    return path[slot];
}

static void make_db(const char *path, const char *sql)
{
    unlink(path);
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    char *err = NULL;
    CHECK(sqlite3_exec(db, sql, NULL, NULL, &err) == SQLITE_OK);
    if (err)
        test_fail(__FILE__, __LINE__, "%s", err);
    sqlite3_free(err);
    sqlite3_close(db);
}

static const char *small_sql =
    "CREATE TABLE STRING_IDS(id INTEGER PRIMARY KEY, value TEXT);"
    "INSERT INTO STRING_IDS VALUES(1,'MatMul'),(2,'Add'),(3,'KERNEL_AICORE'),(4,'AI_CORE'),(5,'MatMulV2');"
    "CREATE TABLE TASK(startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, globalTaskId INTEGER,"
    " globalPid INTEGER, taskType INTEGER, contextId INTEGER, streamId INTEGER, taskId INTEGER, modelId INTEGER);"
    "INSERT INTO TASK VALUES(1000,1500,0,7,10,1,3,0,2,1,0),(2000,2100,0,8,11,1,3,0,2,2,0),(3000,3300,0,9,12,1,3,0,5,3,0);"
    "CREATE TABLE COMPUTE_TASK_INFO(name INTEGER, globalTaskId INTEGER, blockDim INTEGER, mixBlockDim INTEGER,"
    " taskType INTEGER, opType INTEGER, inputShapes INTEGER, waitNs INTEGER);"
    "INSERT INTO COMPUTE_TASK_INFO VALUES(1,12,8,0,4,5,0,40),(2,11,4,0,4,2,0,10),(1,10,8,0,4,5,0,0);";

TEST(db_small_generated)
{
    const char *p = tmp_path("small.db");
    make_db(p, small_sql);
    CHECK(db_is_sqlite(p));
    struct diag *d = diag_new();
    struct rank_data rd = { .device = -1 };
    CHECK_INT(db_load(p, &rd, d, NULL), 0);
    struct table *t = rd.tables[TK_KERNELS];
    CHECK(t && t->nrows == 3);
    if (t) {   /* rows in COMPUTE_TASK_INFO order, joined out of order by globalTaskId */
        size_t cn = table_col(t, "Name"), cs = table_col(t, "Start Time(us)"), cd = table_col(t, "Duration(us)"),
               cw = table_col(t, "Wait Time(us)"), cb = table_col(t, "Block Dim"), ct = table_col(t, "Type"),
               cst = table_col(t, "Stream ID"), cc = table_col(t, "Accelerator Core");
        CHECK_STR(table_text(t, 0, cn), "MatMul");
        CHECK_INT(table_time(t, 0, cs), 3000);
        CHECK_INT(table_time(t, 0, cd), 300);
        CHECK_INT(table_time(t, 0, cw), 40);
        CHECK_NEAR(table_num(t, 0, cb), 8, 0);
        CHECK_STR(table_text(t, 0, ct), "MatMulV2");
        CHECK_STR(table_text(t, 0, cc), "AI_CORE");
        CHECK_NEAR(table_num(t, 0, cst), 5, 0);
        CHECK_STR(table_text(t, 1, cn), "Add");
        CHECK_INT(table_time(t, 1, cd), 100);
        CHECK_INT(table_time(t, 2, cs), 1000);
    }
    CHECK(rd.model && count_kind(rd.model, LANE_DEVICE) == 3);
    if (rd.model) {
        uint32_t l = model_find_lane(rd.model, "Ascend Hardware", "Stream 2");
        CHECK(l != LANE_NONE);
        if (l != LANE_NONE) {
            uint32_t s = model_slice_at(rd.model, l, 1200);
            CHECK(s != SLICE_NONE && !strcmp(model_str(rd.model, rd.model->name[s]), "MatMul"));
            CHECK(s != SLICE_NONE && !strcmp(model_str(rd.model, rd.model->cat[s]), "KERNEL_AICORE"));
        }
    }
    CHECK(test_diag_has(d, "META_DATA", NULL));
    rd_free(&rd);
    diag_free(d);
}

TEST(db_missing_tables_and_columns)
{
    struct diag *d = diag_new();
    struct rank_data rd = { .device = -1 };
    /* TASK only: no STRING_IDS, so names are the numbers */
    const char *p = tmp_path("task_only.db");
    make_db(p, "CREATE TABLE TASK(startNs INTEGER, endNs INTEGER, taskType INTEGER, streamId INTEGER);"
               "INSERT INTO TASK VALUES(10,20,3,1),(30,45,3,1);");
    CHECK_INT(db_load(p, &rd, d, NULL), 0);
    CHECK(rd.model && rd.model->nslices == 2 && !rd.tables[TK_KERNELS]);
    if (rd.model)
        CHECK_STR(model_str(rd.model, rd.model->name[0]), "3");
    CHECK(test_diag_has(d, "STRING_IDS", "not found"));
    CHECK(test_diag_has(d, "TASK has no column", "deviceId"));
    rd_free(&rd);
    /* TASK without endNs: skipped with a reason, nothing else to load */
    p = tmp_path("no_end.db");
    make_db(p, "CREATE TABLE TASK(startNs INTEGER, streamId INTEGER); INSERT INTO TASK VALUES(1,2);");
    CHECK_INT(db_load(p, &rd, d, NULL), -1);
    CHECK(test_diag_has(d, "TASK lacks required column", "endNs"));
    /* unrelated tables only */
    p = tmp_path("other.db");
    make_db(p, "CREATE TABLE foo(a); INSERT INTO foo VALUES(1);");
    CHECK_INT(db_load(p, &rd, d, NULL), -1);
    CHECK(test_diag_has(d, "other.db", "no profiler tables"));
    /* a newer schema version is read by name with a warning */
    p = tmp_path("v9.db");
    make_db(p, "CREATE TABLE META_DATA(name TEXT, value TEXT); INSERT INTO META_DATA VALUES('SCHEMA_VERSION','9.0.0');"
               "CREATE TABLE TASK(endNs INTEGER, startNs TEXT); INSERT INTO TASK VALUES(50, ' 12.6');");
    CHECK_INT(db_load(p, &rd, d, NULL), 0);
    CHECK(test_diag_has(d, "schema version 9.0.0", NULL));
    CHECK(rd.model && rd.model->nslices == 1 && rd.model->start[0] == 13 && rd.model->dur[0] == 37);
    rd_free(&rd);
    /* analysis.db without its tables */
    CHECK_INT(db_load_analysis(p, &rd, d), -1);
    CHECK(test_diag_has(d, "v9.db", "no StepTraceTime"));
    diag_free(d);
}

/* Times at the ends of int64 (a hostile file): durations saturate instead of wrapping
 * negative, in the timeline and in the kernel table. */
TEST(db_extreme_times_saturate)
{
    const char *p = tmp_path("extreme.db");
    make_db(p, "CREATE TABLE TASK(startNs INTEGER, endNs INTEGER, globalTaskId INTEGER, streamId INTEGER);"
               "INSERT INTO TASK VALUES(-9000000000000000000, 9000000000000000000, 1, 1);"
               "CREATE TABLE COMPUTE_TASK_INFO(name INTEGER, globalTaskId INTEGER);"
               "INSERT INTO COMPUTE_TASK_INFO VALUES(7, 1);");
    struct diag *d = diag_new();
    struct rank_data rd = { .device = -1 };
    CHECK_INT(db_load(p, &rd, d, NULL), 0);
    uint32_t l = rd.model ? model_find_lane(rd.model, "Ascend Hardware", "Stream 1") : LANE_NONE;
    CHECK(l != LANE_NONE && rd.model->lanes[l].count == 1);
    if (l != LANE_NONE && rd.model->lanes[l].count == 1)
        CHECK_INT(rd.model->dur[rd.model->lanes[l].first], INT64_MAX);
    struct table *t = rd.tables[TK_KERNELS];
    CHECK(t && t->nrows == 1);
    if (t && t->nrows == 1)
        CHECK_INT(table_time(t, 0, table_col(t, "Duration(us)")), INT64_MAX);
    rd_free(&rd);
    diag_free(d);
}

TEST(db_corrupt_files)
{
    struct diag *d = diag_new();
    struct rank_data rd = { .device = -1 };
    /* a valid header followed by garbage pages */
    const char *p = tmp_path("corrupt.db");
    make_db(p, small_sql);
    FILE *f = fopen(p, "r+b");
    CHECK(f != NULL);
    if (f) {
        char junk[4096];
        for (size_t i = 0; i < sizeof junk; i++)
            junk[i] = (char)(i * 131 + 7);
        fseek(f, 100, SEEK_SET);   /* keep the 100-byte header, smash the schema page */
        fwrite(junk, 1, 3900, f);
        fseek(f, 4096, SEEK_SET);
        fwrite(junk, 1, sizeof junk, f);
        fclose(f);
    }
    CHECK_INT(db_load(p, &rd, d, NULL), -1);
    CHECK(rd.model == NULL);
    CHECK(diag_count_level(d, DIAG_ERROR) >= 1);
    CHECK(test_diag_has(d, "corrupt.db", NULL));
    /* only the header */
    p = tmp_path("header_only.db");
    f = fopen(p, "wb");
    if (f) {
        fwrite("SQLite format 3\0", 1, 16, f);
        fclose(f);
    }
    CHECK_INT(db_load(p, &rd, d, NULL), -1);
    CHECK(test_diag_has(d, "header_only.db", NULL));
    /* not SQLite at all, and a missing file */
    p = tmp_path("text.db");
    f = fopen(p, "wb");
    if (f) {
        fputs("hello", f);
        fclose(f);
    }
    CHECK(!db_is_sqlite(p));
    CHECK_INT(db_load(p, &rd, d, NULL), -1);
    CHECK(test_diag_has(d, "text.db", "not an SQLite database"));
    CHECK_INT(db_load(tmp_path("absent.db"), &rd, d, NULL), -1);
    CHECK(db_analysis_read(p, d) == NULL);
    rd_free(&rd);
    diag_free(d);
}

TEST(db_odd_names_and_read_only_dir)
{
    /* URI special characters in the path, a read-only folder, a WAL-mode file: loads, and the
     * folder's listing stays the same (no -wal/-shm/-journal appears). */
    const char *sub = tmp_path("ro dir %3F?#x");
    mkdir(sub, 0755);
    char p[900];
    snprintf(p, sizeof p, "%s/we%%ird?name#1.db", sub);
    make_db(p, small_sql);
    sqlite3 *db = NULL;
    if (sqlite3_open(p, &db) == SQLITE_OK)
        sqlite3_exec(db, "PRAGMA journal_mode=WAL; CREATE TABLE extra(x);", NULL, NULL, NULL);
    sqlite3_close(db);
    chmod(p, 0444);
    chmod(sub, 0555);
    int n0 = 0, n1 = 0;
    uint64_t h0 = hash_tree(sub, 1, &n0);
    struct diag *d = diag_new();
    struct rank_data rd = { .device = -1 };
    CHECK_INT(db_load(p, &rd, d, NULL), 0);
    CHECK(rd.tables[TK_KERNELS] && rd.tables[TK_KERNELS]->nrows == 3);
    uint64_t h1 = hash_tree(sub, 1, &n1);
    CHECK_INT(n1, n0);
    CHECK(h1 == h0);
    /* cancelled before it starts: nothing loaded */
    struct load_progress pr = { 0 };
    atomic_store(&pr.cancel, true);
    struct rank_data r2 = { .device = -1 };
    CHECK_INT(db_load(p, &r2, d, &pr), -1);
    CHECK(r2.model == NULL);
    rd_free(&rd);
    diag_free(d);
    chmod(sub, 0755);
}
