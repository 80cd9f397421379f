/* The report's "steps" and "phases" sections: every selected rank's steps (model/steps.h). */
#include "report/report.h"

#include "model/steps.h"

struct rowset *report_steps(const struct session *s, const struct report_opts *o)
{
    return steps_session_rowset(s, o->rank);
}

struct rowset *report_phases(const struct session *s, const struct report_opts *o)
{
    return steps_phases_session_rowset(s, o->rank);
}
