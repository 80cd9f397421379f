/* The report's "kernels", "ops", "apis" and "step_trace" sections: the session-wide rowsets
 * of model/analysis/kernels.h, for the ranks the options ask for. */
#include "report/report.h"

#include "model/analysis/kernels.h"

REPORT_RANK_SECTION(report_kernels, kernels_session_rowset)
REPORT_RANK_SECTION(report_ops, kernels_ops_session_rowset)
REPORT_RANK_SECTION(report_apis, kernels_apis_session_rowset)
REPORT_RANK_SECTION(report_step_trace, kernels_step_trace_session_rowset)
