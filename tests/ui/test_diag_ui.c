/* The `!` pane on the older-layout fixture (a capture beside an unrelated one): every
 * diagnostic shows whole, wrapped onto more lines when longer than the pane, the pane
 * scrolls to the last one, and its count is that of `report --section diagnostics`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runner.h"
#include "tmux.h"

#define FIXTURE "fixtures/prof_legacy"

static const char *bin(void)
{
    const char *b = getenv("APTOP_BIN");
    return b ? b : "build/aptop";
}

/* The screen with its line breaks and the spaces of wrapping removed, so a message split
 * over lines reads as one string again. */
static char *joined(struct tmux *t)
{
    char *s = tmux_screen(t);
    if (!s)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; s[i]; i++) {
        if (s[i] == '\n') {
            while (k && s[k - 1] == ' ')
                k--;
            while (s[i + 1] == ' ')
                i++;
            s[k++] = ' ';
            continue;
        }
        s[k++] = s[i];
    }
    s[k] = 0;
    return s;
}

TEST(diag_ui_every_message_whole_and_scrolled)
{
    if (!tmux_available())
        SKIP("tmux not installed");
    char *e = test_read_file(FIXTURE "/EXPECTED.json", NULL);
    if (!e)
        SKIP("fixtures not generated (make fixtures)");
    free(e);
    /* what the report lists: level, path, message per line (CSV, header first) */
    char cmd[1024];
    int st;
    snprintf(cmd, sizeof cmd, "%s report --section diagnostics --format csv " FIXTURE " 2>/dev/null", bin());
    char *csv = test_run(cmd, &st);
    CHECK_INT(st, 0);
    int n = -2;   /* "# diagnostics" and the header line */
    for (char *p = csv; p && *p; p++)
        n += *p == '\n';
    CHECK(n > 10);
    CHECK(csv && strstr(csv, "2 unrelated captures here") != NULL);
    free(csv);

    struct tmux t;
    if (!tmux_open(&t, FIXTURE, 80, 24, "loaded", 10000))
        return;
    tmux_keys(&t, "!", NULL);
    char want[64];
    snprintf(want, sizeof want, "Diagnostics (%d)", n);
    CHECK(tmux_wait(&t, want, 5000) >= 0);
    /* the warning about the other capture is ~300 characters: wrapped, not cut */
    tmux_keys(&t, "End", NULL);
    CHECK(tmux_wait(&t, "of ", 3000) >= 0);
    bool found = false;
    for (int page = 0; page < 12 && !found; page++) {
        char *s = joined(&t);
        found = s && strstr(s, "2 unrelated captures here") && strstr(s, "open one on its own");
        if (s && !found && strstr(s, "2 unrelated captures here"))
            tmux_dump(&t, "the warning is on screen but its end is not");
        free(s);
        if (!found) {
            tmux_keys(&t, "PPage", NULL);
            tmux_wait(&t, "Diagnostics", 1000);
        }
    }
    CHECK(found);
    /* the first and the last message can both be reached */
    tmux_keys(&t, "Home", NULL);
    CHECK(tmux_wait(&t, "lines 1-", 3000) >= 0);
    CHECK(tmux_wait(&t, "hccl_0_1_1.json", 3000) >= 0);
    tmux_keys(&t, "End", NULL);
    CHECK(tmux_wait(&t, "another capture, not loaded", 3000) >= 0);
    tmux_keys(&t, "Escape", NULL);
    tmux_keys(&t, "q", NULL);
    CHECK(tmux_wait(&t, "APTOP-EXIT=0", 5000) >= 0);
    tmux_kill(&t);
}
