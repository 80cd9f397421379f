/* The file-name prompt of every export (see export_prompt.h). */
#include "ui/shell/export_prompt.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The export being asked about (the prompts are modal: one at a time). */
struct export_ask {
    export_write_fn write;
    void *ctx;
    char path[PATH_MAX];
};
static struct export_ask ask;

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

static void open_and_write(struct ui *ui, struct view *v, bool replace)
{
    int fd = open(ask.path, O_WRONLY | O_CREAT | (replace ? O_TRUNC : O_EXCL), 0644);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        ui_error(ui, "export failed: %s: %s", ask.path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return;
    }
    ask.write(ui, v, ask.path, f, ask.ctx);
}

static void overwrite_done(struct view *v, void *user, const char *text, bool accepted)
{
    (void)user;
    if (accepted && text && (!strcmp(text, "y") || !strcmp(text, "yes")))
        open_and_write(v->ui, v, true);
    else
        ui_message(v->ui, "not exported: %s kept as it was", ask.path);
}

static void name_done(struct view *v, void *user, const char *text, bool accepted)
{
    struct ui *ui = v->ui;
    (void)user;
    if (!accepted || !text || !text[0]) {
        ui_message(ui, "export cancelled");
        return;
    }
    const char *home = getenv("HOME");
    if (text[0] == '~' && text[1] == '/' && home)
        snprintf(ask.path, sizeof ask.path, "%s%s", home, text + 1);
    else
        snprintf(ask.path, sizeof ask.path, "%s", text);
    const char *root = capture_holding(ui, ask.path);
    if (root) {
        ui_error(ui, "not exported: %s lies inside the capture %s (aptop never writes there)", ask.path, root);
        return;
    }
    struct stat st;
    if (stat(ask.path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            ui_error(ui, "not exported: %s is a folder", ask.path);
            return;
        }
        ui_prompt(ui, v, "file exists: overwrite? (y/n) ", NULL, NULL, overwrite_done, NULL);
        return;
    }
    open_and_write(ui, v, false);
}

void ui_export_folder(struct ui *ui, char *dir, size_t size)
{
    if (!getcwd(dir, size))
        snprintf(dir, size, ".");
    char probe[PATH_MAX + 4];
    snprintf(probe, sizeof probe, "%s/x", dir);
    if (capture_holding(ui, probe)) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, size, "%s", tmp && *tmp ? tmp : "/tmp");
    }
}

void ui_export_prompt(struct ui *ui, struct view *v, const char *label, const char *name, export_write_fn write,
                      void *ctx)
{
    ask.write = write;
    ask.ctx = ctx;
    ui_prompt(ui, v, label, name, NULL, name_done, NULL);
}
