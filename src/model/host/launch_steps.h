/* Launch latency per step: how long after its launcher each device slice started, grouped by
 * the step window holding the slice's start (model/analysis/flowstats.h defines the latency,
 * the launcher, the step windows and the nearest-rank percentiles). Only slices launched
 * through a flow count, as in the flows section. The outlier of a step is its slowest launch. */
#ifndef APTOP_LAUNCH_STEPS_H
#define APTOP_LAUNCH_STEPS_H

#include "model/index/session.h"
#include "model/rowsets/rowset.h"

/* "launch_steps": rank (several ranks), step (null: outside every step window), kernels,
 * p50_us, p90_us, p99_us, max_us, worst (the slowest launch's kernel name); link =
 * rowset_rank_link(rank index, that kernel). NULL when no selected rank has a launch. */
struct rowset *launch_steps_session_rowset(const struct session *s, int rank);

#endif
