/* DB benchmark: loads a synthetic profiler DB (5M TASK rows + COMPUTE_TASK_INFO +
 * STRING_IDS, made by gen_db.c and cached under build/bench/) with db_load and prints rows
 * per second, the peak RSS over the baseline and the bytes per slice. Printed, never
 * asserted.
 *
 * Memory is counted two ways: the model index (model_memory, the 48 B/slice budget) and the
 * kernel table (table_memory, bytes per kernel row) separately; the peak RSS over the
 * baseline covers both plus every transient. With MODE "timeline" the kernel table is not
 * built, so the peak RSS is the timeline's alone.
 *
 * usage: bench_db [FILE.db [ROWS [MODE]]]   (default build/bench/profiler_5m.db, 5,000,000
 * rows, MODE "all"; "serial" builds the kernel table with one thread) */
#define GEN_DB_NO_MAIN
#include "gen_db.c"

#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "io/db/db_reader.h"
#include "model/index/model.h"
#include "model/index/table.h"

int gen_db(const char *path, long rows);

/* Was path made by this generator (META_DATA GEN_DB_VERSION)? */
static bool gen_db_current(const char *path)
{
    char uri[4200];
    snprintf(uri, sizeof uri, "file:%s?mode=ro&immutable=1", path);
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    bool ok = false;
    if (sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) == SQLITE_OK
        && sqlite3_prepare_v2(db, "SELECT value FROM META_DATA WHERE name='GEN_DB_VERSION'", -1, &q, NULL) == SQLITE_OK
        && sqlite3_step(q) == SQLITE_ROW) {
        const char *v = (const char *)sqlite3_column_text(q, 0);
        ok = v && !strcmp(v, GEN_DB_VERSION);
    }
    sqlite3_finalize(q);
    sqlite3_close(db);
    return ok;
}

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
    if (stat(path, &st) == 0 && !gen_db_current(path)) {
        fprintf(stderr, "bench_db: %s was made by an older generator: making it again\n", path);
        remove(path);
    }
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
    bool timeline_only = argc > 3 && !strcmp(argv[3], "timeline");
    if (argc > 3 && !strcmp(argv[3], "serial"))
        db_set_parallel(UINT64_MAX);
    long base = status_kb("VmRSS");
    struct diag *d = diag_new();
    struct rank_data rd = { .device = -1 };
    struct load_progress p = { 0 };
    struct table *placeholder = NULL;
    if (timeline_only)   /* a kernel table already there: db_load builds none */
        rd.tables[TK_KERNELS] = placeholder = table_new(TK_KERNELS, "");
    struct rusage u0, u1;
    getrusage(RUSAGE_SELF, &u0);
    double t0 = now_s();
    int rc = db_load(path, &rd, d, &p);
    double dt = now_s() - t0;
    getrusage(RUSAGE_SELF, &u1);
    double cpu_user = (double)(u1.ru_utime.tv_sec - u0.ru_utime.tv_sec) + (u1.ru_utime.tv_usec - u0.ru_utime.tv_usec) / 1e6,
           cpu_sys = (double)(u1.ru_stime.tv_sec - u0.ru_stime.tv_sec) + (u1.ru_stime.tv_usec - u0.ru_stime.tv_usec) / 1e6;
    long peak = status_kb("VmHWM"), after = status_kb("VmRSS");
    uint64_t nrows = atomic_load(&p.events);
    uint32_t ns = rd.model ? rd.model->nslices : 0;
    const struct table *ktab = rd.tables[TK_KERNELS] != placeholder ? rd.tables[TK_KERNELS] : NULL;
    size_t kt = ktab ? ktab->nrows : 0;
    printf("db_load rc=%d file=%s (%.1f MB)\n", rc, path, st.st_size / 1048576.0);
    printf("rows read      %llu in %.3f s = %.2f M rows/s (TASK rows: %.2f M/s)\n", (unsigned long long)nrows, dt,
           nrows / dt / 1e6, ns / dt / 1e6);
    printf("cpu time       %.3f s (user %.3f, sys %.3f) = %.2f M rows/s of CPU\n", cpu_user + cpu_sys, cpu_user,
           cpu_sys, nrows / (cpu_user + cpu_sys) / 1e6);
    printf("slices         %u, kernel table rows %zu\n", ns, kt);
    printf("model index    %.1f B/slice (model_memory)\n", ns ? (double)model_memory(rd.model) / ns : 0.0);
    if (ktab)
        printf("kernel table   %.1f MB = %.1f B/kernel row (table_memory, %zu columns)\n",
               table_memory(ktab) / 1048576.0, kt ? (double)table_memory(ktab) / kt : 0.0, ktab->ncols);
    printf("peak RSS       %.1f MB over baseline %.1f MB = %.1f B/slice (%s)\n",
           (peak - base) / 1024.0, base / 1024.0, ns ? (peak - base) * 1024.0 / ns : 0.0,
           ktab ? "all: model + kernel table + transients" : "timeline only: model + transients");
    printf("               (the model index budget is about 48 B/slice; the kernel table is counted apart, per row)\n");
    printf("RSS after load %.1f MB over baseline = %.1f B/slice\n", (after - base) / 1024.0,
           ns ? (after - base) * 1024.0 / ns : 0.0);
    for (size_t i = 0; i < diag_count(d); i++) {
        char b[1200];
        diag_format(d, i, b, sizeof b);
        printf("diag: %s\n", b);
    }
    model_free(rd.model);
    for (int i = 0; i < TK_COUNT; i++)
        table_free(rd.tables[i]);   /* the placeholder too */
    diag_free(d);
    return rc == 0 ? 0 : 1;
}
