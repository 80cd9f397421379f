/* The view registry: every view, in tab order. Each view file defines its
 * `const struct view_ops view_<name>` (title, opening request, help, scopes). */
#include "ui/shell/view.h"

const struct view_ops *const ui_views[] = {
    &view_overview,
    &view_timeline, &view_kernels, &view_operators, &view_phases, &view_ranks, &view_comm,
    &view_xrank,
    &view_memory,
    &view_collectives,
    &view_compare,
    &view_query,
    &view_calltree,
    &view_gaps,
};
const size_t ui_nviews = sizeof ui_views / sizeof ui_views[0];

const struct view_ops *view_opened_by(enum request r)
{
    for (size_t i = 0; r != REQ_NONE && i < ui_nviews; i++)
        if (ui_views[i]->open == r)
            return ui_views[i];
    return NULL;
}
