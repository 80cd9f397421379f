/* The index cache: a model read back from its cache file equals the cold load array for
 * array (fixtures and every real trace); a changed trace is a miss; a damaged, truncated or
 * foreign cache file is discarded with a note and never trusted; a cancelled or killed
 * writer leaves nothing that is read later; the directory keeps to its size limit. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/cache/cache_io.h"
#include "io/cache/index_cache.h"
#include "io/tables/csv_table.h"
#include "io/db/db_reader.h"
#include "io/load/readers.h"
#include "io/trace/trace_json.h"
#include "model/index/diag.h"
#include "model/index/model.h"
#include "model/index/strtab.h"
#include "model/index/table.h"

#include "../runner.h"
#include "helpers.h"

/* A fresh, empty cache directory under build/. */
static void fresh_cache(struct cache_opts *o, const char *name)
{
    cache_opts_default(o);
    o->enabled = true;
    o->min_input = 0;
    snprintf(o->dir, sizeof o->dir, "build/test_cache/%s", name);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", o->dir);
    if (system(cmd) != 0)
        return;
}

static struct model *cold(const char *path, struct diag *d)
{
    struct model *m = model_new(TIME_LOCAL_US);
    if (trace_json_load(m, path, d, NULL) < 0 && !m->events) {
        model_free(m);
        return NULL;
    }
    model_finalize(m);
    return m;
}

#define SAME_ARRAY(a, b, n) (((n) == 0) || ((a) && (b) && memcmp((a), (b), (n) * sizeof *(a)) == 0))

/* Every array and figure the queries read, compared. */
static bool same_model(const struct model *a, const struct model *b)
{
    if (a->nslices != b->nslices || a->nlanes != b->nlanes || a->nprocs != b->nprocs || a->nflows != b->nflows
        || a->ncounters != b->ncounters || a->nfiles != b->nfiles || a->events != b->events
        || a->t_min != b->t_min || a->t_max != b->t_max || a->flows_matched != b->flows_matched
        || a->flows_unmatched != b->flows_unmatched || a->nflows_by_src != b->nflows_by_src
        || a->nflows_by_dst != b->nflows_by_dst || a->time_base != b->time_base
        || strtab_count(a->str) != strtab_count(b->str)
        || memcmp(a->events_by_ph, b->events_by_ph, sizeof a->events_by_ph))
        return false;
    for (uint32_t i = 0; i < strtab_count(a->str); i++)
        if (strtab_len(a->str, i) != strtab_len(b->str, i)
            || memcmp(strtab_get(a->str, i), strtab_get(b->str, i), strtab_len(a->str, i)))
            return false;
    size_t n = a->nslices;
    if (!SAME_ARRAY(a->start, b->start, n) || !SAME_ARRAY(a->dur, b->dur, n) || !SAME_ARRAY(a->name, b->name, n)
        || !SAME_ARRAY(a->cat, b->cat, n) || !SAME_ARRAY(a->lane, b->lane, n) || !SAME_ARRAY(a->depth, b->depth, n)
        || !SAME_ARRAY(a->file, b->file, n) || !SAME_ARRAY(a->off, b->off, n) || !SAME_ARRAY(a->len, b->len, n))
        return false;
    for (uint32_t i = 0; i < a->nprocs; i++) {
        const struct proc *p = &a->procs[i], *q = &b->procs[i];
        if (p->key != q->key || p->name != q->name || p->labels != q->labels || p->sort_index != q->sort_index
            || p->kind != q->kind || p->first_lane != q->first_lane || p->nlanes != q->nlanes)
            return false;
    }
    for (uint32_t i = 0; i < a->nlanes; i++) {
        const struct lane *l = &a->lanes[i], *k = &b->lanes[i];
        if (l->proc != k->proc || l->key != k->key || l->name != k->name || l->sort_index != k->sort_index
            || l->kind != k->kind || l->first != k->first || l->count != k->count || l->ndepth != k->ndepth
            || !SAME_ARRAY(l->row_first, k->row_first, (size_t)l->ndepth + 1) || a->lane_order[i] != b->lane_order[i])
            return false;
        size_t r0 = l->ndepth ? l->row_first[1] - l->row_first[0] : 0;
        if (!SAME_ARRAY(l->busy_prefix, k->busy_prefix, r0 + 1))
            return false;
    }
    for (size_t i = 0; i < a->nflows; i++) {
        const struct flow *f = &a->flows[i], *g = &b->flows[i];
        if (f->cat != g->cat || f->name != g->name || f->id != g->id || f->id_is_str != g->id_is_str
            || f->src != g->src || f->dst != g->dst || f->src_lane != g->src_lane || f->dst_lane != g->dst_lane
            || f->src_ts != g->src_ts || f->dst_ts != g->dst_ts)
            return false;
    }
    if (!SAME_ARRAY(a->flows_by_src, b->flows_by_src, a->nflows_by_src)
        || !SAME_ARRAY(a->flows_by_dst, b->flows_by_dst, a->nflows_by_dst))
        return false;
    for (uint32_t i = 0; i < a->ncounters; i++) {
        const struct counter_track *c = &a->counters[i], *e = &b->counters[i];
        if (c->proc != e->proc || c->name != e->name || c->unit != e->unit || c->n != e->n || !SAME_ARRAY(c->ts, e->ts, c->n)
            || !SAME_ARRAY(c->value, e->value, c->n))
            return false;
    }
    for (uint32_t i = 0; i < a->nfiles; i++)
        if (strcmp(a->files[i].path, b->files[i].path) || a->files[i].size != b->files[i].size)
            return false;
    return true;
}

/* Cold load, store, reload from the cache: equal, and the cold load's diagnostics replayed. */
static void roundtrip(const char *path, const char *dirname)
{
    struct cache_opts o;
    fresh_cache(&o, dirname);
    struct diag *d = diag_new();
    struct model *m = cold(path, d);
    if (!m) {
        diag_free(d);
        return;
    }
    const char *paths[1] = { path };
    uint64_t key, bytes;
    char *id;
    CHECK(cache_identity(paths, 1, &key, &id, &bytes) == 0);
    size_t nd = diag_count(d);
    struct diag_msg *msgs = calloc(nd + 1, sizeof *msgs);
    for (size_t i = 0; i < nd; i++)
        diag_get(d, i, &msgs[i]);
    CHECK(index_cache_store(&o, key, id, m, msgs, nd, 0, NULL, d) == 0);
    struct diag *d2 = diag_new();
    struct model *w = index_cache_load(&o, key, id, d2, NULL);
    if (!w) {
        char note[512] = "";
        if (diag_count(d2))
            diag_format(d2, 0, note, sizeof note);
        test_fail(__FILE__, __LINE__, "%s: not read back from the cache (%s)", path, note);
    }
    if (w) {
        if (!same_model(m, w))
            test_fail(__FILE__, __LINE__, "%s: the cached model differs from the cold load", path);
        CHECK_INT(diag_count(d2), nd);
        for (size_t i = 0; i < nd && i < diag_count(d2); i++) {
            char x[512], y[512];
            diag_format(d, i, x, sizeof x);
            diag_format(d2, i, y, sizeof y);
            CHECK_STR(y, x);
        }
    }
    for (size_t i = 0; i < nd; i++) {
        free(msgs[i].path);
        free(msgs[i].text);
    }
    free(msgs);
    free(id);
    model_free(w);
    model_free(m);
    diag_free(d);
    diag_free(d2);
}

TEST(index_cache_roundtrip_fixtures)
{
    const char *files[] = {
        "fixtures/vllm_decode_2rank/npu-node-07_28417_20260119104000123_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json",
        "fixtures/ranks4_slow/dp0_pp0_tp1_dcp0_ep0_rank1_20260119110000001_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json",
        "fixtures/broken/truncated_trace/trace_view.json",   /* its truncation note comes back too */
        "fixtures/broken/escapes/trace_view.json",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        if (access(files[i], R_OK) != 0)
            SKIP("fixtures not generated (make fixtures)");
        roundtrip(files[i], "fixtures");
    }
}

TEST(index_cache_roundtrip_every_real_trace)
{
    const char *real = test_real_dir();
    if (!real)
        SKIP("../shared/real not found");
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "find '%s' -type f \\( -name 'trace_view*.json' -o -name 'msprof*.json' "
             "-o -name '*.pt.trace.json*' \\) -size +0 | sort", real);
    int st;
    char *out = test_run(cmd, &st);
    int n = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n"), n++)
        roundtrip(line, "real");
    CHECK(n >= 7);
    free(out);
}

/* The unit of counter series `name` of m ("" none, NULL no such series). */
static const char *counter_unit(const struct model *m, const char *name)
{
    for (uint32_t i = 0; i < m->ncounters; i++)
        if (!strcmp(strtab_get(m->str, m->counters[i].name), name))
            return m->counters[i].unit ? strtab_get(m->str, m->counters[i].unit) : "";
    return NULL;
}

/* Counter units (the arg key of Ascend's counter events) come back from the cache. */
TEST(index_cache_keeps_counter_units)
{
    REAL_OR_SKIP(path, "Ascend-msinsight/test/data/pytorch/text/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json");
    struct cache_opts o;
    fresh_cache(&o, "units");
    struct diag *d = diag_new();
    struct model *m = cold(path, d);
    const char *paths[1] = { path };
    uint64_t key, bytes;
    char *id = NULL;
    CHECK(m && cache_identity(paths, 1, &key, &id, &bytes) == 0);
    CHECK(m && index_cache_store(&o, key, id, m, NULL, 0, 0, NULL, d) == 0);
    struct model *w = m ? index_cache_load(&o, key, id, d, NULL) : NULL;
    CHECK(w != NULL);
    static const char *const want[][2] = {
        { "APP/HBM", "KB" }, { "AI Core Freq", "MHz" }, { "HBM 0/Read", "MB/s" },
        { "LLC 0 Read/Hit Rate", "%" }, { "Mata Bw Level", "" },
    };
    for (size_t k = 0; w && k < sizeof want / sizeof *want; k++) {
        CHECK_STR(counter_unit(m, want[k][0]), want[k][1]);
        CHECK_STR(counter_unit(w, want[k][0]), want[k][1]);
    }
    free(id);
    model_free(w);
    model_free(m);
    diag_free(d);
}

/* A copy of a fixture trace in the cache test folder, for tests that change it. */
static void copy_trace(const char *to)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "mkdir -p build/test_cache && cp "
             "fixtures/vllm_decode_2rank/npu-node-07_28417_20260119104000123_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json '%s'",
             to);
    CHECK(system(cmd) == 0);
}

/* Stores the trace's index; returns its key and identity (*id, NULL or an earlier identity,
 * is replaced). */
static void store(const struct cache_opts *o, const char *path, uint64_t *key, char **id)
{
    free(*id);
    *id = NULL;
    struct diag *d = diag_new();
    struct model *m = cold(path, d);
    const char *paths[1] = { path };
    uint64_t bytes;
    CHECK(cache_identity(paths, 1, key, id, &bytes) == 0);
    CHECK(m && index_cache_store(o, *key, *id, m, NULL, 0, 0, NULL, d) == 0);
    model_free(m);
    diag_free(d);
}

static char *cache_file(const struct cache_opts *o, uint64_t key)
{
    static char path[4300];
    snprintf(path, sizeof path, "%s/%016llx.idx", o->dir, (unsigned long long)key);
    return path;
}

TEST(index_cache_changed_file_is_a_miss)
{
    if (access("fixtures/vllm_decode_2rank", R_OK) != 0)
        SKIP("fixtures not generated (make fixtures)");
    struct cache_opts o;
    fresh_cache(&o, "changed");
    const char *t = "build/test_cache/changed_trace.json";
    copy_trace(t);
    uint64_t key;
    char *id = NULL;
    store(&o, t, &key, &id);
    /* the same bytes, a new modification time: another identity */
    struct timespec ts[2] = { { 0, UTIME_OMIT }, { 1000000000, 0 } };
    CHECK(utimensat(AT_FDCWD, t, ts, 0) == 0);
    const char *paths[1] = { t };
    uint64_t key2, bytes;
    char *id2;
    CHECK(cache_identity(paths, 1, &key2, &id2, &bytes) == 0);
    CHECK(key2 != key);
    CHECK(strcmp(id, id2) != 0);
    struct diag *d = diag_new();
    CHECK(index_cache_load(&o, key2, id2, d, NULL) == NULL);
    /* the old file's identity under the new key (a collision) is a miss too, not a hit */
    char old_file[4300];   /* cache_file returns one static buffer: copy before the second call */
    snprintf(old_file, sizeof old_file, "%s", cache_file(&o, key));
    CHECK(rename(old_file, cache_file(&o, key2)) == 0);
    CHECK(index_cache_load(&o, key2, id2, d, NULL) == NULL);
    CHECK_INT(diag_count(d), 0);
    free(id);
    free(id2);
    diag_free(d);
}

/* Overwrites bytes of the cache file at off (from the end when off < 0). */
static void damage(const char *path, long off, const void *bytes, size_t n)
{
    int fd = open(path, O_RDWR);
    CHECK(fd >= 0);
    struct stat st;
    fstat(fd, &st);
    off_t at = off < 0 ? st.st_size + off : off;
    CHECK(pwrite(fd, bytes, n, at) == (ssize_t)n);
    close(fd);
}

static void expect_discarded(const struct cache_opts *o, uint64_t key, const char *id, const char *why)
{
    struct diag *d = diag_new();
    CHECK(index_cache_load(o, key, id, d, NULL) == NULL);
    if (!test_diag_has(d, "index cache discarded", why))
        test_fail(__FILE__, __LINE__, "no note saying the cache was discarded (%s)", why);
    CHECK(access(cache_file(o, key), F_OK) != 0);   /* removed, so the next load rebuilds it */
    diag_free(d);
}

TEST(index_cache_damage_is_detected_and_rebuilt)
{
    if (access("fixtures/vllm_decode_2rank", R_OK) != 0)
        SKIP("fixtures not generated (make fixtures)");
    struct cache_opts o;
    fresh_cache(&o, "damage");
    const char *t = "build/test_cache/damage_trace.json";
    copy_trace(t);
    uint64_t key;
    char *id = NULL;

    store(&o, t, &key, &id);
    damage(cache_file(&o, key), -100, "\x55\xaa", 2);          /* a byte flip deep inside */
    expect_discarded(&o, key, id, "checksum");

    store(&o, t, &key, &id);
    CHECK(truncate(cache_file(&o, key), 4000) == 0);           /* cut short */
    expect_discarded(&o, key, id, "truncated");

    store(&o, t, &key, &id);
    uint64_t other = 999;
    damage(cache_file(&o, key), 8, &other, sizeof other);      /* the format version */
    expect_discarded(&o, key, id, "another version");

    store(&o, t, &key, &id);
    damage(cache_file(&o, key), 0, "NOTACACHE", 8);
    expect_discarded(&o, key, id, "not an index cache");

    /* after a discard the next cold load writes it again and it is used */
    store(&o, "fixtures/vllm_decode_2rank/npu-node-07_28417_20260119104000123_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json",
          &key, &id);
    struct diag *d = diag_new();
    struct model *m = index_cache_load(&o, key, id, d, NULL);
    CHECK(m != NULL);
    model_free(m);
    diag_free(d);
    free(id);
}

/* Files in the cache directory, by suffix. */
static int count_files(const struct cache_opts *o, const char *suffix)
{
    DIR *dir = opendir(o->dir);
    int n = 0;
    struct dirent *de;
    while (dir && (de = readdir(dir)))
        n += strstr(de->d_name, suffix) != NULL;
    if (dir)
        closedir(dir);
    return n;
}

TEST(index_cache_cancelled_or_killed_writer_leaves_nothing_read)
{
    if (access("fixtures/vllm_decode_2rank", R_OK) != 0)
        SKIP("fixtures not generated (make fixtures)");
    struct cache_opts o;
    fresh_cache(&o, "killed");
    const char *path = "fixtures/vllm_decode_2rank/npu-node-07_28417_20260119104000123_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json";
    struct diag *d = diag_new();
    struct model *m = cold(path, d);
    const char *paths[1] = { path };
    uint64_t key, bytes;
    char *id;
    CHECK(cache_identity(paths, 1, &key, &id, &bytes) == 0);
    /* cancelled (the user quit while it was written): no file at all */
    struct load_progress p = { 0 };
    atomic_store(&p.cancel, true);
    CHECK(index_cache_store(&o, key, id, m, NULL, 0, 0, &p, d) < 0);
    CHECK_INT(count_files(&o, ".idx"), 0);
    CHECK_INT(count_files(&o, ".tmp."), 0);
    /* killed mid-write: its temporary file is never read as a cache, and the next trim
     * removes it once its writer is gone */
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s/%016llx.tmp.%d", o.dir, (unsigned long long)key, 999999);
    mkdir("build/test_cache", 0700);
    mkdir(o.dir, 0700);
    FILE *f = fopen(tmp, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("APTOPIX half a file", f);
        fclose(f);
    }
    CHECK(index_cache_load(&o, key, id, d, NULL) == NULL);
    index_cache_trim(&o);
    CHECK(access(tmp, F_OK) != 0);
    model_free(m);
    free(id);
    diag_free(d);
}

TEST(index_cache_trim_removes_least_recently_used)
{
    if (access("fixtures/vllm_decode_2rank", R_OK) != 0)
        SKIP("fixtures not generated (make fixtures)");
    struct cache_opts o;
    fresh_cache(&o, "trim");
    const char *names[3] = { "build/test_cache/trim_a.json", "build/test_cache/trim_b.json",
                             "build/test_cache/trim_c.json" };
    uint64_t keys[3];
    char *ids[3] = { NULL, NULL, NULL };
    for (int i = 0; i < 3; i++) {
        copy_trace(names[i]);
        store(&o, names[i], &keys[i], &ids[i]);
        struct timespec ts[2] = { { 0, UTIME_OMIT }, { 1000000 + i * 10, 0 } };
        CHECK(utimensat(AT_FDCWD, cache_file(&o, keys[i]), ts, 0) == 0);
    }
    /* a hit makes a the most recently used */
    struct diag *d = diag_new();
    struct model *m = index_cache_load(&o, keys[0], ids[0], d, NULL);
    CHECK(m != NULL);
    model_free(m);
    struct stat st;
    CHECK(stat(cache_file(&o, keys[0]), &st) == 0);
    o.max_bytes = (uint64_t)st.st_size * 2;   /* room for two */
    index_cache_trim(&o);
    CHECK(access(cache_file(&o, keys[0]), F_OK) == 0);
    CHECK(access(cache_file(&o, keys[1]), F_OK) != 0);   /* the least recently used */
    CHECK(access(cache_file(&o, keys[2]), F_OK) == 0);
    CHECK_INT(index_cache_clear(&o), 2);
    CHECK_INT(count_files(&o, ".idx"), 0);
    for (int i = 0; i < 3; i++)
        free(ids[i]);
    diag_free(d);
}

/* Every column, cell and row line of two tables, compared. */
static bool same_table(const struct table *a, const struct table *b)
{
    if (a->kind != b->kind || a->ncols != b->ncols || a->nrows != b->nrows || strcmp(a->path, b->path)
        || a->approx_cells != b->approx_cells || a->no_lines != b->no_lines || (a->line == NULL) != (b->line == NULL)
        || strtab_count(a->str) != strtab_count(b->str))
        return false;
    if (a->line && !SAME_ARRAY(a->line, b->line, a->nrows))
        return false;
    for (size_t c = 0; c < a->ncols; c++) {
        const struct table_col *x = &a->cols[c], *y = &b->cols[c];
        if (strcmp(x->header, y->header) || strcmp(x->key, y->key) || x->type != y->type
            || x->auto_type != y->auto_type || x->prec != y->prec)
            return false;
        for (size_t r = 0; r < a->nrows; r++) {
            if (x->type == TC_TEXT && strcmp(table_text(a, r, c), table_text(b, r, c)))
                return false;
            if (x->type == TC_NUM && memcmp(&x->num[r], &y->num[r], sizeof(double)))
                return false;   /* bit for bit: NaN (missing) included */
            if (x->type == TC_TIME && x->time[r] != y->time[r])
                return false;
        }
    }
    return true;
}

static void table_roundtrip(const char *path, enum table_kind kind)
{
    struct cache_opts o;
    fresh_cache(&o, "tables");
    struct diag *d = diag_new();
    struct table *t = NULL;
    if (csv_table_load(path, kind, &t, d, NULL) < 0 || !t) {
        diag_free(d);
        return;   /* not a table of that kind: nothing to cache */
    }
    const char *paths[1] = { path };
    uint64_t key, bytes;
    char *id;
    CHECK(cache_identity(paths, 1, &key, &id, &bytes) == 0);
    struct cache_parts parts = { .tables = { t }, .ntables = 1 };
    CHECK(index_cache_store_parts(&o, key, id, &parts, NULL, 0, 0, NULL, d) == 0);
    struct cache_parts got;
    CHECK(index_cache_load_parts(&o, key, id, &got, d, NULL));
    CHECK_INT(got.ntables, 1);
    CHECK(got.model == NULL);
    if (got.ntables == 1 && !same_table(t, got.tables[0]))
        test_fail(__FILE__, __LINE__, "%s: the cached table differs from the cold load", path);
    for (size_t i = 0; i < got.ntables; i++)
        table_free(got.tables[i]);
    /* a cached table is a private copy: rows can still be added to it */
    table_free(t);
    free(id);
    diag_free(d);
}

TEST(index_cache_roundtrip_every_real_table)
{
    const char *real = test_real_dir();
    if (!real)
        SKIP("../shared/real not found");
    static const struct { const char *pattern; enum table_kind kind; } kinds[] = {
        { "kernel_details*.csv", TK_KERNELS }, { "op_summary*.csv", TK_KERNELS },
        { "op_statistic*.csv", TK_OP_STATISTIC }, { "operator_details*.csv", TK_OPERATOR_DETAILS },
        { "api_statistic*.csv", TK_API_STATISTIC }, { "step_trace_time*.csv", TK_STEP_TRACE },
        { "memory_record*.csv", TK_MEMORY },
    };
    int n = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "find '%s' -type f -name '%s' -size +0 | sort", real, kinds[k].pattern);
        int st;
        char *out = test_run(cmd, &st);
        for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n"), n++)
            table_roundtrip(line, kinds[k].kind);
        free(out);
    }
    CHECK(n >= 20);
}

TEST(index_cache_roundtrip_every_real_db)
{
    const char *real = test_real_dir();
    if (!real)
        SKIP("../shared/real not found");
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "find '%s' -type f \\( -name '*.db' -o -name '*.dat' \\) -size +0 | grep -v analysis | sort",
             real);
    int st;
    char *out = test_run(cmd, &st);
    int n = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        struct cache_opts o;
        fresh_cache(&o, "db");
        struct diag *d = diag_new();
        struct rank_data rd = { .rank = 0, .device = -1 };
        if (db_load(line, &rd, d, NULL) < 0) {
            readers_free_parts(&rd);
            diag_free(d);
            continue;
        }
        n++;
        const char *paths[1] = { line };
        uint64_t key, bytes;
        char *id;
        CHECK(cache_identity(paths, 1, &key, &id, &bytes) == 0);
        struct cache_parts parts = { .model = rd.model, .has_device = rd.device >= 0, .device = rd.device };
        for (int t = 0; t < TK_COUNT; t++)
            if (rd.tables[t])
                parts.tables[parts.ntables++] = rd.tables[t];
        CHECK(index_cache_store_parts(&o, key, id, &parts, NULL, 0, 0, NULL, d) == 0);
        struct cache_parts got;
        CHECK(index_cache_load_parts(&o, key, id, &got, d, NULL));
        CHECK_INT(got.ntables, parts.ntables);
        CHECK_INT(got.has_device ? got.device : -1, rd.device);
        if ((rd.model == NULL) != (got.model == NULL) || (rd.model && !same_model(rd.model, got.model)))
            test_fail(__FILE__, __LINE__, "%s: the cached model differs from the DB load", line);
        for (size_t i = 0; i < got.ntables && i < parts.ntables; i++)
            if (!same_table(parts.tables[i], got.tables[i]))
                test_fail(__FILE__, __LINE__, "%s: cached table %zu differs from the DB load", line, i);
        model_free(got.model);
        for (size_t i = 0; i < got.ntables; i++)
            table_free(got.tables[i]);
        readers_free_parts(&rd);
        free(id);
        diag_free(d);
    }
    CHECK(n >= 6);
    free(out);
}

/* The checksum read from a file in two halves on two threads joins to the one-pass sum over
 * the same bytes (the writer's), for sizes around the two-thread threshold and with a tail
 * that is not a whole 32-byte block; a file shorter than asked fails. */
TEST(index_cache_checksum_of_a_file_in_halves_equals_one_pass)
{
    const size_t big = (32u << 20) + 4096 + 24;   /* two threads; tails of 0 to 3 words below */
    unsigned char *buf = malloc(big);
    CHECK(buf != NULL);
    if (!buf)
        return;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < big; i++) {   /* xorshift: every word differs */
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        buf[i] = (unsigned char)x;
    }
    system("mkdir -p build/test_cache");
    const char *path = "build/test_cache/checksum.bin";
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL && fwrite(buf, 1, big, f) == big);
    if (f)
        fclose(f);
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0);
    const size_t sizes[] = { big - 16, big - 24, big - 32, (32u << 20) - 8, 4096 + 24, 0 };
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        struct cache_sum one, halves;
        cache_sum_init(&one);
        cache_sum_add(&one, buf + 16, sizes[k]);
        CHECK(cache_sum_file(fd, 16, sizes[k], &halves) == 0);
        CHECK(cache_sum_end(&halves) == cache_sum_end(&one));
    }
    struct cache_sum s;
    CHECK(cache_sum_file(fd, 16, big, &s) < 0);   /* 16 bytes past the end */
    close(fd);
    unlink(path);
    free(buf);
}

/* A cache file cut by another program while the model read from it is in use: the model's
 * arrays lie in the file's mapping, and the pages past the new end read as zeros instead of
 * raising SIGBUS (the mapping is under the mapped-file handler). In a child process, so
 * that a SIGBUS fails this test rather than ending every test. */
TEST(index_cache_file_cut_while_its_model_is_used_reads_zeros)
{
    if (access("fixtures/vllm_decode_2rank", R_OK) != 0)
        SKIP("fixtures not generated (make fixtures)");
    if (test_emulated("s390x"))
        SKIP("qemu-s390x gives a fault's SIGBUS a wrong address");
    struct cache_opts o;
    fresh_cache(&o, "cut");
    const char *t = "build/test_cache/cut_trace.json";
    copy_trace(t);
    uint64_t key;
    char *id = NULL;
    store(&o, t, &key, &id);
    struct diag *d = diag_new();
    struct model *m = index_cache_load(&o, key, id, d, NULL);
    CHECK(m != NULL && m->mapped != NULL && m->nslices > 0);
    if (m && m->mapped && m->nslices) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            if (truncate(cache_file(&o, key), 0) != 0)
                _exit(3);
            volatile const ns_t *start = m->start, *dur = m->dur;
            ns_t sum = 0;
            for (uint32_t i = 0; i < m->nslices; i++)
                sum |= start[i] | dur[i];
            _exit(sum == 0 ? 0 : 4);   /* every byte past the cut reads as zero */
        }
        int st = 0;
        waitpid(pid, &st, 0);
        if (WIFSIGNALED(st))
            test_fail(__FILE__, __LINE__, "the reader died by signal %d", WTERMSIG(st));
        else
            CHECK_INT(WEXITSTATUS(st), 0);
    }
    model_free(m);
    free(id);
    diag_free(d);
}
