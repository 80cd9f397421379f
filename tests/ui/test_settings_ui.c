/* Settings that persist (sort, hidden columns, time units, folded timeline groups, kept in
 * $XDG_CONFIG_HOME/aptop/settings and never in the capture), the export prompt (asks for
 * a name, asks before overwriting, refuses the capture), and 80x24: every table keeps its
 * key column and its sort column on screen, also when scrolled right. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner.h"
#include "tmux.h"

#define FIXTURE "fixtures/vllm_decode_2rank"
#define WAIT 10000

#define NEED_ALL() do { if (!tmux_available()) SKIP("tmux not installed"); \
    if (!test_is_dir(FIXTURE)) SKIP("fixtures missing: make fixtures"); } while (0)

static bool open_with(struct tmux *t, const char *config, int cols, int rows)
{
    char env[600];
    snprintf(env, sizeof env, "XDG_CONFIG_HOME='%s'", config);
    if (!tmux_start_env(t, env, FIXTURE, cols, rows, true) || tmux_wait(t, "loaded ", WAIT) < 0) {
        tmux_dump(t, "explorer did not load");
        test_fail(__FILE__, __LINE__, "explorer did not load");
        return false;
    }
    return true;
}

static bool wait_text(struct tmux *t, const char *text, int line)
{
    if (tmux_wait(t, text, WAIT) < 0) {
        test_fail(__FILE__, line, "screen never showed \"%s\"", text);
        return false;
    }
    return true;
}
#define WAIT_FOR(t, text) wait_text(t, text, __LINE__)

/* Line y of the screen (0-based) into out. */
static void screen_line(const char *s, int y, char *out, size_t size)
{
    for (int i = 0; i < y && s; i++) {
        s = strchr(s, '\n');
        if (s)
            s++;
    }
    out[0] = 0;
    if (!s)
        return;
    size_t n = strcspn(s, "\n");
    snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), s);
}

/* The "sort: TITLE" of the caption (arrow dropped) into out; false when unsorted. */
static bool sort_title(const char *s, char *out, size_t size)
{
    const char *p = strstr(s, "sort: ");
    if (!p)
        return false;
    p += 6;
    size_t n = strcspn(p, "\n");
    snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), p);
    char *arrow = strstr(out, "\xe2\x96\xbc");
    if (!arrow)
        arrow = strstr(out, "\xe2\x96\xb2");
    if (arrow)
        *arrow = 0;
    for (size_t k = strlen(out); k && out[k - 1] == ' '; k--)
        out[k - 1] = 0;
    return out[0] != 0;
}

static char *mktmp(void)
{
    char *d = strdup("/tmp/aptop-settings-XXXXXX");
    if (!d || !mkdtemp(d)) {
        free(d);
        return NULL;
    }
    return d;
}

static void rmtmp(char *d)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    free(test_run(cmd, NULL));
    free(d);
}

/* Files of the capture changed or added since the stamp file (none ever should be). */
static char *capture_changes(const char *stamp)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "find %s -newer '%s' 2>/dev/null", FIXTURE, stamp);
    return test_run(cmd, NULL);
}

TEST(settings_ui_table_sort_columns_units_and_folds_persist)
{
    NEED_ALL();
    char *cfg = mktmp();
    CHECK(cfg != NULL);
    if (!cfg)
        return;
    char stamp[600], path[600];
    snprintf(stamp, sizeof stamp, "%s/stamp", cfg);
    snprintf(path, sizeof path, "%s/aptop/settings", cfg);
    FILE *f = fopen(stamp, "w");
    if (f)
        fclose(f);
    sleep(1);   /* file times have one-second steps on some file systems */
    struct tmux t = { 0 };
    if (!open_with(&t, cfg, 200, 50)) { tmux_kill(&t); rmtmp(cfg); return; }
    /* timeline (tab 2; the device comes first): fold the first group */
    tmux_keys(&t, "2", "Space", NULL);
    if (!WAIT_FOR(&t, "\xe2\x96\xb8 Ascend Hardware")) { tmux_kill(&t); rmtmp(cfg); return; }
    /* kernels: sort by the next column, hide Type, exact units */
    tmux_keys(&t, "3", NULL);
    if (!WAIT_FOR(&t, "Kernels (rank 0,")) { tmux_kill(&t); rmtmp(cfg); return; }
    char before[200] = "", after[200] = "";
    char *s = tmux_screen(&t);
    sort_title(s, before, sizeof before);
    free(s);
    tmux_keys(&t, ">", NULL);
    usleep(300000);
    s = tmux_screen(&t);
    CHECK(sort_title(s, after, sizeof after));
    free(s);
    CHECK(strcmp(before, after) != 0);
    tmux_keys(&t, "C", NULL);
    usleep(300000);
    s = tmux_screen(&t);
    /* the chooser lists the columns in order: Name first, then Type */
    CHECK(strstr(s, "[x]") != NULL);
    free(s);
    tmux_keys(&t, "Down", "Enter", "Escape", NULL);
    usleep(300000);
    tmux_keys(&t, "m", NULL);
    if (!WAIT_FOR(&t, "exact times")) { tmux_kill(&t); rmtmp(cfg); return; }
    s = tmux_screen(&t);
    char head[400];
    screen_line(s, 2, head, sizeof head);
    bool type_gone = strstr(head, "Type") == NULL;
    CHECK(type_gone);
    free(s);
    tmux_keys(&t, "q", NULL);
    CHECK(WAIT_FOR(&t, "APTOP-EXIT=0"));
    tmux_kill(&t);

    char *file = test_read_file(path, NULL);
    CHECK(file != NULL);
    if (file) {
        char want[300];
        snprintf(want, sizeof want, "table.kernels.sort ");
        CHECK(strstr(file, want) != NULL);
        CHECK(strstr(file, "table.kernels.hidden Type") != NULL || strstr(file, "table.kernels.hidden type") != NULL);
        CHECK(strstr(file, "units exact") != NULL);
        CHECK(strstr(file, "timeline.folded Ascend Hardware") != NULL);
        if (!strstr(file, "timeline.folded Ascend Hardware"))
            printf("    settings file:\n%s\n", file);
    }
    free(file);

    /* a second run starts where the first one left */
    struct tmux t2 = { 0 };
    if (!open_with(&t2, cfg, 200, 50)) { tmux_kill(&t2); rmtmp(cfg); return; }
    tmux_keys(&t2, "2", NULL);
    CHECK(WAIT_FOR(&t2, "\xe2\x96\xb8 Ascend Hardware"));
    tmux_keys(&t2, "3", NULL);
    if (WAIT_FOR(&t2, "Kernels (rank 0,")) {
        usleep(300000);
        s = tmux_screen(&t2);
        char again[200] = "";
        sort_title(s, again, sizeof again);
        CHECK_STR(again, after);
        screen_line(s, 2, head, sizeof head);
        CHECK(strstr(head, "Type") == NULL);
        CHECK(strstr(head, "Name") != NULL);
        free(s);
    }
    tmux_kill(&t2);
    char *changed = capture_changes(stamp);
    CHECK_STR(changed, "");
    free(changed);
    rmtmp(cfg);
}

TEST(settings_ui_export_asks_name_and_before_overwriting)
{
    NEED_ALL();
    char *cfg = mktmp();
    CHECK(cfg != NULL);
    if (!cfg)
        return;
    char out[600], stamp[600];
    snprintf(out, sizeof out, "%s/kernels.csv", cfg);
    snprintf(stamp, sizeof stamp, "%s/stamp", cfg);
    FILE *f = fopen(stamp, "w");
    if (f)
        fclose(f);
    sleep(1);
    struct tmux t = { 0 };
    if (!open_with(&t, cfg, 200, 50)) { tmux_kill(&t); rmtmp(cfg); return; }
    tmux_keys(&t, "3", NULL);
    if (!WAIT_FOR(&t, "Kernels (rank 0,")) { tmux_kill(&t); rmtmp(cfg); return; }
    /* a name typed at the prompt */
    tmux_keys(&t, "e", NULL);
    if (!WAIT_FOR(&t, "export CSV to: ")) { tmux_kill(&t); rmtmp(cfg); return; }
    CHECK(WAIT_FOR(&t, "aptop-kernels-rank0.csv"));   /* a name is offered */
    tmux_keys(&t, "C-u", NULL);
    tmux_text(&t, out);
    tmux_keys(&t, "Enter", NULL);
    CHECK(WAIT_FOR(&t, "exported 28 rows to"));
    char *csv = test_read_file(out, NULL);
    CHECK(csv && strncmp(csv, "name,", 5) == 0);
    size_t lines = 0;
    for (const char *p = csv; p && *p; p++)
        lines += *p == '\n';
    CHECK_INT(lines, 29);
    free(csv);
    /* the same name again: asked, "n" keeps the file */
    f = fopen(out, "w");
    if (f) {
        fputs("keep me\n", f);
        fclose(f);
    }
    tmux_keys(&t, "e", NULL);
    if (!WAIT_FOR(&t, "export CSV to: ")) { tmux_kill(&t); rmtmp(cfg); return; }
    tmux_keys(&t, "C-u", NULL);
    tmux_text(&t, out);
    tmux_keys(&t, "Enter", NULL);
    CHECK(WAIT_FOR(&t, "file exists: overwrite? (y/n)"));
    tmux_keys(&t, "n", "Enter", NULL);
    CHECK(WAIT_FOR(&t, "not exported"));
    csv = test_read_file(out, NULL);
    CHECK_STR(csv, "keep me\n");
    free(csv);
    /* "y" overwrites */
    tmux_keys(&t, "e", NULL);
    if (!WAIT_FOR(&t, "export CSV to: ")) { tmux_kill(&t); rmtmp(cfg); return; }
    tmux_keys(&t, "C-u", NULL);
    tmux_text(&t, out);
    tmux_keys(&t, "Enter", NULL);
    CHECK(WAIT_FOR(&t, "file exists: overwrite? (y/n)"));
    tmux_keys(&t, "y", "Enter", NULL);
    CHECK(WAIT_FOR(&t, "exported 28 rows to"));
    csv = test_read_file(out, NULL);
    CHECK(csv && strncmp(csv, "name,", 5) == 0);
    free(csv);
    /* inside the capture: refused */
    tmux_keys(&t, "e", NULL);
    if (!WAIT_FOR(&t, "export CSV to: ")) { tmux_kill(&t); rmtmp(cfg); return; }
    tmux_keys(&t, "C-u", NULL);
    tmux_text(&t, FIXTURE "/kernels.csv");
    tmux_keys(&t, "Enter", NULL);
    CHECK(WAIT_FOR(&t, "inside the capture"));
    /* Escape at the prompt cancels */
    tmux_keys(&t, "e", NULL);
    if (WAIT_FOR(&t, "export CSV to: ")) {
        tmux_keys(&t, "Escape", NULL);
        CHECK(WAIT_FOR(&t, "export cancelled"));
    }
    tmux_kill(&t);
    char *changed = capture_changes(stamp);
    CHECK_STR(changed, "");
    free(changed);
    rmtmp(cfg);
}

/* At 80x24, each table view shows its key column and its sort column, before and after
 * scrolling right as far as it goes. */
TEST(settings_ui_80x24_key_and_sort_columns_stay)
{
    NEED_ALL();
    char *cfg = mktmp();
    CHECK(cfg != NULL);
    if (!cfg)
        return;
    struct tmux t = { 0 };
    if (!open_with(&t, cfg, 80, 24)) { tmux_kill(&t); rmtmp(cfg); return; }
    static const char *const tabs[] = { "3", "4", "5", "6", "7" };
    int sorted = 0;
    for (size_t i = 0; i < sizeof tabs / sizeof *tabs; i++) {
        tmux_keys(&t, tabs[i], NULL);
        usleep(500000);
        char *s = tmux_screen(&t);
        char head[400], key[64] = "", title[200];
        /* the header is the line under the caption that holds the sort title or, unsorted, the first with letters */
        bool has_sort = sort_title(s, title, sizeof title);
        int hy = -1;
        for (int y = 1; y < 6 && hy < 0; y++) {
            screen_line(s, y, head, sizeof head);
            if (strstr(head, "sort: "))
                continue;
            if (has_sort ? strstr(head, title) != NULL : (strspn(head, " \xe2\x86\x90") < strlen(head)))
                hy = y;
        }
        if (!has_sort) {
            free(s);
            continue;
        }
        sorted++;
        if (hy < 0) {
            test_fail(__FILE__, __LINE__, "tab %s: sort column \"%s\" not in the header at 80x24", tabs[i], title);
            tmux_dump(&t, "80x24");
            free(s);
            continue;
        }
        screen_line(s, hy, head, sizeof head);
        sscanf(head + strspn(head, " "), "%63s", key);
        free(s);
        for (int k = 0; k < 30; k++)
            tmux_keys(&t, "Right", NULL);
        usleep(500000);
        s = tmux_screen(&t);
        screen_line(s, hy, head, sizeof head);
        if (!strstr(head, key) || !strstr(head, title)) {
            test_fail(__FILE__, __LINE__, "tab %s scrolled right: key \"%s\" or sort \"%s\" gone: %s", tabs[i], key,
                      title, head);
        }
        free(s);
        for (int k = 0; k < 30; k++)
            tmux_keys(&t, "Left", NULL);
    }
    CHECK(sorted >= 2);
    tmux_kill(&t);
    rmtmp(cfg);
}
