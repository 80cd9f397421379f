/* Summaries folders (io/tables/summary_json.c): the report of each rank (or host), printed where its
 * capture is, read back from a folder gives the same cluster-wide sections as a direct load
 * of every rank, byte for byte; bad files are said and skipped. */
#include "../runner.h"
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/discovery/capture.h"
#include "io/load/loader.h"
#include "model/index/rank_digest.h"
#include "report/report.h"

#define SUMMARY_SECTIONS "capture,summary,overview,steps,phases,ranks,comm,rank_steps,comm_ends"
#define CLUSTER_SECTIONS "overview,steps,phases,ranks,comm,rank_steps,comm_ends"

struct loaded {
    struct diag *d;
    struct capture c;
    struct session *s;
};

static bool load(struct loaded *l, const char *path)
{
    memset(l, 0, sizeof *l);
    l->d = diag_new();
    if (capture_discover(path, &l->c, l->d) != 0)
        return false;
    l->s = session_new(&l->c, l->d);
    struct loader_opts o = { .prefer_db = false, .rank = -1, .cache = NULL };
    return l->s && loader_run_sync(&l->c, l->s, &o) > 0;
}

static void unload(struct loaded *l)
{
    session_free(l->s);
    capture_free(&l->c);
    diag_free(l->d);
}

/* The report of the capture at path (malloc'd), NULL when it did not load. */
static char *report_of(const char *path, const char *sections, enum rowset_format f)
{
    struct loaded l;
    char *buf = NULL;
    size_t len = 0;
    if (load(&l, path)) {
        FILE *out = open_memstream(&buf, &len);
        struct report_opts o = { .sections = sections, .format = f, .rank = -1 };
        if (out) {
            report_print(l.s, &o, out);
            fclose(out);
        }
    }
    unload(&l);
    return buf;
}

static bool write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    fputs(text, f);
    return fclose(f) == 0;
}

/* path's report written as a summary file into dir/name. */
static bool summarize(const char *path, const char *dir, const char *name)
{
    char *rep = report_of(path, SUMMARY_SECTIONS, FMT_JSON);
    char out[512];
    snprintf(out, sizeof out, "%s/%s", dir, name);
    bool ok = rep && write_text(out, rep);
    free(rep);
    return ok;
}

static char gen_dir[64];

/* A generated cluster capture of 64 ranks (tools/gen_cluster_fixtures.py), made once. */
static const char *generated(void)
{
    if (gen_dir[0])
        return gen_dir;
    snprintf(gen_dir, sizeof gen_dir, "/tmp/aptop_cluster_XXXXXX");
    if (!mkdtemp(gen_dir)) {
        gen_dir[0] = 0;
        return NULL;
    }
    char cmd[256];
    snprintf(cmd, sizeof cmd, "python3 tools/gen_cluster_fixtures.py --ranks 64 --steps 3 %s 2>&1", gen_dir);
    int st = -1;
    free(test_run(cmd, &st));
    if (st != 0) {
        rmdir(gen_dir);
        gen_dir[0] = 0;
        return NULL;
    }
    return gen_dir;
}

__attribute__((destructor)) static void remove_generated(void)
{
    if (gen_dir[0]) {
        char cmd[128];
        int st;
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", gen_dir);
        free(test_run(cmd, &st));
    }
}

/* The text between key and the next key of the same JSON report (a section), for messages. */
static void check_same(const char *direct, const char *merged, const char *what)
{
    CHECK(direct && merged);
    if (!direct || !merged)
        return;
    if (strcmp(direct, merged)) {
        size_t i = 0;
        while (direct[i] && direct[i] == merged[i])
            i++;
        size_t from = i > 80 ? i - 80 : 0;
        test_fail(__FILE__, __LINE__, "%s differ at byte %zu:\n  direct: %.160s\n  merged: %.160s", what, i,
                  direct + from, merged + from);
    }
}

TEST(summary_64_ranks_equal_direct_load)
{
    const char *g = generated();
    if (!g)
        SKIP("python3 or tools/gen_cluster_fixtures.py not available");
    char cap[128], sums[128];
    snprintf(cap, sizeof cap, "%s/capture", g);
    snprintf(sums, sizeof sums, "%s/summaries", g);
    CHECK_INT(mkdir(sums, 0755), 0);
    for (int r = 0; r < 64; r++) {
        char rank_dir[192], name[64];
        snprintf(rank_dir, sizeof rank_dir, "%s/rank%d_ascend_pt", cap, r);
        snprintf(name, sizeof name, "host-rank%d.json", r);
        CHECK(summarize(rank_dir, sums, name));
    }
    /* every format: JSON (the figures), text and CSV (captions and titles too) */
    static const enum rowset_format fmts[] = { FMT_JSON, FMT_TEXT, FMT_CSV };
    for (size_t k = 0; k < 3; k++) {
        char *direct = report_of(cap, CLUSTER_SECTIONS, fmts[k]);
        char *merged = report_of(sums, CLUSTER_SECTIONS, fmts[k]);
        check_same(direct, merged, "report of the capture and of its summaries");
        if (k == 0 && merged) {
            /* the figures are the cluster's: 64 ranks, the planted slow rank 33 is waited for,
             * clocks aligned by the communication slices (rank 1 is 137 ns ahead) */
            CHECK(strstr(merged, "\"rank\": 63, \"device\""));
            CHECK(strstr(merged, "\"rank\": 33, \"device\": null, \"steps\": 3"));
            const char *r33 = strstr(merged, "\"rank\": 33, \"device\": null, \"steps\": 3");
            CHECK(r33 && strstr(r33, "\"waited_for\": 1"));
            CHECK(r33 && strstr(r33, "\"waited_for\": 1") < strstr(r33, "}"));
            CHECK(strstr(merged, "\"offset_us\": -0.137, \"align_ops\": 6"));
            /* the overview of each rank is its trace's, carried by its summary */
            CHECK(strstr(merged, "\"top_kernels\": [{\"name\": \"aclnnMm_MatMulCommon_MatMulV2\""));
            CHECK(strstr(merged, "\"prefill_steps\": 3"));
        }
        free(direct);
        free(merged);
    }
    /* the summary section: the same counts and span (load time and diagnostics are the load's) */
    char *direct = report_of(cap, "summary", FMT_JSON), *merged = report_of(sums, "summary", FMT_JSON);
    CHECK(direct && merged);
    if (direct && merged) {
        char *a = strstr(direct, "\"summary\""), *b = strstr(merged, "\"summary\"");
        char *ea = a ? strstr(a, "\"diagnostics\"") : NULL, *eb = b ? strstr(b, "\"diagnostics\"") : NULL;
        CHECK(ea && eb && ea - a == eb - b && !strncmp(a, b, (size_t)(ea - a)));
        CHECK(strstr(merged, "\"ranks\": 64"));
    }
    free(direct);
    free(merged);
}

/* One summary per host of 8 ranks (a capture folder of 8 rank folders): files that cover
 * several ranks merge the same way. */
TEST(summary_hosts_of_8_ranks_equal_direct_load)
{
    const char *g = generated();
    if (!g)
        SKIP("python3 or tools/gen_cluster_fixtures.py not available");
    char cap[128], sums[128], cmd[512];
    snprintf(cap, sizeof cap, "%s/capture", g);
    snprintf(sums, sizeof sums, "%s/hosts", g);
    CHECK_INT(mkdir(sums, 0755), 0);
    for (int h = 0; h < 8; h++) {
        char host[192], name[64];
        snprintf(host, sizeof host, "%s/host%d", g, h);
        CHECK_INT(mkdir(host, 0755), 0);
        for (int r = h * 8; r < h * 8 + 8; r++) {
            snprintf(cmd, sizeof cmd, "ln -s '%s/rank%d_ascend_pt' '%s/'", cap, r, host);
            int st = -1;
            free(test_run(cmd, &st));
            CHECK_INT(st, 0);
        }
        snprintf(name, sizeof name, "host%d.json", h);
        CHECK(summarize(host, sums, name));
    }
    char *direct = report_of(cap, CLUSTER_SECTIONS, FMT_JSON);
    char *merged = report_of(sums, CLUSTER_SECTIONS, FMT_JSON);
    check_same(direct, merged, "report of the capture and of its 8 host summaries");
    free(direct);
    free(merged);
}

TEST(summary_real_two_ranks_equal_direct_load)
{
    REAL_OR_SKIP(root, "Ascend-msinsight/test/data/pytorch/text/level1");
    char dir[] = "/tmp/aptop_sum_real_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    for (int r = 0; r < 2; r++) {
        char rank_dir[512], name[32];
        snprintf(rank_dir, sizeof rank_dir, "%s/rank%d_ascend_pt", root, r);
        snprintf(name, sizeof name, "rank%d.json", r);
        CHECK(summarize(rank_dir, dir, name));
    }
    for (int k = 0; k < 2; k++) {
        char *direct = report_of(root, CLUSTER_SECTIONS, k ? FMT_TEXT : FMT_JSON);
        char *merged = report_of(dir, CLUSTER_SECTIONS, k ? FMT_TEXT : FMT_JSON);
        check_same(direct, merged, "report of level1 and of its summaries");
        /* not two empty reports: the waits and the clock offset of rank 1 are there */
        if (!k)
            CHECK(merged && strstr(merged, "\"wait_ms\": 5.94061871875") && strstr(merged, "\"offset_us\": 8.136"));
        free(direct);
        free(merged);
    }
    /* what each rank was loaded from */
    struct loaded l;
    CHECK(load(&l, dir));
    CHECK_INT(l.s ? l.s->nranks : 0, 2);
    for (size_t i = 0; l.s && i < l.s->nranks; i++) {
        CHECK(l.s->ranks[i].digest && !l.s->ranks[i].model);
        CHECK(strstr(l.s->ranks[i].status, "from summary rank") != NULL);
    }
    unload(&l);
    char cmd[128];
    int st;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    free(test_run(cmd, &st));
}

/* Bad files beside good ones: each said with its name, the good ranks still load. */
TEST(summary_bad_files_are_said)
{
    char dir[] = "/tmp/aptop_sum_bad_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char p[256];
    const char *good = "{\n\"capture\": [{\"rank\": 3, \"device\": 1, \"label\": \"r3\", \"status\": \"loaded\", "
                       "\"steps_note\": \"\", \"comm_sources\": 1}],\n"
                       "\"rank_steps\": [{\"rank\": 3, \"step\": 1, \"step_us\": 10.000, \"computing_us\": 4.000, "
                       "\"comm_not_overlapped_us\": 5.000, \"free_us\": 1.000, \"file_stage_us\": null, "
                       "\"source\": \"markers\"}],\n"
                       "\"comm\": [{\"rank\": 3, \"step\": \"step1\", \"kind\": \"collective\", \"name\": \"hcom_x@1\", "
                       "\"start_us\": 5.000, \"elapse_ms\": 0.004, \"transit_ms\": 0.001, \"wait_ms\": 0.003}]\n}\n";
    snprintf(p, sizeof p, "%s/a_good.json", dir);
    CHECK(write_text(p, good));
    snprintf(p, sizeof p, "%s/b_same_rank.json", dir);
    CHECK(write_text(p, good));
    snprintf(p, sizeof p, "%s/c_truncated.json", dir);
    CHECK(write_text(p, "{\n\"capture\": [{\"rank\": 4, \"device\": null"));
    snprintf(p, sizeof p, "%s/d_empty.json", dir);
    CHECK(write_text(p, ""));
    snprintf(p, sizeof p, "%s/e_other.json", dir);
    CHECK(write_text(p, "{\"steps\": 3}"));
    struct loaded l;
    CHECK(load(&l, dir));
    CHECK_INT(l.s ? l.s->nranks : 0, 1);
    CHECK(test_diag_has(l.d, "b_same_rank.json", "rank 3 is also in"));
    CHECK(test_diag_has(l.d, "c_truncated.json", "not valid JSON"));
    bool listed_empty = false, listed_other = false;
    for (size_t i = 0; i < l.c.nskipped; i++) {
        listed_empty |= strstr(l.c.skipped[i].path, "d_empty.json") != NULL;
        listed_other |= strstr(l.c.skipped[i].path, "e_other.json") != NULL;
    }
    CHECK(listed_empty && listed_other);
    if (l.s && l.s->nranks == 1) {
        const struct rank_data *rd = &l.s->ranks[0];
        CHECK_INT(rd->rank, 3);
        CHECK_INT(rd->device, 1);
        CHECK(rd->digest && rd->digest->nrsteps == 1 && rd->digest->rsteps[0].step == 10000);
        CHECK(rd->comm && rd->comm->nops == 1 && rd->comm->ops[0].start_ns == 5000);
        CHECK(rd->comm && rd->comm->ops[0].elapse_ns == 4000);
        FILE *out = tmpfile();
        struct report_opts o = { .sections = "ranks", .format = FMT_JSON, .rank = -1 };
        CHECK(out && report_print(l.s, &o, out) == 0);
        if (out) {
            rewind(out);
            char buf[4096] = "";
            size_t n = fread(buf, 1, sizeof buf - 1, out);
            buf[n] = 0;
            CHECK(strstr(buf, "\"step_us_mean\": 10.000") && strstr(buf, "\"wait_ms\": 0.003"));
            fclose(out);
        }
    }
    unload(&l);
    /* a folder whose only JSON is not a summary is not a summaries folder */
    snprintf(p, sizeof p, "rm -f '%s'/a_good.json '%s'/b_same_rank.json '%s'/c_truncated.json", dir, dir, dir);
    int st;
    free(test_run(p, &st));
    struct diag *d = diag_new();
    struct capture c;
    CHECK(capture_discover(dir, &c, d) != 0);
    CHECK(!c.nranks);
    capture_free(&c);
    diag_free(d);
    snprintf(p, sizeof p, "rm -rf '%s'", dir);
    free(test_run(p, &st));
}

/* Summaries of the real multi-rank captures equal the direct load and an independent
 * computation from their communication.json files (tests/checks/cluster_check.py). */
TEST(summary_matches_independent_check_on_real_captures)
{
    if (!test_real_dir())
        SKIP("../shared/real not found");
    SKIP_CHECK_OF_NATIVE_APTOP();
    int st = 0;
    char *out = test_check("cluster", &st);
    if (st != 0)
        test_fail(__FILE__, __LINE__, "cluster_check: %s", out ? out : "(no output)");
    CHECK(out && strstr(out, "ok") && strstr(out, "summaries merged equal the direct load and the files"));
    free(out);
}
