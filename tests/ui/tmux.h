/* Drives the real aptop binary in a detached tmux session, for UI tests. Each session gets
 * its own server socket (-L aptop-test-<pid>-<n>), pinned TERM, LANG, TZ, and (unless
 * started with tmux_start_sized(..., false)) LINES and COLUMNS. Waits poll capture-pane
 * until a text appears or a timeout passes, and print the screen when they fail. */
#ifndef APTOP_TEST_TMUX_H
#define APTOP_TEST_TMUX_H
#include <stdbool.h>

struct tmux {
    char sock[64];
    bool live;
};

/* tmux is installed? (tests SKIP otherwise) */
bool tmux_available(void);
/* Starts `$APTOP_BIN args` (default build/aptop) at cols x rows. After aptop exits the pane
 * shows "APTOP-EXIT=<status>". Returns false when tmux failed. */
bool tmux_start(struct tmux *t, const char *args, int cols, int rows);
/* tmux_start, with LINES and COLUMNS left unset when pin_size is false, so that aptop
 * follows the window when tmux_resize changes it. */
bool tmux_start_sized(struct tmux *t, const char *args, int cols, int rows, bool pin_size);
/* tmux_start_sized with more environment ("TERM=screen-256color NO_COLOR=1"): its
 * assignments come after the pinned ones, so they win. */
bool tmux_start_env(struct tmux *t, const char *env, const char *args, int cols, int rows, bool pin_size);
/* Resizes the session's window (aptop sees SIGWINCH). */
void tmux_resize(struct tmux *t, int cols, int rows);
/* Starts aptop on one path (quoted for sh) at cols x rows and waits until the screen shows
 * `until` ("?:help": the first frame; "loaded ": the load finished). A failure is recorded
 * at the caller's file and line (the screen printed); returns false then. */
bool tmux_open_at(const char *file, int line, struct tmux *t, const char *path, int cols, int rows,
                  const char *until, long timeout_ms);
#define tmux_open(t, path, cols, rows, until, timeout_ms) \
    tmux_open_at(__FILE__, __LINE__, t, path, cols, rows, until, timeout_ms)
/* Sends tmux key names ("Enter", "Escape", "C-o", "q"), NULL-terminated. */
void tmux_keys(struct tmux *t, ...) __attribute__((sentinel));
/* Sends literal text (no key-name lookup). */
void tmux_text(struct tmux *t, const char *text);
/* The current screen (malloc'd). */
char *tmux_screen(struct tmux *t);
/* Waits until the screen contains text; returns the elapsed ms, or -1 after timeout_ms
 * (the screen is then printed to stdout under a note naming `what`). */
long tmux_wait(struct tmux *t, const char *text, long timeout_ms);
/* Prints the screen (for failures found by the caller). */
void tmux_dump(struct tmux *t, const char *why);
void tmux_kill(struct tmux *t);

#endif
