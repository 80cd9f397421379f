/* Every real capture under ../shared/real opens in the explorer: the first frame shows, the
 * load finishes (or the problem is named on screen), the views switch, and q quits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runner.h"
#include "tmux.h"

#define WAIT 15000

static const char *const captures[] = {
    "Ascend-msinsight/test/data/pytorch/text/level0",
    "Ascend-msinsight/test/data/pytorch/text/level1",
    "Ascend-msinsight/test/data/pytorch/text/level2",
    "Ascend-msinsight/test/data/pytorch/db/level0",
    "Ascend-msinsight/test/data/pytorch/db/level1",
    "Ascend-msinsight/test/data/pytorch/db/level2",
    "Ascend-msinsight/server/src/test/test_data/test_rank_0",
    "Ascend-msinsight/server/src/test/test_data/test_rank_1",
    "Ascend-msinsight/server/src/test/test_data/full_db",
    "Ascend-msinsight/server/src/test/test_data/multiDevice/msprof_db",
    "Ascend-msinsight/server/src/test/test_data/heatMap/trace_view.json",
    "Ascend-msinsight/server/src/test/fuzz/test_data/trace_view_tiny.json",
    "Ascend-msinsight/server/src/test/test_data/test_kernel_parse/op_summary_1.csv",
    "Ascend-msinsight/server/src/test/test_data",
};

TEST(real_ui_every_capture_opens_and_quits)
{
    if (!tmux_available())
        SKIP("tmux not installed");
    if (!test_real_dir())
        SKIP("../shared/real not found");
    for (size_t i = 0; i < sizeof captures / sizeof captures[0]; i++) {
        const char *p = test_real(captures[i]);
        struct tmux t = { 0 };
        char args[4200];
        snprintf(args, sizeof args, "'%s'", p);
        if (!tmux_start(&t, args, 160, 48)) {
            test_fail(__FILE__, __LINE__, "tmux did not start for %s", captures[i]);
            continue;
        }
        if (tmux_wait(&t, "loaded ", WAIT) < 0) {
            test_fail(__FILE__, __LINE__, "%s: the load did not finish", captures[i]);
            tmux_dump(&t, captures[i]);
        }
        /* every view draws something on every capture, whatever it lacks */
        const char *tabs[] = { "2", "3", "4", "5", "6", "7", "8", "1" };
        for (size_t k = 0; k < sizeof tabs / sizeof tabs[0]; k++) {
            tmux_keys(&t, tabs[k], NULL);
            char want[16];
            snprintf(want, sizeof want, "[%s]", tabs[k]);
            if (tmux_wait(&t, want, WAIT) < 0) {
                test_fail(__FILE__, __LINE__, "%s: view %s did not open", captures[i], tabs[k]);
                tmux_dump(&t, captures[i]);
                break;
            }
        }
        tmux_keys(&t, "q", NULL);
        if (tmux_wait(&t, "APTOP-EXIT=0", 3000) < 0) {
            test_fail(__FILE__, __LINE__, "%s: q did not end the program with status 0", captures[i]);
            tmux_dump(&t, captures[i]);
        }
        tmux_kill(&t);
    }
}
