/* Reading one rank's files: which are read (text or DB export, by the read column of
 * FILE_KINDS), and each kind's reader (the reader column), through the index cache where a
 * reader's result is cached; the rank's trace files are read together into one timeline. */
#include "io/load/readers_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/tables/comm_json.h"
#include "io/tables/csv_table.h"
#include "io/db/db_reader.h"
#include "io/tables/memory_read.h"
#include "io/trace/trace_json.h"
#include "model/analysis/comm.h"
#include "model/analysis/kernels.h"
#include "model/analysis/memory.h"
#include "model/index/time_gap.h"

/* When a file of kind k is read: the read column of FILE_KINDS (io/discovery/file_kinds.h). */
FK_COLUMN_LOOKUP(read_mode, enum file_read, read, FR_NEVER)

static bool is_db(enum file_kind k)
{
    return read_mode(k) == FR_DB_MAIN;
}

static bool is_text(enum file_kind k)
{
    return read_mode(k) == FR_TEXT_MAIN;
}

/* The table a file of kind k becomes, -1 when none: the table column of FILE_KINDS. */
FK_COLUMN_LOOKUP(table_kind_of, int, table, -1)

/* Text files are used unless only DB files exist or the user prefers the DB. */
bool readers_use_db(const struct capture_rank *cr, bool prefer_db)
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

bool file_wanted(const struct capture_file *f, bool db_mode)
{
    if (f->problem || f->skipped)
        return false;
    /* analysis.db (also on its own): its figures fill only what the text files lack */
    enum file_read r = read_mode(f->kind);
    return r == FR_BOTH || (db_mode ? r == FR_DB_MAIN : r == FR_TEXT || r == FR_TEXT_MAIN);
}

uint64_t readers_count_files(const struct capture_rank *cr, bool prefer_db)
{
    bool db = readers_use_db(cr, prefer_db);
    uint64_t n = 0;
    for (size_t i = 0; i < cr->nfiles; i++)
        n += file_wanted(&cr->files[i], db);
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

/* How many wanted files of kind k the rank has (parts of one table are read into one). */
static size_t count_kind(const struct capture_rank *cr, enum file_kind k, bool db)
{
    size_t n = 0;
    for (size_t i = 0; i < cr->nfiles; i++)
        n += cr->files[i].kind == k && file_wanted(&cr->files[i], db);
    return n;
}

void load_begin_file(struct load_progress *p, const struct capture_file *f)
{
    atomic_store(&p->file, f->path);
    atomic_store(&p->bytes_total, f->size);
    atomic_store(&p->bytes_done, 0);
    atomic_store(&p->events, 0);
}

/* Hands a finished part to the caller, who owns it from now on. */
void load_hand_over(struct rank_load *L, enum reader_part kind, int table, void *ptr)
{
    L->hand_over(L->ctx, L->rank_index, kind, table, ptr);
    L->parts++;
}

/* A file read (rc >= 0) or not. */
static void count_read(struct rank_load *L, int rc)
{
    if (rc < 0)
        L->failed++;
    else
        L->files_read++;
}

void load_file_done(struct load_progress *p)
{
    atomic_fetch_add(&(p->total ? p->total : p)->files_done, 1);
}

/* Takes the tables of `got` that the rank lacks (handing each over), frees the others. */
static void adopt_tables(struct rank_load *L, struct rank_data *got)
{
    for (int t = 0; t < TK_COUNT; t++) {
        if (got->tables[t] && !L->tmp.tables[t]) {
            L->tmp.tables[t] = got->tables[t];
            load_hand_over(L, RP_TABLE, t, got->tables[t]);
        } else if (got->tables[t]) {
            table_free(got->tables[t]);
        }
    }
}

/* Says when some lanes sit far away in time from the others (see model/index/time_gap.h). */
void load_warn_time_gap(const struct model *m, const char *path, struct diag *d)
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
        if (file_wanted(&cr->files[i], false) && cr->files[i].kind == FK_TRACE_JSON)
            paths[n++] = cr->files[i].path;
    return n;
}

/* One trace file into m; false when it could not be read. */
static bool read_trace(struct rank_load *L, struct model *m, const struct capture_file *f)
{
    load_begin_file(L->p, f);
    bool ok = trace_json_load(m, f->path, L->d, L->p) >= 0;
    count_read(L, ok ? 0 : -1);
    return ok;
}

/* Merges that could not be read at all (unread[0..nunread)): the components of their
 * iteration stand in. Returns how many did. */
static size_t read_stand_ins(struct rank_load *L, struct model *m, const char **unread, size_t nunread)
{
    const struct capture_rank *cr = L->cr;
    size_t stand_ins = 0;
    for (size_t i = 0; nunread && i < cr->nfiles && !progress_cancelled(L->p); i++) {
        const struct capture_file *f = &cr->files[i];
        bool stands_in = false;
        for (size_t k = 0; f->merge && k < nunread && !stands_in; k++)
            stands_in = !strcmp(f->merge, unread[k]);
        if (!stands_in || f->problem)
            continue;
        diag_add(L->d, DIAG_WARN, f->path, "read in place of its merge %s, which could not be read", f->merge);
        read_trace(L, m, f);
        stand_ins++;
    }
    return stand_ins;
}

/* The cached index of the rank's trace files (paths[0..npaths)) into *out; false when there
 * is none to use: then L->timeline_cache is ready to collect a cold read. */
static bool timeline_from_cache(struct rank_load *L, const char **paths, size_t npaths, struct model **out,
                                ns_t *cached_shift)
{
    struct cache_parts got;
    int failed_before = L->failed;
    if (!cached_read_begin(&L->timeline_cache, L->cache, "trace", paths, npaths, L->d, &L->failed, &got))
        return false;
    struct model *m = got.model;
    *out = m;
    *cached_shift = got.shift;
    /* as the cold read counted: the files it read without a failure */
    int cached_failures = L->failed - failed_before;
    L->files_read += m && (size_t)cached_failures < npaths ? (unsigned)(npaths - (size_t)cached_failures) : 0;
    for (size_t i = 0; i < got.ntables; i++)
        table_free(got.tables[i]);
    L->from_cache = m != NULL;
    for (size_t i = 0; i < npaths; i++)
        load_file_done(L->p);
    return true;
}

/* Every trace file of the rank read into one finalized model; NULL when there is none or
 * nothing in them. With a cache, an index of the same files is used instead of reading
 * them; after a cold read, L->timeline_cache holds what cached_read_store writes for the next
 * time. *cached_shift: what a cached model's times were shifted by when it was written. */
struct model *load_timeline(struct rank_load *L, ns_t *cached_shift)
{
    const struct capture_rank *cr = L->cr;
    const char **paths = calloc(cr->nfiles + 1, sizeof *paths);
    if (!paths)
        return NULL;
    size_t npaths = trace_files(cr, paths);
    struct model *m = NULL;
    if (timeline_from_cache(L, paths, npaths, &m, cached_shift)) {
        free(paths);
        return m;
    }
    /* merges that could not be read at all: the components of their iteration stand in */
    const char **unread = calloc(cr->nfiles + 1, sizeof *unread);
    size_t nunread = 0;
    for (size_t i = 0; i < cr->nfiles && !progress_cancelled(L->p); i++) {
        const struct capture_file *f = &cr->files[i];
        if (!file_wanted(f, false) || f->kind != FK_TRACE_JSON)
            continue;
        if (!m)
            m = model_new(TIME_LOCAL_US);
        if (m && !read_trace(L, m, f) && unread)
            unread[nunread++] = f->path;
        load_file_done(L->p);
    }
    size_t stand_ins = m ? read_stand_ins(L, m, unread, nunread) : 0;
    free(unread);
    if (m && (progress_cancelled(L->p) || !m->events)) {   /* metadata alone still names lanes */
        model_free(m);
        m = NULL;
    }
    /* a timeline with stand-ins is not cached: its key names the files it meant to read */
    if (m && L->p)
        model_set_stop(m, &L->p->cancel);
    int finalized = m ? model_finalize(m) : -1;
    if (m && finalized < 0) {
        /* memory ran out reading or indexing it: finalize left it empty, and an empty timeline
         * is never passed off as this rank's */
        diag_out_of_memory(L->d, cr->dir, "out of memory %s the timeline: none of its %llu events is shown "
                           "(no slices, flows or counters)", m->oom ? "reading" : "indexing",
                           (unsigned long long)m->events);
        L->failed++;
        L->timeline_lost = true;
        model_free(m);
        m = NULL;
    }
    if (m && finalized == 0 && !stand_ins)
        cached_read_collect(&L->timeline_cache, paths, npaths, L->d, L->failed);
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

/* ---- the readers of FILE_KINDS' reader column: one file each ------------------------- */

/* ascend_pytorch_profiler*.db, msprof_*.db: a whole rank (timeline, tables, memory). */
static void read_db_export(struct rank_load *L, const struct capture_file *f)
{
    struct rank_data got = { .rank = L->cr->rank, .device = L->cr->device };
    count_read(L, load_db(f->path, &got, L->d, L->p, L->cache, &L->from_cache));
    if (!L->mem)
        L->mem = memory_new();
    if (L->mem)
        memory_read_db(f->path, L->mem, L->d);
    if (got.model && !L->tmp.model) {
        L->tmp.model = got.model;
        load_warn_time_gap(got.model, f->path, L->d);
        load_hand_over(L, RP_MODEL, 0, got.model);
    } else if (got.model) {
        model_free(got.model);
    }
    if (got.tables[TK_KERNELS] && L->tmp.model && !L->tmp.tables[TK_KERNELS])
        kernels_join(got.tables[TK_KERNELS], L->tmp.model, L->d);
    adopt_tables(L, &got);
}

/* analysis.db: the step table and communication figures the other files lack. */
static void read_analysis_db(struct rank_load *L, const struct capture_file *f)
{
    struct rank_data got = { .rank = L->cr->rank, .device = L->cr->device };
    count_read(L, db_load_analysis(f->path, &got, L->d));
    adopt_tables(L, &got);
    if (got.comm && !L->db_comm)
        L->db_comm = got.comm;
    else if (got.comm)
        comm_free(got.comm);
}

/* A further part of table tk (Class B writes its tables in per-iteration and _slice_N_
 * parts): appended to the one table. It is not handed over yet, so appending is safe. */
static void append_table_part(struct rank_load *L, const struct capture_file *f, int tk)
{
    struct table *t = L->tmp.tables[tk];
    size_t before = t->nrows;
    count_read(L, csv_table_append(f->path, t, L->d, L->p));
    clock_shift_table(t, before, L->clock_off);
}

/* The first file of table tk; the first table with times decides the clock when the
 * timeline did not. */
static void read_first_table(struct rank_load *L, const struct capture_file *f, int tk, bool parts_of_one)
{
    struct table *t = NULL;
    if (load_table(f, (enum table_kind)tk, &t, L->d, L->p, L->cache, &L->from_cache) < 0 || !t)
        L->failed++;
    if (!t)
        return;
    if (L->clock.have) {
        ns_t a, b;
        if (!L->clock_decided && clock_table_span(t, &a, &b)) {
            L->clock_off = clock_map_offset(&L->clock, a, b);
            L->clock_decided = true;
        }
        clock_shift_table(t, 0, L->clock_off);
    }
    L->tmp.tables[tk] = t;
    L->files_read++;
    /* the kernel table is joined to the timeline before the UI sees it; a table in parts is
     * handed over once all its parts are read */
    if (tk == TK_KERNELS)
        return;
    if (parts_of_one)
        L->held[tk] = true;
    else
        load_hand_over(L, RP_TABLE, tk, t);
}

/* A CSV table file: the first of its kind, a part of it, or a second one (not read). */
static void read_table_file(struct rank_load *L, const struct capture_file *f)
{
    int tk = table_kind_of(f->kind);
    bool parts_of_one = is_part_name(f->path) && count_kind(L->cr, f->kind, L->db) > 1;
    if (L->tmp.tables[tk] && parts_of_one)
        append_table_part(L, f, tk);
    else if (L->tmp.tables[tk])
        diag_add(L->d, DIAG_INFO, f->path, "a second %s file in this rank; only the first is read",
                 file_kind_name(f->kind));
    else
        read_first_table(L, f, tk, parts_of_one);
}

static void read_memory_csv(struct rank_load *L, const struct capture_file *f)
{
    if (!L->mem)
        L->mem = memory_new();
    count_read(L, L->mem ? memory_read_csv(f->path, L->mem, L->d, L->p) : -1);
}

static void read_communication(struct rank_load *L, const struct capture_file *f)
{
    count_read(L, comm_load(f->path, &L->tmp.comm, L->d));
}

static void read_comm_matrix(struct rank_load *L, const struct capture_file *f)
{
    count_read(L, comm_load_matrix(f->path, &L->tmp.comm, L->d));
}

/* The reader of a file of kind k: the reader column of FILE_KINDS; NULL when none. */
FK_COLUMN_LOOKUP(reader_column, file_reader *, reader, NULL)

file_reader *file_reader_of(enum file_kind k)
{
    return reader_column(k);
}
