/* The host views at 80x24, driven by --script on a real torch_npu capture: the Ops view's
 * first table is the host operators read from the trace, the same rows as `report --section
 * host_ops`, with the comparison against operator_details in its caption; Enter goes to the
 * timeline; t still reaches operator_details. */
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner.h"

#define REAL_RANK "Ascend-msinsight/test/data/pytorch/text/level1/rank0_ascend_pt"

/* The report's host_ops rows of path (JSON), or NULL. */
static cJSON *report_rows(const char *path, const char *section)
{
    int st = 0;
    char *out = test_aptop(&st, "report --format json --section %s '%s'", section, path);
    cJSON *j = out ? cJSON_Parse(out) : NULL;
    free(out);
    cJSON *rows = j ? cJSON_DetachItemFromObject(j, section) : NULL;
    cJSON_Delete(j);
    return rows;
}

TEST(host_ops_view_is_the_report_at_80x24)
{
    REAL_OR_SKIP(p, REAL_RANK);
    cJSON *rows = report_rows(p, "host_ops");
    CHECK(cJSON_GetArraySize(rows) > 1);
    const cJSON *first = cJSON_GetArrayItem(rows, 0);
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(first, "name"));
    char path[64];
    const char *f = test_temp_file("hostops", "loaded\nkeys 4\nwait [4]Ops\ndump\nkeys Enter\nwait [2]Timeline\ndump\n"
                                   "keys 4\nkeys t\nwait operator_details\ndump\n", path, sizeof path);
    CHECK(f && name);
    if (!f || !name) {
        cJSON_Delete(rows);
        return;
    }
    int st = 0;
    char *out = test_aptop(&st, "--script '%s' --size 80x24 '%s' 2>&1", f, p);
    unlink(f);
    CHECK_INT(st, 0);
    char *s1 = test_screen(out, 1), *s2 = test_screen(out, 2), *s3 = test_screen(out, 3);
    CHECK(s1 && s2 && s3);
    if (s1 && s2 && s3) {
        char want[96];
        snprintf(want, sizeof want, "Ops: %d from the trace, ", cJSON_GetArraySize(rows));
        CHECK(strstr(s1, want) != NULL);
        CHECK(strstr(s1, "operator_details in") != NULL);
        /* the first row is the report's first (by host total) */
        const char *row = strstr(s1, "\n \xe2\x96\xb8 ");   /* the cursor row */
        CHECK(row && !strncmp(row + 6, name, strlen(name)));
        CHECK(strstr(s1, "Device") || strstr(s1, "Host total"));
        CHECK(strstr(s2, name) != NULL);   /* Enter: the longest call, selected in the timeline */
        CHECK(strstr(s3, "Ops: operator_details") != NULL);
    }
    if (test_failed_now())
        fprintf(stderr, "%s\n", out ? out : "(no output)");
    free(s1);
    free(s2);
    free(s3);
    free(out);
    cJSON_Delete(rows);
}

/* "156289.120" (µs) as the view's ms column shows it: "156.289". */
static void us_to_ms_text(const char *us, char *out, size_t size)
{
    long long whole = 0, frac = 0;
    sscanf(us, "%lld.%lld", &whole, &frac);
    snprintf(out, size, "%lld.%03lld", whole / 1000, whole % 1000);
}

TEST(call_tree_view_at_80x24)
{
    REAL_OR_SKIP(p, REAL_RANK);
    int st = 0;
    char *json = test_aptop(&st, "report --format json --section call_tree '%s'", p);
    cJSON *j = json ? cJSON_Parse(json) : NULL;
    free(json);
    const cJSON *root = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "call_tree"), 0);
    const cJSON *host = cJSON_GetObjectItem(root, "host_us");
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(root, "name"));
    CHECK(root && host && name);
    char path[64];
    const char *f = test_temp_file("calltree", "loaded\nkeys H\nwait Call tree top-down\ndump\nkeys t\nwait Call tree bottom-up\ndump\n"
                                   "keys t\nkeys /\ntext ^aten::item$\nkeys Enter\nkeys Enter\nwait [2]Timeline\ndump\n",
                                   path, sizeof path);
    if (!root || !host || !name || !f) {
        cJSON_Delete(j);
        return;
    }
    /* the report prints µs with 3 decimals: the text of the number as written */
    char *text = cJSON_PrintUnformatted(host), ms[64];
    us_to_ms_text(text, ms, sizeof ms);
    char *out = test_aptop(&st, "--script '%s' --size 80x24 '%s' 2>&1", f, p);
    unlink(f);
    CHECK_INT(st, 0);
    char *s1 = test_screen(out, 1), *s2 = test_screen(out, 2), *s3 = test_screen(out, 3);
    CHECK(s1 && s2 && s3);
    if (s1 && s2 && s3) {
        CHECK(strstr(s1, "Host ms") && strstr(s1, "Device ms") && strstr(s1, "Idle ms") && strstr(s1, "Idle self"));
        const char *row = strstr(s1, "\n \xe2\x96\xbe ");   /* the first root, opened */
        CHECK(row && !strncmp(row + 6, name, 12));
        const char *eol = row ? strchr(row + 1, '\n') : NULL;
        const char *fig = row ? strstr(row + 1, ms) : NULL;
        CHECK(fig && (!eol || fig < eol));   /* its host time, the report's */
        CHECK(strstr(s2, "Frame (callers below)") != NULL);
        CHECK(strstr(s3, "aten::item") != NULL);   /* Enter on the match: its longest call */
    }
    if (test_failed_now())
        fprintf(stderr, "%s\n", out ? out : "(no output)");

    free(s1);
    free(s2);
    free(s3);
    free(out);
    free(text);
    cJSON_Delete(j);
}

TEST(launch_gaps_view_at_80x24)
{
    REAL_OR_SKIP(p, REAL_RANK);
    cJSON *rows = report_rows(p, "gaps");
    int n = cJSON_GetArraySize(rows);
    CHECK(n > 0);
    /* the longest gap: the view's first row */
    const cJSON *longest = NULL;
    double best = -1;
    for (int i = 0; i < n; i++) {
        const cJSON *r = cJSON_GetArrayItem(rows, i);
        double d = cJSON_GetNumberValue(cJSON_GetObjectItem(r, "dur_us"));
        if (d > best) {
            best = d;
            longest = r;
        }
    }
    char path[64];
    const char *f = test_temp_file("gaps", "loaded\nkeys G\nwait Launch gaps\ndump\nkeys t\nwait per step\ndump\n"
                                   "keys t\nkeys t\nkeys Enter\nwait [2]Timeline\ndump\n", path, sizeof path);
    CHECK(f && longest);
    if (!f || !longest) {
        cJSON_Delete(rows);
        return;
    }
    int st = 0;
    char *out = test_aptop(&st, "--script '%s' --size 80x24 '%s' 2>&1", f, p);
    unlink(f);
    CHECK_INT(st, 0);
    char *s1 = test_screen(out, 1), *s2 = test_screen(out, 2), *s3 = test_screen(out, 3);
    CHECK(s1 && s2 && s3);
    if (s1 && s2 && s3) {
        char want[64];
        snprintf(want, sizeof want, "device idle gaps (rank 0, %d rows)", n);
        CHECK(strstr(s1, want) != NULL);
        const char *row = strstr(s1, "\n \xe2\x96\xb8 ");
        const char *cause = cJSON_GetStringValue(cJSON_GetObjectItem(longest, "cause"));
        const char *eol = row ? strchr(row + 1, '\n') : NULL;
        const char *hit = row && cause ? strstr(row, cause) : NULL;
        CHECK(hit && (!eol || hit < eol));   /* the longest gap first, with its cause */
        CHECK(strstr(s2, "p50") && strstr(s2, "p99") && strstr(s2, "Slowest launch"));
        CHECK(strstr(s3, "Ascend Hardware") != NULL);   /* Enter: the device slice after the gap */
    }
    if (test_failed_now())
        fprintf(stderr, "%s\n", out ? out : "(no output)");
    free(s1);
    free(s2);
    free(s3);
    free(out);
    cJSON_Delete(rows);
}

/* A JSON number of µs as the report writes it ("5544.144"), in ns; exact from its text. */
static long long json_us_ns(const cJSON *v)
{
    char *text = v ? cJSON_PrintUnformatted(v) : NULL;
    long long whole = 0, ns = 0;
    const char *dot = text ? strchr(text, '.') : NULL;
    if (text)
        whole = atoll(text);
    for (int k = 0, scale = 100; dot && k < 3 && dot[1 + k] >= '0' && dot[1 + k] <= '9'; k++, scale /= 10)
        ns += (dot[1 + k] - '0') * scale;
    free(text);
    return whole * 1000 + ns;
}

/* The flame drawing of the call tree at 80x24: f turns the table into it; the width stands
 * for the roots' device time summed (the report's depth-0 rows); the cursor starts on the
 * table's node (the first root), Down goes to its child of most device time (Up back to
 * the root), i turns to the
 * idle charged, Enter lands on the node's longest slice in the timeline; f turns back. */
TEST(call_tree_flame_at_80x24)
{
    REAL_OR_SKIP(p, REAL_RANK);
    cJSON *rows = report_rows(p, "call_tree");
    int n = cJSON_GetArraySize(rows);
    CHECK(n > 2);
    long long total = 0, idle_total = 0;
    const cJSON *first = cJSON_GetArrayItem(rows, 0), *child = NULL;
    long long child_dev = -1;
    bool past_first = false;   /* a second root was seen */
    for (int i = 0; i < n; i++) {
        const cJSON *r = cJSON_GetArrayItem(rows, i);
        int depth = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(r, "depth"));
        if (depth == 0) {
            past_first |= i > 0;
            total += json_us_ns(cJSON_GetObjectItem(r, "device_us"));
            idle_total += json_us_ns(cJSON_GetObjectItem(r, "idle_us"));
        }
        /* the first root's children: the rows of depth 1 before the next root */
        if (depth == 1 && !past_first) {
            long long d = json_us_ns(cJSON_GetObjectItem(r, "device_us"));
            if (d > child_dev) {
                child_dev = d;
                child = r;
            }
        }
    }
    const char *root_name = cJSON_GetStringValue(cJSON_GetObjectItem(first, "name"));
    const char *child_name = cJSON_GetStringValue(cJSON_GetObjectItem(child, "name"));
    CHECK(root_name && child_name && total > 0);
    char path[64];
    const char *f = test_temp_file("flame", "loaded\nkeys H\nwait Call tree top-down\nkeys f\nwait flame by device\ndump\n"
                                   "keys Down\ndump\nkeys Up\ndump\nkeys Down\nkeys i\nwait flame by idle\ndump\n"
                                   "keys Enter\nwait [2]Timeline\ndump\n"
                                   "keys H\nkeys f\nwait Frame (callees below)\ndump\n", path, sizeof path);
    if (!root_name || !child_name || !f) {
        cJSON_Delete(rows);
        return;
    }
    int st = 0;
    char *out = test_aptop(&st, "--script '%s' --size 80x24 '%s' 2>&1", f, p);
    unlink(f);
    CHECK_INT(st, 0);
    char *s[6];
    for (int i = 0; i < 6; i++)
        s[i] = test_screen(out, i + 1);
    CHECK(s[0] && s[1] && s[2] && s[3] && s[4] && s[5]);
    if (s[0] && s[1] && s[2] && s[3] && s[4] && s[5]) {
        char want[96];
        snprintf(want, sizeof want, "flame by device time (%lld.%03lld \xc2\xb5s = the width)", total / 1000, total % 1000);
        CHECK(strstr(s[0], want) != NULL);
        snprintf(want, sizeof want, "\n %s  calls ", root_name);
        CHECK(strstr(s[0], want) != NULL);                       /* the cursor starts on the table's node */
        CHECK(strstr(s[0], "\xe2\x96\x88") != NULL);              /* full blocks */
        snprintf(want, sizeof want, "\n %s  calls ", child_name);
        CHECK(strstr(s[1], want) != NULL);                       /* Down: the widest child */
        snprintf(want, sizeof want, "device %lld.%03lld \xc2\xb5s", child_dev / 1000, child_dev % 1000);
        CHECK(strstr(s[1], want) != NULL);                       /* its figures, the report's */
        snprintf(want, sizeof want, "\n %s  calls ", root_name);
        CHECK(strstr(s[2], want) != NULL);                       /* Up: the parent again */
        snprintf(want, sizeof want, "flame by idle charged (%lld.%03lld \xc2\xb5s = the width)", idle_total / 1000,
                 idle_total % 1000);
        CHECK(strstr(s[3], want) != NULL);
        CHECK(strstr(s[4], child_name) != NULL);                  /* Enter: its longest slice */
        CHECK(strstr(s[5], "Host ms") != NULL);                   /* f: the table again */
        /* every line fits 80 columns */
        for (int i = 0; i < 4; i++)
            for (const char *l = s[i]; l && *l;) {
                const char *e = strchr(l, '\n');
                size_t cols = 0;
                for (const char *c = l; c < (e ? e : l + strlen(l)); c++)
                    cols += ((unsigned char)*c & 0xc0) != 0x80;
                CHECK(cols <= 80);
                l = e ? e + 1 : NULL;
            }
    }
    if (test_failed_now())
        fprintf(stderr, "%s\n", out ? out : "(no output)");
    for (int i = 0; i < 6; i++)
        free(s[i]);
    free(out);
    cJSON_Delete(rows);
}
