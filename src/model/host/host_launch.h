/* The host side of a rank. Data flow: after a rank's model is finalized and its flows bound
 * (model/analysis/flowstats.h), host_launch.c finds, for every launched device slice, the host
 * slices it was launched through; host_ops.h, host_self.h and call_tree.h charge device time
 * to them, host_gaps.h gives every device idle gap its cause and launch_steps.h the launch
 * latency per step. Each returns rowsets, read by the report, the query tables and the views.
 *
 * Which host slices a device slice's launch passed through.
 *
 * A device slice (a kernel, a memcpy: any slice on a LANE_DEVICE lane) was launched by the
 * sources of the flows ending on it (async_npu from the operator, HostToDevice from the CANN
 * node, ac2g from the CUDA runtime call, a DB connection): the launchers. Each launcher ran
 * inside the host slices enclosing it on its own lane, at any depth above it (its operator's
 * parents, the Python frames around them): a slice whose start is at or before the
 * launcher's and whose end is at or after the launcher's end. A frame that overlaps without
 * enclosing (imprecise boundaries) is skipped, not a reason to stop looking higher. Those slices together are what "launched" the device slice, and the
 * host operators and the call tree charge its device time to each of them once. */
#ifndef APTOP_HOST_LAUNCH_H
#define APTOP_HOST_LAUNCH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/index/model.h"

/* The host lanes' kinds (Python, CANN, mstx marks, unnamed processes). */
bool host_lane_kind(enum lane_kind k);

/* Writes to out (at most cap) the slices enclosing slice x on its lane, in the sense above,
 * shallowest first; returns how many. O(depth · log n). */
size_t host_enclosing(const struct model *m, uint32_t x, uint32_t *out, size_t cap);

/* Writes to out (at most cap, ascending slice index, no repeats) every host slice that
 * launched device slice k or encloses one that did; returns how many. A device slice with
 * no flow from a host slice gives 0. O(flows into k · depth · log n). */
size_t host_launch_slices(const struct model *m, uint32_t k, uint32_t *out, size_t cap);

/* Room host_launch_slices needs for any input: one per depth row of every launcher. */
#define HOST_LAUNCH_MAX 1024

#endif
