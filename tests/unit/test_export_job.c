/* The window export off the caller's thread (io/export/export_job.h): a finished job wrote
 * the very bytes export_window_write_model writes on the caller's thread, wakes its pipe
 * once and says how many events; a job freed while it runs is cancelled and leaves no file;
 * a window the model cannot write is an error and no file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "io/export/export_job.h"

#include "../runner.h"

#define US 1000

/* A model of n slices of 1 µs on one device lane, back to back from 0. */
static struct model *slices_model(uint32_t n)
{
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t dev = test_lane(m, "2", "Ascend Hardware", "3");
    for (uint32_t i = 0; i < n; i++)
        test_slice(m, dev, (ns_t)i * US, US, i % 2 ? "MatMulV2" : "Add");
    model_finalize(m);
    return m;
}

static char *slurp(const char *path)
{
    return test_read_file(path, NULL);
}

TEST(export_job_writes_what_the_writer_writes)
{
    struct model *m = slices_model(100);
    struct export_window w = { .start = 10 * US, .end = 20 * US, .text = "10us..20us" };
    char sync_path[64], job_path[64];
    snprintf(sync_path, sizeof sync_path, "/tmp/aptop-export-job-%d-a.json", (int)getpid());
    snprintf(job_path, sizeof job_path, "/tmp/aptop-export-job-%d-b.json", (int)getpid());
    FILE *f = fopen(sync_path, "w");
    char err[256];
    long want = export_window_write_model(m, 3, 0, &w, f, err, sizeof err);
    fclose(f);
    CHECK(want > 10);
    int p[2];
    CHECK(pipe(p) == 0);
    struct export_job *j = export_job_start(m, 3, 0, &w, fopen(job_path, "w"), job_path, p[1]);
    CHECK(j != NULL);
    char b;
    CHECK(read(p[0], &b, 1) == 1);   /* the wake-up byte */
    CHECK(export_job_done(j));
    const char *path, *e;
    CHECK_INT(export_job_result(j, &path, &e), want);
    CHECK_STR(path, job_path);
    export_job_free(j);
    CHECK_INT(export_job_pending(), 0);
    char *a = slurp(sync_path), *bb = slurp(job_path);
    CHECK(a && bb && !strcmp(a, bb));
    CHECK(bb && strstr(bb, "\"window\":\"10us..20us\",\"rank\":3") != NULL);
    free(a), free(bb);
    unlink(sync_path), unlink(job_path);
    close(p[0]), close(p[1]);
    model_free(m);
}

TEST(export_job_cancelled_or_failed_leaves_no_file)
{
    struct model *m = slices_model(200000);   /* long enough to be cancelled midway */
    struct export_window w = { .start = 0, .end = 1000000 * (ns_t)US, .text = "all" };
    char path[64];
    snprintf(path, sizeof path, "/tmp/aptop-export-job-%d-c.json", (int)getpid());
    struct export_job *j = export_job_start(m, 0, 0, &w, fopen(path, "w"), path, -1);
    CHECK(j != NULL);
    export_job_free(j);   /* at once: cancelled (or, on a fast machine, already whole) */
    CHECK_INT(export_job_pending(), 0);
    if (access(path, F_OK) == 0) {   /* it finished first: whole, then */
        char *t = slurp(path);
        CHECK(t && strstr(t, "\"otherData\"") != NULL);
        free(t);
        unlink(path);
    }
    /* a model with no timeline: an error, no file */
    struct model *empty = model_new(TIME_LOCAL_US);
    j = export_job_start(empty, 0, 0, &w, fopen(path, "w"), path, -1);
    while (j && !export_job_done(j))
        usleep(1000);
    const char *p, *e;
    CHECK(j && export_job_result(j, &p, &e) < 0 && strstr(e, "no timeline"));
    CHECK(access(path, F_OK) != 0);
    export_job_free(j);
    model_free(empty);
    model_free(m);
}
