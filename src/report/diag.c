/* `report --section diagnostics`: every problem found while discovering and loading, whole,
 * one row each, in the order found (the UI's `!` pane shows the same list). */
#include "report/report.h"

#include <stdlib.h>

struct rowset *report_diagnostics(const struct session *s, const struct report_opts *o)
{
    (void)o;   /* messages name their file; they are not per rank */
    struct rowset *rs = rowset_new("diagnostics");
    if (!rs || !s->diag)
        return rs;
    size_t n = diag_count(s->diag), dropped = diag_dropped(s->diag);
    size_t c_lv = rowset_col(rs, "level", "Level", RS_STR, 0);
    size_t c_path = rowset_col(rs, "path", "Path", RS_STR, 0);
    size_t c_text = rowset_col(rs, "message", "Message", RS_STR, 0);
    for (size_t i = 0; i < n; i++) {
        struct diag_msg m;
        if (diag_get(s->diag, i, &m) != 0)
            continue;
        size_t r = rowset_row(rs);
        if (r != SIZE_MAX) {
            rowset_str(rs, r, c_lv, diag_level_name(m.level));
            rowset_str(rs, r, c_path, m.path);
            rowset_str(rs, r, c_text, m.text);
        }
        free(m.path);
        free(m.text);
    }
    if (dropped)
        rowset_caption(rs, "%zu diagnostics; %zu more were counted but not kept", n, dropped);
    else
        rowset_caption(rs, "%zu diagnostic%s", n, n == 1 ? "" : "s");
    return rs;
}
