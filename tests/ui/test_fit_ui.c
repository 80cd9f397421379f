/* The Timeline opens fitted to its data at the terminal's width, driven headless (--script)
 * on real captures at 80x24, 100x30 and 200x50: its first frame has the zoom `0` gives, the
 * rank's span fills at least 95% of the graph's columns, a resize fits again, and once the
 * user zoomed a resize keeps the zoom. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner.h"

static const char *const captures[] = {
    "Ascend-msinsight/test/data/pytorch/text/level1",
    "TraceLens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
    "HolisticTraceAnalysis/tests/data/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
};

static const struct { int cols, rows; } sizes[] = { { 80, 24 }, { 100, 30 }, { 200, 50 } };

/* The ruler's column width ("6.348 ms/col") of a screen in ns, -1 when absent. */
static double ns_per_col(const char *scr)
{
    const char *p = scr ? strstr(scr, "/col") : NULL;
    if (!p)
        return -1;
    const char *u = p;
    while (u > scr && u[-1] != ' ')
        u--;
    const char *n = u - 1;
    while (n > scr && n[-1] != ' ' && n[-1] != '\n')
        n--;
    double v = atof(n);
    if (!strncmp(u, "ns", 2))
        return v;
    if (!strncmp(u, "ms", 2))
        return v * 1e6;
    if (!strncmp(u, "s/", 2))
        return v * 1e9;
    return v * 1e3;   /* µs */
}

/* The width of the timeline's graph at cols columns: the lane labels take a fifth (12 to 30
 * columns) and one column separates them. */
static int graph_cols(int cols)
{
    int lw = cols / 5;
    if (lw > 30) lw = 30;
    if (lw < 12) lw = 12;
    return cols - lw - 1;
}

static double screen_npc(const char *out, int n)
{
    char *scr = test_screen(out, n);
    double v = ns_per_col(scr);
    free(scr);
    return v;
}

TEST(fit_ui_timeline_opens_fitted_at_every_width_real)
{
    if (!test_real_dir())
        SKIP("../shared/real not found");
    char path[64];
    const char *f = test_temp_file("fit", "loaded\nkeys 2\nwait [2]Timeline\ndump\nkeys 0\ndump\n"
                                   "resize 200 50\ndump\nkeys 0\ndump\n"
                                   "keys w\ndump\nresize 100 30\ndump\n", path, sizeof path);
    CHECK(f != NULL);
    if (!f)
        return;
    for (size_t c = 0; c < sizeof captures / sizeof captures[0]; c++) {
        const char *p = test_real(captures[c]);
        int st = 0;
        char *rep = test_aptop(&st, "report --format json --section summary --rank 0 '%s' | python3 -c '"
                               "import json,sys; print(json.load(sys.stdin)[\"summary\"][\"span_us\"])'", p);
        double span = rep ? atof(rep) * 1e3 : 0;
        free(rep);
        CHECK(span > 0);
        for (size_t z = 0; span > 0 && z < sizeof sizes / sizeof sizes[0]; z++) {
            char *out = test_aptop(&st, "--script '%s' --size %dx%d '%s' 2>&1", f, sizes[z].cols, sizes[z].rows, p);
            CHECK(out != NULL);
            if (!out)
                continue;
            double first = screen_npc(out, 1), fitted = screen_npc(out, 2);
            double wide = screen_npc(out, 3), wide_fit = screen_npc(out, 4);
            double zoomed = screen_npc(out, 5), after = screen_npc(out, 6);
            int w = graph_cols(sizes[z].cols);
            if (first <= 0 || first != fitted)
                test_fail(__FILE__, __LINE__, "%s at %dx%d: first frame %.0f ns/col, fit %.0f ns/col", captures[c],
                          sizes[z].cols, sizes[z].rows, first, fitted);
            /* the span fills the graph: npc x width covers it, and it covers 95% of that
             * (the ruler rounds npc to 4 digits) */
            if (!(span >= 0.95 * first * w && span <= 1.001 * first * w + first))
                test_fail(__FILE__, __LINE__, "%s at %dx%d: span %.0f ns on %d columns of %.0f ns", captures[c],
                          sizes[z].cols, sizes[z].rows, span, w, first);
            if (wide <= 0 || wide != wide_fit)
                test_fail(__FILE__, __LINE__, "%s: after a resize to 200x50 %.0f ns/col, fit %.0f ns/col", captures[c],
                          wide, wide_fit);
            /* zoomed in, a resize keeps the zoomed span (more columns: less per column) */
            CHECK(zoomed > 0 && zoomed < wide_fit);
            if (!(after > zoomed && after < 0.9 * span / graph_cols(100)))
                test_fail(__FILE__, __LINE__, "%s: zoomed %.0f ns/col, after a resize %.0f ns/col (fit %.0f)",
                          captures[c], zoomed, after, span / graph_cols(100));
            free(out);
        }
    }
    unlink(f);
}

/* Memory opens fitted to its own span: its first frame has the zoom its `0` gives, at every
 * size, and a resize fits it again. */
TEST(fit_ui_memory_opens_fitted_to_its_span_real)
{
    REAL_OR_SKIP(p, "Ascend-msinsight/test/data/pytorch/text/level1");
    char path[64];
    const char *f = test_temp_file("fit", "loaded\nkeys M\nwait [M]Memory\ndump\nkeys 0\ndump\n"
                                   "resize 200 50\ndump\nkeys 0\ndump\n", path, sizeof path);
    CHECK(f != NULL);
    for (size_t z = 0; f && z < sizeof sizes / sizeof sizes[0]; z++) {
        int st = 0;
        char *out = test_aptop(&st, "--script '%s' --size %dx%d '%s' 2>&1", f, sizes[z].cols, sizes[z].rows, p);
        CHECK(out != NULL);
        if (!out)
            continue;
        double first = screen_npc(out, 1), fitted = screen_npc(out, 2);
        double wide = screen_npc(out, 3), wide_fit = screen_npc(out, 4);
        if (first <= 0 || first != fitted || wide <= 0 || wide != wide_fit)
            test_fail(__FILE__, __LINE__, "Memory at %dx%d: first frame %.0f ns/col, fit %.0f; at 200x50 %.0f, fit %.0f",
                      sizes[z].cols, sizes[z].rows, first, fitted, wide, wide_fit);
        free(out);
    }
    if (f)
        unlink(f);
}
