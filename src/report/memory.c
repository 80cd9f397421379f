/* The report's memory sections: "memory" (curves), "memory_ops" (operator allocations in
 * file order), "memory_static" and "memory_ranks" (model/rowsets/memory_rowsets.h), every selected
 * rank's rows in one table. */
#include "report/report.h"

#include "model/rowsets/memory_rowsets.h"
#include "model/index/rank_filter.h"

/* Every selected rank's rows in one rowset; NULL when no rank has memory data. */
static struct rowset *all_ranks(const struct session *s, int only_rank, bool timed,
                                struct rowset *(*fn)(const struct memory *, int, struct rowset *))
{
    struct rowset *rs = NULL;
    uint64_t approx = 0;
    for (size_t i = 0; i < s->nranks; i++) {
        const struct rank_data *rd = &s->ranks[i];
        if (!rank_selected(rd->rank, only_rank) || !rd->memory)
            continue;
        rs = fn(rd->memory, rd->rank, rs);
        approx += rd->memory->approx_cells;
        if (!rs)
            return NULL;
    }
    if (rs && approx && timed)
        rowset_caption(rs, "%llu times were written in E-notation (spreadsheet-rounded): figures "
                       "from them are approximate", (unsigned long long)approx);
    return rs;
}

static struct rowset *ops_file_order(const struct memory *m, int rank, struct rowset *into)
{
    return memory_ops_rowset(m, rank, MO_FILE, into);
}

struct rowset *report_memory(const struct session *s, const struct report_opts *o)
{
    return all_ranks(s, o->rank, true, memory_series_rowset);
}

struct rowset *report_memory_ops(const struct session *s, const struct report_opts *o)
{
    return all_ranks(s, o->rank, true, ops_file_order);
}

struct rowset *report_memory_static(const struct session *s, const struct report_opts *o)
{
    return all_ranks(s, o->rank, false, memory_static_rowset);
}

REPORT_RANK_SECTION(report_memory_ranks, memory_ranks_rowset)
