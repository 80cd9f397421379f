/* The Memory view in a real terminal (tmux): `8` shows the curves, the peak and the operators
 * alive at it; `p` puts the shared cursor on the peak and the Timeline shows it on the same
 * column; a time chosen in the Timeline (`g`) is the Memory view's cursor; `t` cycles the
 * tables (by size, size x lifetime, static vs dynamic, every rank's peaks); Enter on an
 * allocation opens the Timeline there. On a real two-rank capture (skipped when absent) whose
 * figures the report checks against Python (test_memory_cli.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runner.h"
#include "tmux.h"

#define REAL_L0 "Ascend-msinsight/test/data/pytorch/text/level0"
#define COLS 160
#define ROWS 40
#define WAIT 10000
#define CURSOR_MARK "\xe2\x96\xbc"   /* ▼ under the cursor's column on the ruler */

#define NEED_TMUX() do { if (!tmux_available()) SKIP("tmux not installed"); } while (0)

/* Display column of the cursor mark on the screen's ruler line (the first line holding it). */
static int cursor_col(const char *screen)
{
    const char *p = strstr(screen, CURSOR_MARK);
    if (!p)
        return -1;
    const char *bol = p;
    while (bol > screen && bol[-1] != '\n')
        bol--;
    int col = 0;
    for (const char *q = bol; q < p; q++)
        col += ((unsigned char)*q & 0xc0) != 0x80;
    return col;
}

static bool open_memory(struct tmux *t, const char *path)
{
    if (!tmux_open(t, path, COLS, ROWS, "loaded ", WAIT))
        return false;
    tmux_keys(t, "M", NULL);
    return tmux_wait(t, "Memory (rank 0)", WAIT) >= 0;
}

TEST(ui_memory_view_curves_peak_and_live_operators)
{
    NEED_TMUX();
    REAL_OR_SKIP(p, REAL_L0);
    struct tmux t;
    if (!open_memory(&t, p))
        return;
    /* the figures of `report --section memory` (checked against Python elsewhere) */
    CHECK(tmux_wait(&t, "peak alloc PTA+GE 1188.106 MB", WAIT) >= 0);
    CHECK(tmux_wait(&t, "reserved peak 1526.750 MB", WAIT) >= 0);
    char *s = tmux_screen(&t);
    CHECK(strstr(s, "PTA alloc") && strstr(s, "PTA+GE resv") && strstr(s, "GE alloc"));
    CHECK(strstr(s, "module HCCL resv") != NULL);
    CHECK(strstr(s, "operators alive at the peak") != NULL);
    CHECK(strstr(s, "aten::mm") != NULL);
    CHECK(strstr(s, "147456.5") != NULL);   /* the largest allocation alive at the peak, KB */
    free(s);
    tmux_kill(&t);
}

TEST(ui_memory_cursor_moves_with_the_timeline)
{
    NEED_TMUX();
    REAL_OR_SKIP(p, REAL_L0);
    struct tmux t;
    if (!open_memory(&t, p))
        return;
    char *s = tmux_screen(&t);
    int before = cursor_col(s);
    free(s);
    /* Memory -> Timeline: the peak's time becomes the timeline's cursor */
    tmux_keys(&t, "p", NULL);
    CHECK(tmux_wait(&t, "cursor 164.873 ms", WAIT) >= 0);
    s = tmux_screen(&t);
    int mem_col = cursor_col(s);
    free(s);
    CHECK(mem_col > 0 && mem_col != before);
    tmux_keys(&t, "2", NULL);
    CHECK(tmux_wait(&t, "[2]Timeline", WAIT) >= 0);
    s = tmux_screen(&t);
    CHECK_INT(cursor_col(s), mem_col);
    free(s);
    /* Timeline -> Memory: a time typed in the timeline is the memory cursor */
    tmux_keys(&t, "g", NULL);
    tmux_text(&t, "100ms");
    tmux_keys(&t, "Enter", "M", NULL);
    CHECK(tmux_wait(&t, "cursor 100.000 ms", WAIT) >= 0);
    /* and the cursor moves a column at a time with l, the timeline following */
    tmux_keys(&t, "l", NULL);
    CHECK(tmux_wait(&t, "cursor 102.604 ms", WAIT) >= 0);   /* 2.604 ms per column at 160 columns */
    s = tmux_screen(&t);
    int m2 = cursor_col(s);
    free(s);
    tmux_keys(&t, "2", NULL);
    CHECK(tmux_wait(&t, "[2]Timeline", WAIT) >= 0);
    s = tmux_screen(&t);
    CHECK_INT(cursor_col(s), m2);
    free(s);
    tmux_kill(&t);
}

TEST(ui_memory_tables_and_jump)
{
    NEED_TMUX();
    REAL_OR_SKIP(p, REAL_L0);
    struct tmux t;
    if (!open_memory(&t, p))
        return;
    tmux_keys(&t, "t", "t", NULL);
    CHECK(tmux_wait(&t, "[t] operators by size", WAIT) >= 0);
    tmux_keys(&t, "t", NULL);
    CHECK(tmux_wait(&t, "[t] operators by size x lifetime", WAIT) >= 0);
    char *s = tmux_screen(&t);
    CHECK(strstr(s, "KB x ms") != NULL);
    free(s);
    tmux_keys(&t, "t", NULL);
    CHECK(tmux_wait(&t, "dynamic at the peak", WAIT) >= 0);
    tmux_keys(&t, "t", "t", NULL);
    CHECK(tmux_wait(&t, "[t] every rank's peaks", WAIT) >= 0);
    s = tmux_screen(&t);
    /* both ranks side by side */
    CHECK(strstr(s, "   0  memory_record") && strstr(s, "   1  memory_record"));
    free(s);
    /* back to the ranking by size: Enter opens the largest allocation on the timeline */
    tmux_keys(&t, "t", "t", "t", NULL);
    CHECK(tmux_wait(&t, "[t] operators by size", WAIT) >= 0);
    tmux_keys(&t, "Enter", NULL);
    CHECK(tmux_wait(&t, "timeline at aten::mm", WAIT) >= 0);
    CHECK(tmux_wait(&t, "[2]Timeline", WAIT) >= 0);
    tmux_kill(&t);
}

TEST(ui_memory_view_without_memory_data)
{
    NEED_TMUX();
    struct tmux t;
    if (!tmux_open(&t, "fixtures/vllm_decode_2rank", COLS, ROWS, "loaded ", WAIT))
        return;
    tmux_keys(&t, "M", NULL);
    CHECK(tmux_wait(&t, "has no memory data", WAIT) >= 0);
    tmux_keys(&t, "p", "t", "w", "l", NULL);   /* keys on an empty view do nothing harmful */
    CHECK(tmux_wait(&t, "[M]Memory", WAIT) >= 0);
    tmux_keys(&t, "q", NULL);
    CHECK(tmux_wait(&t, "APTOP-EXIT=0", WAIT) >= 0);
    tmux_kill(&t);
}
