#include "io/readers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/clock_files.h"
#include "io/comm_json.h"
#include "io/csv_table.h"
#include "io/db_reader.h"
#include "io/trace_json.h"
#include "model/comm.h"
#include "model/flowstats.h"
#include "model/kernels.h"
#include "model/steps.h"
#include "model/table.h"
#include "model/time_gap.h"

static bool is_db(enum file_kind k)
{
    return k == FK_DB_TORCH || k == FK_DB_MSPROF;
}

static bool is_text(enum file_kind k)
{
    return k == FK_TRACE_JSON || k == FK_KERNEL_DETAILS || k == FK_OP_SUMMARY;
}

static int table_kind_of(enum file_kind k)
{
    switch (k) {
    case FK_KERNEL_DETAILS:
    case FK_OP_SUMMARY:       return TK_KERNELS;
    case FK_OP_STATISTIC:     return TK_OP_STATISTIC;
    case FK_OPERATOR_DETAILS: return TK_OPERATOR_DETAILS;
    case FK_API_STATISTIC:    return TK_API_STATISTIC;
    case FK_STEP_TRACE_TIME:  return TK_STEP_TRACE;
    case FK_TASK_TIME:        return TK_TASK_TIME;
    case FK_COMM_STATISTIC:   return TK_COMM_STATISTIC;
    case FK_MEMORY_CSV:       return TK_MEMORY;
    default:                  return -1;
    }
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
    if (db_mode)
        return is_db(f->kind) || f->kind == FK_DB_ANALYSIS || f->kind == FK_COMMUNICATION
            || f->kind == FK_COMM_MATRIX;
    /* analysis.db (also on its own): its figures fill only what the text files lack */
    return f->kind == FK_TRACE_JSON || table_kind_of(f->kind) >= 0 || f->kind == FK_COMMUNICATION
        || f->kind == FK_COMM_MATRIX || f->kind == FK_DB_ANALYSIS;
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

int readers_load_rank(const struct capture_rank *cr, size_t rank_index, bool prefer_db,
                      struct diag *d, struct load_progress *p,
                      reader_handover_fn hand_over, void *ctx, char *status, size_t status_size,
                      struct reader_result *out)
{
    struct rank_data tmp = { .rank = cr->rank, .device = cr->device };
    bool db = use_db(cr, prefer_db);
    int parts = 0, failed = 0;
    struct model *m = NULL;
    struct comm *db_comm = NULL;   /* analysis.db figures: used only when no JSON has them */
    bool held[TK_COUNT] = { false };   /* tables in parts, handed over after the last part */
    unsigned files_read = 0;
    struct clock_map clock;
    clock_map_read(cr, &clock, d);
    ns_t clock_off = 0;
    bool clock_decided = false;   /* by the timeline, else by the first table with times */

    /* 1. the timeline: every trace file of the rank into one model */
    for (size_t i = 0; i < cr->nfiles && !progress_cancelled(p); i++) {
        const struct capture_file *f = &cr->files[i];
        if (!wanted(f, db) || f->kind != FK_TRACE_JSON)
            continue;
        begin_file(p, f);
        if (!m)
            m = model_new(TIME_LOCAL_US);
        if (m && trace_json_load(m, f->path, d, p) < 0)
            failed++;
        else if (m)
            files_read++;
        atomic_fetch_add(&(p->total ? p->total : p)->files_done, 1);
    }
    if (m && !progress_cancelled(p)) {
        if (m->events) {   /* metadata alone still names lanes worth showing */
            model_finalize(m);
            clock_off = clock_map_offset(&clock, m->t_min, m->t_max);
            clock_decided = m->nslices > 0;
            if (clock_off) {
                model_shift(m, clock_off);
                diag_add(d, DIAG_INFO, cr->dir, "timestamps are on the device host's monotonic clock: mapped to its wall "
                         "clock by %s (%+.6f s)", clock.source, (double)clock_off / 1e9);
            }
            warn_time_gap(m, cr->dir, d);
            tmp.model = m;
            hand_over(ctx, rank_index, RP_MODEL, 0, m);
            parts++;
        } else {
            model_free(m);
        }
    } else if (m) {
        model_free(m);
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
            if (db_load(f->path, &got, d, p) < 0)
                failed++;
            else
                files_read++;
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
                if (csv_table_load(f->path, (enum table_kind)tk, &t, d, p) < 0 || !t)
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
        struct flowstats *fs = flowstats_compute(tmp.model, st);
        if (fs) {
            hand_over(ctx, rank_index, RP_FLOWSTATS, 0, fs);
            parts++;
        }
    }

    if (out) {
        out->files = files_read;
        out->device = cr->device >= 0 ? cr->device : table_device(tmp.tables[TK_KERNELS]);
    }
    if (progress_cancelled(p))
        snprintf(status, status_size, "cancelled");
    else if (!parts)
        snprintf(status, status_size, "nothing could be loaded");
    else
        snprintf(status, status_size, "%s%s%s", tmp.model ? "loaded" : "loaded (no timeline)",
                 failed ? ", with problems" : "", db ? " from DB" : "");
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
    memset(rd->tables, 0, sizeof rd->tables);
    rd->model = NULL;
    rd->comm = NULL;
    rd->steps = NULL;
    rd->flowstats = NULL;
}
