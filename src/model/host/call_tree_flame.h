/* The icicle layout of a call tree (call_tree.h): which columns each node takes when the tree
 * is drawn top-down, one row per depth, each node a block whose width is proportional to a
 * figure (the device time launched, or the idle charged). Pure: no drawing, no curses.
 *
 * Positions are in eighths of a cell (a terminal column holds the eight left-aligned block
 * glyphs), so a width of w columns spans [0, 8w). Row 0 holds the roots side by side over the
 * whole width, in proportion to their figures (the root row spans the width when any root
 * has a figure). Below a block, its node's children share the block's span in proportion to
 * their figures, widest first, out of the larger of the node's own figure and the children's
 * sum (a device slice launched from two children counts once in their parent, so the
 * children may sum to more); what the children leave is the node's own part, drawn empty.
 * A child narrower than one cell (8 eighths) and every child after it are merged into one
 * filler block (node CT_NONE) standing for them; fillers have no children. Nodes whose figure
 * is 0 take no room and are left out.
 *
 * Blocks are stored row by row, left to right within a row, so the block beside one on its
 * row is the one before or after it with the same depth. */
#ifndef APTOP_CALL_TREE_FLAME_H
#define APTOP_CALL_TREE_FLAME_H
#include <stddef.h>
#include <stdint.h>

#include "model/host/call_tree.h"

enum ct_flame_by { CT_FLAME_DEVICE, CT_FLAME_IDLE };

#define CT_FLAME_NO_BLOCK UINT32_MAX
#define CT_FLAME_CELL 8   /* eighths per cell */

struct ct_block {
    uint32_t node;      /* the tree's node; CT_NONE for a filler */
    uint32_t depth;     /* its row, 0 for the roots */
    uint32_t x0, x1;    /* [x0, x1) in eighths of a cell */
    uint32_t parent;    /* the block above it; CT_FLAME_NO_BLOCK in row 0 */
    uint32_t merged;    /* a filler: how many nodes it stands for; else 1 */
    ns_t figure;        /* the node's figure; a filler: the merged nodes' sum */
};

struct ct_flame {
    struct ct_block *blocks; size_t n;
    uint32_t rows;      /* rows holding a block */
    ns_t total;         /* the roots' figures summed: what the full width stands for */
};

/* The figure a flame of `by` measures a node with. */
ns_t call_tree_flame_figure(const struct ct_node *n, enum ct_flame_by by);

/* Lays t out over width columns and at most max_rows rows. NULL when memory ran out; an
 * empty layout (n 0) when no root has a figure or width / max_rows is 0. */
struct ct_flame *call_tree_flame(const struct call_tree *t, enum ct_flame_by by, int width, int max_rows);
void call_tree_flame_free(struct ct_flame *f);

/* The block of node (CT_FLAME_NO_BLOCK when the node has none: merged, too deep, or 0). */
uint32_t call_tree_flame_find(const struct ct_flame *f, uint32_t node);
/* The first block below block b (its widest child), CT_FLAME_NO_BLOCK when none. */
uint32_t call_tree_flame_child(const struct ct_flame *f, uint32_t b);

#endif
