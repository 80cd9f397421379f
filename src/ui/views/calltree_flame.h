/* The Call tree view's flame (icicle) drawing: the tree laid out by
 * model/host/call_tree_flame.h, drawn with block glyphs (a full block per whole cell, a
 * left-aligned eighth block where a block ends inside a cell), each node's name written
 * inside its block where it fits (shortened in the middle), narrow nodes merged into a "…"
 * filler. A cursor on one block: Left/Right the block beside it on its row, Up its parent,
 * Down its widest child; a detail line gives the selected node's figures.
 *
 * The layout is recomputed only when the tree, the figure or the window size changes. */
#ifndef APTOP_CALLTREE_FLAME_H
#define APTOP_CALLTREE_FLAME_H
#include <curses.h>
#include <stdint.h>

#include "model/host/call_tree_flame.h"
#include "ui/shell/request.h"

struct ctf {
    enum ct_flame_by by;
    uint32_t node;                 /* the selected node (CT_NONE: the first block) */
    struct ct_flame *layout;       /* NULL: to be computed */
    const struct call_tree *of;    /* the tree, width and rows the layout was computed for */
    int width, rows;
};

/* Draws the flame of t (names from m) into w: a header line, two detail lines, the rows. */
void ctf_draw(struct ctf *f, WINDOW *w, const struct call_tree *t, const struct model *m, const char *title);
/* Moves the cursor for Up, Down, Left, Right, Home; true when req was one of those. */
bool ctf_move(struct ctf *f, enum request req);
/* The other figure: device time launched or idle charged. */
void ctf_toggle_by(struct ctf *f);
/* Forgets the layout (the tree changed or goes away). */
void ctf_reset(struct ctf *f);

#endif
