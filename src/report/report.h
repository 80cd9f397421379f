/* `aptop report`: the scriptable face of the model. Each section is a function that turns a
 * loaded session into a rowset; report_print emits the chosen sections as text, CSV or JSON.
 * JSON is one object keyed by section name; rows are objects with snake_case keys; times are
 * µs with 3 decimals from exact ns; timestamps (start_us, ...) are absolute in the file's own
 * time base. Rows carry a "rank" column when the capture has several ranks. A JSON report with the
 * sections capture, summary, steps, ranks, comm, rank_steps and comm_ends can be read back as
 * a summary of its ranks (io/tables/summary_json.h). */
#ifndef APTOP_REPORT_REPORT_H
#define APTOP_REPORT_REPORT_H
#include <stdbool.h>
#include <stdio.h>

#include "model/rowsets/escape.h"
#include "model/rowsets/rowset.h"
#include "model/rowsets/rowset_write.h"
#include "model/index/session.h"

struct report_opts {
    const char *sections;      /* comma list, NULL: the default set */
    enum rowset_format format;
    long top;                  /* row limit per section, 0: all */
    int rank;                  /* -1: every rank */
};

/* A section builder: NULL when the section has nothing to say for this session (the text
 * form then prints a line saying so). Ranks other than o->rank (when >= 0) are left out
 * (model/index/rank_filter.h); o is never NULL. A section is a thin call of a model rowset builder,
 * or composes several. */
typedef struct rowset *(*report_section_fn)(const struct session *s, const struct report_opts *o);

/* Defines the section fn as the model builder `rowset_of_rank(s, rank)` for o->rank: the
 * sections that are one such call. */
#define REPORT_RANK_SECTION(fn, rowset_of_rank) \
    struct rowset *fn(const struct session *s, const struct report_opts *o) \
    { \
        return rowset_of_rank(s, o->rank); \
    }

/* The sections, one file per topic in src/report/. */
struct rowset *report_summary(const struct session *s, const struct report_opts *o);     /* summary.c */
struct rowset *report_kernels(const struct session *s, const struct report_opts *o);     /* kernels.c */
struct rowset *report_ops(const struct session *s, const struct report_opts *o);         /* kernels.c */
struct rowset *report_apis(const struct session *s, const struct report_opts *o);        /* kernels.c */
struct rowset *report_step_trace(const struct session *s, const struct report_opts *o);  /* kernels.c */
struct rowset *report_flows(const struct session *s, const struct report_opts *o);       /* flows.c */
struct rowset *report_steps(const struct session *s, const struct report_opts *o);       /* steps.c */
struct rowset *report_phases(const struct session *s, const struct report_opts *o);      /* steps.c */
struct rowset *report_ranks(const struct session *s, const struct report_opts *o);       /* comm.c */
struct rowset *report_comm(const struct session *s, const struct report_opts *o);        /* comm.c */
struct rowset *report_comm_ranks(const struct session *s, const struct report_opts *o);  /* comm.c */
struct rowset *report_comm_matrix(const struct session *s, const struct report_opts *o); /* comm.c */
struct rowset *report_diagnostics(const struct session *s, const struct report_opts *o); /* diag.c */
struct rowset *report_overview(const struct session *s, const struct report_opts *o);    /* overview.c */
struct rowset *report_advice(const struct session *s, const struct report_opts *o);      /* overview.c */
struct rowset *report_capture(const struct session *s, const struct report_opts *o);     /* summary.c */
struct rowset *report_rank_steps(const struct session *s, const struct report_opts *o);  /* comm.c */
struct rowset *report_comm_ends(const struct session *s, const struct report_opts *o);   /* comm.c */
struct rowset *report_memory(const struct session *s, const struct report_opts *o);      /* memory.c */
struct rowset *report_memory_ops(const struct session *s, const struct report_opts *o);  /* memory.c */
struct rowset *report_memory_static(const struct session *s, const struct report_opts *o); /* memory.c */
struct rowset *report_memory_ranks(const struct session *s, const struct report_opts *o);  /* memory.c */

/* Prints the sections (registry.c); returns 0, 2 when a section name is unknown, or
 * OOM_EXIT_STATUS when a section lost rows for lack of memory (said on stderr). */
int report_print(const struct session *s, const struct report_opts *o, FILE *out);
/* Lists the section names with a line of help each (for --help). */
void report_list_sections(FILE *out);

#endif
