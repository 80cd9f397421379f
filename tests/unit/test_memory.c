/* Memory readers and model: exact unit conversion, header variants, kept-as-written empty and
 * negative values, bounded curves with exact peaks, operators alive at a time, the DB tables,
 * bad input, and the real captures (text and DB giving the same figures). */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/tables/memory_read.h"
#include "model/analysis/memory.h"
#include "model/rowsets/memory_rowsets.h"
#include "model/index/session.h"
#include "../runner.h"
#include "helpers.h"

static int64_t scaled(const char *s, int shift, int *rc)
{
    int64_t v = 0;
    *rc = memory_parse_scaled(s, strlen(s), shift, &v);
    return v;
}

TEST(memory_parse_scaled_exact)
{
    int rc;
    CHECK_INT(scaled("4599.74072265625", 20, &rc), 4823177728LL);
    CHECK_INT(rc, 0);
    CHECK_INT(scaled("18816.5", 10, &rc), 19268096LL);
    CHECK_INT(scaled("-1", 10, &rc), -1024);
    CHECK_INT(scaled(" 0.5\t", 10, &rc), 512);
    CHECK_INT(rc, 0);
    CHECK_INT(scaled("0.1", 20, &rc), 104858);          /* 104857.6 rounds half away from zero */
    CHECK_INT(scaled("-0.1", 20, &rc), -104858);
    CHECK_INT(scaled("1.5E+3", 0, &rc), 1500);
    CHECK_INT(rc, 1);
    CHECK_INT(scaled("11224.375", 20, &rc), 11769610240LL);
    scaled("", 20, &rc);
    CHECK_INT(rc, -1);
    scaled("N/A", 20, &rc);
    CHECK_INT(rc, -1);
    scaled("12ab", 20, &rc);
    CHECK_INT(rc, -2);
    scaled("1e400", 20, &rc);
    CHECK_INT(rc, -2);
    CHECK_INT(scaled("123456789012345678901234", 0, &rc), 0);   /* beyond int64 */
    CHECK_INT(rc, -2);
}

static struct memory *read_buf(const char *name, const char *text, struct diag *d, int *rc)
{
    struct memory *m = memory_new();
    *rc = memory_read_csv_buffer(text, strlen(text), name, m, d);
    memory_finish(m);
    return m;
}

static const struct mem_series *series(const struct memory *m, const char *comp, enum mem_family f)
{
    for (size_t i = 0; i < m->nseries; i++)
        if (!strcmp(memory_str(m, m->series[i].component), comp) && m->series[i].family == f)
            return &m->series[i];
    return NULL;
}

TEST(memory_record_class_a_crlf_tab_micro_sign)
{
    struct diag *d = diag_new();
    int rc;
    struct memory *m = read_buf("memory_record.csv",
        "\xEF\xBB\xBF" "Component,Timestamp (\xC2\xB5s),Total Allocated (MB),Total Reserved (MB),Total Active (MB),Stream Ptr,Device Type\r\n"
        "APP,1736405443756384.100\t,,2109.6015625,,,NPU:0\r\n"
        "PTA,1736405443870818.960\t,954.3701171875,1452.0,954.3701171875,1431569360,NPU:0\r\n"
        "PTA,1736405443870900.000\t,1187.98095703125,1452.0,1187.98095703125,1431569360,NPU:0\r\n"
        "PTA,1736405443871000.000\t,1187.98095703125,1400.0,1000.0,1431569360,NPU:0\r\n"
        "\r\n", d, &rc);
    CHECK_INT(rc, 0);
    CHECK_INT(m->nseries, 2);
    const struct mem_series *app = series(m, "APP", MF_RECORD), *pta = series(m, "PTA", MF_RECORD);
    CHECK(app && pta);
    if (app && pta) {
        CHECK(app->peak[MK_ALLOCATED] == MEM_NONE);               /* empty stays empty */
        CHECK_INT(app->peak[MK_RESERVED], 2212077568LL);
        CHECK_INT(pta->rows, 3);
        CHECK_INT(pta->peak[MK_ALLOCATED], 1245688320LL);         /* 1187.98095703125 MB */
        CHECK_INT(pta->peak_t[MK_ALLOCATED], 1736405443870900000LL);   /* the first row at the peak */
        CHECK_INT(pta->peak[MK_RESERVED], 1452LL << 20);
        CHECK_INT(pta->t_first, 1736405443870818960LL);
        CHECK_INT(pta->t_last, 1736405443871000000LL);
    }
    CHECK_INT(memory_main_series(m), 1);
    CHECK_INT(diag_count(d), 0);
    memory_free(m);
    diag_free(d);
}

TEST(memory_record_class_b_kb)
{
    struct diag *d = diag_new();
    int rc;
    struct memory *m = read_buf("memory_record_20230919172305.csv",
        "Device_id,Component,Timestamp(us),Total Allocated(KB),Total Reserved(KB),Device\n"
        "0,GE,100.5,1024,2048,NPU:0\n"
        "0,GE,101.5,512.5,2048,NPU:0\n", d, &rc);
    CHECK_INT(rc, 0);
    const struct mem_series *ge = series(m, "GE", MF_RECORD);
    CHECK(ge != NULL);
    if (ge) {
        CHECK_INT(ge->peak[MK_ALLOCATED], 1024 * 1024);
        CHECK_INT(ge->peak[MK_RESERVED], 2048 * 1024);
        CHECK(ge->peak[MK_ACTIVE] == MEM_NONE);                   /* Class B has no Total Active */
        CHECK_INT(ge->peak_t[MK_ALLOCATED], 100500);
    }
    memory_free(m);
    diag_free(d);
}

TEST(memory_module_and_npu_mem)
{
    struct diag *d = diag_new();
    int rc;
    struct memory *m = read_buf("npu_module_mem_1.csv",
        "Device_id,Component,Timestamp(us),Total Reserved(KB),Device\n"
        "0,HCCL,5,-1,NPU:0\n0,HCCL,6,100,NPU:0\n", d, &rc);
    CHECK_INT(rc, 0);
    const char *npu = "event,ddr(KB),hbm(KB),memory(KB),timestamp(us)\napp,0,10,10,7\ndevice,1,20,21,7\n";
    CHECK_INT(memory_read_csv_buffer(npu, strlen(npu), "npu_mem_1.csv", m, d), 0);
    memory_finish(m);
    const struct mem_series *h = series(m, "HCCL", MF_MODULE), *dev = series(m, "device", MF_NPU_MEM);
    CHECK(h && dev);
    if (h && dev) {
        CHECK_INT(h->peak[MK_RESERVED], 100 * 1024);
        CHECK_INT(h->rows, 2);                     /* -1 (release only) kept as a row */
        CHECK_INT(h->pts[0].v[MK_RESERVED], -1024);
        CHECK_INT(dev->peak[MK_RESERVED], 21 * 1024);
    }
    CHECK_INT(m->nfiles, 2);
    memory_free(m);
    diag_free(d);
}

TEST(memory_operator_kept_as_written)
{
    struct diag *d = diag_new();
    int rc;
    struct memory *m = read_buf("operator_memory.csv",
        "Name,Size(KB),Allocation Time(us),Release Time(us),Duration(us),Allocation Total Allocated(MB),"
        "Allocation Total Reserved(MB),Release Total Allocated(MB),Release Total Reserved(MB),Device Type\n"
        "aten::a,192,100.5,137.25,36.73,0.25,242.0,0.0625,242.0,NPU:0\n"
        "aten::b,-512,,50.0,,,,0.0625,242.0,NPU:0\n"          /* allocated before the window */
        "aten::c,,120.0,,,1.0,242.0,,,NPU:0\n"                /* empty size, never released */
        "\"x, \"\"quoted\"\"\nname\",4,130,140,,1,1,1,1,NPU:0\n", d, &rc);
    CHECK_INT(rc, 0);
    CHECK_INT(m->nops, 4);
    if (m->nops == 4) {
        const struct mem_op *a = &m->ops[0], *b = &m->ops[1], *c = &m->ops[2], *q = &m->ops[3];
        CHECK_INT(a->size, 192 * 1024);
        CHECK_INT(a->alloc, 100500);
        CHECK_INT(mem_op_lifetime(a), 36730);                 /* Duration as written */
        CHECK_INT(b->size, -512 * 1024);
        CHECK(b->alloc == NS_NONE);
        CHECK(mem_op_lifetime(b) == NS_NONE);
        CHECK(c->size == MEM_NONE);
        CHECK(c->release == NS_NONE);
        CHECK_STR(memory_str(m, q->name), "x, \"quoted\"\nname");
        CHECK_INT(mem_op_lifetime(q), 10000);                 /* release - allocation */
        CHECK_INT(q->line, 5);
        /* ranked by size: a (192 KB), q (4 KB), b (-512 KB), then the empty one */
        CHECK_INT(m->by_size[0], 0);
        CHECK_INT(m->by_size[1], 3);
        CHECK_INT(m->by_size[2], 1);
        CHECK_INT(m->by_size[3], 2);
        CHECK_INT(m->by_cost[0], 0);
        /* alive at 125 µs: a (until 137.25), b? released at 50: no; c (never released) */
        uint32_t idx[8];
        CHECK_INT(memory_alive_at(m, 125000, idx, 8), 2);
        CHECK_INT(idx[0], 0);
        CHECK_INT(idx[1], 2);
        CHECK_INT(memory_alive_at(m, 10000, idx, 8), 1);     /* b: allocated before the window */
        CHECK_INT(idx[0], 1);
    }
    struct rowset *rs = memory_ops_rowset(m, 0, MO_FILE, NULL);
    CHECK(rs && rs->nrows == 4);
    if (rs && rs->nrows == 4) {
        size_t sz = rowset_find_col(rs, "size_kb"), life = rowset_find_col(rs, "lifetime_us");
        CHECK(rowset_cell(rs, 1, sz)->d == -512.0);
        CHECK(rowset_is_null(rs, 2, sz));
        CHECK(rowset_is_null(rs, 1, life));
        CHECK_INT(rowset_cell(rs, 0, life)->i, 36730);
    }
    rowset_free(rs);
    memory_free(m);
    diag_free(d);
}

TEST(memory_static_op_mem)
{
    struct diag *d = diag_new();
    int rc;
    struct memory *m = read_buf("static_op_mem.csv",
        "Device_id,Op Name,Model Name,Graph ID,Node Index Start,Node Index End,Size(KB)\n"
        "host,sqrt_01,0,0,31,32,2343.78125\nhost,add_02,0,0,32,4294967295,0.5\n", d, &rc);
    CHECK_INT(rc, 0);
    CHECK_INT(m->nstatics, 2);
    CHECK_INT(memory_static_total(m), 2400032 + 512);
    if (m->nstatics == 2) {
        CHECK_STR(memory_str(m, m->statics[0].name), "sqrt_01");
        CHECK_INT(m->statics[1].node_end, 4294967295LL);
    }
    memory_free(m);
    diag_free(d);
}

TEST(memory_bad_input_named)
{
    struct diag *d = diag_new();
    int rc;
    struct memory *m = read_buf("memory_record.csv", "Component,Total Reserved(MB)\nAPP,1\n", d, &rc);
    CHECK_INT(rc, -1);
    CHECK(test_diag_has(d, "memory_record.csv", "Timestamp"));
    memory_free(m);
    m = read_buf("operator_memory.csv", "", d, &rc);
    CHECK_INT(rc, -1);
    CHECK(test_diag_has(d, "operator_memory.csv", "empty"));
    memory_free(m);
    m = read_buf("memory_record.csv", "Component,Timestamp(us),Total Allocated(MB)\nPTA,1,x1\nPTA,2,3\nPTA\n", d, &rc);
    CHECK_INT(rc, 0);
    CHECK(test_diag_has(d, "line 2", "not a number"));
    const struct mem_series *s = series(m, "PTA", MF_RECORD);
    CHECK(s && s->rows == 3 && s->peak[MK_ALLOCATED] == 3 << 20);
    memory_free(m);
    m = read_buf("weird.csv", "a,b\n1,2\n", d, &rc);
    CHECK_INT(rc, -1);
    CHECK(test_diag_has(d, "weird.csv", "not a memory file"));
    memory_free(m);
    /* the kind comes from the header when the name says nothing */
    m = read_buf("renamed.csv", "Name,Size(KB),Allocation Time(us),Duration(us)\nop,1,2,3\n", d, &rc);
    CHECK_INT(rc, 0);
    CHECK_INT(m->nops, 1);
    if (m->nops) {   /* no release column: allocation + Duration ends it */
        CHECK(mem_op_alive_at(&m->ops[0], 4999));
        CHECK(!mem_op_alive_at(&m->ops[0], 5000));
    }
    memory_free(m);
    diag_free(d);
}

TEST(memory_curve_bounded_peak_exact)
{
    struct memory *m = memory_new();
    size_t s = memory_series(m, "PTA", 3, MF_RECORD);
    const uint64_t n = 5 * MEM_CURVE_MAX + 123;
    for (uint64_t i = 0; i < n; i++) {
        int64_t v[MK_COUNT] = { (int64_t)((i * 7919) % 100003), MEM_NONE, MEM_NONE };
        if (i == 200001)
            v[0] = 5000000;
        memory_add_point(m, s, (ns_t)i * 1000, v);
    }
    memory_finish(m);
    const struct mem_series *ps = &m->series[s];
    CHECK(ps->npts <= MEM_CURVE_MAX);
    CHECK_INT(ps->rows, n);
    CHECK_INT(ps->peak[MK_ALLOCATED], 5000000);
    CHECK_INT(ps->peak_t[MK_ALLOCATED], 200001000);
    CHECK_INT(ps->stride, 8);
    /* every row is in exactly one point: the points' rows add up, and the peak is on the curve */
    uint64_t rows = (ps->npts - 1) * ps->stride + ps->in_last;
    CHECK_INT(rows, n);
    int64_t best = 0;
    for (size_t i = 0; i < ps->npts; i++)
        if (ps->pts[i].v[0] > best)
            best = ps->pts[i].v[0];
    CHECK_INT(best, 5000000);
    size_t at = mem_series_at(ps, 200001000);
    CHECK(at != SIZE_MAX && ps->pts[at].v[0] == 5000000);
    CHECK(mem_series_at(ps, -1) == SIZE_MAX);
    CHECK(memory_bytes(m) < 4u << 20);
    memory_free(m);
}

static void exec_sql(sqlite3 *db, const char *sql)
{
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
        test_fail(__FILE__, __LINE__, "sql: %s", err ? err : "?");
    sqlite3_free(err);
}

TEST(memory_db_tables)
{
    char path[] = "/tmp/aptop_memdb_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    exec_sql(db,
        "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT);"
        "INSERT INTO STRING_IDS VALUES (1,'PTA'),(2,'GE'),(3,'aten::mm'),(4,'app'),(5,'allocate'),(6,'release'),(7,'opx');"
        "CREATE TABLE MEMORY_RECORD (component INTEGER, timestamp INTEGER, totalAllocated INTEGER, totalReserved INTEGER,"
        " totalActive INTEGER, streamPtr INTEGER, deviceId INTEGER);"
        "INSERT INTO MEMORY_RECORD VALUES (1,1000,5242880,10485760,5242880,77,0),(1,2000,7340032,10485760,6291456,77,0),"
        "(2,1500,1048576,2097152,0,NULL,0);"
        "CREATE TABLE OP_MEMORY (name INTEGER, size INTEGER, allocationTime INTEGER, releaseTime INTEGER,"
        " activeReleaseTime INTEGER, duration INTEGER, activeDuration INTEGER, allocationTotalAllocated INTEGER,"
        " allocationTotalReserved INTEGER, allocationTotalActive INTEGER, releaseTotalAllocated INTEGER,"
        " releaseTotalReserved INTEGER, releaseTotalActive INTEGER, streamPtr INTEGER, deviceId INTEGER);"
        "INSERT INTO OP_MEMORY VALUES (3,2048,1000,3000,2900,2000,1900,1,2,3,4,5,6,77,0),"
        "(3,512,1100,NULL,NULL,NULL,NULL,1,2,3,NULL,NULL,NULL,77,0);"
        "CREATE TABLE NPU_OP_MEM (operatorName INTEGER,addr INTEGER,type INTEGER,size INTEGER,timestampNs INTEGER,"
        " globalTid INTEGER,totalAllocate NUMERIC,totalReserve NUMERIC,component INTEGER,deviceId INTEGER);"
        "INSERT INTO NPU_OP_MEM VALUES (7,99,5,4096,1200,1,4096,8192,2,0),(7,99,6,4096,1700,1,0,8192,2,0);"
        "CREATE TABLE NPU_MEM (type INTEGER,ddr NUMERIC,hbm NUMERIC,timestampNs INTEGER,deviceId INTEGER);"
        "INSERT INTO NPU_MEM VALUES (4,0,2212081664,900,0);"
        "CREATE TABLE ENUM_MODULE (id INTEGER PRIMARY KEY, name TEXT);"
        "INSERT INTO ENUM_MODULE VALUES (3,'HCCL');"
        "CREATE TABLE NPU_MODULE_MEM (moduleId INTEGER,timestampNs INTEGER,totalReserved NUMERIC,deviceId INTEGER);"
        "INSERT INTO NPU_MODULE_MEM VALUES (3,800,423690240,0),(9,800,5,0);");
    sqlite3_close(db);
    struct diag *d = diag_new();
    struct memory *m = memory_new();
    CHECK_INT(memory_read_db(path, m, d), 5);
    memory_finish(m);
    const struct mem_series *pta = series(m, "PTA", MF_RECORD), *ge = series(m, "GE", MF_RECORD),
                            *app = series(m, "APP", MF_RECORD), *hccl = series(m, "HCCL", MF_MODULE),
                            *nine = series(m, "9", MF_MODULE), *napp = series(m, "app", MF_NPU_MEM);
    CHECK(pta && ge && app && hccl && nine && napp);
    if (pta && ge && app && hccl) {
        CHECK_INT(pta->peak[MK_ALLOCATED], 7340032);
        CHECK_INT(pta->peak_t[MK_ALLOCATED], 2000);
        CHECK(ge->peak[MK_ACTIVE] == MEM_NONE);       /* 0 without a stream: no active figure */
        CHECK_INT(app->peak[MK_RESERVED], 2212081664LL);
        CHECK_INT(hccl->peak[MK_RESERVED], 423690240);
    }
    CHECK_INT(m->nops, 3);
    if (m->nops == 3) {
        CHECK_INT(m->ops[0].size, 2048);
        CHECK_INT(mem_op_lifetime(&m->ops[0]), 2000);
        CHECK(m->ops[1].release == NS_NONE);
        CHECK_STR(memory_str(m, m->ops[2].name), "opx");
        CHECK_STR(memory_str(m, m->ops[2].component), "GE");
        CHECK_INT(m->ops[2].alloc, 1200);
        CHECK_INT(m->ops[2].release, 1700);
        CHECK_INT(mem_op_lifetime(&m->ops[2]), 500);
    }
    memory_free(m);
    diag_free(d);
    remove(path);
}

TEST(memory_db_missing_tables)
{
    char path[] = "/tmp/aptop_memdb2_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    exec_sql(db, "CREATE TABLE MEMORY_RECORD (component INTEGER, timestamp INTEGER);"
                 "CREATE TABLE OTHER (x INTEGER);");
    sqlite3_close(db);
    struct diag *d = diag_new();
    struct memory *m = memory_new();
    CHECK_INT(memory_read_db(path, m, d), 0);
    CHECK(test_diag_has(d, "MEMORY_RECORD", "left out"));
    memory_free(m);
    diag_free(d);
    remove(path);
}

static struct memory *read_real(const char *path, bool db)
{
    struct diag *d = diag_new();
    struct memory *m = memory_new();
    if (db)
        memory_read_db(path, m, d);
    else
        memory_read_csv(path, m, d, NULL);
    memory_finish(m);
    diag_free(d);
    return m;
}

/* The text and DB trees are two runs of the same job: their PTA, PTA+GE, GE and APP peaks and
 * module peaks are the same figures once the units are converted (MB text, bytes DB). */
TEST(memory_real_text_and_db_agree)
{
    REAL_OR_SKIP(base, "Ascend-msinsight/test/data/pytorch");
    char tp[1024], mp[1024], dp[1024];
    snprintf(tp, sizeof tp, "%s/text/level0/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/memory_record.csv", base);
    snprintf(mp, sizeof mp, "%s/text/level0/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/npu_module_mem.csv", base);
    snprintf(dp, sizeof dp, "%s/db/level0/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db", base);
    struct memory *t = read_real(tp, false), *db = read_real(dp, true);
    struct diag *d = diag_new();
    memory_read_csv(mp, t, d, NULL);
    memory_finish(t);
    diag_free(d);
    static const char *const comps[] = { "PTA", "PTA+GE", "GE" };
    for (size_t i = 0; i < 3; i++) {
        const struct mem_series *a = series(t, comps[i], MF_RECORD), *b = series(db, comps[i], MF_RECORD);
        CHECK(a && b);
        if (a && b) {
            CHECK_INT(a->rows, b->rows);
            for (int k = 0; k < MK_COUNT; k++)
                CHECK_INT(a->peak[k], b->peak[k]);
        }
    }
    const struct mem_series *a = series(t, "APP", MF_RECORD), *b = series(db, "APP", MF_RECORD);
    CHECK(a && b && a->rows == b->rows);
    a = series(t, "HCCL", MF_MODULE);
    b = series(db, "HCCL", MF_MODULE);
    CHECK(a && b && a->peak[MK_RESERVED] == b->peak[MK_RESERVED] && a->rows == b->rows);
    memory_free(t);
    memory_free(db);
}

TEST(memory_real_e_notation_and_tabs)
{
    REAL_OR_SKIP(dir, "Ascend-msinsight/server/src/test/test_data/test_rank_1/ASCEND_PROFILER_OUTPUT");
    char p[1024];
    snprintf(p, sizeof p, "%s/memory_record.csv", dir);
    struct memory *m = read_real(p, false);
    CHECK(m->approx_cells == 30);
    const struct mem_series *app = series(m, "APP", MF_RECORD);
    CHECK(app && app->t_first == 1695120000000000000LL && app->peak[MK_RESERVED] == 11272585216LL);
    snprintf(p, sizeof p, "%s/operator_memory.csv", dir);
    struct diag *d = diag_new();
    CHECK_INT(memory_read_csv(p, m, d, NULL), 0);
    CHECK_INT(m->nops, 21);
    if (m->nops)
        CHECK_INT(m->ops[0].alloc, 1706704429088523015LL);   /* "1706704429088523.015\t" */
    memory_free(m);
    diag_free(d);
}

TEST(memory_shift_moves_times_not_durations)
{
    struct diag *d = diag_new();
    int rc;
    struct memory *m = memory_new();
    const char *rec = "Component,Timestamp(us),Total Allocated(MB)\nPTA,10,1\nPTA,20,2\n";
    const char *ops = "Name,Size(KB),Allocation Time(us),Release Time(us),Duration(us)\nop,1,10,,5\n";
    CHECK_INT(memory_read_csv_buffer(rec, strlen(rec), "memory_record.csv", m, d), 0);
    CHECK_INT(memory_read_csv_buffer(ops, strlen(ops), "operator_memory.csv", m, d), 0);
    memory_shift(m, 1000000);
    memory_finish(m);
    const struct mem_series *s = series(m, "PTA", MF_RECORD);
    CHECK(s && s->t_first == 1010000 && s->peak_t[MK_ALLOCATED] == 1020000 && s->pts[0].t == 1010000);
    CHECK_INT(m->ops[0].alloc, 1010000);
    CHECK(m->ops[0].release == NS_NONE);            /* empty stays empty */
    CHECK_INT(m->ops[0].duration, 5000);
    (void)rc;
    memory_free(m);
    diag_free(d);
}

TEST(memory_ops_top_rows_bounded)
{
    struct diag *d = diag_new();
    int rc;
    struct memory *m = read_buf("operator_memory.csv",
        "Name,Size(KB),Allocation Time(us),Release Time(us)\na,1,1,2\nb,4,1,2\nc,2,1,9\nd,,1,2\n", d, &rc);
    CHECK_INT(rc, 0);
    struct rowset *rs = memory_ops_top_rowset(m, 0, MO_SIZE, 2);
    CHECK(rs && rs->nrows == 2 && rs->caption && strstr(rs->caption, "the first 2 of 4"));
    if (rs && rs->nrows == 2) {
        CHECK_STR(strtab_get(rs->str, rowset_cell(rs, 0, rowset_find_col(rs, "name"))->s), "b");
        CHECK_STR(strtab_get(rs->str, rowset_cell(rs, 1, rowset_find_col(rs, "name"))->s), "c");
    }
    rowset_free(rs);
    rs = memory_ops_top_rowset(m, 0, MO_COST, 10);
    CHECK(rs && rs->nrows == 4 && !rs->caption);
    if (rs && rs->nrows == 4)   /* 2 KB x 8 µs beats 4 KB x 1 µs */
        CHECK_STR(strtab_get(rs->str, rowset_cell(rs, 0, rowset_find_col(rs, "name"))->s), "c");
    rowset_free(rs);
    memory_free(m);
    diag_free(d);
}

/* The peak's time is the earliest at which the peak is reached, whatever the row order; a row
 * without a time counts in the peak but gives it no time. */
TEST(memory_peak_time_is_the_earliest)
{
    struct memory *m = memory_new();
    size_t s = memory_series(m, "PTA", 3, MF_RECORD);
    int64_t top[MK_COUNT] = { 10, MEM_NONE, MEM_NONE }, low[MK_COUNT] = { 5, MEM_NONE, MEM_NONE };
    memory_add_point(m, s, 3000, top);
    memory_add_point(m, s, 2000, low);
    memory_add_point(m, s, NS_NONE, top);
    memory_add_point(m, s, 1000, top);
    memory_finish(m);
    CHECK_INT(m->series[s].peak[MK_ALLOCATED], 10);
    CHECK_INT(m->series[s].peak_t[MK_ALLOCATED], 1000);
    CHECK_INT(m->series[s].rows, 4);
    memory_free(m);
}

static struct memory *rank_memory(const char *comp, int64_t peak, const int64_t *sizes, size_t n)
{
    struct memory *m = memory_new();
    size_t s = memory_series(m, comp, strlen(comp), MF_RECORD);
    int64_t v[MK_COUNT] = { peak / 2, peak * 2, MEM_NONE }, p[MK_COUNT] = { peak, peak * 2, MEM_NONE };
    memory_add_point(m, s, 1000, v);
    memory_add_point(m, s, 2000, p);
    size_t g = memory_series(m, "GE", 2, MF_RECORD);   /* smaller: not the main curve */
    int64_t ge[MK_COUNT] = { 1, 2, MEM_NONE };
    memory_add_point(m, g, 1500, ge);
    for (size_t i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "op%zu", i);
        struct mem_op op = { .name = strtab_intern(m->str, name, strlen(name)), .size = sizes[i],
                             .alloc = 1000 + (ns_t)i, .release = NS_NONE, .active_release = NS_NONE,
                             .duration = NS_NONE, .active_duration = NS_NONE };
        memory_add_op(m, &op);
    }
    memory_finish(m);
    return m;
}

/* Every rank side by side: its main curve's peaks, the gap to the lowest rank, its largest
 * allocation; the caption names the highest rank and what was measured. */
TEST(memory_ranks_compared)
{
    static const int64_t s0[] = { 1024, MEM_NONE }, s1[] = { 2048, 8192, 4096 };
    struct rank_data ranks[3] = {
        { .rank = 0, .memory = rank_memory("PTA+GE", 3 << 20, s0, 2) },
        { .rank = 1, .memory = rank_memory("PTA+GE", 5 << 20, s1, 3) },
        { .rank = 2 },                                   /* no memory data: no row */
    };
    struct mem_static st = { .size = 1536 };
    memory_add_static(ranks[0].memory, &st);
    struct session s = { .ranks = ranks, .nranks = 3 };
    struct rowset *rs = memory_ranks_rowset(&s, -1);
    CHECK(rs != NULL);
    if (rs) {
        CHECK_INT(rs->nrows, 2);
        size_t c_comp = rowset_find_col(rs, "component"), c_peak = rowset_find_col(rs, "peak_allocated_mb"),
               c_above = rowset_find_col(rs, "above_lowest_allocated_mb"), c_at = rowset_find_col(rs, "peak_at_us"),
               c_n = rowset_find_col(rs, "op_allocations"), c_big = rowset_find_col(rs, "largest_allocation_kb"),
               c_name = rowset_find_col(rs, "largest_allocation"), c_st = rowset_find_col(rs, "static_kb");
        CHECK_STR(strtab_get(rs->str, rowset_cell(rs, 1, c_comp)->s), "PTA+GE");
        CHECK(rowset_cell(rs, 1, c_peak)->d == 5.0);
        CHECK(rowset_cell(rs, 0, c_above)->d == 0.0);
        CHECK(rowset_cell(rs, 1, c_above)->d == 2.0);
        CHECK_INT(rowset_cell(rs, 1, c_at)->i, 2000);
        CHECK_INT(rowset_cell(rs, 0, c_n)->i, 2);
        CHECK(rowset_cell(rs, 1, c_big)->d == 8.0);
        CHECK_STR(strtab_get(rs->str, rowset_cell(rs, 1, c_name)->s), "op1");
        CHECK(rowset_cell(rs, 0, c_st)->d == 1.5);
        CHECK(rowset_is_null(rs, 1, c_st));
        CHECK(rs->caption && strstr(rs->caption, "rank 1 has the highest allocated peak")
              && strstr(rs->caption, "2.000 MB above rank 0"));
        rowset_free(rs);
    }
    /* one rank selected: its row, no verdict */
    rs = memory_ranks_rowset(&s, 1);
    CHECK(rs && rs->nrows == 1 && !rs->caption);
    rowset_free(rs);
    CHECK(memory_ranks_rowset(&s, 2) == NULL);
    memory_free(ranks[0].memory);
    memory_free(ranks[1].memory);
}
