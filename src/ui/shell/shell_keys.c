/* Keys to requests: the shell's own (quit, help, tabs, captures, ranks), then the current
 * view's; the prompt, the pick list and the panes take keys first while open. */
#include <string.h>

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
        if (ops) {
            ui_switch_to(ui, ops);
            /* the view sees its opening request too (the Query view asks for a statement) */
            struct view *v = ui_current(ui);
            if (v && v->ops == ops && v->priv)
                view_request(v, r, 0);
        }
        return ops != NULL;
    }
    }
}

/* A key this view has no use for: where it does something, said in the status line (the
 * scopes that have it, "Timeline, Tables"), so that no key is silently ignored. */
static void say_unused_key(struct ui *ui, const struct view *v, int ch)
{
    char where[256] = "";
    size_t o = 0;
    for (size_t i = 0; i < req_table_len; i++) {
        const struct req_info *r = &req_table[i];
        if (r->keys[0] != ch && r->keys[1] != ch && r->keys[2] != ch)
            continue;
        const char *sn = scope_name(r->scope);
        size_t len = strcspn(sn, " (");    /* "Tables", without the list of them */
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)len, sn);
        if (!strstr(where, name) && o < sizeof where)
            o += (size_t)snprintf(where + o, sizeof where - o, "%s%s", o ? ", " : "", name);
    }
    if (!o)
        return;
    char label[32];
    key_label(ch, label, sizeof label);
    ui_message(ui, "%s does nothing in %s: it is for %s", label, v->ops->name, where);
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
    if (r == REQ_NONE) {
        say_unused_key(ui, v, ch);
        return;
    }
    r = view_request(v, r, ch);
    v->dirty = true;
    if (r == REQ_CLOSE && ui->msg[0]) {
        ui->msg[0] = 0;       /* Esc with nothing else open clears the message */
        ui->full = true;
    }
}
