#include "io/readers.h"
#include "io/cached_read.h"
#include "io/index_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/clock_files.h"
#include "io/comm_json.h"
#include "io/csv_table.h"
#include "io/db_reader.h"
#include "io/pgroups_json.h"
#include "io/summary_json.h"
#include "io/memory_read.h"
#include "io/trace_json.h"
#include "model/comm.h"
#include "model/flowstats.h"
#include "model/kernels.h"
#include "model/pgroups.h"
#include "model/rank_digest.h"
#include "model/memory.h"
#include "model/steps.h"
#include "model/table.h"
#include "model/time_gap.h"

/* When a file of kind k is read: the read column of FILE_KINDS (io/file_kinds.h). */
static enum file_read read_mode(enum file_kind k)
{
#define FK_READ(id, name, table, read, reader, peak, loadable, unread) [id] = read,
    static const enum file_read modes[FK_COUNT] = { FILE_KINDS(FK_READ) };
#undef FK_READ
    return (unsigned)k < FK_COUNT ? modes[k] : FR_NEVER;
}

static bool is_db(enum file_kind k)
{
    return read_mode(k) == FR_DB_MAIN;
}

static bool is_text(enum file_kind k)
{
    return read_mode(k) == FR_TEXT_MAIN;
}

/* The table a file of kind k becomes, -1 when none: the table column of FILE_KINDS. */
static int table_kind_of(enum file_kind k)
{
#define FK_TABLE(id, name, table, read, reader, peak, loadable, unread) [id] = table,
    static const int tables[FK_COUNT] = { FILE_KINDS(FK_TABLE) };
#undef FK_TABLE
    return (unsigned)k < FK_COUNT ? tables[k] : -1;
}

/* Text files are used unless only DB files exist or the user prefers the DB. */
static bool use_db(const struct capture_rank *cr, bool prefer_db)
{
    bool text = false, db = false;
    for (size_t i = 0; i < cr->nfiles; i++) {
        if (cr->files[i].problem)
            continue;
        text |= is_text(cr->files[i].kind);
        db |= is_db(cr->files[i].kind);
    }
    return db && (prefer_db || !text);
}

static bool wanted(const struct capture_file *f, bool db_mode)
{
    if (f->problem || f->skipped)
        return false;
    /* analysis.db (also on its own): its figures fill only what the text files lack */
    enum file_read r = read_mode(f->kind);
    return r == FR_BOTH || (db_mode ? r == FR_DB_MAIN : r == FR_TEXT || r == FR_TEXT_MAIN);
}

uint64_t readers_count_files(const struct capture_rank *cr, bool prefer_db)
{
    bool db = use_db(cr, prefer_db);
    uint64_t n = 0;
    for (size_t i = 0; i < cr->nfiles; i++)
        n += wanted(&cr->files[i], db);
    return n;
}

/* A Class B part of a table written in several files: <stem>_<digits>... per iteration
 * (op_summary_0_1_1.csv, task_time_0_1_2.csv) or _slice_N_ parts. */
static bool is_part_name(const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    for (const char *p = strchr(b, '_'); p; p = strchr(p + 1, '_'))
        if ((p[1] >= '0' && p[1] <= '9') || !strncmp(p + 1, "slice_", 6))
            return true;
    return false;
}

/* The one device a kernel table names in its Device_id column, else -1 (none, several, text). */
static int table_device(const struct table *t)
{
    size_t c = t ? table_col(t, "device_id") : SIZE_MAX;
    if (c == SIZE_MAX)
        return -1;
    long dev = -1;
    const struct table_col *col = &t->cols[c];
    for (size_t r = 0; r < t->nrows; r++) {
        long v;
        if (col->type == TC_NUM) {      /* a DB-built table keeps it a number */
            double x = col->num[r];
            if (x != x)
                continue;
            if (x < 0 || x > 100000 || x != (double)(long)x)
                return -1;
            v = (long)x;
        } else if (col->type == TC_TEXT) {
            const char *s = table_text(t, r, c);
            char *e;
            if (!s || !*s)
                continue;
            v = strtol(s, &e, 10);
            if (*e || v < 0 || v > 100000)
                return -1;
        } else {
            return -1;
        }
        if (dev >= 0 && v != dev)
            return -1;
        dev = v;
    }
    return (int)dev;
}

/* How many wanted files of kind k the rank has (parts of one table are read into one). */
static size_t count_kind(const struct capture_rank *cr, enum file_kind k, bool db)
{
    size_t n = 0;
    for (size_t i = 0; i < cr->nfiles; i++)
        n += cr->files[i].kind == k && wanted(&cr->files[i], db);
    return n;
}

static void begin_file(struct load_progress *p, const struct capture_file *f)
{
    atomic_store(&p->file, f->path);
    atomic_store(&p->bytes_total, f->size);
    atomic_store(&p->bytes_done, 0);
    atomic_store(&p->events, 0);
}

/* Takes the tables of `got` that `tmp` lacks (handing each over), frees the others.
 * Returns the number handed over. */
static int adopt_tables(struct rank_data *tmp, struct rank_data *got, reader_handover_fn hand_over, void *ctx,
                        size_t rank_index)
{
    int parts = 0;
    for (int t = 0; t < TK_COUNT; t++) {
        if (got->tables[t] && !tmp->tables[t]) {
            tmp->tables[t] = got->tables[t];
            hand_over(ctx, rank_index, RP_TABLE, t, got->tables[t]);
            parts++;
        } else if (got->tables[t]) {
            table_free(got->tables[t]);
        }
    }
    return parts;
}

/* Says when some lanes sit far away in time from the others (see model/time_gap.h). */
static void warn_time_gap(const struct model *m, const char *path, struct diag *d)
{
    struct time_gap g;
    if (!model_time_gap(m, (ns_t)3600 * 1000000000, &g))
        return;
    char lane[256];
    model_lane_label(m, g.example, lane, sizeof lane);
    uint32_t few = g.lanes_before <= g.lanes_after ? g.lanes_before : g.lanes_after;
    diag_add(d, DIAG_WARN, path, "%u of %u lanes (e.g. %s) lie %.1f hours %s the others: another "
             "clock? Fitting the whole capture squeezes the rest; zoom to either part",
             few, g.lanes_before + g.lanes_after, lane, (double)g.gap / 3.6e12,
             few == g.lanes_before ? "before" : "after");
}

/* The rank's trace files, in the order they are read. */
static size_t trace_files(const struct capture_rank *cr, const char **paths)
{
    size_t n = 0;
    for (size_t i = 0; i < cr->nfiles; i++)
        if (wanted(&cr->files[i], false) && cr->files[i].kind == FK_TRACE_JSON)
            paths[n++] = cr->files[i].path;
    return n;
}

/* Every trace file of the rank read into one finalized model; NULL when there is none or
 * nothing in them. With a cache, an index of the same files is used instead of reading
 * them; after a cold read, *c holds what cached_read_store writes for the next time. */
static struct model *load_timeline(const struct capture_rank *cr, struct diag *d, struct load_progress *p,
                                   const struct cache_opts *cache, int *failed, unsigned *files_read,
                                   struct cached_read *c, bool *from_cache, ns_t *cached_shift)
{
    const char **paths = calloc(cr->nfiles + 1, sizeof *paths);
    if (!paths)
        return NULL;
    size_t npaths = trace_files(cr, paths);
    struct cache_parts got;
    struct model *m = NULL;
    int failed_before = *failed;
    if (cached_read_begin(c, cache, "trace", paths, npaths, d, failed, &got)) {
        m = got.model;
        *cached_shift = got.shift;
        /* as the cold read counted: the files it read without a failure */
        int cached_failures = *failed - failed_before;
        *files_read += m && (size_t)cached_failures < npaths ? (unsigned)(npaths - (size_t)cached_failures) : 0;
        for (size_t i = 0; i < got.ntables; i++)
            table_free(got.tables[i]);
        *from_cache = m != NULL;
        for (size_t i = 0; i < npaths; i++)
            atomic_fetch_add(&(p->total ? p->total : p)->files_done, 1);
        free(paths);
        return m;
    }
    /* merges that could not be read at all: the components of their iteration stand in */
    const char **unread = calloc(cr->nfiles + 1, sizeof *unread);
    size_t nunread = 0, stand_ins = 0;
    for (size_t i = 0; i < cr->nfiles && !progress_cancelled(p); i++) {
        const struct capture_file *f = &cr->files[i];
        if (!wanted(f, false) || f->kind != FK_TRACE_JSON)
            continue;
        begin_file(p, f);
        if (!m)
            m = model_new(TIME_LOCAL_US);
        if (m && trace_json_load(m, f->path, d, p) < 0) {
            (*failed)++;
            if (unread)
                unread[nunread++] = f->path;
        } else if (m) {
            (*files_read)++;
        }
        atomic_fetch_add(&(p->total ? p->total : p)->files_done, 1);
    }
    for (size_t i = 0; m && nunread && i < cr->nfiles && !progress_cancelled(p); i++) {
        const struct capture_file *f = &cr->files[i];
        bool stands_in = false;
        for (size_t k = 0; f->merge && k < nunread && !stands_in; k++)
            stands_in = !strcmp(f->merge, unread[k]);
        if (!stands_in || f->problem)
            continue;
        diag_add(d, DIAG_WARN, f->path, "read in place of its merge %s, which could not be read", f->merge);
        begin_file(p, f);
        if (trace_json_load(m, f->path, d, p) < 0)
            (*failed)++;
        else
            (*files_read)++;
        stand_ins++;
    }
    free(unread);
    if (m && (progress_cancelled(p) || !m->events)) {   /* metadata alone still names lanes */
        model_free(m);
        m = NULL;
    }
    /* a timeline with stand-ins is not cached: its key names the files it meant to read */
    if (m && model_finalize(m) == 0 && !stand_ins)
        cached_read_collect(c, paths, npaths, d, *failed);
    free(paths);
    return m;
}

/* One CSV table file, through the cache: 0, or -1 when nothing usable was read. */
static int load_table(const struct capture_file *f, enum table_kind tk, struct table **out, struct diag *d,
                      struct load_progress *p, const struct cache_opts *cache, bool *from_cache)
{
    char what[32];
    snprintf(what, sizeof what, "table %d", (int)tk);
    const char *paths[1] = { f->path };
    struct cached_read c;
    struct cache_parts got;
    int failed = 0;
    if (cached_read_begin(&c, cache, what, paths, 1, d, &failed, &got)) {
        model_free(got.model);
        *from_cache = true;
        *out = got.ntables ? got.tables[0] : NULL;
        for (size_t i = 1; i < got.ntables; i++)
            table_free(got.tables[i]);
        return *out && !failed ? 0 : -1;
    }
    int rc = csv_table_load(f->path, tk, out, d, p);
    cached_read_collect(&c, paths, 1, d, rc < 0 || !*out);
    struct cache_parts parts = { .tables = { *out }, .ntables = *out != NULL };
    cached_read_store(&c, &parts, p, d);
    return rc;
}

/* A SQLite export, through the cache: what db_load puts in got (its model and tables, and
 * the device id it found), or the same from the cache. Returns db_load's result. */
static int load_db(const char *path, struct rank_data *got, struct diag *d, struct load_progress *p,
                   const struct cache_opts *cache, bool *from_cache)
{
    const char *paths[1] = { path };
    struct cached_read c;
    struct cache_parts parts;
    int failed = 0;
    int device_before = got->device;
    if (cached_read_begin(&c, cache, "db", paths, 1, d, &failed, &parts)) {
        got->model = parts.model;
        *from_cache = true;
        for (size_t i = 0; i < parts.ntables; i++) {
            struct table *t = parts.tables[i];
            if (!got->tables[t->kind])
                got->tables[t->kind] = t;
            else
                table_free(t);
        }
        if (got->device < 0 && parts.has_device)
            got->device = parts.device;
        return failed ? -1 : 0;
    }
    int rc = db_load(path, got, d, p);
    cached_read_collect(&c, paths, 1, d, rc < 0);
    /* cached only when db_load made nothing but a model and tables: anything else would be
     * missing from a warm open */
    struct cache_parts keep = { .model = got->model, .has_device = device_before < 0 && got->device >= 0,
                                .device = got->device };
    bool only = !got->comm && !got->steps && !got->flowstats;
    for (int t = 0; t < TK_COUNT && only; t++) {
        if (got->tables[t] && keep.ntables < CACHE_TABLES)
            keep.tables[keep.ntables++] = got->tables[t];
        else if (got->tables[t])
            only = false;
    }
    cached_read_store(&c, only ? &keep : NULL, p, d);
    return rc;
}

int readers_load_rank(const struct capture_rank *cr, size_t rank_index, bool prefer_db,
                      const struct cache_opts *cache, struct diag *d, struct load_progress *p,
                      reader_handover_fn hand_over, void *ctx, char *status, size_t status_size,
                      struct reader_result *out)
{
    if (cr->nfiles && cr->files[0].kind == FK_SUMMARY_JSON) {   /* a rank of a summaries folder */
        if (out)
            *out = (struct reader_result){ 1, cr->device };
        return summary_load_rank(cr, rank_index, d, hand_over, ctx, status, status_size);
    }
    struct rank_data tmp = { .rank = cr->rank, .device = cr->device };
    bool db = use_db(cr, prefer_db);
    int parts = 0, failed = 0;
    struct model *m = NULL;
    struct comm *db_comm = NULL;   /* analysis.db figures: used only when no JSON has them */
    bool held[TK_COUNT] = { false };   /* tables in parts, handed over after the last part */
    unsigned files_read = 0;
    struct clock_map clock;
    clock_map_read(cr, &clock, d);
    for (size_t i = 0; i < cr->nfiles; i++) {   /* the parallel groups the rank belongs to */
        struct pgroups *g = cr->files[i].kind == FK_PROFILER_METADATA && !cr->files[i].problem
                          ? pgroups_read_metadata(cr->files[i].path, d) : NULL;
        if (g) {
            hand_over(ctx, rank_index, RP_GROUPS, -1, g);
            break;
        }
    }
    ns_t clock_off = 0;
    bool clock_decided = false;   /* by the timeline, else by the first table with times */
    struct memory *mem = NULL;     /* every memory file of the rank, streamed (memory_read.h) */

    /* 1. the timeline: every trace file of the rank into one model (or its cached index) */
    struct cached_read timeline_cache = { 0 };
    bool from_cache = false;
    ns_t cached_shift = 0;   /* what the cached model's times were shifted by when it was written */
    if (!db)
        m = load_timeline(cr, d, p, cache, &failed, &files_read, &timeline_cache, &from_cache, &cached_shift);
    ns_t timeline_shift = 0;   /* what the model's times are shifted by now */
    if (m) {
        clock_off = clock_map_offset(&clock, m->t_min == NS_NONE ? NS_NONE : m->t_min - cached_shift,
                                     m->t_max == NS_NONE ? NS_NONE : m->t_max - cached_shift);
        clock_decided = m->nslices > 0;
        if (model_shift(m, clock_off - cached_shift)) {
            timeline_shift = clock_off;
        } else {
            diag_add(d, DIAG_ERROR, cr->dir, "out of memory while mapping the timeline to the wall clock: its "
                     "times are %s", cached_shift ? "as cached" : "on the monotonic clock");
            timeline_shift = cached_shift;
            clock_off = cached_shift;
        }
        if (clock_off)
            diag_add(d, DIAG_INFO, cr->dir, "timestamps are on the device host's monotonic clock: mapped to its wall "
                     "clock by %s (%+.6f s)", clock.source, (double)clock_off / 1e9);
        warn_time_gap(m, cr->dir, d);
        tmp.model = m;
        hand_over(ctx, rank_index, RP_MODEL, 0, m);
        parts++;
    }

    /* 2. DB captures, tables, communication */
    for (size_t i = 0; i < cr->nfiles && !progress_cancelled(p); i++) {
        const struct capture_file *f = &cr->files[i];
        if (!wanted(f, db) || f->kind == FK_TRACE_JSON)
            continue;
        begin_file(p, f);
        int tk = table_kind_of(f->kind);
        if (is_db(f->kind)) {
            struct rank_data got = { .rank = cr->rank, .device = cr->device };
            if (load_db(f->path, &got, d, p, cache, &from_cache) < 0)
                failed++;
            else
                files_read++;
            if (!mem)
                mem = memory_new();
            if (mem)
                memory_read_db(f->path, mem, d);
            if (got.model && !tmp.model) {
                tmp.model = got.model;
                warn_time_gap(got.model, f->path, d);
                hand_over(ctx, rank_index, RP_MODEL, 0, got.model);
                parts++;
            } else if (got.model) {
                model_free(got.model);
            }
            if (got.tables[TK_KERNELS] && tmp.model && !tmp.tables[TK_KERNELS])
                kernels_join(got.tables[TK_KERNELS], tmp.model, d);
            parts += adopt_tables(&tmp, &got, hand_over, ctx, rank_index);
        } else if (f->kind == FK_DB_ANALYSIS) {
            struct rank_data got = { .rank = cr->rank, .device = cr->device };
            if (db_load_analysis(f->path, &got, d) < 0)
                failed++;
            else
                files_read++;
            parts += adopt_tables(&tmp, &got, hand_over, ctx, rank_index);
            if (got.comm && !db_comm)
                db_comm = got.comm;
            else if (got.comm)
                comm_free(got.comm);
        } else if (tk >= 0) {
            bool parts_of_one = is_part_name(f->path) && count_kind(cr, f->kind, db) > 1;
            if (tmp.tables[tk] && parts_of_one) {
                /* Class B writes its tables in per-iteration and _slice_N_ parts: merged into
                 * one table. It is not handed over yet (see below), so appending is safe. */
                size_t before = tmp.tables[tk]->nrows;
                if (csv_table_append(f->path, tmp.tables[tk], d, p) < 0)
                    failed++;
                else
                    files_read++;
                clock_shift_table(tmp.tables[tk], before, clock_off);
            } else if (tmp.tables[tk]) {
                diag_add(d, DIAG_INFO, f->path, "a second %s file in this rank; only the first is read",
                         file_kind_name(f->kind));
            } else {
                struct table *t = NULL;
                if (load_table(f, (enum table_kind)tk, &t, d, p, cache, &from_cache) < 0 || !t)
                    failed++;
                if (t && clock.have) {
                    ns_t a, b;
                    if (!clock_decided && clock_table_span(t, &a, &b)) {
                        clock_off = clock_map_offset(&clock, a, b);
                        clock_decided = true;
                    }
                    clock_shift_table(t, 0, clock_off);
                }
                if (t) {
                    tmp.tables[tk] = t;
                    files_read++;
                    /* the kernel table is joined to the timeline before the UI sees it; a
                     * table in parts is handed over once all its parts are read */
                    if (tk != TK_KERNELS && !parts_of_one) {
                        hand_over(ctx, rank_index, RP_TABLE, tk, t);
                        parts++;
                    } else if (tk != TK_KERNELS) {
                        held[tk] = true;
                    }
                }
            }
        } else if (f->kind == FK_MEMORY_CSV) {
            if (!mem)
                mem = memory_new();
            if (!mem || memory_read_csv(f->path, mem, d, p) < 0)
                failed++;
            else
                files_read++;
        } else if (f->kind == FK_COMMUNICATION) {
            if (comm_load(f->path, &tmp.comm, d) < 0)
                failed++;
            else
                files_read++;
        } else if (f->kind == FK_COMM_MATRIX) {
            if (comm_load_matrix(f->path, &tmp.comm, d) < 0)
                failed++;
            else
                files_read++;
        }
        atomic_fetch_add(&(p->total ? p->total : p)->files_done, 1);
    }
    for (int t = 0; t < TK_COUNT; t++)
        if (held[t] && tmp.tables[t]) {
            hand_over(ctx, rank_index, RP_TABLE, t, tmp.tables[t]);
            parts++;
        }
    if (mem && (mem->nseries || mem->nops || mem->nstatics) && !progress_cancelled(p)) {
        /* memory times move with the timeline's when they lie on the host's monotonic clock */
        ns_t lo, hi;
        if (clock.have && !clock_decided && memory_span(mem, &lo, &hi))
            clock_off = clock_map_offset(&clock, lo, hi);
        if (clock.have && clock_off)
            memory_shift(mem, clock_off);
        memory_finish(mem);
        hand_over(ctx, rank_index, RP_MEMORY, 0, mem);
        parts++;
    } else {
        memory_free(mem);
    }
    if (db_comm && !tmp.comm)
        tmp.comm = db_comm;
    else if (db_comm)
        comm_free(db_comm);
    if (tmp.comm) {
        hand_over(ctx, rank_index, RP_COMM, 0, tmp.comm);
        parts++;
    }

    /* a CSV kernel table (all its parts read): join it to the timeline, then hand it over */
    if (tmp.tables[TK_KERNELS] && !db) {
        if (tmp.model)
            kernels_join(tmp.tables[TK_KERNELS], tmp.model, d);
        hand_over(ctx, rank_index, RP_TABLE, TK_KERNELS, tmp.tables[TK_KERNELS]);
        parts++;
    }

    /* 3. analyses over what was loaded */
    if (!progress_cancelled(p) && tmp.model) {
        struct steps *st = steps_detect(tmp.model, tmp.tables[TK_KERNELS]);
        if (st) {
            hand_over(ctx, rank_index, RP_STEPS, 0, st);
            parts++;
        }
        /* a GPU trace has no communication.json: its NCCL/RCCL kernels are the ops */
        struct comm *kc = tmp.comm ? NULL : comm_from_kernels(tmp.model, st);
        if (kc) {
            hand_over(ctx, rank_index, RP_COMM, 0, kc);
            parts++;
        }
        struct flowstats *fs = flowstats_compute(tmp.model, st);
        if (fs) {
            hand_over(ctx, rank_index, RP_FLOWSTATS, 0, fs);
            parts++;
        }
    }

    /* 4. the timeline's index for the next open (the UI already shows everything) */
    struct cache_parts timeline = { .model = tmp.model, .shift = timeline_shift };
    cached_read_store(&timeline_cache, &timeline, p, d);

    if (out) {
        out->files = files_read;
        out->device = cr->device >= 0 ? cr->device : table_device(tmp.tables[TK_KERNELS]);
    }
    if (progress_cancelled(p))
        snprintf(status, status_size, "cancelled");
    else if (!parts)
        snprintf(status, status_size, "nothing could be loaded");
    else
        snprintf(status, status_size, "%s%s%s%s", tmp.model ? "loaded" : "loaded (no timeline)",
                 failed ? ", with problems" : "", db ? " from DB" : "",
                 from_cache ? " (index cache)" : "");
    return parts;
}

void readers_free_parts(struct rank_data *rd)
{
    model_free(rd->model);
    for (int t = 0; t < TK_COUNT; t++)
        if (rd->tables[t])
            table_free(rd->tables[t]);
    if (rd->comm)
        comm_free(rd->comm);
    if (rd->steps)
        steps_free(rd->steps);
    if (rd->flowstats)
        flowstats_free(rd->flowstats);
    rank_digest_free(rd->digest);
    rd->digest = NULL;
    pgroups_free(rd->groups);
    rd->groups = NULL;
    memory_free(rd->memory);
    rd->memory = NULL;
    memset(rd->tables, 0, sizeof rd->tables);
    rd->model = NULL;
    rd->comm = NULL;
    rd->steps = NULL;
    rd->flowstats = NULL;
}

/* For io/rank_split.c, which splits a rank's files as a load of the whole rank reads them. */
bool readers_use_db(const struct capture_rank *cr, bool prefer_db)
{
    return use_db(cr, prefer_db);
}
