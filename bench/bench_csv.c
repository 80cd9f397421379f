/* CSV benchmark: loads a generated 1M-row kernel_details.csv (made by bench/gen_csv.py and
 * cached under build/bench/), prints the load rate in MB/s, the time to build the table's
 * rowset and the time to sort that rowset by each column. Timings are printed, never
 * asserted. Sort times are CPU time.
 *
 * usage: bench_csv [FILE.csv]   (default build/bench/kernel_details_1m.csv, generated when absent) */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "io/tables/csv_table.h"
#include "model/index/diag.h"
#include "model/rowsets/rowset.h"
#include "model/index/table.h"

static double clock_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
static double now_ms(void) { return clock_ms(CLOCK_MONOTONIC); }
/* CPU time of this process: steadier than wall time on a shared machine */
static double cpu_ms(void) { return clock_ms(CLOCK_PROCESS_CPUTIME_ID); }

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "build/bench/kernel_details_1m.csv";
    struct stat st;
    if (stat(path, &st) != 0) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "python3 bench/gen_csv.py '%s' 1000000", path);
        fprintf(stderr, "bench_csv: generating %s\n", path);
        if (system(cmd) != 0 || stat(path, &st) != 0) {
            fprintf(stderr, "bench_csv: cannot make %s\n", path);
            return 1;
        }
    }
    struct diag *d = diag_new();
    struct table *t = NULL;
    double t0 = now_ms(), c0 = cpu_ms();
    int rc = csv_table_load(path, TK_KERNELS, &t, d, NULL);
    double t1 = now_ms(), c1 = cpu_ms();
    if (rc || !t) {
        char buf[1200];
        for (size_t i = 0; i < diag_count(d); i++) {
            diag_format(d, i, buf, sizeof buf);
            fprintf(stderr, "%s\n", buf);
        }
        return 1;
    }
    double mb = st.st_size / 1e6;
    printf("csv load        %zu rows, %zu columns, %.1f MB in %.0f ms: %.0f MB/s (%.0f MB/s of CPU time)\n",
           t->nrows, t->ncols, mb, t1 - t0, mb / ((t1 - t0) / 1e3), mb / ((c1 - c0) / 1e3));
    struct rowset *rs = table_to_rowset(t, "kernel_instances");
    double t2 = now_ms();
    printf("table→rowset    %.0f ms\n", t2 - t1);
    uint32_t *order = rs ? malloc(rs->nrows * sizeof *order) : NULL;
    double worst = 0;
    const char *worst_col = "";
    for (size_t c = 0; order && c < rs->ncols; c++) {
        double a = cpu_ms();
        rowset_sort_order(rs, c, c % 2, order);
        double ms = cpu_ms() - a;
        printf("sort %-28s %6.0f ms\n", rs->cols[c].key, ms);
        if (ms > worst)
            worst = ms, worst_col = rs->cols[c].key;
    }
    printf("slowest sort    %.0f ms CPU (%s)\n", worst, worst_col);
    free(order);
    rowset_free(rs);
    table_free(t);
    diag_free(d);
    return 0;
}
