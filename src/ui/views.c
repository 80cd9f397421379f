/* The view registry. A view file defines `const struct view_ops view_<name>` (strong); until
 * it exists the weak default below links instead and draws "not available yet". */
#include "ui/view.h"

#include "ui/draw.h"

static void unavailable_draw(struct view *v, WINDOW *body)
{
    werase(body);
    draw_printf(body, 1, 2, getmaxx(body) - 4, draw_attr(CP_DIM), "%s: not available yet", v->ops->name);
}

static enum request unavailable_request(struct view *v, enum request req, int key)
{
    (void)v; (void)key;
    return req;
}

#define WEAK_VIEW(var, title, tabno, sc) \
    __attribute__((weak)) const struct view_ops var = { \
        .name = title, .tab = tabno, .scopes = sc, \
        .draw = unavailable_draw, .request = unavailable_request, \
    }

WEAK_VIEW(view_timeline, "Timeline", 1, SCOPE_TIMELINE);
WEAK_VIEW(view_kernels, "Kernels", 2, SCOPE_TABLE);
WEAK_VIEW(view_operators, "Ops", 3, SCOPE_TABLE);
WEAK_VIEW(view_phases, "Phases", 4, SCOPE_TABLE | SCOPE_PHASES);
WEAK_VIEW(view_ranks, "Ranks", 5, SCOPE_TABLE);
WEAK_VIEW(view_comm, "Comm", 6, SCOPE_TABLE);
WEAK_VIEW(view_xrank, "X-Rank", 7, SCOPE_TIMELINE | SCOPE_XRANK);

const struct view_ops *const ui_views[] = {
    &view_timeline, &view_kernels, &view_operators, &view_phases, &view_ranks, &view_comm,
    &view_xrank,
};
const size_t ui_nviews = sizeof ui_views / sizeof ui_views[0];
