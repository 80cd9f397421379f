/* The shell's private state and the calls its parts share; nothing outside the shell's files
 * includes it. The parts: shell_api.c (the API views call, view.h), display.c (the frame loop
 * and ui_run), shell_terminal.c (curses, windows, signals), shell_loader.c (the loader's
 * turns and progress), shell_bars.c (header and status lines), shell_keys.c (keys to
 * requests), shell_prompt.c (text prompt and pick list), shell_help.c (help and diagnostics
 * panes). */
#ifndef APTOP_SHELL_INTERNAL_H
#define APTOP_SHELL_INTERNAL_H
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ui/shell/script.h"
#include "ui/shell/view.h"

enum overlay { OV_NONE, OV_HELP, OV_DIAG };

struct shell {
    /* text prompt */
    bool prompt_on;
    struct view *prompt_view;
    char prompt_label[48];
    char prompt_buf[256];
    size_t prompt_len;
    prompt_fn prompt_change, prompt_done;
    void *prompt_user;
    /* pick list */
    bool pick_on;
    struct view *pick_view;
    char pick_title[128];
    char **items;
    size_t nitems, pick_sel, pick_top;
    pick_fn pick_done;
    void *pick_user;
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
    int wake_rd;                /* the read end of ui->wake_fd's pipe, -1: none */
};

/* The signal that ends the loop (SIGINT, SIGTERM, SIGHUP), 0 while none came. */
extern volatile sig_atomic_t shell_signal;

double now_ms(void);

/* shell_api.c */
/* Every view's data_changed, then a full redraw. */
void notify_changed(struct ui *ui);
/* Rank `rank` of the capture on screen as an index into the whole session (the loader's). */
size_t session_rank(const struct ui *ui, size_t rank);
/* A view's message goes when the view changes; the session's (the load) stays. */
void clear_view_message(struct ui *ui);

/* shell_terminal.c */
bool terminal_start(struct script *script);
void terminal_end(struct ui *ui, struct script *script);
void install_signals(struct sigaction *old);
void restore_signals(const struct sigaction *old);
/* (Re)creates the header, body and status windows for the terminal's size. */
void make_windows(struct ui *ui);

/* shell_loader.c */
void loader_turn(struct ui *ui, bool loading, bool woke);
void timeline_turn(struct ui *ui);
/* "loading trace.json 42% ..." into out. */
void progress_text(struct ui *ui, char *out, size_t size);

/* shell_bars.c */
/* The Compare tab is listed (and reached with Tab) only when two captures are open. */
bool tab_hidden(const struct ui *ui, size_t i);
void draw_header(struct ui *ui);
void draw_status(struct ui *ui);

/* shell_prompt.c */
void pick_clear(struct shell *sh);
void draw_pick(struct ui *ui);
/* The prompt in place of the status line. */
void draw_prompt(struct ui *ui);
void prompt_key(struct ui *ui, int ch);
void pick_key(struct ui *ui, int ch);

/* shell_help.c */
void draw_overlay(struct ui *ui);
/* A key while the help or diagnostics pane is open. */
void overlay_request(struct ui *ui, enum request r);

/* shell_keys.c */
void handle_key(struct ui *ui, int ch);

#endif
