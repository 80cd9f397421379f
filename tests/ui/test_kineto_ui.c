/* PyTorch profiler (Kineto) GPU traces: every real one checked against the independent
 * Python computation (tests/checks/kineto_check.py: kernels per name,
 * flow pairs, ProfilerStep steps and their phases, exact), and one explored from the keyboard: the GPU named
 * from deviceProperties, the kernels table from the trace, and flow-follow from a Python op
 * through the runtime call to its kernel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner.h"
#include "tmux.h"

#define WAIT 15000
#define QWEN "TraceLens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"

TEST(kineto_every_real_trace_matches_python)
{
    if (!test_real_dir())
        SKIP("../shared/real not found");
    int st = 0;
    char *out = test_check("kineto", &st);
    if (st != 0 || !out || !strstr(out, "Kineto traces exact"))
        test_fail(__FILE__, __LINE__, "kineto_check: %s", out ? out : "(no output)");
    /* all of them, with steps compared */
    CHECK(out && strstr(out, "8/8 Kineto traces exact"));
    free(out);
}

TEST(kineto_ui_gpu_kernels_and_follow_real)
{
    if (!tmux_available())
        SKIP("tmux not installed");
    REAL_OR_SKIP(p, QWEN);
    struct tmux t = { 0 };
    if (!tmux_open(&t, p, 160, 48, "loaded ", WAIT)) {
        tmux_kill(&t);
        return;
    }
    tmux_keys(&t, "2", NULL);            /* the timeline (the overview opens) */
    CHECK(tmux_wait(&t, "GPU 0 (NVIDIA H100", WAIT) >= 0);   /* shortened in the middle to its label room */
    CHECK(tmux_wait(&t, "stream 7", WAIT) >= 0);
    /* the kernels view: from the trace, memsets included, the GPU annotation not */
    tmux_keys(&t, "3", NULL);
    CHECK(tmux_wait(&t, "28 names, 1,707 calls", WAIT) >= 0);
    CHECK(tmux_wait(&t, "from the trace", WAIT) >= 0);
    CHECK(tmux_wait(&t, "sm90_xmma_gemm_bf16bf16", WAIT) >= 0);
    char *s = tmux_screen(&t);
    CHECK(s && strstr(s, "Memset (Device)") && !strstr(s, "ProfilerStep#6"));
    free(s);
    /* Python op -> runtime (driver) call -> kernel, with its launch latency */
    tmux_keys(&t, "2", "/", NULL);
    tmux_text(&t, "^aten::bmm$");
    tmux_keys(&t, "Enter", NULL);
    CHECK(tmux_wait(&t, ": aten::bmm on python3", WAIT) >= 0);
    tmux_keys(&t, "f", NULL);
    CHECK(tmux_wait(&t, "launched by cuLaunchKernel", WAIT) >= 0);
    CHECK(tmux_wait(&t, "launch latency 7.99", WAIT) >= 0);
    CHECK(tmux_wait(&t, "cutlass_80_simt_sgemm_128x32_8x5_nn_align1>", WAIT) >= 0);
    /* the phases view finds the ProfilerStep#6 step */
    tmux_keys(&t, "5", NULL);
    CHECK(tmux_wait(&t, "markers", WAIT) >= 0);
    tmux_keys(&t, "q", NULL);
    tmux_kill(&t);
}

/* A truncated .gz opens with what was read, and the messages say where the data ended. */
TEST(kineto_ui_truncated_gzip_says_where_it_ended)
{
    if (!tmux_available())
        SKIP("tmux not installed");
    REAL_OR_SKIP(p, QWEN);
    char tmp_buf[64];
    const char *tmp = test_temp_file("cutgz", "", tmp_buf, sizeof tmp_buf);
    CHECK(tmp != NULL);
    if (!tmp)
        return;
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "head -c 420000 '%s' > '%s'", p, tmp);
    int st = 0;
    free(test_run(cmd, &st));
    CHECK_INT(st, 0);
    struct tmux t = { 0 };
    if (tmux_open(&t, tmp, 160, 48, "loaded ", WAIT)) {
        tmux_keys(&t, "!", NULL);
        CHECK(tmux_wait(&t, "the gzip data ends early (truncated .gz?) at compressed byte 420000 of 420000", WAIT) >= 0);
        CHECK(tmux_wait(&t, "events before are shown", WAIT) >= 0);
        tmux_keys(&t, "Escape", "3", NULL);
        CHECK(tmux_wait(&t, "from the trace", WAIT) >= 0);
        tmux_keys(&t, "q", NULL);
    }
    tmux_kill(&t);
    unlink(tmp);
}
