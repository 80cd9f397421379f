/* A MindSpore profiler folder opened in the explorer (fixtures/prof_ms): the two PROF_*
 * devices are the two ranks shown, the Step Trace thread's slices are not in the Kernels
 * view, and the steps come from its Iterations. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner.h"

TEST(prof_ms_ui_two_ranks_kernels_without_step_trace)
{
    const char *fx = "fixtures/prof_ms";
    if (access(fx, R_OK) != 0)
        SKIP("fixtures not generated (make fixtures)");
    char path[64];
    const char *f = test_temp_file("script", "loaded\nkeys 3\nwait [3]Kernels\ndump\nkeys 6\nwait [6]Ranks\ndump\n", path,
                                   sizeof path);
    CHECK(f != NULL);
    if (!f)
        return;
    int st = 0;
    char *out = test_aptop(&st, "--script '%s' --size 160x30 '%s' 2>&1", f, fx);
    unlink(f);
    CHECK_INT(st, 0);
    char *kernels = test_screen(out, 1), *ranks = test_screen(out, 2);
    CHECK(kernels && strstr(kernels, "(2 ranks)") != NULL);
    CHECK(kernels && strstr(kernels, "Default/MemSet-op7") != NULL);
    CHECK(kernels && !strstr(kernels, "Iteration") && !strstr(kernels, "FP_BP") && !strstr(kernels, "Reduce_1_0"));
    /* one row per device, its mean step from its Iterations beside the rank */
    CHECK(ranks && strstr(ranks, "     0        167.920") != NULL);
    CHECK(ranks && strstr(ranks, "     1        167.970") != NULL);
    CHECK(ranks && strstr(ranks, "Device") != NULL);
    CHECK(ranks && strstr(ranks, "167.920") != NULL && strstr(ranks, "168.670") != NULL);
    free(kernels);
    free(ranks);
    free(out);
}
