/* Flow-follow from a Python op reaches the NPU kernel it launched through every hop (op ->
 * enqueue -> dequeue -> CANN node -> kernel), even when the op's only direct flow is a
 * forward->backward link. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runner.h"
#include "tmux.h"

#define WAIT 10000

TEST(follow_ui_op_to_kernel_through_the_queue_real)
{
    if (!tmux_available())
        SKIP("tmux not installed");
    REAL_OR_SKIP(p, "Ascend-msinsight/test/data/pytorch/text/level1");
    struct tmux t = { 0 };
    if (!tmux_open(&t, p, 160, 48, "loaded ", WAIT)) {
        tmux_kill(&t);
        return;
    }
    /* this aten::addmm has one direct flow: fwdbwd to its backward op */
    tmux_keys(&t, "2", "/", NULL);
    tmux_text(&t, "^aten::addmm$");
    tmux_keys(&t, "Enter", NULL);
    CHECK(tmux_wait(&t, ": aten::addmm on Python", WAIT) >= 0);
    tmux_keys(&t, "f", NULL);
    CHECK(tmux_wait(&t, "aclnnAddmm_MatMulCommon_MatMulV2 on Ascend Hardware", WAIT) >= 0);
    char *s = tmux_screen(&t);
    CHECK(strstr(s, "from aten::addmm") != NULL);
    CHECK(strstr(s, "AddmmBackward0 on Python") == NULL);
    free(s);
    tmux_keys(&t, "q", NULL);
    tmux_kill(&t);
}

/* A Python frame "path/file.py(123): function" too narrow for its whole name shows the
 * function, which is what a person scans for. */
TEST(frames_ui_show_the_function_name)
{
    if (!tmux_available())
        SKIP("tmux not installed");
    if (!test_is_dir("fixtures/vllm_decode_2rank"))
        SKIP("fixtures missing: make fixtures");
    struct tmux t = { 0 };
    if (!tmux_start(&t, "fixtures/vllm_decode_2rank", 160, 48)) {
        test_fail(__FILE__, __LINE__, "tmux did not start");
        return;
    }
    CHECK(tmux_wait(&t, "loaded ", WAIT) >= 0);
    tmux_keys(&t, "2", "w", "w", NULL);
    CHECK(tmux_wait(&t, "[execute_model", WAIT) >= 0);
    tmux_keys(&t, "q", NULL);
    tmux_kill(&t);
}
