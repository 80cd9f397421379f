/* The report's host sections: what the host was doing (model/host/). */
#include "report/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/trace/trace_shapes.h"
#include "model/host/call_tree.h"
#include "model/host/host_gaps.h"
#include "model/host/host_ops.h"
#include "model/host/launch_steps.h"
#include "model/index/rank_filter.h"

/* Host operators per name and input shapes: the shapes of every selected rank are read from
 * its trace first (one pass over its host operator events). */
struct rowset *report_host_ops(const struct session *s, const struct report_opts *o)
{
    struct host_shapes **shapes = calloc(s->nranks ? s->nranks : 1, sizeof *shapes);
    char first_err[512] = "";
    for (size_t i = 0; shapes && i < s->nranks; i++) {
        const struct rank_data *rd = &s->ranks[i];
        if (!rd->model || !rank_selected(rd->rank, o->rank))
            continue;
        char err[400];
        shapes[i] = trace_shapes_read(rd->model, NULL, err, sizeof err);
        if (err[0] && !first_err[0])
            snprintf(first_err, sizeof first_err, "rank %d: %s", rd->rank, err);
    }
    struct rowset *rs = host_ops_session_rowset(s, o->rank, shapes);
    if (rs && first_err[0] && rs->caption) {
        /* the rows stand; the caption says which calls lack their shapes and why */
        char *was = strdup(rs->caption);
        if (was)
            rowset_caption(rs, "%s; input shapes not read: %s", was, first_err);
        free(was);
    }
    for (size_t i = 0; shapes && i < s->nranks; i++)
        host_shapes_free(shapes[i]);
    free(shapes);
    return rs;
}

REPORT_RANK_SECTION(report_gaps, host_gaps_session_rowset)
REPORT_RANK_SECTION(report_call_tree, call_tree_session_rowset)
REPORT_RANK_SECTION(report_launch_steps, launch_steps_session_rowset)
