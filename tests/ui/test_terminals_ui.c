/* Terminals: under TERM=xterm-256color, tmux-256color and screen-256color the explorer asks
 * the terminal for mouse reports, and a click sent the way the terminal then sends it (SGR
 * or the classic X10 bytes, as the pane's mouse flags say) sorts a table by its header.
 * NO_COLOR=1 draws without colour. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner.h"
#include "tmux.h"

#define FIXTURE "fixtures/vllm_decode_2rank"

static char *pane_format(struct tmux *t, const char *fmt)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "tmux -L %s display-message -p '%s' 2>/dev/null", t->sock, fmt);
    char *s = test_run(cmd, NULL);
    s[strcspn(s, "\n")] = 0;
    return s;
}

/* x and y are 0-based screen cells. */
static void click(struct tmux *t, int x, int y, bool sgr)
{
    char seq[64];
    if (sgr)
        snprintf(seq, sizeof seq, "\033[<0;%d;%dM\033[<0;%d;%dm", x + 1, y + 1, x + 1, y + 1);
    else   /* button byte, then column and row, each + 32 and 1-based; release is button 3 */
        snprintf(seq, sizeof seq, "\033[M%c%c%c\033[M%c%c%c", 32, 33 + x, 33 + y, 35, 33 + x, 33 + y);
    tmux_text(t, seq);
}

/* The screen line holding both words, its index, and the column of `at` in it. */
static int find_header(const char *screen, const char *w1, const char *w2, const char *at, int *col)
{
    int y = 0;
    for (const char *l = screen; *l; y++) {
        const char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l) : strlen(l);
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), l);
        char *a = strstr(line, w1), *b = strstr(line, w2), *c = strstr(line, at);
        if (a && b && c) {
            *col = (int)(c - line);
            return y;
        }
        if (!e)
            break;
        l = e + 1;
    }
    return -1;
}

static void mouse_sorts_under(const char *term)
{
    if (!tmux_available())
        SKIP("tmux not installed");
    if (!test_is_dir(FIXTURE))
        SKIP("fixtures missing: make fixtures");
    char env[64];
    snprintf(env, sizeof env, "TERM=%s", term);
    struct tmux t = { 0 };
    if (!tmux_start_env(&t, env, FIXTURE, 120, 40, true) || tmux_wait(&t, "loaded ", 10000) < 0) {
        CHECK(!"explorer did not load");
        tmux_kill(&t);
        return;
    }
    tmux_keys(&t, "3", NULL);
    if (tmux_wait(&t, "Kernels (rank 0,", 10000) < 0) {
        CHECK(!"no kernel table");
        tmux_kill(&t);
        return;
    }
    char *flags = pane_format(&t, "#{mouse_standard_flag}#{mouse_button_flag}#{mouse_any_flag} #{mouse_sgr_flag}");
    bool asked = flags[0] == '1' || flags[1] == '1' || flags[2] == '1';
    bool sgr = strchr(flags, ' ') && strchr(flags, ' ')[1] == '1';
    if (!asked)
        test_fail(__FILE__, __LINE__, "TERM=%s: no mouse reporting asked for (flags %s)", term, flags);
    free(flags);
    char *s = tmux_screen(&t);
    int x = -1, y = find_header(s, "Name", "Count", "Count", &x);
    free(s);
    CHECK(y > 0);
    if (asked && y > 0) {
        click(&t, x + 2, y, sgr);
        if (tmux_wait(&t, "sort: Count", 10000) < 0)
            test_fail(__FILE__, __LINE__, "TERM=%s: a click on the Count header did not sort (%s reports)", term,
                      sgr ? "SGR" : "X10");
    }
    tmux_kill(&t);
}

TEST(terminals_ui_mouse_xterm)
{
    mouse_sorts_under("xterm-256color");
}

TEST(terminals_ui_mouse_tmux)
{
    mouse_sorts_under("tmux-256color");
}

TEST(terminals_ui_mouse_screen)
{
    mouse_sorts_under("screen-256color");
}

/* Any SGR sequence (ESC [ ... m) setting a foreground or background colour: parameters
 * 30-38 or 40-48 (39 and 49 are the defaults) or the bright 90-107. */
static bool has_colour(const char *s)
{
    for (const char *p = strstr(s, "\033["); p; p = strstr(p + 1, "\033[")) {
        const char *q = p + 2;
        size_t n = strspn(q, "0123456789;");
        if (q[n] != 'm')
            continue;
        while (q < p + 2 + n) {
            char *end;
            long v = strtol(q, &end, 10);
            if (end == q)
                break;
            if ((v >= 30 && v <= 48 && v != 39) || (v >= 90 && v <= 107))
                return true;
            q = end;
            if (*q != ';')
                break;
            q++;
        }
    }
    return false;
}

/* NO_COLOR: the same screen without a colour attribute (tmux capture-pane -e shows them). */
TEST(terminals_ui_no_color)
{
    if (!tmux_available())
        SKIP("tmux not installed");
    if (!test_is_dir(FIXTURE))
        SKIP("fixtures missing: make fixtures");
    for (int k = 0; k < 2; k++) {
        struct tmux t = { 0 };
        if (!tmux_start_env(&t, k ? "NO_COLOR=1" : "", FIXTURE, 120, 40, true) || tmux_wait(&t, "loaded ", 10000) < 0) {
            CHECK(!"explorer did not load");
            tmux_kill(&t);
            return;
        }
        char cmd[256];
        snprintf(cmd, sizeof cmd, "tmux -L %s capture-pane -e -p", t.sock);
        char *s = test_run(cmd, NULL);
        bool colour = has_colour(s);
        if (k)
            CHECK(!colour);
        else
            CHECK(colour);   /* the check can see colour when there is some */
        if (k && colour)
            printf("    NO_COLOR screen has colour:\n%s\n", s);
        free(s);
        tmux_kill(&t);
    }
}
