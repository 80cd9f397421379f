/* A request to a view: its own handler first, then the row moves it left to the shell
 * (view.h, list_cursor.h). */
#include "ui/shell/view.h"

enum request view_request(struct view *v, enum request req, int key)
{
    v->list = (struct list_cursor){ 0 };
    enum request r = v->ops->request(v, req, key);
    if (r != REQ_NONE && list_cursor_move(&v->list, r))
        r = REQ_NONE;
    return r;
}
