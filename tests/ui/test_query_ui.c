/* The Query view at 80x24, driven headless: `:` asks for a statement, the result is a table
 * that sorts, leads to the timeline (Enter on a row naming a slice) and exports as CSV; the
 * export holds the rows `aptop query` prints for the same statement (itself checked against
 * the capture files by tests/checks/query_check.py), and the statement is kept in the
 * settings file, outside the capture. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner.h"

#define REAL_L1 "Ascend-msinsight/test/data/pytorch/text/level1"
#define AGG "SELECT name, count(*) AS n, sum(dur) AS total FROM slice WHERE rank = 0 GROUP BY name"

static int cmp_lines(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of text after the first (a CSV header), sorted, joined again. */
static char *sorted_rows(char *text)
{
    char *lines[4096];
    size_t n = 0;
    char *save = NULL;
    for (char *l = strtok_r(text, "\n", &save); l && n < 4096; l = strtok_r(NULL, "\n", &save))
        lines[n++] = l;
    if (n < 2)
        return strdup("");
    qsort(lines + 1, n - 1, sizeof *lines, cmp_lines);
    size_t len = 1;
    for (size_t i = 1; i < n; i++)
        len += strlen(lines[i]) + 1;
    char *out = malloc(len);
    out[0] = 0;
    for (size_t i = 1; i < n; i++)
        strcat(strcat(out, lines[i]), "\n");
    return out;
}

TEST(query_ui_prompt_sort_jump_export)
{
    REAL_OR_SKIP(p, REAL_L1);
    char cfg[64], csv[128], script[64];
    snprintf(cfg, sizeof cfg, "/tmp/aptop-query-cfg-XXXXXX");
    CHECK(mkdtemp(cfg) != NULL);
    snprintf(csv, sizeof csv, "/tmp/aptop-query-%d.csv", (int)getpid());
    unlink(csv);
    char text[2048];
    snprintf(text, sizeof text,
             "loaded\n"
             "keys :\n"
             "wait SQL:\n"
             "keys C-u\n"
             "text SELECT id, name, ts, dur FROM slice WHERE name LIKE 'Conv2DBackpropInput%%' ORDER BY ts\n"
             "keys Enter\n"
             "wait Query, 16 rows\n"
             "keys > > I\n"
             "wait sort: name\n"
             "dump\n"
             "keys Enter\n"
             "wait [2]Timeline\n"
             "dump\n"
             "keys :\n"
             "wait SQL:\n"
             "keys C-u\n"
             "text " AGG "\n"
             "keys Enter\n"
             "wait [:]Query\n"
             "keys e\n"
             "wait export CSV to:\n"
             "keys C-u\n"
             "text %s\n"
             "keys Enter\n"
             "wait exported\n"
             "dump\n"
             "keys : Up Up\n"
             "wait Input%%' ORDER BY ts\n"
             "dump\n"
             "keys Esc\n", csv);
    const char *f = test_temp_file("query", text, script, sizeof script);
    CHECK(f != NULL);
    if (!f)
        return;
    int st = 0;
    char *out;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "XDG_CONFIG_HOME='%s' '%s' --script '%s' --size 80x24 '%s' 2>&1", cfg, test_bin(), f, p);
    out = test_run(cmd, &st);
    unlink(f);
    CHECK_INT(st, 0);
    char *s1 = test_screen(out, 1), *s2 = test_screen(out, 2), *s3 = test_screen(out, 3);
    CHECK(s1 && s2 && s3);
    if (s1 && s2 && s3) {
        /* sorted by name, largest first: the ...Input8 rows on top, ids and times in ns */
        CHECK(strstr(s1, "name\xe2\x96\xbc") != NULL);
        CHECK(strstr(s1, "ts (ns)") != NULL);
        char *first = strstr(s1, "\n \xe2\x96\xb8 ");   /* the selected row */
        CHECK(first && strstr(first, "Conv2DBackpropInput8") && strstr(first, "Conv2DBackpropInput8") < strchr(first + 1, '\n'));
        /* Enter: that slice selected on the timeline */
        CHECK(strstr(s2, "[2]Timeline") != NULL);
        CHECK(strstr(s2, "Conv2DBackpropInput8  Ascend Hardware") != NULL);
        CHECK(strstr(s3, "[:]Query") != NULL);
    }
    /* Up twice in the prompt: the statement before the last (its end: 80 columns) */
    char *s4 = test_screen(out, 4);
    CHECK(s4 && strstr(s4, "SQL: ") && strstr(s4, "LIKE 'Conv2DBackpropInput%' ORDER BY ts"));
    free(s4);
    free(s1), free(s2), free(s3);
    free(out);
    /* the export equals the command's rows for the same statement */
    char *got = test_read_file(csv, NULL);
    out = test_aptop(&st, "query --format csv '%s' \"" AGG "\"", p);
    CHECK(got && out);
    if (got && out) {
        char *a = sorted_rows(got), *b = sorted_rows(out);
        CHECK(strlen(a) > 100);
        CHECK_STR(a, b);
        free(a), free(b);
    }
    free(got), free(out);
    unlink(csv);
    /* the statements typed are kept in the settings folder, the last one last */
    char path[256];
    snprintf(path, sizeof path, "%s/aptop/settings", cfg);
    char *settings = test_read_file(path, NULL);
    CHECK(settings && strstr(settings, "query_history SELECT id, name") && strstr(settings, "query_history " AGG));
    free(settings);
    unlink(path);
    snprintf(path, sizeof path, "%s/aptop", cfg);
    rmdir(path);
    rmdir(cfg);
}
