/* A MindSpore profiler folder (fixtures/prof_ms, tools/gen_prof_fixtures.py, and the real one
 * under ../shared/real/mindspore-mindinsight): msprof's per-device timelines with the step
 * trace as a thread of the device process and the HCCL process's ops and tasks, beside
 * MindSpore's own analysed files (display timelines on two clocks, tables aptop does not
 * read). The figures are recomputed by tests/checks/prof_tree_check.py. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runner.h"
#include "helpers.h"
#include "io/discovery/capture.h"

#define FIX "fixtures/prof_ms"
#define PROF_A FIX "/profiler/PROF_000001_20230818142704322_AAAABBBBCCCCDDDD"
#define REAL_MS "mindspore-mindinsight/tests/utils/resource/profiler"

static bool generated(void)
{
    char *e = test_read_file(FIX "/EXPECTED.json", NULL);
    free(e);
    return e != NULL;
}

static cJSON *report_json(const char *sections, const char *path)
{
    int st;
    char *out = test_aptop(&st, "report --no-cache --format json --section %s '%s' 2>/dev/null", sections, path);
    cJSON *j = cJSON_Parse(out);
    free(out);
    CHECK_INT(st, 0);
    CHECK(j != NULL);
    return j;
}

static const char *str_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static double num_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* The Step Trace thread's slices are no kernels; its Iterations give the steps, each timed
 * by its kernels; the HCCL ops and their Plane 0 tasks give the comm section. */
TEST(prof_ms_step_trace_thread_gives_steps_not_kernels)
{
    if (!generated())
        SKIP("fixtures not generated (make fixtures)");
    cJSON *j = report_json("kernels,steps,comm", PROF_A);
    const cJSON *row;
    size_t memset_count = 0;
    cJSON_ArrayForEach(row, cJSON_GetObjectItem(j, "kernels")) {
        const char *n = str_of(row, "name");
        if (!strncmp(n, "Iteration", 9) || !strncmp(n, "FP_BP Time", 10) || !strncmp(n, "Reduce_", 7))
            test_fail(__FILE__, __LINE__, "step trace slice %s taken as a kernel", n);
        if (!strcmp(n, "Default/MemSet-op7"))
            memset_count = (size_t)num_of(row, "count");
    }
    CHECK_INT(memset_count, 3);
    const cJSON *steps = cJSON_GetObjectItem(j, "steps");
    CHECK_INT(cJSON_GetArraySize(steps), 3);
    int idx = 1;
    cJSON_ArrayForEach(row, steps) {
        CHECK_STR(str_of(row, "source"), "step_trace");
        CHECK_INT((int)num_of(row, "index"), idx++);
        /* four kernels and four HCCL tasks; the MemSet between two iterations is in none */
        CHECK_INT((int)num_of(row, "kernels"), 8);
        CHECK(num_of(row, "busy_share") < 1.0);
    }
    const cJSON *comm = cJSON_GetObjectItem(j, "comm");
    CHECK_INT(cJSON_GetArraySize(comm), 3);
    idx = 1;
    cJSON_ArrayForEach(row, comm) {
        char step[16];
        snprintf(step, sizeof step, "step%d", idx);
        CHECK_STR(str_of(row, "step"), step);
        CHECK_STR(str_of(row, "name"), "Default/AllReduce-op9_0");
        /* the planted Notify_Wait of iteration N: 2000 + 700 N ns */
        CHECK_NEAR(num_of(row, "wait_ms"), (2000 + 700 * idx) / 1e6, 1e-12);
        CHECK_NEAR(num_of(row, "transit_ms"), (5210 + 3330) / 1e6, 1e-12);
        idx++;
    }
    cJSON_Delete(j);
}

/* Discovery by content: the PROF_* pair is one capture of two ranks, never skipped as raw
 * data; the display files on two clocks are each a capture of their own; MindSpore's tables
 * are listed as not read. */
static void check_ms_folder(const char *root, const char *prof_folder)
{
    struct diag *d = diag_new();
    struct capture c;
    CHECK_INT(capture_discover(root, &c, d), 0);
    CHECK_INT(c.nranks, 2);
    CHECK_INT(c.ngroups, 3);
    for (size_t i = 0; i < c.nranks; i++) {
        CHECK_INT(c.ranks[i].rank, (int)i);
        CHECK_INT(c.ranks[i].device, (int)i);
        CHECK(strstr(c.ranks[i].dir, "/PROF_") != NULL);
    }
    for (size_t i = 0; i < c.nskipped; i++)
        if (strstr(c.skipped[i].why, "raw CANN data"))
            test_fail(__FILE__, __LINE__, "%s skipped: %s", c.skipped[i].path, c.skipped[i].why);
    bool ascend = false, gpu = false;
    for (size_t i = 0; i < c.nother; i++) {
        const char *g = c.other[i].group;
        ascend |= strstr(g, "/ascend_timeline_display_0.json") != NULL;
        gpu |= strstr(g, "/gpu_timeline_display_0.json") != NULL;
        for (size_t k = 0; k < c.other[i].nfiles; k++) {
            const struct capture_file *f = &c.other[i].files[k];
            if (strstr(f->path, "framework_raw_0.csv") || strstr(f->path, "step_trace_raw_0_detail_time.csv"))
                CHECK_INT(f->kind, FK_OTHER_CSV);
        }
    }
    CHECK(ascend && gpu);
    char *out = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&out, &len);
    capture_print(&c, fp);
    fclose(fp);
    char want[4200];
    snprintf(want, sizeof want, "capture %s  (shown;", prof_folder);
    CHECK(strstr(out, want) != NULL);
    snprintf(want, sizeof want, "other capture (not loaded; open it on its own): %s/gpu_timeline_display_0.json\n",
             prof_folder);
    CHECK(strstr(out, want) != NULL);
    snprintf(want, sizeof want, "other capture (not loaded; open it on its own): %s/ascend_timeline_display_0.json\n",
             prof_folder);
    CHECK(strstr(out, want) != NULL);
    size_t dirs = 0;
    for (const char *p = out; (p = strstr(p, "\n  dir ")) != NULL; p++)
        dirs++;
    for (const char *p = out; (p = strstr(p, "\n    dir ")) != NULL; p++)
        dirs++;
    CHECK_INT(dirs, 4);   /* one per rank: the two shown, the two others */
    free(out);
    capture_free(&c);
    diag_free(d);
}

TEST(prof_ms_discovery_by_content)
{
    if (!generated())
        SKIP("fixtures not generated (make fixtures)");
    check_ms_folder(FIX, FIX "/profiler");
    /* each display file on its own: one timeline on one clock, not fifty years long */
    const char *files[] = { FIX "/profiler/ascend_timeline_display_0.json", FIX "/profiler/gpu_timeline_display_0.json" };
    for (size_t i = 0; i < 2; i++) {
        cJSON *j = report_json("summary", files[i]);
        double span = num_of(cJSON_GetObjectItem(j, "summary"), "span_us");
        CHECK(span > 0 && span < 10e6);
        cJSON_Delete(j);
    }
}

TEST(prof_ms_real_folder)
{
    REAL_OR_SKIP(top, "mindspore-mindinsight");
    const char *prof = test_real(REAL_MS);
    check_ms_folder(top, prof);
    SKIP_CHECK_OF_NATIVE_APTOP();
    int st = 0;
    char *out = test_check("prof_tree", &st);
    if (st != 0)
        test_fail(__FILE__, __LINE__, "prof_tree_check: %s", out ? out : "(no output)");
    CHECK(out && strstr(out, "steps and communication ops equal the timelines"));
    free(out);
}
