/* GPU ranks in the explorer, driven headless (--script) on the generated captures of
 * tools/gen_gpu_ranks_fixtures.py: the Collectives view lists the collectives matched from
 * the NCCL kernels with the waits the report gives (rank 2, the planted straggler, last in
 * every one; tests/checks/gpu_ranks_check.py recomputes them from the files), Enter shows one
 * on every rank's stream in X-Rank, aligned (rank 3's 7 µs clock lead taken out); Ranks names
 * the rank the others wait for; Memory draws each device's [memory] curve; a rank whose
 * sequence leaves the others' is said in the Collectives caption. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner.h"

static char *run_script(const char *script, const char *size, const char *dir, int *st)
{
    char path[64];
    const char *f = test_temp_file("gpuranks", script, path, sizeof path);
    if (!f)
        return NULL;
    char *out = test_aptop(st, "--script '%s' --size %s '%s' 2>&1", f, size, dir);
    unlink(f);
    return out;
}

TEST(gpu_ranks_ui_collectives_xrank_ranks_memory)
{
    int st = -1;
    char *out = run_script("loaded\nkeys W\nwait [W]Collectives\ndump\n"
                           "keys Enter\nwait X-Rank: the collective on\ndump\n"
                           "keys 6\nwait Ranks (4)\ndump\nkeys M\nwait peak alloc\ndump\n",
                           "140x30", "fixtures/gpu_ranks", &st);
    CHECK_INT(st, 0);
    CHECK(out != NULL);
    if (!out)
        return;
    char *s1 = test_screen(out, 1), *s2 = test_screen(out, 2), *s3 = test_screen(out, 3), *s4 = test_screen(out, 4);
    CHECK(s1 && strstr(s1, "9 instances") && strstr(s1, "wait of NCCL kernels"));
    /* the first row: rank 2 last, the others' 406 + 403 + 397 µs of wait */
    CHECK(s1 && strstr(s1, "ncclDevKernel_AllReduce_Sum_f32_RING_LL         1.206000      2       4"));
    CHECK(s1 && strstr(s1, "0.406000        0.150000"));
    CHECK(s1 && strstr(s1, "rank 2 arrived last (least wait, 406 µs after the first); the 3 others waited 1.206000 ms"));
    /* X-Rank: the kernel on stream 20 of every rank, aligned on the collectives' ends */
    CHECK(s2 && strstr(s2, "X-Rank: the collective on 4 of 4 ranks, aligned on collective ends"));
    CHECK(s2 && strstr(s2, "r3 -7.000 µs"));
    CHECK(s2 && strstr(s2, " rank 0 ▸ Stream 20") && strstr(s2, " rank 3 ▸ Stream 20"));
    CHECK(s2 && !strstr(s2, "no lane of that name"));
    /* Ranks: the others wait for rank 2 */
    CHECK(s3 && strstr(s3, "others wait for: rank 2 (least wait in 9 shared collectives)"));
    /* Memory: the device's curve from the [memory] events, its planted peak */
    CHECK(s4 && strstr(s4, "peak alloc cuda:0 1430.519 MB") && strstr(s4, "reserved peak 3072.000 MB"));
    CHECK(s4 && strstr(s4, "cuda:0 alloc") && strstr(s4, "cpu alloc"));
    if (test_failed_now())
        fprintf(stderr, "%s", out);
    free(s1);
    free(s2);
    free(s3);
    free(s4);
    free(out);
}

TEST(gpu_ranks_ui_sequence_not_lined_up_is_said)
{
    int st = -1;
    char *out = run_script("loaded\nkeys W\nwait [W]Collectives\ndump\n", "260x20", "fixtures/gpu_ranks_diverge", &st);
    CHECK_INT(st, 0);
    CHECK(out && strstr(out, "not lined up: rank 1 leaves the sequence of communicator 0 at its call 4: broadcast of "
                             "16 where rank 0 calls allgather of 65536 (later ops unmatched)"));
    if (test_failed_now() && out)
        fprintf(stderr, "%s", out);
    free(out);
}
