/* Many ranks in two passes, on the generated 64-rank capture (tools/gen_lazy_fixtures.py):
 * the Ranks view lists every rank with its step figures while no timeline is read (--lazy),
 * Enter on a row reads that rank's timeline and shows it, at most --max-ranks timelines stay
 * in memory (the least recently shown is freed and says so, and reads again when opened),
 * more than 16 ranks read this way by themselves with 4 in the background, and the options
 * are refused where they mean nothing. Headless (--script) and in tmux. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner.h"
#include "tmux.h"

#define FIX "fixtures/lazy64"
#define NOT_LOADED "not loaded: Enter loads it"
#define EVICTED "evicted: Enter loads it"

/* Runs the script on the capture with options; the screens it dumped (malloc'd). */
static char *run_script(const char *text, const char *opts, const char *size, int *st)
{
    char path[64];
    const char *f = test_temp_file("lazy", text, path, sizeof path);
    if (!f)
        return NULL;
    char *out = test_aptop(st, "--script '%s' --size %s %s '%s' 2>&1", f, size, opts, FIX);
    unlink(f);
    return out;
}


/* The Status cell of rank r's row in a Ranks screen ("" when the row is not there): the
 * rows start with the rank, then the device (when known), then the status. */
static void rank_status(const char *screen, int r, char *out, size_t size)
{
    out[0] = 0;
    for (const char *line = screen; line && *line;) {
        const char *eol = strchr(line, '\n');
        size_t n = eol ? (size_t)(eol - line) : strlen(line);
        char buf[1024];
        snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf ? n : sizeof buf - 1), line);
        char *p = buf;
        if (!strncmp(p, " \xe2\x96\xb8", 4))   /* the cursor */
            p += 4;
        char *end;
        long v = strtol(p, &end, 10);
        if (end != p && v == r && (*end == ' ')) {
            const char *cell = strstr(end, NOT_LOADED) ? NOT_LOADED : strstr(end, EVICTED) ? EVICTED
                             : strstr(end, "loading timeline") ? "loading timeline" : strstr(end, "loaded") ? "loaded" : "?";
            snprintf(out, size, "%s", cell);
            return;
        }
        line = eol ? eol + 1 : NULL;
    }
}

/* "keys Down Down ... Enter" to row r of the Ranks view from the top. */
static void keys_to_row(char *buf, size_t size, int r, const char *then)
{
    size_t o = (size_t)snprintf(buf, size, "keys Home");
    for (int i = 0; i < r && o < size; i++)
        o += (size_t)snprintf(buf + o, size - o, " Down");
    snprintf(buf + o, size - o, " %s\n", then);
}

TEST(lazy_ui_every_rank_listed_before_any_timeline_then_enter_reads_one)
{
    if (!test_is_dir(FIX))
        SKIP("fixtures not generated (make fixtures)");
    char to40[1024], script[2048];
    keys_to_row(to40, sizeof to40, 40, "Enter");
    snprintf(script, sizeof script,
             "loaded\nkeys 6\nwait [6]Ranks\ndump\n"
             "%s"
             "wait [2]Timeline\nwait Stream 2\ndump\n"
             "keys 6\nwait [6]Ranks\nkeys Home\nwait 1 of 64\ndump\n", to40);
    int st = 0;
    char *out = run_script(script, "--lazy", "240x72", &st);
    CHECK_INT(st, 0);
    char *s1 = test_screen(out, 1), *s2 = test_screen(out, 2), *s3 = test_screen(out, 3);
    CHECK(s1 && s2 && s3);
    if (s1 && s2 && s3) {
        /* every rank listed with its step figures from step_trace_time.csv, none read */
        CHECK(strstr(s1, "Ranks (64)") != NULL);
        CHECK(strstr(s1, "timelines in memory: 0 of 64 (at most 4)") != NULL);
        CHECK(strstr(s1, "0/64 timelines in memory") != NULL);
        char cell[64];
        int listed = 0;
        for (int r = 0; r < 64; r++) {
            rank_status(s1, r, cell, sizeof cell);
            listed += !strcmp(cell, NOT_LOADED);
        }
        CHECK_INT(listed, 64);
        CHECK(strstr(s1, "241.375") != NULL);        /* a step's µs, from the small files */
        CHECK(strstr(s1, "step_trace_time") != NULL);
        /* Enter on rank 40: its timeline, read on demand */
        CHECK(strstr(s2, "rank 40 ") != NULL);
        CHECK(strstr(s2, "Ascend Hardware") != NULL);
        CHECK(strstr(s2, "Group 0 Communication") != NULL);
        rank_status(s3, 40, cell, sizeof cell);
        CHECK_STR(cell, "loaded");
        rank_status(s3, 39, cell, sizeof cell);
        CHECK_STR(cell, NOT_LOADED);
    }
    free(s1);
    free(s2);
    free(s3);
    free(out);
}

TEST(lazy_ui_overview_says_which_figures_wait_for_timelines)
{
    if (!test_is_dir(FIX))
        SKIP("fixtures not generated (make fixtures)");
    int st = 0;
    char *out = run_script("loaded\nwait [1]Overview\ndump\nkeys 8\nwait X-Rank\ndump\n", "--lazy", "200x40", &st);
    CHECK_INT(st, 0);
    char *s1 = test_screen(out, 1), *s2 = test_screen(out, 2);
    CHECK(s1 && s2);
    if (s2) {   /* X-Rank: not "no timeline" but not read yet */
        CHECK(strstr(s2, "64 whose timeline is not in memory") != NULL);
        CHECK(strstr(s2, "r/R or Enter in Ranks reads one") != NULL);
    }
    if (s1) {
        /* the step split comes from the small files; busy and host-bound need the timeline */
        CHECK(strstr(s1, "computing 55.6%") != NULL);
        CHECK(strstr(s1, "timeline not in memory: busy, kernels and host-bound wait for it") != NULL);
        CHECK(strstr(s1, "the 0 of 64 ranks whose timeline is in memory") != NULL);
        CHECK(strstr(s1, "device rules over the 0 of 64 ranks") != NULL);
        CHECK(strstr(s1, "no timeline") == NULL);
    }
    free(s1);
    free(s2);
    free(out);
}

/* Kernels, Phases and Memory show the current rank's timeline half: showing them reads it. */
TEST(lazy_ui_kernels_view_reads_its_rank)
{
    if (!test_is_dir(FIX))
        SKIP("fixtures not generated (make fixtures)");
    int st = 0;
    /* the trace's kernels may show first while the rank's kernel table is read: wait for it */
    char *out = run_script("loaded\ndump\nkeys 3\ndump\nwait from the kernel table\ndump\n", "--lazy", "200x30", &st);
    CHECK_INT(st, 0);
    /* the progress never counts past its total, between the passes included */
    for (const char *q = out ? strstr(out, " file ") : NULL; q; q = strstr(q + 1, " file ")) {
        unsigned a = 0, b = 0;
        if (sscanf(q, " file %u/%u", &a, &b) == 2)
            CHECK(a <= b);
    }
    char *s1 = test_screen(out, 3);
    CHECK(s1 != NULL);
    if (s1) {
        CHECK(strstr(s1, "Kernels (rank 0, 6 names, 28 calls") != NULL);
        CHECK(strstr(s1, "1/64 timelines in memory") != NULL);
    }
    free(s1);
    free(out);
}

TEST(lazy_ui_max_ranks_evicts_the_least_recently_shown)
{
    if (!test_is_dir(FIX))
        SKIP("fixtures not generated (make fixtures)");
    char a[1024], b[1024], c[1024], d[1024], script[8192];
    keys_to_row(a, sizeof a, 5, "Enter");
    keys_to_row(b, sizeof b, 6, "Enter");
    keys_to_row(c, sizeof c, 7, "Enter");
    keys_to_row(d, sizeof d, 5, "Enter");
    snprintf(script, sizeof script,
             "loaded\nkeys 6\nwait [6]Ranks\n"
             "%swait rank 5 \xe2\x96\xb8\nwait Stream 2\nkeys 6\nwait [6]Ranks\n"
             "%swait rank 6 \xe2\x96\xb8\nwait Stream 2\nkeys 6\nwait [6]Ranks\n"
             "%swait rank 5's timeline freed\nwait Stream 2\nkeys 6\nwait [6]Ranks\nwait 2 of 64\ndump\n"
             "%swait rank 6's timeline freed\nwait Stream 2\nkeys 6\nwait [6]Ranks\nwait 2 of 64\ndump\n",
             a, b, c, d);
    int st = 0;
    char *out = run_script(script, "--lazy --max-ranks 2", "240x40", &st);
    CHECK_INT(st, 0);
    char *s1 = test_screen(out, 1), *s2 = test_screen(out, 2);
    CHECK(s1 && s2);
    if (s1 && s2) {
        char cell[64];
        /* 5 and 6 read, 7 opened: 5 was shown least recently and is freed */
        rank_status(s1, 5, cell, sizeof cell);
        CHECK_STR(cell, EVICTED);
        rank_status(s1, 6, cell, sizeof cell);
        CHECK_STR(cell, "loaded");
        rank_status(s1, 7, cell, sizeof cell);
        CHECK_STR(cell, "loaded");
        CHECK(strstr(s1, "2/64 timelines in memory") != NULL);
        /* 5 opened again: read again, 6 goes */
        rank_status(s2, 5, cell, sizeof cell);
        CHECK_STR(cell, "loaded");
        rank_status(s2, 6, cell, sizeof cell);
        CHECK_STR(cell, EVICTED);
        rank_status(s2, 7, cell, sizeof cell);
        CHECK_STR(cell, "loaded");
    }
    free(s1);
    free(s2);
    free(out);
}

TEST(lazy_ui_many_ranks_by_themselves_four_in_the_background)
{
    if (!test_is_dir(FIX))
        SKIP("fixtures not generated (make fixtures)");
    int st = 0;
    char *out = run_script("loaded\nkeys 6\nwait [6]Ranks\ndump\n", "", "240x30", &st);
    CHECK_INT(st, 0);
    char *s1 = test_screen(out, 1);
    CHECK(s1 != NULL);
    if (s1) {
        CHECK(strstr(s1, "timelines in memory: 4 of 64 (at most 4)") != NULL);
        char cell[64];
        for (int r = 0; r < 4; r++) {
            rank_status(s1, r, cell, sizeof cell);
            CHECK_STR(cell, "loaded");
        }
        rank_status(s1, 4, cell, sizeof cell);
        CHECK_STR(cell, NOT_LOADED);
    }
    free(s1);
    free(out);
    /* a few ranks: one pass, as before */
    if (test_is_dir("fixtures/ranks4_slow")) {
        char path[64];
        const char *f = test_temp_file("lazy", "loaded\nkeys 6\nwait [6]Ranks\ndump\n", path, sizeof path);
        out = f ? test_aptop(&st, "--script '%s' --size 200x20 fixtures/ranks4_slow 2>&1", f) : NULL;
        if (f)
            unlink(f);
        CHECK_INT(st, 0);
        CHECK(out && strstr(out, "Ranks (4)") != NULL);
        CHECK(out && strstr(out, "timelines in memory") == NULL);
        CHECK(out && strstr(out, NOT_LOADED) == NULL);
        free(out);
    }
}

TEST(lazy_ui_options_refused_where_they_mean_nothing)
{
    int st = 0;
    char *out = test_aptop(&st, "report --lazy '%s' 2>&1", FIX);
    CHECK_INT(st, 2);
    CHECK(out && strstr(out, "report reads every rank whole") != NULL);
    free(out);
    out = test_aptop(&st, "--max-ranks 0 '%s' 2>&1", FIX);
    CHECK_INT(st, 2);
    CHECK(out && strstr(out, "--max-ranks takes a number of ranks") != NULL);
    free(out);
    out = test_aptop(&st, "--help 2>&1");
    CHECK_INT(st, 0);
    CHECK(out && strstr(out, "--max-ranks N") != NULL);
    free(out);
}

TEST(lazy_tmux_ranks_first_then_a_rank_opened)
{
    if (!tmux_available())
        SKIP("tmux not installed");
    if (!test_is_dir(FIX))
        SKIP("fixtures not generated (make fixtures)");
    struct tmux t;
    if (!tmux_start(&t, "--lazy " FIX, 220, 30)) {
        tmux_kill(&t);
        SKIP("tmux could not start");
    }
    CHECK(tmux_wait(&t, "loaded 64 ranks' step and communication files", 15000) >= 0);
    tmux_keys(&t, "6", NULL);
    CHECK(tmux_wait(&t, "Ranks (64)", 15000) >= 0);
    CHECK(tmux_wait(&t, "timelines in memory: 0 of 64", 15000) >= 0);
    char *s = tmux_screen(&t);
    CHECK(s && strstr(s, NOT_LOADED) != NULL);
    free(s);
    for (int i = 0; i < 10; i++)
        tmux_keys(&t, "Down", NULL);
    tmux_keys(&t, "Enter", NULL);
    CHECK(tmux_wait(&t, "rank 10 \xe2\x96\xb8", 15000) >= 0);
    CHECK(tmux_wait(&t, "Group 0 Communication", 15000) >= 0);
    CHECK(tmux_wait(&t, "1/64 timelines in memory", 15000) >= 0);
    tmux_keys(&t, "q", NULL);
    CHECK(tmux_wait(&t, "APTOP-EXIT=0", 15000) >= 0);
    tmux_kill(&t);
}
