/* Memory benchmark: streams a generated memory_record.csv (bench/gen_memory.py, cached under
 * build/bench/) into the memory model and prints the read rate, the peak RSS against the file
 * size, the bytes the model keeps, and the peaks it found (to compare with the generator's).
 * Timings are printed, never asserted.
 *
 * usage: bench_memory FILE.csv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "io/tables/memory_read.h"
#include "model/index/diag.h"
#include "model/analysis/memory.h"

static double clock_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_memory FILE.csv\n");
        return 2;
    }
    struct stat st;
    if (stat(argv[1], &st) != 0) {
        perror(argv[1]);
        return 1;
    }
    struct diag *d = diag_new();
    struct memory *m = memory_new();
    double w0 = clock_ms(CLOCK_MONOTONIC), c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
    int rc = memory_read_csv(argv[1], m, d, NULL);
    memory_finish(m);
    double wall = clock_ms(CLOCK_MONOTONIC) - w0, cpu = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double mib = (double)st.st_size / 1048576.0, rss = (double)ru.ru_maxrss / 1024.0;
    uint64_t rows = 0;
    size_t pts = 0;
    for (size_t i = 0; i < m->nseries; i++) {
        rows += m->series[i].rows;
        pts += m->series[i].npts;
    }
    printf("read=%d size_mib=%.1f rows=%llu wall_s=%.3f mib_s=%.1f cpu_s=%.3f cpu_mib_s=%.1f peak_rss_mib=%.1f "
           "rss_ratio=%.4f model_mib=%.2f points=%zu diagnostics=%zu\n",
           rc, mib, (unsigned long long)rows, wall / 1e3, mib / (wall / 1e3), cpu / 1e3, mib / (cpu / 1e3), rss,
           rss / mib, (double)memory_bytes(m) / 1048576.0, pts, diag_count(d));
    for (size_t i = 0; i < m->nseries; i++)
        printf("peak %s allocated=%lld reserved=%lld\n", memory_str(m, m->series[i].component),
               (long long)(m->series[i].peak[MK_ALLOCATED] == MEM_NONE ? 0 : m->series[i].peak[MK_ALLOCATED]),
               (long long)m->series[i].peak[MK_RESERVED]);
    memory_free(m);
    diag_free(d);
    return rc == 0 ? 0 : 1;
}
