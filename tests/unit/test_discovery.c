/* Discovery and loading cases around the older layout: SQLite files found by their tables
 * whatever their name (analysis.db on its own, a renamed .dat), the rank's device from the
 * kernel table, Device_id "host" kept as text, a component timeline read when its merge is
 * broken, and the diagnostics section listing every message whole. Figures are checked
 * against SQL run here or against the files written here. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../runner.h"
#include "helpers.h"
#include "io/discovery/capture.h"
#include "io/load/loader.h"
#include "model/rowsets/rowset.h"
#include "model/index/table.h"
#include "report/report.h"

struct loaded { struct diag *d; struct capture c; struct session *s; };

static int load(const char *path, struct loaded *l)
{
    l->d = diag_new();
    int rc = capture_discover(path, &l->c, l->d);
    l->s = session_new(&l->c, l->d);
    struct loader_opts o = { .rank = -1 };
    loader_run_sync(&l->c, l->s, &o);
    return rc;
}

static void unload(struct loaded *l)
{
    session_free(l->s);
    capture_free(&l->c);
    diag_free(l->d);
}

static char *mktmp(void)
{
    static char t[64];
    snprintf(t, sizeof t, "/tmp/aptop_disc_XXXXXX");
    return mkdtemp(t);
}

static void put(const char *dir, const char *rel, const char *data)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    for (char *s = p + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
        *s = 0;
        mkdir(p, 0755);
        *s = '/';
    }
    FILE *f = fopen(p, "wb");
    if (!f) {
        test_fail(__FILE__, __LINE__, "cannot write %s", p);
        return;
    }
    fputs(data, f);
    fclose(f);
}

static void rmtree(const char *dir)
{
    char cmd[512];
    int st;
    if (strncmp(dir, "/tmp/aptop_disc_", 16))
        return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    free(test_run(cmd, &st));
}

static int64_t sql_count(const char *path, const char *table)
{
    sqlite3 *db = NULL;
    char uri[4200], q[256];
    snprintf(uri, sizeof uri, "file:%s?mode=ro&immutable=1", path);
    if (sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        return -1;
    }
    snprintf(q, sizeof q, "SELECT count(*) FROM %s", table);
    sqlite3_stmt *st = NULL;
    int64_t n = -1;
    if (sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

/* analysis.db alone, and the same bytes renamed: both are found by their tables and give the
 * StepTraceTime rows SQL counts. */
TEST(discovery_analysis_db_alone_and_renamed)
{
    REAL_OR_SKIP(adb, "Ascend-msinsight/test/data/pytorch/db/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db");
    int64_t rows = sql_count(adb, "StepTraceTime");
    CHECK(rows > 0);
    struct loaded l;
    CHECK_INT(load(adb, &l), 0);
    CHECK_INT(l.s->nranks, 1);
    if (l.s->nranks) {
        const struct table *t = l.s->ranks[0].tables[TK_STEP_TRACE];
        CHECK(t != NULL);
        if (t)
            CHECK_INT(t->nrows, rows);
        CHECK(l.s->ranks[0].comm != NULL);
        CHECK_INT(l.s->ranks[0].files_read, 1);
    }
    unload(&l);
    char *t = mktmp();
    char cmd[8192], dst[512];
    int st;
    snprintf(dst, sizeof dst, "%s/export_0001.dat", t);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", adb, dst);
    free(test_run(cmd, &st));
    CHECK_INT(load(t, &l), 0);
    CHECK_INT(l.c.nranks, 1);
    if (l.c.nranks && l.c.ranks[0].nfiles)
        CHECK_INT(l.c.ranks[0].files[0].kind, FK_DB_ANALYSIS);
    if (l.s->nranks && l.s->ranks[0].tables[TK_STEP_TRACE])
        CHECK_INT(l.s->ranks[0].tables[TK_STEP_TRACE]->nrows, rows);
    unload(&l);
    rmtree(t);
}

/* Device_id "host" rows stay "host" (never null); a rank's device is the one Device_id of
 * its kernel table when nothing else says. */
TEST(discovery_device_from_table_and_host_text)
{
    char *t = mktmp();
    put(t, "job/node_rank3/ASCEND_PROFILER_OUTPUT/kernel_details.csv",
        "Device_id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n"
        "3,MatMulV2,MatMulV2,AI_CORE,100.000,2.500\n3,RmsNorm,RmsNorm,AI_VECTOR_CORE,103.000,1.250\n");
    put(t, "job/node_rank3/ASCEND_PROFILER_OUTPUT/api_statistic.csv",
        "Device_id,Level,API Name,Time(us),Count,Avg(us),Min(us),Max(us),Variance\n"
        "host,acl,aclrtSynchronizeStream,12.5,2,6.25,5,7.5,1.5\n3,runtime,rtKernelLaunch,4.0,4,1,1,1,0\n");
    struct loaded l;
    char p[4096];
    snprintf(p, sizeof p, "%s/job", t);
    CHECK_INT(load(p, &l), 0);
    CHECK_INT(l.s->nranks, 1);
    if (l.s->nranks) {
        CHECK_INT(l.s->ranks[0].rank, 3);
        CHECK_INT(l.s->ranks[0].device, 3);
    }
    struct report_opts o = { .rank = -1 };
    struct rowset *rs = report_apis(l.s, &o);
    CHECK(rs != NULL);
    if (rs) {
        size_t dc = rowset_find_col(rs, "device_id"), nc = rowset_find_col(rs, "name");
        CHECK(dc != SIZE_MAX && nc != SIZE_MAX);
        int hosts = 0;
        for (size_t r = 0; dc != SIZE_MAX && nc != SIZE_MAX && r < rs->nrows; r++) {
            char a[64], b[128];
            rowset_format(rs, r, nc, b, sizeof b);
            CHECK(!rowset_is_null(rs, r, dc));
            rowset_format(rs, r, dc, a, sizeof a);
            if (!strcmp(b, "aclrtSynchronizeStream")) {
                CHECK_STR(a, "host");
                hosts++;
            } else {
                CHECK_STR(a, "3");
            }
        }
        CHECK_INT(hosts, 1);
    }
    rowset_free(rs);
    unload(&l);
    rmtree(t);
}

/* A broken (0-byte) merge: its iteration's component timelines are read instead, the
 * others stay skipped, and the problem is named. */
TEST(discovery_component_read_when_its_merge_is_broken)
{
    char *t = mktmp();
    const char *hw = "[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":3,\"tid\":0,\"args\":{\"name\":\"Task Scheduler\"}},"
                     "{\"ph\":\"X\",\"name\":\"K%d\",\"pid\":3,\"tid\":5,\"ts\":\"%d.000\",\"dur\":2}]";
    char buf[512];
    snprintf(buf, sizeof buf, hw, 1, 100);
    put(t, "PROF_1_2_A/device_0/timeline/msprof_0_1_1.json", buf);
    put(t, "PROF_1_2_A/device_0/timeline/task_time_0_1_1.json", buf);
    put(t, "PROF_1_2_A/device_0/timeline/msprof_0_1_2.json", "");
    snprintf(buf, sizeof buf, hw, 2, 200);
    put(t, "PROF_1_2_A/device_0/timeline/task_time_0_1_2.json", buf);
    struct loaded l;
    CHECK_INT(load(t, &l), 0);
    CHECK_INT(l.c.nranks, 1);
    int read = 0, skipped = 0;
    for (size_t k = 0; l.c.nranks && k < l.c.ranks[0].nfiles; k++) {
        const struct capture_file *f = &l.c.ranks[0].files[k];
        read += capture_file_loadable(f);
        skipped += f->skipped != NULL;
        if (strstr(f->path, "task_time_0_1_2"))
            CHECK(f->skipped == NULL);
        if (strstr(f->path, "task_time_0_1_1"))
            CHECK(f->skipped != NULL);
    }
    CHECK_INT(read, 2);
    CHECK_INT(skipped, 1);
    CHECK(test_diag_has(l.d, "msprof_0_1_2.json", "0-byte"));
    CHECK(test_diag_has(l.d, "task_time_0_1_2.json", "its merge"));
    if (l.s->nranks && l.s->ranks[0].model)
        CHECK_INT(l.s->ranks[0].model->nslices, 2);   /* K1 once, K2 from the component */
    unload(&l);
    rmtree(t);
}

/* report --section diagnostics: one row per message, each whole however long, grouped by
 * file in path order (messages without a file first), in the order found within a file. */
TEST(discovery_diagnostics_section_whole)
{
    struct diag *d = diag_new();
    char longtext[3000];
    memset(longtext, 'x', sizeof longtext - 1);
    longtext[sizeof longtext - 1] = 0;
    diag_add(d, DIAG_WARN, "/some/file.json", "start %s end", longtext);
    diag_add(d, DIAG_INFO, "", "second");
    diag_add(d, DIAG_INFO, "/a/rank1/x.csv", "third");
    diag_add(d, DIAG_INFO, "/some/file.json", "fourth");
    diag_add(d, DIAG_INFO, "/a/rank1/x.csv", "fifth");
    struct session s = { .diag = d };
    struct report_opts o = { .rank = -1 };
    struct rowset *rs = report_diagnostics(&s, &o);
    CHECK(rs != NULL);
    if (rs) {
        CHECK_INT(rs->nrows, 5);
        size_t mc = rowset_find_col(rs, "message"), lc = rowset_find_col(rs, "level");
        CHECK(mc != SIZE_MAX && lc != SIZE_MAX);
        if (mc != SIZE_MAX && lc != SIZE_MAX && rs->nrows == 5) {
            const char *m = strtab_get(rs->str, rowset_cell(rs, 3, mc)->s);
            CHECK_INT(strlen(m), strlen(longtext) + 10);
            CHECK(!strncmp(m, "start ", 6) && !strcmp(m + strlen(m) - 4, " end"));
            CHECK_STR(strtab_get(rs->str, rowset_cell(rs, 3, lc)->s), "warning");
            const char *order[] = { "second", "third", "fifth", NULL, "fourth" };
            for (size_t r = 0; r < 5; r++)
                if (order[r])
                    CHECK_STR(strtab_get(rs->str, rowset_cell(rs, r, mc)->s), order[r]);
        }
    }
    rowset_free(rs);
    diag_free(d);
}

/* Roles in other layouts: an msprof_*.json beside trace_view.json repeats its device events
 * (skipped); the newer layout's step_trace_<ts>.json beside msprof_<ts>.json is merged into
 * it (skipped); an hccl_*.csv never becomes a kernel table. */
TEST(discovery_roles_in_other_layouts)
{
    char *t = mktmp();
    const char *tr = "[{\"ph\":\"X\",\"name\":\"K\",\"pid\":1,\"tid\":1,\"ts\":\"1.000\",\"dur\":1}]";
    put(t, "r_ascend_pt/profiler_info_0.json", "{\"rank_id\": 0}");
    put(t, "r_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", tr);
    put(t, "r_ascend_pt/ASCEND_PROFILER_OUTPUT/msprof_20260119.json", tr);
    struct loaded l;
    CHECK_INT(load(t, &l), 0);
    int skipped = 0;
    for (size_t k = 0; l.c.nranks && k < l.c.ranks[0].nfiles; k++) {
        const struct capture_file *f = &l.c.ranks[0].files[k];
        if (strstr(f->path, "msprof_20260119.json")) {
            CHECK(f->skipped && strstr(f->skipped, "trace_view.json"));
            skipped++;
        }
    }
    CHECK_INT(skipped, 1);
    if (l.s->nranks && l.s->ranks[0].model)
        CHECK_INT(l.s->ranks[0].model->nslices, 1);
    unload(&l);
    rmtree(t);

    t = mktmp();
    put(t, "PROF_1_2_B/mindstudio_profiler_output/msprof_20260119101500.json", tr);
    put(t, "PROF_1_2_B/mindstudio_profiler_output/step_trace_20260119101500.json", tr);
    put(t, "PROF_1_2_B/mindstudio_profiler_output/hccl_20260119101500.csv",
        "Op Name,OP Type,Task Type,Task Start Time(us),Task Duration(us)\nhcom_x,hcom,HCCL,1.0,2.0\n");
    CHECK_INT(load(t, &l), 0);
    for (size_t k = 0; l.c.nranks && k < l.c.ranks[0].nfiles; k++) {
        const struct capture_file *f = &l.c.ranks[0].files[k];
        if (strstr(f->path, "step_trace_2026"))
            CHECK(f->skipped && strstr(f->skipped, "msprof_20260119101500.json"));
        if (strstr(f->path, "hccl_"))
            CHECK(f->kind != FK_OP_SUMMARY && f->kind != FK_KERNEL_DETAILS);
    }
    if (l.s->nranks) {
        CHECK(l.s->ranks[0].tables[TK_KERNELS] == NULL);
        if (l.s->ranks[0].model)
            CHECK_INT(l.s->ranks[0].model->nslices, 1);
    }
    unload(&l);
    rmtree(t);
}

/* A merge that turns out unreadable when loaded (not JSON from its first byte): the
 * components of its iteration are read in its place, and said; the other iteration's
 * components stay skipped. */
TEST(discovery_components_stand_in_for_an_unreadable_merge)
{
    char *t = mktmp();
    const char *hw = "[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":3,\"tid\":0,\"args\":{\"name\":\"Task Scheduler\"}},"
                     "{\"ph\":\"X\",\"name\":\"K%d\",\"pid\":3,\"tid\":5,\"ts\":\"%d.000\",\"dur\":2}]";
    char buf[512];
    snprintf(buf, sizeof buf, hw, 1, 100);
    put(t, "PROF_1_2_C/device_0/timeline/msprof_0_1_1.json", buf);
    put(t, "PROF_1_2_C/device_0/timeline/task_time_0_1_1.json", buf);
    put(t, "PROF_1_2_C/device_0/timeline/msprof_0_1_2.json", "garbage, not a trace");
    snprintf(buf, sizeof buf, hw, 2, 200);
    put(t, "PROF_1_2_C/device_0/timeline/task_time_0_1_2.json", buf);
    struct loaded l;
    CHECK_INT(load(t, &l), 0);
    CHECK(test_diag_has(l.d, "task_time_0_1_2.json", "in place of its merge"));
    CHECK(!test_diag_has(l.d, "task_time_0_1_1.json", "in place of its merge"));
    if (l.s->nranks && l.s->ranks[0].model) {
        const struct model *m = l.s->ranks[0].model;
        CHECK_INT(m->nslices, 2);   /* K1 from its merge, K2 from its component */
        CHECK_INT(l.s->ranks[0].files_read, 2);
    }
    unload(&l);
    rmtree(t);
}
