/* The table views on real captures at 80x24, 100x30 and 200x50, driven headless
 * (--script): every table keeps its name column first and its sort column on screen, no
 * figure is cut at the right edge (the last screen column holds only the arrow that says
 * columns are hidden there), and no two rows of a table of distinct names look the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner.h"

static const char *const captures[] = {
    "Ascend-msinsight/test/data/pytorch/text/level1",
    "Ascend-msinsight/test/data/pytorch/db/level1",
    "mindspore-mindinsight/tests/utils/resource/profiler/PROF_000001_20230818142704322_COJGGGCANRMICFBC",
    "TraceLens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
    "HolisticTraceAnalysis/tests/data/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
};

static const struct { int cols, rows; } sizes[] = { { 80, 24 }, { 100, 30 }, { 200, 50 } };

/* The screens the script dumps, in order, and what each shows. */
static const struct {
    const char *keys;       /* script lines that open it */
    const char *name;       /* the title of its name column */
    int names;              /* its rows name: 2 distinct things, 1 things that may repeat
                             * (then no shortened name may repeat), 0 one thing (a drill-down) */
    const char *section;    /* kind 1: the report section whose names the rows show */
} tables[] = {
    { "keys 3\nwait [3]Kernels\n", "Name", 2, NULL },
    { "keys End\n", "Name", 2, NULL },
    { "keys Home Enter\nwait Instances of\n", "Name", 0, NULL },
    /* host operators are rows per name and input shapes: a name repeats with other shapes */
    { "keys Esc 4\nwait [4]Ops\n", "Name", 1, "host_ops" },
    { "keys 5\nwait [5]Phases\n", "Step", 2, NULL },
    { "keys 6\nwait [6]Ranks\n", "Rank", 2, NULL },
    { "keys 7\nwait [7]Comm\n", "Name", 1, "comm" },
};

/* Line `n` (0-based) of a screen, NUL-terminated in buf; false past the end. */
static bool screen_line(const char *scr, int n, char *buf, size_t size)
{
    const char *p = scr;
    for (int i = 0; i < n; i++) {
        p = strchr(p, '\n');
        if (!p)
            return false;
        p++;
    }
    if (!*p)
        return false;
    size_t len = strcspn(p, "\n");
    snprintf(buf, size, "%.*s", (int)len, p);
    return true;
}

/* The byte offset of display column col of a line (one column per character), or the
 * length when the line is shorter. */
static size_t col_offset(const char *s, int col)
{
    int c = 0;
    size_t i = 0;
    for (; s[i]; i++) {
        if (((unsigned char)s[i] & 0xc0) == 0x80)
            continue;
        if (c++ == col)
            return i;
    }
    return i;
}

/* The name cell of a row: from display column 3 to the first two blanks. */
static void name_cell(const char *row, char *out, size_t size)
{
    const char *p = row + col_offset(row, 3);
    p += strspn(p, " ");
    const char *e = strstr(p, "  ");
    size_t len = e ? (size_t)(e - p) : strlen(p);
    snprintf(out, size, "%.*s", (int)len, p);
}

/* The cells of column `key` of a report's CSV, one a line (NULL without the column). */
static char *csv_column(const char *csv, const char *key)
{
    if (!csv)
        return NULL;
    size_t cap = strlen(csv) + 1, n = 0;
    char *out = malloc(cap);
    int want = -1;
    bool header = true;
    for (const char *p = csv; out && *p;) {
        if (*p == '#') {   /* the section's title line */
            p += strcspn(p, "\n");
            p += *p == '\n';
            continue;
        }
        for (int col = 0;; col++) {   /* one record: fields, quoted ones with "" inside */
            char cell[1024];
            size_t k = 0;
            bool quoted = *p == '"';
            p += quoted;
            while (*p && (quoted || (*p != ',' && *p != '\n'))) {
                if (quoted && *p == '"') {
                    if (p[1] != '"') {
                        p++;
                        break;
                    }
                    p++;
                }
                if (k + 1 < sizeof cell)
                    cell[k++] = *p;
                p++;
            }
            cell[k] = 0;
            if (header && !strcmp(cell, key))
                want = col;
            else if (!header && col == want && n + k + 2 <= cap) {
                memcpy(out + n, cell, k);
                n += k;
                out[n++] = '\n';
            }
            if (*p != ',')
                break;
            p++;
        }
        p += *p == '\n';
        header = false;
    }
    if (out)
        out[n] = 0;
    if (want < 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* A name shortened in the middle ("start…end") that stands for two different names of
 * `all` (one name a line): rows that repeat such a name could be told apart no more. */
static bool ambiguous(const char *shown, const char *all)
{
    const char *cut = strstr(shown, "\xe2\x80\xa6");
    if (!cut || !all)
        return true;
    size_t a = (size_t)(cut - shown), b = strlen(cut + 3);
    char first[512] = "";
    for (const char *p = all; *p;) {
        size_t len = strcspn(p, "\n");
        if (len >= a + b && !strncmp(p, shown, a) && !strncmp(p + len - b, cut + 3, b)) {
            if (!first[0])
                snprintf(first, sizeof first, "%.*s", (int)len, p);
            else if (strlen(first) != len || strncmp(first, p, len))
                return true;
        }
        p += len + (p[len] == '\n');
    }
    return false;
}

/* Checks one dumped screen that shows a table: the one with the selected row, its header
 * the nearest line above that starts with the name column's title. */
static void check_table(const char *scr, int cols, int rows, const char *what, const char *name, int kind,
                        const char *all_names)
{
    char line[2048], head[2048], caption[2048];
    int hy = -1;
    for (int y = 1; y < rows - 1 && screen_line(scr, y, line, sizeof line); y++)
        if (!strncmp(line, " \xe2\x96\xb8 ", 5) || !strncmp(line, " > ", 3)) {
            hy = y;
            break;
        }
    if (hy < 0)
        return;   /* no rows here (the capture has nothing for this view) */
    /* the header: the nearest line above whose first title is the name column's */
    int header = -1;
    for (int y = hy - 1; y > 0 && header < 0; y--) {
        if (!screen_line(scr, y, head, sizeof head))
            break;
        const char *h = head + col_offset(head, 3);
        h += strspn(h, " ");
        if (!strncmp(h, name, strlen(name)) && (h[strlen(name)] == ' ' || (unsigned char)h[strlen(name)] >= 0x80))
            header = y;
    }
    if (header < 0 || !screen_line(scr, header, head, sizeof head) || !screen_line(scr, header - 1, caption, sizeof caption)) {
        screen_line(scr, hy - 1, head, sizeof head);
        test_fail(__FILE__, __LINE__, "%s: the name column %s is not first:\n%s", what, name, head);
        return;
    }
    /* the sort column on screen */
    const char *s = strstr(caption, "sort: ");
    if (s) {
        char title[256];
        const char *arrow = strstr(s, "\xe2\x96\xbc");
        if (!arrow)
            arrow = strstr(s, "\xe2\x96\xb2");
        if (arrow) {
            snprintf(title, sizeof title, "%.*s", (int)(arrow + 3 - (s + 6)), s + 6);
            if (!strstr(head, title))
                test_fail(__FILE__, __LINE__, "%s: the sort column %s is off screen:\n%s", what, title, head);
        }
    }
    /* nothing in the last column but the arrow; names distinct */
    char names[64][512];
    int nn = 0;
    for (int y = header; y < rows - 1 && screen_line(scr, y, line, sizeof line); y++) {
        if (y > header && !line[0])
            break;
        const char *last = line + col_offset(line, cols - 1);
        if (*last && *last != ' ' && !(y == header && !strncmp(last, "\xe2\x86\x92", 3)))
            test_fail(__FILE__, __LINE__, "%s: a cell runs into the last column (cut):\n%s", what, line);
        if (y > header && nn < 64)
            name_cell(line, names[nn++], sizeof names[0]);
    }
    for (int i = 0; i < nn; i++)
        for (int j = i + 1; j < nn; j++)
            if (!strcmp(names[i], names[j]) &&
                (kind == 2 || (kind == 1 && strstr(names[i], "\xe2\x80\xa6") && ambiguous(names[i], all_names))))
                test_fail(__FILE__, __LINE__, "%s: two rows show the name \"%s\"", what, names[i]);
}

TEST(layout_ui_tables_keep_name_and_sort_whole_numbers_distinct_names_real)
{
    if (!test_real_dir())
        SKIP("../shared/real not found");
    char script[2048] = "loaded\n";
    for (size_t k = 0; k < sizeof tables / sizeof tables[0]; k++) {
        strcat(script, tables[k].keys);
        strcat(script, "dump\n");
    }
    char path[64];
    const char *f = test_temp_file("layout", script, path, sizeof path);
    CHECK(f != NULL);
    if (!f)
        return;
    int checked = 0;
    for (size_t c = 0; c < sizeof captures / sizeof captures[0]; c++) {
        const char *p = test_real(captures[c]);
        /* the names of the communication ops and host operators, whole: Comm rows may repeat
         * one (its steps), Ops rows one per input shapes */
        int rst = 0;
        char *comm_csv = p ? test_aptop(&rst, "report --section comm --format csv '%s' 2>/dev/null", p) : NULL;
        char *comm_names = csv_column(comm_csv, "name");
        free(comm_csv);
        char *ops_csv = p ? test_aptop(&rst, "report --section host_ops --format csv '%s' 2>/dev/null", p) : NULL;
        char *ops_names = csv_column(ops_csv, "name");
        free(ops_csv);
        for (size_t z = 0; p && z < sizeof sizes / sizeof sizes[0]; z++) {
            int st = 0;
            char *out = test_aptop(&st, "--script '%s' --size %dx%d '%s' 2>&1", f, sizes[z].cols, sizes[z].rows, p);
            CHECK(out != NULL);
            for (size_t k = 0; out && k < sizeof tables / sizeof tables[0]; k++) {
                char *scr = test_screen(out, (int)k + 1);
                if (!scr)
                    break;   /* a view that has no rows to drill into ends the run */
                char what[512];
                snprintf(what, sizeof what, "%s at %dx%d, screen %zu", captures[c], sizes[z].cols, sizes[z].rows, k + 1);
                const char *sec = tables[k].section;
                check_table(scr, sizes[z].cols, sizes[z].rows, what, tables[k].name, tables[k].names,
                            sec && !strcmp(sec, "host_ops") ? ops_names : comm_names);
                checked++;
                free(scr);
            }
            free(out);
        }
        free(comm_names);
        free(ops_names);
    }
    unlink(f);
    CHECK(checked >= 40);
}

/* Compare opens with its cursor on the top row (the largest change), also when it was
 * opened while the captures were still loading and built again as they arrived. */
TEST(layout_ui_compare_cursor_starts_on_top_row_real)
{
    if (!test_real_dir())
        SKIP("../shared/real not found");
    const char *a = test_real("Ascend-msinsight/test/data/pytorch/text/level1");
    const char *b = test_real("Ascend-msinsight/test/data/pytorch/db/level1");
    char path[64];
    const char *f = test_temp_file("cmp", "keys 9\nwait [9]Compare\nloaded\ndump\n", path, sizeof path);
    CHECK(f != NULL);
    for (size_t z = 0; f && z < sizeof sizes / sizeof sizes[0]; z++) {
        int st = 0;
        char *out = test_aptop(&st, "--script '%s' --size %dx%d '%s' '%s' 2>&1", f, sizes[z].cols, sizes[z].rows, a, b);
        char *scr = out ? test_screen(out, 1) : NULL;
        CHECK(scr != NULL);
        /* the line under the table's header is the selected one */
        char line[2048];
        int y = 1;
        while (scr && screen_line(scr, y, line, sizeof line) && !strstr(line, "Name"))
            y++;
        if (!scr || !screen_line(scr, y + 1, line, sizeof line) || strncmp(line, " \xe2\x96\xb8 ", 5))
            test_fail(__FILE__, __LINE__, "at %dx%d the cursor is not on the top row:\n%s", sizes[z].cols,
                      sizes[z].rows, scr ? scr : "(no screen)");
        free(scr);
        free(out);
    }
    if (f)
        unlink(f);
}
