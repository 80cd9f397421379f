/* `aptop report` under an address-space limit (ulimit -v) at 0.3, 0.6 and 1.5 times what it
 * needs, on a capture of a 24 MB trace and a kernel table, plain and with the trace gzipped:
 * never a death by signal; exit 0 only with the whole report (the figures of an unlimited
 * run); exit 4 with "out of memory" messages naming what is missing and "the report is
 * incomplete"; exit 1 with a message (refused by the memory check, or nothing loaded). At
 * 1.5 times the need, the whole report. Each limit is tried with the memory check and without
 * it (APTOP_NO_MEMCHECK=1), so the readers meet the limit too.
 *
 * The need is the peak address space (VmPeak) of an unlimited run, read when it exits. The
 * binary is the plain build/aptop: AddressSanitizer reserves terabytes of address space and
 * cannot run under such a limit. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../runner.h"

#define PLAIN_BIN "build/aptop"
#define DIR "build/test_cache/memlimit"
#define KERNELS "fixtures/vllm_decode_2rank/npu-node-07_28417_20260119104000123_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv"

struct run { int status; uint64_t vm_peak; char out[4200], err[4200]; };

/* VmPeak (bytes) of process pid, 0 when unknown. */
static uint64_t vm_peak(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    unsigned long long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmPeak: %llu kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return (uint64_t)kb * 1024;
}

/* aptop report --no-cache --format json CAPTURE with stdout and stderr to files, under an
 * address-space limit of `limit` bytes (0: none); measure: stop it at its exit to read its
 * VmPeak (ptrace). */
static void run_report(const char *capture, uint64_t limit, bool no_memcheck, bool measure, struct run *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->out, sizeof r->out, DIR "/out.json");
    snprintf(r->err, sizeof r->err, DIR "/err.txt");
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(r->out, "w", stdout) || !freopen(r->err, "w", stderr))
            _exit(99);
        if (no_memcheck)
            setenv("APTOP_NO_MEMCHECK", "1", 1);
        if (limit) {
            struct rlimit rl = { limit, limit };
            setrlimit(RLIMIT_AS, &rl);
        }
        if (measure) {
            ptrace(PTRACE_TRACEME, 0, NULL, NULL);
            raise(SIGSTOP);
        }
        execl(PLAIN_BIN, PLAIN_BIN, "report", "--no-cache", "--format", "json", capture, (char *)NULL);
        _exit(98);
    }
    int st = 0;
    if (measure) {
        waitpid(pid, &st, 0);   /* stopped before exec */
        ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)(PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL));
        ptrace(PTRACE_CONT, pid, NULL, NULL);
        while (waitpid(pid, &st, 0) == pid && WIFSTOPPED(st)) {
            int sig = 0;
            if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8)))
                r->vm_peak = vm_peak(pid);
            else if (WSTOPSIG(st) != SIGTRAP)
                sig = WSTOPSIG(st);   /* its own signals go on to it */
            ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
        }
    } else {
        waitpid(pid, &st, 0);
    }
    r->status = st;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return strdup("");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)(n > 0 ? n : 0) + 1);
    size_t got = s && n > 0 ? fread(s, 1, (size_t)n, f) : 0;
    if (s)
        s[got] = 0;
    fclose(f);
    return s ? s : strdup("");
}

/* The report without its load time (the one figure that differs between two runs). */
static void drop_load_ms(char *json)
{
    char *p = strstr(json, "\"load_ms\": ");
    if (!p)
        return;
    char *e = p + strlen("\"load_ms\": ");
    while (*e && *e != ',' && *e != '}')
        e++;
    memmove(p, e, strlen(e) + 1);
}

static void one_capture(const char *capture)
{
    struct run r;
    run_report(capture, 0, false, true, &r);
    CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
    char *full = slurp(r.out);
    drop_load_ms(full);
    CHECK(strstr(full, "\"slices\": ") != NULL);
    uint64_t need = r.vm_peak;
    if (!need) {
        free(full);
        SKIP("the peak address space could not be read (ptrace not permitted)");
    }
    const double factors[] = { 0.3, 0.6, 1.5 };
    for (size_t k = 0; k < sizeof factors / sizeof *factors; k++)
        for (int nocheck = 0; nocheck < 2; nocheck++) {
            uint64_t limit = (uint64_t)((double)need * factors[k]);
            run_report(capture, limit, nocheck, false, &r);
            char *out = slurp(r.out), *err = slurp(r.err);
            drop_load_ms(out);
            const char *what = WIFSIGNALED(r.status) ? "killed by a signal"
                             : !WIFEXITED(r.status) ? "did not exit"
                             : WEXITSTATUS(r.status) == 0 ? (strcmp(out, full) ? "exit 0 with other figures"
                                                             : strstr(err, "out of memory") ? "exit 0 after running out"
                                                                                            : NULL)
                             : WEXITSTATUS(r.status) == 4 ? (strstr(err, "out of memory") && strstr(err, "the report is incomplete")
                                                             ? NULL : "exit 4 without saying what is missing")
                             : WEXITSTATUS(r.status) == 1 ? (strstr(err, "loading needs about") || strstr(err, "nothing could be loaded")
                                                             ? NULL : "exit 1 without saying why")
                             : "another exit status";
            if (!what && factors[k] > 1 && (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0))
                what = "not the whole report with room to spare";
            if (what)
                test_fail(__FILE__, __LINE__, "%s at %.1fx of %llu bytes%s: %s (status %d)\n%.600s", capture, factors[k],
                          (unsigned long long)need, nocheck ? " without the memory check" : "", what, r.status, err);
            free(out);
            free(err);
        }
    free(full);
}

TEST(memory_limit_report_whole_or_says_incomplete)
{
    if (access(PLAIN_BIN, X_OK) != 0 || access(KERNELS, R_OK) != 0)
        SKIP("needs build/aptop and the fixtures (make all fixtures)");
    const char *make = "rm -rf " DIR " && mkdir -p " DIR "/plain/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT "
                       DIR "/gz/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT && "
                       "python3 bench/gen_trace.py 24M " DIR "/plain/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json && "
                       "gzip -1 -c " DIR "/plain/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json > "
                       DIR "/gz/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json.gz && "
                       "cp " KERNELS " " DIR "/plain/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ && "
                       "cp " KERNELS " " DIR "/gz/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/";
    CHECK(system(make) == 0);
    one_capture(DIR "/plain");
    one_capture(DIR "/gz");
    CHECK(system("rm -rf " DIR) == 0);
}
