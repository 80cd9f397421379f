/* How long a rank's communication ops wait, one definition for every rule and view that
 * needs it, with point-to-point ops (send, receive, batched send/receive) kept apart from
 * collectives.
 *
 * A rank's wait is wall-clock time: the union over its ops of [start, start + wait], each
 * op's wait (communication.json's "Wait Time(ms)", at most its elapse) taken from its start,
 * where the file measures it (waiting for the peers before the transfers). Ops that overlap
 * (several groups at once) therefore count their common waiting once, so the wait never
 * exceeds the time the ops cover. An op without a start adds its wait whole. Every figure is
 * exact, from the file's decimal text. */
#ifndef APTOP_COMM_WAIT_H
#define APTOP_COMM_WAIT_H
#include <stdbool.h>
#include <stddef.h>

#include "model/analysis/comm.h"

/* Point-to-point: in the file's "p2p" section, or named as a send / receive op
 * (hcom_send*, hcom_receive*, hcom_batchSendRecv*, any "SendRecv") wherever it is filed. */
bool comm_op_is_p2p(const struct comm *c, const struct comm_op *op);

enum comm_wait_kinds { CW_COLLECTIVE = 1 << 0, CW_P2P = 1 << 1, CW_ALL = CW_COLLECTIVE | CW_P2P };

struct comm_wait {
    ns_t waited;              /* the union above: the wall-clock time spent waiting */
    ns_t summed;              /* the waits added up (overlaps counted as often as they occur) */
    ns_t elapsed;             /* the elapse times added up */
    size_t nops;              /* ops with both a wait and an elapse time */
};

/* The wait of c's ops of the given kinds (aggregates "Total Op Info" left out), clipped to
 * [from, to) unless from == NS_NONE. derived (may be NULL): per op of c, a wait found across
 * ranks (NCCL kernels, comm_instances_rank_waits in comm_match.h), NS_NONE where the file's
 * is taken. 0, or -1 when memory ran out (*out zeroed). */
int comm_wait_of(const struct comm *c, const ns_t *derived, unsigned kinds, ns_t from, ns_t to,
                 struct comm_wait *out);

#endif
