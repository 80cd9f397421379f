/* A summaries folder in a real terminal (tmux): the per-rank reports of a generated 8-rank
 * cluster, printed by the binary under test, open as one cluster. Overview and Ranks show
 * every rank and the planted slow rank (Ranks with its parallel groups), Comm its ops, and the
 * timeline says that a rank read from a summary has no trace. Every check reads the screen. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner.h"
#include "tmux.h"

#define WAIT 15000

static bool wait_for(struct tmux *t, const char *text, int line)
{
    if (tmux_wait(t, text, WAIT) < 0) {
        test_fail(__FILE__, line, "screen never showed \"%s\"", text);
        return false;
    }
    return true;
}
#define WAIT_FOR(t, text) wait_for(t, text, __LINE__)

TEST(cluster_ui_opens_a_summaries_folder)
{
    if (!tmux_available())
        SKIP("tmux not installed");
    char dir[] = "/tmp/aptop_cluster_ui_XXXXXX";
    if (!mkdtemp(dir))
        SKIP("no temporary folder");
    char cmd[1024];
    int st = -1;
    snprintf(cmd, sizeof cmd, "python3 tools/gen_cluster_fixtures.py --ranks 8 --steps 2 '%s' 2>&1 && mkdir '%s/sums'",
             dir, dir);
    free(test_run(cmd, &st));
    if (st != 0) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        free(test_run(cmd, &st));
        SKIP("python3 or tools/gen_cluster_fixtures.py not available");
    }
    /* the fan-out: one report per rank, as each host would print its own */
    for (int r = 0; r < 8; r++) {
        free(test_aptop(&st, "report --format json --section capture,summary,overview,steps,phases,ranks,comm,rank_steps,comm_ends "
                        "'%s/capture/rank%d_ascend_pt' > '%s/sums/node%d.json'", dir, r, dir, r));
        CHECK_INT(st, 0);
    }
    char sums[128];
    snprintf(sums, sizeof sums, "%s/sums", dir);
    struct tmux t = { 0 };
    if (tmux_open(&t, sums, 160, 40, "loaded ", WAIT)) {
        /* Overview: every rank side by side, the one the others wait for marked */
        WAIT_FOR(&t, "from summary node0.json (no trace)");
        WAIT_FOR(&t, "straggler rank 5: the others wait for it");
        tmux_keys(&t, "6", NULL);
        WAIT_FOR(&t, "Ranks (8)");
        WAIT_FOR(&t, "others wait for it");
        char *s = tmux_screen(&t);
        CHECK(s && strstr(s, "others wait for: rank 5"));
        /* the parallel groups each rank's profiler_metadata.json named, carried by its summary */
        CHECK(s && strstr(s, "Groups") && strstr(s, "tp0 dp5 pp0"));
        free(s);
        tmux_keys(&t, "7", NULL);
        WAIT_FOR(&t, "hcom_allReduce__586_0_1@");
        WAIT_FOR(&t, "times as written in communication.json");
        tmux_keys(&t, "3", NULL);   /* kernels stay on the host: said, not "no kernels" */
        WAIT_FOR(&t, "was read from a summary (from summary node0.json (no trace))");
        tmux_keys(&t, "2", NULL);
        WAIT_FOR(&t, "Timeline: from summary node0.json (no trace)");
        tmux_keys(&t, "R", NULL);   /* the previous rank: the last one */
        WAIT_FOR(&t, "from summary node7.json (no trace)");
        tmux_keys(&t, "q", NULL);
        WAIT_FOR(&t, "APTOP-EXIT=0");
    }
    tmux_kill(&t);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    free(test_run(cmd, &st));
}
