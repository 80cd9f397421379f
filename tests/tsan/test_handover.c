/* Thread-sanitizer test of the loader hand-over: the loader thread builds parts while this
 * (UI) thread polls the wake-up pipe, installs parts with loader_apply and reads what is
 * installed, as the UI does between frames; then the same with a stop half way (cancel).
 * Built with -fsanitize=thread by `make tsan`; any race report fails it. Plain output:
 * one line per case and "tsan handover: ok" at the end. */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/discovery/capture.h"
#include "io/load/loader.h"
#include "io/trace/trace_json.h"
#include "model/index/diag.h"
#include "model/index/model.h"
#include "model/index/table.h"
#include "report/report.h"

static int failures;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Reads everything installed so far, as drawing would. */
static unsigned long long touch_parts(const struct session *s, struct loader *l)
{
    unsigned long long sum = 0;
    for (size_t i = 0; i < s->nranks; i++) {
        const struct rank_data *rd = &s->ranks[i];
        if (rd->model) {
            sum += rd->model->nslices + rd->model->nlanes;
            if (rd->model->nslices)
                sum += (unsigned long long)rd->model->dur[rd->model->nslices - 1];
        }
        for (int k = 0; k < TK_COUNT; k++)
            if (rd->tables[k])
                sum += rd->tables[k]->nrows;
        sum += (unsigned char)rd->status[0];
    }
    struct load_progress *p = loader_progress(l);
    sum += p->bytes_done + p->events + p->files_done;
    const char *f = p->file;
    if (f)
        sum += (unsigned char)f[0];
    sum += diag_count(s->diag);
    return sum;
}

/* Loads path through the threaded loader; stop_after_ms < 0: to the end, else stop then. */
static void run_case(const char *path, double stop_after_ms, int rank)
{
    struct diag *d = diag_new();
    struct capture c;
    memset(&c, 0, sizeof c);
    if (capture_discover(path, &c, d)) {
        printf("tsan handover: %s: not found, skipped\n", path);
        capture_free(&c);
        diag_free(d);
        return;
    }
    struct session *s = session_new(&c, d);
    struct loader_opts o = { .prefer_db = false, .rank = rank };
    double t0 = now_ms();
    struct loader *l = loader_start(&c, s, &o);
    if (!l) {
        printf("tsan handover: %s: loader_start failed\n", path);
        failures++;
        session_free(s);
        capture_free(&c);
        diag_free(d);
        return;
    }
    int applied = 0, loops = 0;
    unsigned long long seen = 0;
    for (;;) {
        struct pollfd pf = { .fd = loader_fd(l), .events = POLLIN };
        poll(&pf, 1, 20);
        applied += loader_apply(l);
        seen += touch_parts(s, l);
        loops++;
        if (stop_after_ms >= 0 && now_ms() - t0 >= stop_after_ms)
            break;
        if (loader_done(l)) {
            applied += loader_apply(l);
            break;
        }
        if (now_ms() - t0 > 60000) {
            printf("tsan handover: %s: load did not finish in 60 s\n", path);
            failures++;
            break;
        }
    }
    loader_stop(l);
    if (stop_after_ms < 0) {
        /* the full load: the report reads the session like `aptop report` does */
        FILE *null = fopen("/dev/null", "w");
        struct report_opts ro = { .sections = "summary,kernels,flows,steps,ranks,comm", .format = FMT_JSON, .rank = -1 };
        report_print(s, &ro, null);
        fclose(null);
        if (applied == 0) {
            printf("tsan handover: %s: no part was installed\n", path);
            failures++;
        }
    }
    printf("tsan handover: %s%s: %d parts installed in %d polls, %.0f ms (%llu)\n", path,
           stop_after_ms >= 0 ? " (stopped half way)" : "", applied, loops, now_ms() - t0, seen % 1000);
    session_free(s);
    capture_free(&c);
    diag_free(d);
}

int main(int argc, char **argv)
{
    const char *fixture = argc > 1 ? argv[1] : "fixtures/vllm_decode_2rank";
    const char *big = argc > 2 ? argv[2] : "fixtures/phases";
    for (int i = 0; i < 3; i++)
        run_case(fixture, -1, -1);
    run_case(fixture, -1, 1);
    run_case(big, -1, -1);
    /* stops at several moments: before anything, early, mid-load */
    run_case(big, 0, -1);
    run_case(big, 5, -1);
    run_case(big, 40, -1);
    run_case(fixture, 2, -1);
    /* every trace read in parts, small ones taken over again and again: the readers' cuts,
     * claims and hand-overs, and a stop while they read */
    trace_json_set_split(0, UINT64_MAX);
    trace_json_set_chunk_size(4096);
    trace_json_set_sharing(2);
    for (int i = 0; i < 3; i++)
        run_case(fixture, -1, -1);
    run_case(big, -1, -1);
    run_case(big, 5, -1);
    trace_json_set_sharing(8u << 20);
    trace_json_set_chunk_size(4u << 20);
    trace_json_set_split(32u << 20, UINT64_MAX);
    if (failures) {
        printf("tsan handover: %d failure(s)\n", failures);
        return 1;
    }
    printf("tsan handover: ok\n");
    return 0;
}
