/* The status line and the header at 80 columns on real captures, driven headless
 * (--script): a message keeps its last word (a long one is shortened in the middle), `!`
 * lists every message whole, a key the view has no use for says where it works, "(!)" is
 * only for warnings and errors, and with two captures open each header names its capture by
 * the shortest path suffix that tells it from the other. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <unistd.h>

#include "../runner.h"

#define TEXT_L1 "Ascend-msinsight/test/data/pytorch/text/level1"
#define DB_L1 "Ascend-msinsight/test/data/pytorch/db/level1"

/* The last line of screen n (the status line), malloc'd, or NULL. */
static char *status_line(const char *out, int n)
{
    char *scr = test_screen(out, n);
    if (!scr)
        return NULL;
    size_t len = strlen(scr);
    while (len && scr[len - 1] == '\n')
        scr[--len] = 0;
    char *nl = strrchr(scr, '\n');
    char *line = strdup(nl ? nl + 1 : scr);
    free(scr);
    return line;
}

TEST(status_ui_message_keeps_its_end_and_bang_lists_it_whole_real)
{
    REAL_OR_SKIP(p, TEXT_L1);
    /* a working folder with a long path: the export's message names the file in it */
    char dir[512];
    snprintf(dir, sizeof dir, "/tmp/aptop-status-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    strcat(dir, "/a-folder-with-a-long-name-to-make-the-message/longer-than-the-status-line");
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    int st = 0;
    free(test_run(cmd, &st));
    CHECK_INT(st, 0);
    char path[64];
    const char *f = test_temp_file("status", "loaded\nkeys 3 Enter\nwait Instances\nkeys e\nwait export CSV\n"
                                   "keys Enter\nwait exported\ndump\nkeys !\nwait Status messages\ndump\n",
                                   path, sizeof path);
    CHECK(f != NULL);
    char bin[4096], cap[4096];   /* both from the folder the test runs in */
    if (!realpath(test_bin(), bin))
        snprintf(bin, sizeof bin, "%s", test_bin());
    if (!realpath(p, cap))
        snprintf(cap, sizeof cap, "%s", p);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' --script '%s' --size 80x24 '%s' 2>&1", dir, bin, f, cap);
    char *out = test_run(cmd, &st);
    if (st)
        test_fail(__FILE__, __LINE__, "the run failed (%d):\n%s", st, out ? out : "");
    char *line = out ? status_line(out, 1) : NULL;
    CHECK(line != NULL);
    if (line) {
        /* its start and its last word: the file written */
        CHECK(strstr(line, "exported 1 rows to ") != NULL);
        if (!strstr(line, "aptop-kernel_instances-rank0.csv"))
            test_fail(__FILE__, __LINE__, "the message lost its end:\n%s", line);
    }
    free(line);
    /* `!`: the message whole (wrapped: its parts on the pane's lines) */
    char *scr = out ? test_screen(out, 2) : NULL;
    CHECK(scr && strstr(scr, "Status messages (2), newest last"));
    CHECK(scr && strstr(scr, "exported 1 rows to /tmp/aptop-status-"));
    free(scr);
    free(out);
    snprintf(cmd, sizeof cmd, "rm -rf '%.*s'", (int)(strstr(dir, "/a-folder") - dir), dir);
    free(test_run(cmd, &st));
    if (f)
        unlink(f);
}

TEST(status_ui_unused_key_says_where_it_works_and_notes_are_not_flagged_real)
{
    REAL_OR_SKIP(p, TEXT_L1);
    char path[64];
    const char *f = test_temp_file("status", "loaded\nkeys e\ndump\nkeys /\ndump\n", path, sizeof path);
    CHECK(f != NULL);
    int st = 0;
    char *out = test_aptop(&st, "--script '%s' --size 80x24 '%s' 2>&1", f, p);
    CHECK_INT(st, 0);
    char *a = out ? status_line(out, 1) : NULL, *b = out ? status_line(out, 2) : NULL;
    CHECK(a && strstr(a, "e does nothing in Overview: it is for Tables"));
    CHECK(b && strstr(b, "/ does nothing in Overview: it is for Timeline, Tables"));
    /* this capture's diagnostics are notes (kernel rows joined): counted, not flagged */
    int st2 = 0;
    char *warn = test_aptop(&st2, "report --format csv --section diagnostics '%s' 2>/dev/null | grep -c '^\\(warning\\|error\\),'", p);
    if (warn && atoi(warn) == 0)
        CHECK(a && !strstr(a, "(!)") && strstr(a, "notes"));
    free(warn);
    free(a);
    free(b);
    free(out);
    if (f)
        unlink(f);
}

TEST(status_ui_two_captures_headers_name_them_by_shortest_suffix_real)
{
    REAL_OR_SKIP(a, TEXT_L1);
    REAL_OR_SKIP(b, DB_L1);
    char path[64];
    const char *f = test_temp_file("status", "loaded\ndump\nkeys }\ndump\n", path, sizeof path);
    CHECK(f != NULL);
    int st = 0;
    char *out = test_aptop(&st, "--script '%s' --size 80x24 '%s' '%s' 2>&1", f, a, b);
    CHECK_INT(st, 0);
    char *s1 = out ? test_screen(out, 1) : NULL, *s2 = out ? test_screen(out, 2) : NULL;
    CHECK(s1 && !strncmp(s1, " aptop  text/level1", 19));
    CHECK(s2 && !strncmp(s2, " aptop  db/level1", 17));
    free(s1);
    free(s2);
    free(out);
    if (f)
        unlink(f);
}
