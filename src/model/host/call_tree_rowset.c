/* The call tree as the report's rows: depth-first, children by host time (call_tree.h). */
#include "model/host/call_tree.h"

#include <stdlib.h>

#include "model/analysis/rank_flowstats.h"
#include "model/index/model_ranks.h"

static const struct rs_coldef tree_cols[] = {
    RS_COL_STR("name", "Name"),
    RS_COL_INT("depth", "Depth"),
    RS_COL_INT("calls", "Calls"),
    RS_COL_NS("host_us", "Host µs"),
    RS_COL_NS("device_us", "Device µs"),
    RS_COL_NS("idle_us", "Idle µs"),
    RS_COL_NS("idle_self_us", "Idle self µs"),
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
    const struct rank_data *rd;
    for (size_t i = 0; (rd = model_rank_next(s, &i, rank)); i++) {
        struct flowstats *own;
        const struct flowstats *fs = rank_flowstats(rd, &own);
        struct call_tree *t = call_tree_build(rd->model, fs, 0, NULL);
        flowstats_free(own);
        if (!t || !t->n) {
            call_tree_free(t);
            continue;
        }
        if (!rs) {
            rs = ROWSET_NEW_RANKED("call_tree", s->nranks > 1, tree_cols, &crank, &base);
            if (!rs) {
                call_tree_free(t);
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
