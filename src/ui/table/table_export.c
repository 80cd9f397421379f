/* `e` in a table: export what is visible as CSV, to a file asked for as every export is
 * (ui/shell/export_prompt.h). */
#include "ui/table/table_export.h"

#include <limits.h>
#include <stdio.h>

#include "model/rowsets/rowset_write.h"
#include "ui/shell/export_prompt.h"

static void write_csv(struct ui *ui, struct view *v, const char *path, FILE *f, void *ctx)
{
    struct vtable *t = ctx;
    (void)v;
    struct rowset *vis = vt_visible_copy(t);
    if (vis)
        rowset_write(vis, FMT_CSV, f);
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0 || !vis)
        bad = true;
    if (bad)
        ui_error(ui, "export failed while writing %s", path);
    else
        ui_message(ui, "exported %zu rows to %s", vis->nrows, path);
    rowset_free(vis);
}

void vt_export_start(struct ui *ui, struct view *v, struct vtable *t)
{
    if (!t->rs) {
        ui_error(ui, "nothing to export");
        return;
    }
    char dir[PATH_MAX];
    ui_export_folder(ui, dir, sizeof dir);
    struct rank_data *rd = ui_rank(ui);
    char name[PATH_MAX + 128];
    snprintf(name, sizeof name, "%s/aptop-%s-rank%d.csv", dir, t->rs->name ? t->rs->name : "table", rd ? rd->rank : 0);
    /* the table lives in its view's state, so the pointer holds until the view is gone */
    ui_export_prompt(ui, v, "export CSV to: ", name, write_csv, t);
}
