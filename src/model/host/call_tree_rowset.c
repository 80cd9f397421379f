/* The call tree as the report's rows: depth-first, children by host time (call_tree.h). */
#include "model/host/call_tree.h"

#include <stdlib.h>

#include "model/index/rank_filter.h"

static const struct rs_coldef tree_cols[] = {
    { "name", "Name", RS_STR, 0 },
    { "depth", "Depth", RS_INT, 0 },
    { "calls", "Calls", RS_INT, 0 },
    { "host_us", "Host µs", RS_NS, 0 },
    { "device_us", "Device µs", RS_NS, 0 },
    { "idle_us", "Idle µs", RS_NS, 0 },
    { "idle_self_us", "Idle self µs", RS_NS, 0 },
};
enum { TC_NAME, TC_DEPTH, TC_CALLS, TC_HOST, TC_DEVICE, TC_IDLE, TC_IDLE_SELF };

/* Rows of the tree t of model m, depth first (an explicit walk: trees can be deep). */
static void add_rows(struct rowset *rs, size_t base, size_t crank, int rank, size_t rank_index,
                     const struct call_tree *t, const struct model *m)
{
    uint32_t id = t->first_root;
    while (id != CT_NONE) {
        const struct ct_node *n = &t->nodes[id];
        size_t row = rowset_linked_row(rs, rowset_rank_link(rank_index, n->longest));
        if (row == SIZE_MAX)
            return;
        if (crank != SIZE_MAX)
            rowset_int(rs, row, crank, rank);
        rowset_str(rs, row, base + TC_NAME, model_str(m, n->name));
        rowset_int(rs, row, base + TC_DEPTH, n->depth);
        rowset_int(rs, row, base + TC_CALLS, (int64_t)n->calls);
        rowset_ns(rs, row, base + TC_HOST, n->host);
        rowset_ns(rs, row, base + TC_DEVICE, n->device);
        rowset_ns(rs, row, base + TC_IDLE, n->idle);
        rowset_ns(rs, row, base + TC_IDLE_SELF, n->idle_self);
        /* next in depth-first order: the first child, else the next sibling of the nearest
         * node (itself or an ancestor) that has one */
        if (n->first_child != CT_NONE) {
            id = n->first_child;
            continue;
        }
        while (id != CT_NONE && t->nodes[id].next == CT_NONE)
            id = t->nodes[id].parent;
        if (id != CT_NONE)
            id = t->nodes[id].next;
    }
}

struct rowset *call_tree_session_rowset(const struct session *s, int rank)
{
    if (!s)
        return NULL;
    struct rowset *rs = NULL;
    size_t crank = SIZE_MAX, base = 0, ranks = 0;
    bool truncated = false;
    for (size_t i = 0; i < s->nranks; i++) {
        const struct rank_data *rd = &s->ranks[i];
        if (!rd->model || !rank_selected(rd->rank, rank))
            continue;
        struct flowstats *own = NULL;
        const struct flowstats *fs = rd->flowstats;
        if (!fs)
            fs = own = flowstats_compute(rd->model, rd->steps);
        struct call_tree *t = call_tree_build(rd->model, fs, 0, NULL);
        flowstats_free(own);
        if (!t || !t->n) {
            call_tree_free(t);
            continue;
        }
        if (!rs) {
            rs = rowset_new("call_tree");
            if (!rs) {
                call_tree_free(t);
                return NULL;
            }
            if (s->nranks > 1)
                crank = rowset_col(rs, "rank", "Rank", RS_INT, 0);
            base = rs->ncols;
            if (!rowset_cols(rs, tree_cols, sizeof tree_cols / sizeof *tree_cols)) {
                call_tree_free(t);
                rowset_free(rs);
                return NULL;
            }
        }
        add_rows(rs, base, crank, rd->rank, i, t, rd->model);
        truncated |= t->truncated;
        ranks++;
        call_tree_free(t);
    }
    if (rs)
        rowset_caption(rs, "call tree of %zu rank%s, top-down, children by host time; device = launched from the node"
                       " or below; idle = host-bound gaps begun while it (self) or a node below ran%s",
                       ranks, ranks == 1 ? "" : "s", truncated ? "; TRUNCATED: more distinct paths than the node limit" : "");
    return rs;
}
