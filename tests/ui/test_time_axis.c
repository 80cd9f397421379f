/* The time axis shared by the Timeline, X-Rank and Memory views (src/ui/timeline/time_axis.c), called
 * directly: columns and times map back and forth, a zoom keeps the time under the cursor on
 * its column, pans move the cursor with the window and never wrap, and the shared keys do
 * what the key table says. */
#include "../runner.h"
#include "ui/timeline/time_axis.h"

TEST(time_axis_columns_and_times_round_trip)
{
    struct time_axis a = { .t0 = -1000, .npc = 7, .ncols = 100 };
    for (int64_t c = -5; c < 105; c++) {
        ns_t at = time_axis_at(&a, c);
        CHECK_INT(time_axis_col(&a, at), c);
        CHECK_INT(time_axis_col(&a, at + a.npc - 1), c);      /* the whole column */
        CHECK_INT(time_axis_col_ceil(&a, at), c);
        CHECK_INT(time_axis_col_ceil(&a, at + 1), c + 1);
    }
    CHECK(time_axis_shows(&a, -1000));
    CHECK(!time_axis_shows(&a, -1001));
    CHECK_INT(time_axis_end(&a), -1000 + 700);
    CHECK(!time_axis_shows(&a, time_axis_end(&a)));
    CHECK(time_axis_shows(&a, time_axis_end(&a) - 1));
    /* timestamps at the int64 ends saturate instead of wrapping to the other side */
    CHECK(time_axis_col(&a, INT64_MAX) > 0);
    CHECK(time_axis_col(&a, INT64_MIN) < 0);
}

TEST(time_axis_zoom_keeps_the_cursor_on_its_column)
{
    struct time_axis a = { .t0 = 5000, .npc = 1024, .ncols = 80 };
    ns_t cur = time_axis_at(&a, 17) + 300;
    for (int i = 0; i < 8; i++) {
        time_axis_zoom(&a, true, cur);
        CHECK_INT(time_axis_col(&a, cur), 17);
    }
    CHECK_INT(a.npc, 4);
    for (int i = 0; i < 8; i++) {
        time_axis_zoom(&a, false, cur);
        CHECK_INT(time_axis_col(&a, cur), 17);
    }
    CHECK_INT(a.npc, 1024);
    /* the deepest zoom is 1 ns per column: zooming further changes nothing */
    for (int i = 0; i < 20; i++)
        time_axis_zoom(&a, true, cur);
    CHECK_INT(a.npc, 1);
    ns_t t0 = a.t0;
    time_axis_zoom(&a, true, cur);
    CHECK_INT(a.t0, t0);
    /* off screen: around the middle */
    struct time_axis b = { .t0 = 0, .npc = 100, .ncols = 80 };
    time_axis_zoom(&b, true, -1);
    CHECK_INT(b.npc, 50);
    CHECK_INT(time_axis_col(&b, 4000), 40);
    /* the wheel zooms around the column under the mouse, or the cursor left of the graph */
    struct time_axis w = { .t0 = 0, .npc = 100, .ncols = 80 };
    ns_t under = time_axis_at(&w, 60);
    time_axis_wheel(&w, true, 60, 0);
    CHECK_INT(time_axis_col(&w, under), 60);
    CHECK_INT(time_axis_col(&w, 3150), 3);
    time_axis_wheel(&w, false, -3, 3150);
    CHECK_INT(w.npc, 100);
    CHECK_INT(time_axis_col(&w, 3150), 3);
}

TEST(time_axis_pan_fit_show_and_keys)
{
    struct time_axis a = { .t0 = 0, .npc = 10, .ncols = 80 };
    ns_t cur = 55;
    time_axis_pan(&a, 1, &cur);
    CHECK_INT(a.t0, 200);          /* a quarter of 80 columns */
    CHECK_INT(cur, 255);
    CHECK(time_axis_request(&a, REQ_PAN_LEFT, &cur));
    CHECK_INT(a.t0, 0);
    CHECK_INT(cur, 55);
    CHECK(time_axis_request(&a, REQ_MOVE_RIGHT, &cur));
    CHECK_INT(a.t0, 200);
    CHECK(time_axis_request(&a, REQ_ZOOM_IN, &cur));
    CHECK_INT(a.npc, 5);
    CHECK(time_axis_request(&a, REQ_ZOOM_OUT, &cur));
    CHECK_INT(a.npc, 10);
    CHECK(!time_axis_request(&a, REQ_MOVE_UP, &cur));
    /* panning without end stops at 2^62 ns instead of wrapping */
    struct time_axis far = { .t0 = 0, .npc = (ns_t)1 << 52, .ncols = 1000 };
    ns_t fc = 0;
    for (int i = 0; i < 10000; i++)
        time_axis_pan(&far, 1, &fc);
    CHECK(far.t0 > 0 && time_axis_end(&far) > far.t0);
    /* fit: the span over the width; show: with a 5% margin each side */
    struct time_axis f = { .ncols = 100 };
    time_axis_fit(&f, 1000, 100999);
    CHECK_INT(f.t0, 1000);
    CHECK(time_axis_shows(&f, 100999));
    time_axis_show(&f, 0, 2000);
    CHECK(f.t0 == -100);
    CHECK(time_axis_shows(&f, 0) && time_axis_shows(&f, 2000));
    /* Home and End: the edges of [lo, hi], the cursor on them */
    ns_t c = 0;
    time_axis_edge(&f, 500, 9000, true, &c);
    CHECK_INT(c, 9000);
    CHECK_INT(time_axis_col(&f, 9000), f.ncols - 1);
    time_axis_edge(&f, 500, 9000, false, &c);
    CHECK_INT(c, 500);
    CHECK_INT(f.t0, 500);
    /* a resize keeps the time span shown */
    struct time_axis r = { .t0 = 0, .npc = 100, .ncols = 80 };
    CHECK(time_axis_resize(&r, 160));
    CHECK_INT(r.npc, 50);
    CHECK(!time_axis_resize(&r, 160));
}
