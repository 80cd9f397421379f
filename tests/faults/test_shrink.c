/* A trace cut by another program (truncate) while aptop reads it through its mapping: the
 * reader's threads meet pages past the new end, whose SIGBUS the mapped-file handler must
 * get (io/files/mapped_file.h). The explorer (driven by --script) and report keep what was read
 * before the cut, name the file and the byte in an error, and exit 0; nothing dies. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../runner.h"
#include "faults.h"

/* 96 MiB: read by two threads (32 MiB and more), the second from the middle, which the cut
 * to a quarter removes before either thread gets there. */
#define SHRINK_MB 96

static void shrink_while_read(bool explorer)
{
    char dir[256], cap[FAULT_PATH], trace[FAULT_PATH], script[4200], out[4200], err[4200];
    if (!fault_dir("shrink", dir, sizeof dir) || !fault_capture(dir, SHRINK_MB, cap, trace)) {
        test_fail(__FILE__, __LINE__, "cannot write the test capture");
        fault_rm(dir);
        return;
    }
    snprintf(script, sizeof script, "%s/script", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(err, sizeof err, "%s/err", dir);
    FILE *f = fopen(script, "w");
    if (f) {
        fputs("loaded\nkeys !\ndump\n", f);   /* the problems found while loading */
        fclose(f);
    }
    struct stat st;
    stat(trace, &st);
    struct fault_cmd c = { .out = out, .err = err };
    const char *explore[] = { "--no-cache", "--script", script, "--size", "220x50", cap, NULL };
    const char *report[] = { "report", "--no-cache", "--section", "summary,diagnostics", cap, NULL };
    const char **args = explorer ? explore : report;
    for (size_t i = 0; args[i]; i++)
        c.args[i] = args[i];
    pid_t pid = fault_start(&c);
    bool mapped = fault_wait_mapped(pid, trace, 60000);
    if (mapped)
        CHECK(truncate(trace, st.st_size / 4) == 0);
    int status = fault_wait(pid, 180000, explorer ? "the explorer" : "report");
    if (!mapped)
        test_fail(__FILE__, __LINE__, "the trace was never seen mapped: the cut could not be made while it was read");
    fault_check_exit(status, 0);
    char *o = fault_read(out), *e = fault_read(err);
    bool said = strstr(o, "shrank from") || strstr(e, "shrank from");
    if (!said)
        test_fail(__FILE__, __LINE__, "no message says the trace shrank:\n--- stdout\n%s\n--- stderr\n%s", o, e);
    free(o);
    free(e);
    fault_rm(dir);
}

TEST(faults_trace_shrunk_while_the_explorer_reads_it)
{
    shrink_while_read(true);
}

TEST(faults_trace_shrunk_while_report_reads_it)
{
    shrink_while_read(false);
}
