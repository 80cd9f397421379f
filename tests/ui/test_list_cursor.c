/* The shell's generic row movement (src/ui/shell/list_cursor.c), called directly: the moves clamp
 * to the rows, and view_request moves a view's rows only for the requests it left
 * unhandled. */
#include "../runner.h"
#include "ui/shell/view.h"

TEST(list_cursor_moves_clamp_to_the_rows)
{
    size_t sel = 0;
    struct list_cursor c = { &sel, 25, 10 };
    CHECK(list_cursor_move(&c, REQ_MOVE_UP));
    CHECK_INT(sel, 0);
    CHECK(list_cursor_move(&c, REQ_MOVE_DOWN));
    CHECK_INT(sel, 1);
    CHECK(list_cursor_move(&c, REQ_PAGE_DOWN));
    CHECK_INT(sel, 11);
    CHECK(list_cursor_move(&c, REQ_PAGE_DOWN));
    CHECK(list_cursor_move(&c, REQ_PAGE_DOWN));
    CHECK_INT(sel, 24);
    CHECK(list_cursor_move(&c, REQ_MOVE_DOWN));
    CHECK_INT(sel, 24);
    CHECK(list_cursor_move(&c, REQ_PAGE_UP));
    CHECK_INT(sel, 14);
    CHECK(list_cursor_move(&c, REQ_HOME));
    CHECK_INT(sel, 0);
    CHECK(list_cursor_move(&c, REQ_END));
    CHECK_INT(sel, 24);
    CHECK(!list_cursor_move(&c, REQ_ENTER));
    CHECK_INT(sel, 24);
    /* no rows: the cursor stays put, Home and End put it on 0 */
    struct list_cursor none = { &sel, 0, 10 };
    CHECK(list_cursor_move(&none, REQ_MOVE_DOWN));
    CHECK_INT(sel, 24);
    CHECK(list_cursor_move(&none, REQ_END));
    CHECK_INT(sel, 0);
    /* no list at all: nothing is handled */
    struct list_cursor nolist = { 0 };
    CHECK(!list_cursor_move(&nolist, REQ_MOVE_DOWN));
}

static size_t demo_sel;

/* A list view that handles Enter itself and leaves the moves to the shell. */
static enum request demo_request(struct view *v, enum request req, int key)
{
    (void)key;
    v->list = (struct list_cursor){ &demo_sel, 5, 2 };
    return req == REQ_ENTER ? REQ_NONE : req;
}

TEST(list_cursor_view_request_moves_what_the_view_left)
{
    static const struct view_ops ops = { .name = "demo", .request = demo_request };
    struct view v = { .ops = &ops };
    demo_sel = 0;
    CHECK_INT(view_request(&v, REQ_MOVE_DOWN, 0), REQ_NONE);
    CHECK_INT(demo_sel, 1);
    CHECK_INT(view_request(&v, REQ_PAGE_DOWN, 0), REQ_NONE);
    CHECK_INT(demo_sel, 3);
    CHECK_INT(view_request(&v, REQ_END, 0), REQ_NONE);
    CHECK_INT(demo_sel, 4);
    CHECK_INT(view_request(&v, REQ_ENTER, 0), REQ_NONE);
    CHECK_INT(view_request(&v, REQ_SORT_NEXT, 0), REQ_SORT_NEXT);   /* not a move: back */
    CHECK_INT(demo_sel, 4);
}
