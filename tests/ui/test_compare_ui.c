/* The comparison of two captures in a real terminal (tmux): `aptop --diff BASE NEW` opens
 * the Compare view on a generated pair with planted changes (the slower, added and removed
 * kernels on screen with their status, Enter shows both captures' instances, `t` reaches
 * the aligned decode step); `aptop A B` opens a tab group per capture (`}` / `{` switch,
 * each with its own kernels); one rank against another of a real capture. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner.h"
#include "tmux.h"

#define COLS 220
#define ROWS 50
#define WAIT 15000

#define NEED_TMUX() do { if (!tmux_available()) SKIP("tmux not installed"); } while (0)

#define SLOWER "aclnnQuantMatmulV4_QuantBatchMat"   /* the start the Name column keeps of it */
#define ADDED "aclnnTopKV2_TopKV2_TopKV2"
#define REMOVED "aclnnCast_CastAiCore_Cast"

static char gen_dir[64];

static const char *generated(void)
{
    if (gen_dir[0])
        return gen_dir;
    snprintf(gen_dir, sizeof gen_dir, "/tmp/aptop_diff_ui_XXXXXX");
    if (!mkdtemp(gen_dir)) {
        gen_dir[0] = 0;
        return NULL;
    }
    char cmd[256];
    snprintf(cmd, sizeof cmd, "python3 tools/gen_diff_fixtures.py %s 2>&1", gen_dir);
    int st = -1;
    free(test_run(cmd, &st));
    if (st != 0) {
        rmdir(gen_dir);
        gen_dir[0] = 0;
        return NULL;
    }
    return gen_dir;
}

__attribute__((destructor)) static void remove_generated(void)
{
    if (gen_dir[0]) {
        char cmd[128];
        int st;
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", gen_dir);
        free(test_run(cmd, &st));
    }
}

static bool wait_for(struct tmux *t, const char *text, int line)
{
    if (tmux_wait(t, text, WAIT) < 0) {
        test_fail(__FILE__, line, "screen never showed \"%s\"", text);
        return false;
    }
    return true;
}
#define WAIT_FOR(t, text) wait_for(t, text, __LINE__)

/* The screen line holding text (malloc'd), or NULL. */
static char *line_with(struct tmux *t, const char *text)
{
    char *s = tmux_screen(t);
    char *p = s ? strstr(s, text) : NULL;
    char *out = NULL;
    if (p) {
        char *b = p, *e = strchr(p, '\n');
        while (b > s && b[-1] != '\n')
            b--;
        out = strndup(b, e ? (size_t)(e - b) : strlen(b));
    }
    free(s);
    return out;
}

static void check_row_status(struct tmux *t, const char *name, const char *status, int line)
{
    char *l = line_with(t, name);
    if (!l || !strstr(l, status)) {
        tmux_dump(t, "row status");
        test_fail(__FILE__, line, "row %s: %s, expected status %s", name, l ? l : "(not on screen)", status);
    }
    free(l);
}
#define ROW_STATUS(t, name, status) check_row_status(t, name, status, __LINE__)

TEST(compare_ui_diff_opens_comparison)
{
    NEED_TMUX();
    const char *dir = generated();
    if (!dir)
        SKIP("python3 or tools/gen_diff_fixtures.py not available");
    char args[512];
    snprintf(args, sizeof args, "--diff '%s/planted/base' '%s/planted/new'", dir, dir);
    struct tmux t;
    CHECK(tmux_start(&t, args, COLS, ROWS));
    if (!WAIT_FOR(&t, "loaded ")) {
        tmux_kill(&t);
        return;
    }
    WAIT_FOR(&t, "Compare kernels by name: 2 slower, 0 faster, 2 added, 2 removed, 16 unchanged");
    WAIT_FOR(&t, "[9]Compare");
    WAIT_FOR(&t, "capture 1/2");
    ROW_STATUS(&t, SLOWER, "slower");
    ROW_STATUS(&t, ADDED, "added");
    ROW_STATUS(&t, REMOVED, "removed");
    ROW_STATUS(&t, "hcom_allReduce__*_0_1", "unchanged");
    /* the first row is the costliest change: the slower kernel, and Enter shows both sides */
    tmux_keys(&t, "Enter", NULL);
    WAIT_FOR(&t, "20 rows in base, 20 in new");
    char *l = line_with(&t, "\xe2\x96\xb8 base");
    CHECK(l && strstr(l, SLOWER));
    free(l);
    tmux_keys(&t, "Escape", NULL);
    WAIT_FOR(&t, "Compare kernels by name");
    /* t: by type, ops, phases, comm, ranks, the aligned decode step */
    tmux_keys(&t, "t", NULL);
    WAIT_FOR(&t, "Compare kernels by type: 2 slower");
    ROW_STATUS(&t, "TopKV2", "added");
    tmux_keys(&t, "t", "t", NULL);
    WAIT_FOR(&t, "steps per phase");
    ROW_STATUS(&t, "decode", "slower");
    /* Enter: the steps of that rank's phase in both captures */
    tmux_keys(&t, "Enter", NULL);
    WAIT_FOR(&t, "decode: 20 rows in base, 20 in new");
    tmux_keys(&t, "Escape", NULL);
    WAIT_FOR(&t, "steps per phase");
    tmux_keys(&t, "t", "t", NULL);
    WAIT_FOR(&t, "ranks by id");
    tmux_keys(&t, "t", NULL);
    WAIT_FOR(&t, "canonical decode step, rank 0 (10 kernels) against rank 0 (10 kernels): 9 matched (1 slower, 0 faster), 1 added, 1 removed");
    ROW_STATUS(&t, ADDED, "added");
    ROW_STATUS(&t, REMOVED, "removed");
    ROW_STATUS(&t, SLOWER, "slower");
    tmux_keys(&t, "q", NULL);
    WAIT_FOR(&t, "APTOP-EXIT=0");
    tmux_kill(&t);
}

TEST(compare_ui_two_capture_session)
{
    NEED_TMUX();
    const char *dir = generated();
    if (!dir)
        SKIP("python3 or tools/gen_diff_fixtures.py not available");
    char args[512];
    snprintf(args, sizeof args, "'%s/planted/base' '%s/planted/new'", dir, dir);
    struct tmux t;
    CHECK(tmux_start(&t, args, COLS, ROWS));
    if (!WAIT_FOR(&t, "loaded ")) {
        tmux_kill(&t);
        return;
    }
    WAIT_FOR(&t, "base (capture 1/2, 2 ranks)");
    /* each capture its own kernels: the inserted kernel only in new, the removed only in base */
    tmux_keys(&t, "3", NULL);
    WAIT_FOR(&t, "Kernels (rank 0");
    WAIT_FOR(&t, REMOVED);
    char *s = tmux_screen(&t);
    CHECK(s && !strstr(s, ADDED));
    free(s);
    tmux_keys(&t, "}", NULL);
    WAIT_FOR(&t, "new (capture 2/2, 2 ranks)");
    WAIT_FOR(&t, ADDED);
    s = tmux_screen(&t);
    CHECK(s && !strstr(s, REMOVED));
    free(s);
    /* its own ranks: r reaches rank 1 of this capture, and wraps back to its rank 0 */
    tmux_keys(&t, "r", NULL);
    WAIT_FOR(&t, "Kernels (rank 1");
    tmux_keys(&t, "r", NULL);
    WAIT_FOR(&t, "Kernels (rank 0");
    WAIT_FOR(&t, "capture 2/2");
    /* the comparison: base is the first capture, new the one on screen */
    tmux_keys(&t, "9", NULL);
    WAIT_FOR(&t, "Compare kernels by name: 2 slower");
    tmux_keys(&t, "{", NULL);
    WAIT_FOR(&t, " base (capture 1/2");
    WAIT_FOR(&t, "Compare kernels by name: 2 slower");
    tmux_keys(&t, "q", NULL);
    WAIT_FOR(&t, "APTOP-EXIT=0");
    tmux_kill(&t);
}

TEST(compare_ui_one_capture_says_how)
{
    NEED_TMUX();
    const char *dir = generated();
    if (!dir)
        SKIP("python3 or tools/gen_diff_fixtures.py not available");
    char args[512];
    snprintf(args, sizeof args, "'%s/planted/base'", dir);
    struct tmux t;
    CHECK(tmux_start(&t, args, COLS, ROWS));
    if (!WAIT_FOR(&t, "loaded ")) {
        tmux_kill(&t);
        return;
    }
    tmux_keys(&t, "9", NULL);
    WAIT_FOR(&t, "one capture open: compare two with");
    tmux_keys(&t, "}", NULL);
    WAIT_FOR(&t, "one capture open (aptop A B opens several)");
    tmux_keys(&t, "q", NULL);
    tmux_kill(&t);
}

TEST(compare_ui_rank_against_rank_real)
{
    NEED_TMUX();
    REAL_OR_SKIP(dir, "Ascend-msinsight/test/data/pytorch/text/level1");
    char args[2400];
    snprintf(args, sizeof args, "--diff '%s:rank0' '%s:rank1'", dir, dir);
    struct tmux t;
    CHECK(tmux_start(&t, args, COLS, ROWS));
    if (!WAIT_FOR(&t, "loaded ")) {
        tmux_kill(&t);
        return;
    }
    WAIT_FOR(&t, "Compare kernels by name:");
    WAIT_FOR(&t, "(capture 1/2, 1 rank)");
    /* the report says the same counts */
    int st;
    char *out = test_aptop(&st, "report --diff --section kernels_diff '%s:rank0' '%s:rank1' 2>/dev/null | sed -n 2p", dir, dir);
    char *nl = out ? strchr(out, '\n') : NULL;
    if (nl)
        *nl = 0;
    char *semi = out ? strstr(out, "; noise") : NULL;
    if (semi)
        *semi = 0;
    CHECK(out && strstr(out, "rank 0 against rank 1"));
    if (out)
        WAIT_FOR(&t, out);
    free(out);
    tmux_keys(&t, "t", "t", "t", "t", "t", NULL);
    WAIT_FOR(&t, "rank 0 vs rank 1");
    tmux_keys(&t, "q", NULL);
    tmux_kill(&t);
}
