/* E on a range (v ... v): the range of the rank on screen written as a Chrome trace for
 * Perfetto, the same file `aptop export --window` writes (io/export/export_window.h), to a
 * file asked for as every export is (ui/shell/export_prompt.h). The writing reads every
 * slice's args again through the detail pane's io call, so it runs on a thread of its own
 * (io/export/export_job.h); the status line says the file and the number of events when it
 * is done. One export at a time; quitting cancels it (the half file is removed). */
#include <limits.h>
#include <stdio.h>

#include "ui/shell/export_prompt.h"
#include "ui/timeline/timeline.h"

/* The window of the range, relative to the capture's start as `g` and --window take it. */
static void range_window(struct view *v, ns_t *start, ns_t *end, ns_t *origin)
{
    struct timeline *t = tl_of(v);
    ns_t o = session_origin(v->ui->s);
    *origin = o == NS_NONE ? t->origin : o;
    *start = t->r0 - *origin;
    *end = t->r1 > t->r0 ? t->r1 - *origin : *start + 1;   /* a range of one instant: its first ns */
}

static void start_export(struct ui *ui, struct view *v, const char *path, FILE *f, void *ctx)
{
    struct timeline *t = tl_of(v);
    struct rank_data *rd = ui_rank(ui);
    (void)ctx;
    if (!t->m || !rd || rd->model != t->m || t->range != 2) {   /* the range went while the name was asked */
        fclose(f);
        remove(path);
        ui_error(ui, "not exported: the range is gone (v ... v marks one)");
        return;
    }
    ns_t origin;
    char text[96];
    struct export_window w = { .rank = ui->rank };
    range_window(v, &w.start, &w.end, &origin);
    snprintf(text, sizeof text, "%lldns..%lldns", (long long)w.start, (long long)w.end);
    w.text = text;
    t->export = export_job_start(t->m, rd->rank, origin, &w, f, path, ui->wake_fd);
    if (!t->export)
        ui_error(ui, "export failed: out of memory");
    else
        ui_message(ui, "exporting rank %d, %s, to %s ...", rd->rank, text, path);
}

void tl_range_export(struct view *v)
{
    struct timeline *t = tl_of(v);
    struct ui *ui = v->ui;
    struct rank_data *rd = ui_rank(ui);
    if (t->range != 2 || !t->m || !rd) {
        ui_error(ui, "no range to export: v marks its start, v again its end, then E");
        return;
    }
    if (t->export) {
        ui_error(ui, "an export is still being written");
        return;
    }
    ns_t start, end, origin;
    range_window(v, &start, &end, &origin);
    char dir[PATH_MAX], name[PATH_MAX + 128];
    ui_export_folder(ui, dir, sizeof dir);
    snprintf(name, sizeof name, "%s/aptop-window-rank%d-%lldns-%lldns.json", dir, rd->rank, (long long)start,
             (long long)end);
    ui_export_prompt(ui, v, "export window to: ", name, start_export, NULL);
}

void tl_export_poll(struct view *v)
{
    struct timeline *t = tl_of(v);
    if (!t->export || !export_job_done(t->export))
        return;
    const char *path, *err;
    long n = export_job_result(t->export, &path, &err);
    if (n < 0)
        ui_error(v->ui, "export failed: %s: %s", path, err);
    else
        ui_message(v->ui, "exported %ld events to %s", n, path);
    export_job_free(t->export);
    t->export = NULL;
}

void tl_export_free(struct timeline *t)
{
    export_job_free(t->export);
    t->export = NULL;
}
