/* Benchmark driver for the index cache: one trace (or, with --csv, a kernel_details.csv)
 * loaded cold (read + finalize), its index written to a fresh cache directory, then
 * reopened from the cache (warm) several times. Prints one line of key=value pairs: cold
 * and best warm wall time to a usable index, the ratio, and the cache file's size against
 * the index's memory. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "io/tables/csv_table.h"
#include "io/cache/index_cache.h"
#include "io/trace/trace_json.h"
#include "model/index/diag.h"
#include "model/index/model.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The CSV form: the same figures for a table. */
static int bench_csv(const char *path, struct cache_opts *o)
{
    const char *paths[1] = { path };
    uint64_t key, bytes;
    char *id;
    if (cache_identity(paths, 1, &key, &id, &bytes) < 0)
        return 1;
    struct diag *d = diag_new();
    double t0 = now();
    struct table *t = NULL;
    if (csv_table_load(path, TK_KERNELS, &t, d, NULL) < 0 || !t)
        return 1;
    double cold = now() - t0;
    size_t rows = t->nrows, mem = table_memory(t);
    struct cache_parts parts = { .tables = { t }, .ntables = 1 };
    t0 = now();
    if (index_cache_store_parts(o, key, id, &parts, NULL, 0, 0, NULL, d) < 0)
        return 1;
    double store = now() - t0;
    table_free(t);
    double warm = 1e9;
    for (int i = 0; i < 5; i++) {
        t0 = now();
        struct cache_parts got;
        if (!index_cache_load_parts(o, key, id, &got, d, NULL) || got.ntables != 1 || got.tables[0]->nrows != rows)
            return 1;
        double w = now() - t0;
        table_free(got.tables[0]);
        warm = w < warm ? w : warm;
    }
    char p[4300];
    snprintf(p, sizeof p, "%s/%016llx.idx", o->dir, (unsigned long long)key);
    struct stat sb;
    stat(p, &sb);
    printf("cold_s=%.3f store_s=%.3f warm_s=%.4f warm_pct=%.1f cache_mib=%.1f index_mib=%.1f\n", cold, store, warm,
           100.0 * warm / cold, (double)sb.st_size / 1048576.0, (double)mem / 1048576.0);
    index_cache_clear(o);
    free(id);
    diag_free(d);
    return 0;
}

int main(int argc, char **argv)
{
    bool csv = argc > 1 && !strcmp(argv[1], "--csv");
    if (csv) {
        argv++;
        argc--;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: bench_cache [--csv] FILE CACHE_DIR\n");
        return 2;
    }
    struct cache_opts o;
    cache_opts_default(&o);
    snprintf(o.dir, sizeof o.dir, "%s", argv[2]);
    o.enabled = true;
    o.min_input = 0;
    index_cache_clear(&o);
    if (csv)
        return bench_csv(argv[1], &o);
    const char *paths[1] = { argv[1] };
    uint64_t key, bytes;
    char *id;
    if (cache_identity(paths, 1, &key, &id, &bytes) < 0) {
        fprintf(stderr, "bench_cache: cannot stat %s\n", argv[1]);
        return 1;
    }
    struct diag *d = diag_new();
    double t0 = now();
    struct model *m = model_new(TIME_LOCAL_US);
    if (trace_json_load(m, argv[1], d, NULL) < 0 || model_finalize(m) < 0)
        return 1;
    double cold = now() - t0;
    size_t index_bytes = model_memory(m);
    uint32_t nslices = m->nslices;
    t0 = now();
    int st = index_cache_store(&o, key, id, m, NULL, 0, 0, NULL, d);
    double store = now() - t0;
    model_free(m);
    if (st < 0)
        return 1;
    char path[4300];
    snprintf(path, sizeof path, "%s/%016llx.idx", o.dir, (unsigned long long)key);
    struct stat sb;
    stat(path, &sb);
    double warm = 1e9;
    for (int i = 0; i < 5; i++) {
        t0 = now();
        uint64_t k2;
        char *id2;
        cache_identity(paths, 1, &k2, &id2, &bytes);
        struct model *w = index_cache_load(&o, k2, id2, d, NULL);
        double t = now() - t0;
        if (!w || w->nslices != nslices) {
            fprintf(stderr, "bench_cache: the cached index differs\n");
            return 1;
        }
        model_free(w);
        free(id2);
        warm = t < warm ? t : warm;
    }
    printf("cold_s=%.3f store_s=%.3f warm_s=%.4f warm_pct=%.1f cache_mib=%.1f index_mib=%.1f\n", cold, store, warm,
           100.0 * warm / cold, (double)sb.st_size / 1048576.0, (double)index_bytes / 1048576.0);
    index_cache_clear(&o);
    free(id);
    diag_free(d);
    return 0;
}
