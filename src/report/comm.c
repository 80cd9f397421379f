/* The report's communication sections: "ranks", "comm", "rank_steps" and "comm_ends"
 * (model/analysis/comm.h), "comm_ranks" (model/analysis/comm_match.h) and "comm_matrix" (model/analysis/comm_links.h). */
#include "report/report.h"

#include "model/analysis/comm.h"
#include "model/analysis/comm_links.h"
#include "model/analysis/comm_match.h"

REPORT_RANK_SECTION(report_ranks, comm_ranks_rowset)
REPORT_RANK_SECTION(report_comm, comm_ops_rowset)
REPORT_RANK_SECTION(report_comm_ranks, comm_ranks_ops_rowset)
REPORT_RANK_SECTION(report_comm_matrix, comm_links_rowset)
REPORT_RANK_SECTION(report_rank_steps, comm_rank_steps_rowset)
REPORT_RANK_SECTION(report_comm_ends, comm_ends_rowset)
