/* Flow chains and launch figures of one rank's model.
 *
 * Data flow: the readers add flow points (trace JSON) or end-to-end flows (DB connectionId),
 * model_finalize pairs them by (category, id) and binds each point to the slice enclosing it
 * on its own lane. This module only reads the finalized model: it walks chains on demand
 * (flow_chain_forward / flow_chain_backward, for the UI's "what did this launch / who
 * launched this" keys) and computes, once per rank, the figures of struct flowstats.
 *
 * Chains. From a slice, the forward chain follows, breadth first and without repeating a slice:
 *   - every flow leaving the slice (async_npu op → kernel, HostToDevice node → kernel or
 *     communication op, async_task_queue enqueue → dequeue, DB connectionId flows);
 *     fwdbwd (forward → backward op) is shown as a hop but not followed further, since the
 *     backward op's kernels were not launched by the forward one;
 *   - "enclosed": slices inside the slice's time range, on its own lane and on lanes of other
 *     host processes with the same thread id (a Python dequeue encloses the CANN calls made by
 *     that thread), that have a flow leaving them.
 * The backward chain follows flows into the slice, for host slices the slices enclosing it
 * ("enclosing": its parents, and "thread": the deepest enclosing slice on same-thread lanes of
 * other host processes), and, for a device slice with no flow into it, the graph launch it is
 * attributed to.
 *
 * Launcher of a device slice (kernel): among the slices bound to flows ending on it, the one
 * that starts last (the host call nearest to the device: the CANN node when HostToDevice is
 * there, else the aten op of async_npu, else the DB connection's source). A kernel, memcpy or
 * memset that no flow of the file binds to a source but whose correlation id a runtime call
 * carries (model_add_correlation) has a flow from that call: it is launched as by a flow. With no flow, a
 * graph launch (a host slice whose name contains GraphLaunch, ModelExecute, aclmdlExecute or
 * aclmdlRIExecute, any case) that starts at or before the kernel, is the latest such before
 * it, and started at most FLOW_GRAPH_WINDOW before it. Otherwise the kernel has no launcher.
 *
 * Figures (struct flowstats):
 *   - per flow category: flow records, keys matched (ids with a record joining two points: an
 *     s or t point to a t or f point; the summary's flows_matched counts the same),
 *     records missing their start or end (no partner), records with both points of which one
 *     landed on no slice (unbound), and bound chains: each record is in exactly one of the
 *     last three;
 *   - launch latency = kernel start − launcher start, over kernels whose launcher came from a
 *     flow (graph-launched kernels are counted apart: their latency is not a launch's);
 *   - queue delay = dequeue start − enqueue start of each bound async_task_queue flow;
 *   - percentiles use the nearest rank: pXX = sorted[ceil(XX/100 · n) − 1];
 *   - host-bound idle. Per device (all stream lanes of one "Ascend Hardware" process), take
 *     the device slices in start order and track the end of busy time E (the latest end seen
 *     so far). When the next slice k starts after E, [E, start_k) is device idle time. That
 *     gap is host-bound when k's launcher started after E: the device had run out of work
 *     before the host even began launching k, so the whole gap waits on the host. A gap whose
 *     next slice was launched before E (the launch was in flight) or has no launcher is idle
 *     but not host-bound. Gaps are summed over devices, in total and clipped to each step.
 *     With no device slice launched by a flow (no flows, no correlation ids) host-bound idle
 *     is unknown, not zero: host_bound_known is false.
 */
#ifndef APTOP_FLOWSTATS_H
#define APTOP_FLOWSTATS_H
#include <stddef.h>
#include <stdint.h>

#include "model/index/model.h"
#include "model/rowsets/rowset.h"

struct steps;
struct flow_gap;   /* below */

/* How far before a kernel a graph launch may start and still be its launcher. */
#define FLOW_GRAPH_WINDOW ((ns_t)1000000000)

enum flow_hop_kind {
    HOP_ORIGIN,      /* the slice the chain starts from */
    HOP_FLOW,        /* along a flow of category cat */
    HOP_ENCLOSED,    /* a slice inside the previous one (same thread) */
    HOP_ENCLOSING,   /* a slice enclosing the previous one on its lane */
    HOP_THREAD,      /* the enclosing slice on another process's lane of the same thread */
    HOP_GRAPH,       /* the graph launch a flowless kernel is attributed to */
};

struct flow_hop {
    uint32_t slice;
    uint32_t lane;
    ns_t ts;                 /* the slice's start */
    enum flow_hop_kind kind;
    uint32_t cat;            /* HOP_FLOW: the flow's interned category; else 0 */
    uint32_t from;           /* index of the hop this one was reached from; UINT32_MAX for hop 0 */
    uint32_t level;          /* number of hops from the origin */
};

/* Chains from `slice` as a malloc'd array (*out, caller frees) in breadth-first order, hop 0
 * being the slice itself. Returns the number of hops; 0 (and *out NULL) when the slice is
 * out of range or memory ran out. Cost: O(size of the chain · log n), plus for "enclosed"
 * the slices inside the origin's range. Read-only: safe from any thread. */
size_t flow_chain_forward(const struct model *m, uint32_t slice, struct flow_hop **out);
size_t flow_chain_backward(const struct model *m, uint32_t slice, struct flow_hop **out);
/* The forward chain cut after max_hops hops (for a keypress on a frame that encloses a whole
 * capture); *truncated says whether hops were left out. */
size_t flow_chain_forward_max(const struct model *m, uint32_t slice, size_t max_hops,
                              struct flow_hop **out, bool *truncated);
/* "async_npu", "HostToDevice", ... for HOP_FLOW; "origin", "enclosed", "enclosing",
 * "thread", "graph_launch" otherwise. */
const char *flow_hop_category(const struct model *m, const struct flow_hop *h);

enum flow_launch_how { LAUNCH_NONE, LAUNCH_FLOW, LAUNCH_GRAPH };
/* The launcher of a device slice (see above), or SLICE_NONE; *how says which rule found it
 * (may be NULL). O(flows into it + log n); the graph rule walks host rows back at most
 * FLOW_GRAPH_WINDOW. */
uint32_t flow_launcher(const struct model *m, uint32_t kernel, enum flow_launch_how *how);

struct flow_cat_stats {
    uint32_t cat;            /* interned category */
    size_t flows;            /* flow records (one per f point, plus one per key with no f) */
    size_t matched;          /* distinct ids with a record joining two points */
    size_t missing_start;    /* records with no s point (no partner) */
    size_t missing_end;      /* records with no f point (no partner) */
    size_t unbound;          /* records with both points, one of which landed on no slice */
    size_t bound;            /* records bound at both ends: chains */
};

struct flow_lat {
    size_t n;
    ns_t p50, p90, p99, max, total;
};

struct flow_kernel_lat {
    uint32_t name;           /* interned kernel name */
    struct flow_lat lat;
    uint32_t worst;          /* the instance with the largest latency */
};

/* Step i's window is [end of step i-1, end of step i): its kernels and the device idle
 * before its first kernel (the first step starts at its own start). The step itself is
 * [start, t1): its own idle and host-bound idle lie inside it, part of its free time. */
struct flow_step_idle {
    int64_t index;           /* the step's number (struct step.index) */
    ns_t t0, t1, start;
    ns_t idle, host_bound;        /* the whole window */
    ns_t host_bound_inside;       /* of host_bound: inside the step itself */
};

struct flow_launch {
    uint32_t kernel, launcher;   /* slice indices; launcher SLICE_NONE when none */
    enum flow_launch_how how;
};

struct flowstats {
    struct flow_cat_stats *cats; size_t ncats;     /* sorted by category name */
    struct flow_lat launch;                        /* launch latency over all kernels */
    struct flow_lat queue;                         /* async_task_queue delay */
    struct flow_kernel_lat *kernels; size_t nkernels;  /* per kernel name, by p99 descending */
    size_t device_slices, with_launcher, graph_launched, no_launcher;
    size_t by_correlation;         /* of with_launcher: launched by a correlation id alone */
    bool host_bound_known;         /* some device slice has a flow launcher (see above) */
    size_t no_launcher_flowless;   /* of no_launcher: on streams no launch flow reaches at all
                                    * (e.g. a collective library's own task stream) */
    size_t multi_launcher;       /* kernels with flows from several slices of one category */
    ns_t idle, host_bound_idle;  /* summed over devices; host_bound_idle 0 when not known */
    ns_t window;                 /* summed over devices: first kernel start to last kernel end,
                                  * which the device's busy time and its idle gaps fill exactly */
    size_t gaps, host_bound_gaps;
    struct flow_gap *host_bound_list;  /* those host_bound_gaps gaps themselves, per device in
                                        * time order (flowstats_gaps' walk): what the call tree
                                        * charges, without walking again */
    struct flow_step_idle *steps; size_t nsteps;   /* empty when no steps were given */
    struct flow_launch *launches; size_t nlaunches;  /* every device slice, by slice index */
};

/* Fills l (count, nearest-rank p50/p90/p99, max, total) from n sorted values: the rule of
 * every latency figure here, for other analyses that group latencies their own way. */
void flow_lat_of(struct flow_lat *l, const ns_t *sorted, size_t n);

/* Computes the figures; steps may be NULL (then only totals). NULL when memory ran out. */
struct flowstats *flowstats_compute(const struct model *m, const struct steps *steps);
void flowstats_free(struct flowstats *fs);
/* The launch record of a device slice, or NULL. O(log n). */
const struct flow_launch *flowstats_launch(const struct flowstats *fs, uint32_t kernel);

/* One device idle gap of the host-bound rule above: [t0, t1) on device process proc, after
 * slice `before` (the one whose end the gap starts at) and before slice `after`. */
struct flow_gap {
    uint32_t proc;
    ns_t t0, t1;
    uint32_t before, after;
    bool host_bound;
};
typedef void (*flow_gap_fn)(const struct flow_gap *g, void *ctx);
/* Calls fn for every device idle gap, per device in time order: the very walk the idle and
 * host-bound figures above sum (so a rule built on gaps shares their definition). fs gives
 * the launchers. Returns 0, or -1 when memory ran out. O(n log n) in device slices. */
int flowstats_gaps(const struct model *m, const struct flowstats *fs, flow_gap_fn fn, void *ctx);

/* Rowsets for the UI (caller frees):
 * "launch_latency": per kernel name count, p50/p90/p99/max µs; link = worst instance. */
struct rowset *flowstats_kernel_rowset(const struct flowstats *fs, const struct model *m);
/* "chain": one row per hop (level, category, name, lane, start, offset from hop 0); link =
 * slice index. */
struct rowset *flowstats_chain_rowset(const struct model *m, const struct flow_hop *h, size_t n);

#endif
