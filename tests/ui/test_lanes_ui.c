/* Timeline lane labels on real captures at 80x24, 100x30 and 200x50, driven headless
 * (--script): two labels on screen look the same only when they are the same whole name
 * (a label cut to its room, or shortened with an ellipsis, never repeats another). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner.h"

static const char *const captures[] = {
    "Ascend-msinsight/test/data/pytorch/text/level1",
    "HolisticTraceAnalysis/tests/data/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
    "TraceLens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
    "HolisticTraceAnalysis/tests/data/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
    "mindspore-mindinsight/tests/utils/resource/profiler/PROF_000001_20230818142704322_COJGGGCANRMICFBC",
};

static const struct { int cols, rows; } sizes[] = { { 80, 24 }, { 100, 30 }, { 200, 50 } };

/* The label column's width at cols columns: a fifth, 12 to 30. */
static int label_cols(int cols)
{
    int lw = cols / 5;
    if (lw > 30) lw = 30;
    if (lw < 12) lw = 12;
    return lw;
}

/* Characters (UTF-8 code points) of s. */
static int chars(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/* The label of a lane line: its first lw columns without the marker and the fold sign,
 * trimmed; "" for a depth row (digits). */
static void label_of(const char *line, int lw, char *out, size_t size)
{
    int col = 0;
    size_t i = 0, start = 0, end = 0;
    for (; line[i] && col < lw; i++) {
        if (((unsigned char)line[i] & 0xc0) == 0x80)
            continue;
        if (col == 3)
            start = i;
        col++;
    }
    end = i;
    if (col <= 3) {
        out[0] = 0;
        return;
    }
    while (start < end && line[start] == ' ')
        start++;
    while (end > start && line[end - 1] == ' ')
        end--;
    snprintf(out, size, "%.*s", (int)(end - start), line + start);
    if (strspn(out, "0123456789 +") == strlen(out))
        out[0] = 0;
}

static void check_screen(const char *scr, int cols, int rows, const char *what)
{
    int lw = label_cols(cols);
    char labels[64][256];
    int n = 0;
    const char *p = scr;
    for (int y = 0; p && *p && y < rows - 1; y++) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char line[2048];
        snprintf(line, sizeof line, "%.*s", (int)len, p);
        p = e ? e + 1 : NULL;
        if (y < 3 || n >= 64)
            continue;
        if (strstr(line, "\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80"))
            break;   /* the detail pane's rule: the lanes end above it */
        label_of(line, lw, labels[n], sizeof labels[0]);
        if (labels[n][0])
            n++;
    }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            if (strcmp(labels[i], labels[j]))
                continue;
            /* the same text: fine for a whole name, wrong for one cut to its room */
            if (strstr(labels[i], "\xe2\x80\xa6") || chars(labels[i]) >= lw - 4)
                test_fail(__FILE__, __LINE__, "%s: two lanes labelled \"%s\"", what, labels[i]);
        }
}

TEST(lanes_ui_labels_never_repeat_a_cut_name_real)
{
    if (!test_real_dir())
        SKIP("../shared/real not found");
    char path[64];
    const char *f = test_temp_file("lanes", "loaded\nkeys 2\nwait [2]Timeline\ndump\nkeys PgDn\ndump\nkeys PgDn\ndump\n",
                                   path, sizeof path);
    CHECK(f != NULL);
    int checked = 0;
    for (size_t c = 0; f && c < sizeof captures / sizeof captures[0]; c++) {
        const char *p = test_real(captures[c]);
        for (size_t z = 0; p && z < sizeof sizes / sizeof sizes[0]; z++) {
            int st = 0;
            char *out = test_aptop(&st, "--script '%s' --size %dx%d '%s' 2>&1", f, sizes[z].cols, sizes[z].rows, p);
            CHECK(out != NULL);
            for (int k = 1; out && k <= 3; k++) {
                char *scr = test_screen(out, k);
                if (!scr)
                    break;
                char what[512];
                snprintf(what, sizeof what, "%s at %dx%d, screen %d", captures[c], sizes[z].cols, sizes[z].rows, k);
                check_screen(scr, sizes[z].cols, sizes[z].rows, what);
                checked++;
                free(scr);
            }
            free(out);
        }
    }
    if (f)
        unlink(f);
    CHECK(checked >= 30);
}
