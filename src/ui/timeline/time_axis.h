/* The one time axis of the views that draw time left to right (Timeline, X-Rank, Memory):
 * column c covers [t0 + c*npc, t0 + (c+1)*npc). Each view keeps one and moves it with
 * zoom / pan / center / show / fit; time_axis_request does the keys they share. Integer ns
 * throughout; hostile timestamps near the int64 ends saturate instead of wrapping. */
#ifndef APTOP_TIME_AXIS_H
#define APTOP_TIME_AXIS_H
#include <stdbool.h>
#include <stdint.h>

#include "model/index/model.h"   /* ns_t */
#include "ui/shell/request.h"

struct time_axis {
    ns_t t0, npc;           /* npc: ns per column, >= 1 */
    int ncols;              /* columns of the graph area, 0 before the first draw */
};

/* End of the window: t0 + npc * ncols (one column before the first draw). */
ns_t time_axis_end(const struct time_axis *a);
/* Column holding time at (floor) and the first column at or after it (ceil); either may
 * lie outside [0, ncols). */
int64_t time_axis_col(const struct time_axis *a, ns_t at);
int64_t time_axis_col_ceil(const struct time_axis *a, ns_t at);
/* A new width: keeps the time span shown. Returns whether the width changed. */
bool time_axis_resize(struct time_axis *a, int ncols);
/* [lo, hi] over the whole width (hi <= lo: t0 = lo at 1 µs per column). */
void time_axis_fit(struct time_axis *a, ns_t lo, ns_t hi);
/* Halves (in) or doubles npc, keeping `around` on its column (the middle when it is off
 * screen). */
void time_axis_zoom(struct time_axis *a, bool in, ns_t around);
/* Moves a quarter width left (dir -1) or right (1) and *cur with it; t0 stops at +-2^62 ns
 * (never wraps however far it pans). */
void time_axis_pan(struct time_axis *a, int dir, ns_t *cur);
/* Puts `at` in the middle, keeping the zoom. */
void time_axis_center(struct time_axis *a, ns_t at);
/* Zooms to [lo, hi] with a 5% margin on each side. */
void time_axis_show(struct time_axis *a, ns_t lo, ns_t hi);
/* Start of column col (col may lie outside [0, ncols)). */
ns_t time_axis_at(const struct time_axis *a, int64_t col);
/* at lies in the window [t0, end). */
bool time_axis_shows(const struct time_axis *a, ns_t at);
/* The mouse wheel over column col: zooms in or out around that column's time (around cur
 * when col < 0, left of the graph). */
void time_axis_wheel(struct time_axis *a, bool in, int64_t col, ns_t cur);
/* Home / End: the start of [lo, hi] on the first column, or its end on the last one; the
 * cursor goes there. */
void time_axis_edge(struct time_axis *a, ns_t lo, ns_t hi, bool end, ns_t *cur);
/* The keys every time view shares: Left / a and Right / d pan (moving *cur along), w / s
 * zoom around *cur. False for any other request. */
bool time_axis_request(struct time_axis *a, enum request req, ns_t *cur);

#endif
