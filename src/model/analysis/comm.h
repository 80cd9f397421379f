/* Communication figures of one rank, and the analyses across ranks.
 *
 * Data flow: src/io/tables/comm_json.c reads communication.json (per step, per collective/p2p op:
 * time info and bandwidth per transport) and communication_matrix.json (per step, per group,
 * per "src-dst" link) into a struct comm with comm_add_op / comm_add_link; an analysis.db
 * reader may add the same figures through the same calls. Values are kept exactly as the
 * files write them (ms, MB, GB/s; the decimal text too); absent fields are marked absent,
 * not zero.
 * Once handed to the session (rank_data.comm) a comm never changes.
 *
 * The rank analysis reads every rank of a session: step times (step_trace_time.csv rows, else
 * the detected steps of the rank's timeline split by its Overlap Analysis lanes, else those
 * lanes over the whole timeline as one step), communication wait versus transit, the
 * rank the others wait for, and per-rank clock offsets that line up the
 * end of the same collective on every rank. Everything here is free of files and curses.
 *
 * Where it lives: comm.c the store of ops and links; rank_analysis.c the rank analysis;
 * comm_align.c the clock offsets and the collective ends they come from; comm_match.c the
 * same op across ranks (comm_match.h); comm_kernels.c and comm_hccl.c ops from a timeline's
 * kernels or an msprof tree; comm_links.c the link matrix; comm_wait.c wall-clock waits. */
#ifndef APTOP_COMM_H
#define APTOP_COMM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/index/decimal_sum.h"
#include "model/index/model.h"
#include "model/rowsets/rowset.h"
#include "model/index/session.h"
#include "model/index/strtab.h"

enum comm_kind { COMM_COLLECTIVE, COMM_P2P };
const char *comm_kind_name(enum comm_kind k);

/* The transports of "Communication Bandwidth Info", in report column order. */
enum comm_transport { CT_HCCS, CT_RDMA, CT_SDMA, CT_PCIE, CT_SIO, CT_COUNT };
const char *comm_transport_name(enum comm_transport t);   /* "HCCS", ... */
/* By name as written in the file; CT_COUNT when not one of the five. */
enum comm_transport comm_transport_from_name(const char *name);

/* Presence bits of struct comm_op fields. */
enum comm_op_field {
    CF_START = 1 << 0, CF_ELAPSE = 1 << 1, CF_TRANSIT = 1 << 2, CF_WAIT = 1 << 3,
    CF_SYNC = 1 << 4, CF_IDLE = 1 << 5, CF_WAIT_RATIO = 1 << 6, CF_SYNC_RATIO = 1 << 7,
};
/* Presence bits of struct comm_bw fields. */
enum comm_bw_field {
    CB_PRESENT = 1 << 0,      /* the transport's object was there */
    CB_SIZE = 1 << 1, CB_TIME = 1 << 2, CB_GBPS = 1 << 3, CB_LARGE = 1 << 4, CB_DIST = 1 << 5,
};

/* Every number read from a file is kept twice: as a double (for comparisons) and as the
 * decimal text the file wrote (interned in the comm's str, 0 when absent), which is what
 * the report and the views show and what exact figures (ns times, sums) are computed from.
 * The text of the field with presence bit B is text[comm_bit_index(B)]. */
static inline int comm_bit_index(unsigned bit) { return __builtin_ctz(bit); }

struct comm_bw {
    uint8_t has;              /* enum comm_bw_field */
    double size_mb, time_ms, gbps, large_ratio;
    uint32_t text[5];         /* by CB_* bit index */
    uint64_t packets;         /* sum of the counts in "Size Distribution" */
    uint32_t dist;            /* interned "Size Distribution" as compact JSON, 0 when empty */
};

/* One entry of communication.json: step -> collective/p2p -> op key. */
struct comm_op {
    uint32_t step;            /* interned step key as written ("step50") */
    int64_t step_no;          /* the number in it, -1 when none */
    enum comm_kind kind;
    uint32_t name;            /* interned op key as written ("hcom_allReduce__586_0_1@1752...") */
    bool total;               /* the "Total Op Info" aggregate of its step and kind */
    uint16_t has;             /* enum comm_op_field */
    double start_us;          /* Start Timestamp(us), the capture's local µs */
    double elapse_ms, transit_ms, wait_ms, sync_ms, idle_ms, wait_ratio, sync_ratio;
    uint32_t text[8];         /* by CF_* bit index */
    ns_t start_ns, elapse_ns; /* exact from the text, NS_NONE when absent */
    struct comm_bw bw[CT_COUNT];
    /* an NCCL / RCCL kernel's op (comm_from_kernels); 0 / -1 for the others */
    uint32_t communicator;    /* interned "Process Group Name", else "stream #k" (see there) */
    uint32_t coll;            /* interned "Collective name", else the kernel's ("AllReduce") */
    int64_t nelems;           /* "In msg nelems", -1 when not recorded */
    uint32_t slice;           /* the kernel's slice in its rank's model (final index) */
};

/* Presence bits of struct comm_link fields. */
enum comm_link_field {
    CL_SIZE = 1 << 0, CL_TIME = 1 << 1, CL_GBPS = 1 << 2, CL_LARGE = 1 << 3, CL_RANKS = 1 << 4,
};

/* One entry of communication_matrix.json: step -> collective/p2p -> group -> "src-dst". */
struct comm_link {
    uint32_t step;            /* interned step key, 0 when the file has no steps */
    int64_t step_no;
    enum comm_kind kind;
    uint32_t group;           /* interned group/op key ("allreduce-top1@...", "hcom_send__822_0@...") */
    uint32_t link;            /* interned link key as written ("0-1") */
    int64_t src, dst;         /* ranks parsed from the link key (CL_RANKS) */
    uint32_t transport;       /* interned Transport Type ("HCCS", "LOCAL", ...), 0 when absent */
    uint32_t op_name;         /* interned "Op Name", 0 when absent */
    uint8_t has;              /* enum comm_link_field */
    double size_mb, time_ms, gbps, large_ratio;
    uint32_t text[4];         /* by CL_* bit index */
};

struct comm {
    struct strtab *str;
    struct comm_op *ops;     size_t nops, ops_cap;
    struct comm_link *links; size_t nlinks, links_cap;
    size_t unknown_keys;      /* keys the readers did not know and ignored */
    size_t bad_values;        /* values of the wrong type (diagnosed, left absent) */
    unsigned sources;         /* enum comm_source bits: where the figures came from */
    bool oom;                 /* memory ran out: some entries are missing */
};

enum comm_source { CS_JSON = 1 << 0, CS_MATRIX = 1 << 1, CS_DB = 1 << 2,
                   CS_KERNELS = 1 << 3 /* NCCL / RCCL kernels of a GPU trace */,
                   CS_HCCL = 1 << 4    /* the HCCL process of an Ascend trace */ };

struct comm *comm_new(void);
void comm_free(struct comm *c);
/* Appends a copy of op (its string ids must belong to c->str), with start_ns / elapse_ns
 * computed exactly from the texts of CF_START / CF_ELAPSE (from the doubles when a caller
 * gave no text). Returns its index or SIZE_MAX when memory ran out (c->oom is then set). */
size_t comm_add_op(struct comm *c, const struct comm_op *op);
size_t comm_add_link(struct comm *c, const struct comm_link *l);
/* An NCCL / RCCL kernel's name: nccl* / rccl*, or holding ncclKernel / ncclDevKernel. */
bool comm_kernel_name(const char *name);
struct steps;
/* What a Kineto trace records on an NCCL / RCCL kernel beyond its times (its args, copied
 * there from the record_param_comms op that issued it), read by the loader. Empty strings
 * and -1 where the kernel has none; texts longer than the room are cut. */
struct comm_kernel_args {
    uint32_t slice;                     /* final slice index */
    char coll[48];                      /* "Collective name" ("allreduce") */
    char group[96];                     /* "Process Group Name" ("0", "c180...e_0") */
    int64_t nelems;                     /* "In msg nelems" */
};
/* A GPU trace's communication ops (model/analysis/comm_kernels.c): one collective (or, for send /
 * receive kernels, point-to-point) op per NCCL / RCCL kernel of the device lanes, keyed by
 * the kernel's name without its arguments, with its start and elapse time and the step
 * (steps may be NULL) holding its start. Each op's communicator is the kernel's "Process
 * Group Name", else its stream, named "stream #k" with k its place (from 1) among the
 * trace's streams holding such kernels by their first one, so that the ranks' streams pair
 * up; its collective is "Collective name", else the kernel name's part after its
 * ncclKernel_ / ncclDevKernel_ prefix up to the next '_' ("AllReduce"). args (nargs, sorted
 * by slice; may be NULL) are those of the kernels that have some. Transit, wait and
 * bandwidth are not in such traces: waits come from the matching across ranks
 * (comm_match.h). NULL when there are no such kernels (or memory ran out). */
struct comm *comm_from_kernels(const struct model *m, const struct steps *st, const struct comm_kernel_args *args,
                               size_t nargs);
/* The NCCL / RCCL kernels of m's device lanes (final slice indices, in lane order), for the
 * loader to read their args: malloc'd, *n set; NULL when none or out of memory. */
uint32_t *comm_kernel_slices(const struct model *m, size_t *n);
/* An Ascend trace's communication ops when no communication.json came with it (msprof's
 * per-device timelines, model/analysis/comm_hccl.c): one op per depth-0 slice of the HCCL process's
 * op lanes (every lane but its "Plane N" task lanes), collective or, for send / receive
 * names, point-to-point, with its start, elapse and step as comm_from_kernels gives them.
 * When the process has a "Plane 0" lane, the op's tasks there (those inside the op) give
 * wait = the sum of its Notify_Wait tasks, transit = the sum of its other tasks but
 * Notify_Record, idle = elapse - wait - transit (when not negative), all exact. NULL when
 * there is no such op (or memory ran out). */
struct comm *comm_from_hccl(const struct model *m, const struct steps *st);
/* "step50" -> 50, "12" -> 12, else -1. */
int64_t comm_step_number(const char *key);
/* The decimal text of a field (NULL when absent): comm_op_text(c, op, CF_WAIT). */
const char *comm_op_text(const struct comm *c, const struct comm_op *op, unsigned bit);
const char *comm_bw_text(const struct comm *c, const struct comm_bw *bw, unsigned bit);
const char *comm_link_text(const struct comm *c, const struct comm_link *l, unsigned bit);
/* µs as a double (as the files write them) to ns, exact for every double below 9e15 µs;
 * NS_NONE when not finite or out of range. */
ns_t comm_us_to_ns(double us);
/* True for the per-step aggregate keys ("Total Op Info"). */
bool comm_is_total_key(const char *key);

/* --- rank analysis (any number of ranks; reads the session, changes nothing) --- */

/* Where a rank's steps came from: the detected steps of its timeline (named by their own
 * source: markers, host, period), step_trace_time rows, or the overlap lanes of the whole
 * timeline as one step. */
enum rank_src { RSRC_NONE, RSRC_STEP_TRACE, RSRC_OVERLAP, RSRC_STEPS };
const char *rank_src_name(enum rank_src s);   /* "step_trace_time", "overlap lanes", ... */

/* A rank's step: its duration is the one the steps section shows (see steps.h: first device
 * kernel start to last device kernel end of the step) when the timeline gave steps; without
 * a timeline it is computing + communication not overlapped + free of its step_trace_time
 * row. stage is that file's own "Stage" figure for the same step, kept apart. */
struct rank_step {
    int64_t step_no;                    /* -1 when unknown */
    ns_t step, computing, comm_not_overlapped, free;   /* NS_NONE when unknown */
    ns_t stage;                         /* step_trace_time "Stage", NS_NONE when none */
};

struct rank_summary {
    int rank, device;
    enum rank_src src;
    const char *src_detail;             /* RSRC_STEPS: the step source ("markers", ...) */
    struct rank_step *steps; size_t nsteps;
    ns_t step_mean, step_max;           /* NS_NONE without steps */
    ns_t computing, comm_not_overlapped, free;   /* means per step, NS_NONE when unknown */
    ns_t stage_mean;                    /* mean of the file's Stage figures, NS_NONE when none */
    bool has_comm;
    double wait_ms, transit_ms;         /* sums over the rank's ops (aggregates excluded) */
    struct decimal_sum wait_sum, transit_sum;   /* the same sums, exact from the texts */
    size_t nops;
    size_t waited_on;                   /* collectives in which this rank waited least */
    bool longest_step, shortest_step;   /* longest / shortest mean step of the ranks */
    bool waited_for, waits_most;        /* the rank the others wait for / that waits most */
    ns_t offset;                        /* add to this rank's times to align with the reference */
    size_t align_matches;               /* ops that gave the offset, 0: offset unknown (0) */
};

/* Two verdicts, each saying what it measures. By step time: the longest and the shortest
 * mean step (the figures shown beside them). By waiting: in each collective instance shared by
 * several ranks (model/analysis/comm_match.h) its last arriver, the rank that waited least, is the
 * one the others waited for and gets a vote; most
 * votes (then least total wait) is waited_for, fewest votes (then most wait) waits_most. In a
 * synchronised job step times are nearly equal and the wait tells which rank holds the
 * others back, so the two verdicts may name different ranks. */
struct rank_analysis {
    struct rank_summary *r; size_t n;   /* in session order */
    int longest, shortest;              /* by mean step: indices into r, -1 when undecided */
    int waited_for, waits_most;         /* by wait: indices into r, -1 when undecided */
    ns_t spread;                        /* max - min mean step time, NS_NONE when < 2 ranks */
    enum { ALIGN_NONE, ALIGN_TIMELINE, ALIGN_COMM_JSON } align;
    int align_ref;                      /* index of the reference rank, -1 when none */
};

/* The "Stage" figure of step step_no in the rank's step_trace_time table (the file's own
 * step time, shown apart from the step duration), NS_NONE when there is none. */
ns_t rank_file_stage(const struct rank_data *rd, int64_t step_no);

/* Computes the analysis; 0, or -1 when memory ran out. Free with rank_analysis_done. */
int rank_analysis_run(const struct session *s, struct rank_analysis *out);
void rank_analysis_done(struct rank_analysis *a);

/* Per-rank ns offsets aligning the end of the same collective across ranks: the median, over
 * the collectives seen on both the rank and the reference (the first rank with any), of
 * reference end - rank end; add offsets[i] to the times of s->ranks[i]. Uses the
 * communication lanes of the timelines when they match across ranks (same op name, same
 * ordinal; "Plane" lanes of small tasks left out), else the communication.json ops of one
 * instance across ranks (start + elapse; model/analysis/comm_match.h). Ranks without a match get 0. matches (may be
 * NULL) gets the number of collectives used per rank; *ref (may be NULL) the reference
 * index or -1. Returns ALIGN_NONE, ALIGN_TIMELINE or ALIGN_COMM_JSON. */
int comm_align_offsets(const struct session *s, ns_t *offsets, size_t *matches, int *ref);

/* --- rowsets for the report and the UI (NULL when there is nothing to show). rank < 0: all
 * ranks. Each row's link is (rank index << 32 | entry index). --- */
struct rowset *comm_ops_rowset(const struct session *s, int rank);
struct rowset *comm_matrix_rowset(const struct session *s, int rank);
struct rowset *comm_ranks_rowset(const struct session *s, int rank);
struct rowset *comm_rank_steps_rowset(const struct session *s, int rank);
/* The keys comm_align_offsets lines the timelines up by: per rank, each large communication
 * slice (name, ordinal among its name, end). A summary file carries them (model/index/rank_digest.h)
 * so that ranks read from summaries align exactly as loaded ones. */
struct rowset *comm_ends_rowset(const struct session *s, int rank);

#endif
