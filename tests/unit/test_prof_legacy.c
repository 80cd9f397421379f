/* The older msprof layout (PROF_x/device_N/timeline and summary, per-iteration files, component
 * timelines beside their merge, the Step Trace lane, clock files) and discovery around it
 * (a capture root levels above its ranks, loose files, an unrelated capture): every figure
 * aptop reports is compared with tests/unit/prof_legacy_truth.py, which reads the component
 * files aptop skips, so a double count or a lost file shows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runner.h"
#include "helpers.h"
#include "io/discovery/capture.h"
#include "io/load/loader.h"
#include "model/rowsets/rowset.h"
#include "model/analysis/steps.h"
#include "report/report.h"

#define ROOT "fixtures/prof_legacy"
#define RUN ROOT "/site/cluster/node-a/2026-01-19/run1"

struct loaded { struct diag *d; struct capture c; struct session *s; };

static bool generated(void)
{
    char *e = test_read_file(ROOT "/EXPECTED.json", NULL);
    free(e);
    return e != NULL;
}

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

static size_t col(const struct rowset *rs, const char *key)
{
    size_t c = rowset_find_col(rs, key);
    if (c == SIZE_MAX)
        test_fail(__FILE__, __LINE__, "no column %s in %s", key, rs->name);
    return c;
}

/* Row of rowset rs whose rank is rank and whose column key holds text s, or SIZE_MAX. */
static size_t find_row(const struct rowset *rs, int rank, const char *key, const char *s)
{
    size_t cr = rowset_find_col(rs, "rank"), ck = col(rs, key);
    for (size_t r = 0; r < rs->nrows; r++) {
        char buf[256];
        if (cr != SIZE_MAX && rowset_cell(rs, r, cr)->i != rank)
            continue;
        if (!strcmp(rowset_format(rs, r, ck, buf, sizeof buf), s))
            return r;
    }
    return SIZE_MAX;
}

static const struct rank_data *rank_of(const struct session *s, int rank)
{
    for (size_t i = 0; i < s->nranks; i++)
        if (s->ranks[i].rank == rank)
            return &s->ranks[i];
    return NULL;
}

static uint64_t device_kernels(const struct model *m, const char *name, ns_t *total)
{
    size_t n = 0;
    struct agg_row *a = model_aggregate(m, NULL, 0, LANE_DEVICE, INT64_MIN, INT64_MAX, &n);
    uint64_t count = 0;
    *total = 0;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(model_str(m, a[i].name), name)) {
            count = a[i].count;
            *total = a[i].total;
        }
    free(a);
    return count;
}

TEST(prof_legacy_figures_match_python)
{
    if (!generated())
        SKIP("fixtures not generated (make fixtures)");
    int st;
    char *truth = test_run("python3 tests/unit/prof_legacy_truth.py " RUN, &st);
    CHECK_INT(st, 0);
    if (!truth)
        return;
    struct loaded l;
    CHECK_INT(load(ROOT, &l), 0);      /* the root is five levels above the ranks */
    CHECK_INT(l.s->nranks, 2);
    struct report_opts o = { .rank = -1 };
    struct rowset *sum = report_summary(l.s, &o), *kern = report_kernels(l.s, &o), *flows = report_flows(l.s, &o);
    CHECK(sum && kern && flows);
    if (!sum || !kern || !flows)
        goto out;
    size_t nR = 0, nD = 0, nK = 0, nS = 0, nF = 0, nC = 0;
    for (char *save = NULL, *line = strtok_r(truth, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char name[256];
        int rank, dev;
        long long a, b, c, e, f;
        if (sscanf(line, "R %d %d %255s", &rank, &dev, name) == 3) {
            const struct rank_data *rd = rank_of(l.s, rank);
            CHECK(rd != NULL);
            if (rd)
                CHECK_INT(rd->device, dev);
            nR++;
        } else if (sscanf(line, "D %d %255s %lld %lld", &rank, name, &a, &b) == 4) {
            /* the device lane: each kernel once, from the merged timelines only */
            const struct rank_data *rd = rank_of(l.s, rank);
            CHECK(rd && rd->model);
            if (rd && rd->model) {
                ns_t total;
                CHECK_INT(device_kernels(rd->model, name, &total), a);
                CHECK_INT(total, b);
            }
            nD++;
        } else if (sscanf(line, "K %d %255s %lld %lld", &rank, name, &a, &b) == 4) {
            /* the kernel table: every per-iteration op_summary part, once */
            size_t r = find_row(kern, rank, "name", name);
            CHECK(r != SIZE_MAX);
            if (r != SIZE_MAX) {
                CHECK_INT(rowset_cell(kern, r, col(kern, "count"))->i, a);
                CHECK_INT(rowset_cell(kern, r, col(kern, "total_us"))->i, b);
            }
            nK++;
        } else if (sscanf(line, "S %d %lld %lld %lld %lld %lld", &rank, &a, &b, &c, &e, &f) == 6) {
            /* steps from the Step Trace lane; the lane is neither a kernel nor busy time */
            const struct rank_data *rd = rank_of(l.s, rank);
            CHECK(rd && rd->steps);
            if (!rd || !rd->steps)
                continue;
            CHECK_INT(rd->steps->source, STEP_SRC_STEP_TRACE);
            const struct step *sp = NULL;
            for (size_t i = 0; i < steps_count(rd->steps); i++)
                if (steps_get(rd->steps, i)->index == a)
                    sp = steps_get(rd->steps, i);
            CHECK(sp != NULL);
            if (sp) {
                CHECK_INT(sp->start, b);
                CHECK_INT(sp->end, c);
                CHECK_INT(sp->kernels, e);
                CHECK_INT(sp->busy, f);
            }
            nS++;
        } else if (sscanf(line, "F %d|%255[^|]|%lld", &rank, name, &a) == 3) {
            size_t r = find_row(flows, rank, "category", name);
            CHECK(r != SIZE_MAX);
            if (r != SIZE_MAX)
                CHECK_INT(rowset_cell(flows, r, col(flows, "matched"))->i, a);
            nF++;
        } else if (sscanf(line, "C %d %lld", &rank, &a) == 2) {
            /* the clock files map rank 1's monotonic times to the wall clock */
            const struct rank_data *rd = rank_of(l.s, rank);
            if (rank == 1)
                CHECK(a != 0);
            if (rd && rd->model && a)
                CHECK(test_diag_has(l.d, "monotonic clock: mapped to its wall clock", "start_info.1"));
            nC++;
        } else if (sscanf(line, "N %lld", &a) == 1) {
            CHECK_INT(rowset_cell(sum, 0, col(sum, "files"))->i, a);
        } else if (sscanf(line, "X %lld", &a) == 1) {
            CHECK_INT(rowset_cell(sum, 0, col(sum, "slices"))->i, a);
        }
    }
    CHECK_INT(nR, 2);
    CHECK(nD >= 12 && nK >= 14 && nF == 4);
    CHECK_INT(nS, 6);
    CHECK_INT(nC, 2);
out:
    rowset_free(sum);
    rowset_free(kern);
    rowset_free(flows);
    free(truth);
    unload(&l);
}

/* Discovery: the component timelines are listed as skipped (named by their merge), the
 * unrelated capture is another group, not a third rank, and every artifact not read is named. */
TEST(prof_legacy_discovery_says_what_it_skipped)
{
    if (!generated())
        SKIP("fixtures not generated (make fixtures)");
    struct loaded l;
    CHECK_INT(load(ROOT, &l), 0);
    CHECK_INT(l.c.nranks, 2);
    CHECK_INT(l.c.ngroups, 2);
    CHECK_INT(l.c.nother, 1);
    if (l.c.nother)
        CHECK(strstr(l.c.other[0].group, "other_job") != NULL);
    size_t skipped = 0, merges = 0;
    for (size_t i = 0; i < l.c.nranks; i++) {
        const struct capture_rank *r = &l.c.ranks[i];
        CHECK_INT(r->rank, (int)i);
        CHECK_INT(r->device, (int)i);
        CHECK(strstr(r->group, "run1") != NULL);
        for (size_t k = 0; k < r->nfiles; k++) {
            const struct capture_file *f = &r->files[k];
            const char *b = strrchr(f->path, '/') + 1;
            if (f->kind != FK_TRACE_JSON)
                continue;
            if (!strncmp(b, "msprof_", 7)) {
                merges++;
                CHECK(f->skipped == NULL);
            } else {
                skipped++;
                CHECK(f->skipped && strstr(f->skipped, "merged into "));
                /* a component of iteration 2 names the merge of iteration 2 */
                if (strstr(b, "_1_2.json"))
                    CHECK(strstr(f->skipped, "_1_2.json") != NULL);
            }
        }
    }
    CHECK_INT(merges, 6);
    CHECK_INT(skipped, 14);   /* task_time and hccl per iteration, step_trace per device */
    bool readme = false, host = false, data = false;
    for (size_t i = 0; i < l.c.nskipped; i++) {
        readme |= strstr(l.c.skipped[i].path, "run1/README.txt") && strstr(l.c.skipped[i].why, "text");
        host |= strstr(l.c.skipped[i].path, "/host") && strstr(l.c.skipped[i].why, "raw");
        data |= strstr(l.c.skipped[i].path, "device_0/data") != NULL;
    }
    CHECK(readme && host && data);
    CHECK(test_diag_has(l.d, "2 unrelated captures", "other_job") || test_diag_has(l.d, "2 unrelated captures", NULL));
    char *out = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&out, &len);
    capture_print(&l.c, fp);
    fclose(fp);
    CHECK(strstr(out, "[skipped: merged into msprof_0_1_3.json") != NULL);
    CHECK(strstr(out, "other capture (not loaded; open it on its own)") != NULL);
    CHECK(strstr(out, "topology.json  [") != NULL);
    free(out);
    unload(&l);
    /* opened on its own, the other capture is one rank */
    CHECK_INT(load(ROOT "/site/other_job", &l), 0);
    CHECK_INT(l.c.nranks, 1);
    CHECK_INT(l.c.ngroups, 1);
    unload(&l);
}
