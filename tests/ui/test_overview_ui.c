/* The Overview view in a real terminal (tmux): the first screen of a capture is the
 * overview at 80x24, Enter on a finding lands on its evidence (the timeline zoomed on the
 * worst gap, the step in Phases, the rank in Ranks); the timeline opens on the device; table
 * search says "i/n" and sorting lands on the top row. Every check reads the screen. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runner.h"
#include "tmux.h"

#define WAIT 15000

#define NEED_TMUX() do { if (!tmux_available()) SKIP("tmux not installed"); } while (0)

static bool wait_for(struct tmux *t, const char *text, int line)
{
    if (tmux_wait(t, text, WAIT) < 0) {
        test_fail(__FILE__, line, "screen never showed \"%s\"", text);
        return false;
    }
    return true;
}
#define WAIT_FOR(t, text) wait_for(t, text, __LINE__)

static bool open_loaded(struct tmux *t, const char *path, int cols, int rows)
{
    return tmux_open(t, path, cols, rows, "loaded ", WAIT);
}

/* Every screen line fits in `cols` columns (code points, the screen is UTF-8). */
static void check_fits(struct tmux *t, int cols, int line)
{
    char *s = tmux_screen(t);
    int w = 0;
    for (const char *p = s; p && *p; p++) {
        if (*p == '\n') {
            w = 0;
            continue;
        }
        w += ((unsigned char)*p & 0xc0) != 0x80;
        if (w > cols) {
            test_fail(__FILE__, line, "a line is wider than %d columns", cols);
            tmux_dump(t, "too wide");
            break;
        }
    }
    free(s);
}

TEST(overview_ui_is_the_first_screen_at_80x24)
{
    NEED_TMUX();
    if (!test_is_dir("fixtures/advisor/host_bound"))
        SKIP("fixtures missing: make fixtures");
    struct tmux t = { 0 };
    if (!open_loaded(&t, "fixtures/advisor/host_bound", 80, 24)) {
        tmux_kill(&t);
        return;
    }
    WAIT_FOR(&t, "[1]Overview");
    WAIT_FOR(&t, "device busy");
    WAIT_FOR(&t, "step: computing");
    WAIT_FOR(&t, "top kernels (share of device busy time)");
    WAIT_FOR(&t, "decode");
    WAIT_FOR(&t, "findings by cost (1)");
    WAIT_FOR(&t, "host_bound");
    check_fits(&t, 80, __LINE__);
    tmux_keys(&t, "q", NULL);
    tmux_kill(&t);
}

/* Enter on the host-bound finding: the timeline, zoomed on the longest gap, the kernel after
 * it selected (its name in the pane). */
TEST(overview_ui_enter_opens_the_worst_gap)
{
    NEED_TMUX();
    if (!test_is_dir("fixtures/advisor/host_bound"))
        SKIP("fixtures missing: make fixtures");
    struct tmux t = { 0 };
    if (!open_loaded(&t, "fixtures/advisor/host_bound", 80, 24)) {
        tmux_kill(&t);
        return;
    }
    WAIT_FOR(&t, "host_bound");
    tmux_keys(&t, "Enter", NULL);
    WAIT_FOR(&t, "[2]Timeline");
    WAIT_FOR(&t, "host_bound: gap 320");
    /* the selected slice: the step's first kernel, after the gap */
    WAIT_FOR(&t, "aclnnRmsNorm_RmsNorm_RmsNorm");
    tmux_keys(&t, "q", NULL);
    tmux_kill(&t);
}

/* A slow host in two steps among longer copies between steps: Enter on host_bound opens the
 * stall of the first of those steps (step 7), not a copy between steps. */
TEST(overview_ui_enter_opens_the_stalled_step)
{
    NEED_TMUX();
    if (!test_is_dir("fixtures/advisor/host_stall"))
        SKIP("fixtures missing: make fixtures");
    struct tmux t = { 0 };
    if (!open_loaded(&t, "fixtures/advisor/host_stall", 160, 30)) {
        tmux_kill(&t);
        return;
    }
    WAIT_FOR(&t, "in step 7");
    tmux_keys(&t, "Enter", NULL);
    WAIT_FOR(&t, "[2]Timeline");
    WAIT_FOR(&t, "host_bound: gap 2.100");
    WAIT_FOR(&t, "launched by aten::mm, host in ProfilerStep#7, in step 7)");
    /* the selected slice: the kernel the host launched after its stall */
    WAIT_FOR(&t, "aclnnSwiGlu_SwiGlu_SwiGlu");
    tmux_keys(&t, "q", NULL);
    tmux_kill(&t);
}

TEST(overview_ui_enter_opens_the_step_in_phases)
{
    NEED_TMUX();
    if (!test_is_dir("fixtures/advisor/prefill_interference"))
        SKIP("fixtures missing: make fixtures");
    struct tmux t = { 0 };
    if (!open_loaded(&t, "fixtures/advisor/prefill_interference", 120, 30)) {
        tmux_kill(&t);
        return;
    }
    WAIT_FOR(&t, "prefill_interference");
    tmux_keys(&t, "Enter", NULL);
    WAIT_FOR(&t, "[5]Phases");
    WAIT_FOR(&t, "the worst instance");
    /* the selected row (the marker) is a mixed step, the one the message names */
    char *s = tmux_screen(&t);
    const char *mk = s ? strstr(s, "\n \xe2\x96\xb8 ") : NULL;   /* a row's marker, not the header's */
    if (mk)
        mk += 2;
    const char *eol = mk ? strchr(mk, '\n') : NULL;
    CHECK(mk && eol);
    if (mk && eol) {
        char row[256];
        snprintf(row, sizeof row, "%.*s", (int)(eol - mk < 255 ? eol - mk : 255), mk);
        CHECK(strstr(row, "mixed") != NULL);
        long step = strtol(mk + 4, NULL, 10);
        char want[96];
        snprintf(want, sizeof want, "prefill_interference: step %ld of rank 0", step);
        CHECK(strstr(s, want) != NULL);
    }
    free(s);
    tmux_keys(&t, "q", NULL);
    tmux_kill(&t);
}

TEST(overview_ui_enter_opens_the_rank_in_ranks)
{
    NEED_TMUX();
    if (!test_is_dir("fixtures/advisor/slow_rank"))
        SKIP("fixtures missing: make fixtures");
    struct tmux t = { 0 };
    if (!open_loaded(&t, "fixtures/advisor/slow_rank", 120, 30)) {
        tmux_kill(&t);
        return;
    }
    WAIT_FOR(&t, "straggler rank 1: the others wait for it");
    WAIT_FOR(&t, "slowest rank 1: longest mean step");
    WAIT_FOR(&t, "slow_rank");
    tmux_keys(&t, "Enter", NULL);
    WAIT_FOR(&t, "[6]Ranks");
    WAIT_FOR(&t, "slow_rank: rank 1");
    tmux_keys(&t, "q", NULL);
    tmux_kill(&t);
}

/* The real captures: the first screen is the overview; the timeline's first screen shows a
 * device lane at 80x24. */
TEST(overview_ui_real_first_screens)
{
    NEED_TMUX();
    static const char *const caps[] = {
        "Ascend-msinsight/test/data/pytorch/text/level1",
        "Ascend-msinsight/test/data/pytorch/text/level0",
        "Ascend-msinsight/test/data/pytorch/db/level1",
    };
    if (!test_real_dir())
        SKIP("../shared/real not found");
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        const char *p = test_real(caps[i]);
        struct tmux t = { 0 };
        if (!open_loaded(&t, p, 80, 24)) {
            tmux_kill(&t);
            continue;
        }
        WAIT_FOR(&t, "[1]Overview");
        WAIT_FOR(&t, "device busy");
        WAIT_FOR(&t, "findings");
        check_fits(&t, 80, __LINE__);
        tmux_keys(&t, "2", NULL);
        WAIT_FOR(&t, "[2]Timeline");
        WAIT_FOR(&t, "Ascend H\xe2\x80\xa6ware");   /* shortened in the middle: the label column is 16 wide */
        tmux_keys(&t, "q", NULL);
        tmux_kill(&t);
    }
}

/* The fixture's timeline: device first, Python stacks folded to 3 rows (( and ) change it),
 * the AI Core Freq counter shows its value at the cursor and its min..max. */
TEST(overview_ui_timeline_opens_on_the_device)
{
    NEED_TMUX();
    if (!test_is_dir("fixtures/advisor/aicore_freq_low"))
        SKIP("fixtures missing: make fixtures");
    struct tmux t = { 0 };
    if (!open_loaded(&t, "fixtures/advisor/aicore_freq_low", 80, 24)) {
        tmux_kill(&t);
        return;
    }
    tmux_keys(&t, "2", NULL);
    WAIT_FOR(&t, "Ascend H\xe2\x80\xa6ware");   /* the label column is 16 wide at 80 columns */
    WAIT_FOR(&t, "Stream 2");
    WAIT_FOR(&t, "900..1800");
    tmux_keys(&t, "(", NULL);
    WAIT_FOR(&t, "host stacks: 2 depth rows");
    tmux_keys(&t, ")", ")", NULL);
    WAIT_FOR(&t, "host stacks: 4 depth rows");
    tmux_keys(&t, "q", NULL);
    tmux_kill(&t);
}

/* Tables: / searches (the cursor moves, "i/n" said), n steps on, & filters; sorting puts
 * the cursor on the top row and says the order the header marks. */
TEST(overview_ui_table_search_and_sort)
{
    NEED_TMUX();
    if (!test_is_dir("fixtures/advisor/tiny_kernels"))
        SKIP("fixtures missing: make fixtures");
    struct tmux t = { 0 };
    if (!open_loaded(&t, "fixtures/advisor/clean", 120, 30)) {
        tmux_kill(&t);
        return;
    }
    tmux_keys(&t, "3", NULL);
    WAIT_FOR(&t, "[3]Kernels");
    tmux_keys(&t, "/", NULL);
    tmux_text(&t, "Norm");
    tmux_keys(&t, "Enter", NULL);
    WAIT_FOR(&t, "/Norm/ match 1/2");
    tmux_keys(&t, "n", NULL);
    WAIT_FOR(&t, "/Norm/ match 2/2");
    tmux_keys(&t, "n", NULL);
    WAIT_FOR(&t, "/Norm/ match 1/2");
    tmux_keys(&t, "&", NULL);
    tmux_text(&t, "SwiGlu");
    tmux_keys(&t, "Enter", NULL);
    WAIT_FOR(&t, "1 of 6 rows match /SwiGlu/");
    tmux_keys(&t, "Escape", NULL);
    tmux_keys(&t, "End", ">", NULL);
    WAIT_FOR(&t, "sorted by");
    char *s = tmux_screen(&t);
    CHECK(s && (strstr(s, "largest first") || strstr(s, "smallest first")));
    free(s);
    /* a view change clears the message */
    tmux_keys(&t, "1", NULL);
    WAIT_FOR(&t, "[1]Overview");
    s = tmux_screen(&t);
    CHECK(s && !strstr(s, "sorted by"));
    free(s);
    tmux_keys(&t, "q", NULL);
    tmux_kill(&t);
}

/* The span adds up on screen: busy + idle + outside (+ other where busy comes from
 * kernel_details.csv, which differs from the timeline's kernels), at 80 columns whole; the
 * figures themselves are checked against the files by tests/checks/overview_check.py. */
TEST(overview_ui_span_adds_up_at_80x24)
{
    NEED_TMUX();
    REAL_OR_SKIP(cap, "Ascend-msinsight/test/data/pytorch/text/level1/rank0_ascend_pt");
    struct tmux t = { 0 };
    if (!open_loaded(&t, cap, 80, 24)) {
        tmux_kill(&t);
        return;
    }
    WAIT_FOR(&t, "span = busy 110.837 ms + idle 65.689 ms + outside 222.289 ms + other 1.107 ms");
    check_fits(&t, 80, __LINE__);
    tmux_keys(&t, "q", NULL);
    tmux_kill(&t);
    /* wide enough: what each part is */
    struct tmux w = { 0 };
    if (!open_loaded(&w, cap, 200, 40)) {
        tmux_kill(&w);
        return;
    }
    WAIT_FOR(&w, "(outside: the host alone, before the first kernel and after the last; other: busy from kernel_details.csv)");
    tmux_keys(&w, "q", NULL);
    tmux_kill(&w);
}
