/* The host call tree: which host frame costs device time, and which leaves the device idle.
 *
 * Nodes are paths of names. On every host lane (host_launch.h) each slice's parent is its
 * innermost enclosing slice (the one that started last, ties: the shorter, then the deeper:
 * host_self.h's rule), so Python frames, operators and the CANN calls under them nest as
 * they ran. A slice belongs to the node of its parent's node and its own name; slices without
 * a parent are roots (threads merge by name). Per node:
 *   calls, host     its slices and their summed duration;
 *   device          the device slices launched from the node or below it: a device slice
 *                   counts once for every node on the paths of its flows' sources
 *                   (host_launch.h), with its duration;
 *   idle_self       the host-bound gaps (host_gaps.h) that began while a slice of the node was
 *                   the innermost running on the thread that launched the next device slice;
 *   idle            idle_self of the node and every node below it.
 * Bounded: past max_nodes distinct paths, a new path's slices count in their parent's node
 * (truncated says so). Built after the load from a finished model (call_tree_build may run on
 * any thread: it only reads the model and flowstats), cancelled through stop. */
#ifndef APTOP_CALL_TREE_H
#define APTOP_CALL_TREE_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/analysis/flowstats.h"
#include "model/index/model.h"
#include "model/index/session.h"
#include "model/rowsets/rowset.h"

#define CT_NONE UINT32_MAX
#define CALL_TREE_MAX_NODES 1000000

struct ct_node {
    uint32_t name;                /* interned in the model's string table */
    uint32_t parent;              /* CT_NONE for a root */
    uint32_t first_child, next;   /* children, linked; CT_NONE ends */
    uint32_t depth;               /* 0 for a root */
    uint64_t calls;
    ns_t host, device, idle, idle_self;
    uint32_t longest;             /* its longest slice (where Enter goes) */
};

struct call_tree {
    struct ct_node *nodes; size_t n;
    uint32_t first_root;          /* roots, linked by next */
    bool truncated;               /* max_nodes was reached */
    double build_ms;              /* wall time of the build */
};

/* Builds the tree of m (fs: m's flowstats, for the gaps; NULL: no idle figures). NULL when
 * memory ran out or stop was set (stop may be NULL). max_nodes 0: CALL_TREE_MAX_NODES. */
struct call_tree *call_tree_build(const struct model *m, const struct flowstats *fs, size_t max_nodes,
                                  const _Atomic bool *stop);
void call_tree_free(struct call_tree *t);
/* Memory the tree holds, in bytes. */
size_t call_tree_memory(const struct call_tree *t);

/* The bottom-up tree of t: a root per name, below it the callers, then their callers. Node
 * (X, Y, ...) sums the figures of the top-down nodes named X whose parent is named Y, and so
 * on up (a name recursing on its own path counts once per place). NULL when memory ran out;
 * bounded like the build. */
struct call_tree *call_tree_invert(const struct call_tree *t, const struct model *m, size_t max_nodes);

/* Children sorted by a figure, descending (ties by name): what the report and the view list. */
enum ct_sort { CT_BY_HOST, CT_BY_DEVICE, CT_BY_IDLE, CT_BY_IDLE_SELF, CT_BY_CALLS };
void call_tree_sort(struct call_tree *t, const struct model *m, enum ct_sort by);

/* "call_tree": one row per node of the top-down tree in depth-first order (children by host
 * time): rank (several ranks), name, depth, calls, host_us, device_us, idle_us, idle_self_us;
 * link = rowset_rank_link(rank index, the node's longest slice). NULL when no selected rank
 * has a host slice. */
struct rowset *call_tree_session_rowset(const struct session *s, int rank);

#endif
