/* The cursor of a list-like view, moved by the shell (view.h): a view that shows rows names
 * its selected row, how many rows there are and how far a page goes in view->list while it
 * handles a request; Up, Down, PgUp, PgDn, Home and End that it leaves unhandled then move
 * that row (view_request). The view's draw keeps the row on screen. */
#ifndef APTOP_LIST_CURSOR_H
#define APTOP_LIST_CURSOR_H
#include <stdbool.h>
#include <stddef.h>

#include "ui/shell/request.h"

struct list_cursor {
    size_t *sel;            /* the view's selected row (NULL: no list) */
    size_t n;               /* rows */
    size_t page;            /* rows one PgUp / PgDn moves, >= 1 */
};

/* Moves *c->sel for Up, Down, PgUp, PgDn, Home and End, clamped to [0, n); false (and no
 * move) for any other request or when there is no list. */
bool list_cursor_move(const struct list_cursor *c, enum request req);

#endif
