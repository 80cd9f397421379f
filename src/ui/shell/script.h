/* Headless runs: `aptop --script FILE [--size COLSxROWS] PATH` drives the explorer from a
 * file of commands on an off-screen terminal and prints the screens it is asked for, so
 * the UI can be tested and automated without a terminal or tmux. One command per line
 * (blank lines and lines starting with # are skipped):
 *   keys K ...     keys by name: a character, Enter, Esc, Tab, BTab, Space, Up, Down, Left,
 *                  Right, PgUp, PgDn, Home, End, BSpace, F1 ... F12, C-x (Ctrl-x)
 *   text STRING    the rest of the line, typed as it is
 *   wait TEXT      go on once the screen shows TEXT; after 20 s (see timeout) the run
 *                  stops with "wait failed", the screen, and exit status 1
 *   timeout S      later waits give up after S seconds
 *   loaded         go on once loading has finished
 *   dump           print the screen: "--- screen N ---", its lines (trailing blanks cut)
 *   resize C R     give the terminal C columns and R rows
 * The run ends (as if q were pressed) after the last command. */
#ifndef APTOP_UI_SCRIPT_H
#define APTOP_UI_SCRIPT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct script;

/* Reads the script; NULL with a message in err (naming the file and line) when it cannot. */
struct script *script_open(const char *path, int cols, int rows, FILE *out, char *err, size_t errsize);
void script_free(struct script *sc);
/* The off-screen terminal (newterm on /dev/null) at the script's size; false when none. */
bool script_screen(struct script *sc);
void script_screen_end(struct script *sc);
/* The next key to feed, or ERR when the script waits for a frame or a condition. */
int script_key(struct script *sc);
/* After each frame: runs the commands that need the screen (wait, loaded, dump, resize),
 * once the frame was drawn with nothing left to read for it (settled: no slice_fields or
 * window export job was pending before the frame). Returns true when the script has ended (or failed): the
 * explorer quits. */
bool script_frame(struct script *sc, bool loaded, bool settled);
/* The run failed (a wait timed out); the exit status should say so. */
bool script_failed(const struct script *sc);
/* "--size 120x40": false when the text is not COLSxROWS within 20x5 .. 1000x500. */
bool script_parse_size(const char *s, int *cols, int *rows);

/* The script of this run (set before ui_run), or NULL for a terminal. */
extern struct script *ui_script;

#endif
