/* The timeline in a real terminal (tmux): first frame and quit, lanes from the trace
 * metadata, search and zoom, flow-follow there and back, range totals against the report,
 * help. Runs on the generated fixture and on real captures (skipped when absent). */
#include <cjson/cJSON.h>
#include <locale.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wchar.h>

#include "../runner.h"
#include "tmux.h"

#define FIXTURE "fixtures/vllm_decode_2rank"
#define REAL_L1 "Ascend-msinsight/test/data/pytorch/text/level1"
#define REAL_L2 "Ascend-msinsight/test/data/pytorch/text/level2"
#define COLS 160
#define ROWS 48
#define WAIT 10000

static const char *fixture(void)
{
    return test_is_dir(FIXTURE) ? FIXTURE : NULL;
}

#define NEED_TMUX() do { if (!tmux_available()) SKIP("tmux not installed"); } while (0)
#define FIXTURE_OR_SKIP(var) const char *var = fixture(); if (!var) SKIP("fixtures missing: make fixtures")

/* Starts aptop on path and waits for the first frame. */
static bool start(struct tmux *t, const char *path)
{
    /* the overview opens; these tests are about the timeline */
    if (!tmux_open(t, path, COLS, ROWS, "?:help", WAIT))
        return false;
    tmux_keys(t, "2", NULL);
    return tmux_wait(t, "[2]Timeline", WAIT) >= 0;
}

/* Waits for the load to finish (the status line says "loaded"). */
static bool loaded(struct tmux *t)
{
    if (tmux_wait(t, "loaded ", WAIT) < 0) {
        test_fail(__FILE__, __LINE__, "load did not finish");
        return false;
    }
    return true;
}

static void quit_ok(struct tmux *t, long limit_ms)
{
    tmux_keys(t, "q", NULL);
    long ms = tmux_wait(t, "APTOP-EXIT=0", limit_ms);
    CHECK(ms >= 0);
    tmux_kill(t);
}

/* --- first frame, quit --------------------------------------------------------------- */

static void first_frame_and_quit(const char *path)
{
    struct tmux t = { 0 };
    if (!start(&t, path)) { tmux_kill(&t); return; }
    char *s = tmux_screen(&t);
    CHECK(strstr(s, "[2]Timeline") != NULL);
    CHECK(strstr(s, "q:quit") != NULL);
    free(s);
    /* q at once, possibly mid-load: the process ends promptly */
    quit_ok(&t, 2000);
}

TEST(tl_ui_first_frame_and_quit)
{
    NEED_TMUX();
    FIXTURE_OR_SKIP(f);
    first_frame_and_quit(f);
}

TEST(tl_ui_first_frame_and_quit_real)
{
    NEED_TMUX();
    REAL_OR_SKIP(p, REAL_L2);
    first_frame_and_quit(p);
}

/* --- lanes from the metadata ----------------------------------------------------------- */

/* Rank 0's directory label from the header line ("rank 0 ▸ LABEL "). */
static bool header_label(const char *screen, char *out, size_t size)
{
    const char *p = strstr(screen, "rank 0 \xe2\x96\xb8 ");
    if (!p)
        return false;
    p += strlen("rank 0 \xe2\x96\xb8 ");
    size_t n = strcspn(p, " \n");
    if (!n || n >= size)
        return false;
    memcpy(out, p, n);
    out[n] = 0;
    return true;
}

/* The rank directory under capture whose name the header shows, whole or clipped ("…"). */
static bool label_dir(const char *capture, char *label, size_t size)
{
    size_t n = strlen(label);
    if (n < 3 || strcmp(label + n - 3, "\xe2\x80\xa6"))
        return true;
    label[n - 3] = 0;
    DIR *d = opendir(capture);
    struct dirent *e;
    bool found = false;
    while (d && !found && (e = readdir(d)))
        if (!strncmp(e->d_name, label, n - 3) && strlen(e->d_name) < size) {
            snprintf(label, size, "%s", e->d_name);
            found = true;
        }
    if (d)
        closedir(d);
    return found;
}

struct names { char *v[256]; int n; };

static void add_name(struct names *ns, const char *s)
{
    for (int i = 0; i < ns->n; i++)
        if (!strcmp(ns->v[i], s))
            return;
    if (ns->n < 256)
        ns->v[ns->n++] = strdup(s);
}

/* Process names of processes with slices or counters, thread names of lanes with slices. */
static int metadata_names(const char *trace, struct names *procs, struct names *threads)
{
    char *txt = test_read_file(trace, NULL);
    if (!txt)
        return -1;
    cJSON *root = cJSON_Parse(txt);
    free(txt);
    if (!root)
        return -1;
    cJSON *ev = cJSON_IsArray(root) ? root : cJSON_GetObjectItem(root, "traceEvents");
    cJSON *e;
    cJSON *busy_pid = cJSON_CreateObject(), *busy_tid = cJSON_CreateObject();
    char key[128];
    cJSON_ArrayForEach(e, ev) {
        const char *ph = cJSON_GetStringValue(cJSON_GetObjectItem(e, "ph"));
        cJSON *pid = cJSON_GetObjectItem(e, "pid"), *tid = cJSON_GetObjectItem(e, "tid");
        if (!ph || (strcmp(ph, "X") && strcmp(ph, "C")))
            continue;
        char *ps = cJSON_PrintUnformatted(pid), *ts = cJSON_PrintUnformatted(tid);
        if (ps) {
            if (!cJSON_GetObjectItem(busy_pid, ps))
                cJSON_AddTrueToObject(busy_pid, ps);
            if (ts && !strcmp(ph, "X")) {
                snprintf(key, sizeof key, "%s/%s", ps, ts);
                if (!cJSON_GetObjectItem(busy_tid, key))
                    cJSON_AddTrueToObject(busy_tid, key);
            }
        }
        free(ps);
        free(ts);
    }
    cJSON_ArrayForEach(e, ev) {
        const char *ph = cJSON_GetStringValue(cJSON_GetObjectItem(e, "ph"));
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(e, "name"));
        if (!ph || strcmp(ph, "M") || !name)
            continue;
        const char *val = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "args"), "name"));
        if (!val)
            continue;
        char *ps = cJSON_PrintUnformatted(cJSON_GetObjectItem(e, "pid"));
        char *ts = cJSON_PrintUnformatted(cJSON_GetObjectItem(e, "tid"));
        if (ps && !strcmp(name, "process_name") && cJSON_GetObjectItem(busy_pid, ps))
            add_name(procs, val);
        if (ps && ts && !strcmp(name, "thread_name")) {
            snprintf(key, sizeof key, "%s/%s", ps, ts);
            if (cJSON_GetObjectItem(busy_tid, key))
                add_name(threads, val);
        }
        free(ps);
        free(ts);
    }
    cJSON_Delete(busy_pid);
    cJSON_Delete(busy_tid);
    cJSON_Delete(root);
    return 0;
}

static void lanes_listed(const char *capture)
{
    struct tmux t = { 0 };
    if (!start(&t, capture) || !loaded(&t)) { tmux_kill(&t); return; }
    char *s = tmux_screen(&t);
    char label[512], trace[4096];
    CHECK(header_label(s, label, sizeof label));
    CHECK(label_dir(capture, label, sizeof label));   /* the header clips a long name */
    free(s);
    snprintf(trace, sizeof trace, "%s/%s/ASCEND_PROFILER_OUTPUT/trace_view.json", capture, label);
    struct names procs = { 0 }, threads = { 0 };
    CHECK_INT(metadata_names(trace, &procs, &threads), 0);
    CHECK(procs.n > 0);
    /* depth 0 rows only; page through the lanes and collect the screens */
    tmux_keys(&t, "x", NULL);
    size_t cap = 1 << 16, len = 0;
    char *all = calloc(1, cap);
    for (int page = 0; page < 8 && all; page++) {
        char *p = tmux_screen(&t);
        size_t n = strlen(p);
        if (len + n + 1 > cap) {
            char *na = realloc(all, cap = (len + n + 1) * 2);
            if (!na) { free(p); break; }
            all = na;
        }
        memcpy(all + len, p, n + 1);
        len += n;
        free(p);
        tmux_keys(&t, "PgDn", NULL);
        usleep(100000);
    }
    /* labels are shortened in the middle to the label column: compare a start and an end */
    for (int i = 0; i < procs.n + threads.n; i++) {
        const char *nm = i < procs.n ? procs.v[i] : threads.v[i - procs.n];
        char pre[24];
        snprintf(pre, sizeof pre, "%.12s", nm);
        size_t nlen = strlen(nm);
        const char *end = nlen > 4 ? nm + nlen - 4 : nm;
        if (!all || !strstr(all, pre) || !strstr(all, end)) {
            test_fail(__FILE__, __LINE__, "lane \"%s\" from %s not listed", nm, trace);
        }
    }
    if (test_failed_now())
        tmux_dump(&t, "lanes");
    for (int i = 0; i < procs.n; i++) free(procs.v[i]);
    for (int i = 0; i < threads.n; i++) free(threads.v[i]);
    free(all);
    quit_ok(&t, 2000);
}

TEST(tl_ui_lanes_listed)
{
    NEED_TMUX();
    FIXTURE_OR_SKIP(f);
    lanes_listed(f);
}

TEST(tl_ui_lanes_listed_real)
{
    NEED_TMUX();
    REAL_OR_SKIP(p, REAL_L1);
    lanes_listed(p);
}

/* --- search, zoom -------------------------------------------------------------------------- */

static void search_and_zoom(const char *capture, const char *pattern, const char *name, const char *lane)
{
    struct tmux t = { 0 };
    if (!start(&t, capture) || !loaded(&t)) { tmux_kill(&t); return; }
    char want[512];
    tmux_keys(&t, "/", NULL);
    tmux_text(&t, pattern);
    tmux_keys(&t, "Enter", NULL);
    snprintf(want, sizeof want, ": %s on %s", name, lane);
    CHECK(tmux_wait(&t, want, WAIT) >= 0);
    /* zoom to the slice: its name is drawn in its lane, in a box */
    tmux_keys(&t, "z", NULL);
    snprintf(want, sizeof want, "[%s", name);
    CHECK(tmux_wait(&t, want, WAIT) >= 0);
    /* n finds the next match, later in time */
    tmux_keys(&t, "n", NULL);
    snprintf(want, sizeof want, ": %s on", name);
    CHECK(tmux_wait(&t, want, WAIT) >= 0);
    quit_ok(&t, 2000);
}

TEST(tl_ui_search_and_zoom)
{
    NEED_TMUX();
    FIXTURE_OR_SKIP(f);
    search_and_zoom(f, "FusedInfer", "FusedInferAttentionScore", "Ascend Hardware");
}

TEST(tl_ui_search_and_zoom_real)
{
    NEED_TMUX();
    REAL_OR_SKIP(p, REAL_L1);
    search_and_zoom(p, "^aclnnMm_MatMulCommon_MatMulV2$", "aclnnMm_MatMulCommon_MatMulV2", "Ascend Hardware");
}

/* --- flow-follow ----------------------------------------------------------------------------- */

TEST(tl_ui_follow_there_and_back)
{
    NEED_TMUX();
    FIXTURE_OR_SKIP(f);
    struct tmux t = { 0 };
    if (!start(&t, f) || !loaded(&t)) { tmux_kill(&t); return; }
    tmux_keys(&t, "/", NULL);
    tmux_text(&t, "^aten::matmul$");
    tmux_keys(&t, "Enter", NULL);
    CHECK(tmux_wait(&t, ": aten::matmul on Python", WAIT) >= 0);
    /* f: the op's kernel on the device */
    tmux_keys(&t, "f", NULL);
    CHECK(tmux_wait(&t, "MatMulV2 on Ascend Hardware", WAIT) >= 0);
    /* F: back; the kernel has two launchers (the op and the CANN node): the op comes first */
    tmux_keys(&t, "F", NULL);
    CHECK(tmux_wait(&t, "2 sources", WAIT) >= 0);
    CHECK(tmux_wait(&t, "> aten::matmul", WAIT) >= 0);
    tmux_keys(&t, "Enter", NULL);
    CHECK(tmux_wait(&t, "aten::matmul on Python", WAIT) >= 0);
    /* Ctrl-O goes back to the kernel, Ctrl-] forward again */
    tmux_keys(&t, "C-o", NULL);
    CHECK(tmux_wait(&t, "back (", WAIT) >= 0);
    char *s = tmux_screen(&t);
    CHECK(strstr(s, " MatMulV2  Ascend Hardware") != NULL);
    free(s);
    quit_ok(&t, 2000);
}

TEST(tl_ui_follow_there_and_back_real)
{
    NEED_TMUX();
    REAL_OR_SKIP(p, REAL_L1);
    struct tmux t = { 0 };
    if (!start(&t, p) || !loaded(&t)) { tmux_kill(&t); return; }
    tmux_keys(&t, "/", NULL);
    tmux_text(&t, "^aclnnMm_MatMulCommon_MatMulV2$");
    tmux_keys(&t, "Enter", NULL);
    CHECK(tmux_wait(&t, ": aclnnMm_MatMulCommon_MatMulV2 on Ascend Hardware", WAIT) >= 0);
    /* F: to the launching op on the Python lane (first in the list when there are several) */
    tmux_keys(&t, "F", NULL);
    char *s = NULL;
    for (int i = 0; i < 100; i++) {
        free(s);
        s = tmux_screen(&t);
        if (strstr(s, " sources") || strstr(s, " on Python"))
            break;
        usleep(30000);
    }
    if (s && strstr(s, " sources"))
        tmux_keys(&t, "Enter", NULL);
    free(s);
    CHECK(tmux_wait(&t, " on Python", WAIT) >= 0);
    /* f: forward again reaches the same kernel (directly or in the pick list) */
    tmux_keys(&t, "f", NULL);
    CHECK(tmux_wait(&t, "aclnnMm_MatMulCommon_MatMulV2", WAIT) >= 0);
    quit_ok(&t, 2000);
}

/* --- range totals ------------------------------------------------------------------------ */

/* Parses a range pane row "NAME   count  total_ms ..." for name; returns 0 when found. */
static int pane_row(const char *screen, const char *name, long *count, char *total, size_t size)
{
    const char *p = screen;
    size_t nl = strlen(name);
    while ((p = strstr(p, name)) != NULL) {
        bool start = p == screen || p[-1] == ' ';
        if (start && p[nl] == ' ') {
            char tot[32];
            if (sscanf(p + nl, " %ld %31s", count, tot) == 2) {
                snprintf(total, size, "%s", tot);
                return 0;
            }
        }
        p += nl;
    }
    return -1;
}

TEST(tl_ui_range_totals_match_report)
{
    NEED_TMUX();
    FIXTURE_OR_SKIP(f);
    int st;
    char *json = test_aptop(&st, "report --format json --section kernels --rank 0 '%s' 2>/dev/null", f);
    CHECK_INT(st, 0);
    cJSON *root = cJSON_Parse(json);
    free(json);
    cJSON *rows = cJSON_GetObjectItem(root, "kernels");
    CHECK(cJSON_GetArraySize(rows) > 0);

    struct tmux t = { 0 };
    if (!start(&t, f) || !loaded(&t)) { tmux_kill(&t); cJSON_Delete(root); return; }
    /* only the device lanes: select a kernel, fold every other process, clear the selection */
    tmux_keys(&t, "/", NULL);
    tmux_text(&t, "^MatMulV2$");
    tmux_keys(&t, "Enter", NULL);
    CHECK(tmux_wait(&t, ": MatMulV2 on Ascend Hardware", WAIT) >= 0);
    /* Esc alone: a key right after it would read as an Alt- sequence */
    tmux_keys(&t, "O", "Escape", NULL);
    usleep(150000);
    tmux_keys(&t, "0", "Home", "v", "End", "v", NULL);
    CHECK(tmux_wait(&t, "names over the visible lanes", WAIT) >= 0);
    char *s = tmux_screen(&t);
    int matched = 0;
    bool matmul = false;
    cJSON *r;
    cJSON_ArrayForEach(r, rows) {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(r, "name"));
        cJSON *cnt = cJSON_GetObjectItem(r, "count"), *tot = cJSON_GetObjectItem(r, "total_us");
        long c;
        char shown[32], want[32];
        if (!name || !cJSON_IsNumber(cnt) || !cJSON_IsNumber(tot) || pane_row(s, name, &c, shown, sizeof shown))
            continue;
        snprintf(want, sizeof want, "%.3f", tot->valuedouble / 1000.0);
        CHECK_INT(c, (long)cnt->valuedouble);
        CHECK_STR(shown, want);
        matched++;
        if (!strcmp(name, "MatMulV2"))
            matmul = true;
    }
    CHECK(matmul);
    CHECK(matched >= 3);
    if (test_failed_now())
        tmux_dump(&t, "range");
    free(s);
    cJSON_Delete(root);
    /* Esc clears the range */
    tmux_keys(&t, "Escape", NULL);
    usleep(200000);
    s = tmux_screen(&t);
    CHECK(strstr(s, "Range ") == NULL);
    free(s);
    quit_ok(&t, 2000);
}

/* --- help -------------------------------------------------------------------------------- */

TEST(tl_ui_help_from_key_table)
{
    NEED_TMUX();
    FIXTURE_OR_SKIP(f);
    struct tmux t = { 0 };
    if (!start(&t, f)) { tmux_kill(&t); return; }
    tmux_keys(&t, "?", NULL);
    CHECK(tmux_wait(&t, "Zoom in around the cursor", WAIT) >= 0);
    CHECK(tmux_wait(&t, "Everywhere", WAIT) >= 0);
    /* the same lines as `aptop --keys` */
    int st;
    char *keys = test_aptop(&st, "--keys");
    CHECK_INT(st, 0);
    CHECK(strstr(keys, "Zoom in around the cursor") != NULL);
    CHECK(strstr(keys, "Follow the flow forward") != NULL);
    free(keys);
    tmux_keys(&t, "Escape", NULL);
    CHECK(tmux_wait(&t, "Python", WAIT) >= 0);
    quit_ok(&t, 2000);
}

/* --- hostile text, wide characters, odd durations ----------------------------------------- */

static const char hostile_trace[] =
    "[\n"
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"Ascend Hardware\"}},\n"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"Stream 1\"}},\n"
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":2,\"tid\":0,\"args\":{\"name\":\"Py\\u001b]0;pwned\\u0007\"}},\n"
    "{\"ph\":\"X\",\"name\":\"\\u001b[31mEVIL\",\"pid\":1,\"tid\":1,\"ts\":\"1000100.000\",\"dur\":50,\"args\":{\"k\":\"\\u001b[2J\"}},\n"
    "{\"ph\":\"X\",\"name\":\"\\u77e9\\u9635\\u4e58\\u6cd5_kernel\",\"pid\":1,\"tid\":1,\"ts\":\"1000200.000\",\"dur\":100},\n"
    "{\"ph\":\"X\",\"name\":\"zero\",\"pid\":1,\"tid\":1,\"ts\":\"1000400.000\",\"dur\":0},\n"
    "{\"ph\":\"X\",\"name\":\"negative\",\"pid\":1,\"tid\":1,\"ts\":\"1000500.000\",\"dur\":-5},\n"
    "{\"ph\":\"X\",\"name\":\"late\",\"pid\":1,\"tid\":1,\"ts\":\"8201000000.000\",\"dur\":10},\n"
    "{\"ph\":\"X\",\"name\":\"host\",\"pid\":2,\"tid\":2,\"ts\":\"1000000.000\",\"dur\":7200000000}\n"
    "]\n";

/* Display columns of each screen line stay within the width. */
static bool lines_fit(const char *screen, int cols)
{
    const char *p = screen;
    while (*p) {
        size_t n = strcspn(p, "\n");
        char line[4096];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
        wchar_t w[4096];
        size_t k = mbstowcs(w, line, 4096);
        if (k != (size_t)-1 && wcswidth(w, k) > cols)
            return false;
        p += n + (p[n] == '\n');
    }
    return true;
}

TEST(tl_ui_hostile_text_and_odd_durations)
{
    NEED_TMUX();
    setlocale(LC_ALL, "C.UTF-8");
    char dir[256], path[512];
    snprintf(dir, sizeof dir, "/tmp/aptop-ui-%d", (int)getpid());
    snprintf(path, sizeof path, "%s/r0_ascend_pt/ASCEND_PROFILER_OUTPUT", dir);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
    int st;
    free(test_run(cmd, &st));
    strncat(path, "/trace_view.json", sizeof path - strlen(path) - 1);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs(hostile_trace, f);
    fclose(f);
    struct tmux t = { 0 };
    if (start(&t, dir) && loaded(&t)) {
        char *s = tmux_screen(&t);
        /* the process name's escape sequence is shown, not obeyed */
        CHECK(strstr(s, "Py\\x1b]0;pwned") != NULL);
        CHECK(lines_fit(s, COLS));
        free(s);
        tmux_keys(&t, "/", NULL);
        tmux_text(&t, "EVIL");
        tmux_keys(&t, "Enter", NULL);
        CHECK(tmux_wait(&t, "\\x1b[31mEVIL on Ascend Hardware", WAIT) >= 0);
        tmux_keys(&t, "Enter", NULL);     /* detail pane: args escaped too */
        CHECK(tmux_wait(&t, "k: \\x1b[2J", WAIT) >= 0);
        tmux_keys(&t, "Escape", NULL);
        usleep(150000);
        tmux_keys(&t, "/", NULL);
        tmux_text(&t, "\xe7\x9f\xa9\xe9\x98\xb5");
        tmux_keys(&t, "Enter", "z", NULL);
        CHECK(tmux_wait(&t, "[\xe7\x9f\xa9\xe9\x98\xb5\xe4\xb9\x98\xe6\xb3\x95_kernel", WAIT) >= 0);
        s = tmux_screen(&t);
        CHECK(lines_fit(s, COLS));
        free(s);
        /* a zero-length slice is reachable and drawn; a negative duration does not break
         * the lane (the reader may keep it or report it); the two-hour span fits */
        tmux_keys(&t, "l", NULL);
        CHECK(tmux_wait(&t, " zero  Ascend Hardware", WAIT) >= 0);
        tmux_keys(&t, "l", NULL);
        CHECK(tmux_wait(&t, "  Ascend Hardware", WAIT) >= 0);
        tmux_keys(&t, "0", NULL);
        CHECK(tmux_wait(&t, "s/col", WAIT) >= 0);
        s = tmux_screen(&t);
        CHECK(lines_fit(s, COLS));
        free(s);
        quit_ok(&t, 2000);
    }
    tmux_kill(&t);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    free(test_run(cmd, &st));
}

/* --- panning without end ----------------------------------------------------------------- */

/* Zoomed all the way out, panning right hundreds of times stops at the far end of time
 * instead of wrapping to negative times. */
/* The first ruler label after the scale ("4503599.627 s/col   2900000000s"), in seconds;
 * false when the screen shows none. */
static bool first_label_s(struct tmux *t, long long *out)
{
    char *s = tmux_screen(t);
    char *p = strstr(s, " s/col");
    bool ok = false;
    if (p) {
        char *end;
        *out = strtoll(p + 6, &end, 10);
        ok = end != p + 6 && *end == 's';
    }
    free(s);
    return ok;
}

TEST(tl_ui_pan_without_end_does_not_wrap)
{
    NEED_TMUX();
    FIXTURE_OR_SKIP(f);
    struct tmux t = { 0 };
    if (!start(&t, f) || !loaded(&t)) { tmux_kill(&t); return; }
    tmux_keys(&t, "-N", "70", "s", NULL);
    usleep(300000);
    long long last = -1, now = 0;
    for (int i = 0; i < 12; i++) {
        tmux_keys(&t, "-N", "50", "d", NULL);
        usleep(200000);
        if (!first_label_s(&t, &now)) {
            tmux_dump(&t, "no ruler label in seconds");
            CHECK(false);
            break;
        }
        /* a wrap shows as a label smaller than the last (negative times) */
        CHECK(now >= last);
        if (now < last)
            break;
        last = now;
    }
    CHECK(last > 1000000000LL);
    quit_ok(&t, 2000);
}

/* --- match count and marks --------------------------------------------------------------- */

/* `/` says where a match is among all of them ("2/5"), the count equal to the trace's own
 * (Python counts the events of that name); `b` marks slices, `'` and `"` visit the marks in
 * time order and wrap around; `b` again on a marked slice removes its mark. */
TEST(tl_ui_search_count_and_marks_real)
{
    NEED_TMUX();
    REAL_OR_SKIP(p, REAL_L1);
    int st = 0;
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
             "d=d[\"traceEvents\"] if isinstance(d,dict) else d; "
             "print(sum(1 for e in d if e.get(\"name\")==\"aclnnMm_MatMulCommon_MatMulV2\" and e.get(\"ph\") in (\"X\",\"B\")))' "
             "'%s/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json'", p);
    char *n = test_run(cmd, &st);
    CHECK_INT(st, 0);
    int total = n ? atoi(n) : 0;
    free(n);
    CHECK(total >= 3);
    struct tmux t = { 0 };
    if (!start(&t, p) || !loaded(&t)) { tmux_kill(&t); return; }
    char want[256];
    tmux_keys(&t, "^", "/", NULL);          /* from the start of the capture */
    tmux_text(&t, "^aclnnMm_MatMulCommon_MatMulV2$");
    tmux_keys(&t, "Enter", NULL);
    snprintf(want, sizeof want, "/ 1/%d: aclnnMm_MatMulCommon_MatMulV2 on", total);
    CHECK(tmux_wait(&t, want, WAIT) >= 0);
    tmux_keys(&t, "n", NULL);
    snprintf(want, sizeof want, "/ 2/%d: aclnnMm_MatMulCommon_MatMulV2", total);
    CHECK(tmux_wait(&t, want, WAIT) >= 0);
    tmux_keys(&t, "b", NULL);
    CHECK(tmux_wait(&t, "mark 1/1 at ", WAIT) >= 0);
    tmux_keys(&t, "n", NULL);
    snprintf(want, sizeof want, "/ 3/%d: ", total);
    CHECK(tmux_wait(&t, want, WAIT) >= 0);
    tmux_keys(&t, "b", NULL);
    CHECK(tmux_wait(&t, "mark 2/2 at ", WAIT) >= 0);
    tmux_keys(&t, "N", "N", NULL);          /* back to the first match: before both marks */
    snprintf(want, sizeof want, "/ 1/%d: ", total);
    CHECK(tmux_wait(&t, want, WAIT) >= 0);
    tmux_keys(&t, "'", NULL);
    CHECK(tmux_wait(&t, "mark 1/2 at ", WAIT) >= 0);
    tmux_keys(&t, "'", NULL);
    CHECK(tmux_wait(&t, "mark 2/2 at ", WAIT) >= 0);
    tmux_keys(&t, "'", NULL);               /* wraps */
    CHECK(tmux_wait(&t, "mark 1/2 at ", WAIT) >= 0);
    tmux_keys(&t, "\"", NULL);              /* previous wraps to the last */
    CHECK(tmux_wait(&t, "mark 2/2 at ", WAIT) >= 0);
    tmux_keys(&t, "b", NULL);               /* on the marked slice: removed */
    CHECK(tmux_wait(&t, "mark removed (1 left on this rank)", WAIT) >= 0);
    quit_ok(&t, 2000);
}
