/* Hardening of the real binary: terminal safety with a capture full of hostile names (title
 * changes, screen clears, bells, C1 CSI, RTL override, very long and invalid UTF-8 names in
 * slices, args, lanes, CSV cells and the directory name); a mutated capture opens and quits;
 * the UI leaves real and WAL-mode captures untouched and unlocked; SIGINT, SIGTERM and a lost
 * terminal (tmux kill-session) end it promptly with the terminal given back. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>

#include "../runner.h"
#include "tmux.h"

#define COLS 160
#define ROWS 48
#define WAIT 10000
#define ALL_SECTIONS "summary,kernels,ops,apis,step_trace,flows,steps,phases,ranks,comm"
#define FIXTURE "fixtures/vllm_decode_2rank"

#define NEED_TMUX() do { if (!tmux_available()) SKIP("tmux not installed"); } while (0)

static const char *bin(void)
{
    const char *b = getenv("APTOP_BIN");
    return b ? b : "build/aptop";
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int sh_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh_status(const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st;
    free(test_run(cmd, &st));
    return st;
}

static void write_file(const char *path, const char *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        test_fail(__FILE__, __LINE__, "cannot write %s", path);
        return;
    }
    fwrite(data, 1, n, f);
    fclose(f);
}

/* A fresh /tmp directory (mkdtemp), removed again by rm_tmp. */
static bool make_tmp(char *out, size_t size, const char *stem)
{
    snprintf(out, size, "/tmp/aptop-%s-XXXXXX", stem);
    return mkdtemp(out) != NULL;
}

static void rm_tmp(const char *dir)
{
    if (!strncmp(dir, "/tmp/aptop-", 11))
        sh_status("chmod -R u+w '%s' 2>/dev/null; rm -rf '%s'", dir, dir);
}

/* --- the hostile capture -------------------------------------------------------------- */

/* The rank directory name: OSC title, clear screen, bell, C1 CSI, RTL override, bad UTF-8. */
#define HOSTILE_DIR "rank0\x1b]0;pwned\x07\x1b[2J\x1b[H\x07\xc2\x9b" "31m\xe2\x80\xae\xff\xfe_ascend_pt"

/* Builds the capture under a new /tmp directory; root gets the directory to open. */
static bool hostile_capture(char *root, size_t size)
{
    if (!make_tmp(root, size, "hostile"))
        return false;
    char p[1024];
    snprintf(p, sizeof p, "%s/" HOSTILE_DIR, root);
    if (mkdir(p, 0755))
        return false;
    snprintf(p, sizeof p, "%s/" HOSTILE_DIR "/ASCEND_PROFILER_OUTPUT", root);
    if (mkdir(p, 0755))
        return false;
    /* trace: escapes in JSON form and as raw bytes (invalid JSON strings the reader may
     * still take), in process/thread names, slice names, categories and args */
    char longname[6000];
    memset(longname, 'W', sizeof longname - 8);
    memcpy(longname + sizeof longname - 8, "\\u009b7\0", 8);
    static const char head[] =
        "[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"Ascend Hardware\\u001b]0;pwned\\u0007\"}},\n"
        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":2,\"args\":{\"name\":\"Stream 2\\u001b[2J\\u001b[H\\u0007\"}},\n"
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":2,\"tid\":0,\"args\":{\"name\":\"Python\\u009b31m\\u202e\"}},\n"
        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":2,\"tid\":3,\"args\":{\"name\":\"Thread \x1b]0;pwned\x07 raw\"}},\n"
        "{\"ph\":\"X\",\"name\":\"MatMul\\u001b]0;pwned\\u0007\\u0007\",\"pid\":1,\"tid\":2,\"ts\":\"1000.000\",\"dur\":5,"
        "\"cat\":\"kernel\\u001b[31m\",\"args\":{\"Task Type\":\"AI_CORE\\u001b[2J\",\"x\\u001b]0;pwned\\u0007\":\"v\\u202e\\u0007\\u009b\"}},\n"
        "{\"ph\":\"X\",\"name\":\"raw\x1b]0;pwned\x07\x1b[2J\x1b[H\xc2\x9b" "1m\",\"pid\":2,\"tid\":3,\"ts\":\"1001.000\",\"dur\":20,"
        "\"args\":{\"Call stack\":\"a.py(1): f\x1b]0;pwned\x07\\r\\nb.py(2): g\"}},\n"
        "{\"ph\":\"X\",\"name\":\"bad\xff\xfe\xc3utf8\xe2\x80\xae\",\"pid\":2,\"tid\":3,\"ts\":\"1030.000\",\"dur\":4},\n"
        "{\"ph\":\"X\",\"name\":\"";
    static const char tail[] =
        "\",\"pid\":1,\"tid\":2,\"ts\":\"1040.000\",\"dur\":3,\"cat\":\"kernel\"},\n"
        "{\"ph\":\"s\",\"name\":\"flow\\u001b]0;pwned\\u0007\",\"id\":\"7\",\"pid\":2,\"tid\":3,\"ts\":\"1001.000\",\"cat\":\"async_npu\"},\n"
        "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"flow\\u001b]0;pwned\\u0007\",\"id\":\"7\",\"pid\":1,\"tid\":2,\"ts\":\"1040.000\",\"cat\":\"async_npu\"},\n"
        "{\"ph\":\"C\",\"name\":\"HBM\\u001b]0;pwned\\u0007\",\"pid\":1,\"tid\":0,\"ts\":\"1000.000\",\"args\":{\"Read\\u0007\":1}}\n]\n";
    size_t n = strlen(head) + strlen(longname) + strlen(tail);
    char *trace = malloc(n + 1);
    snprintf(trace, n + 1, "%s%s%s", head, longname, tail);
    snprintf(p, sizeof p, "%s/" HOSTILE_DIR "/ASCEND_PROFILER_OUTPUT/trace_view.json", root);
    write_file(p, trace, strlen(trace));
    free(trace);
    /* kernel_details.csv: raw control bytes in cells, quoted and not */
    static const char csv[] =
        "Step Id,Model ID,Task ID,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Num\n"
        "1,4294967295,1,2,\"MatMul\x1b]0;pwned\x07\",MatMul\x1b[2J,AI_CORE,\"1000.000\t\",5,0,8\n"
        "1,4294967295,2,2,Add\xc2\x9b" "31m\xe2\x80\xae,\"Add\x07\x07\",AI_VECTOR_CORE\x1b[H,\"1010.000\t\",2,0,8\n"
        "1,4294967295,3,2,bad\xff\xfe,Add,AI_VECTOR_CORE,\"1020.000\t\",2,0,8\n";
    snprintf(p, sizeof p, "%s/" HOSTILE_DIR "/ASCEND_PROFILER_OUTPUT/kernel_details.csv", root);
    write_file(p, csv, sizeof csv - 1);
    static const char step[] = "Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,Communication(Not Overlapped and Exclude Receive)\n"
                               "1\x1b]0;pwned\x07,10,2,0,2,1,0,0,2\n";
    snprintf(p, sizeof p, "%s/" HOSTILE_DIR "/ASCEND_PROFILER_OUTPUT/step_trace_time.csv", root);
    write_file(p, step, sizeof step - 1);
    return true;
}

/* Offset of the first byte a terminal could act on (C0 but \t \n, DEL, C1 in UTF-8, bytes
 * of invalid UTF-8), or -1 when the text is clean. */
static long unsafe_byte(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        unsigned c = u[i];
        if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f)) {
            i++;
            continue;
        }
        if (c < 0x20 || c == 0x7f)
            return (long)i;
        size_t len = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c <= 0xdf ? 2 : 0;
        if (!len || i + len > n)
            return (long)i;
        for (size_t k = 1; k < len; k++)
            if ((u[i + k] & 0xc0) != 0x80)
                return (long)i;
        if (c == 0xc2 && u[i + 1] < 0xa0)      /* U+0080..U+009F: C1 controls */
            return (long)i;
        i += len;
    }
    return -1;
}

static void check_clean(const char *what, const char *out)
{
    long at = unsafe_byte(out, strlen(out));
    if (at >= 0) {
        long from = at > 40 ? at - 40 : 0;
        test_fail(__FILE__, __LINE__, "%s: raw control byte 0x%02x at offset %ld, after \"%.40s\"", what,
                  (unsigned char)out[at], at, out + from);
    }
    if (strstr(out, "\xe2\x80\xae"))   /* bidi controls reorder what follows on screen */
        test_fail(__FILE__, __LINE__, "%s: raw U+202E (right-to-left override)", what);
}

TEST(hardening_report_and_list_escape_hostile_names)
{
    if (access(bin(), X_OK))
        SKIP("aptop binary not built");
    char root[256];
    CHECK(hostile_capture(root, sizeof root));
    static const char *const fmts[] = { "text", "csv", "json" };
    for (int i = 0; i < 3; i++) {
        char cmd[1024], what[64];
        int st;
        snprintf(cmd, sizeof cmd, "%s report --format %s --section " ALL_SECTIONS " '%s' 2>/dev/null", bin(), fmts[i], root);
        char *out = test_run(cmd, &st);
        snprintf(what, sizeof what, "report --format %s stdout", fmts[i]);
        CHECK_INT(st, 0);
        check_clean(what, out);
        /* the hostile names are there, in escaped form */
        CHECK(strstr(out, "pwned") != NULL);
        if (i == 0)
            CHECK(strstr(out, "\\x1b") != NULL);
        if (i == 2) {
            cJSON *j = cJSON_Parse(out);    /* still valid JSON, whatever the names hold */
            CHECK(j != NULL);
            cJSON_Delete(j);
        }
        free(out);
        /* diagnostics on stderr reach the terminal too */
        snprintf(cmd, sizeof cmd, "%s report --format %s --section " ALL_SECTIONS " '%s' 2>&1 >/dev/null", bin(), fmts[i], root);
        out = test_run(cmd, &st);
        snprintf(what, sizeof what, "report --format %s stderr", fmts[i]);
        check_clean(what, out);
        free(out);
    }
    char cmd[1024];
    int st;
    snprintf(cmd, sizeof cmd, "%s --list '%s' 2>&1", bin(), root);
    char *out = test_run(cmd, &st);
    CHECK_INT(st, 0);
    check_clean("--list", out);
    CHECK(strstr(out, "pwned") != NULL);
    free(out);
    /* a hostile path given on the command line, with nothing loadable in it */
    char bad[600];
    snprintf(bad, sizeof bad, "%s/" HOSTILE_DIR "/nothing\x1b]0;pwned\x07", root);
    CHECK(mkdir(bad, 0755) == 0);
    char badf[700];
    snprintf(badf, sizeof badf, "%s/trace_view.json", bad);
    write_file(badf, "garbage", 7);
    snprintf(cmd, sizeof cmd, "%s report '%s' 2>&1", bin(), bad);
    out = test_run(cmd, &st);
    CHECK(st != 0);
    check_clean("report of a hostile path with nothing loadable", out);
    free(out);
    snprintf(cmd, sizeof cmd, "%s --list '%s' 2>&1", bin(), bad);
    out = test_run(cmd, &st);
    check_clean("--list of a hostile path", out);
    free(out);
    /* an unknown path with hostile bytes in the error message */
    snprintf(cmd, sizeof cmd, "%s report '%s/no\x1b]0;pwned\x07such' 2>&1", bin(), root);
    out = test_run(cmd, &st);
    CHECK(st != 0);
    check_clean("error for a missing hostile path", out);
    free(out);
    rm_tmp(root);
}

/* tmux's idea of the pane title, cursor and alternate screen */
static char *pane_format(struct tmux *t, const char *fmt)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "tmux -L %s display -p '%s' 2>/dev/null", t->sock, fmt);
    int st;
    char *s = test_run(cmd, &st);
    s[strcspn(s, "\n")] = 0;
    return s;
}

static bool start_ui(struct tmux *t, const char *path)
{
    char args[4200];
    snprintf(args, sizeof args, "'%s'", path);
    if (!tmux_start(t, args, COLS, ROWS)) {
        test_fail(__FILE__, __LINE__, "tmux did not start");
        return false;
    }
    if (tmux_wait(t, "?:help", WAIT) < 0) {
        test_fail(__FILE__, __LINE__, "no first frame for %s", path);
        return false;
    }
    return true;
}

static bool wait_loaded(struct tmux *t)
{
    if (tmux_wait(t, "loaded ", WAIT) < 0) {
        test_fail(__FILE__, __LINE__, "load did not finish");
        return false;
    }
    return true;
}

static void quit_ok(struct tmux *t)
{
    tmux_keys(t, "q", NULL);
    CHECK(tmux_wait(t, "APTOP-EXIT=0", 5000) >= 0);
    tmux_kill(t);
}

TEST(hardening_ui_hostile_names_stay_text)
{
    NEED_TMUX();
    if (access(bin(), X_OK))
        SKIP("aptop binary not built");
    char root[256];
    CHECK(hostile_capture(root, sizeof root));
    struct tmux t = { 0 };
    if (!start_ui(&t, root)) {
        tmux_kill(&t);
        rm_tmp(root);
        return;
    }
    char *title0 = pane_format(&t, "#{pane_title}");
    wait_loaded(&t);
    /* every view once, then back to the overview */
    static const char *const keys[] = { "2", "3", "4", "5", "6", "7", "8", "9", "1", "End", "Home" };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        tmux_keys(&t, keys[i], NULL);
        usleep(150000);
        char *title = pane_format(&t, "#{pane_title}");
        if (strstr(title, "pwned") || strcmp(title, title0))
            test_fail(__FILE__, __LINE__, "pane title changed to \"%s\" (was \"%s\") after key %s", title, title0, keys[i]);
        free(title);
    }
    char *s = tmux_screen(&t);
    /* the escaped forms are shown, not acted on (the screen was not cleared either) */
    CHECK(strstr(s, "\\x1b") != NULL || strstr(s, "\\x07") != NULL);
    CHECK(strstr(s, "?:help") != NULL);
    if (test_failed_now())
        tmux_dump(&t, "hostile names");
    free(s);
    free(title0);
    quit_ok(&t);
    /* the hostile directory itself as the path: the header shows the path */
    char rank[600];
    snprintf(rank, sizeof rank, "%s/" HOSTILE_DIR, root);
    struct tmux t2 = { 0 };
    if (start_ui(&t2, rank)) {
        wait_loaded(&t2);
        char *title = pane_format(&t2, "#{pane_title}");
        if (strstr(title, "pwned"))
            test_fail(__FILE__, __LINE__, "pane title changed to \"%s\" by the path", title);
        free(title);
        s = tmux_screen(&t2);
        CHECK(strstr(s, "\\x1b") != NULL);
        free(s);
        quit_ok(&t2);
    }
    tmux_kill(&t2);
    rm_tmp(root);
}

/* --- a mutated capture --------------------------------------------------------------- */

TEST(hardening_ui_mutated_capture_opens_and_quits)
{
    NEED_TMUX();
    if (access(FIXTURE, R_OK))
        SKIP("fixtures missing: make fixtures");
    char root[256];
    CHECK(make_tmp(root, sizeof root, "mutui"));
    CHECK_INT(sh_status("cp -R " FIXTURE "/. '%s/'", root), 0);
    /* every trace cut mid-event, every kernel table with flipped bytes, a comm file emptied */
    CHECK_INT(sh_status("cd '%s' && for f in */ASCEND_PROFILER_OUTPUT/trace_view.json; do "
                        "head -c 100001 \"$f\" > \"$f.cut\" && mv \"$f.cut\" \"$f\"; done && "
                        "for f in */ASCEND_PROFILER_OUTPUT/kernel_details.csv; do "
                        "printf '\\033\\000\\377\"' | dd of=\"$f\" bs=1 seek=500 conv=notrunc 2>/dev/null; done && "
                        "for f in */ASCEND_PROFILER_OUTPUT/communication.json; do : > \"$f\"; break; done", root), 0);
    struct tmux t = { 0 };
    if (start_ui(&t, root)) {
        wait_loaded(&t);
        tmux_keys(&t, "3", NULL);
        usleep(100000);
        tmux_keys(&t, "2", "End", NULL);
        quit_ok(&t);
    }
    tmux_kill(&t);
    rm_tmp(root);
}

/* --- read-only under the UI ------------------------------------------------------------ */

static uint64_t fnv_file(const char *path)
{
    uint64_t h = 0xcbf29ce484222325ull;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    unsigned char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        for (size_t i = 0; i < n; i++)
            h = (h ^ buf[i]) * 0x100000001b3ull;
    fclose(f);
    return h;
}

/* Appends "path mode size mtime hash" of every entry under dir to *out (order of readdir is
 * stable for an unchanged directory; a created or removed entry changes it anyway). */
static void tree_state(const char *dir, char **out, size_t *len)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return;
    struct dirent *e;
    while ((e = readdir(dp))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char p[2048], line[2400];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st))
            continue;
        int n = snprintf(line, sizeof line, "%s %o %lld %lld.%09ld %016llx\n", p, (unsigned)st.st_mode,
                         (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                         S_ISREG(st.st_mode) ? (unsigned long long)fnv_file(p) : 0ull);
        *out = realloc(*out, *len + (size_t)n + 1);
        memcpy(*out + *len, line, (size_t)n + 1);
        *len += (size_t)n;
        if (S_ISDIR(st.st_mode))
            tree_state(p, out, len);
    }
    closedir(dp);
}

static char *tree_hash(const char *dir)
{
    char *s = calloc(1, 1);
    size_t n = 0;
    tree_state(dir, &s, &n);
    return s;
}

/* A lock any other process holds on the file (SQLite locks bytes near 1 GiB), or 0. */
static int lock_held(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 0;
    struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };
    int held = fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK ? fl.l_type : 0;
    close(fd);
    return held;
}

static void ui_readonly(const char *src, const char *db_rel)
{
    char root[256];
    CHECK(make_tmp(root, sizeof root, "roui"));
    CHECK_INT(sh_status("cp -Rp '%s' '%s/cap' && chmod -R u+w '%s/cap'", src, root, root), 0);
    char cap[300];
    snprintf(cap, sizeof cap, "%s/cap", root);
    char *before = tree_hash(cap);
    struct tmux t = { 0 };
    if (start_ui(&t, cap)) {
        wait_loaded(&t);
        if (db_rel) {
            char db[600];
            snprintf(db, sizeof db, "%s/%s", cap, db_rel);
            int l = lock_held(db);
            if (l)
                test_fail(__FILE__, __LINE__, "%s is locked (type %d) while the UI shows it", db, l);
        }
        tmux_keys(&t, "End", "Home", "3", "Down", "Enter", "Escape", "2", NULL);
        usleep(200000);
        quit_ok(&t);
    }
    tmux_kill(&t);
    char *after = tree_hash(cap);
    if (strcmp(before, after)) {
        test_fail(__FILE__, __LINE__, "opening %s in the UI changed the tree", src);
        printf("---- before\n%s---- after\n%s----\n", before, after);
    }
    free(before);
    free(after);
    rm_tmp(root);
}

TEST(hardening_ui_leaves_captures_untouched)
{
    NEED_TMUX();
    if (access(bin(), X_OK))
        SKIP("aptop binary not built");
    REAL_OR_SKIP(text, "Ascend-msinsight/test/data/pytorch/text/level1/rank0_ascend_pt");
    ui_readonly(text, NULL);
    REAL_OR_SKIP(full, "Ascend-msinsight/server/src/test/test_data/full_db");
    ui_readonly(full, "msprof_0.db");
    REAL_OR_SKIP(db, "Ascend-msinsight/test/data/pytorch/db/level1/rank0_ascend_pt");
    ui_readonly(db, "ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db");
}

/* --- signals and a lost terminal ------------------------------------------------------ */

/* The aptop process: the child of the pane's shell. */
static pid_t aptop_pid(struct tmux *t)
{
    char *pp = pane_format(t, "#{pane_pid}");
    int shell = atoi(pp);
    free(pp);
    if (shell <= 0)
        return -1;
    char path[128];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", shell, shell);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int pid = -1;
    if (fscanf(f, "%d", &pid) != 1)
        pid = -1;
    fclose(f);
    return pid;
}

/* Gone, or a zombie waiting for its (dying) parent. */
static bool gone(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return true;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *rp = strrchr(buf, ')');
    return rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X');
}

/* Sends sig to the UI on path, after the load (loaded) or at the first frame (mid-load). */
static void signal_case(int sig, const char *name, const char *path, bool loaded)
{
    struct tmux t = { 0 };
    if (!start_ui(&t, path)) {
        tmux_kill(&t);
        return;
    }
    if (loaded)
        wait_loaded(&t);
    pid_t pid = aptop_pid(&t);
    CHECK(pid > 0);
    if (pid <= 0) {
        tmux_kill(&t);
        return;
    }
    long t0 = now_ms();
    CHECK_INT(kill(pid, sig), 0);
    char want[32];
    snprintf(want, sizeof want, "APTOP-EXIT=%d", 128 + sig);
    long ms = tmux_wait(&t, "APTOP-EXIT=", 3000);
    if (ms < 0)
        test_fail(__FILE__, __LINE__, "%s: aptop did not exit within 3 s", name);
    else
        printf("  %s: exited after %ld ms\n", name, now_ms() - t0);
    char *s = tmux_screen(&t);
    if (!strstr(s, want))
        test_fail(__FILE__, __LINE__, "%s: no \"%s\" on the screen", name, want);
    free(s);
    /* the terminal is given back: normal screen, cursor shown */
    char *alt = pane_format(&t, "#{alternate_on}");
    char *cur = pane_format(&t, "#{cursor_flag}");
    if (strcmp(alt, "0"))
        test_fail(__FILE__, __LINE__, "%s: still on the alternate screen", name);
    if (strcmp(cur, "1"))
        test_fail(__FILE__, __LINE__, "%s: cursor left hidden", name);
    free(alt);
    free(cur);
    CHECK(gone(pid));
    tmux_kill(&t);
}

TEST(hardening_ui_sigint_sigterm_restore_terminal)
{
    NEED_TMUX();
    if (access(FIXTURE, R_OK))
        SKIP("fixtures missing: make fixtures");
    signal_case(SIGINT, "SIGINT", FIXTURE, true);
    signal_case(SIGTERM, "SIGTERM", FIXTURE, true);
    /* mid-load: the loader thread is cancelled and joined on the way out */
    if (access("fixtures/phases", R_OK) == 0)
        signal_case(SIGINT, "SIGINT during the load", "fixtures/phases", false);
}

TEST(hardening_ui_lost_terminal_ends_process)
{
    NEED_TMUX();
    if (access(FIXTURE, R_OK))
        SKIP("fixtures missing: make fixtures");
    struct tmux t = { 0 };
    if (!start_ui(&t, FIXTURE)) {
        tmux_kill(&t);
        return;
    }
    pid_t pid = aptop_pid(&t);
    CHECK(pid > 0);
    long t0 = now_ms();
    char cmd[256];
    snprintf(cmd, sizeof cmd, "tmux -L %s kill-session >/dev/null 2>&1", t.sock);
    int st;
    free(test_run(cmd, &st));
    t.live = false;
    while (pid > 0 && !gone(pid) && now_ms() - t0 < 3000)
        usleep(20000);
    if (pid > 0 && !gone(pid)) {
        test_fail(__FILE__, __LINE__, "aptop (pid %d) still runs 3 s after its terminal went away", (int)pid);
        kill(pid, SIGKILL);
    } else {
        printf("  SIGHUP (kill-session): gone after %ld ms\n", now_ms() - t0);
    }
    t.live = true;
    tmux_kill(&t);
}
