/* Memory figures as rowsets, for the report sections "memory", "memory_ops", "memory_static"
 * and "memory_ranks" and for the Memory view's tables (one definition of each figure).
 * Sizes are MB (2^20 bytes) or KB (2^10 bytes) as the key says, computed from exact bytes
 * (the double holds them exactly); times are µs from exact ns. Empty stays null. */
#include "model/rowsets/memory_rowsets.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/index/rank_filter.h"
#include "model/index/session.h"

static const char *family_name(const struct memory *m, enum mem_family f)
{
    switch (f) {
    case MF_RECORD: return m->from_events ? "[memory] events" : "memory_record";
    case MF_MODULE: return "npu_module_mem";
    case MF_NPU_MEM: return "npu_mem";
    default: return "?";
    }
}

static void put_mb(struct rowset *rs, size_t r, size_t c, int64_t bytes)
{
    if (bytes != MEM_NONE)
        rowset_num(rs, r, c, (double)bytes / 1048576.0);
}

static void put_kb(struct rowset *rs, size_t r, size_t c, int64_t bytes)
{
    if (bytes != MEM_NONE)
        rowset_num(rs, r, c, (double)bytes / 1024.0);
}

static void put_ns(struct rowset *rs, size_t r, size_t c, ns_t t)
{
    if (t != NS_NONE)
        rowset_ns(rs, r, c, t);
}

/* When the series' peak was reached (the peak of the kind mem_series_peak picks). */
static void put_peak_at(struct rowset *rs, size_t r, size_t c, const struct mem_series *s)
{
    enum mem_kind k;
    mem_series_peak(s, &k);
    put_ns(rs, r, c, s->peak_t[k]);
}

/* A new row linked to entry i of the rank's memory, its first cells the rank and what names
 * the entry (every table here opens with them); SIZE_MAX when memory ran out. */
static size_t rank_row(struct rowset *rs, size_t i, int rank, const char *name)
{
    size_t r = rowset_linked_row(rs, i);
    if (r != SIZE_MAX) {
        rowset_int(rs, r, 0, rank);
        rowset_str(rs, r, 1, name);
    }
    return r;
}

/* The rowset to append to: into, or a new one named name; its columns added when it has none. */
static struct rowset *rows_into(struct rowset *into, const char *name, const struct rs_coldef *cols, size_t ncols)
{
    struct rowset *rs = into ? into : rowset_new(name);
    if (rs && !rs->ncols)
        rowset_cols(rs, cols, ncols);
    return rs;
}

/* Columns of several tables, defined once; MB figures show 3 decimals (about a KB). */
#define COL_RANK RS_COL_INT("rank", "Rank")
#define COL_COMPONENT RS_COL_STR("component", "Component")
#define COL_MB(key, title) RS_COL_NUM(key, title, 3)
#define COL_PEAK_ALLOCATED COL_MB("peak_allocated_mb", "Peak alloc MB")
#define COL_PEAK_RESERVED COL_MB("peak_reserved_mb", "Peak resv MB")
#define COL_PEAK_AT RS_COL_NS("peak_at_us", "Peak at µs")

static const struct rs_coldef series_cols[] = {
    COL_RANK,
    RS_COL_STR("source", "Source"),
    COL_COMPONENT,
    COL_PEAK_ALLOCATED,
    COL_PEAK_RESERVED,
    COL_MB("peak_active_mb", "Peak active MB"),
    COL_PEAK_AT,
    RS_COL_NS("peak_reserved_at_us", "Resv peak at µs"),
    RS_COL_NS("first_us", "First µs"),
    RS_COL_NS("last_us", "Last µs"),
    RS_COL_INT("rows", "Rows"),
    RS_COL_INT("curve_points", "Points"),
};

static struct rowset *series_rows(const struct memory *m, int rank, unsigned families, struct rowset *into)
{
    struct rowset *rs = rows_into(into, "memory", series_cols, sizeof series_cols / sizeof *series_cols);
    if (!rs)
        return NULL;
    for (size_t i = 0; m && i < m->nseries; i++) {
        const struct mem_series *s = &m->series[i];
        if (!(families & (1u << s->family)))
            continue;
        size_t r = rank_row(rs, i, rank, family_name(m, s->family));
        if (r == SIZE_MAX)
            break;
        rowset_str(rs, r, 2, memory_str(m, s->component));
        put_mb(rs, r, 3, s->peak[MK_ALLOCATED]);
        put_mb(rs, r, 4, s->peak[MK_RESERVED]);
        put_mb(rs, r, 5, s->peak[MK_ACTIVE]);
        put_peak_at(rs, r, 6, s);
        put_ns(rs, r, 7, s->peak_t[MK_RESERVED]);
        put_ns(rs, r, 8, s->t_first);
        put_ns(rs, r, 9, s->t_last);
        rowset_int(rs, r, 10, (int64_t)s->rows);
        rowset_int(rs, r, 11, (int64_t)s->npts);
    }
    return rs;
}

struct rowset *memory_series_rowset(const struct memory *m, int rank, struct rowset *into)
{
    return series_rows(m, rank, ~0u, into);
}

static const struct rs_coldef op_cols[] = {
    COL_RANK,
    RS_COL_STR("name", "Name"),
    COL_COMPONENT,
    RS_COL_NUM("size_kb", "Size KB", 1),
    RS_COL_NS("alloc_us", "Alloc µs"),
    RS_COL_NS("release_us", "Release µs"),
    RS_COL_NS("lifetime_us", "Lifetime µs"),
    RS_COL_NS("active_release_us", "Active rel µs"),
    RS_COL_NS("active_lifetime_us", "Active life µs"),
    RS_COL_NUM("size_x_lifetime_kb_ms", "KB x ms", 1),
    COL_MB("alloc_total_allocated_mb", "Alloc total MB"),
    COL_MB("alloc_total_reserved_mb", "Alloc resv MB"),
    COL_MB("release_total_allocated_mb", "Rel total MB"),
    COL_MB("release_total_reserved_mb", "Rel resv MB"),
    RS_COL_INT("line", "Line"),
};

static void op_row(struct rowset *rs, const struct memory *m, uint32_t i, int rank)
{
    const struct mem_op *op = &m->ops[i];
    size_t r = rank_row(rs, i, rank, memory_str(m, op->name));
    if (r == SIZE_MAX)
        return;
    rowset_str(rs, r, 2, memory_str(m, op->component));
    put_kb(rs, r, 3, op->size);
    put_ns(rs, r, 4, op->alloc);
    put_ns(rs, r, 5, op->release);
    put_ns(rs, r, 6, mem_op_lifetime(op));
    put_ns(rs, r, 7, op->active_release);
    put_ns(rs, r, 8, op->active_duration);
    double cost = mem_op_cost(op);
    if (!isnan(cost))
        rowset_num(rs, r, 9, cost / 1024.0 / 1e6);
    put_mb(rs, r, 10, op->at_alloc[MK_ALLOCATED]);
    put_mb(rs, r, 11, op->at_alloc[MK_RESERVED]);
    put_mb(rs, r, 12, op->at_release[MK_ALLOCATED]);
    put_mb(rs, r, 13, op->at_release[MK_RESERVED]);
    if (op->line)
        rowset_int(rs, r, 14, op->line);
}

struct rowset *memory_ops_rowset(const struct memory *m, int rank, enum mem_order order, struct rowset *into)
{
    struct rowset *rs = rows_into(into, "memory_ops", op_cols, sizeof op_cols / sizeof *op_cols);
    if (!rs)
        return NULL;
    const uint32_t *idx = !m ? NULL : order == MO_SIZE ? m->by_size : order == MO_COST ? m->by_cost : NULL;
    for (size_t i = 0; m && i < m->nops; i++)
        op_row(rs, m, idx ? idx[i] : (uint32_t)i, rank);
    return rs;
}

struct rowset *memory_ops_top_rowset(const struct memory *m, int rank, enum mem_order order, size_t max)
{
    struct rowset *rs = ROWSET_NEW("memory_ops", op_cols);
    if (!rs)
        return NULL;
    const uint32_t *idx = !m ? NULL : order == MO_SIZE ? m->by_size : order == MO_COST ? m->by_cost : NULL;
    size_t n = m ? m->nops : 0;
    for (size_t i = 0; i < n && i < max; i++)
        op_row(rs, m, idx ? idx[i] : (uint32_t)i, rank);
    if (n > max)
        rowset_caption(rs, "the first %zu of %zu operator allocations (aptop report --section memory_ops lists "
                       "them all)", max, n);
    return rs;
}

struct rowset *memory_alive_rowset(const struct memory *m, int rank, ns_t t, size_t max)
{
    struct rowset *rs = ROWSET_NEW("memory_alive", op_cols);
    if (!rs)
        return NULL;
    uint32_t *idx = max ? malloc(max * sizeof *idx) : NULL;
    size_t n = m && idx ? memory_alive_at(m, t, idx, max) : 0;
    for (size_t i = 0; i < n && i < max; i++)
        op_row(rs, m, idx[i], rank);
    int64_t sum = 0;
    for (size_t i = 0; i < n && i < max; i++)
        if (m->ops[idx[i]].size != MEM_NONE)
            sum += m->ops[idx[i]].size;
    rowset_caption(rs, "%zu operator allocations alive%s, %.3f MB in the %zu shown", n,
                   n > max ? " (largest shown)" : "", (double)sum / 1048576.0, n < max ? n : max);
    free(idx);
    return rs;
}

static const struct rs_coldef static_cols[] = {
    COL_RANK,
    RS_COL_STR("name", "Op name"),
    RS_COL_STR("model", "Model"),
    RS_COL_INT("graph_id", "Graph"),
    RS_COL_INT("node_index_start", "Node from"),
    RS_COL_INT("node_index_end", "Node to"),
    RS_COL_NUM("size_kb", "Size KB", 3),
    RS_COL_STR("device", "Device"),
};

struct rowset *memory_static_rowset(const struct memory *m, int rank, struct rowset *into)
{
    struct rowset *rs = rows_into(into, "memory_static", static_cols, sizeof static_cols / sizeof *static_cols);
    if (!rs)
        return NULL;
    for (size_t i = 0; m && i < m->nstatics; i++) {
        const struct mem_static *st = &m->statics[i];
        size_t r = rank_row(rs, i, rank, memory_str(m, st->name));
        if (r == SIZE_MAX)
            break;
        rowset_str(rs, r, 2, memory_str(m, st->model));
        if (st->graph_id != MEM_NONE) rowset_int(rs, r, 3, st->graph_id);
        if (st->node_start != MEM_NONE) rowset_int(rs, r, 4, st->node_start);
        if (st->node_end != MEM_NONE) rowset_int(rs, r, 5, st->node_end);
        put_kb(rs, r, 6, st->size);
        rowset_str(rs, r, 7, memory_str(m, st->device));
    }
    return rs;
}

static bool has_memory(const struct rank_data *rd, int only_rank)
{
    return rd->memory && rank_selected(rd->rank, only_rank);
}

/* Allocated peak of a rank's main memory_record curve, MEM_NONE when it has none. */
static int64_t main_allocated_peak(const struct memory *m)
{
    size_t si = memory_main_series(m);
    return si == SIZE_MAX ? MEM_NONE : m->series[si].peak[MK_ALLOCATED];
}

static const struct rs_coldef ranks_cols[] = {
    COL_RANK,
    COL_COMPONENT,
    COL_PEAK_ALLOCATED,
    COL_PEAK_RESERVED,
    COL_PEAK_AT,
    COL_MB("above_lowest_allocated_mb", "Above lowest MB"),
    RS_COL_INT("op_allocations", "Op allocs"),
    RS_COL_NUM("largest_allocation_kb", "Largest KB", 1),
    RS_COL_STR("largest_allocation", "Largest allocation"),
    RS_COL_NUM("static_kb", "Static KB", 3),
};

struct rowset *memory_ranks_rowset(const struct session *s, int only_rank)
{
    /* the lowest and highest allocated peaks first: every row's gap is measured to the lowest */
    int64_t lowest = MEM_NONE, highest = MEM_NONE;
    int low_rank = -1, high_rank = -1;
    size_t nranks = 0;
    bool partial = false;
    for (size_t i = 0; s && i < s->nranks; i++) {
        const struct rank_data *rd = &s->ranks[i];
        if (!has_memory(rd, only_rank))
            continue;
        nranks++;
        partial |= rd->memory->oom;
        int64_t a = main_allocated_peak(rd->memory);
        if (a != MEM_NONE && (lowest == MEM_NONE || a < lowest))
            lowest = a, low_rank = rd->rank;
        if (a != MEM_NONE && (highest == MEM_NONE || a > highest))
            highest = a, high_rank = rd->rank;
    }
    if (!nranks)
        return NULL;
    struct rowset *rs = ROWSET_NEW("memory_ranks", ranks_cols);
    if (!rs)
        return NULL;
    for (size_t i = 0; i < s->nranks; i++) {
        const struct rank_data *rd = &s->ranks[i];
        if (!has_memory(rd, only_rank))
            continue;
        const struct memory *m = rd->memory;
        size_t r = rowset_row(rs);
        if (r == SIZE_MAX)
            break;
        rowset_int(rs, r, 0, rd->rank);
        size_t si = memory_main_series(m);
        if (si != SIZE_MAX) {
            const struct mem_series *ms = &m->series[si];
            rowset_str(rs, r, 1, memory_str(m, ms->component));
            put_mb(rs, r, 2, ms->peak[MK_ALLOCATED]);
            put_mb(rs, r, 3, ms->peak[MK_RESERVED]);
            put_peak_at(rs, r, 4, ms);
            if (ms->peak[MK_ALLOCATED] != MEM_NONE)
                put_mb(rs, r, 5, ms->peak[MK_ALLOCATED] - lowest);
            rs->link[r] = si;
        }
        rowset_int(rs, r, 6, (int64_t)m->nops);
        /* by_size puts empty sizes last: its first entry is the largest allocation */
        if (m->nops && m->by_size && m->ops[m->by_size[0]].size != MEM_NONE) {
            put_kb(rs, r, 7, m->ops[m->by_size[0]].size);
            rowset_str(rs, r, 8, memory_str(m, m->ops[m->by_size[0]].name));
        }
        if (m->nstatics)
            put_kb(rs, r, 9, memory_static_total(m));
    }
    const char *part = partial ? " (partial: memory ran out while reading, some rows are missing)" : "";
    if (high_rank >= 0 && nranks > 1 && highest == lowest)
        rowset_caption(rs, "every rank has the same allocated peak of its main memory_record component: "
                       "%.3f MB%s", (double)highest / 1048576.0, part);
    else if (high_rank >= 0 && nranks > 1)
        rowset_caption(rs, "rank %d has the highest allocated peak of its main memory_record component: "
                       "%.3f MB, %.3f MB above rank %d, the lowest%s", high_rank, (double)highest / 1048576.0,
                       (double)(highest - lowest) / 1048576.0, low_rank, part);
    else if (partial)
        rowset_caption(rs, "partial: memory ran out while reading, some rows are missing");
    return rs;
}
