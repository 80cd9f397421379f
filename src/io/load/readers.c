/* Loading one rank: a loop over the stages of load_stages (the clock, the groups, the
 * timeline, every other file by its kind's reader, then what needs them all: tables read in
 * parts, memory, communication, the kernel table's join, the analyses, the timeline's index
 * for the next open). Which files are read and how each is read: readers_files.c. */
#include "io/load/readers_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/tables/pgroups_json.h"
#include "io/trace/kineto.h"
#include "io/tables/summary_json.h"
#include "model/analysis/comm.h"
#include "model/analysis/flowstats.h"
#include "model/analysis/kernels.h"
#include "model/analysis/memory.h"
#include "model/analysis/pgroups.h"
#include "model/index/rank_digest.h"
#include "model/analysis/steps.h"

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

/* ---- the stages of a rank's load, in order (load_stages) ------------------------------- */

/* The rank's clock files: how its monotonic times map to the wall clock. */
static void stage_clock(struct rank_load *L)
{
    clock_map_read(L->cr, &L->clock, L->d);
}

/* The parallel groups the rank belongs to (not counted as a part). */
static void stage_groups(struct rank_load *L)
{
    const struct capture_rank *cr = L->cr;
    for (size_t i = 0; i < cr->nfiles; i++) {
        struct pgroups *g = cr->files[i].kind == FK_PROFILER_METADATA && !cr->files[i].problem
                          ? pgroups_read_metadata(cr->files[i].path, L->d) : NULL;
        if (g) {
            L->hand_over(L->ctx, L->rank_index, RP_GROUPS, -1, g);
            break;
        }
    }
}

/* The timeline: every trace file of the rank into one model (or its cached index), on the
 * wall clock. */
static void stage_timeline(struct rank_load *L)
{
    ns_t cached_shift = 0;   /* what the cached model's times were shifted by when it was written */
    struct model *m = L->db ? NULL : load_timeline(L, &cached_shift);
    if (!m)
        return;
    struct diag *d = L->d;
    const char *dir = L->cr->dir;
    L->clock_off = clock_map_offset(&L->clock, m->t_min == NS_NONE ? NS_NONE : m->t_min - cached_shift,
                                    m->t_max == NS_NONE ? NS_NONE : m->t_max - cached_shift);
    L->clock_decided = m->nslices > 0;
    if (model_shift(m, L->clock_off - cached_shift)) {
        L->timeline_shift = L->clock_off;
    } else {
        diag_out_of_memory(d, dir, "out of memory while mapping the timeline to the wall clock: its "
                 "times are %s", cached_shift ? "as cached" : "on the monotonic clock");
        L->timeline_shift = cached_shift;
        L->clock_off = cached_shift;
    }
    if (L->clock_off)
        diag_add(d, DIAG_INFO, dir, "timestamps are on the device host's monotonic clock: mapped to its wall "
                 "clock by %s (%+.6f s)", L->clock.source, (double)L->clock_off / 1e9);
    load_warn_time_gap(m, dir, d);
    L->tmp.model = m;
    load_hand_over(L, RP_MODEL, 0, m);
}

/* Every other wanted file by its kind's reader: DB exports, tables, communication, memory. */
static void stage_files(struct rank_load *L)
{
    const struct capture_rank *cr = L->cr;
    for (size_t i = 0; i < cr->nfiles && !progress_cancelled(L->p); i++) {
        const struct capture_file *f = &cr->files[i];
        file_reader *read = file_reader_of(f->kind);
        if (!read || !file_wanted(f, L->db))
            continue;
        load_begin_file(L->p, f);
        read(L, f);
        load_file_done(L->p);
    }
}

/* Tables read in parts, now whole. */
static void stage_held_tables(struct rank_load *L)
{
    for (int t = 0; t < TK_COUNT; t++)
        if (L->held[t] && L->tmp.tables[t])
            load_hand_over(L, RP_TABLE, t, L->tmp.tables[t]);
}

static void stage_memory(struct rank_load *L)
{
    struct memory *mem = L->mem;
    L->mem = NULL;
    if (!mem || !(mem->nseries || mem->nops || mem->nstatics) || progress_cancelled(L->p)) {
        memory_free(mem);
        return;
    }
    /* memory times move with the timeline's when they lie on the host's monotonic clock */
    ns_t lo, hi;
    if (L->clock.have && !L->clock_decided && memory_span(mem, &lo, &hi))
        L->clock_off = clock_map_offset(&L->clock, lo, hi);
    if (L->clock.have && L->clock_off)
        memory_shift(mem, L->clock_off);
    memory_finish(mem);
    L->mem_handed = true;
    load_hand_over(L, RP_MEMORY, 0, mem);
}

/* What a Kineto trace keeps in its events' args, read in one pass: its NCCL / RCCL kernels'
 * collective metadata (when no communication file gave the rank its ops) and its [memory]
 * events (when no memory file gave the rank its curves). */
static void kineto_arg_parts(struct rank_load *L, const struct model *m, struct comm_kernel_args **ka, size_t *na)
{
    struct memory *km = NULL;
    kineto_trace_args(m, L->d, L->tmp.comm ? NULL : ka, na, L->mem_handed ? NULL : &km);
    if (!km)
        return;
    memory_finish(km);
    L->mem_handed = true;
    load_hand_over(L, RP_MEMORY, 0, km);
}

/* communication.json's figures, else analysis.db's. */
static void stage_comm(struct rank_load *L)
{
    if (L->db_comm && !L->tmp.comm)
        L->tmp.comm = L->db_comm;
    else if (L->db_comm)
        comm_free(L->db_comm);
    L->db_comm = NULL;
    if (L->tmp.comm)
        load_hand_over(L, RP_COMM, 0, L->tmp.comm);
}

/* A CSV kernel table (all its parts read): joined to the timeline, then handed over. */
static void stage_kernel_table(struct rank_load *L)
{
    struct table *k = L->tmp.tables[TK_KERNELS];
    if (!k || L->db)
        return;
    if (L->tmp.model)
        kernels_join(k, L->tmp.model, L->d);
    load_hand_over(L, RP_TABLE, TK_KERNELS, k);
}

/* Analyses over what was loaded: steps, collectives of a GPU trace, flow statistics. */
static void stage_analyses(struct rank_load *L)
{
    struct model *m = L->tmp.model;
    if (progress_cancelled(L->p) || !m)
        return;
    struct steps *st = steps_detect(m, L->tmp.tables[TK_KERNELS]);
    if (st)
        load_hand_over(L, RP_STEPS, 0, st);
    if (progress_cancelled(L->p))   /* each analysis is one pass over the timeline: looked at between them */
        return;
    /* a GPU trace has no communication.json: its NCCL/RCCL kernels are the ops; an Ascend
     * trace without one (msprof's per-device timelines): its HCCL process */
    struct comm_kernel_args *ka = NULL;
    size_t na = 0;
    kineto_arg_parts(L, m, &ka, &na);
    struct comm *kc = L->tmp.comm ? NULL : comm_from_kernels(m, st, ka, na);
    free(ka);
    if (!kc && !L->tmp.comm)
        kc = comm_from_hccl(m, st);
    if (kc)
        load_hand_over(L, RP_COMM, 0, kc);
    if (progress_cancelled(L->p))
        return;
    struct flowstats *fs = flowstats_compute(m, st);
    if (fs)
        load_hand_over(L, RP_FLOWSTATS, 0, fs);
}

/* The timeline's index for the next open (the UI already shows everything). */
static void stage_store_timeline(struct rank_load *L)
{
    struct cache_parts timeline = { .model = L->tmp.model, .shift = L->timeline_shift };
    cached_read_store(&L->timeline_cache, &timeline, L->p, L->d);
}

static void (*const load_stages[])(struct rank_load *L) = {
    stage_clock, stage_groups, stage_timeline, stage_files, stage_held_tables, stage_memory, stage_comm,
    stage_kernel_table, stage_analyses, stage_store_timeline,
};

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
    struct rank_load L = { .cr = cr, .rank_index = rank_index, .db = readers_use_db(cr, prefer_db), .cache = cache,
                           .d = d, .p = p, .hand_over = hand_over, .ctx = ctx,
                           .tmp = { .rank = cr->rank, .device = cr->device } };
    for (size_t s = 0; s < sizeof load_stages / sizeof *load_stages; s++)
        load_stages[s](&L);

    if (out) {
        out->files = L.files_read;
        out->device = cr->device >= 0 ? cr->device : table_device(L.tmp.tables[TK_KERNELS]);
        if (out->device < 0 && L.tmp.model)   /* a GPU trace names its device */
            out->device = kineto_gpu_of(L.tmp.model);
    }
    if (progress_cancelled(p))
        snprintf(status, status_size, "cancelled");
    else if (!L.parts)
        snprintf(status, status_size, "nothing could be loaded");
    else
        snprintf(status, status_size, "%s%s%s%s", L.tmp.model ? "loaded"
                 : L.timeline_lost ? "loaded without its timeline (out of memory)" : "loaded (no timeline)",
                 L.failed ? ", with problems" : "", L.db ? " from DB" : "",
                 L.from_cache ? " (index cache)" : "");
    return L.parts;
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
