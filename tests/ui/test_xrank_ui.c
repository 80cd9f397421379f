/* The cross-rank timeline in a real terminal (tmux): `7` stacks one lane of every rank, `A`
 * aligns them on collective ends and shows the offsets (checked against `aptop report
 * --section ranks`), zoom keeps every row drawn, `L` changes the lane, and Enter opens the
 * row's rank in the timeline. Runs on the generated fixture and on a real two-rank capture
 * (skipped when absent). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../runner.h"
#include "tmux.h"

#define FIXTURE "fixtures/vllm_decode_2rank"
#define REAL_L1 "Ascend-msinsight/test/data/pytorch/text/level1"
#define COLS 160
#define ROWS 30
#define WAIT 10000
#define ARROW "\xe2\x96\xb8"

#define NEED_TMUX() do { if (!tmux_available()) SKIP("tmux not installed"); } while (0)

/* Starts aptop on path and waits for the load to finish. */
static bool start(struct tmux *t, const char *path)
{
    return tmux_open(t, path, COLS, ROWS, "loaded ", WAIT);
}

/* The body line of rank N's row ("›rank N ▸ ..." with a one-column marker), copied into out. */
static bool row_line(const char *screen, int rank, char *out, size_t size)
{
    char want[32];
    snprintf(want, sizeof want, "rank %d " ARROW " ", rank);
    for (const char *p = screen; *p;) {
        size_t len = strcspn(p, "\n");
        if (len > 1 && !strncmp(p + 1, want, strlen(want))) {
            snprintf(out, size, "%.*s", (int)len, p);
            return true;
        }
        p += len + (p[len] == '\n');
    }
    return false;
}

/* The row's graph area is drawn: something besides blanks after the lane label. */
static bool row_drawn(const char *line, const char *lane_word)
{
    const char *p = strstr(line, lane_word);
    if (!p)
        return false;
    p += strlen(lane_word);
    while (*p && *p != ' ')          /* the rest of the label's last word ("2", "Computing") */
        p++;
    while (*p == ' ')
        p++;
    return *p != 0;
}

struct rank_off { int rank; double off_us; long ops; bool has; };

/* Offsets from `aptop report --section ranks --format json`. */
static int report_offsets(const char *path, struct rank_off *r, int max)
{
    int st, n = 0;
    char *json = test_aptop(&st, "report --format json --section ranks '%s' 2>/dev/null", path);
    CHECK_INT(st, 0);
    cJSON *root = cJSON_Parse(json);
    free(json);
    cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "ranks")) {
        if (n >= max)
            break;
        cJSON *rk = cJSON_GetObjectItem(it, "rank"), *off = cJSON_GetObjectItem(it, "offset_us"),
              *ops = cJSON_GetObjectItem(it, "align_ops");
        r[n].rank = cJSON_IsNumber(rk) ? rk->valueint : -1;
        r[n].has = cJSON_IsNumber(off) && cJSON_IsNumber(ops);
        r[n].off_us = r[n].has ? off->valuedouble : 0;
        r[n].ops = r[n].has ? (long)ops->valuedouble : 0;
        n++;
    }
    cJSON_Delete(root);
    return n;
}

/* "r1 -343.681 µs" on the mode line: the offset of rank `rank` in µs. */
static bool screen_offset(const char *screen, int rank, double *out)
{
    char want[16];
    snprintf(want, sizeof want, "  r%d ", rank);
    const char *p = strstr(screen, "Time: aligned on");
    p = p ? strstr(p, want) : NULL;
    if (!p)
        return false;
    char *end;
    *out = strtod(p + strlen(want), &end);
    return end != p + strlen(want) && !strncmp(end, " \xc2\xb5s", 3);
}

/* The zoom in the ruler's corner ("101 µs/col"), in ns. */
static double per_col(const char *screen)
{
    const char *p = strstr(screen, "/col");
    if (!p)
        return -1;
    const char *q = p;
    while (q > screen && q[-1] != '\n')
        q--;
    char *unit;
    double v = strtod(q, &unit);
    if (unit == q)
        return -1;
    while (*unit == ' ')
        unit++;
    if (!strncmp(unit, "ns", 2)) return v;
    if (!strncmp(unit, "\xc2\xb5s", 3) || !strncmp(unit, "us", 2)) return v * 1e3;
    if (!strncmp(unit, "ms", 2)) return v * 1e6;
    if (!strncmp(unit, "s", 1)) return v * 1e9;
    return -1;
}

static void xrank_flow(const char *path)
{
    struct rank_off ro[8];
    int nr = report_offsets(path, ro, 8);
    CHECK(nr >= 2);
    if (nr < 2)
        return;

    struct tmux t = { 0 };
    if (!start(&t, path)) { tmux_kill(&t); return; }
    tmux_keys(&t, "8", NULL);
    CHECK(tmux_wait(&t, "[8]X-Rank", WAIT) >= 0);
    CHECK(tmux_wait(&t, "raw timestamps", WAIT) >= 0);
    char *s = tmux_screen(&t);
    char raw0[1024] = "", raw1[1024] = "";
    CHECK(row_line(s, 0, raw0, sizeof raw0));
    CHECK(row_line(s, 1, raw1, sizeof raw1));
    CHECK(strstr(raw0, "rank 0 " ARROW " Ascend Hardware " ARROW " Stream ") != NULL);
    CHECK(strstr(raw1, "rank 1 " ARROW " Ascend Hardware " ARROW " Stream ") != NULL);
    CHECK(row_drawn(raw0, "Stream "));
    CHECK(row_drawn(raw1, "Stream "));
    double npc = per_col(s);
    CHECK(npc > 0);
    free(s);

    /* A: aligned, the offsets the report computes are on screen */
    tmux_keys(&t, "A", NULL);
    CHECK(tmux_wait(&t, "Time: aligned on", WAIT) >= 0);
    s = tmux_screen(&t);
    for (int i = 0; i < nr; i++) {
        double shown = 1e18;
        CHECK(ro[i].has);
        if (!screen_offset(s, ro[i].rank, &shown)) {
            test_fail(__FILE__, __LINE__, "no offset shown for rank %d", ro[i].rank);
            continue;
        }
        CHECK_NEAR(shown, ro[i].off_us, 0.0005);
    }
    char want[64];
    snprintf(want, sizeof want, "aligned on %ld collective ends", ro[1].ops);
    CHECK(strstr(s, want) != NULL);
    char al0[1024] = "", al1[1024] = "";
    CHECK(row_line(s, 0, al0, sizeof al0));
    CHECK(row_line(s, 1, al1, sizeof al1));
    /* the reference rank stays put; a rank shifted by several columns is drawn elsewhere */
    if (ro[0].off_us == 0)
        CHECK_STR(al0, raw0);
    if (ro[1].off_us * 1e3 > 3 * npc || -ro[1].off_us * 1e3 > 3 * npc)
        CHECK(strcmp(al1, raw1) != 0);
    free(s);

    /* zoom in: both rows still drawn, the zoom doubled */
    tmux_keys(&t, "w", NULL);
    usleep(200000);
    s = tmux_screen(&t);
    double npc2 = per_col(s);
    CHECK(npc2 > 0 && npc2 < npc * 0.6);
    CHECK(row_line(s, 0, al0, sizeof al0) && row_drawn(al0, "Stream "));
    CHECK(row_line(s, 1, al1, sizeof al1) && row_drawn(al1, "Stream "));
    CHECK(strstr(s, "Time: aligned on") != NULL);
    free(s);

    /* A again: raw */
    tmux_keys(&t, "A", NULL);
    CHECK(tmux_wait(&t, "Time: raw timestamps", WAIT) >= 0);

    /* L: the communication lane of both ranks */
    tmux_keys(&t, "L", NULL);
    CHECK(tmux_wait(&t, "lanes: communication lane", WAIT) >= 0);
    s = tmux_screen(&t);
    CHECK(row_line(s, 0, al0, sizeof al0) && !strstr(al0, "(no "));
    CHECK(row_line(s, 1, al1, sizeof al1) && !strstr(al1, "(no "));
    CHECK(strstr(s, "Communication") != NULL);
    free(s);

    /* Enter on rank 1's row: the timeline of rank 1 */
    tmux_keys(&t, "j", NULL);
    usleep(100000);
    tmux_keys(&t, "Enter", NULL);
    CHECK(tmux_wait(&t, "[2]Timeline", WAIT) >= 0);
    s = tmux_screen(&t);
    CHECK(strstr(s, "rank 1 " ARROW " ") != NULL && strstr(s, "rank 1 " ARROW " ") < strstr(s, "[2]Timeline"));
    free(s);

    tmux_keys(&t, "q", NULL);
    CHECK(tmux_wait(&t, "APTOP-EXIT=0", 3000) >= 0);
    tmux_kill(&t);
}

TEST(xrank_ui_fixture)
{
    NEED_TMUX();
    if (!test_is_dir(FIXTURE))
        SKIP("fixtures missing: make fixtures");
    xrank_flow(FIXTURE);
}

/* Independently: the Ascend Hardware stream of rank 0 with the most time in compute
 * kernels (not HCCL's waits, signals and copies, events or the profiler's own tasks). */
static const char py_main_stream[] =
    "import json,sys,collections\n"
    "ev=json.load(open(sys.argv[1]))\n"
    "hw={e['pid'] for e in ev if e.get('ph')=='M' and e.get('name')=='process_name' and e['args'].get('name')=='Ascend Hardware'}\n"
    "tn={(e['pid'],e['tid']):e['args']['name'] for e in ev if e.get('ph')=='M' and e.get('name')=='thread_name'}\n"
    "skip=('hcom_','Notify','Write Value','SDMA','RDMA','EVENT_','PROFILING_','Reduce Inline','Memcpy','Wait','Record')\n"
    "t=collections.Counter()\n"
    "for e in ev:\n"
    " if e.get('ph')=='X' and e.get('pid') in hw and not e['name'].startswith(skip) and not e['name'].lower().startswith('hccl'):\n"
    "  t[tn.get((e['pid'],e['tid']),'Stream %s' % e['tid'])]+=float(e['dur'])\n"
    "print(t.most_common(1)[0][0])\n";

TEST(xrank_ui_real_level1)
{
    NEED_TMUX();
    REAL_OR_SKIP(p, REAL_L1);
    xrank_flow(p);
    /* the default lane is the main compute stream, not the HCCL stream with the most tasks */
    char script_buf[64];
    const char *script = test_temp_file("xrank-py", py_main_stream, script_buf, sizeof script_buf);
    CHECK(script != NULL);
    if (!script)
        return;
    char cmd[4600];
    snprintf(cmd, sizeof cmd, "python3 %s '%s/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json'", script, p);
    int st = -1;
    char *want = test_run(cmd, &st);
    unlink(script);
    CHECK(want && st == 0);
    if (want && st == 0) {
        want[strcspn(want, "\n")] = 0;
        struct tmux t = { 0 };
        if (start(&t, p)) {
            tmux_keys(&t, "8", NULL);
            CHECK(tmux_wait(&t, "raw timestamps", WAIT) >= 0);
            char *s = tmux_screen(&t);
            char row0[1024] = "", lane[256];
            snprintf(lane, sizeof lane, "Ascend Hardware " ARROW " %s", want);
            CHECK(row_line(s, 0, row0, sizeof row0) && strstr(row0, lane) != NULL);
            CHECK(strstr(s, "main compute stream (most compute kernel time)") != NULL);
            free(s);
        }
        tmux_kill(&t);
    }
    free(want);
}

/* L cycles to "by name": a pick list of rank 0's lanes; the picked lane is looked up by
 * name on every rank. */
TEST(xrank_ui_lane_by_name)
{
    NEED_TMUX();
    if (!test_is_dir(FIXTURE))
        SKIP("fixtures missing: make fixtures");
    struct tmux t = { 0 };
    if (!start(&t, FIXTURE)) { tmux_kill(&t); return; }
    tmux_keys(&t, "8", "L", "L", "L", NULL);
    CHECK(tmux_wait(&t, "Compare the lane of this name on every rank", WAIT) >= 0);
    /* the Overlap Analysis Free lane exists on both ranks under the same name */
    char *s = tmux_screen(&t);
    const char *list = strstr(s, "Compare the lane of this name");
    const char *item = list ? strstr(list, "Overlap Analysis " ARROW " Free") : NULL;
    CHECK(item != NULL);
    int downs = 0;
    for (const char *p = list; item && p < item; p++)
        downs += *p == '\n';
    free(s);
    for (int i = 1; i < downs; i++)
        tmux_keys(&t, "Down", NULL);
    tmux_keys(&t, "Enter", NULL);
    CHECK(tmux_wait(&t, "lanes: by name Overlap Analysis " ARROW " Free", WAIT) >= 0);
    s = tmux_screen(&t);
    char l0[1024] = "", l1[1024] = "";
    CHECK(row_line(s, 0, l0, sizeof l0) && strstr(l0, "Overlap Analysis " ARROW " Free"));
    CHECK(row_line(s, 1, l1, sizeof l1) && strstr(l1, "Overlap Analysis " ARROW " Free"));
    free(s);
    tmux_keys(&t, "q", NULL);
    CHECK(tmux_wait(&t, "APTOP-EXIT=0", 3000) >= 0);
    tmux_kill(&t);
}
