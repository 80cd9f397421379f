/* The report's "steps" and "phases" sections: every selected rank's steps (model/analysis/steps.h). */
#include "report/report.h"

#include "model/analysis/steps.h"

REPORT_RANK_SECTION(report_steps, steps_session_rowset)
REPORT_RANK_SECTION(report_phases, steps_phases_session_rowset)
