/* Keys to requests: the shell's own (quit, help, tabs, captures, ranks), then the current
 * view's; the prompt, the pick list and the panes take keys first while open. */
#include "ui/shell/shell_internal.h"

static void cycle_view(struct ui *ui, int dir)
{
    if (!ui->nviews)
        return;
    do
        ui->cur = (ui->cur + ui->nviews + (size_t)(dir > 0 ? 1 : ui->nviews - 1)) % ui->nviews;
    while (tab_hidden(ui, ui->cur));
    clear_view_message(ui);
    ui->views[ui->cur].dirty = true;
    ui->full = true;
}

/* The requests the shell handles itself; false leaves r to the current view. */
static bool shell_request(struct ui *ui, enum request r)
{
    struct shell *sh = ui->shell;
    switch (r) {
    case REQ_QUIT: ui->quit = true; return true;
    case REQ_HELP: sh->ov = OV_HELP; sh->ov_top = 0; ui->full = true; return true;
    case REQ_DIAGNOSTICS: sh->ov = OV_DIAG; sh->ov_top = 0; ui->full = true; return true;
    case REQ_REDRAW: clearok(curscr, TRUE); ui->full = true; return true;
    case REQ_NEXT_VIEW: cycle_view(ui, 1); return true;
    case REQ_PREV_VIEW: cycle_view(ui, -1); return true;
    case REQ_NEXT_CAPTURE:
    case REQ_PREV_CAPTURE:
        if (ui->ngroups > 1) {
            size_t n = ui->ngroups;
            ui_set_group(ui, (ui->group + (r == REQ_NEXT_CAPTURE ? 1 : n - 1)) % n);
            ui_message(ui, "capture %zu of %zu: %s", ui->group + 1, n, ui->title);
        } else {
            ui_message(ui, "one capture open (aptop A B opens several)");
        }
        return true;
    case REQ_NEXT_RANK:
    case REQ_PREV_RANK:
        if (ui->s && ui->s->nranks > 1) {
            size_t n = ui->s->nranks;
            ui_set_rank(ui, (ui->rank + (r == REQ_NEXT_RANK ? 1 : n - 1)) % n);
            struct rank_data *rd = ui_rank(ui);
            ui_message(ui, "rank %d", rd ? rd->rank : 0);
        }
        return true;
    default: {
        const struct view_ops *ops = view_opened_by(r);
        if (ops)
            ui_switch_to(ui, ops);
        return ops != NULL;
    }
    }
}

void handle_key(struct ui *ui, int ch)
{
    struct shell *sh = ui->shell;
    struct view *v = ui_current(ui);
    if (ch == KEY_RESIZE) {
        make_windows(ui);
        clearok(curscr, TRUE);
        return;
    }
    if (sh->prompt_on) {
        prompt_key(ui, ch);
        return;
    }
    if (sh->pick_on) {
        if (ch == KEY_MOUSE) { MEVENT me; getmouse(&me); return; }
        pick_key(ui, ch);
        return;
    }
    if (ch == KEY_MOUSE) {
        if (getmouse(&ui->mouse) != OK)
            return;
        if (sh->ov == OV_NONE && v) {
            v->ops->request(v, REQ_MOUSE, ch);
            v->dirty = true;
        }
        return;
    }
    enum request r = req_for_key(ch, v ? v->ops->scopes : 0);
    if (sh->ov != OV_NONE) {
        overlay_request(ui, r);
        return;
    }
    if (shell_request(ui, r))
        return;
    if (!v)
        return;
    r = view_request(v, r, ch);
    v->dirty = true;
    if (r == REQ_CLOSE && ui->msg[0]) {
        ui->msg[0] = 0;       /* Esc with nothing else open clears the message */
        ui->full = true;
    }
}
