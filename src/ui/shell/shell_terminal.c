/* The shell's terminal: curses on the terminal or the script's off-screen one, the three
 * windows, and the signals that end the loop (the terminal is restored before exit). */
#include <string.h>

#include "ui/shell/shell_internal.h"
#include "util/oom.h"

volatile sig_atomic_t shell_signal;

static void on_signal(int sig)
{
    shell_signal = sig;
}

void install_signals(struct sigaction *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old[0]);
    sigaction(SIGTERM, &sa, &old[1]);
    sigaction(SIGHUP, &sa, &old[2]);
}

void restore_signals(const struct sigaction *old)
{
    sigaction(SIGINT, &old[0], NULL);
    sigaction(SIGTERM, &old[1], NULL);
    sigaction(SIGHUP, &old[2], NULL);
}

/* Memory running out on any thread ends the program (util/oom.h): the terminal first. */
void leave_curses(void)
{
    endwin();
}

/* curses on the terminal (or the script's off-screen one); false when there is none. */
bool terminal_start(struct script *script)
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

void terminal_end(struct ui *ui, struct script *script)
{
    delwin(ui->hdr);
    delwin(ui->body);
    delwin(ui->status);
    oom_on_exit(NULL);
    endwin();
    if (script)
        script_screen_end(script);
}

void make_windows(struct ui *ui)
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
