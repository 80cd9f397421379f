/* Benchmark driver: the host call tree of one trace, built after a full load as the explorer
 * builds it (flow figures, then the tree), timed against the load, with the tree's memory;
 * then the rest of what the Call tree view waits for (ui/views/view_calltree.c: the bottom-up
 * tree, both trees sorted for display), timed as "ready". Prints one line of key=value pairs. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "io/trace/trace_json.h"
#include "model/analysis/flowstats.h"
#include "model/host/call_tree.h"
#include "model/index/diag.h"
#include "model/index/model.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static long peak_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_calltree TRACE\n");
        return 2;
    }
    struct model *m = model_new(TIME_LOCAL_US);
    struct diag *d = diag_new();
    double t0 = now();
    if (trace_json_load(m, argv[1], d, NULL) < 0 || model_finalize(m) != 0) {
        fprintf(stderr, "bench_calltree: %s could not be loaded\n", argv[1]);
        return 1;
    }
    double t1 = now();
    long rss_load = peak_rss_kb();
    struct flowstats *fs = flowstats_compute(m, NULL);
    double t2 = now();
    struct call_tree *t = call_tree_build(m, fs, 0, NULL);
    double t3 = now();
    struct call_tree *u = t ? call_tree_invert(t, m, 0) : NULL;
    if (!t || !u) {
        fprintf(stderr, "bench_calltree: out of memory\n");
        return 1;
    }
    call_tree_sort(t, m, CT_BY_HOST);
    call_tree_sort(u, m, CT_BY_HOST);
    double t4 = now();
    printf("slices=%u load_s=%.3f flows_s=%.3f tree_s=%.3f tree_share=%.3f ready_s=%.3f ready_share=%.3f nodes=%zu "
           "truncated=%d tree_mib=%.1f peak_rss_load_mib=%.0f peak_rss_mib=%.0f\n",
           m->nslices, t1 - t0, t2 - t1, t3 - t2, (t3 - t2) / (t1 - t0), t4 - t2, (t4 - t2) / (t1 - t0), t->n, t->truncated,
           (double)call_tree_memory(t) / 1048576.0, rss_load / 1024.0, peak_rss_kb() / 1024.0);
    call_tree_free(u);
    call_tree_free(t);
    flowstats_free(fs);
    model_free(m);
    diag_free(d);
    return 0;
}
