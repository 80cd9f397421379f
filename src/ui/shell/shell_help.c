/* The shell's full-body panes: the help screen (every binding of the key table, the current
 * view's scopes first) and the diagnostics list; both scroll. */
#include "ui/shell/diag_pane.h"
#include "ui/shell/draw.h"
#include "ui/shell/shell_internal.h"

/* Help lines: Everywhere, then the current view's scopes, then the rest. */
static int help_lines(struct ui *ui, WINDOW *w, int top, bool draw)
{
    struct view *v = ui_current(ui);
    unsigned mine = v ? v->ops->scopes : 0;
    unsigned all[32], order[32];
    size_t nall = scope_order(all, 32);   /* all[0] is GLOBAL */
    int no = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < nall; i++)
            if ((all[i] == SCOPE_GLOBAL || (mine & all[i]) != 0) == (pass == 0))
                order[no++] = all[i];
    int h = w ? getmaxy(w) : 0, cw = w ? getmaxx(w) : 0;
    int line = 0;
    for (int s = 0; s < no; s++) {
        if (draw && line - top >= 0 && line - top < h)
            draw_printf(w, line - top, 1, cw - 2, A_BOLD | A_UNDERLINE, "%s", scope_name(order[s]));
        line++;
        for (size_t i = 0; i < req_table_len; i++) {
            const struct req_info *r = &req_table[i];
            if (r->scope != order[s])
                continue;
            if (draw && line - top >= 0 && line - top < h) {
                char keys[96];
                req_keys_label(r, keys, sizeof keys);
                draw_text(w, line - top, 3, 20, keys, SIZE_MAX, draw_attr(CP_HOST) | A_BOLD);
                draw_text(w, line - top, 24, cw - 25, req_help(r), SIZE_MAX, A_NORMAL);
            }
            line++;
        }
        line++;
    }
    return line;
}

void draw_overlay(struct ui *ui)
{
    struct shell *sh = ui->shell;
    WINDOW *w = ui->body;
    werase(w);
    int h = getmaxy(w);
    if (sh->ov == OV_HELP) {
        int total = help_lines(ui, NULL, 0, false);
        if (sh->ov_top > total - h) sh->ov_top = total - h;
        if (sh->ov_top < 0) sh->ov_top = 0;
        help_lines(ui, w, sh->ov_top, true);
        return;
    }
    diag_pane(w, ui->s ? ui->s->diag : NULL, &sh->ov_top);
}


void overlay_request(struct ui *ui, enum request r)
{
    struct shell *sh = ui->shell;
    struct view *v = ui_current(ui);
    int page = getmaxy(ui->body) - 1;
    switch (r) {
    case REQ_QUIT: ui->quit = true; break;
    case REQ_CLOSE: case REQ_HELP: case REQ_DIAGNOSTICS:
        sh->ov = (r == REQ_HELP && sh->ov != OV_HELP) ? OV_HELP :
                 (r == REQ_DIAGNOSTICS && sh->ov != OV_DIAG) ? OV_DIAG : OV_NONE;
        sh->ov_top = 0;
        break;
    case REQ_MOVE_UP: sh->ov_top--; break;
    case REQ_MOVE_DOWN: sh->ov_top++; break;
    case REQ_PAGE_UP: sh->ov_top -= page; break;
    case REQ_PAGE_DOWN: sh->ov_top += page; break;
    case REQ_HOME: sh->ov_top = 0; break;
    case REQ_END: sh->ov_top = 1 << 30; break;
    default: break;
    }
    ui->full = true;
    if (v) v->dirty = true;
}
