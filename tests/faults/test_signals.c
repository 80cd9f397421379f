/* Signals that end aptop from outside, and a file size limit:
 * - SIGQUIT (Ctrl-\) while a cache file is being written, in report and in the explorer: exit
 *   128 + SIGQUIT (131), no death by the signal (so no core), the temporary cache file removed,
 *   the terminal restored.
 * - ulimit -f (RLIMIT_FSIZE): SIGXFSZ is ignored. A cache file that cannot be written whole is
 *   a warning and the report is still printed (exit 0); a report that cannot be written whole
 *   says so (exit 1). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner.h"
#include "faults.h"

/* A trace whose cache file takes long enough to write to be caught at it. */
#define QUIT_MB 48

/* SIGQUIT while the temporary cache file exists; on a terminal when pty is not NULL. */
static void quit_while_caching(struct fault_pty *pty)
{
    char dir[256], cap[FAULT_PATH], trace[FAULT_PATH], cache[300], env[320], err[300];
    if (!fault_dir("quit", dir, sizeof dir) || !fault_capture(dir, QUIT_MB, cap, trace)) {
        test_fail(__FILE__, __LINE__, "cannot write the test capture");
        fault_rm(dir);
        return;
    }
    snprintf(cache, sizeof cache, "%s/xdg/aptop", dir);
    snprintf(env, sizeof env, "XDG_CACHE_HOME=%s/xdg", dir);
    snprintf(err, sizeof err, "%s/err", dir);
    struct fault_cmd c = { .env = { env, "TERM=xterm", "LANG=C.UTF-8" }, .err = err,
                           .args = { "report", "--section", "summary", cap } };
    if (pty) {
        c.tty = pty->slave;
        c.args[0] = cap;
        c.args[1] = c.args[2] = c.args[3] = NULL;
    }
    pid_t pid = fault_start(&c);
    bool caught = fault_wait_name(cache, ".tmp.", 120000);
    if (caught)
        kill(pid, SIGQUIT);
    else
        test_fail(__FILE__, __LINE__, "no temporary cache file was seen: SIGQUIT could not be sent while one was written");
    int status = pty ? fault_pty_wait(pty, pid, 60000, "aptop after SIGQUIT") : fault_wait(pid, 60000, "aptop after SIGQUIT");
    fault_check_exit(status, 128 + SIGQUIT);
    CHECK_INT(fault_count_names(cache, ".tmp."), 0);
    if (pty) {
        CHECK(fault_pty_restored(pty));
        CHECK(memmem(pty->out, pty->len, "\033[?1049l", 8) != NULL);
    }
    fault_rm(dir);
}

TEST(faults_sigquit_during_report_removes_the_temporary_cache_file)
{
    quit_while_caching(NULL);
}

TEST(faults_sigquit_during_explorer_load_restores_the_terminal)
{
    struct fault_pty p;
    if (!fault_pty_open(&p, 120, 40))
        return;
    quit_while_caching(&p);
    fault_pty_close(&p);
}

/* The cache file outgrows the limit; the report (a few lines) does not. */
TEST(faults_file_size_limit_on_the_cache_is_a_warning)
{
    char dir[256], cap[FAULT_PATH], trace[FAULT_PATH], env[320], out[300], err[300];
    if (!fault_dir("xfsz", dir, sizeof dir) || !fault_capture(dir, 4, cap, trace)) {
        test_fail(__FILE__, __LINE__, "cannot write the test capture");
        fault_rm(dir);
        return;
    }
    snprintf(env, sizeof env, "XDG_CACHE_HOME=%s/xdg", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(err, sizeof err, "%s/err", dir);
    struct fault_cmd c = { .env = { env }, .out = out, .err = err, .file_limit = 64 << 10,
                           .args = { "report", "--cache-min", "0", "--section", "summary", cap } };
    int status = fault_wait(fault_start(&c), 120000, "report under a file size limit");
    fault_check_exit(status, 0);
    char *o = fault_read(out), *e = fault_read(err);
    if (!strstr(e, "warning") || !strstr(e, "index cache not written") || !strstr(e, "File too large"))
        test_fail(__FILE__, __LINE__, "no warning names the cache file that could not be written:\n%s", e);
    CHECK(strstr(o, "Events") != NULL);   /* the report, printed whole */
    free(o);
    free(e);
    fault_rm(dir);
}

/* The report itself outgrows the limit: said on stderr, exit 1. */
TEST(faults_file_size_limit_on_the_report_says_so)
{
    char dir[256], cap[FAULT_PATH], trace[FAULT_PATH], out[300], err[300];
    if (!fault_dir("xfsz", dir, sizeof dir) || !fault_capture(dir, 1, cap, trace)) {
        test_fail(__FILE__, __LINE__, "cannot write the test capture");
        fault_rm(dir);
        return;
    }
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(err, sizeof err, "%s/err", dir);
    struct fault_cmd c = { .out = out, .err = err, .file_limit = 2048,
                           .args = { "report", "--no-cache", "--section", "kernels", cap } };
    int status = fault_wait(fault_start(&c), 120000, "report larger than the file size limit");
    fault_check_exit(status, 1);
    char *e = fault_read(err);
    if (!strstr(e, "could not be written whole") || !strstr(e, "File too large"))
        test_fail(__FILE__, __LINE__, "stderr does not say the report was cut:\n%s", e);
    free(e);
    fault_rm(dir);
}
