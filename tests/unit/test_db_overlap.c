/* DB exports: communication tasks are communication, the records that enclose tasks are not
 * drawn twice, and the Overlap Analysis of a DB without an OVERLAP_ANALYSIS table is
 * computed from the tasks. Checked against the real DBs in ../shared/real: the computed lanes
 * against the OVERLAP_ANALYSIS table another tool wrote into the level1 DB (copied to /tmp
 * and dropped there), and against analysis.db's StepTraceTime of the DBs that have none;
 * span arithmetic against a brute-force count over a small time grid. */
#include "../runner.h"
#include "../scratch.h"
#include "helpers.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/db/db_overlap.h"
#include "io/db/db_reader.h"
#include "io/trace/trace_json.h"
#include "model/analysis/comm.h"
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

static char tmpdir[256];

static const char *tmp_path(const char *name)
{
    static char path[8][600];
    static int slot;
    if (!tmpdir[0]) {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/aptop_test_ovl_XXXXXX");
        if (!mkdtemp(tmpdir))
            return "/nonexistent";
        scratch_remove_at_exit(tmpdir);
    }
    slot = (slot + 1) % 8;
    snprintf(path[slot], sizeof path[slot], "%s/%s", tmpdir, name);
    return path[slot];
}

static void exec_sql(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    char *err = NULL;
    CHECK(sqlite3_exec(db, sql, NULL, NULL, &err) == SQLITE_OK);
    if (err)
        test_fail(__FILE__, __LINE__, "%s", err);
    sqlite3_free(err);
    sqlite3_close(db);
}

static void make_db(const char *path, const char *sql)
{
    unlink(path);
    exec_sql(path, sql);
}

static bool copy_file(const char *from, const char *to)
{
    FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
    bool ok = a && b;
    char buf[65536];
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, a)) > 0)
        ok = fwrite(buf, 1, n, b) == n;
    if (a)
        fclose(a);
    if (b && fclose(b))
        ok = false;
    return ok;
}

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

/* The slices of Overlap Analysis lane `name` (any device) as (start, end), in time order. */
static size_t lane_spans(const struct model *m, const char *name, int64_t (**out)[2])
{
    size_t n = 0;
    *out = NULL;
    for (uint32_t l = 0; l < m->nlanes; l++) {
        if (m->lanes[l].kind != LANE_OVERLAP || strcmp(model_str(m, m->lanes[l].name), name))
            continue;
        *out = realloc(*out, (n + m->lanes[l].count + 1) * sizeof **out);
        for (uint32_t s = m->lanes[l].first; s < m->lanes[l].first + m->lanes[l].count; s++) {
            (*out)[n][0] = m->start[s];
            (*out)[n++][1] = m->start[s] + m->dur[s];
        }
    }
    return n;
}

static int64_t lane_total(const struct model *m, const char *name)
{
    int64_t (*v)[2], t = 0;
    size_t n = lane_spans(m, name, &v);
    for (size_t i = 0; i < n; i++)
        t += v[i][1] - v[i][0];
    free(v);
    return t;
}

static size_t device_slices(const struct model *m)
{
    size_t n = 0;
    for (uint32_t l = 0; l < m->nlanes; l++)
        n += m->lanes[l].kind == LANE_DEVICE ? m->lanes[l].count : 0;
    return n;
}

static const char *const lane_names[4] = { "Computing", "Communication", "Communication(Not Overlapped)", "Free" };

/* --- span arithmetic ---------------------------------------------------------------------- */

#define GRID 400

static int64_t grid_total(const bool *g)
{
    int64_t t = 0;
    for (int i = 0; i < GRID; i++)
        t += g[i];
    return t;
}

TEST(db_overlap_span_arithmetic)
{
    srand(7);
    for (int round = 0; round < 300; round++) {
        struct dbo_spans a = { 0 }, b = { 0 }, m = { 0 }, g = { 0 };
        bool ga[GRID] = { 0 }, gb[GRID] = { 0 };
        int na = rand() % 12, nb = rand() % 6;
        bool sorted = round % 2;   /* half of the rounds add in start order */
        int at = 0;
        for (int i = 0; i < na; i++) {
            int s = sorted ? at + rand() % 30 : rand() % (GRID - 40), e = s + rand() % 40;
            at = s;
            CHECK(dbo_add(&a, s, e));
            for (int k = s; k < e; k++)
                ga[k] = true;
        }
        for (int i = 0; i < nb; i++) {
            int s = rand() % (GRID - 80), e = s + rand() % 80;
            CHECK(dbo_add(&b, s, e));
            for (int k = s; k < e; k++)
                gb[k] = true;
        }
        dbo_finish(&a);
        dbo_finish(&b);
        CHECK_INT(dbo_total(&a), grid_total(ga));
        for (size_t i = 1; i < a.n; i++)
            CHECK(a.v[i].s > a.v[i - 1].e);   /* disjoint, sorted, touching ones merged */
        CHECK(dbo_minus(&b, &a, &m));
        bool gm[GRID], gu[GRID], gg[GRID] = { 0 };
        int first = -1, last = -1;
        for (int k = 0; k < GRID; k++) {
            gm[k] = gb[k] && !ga[k];
            gu[k] = ga[k] || gb[k];
            if (gu[k]) {
                last = k;
                if (first < 0)
                    first = k;
            }
        }
        for (int k = first; k >= 0 && k <= last; k++)
            gg[k] = !gu[k];
        CHECK_INT(dbo_total(&m), grid_total(gm));
        CHECK(dbo_gaps(&a, &b, &g));
        CHECK_INT(dbo_total(&g), grid_total(gg));
        for (size_t i = 0; i < g.n; i++)
            CHECK(g.v[i].e > g.v[i].s);
        dbo_free(&a);
        dbo_free(&b);
        dbo_free(&m);
        dbo_free(&g);
    }
}

/* --- generated DBs ------------------------------------------------------------------------ */

/* Stream 2: a MIX kernel's outer record (conn 7, no info row) around its task (conn 7, with
 * one), an EVENT_WAIT (conn 8, none), a kernel (conn 9). Stream 4: a collective's op-level
 * record (conn 20, same span as its COMMUNICATION_OP) around two communication tasks. */
static const char *const enclose_sql =
    "CREATE TABLE STRING_IDS(id INTEGER PRIMARY KEY, value TEXT);"
    "INSERT INTO STRING_IDS VALUES(1,'ReduceSum7'),(2,'AI_CORE'),(3,'MIX_AIV'),(4,'EVENT_WAIT'),(5,'Add'),"
    " (6,'hcom_allReduce__1_0_1'),(7,'Notify Wait'),(8,'SDMA'),(9,'group0'),(10,'KERNEL_AIVEC');"
    "CREATE TABLE TASK(startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, globalTaskId INTEGER,"
    " taskType INTEGER, streamId INTEGER, taskId INTEGER);"
    "INSERT INTO TASK VALUES(1000,1100,0,7,1,2,2,1),(1010,1090,0,7,2,3,2,1),(1200,1300,0,8,3,4,2,2),"
    " (1250,1400,0,9,4,10,2,3),(1500,2500,0,20,5,2,4,9),(1500,1600,0,20,6,7,4,9),(2000,2500,0,20,7,8,4,9);"
    "CREATE TABLE COMPUTE_TASK_INFO(name INTEGER, globalTaskId INTEGER);"
    "INSERT INTO COMPUTE_TASK_INFO VALUES(1,2),(5,4);"
    "CREATE TABLE COMMUNICATION_TASK_INFO(name INTEGER, globalTaskId INTEGER, taskType INTEGER);"
    "INSERT INTO COMMUNICATION_TASK_INFO VALUES(6,6,7),(6,7,8);"
    "CREATE TABLE COMMUNICATION_OP(opName INTEGER, startNs INTEGER, endNs INTEGER, connectionId INTEGER,"
    " groupName INTEGER, opType INTEGER);"
    "INSERT INTO COMMUNICATION_OP VALUES(6,1500,2500,20,9,6);";

TEST(db_enclosing_records_and_computed_overlap)
{
    const char *p = tmp_path("enclose.db");
    make_db(p, enclose_sql);
    struct diag *d = diag_new();
    struct rank_data rd = { .device = -1 };
    CHECK_INT(db_load(p, &rd, d, NULL), 0);
    const struct model *m = rd.model;
    CHECK(m != NULL);
    if (!m)
        goto out;
    /* 7 rows, 2 enclosing records: 5 device slices, none named by a bare task type but the EVENT_WAIT */
    CHECK_INT(device_slices(m), 5);
    for (uint32_t l = 0; l < m->nlanes; l++)
        for (uint32_t s = m->lanes[l].first; m->lanes[l].kind == LANE_DEVICE && s < m->lanes[l].first + m->lanes[l].count; s++)
            CHECK(strcmp(model_str(m, m->name[s]), "AI_CORE"));
    CHECK(test_diag_has(d, "2 row(s) without a task info row", "counted once"));
    CHECK(test_diag_has(d, "no OVERLAP_ANALYSIS rows", "computed"));
    /* Computing = ReduceSum7 [1010,1090) ∪ Add [1250,1400): not the EVENT_WAIT, not communication */
    int64_t (*v)[2];
    size_t n = lane_spans(m, "Computing", &v);
    CHECK_INT(n, 2);
    if (n == 2) {
        CHECK_INT(v[0][0], 1010); CHECK_INT(v[0][1], 1090);
        CHECK_INT(v[1][0], 1250); CHECK_INT(v[1][1], 1400);
    }
    free(v);
    CHECK_INT(lane_total(m, "Communication"), 1000);
    CHECK_INT(lane_total(m, "Communication(Not Overlapped)"), 1000);
    /* Free: [1090,1250) and [1400,1500) */
    n = lane_spans(m, "Free", &v);
    CHECK_INT(n, 2);
    if (n == 2) {
        CHECK_INT(v[0][0], 1090); CHECK_INT(v[0][1], 1250);
        CHECK_INT(v[1][0], 1400); CHECK_INT(v[1][1], 1500);
    }
    free(v);
    /* the communication tasks carry the collective's name */
    uint32_t l4 = model_find_lane(m, "Ascend Hardware", "Stream 4");
    CHECK(l4 != LANE_NONE && m->lanes[l4].count == 2);
    if (l4 != LANE_NONE && m->lanes[l4].count)
        CHECK_STR(model_str(m, m->name[m->lanes[l4].first]), "hcom_allReduce__1_0_1");
out:
    rd_free(&rd);
    diag_free(d);
}

/* An OVERLAP_ANALYSIS table, when it has rows, is shown as written (nothing computed). */
TEST(db_overlap_table_wins)
{
    const char *p = tmp_path("ovl_table.db");
    make_db(p, enclose_sql);
    exec_sql(p, "CREATE TABLE OVERLAP_ANALYSIS(id INTEGER, deviceId INTEGER, startNs INTEGER, endNs INTEGER, type INTEGER);"
                "INSERT INTO OVERLAP_ANALYSIS VALUES(1,0,1000,1111,0);");
    struct diag *d = diag_new();
    struct rank_data rd = { .device = -1 };
    CHECK_INT(db_load(p, &rd, d, NULL), 0);
    CHECK(rd.model && lane_total(rd.model, "Computing") == 111 && lane_total(rd.model, "Free") == 0);
    CHECK(!test_diag_has(d, "no OVERLAP_ANALYSIS rows", NULL));
    rd_free(&rd);
    diag_free(d);
}

/* CONNECTION_IDS present but empty: no connection of a PyTorch op resolves (once a qsort of
 * a NULL array); the input is kept in tests/fuzz/regress/fuzz_db/. */
TEST(db_empty_connection_ids)
{
    const char *p = "tests/fuzz/regress/fuzz_db/qsort-null-empty-connection-ids.db";
    if (!exists(p))
        SKIP("regress input absent (run from the project root)");
    struct diag *d = diag_new();
    struct rank_data rd = { .device = -1 };
    CHECK_INT(db_load(p, &rd, d, NULL), 0);
    CHECK(rd.model != NULL);
    if (rd.model) {
        CHECK_INT(device_slices(rd.model), 1);
        size_t async = 0;
        for (size_t i = 0; i < rd.model->nflows; i++)
            async += !strcmp(model_str(rd.model, rd.model->flows[i].cat), "async_npu");
        CHECK_INT(async, 0);   /* the op's connectionId is an id into the empty table, not a connection */
    }
    rd_free(&rd);
    diag_free(d);
}

/* --- real DBs ------------------------------------------------------------------------------ */

/* The level1 DBs carry an OVERLAP_ANALYSIS table written by another tool: dropped from a copy,
 * the computed lanes equal its rows span for span. */
TEST(db_overlap_real_computed_equals_table)
{
    int seen = 0;
    for (int rank = 0; rank <= 1; rank++) {
        char rel[256];
        snprintf(rel, sizeof rel, PT_DB "/level1/rank%d_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_%d.db",
                 rank, rank);
        const char *src = test_real(rel);
        if (!exists(src))
            continue;
        sqlite3 *orig = open_ro(src);
        CHECK(orig != NULL);
        if (!orig)
            continue;
        sqlite3_stmt *has = NULL;
        bool table = sqlite3_prepare_v2(orig, "select 1 from OVERLAP_ANALYSIS limit 1", -1, &has, NULL) == SQLITE_OK
                     && sqlite3_step(has) == SQLITE_ROW;
        sqlite3_finalize(has);
        if (!table) {
            sqlite3_close(orig);
            continue;
        }
        seen++;
        char name[64];
        snprintf(name, sizeof name, "level1_rank%d.db", rank);
        const char *p = tmp_path(name);
        CHECK(copy_file(src, p));
        exec_sql(p, "PRAGMA journal_mode=DELETE; DROP TABLE OVERLAP_ANALYSIS;");
        struct diag *d = diag_new();
        struct rank_data rd = { .device = -1 };
        CHECK_INT(db_load(p, &rd, d, NULL), 0);
        CHECK(test_diag_has(d, "no OVERLAP_ANALYSIS rows", NULL));
        for (int type = 0; type < 4 && rd.model; type++) {
            int64_t (*v)[2];
            size_t n = lane_spans(rd.model, lane_names[type], &v), i = 0, diff = 0;
            sqlite3_stmt *st = NULL;
            CHECK(sqlite3_prepare_v2(orig, "select startNs, endNs from OVERLAP_ANALYSIS where type = ? order by startNs",
                                     -1, &st, NULL) == SQLITE_OK);
            sqlite3_bind_int(st, 1, type);
            while (st && sqlite3_step(st) == SQLITE_ROW) {
                diff += i >= n || v[i][0] != sqlite3_column_int64(st, 0) || v[i][1] != sqlite3_column_int64(st, 1);
                i++;
            }
            sqlite3_finalize(st);
            CHECK_INT(n, i);
            CHECK_INT(diff, 0);
            free(v);
        }
        rd_free(&rd);
        diag_free(d);
        sqlite3_close(orig);
    }
    if (!seen)
        SKIP("no real level1 DB with OVERLAP_ANALYSIS");
}

/* The DBs without OVERLAP_ANALYSIS (one step each): the computed totals equal analysis.db's
 * StepTraceTime (µs, the profiler's own figures) to the ns. */
TEST(db_overlap_real_matches_step_trace)
{
    int seen = 0;
    for (int level = 0; level <= 2; level++)
        for (int rank = 0; rank <= 1; rank++) {
            char rel[256], arel[256];
            snprintf(rel, sizeof rel, PT_DB "/level%d/rank%d_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_%d.db",
                     level, rank, rank);
            snprintf(arel, sizeof arel, PT_DB "/level%d/rank%d_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db", level, rank);
            char path[4200];
            snprintf(path, sizeof path, "%s", test_real(rel) ? test_real(rel) : "");
            const char *apath = test_real(arel);
            if (!exists(path) || !exists(apath))
                continue;
            sqlite3 *a = open_ro(apath), *db = open_ro(path);
            sqlite3_stmt *st = NULL, *q = NULL;
            bool ovl = db && sqlite3_prepare_v2(db, "select 1 from OVERLAP_ANALYSIS", -1, &q, NULL) == SQLITE_OK;
            sqlite3_finalize(q);
            bool one = a && sqlite3_prepare_v2(a, "select computing, communication_not_overlapped, free, communication, "
                                                  "(select count(*) from StepTraceTime) from StepTraceTime",
                                               -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW
                       && sqlite3_column_int64(st, 4) == 1;
            if (!ovl && one) {
                seen++;
                struct diag *d = diag_new();
                struct rank_data rd = { .device = -1 };
                CHECK_INT(db_load(path, &rd, d, NULL), 0);
                for (int k = 0; k < 3 && rd.model; k++) {
                    static const int lane[3] = { 0, 2, 3 };
                    CHECK_INT(lane_total(rd.model, lane_names[lane[k]]), llround(sqlite3_column_double(st, k) * 1000));
                }
                if (rd.model)
                    CHECK_INT(lane_total(rd.model, "Communication"), llround(sqlite3_column_double(st, 3) * 1000));
                rd_free(&rd);
                diag_free(d);
            }
            sqlite3_finalize(st);
            sqlite3_close(a);
            sqlite3_close(db);
        }
    if (!seen)
        SKIP("no real DB without OVERLAP_ANALYSIS beside an analysis.db");
}

/* The DB export and the text export of the same job (separate runs) hold the same tasks:
 * stream by stream, the DB's device lanes have as many slices as the text twin's
 * trace_view.json (the enclosing records the DB adds are not drawn). */
TEST(db_tasks_per_stream_equal_text_twin)
{
    int seen = 0;
    for (int level = 0; level <= 2; level++)
        for (int rank = 0; rank <= 1; rank++) {
            char rel[256], trel[256];
            snprintf(rel, sizeof rel, PT_DB "/level%d/rank%d_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_%d.db",
                     level, rank, rank);
            snprintf(trel, sizeof trel, "Ascend-msinsight/test/data/pytorch/text/level%d/rank%d_ascend_pt/"
                     "ASCEND_PROFILER_OUTPUT/trace_view.json", level, rank);
            char db[4200];
            snprintf(db, sizeof db, "%s", test_real(rel) ? test_real(rel) : "");
            const char *tv = test_real(trel);
            if (!exists(db) || !exists(tv))
                continue;
            seen++;
            struct diag *d = diag_new();
            struct rank_data rd = { .device = -1 };
            struct model *tm = model_new(TIME_LOCAL_US);
            CHECK_INT(db_load(db, &rd, d, NULL), 0);
            CHECK(tm && trace_json_load(tm, tv, d, NULL) >= 0 && model_finalize(tm) == 0);
            for (int stream = 0; stream <= 8 && rd.model && tm; stream++) {
                char lane[32];
                snprintf(lane, sizeof lane, "Stream %d", stream);
                uint32_t a = model_find_lane(rd.model, "Ascend Hardware", lane), b = model_find_lane(tm, "Ascend Hardware", lane);
                CHECK_INT(a == LANE_NONE ? 0 : rd.model->lanes[a].count, b == LANE_NONE ? 0 : tm->lanes[b].count);
            }
            model_free(tm);
            rd_free(&rd);
            diag_free(d);
        }
    if (!seen)
        SKIP("no DB / text twin pairs");
}
