/* Benchmark driver: a full load of one trace into a usable (finalized) index, timed, with
 * throughput, peak RSS and resident bytes per event. Prints one line of key=value pairs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "io/trace/trace_json.h"
#include "model/index/diag.h"
#include "model/index/model.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static long rss_kb(void)
{
    long pages = 0, res = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &res) != 2)
            res = 0;
        fclose(f);
    }
    return res * (sysconf(_SC_PAGESIZE) / 1024);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_load TRACE\n");
        return 2;
    }
    long rss0 = rss_kb();
    struct model *m = model_new(TIME_LOCAL_US);
    struct diag *d = diag_new();
    double t0 = now(), c0 = cpu();
    if (getenv("BENCH_CHUNK"))   /* read size in bytes */
        trace_json_set_chunk_size(strtoull(getenv("BENCH_CHUNK"), NULL, 10));
    if (getenv("BENCH_SPLIT"))   /* threshold in bytes: 0 splits every file, huge none */
        trace_json_set_split(strtoull(getenv("BENCH_SPLIT"), NULL, 10), UINT64_MAX);
    if (getenv("BENCH_SHARE"))   /* bytes left from which a reader takes over half (UINT64_MAX: never) */
        trace_json_set_sharing(strtoull(getenv("BENCH_SHARE"), NULL, 10));
    if (getenv("BENCH_NO_MAP"))   /* read by pread into a buffer, as small files are */
        trace_json_set_mapping(UINT64_MAX);
    int rc = trace_json_load(m, argv[1], d, NULL);
    double t1 = now(), c1 = cpu();
    uint64_t split_at = 0;
    int split = trace_json_last_split(&split_at), parts = trace_json_last_parts();
    int fr = model_finalize(m);
    double t2 = now(), c2 = cpu();
    long rss1 = rss_kb();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    uint64_t size = m->nfiles ? m->files[0].size : 0;
    double mib = (double)size / (1 << 20);
    double ev = (double)m->events;
    printf("file=%s size_mib=%.1f events=%llu slices=%u flows=%zu rc=%d/%d read_s=%.3f finalize_s=%.3f total_s=%.3f "
           "cpu_read_s=%.3f cpu_finalize_s=%.3f cpu_mib_s=%.0f mib_s=%.0f events_s=%.0f peak_rss_mib=%.0f rss_b_per_event=%.1f peak_b_per_event=%.1f index_b_per_event=%.1f split=%d split_at=%llu parts=%d\n",
           argv[1], mib, (unsigned long long)m->events, m->nslices, m->nflows, rc, fr, t1 - t0, t2 - t1, t2 - t0,
           c1 - c0, c2 - c1, mib / (c2 - c0), mib / (t2 - t0), ev / (t2 - t0), (double)ru.ru_maxrss / 1024,
           (double)(rss1 - rss0) * 1024 / (ev > 0 ? ev : 1), (double)ru.ru_maxrss * 1024 / (ev > 0 ? ev : 1),
           (double)model_memory(m) / (ev > 0 ? ev : 1), split, (unsigned long long)split_at, parts);
    for (size_t i = 0; i < diag_count(d) && i < 5; i++) {
        char buf[512];
        diag_format(d, i, buf, sizeof buf);
        fprintf(stderr, "diag: %s\n", buf);
    }
    if (getenv("BENCH_NO_FREE"))
        return 0;
    model_free(m);
    diag_free(d);
    return rc < 0 || fr < 0;
}
