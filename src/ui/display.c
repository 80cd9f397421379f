/* The shell: terminal setup and teardown, the poll() loop over stdin and the loader's
 * wake-up fd, header and status lines, and the shell-owned panes (help, diagnostics, text
 * prompt, pick list). Views are driven through struct view_ops (view.h). */
#include "ui/ui.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ui/diag_pane.h"
#include "ui/draw.h"
#include "ui/script.h"
#include "ui/settings.h"
#include "ui/terminfo_fallback.h"
#include "ui/view.h"
#include "util/oom.h"

enum overlay { OV_NONE, OV_HELP, OV_DIAG };

struct shell {
    /* text prompt */
    bool prompt_on;
    struct view *prompt_view;
    char prompt_label[48];
    char prompt_buf[256];
    size_t prompt_len;
    prompt_fn prompt_change, prompt_done;
    /* pick list */
    bool pick_on;
    struct view *pick_view;
    char pick_title[128];
    char **items;
    size_t nitems, pick_sel, pick_top;
    pick_fn pick_done;
    /* full-body panes */
    enum overlay ov;
    int ov_top;
    /* load progress */
    double last_draw, rate_t;
    uint64_t rate_bytes;
    double rate;
    const char *rate_file;
    bool was_done;
    bool msg_session;           /* the message is about the session (the load), not a view */
};

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
    got_signal = sig;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* --- API for views ------------------------------------------------------------------ */

struct view *ui_current(struct ui *ui)
{
    return ui->nviews ? &ui->views[ui->cur] : NULL;
}

struct view *ui_view_by_tab(struct ui *ui, int tab)
{
    for (size_t i = 0; i < ui->nviews; i++)
        if (ui->views[i].ops->tab == tab)
            return &ui->views[i];
    return NULL;
}

void ui_dirty(struct ui *ui)
{
    struct view *v = ui_current(ui);
    if (v)
        v->dirty = true;
}

static void clear_view_message(struct ui *ui);

void ui_switch_tab(struct ui *ui, int tab)
{
    for (size_t i = 0; i < ui->nviews; i++) {
        if (ui->views[i].ops->tab == tab) {
            if (ui->cur != i)
                clear_view_message(ui);
            ui->cur = i;
            ui->views[i].dirty = true;
            ui->full = true;
            return;
        }
    }
}

struct rank_data *ui_rank(struct ui *ui)
{
    if (!ui->s || !ui->s->nranks)
        return NULL;
    if (ui->rank >= ui->s->nranks)
        ui->rank = 0;
    return &ui->s->ranks[ui->rank];
}

static void notify_changed(struct ui *ui)
{
    for (size_t i = 0; i < ui->nviews; i++) {
        struct view *v = &ui->views[i];
        if (v->ops->data_changed)
            v->ops->data_changed(v);
        v->dirty = true;
    }
    ui->full = true;
}

/* Rank `rank` of the capture on screen as an index into the whole session (the loader's). */
static size_t session_rank(const struct ui *ui, size_t rank)
{
    return ui->all && ui->s ? (size_t)(&ui->s->ranks[rank] - ui->all->ranks) : rank;
}

void ui_set_rank(struct ui *ui, size_t rank)
{
    if (!ui->s || rank >= ui->s->nranks)
        return;
    if (ui->l)   /* opening a rank reads its timeline when it is not in memory */
        loader_want(ui->l, session_rank(ui, rank));
    if (rank == ui->rank)
        return;
    ui->rank = rank;
    notify_changed(ui);
}

void ui_set_group(struct ui *ui, size_t g)
{
    if (!ui->ngroups || g >= ui->ngroups)
        return;
    ui->groupv[g] = session_group_view(ui->all, g);   /* load_ms may have changed */
    ui->group = g;
    ui->s = &ui->groupv[g];
    ui->title = ui->all->groups[g].root;
    ui->rank = 0;
    notify_changed(ui);
}

static void vmessage(struct ui *ui, bool error, const char *fmt, va_list ap)
{
    char raw[512];
    vsnprintf(raw, sizeof raw, fmt, ap);
    draw_escape(raw, SIZE_MAX, ui->msg, sizeof ui->msg);
    ui->msg_error = error;
    ui->full = true;
    if (ui->shell)
        ((struct shell *)ui->shell)->msg_session = false;
}

/* A view's message goes when the view changes; the session's (the load) stays. */
static void clear_view_message(struct ui *ui)
{
    if (ui->shell && ((struct shell *)ui->shell)->msg_session)
        return;
    ui->msg[0] = 0;
}

void ui_message(struct ui *ui, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(ui, false, fmt, ap);
    va_end(ap);
}

void ui_error(struct ui *ui, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(ui, true, fmt, ap);
    va_end(ap);
}

static struct view *timeline_view(struct ui *ui)
{
    for (size_t i = 0; i < ui->nviews; i++)
        if (ui->views[i].ops == &view_timeline)
            return &ui->views[i];
    return NULL;
}

/* Switches to the timeline of session rank `rank`; NULL when there is no timeline view. */
static struct view *show_timeline(struct ui *ui, size_t rank)
{
    struct view *v = timeline_view(ui);
    if (!v)
        return NULL;
    ui_set_rank(ui, rank);
    ui->cur = (size_t)(v - ui->views);
    ui->full = true;
    v->dirty = true;
    return v;
}

void ui_goto_slice(struct ui *ui, size_t rank, uint32_t slice)
{
    struct view *v = show_timeline(ui, rank);
    if (v)
        timeline_goto_slice(v, slice);
}

void ui_goto_range(struct ui *ui, size_t rank, ns_t t0, ns_t t1)
{
    struct view *v = show_timeline(ui, rank);
    if (v)
        timeline_goto_range(v, t0, t1);
}

void ui_prompt(struct ui *ui, struct view *v, const char *label, const char *initial,
               prompt_fn on_change, prompt_fn done)
{
    struct shell *sh = ui->shell;
    sh->prompt_on = true;
    sh->prompt_view = v;
    snprintf(sh->prompt_label, sizeof sh->prompt_label, "%s", label);
    snprintf(sh->prompt_buf, sizeof sh->prompt_buf, "%s", initial ? initial : "");
    sh->prompt_len = strlen(sh->prompt_buf);
    sh->prompt_change = on_change;
    sh->prompt_done = done;
    ui->full = true;
}

static void pick_clear(struct shell *sh)
{
    for (size_t i = 0; i < sh->nitems; i++)
        free(sh->items[i]);
    free(sh->items);
    sh->items = NULL;
    sh->nitems = 0;
    sh->pick_on = false;
}

void ui_pick(struct ui *ui, struct view *v, const char *title, const char *const *items,
             size_t n, pick_fn done)
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
    sh->pick_sel = sh->pick_top = 0;
    if (v)
        v->dirty = true;
}

/* --- windows ------------------------------------------------------------------------- */

static void make_windows(struct ui *ui)
{
    if (ui->hdr) delwin(ui->hdr);
    if (ui->body) delwin(ui->body);
    if (ui->status) delwin(ui->status);
    getmaxyx(stdscr, ui->rows, ui->cols);
    int bh = ui->rows - 2 > 1 ? ui->rows - 2 : 1;
    ui->hdr = newwin(1, ui->cols, 0, 0);
    ui->body = newwin(bh, ui->cols, 1, 0);
    ui->status = newwin(1, ui->cols, ui->rows > 1 ? ui->rows - 1 : 0, 0);
    for (size_t i = 0; i < ui->nviews; i++)
        ui->views[i].dirty = true;
    ui->full = true;
}

/* --- header and status --------------------------------------------------------------- */

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

/* One tab's label; compact tabs name only the current view. */
/* The Compare tab is listed (and reached with Tab) only when two captures are open; `9`
 * still opens it, to say how. */
static bool tab_hidden(const struct ui *ui, size_t i)
{
    return ui->views[i].ops == &view_compare && ui->ngroups < 2;
}

static bool tab_listed(const struct ui *ui, size_t i)
{
    return !tab_hidden(ui, i) || i == ui->cur;
}

static void tab_label(const struct ui *ui, size_t i, bool compact, char *t, size_t size)
{
    const struct view_ops *op = ui->views[i].ops;
    char k[16];   /* what opens it: its number, or its letter past 9 */
    if (op->key)
        snprintf(k, sizeof k, "%c", op->key);
    else
        snprintf(k, sizeof k, "%d", op->tab);
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

static void draw_header(struct ui *ui)
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

static const char *human_bytes(uint64_t b, char *buf, size_t size)
{
    if (b >= (1ull << 30)) snprintf(buf, size, "%.1f GB", (double)b / (1 << 30));
    else if (b >= (1ull << 20)) snprintf(buf, size, "%.1f MB", (double)b / (1 << 20));
    else if (b >= 1024) snprintf(buf, size, "%.0f KB", (double)b / 1024);
    else snprintf(buf, size, "%llu B", (unsigned long long)b);
    return buf;
}

static void progress_text(struct ui *ui, char *out, size_t size)
{
    struct shell *sh = ui->shell;
    struct load_progress *p = loader_progress(ui->l);
    if (!p) { snprintf(out, size, "loading"); return; }
    const char *file = atomic_load(&p->file);
    uint64_t done = atomic_load(&p->bytes_done), total = atomic_load(&p->bytes_total);
    uint64_t fd = atomic_load(&p->files_done), ft = atomic_load(&p->files_total);
    double t = now_ms();
    if (file != sh->rate_file || done < sh->rate_bytes) {
        sh->rate_file = file;
        sh->rate_bytes = done;
        sh->rate_t = t;
        sh->rate = 0;
    } else if (t - sh->rate_t >= 250) {
        sh->rate = (double)(done - sh->rate_bytes) / ((t - sh->rate_t) / 1e3);
        sh->rate_bytes = done;
        sh->rate_t = t;
    }
    const char *base = file ? strrchr(file, '/') : NULL;
    base = base ? base + 1 : file ? file : "";
    char eb[600], b1[32], b2[32], b3[32];
    draw_escape(base, SIZE_MAX, eb, sizeof eb);
    int pct = total ? (int)(done * 100 / total) : 0;
    if (sh->rate > 0)
        snprintf(out, size, "loading %s %d%% %s/%s %s/s %s file %llu/%llu", eb, pct,
                 human_bytes(done, b1, sizeof b1), human_bytes(total, b2, sizeof b2),
                 human_bytes((uint64_t)sh->rate, b3, sizeof b3), draw_utf8 ? "·" : "-",
                 (unsigned long long)fd + 1, (unsigned long long)ft);
    else
        snprintf(out, size, "loading %s %d%% %s/%s %s file %llu/%llu", eb, pct,
                 human_bytes(done, b1, sizeof b1), human_bytes(total, b2, sizeof b2),
                 draw_utf8 ? "·" : "-", (unsigned long long)fd + 1, (unsigned long long)ft);
}

static void draw_status(struct ui *ui)
{
    struct shell *sh = ui->shell;
    WINDOW *w = ui->status;
    attr_t a = draw_attr(CP_STATUS);
    wbkgdset(w, ' ' | a);
    werase(w);
    if (sh->prompt_on) {
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

/* --- help, diagnostics and the pick list ------------------------------------------- */

/* Help lines: Everywhere, then the current view's scopes, then the rest. */
static int help_lines(struct ui *ui, WINDOW *w, int top, bool draw)
{
    struct view *v = ui_current(ui);
    unsigned mine = v ? v->ops->scopes : 0;
    static const unsigned all[] = { SCOPE_TIMELINE, SCOPE_TABLE, SCOPE_PHASES, SCOPE_XRANK, SCOPE_MEMORY, SCOPE_COLL };
    unsigned order[1 + sizeof all / sizeof all[0]] = { SCOPE_GLOBAL };
    int no = 1;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
            if (((mine & all[i]) != 0) == (pass == 0))
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
                draw_text(w, line - top, 24, cw - 25, r->help, SIZE_MAX, A_NORMAL);
            }
            line++;
        }
        line++;
    }
    return line;
}

static void draw_overlay(struct ui *ui)
{
    struct shell *sh = ui->shell;
    WINDOW *w = ui->body;
    werase(w);
    int h = getmaxy(w), cw = getmaxx(w);
    if (sh->ov == OV_HELP) {
        int total = help_lines(ui, NULL, 0, false);
        if (sh->ov_top > total - h) sh->ov_top = total - h;
        if (sh->ov_top < 0) sh->ov_top = 0;
        help_lines(ui, w, sh->ov_top, true);
        return;
    }
    (void)cw;
    diag_pane(w, ui->s ? ui->s->diag : NULL, &sh->ov_top);
}

static void draw_pick(struct ui *ui)
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

static void render(struct ui *ui)
{
    struct shell *sh = ui->shell;
    struct view *v = ui_current(ui);
    if (ui->full) {
        draw_header(ui);
        draw_status(ui);
    }
    if (sh->ov != OV_NONE) {
        draw_overlay(ui);
        wnoutrefresh(ui->body);
    } else if (v && (v->dirty || ui->full)) {
        v->ops->draw(v, ui->body);
        if (sh->pick_on)
            draw_pick(ui);
        wnoutrefresh(ui->body);
        v->dirty = false;
    }
    doupdate();
    ui->full = false;
    sh->last_draw = now_ms();
}

/* --- input ------------------------------------------------------------------------- */

static void prompt_key(struct ui *ui, int ch)
{
    struct shell *sh = ui->shell;
    struct view *v = sh->prompt_view;
    if (ch == UI_ESC || ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        bool ok = ch != UI_ESC;
        sh->prompt_on = false;
        ui->full = true;
        if (sh->prompt_done)
            sh->prompt_done(v, sh->prompt_buf, ok);
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
        sh->prompt_change(v, sh->prompt_buf, false);
}

static void pick_key(struct ui *ui, int ch)
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
        pick_clear(sh);
        if (fn)
            fn(v, idx);
    } else if (r == REQ_QUIT) {
        ui->quit = true;
    }
}

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

static void handle_key(struct ui *ui, int ch)
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
        return;
    }
    switch (r) {
    case REQ_QUIT: ui->quit = true; return;
    case REQ_HELP: sh->ov = OV_HELP; sh->ov_top = 0; ui->full = true; return;
    case REQ_DIAGNOSTICS: sh->ov = OV_DIAG; sh->ov_top = 0; ui->full = true; return;
    case REQ_REDRAW: clearok(curscr, TRUE); ui->full = true; return;
    case REQ_NEXT_VIEW: cycle_view(ui, 1); return;
    case REQ_PREV_VIEW: cycle_view(ui, -1); return;
    case REQ_VIEW_OVERVIEW: case REQ_VIEW_TIMELINE: case REQ_VIEW_KERNELS: case REQ_VIEW_OPS:
    case REQ_VIEW_PHASES: case REQ_VIEW_RANKS: case REQ_VIEW_COMM: case REQ_VIEW_XRANK:
        ui_switch_tab(ui, 1 + (int)(r - REQ_VIEW_OVERVIEW));
        return;
    case REQ_VIEW_MEMORY:
        ui_switch_tab(ui, view_memory.tab);
        return;
    case REQ_VIEW_COLLECTIVES:
        ui_switch_tab(ui, view_collectives.tab);
        return;
    case REQ_VIEW_COMPARE:
        ui_switch_tab(ui, view_compare.tab);
        return;
    case REQ_NEXT_CAPTURE:
    case REQ_PREV_CAPTURE:
        if (ui->ngroups > 1) {
            size_t n = ui->ngroups;
            ui_set_group(ui, (ui->group + (r == REQ_NEXT_CAPTURE ? 1 : n - 1)) % n);
            ui_message(ui, "capture %zu of %zu: %s", ui->group + 1, n, ui->title);
        } else {
            ui_message(ui, "one capture open (aptop A B opens several)");
        }
        return;
    case REQ_NEXT_RANK:
    case REQ_PREV_RANK:
        if (ui->s && ui->s->nranks > 1) {
            size_t n = ui->s->nranks;
            ui_set_rank(ui, (ui->rank + (r == REQ_NEXT_RANK ? 1 : n - 1)) % n);
            struct rank_data *rd = ui_rank(ui);
            ui_message(ui, "rank %d", rd ? rd->rank : 0);
        }
        return;
    default:
        break;
    }
    if (!v)
        return;
    r = v->ops->request(v, r, ch);
    v->dirty = true;
    if (r == REQ_CLOSE && ui->msg[0]) {
        ui->msg[0] = 0;       /* Esc with nothing else open clears the message */
        ui->full = true;
    }
}

/* --- the loop ------------------------------------------------------------------------ */

static void install_signals(struct sigaction *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old[0]);
    sigaction(SIGTERM, &sa, &old[1]);
    sigaction(SIGHUP, &sa, &old[2]);
}

static void restore_signals(const struct sigaction *old)
{
    sigaction(SIGINT, &old[0], NULL);
    sigaction(SIGTERM, &old[1], NULL);
    sigaction(SIGHUP, &old[2], NULL);
}

/* Memory running out on any thread ends the program (util/oom.h): the terminal first. */
static void leave_curses(void)
{
    endwin();
}

int ui_run(struct session *s, struct loader *l, const char *title)
{
    return ui_run_view(s, l, title, NULL);
}

/* curses on the terminal (or the script's off-screen one); false when there is none. */
static bool terminal_start(struct script *script)
{
    if (script ? !script_screen(script) : !initscr())
        return false;
    oom_on_exit(leave_curses);
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    set_escdelay(25);
    /* Home / End as tmux, screen and the Linux console send them, whatever TERM says */
    define_key("\033[1~", KEY_HOME);
    define_key("\033[4~", KEY_END);
    define_key("\033[H", KEY_HOME);
    define_key("\033[F", KEY_END);
    define_key("\033OH", KEY_HOME);
    define_key("\033OF", KEY_END);
    curs_set(0);
    mousemask(BUTTON1_PRESSED | BUTTON1_RELEASED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
    mouseinterval(0);
    return true;
}

static void views_create(struct ui *ui, const char *first_view)
{
    ui->nviews = ui_nviews;
    for (size_t i = 0; i < ui->nviews; i++) {
        struct view *v = &ui->views[i];
        v->ops = ui_views[i];
        v->ui = ui;
        v->priv = v->ops->private_size ? calloc(1, v->ops->private_size) : NULL;
        if (v->ops->init)
            v->ops->init(v);
        v->dirty = true;
        if (first_view && !strcmp(v->ops->name, first_view))
            ui->cur = i;
    }
}

static void views_destroy(struct ui *ui)
{
    for (size_t i = 0; i < ui->nviews; i++) {
        struct view *v = &ui->views[i];
        if (v->ops->done)
            v->ops->done(v);
        free(v->priv);
    }
}

/* Installs what the loader handed over; once the load has ended, says how long it took. */
static void loader_turn(struct ui *ui, bool loading, bool woke)
{
    struct shell *sh = ui->shell;
    struct loader *l = ui->l;
    struct session *s = ui->all;
    if ((woke || !loading) && loader_apply(l) > 0)
        notify_changed(ui);
    if (loading || sh->was_done)
        return;
    sh->was_done = true;
    if (loader_apply(l) > 0)
        notify_changed(ui);
    unsigned keep = loader_max_ranks(l);
    if (!ui->msg[0] && s && keep) {
        ui_message(ui, "loaded %zu ranks' step and communication files in %.0f ms; a rank's timeline is read "
                   "when it is opened (Enter in Ranks), at most %u in memory", s->nranks, s->load_ms, keep);
        sh->msg_session = true;
    } else if (!ui->msg[0] && s) {
        ui_message(ui, "loaded %zu rank%s in %.0f ms", s->nranks, s->nranks == 1 ? "" : "s", s->load_ms);
        sh->msg_session = true;
    }
    ui->full = true;
}

/* Two passes: the timeline on screen is wanted; the loader starts the next timeline and
 * frees one first when needed, before this frame is drawn. */
static void timeline_turn(struct ui *ui)
{
    if (!loader_max_ranks(ui->l) || !ui->s || !ui->s->nranks)
        return;
    struct view *v = ui_current(ui);
    size_t keep = session_rank(ui, ui->rank < ui->s->nranks ? ui->rank : 0);
    if (v && v->ops->rank_timeline)
        loader_want(ui->l, keep);
    size_t evicted;
    if (!loader_tick(ui->l, keep, &evicted))
        return;
    notify_changed(ui);
    if (evicted != SIZE_MAX)
        ui_message(ui, "rank %d's timeline freed to make room (at most %u in memory)",
                   ui->all->ranks[evicted].rank, loader_max_ranks(ui->l));
}

/* The loop: poll stdin and the loader, install, handle keys, draw. */
static void ui_loop(struct ui *ui, struct script *script)
{
    struct shell *sh = ui->shell;
    struct loader *l = ui->l;
    int lfd = l ? loader_fd(l) : -1;
    bool owed = false;   /* a frame was left out while loading: drawn before waiting long */
    while (!ui->quit && !got_signal) {
        bool loading = l && !loader_done(l);
        struct pollfd pf[2] = { { .fd = script ? -1 : 0, .events = POLLIN }, { .fd = lfd, .events = POLLIN } };
        int npf = lfd >= 0 ? 2 : 1;
        int timeout = loading ? 50 : owed || (l && !sh->was_done) ? 0 : -1;
        if (script)
            timeout = 5;
        int pr = poll(pf, (nfds_t)npf, timeout);
        if (pr < 0 && errno != EINTR)
            break;
        if (l)
            loader_turn(ui, loading, pr == 0 || (npf > 1 && (pf[1].revents & POLLIN)));
        bool keyed = false;
        int ch;
        while (!ui->quit && (ch = script ? script_key(script) : wgetch(stdscr)) != ERR) {
            handle_key(ui, ch);
            keyed = true;
        }
        if (ui->quit || got_signal)
            break;
        timeline_turn(ui);
        /* while loading, progress redraws at most every 50 ms; keys redraw at once */
        double t = now_ms();
        if (loading && !keyed) {
            owed = t - sh->last_draw < 50;
            if (owed)
                continue;
            ui->full = true;
        }
        render(ui);
        owed = false;
        if (script && script_frame(script, !l || loader_done(l)))
            ui->quit = true;
    }
}

int ui_run_view(struct session *s, struct loader *l, const char *title, const char *first_view)
{
    setlocale(LC_ALL, "");
    draw_utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
    struct shell sh;
    memset(&sh, 0, sizeof sh);
    struct ui ui;
    memset(&ui, 0, sizeof ui);
    ui.s = ui.all = s;
    ui.l = l;
    ui.title = title;
    if (s && s->ngroups > 1 && (ui.groupv = calloc(s->ngroups, sizeof *ui.groupv))) {
        ui.ngroups = s->ngroups;
        for (size_t g = 0; g < ui.ngroups; g++)
            ui.groupv[g] = session_group_view(s, g);
        ui.s = &ui.groupv[0];
        ui.title = s->groups[0].root;
    }
    ui.shell = &sh;
    ui.utf8 = draw_utf8;
    ui.views = calloc(ui_nviews, sizeof *ui.views);
    if (!ui.views)
        return 1;

    struct sigaction old[3];
    got_signal = 0;
    install_signals(old);
    terminfo_add_fallback();   /* a copied folder's own xterm, tmux and screen entries */
    settings_forbid_under(s ? s->root : NULL);   /* settings are never written into a capture */
    for (size_t g = 0; s && g < s->ngroups; g++)
        settings_forbid_under(s->groups[g].root);
    struct script *script = ui_script;    /* headless: keys from a file, screens printed */
    if (!terminal_start(script)) {
        restore_signals(old);
        free(ui.views);
        free(ui.groupv);
        return 1;
    }
    ui.color = draw_colors_init();
    wnoutrefresh(stdscr);
    views_create(&ui, first_view);
    make_windows(&ui);
    render(&ui);                       /* the first frame, before anything is read */
    ui_loop(&ui, script);

    views_destroy(&ui);
    pick_clear(&sh);
    delwin(ui.hdr);
    delwin(ui.body);
    delwin(ui.status);
    oom_on_exit(NULL);
    endwin();
    if (script)
        script_screen_end(script);
    restore_signals(old);
    free(ui.views);
    free(ui.groupv);
    return got_signal ? 128 + got_signal : script_failed(script) ? 1 : 0;
}
