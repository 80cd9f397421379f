/* Parallel groups (model/analysis/pgroups.h, io/tables/pgroups_json.c): read from each rank's
 * profiler_metadata.json or from the cluster's communication_group.json, the same groups
 * either way, printed per rank by the ranks section and labelled for the Ranks view. The
 * generated capture's groups follow a rule written in tools/gen_cluster_fixtures.py (tensor
 * parallel: 8 consecutive ranks; data parallel: ranks r, r + 8, ...), checked here from it. */
#include "../runner.h"
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/discovery/capture.h"
#include "io/load/loader.h"
#include "model/analysis/pgroups.h"
#include "report/report.h"

static char *ranks_json(const char *path, struct diag **keep)
{
    struct diag *d = diag_new();
    struct capture c;
    char *buf = NULL;
    size_t len = 0;
    if (capture_discover(path, &c, d) == 0) {
        struct session *s = session_new(&c, d);
        struct loader_opts o = { .prefer_db = false, .rank = -1, .cache = NULL };
        if (s && loader_run_sync(&c, s, &o) > 0) {
            FILE *out = open_memstream(&buf, &len);
            struct report_opts ro = { .sections = "ranks", .format = FMT_JSON, .rank = -1 };
            if (out) {
                report_print(s, &ro, out);
                fclose(out);
            }
        }
        session_free(s);
    }
    capture_free(&c);
    if (keep)
        *keep = d;
    else
        diag_free(d);
    return buf;
}

/* The groups the generator's rule gives rank r of n ranks, as the ranks section prints them. */
static void expected_groups(int r, int n, char *buf, size_t size)
{
    size_t k = (size_t)snprintf(buf, size, "\"groups\": {\"tp\": [");
    int t0 = r / 8 * 8;
    for (int i = t0; i < t0 + 8 && i < n; i++)
        k += (size_t)snprintf(buf + k, size - k, "%s%d", i > t0 ? ", " : "", i);
    k += (size_t)snprintf(buf + k, size - k, "], \"dp\": [");
    for (int i = r % 8; i < n; i += 8)
        k += (size_t)snprintf(buf + k, size - k, "%s%d", i > r % 8 ? ", " : "", i);
    k += (size_t)snprintf(buf + k, size - k, "], \"pp\": [");
    for (int i = 0; i < n; i++)
        k += (size_t)snprintf(buf + k, size - k, "%s%d", i ? ", " : "", i);
    snprintf(buf + k, size - k, "]}");
}

TEST(pgroups_from_metadata_and_cluster_file)
{
    char dir[] = "/tmp/aptop_pgroups_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char cmd[512];
    int st = -1;
    snprintf(cmd, sizeof cmd, "python3 tools/gen_cluster_fixtures.py --ranks 16 --steps 2 '%s' 2>&1", dir);
    free(test_run(cmd, &st));
    if (st != 0) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        free(test_run(cmd, &st));
        SKIP("python3 or tools/gen_cluster_fixtures.py not available");
    }
    char cap[128], want[1024];
    snprintf(cap, sizeof cap, "%s/capture", dir);
    char *both = ranks_json(cap, NULL);
    CHECK(both != NULL);
    for (int r = 0; both && r < 16; r++) {
        expected_groups(r, 16, want, sizeof want);
        char row[64];
        snprintf(row, sizeof row, "{\"rank\": %d, ", r);
        const char *at = strstr(both, row), *end = at ? strchr(at, '\n') : NULL;
        const char *g = at ? strstr(at, want) : NULL;
        if (!g || (end && g > end))
            test_fail(__FILE__, __LINE__, "rank %d: expected %s", r, want);
    }
    /* without the metadata files, the cluster file alone gives the same groups */
    snprintf(cmd, sizeof cmd, "rm '%s'/rank*_ascend_pt/profiler_metadata.json", cap);
    free(test_run(cmd, &st));
    CHECK_INT(st, 0);
    char *cluster = ranks_json(cap, NULL);
    CHECK(both && cluster && !strcmp(both, cluster));
    /* a broken cluster file is said, naming it; the ranks still load, without groups */
    snprintf(cmd, sizeof cmd, "printf '{\"comm_group' > '%s'/cluster_analysis_output/communication_group.json", cap);
    free(test_run(cmd, &st));
    struct diag *d = NULL;
    char *broken = ranks_json(cap, &d);
    CHECK(broken && strstr(broken, "\"rank\": 15") && !strstr(broken, "\"groups\""));
    CHECK(test_diag_has(d, "communication_group.json", "not valid JSON"));
    diag_free(d);
    free(both);
    free(cluster);
    free(broken);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    free(test_run(cmd, &st));
}

TEST(pgroups_labels_and_order)
{
    struct pgroups *g = pgroups_new();
    const int tp0[] = { 3, 2, 1, 0, 2 }, tp1[] = { 4, 5, 6, 7 }, dp1[] = { 5, 1 }, world[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    CHECK(g && pgroups_add(g, "TP", tp1, 4) == 0);
    CHECK(pgroups_add(g, "tp", tp0, 5) == 0);
    CHECK(pgroups_add(g, "dp", dp1, 2) == 0);
    CHECK(pgroups_add(g, "dp", dp1, 2) == 0);            /* the same group twice: once */
    CHECK(pgroups_add(g, "default_group", world, 8) == 0); /* groups nothing: left out */
    CHECK_INT(g->n, 3);
    /* a session's order: tp before dp, groups of a kind by lowest rank */
    struct rank_data ranks[1] = { { .rank = 5, .groups = g } };
    struct session s = { .ranks = ranks, .nranks = 1 };
    struct pgroups *all = pgroups_of_session(&s);
    char buf[256];
    CHECK(all && all->n == 3);
    CHECK_STR(pgroups_rank_label(all, 5, buf, sizeof buf), "tp1 dp0");
    CHECK_STR(pgroups_rank_label(all, 2, buf, sizeof buf), "tp0");
    CHECK_STR(pgroups_rank_json(all, 1, buf, sizeof buf), "{\"tp\": [0, 1, 2, 3], \"dp\": [1, 5]}");
    CHECK_STR(pgroups_rank_json(all, 9, buf, sizeof buf), "{}");
    CHECK_STR(pgroups_rank_label(all, 9, buf, sizeof buf), "");
    pgroups_free(all);
    pgroups_free(g);
}
