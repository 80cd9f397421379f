/* The detail pane of a device slice, on the real level1 captures: for the DB export its
 * TASK row and COMPUTE_TASK_INFO row (type, stream, shapes resolved through STRING_IDS) and
 * the joined kernel table row with its PMU columns; for the text export the joined
 * kernel_details.csv row with every column. Expected values come from SQL run here and from
 * the CSV read here, not from aptop. Also: the Comm view names the table of its figures. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner.h"
#include "tmux.h"

#define DB_L1 "Ascend-msinsight/test/data/pytorch/db/level1/rank0_ascend_pt"
#define TEXT_L1 "Ascend-msinsight/test/data/pytorch/text/level1/rank0_ascend_pt"
#define KERNEL "aclnnMm_MatMulCommon_MatMulV2"
#define COLS 200
#define ROWS 60
#define WAIT 10000

#define NEED_TMUX() do { if (!tmux_available()) SKIP("tmux not installed"); } while (0)

/* Opens path, selects the first KERNEL by search and opens the detail pane. */
static bool open_detail(struct tmux *t, const char *path)
{
    if (!tmux_open(t, path, COLS, ROWS, "loaded ", WAIT))
        return false;
    tmux_keys(t, "2", "/", NULL);
    tmux_text(t, "^" KERNEL "$");
    tmux_keys(t, "Enter", NULL);
    if (tmux_wait(t, ": " KERNEL " on Ascend Hardware", WAIT) < 0) {
        tmux_dump(t, "search did not select the kernel");
        return false;
    }
    tmux_keys(t, "Enter", NULL);
    return tmux_wait(t, "J/K:scroll", WAIT) >= 0;
}

/* Scrolls the detail pane down (J) until `want` is on screen. */
/* Scrolls the detail pane down a line at a time until want is on screen: one key, then a
 * wait for the screen to change, so that a slow machine cannot scroll past it. */
static bool scroll_to(struct tmux *t, const char *want)
{
    char *prev = NULL;
    for (int i = 0; i < 200; i++) {
        char *s = tmux_screen(t);
        bool hit = s && strstr(s, want);
        bool same = s && prev && strcmp(s, prev) == 0 && i > 0;
        free(prev);
        prev = s;
        if (hit) {
            free(prev);
            return true;
        }
        if (same)
            break;   /* the pane's end: nothing more to scroll */
        tmux_keys(t, "J", NULL);
        for (int w = 0; w < 50; w++) {   /* up to 1 s for the key to be drawn */
            char *n = tmux_screen(t);
            bool changed = n && prev && strcmp(n, prev) != 0;
            free(n);
            if (changed)
                break;
            usleep(20000);
        }
    }
    free(prev);
    tmux_dump(t, want);
    return false;
}

static bool sql_text(sqlite3 *db, const char *q, char *out, size_t size)
{
    sqlite3_stmt *st = NULL;
    bool ok = sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
              sqlite3_column_text(st, 0);
    if (ok)
        snprintf(out, size, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return ok;
}

TEST(db_detail_ui_task_fields_and_kernel_row)
{
    NEED_TMUX();
    REAL_OR_SKIP(dir, DB_L1);
    char path[4200], uri[4300];
    snprintf(path, sizeof path, "%s/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db", dir);
    snprintf(uri, sizeof uri, "file:%s?mode=ro&immutable=1", path);
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        SKIP("level1 DB unreadable");
    }
    /* the first KERNEL task in time: its start, stream, input shapes and AIC time (ns → µs) */
    static const char *const first =
        "from TASK t join COMPUTE_TASK_INFO c on c.globalTaskId = t.globalTaskId join STRING_IDS n on n.id = c.name "
        "where n.value = '" KERNEL "' order by t.startNs limit 1";
    char q[1024], start[64] = "", stream[32] = "", shapes[256] = "", aic[64] = "", type[64] = "";
    snprintf(q, sizeof q, "select t.startNs %s", first);
    CHECK(sql_text(db, q, start, sizeof start));
    snprintf(q, sizeof q, "select t.streamId %s", first);
    CHECK(sql_text(db, q, stream, sizeof stream));
    snprintf(q, sizeof q, "select s.value from STRING_IDS s where s.id = (select c.inputShapes %s)", first);
    CHECK(sql_text(db, q, shapes, sizeof shapes));
    snprintf(q, sizeof q, "select s.value from STRING_IDS s where s.id = (select t.taskType %s)", first);
    CHECK(sql_text(db, q, type, sizeof type));
    snprintf(q, sizeof q, "select printf('%%.3f', round(p.value) / 1000.0) from TASK_PMU_INFO p join STRING_IDS s "
             "on s.id = p.name where s.value = 'aic_total_time' and p.globalTaskId = (select t.globalTaskId %s)", first);
    CHECK(sql_text(db, q, aic, sizeof aic));
    sqlite3_close(db);

    struct tmux t = { 0 };
    if (open_detail(&t, dir)) {
        char want[512];
        CHECK(scroll_to(&t, "TASK row"));
        snprintf(want, sizeof want, "startNs: %s", start);
        CHECK(scroll_to(&t, want));
        snprintf(want, sizeof want, "taskType: %s", type);   /* resolved, not the STRING_IDS number */
        CHECK(scroll_to(&t, want));
        snprintf(want, sizeof want, "streamId: %s", stream);
        CHECK(scroll_to(&t, want));
        CHECK(scroll_to(&t, "COMPUTE_TASK_INFO row"));
        snprintf(want, sizeof want, "inputShapes: %s", shapes);
        CHECK(scroll_to(&t, want));
        CHECK(scroll_to(&t, "Kernel row "));
        snprintf(want, sizeof want, "aicore_time(us): %s", aic);
        CHECK(scroll_to(&t, want));
    }
    tmux_kill(&t);
}

/* The text twin: the joined kernel_details.csv row, every column of it. */
TEST(db_detail_ui_text_kernel_row)
{
    NEED_TMUX();
    REAL_OR_SKIP(dir, TEXT_L1);
    char csv[4200];
    snprintf(csv, sizeof csv, "%s/ASCEND_PROFILER_OUTPUT/kernel_details.csv", dir);
    FILE *f = fopen(csv, "r");
    if (!f)
        SKIP("kernel_details.csv absent");
    /* the first KERNEL row (rows are in start order): its Block Dim and last column */
    char line[8192], head[8192] = "", row[8192] = "";
    while (fgets(line, sizeof line, f)) {
        if (!head[0])
            snprintf(head, sizeof head, "%s", line);
        else if (strstr(line, "," KERNEL ",")) {
            snprintf(row, sizeof row, "%s", line);
            break;
        }
    }
    fclose(f);
    CHECK(row[0] != 0);
    /* the last header and value: a PMU column (cube_utilization(%) in this file) */
    head[strcspn(head, "\r\n")] = 0;
    row[strcspn(row, "\r\n")] = 0;
    const char *lh = strrchr(head, ','), *lv = strrchr(row, ',');
    struct tmux t = { 0 };
    if (row[0] && lh && lv && open_detail(&t, dir)) {
        CHECK(scroll_to(&t, "Kernel row "));
        CHECK(scroll_to(&t, "kernel_details.csv"));
        char want[512];
        /* Block Dim: its column in the header; the fields before it are never quoted */
        int col = -1, k = 0;
        for (const char *h = head; h; h = strchr(h, ','), h = h ? h + 1 : NULL, k++)
            if (!strncmp(h, "Block Dim,", 10))
                col = k;
        const char *c = row;
        for (int i = 0; i < col && c; i++)
            c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL;
        CHECK(col >= 0 && c != NULL);
        if (col >= 0 && c) {
            snprintf(want, sizeof want, "Block Dim: %.*s", (int)strcspn(c, ","), c);
            CHECK(scroll_to(&t, want));
        }
        double v = atof(lv + 1);
        snprintf(want, sizeof want, "%s: %.0f", lh + 1, v);   /* prec: as the file writes it */
        if (strchr(lv + 1, '.'))
            snprintf(want, sizeof want, "%s: %s", lh + 1, lv + 1);
        CHECK(scroll_to(&t, want));
    }
    tmux_kill(&t);
}

/* The Comm view says which table its figures come from. */
TEST(db_detail_ui_comm_names_its_table)
{
    NEED_TMUX();
    REAL_OR_SKIP(dir, DB_L1);
    struct tmux t = { 0 };
    if (tmux_open(&t, dir, COLS, ROWS, "loaded ", WAIT)) {
        tmux_keys(&t, "7", NULL);
        CHECK(tmux_wait(&t, "analysis.db tables CommAnalyzerTime and CommAnalyzerBandwidth", WAIT) >= 0);
    }
    tmux_kill(&t);
    REAL_OR_SKIP(tdir, TEXT_L1);
    struct tmux u = { 0 };
    if (tmux_open(&u, tdir, COLS, ROWS, "loaded ", WAIT)) {
        tmux_keys(&u, "7", NULL);
        CHECK(tmux_wait(&u, "times as written in communication.json", WAIT) >= 0);
    }
    tmux_kill(&u);
}
