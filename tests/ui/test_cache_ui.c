/* The index cache through the real binary: a report from the cache equals the cold load's
 * on every real capture and fixture; --no-cache neither reads nor writes it; --cache-info
 * and --cache-clear; the explorer shows where the timeline came from. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner.h"
#include "tmux.h"

static char cache_home[4096];

/* A fresh XDG_CACHE_HOME for this test (aptop's cache goes to $XDG_CACHE_HOME/aptop). */
static void fresh_home(const char *name)
{
    char cwd[2048];
    if (!getcwd(cwd, sizeof cwd))
        snprintf(cwd, sizeof cwd, ".");
    snprintf(cache_home, sizeof cache_home, "%s/build/test_cache/cli_%s", cwd, name);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", cache_home, cache_home);
    CHECK(system(cmd) == 0);
    setenv("XDG_CACHE_HOME", cache_home, 1);
}

/* The report without the load time (the one figure that differs between two loads). */
static char *report(const char *path, const char *opts, int *st)
{
    char *out = test_aptop(st, "report --format json --section summary,kernels,flows,steps,phases,ranks,comm "
                           "%s '%s' 2>/dev/null | grep -v '\"load_ms\"'", opts, path);
    return out;
}

static int cache_files(void)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "ls '%s/aptop' 2>/dev/null | grep -c '\\.idx$'", cache_home);
    int st;
    char *out = test_run(cmd, &st);
    int n = atoi(out);
    free(out);
    return n;
}

static void cold_equals_warm(const char *path)
{
    int st1, st2;
    int before = cache_files();
    char *cold = report(path, "--cache-min 0", &st1);
    int written = cache_files() - before;
    char *warm = report(path, "--cache-min 0", &st2);
    CHECK_INT(st2, st1);
    if (strcmp(cold, warm) != 0)
        test_fail(__FILE__, __LINE__, "%s: the report from the index cache differs from the cold load", path);
    /* and the warm runs did use the cache: none of its files was found wanting */
    int st3;
    char *diags = test_aptop(&st3, "report --section diagnostics --cache-min 0 '%s' 2>&1", path);
    if (strstr(diags, "index cache discarded"))
        test_fail(__FILE__, __LINE__, "%s: a cache file written by a cold load was discarded: %s", path,
                  strstr(diags, "index cache discarded"));
    free(diags);
    if (written < 1 && strstr(cold, "\"slices\": 0") == NULL && strstr(cold, "slices") != NULL
        && strstr(cold, "\"lanes\": 0") == NULL)
        test_fail(__FILE__, __LINE__, "%s: a capture with a timeline wrote no index cache", path);
    free(cold);
    free(warm);
}

TEST(cache_ui_reports_equal_on_real_captures)
{
    const char *real = test_real_dir();
    if (!real)
        SKIP("../shared/real not found");
    fresh_home("real");
    /* every folder that holds a trace, a table or a SQLite export, taken as a capture */
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "find '%s' -type f \\( -name 'trace_view*.json' -o -name 'msprof*.json' "
             "-o -name '*.pt.trace.json*' -o -name '*.csv' -o -name '*.db' -o -name '*.dat' \\) -size +0 "
             "-exec dirname {} \\; | sort -u", real);
    int st;
    char *dirs = test_run(cmd, &st);
    int n = 0;
    for (char *line = strtok(dirs, "\n"); line; line = strtok(NULL, "\n"), n++)
        cold_equals_warm(line);
    CHECK(n >= 20);
    free(dirs);
}

TEST(cache_ui_reports_equal_on_fixtures)
{
    if (access("fixtures/vllm_decode_2rank", R_OK) != 0)
        SKIP("fixtures not generated (make fixtures)");
    fresh_home("fixtures");
    const char *caps[] = { "fixtures/vllm_decode_2rank", "fixtures/ranks4_slow", "fixtures/broken/truncated_trace",
                           "fixtures/phases", "fixtures/prof_classb",
                           "fixtures/prof_legacy/site/cluster/node-a/2026-01-19/run1" };   /* clock files */
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++)
        if (access(caps[i], R_OK) == 0)
            cold_equals_warm(caps[i]);
}

TEST(cache_ui_options)
{
    if (access("fixtures/vllm_decode_2rank", R_OK) != 0)
        SKIP("fixtures not generated (make fixtures)");
    fresh_home("options");
    int st;
    /* below the default size limit (8 MiB) nothing is cached */
    free(report("fixtures/vllm_decode_2rank", "", &st));
    CHECK_INT(cache_files(), 0);
    free(report("fixtures/vllm_decode_2rank", "--no-cache --cache-min 0", &st));
    CHECK_INT(cache_files(), 0);
    free(report("fixtures/vllm_decode_2rank", "--cache-min 0", &st));
    int n = cache_files();   /* each rank's timeline and each of its tables */
    CHECK(n >= 4);
    char *out = test_aptop(&st, "--cache-info");
    CHECK_INT(st, 0);
    CHECK(strstr(out, cache_home) != NULL);
    char want[64];
    snprintf(want, sizeof want, "%d files", n);
    CHECK(strstr(out, want) != NULL);
    free(out);
    out = test_aptop(&st, "--cache-clear");
    CHECK_INT(st, 0);
    snprintf(want, sizeof want, "removed %d file", n);
    CHECK(strstr(out, want) != NULL);
    free(out);
    CHECK_INT(cache_files(), 0);
    out = test_aptop(&st, "--cache-size 12Q fixtures/vllm_decode_2rank 2>&1");
    CHECK_INT(st, 2);
    CHECK(strstr(out, "--cache-size takes a size") != NULL);
    free(out);
}

/* Presses the number of the tab titled name (read off the header, so a renumbering of the
 * views does not break the test). */
static bool press_tab(struct tmux *t, const char *name)
{
    char *scr = tmux_screen(t);
    char *at = scr ? strstr(scr, name) : NULL;
    bool ok = false;
    if (at && at - scr >= 2 && at[-1] == ' ' && at[-2] >= '1' && at[-2] <= '9') {
        char key[2] = { at[-2], 0 };
        tmux_keys(t, key, NULL);
        ok = true;
    } else if (at && at - scr >= 3 && at[-1] == ']' && at[-3] == '[') {
        ok = true;   /* already the current tab */
    }
    free(scr);
    return ok;
}

TEST(cache_ui_explorer_says_timeline_came_from_cache)
{
    if (!tmux_available())
        SKIP("tmux not installed");
    if (access("fixtures/vllm_decode_2rank", R_OK) != 0)
        SKIP("fixtures not generated (make fixtures)");
    fresh_home("explorer");
    int st;
    free(report("fixtures/vllm_decode_2rank", "--cache-min 0", &st));
    struct tmux t = { 0 };
    if (!tmux_start(&t, "--cache-min 0 fixtures/vllm_decode_2rank", 400, 40)) {
        test_fail(__FILE__, __LINE__, "tmux did not start");
        return;
    }
    CHECK(tmux_wait(&t, "loaded ", 10000) >= 0);
    CHECK(press_tab(&t, "Ranks"));
    if (tmux_wait(&t, "index cache", 5000) < 0)
        test_fail(__FILE__, __LINE__, "the Ranks view does not say the timeline came from the index cache");
    tmux_keys(&t, "q", NULL);
    CHECK(tmux_wait(&t, "APTOP-EXIT=0", 3000) >= 0);
    tmux_kill(&t);
}
