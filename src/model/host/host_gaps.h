/* Every device idle gap with its cause and the host frames that ran while it began.
 *
 * The gaps are those of flowstats_gaps (model/analysis/flowstats.h): per device, [end of
 * busy time, start of the next device slice). Each gets a cause from the next slice's launch:
 *   host_bound  its launcher (from a flow) started after the device went idle: the device
 *               waited for the host to launch it (the flowstats host-bound rule);
 *   sync        it had been launched when the device went idle, yet did not start: it waited
 *               on an event, a memcpy, a collective or another stream;
 *   other       no launcher is known (no flow, no graph launch).
 * Its step is the step window (flowstats: [end of the previous step, end of the step))
 * holding its start; none when it lies outside every window or the rank has no steps.
 * Its thread is the one that launched the next slice (a Python thread among its flows'
 * sources when there is one, else the launcher's), or, without a launcher, the one that
 * launched the slice before the gap. Its frames are the stack on that thread when the gap
 * began: every slice running then, outermost first; the last is the innermost
 * (host_self.h), to which the call tree charges the gap's idle. */
#ifndef APTOP_HOST_GAPS_H
#define APTOP_HOST_GAPS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/analysis/flowstats.h"
#include "model/index/model.h"
#include "model/index/session.h"
#include "model/rowsets/rowset.h"

enum host_gap_cause { GAP_HOST_BOUND, GAP_SYNC, GAP_OTHER };
const char *host_gap_cause_name(enum host_gap_cause c);   /* "host_bound", "sync", "other" */

#define HOST_GAP_FRAMES_MAX 256

struct host_gap {
    ns_t t0, t1;
    enum host_gap_cause cause;
    bool has_step;
    int64_t step;                 /* the step's number when has_step */
    uint32_t before, after;       /* device slices around the gap */
    uint32_t lane;                /* the host thread, LANE_NONE when none is known */
    uint32_t frames[HOST_GAP_FRAMES_MAX];   /* slices, outermost first */
    size_t nframes;
};
typedef void (*host_gap_fn)(const struct host_gap *g, void *ctx);

/* The gap g of flowstats_gaps with its cause, step, thread and frames. */
void host_gap_of(const struct model *m, const struct flowstats *fs, const struct flow_gap *g, struct host_gap *out);

/* Idle summed per innermost frame name, to name the frames that own the most of it. */
#define HOST_IDLE_OWNERS_MAX 256
struct host_idle_owners {
    uint32_t name[HOST_IDLE_OWNERS_MAX];   /* interned in the model's string table */
    ns_t idle[HOST_IDLE_OWNERS_MAX];
    size_t n;
    ns_t unnamed;                          /* idle of gaps without a frame, or past the table */
};
/* Adds gap g's idle to its innermost frame's name. */
void host_idle_owners_add(struct host_idle_owners *o, const struct model *m, const struct host_gap *g);
/* Writes the top k owners ("name (1.234 ms), ...") into buf; "" when none. */
void host_idle_owners_text(const struct host_idle_owners *o, const struct model *m, size_t k, char *buf, size_t size);

/* Calls fn for every gap of m, per device in time order. fs: m's flowstats (steps, launchers).
 * Returns 0, or -1 when memory ran out. */
int host_gaps_each(const struct model *m, const struct flowstats *fs, host_gap_fn fn, void *ctx);
/* The same for the host-bound gaps alone (those flowstats keeps), without walking the device
 * slices again. */
void host_gaps_each_host_bound(const struct model *m, const struct flowstats *fs, host_gap_fn fn, void *ctx);

/* "gaps": rank, step, start_us, dur_us, cause, innermost (the last frame's name), frames (a
 * JSON array of names, outermost first) and thread, for every rank with a timeline (rank: negative for all); link =
 * rowset_rank_link(rank index, the device slice after the gap). NULL when no selected rank
 * has a device gap. */
struct rowset *host_gaps_session_rowset(const struct session *s, int rank);

#endif
