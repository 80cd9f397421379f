/* The shell's two small inputs: the one-line text prompt (drawn in place of the status line)
 * and the pick list over the body. Both call the view back when done. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/shell/draw.h"
#include "ui/shell/shell_internal.h"

void ui_prompt(struct ui *ui, struct view *v, const char *label, const char *initial,
               prompt_fn on_change, prompt_fn done, void *user)
{
    struct shell *sh = ui->shell;
    sh->prompt_on = true;
    sh->prompt_view = v;
    snprintf(sh->prompt_label, sizeof sh->prompt_label, "%s", label);
    snprintf(sh->prompt_buf, sizeof sh->prompt_buf, "%s", initial ? initial : "");
    sh->prompt_len = strlen(sh->prompt_buf);
    sh->prompt_change = on_change;
    sh->prompt_done = done;
    sh->prompt_user = user;
    ui->full = true;
}

void pick_clear(struct shell *sh)
{
    draw_strings_free(sh->items, sh->nitems);
    sh->items = NULL;
    sh->nitems = 0;
    sh->pick_on = false;
}

void ui_pick(struct ui *ui, struct view *v, const char *title, const char *const *items,
             size_t n, pick_fn done, void *user)
{
    struct shell *sh = ui->shell;
    pick_clear(sh);
    sh->items = calloc(n ? n : 1, sizeof *sh->items);
    if (!sh->items)
        return;
    for (size_t i = 0; i < n; i++) {
        sh->items[i] = strdup(items[i] ? items[i] : "");
        if (!sh->items[i])
            break;
        sh->nitems++;
    }
    snprintf(sh->pick_title, sizeof sh->pick_title, "%s", title);
    sh->pick_on = true;
    sh->pick_view = v;
    sh->pick_done = done;
    sh->pick_user = user;
    sh->pick_sel = sh->pick_top = 0;
    if (v)
        v->dirty = true;
}

void draw_prompt(struct ui *ui)
{
    struct shell *sh = ui->shell;
    WINDOW *w = ui->status;
    wbkgdset(w, ' ');
    werase(w);
    int x = draw_text(w, 0, 0, ui->cols, sh->prompt_label, SIZE_MAX, A_BOLD);
    int tw = draw_text_width(sh->prompt_buf, sh->prompt_len);
    /* show the end of a long input */
    const char *p = sh->prompt_buf;
    while (tw > ui->cols - x - 2 && *p) {
        p++;
        tw = draw_text_width(p, strlen(p));
    }
    x += draw_text(w, 0, x, ui->cols - x - 1, p, SIZE_MAX, A_NORMAL);
    draw_text(w, 0, x, 1, " ", 1, A_REVERSE);
    wnoutrefresh(w);
}

void draw_pick(struct ui *ui)
{
    struct shell *sh = ui->shell;
    WINDOW *w = ui->body;
    int h = getmaxy(w), cw = getmaxx(w);
    int width = draw_text_width(sh->pick_title, SIZE_MAX) + 4;
    for (size_t i = 0; i < sh->nitems; i++) {
        int iw = draw_text_width(sh->items[i], SIZE_MAX) + 6;
        if (iw > width) width = iw;
    }
    if (width > cw - 4) width = cw - 4;
    int rows = (int)sh->nitems;
    if (rows > h - 4) rows = h - 4;
    if (rows < 1) rows = 1;
    if (sh->pick_sel < sh->pick_top) sh->pick_top = sh->pick_sel;
    if (sh->pick_sel >= sh->pick_top + (size_t)rows) sh->pick_top = sh->pick_sel - (size_t)rows + 1;
    int y0 = (h - rows - 2) / 2, x0 = (cw - width) / 2;
    if (y0 < 0) y0 = 0;
    if (x0 < 0) x0 = 0;
    attr_t a = draw_attr(CP_TAB);
    draw_fill(w, y0, x0, width, " ", a);
    draw_text(w, y0, x0 + 1, width - 2, sh->pick_title, SIZE_MAX, a | A_BOLD);
    for (int r = 0; r < rows; r++) {
        size_t i = sh->pick_top + (size_t)r;
        attr_t ra = i == sh->pick_sel ? draw_attr(CP_SELECT) : a;
        draw_fill(w, y0 + 1 + r, x0, width, " ", ra);
        if (i < sh->nitems) {
            draw_text(w, y0 + 1 + r, x0 + 1, 2, i == sh->pick_sel ? ">" : " ", 1, ra);
            draw_text(w, y0 + 1 + r, x0 + 3, width - 4, sh->items[i], SIZE_MAX, ra);
        }
    }
    draw_fill(w, y0 + 1 + rows, x0, width, " ", a);
    draw_text(w, y0 + 1 + rows, x0 + 1, width - 2, "Enter: go  Esc: cancel", SIZE_MAX, a);
}

void prompt_key(struct ui *ui, int ch)
{
    struct shell *sh = ui->shell;
    struct view *v = sh->prompt_view;
    if (ch == UI_ESC || ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        bool ok = ch != UI_ESC;
        sh->prompt_on = false;
        ui->full = true;
        if (sh->prompt_done)
            sh->prompt_done(v, sh->prompt_user, sh->prompt_buf, ok);
        if (v) v->dirty = true;
        return;
    }
    bool changed = false;
    if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
        /* drop one UTF-8 character */
        while (sh->prompt_len > 0) {
            unsigned char c = (unsigned char)sh->prompt_buf[--sh->prompt_len];
            if ((c & 0xc0) != 0x80)
                break;
        }
        changed = true;
    } else if (ch == UI_CTRL('u')) {
        sh->prompt_len = 0;
        changed = true;
    } else if (ch >= 0x20 && ch < 0x100 && ch != 0x7f && sh->prompt_len + 1 < sizeof sh->prompt_buf) {
        sh->prompt_buf[sh->prompt_len++] = (char)ch;
        changed = true;
    }
    sh->prompt_buf[sh->prompt_len] = 0;
    ui->full = true;
    if (changed && sh->prompt_change)
        sh->prompt_change(v, sh->prompt_user, sh->prompt_buf, false);
}

void pick_key(struct ui *ui, int ch)
{
    struct shell *sh = ui->shell;
    enum request r = req_for_key(ch, SCOPE_GLOBAL);
    struct view *v = sh->pick_view;
    if (v) v->dirty = true;
    if (r == REQ_MOVE_UP && sh->pick_sel > 0) sh->pick_sel--;
    else if (r == REQ_MOVE_DOWN && sh->pick_sel + 1 < sh->nitems) sh->pick_sel++;
    else if (r == REQ_HOME) sh->pick_sel = 0;
    else if (r == REQ_END && sh->nitems) sh->pick_sel = sh->nitems - 1;
    else if (r == REQ_ENTER || r == REQ_CLOSE) {
        size_t idx = r == REQ_ENTER && sh->nitems ? sh->pick_sel : SIZE_MAX;
        pick_fn fn = sh->pick_done;
        void *user = sh->pick_user;
        pick_clear(sh);
        if (fn)
            fn(v, user, idx);
    } else if (r == REQ_QUIT) {
        ui->quit = true;
    }
}
