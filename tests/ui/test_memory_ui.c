/* The Memory view in a real terminal (tmux): `8` shows the curves, the peak and the operators
 * alive at it; `p` puts the shared cursor on the peak and the Timeline shows it on the same
 * column; a time chosen in the Timeline (`g`) is the Memory view's cursor; `t` cycles the
 * tables (by size, size x lifetime, static vs dynamic, every rank compared); Enter on an
 * allocation opens the Timeline there. On a real two-rank capture (skipped when absent) whose
 * figures the report checks against Python (test_memory_cli.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* A duration as the screen writes it ("104.199 ms", "46.9 µs", "1.5 s") at p, in ns; -1 when
 * p holds none. */
static double screen_dur(const char *p)
{
    char *end;
    double v = strtod(p, &end);
    if (end == p || *end != ' ')
        return -1;
    end++;
    if (!strncmp(end, "ns", 2)) return v;
    if (!strncmp(end, "\xc2\xb5s", 3) || !strncmp(end, "us", 2)) return v * 1e3;
    if (!strncmp(end, "ms", 2)) return v * 1e6;
    if (end[0] == 's') return v * 1e9;
    return -1;
}

/* The Memory view's cursor time ("cursor 104.199 ms:" at a line start), in ns; -1 when absent. */
static double screen_cursor(const char *screen)
{
    const char *p = strstr(screen, "\ncursor ");
    return p ? screen_dur(p + 8) : -1;
}

/* The shared axis' ns per column ("4.199 ms/col" in the ruler's corner), in ns; -1 when absent. */
static double screen_col_width(const char *screen)
{
    const char *p = strstr(screen, "/col");
    if (!p)
        return -1;
    const char *q = p;
    while (q > screen && q[-1] != ' ')
        q--;                                /* the unit */
    q--;
    while (q > screen && q[-1] != ' ')
        q--;                                /* the number */
    return screen_dur(q);
}

/* The column width's text as shown ("4.199 ms/col"), for comparing two views' axes. */
static void col_width_text(const char *screen, char *out, size_t size)
{
    const char *p = strstr(screen, "/col");
    out[0] = 0;
    if (!p)
        return;
    const char *q = p;
    int spaces = 0;
    while (q > screen && !(q[-1] == ' ' && ++spaces == 2))
        q--;
    snprintf(out, size, "%.*s", (int)(p - q), q);
}

/* Waits until the Memory view's cursor differs from `was`; returns the new screen (or the last
 * one after the timeout). */
static char *wait_cursor_change(struct tmux *t, double was)
{
    char *s = NULL;
    for (int i = 0; i < WAIT / 50; i++) {
        free(s);
        s = tmux_screen(t);
        double now = screen_cursor(s);
        if (now >= 0 && now != was)
            return s;
        usleep(50 * 1000);
    }
    return s;
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
    /* the header says when the peak is: "peak alloc PTA+GE 1188.106 MB at 164.873 ms" */
    const char *at = strstr(s, " MB at ");
    char want[64] = "";
    if (at) {
        const char *e = strstr(at + 7, "  ");
        snprintf(want, sizeof want, "cursor %.*s:", e ? (int)(e - at - 7) : 0, at + 7);
    }
    free(s);
    CHECK(want[7] != ':' && want[7] != 0);
    /* Memory -> Timeline: the peak's time becomes the timeline's cursor */
    tmux_keys(&t, "p", NULL);
    CHECK(tmux_wait(&t, want, WAIT) >= 0);
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
    tmux_keys(&t, "Enter", NULL);
    CHECK(tmux_wait(&t, "at 100.000 ms", WAIT) >= 0);
    s = tmux_screen(&t);
    int tl_col0 = cursor_col(s);
    char tl_width[64];
    col_width_text(s, tl_width, sizeof tl_width);
    free(s);
    tmux_keys(&t, "M", NULL);
    CHECK(tmux_wait(&t, "cursor 100.000 ms", WAIT) >= 0);
    s = tmux_screen(&t);
    double c0 = screen_cursor(s), width = screen_col_width(s);
    int m0 = cursor_col(s);
    char mem_width[64];
    col_width_text(s, mem_width, sizeof mem_width);
    free(s);
    /* one axis: the same column width and the cursor on the same column in both views */
    CHECK(tl_width[0] && !strcmp(tl_width, mem_width));
    CHECK(width > 0);
    CHECK_INT(m0, tl_col0);
    /* l moves the cursor one column of the visible range: its time by the width the ruler
     * shows (both printed to 0.001 of their unit), its mark one column right */
    tmux_keys(&t, "l", NULL);
    s = wait_cursor_change(&t, c0);
    double c1 = screen_cursor(s);
    int m1 = cursor_col(s);
    free(s);
    double moved = c1 - c0, slack = 1e3;  /* 0.001 ms: the last digit of both figures */
    if (!(moved >= width - slack && moved <= width + slack))
        printf("    cursor %.0f ns -> %.0f ns: moved %.0f ns, one column is %.0f ns (%s)\n",
               c0, c1, moved, width, mem_width);
    CHECK(moved >= width - slack && moved <= width + slack);
    CHECK_INT(m1, m0 + 1);
    /* the Timeline follows: its cursor one column right too, the Memory cursor unchanged */
    tmux_keys(&t, "2", NULL);
    CHECK(tmux_wait(&t, "[2]Timeline", WAIT) >= 0);
    s = tmux_screen(&t);
    CHECK_INT(cursor_col(s), tl_col0 + 1);
    CHECK_INT(cursor_col(s), m1);
    free(s);
    tmux_keys(&t, "M", NULL);
    CHECK(tmux_wait(&t, "[M]Memory", WAIT) >= 0);
    s = tmux_screen(&t);
    CHECK(screen_cursor(s) == c1);
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
    CHECK(tmux_wait(&t, "[t] every rank compared", WAIT) >= 0);
    s = tmux_screen(&t);
    /* both ranks side by side, their main curves' peaks (report --section memory_ranks, checked
     * against Python in test_memory_cli.c) and the verdict saying what it measured */
    CHECK(strstr(s, "   0  PTA+GE") && strstr(s, "   1  PTA+GE"));
    CHECK(strstr(s, "Above lowest MB") != NULL);
    CHECK(strstr(s, "every rank has the same allocated peak of its main memory_record component: 1188.106 MB") != NULL);
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
