/* DB counter families (io/db/db_counters.h): every family of the real DBs in ../shared/real
 * becomes counter tracks whose sample counts and value sums equal SQL run here on the same
 * tables; a generated DB covers DDR, a generic family and a table missing its time column. */
#include "../runner.h"
#include "helpers.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The track `series` of the process named `proc`: samples and their sum. */
static bool track(const struct model *m, const char *proc, const char *series, size_t *n, double *sum)
{
    for (uint32_t i = 0; i < m->ncounters; i++) {
        const struct counter_track *ct = &m->counters[i];
        if (strcmp(model_str(m, m->procs[ct->proc].name), proc) || strcmp(model_str(m, ct->name), series))
            continue;
        *n = ct->n;
        *sum = 0;
        for (size_t k = 0; k < ct->n; k++)
            *sum += ct->value[k];
        return true;
    }
    return false;
}

/* Compares track (proc, series) with `select count(*), total(value) ...` (q). */
static void check_track(sqlite3 *db, const struct model *m, const char *proc, const char *series, const char *q)
{
    sqlite3_stmt *st = NULL;
    CHECK(sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK);
    if (st && sqlite3_step(st) == SQLITE_ROW) {
        size_t n = 0;
        double sum = 0;
        bool found = track(m, proc, series, &n, &sum);
        if (!found)
            test_fail(__FILE__, __LINE__, "no counter track %s / %s", proc, series);
        CHECK_INT(n, sqlite3_column_int64(st, 0));
        double want = sqlite3_column_double(st, 1);
        CHECK_NEAR(sum, want, fabs(want) * 1e-12);
    }
    sqlite3_finalize(st);
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

TEST(db_counters_real_match_sql)
{
    int seen = 0;
    for (int level = 0; level <= 2; level++)
        for (int rank = 0; rank <= 1; rank++) {
            char rel[256];
            snprintf(rel, sizeof rel, "Ascend-msinsight/test/data/pytorch/db/level%d/rank%d_ascend_pt/ASCEND_PROFILER_OUTPUT/"
                     "ascend_pytorch_profiler_%d.db", level, rank, rank);
            const char *p = test_real(rel);
            struct stat sb;
            if (!p || stat(p, &sb))
                continue;
            seen++;
            struct diag *d = diag_new();
            struct rank_data rd = { .device = -1 };
            CHECK_INT(db_load(p, &rd, d, NULL), 0);
            sqlite3 *db = open_ro(p);
            const struct model *m = rd.model;
            if (m && db) {
                check_track(db, m, "AI Core Freq", "AI Core Freq (MHz)", "select count(*), total(freq) from AICORE_FREQ");
                static const char *const types[2][2] = { { "app", "APP" }, { "device", "Device" } };
                for (int t = 0; t < 2; t++) {
                    char series[64], q[512];
                    const char *w = "from NPU_MEM n join STRING_IDS s on s.id = n.type where s.value = '%s'";
                    snprintf(series, sizeof series, "%s/HBM (KB)", types[t][1]);
                    snprintf(q, sizeof q, "select count(*), total(hbm) / 1024.0 "); strcat(q, w);
                    char q2[512];
                    snprintf(q2, sizeof q2, q, types[t][0]);
                    check_track(db, m, "NPU MEM", series, q2);
                    snprintf(series, sizeof series, "%s/Memory (KB)", types[t][1]);
                    snprintf(q, sizeof q, "select count(*), total(hbm + ddr) / 1024.0 "); strcat(q, w);
                    snprintf(q2, sizeof q2, q, types[t][0]);
                    check_track(db, m, "NPU MEM", series, q2);
                }
                for (int id = 0; id < 4; id++) {
                    char series[64], q[512];
                    snprintf(series, sizeof series, "HBM %d/Read (B/s)", id);
                    snprintf(q, sizeof q, "select count(*), total(bandwidth) from HBM h join STRING_IDS s on s.id = h.type "
                             "where s.value = 'read' and hbmId = %d", id);
                    check_track(db, m, "HBM", series, q);
                }
                check_track(db, m, "LLC", "LLC 0 Read/Hit Rate (%)",
                            "select count(*), total(hitRate) from LLC l join STRING_IDS s on s.id = l.mode "
                            "where s.value = 'read' and llcId = 0");
                check_track(db, m, "LLC", "LLC 1 Read/Throughput (B/s)",
                            "select count(*), total(throughput) from LLC l join STRING_IDS s on s.id = l.mode "
                            "where s.value = 'read' and llcId = 1");
                check_track(db, m, "Acc PMU", "Acc 1/read_bandwidth",
                            "select count(*), total(readBwLevel) from ACC_PMU where accId = 1");
                check_track(db, m, "Acc PMU", "Acc 1/write_ost",
                            "select count(*), total(writeOstLevel) from ACC_PMU where accId = 1");
                check_track(db, m, "Stars Soc Info", "L2 Buffer Bw Level",
                            "select count(*), total(l2BufferBwLevel) from SOC_BANDWIDTH_LEVEL");
                check_track(db, m, "NPU Module Mem", "HCCL reserved (KB)",
                            "select count(*), total(totalReserved) / 1024.0 from NPU_MODULE_MEM n join ENUM_MODULE e "
                            "on e.id = n.moduleId where e.name = 'HCCL'");
                /* every track accounted for: families x their series */
                int64_t want = 1 + 3 * sql_int(db, "select count(distinct type) from NPU_MEM")
                    + sql_int(db, "select count(distinct moduleId) from NPU_MODULE_MEM where totalReserved != 0")
                    + sql_int(db, "select count(*) from (select distinct hbmId, type from HBM)")
                    + 2 * sql_int(db, "select count(*) from (select distinct llcId, mode from LLC)")
                    + 4 * sql_int(db, "select count(distinct accId) from ACC_PMU") + 2;
                CHECK_INT(m->ncounters, want);
                int64_t samples = sql_int(db, "select (select count(*) from AICORE_FREQ) + 3 * (select count(*) from NPU_MEM)"
                    " + (select count(*) from NPU_MODULE_MEM where moduleId in (select moduleId from NPU_MODULE_MEM "
                    "where totalReserved != 0)) + (select count(*) from HBM) + 2 * (select count(*) from LLC)"
                    " + 4 * (select count(*) from ACC_PMU) + 2 * (select count(*) from SOC_BANDWIDTH_LEVEL)");
                CHECK_INT((int64_t)m->events_by_ph['C'], samples);
            }
            sqlite3_close(db);
            rd_free(&rd);
            diag_free(d);
        }
    if (!seen)
        SKIP("no real DB captures");
}

TEST(db_counters_real_msprof_ddr)
{
    const char *p = test_real("Ascend-msinsight/server/src/test/test_data/full_db/msprof_0.db");
    struct stat sb;
    if (!p || stat(p, &sb))
        SKIP("msprof_0.db absent");
    struct diag *d = diag_new();
    struct rank_data rd = { .device = -1 };
    CHECK_INT(db_load(p, &rd, d, NULL), 0);
    sqlite3 *db = open_ro(p);
    if (rd.model && db) {
        check_track(db, rd.model, "DDR", "DDR/Read (B/s)", "select count(*), total(read) from DDR");
        check_track(db, rd.model, "DDR", "DDR/Write (B/s)", "select count(*), total(write) from DDR");
        check_track(db, rd.model, "HBM", "HBM 2/Read (B/s)", "select count(*), total(bandwidth) from HBM where hbmId = 2");
        check_track(db, rd.model, "LLC", "LLC 0 Read/Throughput (B/s)", "select count(*), total(throughput) from LLC");
    }
    sqlite3_close(db);
    rd_free(&rd);
    diag_free(d);
}

static char tmpdir[256];

TEST(db_counters_generated_families)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/aptop_test_ctr_XXXXXX");
    CHECK(mkdtemp(tmpdir) != NULL);
    char p[400];
    snprintf(p, sizeof p, "%s/ctr.db", tmpdir);
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(p, &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db,
        "CREATE TABLE TASK(startNs INTEGER, endNs INTEGER, streamId INTEGER); INSERT INTO TASK VALUES(1,2,1);"
        "CREATE TABLE HCCS(deviceId INTEGER, timestampNs INTEGER, txThroughput NUMERIC, rxThroughput NUMERIC);"
        "INSERT INTO HCCS VALUES(0,10,5,6),(1,20,7,8),(0,30,9,10);"
        "CREATE TABLE NIC(deviceId INTEGER, timestampNs INTEGER, bandwidth NUMERIC, rxPacketRate REAL, funcId INTEGER,"
        " name TEXT); INSERT INTO NIC VALUES(0,10,100,1.5,3,'x'),(0,20,200,2.5,3,'y');"
        "CREATE TABLE DDR(deviceId INTEGER, read NUMERIC, write NUMERIC);"   /* no timestampNs */
        "INSERT INTO DDR VALUES(0,1,2);", NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    struct diag *d = diag_new();
    struct rank_data rd = { .device = -1 };
    CHECK_INT(db_load(p, &rd, d, NULL), 0);
    const struct model *m = rd.model;
    size_t n;
    double sum;
    CHECK(m != NULL);
    if (m) {
        /* two devices: one process each */
        CHECK(track(m, "HCCS (device 0)", "txThroughput (B/s)", &n, &sum) && n == 2 && sum == 14);
        CHECK(track(m, "HCCS (device 1)", "rxThroughput (B/s)", &n, &sum) && n == 1 && sum == 8);
        CHECK(track(m, "NIC", "Port 3/bandwidth (B/s)", &n, &sum) && n == 2 && sum == 300);
        CHECK(track(m, "NIC", "Port 3/rxPacketRate", &n, &sum) && n == 2 && sum == 4);
        CHECK(!track(m, "NIC", "Port 3/name", &n, &sum));
        CHECK(!track(m, "DDR", "DDR/Read (B/s)", &n, &sum));
    }
    CHECK(test_diag_has(d, "DDR lacks required column", "timestampNs"));
    rd_free(&rd);
    diag_free(d);
    unlink(p);
    rmdir(tmpdir);
}

/* TASK_PMU_INFO: one kernel table column per PMU name, named as kernel_details.csv names it
 * (aic_total_time → aicore_time(us), other *_time → *_time(us), ns kept exact), each cell the
 * value of its kernel's row (SQL join on globalTaskId, in COMPUTE_TASK_INFO order). */
TEST(db_pmu_real_match_sql)
{
    const char *p = test_real("Ascend-msinsight/test/data/pytorch/db/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/"
                              "ascend_pytorch_profiler_0.db");
    struct stat sb;
    if (!p || stat(p, &sb))
        SKIP("level1 DB absent");
    struct diag *d = diag_new();
    struct rank_data rd = { .device = -1 };
    CHECK_INT(db_load(p, &rd, d, NULL), 0);
    sqlite3 *db = open_ro(p);
    const struct table *t = rd.tables[TK_KERNELS];
    CHECK(t != NULL && db != NULL);
    static const struct { const char *pmu, *header; bool time; } cols[] = {
        { "aic_total_time", "aicore_time(us)", true }, { "aiv_total_time", "aiv_time(us)", true },
        { "aic_mac_time", "aic_mac_time(us)", true }, { "aiv_vec_ratio", "aiv_vec_ratio", false },
        { "aic_total_cycles", "aic_total_cycles", false }, { "aiv_icache_miss_rate", "aiv_icache_miss_rate", false },
    };
    for (size_t k = 0; t && db && k < sizeof cols / sizeof *cols; k++) {
        size_t c = table_col(t, cols[k].header);
        if (c == SIZE_MAX) {
            test_fail(__FILE__, __LINE__, "no kernel column %s", cols[k].header);
            continue;
        }
        CHECK_INT(t->cols[c].type, cols[k].time ? TC_TIME : TC_NUM);
        /* kernel row r = the r-th COMPUTE_TASK_INFO row (rowid order) */
        char q[512];
        snprintf(q, sizeof q, "select (select count(*) from COMPUTE_TASK_INFO c2 where c2.rowid < c.rowid), p.value "
                 "from TASK_PMU_INFO p join COMPUTE_TASK_INFO c on c.globalTaskId = p.globalTaskId "
                 "join STRING_IDS s on s.id = p.name where s.value = '%s'", cols[k].pmu);
        sqlite3_stmt *st = NULL;
        CHECK(sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK);
        size_t n = 0, bad = 0;
        while (st && sqlite3_step(st) == SQLITE_ROW) {
            size_t r = (size_t)sqlite3_column_int64(st, 0);
            double v = sqlite3_column_double(st, 1);
            n++;
            if (r >= t->nrows)
                bad++;
            else if (cols[k].time)
                bad += table_time(t, r, c) != llround(v);
            else
                bad += table_num(t, r, c) != v;
        }
        sqlite3_finalize(st);
        CHECK(n > 100);
        CHECK_INT(bad, 0);
        size_t present = 0;
        for (size_t r = 0; r < t->nrows; r++)
            present += !table_is_missing(t, r, c);
        CHECK_INT(present, n);
    }
    if (t && db)   /* every PMU name is a column */
        CHECK_INT(t->ncols, 19 + sql_int(db, "select count(distinct name) from TASK_PMU_INFO"));
    sqlite3_close(db);
    rd_free(&rd);
    diag_free(d);
}
