/* Query benchmark: SELECT name, count(*), sum(dur) FROM slice GROUP BY name over an index of
 * N generated slices (default 10 M: nested host ops and device kernels of 600 names on a few
 * lanes, built in memory), through aptop's query engine, against the same statement in the
 * sqlite3 library over the same rows exported to a SQLite file (build/bench/query_slices.db,
 * made in this run). Timed: the statement alone, from prepare to its last row (the engine's
 * also copies the rows out), never the index build, the engine's opening or the export. The
 * engine's first run makes the grouping by name it then keeps (printed apart); then the best
 * of three of each, and whether the answers are equal. Timings are printed, never asserted.
 *
 * usage: bench_query [SLICES [DBFILE]] */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "model/index/model.h"
#include "query/query.h"

#define AGG "SELECT name, count(*), sum(dur) FROM slice GROUP BY name"

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
static double now(void) { return clock_s(CLOCK_MONOTONIC); }
/* CPU time of this process: on a shared machine the wall time also counts others' work */
static double cpu(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

/* Host ops with a nested child on 2 threads, kernels on 4 streams, 600 names. */
static struct model *generate(uint32_t n)
{
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t lanes[6];
    const char *tid[6] = { "1", "2", "10", "11", "12", "13" };
    for (int i = 0; i < 6; i++) {
        uint32_t p = model_proc(m, i < 2 ? "100" : "200", 3);
        model_set_process_name(m, p, i < 2 ? "Python" : "Ascend Hardware", i < 2 ? 6 : 15);
        lanes[i] = model_lane(m, i < 2 ? "100" : "200", 3, tid[i], strlen(tid[i]));
    }
    uint32_t names[600], cat = strtab_intern_cstr(m->str, "kernel");
    for (int i = 0; i < 600; i++) {
        char b[64];
        snprintf(b, sizeof b, i < 100 ? "aten::op_%d" : "Kernel_%d_MatMulV2", i);
        names[i] = strtab_intern_cstr(m->str, b);
    }
    if (model_reserve(m, n, 0) < 0)
        return NULL;
    uint64_t x = 42;
    ns_t t[6] = { 0 };
    for (uint32_t i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        int l = (int)((x >> 33) % 6);
        ns_t dur = 1000 + (ns_t)((x >> 40) % 50000);
        uint32_t nm = l < 2 ? names[(x >> 20) % 100] : names[100 + (x >> 20) % 500];
        model_add_slice_ids(m, lanes[l], t[l], dur, nm, cat, 0, UINT64_MAX, 0);
        if (l < 2 && i + 1 < n && (x >> 50) % 2) {   /* a child inside the host op */
            model_add_slice_ids(m, lanes[l], t[l] + dur / 4, dur / 2, names[(x >> 24) % 100], cat, 0, UINT64_MAX, 0);
            i++;
        }
        t[l] += dur + (ns_t)((x >> 45) % 2000) + 1;
    }
    return model_finalize(m) == 0 ? m : NULL;
}

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 10000000u;
    const char *dbpath = argc > 2 ? argv[2] : "build/bench/query_slices.db";
    double t0 = now();
    struct model *m = generate(n);
    if (!m) {
        fprintf(stderr, "bench_query: out of memory\n");
        return 1;
    }
    printf("index: %u slices in %.2f s\n", m->nslices, now() - t0);
    struct rank_data rd = { .rank = 0, .model = m };
    struct session s = { .ranks = &rd, .nranks = 1 };
    char err[256];
    t0 = now();
    struct query *q = query_open(&s, err, sizeof err);
    if (!q) {
        fprintf(stderr, "bench_query: %s\n", err);
        return 1;
    }
    double open_s = now() - t0;
    double best = 1e9, best_cpu = 1e9, first = 0, first_cpu = 0;
    struct rowset *rs = NULL;
    for (int i = 0; i < 4; i++) {   /* the first makes the grouping, the best of the others */
        rowset_free(rs);
        t0 = now();
        double c0 = cpu();
        rs = query_run(q, AGG, 0, err, sizeof err);
        double d = now() - t0, dc = cpu() - c0;
        if (!rs) {
            fprintf(stderr, "bench_query: %s\n", err);
            return 1;
        }
        if (i == 0) {
            first = d, first_cpu = dc;
            continue;
        }
        best_cpu = dc < best_cpu ? dc : best_cpu;
        best = d < best ? d : best;
    }
    printf("timed: the statement alone, prepare to last row (not the index build, the engine's opening "
           "in %.4f s, nor the export)\n", open_s);
    printf("aptop query engine: %s: %zu groups, best of 3 %.3f s wall, %.3f s cpu (%.1f M slices/s of cpu, "
           "%.0f ns a slice); first run, making the grouping it keeps: %.3f s wall, %.3f s cpu\n", AGG, rs->nrows,
           best, best_cpu, m->nslices / best_cpu / 1e6, best_cpu * 1e9 / m->nslices, first, first_cpu);
    /* the same rows (every column of the slice table) into a SQLite file */
    unlink(dbpath);
    sqlite3 *db = NULL;
    if (sqlite3_open(dbpath, &db) != SQLITE_OK) {
        fprintf(stderr, "bench_query: %s: %s\n", dbpath, sqlite3_errmsg(db));
        return 1;
    }
    t0 = now();
    sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                     "CREATE TABLE slice(id INTEGER, ts INTEGER, dur INTEGER, name TEXT, category TEXT, "
                     "track_id INTEGER, depth INTEGER, parent_id INTEGER, rank INTEGER); BEGIN", NULL, NULL, NULL);
    sqlite3_stmt *ins = NULL;
    sqlite3_prepare_v2(db, "INSERT INTO slice VALUES (?,?,?,?,?,?,?,?,?)", -1, &ins, NULL);
    for (uint32_t i = 0; ins && i < m->nslices; i++) {
        uint32_t p = model_parent(m, i);
        sqlite3_bind_int64(ins, 1, i);
        sqlite3_bind_int64(ins, 2, m->start[i]);
        sqlite3_bind_int64(ins, 3, m->dur[i]);
        sqlite3_bind_text(ins, 4, model_str(m, m->name[i]), -1, SQLITE_STATIC);
        sqlite3_bind_text(ins, 5, model_str(m, m->cat[i]), -1, SQLITE_STATIC);
        sqlite3_bind_int64(ins, 6, m->lane[i]);
        sqlite3_bind_int64(ins, 7, m->depth[i]);
        if (p == SLICE_NONE)
            sqlite3_bind_null(ins, 8);
        else
            sqlite3_bind_int64(ins, 8, p);
        sqlite3_bind_int64(ins, 9, 0);
        sqlite3_step(ins);
        sqlite3_reset(ins);
    }
    sqlite3_finalize(ins);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    printf("export: %u rows to %s in %.2f s\n", m->nslices, dbpath, now() - t0);
    /* the same statement over the file, in the same process */
    double fbest = 1e9, fbest_cpu = 1e9;
    size_t groups = 0;
    bool same = true;   /* row by row: both answer in the names' byte order */
    for (int i = 0; i < 3; i++) {
        sqlite3_stmt *st = NULL;
        t0 = now();
        double c0 = cpu();
        if (sqlite3_prepare_v2(db, AGG, -1, &st, NULL) != SQLITE_OK) {
            fprintf(stderr, "bench_query: %s\n", sqlite3_errmsg(db));
            return 1;
        }
        groups = 0;
        same = true;
        while (sqlite3_step(st) == SQLITE_ROW) {
            size_t r = groups++;
            char name[256];
            same = same && r < rs->nrows && sqlite3_column_int64(st, 1) == rowset_cell(rs, r, 1)->i &&
                   sqlite3_column_int64(st, 2) == rowset_cell(rs, r, 2)->i &&
                   !strcmp((const char *)sqlite3_column_text(st, 0), rowset_format(rs, r, 0, name, sizeof name));
        }
        sqlite3_finalize(st);
        double d = now() - t0, dc = cpu() - c0;
        fbest = d < fbest ? d : fbest;
        fbest_cpu = dc < fbest_cpu ? dc : fbest_cpu;
    }
    printf("sqlite3 over the exported file: %zu groups, best of 3 %.3f s wall, %.3f s cpu (%.1f M slices/s of cpu, "
           "%.0f ns a slice)\n", groups, fbest, fbest_cpu, m->nslices / fbest_cpu / 1e6, fbest_cpu * 1e9 / m->nslices);
    printf("answers equal: %s; the engine took %.2fx the file's cpu time (%.2fx its wall time)\n",
           groups == rs->nrows && same ? "yes (row by row)" : "NO", best_cpu / fbest_cpu, best / fbest);
    sqlite3_close(db);
    rowset_free(rs);
    query_close(q);
    model_free(m);
    return 0;
}
