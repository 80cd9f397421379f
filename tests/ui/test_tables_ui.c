/* The table views in a real terminal (tmux): Kernels sorted, filtered, drilled into and
 * jumped from into the timeline; Phases jumping to a step; rank switching; the Comm view
 * against communication.json; the column chooser; CSV export; a DB capture's kernel table
 * against the report. Every check reads the screen. Runs on the generated fixture and on
 * real captures (skipped when absent). */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../runner.h"
#include "tmux.h"

#define FIXTURE "fixtures/vllm_decode_2rank"
#define REAL_TEXT "Ascend-msinsight/test/data/pytorch/text/level1"
#define REAL_DB "Ascend-msinsight/test/data/pytorch/db/level1"
#define COLS 200
#define ROWS 50
#define WAIT 10000

#define NEED_TMUX() do { if (!tmux_available()) SKIP("tmux not installed"); } while (0)
#define FIXTURE_OR_SKIP(var) const char *var = test_is_dir(FIXTURE) ? FIXTURE : NULL; \
    if (!var) SKIP("fixtures missing: make fixtures")

/* Starts aptop on path and waits for the load to finish. */
static bool start_loaded(struct tmux *t, const char *path)
{
    return tmux_open(t, path, COLS, ROWS, "loaded ", WAIT);
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

/* --- reading the screen ----------------------------------------------------------------- */

struct lines { char *v[ROWS + 8]; int n; };

static void split_lines(char *screen, struct lines *l)
{
    l->n = 0;
    for (char *p = screen; p && *p && l->n < ROWS + 8;) {
        l->v[l->n++] = p;
        char *nl = strchr(p, '\n');
        if (!nl)
            break;
        *nl = 0;
        p = nl + 1;
    }
}

/* Characters [c0, c1) of a line counted in columns (every UTF-8 character is one column
 * here: the tables hold ASCII names plus single-width glyphs). */
static void cols_of(const char *line, int c0, int c1, char *out, size_t size)
{
    int col = 0;
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)line; *p && col < c1;) {
        size_t n = *p < 0x80 ? 1 : *p < 0xe0 ? 2 : *p < 0xf0 ? 3 : 4;
        if (col >= c0 && o + n < size) {
            memcpy(out + o, p, n);
            o += n;
        }
        for (size_t k = 0; k < n && p[k]; k++)
            ;
        p += n;
        col++;
    }
    out[o] = 0;
}

/* Column index (in columns) of needle in line, or -1. */
static int col_index(const char *line, const char *needle)
{
    const char *p = strstr(line, needle);
    if (!p)
        return -1;
    int col = 0;
    for (const unsigned char *q = (const unsigned char *)line; q < (const unsigned char *)p; col++)
        q += *q < 0x80 ? 1 : *q < 0xe0 ? 2 : *q < 0xf0 ? 3 : 4;
    return col;
}

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
    size_t k = 0;
    while (s[k] && isspace((unsigned char)s[k]))
        k++;
    memmove(s, s + k, n - k + 1);
}

/* The table under the header line holding `h1` and `h2`: the text of column `title` for
 * every row (a text column starts at the title; a number column ends where it ends).
 * Returns the number of rows, stops at the first blank line. */
static int table_column(const char *screen, const char *h1, const char *h2, const char *title,
                        bool numeric, char out[][128], int max)
{
    char *copy = strdup(screen);
    struct lines l;
    split_lines(copy, &l);
    int n = 0;
    for (int i = 0; i < l.n; i++) {
        if (!strstr(l.v[i], h1) || !strstr(l.v[i], h2))
            continue;
        int c = col_index(l.v[i], title);
        if (c < 0)
            break;
        /* the title as drawn runs to two blanks ("Total µs▼") */
        char rest[256];
        cols_of(l.v[i], c, c + 80, rest, sizeof rest);
        char *gap = strstr(rest, "  ");
        if (gap)
            *gap = 0;
        int tw = 0;
        for (const unsigned char *q = (const unsigned char *)rest; *q; tw++)
            q += *q < 0x80 ? 1 : *q < 0xe0 ? 2 : *q < 0xf0 ? 3 : 4;
        for (int r = i + 1; r < l.n - 1 && n < max; r++) {     /* the last line is the status */
            char probe[8];
            cols_of(l.v[r], 0, 6, probe, sizeof probe);
            trim(probe);
            if (!*l.v[r] || strspn(l.v[r], " ") == strlen(l.v[r]))
                break;
            if (numeric)
                cols_of(l.v[r], c + tw - 14 > 0 ? c + tw - 14 : 0, c + tw, out[n], 128);
            else
                cols_of(l.v[r], c, c + 60, out[n], 128);
            trim(out[n]);
            if (numeric) {
                /* the number is the last word before the column's right edge */
                char *sp = strrchr(out[n], ' ');
                if (sp)
                    memmove(out[n], sp + 1, strlen(sp + 1) + 1);
            } else {
                /* a text cell ends at two blanks */
                char *cut = strstr(out[n], "  ");
                if (cut)
                    *cut = 0;
            }
            n++;
        }
        break;
    }
    free(copy);
    return n;
}

static int count_matching(char rows[][128], int n, const char *sub)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (strcasestr(rows[i], sub))
            k++;
    return k;
}

/* --- Kernels: sort ---------------------------------------------------------------------- */

/* The sort the status line shows ("sort: Total ms▼" gives "Total ms▼"), false when none. */
static bool sort_label(const char *screen, char *out, size_t size)
{
    const char *p = strstr(screen, "sort: ");
    if (!p)
        return false;
    p += strlen("sort: ");
    size_t n = 0;
    while (p[n] && p[n] != '\n' && !(p[n] == ' ' && p[n + 1] == ' ') && n + 1 < size)
        n++;
    memcpy(out, p, n);
    out[n] = 0;
    return n > 0;
}

static void kernels_sort(const char *path)
{
    struct tmux t = { 0 };
    if (!start_loaded(&t, path)) { tmux_kill(&t); return; }
    tmux_keys(&t, "3", NULL);
    if (!WAIT_FOR(&t, "Kernels (rank 0,")) { tmux_kill(&t); return; }
    char *s = tmux_screen(&t);
    static char tot[64][128], names[64][128];
    int n = table_column(s, "Name", "Count", "Total ", true, tot, 64);
    CHECK(n >= 3);
    /* the default order: total descending */
    for (int i = 1; i < n; i++)
        if (atof(tot[i]) > atof(tot[i - 1]) + 1e-9)
            test_fail(__FILE__, __LINE__, "row %d total %s above row %d total %s", i, tot[i], i - 1, tot[i - 1]);
    free(s);
    /* '<' back to the Name column: A to Z. One key at a time, each sent only after the
     * screen shows the sort the last one chose: a key sent while a frame is late would move
     * the sort past Name. */
    for (int k = 0; k < 8; k++) {
        char before[64];
        s = tmux_screen(&t);
        bool done = sort_label(s, before, sizeof before) && !strncmp(before, "Name", 4);
        free(s);
        if (done)
            break;
        tmux_keys(&t, "<", NULL);
        for (int w = 0; w < 100; w++) {   /* up to 10 s for the sort to change */
            char now[64];
            s = tmux_screen(&t);
            bool changed = sort_label(s, now, sizeof now) && strcmp(now, before);
            free(s);
            if (changed)
                break;
            usleep(100000);
        }
    }
    if (!WAIT_FOR(&t, "sort: Name")) { tmux_kill(&t); return; }
    s = tmux_screen(&t);
    n = table_column(s, "Name", "Count", "Name", false, names, 64);
    CHECK(n >= 3);
    int inversions = 0;
    for (int i = 1; i < n; i++)
        if (strcmp(names[i - 1], names[i]) > 0) {
            printf("not A to Z: \"%s\" before \"%s\"\n", names[i - 1], names[i]);
            inversions++;
        }
    CHECK_INT(inversions, 0);
    char first[128];
    snprintf(first, sizeof first, "%s", n ? names[0] : "");
    free(s);
    /* I reverses: Z to A */
    tmux_keys(&t, "I", NULL);
    if (!WAIT_FOR(&t, "sort: Name\xe2\x96\xbc")) { tmux_kill(&t); return; }
    s = tmux_screen(&t);
    n = table_column(s, "Name", "Count", "Name", false, names, 64);
    CHECK(n >= 3);
    inversions = 0;
    for (int i = 1; i < n; i++)
        if (strcmp(names[i - 1], names[i]) < 0)
            inversions++;
    CHECK_INT(inversions, 0);
    CHECK(n && strcmp(names[0], first) != 0);
    free(s);
    tmux_keys(&t, "q", NULL);
    CHECK(tmux_wait(&t, "APTOP-EXIT=0", 3000) >= 0);
    tmux_kill(&t);
}

TEST(tables_ui_kernels_sort)
{
    NEED_TMUX();
    FIXTURE_OR_SKIP(f);
    kernels_sort(f);
}

TEST(tables_ui_kernels_sort_real)
{
    NEED_TMUX();
    REAL_OR_SKIP(p, REAL_TEXT);
    kernels_sort(p);
}

/* --- Kernels: filter ---------------------------------------------------------------------- */

static void kernels_filter(const char *path, const char *pattern)
{
    struct tmux t = { 0 };
    if (!start_loaded(&t, path)) { tmux_kill(&t); return; }
    tmux_keys(&t, "3", NULL);
    if (!WAIT_FOR(&t, "Kernels (rank 0,")) { tmux_kill(&t); return; }
    char *s = tmux_screen(&t);
    static char names[64][128];
    int before = table_column(s, "Name", "Count", "Name", false, names, 64);
    int matching_before = count_matching(names, before, pattern);
    free(s);
    CHECK(before > matching_before);        /* some rows must go, or the test proves nothing */
    tmux_keys(&t, "&", NULL);
    tmux_text(&t, pattern);
    tmux_keys(&t, "Enter", NULL);
    char want[96];
    snprintf(want, sizeof want, "filter: /%s/", pattern);
    if (!WAIT_FOR(&t, want)) { tmux_kill(&t); return; }
    s = tmux_screen(&t);
    int after = table_column(s, "Name", "Count", "Name", false, names, 64);
    CHECK(after > 0);
    CHECK(after < before);
    /* every row left matches in some text column: the name, type or core */
    char *copy = strdup(s);
    struct lines l;
    split_lines(copy, &l);
    int header = -1;
    for (int i = 0; i < l.n && header < 0; i++)
        if (strstr(l.v[i], "Name") && strstr(l.v[i], "Count"))
            header = i;
    CHECK(header >= 0);
    for (int i = header + 1; header >= 0 && i < header + 1 + after; i++)
        if (!strcasestr(l.v[i], pattern))
            test_fail(__FILE__, __LINE__, "row without /%s/ left: %s", pattern, l.v[i]);
    free(copy);
    free(s);
    /* Esc clears the filter: every row is back */
    tmux_keys(&t, "Escape", NULL);
    if (!WAIT_FOR(&t, "filter cleared")) { tmux_kill(&t); return; }
    s = tmux_screen(&t);
    CHECK(strstr(s, "filter: /") == NULL);
    CHECK_INT(table_column(s, "Name", "Count", "Name", false, names, 64), before);
    free(s);
    tmux_kill(&t);
}

TEST(tables_ui_kernels_filter)
{
    NEED_TMUX();
    FIXTURE_OR_SKIP(f);
    kernels_filter(f, "matmul");
}

TEST(tables_ui_kernels_filter_real)
{
    NEED_TMUX();
    REAL_OR_SKIP(p, REAL_TEXT);
    kernels_filter(p, "mul");
}

/* --- Kernels: instances and the jump to the timeline --------------------------------------- */

static void kernels_drill(const char *path, bool ms_durations)
{
    struct tmux t = { 0 };
    if (!start_loaded(&t, path)) { tmux_kill(&t); return; }
    tmux_keys(&t, "3", NULL);
    if (!WAIT_FOR(&t, "Kernels (rank 0,")) { tmux_kill(&t); return; }
    char *s = tmux_screen(&t);
    static char names[64][128], counts[64][128];
    int n = table_column(s, "Name", "Count", "Name", false, names, 64);
    table_column(s, "Name", "Count", "Count", true, counts, 64);
    free(s);
    CHECK(n > 0);
    if (!n) { tmux_kill(&t); return; }
    char name[128];
    snprintf(name, sizeof name, "%s", names[0]);
    long calls = atol(counts[0]);
    tmux_keys(&t, "Enter", NULL);
    if (!WAIT_FOR(&t, "Instances of kernel")) { tmux_kill(&t); return; }
    s = tmux_screen(&t);
    char want[200];
    snprintf(want, sizeof want, "%ld calls", calls);
    CHECK(strstr(s, want) != NULL);
    CHECK(strstr(s, name) != NULL);
    bool joined = strstr(s, " 0 in the timeline") == NULL;
    bool comm = !strncmp(name, "hcom_", 5);     /* a collective: on the communication lanes */
    int rows = table_column(s, "Name", "Start", "Name", false, names, 64);
    CHECK(rows == (calls < 44 ? calls : rows));
    CHECK(rows > 0);
    for (int i = 0; i < rows; i++)
        if (strncmp(names[i], name, strlen(names[i])) != 0)
            test_fail(__FILE__, __LINE__, "instance row %d is %s, not %s", i, names[i], name);
    /* a file's "Duration(us)" header over values shown in ms says ms (the real capture's
     * first kernel lasts 79 ms) */
    if (ms_durations) {
        static char durs[64][128];
        CHECK(table_column(s, "Name", "Duration(ms)", "Duration(ms)", true, durs, 64) > 0);
        CHECK(strstr(s, "Duration(us)") == NULL);
        CHECK(atof(durs[0]) > 1 && atof(durs[0]) < 1000);
    }
    free(s);
    /* Esc goes back to the aggregates; Enter again, then Enter jumps */
    tmux_keys(&t, "Escape", NULL);
    if (!WAIT_FOR(&t, "Kernels (rank 0,")) { tmux_kill(&t); return; }
    tmux_keys(&t, "Enter", NULL);
    if (!WAIT_FOR(&t, "Instances of kernel")) { tmux_kill(&t); return; }
    tmux_keys(&t, "Enter", NULL);
    if (!WAIT_FOR(&t, "[2]Timeline")) { tmux_kill(&t); return; }
    /* the detail pane names the kernel and its lane: the device's, or HCCL's for a collective */
    snprintf(want, sizeof want, "%.40s", name);
    if (!WAIT_FOR(&t, " dur ")) { tmux_kill(&t); return; }
    s = tmux_screen(&t);
    char *copy = strdup(s);
    struct lines l;
    split_lines(copy, &l);
    bool pane = false;
    for (int i = l.n / 2; i < l.n; i++)
        if (!strncmp(l.v[i], " ", 1) && strstr(l.v[i], want) && strstr(l.v[i], "dur ") &&
            (!joined || strstr(l.v[i], comm ? "HCCL" : "Ascend Hardware")))
            pane = true;
    /* a kernel row not joined to a slice is found by name and start */
    if (!joined)
        CHECK(strstr(s, "matched by name and start time") != NULL);
    /* every row of these captures joins, collectives too (their files' starts differ by up
     * to 1 ns: 1736408883813620.129 in kernel_details.csv, .130 in the trace) */
    CHECK(joined);
    if (!pane)
        tmux_dump(&t, "no detail line for the kernel");
    CHECK(pane);
    free(copy);
    free(s);
    tmux_kill(&t);
}

TEST(tables_ui_kernels_drill_and_jump)
{
    NEED_TMUX();
    FIXTURE_OR_SKIP(f);
    kernels_drill(f, false);
}

TEST(tables_ui_kernels_drill_and_jump_real)
{
    NEED_TMUX();
    REAL_OR_SKIP(p, REAL_TEXT);
    kernels_drill(p, true);
}

/* --- Phases ------------------------------------------------------------------------------ */

/* ns per column of the timeline ruler ("39 µs/col"), or -1. */
static double ns_per_col(const char *s)
{
    const char *p = strstr(s, "/col");
    if (!p)
        return -1;
    const char *q = p;
    while (q > s && q[-1] != ' ')
        q--;                               /* the unit */
    const char *unit = q;
    q--;
    while (q > s && q[-1] != ' ')
        q--;                               /* the number */
    double v = atof(q);
    if (!strncmp(unit, "ns", 2)) return v;
    if (!strncmp(unit, "ms", 2)) return v * 1e6;
    if (!strncmp(unit, "s/", 2)) return v * 1e9;
    return v * 1e3;                        /* µs */
}

TEST(tables_ui_phases_jump)
{
    NEED_TMUX();
    FIXTURE_OR_SKIP(f);
    struct tmux t = { 0 };
    if (!start_loaded(&t, f)) { tmux_kill(&t); return; }
    tmux_keys(&t, "2", NULL);
    if (!WAIT_FOR(&t, "[2]Timeline")) { tmux_kill(&t); return; }
    char *s = tmux_screen(&t);
    double fit = ns_per_col(s);
    free(s);
    CHECK(fit > 0);
    tmux_keys(&t, "5", NULL);
    if (!WAIT_FOR(&t, "Steps (source:")) { tmux_kill(&t); return; }
    s = tmux_screen(&t);
    CHECK(strstr(s, "step time") != NULL);
    CHECK(strstr(s, "Per phase") != NULL);
    static char dur[64][128], idx[64][128];
    int n = table_column(s, "Step ", "Phase ", "Dur ", true, dur, 64);
    table_column(s, "Step ", "Phase ", "Step", true, idx, 64);
    bool dur_ms = strstr(s, "Dur ms") != NULL;
    free(s);
    CHECK(n >= 2);
    if (n < 2) { tmux_kill(&t); return; }
    /* the second step, then Enter: the timeline shows that step */
    tmux_keys(&t, "j", "Enter", NULL);
    char want[64];
    snprintf(want, sizeof want, "step %ld (", atol(idx[1]));
    if (!WAIT_FOR(&t, want)) { tmux_kill(&t); return; }
    if (!WAIT_FOR(&t, "[2]Timeline")) { tmux_kill(&t); return; }
    s = tmux_screen(&t);
    double npc = ns_per_col(s);
    /* the step fills the graph: columns cover about its duration, far less than the fit */
    double step_ns = atof(dur[1]) * (dur_ms ? 1e6 : 1e3);
    CHECK(npc > 0 && npc < fit);
    CHECK(npc * 40 < step_ns * 4);       /* >= 40 columns would hold 4 steps at most */
    free(s);
    tmux_kill(&t);
}

/* Opens f on the steps of rank 0, then its canonical decode step (j, c). */
static bool start_on_canonical(struct tmux *t, const char *f)
{
    if (!start_loaded(t, f))
        return false;
    tmux_keys(t, "5", NULL);
    if (!WAIT_FOR(t, "Steps of rank 0"))
        return false;
    tmux_keys(t, "j", "c", NULL);
    return WAIT_FOR(t, "Canonical decode step of rank 0");
}

/* The canonical decode step stays open across a rank switch and then names the new rank
 * (its figures are the new rank's; the caption must say so). */
TEST(tables_ui_canonical_follows_rank_switch)
{
    NEED_TMUX();
    FIXTURE_OR_SKIP(f);
    struct tmux t = { 0 };
    if (!start_on_canonical(&t, f)) { tmux_kill(&t); return; }
    tmux_keys(&t, "r", NULL);
    if (!WAIT_FOR(&t, "Canonical decode step of rank 1")) { tmux_kill(&t); return; }
    char *s = tmux_screen(&t);
    CHECK(strstr(s, "of rank 0") == NULL);
    CHECK(strstr(s, " rank 1 ") != NULL);
    free(s);
    tmux_kill(&t);
}

/* The canonical decode step closes as it opened (c) and with Esc, back to the steps. */
TEST(tables_ui_canonical_closes_with_c_or_esc)
{
    NEED_TMUX();
    FIXTURE_OR_SKIP(f);
    struct tmux t = { 0 };
    if (!start_on_canonical(&t, f)) { tmux_kill(&t); return; }
    tmux_keys(&t, "c", NULL);
    CHECK(WAIT_FOR(&t, "Steps of rank 0"));
    tmux_keys(&t, "c", NULL);
    CHECK(WAIT_FOR(&t, "Canonical decode step of rank 0"));
    tmux_keys(&t, "Escape", NULL);
    CHECK(WAIT_FOR(&t, "Steps of rank 0"));
    tmux_kill(&t);
}

/* --- ranks ----------------------------------------------------------------------------- */

TEST(tables_ui_rank_switch)
{
    NEED_TMUX();
    FIXTURE_OR_SKIP(f);
    struct tmux t = { 0 };
    if (!start_loaded(&t, f)) { tmux_kill(&t); return; }
    tmux_keys(&t, "3", NULL);
    if (!WAIT_FOR(&t, "Kernels (rank 0,")) { tmux_kill(&t); return; }
    tmux_keys(&t, "r", NULL);
    if (!WAIT_FOR(&t, "Kernels (rank 1,")) { tmux_kill(&t); return; }
    char *s = tmux_screen(&t);
    CHECK(strstr(s, " rank 1 ") != NULL);
    CHECK(strstr(s, "Kernels (rank 0,") == NULL);
    free(s);
    /* the Ranks view lists both and says what its verdict measured */
    tmux_keys(&t, "6", NULL);
    if (!WAIT_FOR(&t, "Ranks (2)")) { tmux_kill(&t); return; }
    s = tmux_screen(&t);
    CHECK(strstr(s, "others wait for it") != NULL || strstr(s, "longest step") != NULL);
    static char rk[8][128];
    CHECK_INT(table_column(s, "Rank", "Device", "Rank", true, rk, 8), 2);
    free(s);
    tmux_kill(&t);
}

/* --- Comm --------------------------------------------------------------------------------- */

/* The op keys of the first step of communication.json in dir (at most max). */
static int comm_keys(const char *dir, char keys[][128], int max)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/ASCEND_PROFILER_OUTPUT/communication.json", dir);
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    static char buf[1 << 20];
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = 0;
    cJSON *root = cJSON_Parse(buf);
    int n = 0;
    cJSON *step = root ? root->child : NULL;
    for (cJSON *kind = step ? step->child : NULL; kind; kind = kind->next)
        for (cJSON *op = kind->child; op && n < max; op = op->next)
            if (op->string && !strstr(op->string, "Total Op Info"))
                snprintf(keys[n++], 128, "%s", op->string);
    cJSON_Delete(root);
    return n;
}

/* The rank directory named in the header ("rank 0 ▸ LABEL"). */
static bool header_dir(const char *screen, const char *root, char *out, size_t size)
{
    const char *p = strstr(screen, "rank 0 \xe2\x96\xb8 ");
    if (!p)
        return false;
    p += strlen("rank 0 \xe2\x96\xb8 ");
    size_t n = strcspn(p, " \n");
    snprintf(out, size, "%s/%.*s", root, (int)n, p);
    return n > 0;
}

static void comm_view(const char *path)
{
    struct tmux t = { 0 };
    if (!start_loaded(&t, path)) { tmux_kill(&t); return; }
    char *s = tmux_screen(&t);
    char dir[4200];
    bool ok = header_dir(s, path, dir, sizeof dir);
    free(s);
    CHECK(ok);
    static char keys[32][128];
    int nk = ok ? comm_keys(dir, keys, 32) : 0;
    CHECK(nk > 0);
    tmux_keys(&t, "7", NULL);
    if (!WAIT_FOR(&t, "Communication ops (rank 0)")) { tmux_kill(&t); return; }
    s = tmux_screen(&t);
    int shown = 0;
    for (int i = 0; i < nk; i++)
        if (strstr(s, keys[i]))
            shown++;
    if (shown < (nk < 3 ? nk : 3))
        tmux_dump(&t, "op keys of communication.json missing");
    CHECK(shown >= (nk < 3 ? nk : 3));
    static char names[64][128];
    int n = table_column(s, "Kind", "Elapse", "Name", false, names, 64);
    CHECK(n > 0);
    free(s);
    /* Enter: the op on the Communication lane of the timeline */
    if (n > 0) {
        char base[128];
        snprintf(base, sizeof base, "%s", names[0]);
        char *at = strchr(base, '@');
        if (at)
            *at = 0;
        tmux_keys(&t, "Enter", NULL);
        if (WAIT_FOR(&t, "[2]Timeline")) {
            s = tmux_screen(&t);
            char want[200];
            snprintf(want, sizeof want, " %s  ", base);
            if (!strstr(s, want))
                tmux_dump(&t, "the op is not selected in the timeline");
            CHECK(strstr(s, want) != NULL);
            free(s);
        }
    }
    tmux_kill(&t);
}

TEST(tables_ui_comm_view)
{
    NEED_TMUX();
    FIXTURE_OR_SKIP(f);
    comm_view(f);
}

TEST(tables_ui_comm_view_real)
{
    NEED_TMUX();
    REAL_OR_SKIP(p, REAL_TEXT);
    comm_view(p);
}

/* --- column chooser and export --------------------------------------------------------------- */

TEST(tables_ui_columns_and_export)
{
    NEED_TMUX();
    FIXTURE_OR_SKIP(f);
    struct tmux t = { 0 };
    if (!start_loaded(&t, f)) { tmux_kill(&t); return; }
    tmux_keys(&t, "3", NULL);
    if (!WAIT_FOR(&t, "Kernels (rank 0,")) { tmux_kill(&t); return; }
    /* hide the Type column (second in the chooser) */
    tmux_keys(&t, "C", NULL);
    if (!WAIT_FOR(&t, "Columns: Enter/Space")) { tmux_kill(&t); return; }
    tmux_keys(&t, "j", "Enter", "Escape", NULL);
    usleep(300000);
    if (!WAIT_FOR(&t, "Core")) { tmux_kill(&t); return; }
    char *s = tmux_screen(&t);
    char *copy = strdup(s);
    struct lines l;
    split_lines(copy, &l);
    bool header = false, type_col = false;
    for (int i = 0; i < l.n; i++)
        if (strstr(l.v[i], "Name") && strstr(l.v[i], "Count")) {
            header = true;
            type_col = strstr(l.v[i], " Type ") != NULL;
        }
    CHECK(header);
    CHECK(!type_col);
    free(copy);
    free(s);
    /* export what is visible: the prompt offers a name, Enter takes it */
    tmux_keys(&t, "e", NULL);
    if (!WAIT_FOR(&t, "export CSV to: ")) { tmux_kill(&t); return; }
    tmux_keys(&t, "Enter", NULL);
    if (!WAIT_FOR(&t, "exported ")) { tmux_kill(&t); return; }
    s = tmux_screen(&t);
    const char *p = strstr(s, "exported ");
    long rows = p ? atol(p + 9) : 0;
    const char *to = p ? strstr(p, " to ") : NULL;
    char path[1024] = "";
    if (to) {
        to += 4;
        size_t n = strcspn(to, " \n");
        snprintf(path, sizeof path, "%.*s", (int)n, to);
    }
    free(s);
    CHECK(rows > 0);
    CHECK(path[0] != 0);
    CHECK(strstr(path, "fixtures/") == NULL);      /* never inside the capture */
    FILE *fp = path[0] ? fopen(path, "r") : NULL;
    CHECK(fp != NULL);
    if (fp) {
        char line[8192];
        long n = 0;
        bool has_type = false, has_name = false;
        while (fgets(line, sizeof line, fp)) {
            if (n == 0) {
                has_type = strstr(line, "type") != NULL;
                has_name = strstr(line, "name") != NULL;
            }
            n++;
        }
        fclose(fp);
        CHECK_INT(n, rows + 1);
        CHECK(has_name);
        CHECK(!has_type);
        unlink(path);
    }
    tmux_kill(&t);
}

/* --- DB capture --------------------------------------------------------------------------------- */

TEST(tables_ui_db_kernels)
{
    NEED_TMUX();
    REAL_OR_SKIP(p, REAL_DB);
    /* the report's top kernel of rank 0 is the first row of the view */
    int st;
    char *csv = test_aptop(&st, "report --format csv --section kernels --rank 0 '%s' 2>/dev/null", p);
    char top[128] = "";
    /* the row after the header "rank,name,..." (or "name,...") */
    const char *h = csv ? strstr(csv, "name,") : NULL;
    const char *l2 = h ? strchr(h, '\n') : NULL;
    if (l2) {
        l2++;
        const char *c = l2;
        if (h > csv && !strncmp(h - 5, "rank,", 5))
            c = strchr(c, ',') ? strchr(c, ',') + 1 : c;
        size_t n = strcspn(c, ",\n");
        snprintf(top, sizeof top, "%.*s", (int)(n < 40 ? n : 40), c);
    }
    free(csv);
    CHECK(top[0] != 0);
    struct tmux t = { 0 };
    if (!start_loaded(&t, p)) { tmux_kill(&t); return; }
    tmux_keys(&t, "3", NULL);
    if (!WAIT_FOR(&t, "Kernels (rank 0,")) { tmux_kill(&t); return; }
    char *s = tmux_screen(&t);
    CHECK(strstr(s, "from the kernel table") != NULL);
    static char names[64][128];
    int n = table_column(s, "Name", "Count", "Name", false, names, 64);
    CHECK(n > 3);
    CHECK(n > 0 && !strncmp(names[0], top, strlen(top)));
    if (n > 0 && strncmp(names[0], top, strlen(top)))
        printf("report top \"%s\", screen top \"%s\"\n", top, names[0]);
    free(s);
    tmux_kill(&t);
}

/* --- mouse: a click on a header sorts by it, a click on a row selects it --------------------- */

static void click(struct tmux *t, int x, int y)
{
    char seq[64];
    /* SGR mouse report, 1-based: press then release of button 1 */
    snprintf(seq, sizeof seq, "\033[<0;%d;%dM\033[<0;%d;%dm", x + 1, y + 1, x + 1, y + 1);
    tmux_text(t, seq);
}

TEST(tables_ui_mouse_header_sorts)
{
    NEED_TMUX();
    FIXTURE_OR_SKIP(f);
    struct tmux t = { 0 };
    if (!start_loaded(&t, f)) { tmux_kill(&t); return; }
    tmux_keys(&t, "3", NULL);
    if (!WAIT_FOR(&t, "Kernels (rank 0,")) { tmux_kill(&t); return; }
    char *s = tmux_screen(&t);
    char *copy = strdup(s);
    struct lines l;
    split_lines(copy, &l);
    int hy = -1, hx = -1;
    for (int i = 0; i < l.n && hy < 0; i++)
        if (strstr(l.v[i], "Name") && strstr(l.v[i], "Count")) {
            hy = i;
            hx = col_index(l.v[i], "Count");
        }
    free(copy);
    free(s);
    CHECK(hy > 0 && hx > 0);
    if (hy <= 0 || hx <= 0) { tmux_kill(&t); return; }
    click(&t, hx + 2, hy);
    if (!WAIT_FOR(&t, "sort: Count")) { tmux_kill(&t); return; }
    s = tmux_screen(&t);
    static char cnt[64][128], names[64][128];
    int n = table_column(s, "Name", "Count", "Count", true, cnt, 64);
    table_column(s, "Name", "Count", "Name", false, names, 64);
    free(s);
    CHECK(n >= 3);
    for (int i = 1; i < n; i++)
        if (atol(cnt[i]) > atol(cnt[i - 1]))
            test_fail(__FILE__, __LINE__, "count %s above %s after sorting by Count", cnt[i], cnt[i - 1]);
    /* a click on the third row selects it: Enter opens that kernel's instances */
    click(&t, 5, hy + 3);
    usleep(200000);
    tmux_keys(&t, "Enter", NULL);
    char want[200];
    snprintf(want, sizeof want, "Instances of kernel %s ", names[2]);
    CHECK(WAIT_FOR(&t, want));
    tmux_kill(&t);
}

/* --- one file: a trace alone, a kernel table alone ------------------------------------------- */

#define RANK1_OUT FIXTURE "/npu-node-07_28391_20260119104000131_ascend_pt/ASCEND_PROFILER_OUTPUT"

TEST(tables_ui_kernels_trace_only)
{
    NEED_TMUX();
    FIXTURE_OR_SKIP(f);
    (void)f;
    struct tmux t = { 0 };
    if (!start_loaded(&t, RANK1_OUT "/trace_view.json")) { tmux_kill(&t); return; }
    tmux_keys(&t, "3", NULL);
    if (!WAIT_FOR(&t, "from the trace")) { tmux_kill(&t); return; }
    char *s = tmux_screen(&t);
    static char names[64][128];
    int n = table_column(s, "Name", "Count", "Name", false, names, 64);
    free(s);
    CHECK(n > 0);
    tmux_keys(&t, "Enter", NULL);
    if (!WAIT_FOR(&t, "Instances of kernel")) { tmux_kill(&t); return; }
    s = tmux_screen(&t);
    CHECK(strstr(s, "Ascend Hardware") != NULL);      /* the lane of each instance */
    CHECK(strstr(s, " 0 in the timeline") == NULL);
    free(s);
    tmux_keys(&t, "Enter", NULL);
    if (!WAIT_FOR(&t, "[2]Timeline")) { tmux_kill(&t); return; }
    char want[160];
    snprintf(want, sizeof want, " %s  Ascend Hardware", n ? names[0] : "?");
    CHECK(WAIT_FOR(&t, want));
    tmux_kill(&t);
}

TEST(tables_ui_kernels_csv_only)
{
    NEED_TMUX();
    FIXTURE_OR_SKIP(f);
    (void)f;
    struct tmux t = { 0 };
    if (!start_loaded(&t, RANK1_OUT "/kernel_details.csv")) { tmux_kill(&t); return; }
    tmux_keys(&t, "3", NULL);
    if (!WAIT_FOR(&t, "from the kernel table")) { tmux_kill(&t); return; }
    /* by type, then back to names */
    tmux_keys(&t, "t", NULL);
    if (!WAIT_FOR(&t, " types, ")) { tmux_kill(&t); return; }
    tmux_keys(&t, "t", "t", NULL);
    if (!WAIT_FOR(&t, " names, ")) { tmux_kill(&t); return; }
    tmux_keys(&t, "Enter", NULL);
    if (!WAIT_FOR(&t, "Instances of kernel")) { tmux_kill(&t); return; }
    /* no trace: Enter says so and stays */
    tmux_keys(&t, "Enter", NULL);
    CHECK(WAIT_FOR(&t, "not in the timeline"));
    char *s = tmux_screen(&t);
    CHECK(strstr(s, "[3]Kernels") != NULL);
    free(s);
    tmux_kill(&t);
}

/* --- a capture without steps says why ------------------------------------------------------ */

TEST(tables_ui_phases_without_timeline)
{
    NEED_TMUX();
    FIXTURE_OR_SKIP(f);
    (void)f;
    struct tmux t = { 0 };
    if (!start_loaded(&t, RANK1_OUT "/kernel_details.csv")) { tmux_kill(&t); return; }
    tmux_keys(&t, "5", NULL);
    CHECK(WAIT_FOR(&t, "has no timeline"));
    tmux_kill(&t);
}

/* One unit for all the durations of a table: a step lasting 141 ms puts every duration
 * column of the Phases steps table in ms (no row mixes ms and µs), each with all its digits:
 * the step's computing time reads as step_trace_time.csv writes it, in ms. */
TEST(tables_ui_one_duration_unit_per_table)
{
    NEED_TMUX();
    REAL_OR_SKIP(p, REAL_TEXT);
    char path[4200];
    snprintf(path, sizeof path, "%s/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv", p);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f)
        return;
    char head[2048] = "", row[2048] = "";
    CHECK(fgets(head, sizeof head, f) && fgets(row, sizeof row, f));
    fclose(f);
    /* Computing is the second field: µs with up to 3 decimals that matter -> ms text */
    char *comp = strchr(row, ',');
    CHECK(comp != NULL);
    if (!comp)
        return;
    long long ns = llround(atof(comp + 1) * 1000.0);
    char want[64];
    snprintf(want, sizeof want, "%lld.%06lld", ns / 1000000, ns % 1000000);
    struct tmux t = { 0 };
    if (!start_loaded(&t, p)) { tmux_kill(&t); return; }
    tmux_keys(&t, "5", NULL);
    if (!WAIT_FOR(&t, "Steps of rank 0")) { tmux_kill(&t); return; }
    char *s = tmux_screen(&t);
    CHECK(strstr(s, "Computing ms") != NULL);
    CHECK(strstr(s, "Computing \xc2\xb5s") == NULL && strstr(s, "Computing us") == NULL);
    CHECK(strstr(s, "Dur ms") != NULL && strstr(s, "Gap before ms") != NULL);
    CHECK(strstr(s, want) != NULL);
    if (test_failed_now())
        tmux_dump(&t, "units");
    free(s);
    tmux_kill(&t);
}
