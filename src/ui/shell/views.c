/* The view registry: every view, in tab order. Each view file defines its
 * `const struct view_ops view_<name>`. */
#include "ui/shell/view.h"

const struct view_ops *const ui_views[] = {
    &view_overview,
    &view_timeline, &view_kernels, &view_operators, &view_phases, &view_ranks, &view_comm,
    &view_xrank,
    &view_memory,
    &view_collectives,
    &view_compare,
};
const size_t ui_nviews = sizeof ui_views / sizeof ui_views[0];
