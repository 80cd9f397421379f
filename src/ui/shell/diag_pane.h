/* The diagnostics pane (`!`): every message whole, wrapped, scrolled by lines. */
#ifndef APTOP_DIAG_PANE_H
#define APTOP_DIAG_PANE_H
#include <curses.h>

#include "model/index/diag.h"

/* Draws the pane into w with the first shown line *top (clamped here); returns the number
 * of lines all messages take at this width. */
int diag_pane(WINDOW *w, struct diag *d, int *top);

#endif
