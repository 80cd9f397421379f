/* The report's host sections: what the host was doing (model/host/). */
#include "report/report.h"

#include "model/host/call_tree.h"
#include "model/host/host_gaps.h"
#include "model/host/host_ops.h"
#include "model/host/launch_steps.h"

REPORT_RANK_SECTION(report_host_ops, host_ops_session_rowset)
REPORT_RANK_SECTION(report_gaps, host_gaps_session_rowset)
REPORT_RANK_SECTION(report_call_tree, call_tree_session_rowset)
REPORT_RANK_SECTION(report_launch_steps, launch_steps_session_rowset)
