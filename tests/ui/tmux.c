/* tmux driver for UI tests (see tmux.h). */
#include "tmux.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../runner.h"

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Single-quotes s for sh into out. */
static void quote(const char *s, char *out, size_t size)
{
    size_t o = 0;
    if (size < 3) { if (size) out[0] = 0; return; }
    out[o++] = '\'';
    for (; *s && o + 6 < size; s++) {
        if (*s == '\'') {
            memcpy(out + o, "'\\''", 4);
            o += 4;
        } else {
            out[o++] = *s;
        }
    }
    out[o++] = '\'';
    out[o] = 0;
}

static int sh(const char *cmd)
{
    int st;
    char *out = test_run(cmd, &st);
    free(out);
    return st;
}

bool tmux_available(void)
{
    return sh("tmux -V >/dev/null 2>&1") == 0;
}

bool tmux_start(struct tmux *t, const char *args, int cols, int rows)
{
    return tmux_start_sized(t, args, cols, rows, true);
}

bool tmux_start_sized(struct tmux *t, const char *args, int cols, int rows, bool pin_size)
{
    return tmux_start_env(t, "", args, cols, rows, pin_size);
}

bool tmux_start_env(struct tmux *t, const char *env, const char *args, int cols, int rows, bool pin_size)
{
    static int seq;
    const char *bin = test_bin();
    char abs[4096];
    if (bin[0] != '/' && getcwd(abs, sizeof abs)) {
        size_t n = strlen(abs);
        snprintf(abs + n, sizeof abs - n, "/%s", bin);
        bin = abs;
    }
    snprintf(t->sock, sizeof t->sock, "aptop-test-%d-%d", (int)getpid(), seq++);
    char inner[8192], q[8400], cmd[9000];
    char size_env[64] = "";
    if (pin_size)
        snprintf(size_env, sizeof size_env, "LINES=%d COLUMNS=%d ", rows, cols);
    /* settings of a fresh user for each session (a test wanting its own passes
     * XDG_CONFIG_HOME in env, which comes later and wins): one test's choices never
     * reach another, and the tester's own settings are never read or written */
    char config[128];
    snprintf(config, sizeof config, "/tmp/%s-config", t->sock);
    snprintf(inner, sizeof inner,
             "rm -rf %s; env TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC XDG_CONFIG_HOME=%s %s %s%s %s; "
             "echo APTOP-EXIT=$?; rm -rf %s; sleep 600", config, config, env, size_env, bin, args, config);
    quote(inner, q, sizeof q);
    snprintf(cmd, sizeof cmd, "tmux -L %s -f /dev/null new-session -d -x %d -y %d %s 2>&1",
             t->sock, cols, rows, q);
    t->live = sh(cmd) == 0;
    return t->live;
}

bool tmux_open_at(const char *file, int line, struct tmux *t, const char *path, int cols, int rows,
                  const char *until, long timeout_ms)
{
    char q[4200];
    quote(path, q, sizeof q);
    if (!tmux_start(t, q, cols, rows)) {
        test_fail(file, line, "tmux did not start for %s", path);
        return false;
    }
    if (tmux_wait(t, until, timeout_ms) < 0) {
        test_fail(file, line, "%s: the screen never showed \"%s\"", path, until);
        return false;
    }
    return true;
}

void tmux_keys(struct tmux *t, ...)
{
    char cmd[4096], q[256];
    size_t o = (size_t)snprintf(cmd, sizeof cmd, "tmux -L %s send-keys", t->sock);
    va_list ap;
    va_start(ap, t);
    const char *k;
    while ((k = va_arg(ap, const char *)) && o < sizeof cmd - 300) {
        quote(k, q, sizeof q);
        o += (size_t)snprintf(cmd + o, sizeof cmd - o, " %s", q);
    }
    va_end(ap);
    snprintf(cmd + o, sizeof cmd - o, " 2>/dev/null");
    sh(cmd);
}

void tmux_text(struct tmux *t, const char *text)
{
    char cmd[4096], q[2048];
    quote(text, q, sizeof q);
    snprintf(cmd, sizeof cmd, "tmux -L %s send-keys -l %s 2>/dev/null", t->sock, q);
    sh(cmd);
}

char *tmux_screen(struct tmux *t)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "tmux -L %s capture-pane -p 2>/dev/null", t->sock);
    int st;
    return test_run(cmd, &st);
}

void tmux_dump(struct tmux *t, const char *why)
{
    char *s = tmux_screen(t);
    printf("---- screen (%s) ----\n%s---- end of screen ----\n", why, s);
    free(s);
}

long tmux_wait(struct tmux *t, const char *text, long timeout_ms)
{
    long t0 = now_ms();
    for (;;) {
        char *s = tmux_screen(t);
        bool ok = strstr(s, text) != NULL;
        free(s);
        long el = now_ms() - t0;
        if (ok)
            return el;
        if (el > timeout_ms) {
            char why[256];
            snprintf(why, sizeof why, "waited %ld ms for \"%s\"", timeout_ms, text);
            tmux_dump(t, why);
            return -1;
        }
        usleep(30000);
    }
}

void tmux_resize(struct tmux *t, int cols, int rows)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "tmux -L %s resize-window -x %d -y %d >/dev/null 2>&1", t->sock, cols, rows);
    sh(cmd);
}

void tmux_kill(struct tmux *t)
{
    if (!t->live)
        return;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "tmux -L %s kill-server >/dev/null 2>&1; rm -rf /tmp/%s-config", t->sock, t->sock);
    sh(cmd);
    t->live = false;
}
