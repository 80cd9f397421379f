/* The report's "kernels", "ops", "apis" and "step_trace" sections: the session-wide rowsets
 * of model/kernels.h, for the ranks the options ask for. */
#include "report/report.h"

#include "model/kernels.h"

struct rowset *report_kernels(const struct session *s, const struct report_opts *o)
{
    return kernels_session_rowset(s, o->rank);
}

struct rowset *report_ops(const struct session *s, const struct report_opts *o)
{
    return kernels_ops_session_rowset(s, o->rank);
}

struct rowset *report_apis(const struct session *s, const struct report_opts *o)
{
    return kernels_apis_session_rowset(s, o->rank);
}

struct rowset *report_step_trace(const struct session *s, const struct report_opts *o)
{
    return kernels_step_trace_session_rowset(s, o->rank);
}
