/* The diagnostics pane (`!`): every diagnostic and every status message whole, wrapped,
 * scrolled by lines. */
#ifndef APTOP_DIAG_PANE_H
#define APTOP_DIAG_PANE_H
#include <curses.h>

#include "model/index/diag.h"

/* Draws the pane into w with the first shown line *top (clamped here): the diagnostics d,
 * then the status messages said (NULL: none), each whole; returns the number of lines they
 * take at this width. */
int diag_pane(WINDOW *w, struct diag *d, struct diag *said, int *top);

#endif
