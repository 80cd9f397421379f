/* The report's communication sections: "ranks", "comm", "rank_steps" and "comm_ends"
 * (model/comm.h), "comm_ranks" (model/comm_match.h) and "comm_matrix" (model/comm_links.h). */
#include "report/report.h"

#include "model/comm.h"
#include "model/comm_links.h"
#include "model/comm_match.h"

struct rowset *report_ranks(const struct session *s, const struct report_opts *o)
{
    return comm_ranks_rowset(s, o->rank);
}

struct rowset *report_comm(const struct session *s, const struct report_opts *o)
{
    return comm_ops_rowset(s, o->rank);
}

struct rowset *report_comm_ranks(const struct session *s, const struct report_opts *o)
{
    return comm_ranks_ops_rowset(s, o->rank);
}

struct rowset *report_comm_matrix(const struct session *s, const struct report_opts *o)
{
    return comm_links_rowset(s, o->rank);
}

struct rowset *report_rank_steps(const struct session *s, const struct report_opts *o)
{
    return comm_rank_steps_rowset(s, o->rank);
}

struct rowset *report_comm_ends(const struct session *s, const struct report_opts *o)
{
    return comm_ends_rowset(s, o->rank);
}
