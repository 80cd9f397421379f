/* `report --section diagnostics`: every problem found while discovering and loading, whole,
 * one row each, grouped by file in path order and in the order found within a file. Ranks
 * load on two workers, so the order found across files differs from run to run; a report
 * does not (the UI's `!` pane shows the same messages as they come). */
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

#include "util/free_all.h"

struct found { struct diag_msg m; size_t seq; };

static int cmp_found(const void *x, const void *y)
{
    const struct found *a = x, *b = y;
    int c = strcmp(a->m.path, b->m.path);
    return c ? c : (a->seq > b->seq) - (a->seq < b->seq);
}

struct rowset *report_diagnostics(const struct session *s, const struct report_opts *o)
{
    (void)o;   /* messages name their file; they are not per rank */
    struct rowset *rs = rowset_new("diagnostics");
    if (!rs || !s->diag)
        return rs;
    size_t n = diag_count(s->diag), dropped = diag_dropped(s->diag), got = 0;
    struct found *f = malloc((n ? n : 1) * sizeof *f);
    if (!f) {
        rowset_free(rs);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (diag_get(s->diag, i, &f[got].m) == 0) {
            f[got].seq = i;
            got++;
        }
    qsort(f, got, sizeof *f, cmp_found);
    size_t c_lv = rowset_col(rs, "level", "Level", RS_STR, 0);
    size_t c_path = rowset_col(rs, "path", "Path", RS_STR, 0);
    size_t c_text = rowset_col(rs, "message", "Message", RS_STR, 0);
    for (size_t i = 0; i < got; i++) {
        size_t r = rowset_row(rs);
        if (r != SIZE_MAX) {
            rowset_str(rs, r, c_lv, diag_level_name(f[i].m.level));
            rowset_str(rs, r, c_path, f[i].m.path);
            rowset_str(rs, r, c_text, f[i].m.text);
        }
        FREE_ALL(f[i].m.path, f[i].m.text);
    }
    free(f);
    if (dropped)
        rowset_caption(rs, "%zu diagnostics; %zu more were counted but not kept", n, dropped);
    else
        rowset_caption(rs, "%zu diagnostic%s", n, n == 1 ? "" : "s");
    return rs;
}
