/* The headless mode (`aptop --script FILE --size COLSxROWS PATH`): the explorer driven from a
 * file of commands on an off-screen terminal, screens printed; no tmux needed. Also what a
 * wrong script gives: the file and line named, exit 2; a wait that never comes true: the
 * screen it stopped on, exit 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner.h"

#define REAL_L1 "Ascend-msinsight/test/data/pytorch/text/level1"


static int count_lines(const char *s, int *widest)
{
    int n = 0, w = 0, cur = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\n') {
            n++;
            if (cur > w) w = cur;
            cur = 0;
        } else if ((*p & 0xc0) != 0x80) {
            cur++;              /* characters, not bytes */
        }
    }
    *widest = w;
    return n;
}

TEST(script_ui_search_marks_and_resize_real)
{
    REAL_OR_SKIP(p, REAL_L1);
    char path[64];
    const char *f = test_temp_file("script", "# the timeline, a search from the start, a mark, a smaller terminal\n"
                                "loaded\n"
                                "keys 2\n"
                                "wait [2]Timeline\n"
                                "keys ^ /\n"
                                "text ^aclnnMm_MatMulCommon_MatMulV2$\n"
                                "keys Enter\n"
                                "wait aclnnMm_MatMulCommon_MatMulV2 on Ascend Hardware\n"
                                "keys n b\n"
                                "wait mark 1/1 at\n"
                                "dump\n"
                                "resize 80 24\n"
                                "keys 3\n"
                                "wait [3]Kernels\n"
                                "dump\n", path, sizeof path);
    CHECK(f != NULL);
    if (!f)
        return;
    int st = 0;
    char *out = test_aptop(&st, "--script '%s' --size 132x40 '%s' 2>&1", f, p);
    unlink(f);
    CHECK_INT(st, 0);
    char *s1 = test_screen(out, 1), *s2 = test_screen(out, 2);
    CHECK(s1 && s2);
    if (s1 && s2) {
        int w1, w2;
        CHECK_INT(count_lines(s1, &w1), 40);
        CHECK(w1 <= 132);
        CHECK(strstr(s1, "mark 1/1 at ") != NULL);
        CHECK(strstr(s1, "Ascend Hardware") != NULL);
        CHECK_INT(count_lines(s2, &w2), 24);
        CHECK(w2 <= 80);
        CHECK(strstr(s2, "hcom_allReduce__586_0_1") != NULL);
        CHECK(strstr(s2, "Total ms") != NULL);
    }
    free(s1);
    free(s2);
    free(out);
}

TEST(script_ui_fixture_first_screen_without_tmux)
{
    const char *fx = "fixtures/vllm_decode_2rank";
    if (access(fx, R_OK) != 0)
        SKIP("fixtures not generated (make fixtures)");
    char path[64];
    const char *f = test_temp_file("script", "loaded\ndump\nkeys ?\nwait Show this help\ndump\n", path, sizeof path);
    CHECK(f != NULL);
    if (!f)
        return;
    int st = 0;
    char *out = test_aptop(&st, "--script '%s' --size 100x30 '%s' 2>&1", f, fx);
    unlink(f);
    CHECK_INT(st, 0);
    char *s1 = test_screen(out, 1), *s2 = test_screen(out, 2);
    CHECK(s1 && strstr(s1, "[1]Overview") != NULL);
    CHECK(s2 && strstr(s2, "Show this help") != NULL);
    free(s1);
    free(s2);
    free(out);
}

TEST(script_ui_wrong_script_names_file_and_line)
{
    const char *fx = "fixtures/vllm_decode_2rank";
    char path[64];
    const char *f = test_temp_file("script", "loaded\n\n# fine so far\nkeys 2 NoSuchKey\n", path, sizeof path);
    CHECK(f != NULL);
    if (!f)
        return;
    int st = 0;
    char *out = test_aptop(&st, "--script '%s' '%s' 2>&1", f, fx);
    CHECK_INT(st, 2);
    char want[128];
    snprintf(want, sizeof want, "%s:4: unknown key 'NoSuchKey'", f);
    CHECK(out && strstr(out, want) != NULL);
    free(out);
    unlink(f);
    out = test_aptop(&st, "--script /nonexistent/script '%s' 2>&1", fx);
    CHECK_INT(st, 2);
    CHECK(out && strstr(out, "/nonexistent/script: cannot be read") != NULL);
    free(out);
    out = test_aptop(&st, "report --script x '%s' 2>&1", fx);
    CHECK_INT(st, 2);
    free(out);
    out = test_aptop(&st, "--size 3x2 '%s' 2>&1", fx);
    CHECK_INT(st, 2);
    CHECK(out && strstr(out, "--size takes COLSxROWS") != NULL);
    free(out);
}

TEST(script_ui_wait_that_never_comes_fails_with_the_screen)
{
    const char *fx = "fixtures/vllm_decode_2rank";
    if (access(fx, R_OK) != 0)
        SKIP("fixtures not generated (make fixtures)");
    char path[64];
    /* "Quit at once" is in the help, not on the overview: the wait times out */
    const char *f = test_temp_file("script", "loaded\ntimeout 0.5\nwait Quit at once\n", path, sizeof path);
    CHECK(f != NULL);
    if (!f)
        return;
    int st = 0;
    char *out = test_aptop(&st, "--script '%s' '%s' 2>&1", f, fx);
    unlink(f);
    CHECK_INT(st, 1);
    CHECK(out && strstr(out, "wait failed: ") && strstr(out, ":3: Quit at once"));
    CHECK(out && strstr(out, "--- screen 1 ---") && strstr(out, "[1]Overview"));
    free(out);
}

/* Enter on a kernel instance before the timeline was ever drawn: the timeline opens zoomed so
 * the slice can be read (at least TL_READABLE_COLS columns wide), not on the whole capture. */
TEST(script_ui_jump_from_a_table_zooms_on_a_timeline_never_drawn_real)
{
    REAL_OR_SKIP(p, REAL_L1);
    char path[64];
    const char *f = test_temp_file("script", "loaded\nkeys 3\nwait [3]Kernels\n"
                                "# the third kernel by total time: hcom_allReduce__586_2_1, 2402.388 us\n"
                                "keys j j Enter\nwait Instances of kernel hcom_allReduce__586_2_1\n"
                                "keys Enter\nwait [2]Timeline\ndump\n", path, sizeof path);
    CHECK(f != NULL);
    if (!f)
        return;
    int st = 0;
    char *out = test_aptop(&st, "--script '%s' --size 120x30 '%s' 2>&1", f, p);
    unlink(f);
    CHECK_INT(st, 0);
    const char *col = out ? strstr(out, "/col") : NULL;
    CHECK(col != NULL);
    if (col) {
        const char *a = col;
        while (a > out && a[-1] != ' ')
            a--;                     /* "83.5 µs/col": the unit word, then the figure */
        const char *unit = a;
        const char *num = a - 1;
        while (num > out && num[-1] != ' ')
            num--;
        double v = atof(num);
        double ns = v * (!strncmp(unit, "ns", 2) ? 1 : !strncmp(unit, "ms", 2) ? 1e6 : !strncmp(unit, "s/", 2) ? 1e9 : 1e3);
        /* 2402.388 µs over at least 8 columns */
        CHECK(ns > 0 && ns * 8 <= 2402388.0);
    }
    CHECK(out && strstr(out, "hcom_allReduce__586_2_1") != NULL);
    free(out);
}
