/* The ncurses front end. ui_run owns the terminal from its first frame (drawn before the
 * loader has read a byte) until quit; it polls stdin and the loader's wake-up fd, installs
 * handed-over parts between frames and redraws. Returns the process exit code. */
#ifndef APTOP_UI_H
#define APTOP_UI_H
#include <stdio.h>

#include "io/load/loader.h"
#include "model/index/session.h"

int ui_run(struct session *s, struct loader *l, const char *title);
/* The same, opening the view named first_view ("Compare") instead of the first tab. */
int ui_run_view(struct session *s, struct loader *l, const char *title, const char *first_view);
/* Prints the one key table (view, keys, help) as `aptop --keys` and the man page show it. */
void keys_print(FILE *out);
/* Draws `frames` frames of a pan/zoom sequence of the timeline (the rank with the most
 * slices) into an off-screen terminal and prints p50/p99 ms per frame. Returns 0. */
int timeline_bench(struct session *s, int frames, FILE *out);
/* The same for the kernel table view: redraws while scrolling the instances of the top kernel. */
int table_bench(struct session *s, int frames, FILE *out);

#endif
