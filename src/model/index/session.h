/* A session: everything loaded from one capture, one rank_data per rank.
 *
 * The loader (src/io/load/loader.c) fills a rank_data privately and hands each finished part
 * (model, tables, comm, steps) to the UI thread, which installs it with a pointer store
 * between frames. An installed part never changes, but with many ranks (two passes, see
 * io/load/loader.h) a rank's timeline and the parts that came with it (its model, the tables
 * read with it, steps, flowstats, communication made from its kernels, memory) may be
 * freed again on the UI thread between frames, the pointers set back to NULL, and later
 * installed anew (at another address). So a view keeps no pointer into a rank's parts past
 * a data_changed call (view.h): every eviction is followed by one before the next frame.
 * The report runs the same loader synchronously, in one pass: nothing is freed before the
 * end. Parts are NULL until loaded, and stay NULL when their files are absent. */
#ifndef APTOP_SESSION_H
#define APTOP_SESSION_H
#include <stdbool.h>
#include <stddef.h>

#include "model/index/diag.h"
#include "model/index/model.h"

struct table;       /* model/index/table.h: a CSV or DB table with typed columns */
struct comm;        /* model/analysis/comm.h: communication.json / matrix / analysis.db figures */
struct steps;       /* model/analysis/steps.h: detected steps and phases */
struct flowstats;   /* model/analysis/flowstats.h: flow chains, launch latency, host-bound idle */
struct rank_digest; /* model/index/rank_digest.h: a rank read from a summary file, without a trace */
struct pgroups;     /* model/analysis/pgroups.h: parallel groups (tp, dp, pp, ep) */
struct memory;      /* model/analysis/memory.h: memory curves, operator allocations, static memory */

enum table_kind {
    TK_KERNELS,        /* kernel_details.csv, op_summary_*.csv, DB COMPUTE_TASK_INFO+TASK */
    TK_OP_STATISTIC,
    TK_OPERATOR_DETAILS,
    TK_API_STATISTIC,
    TK_STEP_TRACE,
    TK_TASK_TIME,
    TK_COMM_STATISTIC,
    TK_MEMORY,
    TK_OTHER,
    TK_COUNT
};

struct rank_data {
    int rank, device;
    char *label;                       /* directory name, for display */
    struct model *model;               /* the timeline (trace JSON or DB) */
    struct table *tables[TK_COUNT];    /* the main table of each kind */
    struct comm *comm;
    struct steps *steps;
    struct flowstats *flowstats;
    struct rank_digest *digest;        /* read from a summary file: no model, no tables */
    struct pgroups *groups;            /* the parallel groups it belongs to (profiler_metadata.json) */
    struct memory *memory;             /* every memory file (or DB table) of the rank */
    char status[128];                  /* "loaded", "no timeline", "trace_view.json: truncated" */
    unsigned files_read;               /* files read into this rank (parts of a table each count) */
};

/* One capture of a session opened with several (`aptop A B`, `--diff BASE NEW`): its
 * ranks are ranks[first .. first + n) of the session. */
struct session_group {
    char *root;                        /* the argument as typed, rank selector included */
    char *path;                        /* the capture's path (no selector) */
    size_t first, n;
};

struct session {
    char *root;
    struct rank_data *ranks;
    size_t nranks;
    struct diag *diag;
    double load_ms;                    /* wall time of the whole load */
    struct session_group *groups;      /* NULL for one capture; else ngroups >= 2 */
    size_t ngroups;
    struct pgroups *cluster_groups;    /* cluster_analysis_output/communication_group.json */
};

/* The capture's start, the zero of every relative time (the timeline's, `g`'s, an exported
 * window's): the earliest event of every rank with a timeline; NS_NONE when none has one. */
static inline ns_t session_origin(const struct session *s)
{
    ns_t o = NS_NONE;
    for (size_t i = 0; s && i < s->nranks; i++) {
        const struct model *m = s->ranks[i].model;
        if (m && m->finalized && m->t_min != NS_NONE && m->t_max != NS_NONE && m->t_max >= m->t_min &&
            (o == NS_NONE || m->t_min < o))
            o = m->t_min;
    }
    return o;
}

/* Nothing of s could be loaded: no rank has a timeline, a table, communication figures or a
 * summary's figures. The one test of "nothing could be loaded" (exit status 1, an MCP
 * capture refused). */
static inline bool session_nothing_loaded(const struct session *s)
{
    for (size_t i = 0; i < s->nranks; i++) {
        const struct rank_data *rd = &s->ranks[i];
        if (rd->model || rd->comm || rd->digest)
            return false;
        for (int t = 0; t < TK_COUNT; t++)
            if (rd->tables[t])
                return false;
    }
    return true;
}

/* Capture group g of s as a session of its own (sharing s's ranks and diagnostics), for
 * everything that reads "all ranks": analyses across ranks never mix two captures. */
static inline struct session session_group_view(const struct session *s, size_t g)
{
    struct session v = *s;
    if (s->groups && g < s->ngroups) {
        v.root = s->groups[g].path ? s->groups[g].path : s->groups[g].root;
        v.ranks = s->ranks + s->groups[g].first;
        v.nranks = s->groups[g].n;
    }
    v.groups = NULL;
    v.ngroups = 0;
    return v;
}

#endif
