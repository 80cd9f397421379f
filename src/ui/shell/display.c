/* The shell: the frame loop (poll stdin and the loader's wake-up fd, install hand-overs,
 * handle keys, draw) and ui_run, which owns the terminal from the first frame to quit. Its
 * other parts are named in shell_internal.h; views are driven through struct view_ops
 * (view.h). */
#include "ui/shell/ui.h"

#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ui/shell/draw.h"
#include "ui/shell/settings.h"
#include "ui/shell/shell_internal.h"
#include "ui/shell/terminfo_fallback.h"
#include "util/free_all.h"
#include "util/signals.h"

double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int ui_run(struct session *s, struct loader *l, const char *title)
{
    return ui_run_view(s, l, title, NULL);
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

static void render(struct ui *ui)
{
    struct shell *sh = ui->shell;
    struct view *v = ui_current(ui);
    bool full = ui->full;
    if (full) {
        draw_header(ui);
        draw_status(ui);
    }
    if (sh->ov != OV_NONE) {
        draw_overlay(ui);
        wnoutrefresh(ui->body);
    } else if (v && (v->dirty || full)) {
        v->ops->draw(v, ui->body);
        if (sh->pick_on)
            draw_pick(ui);
        wnoutrefresh(ui->body);
        v->dirty = false;
    }
    if (!full && ui->full) {   /* a message the view's draw gave (a job it polled ended) */
        draw_header(ui);
        draw_status(ui);
    }
    doupdate();
    ui->full = false;
    sh->last_draw = now_ms();
}

/* An io job a view started is done (ui->wake_fd): the pipe drained, the view drawn again. */
static void woken(struct ui *ui)
{
    struct shell *sh = ui->shell;
    char buf[64];
    while (read(sh->wake_rd, buf, sizeof buf) > 0)
        ;
    ui_dirty(ui);
}

/* The wake-up pipe of io jobs (ui->wake_fd), both ends non-blocking. It stays open until the
 * process ends: a job given up at quit may still write to it, and a closed descriptor's
 * number could by then name another file. */
static void wake_pipe_open(struct ui *ui)
{
    struct shell *sh = ui->shell;
    int p[2];
    ui->wake_fd = sh->wake_rd = -1;
    if (pipe2(p, O_NONBLOCK | O_CLOEXEC) == 0) {
        sh->wake_rd = p[0];
        ui->wake_fd = p[1];
    }
}

/* The loop: poll stdin and the loader, install, handle keys, draw. */
static void ui_loop(struct ui *ui, struct script *script)
{
    struct shell *sh = ui->shell;
    struct loader *l = ui->l;
    int lfd = l ? loader_fd(l) : -1;
    bool owed = false;   /* a frame was left out while loading: drawn before waiting long */
    int empty_wakeups = 0;   /* input said ready without a key in a row (terminal_gone) */
    while (!ui->quit && !shell_signal) {
        bool loading = l && !loader_done(l);
        ui->load.loading = loading;
        struct pollfd pf[3] = { { .fd = script ? -1 : 0, .events = POLLIN }, { .fd = sh->wake_rd, .events = POLLIN },
                                { .fd = lfd, .events = POLLIN } };
        int npf = lfd >= 0 ? 3 : 2;
        int timeout = loading ? 50 : owed || (l && !sh->was_done) ? 0 : -1;
        if (script)
            timeout = 5;
        int pr = poll(pf, (nfds_t)npf, timeout);
        if (pr < 0 && errno != EINTR)
            break;
        if (l)
            loader_turn(ui, loading, pr == 0 || (npf > 2 && (pf[2].revents & POLLIN)));
        if (pf[1].revents & POLLIN)
            woken(ui);
        bool keyed = false;
        int ch;
        while (!ui->quit && (ch = script ? script_key(script) : wgetch(stdscr)) != ERR) {
            handle_key(ui, ch);
            keyed = true;
        }
        const char *unsaved = keyed ? settings_take_note() : NULL;   /* keys change settings */
        if (unsaved)
            ui_error(ui, "%s", unsaved);
        if (!script && pr > 0 && terminal_gone(pf[0].revents, keyed, &empty_wakeups))
            shell_signal = SIGHUP;   /* as if the terminal had said so: nothing to draw on */
        if (ui->quit || shell_signal)
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
        /* before the frame: its fields, shapes and an export's message are in it */
        bool settled = slice_fields_pending() == 0 && export_job_pending() == 0 && shapes_job_pending() == 0;
        render(ui);
        owed = false;
        if (script && script_frame(script, !loading, settled))   /* loaded: this frame was drawn after the load */
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
    ui.step_selected = SIZE_MAX;
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

    struct sigaction old[SIGNALS_ENDING];
    shell_signal = 0;
    install_signals(old);
    terminfo_add_fallback();   /* a copied folder's own xterm, tmux and screen entries */
    settings_forbid_under(s ? s->root : NULL);   /* settings are never written into a capture */
    for (size_t g = 0; s && g < s->ngroups; g++)
        settings_forbid_under(s->groups[g].root);
    struct script *script = ui_script;    /* headless: keys from a file, screens printed */
    if (!terminal_start(script)) {
        restore_signals(old);
        FREE_ALL(ui.views, ui.groupv);
        return 1;
    }
    ui.color = draw_colors_init();
    wnoutrefresh(stdscr);
    ui.load = (struct ui_load){ .loading = l && !loader_done(l), .max_timelines = loader_max_ranks(l) };
    wake_pipe_open(&ui);
    views_create(&ui, first_view);
    make_windows(&ui);
    render(&ui);                       /* the first frame, before anything is read */
    ui_loop(&ui, script);

    views_destroy(&ui);
    pick_clear(&sh);
    diag_free(sh.said);
    terminal_end(&ui, script);
    restore_signals(old);
    FREE_ALL(ui.views, ui.groupv);
    return shell_signal ? 128 + shell_signal : script_failed(script) ? 1 : 0;
}
