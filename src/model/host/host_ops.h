/* Host operators read from the trace itself, for every capture with host slices (torch_npu
 * trace_view.json, msprof timelines, Kineto traces), with or without operator_details.csv.
 *
 * Which slices are operators: those of category cpu_op (or the older "operator"); a trace
 * with none of those (msprof timelines) takes every slice of its host lanes (host_launch.h)
 * except Python frames (category python_function) and task-queue marks (enqueue, dequeue).
 * Per operator name, and per name and input shapes where the caller has them (host_shapes.h:
 * calls of one name with different shapes are rows of their own, calls without shapes one
 * row of the name):
 *   calls          its slices;
 *   host total     the sum of their durations;
 *   host self      the sum of their self times (host_self.h: the time each call was the
 *                  innermost slice running on its thread);
 *   device, kernels the device slices launched from inside a call of the name
 *                  (host_launch.h: a flow's source is the call or a slice within it) and
 *                  their summed duration. A device slice counts once per row even when
 *                  nested calls of that row both enclose its launch.
 * Rows are sorted by host total, descending. */
#ifndef APTOP_HOST_OPS_H
#define APTOP_HOST_OPS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/host/host_shapes.h"
#include "model/index/model.h"
#include "model/index/session.h"
#include "model/rowsets/rowset.h"

struct host_op {
    uint32_t name;             /* interned in the model's string table */
    uint32_t shapes;           /* its shapes' id in host_shapes.str plus 1; 0: not recorded */
    uint64_t calls, kernels;
    ns_t total, self, device;
    uint32_t longest;          /* its longest call (where Enter goes) */
};

struct host_ops {
    struct host_op *ops; size_t n;
    bool all_host_slices;      /* no cpu_op slices: every host slice but frames and marks */
};

/* True when slice s of m counts as a host operator under the rule above; all_host is the
 * host_ops.all_host_slices of m (host_ops_all_host). */
bool host_op_slice(const struct model *m, uint32_t s, bool all_host);
/* Whether m's operators are all its host slices (it has no cpu_op / operator slice). */
bool host_ops_all_host(const struct model *m);

/* The figures of one model, per name and shapes (shapes NULL: per name); NULL when memory
 * ran out. An empty result (n 0) when m has no host operator. */
struct host_ops *host_ops_compute(const struct model *m, const struct host_shapes *shapes);
void host_ops_free(struct host_ops *h);

/* "host_ops": name, input_shapes (null where not recorded), calls, host_total_us,
 * host_self_us, device_us, kernels (and rank first when the session has several ranks),
 * every rank with a timeline (rank: negative for all); shapes[i] (shapes or shapes[i] NULL:
 * none) the shapes of s->ranks[i]. NULL when no selected rank has a host operator. The link
 * of a row is rowset_rank_link(rank index, the longest call's slice). */
struct rowset *host_ops_session_rowset(const struct session *s, int rank, struct host_shapes *const *shapes);

/* Compares the trace's calls per name with operator_details' rows per name of the rank:
 * writes "= operator_details (...)" when they agree, else "≠ operator_details in N names:
 * the first (its calls and rows)", into buf; "" when the rank has no such table. */
void host_ops_vs_details(const struct rank_data *rd, char *buf, size_t size);

#endif
