/* The same collective (or point-to-point op) on every rank: instances across ranks.
 *
 * An op's name differs between ranks for one instance (the sequence ids in
 * "hcom_allReduce__586_0_1@17522688603477080586" are each rank's own counters), so ops are
 * matched by what the ranks share: the step key, the kind (collective / p2p), the group
 * (the text after the last '@', "" when there is none), the op type (the name up to its
 * first "__", or up to the '@', or the whole name) and the order: the k-th op of that
 * step, kind, group and type on one rank (by start time, then file order) is the k-th on
 * every other rank. The per-step aggregates ("Total Op Info") are not ops and belong to no
 * instance.
 *
 * In each instance with a wait figure on two ranks or more, not all of them equal:
 *   last arriver  the rank that waited least (its Wait Time(ms), compared exactly as
 *                 written): the others were waiting for it. Ties go to the later start,
 *                 then to the first rank in session order. Decided by wait, not by start
 *                 stamps, because the ranks' clocks need not agree. When every rank
 *                 waited the same (often 0) nobody waited for anyone: no last arriver.
 *   caused wait   on the last arriver: the exact sum of the Wait Time(ms) of the
 *                 instance's other ranks (those with a wait figure), the waiting spent
 *                 in this instance for it.
 * Everything here reads the session's comm parts and changes nothing. */
#ifndef APTOP_COMM_MATCH_H
#define APTOP_COMM_MATCH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/index/decimal_sum.h"
#include "model/rowsets/rowset.h"
#include "model/index/session.h"

#define COMM_NO_INSTANCE UINT32_MAX

struct comm_member {
    uint32_t rank;              /* index into s->ranks */
    uint32_t op;                /* index into that rank's comm->ops */
};

struct comm_instance {
    uint32_t first, n;          /* members mem[first .. first + n), in session rank order */
    uint32_t last;              /* index into mem of the last arriver, COMM_NO_INSTANCE: undecided */
    uint32_t ordinal;           /* its place among its step, kind, group and type */
    struct decimal_sum caused;  /* caused wait in ms (any is false when undecided) */
    ns_t first_start;           /* the earliest start of its members, NS_NONE when none has one */
};

struct comm_instances {
    struct comm_instance *inst; size_t n;   /* numbered by first appearance: ranks in session
                                             * order, each rank's ops in file order */
    struct comm_member *mem; size_t nmem;
    uint32_t **of;              /* of[rank][op]: its instance, COMM_NO_INSTANCE for aggregates */
    size_t nranks;
};

/* The group and the type of an op key, as pointer and length into name. */
void comm_op_group(const char *name, const char **group, size_t *len);
void comm_op_type(const char *name, const char **type, size_t *len);
/* ord[k] for every op k of c: its order among the ops of its step, kind, group and type
 * (COMM_NO_INSTANCE for aggregates). 0, or -1 when memory ran out. */
int comm_op_ordinals(const struct comm *c, uint32_t *ord);

/* Matches the ops of every rank; 0, or -1 when memory ran out (out is then empty). */
int comm_instances_build(const struct session *s, struct comm_instances *out);
void comm_instances_done(struct comm_instances *ci);

/* The report section comm_ranks: one row per op per rank (aggregates left out), in session
 * rank order and file order: name, rank, instance, start_us, wait_ms, transit_ms,
 * elapse_ms, last_arriver, caused_wait_ms. rank < 0: every rank (the matching always
 * reads every rank). Each row's link is (rank index << 32 | op index). */
struct rowset *comm_ranks_ops_rowset(const struct session *s, int rank);
/* One row per instance (the Collectives view), in instance order: name (the first rank's,
 * without its group), caused_wait_ms, last_arriver (rank number), ranks, then per rank of the
 * session with ops rN_last ("last" on the last arriver), rN_arrival_us (start minus the
 * instance's earliest start, each rank's own clock), rN_wait_ms, rN_transit_ms,
 * rN_elapse_ms, then step, kind, group and instance. Each row's link is the instance index.
 * NULL when there is no instance. */
struct rowset *comm_instances_rowset(const struct session *s, const struct comm_instances *ci);

#endif
