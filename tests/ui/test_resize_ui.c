/* A window resized under a running aptop (SIGWINCH, LINES/COLUMNS not pinned): the
 * timeline's ruler and a table's header are drawn again to the new width, narrower and
 * then wider, and the status line keeps its right-hand keys at the new right edge. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner.h"
#include "tmux.h"

#define FIXTURE "fixtures/vllm_decode_2rank"
#define WAIT 10000

/* Columns of a screen line: code points (every glyph aptop draws here is one column). */
static int line_cols(const char *s, size_t n)
{
    int c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xc0) != 0x80;
    return c;
}

/* Width of the first screen line containing `what` (-1: none). */
static int width_of_line_with(const char *screen, const char *what)
{
    const char *p = strstr(screen, what);
    if (!p)
        return -1;
    const char *b = p;
    while (b > screen && b[-1] != '\n')
        b--;
    const char *e = strchr(p, '\n');
    return line_cols(b, e ? (size_t)(e - b) : strlen(b));
}

/* Polls until the line containing `what` is `cols` wide (give or take `slack` columns
 * short of it), returning the width last seen. */
static int wait_width(struct tmux *t, const char *what, int cols, int slack)
{
    int w = -1;
    for (int i = 0; i < 100; i++) {
        char *s = tmux_screen(t);
        w = width_of_line_with(s, what);
        free(s);
        if (w <= cols && w >= cols - slack)
            return w;
        usleep(30000);
    }
    tmux_dump(t, what);
    return w;
}

TEST(resize_ui_timeline_and_table_follow_the_window)
{
    if (!tmux_available())
        SKIP("tmux not installed");
    if (!test_is_dir(FIXTURE))
        SKIP("fixtures missing: make fixtures");
    struct tmux t = { 0 };
    if (!tmux_start_sized(&t, FIXTURE, 160, 48, false)) {
        test_fail(__FILE__, __LINE__, "tmux did not start");
        return;
    }
    if (tmux_wait(&t, "loaded ", WAIT) < 0) {
        test_fail(__FILE__, __LINE__, "load did not finish");
        tmux_kill(&t);
        return;
    }
    /* the ruler's dotted line runs to the right edge: its width follows the window */
    tmux_keys(&t, "2", NULL);
    int w160 = wait_width(&t, "relative ", 160, 2);
    CHECK(w160 >= 158 && w160 <= 160);
    CHECK(wait_width(&t, "q:quit", 160, 1) >= 159);
    tmux_resize(&t, 100, 30);
    int w100 = wait_width(&t, "relative ", 100, 2);
    CHECK(w100 >= 98 && w100 <= 100);
    CHECK_INT(w160 - w100, 60);
    CHECK(wait_width(&t, "q:quit", 100, 1) >= 99);

    /* a table: at 100 columns the widest columns are cut off (a → marks more to the
     * right); at 220 the same view is drawn again with the columns that were hidden */
    tmux_keys(&t, "3", NULL);
    CHECK(tmux_wait(&t, "[3]Kernels", WAIT) >= 0);
    int hw = wait_width(&t, "Count ", 100, 4);
    CHECK(hw >= 96 && hw <= 100);
    char *s = tmux_screen(&t);
    CHECK(strstr(s, "AI Core") == NULL);
    CHECK(strstr(s, "\xe2\x86\x92") != NULL);
    free(s);
    tmux_resize(&t, 220, 40);
    CHECK(tmux_wait(&t, "AI Core", WAIT) >= 0);
    s = tmux_screen(&t);
    CHECK(width_of_line_with(s, "Count ") > 100);
    CHECK(width_of_line_with(s, "MatMulV2") > 100);
    free(s);
    /* back to the timeline at the new size: the ruler was laid out again for 220 */
    tmux_keys(&t, "2", NULL);
    int w220 = wait_width(&t, "relative ", 220, 2);
    CHECK_INT(w220 - w100, 120);

    tmux_keys(&t, "q", NULL);
    CHECK(tmux_wait(&t, "APTOP-EXIT=0", 2000) >= 0);
    tmux_kill(&t);
}
