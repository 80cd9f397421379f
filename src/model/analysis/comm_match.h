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
 * A GPU trace's ops (its NCCL / RCCL kernels, comm_from_kernels) are matched per
 * communicator instead: the k-th op of a communicator ("Process Group Name", else its
 * stream, comm.h) on one rank is the k-th on every other, whatever its step or type, as
 * NCCL runs them. Where a rank's k-th call is not the one most ranks make there (another
 * collective, or another "In msg nelems" when both record one), its sequence has left the
 * others': its ops on that communicator from there on belong to no instance, and the
 * divergence is kept (comm_op_divergence) to be said, never matched wrongly. Such traces
 * record no wait: in an instance of kernel ops on two ranks or more each member's
 *   arrival       its start plus its rank's clock offset (comm_align_offsets: the ends of
 *                 the same collectives lined up);
 *   wait          the last arrival minus its own, at most its elapse time: the time its
 *                 kernel spun before the last rank came;
 *   transit       its elapse minus its wait;
 * and the last arriver and the caused wait follow from these waits as above.
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

/* Where rank `rank`'s sequence on a communicator leaves the others' (see above). */
struct comm_divergence {
    uint32_t rank, op, ord;     /* rank index, its first op not lined up, that op's place */
    uint32_t like_rank, like_op;/* an op most ranks make at that place */
    const char *group; size_t glen;   /* the communicator (borrowed from the rank's comm) */
    ns_t from;                  /* that op's start: the rank's ops from there on are left out */
};

struct comm_instances {
    struct comm_instance *inst; size_t n;   /* numbered by first appearance: ranks in session
                                             * order, each rank's ops in file order */
    struct comm_member *mem; size_t nmem;
    uint32_t **of;              /* of[rank][op]: its instance, COMM_NO_INSTANCE for aggregates */
    size_t nranks;
    ns_t *wait, *transit;       /* per member: derived from the arrivals (kernel ops), else NS_NONE;
                                 * NULL when no instance has them */
    int align;                  /* how the offsets of the derived waits were found (comm.h ALIGN_*) */
    struct comm_divergence *div; size_t ndiv, div_cap;
};

/* The group and the type of an op key, as pointer and length into name. */
void comm_op_group(const char *name, const char **group, size_t *len);
void comm_op_type(const char *name, const char **type, size_t *len);
/* ord[k] for every op k of c: its order among the ops of its step, kind, group and type
 * (COMM_NO_INSTANCE for aggregates). 0, or -1 when memory ran out. */
int comm_op_ordinals(const struct comm *c, uint32_t *ord);

/* Matches the ops of every rank and derives the kernel ops' waits; 0, or -1 when memory ran
 * out (out is then empty). comm_instances_match matches only (the waits are the files'):
 * what the clock alignment itself needs. */
int comm_instances_build(const struct session *s, struct comm_instances *out);
int comm_instances_match(const struct session *s, struct comm_instances *out);
/* Member m's wait / transit in ms as exact decimal text: the file's figure, else the derived
 * one (written into buf); NULL when neither. */
const char *comm_member_wait(const struct session *s, const struct comm_instances *ci, uint32_t m, char *buf,
                             size_t n);
const char *comm_member_transit(const struct session *s, const struct comm_instances *ci, uint32_t m, char *buf,
                                size_t n);
/* Per op of rank index `rank`'s comm: its derived wait, NS_NONE where it has none (malloc'd;
 * NULL when no wait was derived or memory ran out). */
ns_t *comm_instances_rank_waits(const struct comm_instances *ci, const struct session *s, size_t rank);
/* The divergence op `op` of rank index `rank` lies beyond (its rank left the sequence of its
 * communicator at or before it), NULL when none. */
const struct comm_divergence *comm_op_divergence(const struct comm_instances *ci, const struct session *s,
                                                 uint32_t rank, uint32_t op);
void comm_instances_done(struct comm_instances *ci);

/* "rank 2 leaves the sequence of communicator 0 at its call 7: allgather of 4096 where rank 0
 * calls allreduce of 4096" */
void comm_divergence_text(const struct session *s, const struct comm_divergence *v, char *buf, size_t n);

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
