/* DB benchmark: loads a synthetic profiler DB (5M TASK rows + COMPUTE_TASK_INFO +
 * STRING_IDS, made by gen_db.c and cached under build/bench/) with db_load and prints rows
 * per second, the peak RSS over the baseline and the bytes per slice. Printed, never
 * asserted.
 *
 * usage: bench_db [FILE.db [ROWS]]   (default build/bench/profiler_5m.db, 5,000,000 rows) */
#define GEN_DB_NO_MAIN
#include "gen_db.c"

#include <stdatomic.h>
#include <sys/stat.h>
#include <time.h>

#include "io/db_reader.h"
#include "model/model.h"
#include "model/table.h"

int gen_db(const char *path, long rows);

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* kB from /proc/self/status: "VmHWM" (peak) or "VmRSS" (now). */
static long status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ':')
            v = atol(line + strlen(key) + 1);
    if (f)
        fclose(f);
    return v;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "build/bench/profiler_5m.db";
    long rows = argc > 2 ? atol(argv[2]) : 5000000;
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "bench_db: generating %s (%ld rows)\n", path, rows);
        mkdir("build", 0755);
        mkdir("build/bench", 0755);
        double g0 = now_s();
        if (gen_db(path, rows) != 0 || stat(path, &st) != 0) {
            fprintf(stderr, "bench_db: cannot make %s\n", path);
            return 1;
        }
        fprintf(stderr, "bench_db: generated in %.1f s\n", now_s() - g0);
    }
    long base = status_kb("VmRSS");
    struct diag *d = diag_new();
    struct rank_data rd = { .device = -1 };
    struct load_progress p = { 0 };
    double t0 = now_s();
    int rc = db_load(path, &rd, d, &p);
    double dt = now_s() - t0;
    long peak = status_kb("VmHWM"), after = status_kb("VmRSS");
    uint64_t nrows = atomic_load(&p.events);
    uint32_t ns = rd.model ? rd.model->nslices : 0;
    size_t kt = rd.tables[TK_KERNELS] ? rd.tables[TK_KERNELS]->nrows : 0;
    printf("db_load rc=%d file=%s (%.1f MB)\n", rc, path, st.st_size / 1048576.0);
    printf("rows read      %llu in %.3f s = %.2f M rows/s (TASK rows: %.2f M/s)\n", (unsigned long long)nrows, dt,
           nrows / dt / 1e6, ns / dt / 1e6);
    printf("slices         %u, kernel table rows %zu\n", ns, kt);
    printf("model index    %.1f B/slice (model_memory)\n", ns ? (double)model_memory(rd.model) / ns : 0.0);
    printf("peak RSS       %.1f MB over baseline %.1f MB = %.1f B/slice (all: model + kernel table + join)\n",
           (peak - base) / 1024.0, base / 1024.0, ns ? (peak - base) * 1024.0 / ns : 0.0);
    printf("RSS after load %.1f MB over baseline = %.1f B/slice\n", (after - base) / 1024.0,
           ns ? (after - base) * 1024.0 / ns : 0.0);
    for (size_t i = 0; i < diag_count(d); i++) {
        char b[1200];
        diag_format(d, i, b, sizeof b);
        printf("diag: %s\n", b);
    }
    model_free(rd.model);
    for (int i = 0; i < TK_COUNT; i++)
        table_free(rd.tables[i]);
    diag_free(d);
    return rc == 0 ? 0 : 1;
}
