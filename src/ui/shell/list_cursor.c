/* The shell's generic row movement (see list_cursor.h). */
#include "ui/shell/list_cursor.h"

#include "ui/shell/request.h"

bool list_cursor_move(const struct list_cursor *c, enum request req)
{
    if (!c->sel)
        return false;
    size_t *s = c->sel, n = c->n, page = c->page ? c->page : 1;
    switch (req) {
    case REQ_MOVE_UP: if (*s > 0 && n) (*s)--; return true;
    case REQ_MOVE_DOWN: if (*s + 1 < n) (*s)++; return true;
    case REQ_PAGE_UP: if (n) *s = *s > page ? *s - page : 0; return true;
    case REQ_PAGE_DOWN: if (n) *s = *s + page < n ? *s + page : n - 1; return true;
    case REQ_HOME: *s = 0; return true;
    case REQ_END: *s = n ? n - 1 : 0; return true;
    default: return false;
    }
}
