/* The shell's header (the capture, the rank, the tabs) and status line (load progress, the
 * message, diagnostics count, the view's hint). */
#include <string.h>

#include "ui/shell/draw.h"
#include "ui/shell/shell_internal.h"

/* Draws s clipped to width, ending in an ellipsis when it does not fit. */
static int draw_clipped(WINDOW *w, int x, int width, const char *s, attr_t a)
{
    if (width <= 0)
        return 0;
    if (draw_text_width(s, SIZE_MAX) <= width)
        return draw_text(w, 0, x, width, s, SIZE_MAX, a);
    int n = draw_text(w, 0, x, width - 1, s, SIZE_MAX, a);
    return n + draw_text(w, 0, x + n, 1, draw_utf8 ? "\xe2\x80\xa6" : "~", SIZE_MAX, a);
}

/* Draws the capture's path and then `tail` (" (2 ranks)") in width columns; a path too long
 * loses its beginning ("…/vllm_profile (2 ranks)"): the last directory names the capture. */
static int draw_title(WINDOW *w, int x, int width, const char *path, const char *tail, attr_t a)
{
    int tw = draw_text_width(tail, SIZE_MAX);
    if (width <= tw + 2)
        return draw_clipped(w, x, width, path, a);
    const char *p = path;
    int n = 0;
    if (draw_text_width(p, SIZE_MAX) > width - tw) {
        while (*p && draw_text_width(p, SIZE_MAX) > width - tw - 1) {
            p++;
            while (((unsigned char)*p & 0xc0) == 0x80)
                p++;
        }
        n = draw_text(w, 0, x, 1, draw_utf8 ? "\xe2\x80\xa6" : "~", SIZE_MAX, a);
    }
    n += draw_text(w, 0, x + n, width - n, p, SIZE_MAX, a);
    return n + draw_text(w, 0, x + n, width - n, tail, SIZE_MAX, a);
}

/* A view with nothing to show in this session (ops->listed false) is not listed and not
 * reached with Tab; its key still opens it, to say how. */
bool tab_hidden(const struct ui *ui, size_t i)
{
    const struct view_ops *op = ui->views[i].ops;
    return op->listed && !op->listed(ui);
}

static bool tab_listed(const struct ui *ui, size_t i)
{
    return !tab_hidden(ui, i) || i == ui->cur;
}

/* One tab's label; compact tabs name only the current view. */
static void tab_label(const struct ui *ui, size_t i, bool compact, char *t, size_t size)
{
    const struct view_ops *op = ui->views[i].ops;
    char k[16];   /* the key of the key-table row that opens it */
    view_open_key(op, k, sizeof k);
    if (!tab_listed(ui, i))
        t[0] = 0;
    else if (i == ui->cur)
        snprintf(t, size, "[%s]%s ", k, op->name);
    else if (compact)
        snprintf(t, size, "%s ", k);
    else
        snprintf(t, size, " %s %s ", k, op->name);
}

static int tabs_width(const struct ui *ui, bool compact)
{
    int tw = 0;
    char t[64];
    for (size_t i = 0; i < ui->nviews; i++) {
        tab_label(ui, i, compact, t, sizeof t);
        tw += draw_text_width(t, SIZE_MAX);
    }
    return tw;
}

void draw_header(struct ui *ui)
{
    WINDOW *w = ui->hdr;
    attr_t a = draw_attr(CP_HEADER);
    wbkgdset(w, ' ' | a);
    werase(w);
    int x = 1;
    x += draw_text(w, 0, x, ui->cols - x, "aptop  ", SIZE_MAX, a | A_BOLD);
    char buf[64], r[300];
    size_t nr = ui->s ? ui->s->nranks : 0;
    const char *path = ui->title ? ui->title : "";
    if (ui->ngroups > 1)
        snprintf(buf, sizeof buf, " (capture %zu/%zu, %zu rank%s)", ui->group + 1, ui->ngroups, nr, nr == 1 ? "" : "s");
    else
        snprintf(buf, sizeof buf, " (%zu rank%s)", nr, nr == 1 ? "" : "s");
    struct rank_data *rd = ui_rank(ui);
    r[0] = 0;
    if (rd)
        snprintf(r, sizeof r, "rank %d %s %s", rd->rank, draw_utf8 ? "\xe2\x96\xb8" : ">", rd->label ? rd->label : "");
    /* the tabs take the right side, named in full while the rank's directory stays whole
     * with 24 columns for the capture (at least 40 in all; else only the current view is
     * named); the rank's directory comes next, whole while the capture keeps 24 columns;
     * the capture's path gets the rest */
    int rw = draw_text_width(r, SIZE_MAX);
    bool compact = ui->cols - x - tabs_width(ui, false) < (rw + 26 > 40 ? rw + 26 : 40);
    int tw = tabs_width(ui, compact);
    int room = ui->cols - tw - x - 2;
    int bw = draw_text_width(path, SIZE_MAX) + draw_text_width(buf, SIZE_MAX);
    int title_room = bw;
    if (bw + 2 + rw > room)
        title_room = room - 2 - rw >= 24 ? room - 2 - rw : (bw < room / 2 ? bw : room / 2);
    x += draw_title(w, x, title_room, path, buf, a) + 2;
    x += draw_clipped(w, x, ui->cols - tw - x - 1, r, a);
    int tx = ui->cols - tw;
    if (tx < x)
        tx = x;
    for (size_t i = 0; i < ui->nviews; i++) {
        char t[64];
        tab_label(ui, i, compact, t, sizeof t);
        tx += draw_text(w, 0, tx, ui->cols - tx, t, SIZE_MAX, i == ui->cur ? (a | A_BOLD | A_UNDERLINE) : a);
    }
    wnoutrefresh(w);
}

void draw_status(struct ui *ui)
{
    struct shell *sh = ui->shell;
    WINDOW *w = ui->status;
    attr_t a = draw_attr(CP_STATUS);
    wbkgdset(w, ' ' | a);
    werase(w);
    if (sh->prompt_on) {
        draw_prompt(ui);
        return;
    }
    const char *right = "?:help  q:quit ";
    int rw = (int)strlen(right);
    struct view *v = ui_current(ui);
    const char *hint = v && v->ops->hint ? v->ops->hint(v) : NULL;
    char left[1024];
    left[0] = 0;
    bool loading = ui->l && !loader_done(ui->l);
    if (loading)
        progress_text(ui, left, sizeof left);
    if (ui->msg[0]) {
        size_t o = strlen(left);
        snprintf(left + o, sizeof left - o, "%s%s", o ? "  " : "", ui->msg);
    }
    unsigned keep = loader_max_ranks(ui->l);
    if (keep && ui->all) {   /* two passes: figures over every rank miss the timelines not read */
        size_t o = strlen(left);
        snprintf(left + o, sizeof left - o, "%s%zu/%zu timelines in memory", o ? "  " : "",
                 loader_timelines_in(ui->l), ui->all->nranks);
    }
    size_t nd = ui->s && ui->s->diag ? diag_count(ui->s->diag) : 0;
    if (nd) {
        size_t o = strlen(left);
        snprintf(left + o, sizeof left - o, "%s%zu diagnostic%s (!)", o ? "  " : "", nd, nd == 1 ? "" : "s");
    }
    int x = 1;
    x += draw_text(w, 0, x, ui->cols - rw - 2, left, SIZE_MAX, ui->msg_error ? draw_attr(CP_ERROR) : a);
    if (hint) {
        int hw = draw_text_width(hint, SIZE_MAX);
        int hx = ui->cols - rw - hw - 2;
        if (hx > x + 1)
            draw_text(w, 0, hx, hw, hint, SIZE_MAX, a);
    }
    draw_text(w, 0, ui->cols - rw, rw, right, SIZE_MAX, a);
    wnoutrefresh(w);
}
