/* `e` in a table: export what is visible as CSV. The prompt offers a file name (in the
 * working folder, or $TMPDIR when that folder lies inside the capture); a name inside the
 * capture is refused, an existing file is overwritten only after a "y" to the question. */
#include "ui/table/table_export.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/rowsets/rowset_write.h"

/* The export being asked about (the prompts are modal: one at a time); the table lives in
 * its view's state, so the pointer holds until the view is gone. */
struct export_job {
    struct vtable *t;
    char path[PATH_MAX];
};
static struct export_job export_job;

/* dir (resolved) is root or lies under it. */
static bool inside(const char *dir, const char *root)
{
    if (!dir || !root)
        return false;
    char a[PATH_MAX], b[PATH_MAX];
    if (!realpath(dir, a) || !realpath(root, b))
        return false;
    size_t n = strlen(b);
    return !strncmp(a, b, n) && (a[n] == 0 || a[n] == '/');
}

/* The capture root that path's folder lies in, or NULL. */
static const char *capture_holding(struct ui *ui, const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        dir[1] = 0;
    else if (slash)
        *slash = 0;
    else
        snprintf(dir, sizeof dir, ".");
    const struct session *all = ui->all ? ui->all : ui->s;
    if (all && all->root && inside(dir, all->root))
        return all->root;
    for (size_t g = 0; all && g < all->ngroups; g++)
        if (inside(dir, all->groups[g].root))
            return all->groups[g].root;
    if (ui->s && ui->s->root && inside(dir, ui->s->root))
        return ui->s->root;
    return NULL;
}

static void write_to(struct ui *ui, struct vtable *t, const char *path, bool replace)
{
    int fd = open(path, O_WRONLY | O_CREAT | (replace ? O_TRUNC : O_EXCL), 0644);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        ui_error(ui, "export failed: %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return;
    }
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

static void overwrite_done(struct view *v, void *user, const char *text, bool accepted)
{
    struct export_job *job = user;
    if (accepted && text && (!strcmp(text, "y") || !strcmp(text, "yes")))
        write_to(v->ui, job->t, job->path, true);
    else
        ui_message(v->ui, "not exported: %s kept as it was", job->path);
}

static void name_done(struct view *v, void *user, const char *text, bool accepted)
{
    struct ui *ui = v->ui;
    struct export_job *job = user;
    if (!accepted || !text || !text[0]) {
        ui_message(ui, "export cancelled");
        return;
    }
    const char *home = getenv("HOME");
    if (text[0] == '~' && text[1] == '/' && home)
        snprintf(job->path, sizeof job->path, "%s%s", home, text + 1);
    else
        snprintf(job->path, sizeof job->path, "%s", text);
    const char *root = capture_holding(ui, job->path);
    if (root) {
        ui_error(ui, "not exported: %s lies inside the capture %s (aptop never writes there)", job->path, root);
        return;
    }
    struct stat st;
    if (stat(job->path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            ui_error(ui, "not exported: %s is a folder", job->path);
            return;
        }
        ui_prompt(ui, v, "file exists: overwrite? (y/n) ", NULL, NULL, overwrite_done, job);
        return;
    }
    write_to(ui, job->t, job->path, false);
}

void vt_export_start(struct ui *ui, struct view *v, struct vtable *t)
{
    if (!t->rs) {
        ui_error(ui, "nothing to export");
        return;
    }
    char dir[PATH_MAX];
    if (!getcwd(dir, sizeof dir))
        snprintf(dir, sizeof dir, ".");
    char probe[PATH_MAX + 4];
    snprintf(probe, sizeof probe, "%s/x", dir);
    if (capture_holding(ui, probe)) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s", tmp && *tmp ? tmp : "/tmp");
    }
    struct rank_data *rd = ui_rank(ui);
    char name[PATH_MAX + 128];
    snprintf(name, sizeof name, "%s/aptop-%s-rank%d.csv", dir, t->rs->name ? t->rs->name : "table", rd ? rd->rank : 0);
    export_job.t = t;
    ui_prompt(ui, v, "export CSV to: ", name, NULL, name_done, &export_job);
}
